/* codegen/map: elementwise, normalization, free-axis reduction, transpose and pooling ops,
 * tiled over partition-wide tiles of the output, double-buffered. Also the reduction whose
 * reduced axis is on partitions (ones-vector matmul on PE, or POOL partition reduce).
 *
 * Code: map_setup() and map_buffers() decide everything before the first instruction
 * (struct mapc: views, rows, tile plan; struct map_bufs: every SBUF buffer); then per tile
 * (map_tile, struct map_tile) load_input() per input, tile_operands(), and one emitter of
 * the op's family: emit_elementwise() (emit_pool), emit_norm_free() or emit_norm_part().
 * A normalized row that fits no step region whole: wide_rows() (chunks, read twice). */
#include "codegen/cg_int.h"

#define MAXIN 3

struct mapc {
    struct cg_em *e;
    const struct graph_op *x;
    int nin;
    struct cg_view vin[MAXIN], vout;
    struct graph_axis map[MAXIN][R_];
    int rin[MAXIN];
    int rax[MAXIN];          /* input axis on rows, -1: broadcast over rows */
    int ifax[MAXIN][R_], nifax[MAXIN];
    int po;                  /* output rows axis (-1: one row) */
    int64_t P, ptile;
    int nf, fax[R_];         /* output free axes */
    int norm;                /* out axis normalized (softmax/norms), -1 */
    int scratch;             /* scratch buffers (in output tiles) */
    struct cg_split sp;
    int64_t budget;
    const int8_t *pax;       /* the op's layouts: inputs, then the output */
    int is_norm;             /* softmax, layernorm or rmsnorm */
    int wide;                /* the normalized row is split into chunks (wide_row) */
};

/* Box of input s for an output box (full output-rank lo/len). */
static void in_box(const struct mapc *m, int s, const int64_t *olo, const int64_t *olen,
                   int64_t *lo, int64_t *len)
{
    const struct cg_view *v = &m->vin[s];
    for (int i = 0; i < m->rin[s]; i++) {
        const struct graph_axis *a = &m->map[s][i];
        switch (a->kind) {
        case GRAPH_AXIS_MAP:
        case GRAPH_AXIS_NORMALIZE:
            lo[i] = olo[a->out];
            len[i] = olen[a->out];
            if (v->dim[i] == 1) {
                lo[i] = 0;
                len[i] = 1;
            }
            break;
        case GRAPH_AXIS_WINDOW: {
            int k = a->out - 2;
            int64_t st = m->x->attrs.stride[k], pad = m->x->attrs.pad[k];
            int64_t kr = m->x->attrs.kernel[k];
            int64_t l0 = cg_max(0, olo[a->out] * st - pad);
            int64_t h = cg_min(v->dim[i] - 1, (olo[a->out] + olen[a->out] - 1) * st - pad + kr - 1);
            lo[i] = l0;
            len[i] = cg_max(1, h - l0 + 1);
            break;
        }
        case GRAPH_AXIS_BROADCAST:
            lo[i] = 0;
            len[i] = 1;
            break;
        default: /* REDUCE and anything else: whole axis */
            lo[i] = 0;
            len[i] = v->dim[i];
            break;
        }
    }
}

static void out_box(const struct mapc *m, int64_t r0, int64_t rn, const int64_t *flo,
                    const int64_t *flen, int64_t *lo, int64_t *len)
{
    for (int i = 0; i < m->vout.rank; i++) {
        lo[i] = 0;
        len[i] = m->vout.dim[i];
    }
    if (m->po >= 0) {
        lo[m->po] = r0;
        len[m->po] = rn;
    }
    for (int k = 0; k < m->nf; k++) {
        lo[m->fax[k]] = flo[k];
        len[m->fax[k]] = flen[k];
    }
}

static int64_t box_free(const int *ax, int n, const int64_t *len)
{
    int64_t p = 1;
    for (int k = 0; k < n; k++)
        p *= len[ax[k]];
    return p;
}

/* Bytes per partition of the tile plan sp's largest tile (the first one). */
static int64_t map_bytes(const struct mapc *m, const struct cg_split *sp)
{
    int64_t flo[R_], flen[R_], lo[R_], len[R_], ilo[R_], ilen[R_];
    cg_split_box(sp, 0, flo, flen);
    out_box(m, 0, m->ptile, flo, flen, lo, len);
    int64_t nout = box_free(m->fax, m->nf, len);
    int64_t bytes = cg_resident(&m->vout) ? 0 : 2 * nout * (int64_t)ls_dtype_size(m->vout.dt);
    bytes += m->scratch * nout * 4;
    for (int s = 0; s < m->nin; s++) {
        if (cg_resident(&m->vin[s]))
            continue;
        in_box(m, s, lo, len, ilo, ilen);
        bytes += 2 * box_free(m->ifax[s], m->nifax[s], ilen) *
                 (int64_t)ls_dtype_size(m->vin[s].dt);
    }
    return bytes + 64 * (2 * m->nin + 4 + m->scratch);
}

static int map_fits(void *ctx, const struct cg_split *sp)
{
    const struct mapc *m = ctx;
    if (m->norm >= 0 && m->norm != m->po && !m->wide && sp->split >= 0) {
        int64_t flo[R_], flen[R_];   /* a normalized axis stays whole (the first tile's) */
        cg_split_box(sp, 0, flo, flen);
        for (int k = 0; k < m->nf; k++)
            if (m->fax[k] == m->norm && flen[k] != m->vout.dim[m->norm])
                return 0;
    }
    return map_bytes(m, sp) <= m->budget;
}

/* Pattern of input s aligned to the output tile free order: over its compact load
 * buffer, or in place when the input is SBUF-resident. */
static void aligned(const struct mapc *m, int s, const int64_t *ilen, const int64_t *olen,
                    struct sim_operand *o)
{
    int64_t cst[R_];
    int64_t acc = 1;
    for (int k = m->nifax[s] - 1; k >= 0; k--) {
        cst[m->ifax[s][k]] = cg_resident(&m->vin[s]) ? m->vin[s].stride[m->ifax[s][k]] : acc;
        acc *= ilen[m->ifax[s][k]];
    }
    int64_t size[R_], stride[R_];
    for (int k = 0; k < m->nf; k++) {
        int j = m->fax[k];
        size[k] = olen[j];
        stride[k] = 0;
        for (int i = 0; i < m->rin[s]; i++) {
            const struct graph_axis *a = &m->map[s][i];
            if ((a->kind == GRAPH_AXIS_MAP || a->kind == GRAPH_AXIS_NORMALIZE) && a->out == j &&
                i != m->rax[s] && m->vin[s].dim[i] > 1)
                stride[k] = cst[i];
        }
    }
    cg_pattern(o, m->nf, size, stride);
}

/* Stat buffer pattern: compact over the output free axes except the normalized one. */
static void stat_pattern(const struct mapc *m, const int64_t *olen, struct sim_operand *o)
{
    int64_t size[R_], stride[R_], acc = 1;
    for (int k = m->nf - 1; k >= 0; k--) {
        int j = m->fax[k];
        size[k] = olen[j];
        if (j == m->norm) {
            stride[k] = 0;
        } else {
            stride[k] = acc;
            acc *= olen[j];
        }
    }
    cg_pattern(o, m->nf, size, stride);
}

/* One chained instruction: depends on the previous one of the tile (and extra deps). */
struct chain;
static int64_t step(struct chain *c, enum ls_engine eng, enum sim_opcode op, enum sim_func fn,
                    const struct sim_operand *dst, const struct sim_operand *src,
                    const struct sim_operand *src2, uint8_t flags);
#define CHAIN_EXTRA 80
struct chain {
    struct cg_em *e;
    int64_t last;
    int64_t extra[CHAIN_EXTRA];
    size_t nextra;
    int64_t late[3];             /* a norm's gamma / beta loads (slots 1, 2), -1: waited
                                    for by the affine steps only, not by the statistics */
};

/* A norm's affine part: out * gamma (+ beta), each step waiting for its operand's load. */
static void norm_affine(struct chain *c, const struct sim_operand *out,
                        const struct sim_operand *ial, int nin)
{
    for (int s = 1; s < nin && s < 3; s++) {
        if (c->late[s] >= 0 && c->nextra < CHAIN_EXTRA)
            c->extra[c->nextra++] = c->late[s];
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, s == 1 ? SIM_FN_MUL : SIM_FN_ADD, out, out,
             &ial[s], 0);
    }
}

