/* codegen/move: data-movement ops as DMA copies (reshape, concat, slice) and gather as
 * indexed row loads. */
#include "codegen/cg_int.h"
#include "codegen/memplan.h"

/* Copy a box (len) from src view at slo (with step) to dst view at dlo, HBM to HBM, in
 * row chunks of <= 128 over the outermost dst storage axis that has len > 1. */
static int copy_box(struct cg_em *e, const struct cg_view *vs, const int64_t *slo,
                    const int64_t *step, const struct cg_view *vd, const int64_t *dlo,
                    const int64_t *len, int32_t tin, int inpax, int32_t tout, int outpax)
{
    int order[R_];
    int n = cg_storage_order(vd, order);
    int rax = -1, k0 = 0;
    for (int k = 0; k < n; k++)
        if (len[order[k]] > 1) {
            rax = order[k];
            k0 = k;
            break;
        }
    int fax[R_], nf = 0;
    for (int k = k0 + 1; k < n; k++)
        fax[nf++] = order[k];
    int64_t rows = rax >= 0 ? len[rax] : 1;
    int64_t rchunk = cg_min(rows, e->t->sbuf_partitions);
    int first = 1;
    for (int64_t r0 = 0; r0 < rows; r0 += rchunk) {
        int64_t sl[R_], dl[R_], ln[R_];
        for (int i = 0; i < vd->rank; i++) {
            dl[i] = dlo[i];
            ln[i] = len[i];
        }
        for (int i = 0; i < vs->rank; i++)
            sl[i] = slo[i];
        if (rax >= 0) {
            dl[rax] += r0;
            sl[rax] += r0 * (step ? step[rax] : 1);
            ln[rax] = cg_min(rchunk, rows - r0);
        }
        struct sim_operand src, dst;
        uint32_t nr = rax >= 0 ? (uint32_t)ln[rax] : 1;
        if (cg_box(vs, sl, ln, step, rax, nr, fax, nf, &src) ||
            cg_box(vd, dl, ln, NULL, rax, nr, fax, nf, &dst))
            return cg_fail(e, "copy access pattern needs more than 4 dims");
        if (rax < 0) {
            src.pstride = 0;
            dst.pstride = 0;
        }
        int64_t deps[72];
        size_t nd = 0;
        if (first < 3)
            cg_writers(e, tin, inpax);
        first++;
        int64_t h = cg_dma(e, (int)(r0 / rchunk) & 1, &dst, &src, SIM_OP_DMA_COPY, deps, nd);
        if (h < 0)
            return e->fail;
        cg_wrote(e, tout, outpax, h);
    }
    return 0;
}

/* Rows of partition block j of a view as a [rows x F] operand (F: elements per partition),
 * in SBUF in place or in HBM. */
static struct sim_operand block_rows(const struct cg_view *v, int64_t j, int64_t rows, int64_t F)
{
    if (cg_resident(v))
        return sim_sbuf(0, (uint32_t)rows, v->base + (uint64_t)j * v->blk, v->dt, (uint32_t)F);
    uint64_t off = (uint64_t)(j * v->pblk * F) * ls_dtype_size(v->dt);
    return sim_hbm((uint32_t)rows, (int32_t)F, v->base + off, v->dt, (uint32_t)F);
}

/* A reshape with an SBUF-resident side: the partition axis maps one to one, so each
 * partition's elements keep their order; one copy per block of partitions (an engine
 * copy when both sides are in SBUF, else a DMA). */
static int reshape_blocks(struct cg_em *e, int32_t op, const int8_t *pax, const struct cg_view *vi,
                          const struct cg_view *vo)
{
    const struct graph_op *x = graph_op(e->g, op);
    struct graph_axis m[R_];
    graph_axis_map(e->g, op, 0, m);
    if (pax[0] < 0 || pax[1] < 0 || m[pax[0]].kind != GRAPH_AXIS_MAP || m[pax[0]].out != pax[1])
        return cg_fail(e, "op %s: an on-chip reshape keeps one axis on partitions", x->name);
    int64_t P = vi->dim[pax[0]];
    int64_t F = graph_shape_numel(&graph_tensor(e->g, x->output)->shape) / P;
    for (int64_t j = 0; j * vi->pblk < P; j++) {
        int64_t rows = cg_min(vi->pblk, P - j * vi->pblk);
        struct sim_operand src = block_rows(vi, j, rows, F), dst = block_rows(vo, j, rows, F);
        cg_writers(e, x->inputs[0], pax[0]);
        int64_t h;
        if (cg_resident(vi) && cg_resident(vo)) {
            struct sim_instr in = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE);
            in.src = src;
            in.dst = dst;
            h = cg_emit(e, &in, NULL, 0);
        } else {
            h = cg_dma(e, cg_resident(vo) ? 0 : 1, &dst, &src, SIM_OP_DMA_COPY, NULL, 0);
        }
        if (h < 0)
            return e->fail;
        cg_wrote(e, x->output, pax[1], h);
    }
    return e->fail;
}

