/* codegen/conv: conv2d on the PE array (docs/costmodel.md, "Lowering and tiling rules").
 * Output channels on partitions: implicit GEMM (lower_gemm below: the image loaded once,
 * taps read as shifted windows, weights loaded once, taps folded into the contraction for
 * few input channels); when its plan does not fit, the per-tile lowering (lower_legacy).
 * Swapped (an output spatial axis on partitions): stationary = input positions along that
 * axis, moving = the weights of a tap (lower_swapped: one pass over the image, output
 * channels x positions interleaved in PSUM; else the per-tile lower_legacy). Depthwise:
 * per-channel multiply-accumulate on DVE with channels on partitions (lower_legacy). */
#include <stdlib.h>

#include "codegen/cg_int.h"
#include "codegen/epi.h"

struct cv {
    struct cg_em *e;
    const struct graph_op *x;
    int32_t out;                 /* the tensor written: the conv's output, or its chain's */
    enum sim_func act;           /* applied by the evacuation (an epilogue chain's) */
    struct cg_view vx, vw, vo;
    int64_t N, C, H, W, O, Cg, Og, KH, KW, OH, OW, sh, sw, ph, pw, dh, dw, G;
};

/* An SBUF-to-SBUF copy: on DVE when both sides sit on the same partitions, else a DMA
 * (only a DMA moves data across partitions). */
static int64_t onchip_copy(struct cv *c, const struct sim_operand *dst,
                           const struct sim_operand *src, const int64_t *deps, size_t nd)
{
    if (dst->part_start == src->part_start) {
        struct sim_instr in = cg_instr(c->e, LS_ENGINE_DVE, SIM_OP_TENSOR_COPY, SIM_FN_NONE);
        in.dst = *dst;
        in.src = *src;
        return cg_emit(c->e, &in, deps, nd);
    }
    return cg_dma(c->e, 0, dst, src, SIM_OP_DMA_COPY, deps, nd);
}

/* A box of an SBUF-resident view copied on chip into (to_res 0) or from (to_res 1) a
 * staging buffer at sbaddr holding the box's rows from partition 0, each row its free
 * elements in storage order, contiguous: one copy per resident block the rows cross,
 * chained. Reads wait for the tensor's writers (first), writes are recorded (cg_wrote).
 * Returns the last copy. */
static int64_t res_xfer(struct cv *c, const struct cg_view *v, const int64_t *lo,
                        const int64_t *len, int rax, uint64_t sbaddr, int to_res,
                        const int64_t *deps, size_t nd, int32_t tens, int pax, int first)
{
    struct cg_em *e = c->e;
    int order[R_];
    int n = cg_storage_order(v, order);
    int64_t nfree = 1, plo[R_], plen[R_], d[8], h = -1;
    for (int k = 1; k < n; k++)
        nfree *= len[order[k]];
    memcpy(plo, lo, sizeof plo);
    memcpy(plen, len, sizeof plen);
    for (int64_t r = lo[rax]; r < lo[rax] + len[rax];) {
        int64_t rn = cg_min(lo[rax] + len[rax] - r, v->pblk - r % v->pblk);
        plo[rax] = r;
        plen[rax] = rn;
        struct sim_operand ro, so;
        if (cg_box(v, plo, plen, NULL, rax, 1, order + 1, n - 1, &ro))
            return cg_fail(e, "op %s: resident access pattern needs > 4 dims", c->x->name), -1;
        so = cg_sb((uint32_t)(r - lo[rax]), (uint32_t)rn, sbaddr, v->dt, (uint64_t)nfree);
        size_t m = 0;
        for (size_t i = 0; i < nd && m < 6; i++)
            if (deps[i] >= 0)
                d[m++] = deps[i];
        if (h >= 0)
            d[m++] = h;
        if (first && !to_res)
            cg_writers(e, tens, pax);
        h = to_res ? onchip_copy(c, &ro, &so, d, m) : onchip_copy(c, &so, &ro, d, m);
        if (h < 0)
            return -1;
        if (to_res)
            cg_wrote(e, tens, pax, h);
        r += rn;
    }
    return h;
}

static int64_t load_box(struct cv *c, struct cg_view *v, const int64_t *lo, const int64_t *len,
                        int rax, uint64_t addr, int32_t tin, int pax, int first, int64_t war)
{
    struct cg_em *e = c->e;
    int order[R_];
    if (cg_resident(v)) /* copied on chip into the differently shaped buffer */
        return res_xfer(c, v, lo, len, rax, addr, 0, &war, 1, tin, pax, first);
    int n = cg_storage_order(v, order);
    struct sim_operand src;
    int64_t nfree = 1;
    for (int k = 1; k < n; k++)
        nfree *= len[order[k]];
    if (cg_box(v, lo, len, NULL, rax, 1, order + 1, n - 1, &src))
        return cg_fail(e, "op %s: access pattern needs > 4 dims", c->x->name), -1;
    struct sim_operand dst = cg_sb(0, (uint32_t)len[rax], addr, v->dt, (uint64_t)nfree);
    int64_t deps[72];
    size_t nd = 0;
    if (first)
        cg_writers(e, tin, pax);
    if (war >= 0)
        deps[nd++] = war;
    return cg_dma(e, 0, &dst, &src, SIM_OP_DMA_COPY, deps, nd);
}

static int64_t pe(struct cv *c, enum sim_opcode opc, const struct sim_operand *src,
                  const struct sim_operand *dst, uint8_t flags, const int64_t *deps, size_t nd)
{
    struct sim_instr in = cg_instr(c->e, LS_ENGINE_PE, opc, SIM_FN_NONE);
    in.src = *src;
    if (dst)
        in.dst = *dst;
    in.flags = flags;
    return cg_emit(c->e, &in, deps, nd);
}

static int64_t store(struct cv *c, const int64_t *lo, const int64_t *len, int rax,
                     const struct sim_operand *sb, int64_t dep, int pax)
{
    if (cg_resident(&c->vo)) /* staging -> resident output on chip, no store */
        return res_xfer(c, &c->vo, lo, len, rax, sb->addr, 1, &dep, 1, c->out, pax, 0);
    int order[R_];
    int n = cg_storage_order(&c->vo, order);
    struct sim_operand dst;
    if (cg_box(&c->vo, lo, len, NULL, rax, 1, order + 1, n - 1, &dst))
        return cg_fail(c->e, "op %s: output pattern needs > 4 dims", c->x->name), -1;
    int64_t h = cg_dma(c->e, 1, &dst, sb, SIM_OP_DMA_COPY, &dep, 1);
    cg_wrote(c->e, c->out, pax, h);
    return h;
}

/* What a conv writes: its own output, or an epilogue chain's output with the chain's
 * activation applied by the evacuation. */
struct cv_out {
    int32_t t;                   /* -1: the conv's output */
    enum sim_func act;
};

/* The views and sizes of conv op under pax (x [N, C, H, W], w [O, Cg, KH, KW], y [N, O,
 * OH, OW]). */
static void cv_init(struct cv *c, struct cg_em *e, int32_t op, const int8_t *pax,
                    const struct cv_out *o)
{
    memset(c, 0, sizeof *c);
    c->e = e;
    c->x = graph_op(e->g, op);
    c->out = o->t >= 0 ? o->t : c->x->output;
    c->act = o->act;
    cg_view_make(e, c->x->inputs[0], pax[0], &c->vx);
    cg_view_make(e, c->x->inputs[1], pax[1], &c->vw);
    cg_view_make(e, c->out, pax[2], &c->vo);
    c->N = c->vx.dim[0]; c->C = c->vx.dim[1]; c->H = c->vx.dim[2]; c->W = c->vx.dim[3];
    c->O = c->vw.dim[0]; c->Cg = c->vw.dim[1]; c->KH = c->vw.dim[2]; c->KW = c->vw.dim[3];
    c->OH = c->vo.dim[2]; c->OW = c->vo.dim[3];
    c->sh = c->x->attrs.stride[0]; c->sw = c->x->attrs.stride[1];
    c->ph = c->x->attrs.pad[0]; c->pw = c->x->attrs.pad[1];
    c->dh = c->x->attrs.dilation[0]; c->dw = c->x->attrs.dilation[1];
    c->G = c->x->attrs.groups > 0 ? c->x->attrs.groups : 1;
    c->Og = c->O / c->G;
}

/* One run of the per-tile lowering (lower_legacy): plan, buffers, last users, loads. */
struct lg {
    struct cv *c;
    const int8_t *pax;
    int po, depthwise;
    size_t ex, ew, eo;
    int64_t tmax, taps, ohc, owc, rows_in, cols_in, ct, nKc, mt, at, oc;
    uint64_t xb, wb, xbuf[2], wbuf, obuf[2], tmp;
    int64_t xr[2], orr[2], wr, bank_reader[2], tile;
    int64_t *hw, *hx;                   /* weight and image loads per channel tile */
    int firstx, firstw;
    int64_t n, g, m0, ml;               /* image, group, m-tile (channels) */
};

/* Channels-on-partitions plan: chunks of output rows, channel tiles, m-tiles, buffers. */
static void lg_plan_channels(struct lg *s)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    const struct sim_target *t = e->t;
    int64_t prow = cg_min(t->pe_rows, t->sbuf_partitions), pcol = cg_min(t->pe_cols, t->sbuf_partitions);
    s->ohc = c->OW <= s->tmax ? cg_max(1, cg_min(c->OH, s->tmax / c->OW)) : 1;
    s->owc = cg_min(c->OW, s->tmax);
    s->cols_in = s->owc == c->OW ? c->W : cg_min(c->W, (s->owc - 1) * c->sw + (c->KW - 1) * c->dw + 1);
    s->ct = s->depthwise ? cg_min(c->C, t->sbuf_partitions) : cg_min(c->Cg, prow);
    s->nKc = cg_cdiv(s->depthwise ? c->C : c->Cg, s->ct);
    /* fewer output rows per chunk until two input blocks fit in half the budget */
    for (;;) {
        s->rows_in = cg_min(c->H, (s->ohc - 1) * c->sh + (c->KH - 1) * c->dh + 1);
        if (s->ohc == 1 || 4 * (uint64_t)s->rows_in * s->cols_in * s->ex * s->nKc <= cg_budget(e))
            break;
        s->ohc = (s->ohc + 1) / 2;
    }
    s->xb = (uint64_t)s->rows_in * s->cols_in * s->ex;
    s->xbuf[0] = cg_alloc(e, s->xb * s->nKc);
    s->xbuf[1] = cg_alloc(e, s->xb * s->nKc);
    s->mt = s->depthwise ? s->ct : cg_min(c->Og, pcol);
    if (!s->depthwise) /* the weight block of an m-tile takes at most a quarter of the budget */
        s->mt = cg_max(1, cg_min(s->mt, (int64_t)(cg_budget(e) / 4 / ((uint64_t)s->nKc * s->taps * s->ew))));
    s->wbuf = cg_alloc(e, s->depthwise ? (uint64_t)s->taps * s->ew
                                       : (uint64_t)s->nKc * s->mt * s->taps * s->ew);
    s->obuf[0] = cg_alloc(e, (uint64_t)s->tmax * s->eo);
    s->obuf[1] = cg_alloc(e, (uint64_t)s->tmax * s->eo);
    s->tmp = s->depthwise ? cg_alloc(e, (uint64_t)s->tmax * 4) : 0;
}

/* The weights of m-tile m0..m0+ml (every channel tile; one tap row per channel, depthwise). */
static int lg_weights(struct lg *s)
{
    struct cv *c = s->c;
    for (int64_t kc = 0; kc < (s->depthwise ? 1 : s->nKc); kc++) {
        int64_t lo[R_] = {s->depthwise ? s->m0 : s->g * c->Og + s->m0, s->depthwise ? 0 : kc * s->ct, 0, 0};
        int64_t len[R_] = {s->ml, s->depthwise ? 1 : cg_min(s->ct, c->Cg - kc * s->ct), c->KH, c->KW};
        s->hw[kc] = load_box(c, &c->vw, lo, len, s->depthwise ? 0 : 1,
                             s->wbuf + (uint64_t)kc * s->ml * s->taps * s->ew, c->x->inputs[1],
                             s->pax[1], s->firstw, s->wr);
        if (s->hw[kc] < 0)
            return c->e->fail;
    }
    s->firstw = 0;
    return 0;
}

/* Depthwise: per tap a DVE multiply of the shifted window by the channel's weight,
 * summed into out (through tmp). */
static int64_t lg_depthwise(struct lg *s, int b, int64_t oh, int64_t ow, int64_t cl,
                            const struct sim_operand *out)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    int64_t te = oh * ow, last = -1;
    struct sim_operand tm = cg_sb(0, (uint32_t)s->ml, s->tmp, LS_DT_FP32, (uint64_t)te);
    for (int64_t tp = 0; tp < s->taps; tp++) {
        struct sim_operand win = cg_sb(0, (uint32_t)s->ml, s->xbuf[b], c->vx.dt, (uint64_t)te);
        int64_t sz[2] = {oh, ow}, st[2] = {c->sh * cl, c->sw};
        cg_pattern(&win, 2, sz, st);
        struct sim_instr in = cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_SCALAR, SIM_FN_MUL);
        in.dst = tp == 0 ? *out : tm;
        in.src = win;
        int64_t deps[4];
        size_t nd = 0;
        deps[nd++] = s->hx[0];
        if (tp == 0) {
            deps[nd++] = s->hw[0];
            if (s->orr[b] >= 0)
                deps[nd++] = s->orr[b];
        }
        if (last >= 0)
            deps[nd++] = last;
        last = cg_emit(e, &in, deps, nd);
        if (tp > 0) {
            struct sim_instr ad = cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_ADD);
            ad.dst = *out;
            ad.src = *out;
            ad.src2 = tm;
            last = cg_emit(e, &ad, &last, 1);
        }
        if (last < 0)
            return -1;
    }
    return last;
}