static int64_t step(struct chain *c, enum ls_engine eng, enum sim_opcode op, enum sim_func fn,
                    const struct sim_operand *dst, const struct sim_operand *src,
                    const struct sim_operand *src2, uint8_t flags)
{
    struct sim_instr in = cg_instr(c->e, eng, op, fn);
    in.flags = flags;
    if (dst)
        in.dst = *dst;
    if (src)
        in.src = *src;
    if (src2)
        in.src2 = *src2;
    int64_t deps[CHAIN_EXTRA + 1];
    size_t nd = 0;
    for (size_t i = 0; i < c->nextra; i++)
        deps[nd++] = c->extra[i];
    if (c->last >= 0)
        deps[nd++] = c->last;
    c->nextra = 0;
    c->last = cg_emit(c->e, &in, deps, nd);
    return c->last;
}

#define ROW_STATS 1u  /* row_norm's first half: the reductions, up to the sum of squares */
#define ROW_APPLY 2u  /* its second half: rsqrt, scale, gamma and beta */

/* Softmax, layernorm or rmsnorm of one row per partition (the tile's normalized axis is
 * its whole free size): the row statistics are per-partition scalars, which ACT applies
 * as the implicit scale and bias of an activation (func(src * scale + bias)), so the
 * centring and scaling passes run on ACT and DVE keeps the reductions:
 *   softmax: DVE max; ACT activation_reduce exp(x - max) with the row sum as its
 *            accumulator readout; ACT reciprocal; ACT scale by 1 / sum;
 *   layernorm: DVE sum; ACT x - mean (bf16 scratch); DVE square (all-bf16) and sum;
 *            ACT rsqrt; ACT scale by rstd; then DVE gamma / beta as before;
 *   rmsnorm: DVE x * x and sum; ACT rsqrt; ACT scale by rstd; DVE gamma.
 * Returns -1 on failure. */
static int row_norm(struct chain *c, enum graph_op_kind k, int64_t rn, int64_t nout,
                    const uint64_t *scr, const struct sim_operand *st,
                    const struct sim_operand *out, const struct sim_operand *ial, int nin,
                    unsigned parts)
{
    uint32_t r = (uint32_t)rn;
    const struct sim_operand *x = &ial[0];
    if (k == GRAPH_OP_SOFTMAX) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_MAX, st, x, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION_REDUCE, SIM_FN_EXP, out, x, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, st, st, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, out, out, NULL, 0);
        return c->e->fail ? -1 : 0;
    }
    struct sim_operand cen = cg_sb(0, r, scr[0], LS_DT_BF16, (uint64_t)nout);
    struct sim_operand sq = cg_sb(0, r, scr[1] + (uint64_t)nout * 2, LS_DT_BF16, (uint64_t)nout);
    if (k == GRAPH_OP_LAYERNORM && (parts & ROW_STATS)) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, st, x, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, &cen, x, NULL, 0);
    }
    if (k == GRAPH_OP_LAYERNORM)
        x = &cen;
    if (parts & ROW_STATS) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &sq, x, x, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, st, &sq, NULL, 0);
    }
    if (parts & ROW_APPLY) {
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RSQRT, st, st, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, out, x, NULL, 0);
        norm_affine(c, out, ial, nin);
    }
    return c->e->fail ? -1 : 0;
}

static int contiguous(const struct sim_operand *o)
{
    return o->mem == LS_MEM_SBUF && (o->ndim == 0 || (o->ndim == 1 && o->stride[0] == 1));
}

/* 1 when a softmax tile of ns rows per partition can take rows_softmax: each row a run of
 * L contiguous elements of both operands (the normalized axis innermost). */
static int rows_ok(const struct chain *c, int64_t ns, const struct sim_operand *out,
                   const struct sim_operand *x)
{
    return ns > 1 && ns <= 64 && c->nextra + (size_t)ns <= CHAIN_EXTRA && contiguous(out) &&
           contiguous(x);
}

/* Softmax of ns rows per partition (rows_ok): one DVE max of every row; per row one ACT
 * activation_reduce exp(x - max) (its row's max the per-partition bias, its row sum the
 * accumulator readout), independent of each other; one ACT reciprocal of the ns sums
 * after all of them; per row one ACT scale by 1 / sum, chained so that the tile's last
 * instruction follows every row. Replaces the DVE subtract and multiply with a broadcast
 * statistic (k = 2) and the DVE row sums. */
static int rows_softmax(struct chain *c, int64_t ns, int64_t L, const struct sim_operand *st,
                        const struct sim_operand *out, const struct sim_operand *x)
{
    int64_t hmax = step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_MAX, st, x, NULL, 0);
    if (hmax < 0)
        return -1;
    size_t esx = ls_dtype_size((enum ls_dtype)x->dtype), eso = ls_dtype_size((enum ls_dtype)out->dtype);
    size_t keep = c->nextra;
    for (int64_t r = 0; r < ns; r++) {
        struct sim_instr in = cg_instr(c->e, LS_ENGINE_ACT, SIM_OP_ACTIVATION_REDUCE, SIM_FN_EXP);
        in.src = cg_sb(x->part_start, x->nparts, x->addr + (uint64_t)(r * L) * esx,
                       (enum ls_dtype)x->dtype, (uint64_t)L);
        in.dst = cg_sb(out->part_start, out->nparts, out->addr + (uint64_t)(r * L) * eso,
                       (enum ls_dtype)out->dtype, (uint64_t)L);
        int64_t h = cg_emit(c->e, &in, &hmax, 1);
        if (h < 0)
            return -1;
        c->extra[c->nextra++] = h;   /* the reciprocal waits for every row */
    }
    step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, st, st, NULL, 0);
    c->nextra = keep;
    for (int64_t r = 0; r < ns; r++) {
        struct sim_operand o = cg_sb(out->part_start, out->nparts,
                                     out->addr + (uint64_t)(r * L) * eso,
                                     (enum ls_dtype)out->dtype, (uint64_t)L);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, &o, &o, NULL, 0);
    }
    return c->e->fail ? -1 : 0;
}

/* Input s is a constant (a norm's gamma or beta) broadcast over rows and loaded once:
 * into the constant ring, so that it loads ahead while earlier steps compute. */
static int once_const(const struct cg_em *e, const struct mapc *m, int s, int64_t nft)
{
    return m->rax[s] < 0 && nft == 1 && !cg_resident(&m->vin[s]) &&
           cg_layout_free(e->g, m->x->inputs[s]);
}

/* Where a tile's buffers were last used: the next tile of the same parity waits. */
#define NBUF 16 /* most load buffers of one input */

struct tails {
    int64_t last_read[MAXIN][NBUF], last_store[2], scratch_user[2];
    int pipe;                    /* scratch per parity (pipelined rows), else one set */
};

/* A tile's end (its last instruction `last`): its buffers' readers, then the store of its
 * output box, or the record that it wrote the resident output in place. */
static int tile_done(const struct mapc *m, struct tails *ts, int64_t last, int b,
                     const int *islot, const int64_t *lo, const int64_t *len,
                     const struct sim_operand *out)
{
    struct cg_em *e = m->e;
    if (last < 0)
        return e->fail ? e->fail : cg_fail(e, "op %s: nothing emitted", m->x->name);
    for (int s = 0; s < m->nin; s++)
        ts->last_read[s][islot[s]] = last;
    if (m->scratch)
        ts->scratch_user[ts->pipe ? b : 0] = last;
    if (cg_resident(&m->vout)) {   /* written in place: no store */
        cg_wrote(e, m->x->output, m->po, last);
        return e->fail;
    }
    struct sim_operand dst;
    if (cg_box(&m->vout, lo, len, NULL, m->po, 1, m->fax, m->nf, &dst))
        return cg_fail(e, "op %s: output access pattern needs more than 4 dims", m->x->name);
    int64_t h = cg_dma(e, 1, &dst, out, SIM_OP_DMA_COPY, &last, 1);
    if (h < 0)
        return e->fail;
    cg_wrote(e, m->x->output, m->po, h);
    ts->last_store[b] = h;
    return 0;
}

