/* libFuzzer target for the .lg reader. tests/fuzz/run.sh builds and runs it (and every
 * other target); CMake builds it with a plain driver (replay.c) as a normal test. */
/* Every input must give a valid graph that writes back and re-reads identically, or a
 * located LS_ERR_INPUT; anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "graph/lg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = graph_read("fuzz.lg", (const char *)data, size, &g, &err);
    if (rc) {
        if (g || (rc == LS_ERR_INPUT && (err.line < 1 || err.col < 1)))
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
    struct graph_stats st;
    if (graph_stats(g, &st, &err))
        abort();
    graph_free(h);
    graph_free(g);
    free(buf);
    return 0;
}