/* A reshape between two tensors in HBM keeps the element order (the flat copy of
 * cg_lower_move): the output is the input's bytes, as a compiler aliases it, with no
 * instruction. 1 when aliased (before anything addresses the output's buffer). */
static int reshape_alias(struct cg_em *e, int32_t op, const int8_t *pax)
{
    const struct graph_op *x = graph_op(e->g, op);
    if (x->kind != GRAPH_OP_RESHAPE || cg_memplan_in_sbuf(e->o->plan, e->g, x->inputs[0], pax[0]) ||
        cg_memplan_in_sbuf(e->o->plan, e->g, x->output, pax[1]))
        return 0;
    /* a sink that cannot alias (pricing) prices the same: nothing */
    return !e->s->hbm_alias ||
           e->s->hbm_alias(e->s->ctx, x->output, pax[1], x->inputs[0], pax[0]) == 0;
}

int cg_lower_alias(struct cg_em *e, int32_t op, const int8_t *pax)
{
    const struct graph_op *x = graph_op(e->g, op);
    struct cg_view vi, vo;
    cg_view_make(e, x->inputs[0], pax[0], &vi);
    cg_view_make(e, x->output, pax[1], &vo);
    if (!cg_resident(&vi) || !cg_resident(&vo) || vi.base != vo.base)
        return 0;
    if (e->s->hbm_alias && e->s->hbm_alias(e->s->ctx, x->output, pax[1], x->inputs[0], pax[0]))
        cg_fail(e, "op %s: its output's buffer is already written", x->name);
    return 1;
}

/* Rows of the flat [rows x numel / rows] view of op x's output: the most, up to
 * sbuf.partitions, that divide its elements evenly (a DMA spreads its rows over the
 * engines). */
static int64_t flat_rows(const struct cg_em *e, const struct graph_op *x)
{
    int64_t numel = graph_shape_numel(&graph_tensor(e->g, x->output)->shape);
    int64_t r = cg_min(numel, e->t->sbuf_partitions);
    while (numel % r)
        r--;
    return r;
}

/* Op x's input copied to its output, both in HBM in the same element order, as one DMA
 * over the flat [r x numel / r] view (a DMA casts when the dtypes differ). */
static int flat_copy(struct cg_em *e, const struct graph_op *x, const int8_t *pax,
                     const struct cg_view *vi, const struct cg_view *vo, int64_t r)
{
    int64_t cols = graph_shape_numel(&graph_tensor(e->g, x->output)->shape) / r;
    struct sim_operand src = sim_hbm((uint32_t)r, (int32_t)cols, vi->base, vi->dt, (uint32_t)cols);
    struct sim_operand dst = sim_hbm((uint32_t)r, (int32_t)cols, vo->base, vo->dt, (uint32_t)cols);
    cg_writers(e, x->inputs[0], pax[0]);
    int64_t h = cg_dma(e, 0, &dst, &src, SIM_OP_DMA_COPY, NULL, 0);
    cg_wrote(e, x->output, pax[x->ninputs], h);
    return e->fail;
}

int cg_lower_cast_dma(struct cg_em *e, int32_t op, const int8_t *pax)
{
    const struct graph_op *x = graph_op(e->g, op);
    if ((x->kind != GRAPH_OP_CAST && x->kind != GRAPH_OP_COPY) || x->ninputs != 1 ||
        pax[0] != pax[1])
        return 0;
    struct cg_view vi, vo;
    cg_view_make(e, x->inputs[0], pax[0], &vi);
    cg_view_make(e, x->output, pax[1], &vo);
    if (cg_resident(&vi) || cg_resident(&vo) || vi.tiles || vo.tiles)
        return 0;
    /* the engine lowering moves the layout's partition rows, spread over as many DMA
     * engines: the flat copy only when it spreads over at least as many */
    int64_t P = pax[0] >= 0 ? vi.dim[pax[0]] : 1, E = e->t->dma_engines;
    int64_t r = flat_rows(e, x);
    if (cg_min(r, E) < cg_min(P, E))
        return 0;
    flat_copy(e, x, pax, &vi, &vo, r);
    return 1;
}

