/* solver/tune: the autotuner — search over layout plans, rewarded by a caller's callback.
 *
 * The solver layer stays abstract: it knows the problem and a starting assignment, never
 * the hardware. The caller supplies the reward (study/tune wires it to codegen + sim; the
 * tests use a hidden cost matrix). docs/tune.md explains the model; in short:
 *
 *  - a TUNING POINT is one decision: an operator, or a group of operators that decide
 *    together (connected through shared tensors, at most group_max_ops of them);
 *  - its PLANS are joint configurations of the point's ops, with stable ids: plan 0 is the
 *    no-change plan (the starting assignment), plans 1.. are the top_k other joint
 *    assignments by static .lsp objective (every other op at its start configuration),
 *    cheapest first, ties in lexicographic order of the configuration tuple;
 *  - a DESIGN is one plan id per tuning point, in point order; replaying it over the start
 *    gives an assignment (distinct designs give distinct assignments);
 *  - an EXPLORER (mcts, random, sweep) proposes designs; every assignment is scored at most
 *    once (an in-memory metric cache, optionally backed by a persistent store); the start
 *    design is scored first and the best scored design is returned, so the result is never
 *    worse than the start.
 *
 * The registered solver `mcts` (solver/tune_solve.c) runs the mcts explorer with these
 * defaults from a start solver's assignment, the reward taken from lsp_solve_opts.
 *
 * Budgets: max_evaluations counts distinct assignments scored (the start included), whether
 * the score came from the callback or the store, so a count-budgeted run returns the same
 * design for the same seed with or without a warm store. time_limit stops between
 * evaluations. The run also ends when the whole design space has been scored.
 */
#ifndef LS_SOLVER_TUNE_H
#define LS_SOLVER_TUNE_H

#include <stddef.h>
#include <stdint.h>

#include "solver/problem.h"
#include "solver/solver.h"
#include "util/error.h"

/* ---- tuning points, plans, designs --------------------------------------------------- */

/* The defaults of lsp_tune_space_opts (`laysim tune --group/--top-k` spell their help
 * from them). */
#define LSP_TUNE_GROUP_DEFAULT 1
#define LSP_TUNE_TOP_K_DEFAULT 16

struct lsp_tune_space_opts {
    int32_t group_max_ops;   /* ops per tuning point (1 = one point per op) */
    int32_t top_k;           /* plans per point besides no-change (0 = all) */
    int64_t node_limit;      /* search nodes per point when enumerating its plans; 1e6 */
    /* Optional explicit grouping: group[op] >= 0 puts op in that tuning point (points are
     * ordered by their first op), -1 keeps it at its start configuration. Overrides
     * group_max_ops. NULL: automatic. */
    const int32_t *group;
};
void lsp_tune_space_opts_init(struct lsp_tune_space_opts *o);

struct lsp_tune_point {
    int32_t nops;
    const int32_t *ops;      /* the point's ops, ascending */
    int32_t nplans;          /* >= 2; plan 0 = no-change */
    const int32_t *plan_cfg; /* nplans * nops configuration indices, plan-major */
    const int64_t *plan_cost;/* static objective of start with this plan applied */
};

struct lsp_tune_space;

/* Build the tuning points of p around the full assignment start (each cfg in range).
 * Ops with a single configuration, and groups whose only plan is no-change, are not
 * tuning points. A space may have zero points (nothing to tune). */
int lsp_tune_space_build(const struct lsp_problem *p, const int32_t *start,
                         const struct lsp_tune_space_opts *o, struct lsp_tune_space **out,
                         struct ls_error *err);
void lsp_tune_space_free(struct lsp_tune_space *s);

const struct lsp_problem *lsp_tune_space_problem(const struct lsp_tune_space *s);
const int32_t *lsp_tune_space_start(const struct lsp_tune_space *s);
int32_t lsp_tune_space_npoints(const struct lsp_tune_space *s);
const struct lsp_tune_point *lsp_tune_space_point(const struct lsp_tune_space *s, int32_t i);
/* log10 of the number of designs (product of the plan counts); 0 for an empty space. */
double lsp_tune_space_log10_size(const struct lsp_tune_space *s);
/* The number of designs, or 0 when it exceeds 2^62. */
uint64_t lsp_tune_space_size(const struct lsp_tune_space *s);
/* Replay a design (npoints plan ids, each in range) into a full assignment (nops). */
void lsp_tune_design_apply(const struct lsp_tune_space *s, const int32_t *design,
                           int32_t *assignment);

