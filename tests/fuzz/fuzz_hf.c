// libFuzzer target for the HuggingFace config.json import (graph/import/hf.c). Not built
// by default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* A parsed config is scaled down (few layers, short sequence) and built; the build must
 * give a valid graph that writes as .lg and re-reads equal, or a LS_ERR_INPUT naming the
 * problem. A rejected config must give LS_ERR_INPUT. Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "graph/hf.h"
#include "graph/lg.h"
#include "graph/zoo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zoo_arch a;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = hf_arch_parse("config.json", (const char *)data, size, &a, &err);
    if (rc) {
        if (rc != LS_ERR_INPUT || err.msg[0] == 0)
            abort();
        return 0;
    }
    /* Keep the graph small whatever the file says: sizes are symbolic, layers are not. */
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.layers = a.family == ZOO_RESNET ? 18 : 2;
    o.seq = 16;
    o.batch = 1;
    o.image = a.family == ZOO_VIT || a.family == ZOO_VLM || a.family == ZOO_RESNET ? 64 : 0;
    struct graph *g = NULL;
    rc = zoo_arch_scale(&a, &o, &err);
    if (!rc)
        rc = zoo_arch_build(&a, &g, &err);
    if (rc) {
        if (g || rc != LS_ERR_INPUT || err.msg[0] == 0)
            abort();
        return 0;
    }
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
    return 0;
}