/* A pipelined row-norm tile whose second half (ROW_APPLY) and end wait for the next
 * tile's statistics. */
struct pend {
    int on, b, islot[MAXIN];
    int64_t in_read;             /* a layernorm's input tile is read by its statistics only */
    struct chain c;
    int64_t rn, nout, lo[R_], len[R_];
    uint64_t scr[2];
    struct sim_operand st, out, ial[MAXIN];
};

static void pend_set(struct pend *p, const struct chain *c, int b, const int *islot,
                     int64_t rn, int64_t nout, const uint64_t *scr, const struct sim_operand *st,
                     const struct sim_operand *out, const struct sim_operand *ial,
                     const int64_t *lo, const int64_t *len)
{
    p->on = 1;
    p->b = b;
    memcpy(p->islot, islot, sizeof p->islot);
    p->c = *c;
    p->in_read = c->last;
    p->rn = rn;
    p->nout = nout;
    memcpy(p->lo, lo, sizeof p->lo);
    memcpy(p->len, len, sizeof p->len);
    p->scr[0] = scr[0];
    p->scr[1] = scr[1];
    p->st = *st;
    p->out = *out;
    memcpy(p->ial, ial, sizeof p->ial);
}

static int flush(const struct mapc *m, struct pend *p, struct tails *ts)
{
    if (!p->on)
        return m->e->fail;
    p->on = 0;
    if (row_norm(&p->c, m->x->kind, p->rn, p->nout, p->scr, &p->st, &p->out, p->ial, m->nin,
                 ROW_APPLY))
        return m->e->fail;
    if (tile_done(m, ts, p->c.last, p->b, p->islot, p->lo, p->len, &p->out))
        return m->e->fail;
    if (m->x->kind == GRAPH_OP_LAYERNORM)   /* the next load into its buffer waits less */
        ts->last_read[0][p->islot[0]] = p->in_read;
    return 0;
}

/* An input loaded tile by tile from HBM rotates over as many buffers as the step's SBUF
 * leaves (up to one per tile, NBUF), not two: its loads then run ahead of the compute as
 * far as they fit, e.g. a residual add's HBM operand, ready long before the op, loads
 * while the op's other operand is still being produced. */
static void more_buffers(const struct mapc *m, int64_t ntiles, const uint64_t *ring,
                         const uint64_t *ibytes, uint64_t (*ibuf)[NBUF], int *nib)
{
    int other = 0;
    for (int s = 0; s < m->nin; s++)
        other += cg_resident(&m->vin[s]);
    for (int s = 0; s < m->nin; s++) {
        uint64_t b = (ibytes[s] + 63) & ~(uint64_t)63;
        if (cg_resident(&m->vin[s]) || ring[s] != CG_NO_RING || b == 0 || m->rax[s] < 0 ||
            !other || !graph_kind_is_binary(m->x->kind))
            continue;
        while (nib[s] < NBUF && nib[s] < ntiles && cg_budget(m->e) >= b)
            ibuf[s][nib[s]++] = cg_alloc(m->e, b);
    }
}

/* Row norms (layernorm, rmsnorm; one row per partition) over at least this many row tiles
 * are software-pipelined (pipe_rows) and take their affine steps in 16 bits
 * (narrow_const); three until cg-11 (vit-b16's [197, 768] norms have two). */
#define NORM_MIN_ROW_TILES 2

/* Row layernorms and rmsnorms over NORM_MIN_ROW_TILES or more row tiles are
 * software-pipelined: each tile's statistics are emitted before the previous tile's
 * rsqrt, scale and affine steps, so that DVE's reductions of one tile run while ACT
 * applies the previous one (each tile alone is a chain alternating between the two
 * engines, half of it idle on each); two sets of scratch when they fit. */
static int pipe_rows(const struct mapc *m, int64_t nft, int64_t nout_max)
{
    enum graph_op_kind k = m->x->kind;
    return (k == GRAPH_OP_LAYERNORM || k == GRAPH_OP_RMSNORM) && m->norm >= 0 &&
           m->norm != m->po && nft == 1 && cg_cdiv(m->P, m->ptile) >= NORM_MIN_ROW_TILES &&
           nout_max == m->vout.dim[m->norm] &&
           cg_budget(m->e) >= 2 * (((uint64_t)nout_max * 4 + 63) & ~(uint64_t)63);
}

/* A layernorm's or rmsnorm's fp32 gamma or beta (loaded once) applied to a 16-bit output
 * over NORM_MIN_ROW_TILES or more row tiles: cast once to the output dtype (one POOL
 * copy), so that every tile's affine steps are all-16-bit DVE tensor_tensors at one
 * element per cycle instead of two (whisper-enc's [1500, 512] norms: 0.9 us less per
 * tile, 12 tiles). With one tile the cast would only move the work to POOL, on the
 * tile's chain. */
static int narrow_const(const struct cg_em *e, const struct mapc *m, int s, int64_t nft)
{
    enum graph_op_kind k = m->x->kind;
    enum ls_dtype od = m->vout.dt;
    return (k == GRAPH_OP_LAYERNORM || k == GRAPH_OP_RMSNORM) && (s == 1 || s == 2) &&
           m->rax[s] < 0 && nft == 1 && !cg_resident(&m->vin[s]) &&
           m->vin[s].dt == LS_DT_FP32 && (od == LS_DT_BF16 || od == LS_DT_FP16) &&
           cg_cdiv(m->P, m->ptile) >= NORM_MIN_ROW_TILES;
}

/* ---- cg_lower_map: the plan (map_setup, map_buffers), then per tile its loads
 * (load_input), its operands (tile_operands) and its compute sequence (emit_*) ---- */

/* Input s's free axes (ifax): its axes in storage order but the one on rows (rax). */
static void input_free_axes(struct mapc *m, int s)
{
    int order[R_];
    int n = cg_storage_order(&m->vin[s], order);
    m->nifax[s] = 0;
    for (int k = 0; k < n; k++)
        if (order[k] != m->rax[s])
            m->ifax[s][m->nifax[s]++] = order[k];
}

/* Input s's axis on rows (rax) and free axes in storage order (ifax). */
static int input_rows(struct mapc *m, int32_t op, int s)
{
    struct cg_em *e = m->e;
    cg_view_make(e, m->x->inputs[s], m->pax[s], &m->vin[s]);
    m->rin[s] = graph_axis_map(e->g, op, s, m->map[s]);
    m->rax[s] = -1;
    if (m->po >= 0)
        for (int i = 0; i < m->rin[s]; i++)
            if ((m->map[s][i].kind == GRAPH_AXIS_MAP ||
                 m->map[s][i].kind == GRAPH_AXIS_NORMALIZE) &&
                m->map[s][i].out == m->po && m->vin[s].dim[i] > 1)
                m->rax[s] = i;
    if (m->rax[s] >= 0 && m->rax[s] != m->pax[s])
        return cg_fail(e, "op %s: input %d must have axis %d on partitions", m->x->name, s,
                       m->rax[s]);
    input_free_axes(m, s);
    return 0;
}

/* A row that does not fit whole: an error while the steps can get more room (the cost
 * model then gives them more: the same programs as before chunks existed); in the
 * largest step region (no resident tensors, no constant ring), when it does not fit
 * there either, split into chunks (m->wide). Llama, one layer: at --hidden 4096 (rows
 * that fit the largest region only) chunks in the default region would price 35% above
 * whole rows in the largest one (75.1 vs 55.6 M cycles); at 4608 chunks in the default
 * region 93.6, in the largest 85.9 M cycles. */
