/* codegen internals: tensor views in HBM, access-pattern construction, the tile planner
 * and the emission helpers shared by the lowering files. */
#ifndef LS_CODEGEN_CG_INT_H
#define LS_CODEGEN_CG_INT_H

#include <string.h>

#include "codegen/codegen.h"
#include "util/dtype.h"

#define R_ GRAPH_MAX_RANK

/* A tensor stored in layout pax: storage order [pax, the other axes ascending]. In HBM
 * (mem LS_MEM_HBM) from byte `base`; SBUF-resident (LS_MEM_SBUF) as blocks of `pblk`
 * partitions, block j at base + j * blk bytes, each partition holding its free elements in
 * storage order (strides are then per-partition element offsets; stride[pax] is unused). */
struct cg_view {
    int rank;
    int64_t dim[R_];
    int64_t stride[R_];          /* elements, per logical axis */
    int pax;
    enum ls_dtype dt;
    uint64_t base;
    int32_t tensor;
    enum ls_mem mem;
    uint64_t blk;
    int64_t pblk;
    /* > 0: a weight stored k-tiled in HBM (laid out at compile time for its matmuls):
     * [pax % pblk][pax / pblk][the other axes], so that one partition's rows of every
     * k-tile are contiguous; `tiles` = dim[pax] / pblk. stride[pax] is then the k-tile
     * stride (the other axes' size). */
    int64_t tiles;
};

/* Lowering state of one step (one op or one conversion). */
struct cg_em {
    const struct graph *g;
    const struct sim_target *t;
    const struct cg_options *o;
    struct cg_sink *s;
    struct ls_error *err;
    uint64_t sbuf_next;          /* bump allocator inside the step's region */
    int fail;                    /* sticky */
    uint32_t dmaq;               /* rotating DMA queue counter */
    uint64_t emitted;            /* instructions of this step so far */
};

void cg_view_make(struct cg_em *e, int32_t t, int pax, struct cg_view *v);
static inline int cg_resident(const struct cg_view *v) { return v->mem == LS_MEM_SBUF; }
/* Storage order of a view's axes (pax first when >= 0). Returns the count. */
int cg_storage_order(const struct cg_view *v, int *order);

/* Build an operand over a box of v. rax: the axis spread over rows (partitions of the
 * transfer), or -1 for nrows_bcast rows of pstride 0 (HBM only). fax[nf]: the free axes,
 * outermost first (axes with len 1 are dropped; adjacent dims merge). step: per-axis
 * element step (NULL = 1). Returns 0, -1 when more than 4 free dims remain, -2 when an
 * SBUF-resident view cannot express the box (rows not on its partition axis, or across
 * a block boundary). */
int cg_box(const struct cg_view *v, const int64_t *lo, const int64_t *len,
               const int64_t *step, int rax, uint32_t nrows_bcast, const int *fax, int nf,
               struct sim_operand *o);
/* k-tiles [kb0, kb0 + n) of a box of a k-tiled view in one operand: [pblk rows x n x the
 * box's free dims] (lo/len of the pax axis are ignored). -1 when more than 4 free dims
 * remain. */
int cg_box_tiles(const struct cg_view *v, int64_t kb0, int64_t n, const int64_t *lo,
                 const int64_t *len, const int *fax, int nf, struct sim_operand *o);

/* SBUF operand: nparts partitions from part0, `free` contiguous elements at addr. Inline
 * (as cg_instr): out of line, its returned copy was a tenth of compiling a large model. */
static inline struct sim_operand cg_sb(uint32_t part0, uint32_t nparts, uint64_t addr,
                                       enum ls_dtype dt, uint64_t free)
{
    return sim_sbuf(part0, nparts, addr, dt, (uint32_t)free);
}
/* Pattern helper: set o's free dims from (size, stride) lists (drops size-1 dims, merges);
 * when more than 4 dims remain, falls back to 1-D of the same element count. */
void cg_pattern(struct sim_operand *o, int n, const int64_t *size, const int64_t *stride);

/* SBUF allocation inside the step (bytes per partition); sets e->fail on overflow. */
uint64_t cg_alloc(struct cg_em *e, uint64_t bytes);
uint64_t cg_budget(const struct cg_em *e);   /* bytes still free in the step's region */
/* Bytes in the constant ring (for loads of weights: no producer, so they may run ahead
 * of the previous steps); CG_NO_RING when they do not fit in it. */
#define CG_NO_RING UINT64_MAX
uint64_t cg_ring_alloc(struct cg_em *e, uint64_t bytes);

