/* codegen/memplan: which tensors stay resident in SBUF, and where.
 *
 * The plan is decided once per (graph, target) before layout selection and does not depend
 * on any layout choice, so that the price of an op stays a function of its own configuration
 * (C_op) and the price of a conversion a function of its tensor (C_tr). A resident tensor
 * reserves one slot per layout it keeps on chip (those cg_memplan_keeps allows, or, when they
 * do not fit together, the widest alone; a converted copy lives in the slot of its layout),
 * for its whole live range: from its producer to its last consumer in topological order. In
 * a layout it does not keep, the tensor lives in HBM (cg_memplan_sbuf_mask).
 * Everything else (graph inputs, weights, graph outputs, tensors touched by ops that only
 * lower through HBM, tensors that do not fit) lives in HBM. docs/costmodel.md, "Memory plan". */
#ifndef LS_CODEGEN_MEMPLAN_H
#define LS_CODEGEN_MEMPLAN_H

#include <stdint.h>

#include "graph/graph.h"
#include "sim/target.h"
#include "util/error.h"

struct cg_options;

#define CG_NO_SLOT UINT64_MAX

struct cg_res {
    int resident;                /* 1: in SBUF for its whole live range */
    uint64_t slot[GRAPH_MAX_RANK]; /* SBUF byte address (per partition) of layout index i,
                                      CG_NO_SLOT for a layout kept in HBM */
    int32_t first, last;         /* live range, positions in the topological order */
    uint32_t prev_off, nprev;    /* earlier occupants of its bytes: prev[prev_off ..] */
    int aliased;                 /* 1: a reshape's output in its input's bytes (default
                                    layouts, which map rows one to one): no copy there */
};

struct cg_memplan {
    int32_t ntensors;
    uint64_t region;             /* resident region: SBUF bytes [0, region) per partition: the
                                    plan's high-water mark, at most half of sbuf.usable_bytes */
    struct cg_res *res;          /* per tensor */
    int32_t *prev;               /* tensor ids, see cg_res.prev_off */
    int32_t *pos;                /* per op: position in the topological order */
    int no_ring;                 /* 1: no constant ring (some op needs the steps' room) */
    int64_t resident_tensors, spilled_tensors;
    uint64_t resident_bytes, spilled_bytes; /* whole-tensor bytes (one layout) */
    int64_t fused_tensors;       /* never materialized (fused attention, codegen/attn.h;
                                    epilogue chains, codegen/epi.h) */
    uint64_t fused_bytes;
    int64_t partial_tensors;     /* resident in fewer layouts than they could keep */
    int64_t aliased_tensors;     /* cg_res.aliased */
    const char *candidate;       /* which candidate plan this is, e.g. "partial-long+alias,
                                    first-fit" (a static string) */
};

/* Build the plan; o only supplies exact_transpose (conversions of a resident tensor must
 * have an on-chip method) and memplan (CG_MEMPLAN_PARTIAL: a tensor may keep a subset of
 * its layouts). Returns LS_ERR_NOMEM or 0. */
int cg_memplan_build(const struct graph *g, const struct sim_target *t,
                     const struct cg_options *o, struct cg_memplan *p, struct ls_error *err);
/* The plan's contract with the lowering (util/invariant.h; cg_memplan_build checks every
 * plan it builds): each resident tensor's live range is ordered and its slots lie in the
 * region, the region in sbuf.usable_bytes, and two tensors live at the same time share no
 * byte (an aliased tensor shares its input's on purpose and is left out). LS_ERR_INTERNAL
 * when broken, LS_ERR_NOMEM, or 0. */
int cg_memplan_check(const struct graph *g, const struct sim_target *tg,
                     const struct cg_memplan *p, struct ls_error *err);
/* The same with the resident region capped at cap bytes per partition (the default is half
 * of sbuf.usable_bytes). */
int cg_memplan_build_capped(const struct graph *g, const struct sim_target *t,
                            const struct cg_options *o, uint64_t cap, struct cg_memplan *p,
                            struct ls_error *err);
/* The candidate plans cg_memplan_build chooses among (by fewest spilled bytes): 2, or 6
 * with CG_MEMPLAN_PARTIAL; cg_memplan_build_plan builds candidate k (0 <= k < n) alone, for
 * a caller that chooses by another measure (costmodel/cm_model.c). */
int cg_memplan_nplans(const struct cg_options *o);
int cg_memplan_build_plan(const struct graph *g, const struct sim_target *t,
                          const struct cg_options *o, int k, struct cg_memplan *p,
                          struct ls_error *err);
void cg_memplan_free(struct cg_memplan *p);

/* 1 when t is SBUF-resident under plan p (NULL plan: nothing is); cg_memplan_in_sbuf:
 * and in layout pax it has a slot. */
int cg_memplan_resident(const struct cg_memplan *p, int32_t t);
int cg_memplan_in_sbuf(const struct cg_memplan *p, const struct graph *g, int32_t t, int pax);
/* The layout indices in which t lives in SBUF under plan p (bit i: index i), 0 when not
 * resident. */
unsigned cg_memplan_sbuf_mask(const struct cg_memplan *p, const struct graph *g, int32_t t);
/* 1 when a resident t keeps layout pax on chip (a function of its shape only). */
int cg_memplan_keeps(const struct graph *g, const struct sim_target *tg, int32_t t, int pax);

/* Bytes per partition of tensor t in layout pax as resident slot: 128-row blocks
 * (sbuf.partitions rows) of the free elements, in storage order. */
uint64_t cg_res_block_bytes(const struct graph *g, int32_t t, int pax);
uint64_t cg_res_slot_bytes(const struct graph *g, const struct sim_target *tg, int32_t t,
                           int pax);

#endif
