/* solver/dp_ntd: nice tree decompositions (leaf / introduce / forget / join) built on
 * util/treedec, for the dp solver (internal). */
#ifndef LS_SOLVER_DP_NTD_H
#define LS_SOLVER_DP_NTD_H

#include <stdint.h>

#include "util/error.h"
#include "util/treedec.h"

enum dp_node_type { DP_LEAF, DP_INTRO, DP_FORGET, DP_JOIN };

struct dp_node {
    int32_t type;            /* enum dp_node_type */
    int32_t v;               /* introduced / forgotten vertex, -1 otherwise */
    int32_t child[2];        /* -1 when absent */
    int32_t bag_off, bag_len;  /* sorted vertices in dp_ntd.bag */
};

/* Nodes are stored children first: processing them in index order is bottom-up.
 * One root (empty bag) per tree of the decomposition. */
struct dp_ntd {
    int32_t nnodes;
    size_t cap;
    struct dp_node *node;
    int32_t *bag;
    int64_t nbag;
    size_t capbag;
    int32_t nroots;
    size_t caproots;
    int32_t *root;
    int32_t width;
};

int dp_ntd_build(const struct ls_treedec *td, struct dp_ntd *nt, struct ls_error *err);
/* Add a separate tree for an isolated vertex v: leaf, introduce v, forget v (a root). */
int dp_ntd_add_single(struct dp_ntd *nt, int32_t v, struct ls_error *err);
void dp_ntd_free(struct dp_ntd *nt);

#endif