/* Emit. Returns the handle or -1 (e->fail set). */
int64_t cg_emit(struct cg_em *e, struct sim_instr *in, const int64_t *deps, size_t nd);
static inline struct sim_instr cg_instr(struct cg_em *e, enum ls_engine eng,
                                        enum sim_opcode op, enum sim_func fn)
{
    struct sim_instr in = sim_instr_init(eng, op);
    in.func = (uint8_t)fn;
    in.op_tag = e->s->op_tag;
    in.conv_tag = e->s->conv_tag;
    return in;
}
/* DMA queue classes: loads of activations, stores, and loads of constants (weights),
 * which depend on no producer and so get queues of their own (no head-of-line blocking
 * behind loads that wait for the previous op's results). */
enum { CG_Q_LOAD, CG_Q_STORE, CG_Q_CONST, CG_Q_RING /* loads into the constant ring */ };
static inline int cg_load_class(const struct cg_em *e, int32_t t)
{
    return cg_layout_free(e->g, t) ? CG_Q_CONST : CG_Q_LOAD;
}
/* The function an engine instruction applies for an op of kind k: its activation (SiLU:
 * the sigmoid, which its lowering then multiplies by x), its arithmetic or max;
 * SIM_FN_NONE for other kinds. */
enum sim_func cg_op_fn(enum graph_op_kind k);

/* DMA copy from src to dst on the next queue of the given class (CG_Q_*). */
int64_t cg_dma(struct cg_em *e, int cls, const struct sim_operand *dst,
               const struct sim_operand *src, enum sim_opcode op, const int64_t *deps,
               size_t nd);
/* The next emitted instruction depends on every writer of the (tensor, pax) buffer (all of
 * them, kept by the sink). Later instructions on the same engine or DMA queue follow it, so
 * a reader calls this before its first instruction on each engine/queue it reads with. */
void cg_writers(struct cg_em *e, int32_t t, int pax);
void cg_wrote(struct cg_em *e, int32_t t, int pax, int64_t h);

/* Tile planner over an ordered list of axis extents: tiles are boxes that are a single
 * index on axes before `split`, a chunk of `chunk` on axis split, and full after it. */
struct cg_split {
    int n;                       /* axes */
    int64_t ext[R_];
    int split;                   /* -1: one tile covers everything (n == 0 or all full) */
    int64_t chunk;
};
/* fits(ctx, split, chunk) says whether a tile fits; picks the largest fitting tile.
 * Returns -1 when not even a single element fits. */
int cg_plan(struct cg_split *sp, int (*fits)(void *ctx, const struct cg_split *sp), void *ctx);
int64_t cg_split_tiles(const struct cg_split *sp);
/* Box of tile number i: lo/len per planned axis. */
void cg_split_box(const struct cg_split *sp, int64_t i, int64_t *lo, int64_t *len);
int64_t cg_split_tile_elems(const struct cg_split *sp);

static inline int64_t cg_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }
static inline int64_t cg_min(int64_t a, int64_t b) { return a < b ? a : b; }
static inline int64_t cg_max(int64_t a, int64_t b) { return a > b ? a : b; }

int cg_lower_map(struct cg_em *e, int32_t op, const int8_t *pax);
int cg_lower_preduce(struct cg_em *e, int32_t op, const int8_t *pax);
int cg_lower_matmul(struct cg_em *e, int32_t op, const int8_t *pax);
struct cg_epi;
/* An epilogue chain (codegen/epi.h) with its output in layout po: the matmul, its
 * evacuation adding the bias and applying the activation. */
int cg_lower_epi(struct cg_em *e, const struct cg_epi *c, int po);
int cg_lower_conv(struct cg_em *e, int32_t op, const int8_t *pax);
/* A conv2d epilogue chain with its output in layout po: the conv, its evacuation applying
 * the activation and writing the chain's output. */
int cg_lower_conv_epi(struct cg_em *e, const struct cg_epi *c, int po);
int cg_lower_move(struct cg_em *e, int32_t op, const int8_t *pax);
/* A cast or copy between two tensors in HBM in the same layout, as one DMA over their flat
 * view (a DMA casts): 1 when lowered so, 0 when it is the engines' (cg_lower_map). */
int cg_lower_cast_dma(struct cg_em *e, int32_t op, const int8_t *pax);
/* A reshape or transpose whose output the memory plan put in its input's bytes
 * (cg_res.aliased; both resident at one address in these layouts): its buffer becomes the
 * input's (the sink's hbm_alias) and nothing is emitted; 1, else 0. */
int cg_lower_alias(struct cg_em *e, int32_t op, const int8_t *pax);
int cg_fail(struct cg_em *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* cg_fail for an allocation that failed: LS_ERR_NOMEM, which no caller takes for an
 * infeasible configuration. */
int cg_fail_nomem(struct cg_em *e);

#endif