/* A reshape: an alias (nothing emitted), blocks between SBUF and HBM, or one flat copy
 * between two HBM tensors with the same element order. */
static int lower_reshape(struct cg_em *e, int32_t op, const int8_t *pax,
                         const struct cg_view *vo)
{
    const struct graph_op *x = graph_op(e->g, op);
    struct cg_view vi;
    cg_view_make(e, x->inputs[0], pax[0], &vi);
    if (cg_lower_alias(e, op, pax))
        return e->fail;
    if (cg_resident(&vi) || cg_resident(vo))
        return reshape_blocks(e, op, pax, &vi, vo);
    /* same element order in both layouts: one flat copy (only when the program sink
     * could not alias, reshape_alias) */
    return flat_copy(e, x, pax, &vi, vo, flat_rows(e, x));
}

/* A concat: each input copied into its slice of the output along the axis. */
static int lower_concat(struct cg_em *e, const struct graph_op *x, const int8_t *pax,
                        const struct cg_view *vo)
{
    int np = x->ninputs;
    int64_t off = 0, zero[R_] = {0};
    for (int s = 0; s < np; s++) {
        struct cg_view vi;
        cg_view_make(e, x->inputs[s], pax[s], &vi);
        int64_t dlo[R_] = {0};
        dlo[x->attrs.axis] = off;
        if (copy_box(e, &vi, zero, NULL, vo, dlo, vi.dim, x->inputs[s], pax[s], x->output,
                     pax[np]))
            return e->fail;
        off += vi.dim[x->attrs.axis];
    }
    return e->fail;
}

/* A slice: the strided box of the input copied into the output. */
static int lower_slice(struct cg_em *e, const struct graph_op *x, const int8_t *pax,
                       const struct cg_view *vo)
{
    struct cg_view vi;
    cg_view_make(e, x->inputs[0], pax[0], &vi);
    int64_t slo[R_] = {0}, step[R_], zero[R_] = {0};
    for (int i = 0; i < R_; i++)
        step[i] = 1;
    slo[x->attrs.axis] = x->attrs.begin;
    step[x->attrs.axis] = x->attrs.step > 0 ? x->attrs.step : 1;
    return copy_box(e, &vi, slo, step, vo, zero, vo->dim, x->inputs[0], pax[0], x->output,
                    pax[1]);
}

/* A gather's state: the table (vt) and id (vi) views, the table's free axes, rows of
 * `row` elements moved in chunks of rchunk, the double buffers and their last stores. */
struct gather {
    struct cg_em *e;
    const struct graph_op *x;
    const int8_t *pax;
    struct cg_view vt, vi;
    const struct cg_view *vo;
    int ax, nf, fax[R_];
    int64_t row, rchunk, last_store[2], tile;
    uint64_t ib[2], rb[2];
};

/* Ids [i0, i0 + n): one load of the ids, then per chunk of the rows one indexed row load
 * from the table and one store of the rows. */