/* ---- rewards and the metric store ---------------------------------------------------- */

/* The reward: the cost of running `assignment` (nops cfg indices), lower is better (for
 * laysim: simulated cycles). A design that cannot run may be scored HUGE_VAL (it is then
 * never chosen); a non-zero return stops the tuning run with that error. */
typedef lsp_reward_fn lsp_tune_eval_fn;   /* solver/solver.h */

/* 64-bit FNV-1a hash of an assignment (the in-memory cache key, passed to the store). */
uint64_t lsp_tune_assignment_hash(const int32_t *assignment, int32_t nops);

/* A persistent backing for the metric cache (e.g. study/tune's SQLite store). lookup sets
 * *found (and *cycles when found); save records a fresh score. Either may be NULL. */
struct lsp_tune_store {
    void *ctx;
    int (*lookup)(void *ctx, const int32_t *assignment, int32_t nops, uint64_t hash,
                  double *cycles, int *found, struct ls_error *err);
    int (*save)(void *ctx, const int32_t *assignment, int32_t nops, uint64_t hash,
                double cycles, struct ls_error *err);
};

/* ---- running ------------------------------------------------------------------------- */

struct lsp_tune_progress {
    uint64_t evaluations;    /* distinct assignments scored so far */
    uint64_t budget;         /* max_evaluations (0 = none) */
    uint64_t callbacks;      /* of which scored by the reward callback */
    double start_cycles, best_cycles;
    double seconds;
};

struct lsp_tune_opts {
    const char *explorer;    /* "mcts" (default), "random", "sweep": lsp_tune_explorers() */
    uint64_t seed;           /* default 1 */
    uint64_t max_evaluations;/* 0 = none */
    double time_limit;       /* seconds, <= 0 = none */
    double uct_c;            /* mcts: exploration constant (scores are in [0,1]); 0.5 */
    double uct_best;         /* mcts: weight of a child's best score vs its mean; 0.5 */
    double rollout_mutations;/* mcts: points a rollout redraws around the incumbent; 1.5 */
    double score_window;     /* mcts: a score's closeness to the incumbent is 1 at the
                                incumbent and 0 at score_window (relative) slower; 0.05 */
    double score_mix;        /* mcts: weight of that closeness vs the rank among all scores
                                (1 - score_mix) in a node's value; 0.5 */
    double neighbour_share;  /* mcts: share of iterations that score the incumbent's next
                                unscored single-plan move instead of descending the tree;
                                0.5 */
    const struct lsp_tune_store *store;   /* NULL = in-memory cache only */
    void (*progress)(void *ctx, const struct lsp_tune_progress *pr);  /* after each score */
    void *progress_ctx;
};
void lsp_tune_opts_init(struct lsp_tune_opts *o);

struct lsp_tune_result {
    int32_t npoints, nops;
    int32_t *best_design;    /* npoints plan ids (malloc'd) */
    int32_t *best_assignment;/* nops cfg indices (malloc'd) */
    double start_cycles, best_cycles;
    uint64_t evaluations;    /* distinct assignments scored (the budget unit) */
    uint64_t callbacks;      /* reward callback calls */
    uint64_t store_hits;     /* scores taken from the store */
    uint64_t repeats;        /* proposals answered by the in-memory cache */
    uint64_t iterations;     /* explorer steps */
    uint64_t best_at;        /* evaluation number (1 = the start) that found the best */
    int exhausted;           /* every design was scored */
    int timed_out;           /* stopped by time_limit */
    double seconds;
};
void lsp_tune_result_init(struct lsp_tune_result *r);
void lsp_tune_result_free(struct lsp_tune_result *r);

/* Run an explorer over s. r must be initialised; it is filled even when the run is cut by
 * a budget. LS_ERR_INPUT for an unknown explorer or bad option values; callback and store
 * errors are passed through (r then holds the best so far, when the start was scored). */
int lsp_tune_run(const struct lsp_tune_space *s, lsp_tune_eval_fn eval, void *eval_ctx,
                 const struct lsp_tune_opts *o, struct lsp_tune_result *r,
                 struct ls_error *err);

struct lsp_tune_explorer_info {
    const char *name;
    const char *summary;
};
/* The explorers, in registry order. */
const struct lsp_tune_explorer_info *lsp_tune_explorers(size_t *n);

#endif
