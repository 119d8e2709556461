/* solver/heur: building blocks shared by the heuristic solvers. */
#ifndef LS_SOLVER_HEUR_H
#define LS_SOLVER_HEUR_H

#include <stdint.h>

#include "solver/incr.h"
#include "solver/solver.h"

/* Sum over ops of their cheapest cfg cost: a lower bound on every solution. */
int64_t lsp_trivial_bound(const struct lsp_problem *p);
/* Assign the (unassigned) ops of the list in order, each to the cfg with the smallest
 * marginal increase of the partial objective (ties: lowest index). ops == NULL: all. */
void lsp_greedy_construct(struct lsp_incr *s, const int32_t *ops, int32_t n);
/* Copy the full assignment of s into r->sol with cost and the trivial bound; status
 * optimal when cost equals a proven bound, else feasible. */
void lsp_result_take(struct lsp_result *r, const struct lsp_incr *s, int64_t bound);

#endif
