// libFuzzer target for the ONNX importer (graph/import/onnx*.c). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* Any byte string is imported with small default dims (batch 1, seq 8): it must give a
 * valid graph that writes as .lg and re-reads equal, or LS_ERR_INPUT with a message.
 * Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "fuzz_graph.h"
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
        fuzz_check_failure(rc, g, &err);
        return 0;
    }
    fuzz_check_graph(g);
    return 0;
}
