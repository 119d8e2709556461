/* solver/exact_wc: depth-first branch and bound on one component of the cost-function
 * network (exact_fg), bounded by soft arc consistency (internal to the exact solver;
 * docs/exact.md, "Search with soft arc consistency").
 *
 * Every function of the network has arity <= 2, so the component is a binary weighted
 * CSP; variables with at most two neighbours are eliminated first (exact_wc_net). At each node the costs are moved by equivalence-preserving projections and
 * extensions (node consistency, AC*, full directional arc consistency and existential
 * checks, i.e. EDAC) into a constant c0 that bounds every completion from below; a value whose unary cost would
 * reach the incumbent is removed. Only the deltas of each binary table are trailed, so
 * backtracking restores O(domain) numbers per touched table. */
#ifndef LS_SOLVER_EXACT_WC_H
#define LS_SOLVER_EXACT_WC_H

#include <stdint.h>

#include "solver/exact_fg.h"
#include "solver/solver.h"
#include "util/clock.h"

struct ex_wc_opts {
    const struct ls_deadline *deadline;
    uint64_t node_limit;         /* 0: none */
    uint64_t node_limit_per_var; /* 0: none; else at most this many nodes per variable of
                                    the reduced network (the smaller limit applies) */
    double max_gap;              /* > 0: no search when (incumbent - root bound) exceeds
                                    this fraction of the incumbent */
};

struct ex_wc_out {
    int optimal;             /* the search was exhausted: the incumbent is optimal */
    int stopped;             /* deadline, stop flag or node limit */
    int64_t lb;              /* proven lower bound of the component */
    int64_t root_lb;         /* the root's bound */
    int skipped;             /* max_gap: the root was too far from the incumbent */
    uint64_t nodes;
    int unsupported;         /* a function of arity > 2: nothing was done */
};

/* Improve the incumbent of component c: cfg (global, nops) holds it on entry and the
 * best found on return, *cost its component cost (in/out). Returns 0 or LS_ERR_NOMEM. */
int ex_wc_solve(const struct lsp_problem *p, const struct ex_fg *g, int32_t c,
                const struct ex_wc_opts *o, int32_t *cfg, int64_t *cost, struct ex_wc_out *out);

#endif
