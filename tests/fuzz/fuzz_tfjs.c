// libFuzzer target for the TF.js graph-model import (graph/import/tfjs*.c). Not built by
// default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* The input is a model.json text; no weight shards exist beside it, so constants whose
 * values shapes need must be inline. Import must give a valid graph that writes as .lg and
 * re-reads equal, or LS_ERR_INPUT with a message. Anything else aborts. Unknown dims get
 * small sizes so a mutated shape cannot make the graph huge. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "fuzz_graph.h"
#include "graph/lg.h"
#include "graph/tfjs.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct tfjs_opts o;
    tfjs_opts_init(&o);
    o.image = 8;
    struct ls_error err;
    ls_error_clear(&err);
    struct graph *g = NULL;
    int rc = tfjs_import("fuzz-no-such-dir/model.json", (const char *)data, size, &o, &g, &err);
    if (rc) {
        fuzz_check_failure(rc, g, &err);
        return 0;
    }
    fuzz_check_graph(g);
    return 0;
}
