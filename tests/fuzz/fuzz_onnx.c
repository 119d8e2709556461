// libFuzzer target for the ONNX importer (graph/import/onnx*.c). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* Any byte string is imported with small default dims (batch 1, seq 8): it must give a
 * valid graph that writes as .lg and re-reads equal, or LS_ERR_INPUT with a message.
 * Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "graph/lg.h"
#include "graph/onnx.h"
#include "graph/zoo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.batch = 1;
    o.seq = 8;
    struct ls_error err;
    ls_error_clear(&err);
    struct graph *g = NULL;
    int rc = onnx_import("fuzz.onnx", data, size, &o, &g, &err);
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
