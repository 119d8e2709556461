/* solver/solver: the common interface of every layout selection solver, and the registry.
 *
 * A solver takes a finished problem and options and fills a result: a solution (status
 * optimal / feasible / unknown, cost, lower bound when known, assignment), the run time
 * and named statistics. Solvers are registered in solver/solvers.def, one line each:
 *
 *     LSP_SOLVER(name, "one-line summary")
 *
 * which declares and lists `int lsp_solve_<name>(const struct lsp_problem *,
 * const struct lsp_solve_opts *, struct lsp_result *, struct ls_error *)`. The function is
 * defined in the solver's own file; nothing else needs editing.
 *
 * Contract for a solver function:
 *  - the result arrives initialised (lsp_result_init) with r->sol.cfg allocated for
 *    p->nops ops; the solver fills sol.cfg, sol.status, sol.cost (must equal
 *    lsp_eval(p, sol.cfg)), sol.has_bound/bound, and statistics;
 *  - a solver that finds no assignment sets sol.status = LSP_UNKNOWN and sol.nops = 0;
 *  - hitting the time limit is not an error: return 0 with the best assignment so far
 *    (status feasible) or none (unknown);
 *  - deterministic for a given seed unless the run was cut by the wall clock;
 *  - never prints; returns 0 or an ls_status code with err filled.
 * lsp_solve() measures seconds and checks sol.cost against lsp_eval.
 */
#ifndef LS_SOLVER_SOLVER_H
#define LS_SOLVER_SOLVER_H

#include <stddef.h>
#include <stdint.h>

#include "solver/problem.h"
#include "util/error.h"

/* Per-solver tuning knobs as key=value strings ("rb.exhaustive_max=1e5"); the keys, types,
 * defaults, ranges and help of every solver are one table, solver/params.def. lsp_solve
 * checks the given ones against it (lsp_params_check) and solvers read them with
 * lsp_param_num / lsp_param_word. */
#define LSP_MAX_PARAMS 32

struct lsp_param {
    const char *key;
    const char *value;
};

/* A measured objective, for solvers that run assignments instead of pricing them (mcts):
 * the cost of running `assignment` (nops cfg indices), lower is better (for laysim:
 * simulated cycles, wired by study/tune). An assignment that cannot run scores HUGE_VAL; a
 * non-zero return stops the solver with that error. */
typedef int (*lsp_reward_fn)(void *ctx, const int32_t *assignment, double *reward,
                             struct ls_error *err);

struct lsp_solve_opts {
    double time_limit;       /* seconds; <= 0: none */
    uint64_t seed;           /* for randomized solvers */
    int threads;             /* <= 1: single-threaded */
    uint64_t node_limit;     /* count budget (search nodes, iterations); 0: none */
    const struct lsp_solution *start;  /* optional warm start (a full assignment) */
    int nparams;
    struct lsp_param params[LSP_MAX_PARAMS];
    /* The reward and its context; NULL: none (solvers that need one fail with
     * LS_ERR_INPUT, the others ignore it). reward_note (may be NULL) says why the reward
     * rejected its first assignment, for the error when it rejects all of them. */
    lsp_reward_fn reward;
    void *reward_ctx;
    const char *(*reward_note)(void *ctx);
};

/* Defaults: no limits, seed 1, one thread, no params. */
void lsp_opts_init(struct lsp_solve_opts *o);
/* Add "key=value" (the strings must outlive the options). LS_ERR_INPUT when malformed
 * or too many. */
int lsp_opts_add_param(struct lsp_solve_opts *o, const char *kv, struct ls_error *err);
/* Value of key as given (the last setting wins), or NULL. */
const char *lsp_opt_str(const struct lsp_solve_opts *o, const char *key);