static int wide_plan(struct mapc *m)
{
    struct cg_em *e = m->e;
    if (m->norm < 0 || m->norm == m->po || m->fax[m->nf - 1] != m->norm)
        return cg_fail(e, "op %s (%s): a tile does not fit in the step's SBUF region (%lld "
                       "bytes per partition)", m->x->name, graph_op_kind_name(m->x->kind),
                       (long long)m->budget);
    int64_t budget = m->budget, room = (int64_t)cg_step_sbuf_bytes(e->t, NULL);
    m->sp.split = -1;
    int64_t need = map_bytes(m, &m->sp);
    if (need <= room || e->s->sbuf_bytes < (uint64_t)room)
        return cg_fail(e, "op %s (%s): a row of %lld elements needs %lld bytes per "
                       "partition, the step's SBUF region has %lld", m->x->name,
                       graph_op_kind_name(m->x->kind), (long long)m->vout.dim[m->norm],
                       (long long)need, (long long)budget);
    m->wide = 1;
    if (!cg_plan(&m->sp, map_fits, m) && m->sp.split == m->nf - 1) {
        int64_t n = m->sp.ext[m->nf - 1];   /* chunks of equal length */
        m->sp.chunk = cg_cdiv(n, cg_cdiv(n, m->sp.chunk));
        return 0;
    }
    return cg_fail(e, "op %s (%s): one chunk of a row does not fit in the step's SBUF region "
                   "(%lld bytes per partition)", m->x->name, graph_op_kind_name(m->x->kind),
                   (long long)budget);
}

/* Views, rows, normalized axis and the tile plan of op. */
static int map_setup(struct cg_em *e, int32_t op, const int8_t *pax, struct mapc *m)
{
    memset(m, 0, sizeof *m);
    m->e = e;
    m->x = graph_op(e->g, op);
    m->pax = pax;
    const struct graph_op *x = m->x;
    m->nin = x->ninputs;
    if (m->nin > MAXIN)
        return cg_fail(e, "op %s: too many inputs for an elementwise lowering", x->name);
    m->po = pax[m->nin];
    cg_view_make(e, x->output, m->po, &m->vout);
    m->P = m->po >= 0 ? m->vout.dim[m->po] : 1;
    m->ptile = cg_min(m->P, e->t->sbuf_partitions);
    for (int i = 0; i < m->vout.rank; i++)
        if (i != m->po)
            m->fax[m->nf++] = i;
    m->norm = -1;
    m->is_norm = x->kind == GRAPH_OP_SOFTMAX || x->kind == GRAPH_OP_LAYERNORM ||
                 x->kind == GRAPH_OP_RMSNORM;
    if (m->is_norm) {
        m->norm = x->attrs.axis;
        m->scratch = 2;
    }
    if (x->kind == GRAPH_OP_DIV)
        m->scratch = 1;
    for (int s = 0; s < m->nin; s++)
        if (input_rows(m, op, s))
            return e->fail;
    if (m->norm >= 0 && m->norm == m->po && m->P > e->t->sbuf_partitions)
        return cg_fail(e, "op %s: normalized axis on partitions exceeds %u", x->name,
                       e->t->sbuf_partitions);
    m->budget = (int64_t)cg_budget(e);
    m->sp.n = m->nf;
    for (int k = 0; k < m->nf; k++)
        m->sp.ext[k] = m->vout.dim[m->fax[k]];
    /* a normalized free axis stays whole inside a tile (map_fits), unless it is the last
     * free axis and a whole row does not fit: then it is split into chunks (wide_row) */
    if (!cg_plan(&m->sp, map_fits, m))
        return 0;
    return wide_plan(m);
}

/* The op's SBUF buffers, all allocated before its first instruction (in this order: the
 * addresses are part of the program). */
struct map_bufs {
    int64_t nft, npt, nout_max;          /* free tiles, partition tiles, largest tile */
    uint64_t ibuf[MAXIN][NBUF], ibytes[MAXIN], ring[MAXIN];
    int nib[MAXIN];                      /* load buffers of each input */
    int narrow[MAXIN];                   /* narrow_const */
    uint64_t nbuf[MAXIN];                /* its narrowed copy */
    uint64_t obuf[2], scr[2], scrp[2][2];
    int pipe;                            /* pipe_rows: scratch per parity (scrp) */
    int64_t kept[MAXIN];                 /* the one load of a reused broadcast input */
};

static int map_buffers(struct mapc *m, struct map_bufs *bf, struct tails *ts)
{
    struct cg_em *e = m->e;
    memset(bf, 0, sizeof *bf);
    int64_t flo[R_], flen[R_], lo[R_], len[R_], ilo[R_], ilen[R_];
    cg_split_box(&m->sp, 0, flo, flen);
    out_box(m, 0, m->ptile, flo, flen, lo, len);
    bf->nout_max = box_free(m->fax, m->nf, len);
    bf->nft = cg_split_tiles(&m->sp);
    for (int s = 0; s < m->nin; s++) {
        in_box(m, s, lo, len, ilo, ilen);
        uint64_t b = (uint64_t)box_free(m->ifax[s], m->nifax[s], ilen) *
                     ls_dtype_size(m->vin[s].dt);
        if (cg_resident(&m->vin[s]))
            b = 0;
        bf->ring[s] = once_const(e, m, s, bf->nft) ? cg_ring_alloc(e, b) : CG_NO_RING;
        bf->ibuf[s][0] = bf->ring[s] != CG_NO_RING ? bf->ring[s] : cg_alloc(e, b);
        bf->ibuf[s][1] = bf->ring[s] != CG_NO_RING ? bf->ring[s] : cg_alloc(e, b);
        bf->ibytes[s] = b;
        bf->nib[s] = 2;
    }
    for (int s = 0; s < m->nin; s++) {
        bf->narrow[s] = narrow_const(e, m, s, bf->nft);
        in_box(m, s, lo, len, ilo, ilen);
        bf->nbuf[s] = bf->narrow[s] ? cg_alloc(e, (uint64_t)box_free(m->ifax[s], m->nifax[s],
                                                                     ilen) *
                                                      ls_dtype_size(m->vout.dt))
                                    : 0;
    }
    uint64_t ob = cg_resident(&m->vout) ? 0 : (uint64_t)bf->nout_max * ls_dtype_size(m->vout.dt);
    bf->obuf[0] = cg_alloc(e, ob);
    bf->obuf[1] = cg_alloc(e, ob);
    for (int k = 0; k < m->scratch; k++)
        bf->scr[k] = cg_alloc(e, (uint64_t)bf->nout_max * 4);
    if (e->fail)
        return e->fail;
    for (int s = 0; s < MAXIN; s++)
        bf->kept[s] = -1;
    for (int p = 0; p < 2; p++) {
        bf->scrp[p][0] = bf->scr[0];
        bf->scrp[p][1] = bf->scr[1];
    }
    bf->pipe = pipe_rows(m, bf->nft, bf->nout_max);
    *ts = (struct tails){{{0}}, {-1, -1}, {-1, -1}, bf->pipe};
    for (int s = 0; s < MAXIN; s++)
        for (int k = 0; k < NBUF; k++)
            ts->last_read[s][k] = -1;
    if (bf->pipe) {   /* a second set of scratch: a tile's statistics beside the previous one's rest */
        bf->scrp[1][0] = cg_alloc(e, (uint64_t)bf->nout_max * 4);
        bf->scrp[1][1] = cg_alloc(e, (uint64_t)bf->nout_max * 4);
    }
    bf->npt = cg_cdiv(m->P, m->ptile);
    more_buffers(m, bf->npt * bf->nft, bf->ring, bf->ibytes, bf->ibuf, bf->nib);
    return 0;
}

/* One tile: its rows, box, buffers and operands. */
struct map_tile {
    int64_t tile, rn, nout;
    int b, islot[MAXIN];                 /* output / scratch parity, input buffer slots */
    int64_t lo[R_], len[R_], ilen[MAXIN][R_];
    struct sim_operand isb[MAXIN], ial[MAXIN], out, s0, s1;
};

/* Input s of the tile: reused (a broadcast input loaded once), read in place (resident),
 * or loaded into its next buffer; what the compute waits for goes into c. */
