/* study/pipeline: the per-model pipeline every study runs.
 *
 *   graph + target + latency table
 *     -> configurations and the .lsp problem (costmodel)
 *     -> for each strategy (a solver name): solve, compile the solution, simulate it
 *        (optionally writing one .lstrace per strategy)
 *     -> per strategy: predicted cost (the .lsp objective = the table's price of the
 *        compiled program), simulated time, per-engine busy time, conversions inserted,
 *        the solution, solver seconds / status / bound, the solver's named statistics
 *        (rulebased: its arms, components_exhaustive / _split / _greedy).
 *
 * Reentrant: no global state; a pipeline object owns everything it returns. Several
 * pipelines may run on different threads (each with its own graph or a shared read-only
 * one). Deterministic for given inputs and seeds unless a solver hits its time limit.
 *
 * Usage:
 *     struct study_pipe_opts o; study_pipe_opts_init(&o);
 *     struct study_pipe *p;
 *     study_pipe_new(g, &target, &table, &o, &p, &err);      // builds the problem
 *     study_pipe_run(p, "exact", &res, &err);                 // or study_pipe_run_all
 *     ... res->predicted, res->sim_cycles ...
 *     study_pipe_free(p);                                     // frees every result
 */
#ifndef LS_STUDY_PIPELINE_H
#define LS_STUDY_PIPELINE_H

#include <stdint.h>

#include "codegen/codegen.h"
#include "costmodel/calibrate.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/graph.h"
#include "sim/sim.h"
#include "sim/target.h"
#include "solver/problem.h"
#include "solver/solver.h"
#include "traces/record.h"
#include "util/error.h"

/* The paper's comparison, in this order. */
#define STUDY_NSTRATEGIES 4
extern const char *const study_strategies[STUDY_NSTRATEGIES]; /* local greedy rulebased exact */

/* Progress of a long study call: done(ctx, 0, total, NULL) announces the total, then
 * done(ctx, k, total, what) after each unit of work (what names it). phase(ctx, what), when
 * set, names the work that starts now ("calibrating nc-v2", "bert-base @ nc-v2 (datasheet):
 * exact"), also before the total is known. Both may be called from several worker
 * threads at once. ctx is the caller's; the library never prints progress itself. */
