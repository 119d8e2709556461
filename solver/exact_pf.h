/* solver/exact_pf: the exact solver's portfolio pieces (internal; docs/exact.md,
 * "Portfolio"): the memory budget, the rule-based seed, the race hook that starts the MIP
 * engine next to bucket elimination, and the canonical pass over a proven optimum. */
#ifndef LS_SOLVER_EXACT_PF_H
#define LS_SOLVER_EXACT_PF_H

#include <stdatomic.h>
#include <stdint.h>

#include "solver/exact_fg.h"
#include "solver/exact_mip.h"
#include "solver/solver.h"
#include "util/clock.h"

/* Default table budget in bytes: a quarter of MemAvailable (/proc/meminfo), at least
 * 768 MiB and at most 4 GiB; 768 MiB when /proc/meminfo cannot be read. */
int64_t ex_default_mem_limit(void);

struct ex_pf {
    const struct lsp_problem *p;
    const struct ex_fg *g;
    const struct lsp_solve_opts *o;
    double race_entries;     /* start the MIP engine past this many table entries */
    double budget;           /* table entries bucket elimination may use */
    char *done;              /* per component: already solved (not to be re-seeded) */
    const struct ls_deadline *dl;   /* the run's: the MIP engine gets the time left */
    atomic_int proved;       /* set by the MIP engine's proof: bucket elimination stops */
    int seeded;              /* the rule-based seed was applied */
    int started;
    int start_failed;        /* the MIP engine could not start: elimination alone */
    int64_t seed_gain;       /* cost the rule-based seed saved over the incumbent */
    char *raced;             /* per component: went through the hook (canonical pass) */
    int32_t wc_proven;       /* components the soft-arc-consistency search proved */
    double z3_seconds;       /* budget of the z3 member on SAT-like structure (0: never) */
    int z3_tried;            /* it runs once per problem */
    int32_t z3_proven;       /* components its proof settled */
    double wc_nodes;
    struct ex_mip_job job;
};

/* The ex_be_opts.sized hook (ctx: struct ex_pf). On a component that needs more than
 * race_entries or budget entries: the first time, seed every unsolved component with the
 * rule-based assignment where it is cheaper; search the component under soft arc
 * consistency (exact_wc, bounded); without a proof, start the MIP engine on the whole
 * problem (once) and, for a component past the budget, wait for it before going on. */
int ex_pf_sized(void *ctx, int32_t c, double exact_entries, int32_t *cfg, int64_t *cost,
                int *proven, struct ls_error *err);

/* Deterministic canonical form of an optimal assignment on the listed ops: repeatedly
 * move each op (in list order) to the lowest cfg index that does not raise the
 * objective, until nothing moves. LS_ERR_NOMEM or 0. */
int ex_canonical(const struct lsp_problem *p, const int32_t *ops, int32_t n, int32_t *cfg);

#endif