static int load_input(struct mapc *m, struct map_bufs *bf, const struct tails *ts,
                      struct map_tile *tl, struct chain *c, int s)
{
    struct cg_em *e = m->e;
    int affine = m->is_norm && m->x->kind != GRAPH_OP_SOFTMAX;   /* slots 1, 2: late */
    int64_t ilo[R_], *ilen = tl->ilen[s];
    in_box(m, s, tl->lo, tl->len, ilo, ilen);
    int64_t nfree = box_free(m->ifax[s], m->nifax[s], ilen);
    uint32_t rn = (uint32_t)tl->rn;
    struct sim_operand src;
    if (cg_box(&m->vin[s], ilo, ilen, NULL, m->rax[s], rn, m->ifax[s], m->nifax[s], &src))
        return cg_fail(e, "op %s: input access pattern needs more than 4 dims", m->x->name);
    /* an input broadcast over rows is the same for every partition tile when there is one
     * free tile: loaded once (full rows), then reused */
    int once = m->rax[s] < 0 && bf->nft == 1 && !cg_resident(&m->vin[s]);
    if (once && bf->kept[s] >= 0) {
        tl->isb[s] = tl->ial[s] = bf->narrow[s]
                                      ? cg_sb(0, rn, bf->nbuf[s], m->vout.dt, (uint64_t)nfree)
                                      : cg_sb(0, rn, bf->ibuf[s][0], m->vin[s].dt,
                                              (uint64_t)nfree);
        aligned(m, s, ilen, tl->len, &tl->ial[s]);
        if (affine && s > 0 && s < 3)
            c->late[s] = bf->kept[s];
        else
            c->extra[c->nextra++] = bf->kept[s];
        return 0;
    }
    if (tl->tile < bf->nib[s])   /* the first load into each buffer waits for the writers */
        cg_writers(e, m->x->inputs[s], m->pax[s]);
    if (cg_resident(&m->vin[s])) {  /* read in place */
        tl->isb[s] = tl->ial[s] = src;
        aligned(m, s, ilen, tl->len, &tl->ial[s]);
        return 0;
    }
    int slot = tl->islot[s];
    tl->isb[s] = cg_sb(0, rn, bf->ibuf[s][slot], m->vin[s].dt, (uint64_t)nfree);
    int64_t dep = ts->last_read[s][slot];
    int cls = bf->ring[s] != CG_NO_RING ? CG_Q_RING : cg_load_class(e, m->x->inputs[s]);
    int64_t h = cg_dma(e, cls, &tl->isb[s], &src, SIM_OP_DMA_COPY, &dep, dep >= 0 ? 1 : 0);
    if (h < 0)
        return e->fail;
    if (affine && s > 0 && s < 3)
        c->late[s] = h;
    else
        c->extra[c->nextra++] = h;
    if (bf->narrow[s]) {   /* the one cast of the constant, on idle POOL */
        struct sim_operand nb = cg_sb(0, rn, bf->nbuf[s], m->vout.dt, (uint64_t)nfree);
        struct sim_instr in = cg_instr(e, LS_ENGINE_POOL, SIM_OP_TENSOR_COPY, SIM_FN_NONE);
        in.dst = nb;
        in.src = tl->isb[s];
        h = cg_emit(e, &in, &h, 1);
        c->late[s] = h;
        tl->isb[s] = nb;
    }
    if (once)
        bf->kept[s] = h;
    tl->ial[s] = tl->isb[s];
    aligned(m, s, ilen, tl->len, &tl->ial[s]);
    return 0;
}

/* The tile's output (its buffer, or in place) and scratch operands; its compute waits
 * for the previous store from its output buffer and the previous user of its scratch. */
static int tile_operands(struct mapc *m, const struct map_bufs *bf, const struct tails *ts,
                         struct map_tile *tl, struct chain *c)
{
    int b = tl->b;
    uint32_t rn = (uint32_t)tl->rn;
    if (ts->last_store[b] >= 0)
        c->extra[c->nextra++] = ts->last_store[b];
    if (ts->scratch_user[bf->pipe ? b : 0] >= 0 && m->scratch)
        c->extra[c->nextra++] = ts->scratch_user[bf->pipe ? b : 0];
    tl->out = cg_sb(0, rn, bf->obuf[b], m->vout.dt, (uint64_t)tl->nout);
    if (cg_resident(&m->vout) &&
        cg_box(&m->vout, tl->lo, tl->len, NULL, m->po, rn, m->fax, m->nf, &tl->out))
        return cg_fail(m->e, "op %s: output access pattern needs more than 4 dims", m->x->name);
    tl->s0 = cg_sb(0, rn, bf->scr[0], LS_DT_FP32, (uint64_t)tl->nout);
    tl->s1 = cg_sb(0, rn, bf->scr[1], LS_DT_FP32, (uint64_t)tl->nout);
    return 0;
}

/* Pooling windows: one reduction when they tile the input box exactly (global pooling,
 * stride == kernel), else a copy of the first tap and one DVE op per further tap. */
static void emit_pool(struct mapc *m, const struct map_bufs *bf, struct map_tile *tl,
                      struct chain *c)
{
    enum graph_op_kind k = m->x->kind;
    const struct graph_attrs *at = &m->x->attrs;
    int64_t taps = at->kernel[0] * at->kernel[1];
    enum sim_func fn = k == GRAPH_OP_POOL_MAX ? SIM_FN_MAX : SIM_FN_ADD;
    if (box_free(m->ifax[0], m->nifax[0], tl->ilen[0]) == tl->nout * taps) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, fn, &tl->out, &tl->isb[0], NULL, 0);
    } else {
        /* a tap's window: nout elements of the input box, loaded or read in place */
        int res = cg_resident(&m->vin[0]);
        struct sim_operand win = cg_sb(res ? tl->isb[0].part_start : 0, (uint32_t)tl->rn,
                                       res ? tl->isb[0].addr : bf->ibuf[0][tl->islot[0]],
                                       m->vin[0].dt, (uint64_t)tl->nout);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_COPY, SIM_FN_NONE, &tl->out, &win, NULL, 0);
        for (int64_t tp = 1; tp < taps; tp++)
            step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, fn, &tl->out, &tl->out, &win, 0);
    }
    if (k == GRAPH_OP_POOL_AVG)
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, &tl->out, &tl->out, NULL, 0);
}

/* Elementwise, reduction, batchnorm and pooling ops; 0 when k is none of them. */
static int emit_elementwise(struct mapc *m, const struct map_bufs *bf, struct map_tile *tl,
                            struct chain *c)
{
    enum graph_op_kind k = m->x->kind;
    struct sim_operand *out = &tl->out, *ial = tl->ial;
    if (graph_kind_is_unary(k) && k != GRAPH_OP_COPY && k != GRAPH_OP_CAST) {
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, cg_op_fn(k), out, &ial[0], NULL, 0);
        if (k == GRAPH_OP_SILU)
            step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, out, &ial[0], 0);
    } else if (k == GRAPH_OP_COPY || k == GRAPH_OP_TRANSPOSE) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_COPY, SIM_FN_NONE, out, &ial[0], NULL, 0);
    } else if (k == GRAPH_OP_CAST) {
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, out, &ial[0], NULL, 0);
    } else if (k == GRAPH_OP_DIV) {
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, &tl->s0, &ial[1], NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, &ial[0], &tl->s0, 0);
    } else if (graph_kind_is_binary(k)) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, cg_op_fn(k), out, &ial[0], &ial[1], 0);
    } else if (graph_kind_is_reduce(k)) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE,
             k == GRAPH_OP_REDUCE_MAX ? SIM_FN_MAX : SIM_FN_ADD, out, &tl->isb[0], NULL, 0);
        if (k == GRAPH_OP_REDUCE_MEAN)
            step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, out, out, NULL, 0);
    } else if (k == GRAPH_OP_BATCHNORM) {
        if (m->po == m->x->attrs.axis || m->nin == 1) {
            step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, out, &ial[0], NULL, 0);
        } else {
            step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, &ial[0], &ial[1], 0);
            step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_ADD, out, out, &ial[2], 0);
        }
    } else if (k == GRAPH_OP_POOL_MAX || k == GRAPH_OP_POOL_AVG) {
        emit_pool(m, bf, tl, c);
    } else {
        return 0;
    }
    return 1;
}

/* Softmax, layernorm or rmsnorm along a free axis: DVE reductions into a stat buffer.
 * *deferred: a pipelined row norm left the tile's second half for the next tile. */