/* Channel tiles x taps accumulating in one PSUM bank, evacuated into out. */
static int64_t lg_matmuls(struct lg *s, int b, int64_t oh, int64_t ow, int64_t rl, int64_t cl,
                          const struct sim_operand *out)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    uint32_t nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    uint32_t bank = e->s->psum_bank0 + (uint32_t)(s->tile % nb);
    int64_t te = oh * ow, last = -1, kk = 0;
    struct sim_operand ps = sim_psum(0, (uint32_t)s->ml, (uint64_t)bank * e->t->psum_bank_bytes,
                                     LS_DT_FP32, (uint32_t)te);
    for (int64_t kc = 0; kc < s->nKc; kc++) {
        int64_t kl = cg_min(s->ct, c->Cg - kc * s->ct);
        for (int64_t tp = 0; tp < s->taps; tp++, kk++) {
            struct sim_operand st = cg_sb(0, (uint32_t)kl,
                                          s->wbuf + ((uint64_t)kc * s->ml * s->taps + (uint64_t)tp) * s->ew,
                                          c->vw.dt, (uint64_t)s->ml);
            int64_t ssz[1] = {s->ml}, sst[1] = {s->taps};
            cg_pattern(&st, 1, ssz, sst);
            int64_t hl = pe(c, SIM_OP_LOAD_STATIONARY, &st, NULL, 0, &s->hw[kc], 1);
            int64_t kh = tp / c->KW, kw = tp % c->KW;
            uint64_t off = (uint64_t)(cg_min(kh * c->dh, rl - 1) * cl + cg_min(kw * c->dw, cl - 1)) * s->ex;
            struct sim_operand mv = cg_sb(0, (uint32_t)kl, s->xbuf[b] + (uint64_t)kc * s->xb + off,
                                          c->vx.dt, (uint64_t)te);
            int64_t sz[2] = {oh, ow}, sd[2] = {c->sh * cl, c->sw};
            cg_pattern(&mv, 2, sz, sd);
            int64_t deps[3] = {hl, s->hx[kc], s->bank_reader[b]};
            last = pe(c, SIM_OP_MATMUL, &mv, &ps, kk > 0 ? SIM_F_ACCUMULATE : 0, deps,
                      kk == 0 && s->bank_reader[b] >= 0 ? 3 : 2);
            if (last < 0)
                return -1;
        }
    }
    s->wr = last;
    struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, c->act);
    ev.dst = *out;
    ev.src = ps;
    int64_t deps[2] = {last, s->orr[b]};
    last = cg_emit(e, &ev, deps, s->orr[b] >= 0 ? 2 : 1);
    s->bank_reader[b] = last;
    return last;
}

/* One chunk of output rows oh0.. and columns ow0..: its input block, the compute, the
 * store. */
static int lg_chunk(struct lg *s, int64_t oh0, int64_t ow0)
{
    struct cv *c = s->c;
    int b = (int)(s->tile & 1);
    int64_t oh = cg_min(s->ohc, c->OH - oh0), ow = cg_min(s->owc, c->OW - ow0);
    int64_t r0 = cg_max(0, oh0 * c->sh - c->ph);
    int64_t rl = cg_max(1, cg_min(c->H - r0, (oh - 1) * c->sh + (c->KH - 1) * c->dh + 1));
    int64_t c0 = cg_max(0, ow0 * c->sw - c->pw);
    int64_t cl = cg_max(1, cg_min(c->W - c0, (ow - 1) * c->sw + (c->KW - 1) * c->dw + 1));
    rl = cg_min(rl, s->rows_in);
    cl = cg_min(cl, s->cols_in);
    for (int64_t kc = 0; kc < (s->depthwise ? 1 : s->nKc); kc++) {
        int64_t cb = s->depthwise ? s->m0 : s->g * c->Cg + kc * s->ct;
        int64_t lo[R_] = {s->n, cb, r0, c0};
        int64_t len[R_] = {1, s->depthwise ? s->ml : cg_min(s->ct, c->Cg - kc * s->ct), rl, cl};
        s->hx[kc] = load_box(c, &c->vx, lo, len, 1, s->xbuf[b] + (uint64_t)kc * s->xb,
                             c->x->inputs[0], s->pax[0], s->firstx > 0, s->xr[b]);
        if (s->hx[kc] < 0)
            return c->e->fail;
    }
    if (s->firstx > 0)
        s->firstx--;
    struct sim_operand out = cg_sb(0, (uint32_t)s->ml, s->obuf[b], c->vo.dt, (uint64_t)(oh * ow));
    int64_t last = s->depthwise ? lg_depthwise(s, b, oh, ow, cl, &out)
                                : lg_matmuls(s, b, oh, ow, rl, cl, &out);
    if (last < 0)
        return c->e->fail;
    s->xr[b] = last;
    if (s->depthwise)
        s->wr = last;
    int64_t olo[R_] = {s->n, s->depthwise ? s->m0 : s->g * c->Og + s->m0, oh0, ow0};
    int64_t olen[R_] = {1, s->ml, oh, ow};
    s->orr[b] = store(c, olo, olen, 1, &out, last, s->po);
    return s->orr[b] < 0 ? c->e->fail : 0;
}

/* Output channels (or channels, depthwise) on partitions: per image, group and m-tile
 * its weights, then chunks of output rows. */
static int lg_channels(struct lg *s)
{
    struct cv *c = s->c;
    lg_plan_channels(s);
    if (c->e->fail)
        return c->e->fail;
    int64_t nmt = s->depthwise ? cg_cdiv(c->C, s->ct) : cg_cdiv(c->Og, s->mt);
    for (s->n = 0; s->n < c->N; s->n++)
        for (s->g = 0; s->g < (s->depthwise ? 1 : c->G); s->g++)
            for (int64_t mi = 0; mi < nmt; mi++) {
                s->m0 = mi * s->mt;
                s->ml = cg_min(s->mt, (s->depthwise ? c->C : c->Og) - s->m0);
                if (lg_weights(s))
                    return c->e->fail;
                for (int64_t oh0 = 0; oh0 < c->OH; oh0 += s->ohc)
                    for (int64_t ow0 = 0; ow0 < c->OW; ow0 += s->owc, s->tile++)
                        if (lg_chunk(s, oh0, ow0))
                            return c->e->fail;
            }
    return c->e->fail;
}

/* Swapped, per output position fi of the other spatial axis, partition tile a0 and
 * output channels o0..: channel tiles x taps into one bank, evacuated and stored. */
static int lg_swapped_tile(struct lg *s, int f, int64_t fi, int64_t a0, int64_t al, int64_t o0)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    int b = (int)(s->tile & 1), po = s->po;
    int64_t ol2 = cg_min(s->oc, c->O - o0), last = -1, kk = 0;
    uint32_t nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    uint32_t bank = e->s->psum_bank0 + (uint32_t)(s->tile % nb);
    struct sim_operand ps = sim_psum(0, (uint32_t)al, (uint64_t)bank * e->t->psum_bank_bytes,
                                     LS_DT_FP32, (uint32_t)ol2);
    for (int64_t kc = 0; kc < s->nKc; kc++) {
        int64_t kl = cg_min(s->ct, c->C - kc * s->ct);
        for (int64_t tp = 0; tp < s->taps; tp++, kk++) {
            int64_t kh = tp / c->KW, kw = tp % c->KW;
            int64_t r = po == 2 ? a0 * c->sh : fi * c->sh;
            int64_t q = po == 3 ? a0 * c->sw : fi * c->sw;
            r = cg_min(c->H - 1, cg_max(0, r + kh * c->dh - c->ph));
            q = cg_min(c->W - 1, cg_max(0, q + kw * c->dw - c->pw));
            struct sim_operand st = cg_sb(0, (uint32_t)kl,
                                          s->xbuf[0] + (uint64_t)kc * s->xb + (uint64_t)(r * c->W + q) * s->ex,
                                          c->vx.dt, (uint64_t)al);
            int64_t ssz[1] = {al}, sst[1] = {po == 2 ? c->sh * c->W : c->sw};
            cg_pattern(&st, 1, ssz, sst);
            int64_t hl = pe(c, SIM_OP_LOAD_STATIONARY, &st, NULL, 0, &s->hx[kc], 1);
            struct sim_operand mv = cg_sb(0, (uint32_t)kl,
                                          s->wbuf + (uint64_t)kc * s->wb + (uint64_t)(o0 * s->taps + tp) * s->ew,
                                          c->vw.dt, (uint64_t)ol2);
            int64_t msz[1] = {ol2}, mst[1] = {s->taps};
            cg_pattern(&mv, 1, msz, mst);
            int64_t deps[3] = {hl, s->hw[kc], s->bank_reader[b]};
            last = pe(c, SIM_OP_MATMUL, &mv, &ps, kk > 0 ? SIM_F_ACCUMULATE : 0, deps,
                      kk == 0 && s->bank_reader[b] >= 0 ? 3 : 2);
            if (last < 0)
                return e->fail;
        }
    }
    s->xr[0] = last;
    struct sim_operand out = cg_sb(0, (uint32_t)al, s->obuf[b], c->vo.dt, (uint64_t)ol2);
    struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, c->act);
    ev.dst = out;
    ev.src = ps;
    int64_t deps[2] = {last, s->orr[b]};
    last = cg_emit(e, &ev, deps, s->orr[b] >= 0 ? 2 : 1);
    s->bank_reader[b] = last;
    if (last < 0)
        return e->fail;
    int64_t olo[R_], olen[R_];
    olo[0] = s->n; olen[0] = 1; olo[1] = o0; olen[1] = ol2;
    olo[po] = a0; olen[po] = al; olo[f] = fi; olen[f] = 1;
    s->orr[b] = store(c, olo, olen, po, &out, last, po);
    return s->orr[b] < 0 ? e->fail : 0;
}

/* Swapped: an output spatial axis on partitions (groups == 1), the whole image and the
 * weights in SBUF. */
static int lg_swapped(struct lg *s)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    const struct sim_target *t = e->t;
    int po = s->po, f = po == 3 ? 2 : 3; /* the other spatial axis, iterated */
    s->ct = cg_min(c->C, cg_min(t->pe_rows, t->sbuf_partitions));
    s->nKc = cg_cdiv(c->C, s->ct);
    int64_t Pa = c->vo.dim[po];
    s->at = cg_min(Pa, cg_min(t->pe_cols, t->sbuf_partitions));
    s->oc = cg_min(c->O, s->tmax);
    s->xb = (uint64_t)c->H * c->W * s->ex;
    s->wb = (uint64_t)c->O * s->taps * s->ew;
    if ((s->xb + s->wb) * s->nKc > cg_budget(e) / 2)
        return cg_fail(e, "op %s: the swapped conv needs the whole input image in SBUF", c->x->name);
    s->xbuf[0] = cg_alloc(e, s->xb * s->nKc);
    s->wbuf = cg_alloc(e, s->wb * s->nKc);
    s->obuf[0] = cg_alloc(e, (uint64_t)s->tmax * s->eo);
    s->obuf[1] = cg_alloc(e, (uint64_t)s->tmax * s->eo);
    if (e->fail)
        return e->fail;
    for (int64_t kc = 0; kc < s->nKc; kc++) {
        int64_t lo[R_] = {0, kc * s->ct, 0, 0}, len[R_] = {c->O, cg_min(s->ct, c->C - kc * s->ct), c->KH, c->KW};
        s->hw[kc] = load_box(c, &c->vw, lo, len, 1, s->wbuf + (uint64_t)kc * s->wb, c->x->inputs[1],
                             s->pax[1], 1, -1);
        if (s->hw[kc] < 0)
            return e->fail;
    }
    for (s->n = 0; s->n < c->N; s->n++) {
        for (int64_t kc = 0; kc < s->nKc; kc++) {
            int64_t lo[R_] = {s->n, kc * s->ct, 0, 0}, len[R_] = {1, cg_min(s->ct, c->C - kc * s->ct), c->H, c->W};
            s->hx[kc] = load_box(c, &c->vx, lo, len, 1, s->xbuf[0] + (uint64_t)kc * s->xb, c->x->inputs[0],
                                 s->pax[0], s->n == 0, s->xr[0]);
            if (s->hx[kc] < 0)
                return e->fail;
        }
        for (int64_t fi = 0; fi < c->vo.dim[f]; fi++)
            for (int64_t a0 = 0; a0 < Pa; a0 += s->at)
                for (int64_t o0 = 0; o0 < c->O; o0 += s->oc, s->tile++)
                    if (lg_swapped_tile(s, f, fi, a0, cg_min(s->at, Pa - a0), o0))
                        return e->fail;
    }
    return e->fail;
}

