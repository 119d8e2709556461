/* codegen/attn: fused attention groups (scores batch_matmul -> softmax -> ctx batch_matmul)
 * lowered without the score matrix in HBM; see attn.c and docs/costmodel.md. */
#ifndef LS_CODEGEN_ATTN_H
#define LS_CODEGEN_ATTN_H

#include <stdint.h>

#include "codegen/codegen.h"

struct cg_attn_geom {
    int r;                       /* rank; axes 0..r-3 are batch axes */
    int64_t nb, Sq, Sk, D, Dv;   /* batch combos, queries, keys, head dims */
    size_t esq, esk, esv, eso;   /* element sizes of Q, K, V, ctx */
    int64_t chunk, nc, nkb, tpb; /* key chunk per PSUM bank, chunks, key blocks, transposes
                                    per bank */
    uint32_t ns;                 /* score buffers (PSUM double buffering or not) */
    uint32_t np;                 /* probability tiles in flight (3 or 4): the scores' copy
                                    to SBUF runs np - 1 tiles ahead of the transposes */
    uint32_t nqbuf;              /* Q^T load buffers (2, or 1 to make room for np = 4) */
};

struct cg_attn {
    int32_t op[3];               /* scores, softmax, ctx */
    struct cg_attn_geom m;
};

/* The fused group op belongs to: its role (0 scores, 1 softmax, 2 ctx) and the group in
 * *a, or -1. A function of the graph and the target only (decided before layouts). */
int cg_attn_find(const struct graph *g, const struct sim_target *t, int32_t op,
                 struct cg_attn *a);
/* The one configuration of the op of the given role (nslots partition axes). */
void cg_attn_cfg(const struct cg_attn *a, int role, int8_t *pax);
/* Lower the parts of the group (bit i: role i) into s, all tiles; tags[i] (or NULL: the
 * sink's op_tag) are the op tags of each part's instructions. */
int cg_lower_attn_group(const struct graph *g, const struct sim_target *t,
                        const struct cg_options *o, const struct cg_attn *a, unsigned parts,
                        const int32_t *tags, struct cg_sink *s, struct ls_error *err);

#endif