static int emit_norm_free(struct mapc *m, struct map_bufs *bf, struct tails *ts,
                          struct pend *pd, struct map_tile *tl, struct chain *c, int *deferred)
{
    enum graph_op_kind k = m->x->kind;
    struct sim_operand *out = &tl->out, *ial = tl->ial;
    uint32_t rn = (uint32_t)tl->rn;
    int64_t ns = tl->nout / tl->len[m->norm];
    struct sim_operand st = cg_sb(0, rn, bf->scr[1], LS_DT_FP32, (uint64_t)ns);
    struct sim_operand stb = st;
    stat_pattern(m, tl->len, &stb);
    if (ns == 1 && bf->pipe) {   /* this tile's statistics, then the previous one's rest */
        const uint64_t *sc = bf->scrp[tl->b];
        st = cg_sb(0, rn, sc[1], LS_DT_FP32, 1);
        if (row_norm(c, k, tl->rn, tl->nout, sc, &st, out, ial, m->nin, ROW_STATS) ||
            flush(m, pd, ts))
            return m->e->fail;
        pend_set(pd, c, tl->b, tl->islot, tl->rn, tl->nout, sc, &st, out, ial, tl->lo, tl->len);
        *deferred = 1;
        return 0;
    }
    if (ns == 1)
        return row_norm(c, k, tl->rn, tl->nout, bf->scr, &st, out, ial, m->nin,
                        ROW_STATS | ROW_APPLY);
    if (k == GRAPH_OP_SOFTMAX && m->fax[m->nf - 1] == m->norm && rows_ok(c, ns, out, &ial[0]))
        return rows_softmax(c, ns, tl->len[m->norm], &st, out, &ial[0]);
    if (k == GRAPH_OP_SOFTMAX) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_MAX, &st, &ial[0], NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_SUB, out, &ial[0], &stb, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_EXP, out, out, NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &st, out, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, &st, &st, NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, out, &stb, 0);
        return 0;
    }
    const struct sim_operand *src = &ial[0];
    if (k == GRAPH_OP_LAYERNORM) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &st, &ial[0], NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_SUB, out, &ial[0], &stb, 0);
        src = out;
    }
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &tl->s0, src, src, 0);
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &st, &tl->s0, NULL, 0);
    step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RSQRT, &st, &st, NULL, 0);
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, src, &stb, 0);
    norm_affine(c, out, ial, m->nin);
    return 0;
}

/* Softmax, layernorm or rmsnorm with the normalized axis on partitions: POOL
 * all-reduces across partitions. */
static void emit_norm_part(struct mapc *m, struct map_tile *tl, struct chain *c)
{
    struct sim_operand *out = &tl->out, *ial = tl->ial, *s1 = &tl->s1;
    if (m->x->kind == GRAPH_OP_SOFTMAX) {
        step(c, LS_ENGINE_POOL, SIM_OP_PARTITION_REDUCE, SIM_FN_MAX, s1, &tl->isb[0], NULL,
             SIM_F_ALL);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_SUB, out, &ial[0], s1, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_EXP, out, out, NULL, 0);
        step(c, LS_ENGINE_POOL, SIM_OP_PARTITION_REDUCE, SIM_FN_ADD, s1, out, NULL, SIM_F_ALL);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, s1, s1, NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, out, s1, 0);
        return;
    }
    const struct sim_operand *src = &ial[0];
    if (m->x->kind == GRAPH_OP_LAYERNORM) {
        step(c, LS_ENGINE_POOL, SIM_OP_PARTITION_REDUCE, SIM_FN_ADD, s1, &tl->isb[0], NULL,
             SIM_F_ALL);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_SUB, out, &ial[0], s1, 0);
        src = out;
    }
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &tl->s0, src, src, 0);
    step(c, LS_ENGINE_POOL, SIM_OP_PARTITION_REDUCE, SIM_FN_ADD, s1, &tl->s0, NULL, SIM_F_ALL);
    step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RSQRT, s1, s1, NULL, 0);
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, out, src, s1, 0);
    norm_affine(c, out, ial, m->nin);
}

/* Tile `tile` (partition tile pt, free tile ft): loads, compute, then its store. */
static int map_tile(struct mapc *m, struct map_bufs *bf, struct tails *ts, struct pend *pd,
                    int64_t tile, int64_t pt, int64_t ft)
{
    struct map_tile tl;
    int64_t r0 = pt * m->ptile, flo[R_], flen[R_];
    tl.tile = tile;
    tl.rn = cg_min(m->ptile, m->P - r0);
    tl.b = (int)(tile & 1);
    for (int s = 0; s < m->nin; s++)
        tl.islot[s] = (int)(tile % bf->nib[s]);
    cg_split_box(&m->sp, ft, flo, flen);
    out_box(m, r0, tl.rn, flo, flen, tl.lo, tl.len);
    tl.nout = box_free(m->fax, m->nf, tl.len);
    struct chain c = {m->e, -1, {0}, 0, {-1, -1, -1}};
    for (int s = 0; s < m->nin; s++)
        if (load_input(m, bf, ts, &tl, &c, s))
            return m->e->fail;
    if (tile_operands(m, bf, ts, &tl, &c))
        return m->e->fail;
    int deferred = 0;
    if (!emit_elementwise(m, bf, &tl, &c)) {
        if (!m->is_norm)
            return cg_fail(m->e, "op %s: kind %s has no elementwise lowering", m->x->name,
                           graph_op_kind_name(m->x->kind));
        if (m->norm == m->po)
            emit_norm_part(m, &tl, &c);
        else if (emit_norm_free(m, bf, ts, pd, &tl, &c, &deferred))
            return m->e->fail;
    }
    return deferred ? 0 : tile_done(m, ts, c.last, tl.b, tl.islot, tl.lo, tl.len, &tl.out);
}

/* ---- wide rows: a normalized last free axis longer than one tile (m->wide) ----------
 * The row is split into chunks of the planned length and read twice: pass 1 loads each
 * chunk and reduces it to per-chunk partials (softmax: max and sum of exp(x - max);
 * layernorm: sum and sum of squares; rmsnorm: sum of squares), a few instructions over
 * the partials combine them into the row's statistics (softmax: the row max, each
 * partial sum rescaled by exp(max_c - max), summed, reciprocal; norms: mean and rstd),
 * then pass 2 loads each chunk again (and its gamma / beta slices), applies the
 * statistics on ACT (and the affine part on DVE) and stores it. Scratch 0 holds one
 * chunk of fp32 (the squares, the discarded exp), scratch 1 the partials and scalars. */

struct wstat {
    uint64_t base, vec;          /* scratch 1; bytes of one partials vector */
    struct sim_operand pa, pb, pab, s[3];  /* partials, pa broadcast of s[0], scalars */
};

static int wide_stats(const struct mapc *m, const struct map_bufs *bf, uint32_t rn,
                      int64_t nc, struct wstat *w)
{
    w->base = bf->scr[1];
    w->vec = ((uint64_t)nc * 4 + 63) & ~(uint64_t)63;
    if (2 * w->vec + 3 * 64 > (uint64_t)bf->nout_max * 4)
        return cg_fail(m->e, "op %s: %lld chunks of a row leave no room for their partials",
                       m->x->name, (long long)nc);
    w->pa = cg_sb(0, rn, w->base, LS_DT_FP32, (uint64_t)nc);
    w->pb = cg_sb(0, rn, w->base + w->vec, LS_DT_FP32, (uint64_t)nc);
    for (int i = 0; i < 3; i++)
        w->s[i] = cg_sb(0, rn, w->base + 2 * w->vec + (uint64_t)i * 64, LS_DT_FP32, 1);
    w->pab = w->s[0];
    int64_t size = nc, stride = 0;
    cg_pattern(&w->pab, 1, &size, &stride);
    return 0;
}

/* Pass 1 of chunk ch (x: its input, sq: a chunk of fp32 scratch). */
static void wide_partials(struct chain *c, enum graph_op_kind k, const struct wstat *w,
                          int64_t ch, const struct sim_operand *x, const struct sim_operand *sq)
{
    uint32_t rn = w->pa.nparts;
    struct sim_operand pa = cg_sb(0, rn, w->base + (uint64_t)ch * 4, LS_DT_FP32, 1);
    struct sim_operand pb = cg_sb(0, rn, w->base + w->vec + (uint64_t)ch * 4, LS_DT_FP32, 1);
    if (k == GRAPH_OP_SOFTMAX) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_MAX, &pa, x, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION_REDUCE, SIM_FN_EXP, sq, x, NULL, 0);
        return;
    }
    if (k == GRAPH_OP_LAYERNORM)
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &pa, x, NULL, 0);
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, sq, x, x, 0);
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &pb, sq, NULL, 0);
}