static int lower_legacy(struct cg_em *e, int32_t op, const int8_t *pax, const struct cv_out *o)
{
    struct cv c;
    cv_init(&c, e, op, pax, o);
    struct lg s = {.c = &c, .pax = pax, .po = pax[2], .depthwise = c.G == c.C && c.C > 1,
                   .xr = {-1, -1}, .orr = {-1, -1}, .wr = -1, .bank_reader = {-1, -1},
                   .firstx = 2, .firstw = 1};
    s.ex = ls_dtype_size(c.vx.dt);
    s.ew = ls_dtype_size(c.vw.dt);
    s.eo = ls_dtype_size(c.vo.dt);
    s.tmax = cg_min(e->t->pe_moving_max, e->t->psum_bank_bytes / 4);
    s.taps = c.KH * c.KW;
    /* the loads per channel tile: at most C of them */
    s.hw = calloc((size_t)c.C + 1, sizeof *s.hw);
    s.hx = calloc((size_t)c.C + 1, sizeof *s.hx);
    int rc = !s.hw || !s.hx ? cg_fail_nomem(e) : s.po == 1 ? lg_channels(&s) : lg_swapped(&s);
    free(s.hw);
    free(s.hx);
    return rc;
}

/* ---- implicit GEMM (output channels on partitions, groups of any size but depthwise) ----
 *
 * The contraction runs over k-steps, each one PE pass of up to pe.rows partitions:
 * - general: (channel tile of <= pe.rows input channels, tap); the input image (or a band
 *   of input rows) is loaded once per channel tile with one DMA of whole H*W rows per
 *   partition, and each tap reads a shifted, strided window of it in place;
 * - folded (few input channels, e.g. RGB stems and patch embeddings): the partitions hold
 *   (channel, kernel row) pairs and the k-steps run over the kernel columns; partition
 *   (c, kh) holds, for every output row of the band, input row oh*sh - ph + kh*dh (loaded
 *   row by row, or as one contiguous slab of rows when that is cheaper), zero where the row
 *   falls in the padding.
 * Padding columns (and rows, general) are never read: a tap's matmul covers only the output
 * positions whose window element lies inside the image (a rectangle of the chunk), and the
 * first matmul of each PSUM chunk is a tap that covers the whole chunk (else the chunk is
 * zeroed by a DVE memset first). Weights are loaded once per op (or per group of output
 * channel tiles when they do not fit) with long rows; output chunks of <= pe.moving_max
 * fp32 accumulate in PSUM over all k-steps, G = banks/2 chunks per group share each
 * load_stationary, and a group is evacuated by ACT and stored with one DMA. */

struct gp {
    int fold, slab, wcustom, khmajor;
    int nofold;                    /* input: do not fold the taps */
    int ilv;                       /* input channel of (partition p, tile kc) = p*nKc + kc */
    int wilv;                      /* resident image (channel kc*ct + p): a constant weight
                                      stored k-tiled, [p][kc][O, KH, KW], so that it loads
                                      like the interleaved one (one run per partition) */
    int oilv;                      /* output channel of (partition q, m-tile mi) = q*nM + mi,
                                      the whole output staged and stored with long rows */
    int64_t spiece;                /* oilv: m-tiles per store */
    int64_t ct, nKc, kr, nsteps;   /* channel tile, tiles, rows per k-step, k-steps */
    /* folded: J shifted copies of the C x KH rows (copy j reads kernel column kw0 + j);
     * k-step s covers kernel columns skw[s] .. skw[s] + sJ[s] - 1 */
    int64_t kr0, J, skw[64], sJ[64];
    int64_t mt, nM, mg, nMg;       /* m-tile, m-tiles, m-tiles per weight group, groups */
    int64_t mgl;                   /* m-tiles per weight DMA */
    int64_t ohc, owc, Rb, nbands;  /* chunk rows x cols, output rows per band */
    int nxb, nwb;
    uint64_t xkc;                  /* image bytes per partition per channel tile */
    uint64_t wkc;                  /* weight bytes per partition per channel tile (group) */
    uint64_t obytes;               /* one staging buffer */
    int64_t rs;                    /* fold: SBUF row stride of the image band (elements) */
};

static uint64_t al64(uint64_t b) { return (b + 63) & ~(uint64_t)63; }

static int64_t fdiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }
static int64_t cdiv_s(int64_t a, int64_t b) { return -fdiv(-a, b); }

/* Output positions along one axis whose input index o*s - p + k*d lies in [0, n). */
static void valid_range(int64_t n, int64_t s, int64_t p, int64_t kd, int64_t lo, int64_t hi,
                        int64_t *vlo, int64_t *vhi)
{
    *vlo = cg_max(lo, cdiv_s(p - kd, s));
    *vhi = cg_min(hi, fdiv(n - 1 + p - kd, s) + 1);
    if (*vhi < *vlo)
        *vhi = *vlo;
}

/* input rows of a band of output rows [b0, b1) (general mode) */
static void band_rows(const struct cv *c, int64_t b0, int64_t b1, int64_t *i0, int64_t *i1)
{
    *i0 = cg_max(0, b0 * c->sh - c->ph);
    *i1 = cg_min(c->H, (b1 - 1) * c->sh - c->ph + (c->KH - 1) * c->dh + 1);
    if (*i1 <= *i0)
        *i1 = *i0 + 1;
}

static uint64_t x_bytes(const struct cv *c, const struct gp *p, int64_t Rb, size_t ex)
{
    if (p->fold)
        return (uint64_t)((Rb - 1) * p->rs + c->W) * ex;
    if (cg_resident(&c->vx))
        return 0;  /* read in place */
    int64_t rows = cg_min(c->H, (Rb - 1) * c->sh + (c->KH - 1) * c->dh + 1);
    return (uint64_t)p->nKc * ((uint64_t)rows * c->W * ex);
}

/* Folded rows: one at a time (a descriptor each) or one slab of rows per partition; the
 * DMA time of one partition's rows in *part_ns. */
static void plan_fold_rows(const struct cv *c, struct gp *p, double *part_ns)
{
    const struct sim_target *t = c->e->t;
    size_t ex = ls_dtype_size(c->vx.dt);
    int64_t rows = c->OH;
    double row_ns = cg_max(1, (int64_t)((double)c->W * ex / t->dma_bytes_per_ns));
    double strided = (double)rows * (row_ns > t->dma_desc_min_ns ? row_ns : t->dma_desc_min_ns);
    double slab = (double)((rows - 1) * c->sh + 1) * c->W * ex / t->dma_bytes_per_ns;
    p->slab = c->sh == 1 || (c->sh > 1 && slab < strided);
    p->rs = p->slab ? c->sh * c->W : c->W;
    *part_ns = p->slab ? slab : strided;
    /* partition order: fewer input DMAs per band (one per channel and run of kernel rows
     * with the same padding rows, or one per kernel row) */
    int64_t runs = 1;
    for (int64_t kh = 1; kh < c->KH; kh++) {
        int64_t a, b, u, v;
        valid_range(c->H, c->sh, c->ph, kh * c->dh, 0, c->OH, &a, &b);
        valid_range(c->H, c->sh, c->ph, (kh - 1) * c->dh, 0, c->OH, &u, &v);
        runs += a != u || b != v;
    }
    p->khmajor = c->KH < c->C * runs;
}

/* The k-steps of J copies: runs of <= J consecutive kernel columns with the same padding
 * columns; their count. */
static int64_t fold_steps(const struct cv *c, int64_t J, int64_t *skw, int64_t *sJ)
{
    int64_t ns = 0;
    for (int64_t kw = 0; kw < c->KW;) {
        int64_t a, b, k2 = kw + 1;
        valid_range(c->W, c->sw, c->pw, kw * c->dw, 0, c->OW, &a, &b);
        for (; k2 < c->KW && k2 - kw < J; k2++) {
            int64_t u, v;
            valid_range(c->W, c->sw, c->pw, k2 * c->dw, 0, c->OW, &u, &v);
            if (u != a || v != b)
                break;
        }
        skw[ns] = kw;
        sJ[ns++] = k2 - kw;
        kw = k2;
    }
    return ns;
}

/* Folded: (channel, kernel row) pairs on partitions, k-steps over kernel columns; J copies
 * of the rows, copy j shifted by j*dw elements, so that a k-step contracts J consecutive
 * columns. J balances the PE time (k-steps) against the DMA time (J loads of the image). */
static void plan_fold(const struct cv *c, struct gp *p, uint64_t budget, int64_t prow)
{
    const struct sim_target *t = c->e->t;
    size_t ew = ls_dtype_size(c->vw.dt);
    p->ct = c->C;
    p->nKc = 1;
    p->kr = c->C * c->KH;
    p->nsteps = c->KW;
    p->mg = p->nM;
    p->nMg = 1;
    p->mgl = p->nM;
    p->wkc = al64((uint64_t)c->KW * c->Og * ew);
    double part_ns;
    plan_fold_rows(c, p, &part_ns);
    if ((uint64_t)c->KW * p->mt * ew * 2 > budget || c->KW > 64) /* one m-tile at least */
        p->fold = 0;
    p->kr0 = c->C * c->KH;
    double best = -1;
    for (int64_t J = 1; p->fold && J <= cg_min(prow / p->kr0, 8); J++) {
        int64_t skw[64], sJ[64], ns = fold_steps(c, J, skw, sJ);
        double pe_ns = (double)ns * c->OH * c->OW * p->nM / t->pe_mhz * 1000.0;
        double dma_ns = (double)J * p->kr0 * part_ns / (double)cg_min(t->dma_engines, J * p->kr0);
        double cost = pe_ns > dma_ns ? pe_ns : dma_ns;
        if (best < 0 || cost < best) {
            best = cost;
            p->nsteps = ns;
            memcpy(p->skw, skw, sizeof skw);
            memcpy(p->sJ, sJ, sizeof sJ);
        }
    }
    p->J = 1;
    for (int64_t i = 0; i < p->nsteps; i++)
        p->J = cg_max(p->J, p->sJ[i]);
    p->kr = p->J * p->kr0;
}

/* General: channel tiles of <= pe.rows, (tile, tap) k-steps. */
static void plan_tiles(const struct cv *c, struct gp *p, int64_t prow)
{
    p->ct = cg_min(c->Cg, prow);
    p->nKc = cg_cdiv(c->Cg, p->ct);
    /* spread the channels over the tiles (c = p*nKc + kc) when they divide evenly: a
     * partition's channels are then adjacent in HBM, for the image and the weights */
    p->ilv = p->nKc > 1 && c->Cg % p->nKc == 0 && !cg_resident(&c->vx);
    if (p->ilv)
        p->ct = c->Cg / p->nKc;
    p->wilv = cg_resident(&c->vx) && p->wcustom && p->nKc > 1 && c->Cg == p->nKc * p->ct;
    p->kr = p->ct;
    p->nsteps = p->nKc * c->KH * c->KW;
    p->slab = 0;
    p->rs = 0;
}

/* The largest band of output rows (a multiple of the chunk rows) whose image buffers fit
 * beside fixed bytes; 0 when none. */
static int64_t plan_band(const struct cv *c, const struct gp *p, uint64_t fixed, uint64_t budget)
{
    size_t ex = ls_dtype_size(c->vx.dt);
    int multi = c->N * c->G > 1;
    for (int64_t Rb = c->OH; Rb >= 1;) {
        int nxb = multi || cg_cdiv(c->OH, Rb) > 1 ? 2 : 1;
        if (fixed + (uint64_t)nxb * al64(x_bytes(c, p, Rb, ex)) <= budget)
            return Rb;
        if (Rb == 1)
            return 0;
        Rb = Rb > p->ohc ? ((Rb - 1) / p->ohc) * p->ohc : Rb - 1;
        if (Rb < 1)
            Rb = 1;
    }
    return 0;
}

/* Small outputs: rows of one m-tile are shorter than a descriptor; spread the output
 * channels over the m-tiles instead, so that a partition's channels are adjacent. */
static void plan_oilv(const struct cv *c, struct gp *p, uint64_t fixed, uint64_t budget,
                      int64_t dbytes)
{
    size_t ex = ls_dtype_size(c->vx.dt), eo = ls_dtype_size(c->vo.dt);
    uint64_t ohw = (uint64_t)c->OH * c->OW;
    uint64_t obig = al64((uint64_t)p->nM * ohw * eo);
    p->oilv = 0;
    if (cg_resident(&c->vo) || c->N != 1 || p->nbands != 1 || p->nMg != 1 || p->owc != c->OW ||
        p->nM <= 1 || c->Og % p->nM != 0 || ohw * eo >= (uint64_t)dbytes ||
        fixed - 2 * p->obytes + obig + (uint64_t)p->nxb * al64(x_bytes(c, p, p->Rb, ex)) > budget)
        return;
    p->oilv = 1;
    p->mt = c->Og / p->nM;
    p->mgl = p->mg; /* an m-tile's columns spread over every output channel */
    p->obytes = obig;
    p->spiece = cg_min(p->nM, cg_max(1, cg_cdiv(dbytes, (int64_t)(ohw * eo))));
    if (2 * p->spiece > p->nM)
        p->spiece = p->nM;
}

