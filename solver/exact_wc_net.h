/* solver/exact_wc_net: one component of the cost-function network as a binary weighted
 * CSP with owned tables, reduced by eliminating every variable with at most two
 * neighbours (internal to exact_wc).
 *
 * Eliminating v with neighbours a, b replaces v's unary cost and its edges by the table
 * min_v (u_v + c_va + c_vb) on (a, b) (a unary on a with one neighbour, a constant with
 * none): the optimum is unchanged and no neighbour's degree grows, so the reduction is
 * one pass over a queue. Parallel edges are summed into one table. */
#ifndef LS_SOLVER_EXACT_WC_NET_H
#define LS_SOLVER_EXACT_WC_NET_H

#include <stdint.h>

#include "solver/exact_fg.h"

struct wc_edge {
    int32_t i, j;            /* local variables */
    int64_t *t;              /* t[a * dom_j + b], owned */
    int live;
};

struct wc_net {
    int32_t n;               /* local variables: the component's, ascending global id */
    int32_t *var;            /* local -> global */
    int32_t *dom;
    int64_t **u;             /* unary costs (u[0] owns the block) */
    int32_t ne, cape;
    struct wc_edge *e;
    int32_t **adj, *nadj, *capadj;   /* edge ids per variable (dead ones dropped lazily) */
    char *gone;              /* eliminated */
    int32_t nelim, *elim;    /* elimination order */
    int64_t c0;
};

/* 0: built; 1: a function of arity > 2 (not binary); -1: out of memory. */
int wc_net_build(struct wc_net *nt, const struct ex_fg *g, int32_t c);
void wc_net_free(struct wc_net *nt);
/* val[v] given for every live variable: fill the eliminated ones (reverse order). */
void wc_net_recover(const struct wc_net *nt, int32_t *val);

#endif