/* The row's statistics from the partials: softmax s[0] = max, s[1] = 1 / sum; norms
 * s[1] = rstd (and a layernorm's s[2] = -mean * rstd, ACT's bias). */
static void wide_combine(struct chain *c, enum graph_op_kind k, const struct wstat *w)
{
    const struct sim_operand *s = w->s;
    if (k == GRAPH_OP_SOFTMAX) {
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_MAX, &s[0], &w->pa, NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_SUB, &w->pa, &w->pa, &w->pab, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_EXP, &w->pa, &w->pa, NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &w->pb, &w->pb, &w->pa, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &s[1], &w->pb, NULL, 0);
        step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, &s[1], &s[1], NULL, 0);
        return;
    }
    step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &s[1], &w->pb, NULL, 0);
    if (k == GRAPH_OP_LAYERNORM) {   /* var = E[x^2] - mean^2 */
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_ADD, &s[0], &w->pa, NULL, 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &s[2], &s[0], &s[0], 0);
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_SUB, &s[1], &s[1], &s[2], 0);
    }
    step(c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RSQRT, &s[1], &s[1], NULL, 0);
    if (k == GRAPH_OP_LAYERNORM)
        step(c, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &s[2], &s[0], &s[1], 0);
}

/* Chunk tile ft of partition tile pt: its box; inputs 0..nin-1 loaded (counts nld). */
static int wide_chunk(struct mapc *m, struct map_bufs *bf, const struct tails *ts,
                      struct map_tile *tl, struct chain *c, int64_t pt, int64_t ft, int nin,
                      int64_t *nld)
{
    int64_t r0 = pt * m->ptile, flo[R_], flen[R_];
    tl->rn = cg_min(m->ptile, m->P - r0);
    cg_split_box(&m->sp, ft, flo, flen);
    out_box(m, r0, tl->rn, flo, flen, tl->lo, tl->len);
    tl->nout = box_free(m->fax, m->nf, tl->len);
    for (int s = 0; s < nin; s++) {
        tl->tile = nld[s];
        tl->islot[s] = (int)(nld[s]++ % bf->nib[s]);
        if (load_input(m, bf, ts, tl, c, s))
            return m->e->fail;
    }
    return 0;
}

/* Row group `row` (nc chunk tiles) of partition tile pt: pass 1, combine, pass 2. */
static int wide_row(struct mapc *m, struct map_bufs *bf, struct tails *ts, int64_t pt,
                    int64_t row, int64_t nc, int64_t *nld, int64_t *nst)
{
    enum graph_op_kind k = m->x->kind;
    struct chain c = {m->e, -1, {0}, 0, {-1, -1, -1}};
    struct map_tile tl;
    struct wstat w;
    if (ts->scratch_user[0] >= 0)
        c.extra[c.nextra++] = ts->scratch_user[0];
    for (int64_t ch = 0; ch < nc; ch++) {
        if (wide_chunk(m, bf, ts, &tl, &c, pt, row * nc + ch, 1, nld))
            return m->e->fail;
        if (ch == 0 && wide_stats(m, bf, (uint32_t)tl.rn, nc, &w))
            return m->e->fail;
        struct sim_operand sq = cg_sb(0, (uint32_t)tl.rn, bf->scr[0], LS_DT_FP32,
                                      (uint64_t)tl.nout);
        wide_partials(&c, k, &w, ch, &tl.isb[0], &sq);
        ts->last_read[0][tl.islot[0]] = c.last;
    }
    wide_combine(&c, k, &w);
    for (int64_t ch = 0; ch < nc; ch++) {
        if (wide_chunk(m, bf, ts, &tl, &c, pt, row * nc + ch, m->nin, nld))
            return m->e->fail;
        tl.b = (int)((*nst)++ & 1);
        if (tile_operands(m, bf, ts, &tl, &c))
            return m->e->fail;
        step(&c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, k == GRAPH_OP_SOFTMAX ? SIM_FN_EXP
                                                                         : SIM_FN_NONE,
             &tl.out, &tl.ial[0], NULL, 0);
        if (k == GRAPH_OP_SOFTMAX)
            step(&c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, &tl.out, &tl.out, NULL, 0);
        else
            norm_affine(&c, &tl.out, tl.ial, m->nin);
        if (tile_done(m, ts, c.last, tl.b, tl.islot, tl.lo, tl.len, &tl.out))
            return m->e->fail;
    }
    return m->e->fail;
}

static int wide_rows(struct mapc *m, struct map_bufs *bf, struct tails *ts)
{
    int64_t nc = cg_cdiv(m->sp.ext[m->nf - 1], m->sp.chunk), nld[MAXIN] = {0}, nst = 0;
    for (int64_t pt = 0; pt < bf->npt; pt++)
        for (int64_t r = 0; r < bf->nft / nc; r++)
            if (wide_row(m, bf, ts, pt, r, nc, nld, &nst))
                return m->e->fail;
    return m->e->fail;
}

int cg_lower_map(struct cg_em *e, int32_t op, const int8_t *pax)
{
    struct mapc m;
    struct map_bufs bf;
    struct tails ts;
    if (map_setup(e, op, pax, &m) || map_buffers(&m, &bf, &ts))
        return e->fail;
    if (m.wide)
        return wide_rows(&m, &bf, &ts);
    struct pend pd = {0};
    int64_t tile = 0;
    for (int64_t pt = 0; pt < bf.npt; pt++)
        for (int64_t ft = 0; ft < bf.nft; ft++, tile++)
            if (map_tile(&m, &bf, &ts, &pd, tile, pt, ft))
                return e->fail;
    flush(&m, &pd, &ts);
    return e->fail;
}

/* ---- reduction with the reduced axis on partitions ------------------------------------ */

struct prc {
    struct mapc m;
    int64_t other;           /* product of the other reduced axes (free on input) */
    int64_t tmax;
    int r;                   /* the reduced axis on partitions */
    int64_t R, rt, nrt;      /* its extent, rows per tile, row tiles */
    int use_pe;              /* sum on PE (a ones column), else max on POOL */
    uint64_t ibuf[2], acc, tmp, obuf[2], ones;
    int64_t hones;           /* the memset of the ones column */
    int64_t last_read[2], last_store[2], acc_user;   /* buffers' last users */
    int64_t tile;            /* row tiles emitted */
};

static int pr_fits(void *ctx, const struct cg_split *sp)
{
    const struct prc *p = ctx;
    int64_t n = cg_split_tile_elems(sp) * p->other;
    return n <= p->tmax;
}

/* Views, axes and the free tiles: each one PSUM bank of output elements times the other
 * reduced axes. */
static int pr_setup(struct cg_em *e, int32_t op, const int8_t *pax, struct prc *p)
{
    memset(p, 0, sizeof *p);
    struct mapc *m = &p->m;
    m->e = e;
    m->x = graph_op(e->g, op);
    const struct graph_op *x = m->x;
    m->nin = 1;
    int r = p->r = pax[0];
    cg_view_make(e, x->inputs[0], r, &m->vin[0]);
    m->rin[0] = graph_axis_map(e->g, op, 0, m->map[0]);
    m->rax[0] = r;
    input_free_axes(m, 0);
    m->po = -1;                            /* the result is one partition row */
    cg_view_make(e, x->output, pax[1], &m->vout);
    /* the output is stored in its default layout == row-major: all axes are free */
    int oorder[R_];
    int on = cg_storage_order(&m->vout, oorder);
    for (int k = 0; k < on; k++)
        m->fax[m->nf++] = oorder[k];
    p->other = 1;
    for (int i = 0; i < x->attrs.naxes; i++)
        if (x->attrs.axes[i] != r)
            p->other *= m->vin[0].dim[x->attrs.axes[i]];
    p->tmax = cg_min(e->t->pe_moving_max, e->t->psum_bank_bytes / 4);
    m->sp.n = m->nf;
    for (int k = 0; k < m->nf; k++)
        m->sp.ext[k] = m->vout.dim[m->fax[k]];
    if (p->other > p->tmax || cg_plan(&m->sp, pr_fits, p))
        return cg_fail(e, "op %s: the other reduced axes exceed one PSUM bank", x->name);
    p->R = m->vin[0].dim[r];
    p->rt = cg_min(p->R, cg_min(e->t->pe_rows, e->t->sbuf_partitions));
    p->nrt = cg_cdiv(p->R, p->rt);
    p->use_pe = x->kind != GRAPH_OP_REDUCE_MAX;
    return 0;
}