/* Weight groups: the most m-tiles per group (halving) whose weights, staging and a band
 * fit the budget; -1 when none does. */
static int plan_groups(const struct cv *c, struct gp *p, uint64_t budget)
{
    const struct sim_target *t = c->e->t;
    size_t ex = ls_dtype_size(c->vx.dt), ew = ls_dtype_size(c->vw.dt);
    int64_t taps = c->KH * c->KW;
    uint64_t mrow = (uint64_t)p->mt * taps * ew;   /* one m-tile's weights per partition row */
    for (int64_t mg = p->nM; mg >= 1; mg = mg > 1 ? cg_cdiv(mg, 2) : 0) {
        int64_t nMg = cg_cdiv(p->nM, mg);
        uint64_t wkc = (uint64_t)cg_min(mg * p->mt, c->Og) * (p->fold ? c->KW : taps) * ew;
        int nwb = nMg > 1 || c->G > 1 ? 2 : 1;
        uint64_t wtot = (uint64_t)nwb * al64(p->fold ? wkc : wkc * (uint64_t)p->nKc);
        uint64_t fixed = wtot + 2 * p->obytes;
        int64_t best = fixed < budget ? plan_band(c, p, fixed, budget) : 0;
        if (!best)
            continue;
        p->mg = mg;
        p->nMg = nMg;
        p->nwb = nwb;
        p->wkc = wkc;
        p->Rb = best;
        p->nbands = cg_cdiv(c->OH, best);
        p->nxb = c->N * c->G > 1 || p->nbands > 1 ? 2 : 1;
        p->xkc = p->fold ? x_bytes(c, p, best, ex) : x_bytes(c, p, best, ex) / (uint64_t)p->nKc;
        /* weight DMAs: one per run of m-tiles whose rows reach a full descriptor */
        int64_t dbytes = (int64_t)(t->dma_desc_min_ns * t->dma_bytes_per_ns) + 1;
        p->mgl = p->fold ? mg : cg_min(mg, cg_max(1, cg_cdiv(dbytes, (int64_t)mrow)));
        if ((p->ilv || p->wilv) && 2 * p->mgl > mg)
            p->mgl = mg; /* whole rows: one contiguous run per partition */
        plan_oilv(c, p, fixed, budget, dbytes);
        return 0;
    }
    return -1;
}

static int plan_gemm(struct cv *c, struct gp *p, uint64_t budget)
{
    const struct sim_target *t = c->e->t;
    size_t eo = ls_dtype_size(c->vo.dt);
    int64_t tmax = cg_min(t->pe_moving_max, t->psum_bank_bytes / 4);
    int64_t prow = cg_min(t->pe_rows, t->sbuf_partitions), pcol = cg_min(t->pe_cols, t->sbuf_partitions);
    uint32_t nb = c->e->s->psum_nbanks ? c->e->s->psum_nbanks : 1;
    int64_t Gp = nb >= 2 ? nb / 2 : 1;
    p->ohc = c->OW <= tmax ? cg_max(1, cg_min(c->OH, tmax / c->OW)) : 1;
    p->ohc = cg_cdiv(c->OH, cg_cdiv(c->OH, p->ohc)); /* balanced: no thin last chunk */
    p->owc = cg_min(c->OW, tmax);
    p->mt = cg_min(c->Og, pcol);
    p->nM = cg_cdiv(c->Og, p->mt);
    p->obytes = cg_resident(&c->vo) ? 0 : al64((uint64_t)Gp * tmax * eo);
    const struct graph_tensor *wt = graph_tensor(c->e->g, c->x->inputs[1]);
    p->wcustom = cg_layout_free(c->e->g, c->x->inputs[1]) && wt->nuses == 1 &&
                 !cg_resident(&c->vw);
    p->fold = !p->nofold && c->G == 1 && c->KH > 1 && c->C * c->KH <= prow && c->C <= 32 && p->wcustom &&
              !cg_resident(&c->vx);
    if (p->fold)
        plan_fold(c, p, budget, prow);
    if (!p->fold)
        plan_tiles(c, p, prow);
    return plan_groups(c, p, budget);
}

/* the (kc, tap) of k-step s */
static void step_of(const struct cv *c, const struct gp *p, int64_t s, int64_t *kc, int64_t *kh,
                    int64_t *kw)
{
    if (p->fold) {
        *kc = 0;
        *kh = 0;
        *kw = p->skw[s];
        return;
    }
    int64_t taps = c->KH * c->KW, tp = s % taps;
    *kc = s / taps;
    *kh = tp / c->KW;
    *kw = tp % c->KW;
}

/* the rectangle of chunk [r0, r0+rn) x [c0, c0+cn) that step s reaches */
static void step_rect(const struct cv *c, const struct gp *p, int64_t s, int64_t r0, int64_t rn,
                      int64_t c0, int64_t cn, int64_t *rlo, int64_t *rhi, int64_t *clo,
                      int64_t *chi)
{
    int64_t kc, kh, kw;
    step_of(c, p, s, &kc, &kh, &kw);
    if (p->fold) {
        *rlo = r0;
        *rhi = r0 + rn;
    } else {
        valid_range(c->H, c->sh, c->ph, kh * c->dh, r0, r0 + rn, rlo, rhi);
    }
    valid_range(c->W, c->sw, c->pw, kw * c->dw, c0, c0 + cn, clo, chi);
}

struct chunk {
    int64_t r0, rn, c0, cn;
};

static int64_t emit_dma(struct cv *c, int cls, struct sim_operand *dst, struct sim_operand *src,
                        int32_t tin, int pax, const int64_t *extra, size_t nextra)
{
    int64_t deps[80];
    size_t nd = 0;
    if (tin >= 0)
        cg_writers(c->e, tin, pax);
    for (size_t i = 0; i < nextra; i++)
        if (extra[i] >= 0)
            deps[nd++] = extra[i];
    if (cls < 2 || c->e->t->dma_queues < 6)
        return cg_dma(c->e, cls < 2 ? cls : 0, dst, src, SIM_OP_DMA_COPY, deps, nd);
    /* weights: queues 4/5, so that they do not wait behind the loads of earlier steps that
     * wait for their producers (the step's first instruction per queue still waits for
     * step k-2, whose SBUF half this step reuses) */
    struct sim_instr in = cg_instr(c->e, LS_ENGINE_DMA, SIM_OP_DMA_COPY, SIM_FN_NONE);
    in.queue = (uint16_t)(4 + (c->e->dmaq++ & 1));
    in.dst = *dst;
    in.src = *src;
    return cg_emit(c->e, &in, deps, nd);
}

#define GEMM_FOLD_LOADS 256  /* folded image loads of a band: at most one per partition */
#define GEMM_PIECE_STORES 128

/* One run of lower_gemm: its buffers, the last reader or writer of each (double-buffered)
 * one, the loads the matmuls wait for, and where the loops are. */
struct gs {
    struct cv *c;
    const int8_t *pax;
    const struct gp *p;
    size_t ex, ew, eo;
    int64_t taps, Gp;
    uint32_t nb;
    uint64_t wbuf[2], xbuf[2], obuf[2];
    int64_t wr[2], xr[2], orr[2];
    int64_t bank_reader[SIM_PSUM_BANKS_MAX];    /* the last evacuation of each PSUM bank */
    int64_t *hw;                        /* weight loads per (k-tile, sub-group) */
    int64_t *hx;                        /* image loads per (k-tile, row piece) */
    int64_t *order;                     /* the k-steps of a group, in issue order */
    struct chunk *ch;
    int64_t hfx[GEMM_FOLD_LOADS], nfx;  /* folded: the band's image loads */
    int64_t hwf[8], nhwf;               /* folded: the group's weight loads (one per copy) */
    int64_t npc, prow, pi0;             /* row pieces of the band: count, rows, first row */
    /* oilv: the piece stores of this staging of the buffer, and of the previous one */
    int64_t ost[GEMM_PIECE_STORES], ostp[GEMM_PIECE_STORES], nost, nostp, ogkey;
    int64_t wkey, xkey, wloads, xloads, groups, stores;
    int wb, xb, xres, ores, xwait, nord;
    int oord[R_];
    int32_t tx, tw;
    /* loop position: image, group, weight group's m-tiles and channels, band, chunks */
    int64_t n, g, mi0, mi1, go0, gon, b0, b1, i0, i1, nch;
};

/* One group of chunks of one m-tile, each chunk on its own PSUM bank. */
struct gq {
    int64_t mi, m0, ml, q0, qn, first, no, hev;
    uint32_t bank[SIM_PSUM_BANKS_MAX];
    int64_t last_mm[SIM_PSUM_BANKS_MAX], hz[SIM_PSUM_BANKS_MAX];
    int started[SIM_PSUM_BANKS_MAX];
};

/* Folded weights of the group: stored [C, KH, KW, O] (chosen at compile time); copy j, on
 * partitions j*kr0.., holds kernel columns j.. of the group's output channels. */
static int gemm_weights_fold(struct gs *s)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    s->nhwf = 0;
    for (int64_t j = 0; j < p->J; j++) {
        struct sim_operand src = sim_hbm((uint32_t)p->kr0, (int32_t)(c->KW * c->O),
                                         c->vw.base + (uint64_t)(s->go0 + j * c->O) * s->ew,
                                         c->vw.dt, 1);
        int64_t sz[2] = {c->KW - j, s->gon}, st2[2] = {c->O, 1};
        cg_pattern(&src, 2, sz, st2);
        struct sim_operand dst = cg_sb((uint32_t)(j * p->kr0), (uint32_t)p->kr0, s->wbuf[s->wb],
                                       c->vw.dt, (uint64_t)((c->KW - j) * s->gon));
        s->hwf[s->nhwf] = emit_dma(c, 2, &dst, &src, s->tw, s->pax[1], &s->wr[s->wb], 1);
        if (s->hwf[s->nhwf++] < 0)
            return c->e->fail;
    }
    s->hw[0] = s->hwf[0];
    return 0;
}

/* The source and SBUF destination of the weights of k-tile kc, output channels o0..o0+on. */
static int gemm_weight_xfer(struct gs *s, int wl, int64_t kc, int64_t o0, int64_t on,
                            struct sim_operand *src, struct sim_operand *dst)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    uint64_t at = s->wbuf[s->wb] + (uint64_t)(o0 - s->go0) * s->taps * s->ew;
    if (wl) { /* every tile at once: [kc][o, taps] per partition */
        *src = sim_hbm((uint32_t)p->ct, (int32_t)(p->nKc * c->vw.stride[1]),
                       c->vw.base + (uint64_t)((s->g * c->Og + o0) * c->vw.stride[0]) * s->ew,
                       c->vw.dt, 1);
        int64_t sz[2] = {p->nKc, on * s->taps}, st[2] = {c->vw.stride[1], 1};
        cg_pattern(src, 2, sz, st);
        *dst = cg_sb(0, (uint32_t)p->ct, at, c->vw.dt, (uint64_t)(p->nKc * on * s->taps));
        int64_t dt2[2] = {(int64_t)(p->wkc / s->ew), 1};
        cg_pattern(dst, 2, sz, dt2);
        return 0;
    }
    int64_t kl = cg_min(p->ct, c->Cg - kc * p->ct);
    int64_t lo[R_] = {s->g * c->Og + o0, kc * p->ct, 0, 0}, len[R_] = {on, kl, c->KH, c->KW};
    int fax[3] = {0, 2, 3};
    if (cg_box(&c->vw, lo, len, NULL, 1, 1, fax, 3, src))
        return cg_fail(c->e, "op %s: weight pattern needs > 4 dims", c->x->name);
    *dst = cg_sb(0, (uint32_t)kl, at + (uint64_t)kc * p->wkc, c->vw.dt, (uint64_t)(on * s->taps));
    return 0;
}

/* Tiled weights of the group: one DMA per (k-tile, sub-group of mgl m-tiles), or per
 * sub-group for all k-tiles at once when the channels are interleaved. */
static int gemm_weights_tiled(struct gs *s)
{
    const struct gp *p = s->p;
    int64_t nsub = cg_cdiv(s->mi1 - s->mi0, p->mgl);
    int wl = p->ilv || p->wilv;
    for (int64_t kc = 0; kc < (wl ? 1 : p->nKc); kc++)
        for (int64_t sb = 0; sb < nsub; sb++) {
            int64_t o0 = s->go0 + sb * p->mgl * p->mt;
            int64_t on = cg_min(p->mgl * p->mt, s->go0 + s->gon - o0);
            struct sim_operand src, dst;
            if (gemm_weight_xfer(s, wl, kc, o0, on, &src, &dst))
                return s->c->e->fail;
            int64_t h = emit_dma(s->c, 2, &dst, &src, s->tw, s->pax[1], &s->wr[s->wb], 1);
            if (h < 0)
                return s->c->e->fail;
            for (int64_t k2 = 0; k2 < (wl ? p->nKc : 1); k2++)
                s->hw[(kc + k2) * nsub + sb] = h;
        }
    return 0;
}

