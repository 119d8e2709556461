/* util/treedec: tree decompositions of undirected graphs by greedy elimination
 * (min-degree and min-fill). The one definition of "treewidth bound" in laysim:
 * graph statistics, problem statistics, the DP solver and the study all call this. */
#ifndef LS_UTIL_TREEDEC_H
#define LS_UTIL_TREEDEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/clock.h"
#include "util/error.h"

enum ls_elim_heuristic { LS_ELIM_MIN_DEGREE, LS_ELIM_MIN_FILL };

/* One bag per vertex, in elimination order: bag i holds order[i] and its neighbours at
 * the moment it was eliminated. parent[i] is the bag of the earliest-eliminated vertex
 * among those neighbours (-1 for a root; a disconnected graph gives a forest).
 * Every edge lies in some bag and the bags holding any vertex form a subtree. */
struct ls_treedec {
    int32_t n;            /* vertices = bags */
    int32_t width;        /* max bag size - 1; -1 for the empty graph */
    int32_t *order;       /* order[i] = vertex eliminated i-th */
    int32_t *bag_off;     /* n + 1 offsets into bag */
    int32_t *bag;         /* bag contents, each bag sorted ascending */
    int32_t *parent;      /* parent bag index or -1 */
};

/* edges: nedges pairs (u, v), 0 <= u, v < n; self loops and repeats are ignored. */
int ls_treedec_build(int32_t n, const int32_t *edges, size_t nedges,
                     enum ls_elim_heuristic h, struct ls_treedec *td, struct ls_error *err);
/* Both heuristics, keeps the narrower (min-fill on ties); min-fill within a work budget
 * (ls_treedec_best_budget). */
int ls_treedec_best(int32_t n, const int32_t *edges, size_t nedges, struct ls_treedec *td,
                    struct ls_error *err);
void ls_treedec_free(struct ls_treedec *td);
/* The same, giving up with LS_ERR_LIMIT once dl has passed (dl may be NULL: no limit). */
int ls_treedec_build_until(int32_t n, const int32_t *edges, size_t nedges,
                           enum ls_elim_heuristic h, const struct ls_deadline *dl,
                           struct ls_treedec *td, struct ls_error *err);
int ls_treedec_best_until(int32_t n, const int32_t *edges, size_t nedges,
                          const struct ls_deadline *dl, struct ls_treedec *td,
                          struct ls_error *err);

/* ls_treedec_best_until with min-fill's scoring budget (adjacency entries read; 0 = none)
 * given: past it, min-degree's decomposition is kept (best_until's budget is a few seconds
 * of work). */
int ls_treedec_best_budget(int32_t n, const int32_t *edges, size_t nedges,
                           const struct ls_deadline *dl, int64_t fill_work_max,
                           struct ls_treedec *td, struct ls_error *err);

/* Just the width bound (min of min-fill and min-degree); -1 for n == 0. */
int ls_treewidth_ub(int32_t n, const int32_t *edges, size_t nedges, int32_t *width,
                    struct ls_error *err);

#endif
