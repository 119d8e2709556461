/* Checks shared by the fuzz targets that produce a graph (importers: HF config, ONNX,
 * TF.js): an import either fails with LS_ERR_INPUT and a message, or gives a valid graph
 * that writes as .lg and re-reads equal. Not part of any library. */
#ifndef LS_FUZZ_GRAPH_H
#define LS_FUZZ_GRAPH_H

#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "graph/lg.h"

/* A failed import (rc != 0) must leave no graph and report LS_ERR_INPUT with a message. */
static inline void fuzz_check_failure(int rc, const struct graph *g, const struct ls_error *err)
{
    if (g || rc != LS_ERR_INPUT || err->msg[0] == 0)
        abort();
}

/* g validates, writes as .lg and reads back equal; frees g. */
static inline void fuzz_check_graph(struct graph *g)
{
    struct ls_error err;
    ls_error_clear(&err);
    if (graph_validate(g, &err))
        abort();
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    if (!fp || graph_write(g, fp, &err))
        abort();
    fclose(fp);
    struct graph *h = NULL;
    if (graph_read("again.lg", buf, len, &h, &err) || !graph_equal(g, h, NULL, 0))
        abort();
    graph_free(h);
    graph_free(g);
    free(buf);
}

#endif