/* Buffers, and the ones column of a PE sum. */
static int pr_buffers(struct prc *p)
{
    struct cg_em *e = p->m.e;
    size_t es = ls_dtype_size(p->m.vin[0].dt), eo = ls_dtype_size(p->m.vout.dt);
    p->ibuf[0] = cg_alloc(e, (uint64_t)p->tmax * es);
    p->ibuf[1] = cg_alloc(e, (uint64_t)p->tmax * es);
    p->acc = cg_alloc(e, (uint64_t)p->tmax * 4);
    p->tmp = cg_alloc(e, (uint64_t)p->tmax * 4);
    p->obuf[0] = cg_alloc(e, (uint64_t)p->tmax * eo);
    p->obuf[1] = cg_alloc(e, (uint64_t)p->tmax * eo);
    p->ones = cg_alloc(e, 64);
    if (e->fail)
        return e->fail;
    p->hones = -1;
    if (p->use_pe) {
        struct sim_instr ms = cg_instr(e, LS_ENGINE_DVE, SIM_OP_MEMSET, SIM_FN_NONE);
        ms.dst = cg_sb(0, (uint32_t)p->rt, p->ones, p->m.vin[0].dt, 1);
        p->hones = cg_emit(e, &ms, NULL, 0);
    }
    p->last_read[0] = p->last_read[1] = p->last_store[0] = p->last_store[1] = -1;
    p->acc_user = -1;
    return 0;
}

/* Row tile k of the free tile (box lo/len, nin input elements per row, PSUM ps, SBUF
 * accumulator accs): its load, then a ones-column matmul accumulating into ps, or a POOL
 * partition max folded into accs. *lastc: the chain's last instruction. */
static int pr_rows(struct prc *p, int64_t k, const int64_t *lo, const int64_t *len,
                   int64_t nin, const struct sim_operand *ps, const struct sim_operand *accs,
                   int64_t prev, int64_t *lastc)
{
    struct mapc *m = &p->m;
    struct cg_em *e = m->e;
    int b = (int)(p->tile & 1), r = p->r;
    int64_t r0 = k * p->rt, rn = cg_min(p->rt, p->R - r0), ilo[R_], ilen[R_];
    in_box(m, 0, lo, len, ilo, ilen);
    ilo[r] = r0;
    ilen[r] = rn;
    enum ls_dtype idt = m->vin[0].dt;
    struct sim_operand src, isb = cg_sb(0, (uint32_t)rn, p->ibuf[b], idt, (uint64_t)nin);
    if (cg_box(&m->vin[0], ilo, ilen, NULL, r, 1, m->ifax[0], m->nifax[0], &src))
        return cg_fail(e, "op %s: input access pattern needs more than 4 dims", m->x->name);
    if (p->tile < 2)
        cg_writers(e, m->x->inputs[0], r);
    int64_t dep = p->last_read[b];
    int64_t hl = cg_dma(e, 0, &isb, &src, SIM_OP_DMA_COPY, &dep, dep >= 0 ? 1 : 0);
    if (hl < 0)
        return e->fail;
    if (p->use_pe) {
        struct sim_instr ls = cg_instr(e, LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY, SIM_FN_NONE);
        ls.src = cg_sb(0, (uint32_t)rn, p->ones, idt, 1);
        int64_t d1[2] = {p->hones, *lastc};
        if (cg_emit(e, &ls, d1, *lastc >= 0 ? 2 : 1) < 0)
            return e->fail;
        struct sim_instr mm = cg_instr(e, LS_ENGINE_PE, SIM_OP_MATMUL, SIM_FN_NONE);
        mm.flags = k > 0 ? SIM_F_ACCUMULATE : 0;
        mm.src = isb;
        mm.dst = *ps;
        int64_t d2[2] = {hl, prev};
        *lastc = cg_emit(e, &mm, d2, prev >= 0 && k == 0 ? 2 : 1);
    } else {
        struct sim_instr pr = cg_instr(e, LS_ENGINE_POOL, SIM_OP_PARTITION_REDUCE, SIM_FN_MAX);
        pr.src = isb;
        pr.dst = k == 0 ? *accs : cg_sb(0, 1, p->tmp, LS_DT_FP32, (uint64_t)nin);
        int64_t d2[2] = {hl, *lastc >= 0 ? *lastc : prev};
        *lastc = cg_emit(e, &pr, d2, d2[1] >= 0 ? 2 : 1);
        if (k > 0) {
            struct sim_instr tt = cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MAX);
            tt.dst = *accs;
            tt.src = *accs;
            tt.src2 = pr.dst;
            *lastc = cg_emit(e, &tt, lastc, 1);
        }
    }
    if (*lastc < 0)
        return e->fail;
    p->last_read[b] = *lastc;
    p->tile++;
    return 0;
}

/* Free tile ft: its row tiles, then the PSUM evacuation, the reduction over the other
 * reduced axes and the store. */
static int pr_free_tile(struct prc *p, int64_t ft, const int8_t *pax)
{
    struct mapc *m = &p->m;
    struct cg_em *e = m->e;
    int64_t flo[R_], flen[R_], lo[R_], len[R_];
    cg_split_box(&m->sp, ft, flo, flen);
    out_box(m, 0, 1, flo, flen, lo, len);
    int64_t nout = box_free(m->fax, m->nf, len), nin = nout * p->other;
    uint32_t bk = e->s->psum_bank0 + (uint32_t)(ft % (e->s->psum_nbanks ? e->s->psum_nbanks : 1));
    struct sim_operand ps = sim_psum(0, 1, (uint64_t)bk * e->t->psum_bank_bytes, LS_DT_FP32,
                                     (uint32_t)nin);
    struct sim_operand accs = cg_sb(0, 1, p->acc, LS_DT_FP32, (uint64_t)nin);
    int64_t lastc = -1, prev = p->acc_user;
    for (int64_t k = 0; k < p->nrt; k++)
        if (pr_rows(p, k, lo, len, nin, &ps, &accs, prev, &lastc))
            return e->fail;
    int b = (int)(ft & 1);
    struct sim_operand out = cg_sb(0, 1, p->obuf[b], m->vout.dt, (uint64_t)nout);
    struct chain c = {e, lastc, {0}, 0, {-1, -1, -1}};
    if (p->last_store[b] >= 0)
        c.extra[c.nextra++] = p->last_store[b];
    if (p->use_pe) {
        struct sim_operand dst = p->other > 1 ? accs : out;
        step(&c, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, &dst, &ps, NULL, 0);
    }
    if (p->other > 1)
        step(&c, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, p->use_pe ? SIM_FN_ADD : SIM_FN_MAX, &out,
             &accs, NULL, 0);
    else if (!p->use_pe)
        step(&c, LS_ENGINE_DVE, SIM_OP_TENSOR_COPY, SIM_FN_NONE, &out, &accs, NULL, 0);
    p->acc_user = c.last;
    struct sim_operand dst;
    if (cg_box(&m->vout, lo, len, NULL, -1, 1, m->fax, m->nf, &dst))
        return cg_fail(e, "op %s: output access pattern needs more than 4 dims", m->x->name);
    int64_t h = cg_dma(e, 1, &dst, &out, SIM_OP_DMA_COPY, &c.last, 1);
    if (h < 0)
        return e->fail;
    cg_wrote(e, m->x->output, pax[1], h);
    p->last_store[b] = h;
    return 0;
}

int cg_lower_preduce(struct cg_em *e, int32_t op, const int8_t *pax)
{
    struct prc p;
    if (pr_setup(e, op, pax, &p) || pr_buffers(&p))
        return e->fail;
    int64_t nft = cg_split_tiles(&p.m.sp);
    for (int64_t ft = 0; ft < nft; ft++)
        if (pr_free_tile(&p, ft, pax))
            return e->fail;
    return e->fail;
}