/* The weights of weight group wg, unless they are the ones loaded last. */
static int gemm_weights(struct gs *s, int64_t wg)
{
    if (s->wkey == s->g * s->p->nMg + wg)
        return 0;
    s->wkey = s->g * s->p->nMg + wg;
    s->wb = (int)(s->wloads++ % s->p->nwb);
    return s->p->fold ? gemm_weights_fold(s) : gemm_weights_tiled(s);
}

/* Folded band: the rows vlo..vhi of channel ci (all channels when khmajor), kernel rows
 * kh..k2-1, for copy cj (shifted by cj kernel columns), after the deps (buffer, zeroing). */
static int gemm_band_fold_rows(struct gs *s, int64_t cj, int64_t ci, int64_t kh, int64_t k2,
                               int64_t vlo, int64_t vhi, const int64_t *deps)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    if (s->nfx == GEMM_FOLD_LOADS)
        return cg_fail(c->e, "op %s: more than %d image loads in a band", c->x->name,
                       GEMM_FOLD_LOADS);
    int64_t ih = vlo * c->sh - c->ph + kh * c->dh, sft = cj * c->dw, nr = vhi - vlo;
    uint64_t addr = c->vx.base + (uint64_t)(ci * c->vx.stride[1] + s->n * c->vx.stride[0] +
                                            ih * c->vx.stride[2] + sft) * s->ex;
    uint32_t np = (uint32_t)(p->khmajor ? c->C : k2 - kh);
    int64_t pstr = p->khmajor ? c->vx.stride[1] : c->dh * c->vx.stride[2];
    struct sim_operand src = sim_hbm(np, (int32_t)pstr, addr, c->vx.dt, 1);
    uint32_t p0 = (uint32_t)(cj * p->kr0 + (p->khmajor ? kh * c->C : ci * c->KH + kh));
    struct sim_operand dst = cg_sb(p0, np, s->xbuf[s->xb] + (uint64_t)((vlo - s->b0) * p->rs) * s->ex,
                                   c->vx.dt, 1);
    /* a shifted copy stops sft elements short: the tail it would read is never used */
    if (p->slab) {
        int64_t sz[1] = {(nr - 1) * c->sh * c->W + c->W - sft}, st[1] = {1};
        cg_pattern(&src, 1, sz, st);
        cg_pattern(&dst, 1, sz, st);
    } else {
        int64_t sz[2] = {nr, c->W - sft}, st[2] = {c->sh * c->W, 1}, dt2[2] = {c->W, 1};
        cg_pattern(&src, 2, sz, st);
        cg_pattern(&dst, 2, sz, dt2);
    }
    int64_t h = emit_dma(c, 0, &dst, &src, s->tx, s->pax[0], deps, 3);
    if (h < 0)
        return c->e->fail;
    s->hfx[s->nfx++] = h;
    return 0;
}

/* Folded band: zero the rows that fall in the padding, then load the rest, partition
 * (c, kh) = c*KH + kh (or kh*C + c, khmajor) of copy j shifted by j kernel columns. */
static int gemm_band_fold(struct gs *s)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int64_t b0 = s->b0, b1 = s->b1, ztop = 0, zbot = b1 - b0;
    for (int64_t kh = 0; kh < c->KH; kh++) {
        int64_t vlo, vhi;
        valid_range(c->H, c->sh, c->ph, kh * c->dh, b0, b1, &vlo, &vhi);
        ztop = cg_max(ztop, vlo - b0);
        zbot = cg_min(zbot, vhi - b0);
    }
    int64_t hz[2] = {-1, -1};
    int64_t zr[2][2] = {{0, ztop}, {zbot, b1 - b0}};
    for (int z = 0; z < 2; z++) {
        if (zr[z][1] <= zr[z][0])
            continue;
        int64_t a0 = zr[z][0] * p->rs, a1 = (zr[z][1] - 1) * p->rs + c->W;
        struct sim_instr ms = cg_instr(c->e, LS_ENGINE_DVE, SIM_OP_MEMSET, SIM_FN_NONE);
        ms.dst = cg_sb(0, (uint32_t)p->kr, s->xbuf[s->xb] + (uint64_t)a0 * s->ex, c->vx.dt,
                       (uint64_t)(a1 - a0));
        hz[z] = cg_emit(c->e, &ms, &s->xr[s->xb], s->xr[s->xb] >= 0 ? 1 : 0);
        if (hz[z] < 0)
            return c->e->fail;
    }
    s->nfx = 0;
    int64_t deps2[3] = {s->xr[s->xb], hz[0], hz[1]};
    for (int64_t cj = 0; cj < p->J; cj++)
        for (int64_t ci = 0; ci < (p->khmajor ? 1 : c->C); ci++)
            for (int64_t kh = 0; kh < c->KH;) {
                int64_t vlo, vhi, k2 = kh + 1;
                valid_range(c->H, c->sh, c->ph, kh * c->dh, b0, b1, &vlo, &vhi);
                for (; k2 < c->KH && !p->khmajor; k2++) {
                    int64_t a, b;
                    valid_range(c->H, c->sh, c->ph, k2 * c->dh, b0, b1, &a, &b);
                    if (a != vlo || b != vhi)
                        break;
                }
                if (vhi > vlo && gemm_band_fold_rows(s, cj, ci, kh, k2, vlo, vhi, deps2))
                    return c->e->fail;
                kh = k2;
            }
    return 0;
}

/* Tiled band: up to 4 pieces of rows, each a separate DMA of descriptors of at least
 * dma.desc_min_ns (the first k-steps start on the first rows); with interleaved channels
 * one DMA for all tiles when a tile's rows are shorter than a descriptor (else one per
 * tile). */
static int gemm_band_tiled(struct gs *s)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int64_t i0 = s->i0, i1 = s->i1;
    double dbytes = c->e->t->dma_desc_min_ns * c->e->t->dma_bytes_per_ns;
    double band = (double)(i1 - i0) * c->W * s->ex;
    int merge = p->ilv && band < dbytes;
    /* without a minimum descriptor (dma.desc_min_ns = 0) any piece is long enough: 4 */
    double pieces = dbytes > 0 && band < 4 * dbytes ? band / dbytes : 4;
    s->npc = cg_max(1, cg_min(i1 - i0, (int64_t)pieces));
    s->prow = cg_cdiv(i1 - i0, s->npc);
    s->npc = cg_cdiv(i1 - i0, s->prow);
    s->pi0 = i0;
    for (int64_t pc = 0; pc < s->npc; pc++)
        for (int64_t kc = 0; kc < p->nKc; kc += merge ? p->nKc : 1) {
            int64_t r0p = i0 + pc * s->prow, rnp = cg_min(s->prow, i1 - r0p);
            int64_t rowel = rnp * c->W, nk = merge ? p->nKc : 1;
            uint64_t at = s->xbuf[s->xb] + (uint64_t)kc * p->xkc + (uint64_t)((r0p - i0) * c->W) * s->ex;
            struct sim_operand src, dst;
            if (p->ilv) {
                int64_t ch0 = s->g * c->Cg + kc;
                src = sim_hbm((uint32_t)p->ct, (int32_t)(p->nKc * c->vx.stride[1]),
                              c->vx.base + (uint64_t)(ch0 * c->vx.stride[1] + s->n * c->vx.stride[0] +
                                                      r0p * c->vx.stride[2]) * s->ex,
                              c->vx.dt, 1);
                int64_t sz[2] = {nk, rowel}, st[2] = {c->vx.stride[1], 1};
                cg_pattern(&src, 2, sz, st);
                dst = cg_sb(0, (uint32_t)p->ct, at, c->vx.dt, (uint64_t)(nk * rowel));
                int64_t dt2[2] = {(int64_t)(p->xkc / s->ex), 1};
                cg_pattern(&dst, 2, sz, dt2);
            } else {
                int64_t kl = cg_min(p->ct, c->Cg - kc * p->ct);
                int64_t lo[R_] = {s->n, s->g * c->Cg + kc * p->ct, r0p, 0};
                int64_t len[R_] = {1, kl, rnp, c->W};
                int fax[3] = {0, 2, 3};
                if (cg_box(&c->vx, lo, len, NULL, 1, 1, fax, 3, &src))
                    return cg_fail(c->e, "op %s: input pattern needs > 4 dims", c->x->name);
                dst = cg_sb(0, (uint32_t)kl, at, c->vx.dt, (uint64_t)rowel);
            }
            int64_t h = emit_dma(c, 0, &dst, &src, s->tx, s->pax[0], &s->xr[s->xb], 1);
            if (h < 0)
                return c->e->fail;
            for (int64_t j = 0; j < nk; j++)
                s->hx[(kc + j) * 4 + pc] = h;
        }
    return 0;
}

/* Output rows b0.. of band bi, the input rows they read, and the band's image unless it
 * is the one loaded last (a resident image is read in place: no load). */
static int gemm_band(struct gs *s, int64_t bi)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    s->b0 = bi * p->Rb;
    s->b1 = cg_min(c->OH, s->b0 + p->Rb);
    s->i0 = s->i1 = 0;
    if (!p->fold)
        band_rows(c, s->b0, s->b1, &s->i0, &s->i1);
    int64_t key = (s->n * c->G + s->g) * p->nbands + bi;
    if (s->xkey == key)
        return 0;
    s->xkey = key;
    s->xb = (int)(s->xloads++ % p->nxb);
    if (p->fold)
        return gemm_band_fold(s);
    if (!s->xres)
        return gemm_band_tiled(s);
    s->npc = 1;
    s->prow = cg_max(1, s->i1 - s->i0);
    s->pi0 = s->i0;
    for (int64_t kc = 0; kc < p->nKc; kc++)
        s->hx[kc * 4] = -1;
    return 0;
}

/* The band's chunks: whole output rows (ohc at a time) when a row fits a chunk, else
 * pieces of one row. */
static void gemm_chunks(struct gs *s)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    s->nch = 0;
    for (int64_t r = s->b0; r < s->b1; r += (p->owc == c->OW ? p->ohc : 1))
        for (int64_t c0 = 0; c0 < c->OW; c0 += p->owc) {
            struct chunk *k = &s->ch[s->nch++];
            k->r0 = r;
            k->rn = p->owc == c->OW ? cg_min(p->ohc, s->b1 - r) : 1;
            k->c0 = c0;
            k->cn = cg_min(p->owc, c->OW - c0);
        }
}

/* 1 when k-step st reaches chunk j of q (any: some of it; else all of it). */
static int gemm_reaches(const struct gs *s, const struct gq *q, int64_t st, int64_t j, int all)
{
    const struct chunk *k = &s->ch[q->q0 + j];
    int64_t a, b, u, v;
    step_rect(s->c, s->p, st, k->r0, k->rn, k->c0, k->cn, &a, &b, &u, &v);
    if (all)
        return a == k->r0 && b == k->r0 + k->rn && u == k->c0 && v == k->c0 + k->cn;
    return b > a && v > u;
}

/* The group's k-steps in issue order (first one that covers every chunk, which starts
 * the accumulation) and its banks; a chunk no tap covers is zeroed. */
static int gemm_group_begin(struct gs *s, struct gq *q)
{
    struct cg_em *e = s->c->e;
    q->first = -1;
    for (int64_t st = 0; st < s->p->nsteps && q->first < 0; st++) {
        int ok = 1;
        for (int64_t j = 0; j < q->qn && ok; j++)
            ok = gemm_reaches(s, q, st, j, 1);
        if (ok)
            q->first = st;
    }
    q->no = 0;
    if (q->first >= 0)
        s->order[q->no++] = q->first;
    for (int64_t st = 0; st < s->p->nsteps; st++)
        if (st != q->first)
            s->order[q->no++] = st;
    for (int64_t j = 0; j < q->qn; j++) {
        q->bank[j] = e->s->psum_bank0 + (uint32_t)(((s->groups & 1) * s->Gp + j) % s->nb);
        q->last_mm[j] = -1;
        q->hz[j] = -1;
        q->started[j] = q->first >= 0 ? 0 : 1;
        if (q->first >= 0)
            continue;
        const struct chunk *k = &s->ch[q->q0 + j];
        int64_t *rd = &s->bank_reader[q->bank[j] % SIM_PSUM_BANKS_MAX];
        struct sim_instr ms = cg_instr(e, LS_ENGINE_DVE, SIM_OP_MEMSET, SIM_FN_NONE);
        ms.dst = sim_psum(0, (uint32_t)q->ml, (uint64_t)q->bank[j] * e->t->psum_bank_bytes,
                          LS_DT_FP32, (uint32_t)(k->rn * k->cn));
        q->hz[j] = cg_emit(e, &ms, rd, *rd >= 0 ? 1 : 0);
        if (q->hz[j] < 0)
            return e->fail;
    }
    return 0;
}

