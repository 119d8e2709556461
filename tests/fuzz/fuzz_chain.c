/* libFuzzer target for the whole chain past the parsers: a .lg graph from the input, then
 * problem -> solve (local, greedy, exact) -> compile -> simulate (the study pipeline, as
 * `laysim validate` runs it) -> calibrate on the traces the runs wrote, with small limits
 * (a graph of at most 24 compute ops and 2e8 flops, 200,000 instructions per program, one second
 * per solver). A graph the reader rejects is fuzz_lg's business and ends here; past it,
 * every step either succeeds or fails with a code and a message. The pipeline itself
 * checks that the table's price of each compiled program equals the .lsp objective (a
 * mismatch is an error with a message); this target aborts on a run that succeeds with a
 * negative prediction or no simulated time, on a failure without a message, and on a
 * calibration that fails on traces the simulator just wrote. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "costmodel/calib_run.h"
#include "fuzz_common.h"
#include "graph/graph.h"
#include "graph/lg.h"
#include "study/pipeline.h"

#define CHAIN_MAX_OPS 24
#define CHAIN_MAX_FLOPS 2e8

static const char *const chain_solvers[] = {"local", "greedy", "exact"};
#define CHAIN_NSOLVERS (sizeof chain_solvers / sizeof chain_solvers[0])

/* A failure must come with a message. */
static void check_failure(int rc, const struct ls_error *err)
{
    if (rc && err->msg[0] == 0)
        abort();
}

/* Fit a table on the runs' traces, as `laysim calibrate --traces` does. */
static void calibrate(const struct sim_target *t, const struct cm_table *prior,
                      const char *const *traces, int n)
{
    struct cm_run_opts o;
    cm_run_opts_init(&o);
    o.traces = traces;
    o.ntraces = n;
    struct cm_run r;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = cm_calibrate(&o, t, prior, &r, &err);
    /* the simulator's own traces are well formed: only memory may run out */
    if (rc && rc != LS_ERR_NOMEM)
        abort();
    cm_run_free(&r);
}

static void run_chain(const struct graph *g, const char *dir)
{
    struct sim_target t;
    struct cm_table tb;
    if (sim_target_builtin(&t, "nc-v2"))
        abort();
    cm_table_default(&t, &tb);
    struct study_pipe_opts o;
    study_pipe_opts_init(&o);
    o.solve.time_limit = 1;
    o.cg.max_instructions = 200000;
    o.trace_dir = dir;
    struct study_pipe *p = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = study_pipe_new(g, &t, &tb, &o, &p, &err);
    check_failure(rc, &err);
    if (rc)
        return;
    const char *traces[CHAIN_NSOLVERS];
    int n = 0;
    for (size_t k = 0; k < CHAIN_NSOLVERS; k++) {
        const struct study_run *r = NULL;
        ls_error_clear(&err);
        rc = study_pipe_run(p, chain_solvers[k], &r, &err);
        check_failure(rc, &err);
        if (rc)
            continue;
        if (r->predicted < 0 || r->sim_cycles == 0)
            abort();
        if (r->trace_path[0])
            traces[n++] = r->trace_path;
    }
    if (n > 0)
        calibrate(&t, &tb, traces, n);
    study_pipe_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    if (graph_read("fuzz.lg", (const char *)data, size, &g, &err))
        return 0;
    struct graph_stats st;
    if (graph_validate(g, &err) || graph_stats(g, &st, &err) || st.compute_ops > CHAIN_MAX_OPS ||
        st.flops > CHAIN_MAX_FLOPS) {
        graph_free(g);
        return 0;
    }
    struct fuzz_path dir = fuzz_tmp_path(0, ".d");
    if (mkdir(dir.s, 0700) && access(dir.s, W_OK))
        abort();
    run_chain(g, dir.s);
    /* the traces of this input (one per strategy) */
    for (size_t k = 0; k < CHAIN_NSOLVERS; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s.lstrace", dir.s, chain_solvers[k]);
        remove(path);
    }
    graph_free(g);
    return 0;
}