static int gather_ids(struct gather *G, int64_t i0, int64_t n)
{
    struct cg_em *e = G->e;
    const struct graph_op *x = G->x;
    size_t es = ls_dtype_size(G->vt.dt), ei = ls_dtype_size(G->vi.dt);
    int b = (int)(G->tile & 1);
    struct sim_operand isrc = sim_hbm((uint32_t)n, 1, G->vi.base + (uint64_t)i0 * ei, G->vi.dt, 1);
    struct sim_operand idst = cg_sb(0, (uint32_t)n, G->ib[b], G->vi.dt, 1);
    if (G->tile < 2)
        cg_writers(e, x->inputs[1], G->pax[1]);
    int64_t dep = G->last_store[b];
    int64_t hi = cg_dma(e, 0, &idst, &isrc, SIM_OP_DMA_COPY, &dep, dep >= 0 ? 1 : 0);
    for (int64_t c0 = 0; c0 < G->row; c0 += G->rchunk, G->tile++) {
        int64_t cl = cg_min(G->rchunk, G->row - c0);
        b = (int)(G->tile & 1);
        /* rows of the table (the real ones are data-dependent: same pattern) */
        int64_t lo[R_] = {0}, len[R_];
        for (int i = 0; i < G->vt.rank; i++)
            len[i] = G->vt.dim[i];
        lo[G->ax] = 0;
        len[G->ax] = n;
        struct sim_operand src;
        if (cg_box(&G->vt, lo, len, NULL, G->ax, 1, G->fax, G->nf, &src))
            return cg_fail(e, "op %s: table pattern needs more than 4 dims", x->name);
        if (cl < G->row) {
            uint32_t s32 = (uint32_t)cl;
            int32_t t32 = 1;
            sim_operand_dims(&src, 1, &s32, &t32);
        }
        struct sim_operand rows = cg_sb(0, (uint32_t)n, G->rb[b], G->vt.dt, (uint64_t)cl);
        int64_t gd[2];
        size_t ng = 0;
        if (G->tile < 2)
            cg_writers(e, x->inputs[0], G->pax[0]);
        gd[ng++] = hi;
        if (G->last_store[b] >= 0)
            gd[ng++] = G->last_store[b];
        int64_t hg = cg_dma(e, 0, &rows, &src, SIM_OP_DMA_COPY, gd, ng);
        struct sim_operand dst = sim_hbm((uint32_t)n, (int32_t)G->row,
                                         G->vo->base + ((uint64_t)i0 * G->row + c0) * es,
                                         G->vo->dt, (uint32_t)cl);
        int64_t hs = cg_dma(e, 1, &dst, &rows, SIM_OP_DMA_COPY, &hg, 1);
        if (hs < 0)
            return e->fail;
        cg_wrote(e, x->output, G->pax[2], hs);
        G->last_store[b] = hs;
    }
    return 0;
}

/* A gather: ids in chunks of 128 rows, one indexed row load per chunk. */
static int lower_gather(struct cg_em *e, const struct graph_op *x, const int8_t *pax,
                        const struct cg_view *vo)
{
    struct gather G = {.e = e, .x = x, .pax = pax, .vo = vo, .ax = x->attrs.axis,
                       .last_store = {-1, -1}};
    cg_view_make(e, x->inputs[0], pax[0], &G.vt);
    cg_view_make(e, x->inputs[1], pax[1], &G.vi);
    int64_t nids = graph_shape_numel(&graph_tensor(e->g, x->inputs[1])->shape);
    G.row = graph_shape_numel(&graph_tensor(e->g, x->inputs[0])->shape) / G.vt.dim[G.ax];
    size_t es = ls_dtype_size(G.vt.dt), ei = ls_dtype_size(G.vi.dt);
    int64_t pt = cg_min(nids, e->t->sbuf_partitions);
    G.rchunk = cg_min(G.row, (int64_t)(cg_budget(e) / 4 / es));
    if (G.rchunk < 1)
        return cg_fail(e, "op %s: gather rows do not fit", x->name);
    G.ib[0] = cg_alloc(e, ei);
    G.ib[1] = cg_alloc(e, ei);
    G.rb[0] = cg_alloc(e, (uint64_t)G.rchunk * es);
    G.rb[1] = cg_alloc(e, (uint64_t)G.rchunk * es);
    if (e->fail)
        return e->fail;
    int torder[R_];
    int tn = cg_storage_order(&G.vt, torder);
    for (int k = 0; k < tn; k++)
        if (torder[k] != G.ax)
            G.fax[G.nf++] = torder[k];
    for (int64_t i0 = 0; i0 < nids; i0 += pt)
        if (gather_ids(&G, i0, cg_min(pt, nids - i0)))
            return e->fail;
    return e->fail;
}

int cg_lower_move(struct cg_em *e, int32_t op, const int8_t *pax)
{
    const struct graph_op *x = graph_op(e->g, op);
    if (reshape_alias(e, op, pax))
        return e->fail;
    struct cg_view vo;
    cg_view_make(e, x->output, pax[x->ninputs], &vo);
    switch (x->kind) {
    case GRAPH_OP_RESHAPE: return lower_reshape(e, op, pax, &vo);
    case GRAPH_OP_CONCAT: return lower_concat(e, x, pax, &vo);
    case GRAPH_OP_SLICE: return lower_slice(e, x, pax, &vo);
    default: return lower_gather(e, x, pax, &vo);
    }
}