/* The stationary of k-step st (its weights for q's m-tile) and the load it waits for. */
static struct sim_operand gemm_stationary(const struct gs *s, const struct gq *q, int64_t st,
                                          int64_t kl, int64_t *hwl)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int64_t kc, kh, kw;
    step_of(c, p, st, &kc, &kh, &kw);
    int64_t col = p->oilv ? q->mi : q->m0 - s->go0;
    if (p->fold) {
        struct sim_operand w = cg_sb(0, (uint32_t)kl, s->wbuf[s->wb] + (uint64_t)(kw * s->gon + col) * s->ew,
                                     c->vw.dt, (uint64_t)q->ml);
        if (p->oilv) {
            int64_t ssz[1] = {q->ml}, sst[1] = {p->nM};
            cg_pattern(&w, 1, ssz, sst);
        }
        *hwl = s->hw[0];
        return w;
    }
    int64_t nsub = cg_cdiv(s->mi1 - s->mi0, p->mgl);
    struct sim_operand w = cg_sb(0, (uint32_t)kl,
                                 s->wbuf[s->wb] + (uint64_t)kc * p->wkc +
                                     ((uint64_t)col * s->taps + (uint64_t)(kh * c->KW + kw)) * s->ew,
                                 c->vw.dt, (uint64_t)q->ml);
    int64_t ssz[1] = {q->ml}, sst[1] = {p->oilv ? p->nM * s->taps : s->taps};
    cg_pattern(&w, 1, ssz, sst);
    *hwl = s->hw[kc * nsub + (q->mi - s->mi0) / p->mgl];
    return w;
}

/* The moving window of chunk k for k-step (kc, kh, kw): rows a..b, columns u..v of the
 * output read from the band's image (or the resident block). */
static struct sim_operand gemm_moving(struct gs *s, int64_t kl, int64_t kc, int64_t kh,
                                      int64_t kw, int64_t a, int64_t b, int64_t u, int64_t v)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int64_t iw = u * c->sw - c->pw + kw * c->dw, off, rstr, cstr = c->sw;
    if (p->fold) {
        off = (a - s->b0) * p->rs + iw;
        rstr = p->rs;
    } else {
        off = (a * c->sh - c->ph + kh * c->dh - s->i0) * c->W + iw;
        rstr = c->sh * c->W;
    }
    struct sim_operand mv = cg_sb(0, (uint32_t)kl,
                                  s->xbuf[s->xb] + (uint64_t)(p->fold ? 0 : kc) * p->xkc + (uint64_t)off * s->ex,
                                  c->vx.dt, (uint64_t)((b - a) * (v - u)));
    if (s->xres) { /* the window inside the resident block */
        int64_t ch0 = kc * p->ct, ih = a * c->sh - c->ph + kh * c->dh;
        mv = cg_sb((uint32_t)(ch0 % c->vx.pblk), (uint32_t)kl,
                   c->vx.base + (uint64_t)(ch0 / c->vx.pblk) * c->vx.blk +
                       (uint64_t)(s->n * c->vx.stride[0] + ih * c->vx.stride[2] + iw * c->vx.stride[3]) * s->ex,
                   c->vx.dt, (uint64_t)((b - a) * (v - u)));
        rstr = c->sh * c->vx.stride[2];
        cstr = c->sw * c->vx.stride[3];
    }
    int64_t msz[2] = {b - a, v - u}, mst[2] = {rstr, cstr};
    cg_pattern(&mv, 2, msz, mst);
    return mv;
}

/* The matmul of chunk j of q under k-step st (stationary loaded by hl), accumulating
 * into the chunk's bank after the loads of what it reads. */
static int gemm_matmul(struct gs *s, struct gq *q, int64_t st, int64_t kl, int64_t hl, int64_t j)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    const struct chunk *k = &s->ch[q->q0 + j];
    int64_t a, b, u, v, kc, kh, kw;
    step_rect(c, p, st, k->r0, k->rn, k->c0, k->cn, &a, &b, &u, &v);
    if (b <= a || v <= u)
        return 0;
    step_of(c, p, st, &kc, &kh, &kw);
    struct sim_operand mv = gemm_moving(s, kl, kc, kh, kw, a, b, u, v);
    struct sim_operand ps = sim_psum(0, (uint32_t)q->ml,
                                     (uint64_t)q->bank[j] * c->e->t->psum_bank_bytes +
                                         (uint64_t)((a - k->r0) * k->cn + (u - k->c0)) * 4,
                                     LS_DT_FP32, (uint32_t)((b - a) * (v - u)));
    int64_t psz[2] = {b - a, v - u}, pst[2] = {k->cn, 1};
    cg_pattern(&ps, 2, psz, pst);
    int64_t deps[8 + GEMM_FOLD_LOADS];
    size_t nd = 0;
    deps[nd++] = hl;
    if (p->fold)
        for (int64_t i = 0; i < s->nfx; i++)
            deps[nd++] = s->hfx[i];
    else { /* the row pieces this window reads */
        int64_t ra = a * c->sh - c->ph + kh * c->dh - s->pi0;
        int64_t rb = (b - 1) * c->sh - c->ph + kh * c->dh - s->pi0;
        for (int64_t i = ra / s->prow; i <= rb / s->prow && i < s->npc; i++)
            if (s->hx[kc * 4 + i] >= 0)
                deps[nd++] = s->hx[kc * 4 + i];
    }
    int64_t rd = s->bank_reader[q->bank[j] % SIM_PSUM_BANKS_MAX];
    if (q->last_mm[j] < 0 && rd >= 0)
        deps[nd++] = rd;
    if (q->hz[j] >= 0 && q->last_mm[j] < 0)
        deps[nd++] = q->hz[j];
    if (s->xres && !s->xwait) { /* the first read of the resident image */
        cg_writers(c->e, s->tx, s->pax[0]);
        s->xwait = 1;
    }
    int64_t hm = pe(c, SIM_OP_MATMUL, &mv, &ps, q->started[j] ? SIM_F_ACCUMULATE : 0, deps, nd);
    if (hm < 0)
        return c->e->fail;
    q->started[j] = 1;
    q->last_mm[j] = hm;
    s->xr[s->xb] = hm;
    return 0;
}

/* K-step st of group q: one load_stationary, one matmul per chunk it reaches. */
static int gemm_step(struct gs *s, struct gq *q, int64_t st)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int64_t kc, kh, kw;
    step_of(c, p, st, &kc, &kh, &kw);
    int64_t kl = p->fold ? p->sJ[st] * p->kr0 : cg_min(p->ct, c->Cg - kc * p->ct);
    int any = 0;
    for (int64_t j = 0; j < q->qn && !any; j++)
        any = gemm_reaches(s, q, st, j, 0);
    if (!any)
        return 0;
    int64_t hwl;
    struct sim_operand w = gemm_stationary(s, q, st, kl, &hwl);
    int64_t hl = p->fold ? pe(c, SIM_OP_LOAD_STATIONARY, &w, NULL, 0, s->hwf, (size_t)s->nhwf)
                         : pe(c, SIM_OP_LOAD_STATIONARY, &w, NULL, 0, &hwl, 1);
    if (hl < 0)
        return c->e->fail;
    s->wr[s->wb] = hl;
    for (int64_t j = 0; j < q->qn; j++)
        if (gemm_matmul(s, q, st, kl, hl, j))
            return c->e->fail;
    return 0;
}

/* The output box of chunk rows r0..r0+rn, columns c0..c0+cn of q's m-tile. */
static void gemm_out_box(const struct gs *s, const struct gq *q, int64_t r0, int64_t rn,
                         int64_t c0, int64_t cn, int64_t *lo, int64_t *len)
{
    lo[0] = s->n; len[0] = 1;
    lo[1] = s->g * s->c->Og + q->m0; len[1] = q->ml;
    lo[2] = r0; len[2] = rn;
    lo[3] = c0; len[3] = cn;
}

/* Chunk j's evacuation into the staging buffer ob at soff: straight into the resident
 * output block, or staged (and stored per chunk when chunks are pieces of rows). */
static int gemm_evacuate_chunk(struct gs *s, struct gq *q, int64_t j, int ob, uint64_t soff)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    struct cg_em *e = c->e;
    const struct chunk *k = &s->ch[q->q0 + j];
    int64_t te = k->rn * k->cn, olo[R_], olen[R_];
    int64_t d0 = q->last_mm[j] >= 0 ? q->last_mm[j] : q->hz[j];
    gemm_out_box(s, q, k->r0, k->rn, k->c0, k->cn, olo, olen);
    struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, c->act);
    ev.dst = cg_sb(0, (uint32_t)q->ml, s->obuf[ob] + soff * s->eo, c->vo.dt, (uint64_t)te);
    if (p->oilv)
        ev.dst = cg_sb(0, (uint32_t)q->ml, s->obuf[0] + (uint64_t)(q->mi * c->OH * c->OW + k->r0 * c->OW) * s->eo,
                       c->vo.dt, (uint64_t)te);
    ev.src = sim_psum(0, (uint32_t)q->ml, (uint64_t)q->bank[j] * e->t->psum_bank_bytes, LS_DT_FP32,
                      (uint32_t)te);
    int64_t *rd = &s->bank_reader[q->bank[j] % SIM_PSUM_BANKS_MAX];
    if (s->ores) { /* straight into the resident output block */
        if (cg_box(&c->vo, olo, olen, NULL, 1, 1, s->oord + 1, s->nord - 1, &ev.dst))
            return cg_fail(e, "op %s: resident output pattern", c->x->name);
        if ((q->hev = *rd = cg_emit(e, &ev, &d0, 1)) < 0)
            return e->fail;
        cg_wrote(e, c->out, s->pax[2], q->hev);
        return 0;
    }
    int64_t deps[GEMM_PIECE_STORES + 2] = {d0, s->orr[ob]};
    size_t nd = s->orr[ob] >= 0 ? 2 : 1;
    if (p->oilv) {
        if (s->ogkey != s->n * c->G + s->g) { /* a new staging of the buffer */
            s->ogkey = s->n * c->G + s->g;
            memcpy(s->ostp, s->ost, (size_t)s->nost * sizeof *s->ost);
            s->nostp = s->nost;
            s->nost = 0;
        }
        nd = 1;
        for (int64_t z = 0; z < s->nostp; z++)
            deps[nd++] = s->ostp[z];
    }
    if ((q->hev = *rd = cg_emit(e, &ev, deps, nd)) < 0)
        return e->fail;
    if (p->owc == c->OW)
        return 0;
    struct sim_operand sb = cg_sb(0, (uint32_t)q->ml, s->obuf[ob] + soff * s->eo, c->vo.dt, (uint64_t)te);
    s->orr[ob] = store(c, olo, olen, 1, &sb, q->hev, s->pax[2]);
    return s->orr[ob] < 0 ? e->fail : 0;
}

/* oilv: the m-tiles of this piece are complete: partition q holds output channels
 * q*nM + [pm0, mi], adjacent in HBM: one store. */
static int gemm_piece_store(struct gs *s, const struct gq *q)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int64_t ohw = c->OH * c->OW, pm0 = q->mi - q->mi % p->spiece, cnt = q->mi + 1 - pm0;
    struct sim_operand dst = sim_hbm((uint32_t)q->ml, (int32_t)(p->nM * c->vo.stride[1]),
                                     c->vo.base + (uint64_t)((s->g * c->Og + pm0) * c->vo.stride[1] +
                                                             s->n * c->vo.stride[0]) * s->eo,
                                     c->vo.dt, (uint32_t)(cnt * ohw));
    struct sim_operand sb = cg_sb(0, (uint32_t)q->ml, s->obuf[0] + (uint64_t)(pm0 * ohw) * s->eo,
                                  c->vo.dt, (uint64_t)(cnt * ohw));
    int64_t h = cg_dma(c->e, 1, &dst, &sb, SIM_OP_DMA_COPY, &q->hev, 1);
    if (h < 0)
        return c->e->fail;
    cg_wrote(c->e, c->out, s->pax[2], h);
    if (s->nost == GEMM_PIECE_STORES)
        return cg_fail(c->e, "op %s: more than %d output stores per staging", c->x->name,
                       GEMM_PIECE_STORES);
    s->ost[s->nost++] = h;
    return 0;
}

/* Evacuate the group into one staging buffer and store it (one DMA when the chunks are
 * whole rows); with oilv, store the m-tiles of a piece once the piece is complete. */
static int gemm_evacuate(struct gs *s, struct gq *q)
{
    struct cv *c = s->c;
    const struct gp *p = s->p;
    int ob = (int)(s->stores & 1);
    uint64_t soff = 0;
    q->hev = -1;
    for (int64_t j = 0; j < q->qn; j++) {
        if (gemm_evacuate_chunk(s, q, j, ob, soff))
            return c->e->fail;
        soff += (uint64_t)(s->ch[q->q0 + j].rn * s->ch[q->q0 + j].cn);
    }
    if (p->owc == c->OW && !p->oilv && !s->ores) {
        int64_t olo[R_], olen[R_];
        const struct chunk *k0 = &s->ch[q->q0], *kn = &s->ch[q->q0 + q->qn - 1];
        gemm_out_box(s, q, k0->r0, kn->r0 + kn->rn - k0->r0, 0, c->OW, olo, olen);
        struct sim_operand sb = cg_sb(0, (uint32_t)q->ml, s->obuf[ob], c->vo.dt, soff);
        if ((s->orr[ob] = store(c, olo, olen, 1, &sb, q->hev, s->pax[2])) < 0)
            return c->e->fail;
    }
    s->stores++;
    if (p->oilv && q->q0 + s->Gp >= s->nch && ((q->mi + 1) % p->spiece == 0 || q->mi + 1 == s->mi1))
        return gemm_piece_store(s, q);
    return 0;
}

