/* libFuzzer target for the whole chain past the parsers: a .lg graph from the input, then
 * problem -> solve (local, greedy, exact) -> compile -> simulate (the study pipeline, as
 * `laysim validate` runs it) -> calibrate on the traces the runs wrote, with small limits
 * (a graph of at most 24 compute ops and 2e8 flops, 200,000 instructions per program, one
 * second per solver; fuzz_chain.h). A graph the reader rejects is fuzz_lg's business and ends here; past it,
 * every step either succeeds or fails with a code and a message. The pipeline itself
 * checks that the table's price of each compiled program equals the .lsp objective (a
 * mismatch is an error with a message); this target aborts on a run that succeeds with a
 * negative prediction or no simulated time, on a failure without a message, and on a
 * calibration that fails on traces the simulator just wrote. */
#include <stdint.h>

#include "fuzz_chain.h"
#include "graph/graph.h"
#include "graph/lg.h"

#define CHAIN_MAX_OPS 24
#define CHAIN_MAX_FLOPS 2e8

static const char *const solvers[] = {"local", "greedy", "exact"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    if (graph_read("fuzz.lg", (const char *)data, size, &g, &err))
        return 0;
    struct graph_stats st;
    if (!graph_validate(g, &err) && !graph_stats(g, &st, &err) &&
        st.compute_ops <= CHAIN_MAX_OPS && st.flops <= CHAIN_MAX_FLOPS) {
        struct sim_target t;
        struct cm_table tb;
        if (sim_target_builtin(&t, "nc-v2"))
            abort();
        cm_table_default(&t, &tb);
        fuzz_chain_run(g, &t, &tb, solvers, 3);
    }
    graph_free(g);
    return 0;
}
