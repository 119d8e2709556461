/* study/tune: the autotuner (solver/tune.h) wired to the hardware model.
 *
 * The reward of an assignment is its simulated time: compile the whole-graph program with
 * codegen under the problem's latency table (the table picks each conversion's method),
 * run it on the target with sim, and take the total in base-clock cycles. Programs that
 * the target rejects (an input error from compile or sim) score HUGE_VAL and are never
 * chosen.
 *
 * The metric store: every simulated time goes into an SQLite table (`tune_metric`, in the
 * results database given with --db) keyed on
 *     (problem hash, assignment hash, target hash, table hash, codegen version)
 * so the same program is never simulated twice, across runs too. The problem hash covers
 * the model, its scaling and pins (the .lsp text); the assignment is stored and compared
 * on lookup, so a hash collision cannot return a wrong time.
 *
 *     struct study_tune_args a;  study_tune_args_init(&a);
 *     a.in = in; a.target = &t; a.table = &tb;
 *     a.tune.max_evaluations = 200;  a.db = "results.sqlite";
 *     struct study_tune_report rep;
 *     study_tune(&a, &rep, &err);       // rep.best (a .sol), rep.result.best_cycles
 *     study_tune_report_free(&rep);
 */
#ifndef LS_STUDY_TUNE_H
#define LS_STUDY_TUNE_H

#include <stdint.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/graph.h"
#include "sim/target.h"
#include "solver/problem.h"
#include "solver/solver.h"
#include "solver/tune.h"
#include "util/error.h"

/* The codegen version in the metric key: a program compiled by another codegen is another
 * program. codegen/codegen.h may define CG_VERSION; until then the laysim version. */
#ifdef CG_VERSION
#define STUDY_TUNE_CODEGEN_VERSION CG_VERSION
#else
#define STUDY_TUNE_CODEGEN_VERSION "laysim-" LAYSIM_VERSION
#endif

/* ---- the reward: compile + simulate ------------------------------------------------- */

struct study_tune_sim {
    const struct cm_instance *in;
    const struct sim_target *t;
    uint64_t simulations;    /* programs compiled and simulated */
    uint64_t rejected;       /* of which the target rejected (scored HUGE_VAL) */
    char first_reject[256];  /* why the first rejected program was rejected ("" = none) */
    double seconds;          /* spent compiling and simulating */
    /* keep_program: each program is compiled into the memory of the last one (prog; no
     * fresh pages per call: a tenth of olmoe's tuning), which study_tune_sim_free frees */
    int keep_program;
    struct sim_program *prog;
};

/* Bind the reward to the problem of an instance priced for target t. Both must outlive
 * the binding. */
void study_tune_sim_init(struct study_tune_sim *s, const struct cm_instance *in,
                         const struct sim_target *t);
/* The program kept between calls (keep_program); s can be bound again after. */
void study_tune_sim_free(struct study_tune_sim *s);
/* lsp_tune_eval_fn: ctx is a struct study_tune_sim. Base-clock cycles. */
int study_tune_simulate(void *ctx, const int32_t *assignment, double *cycles,
                        struct ls_error *err);
/* Make the simulated time the reward of the solver options o (what the mcts solver needs):
 * binds s to (in, t) and sets o->reward, reward_ctx and reward_note. s, in and t must
 * outlive the solve. */
void study_tune_reward(struct study_tune_sim *s, const struct cm_instance *in,
                       const struct sim_target *t, struct lsp_solve_opts *o);

/* ---- the metric store (SQLite rows of study/db.h, part STUDY_DB_TUNE) ------------------ */

struct study_db;

/* A store hook for lsp_tune_run bound to one (problem, target, table, codegen) key. */
struct study_tune_store {
    struct study_db *db;     /* opened with STUDY_DB_TUNE */
    uint64_t problem_hash, target_hash, table_hash;
    const char *codegen_version;
    uint64_t hits, saved;
};
/* Fill hook (ctx = st) for lsp_tune_opts.store. */
void study_tune_store_hook(struct study_tune_store *st, struct lsp_tune_store *hook);
/* Hash of a finished problem's .lsp text. */
uint64_t study_tune_problem_hash(const struct lsp_problem *p);

/* ---- the whole run -------------------------------------------------------------------- */

struct study_tune_args {
    /* the model, priced: an instance (problem, configurations, op map) built on (target,
     * table) — e.g. by cli/modelcmd. All must outlive the call. */
    const struct cm_instance *in;
    const struct sim_target *target;
    const struct cm_table *table;
    const char *start;               /* solver giving the start assignment; "rulebased" */
    double start_time_limit;         /* seconds for the start solver, <= 0 = none */
    /* The start assignment itself (p->nops cfg indices, each in range), e.g. a solution
     * the caller already has. When set, no start solver runs (start and start_time_limit
     * are ignored): rep->start is this assignment, status feasible, cost = its .lsp
     * objective, start_seconds 0. NULL (default) = solve with `start`. */
    const int32_t *start_cfg;
    struct lsp_tune_space_opts space;
    struct lsp_tune_opts tune;       /* explorer, seed, budgets, progress */
    const char *db;                  /* SQLite metric store, NULL = in memory only */
};
void study_tune_args_init(struct study_tune_args *a);

struct study_tune_report {
    struct lsp_solution start;       /* the start solver's solution, or a copy of
                                        args.start_cfg (owned) */
    struct lsp_solution best;        /* the best design as a solution: status feasible,
                                        cost = the .lsp objective (owned) */
    struct lsp_tune_result result;   /* evaluations, start/best cycles, ... */
    int32_t npoints;
    double log10_designs;
    double start_seconds;            /* start solver */
    uint64_t simulations, rejected;  /* programs compiled + simulated / rejected */
    double sim_seconds;
    int64_t db_rows;                 /* rows in the store after the run (-1: no store) */
};
void study_tune_report_free(struct study_tune_report *r);

/* Solve the start (or take args.start_cfg), build the tuning points, tune, and fill rep
 * (also when a budget cut the run short). LS_ERR_INPUT for an unknown start solver or
 * explorer, a start_cfg entry out of range, or bad options. */
int study_tune(const struct study_tune_args *a, struct study_tune_report *rep,
               struct ls_error *err);

#endif