/* Every m-tile of the weight group over the band: groups of Gp chunks, k-steps, then the
 * evacuation. */
static int gemm_band_tiles(struct gs *s)
{
    const struct gp *p = s->p;
    gemm_chunks(s);
    for (int64_t mi = s->mi0; mi < s->mi1; mi++)
        for (int64_t q0 = 0; q0 < s->nch; q0 += s->Gp, s->groups++) {
            struct gq q = {.mi = mi, .m0 = mi * p->mt, .q0 = q0, .qn = cg_min(s->Gp, s->nch - q0)};
            q.ml = cg_min(p->mt, s->c->Og - q.m0);
            if (gemm_group_begin(s, &q))
                return s->c->e->fail;
            for (int64_t si = 0; si < q.no; si++)
                if (gemm_step(s, &q, s->order[si]))
                    return s->c->e->fail;
            if (gemm_evacuate(s, &q))
                return s->c->e->fail;
        }
    return 0;
}

/* Set up s: buffers in the step's SBUF region, the load handle arrays. */
static int gemm_init(struct gs *s, struct cv *c, const int8_t *pax, const struct gp *p)
{
    struct cg_em *e = c->e;
    *s = (struct gs){.c = c, .pax = pax, .p = p, .ogkey = -1, .wkey = -1, .xkey = -1,
                     .npc = 1, .prow = 1};
    s->ex = ls_dtype_size(c->vx.dt);
    s->ew = ls_dtype_size(c->vw.dt);
    s->eo = ls_dtype_size(c->vo.dt);
    s->taps = c->KH * c->KW;
    s->nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    s->Gp = s->nb >= 2 ? s->nb / 2 : 1;
    uint64_t wgrp = p->fold ? p->wkc : p->wkc * (uint64_t)p->nKc;
    for (int i = 0; i < 2; i++)
        s->wbuf[i] = i < p->nwb ? cg_alloc(e, wgrp) : s->wbuf[0];
    for (int i = 0; i < 2; i++)
        s->xbuf[i] = i < p->nxb ? cg_alloc(e, p->fold ? p->xkc : p->xkc * (uint64_t)p->nKc) : s->xbuf[0];
    s->obuf[0] = cg_alloc(e, p->obytes);
    s->obuf[1] = p->oilv ? s->obuf[0] : cg_alloc(e, p->obytes);
    if (e->fail)
        return e->fail;
    for (int i = 0; i < 2; i++)
        s->wr[i] = s->xr[i] = s->orr[i] = -1;
    for (int i = 0; i < SIM_PSUM_BANKS_MAX; i++)
        s->bank_reader[i] = -1;
    int64_t nchunk_max = (p->Rb + p->ohc - 1) / p->ohc * cg_cdiv(c->OW, p->owc) + 1;
    s->hw = calloc((size_t)(p->nKc * cg_cdiv(p->mg, p->mgl)) + 1, sizeof *s->hw);
    s->hx = calloc((size_t)p->nKc * 4 + 1, sizeof *s->hx);
    s->order = calloc((size_t)p->nsteps + 1, sizeof *s->order);
    s->ch = calloc((size_t)nchunk_max + 1, sizeof *s->ch);
    if (!s->hw || !s->hx || !s->order || !s->ch)
        return cg_fail_nomem(e);
    s->tx = c->x->inputs[0];
    s->tw = c->x->inputs[1];
    /* SBUF-resident image / output: read / written in place (no load, no store) */
    s->xres = cg_resident(&c->vx) && !p->fold;
    s->ores = cg_resident(&c->vo);
    s->nord = cg_storage_order(&c->vo, s->oord);
    return 0;
}

static int lower_gemm(struct cv *c, const int8_t *pax, const struct gp *p)
{
    struct gs s;
    int rc = gemm_init(&s, c, pax, p);
    for (s.n = 0; s.n < c->N && !rc; s.n++)
        for (s.g = 0; s.g < c->G && !rc; s.g++)
            for (int64_t wg = 0; wg < p->nMg && !rc; wg++) {
                s.mi0 = wg * p->mg;
                s.mi1 = cg_min(p->nM, s.mi0 + p->mg);
                s.go0 = s.mi0 * p->mt;
                s.gon = cg_min(c->Og, s.mi1 * p->mt) - s.go0;
                rc = gemm_weights(&s, wg);
                for (int64_t bi = 0; bi < p->nbands && !rc; bi++)
                    if (!(rc = gemm_band(&s, bi)))
                        rc = gemm_band_tiles(&s);
            }
    free(s.hw);
    free(s.hx);
    free(s.order);
    free(s.ch);
    return rc ? rc : c->e->fail;
}

/* ---- swapped: an output spatial axis on partitions (groups 1) ----
 *
 * Stationary = input positions along the output partition axis (a column of the image per
 * (position on the other spatial axis fi, channel tile, tap)), moving = the weights of a
 * tap for T output channels. PSUM holds, per partition, T channels x F positions of the
 * other axis interleaved (the matmul for fi writes every F-th element from fi), so that a
 * bank is evacuated contiguously and stored as whole (channel, position) rows: the output
 * stored in this layout is [P, N, O, F] with F innermost. The image is loaded once per
 * channel tile (channels spread over the tiles when they divide evenly), zero-padded on
 * chip when the convolution pads; the weights are loaded once. Returns 1 (nothing emitted)
 * when this plan does not apply or fit. */
#define SW_TILES 256 /* channel tiles of the swapped lowering (more: not this plan) */

/* One run of lower_swapped: its plan, buffers, loads and position. */
struct sw {
    struct cv *c;
    const int8_t *pax;
    int po, f;                          /* output partition axis, the other spatial axis */
    size_t ex, ew, eo;
    int64_t pcol, taps, Pa, F, Gp, T, nKc, ct, Hp, Wp;
    uint32_t nb;
    int xres, xwait, ores, ilv, pad;
    uint64_t xkc, pkc, wkc, sbytes, xbuf, xpad, wbuf, obuf[2];
    int32_t tx, tw;
    int64_t hwk[SW_TILES];              /* the weight load of each channel tile */
    int64_t hxl[SW_TILES], nhx;         /* the image loads (or its padded copy) of image n */
    int64_t xr, orr[2], bank_reader[SIM_PSUM_BANKS_MAX], groups, stores;
    int64_t n, a0, al, og, gn, nbk;     /* image, partition tile, output channel group */
    uint32_t bank[SIM_PSUM_BANKS_MAX];
    int64_t last[SIM_PSUM_BANKS_MAX];
};

/* The plan: 1 when it does not apply (groups, layouts, T < 32 channels per bank, too many
 * channel tiles) or does not fit the step's SBUF budget. */
static int sw_plan(struct sw *s, struct cv *c, const int8_t *pax)
{
    struct cg_em *e = c->e;
    const struct sim_target *t = e->t;
    *s = (struct sw){.c = c, .pax = pax, .po = pax[2], .f = pax[2] == 3 ? 2 : 3, .xr = -1,
                     .orr = {-1, -1}};
    s->ex = ls_dtype_size(c->vx.dt);
    s->ew = ls_dtype_size(c->vw.dt);
    s->eo = ls_dtype_size(c->vo.dt);
    int64_t prow = cg_min(t->pe_rows, t->sbuf_partitions);
    s->pcol = cg_min(t->pe_cols, t->sbuf_partitions);
    s->taps = c->KH * c->KW;
    s->Pa = c->vo.dim[s->po];
    s->F = c->vo.dim[s->f];
    s->nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    s->Gp = s->nb >= 2 ? s->nb / 2 : 1;
    s->T = cg_min(cg_min(c->O, (t->psum_bank_bytes / 4) / s->F),
                  cg_min(t->pe_moving_max, t->psum_bank_bytes / 4));
    if (c->G != 1 || s->T < 32 || pax[0] != 1 || pax[1] != 1)
        return 1;
    /* a resident image is read in place: channel tile kc is block kc (whole blocks) */
    s->xres = cg_resident(&c->vx);
    /* a resident output is evacuated into its block when a partition's (channel, position)
     * run is contiguous there and the partition tiles are whole blocks */
    s->ores = cg_resident(&c->vo) && c->vo.stride[s->f] == 1 && c->vo.stride[1] == s->F &&
              (s->Pa <= c->vo.pblk || c->vo.pblk % s->pcol == 0);
    s->nKc = cg_cdiv(c->C, prow);
    s->ct = cg_min(c->C, prow);
    if (s->nKc > SW_TILES || (s->xres && s->nKc > 1 && s->ct != c->vx.pblk))
        return 1;
    s->ilv = s->nKc > 1 && c->C % s->nKc == 0 && !s->xres;
    if (s->ilv)
        s->ct = c->C / s->nKc;
    s->pad = c->ph > 0 || c->pw > 0;
    s->Hp = c->H + 2 * c->ph;
    s->Wp = c->W + 2 * c->pw;
    s->xkc = s->xres ? 0 : (uint64_t)c->H * c->W * s->ex;
    s->pkc = (uint64_t)s->Hp * s->Wp * s->ex;
    s->wkc = (uint64_t)c->O * s->taps * s->ew;
    s->sbytes = al64((uint64_t)s->Gp * s->T * s->F * s->eo);
    uint64_t need = al64(s->xkc * s->nKc) + (s->pad ? al64(s->pkc * s->nKc) : 0) +
                    al64(s->wkc * s->nKc) + 2 * s->sbytes;
    return need > cg_budget(e);
}

/* Channels of tile kc (spread tiles hold ct each). */
static int64_t sw_tile_channels(const struct sw *s, int64_t kc)
{
    return s->ilv ? s->ct : cg_min(s->ct, s->c->C - kc * s->ct);
}

/* The weights, [kc][o, taps] per partition: every tile in one DMA when spread. */
static int sw_weights(struct sw *s)
{
    struct cv *c = s->c;
    int64_t nk = s->ilv ? s->nKc : 1;
    for (int64_t kc = 0; kc < s->nKc; kc += nk) {
        int64_t kl = sw_tile_channels(s, kc);
        struct sim_operand src = sim_hbm((uint32_t)kl, (int32_t)(nk * c->vw.stride[1]),
                                         c->vw.base + (uint64_t)((s->ilv ? kc : kc * s->ct) * c->vw.stride[1]) * s->ew,
                                         c->vw.dt, 1);
        int64_t sz[2] = {nk, c->O * s->taps}, st[2] = {c->vw.stride[1], 1};
        cg_pattern(&src, 2, sz, st);
        struct sim_operand dst = cg_sb(0, (uint32_t)kl, s->wbuf + (uint64_t)kc * s->wkc, c->vw.dt,
                                       (uint64_t)(nk * c->O * s->taps));
        int64_t h = emit_dma(c, 2, &dst, &src, s->tw, s->pax[1], NULL, 0);
        if (h < 0)
            return c->e->fail;
        for (int64_t j = 0; j < nk; j++)
            s->hwk[kc + j] = h;  /* the k-steps of tile kc wait for its weights */
    }
    return 0;
}

/* Image n, one row of H x W per channel (none when resident). */
static int sw_image(struct sw *s)
{
    struct cv *c = s->c;
    int64_t nk = s->ilv ? s->nKc : 1;
    s->nhx = 0;
    for (int64_t kc = 0; kc < s->nKc && !s->xres; kc += nk) {
        int64_t kl = sw_tile_channels(s, kc);
        struct sim_operand src = sim_hbm((uint32_t)kl, (int32_t)(nk * c->vx.stride[1]),
                                         c->vx.base + (uint64_t)((s->ilv ? kc : kc * s->ct) * c->vx.stride[1] +
                                                                 s->n * c->vx.stride[0]) * s->ex,
                                         c->vx.dt, 1);
        int64_t sz[2] = {nk, c->H * c->W}, st[2] = {c->vx.stride[1], 1};
        cg_pattern(&src, 2, sz, st);
        struct sim_operand dst = cg_sb(0, (uint32_t)kl, s->xbuf + (uint64_t)kc * s->xkc, c->vx.dt,
                                       (uint64_t)(nk * c->H * c->W));
        int64_t h = emit_dma(c, 0, &dst, &src, s->tx, s->pax[0], &s->xr, 1);
        if (h < 0)
            return c->e->fail;
        s->hxl[s->nhx++] = h;
    }
    return 0;
}

/* The first read of the resident image waits for its writers. */
static void sw_wait_image(struct sw *s)
{
    if (!s->xwait) {
        cg_writers(s->c->e, s->tx, s->pax[0]);
        s->xwait = 1;
    }
}

/* Padding: zero the padded copy of each tile, copy the image (loaded or resident) into
 * its interior; the copy of the last tile is what the matmuls then wait for. */