/* One row of solver/params.def. */
enum lsp_param_type { LSP_PARAM_INT, LSP_PARAM_REAL, LSP_PARAM_WORD };
struct lsp_param_def {
    const char *solver;      /* the solver's registry name */
    const char *key;         /* "rb.exhaustive_max" */
    enum lsp_param_type type;
    const char *def;         /* default, as text; "": computed by the solver (see help) */
    double min, max;         /* INT, REAL: the accepted range */
    const char *choices;     /* WORD: "a|b|c", or "" for any text */
    const char *help;
};
/* The whole table, solvers in params.def order. */
const struct lsp_param_def *lsp_param_defs(size_t *n);
/* The keys of solver as "a, b, c" in buf; returns how many (0: it takes none). */
int lsp_param_keys(const char *solver, char *buf, size_t n);
/* LS_ERR_INPUT when a param of o is not one of solver's keys (the message lists them) or
 * its value is malformed or out of range. lsp_solve calls it before the solver runs. */
int lsp_params_check(const char *solver, const struct lsp_solve_opts *o, struct ls_error *err);
/* The value of key or its table default: the number (an INT is integral), or for a WORD
 * with choices the index of the choice. NAN for a computed default not given. The key must
 * be in the table (LS_ERR_INTERNAL); LS_ERR_INPUT for a bad value. */
int lsp_param_num(const struct lsp_solve_opts *o, const char *key, double *out,
                  struct ls_error *err);
/* The text of key or its default (NULL for a computed default, or a key not in the table). */
const char *lsp_param_word(const struct lsp_solve_opts *o, const char *key);

/* Named statistics, in insertion order. A plain value (results copy it); the keys are the
 * solvers' own names, never input, so the limits below are the code's: a set past them
 * is remembered in `lost` and lsp_solve fails with an internal error naming the limit
 * instead of dropping the statistic. */
#define LSP_MAX_STATS 48
#define LSP_STAT_KEY_MAX 47      /* bytes in a key */
struct lsp_stats {
    int n;
    struct {
        char key[LSP_STAT_KEY_MAX + 1];
        double value;
    } item[LSP_MAX_STATS];
    const char *lost;        /* first key that did not fit (NULL: none) */
};
/* Set (or overwrite) key; past the limits, records the key in s->lost. */
void lsp_stats_set(struct lsp_stats *s, const char *key, double value);
void lsp_stats_add(struct lsp_stats *s, const char *key, double delta);
/* NULL when absent. */
const double *lsp_stats_get(const struct lsp_stats *s, const char *key);
/* 0, or LS_ERR_INTERNAL naming the limit a statistic of `who` went past. */
int lsp_stats_check(const struct lsp_stats *s, const char *who, struct ls_error *err);

struct lsp_result {
    struct lsp_solution sol;
    double seconds;          /* wall clock of the solve call */
    struct lsp_stats stats;
};

void lsp_result_init(struct lsp_result *r);
void lsp_result_free(struct lsp_result *r);

typedef int (*lsp_solve_fn)(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                            struct lsp_result *r, struct ls_error *err);

struct lsp_solver {
    const char *name;
    const char *summary;
    lsp_solve_fn solve;
};

/* The registry, in solvers.def order. */
const struct lsp_solver *lsp_solvers(size_t *n);
/* NULL when unknown. */
const struct lsp_solver *lsp_solver_find(const char *name);

/* Run solver `name` on a finished problem: initialises r (free it with lsp_result_free),
 * times the call, and verifies the reported cost against lsp_eval (LS_ERR_INTERNAL on a
 * mismatch). LS_ERR_INPUT for an unknown solver name. */
int lsp_solve(const char *name, const struct lsp_problem *p, const struct lsp_solve_opts *o,
              struct lsp_result *r, struct ls_error *err);

#define LSP_SOLVER(name, summary)                                                     \
    int lsp_solve_##name(const struct lsp_problem *p, const struct lsp_solve_opts *o, \
                         struct lsp_result *r, struct ls_error *err);
#include "solver/solvers.def"
#undef LSP_SOLVER

#endif