struct study_progress_cb {
    void *ctx;
    void (*done)(void *ctx, size_t jobs_done, size_t jobs_total, const char *what);
    void (*phase)(void *ctx, const char *what);
};
/* Call cb's phase (when set) with the formatted text (at most 255 bytes). */
void study_progress_phase(const struct study_progress_cb *cb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

struct study_pipe_opts {
    struct lsp_solve_opts solve;  /* shared by every strategy (time limit, seed, params) */
    struct cg_options cg;         /* codegen options (exact_transpose) */
    const int *pins;              /* per op id (see cm_enumerate), NULL = none */
    /* When non-NULL, each run writes <trace_dir>/<trace_prefix><strategy>.lstrace. */
    const char *trace_dir;
    const char *trace_prefix;     /* NULL = "" */
    /* When non-NULL, each run writes its compiled program (text, docs/formats.md) to
     * <program_dir>/<trace_prefix><strategy>.lsprog. */
    const char *program_dir;
    int simulate;                 /* 0: stop after compiling (no sim figures); default 1 */
    /* Optional extra sink that sees every simulated record (e.g. an in-memory collector
     * for calibration); called after the trace file writer. NULL = none. */
    const struct trace_sink *sink;
    /* 1: keep every run's records in memory (study_run.recs, ids = instruction indices,
     * op_id / conv_id = indices into study_run.tags) and each instruction's table price
     * split into parts (study_run.parts) for calibration and error attribution. Default 0. */
    int keep_records;
    /* The table the parts are computed with (NULL = the pipeline's table). */
    const struct cm_table *parts_table;
    /* When set, a solved assignment for which skip(skip_ctx, cfg, nops) returns 1 is not
     * compiled nor simulated: its run has `skipped` set and `predicted`, no program
     * figures, no records (the calibration skips programs it has fitted). NULL = none. */
    int (*skip)(void *ctx, const int32_t *cfg, int32_t nops);
    void *skip_ctx;
};

void study_pipe_opts_init(struct study_pipe_opts *o);

struct study_run {
    char strategy[32];
    int rc;                       /* 0 = ok, else the failure's code (err holds it) */
    struct ls_error err;
    /* solver */
    struct lsp_solution sol;      /* owned by the pipeline */
    double solve_seconds;
    int status;                   /* enum lsp_status of the solution */
    int has_bound;
    int64_t bound;
    struct lsp_stats stats;       /* the solver's named statistics (rulebased arms...) */
    /* cost model: the .lsp objective of sol = the table's price of the compiled program */
    int64_t predicted;
    int skipped;                  /* solved only (study_pipe_opts.skip) */
    /* compile */
    int64_t conversions, instructions;
    uint64_t hbm_bytes;
    /* simulate (0 when opts.simulate == 0) */
    uint64_t sim_ticks;
    uint64_t sim_cycles;          /* base-clock cycles, rounded up */
    uint64_t busy_cycles[LS_ENGINE_COUNT]; /* per-engine busy time, base-clock cycles */
    double dma_efficiency;
    double conv_share;            /* conversions' share of the summed instruction time */
    char trace_path[512];         /* "" when no trace was written */
    char program_path[512];       /* "" when no program was written (program_dir) */
    /* keep_records only (else NULL / 0): records in instruction order */
    struct trace_record *recs;
    size_t nrecs;
    int64_t *price;               /* per instruction: cm_price under the pipeline's table */
    struct cm_parts *parts;       /* per instruction: cm_price_parts under parts_table */
    int32_t *tag;                 /* per instruction: op / conversion tag (index in tags) */
    const char *const *tags;      /* op / conversion names by record op_id / conv_id */
    size_t ntags;
};

struct study_pipe;

/* Build the configurations and the problem of g under (target, table). g, t and tb must
 * outlive the pipeline (t and tb are copied; g is not). */
int study_pipe_new(const struct graph *g, const struct sim_target *t, const struct cm_table *tb,
                   const struct study_pipe_opts *o, struct study_pipe **out,
                   struct ls_error *err);
void study_pipe_free(struct study_pipe *p);

const struct lsp_problem *study_pipe_problem(const struct study_pipe *p);
/* The target the pipeline simulates on (its copy). */
const struct sim_target *study_pipe_target(const struct study_pipe *p);
/* The priced instance (problem, configurations, op map) the problem belongs to. */
const struct cm_instance *study_pipe_instance(const struct study_pipe *p);

/* Solve with `strategy`, compile, simulate. *out points into the pipeline (valid until
 * study_pipe_free). A solver/compile/sim failure is returned AND recorded in (*out)->rc. */
int study_pipe_run(struct study_pipe *p, const char *strategy, const struct study_run **out,
                   struct ls_error *err);

/* Evaluate a given assignment (cfg index per problem op, in problem op order) as if a
 * solver had returned it: predicted cost, compile, simulate. label names it. */
int study_pipe_eval(struct study_pipe *p, const char *label, const int32_t *cfg,
                    const struct study_run **out, struct ls_error *err);

/* Free r's records, prices, parts and tags (keep_records) once they have served, e.g.
 * added to a fit; the rest of r stays. r must be one of p's runs. */
void study_pipe_drop_records(struct study_pipe *p, const struct study_run *r);

/* Run every strategy of names[0..n) in order; stops at the first hard error
 * (LS_ERR_NOMEM / LS_ERR_IO); per-strategy input failures are recorded in their run. */
int study_pipe_run_all(struct study_pipe *p, const char *const *names, int n,
                       const struct study_run **out, struct ls_error *err);

#endif