static int sw_pad(struct sw *s)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    int64_t hx = -1;
    for (int64_t kc = 0; kc < s->nKc; kc++) {
        int64_t kl = sw_tile_channels(s, kc);
        struct sim_instr ms = cg_instr(e, LS_ENGINE_DVE, SIM_OP_MEMSET, SIM_FN_NONE);
        ms.dst = cg_sb(0, (uint32_t)kl, s->xpad + (uint64_t)kc * s->pkc, c->vx.dt, (uint64_t)(s->Hp * s->Wp));
        int64_t hm = cg_emit(e, &ms, &s->xr, s->xr >= 0 ? 1 : 0);
        struct sim_instr cp = cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_COPY, SIM_FN_NONE);
        cp.src = cg_sb(0, (uint32_t)kl, s->xbuf + (uint64_t)kc * s->xkc, c->vx.dt, (uint64_t)(c->H * c->W));
        if (s->xres) { /* straight from the resident block: [H, W] of image n */
            cp.src = cg_sb(0, (uint32_t)kl, c->vx.base + (uint64_t)kc * c->vx.blk +
                                                (uint64_t)(s->n * c->vx.stride[0]) * s->ex,
                           c->vx.dt, (uint64_t)(c->H * c->W));
            int64_t ssz[2] = {c->H, c->W}, sst[2] = {c->vx.stride[2], c->vx.stride[3]};
            cg_pattern(&cp.src, 2, ssz, sst);
        }
        cp.dst = cg_sb(0, (uint32_t)kl, s->xpad + (uint64_t)kc * s->pkc + (uint64_t)(c->ph * s->Wp + c->pw) * s->ex,
                       c->vx.dt, (uint64_t)(c->H * c->W));
        int64_t dsz[2] = {c->H, c->W}, dst2[2] = {s->Wp, 1};
        cg_pattern(&cp.dst, 2, dsz, dst2);
        int64_t deps[SW_TILES + 1];
        size_t nd = 0;
        deps[nd++] = hm;
        for (int64_t q = 0; q < s->nhx; q++)
            deps[nd++] = s->hxl[q];
        if (s->xres)
            sw_wait_image(s);
        hx = cg_emit(e, &cp, deps, nd);
        if (hm < 0 || hx < 0)
            return e->fail;
    }
    s->nhx = 0;
    s->hxl[s->nhx++] = hx;
    return 0;
}

/* The stationary of (position fi on the other axis, channel tile kc, tap kh, kw): the
 * input positions of output partitions a0.. (padded coordinates when padding). */
static struct sim_operand sw_stationary(struct sw *s, int64_t fi, int64_t kc, int64_t kh,
                                        int64_t kw, int64_t kl)
{
    struct cv *c = s->c;
    int64_t r, q, astr;
    if (s->po == 2) {
        r = s->a0 * c->sh + kh * c->dh;
        q = fi * c->sw + kw * c->dw;
        astr = c->sh * s->Wp;
    } else {
        r = fi * c->sh + kh * c->dh;
        q = s->a0 * c->sw + kw * c->dw;
        astr = c->sw;
    }
    if (!s->pad) {
        r = cg_min(r, c->H - 1);
        q = cg_min(q, c->W - 1);
    }
    struct sim_operand st = cg_sb(0, (uint32_t)kl,
                                  s->xpad + (uint64_t)kc * (s->pad ? s->pkc : s->xkc) +
                                      (uint64_t)(r * (s->pad ? s->Wp : c->W) + q) * s->ex,
                                  c->vx.dt, (uint64_t)s->al);
    int64_t ssz[1] = {s->al}, sst[1] = {s->pad ? astr : (s->po == 2 ? c->sh * c->W : c->sw)};
    if (s->xres && !s->pad) { /* the positions inside the resident block */
        st = cg_sb(0, (uint32_t)kl, c->vx.base + (uint64_t)kc * c->vx.blk +
                                        (uint64_t)(s->n * c->vx.stride[0] + r * c->vx.stride[2] +
                                                   q * c->vx.stride[3]) * s->ex,
                   c->vx.dt, (uint64_t)s->al);
        sst[0] = s->po == 2 ? c->sh * c->vx.stride[2] : c->sw * c->vx.stride[3];
    }
    cg_pattern(&st, 1, ssz, sst);
    return st;
}

/* K-step kk (channel tile, tap) at position fi: one load_stationary, one matmul per bank
 * of T output channels (PSUM interleaves the F positions: every F-th element from fi). */
static int sw_step(struct sw *s, int64_t fi, int64_t kk)
{
    struct cv *c = s->c;
    const struct sim_target *t = c->e->t;
    int64_t kc = kk / s->taps, tp = kk % s->taps, kl = sw_tile_channels(s, kc);
    struct sim_operand st = sw_stationary(s, fi, kc, tp / c->KW, tp % c->KW, kl);
    if (s->xres && !s->pad)
        sw_wait_image(s);
    int64_t hl = pe(c, SIM_OP_LOAD_STATIONARY, &st, NULL, 0, s->hxl, (size_t)s->nhx);
    if (hl < 0)
        return c->e->fail;
    for (int64_t j = 0; j < s->nbk; j++) {
        int64_t o0 = s->og + j * s->T, tn = cg_min(s->T, s->og + s->gn - o0);
        struct sim_operand mv = cg_sb(0, (uint32_t)kl,
                                      s->wbuf + (uint64_t)kc * s->wkc + (uint64_t)(o0 * s->taps + tp) * s->ew,
                                      c->vw.dt, (uint64_t)tn);
        int64_t msz[1] = {tn}, mst[1] = {s->taps};
        cg_pattern(&mv, 1, msz, mst);
        struct sim_operand ps = sim_psum(0, (uint32_t)s->al,
                                         (uint64_t)s->bank[j] * t->psum_bank_bytes + (uint64_t)fi * 4,
                                         LS_DT_FP32, (uint32_t)tn);
        int64_t psz[1] = {tn}, pst[1] = {s->F};
        cg_pattern(&ps, 1, psz, pst);
        int64_t deps[3] = {hl, s->hwk[kc]}, rd = s->bank_reader[s->bank[j] % SIM_PSUM_BANKS_MAX];
        size_t nd = 2;
        if (s->last[j] < 0 && rd >= 0)
            deps[nd++] = rd;
        s->last[j] = pe(c, SIM_OP_MATMUL, &mv, &ps, kk > 0 ? SIM_F_ACCUMULATE : 0, deps, nd);
        if (s->last[j] < 0)
            return c->e->fail;
        s->xr = s->last[j];
    }
    return 0;
}

/* Evacuate the group's banks into one staging row of (channel, position) and store it
 * (or straight into the resident output: [N, O, F] per partition). */
static int sw_evacuate(struct sw *s)
{
    struct cv *c = s->c;
    struct cg_em *e = c->e;
    int ob = (int)(s->stores++ & 1);
    int64_t hev = -1;
    for (int64_t j = 0; j < s->nbk; j++) {
        int64_t o0 = s->og + j * s->T, tn = cg_min(s->T, s->og + s->gn - o0);
        struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, c->act);
        ev.src = sim_psum(0, (uint32_t)s->al, (uint64_t)s->bank[j] * e->t->psum_bank_bytes, LS_DT_FP32,
                          (uint32_t)(tn * s->F));
        ev.dst = cg_sb(0, (uint32_t)s->al, s->obuf[ob] + (uint64_t)((o0 - s->og) * s->F) * s->eo, c->vo.dt,
                       (uint64_t)(tn * s->F));
        if (s->ores)
            ev.dst = cg_sb((uint32_t)(s->a0 % c->vo.pblk), (uint32_t)s->al,
                           c->vo.base + (uint64_t)(s->a0 / c->vo.pblk) * c->vo.blk +
                               (uint64_t)(s->n * c->vo.stride[0] + o0 * c->vo.stride[1]) * s->eo,
                           c->vo.dt, (uint64_t)(tn * s->F));
        int64_t deps[2] = {s->last[j], s->orr[ob]};
        hev = cg_emit(e, &ev, deps, s->orr[ob] >= 0 && !s->ores ? 2 : 1);
        if (hev < 0)
            return e->fail;
        s->bank_reader[s->bank[j] % SIM_PSUM_BANKS_MAX] = hev;
        if (s->ores)
            cg_wrote(e, c->out, s->po, hev);
    }
    if (s->ores)
        return 0;
    int64_t olo[R_], olen[R_];
    olo[0] = s->n; olen[0] = 1;
    olo[1] = s->og; olen[1] = s->gn;
    olo[s->po] = s->a0; olen[s->po] = s->al;
    olo[s->f] = 0; olen[s->f] = s->F;
    struct sim_operand sb = cg_sb(0, (uint32_t)s->al, s->obuf[ob], c->vo.dt, (uint64_t)(s->gn * s->F));
    s->orr[ob] = store(c, olo, olen, s->po, &sb, hev, s->po);
    return s->orr[ob] < 0 ? e->fail : 0;
}

/* Output channels og.. of partition tile a0 over Gp banks: every (position, k-step),
 * then the evacuation. */
static int sw_group(struct sw *s)
{
    s->gn = cg_min(s->Gp * s->T, s->c->O - s->og);
    s->nbk = cg_cdiv(s->gn, s->T);
    for (int64_t j = 0; j < s->nbk; j++) {
        s->bank[j] = s->c->e->s->psum_bank0 + (uint32_t)(((s->groups & 1) * s->Gp + j) % s->nb);
        s->last[j] = -1;
    }
    for (int64_t fi = 0; fi < s->F; fi++)
        for (int64_t kk = 0; kk < s->nKc * s->taps; kk++)
            if (sw_step(s, fi, kk))
                return s->c->e->fail;
    return sw_evacuate(s);
}

static int lower_swapped(struct cv *c, const int8_t *pax)
{
    struct cg_em *e = c->e;
    struct sw s;
    if (sw_plan(&s, c, pax))
        return 1;
    s.xbuf = cg_alloc(e, s.xkc * s.nKc);
    s.xpad = s.pad ? cg_alloc(e, s.pkc * s.nKc) : s.xbuf;
    s.wbuf = cg_alloc(e, s.wkc * s.nKc);
    s.obuf[0] = cg_alloc(e, s.sbytes);
    s.obuf[1] = cg_alloc(e, s.sbytes);
    if (e->fail)
        return e->fail;
    s.tx = c->x->inputs[0];
    s.tw = c->x->inputs[1];
    for (int i = 0; i < SIM_PSUM_BANKS_MAX; i++)
        s.bank_reader[i] = -1;
    if (sw_weights(&s))
        return e->fail;
    for (s.n = 0; s.n < c->N; s.n++) {
        if (sw_image(&s) || (s.pad && sw_pad(&s)))
            return e->fail;
        for (s.a0 = 0; s.a0 < s.Pa; s.a0 += s.pcol) {
            s.al = cg_min(s.pcol, s.Pa - s.a0);
            for (s.og = 0; s.og < c->O; s.og += s.Gp * s.T, s.groups++)
                if (sw_group(&s))
                    return e->fail;
        }
    }
    return e->fail;
}

static int lower_conv(struct cg_em *e, int32_t op, const int8_t *pax, const struct cv_out *o)
{
    if (pax[2] == 1) {
        struct cv c;
        cv_init(&c, e, op, pax, o);
        int depthwise = c.G == c.C && c.C > 1;
        struct gp p;
        memset(&p, 0, sizeof p);
        /* a resident image / output: channel tiles must be whole blocks (groups 1, tiles
         * that divide the 128-partition blocks), else the per-tile lowering copies on chip */
        int64_t prow = cg_min(e->t->pe_rows, e->t->sbuf_partitions);
        int64_t pcol = cg_min(e->t->pe_cols, e->t->sbuf_partitions);
        int xr_ok = !cg_resident(&c.vx) || (c.G == 1 && (c.C <= prow || c.vx.pblk % prow == 0));
        int or_ok = !cg_resident(&c.vo) || (c.G == 1 && (c.O <= pcol || c.vo.pblk % pcol == 0));
        int ok = !depthwise && pax[0] == 1 && pax[1] == 1 && xr_ok && or_ok;
        if (ok && plan_gemm(&c, &p, cg_budget(e)) != 0) {
            memset(&p, 0, sizeof p);
            p.nofold = 1;        /* the folded plan did not fit: the unfolded one may */
            ok = plan_gemm(&c, &p, cg_budget(e)) == 0;
        }
        if (ok) {
            if (p.fold) { /* the weights as stored for this lowering: [C, KH, KW, O] or
                           * [KH, C, KW, O] (khmajor), one row of KW x O per partition */
                c.vw.stride[1] = p.khmajor ? c.KW * c.O : c.KH * c.KW * c.O;
                c.vw.stride[2] = p.khmajor ? c.C * c.KW * c.O : c.KW * c.O;
                c.vw.stride[3] = c.O;
                c.vw.stride[0] = 1;
            }
            return lower_gemm(&c, pax, &p);
        }
    }
    if (pax[2] == 2 || pax[2] == 3) {
        struct cv c;
        cv_init(&c, e, op, pax, o);
        int rc = lower_swapped(&c, pax);
        if (rc != 1)
            return rc;
    }
    return lower_legacy(e, op, pax, o);
}

int cg_lower_conv(struct cg_em *e, int32_t op, const int8_t *pax)
{
    const struct cv_out o = {-1, SIM_FN_NONE};
    return lower_conv(e, op, pax, &o);
}

int cg_lower_conv_epi(struct cg_em *e, const struct cg_epi *c, int po)
{
    int8_t pax[3];
    cg_epi_mm_pax(e->g, c, po, pax);
    const struct cv_out o = {c->out, cg_epi_act_fn(c->act)};
    return lower_conv(e, c->op[0], pax, &o);
}
