// libFuzzer target for the XLA HLO text importer (graph/import/hlo*.c). Not built by
// default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* Any text is imported: it must give a valid graph that writes as .lg and re-reads equal,
 * or LS_ERR_INPUT with a message naming a line and column. Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "fuzz_graph.h"
#include "graph/hlo.h"
#include "graph/lg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct ls_error err;
    ls_error_clear(&err);
    struct graph *g = NULL;
    int rc = hlo_import("fuzz.hlo", (const char *)data, size, &g, &err);
    if (rc) {
        fuzz_check_failure(rc, g, &err);
        if (err.line < 1 || err.col < 1)
            abort();
        return 0;
    }
    fuzz_check_graph(g);
    return 0;
}
