/* solver/incr: an incrementally maintained (partial) assignment and its objective.
 * Unassigned ops (cfg -1) contribute nothing: no op cost, no layout requests, and a
 * tensor whose producer is unassigned costs nothing. Assigning ops can only add cost, so
 * the partial objective is a lower bound for every completion (used for pruning). */
#ifndef LS_SOLVER_INCR_H
#define LS_SOLVER_INCR_H

#include <stdint.h>

#include "solver/problem.h"

struct lsp_incr {
    const struct lsp_problem *p;
    int32_t *cfg;            /* nops entries; -1 = unassigned */
    int32_t *req;            /* per tensor and layout: number of assigned slots asking for it */
    int64_t *req_off;        /* ntensors offsets into req */
    int64_t cost;            /* objective of the current partial assignment */
};

int lsp_incr_init(struct lsp_incr *s, const struct lsp_problem *p);  /* all unassigned */
void lsp_incr_free(struct lsp_incr *s);
/* Set op o to cfg c (-1 = unassign); returns the change of s->cost. */
int64_t lsp_incr_set(struct lsp_incr *s, int32_t o, int32_t c);
/* Change of the objective if o moved to c, without moving. */
int64_t lsp_incr_delta(struct lsp_incr *s, int32_t o, int32_t c);
/* Transpose cost of tensor t in the current state. */
int64_t lsp_incr_tensor_cost(const struct lsp_incr *s, int32_t t);

/* Single-operator improvement: sweep the ops (a list, or all when ops == NULL) in order,
 * moving each to its best cfg (lowest index among equals) while that strictly lowers the
 * objective, until a sweep changes nothing or the deadline passes. max_op_cost >= 0
 * restricts moves to cfgs whose op cost is <= the current one (peephole); -1 = any.
 * Returns the number of moves; *timed_out set when stopped by the deadline. */
struct ls_deadline;
int64_t lsp_incr_improve(struct lsp_incr *s, const int32_t *ops, int32_t nops, int peephole,
                         const struct ls_deadline *dl, int *timed_out);

#endif
