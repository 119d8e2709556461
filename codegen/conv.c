/* codegen/conv: conv2d as implicit GEMM on the PE array (input channels on partitions).
 * Standard: stationary = weight tap [C x O], moving = a window of the input over output
 * rows, output channels on partitions. Swapped: stationary = input positions along one
 * output spatial axis, moving = weight tap, that spatial axis on partitions. Depthwise:
 * per-channel multiply-accumulate on DVE with channels on partitions. */
#include "codegen/cg_int.h"

struct cv {
    struct cg_em *e;
    const struct graph_op *x;
    struct cg_view vx, vw, vo;
    int64_t N, C, H, W, O, Cg, Og, KH, KW, OH, OW, sh, sw, ph, pw, dh, dw, G;
};

static int64_t load_box(struct cv *c, struct cg_view *v, const int64_t *lo, const int64_t *len,
                        int rax, uint64_t addr, int32_t tin, int pax, int first, int64_t war)
{
    struct cg_em *e = c->e;
    int order[R_];
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
        nd = cg_writers(e, tin, pax, deps, nd, 64);
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
    int order[R_];
    int n = cg_storage_order(&c->vo, order);
    struct sim_operand dst;
    if (cg_box(&c->vo, lo, len, NULL, rax, 1, order + 1, n - 1, &dst))
        return cg_fail(c->e, "op %s: output pattern needs > 4 dims", c->x->name), -1;
    int64_t h = cg_dma(c->e, 1, &dst, sb, SIM_OP_DMA_COPY, &dep, 1);
    cg_wrote(c->e, c->x->output, pax, h);
    return h;
}

int cg_lower_conv(struct cg_em *e, int32_t op, const int8_t *pax)
{
    struct cv c;
    memset(&c, 0, sizeof c);
    c.e = e;
    c.x = graph_op(e->g, op);
    const struct sim_target *t = e->t;
    cg_view_make(e, c.x->inputs[0], pax[0], &c.vx);
    cg_view_make(e, c.x->inputs[1], pax[1], &c.vw);
    cg_view_make(e, c.x->output, pax[2], &c.vo);
    c.N = c.vx.dim[0]; c.C = c.vx.dim[1]; c.H = c.vx.dim[2]; c.W = c.vx.dim[3];
    c.O = c.vw.dim[0]; c.Cg = c.vw.dim[1]; c.KH = c.vw.dim[2]; c.KW = c.vw.dim[3];
    c.OH = c.vo.dim[2]; c.OW = c.vo.dim[3];
    c.sh = c.x->attrs.stride[0]; c.sw = c.x->attrs.stride[1];
    c.ph = c.x->attrs.pad[0]; c.pw = c.x->attrs.pad[1];
    c.dh = c.x->attrs.dilation[0]; c.dw = c.x->attrs.dilation[1];
    c.G = c.x->attrs.groups > 0 ? c.x->attrs.groups : 1;
    c.Og = c.O / c.G;
    int po = pax[2];
    int depthwise = c.G == c.C && c.C > 1;
    size_t ex = ls_dtype_size(c.vx.dt), ew = ls_dtype_size(c.vw.dt), eo = ls_dtype_size(c.vo.dt);
    int64_t tmax = cg_min(t->pe_moving_max, t->psum_bank_bytes / 4);
    int64_t prow = cg_min(t->pe_rows, t->sbuf_partitions), pcol = cg_min(t->pe_cols, t->sbuf_partitions);
    uint32_t nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    int64_t lo[R_], len[R_], olo[R_], olen[R_];
    int64_t taps = c.KH * c.KW;

    if (po == 1) {
        /* output channels (or channels, depthwise) on partitions; chunks of output rows */
        int64_t ohc = c.OW <= tmax ? cg_max(1, cg_min(c.OH, tmax / c.OW)) : 1;
        int64_t owc = cg_min(c.OW, tmax);
        int64_t cols_in = owc == c.OW ? c.W : cg_min(c.W, (owc - 1) * c.sw + (c.KW - 1) * c.dw + 1);
        int64_t ct = cg_min(depthwise ? c.C : c.Cg, prow);
        if (depthwise)
            ct = cg_min(c.C, t->sbuf_partitions);
        int64_t nKc = cg_cdiv(depthwise ? c.C : c.Cg, ct);
        int64_t rows_in;
        /* fewer output rows per chunk until two input blocks fit in half the budget */
        for (;;) {
            rows_in = cg_min(c.H, (ohc - 1) * c.sh + (c.KH - 1) * c.dh + 1);
            if (ohc == 1 || 4 * (uint64_t)rows_in * cols_in * ex * nKc <= cg_budget(e))
                break;
            ohc = (ohc + 1) / 2;
        }
        uint64_t xb = (uint64_t)rows_in * cols_in * ex;
        uint64_t xbuf[2] = {cg_alloc(e, xb * nKc), cg_alloc(e, xb * nKc)};
        int64_t mt = depthwise ? ct : cg_min(c.Og, pcol);
        if (!depthwise) /* the weight block of an m-tile takes at most a quarter of the budget */
            mt = cg_max(1, cg_min(mt, (int64_t)(cg_budget(e) / 4 / ((uint64_t)nKc * taps * ew))));
        uint64_t wbytes = depthwise ? (uint64_t)taps * ew : (uint64_t)nKc * mt * taps * ew;
        uint64_t wbuf = cg_alloc(e, wbytes);
        uint64_t obuf[2] = {cg_alloc(e, (uint64_t)tmax * eo), cg_alloc(e, (uint64_t)tmax * eo)};
        uint64_t tmp = depthwise ? cg_alloc(e, (uint64_t)tmax * 4) : 0;
        if (e->fail)
            return e->fail;
        int64_t xr[2] = {-1, -1}, orr[2] = {-1, -1}, wr = -1, bank_reader[2] = {-1, -1};
        int64_t tile = 0, nmt = depthwise ? cg_cdiv(c.C, ct) : cg_cdiv(c.Og, mt);
        int firstx = 2, firstw = 1;
        for (int64_t n = 0; n < c.N; n++)
            for (int64_t g = 0; g < (depthwise ? 1 : c.G); g++)
                for (int64_t mi = 0; mi < nmt; mi++) {
                    int64_t m0 = mi * mt, ml = cg_min(mt, (depthwise ? c.C : c.Og) - m0);
                    /* weights for this m-tile */
                    int64_t hw[64];
                    for (int64_t kc = 0; kc < (depthwise ? 1 : nKc) && kc < 64; kc++) {
                        lo[0] = depthwise ? m0 : g * c.Og + m0; len[0] = ml;
                        lo[1] = depthwise ? 0 : kc * ct; len[1] = depthwise ? 1 : cg_min(ct, c.Cg - kc * ct);
                        lo[2] = 0; len[2] = c.KH; lo[3] = 0; len[3] = c.KW;
                        hw[kc] = load_box(&c, &c.vw, lo, len, depthwise ? 0 : 1,
                                          wbuf + (uint64_t)kc * ml * taps * ew, c.x->inputs[1],
                                          pax[1], firstw, wr);
                        if (hw[kc] < 0)
                            return e->fail;
                    }
                    firstw = 0;
                    for (int64_t oh0 = 0; oh0 < c.OH; oh0 += ohc)
                        for (int64_t ow0 = 0; ow0 < c.OW; ow0 += owc, tile++) {
                            int b = (int)(tile & 1);
                            int64_t oh = cg_min(ohc, c.OH - oh0), ow = cg_min(owc, c.OW - ow0);
                            int64_t r0 = cg_max(0, oh0 * c.sh - c.ph);
                            int64_t rl = cg_max(1, cg_min(c.H - r0, (oh - 1) * c.sh + (c.KH - 1) * c.dh + 1));
                            int64_t c0 = cg_max(0, ow0 * c.sw - c.pw);
                            int64_t cl = cg_max(1, cg_min(c.W - c0, (ow - 1) * c.sw + (c.KW - 1) * c.dw + 1));
                            rl = cg_min(rl, rows_in);
                            cl = cg_min(cl, cols_in);
                            int64_t hx[64];
                            int64_t nk = depthwise ? 1 : nKc;
                            for (int64_t kc = 0; kc < nk && kc < 64; kc++) {
                                lo[0] = n; len[0] = 1;
                                int64_t cb = depthwise ? m0 : g * c.Cg + kc * ct;
                                lo[1] = cb; len[1] = depthwise ? ml : cg_min(ct, c.Cg - kc * ct);
                                lo[2] = r0; len[2] = rl; lo[3] = c0; len[3] = cl;
                                hx[kc] = load_box(&c, &c.vx, lo, len, 1, xbuf[b] + (uint64_t)kc * xb,
                                                  c.x->inputs[0], pax[0], firstx > 0, xr[b]);
                                if (hx[kc] < 0)
                                    return e->fail;
                            }
                            if (firstx > 0)
                                firstx--;
                            int64_t te = oh * ow;
                            struct sim_operand out = cg_sb(0, (uint32_t)ml, obuf[b], c.vo.dt, (uint64_t)te);
                            int64_t last = -1;
                            if (depthwise) {
                                struct sim_operand tm = cg_sb(0, (uint32_t)ml, tmp, LS_DT_FP32, (uint64_t)te);
                                for (int64_t tp = 0; tp < taps; tp++) {
                                    struct sim_operand win = cg_sb(0, (uint32_t)ml, xbuf[b], c.vx.dt, (uint64_t)te);
                                    int64_t sz[2] = {oh, ow}, st[2] = {c.sh * cl, c.sw};
                                    cg_pattern(&win, 2, sz, st);
                                    struct sim_instr in = cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_SCALAR, SIM_FN_MUL);
                                    in.dst = tp == 0 ? out : tm;
                                    in.src = win;
                                    int64_t deps[4];
                                    size_t nd = 0;
                                    deps[nd++] = hx[0];
                                    if (tp == 0) {
                                        deps[nd++] = hw[0];
                                        if (orr[b] >= 0)
                                            deps[nd++] = orr[b];
                                    }
                                    if (last >= 0)
                                        deps[nd++] = last;
                                    last = cg_emit(e, &in, deps, nd);
                                    if (tp > 0) {
                                        struct sim_instr ad = cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_ADD);
                                        ad.dst = out;
                                        ad.src = out;
                                        ad.src2 = tm;
                                        last = cg_emit(e, &ad, &last, 1);
                                    }
                                    if (last < 0)
                                        return e->fail;
                                }
                            } else {
                                uint32_t bank = e->s->psum_bank0 + (uint32_t)(tile % nb);
                                struct sim_operand ps = sim_psum(0, (uint32_t)ml, (uint64_t)bank * t->psum_bank_bytes,
                                                                 LS_DT_FP32, (uint32_t)te);
                                int64_t kk = 0, nkk = nKc * taps;
                                for (int64_t kc = 0; kc < nKc && kc < 64; kc++) {
                                    int64_t kl = cg_min(ct, c.Cg - kc * ct);
                                    for (int64_t tp = 0; tp < taps; tp++, kk++) {
                                        struct sim_operand st = cg_sb(0, (uint32_t)kl,
                                                                      wbuf + ((uint64_t)kc * ml * taps + (uint64_t)tp) * ew,
                                                                      c.vw.dt, (uint64_t)ml);
                                        int64_t ssz[1] = {ml}, sst[1] = {taps};
                                        cg_pattern(&st, 1, ssz, sst);
                                        int64_t hl = pe(&c, SIM_OP_LOAD_STATIONARY, &st, NULL, 0, &hw[kc], 1);
                                        int64_t kh = tp / c.KW, kw = tp % c.KW;
                                        uint64_t off = (uint64_t)(cg_min(kh * c.dh, rl - 1) * cl + cg_min(kw * c.dw, cl - 1)) * ex;
                                        struct sim_operand mv = cg_sb(0, (uint32_t)kl, xbuf[b] + (uint64_t)kc * xb + off,
                                                                      c.vx.dt, (uint64_t)te);
                                        int64_t sz[2] = {oh, ow}, sd[2] = {c.sh * cl, c.sw};
                                        cg_pattern(&mv, 2, sz, sd);
                                        int64_t deps[3] = {hl, hx[kc], bank_reader[b]};
                                        last = pe(&c, SIM_OP_MATMUL, &mv, &ps, kk > 0 ? SIM_F_ACCUMULATE : 0,
                                                  deps, kk == 0 && bank_reader[b] >= 0 ? 3 : 2);
                                        if (last < 0)
                                            return e->fail;
                                    }
                                }
                                (void)nkk;
                                wr = last;
                                struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE);
                                ev.dst = out;
                                ev.src = ps;
                                int64_t deps[2] = {last, orr[b]};
                                last = cg_emit(e, &ev, deps, orr[b] >= 0 ? 2 : 1);
                                bank_reader[b] = last;
                                if (last < 0)
                                    return e->fail;
                            }
                            xr[b] = last;
                            if (depthwise)
                                wr = last;
                            olo[0] = n; olen[0] = 1;
                            olo[1] = depthwise ? m0 : g * c.Og + m0; olen[1] = ml;
                            olo[2] = oh0; olen[2] = oh; olo[3] = ow0; olen[3] = ow;
                            orr[b] = store(&c, olo, olen, 1, &out, last, po);
                            if (orr[b] < 0)
                                return e->fail;
                        }
                }
        return e->fail;
    }

    /* swapped: an output spatial axis on partitions (groups == 1) */
    int f = po == 3 ? 2 : 3;     /* the other spatial axis, iterated */
    int64_t ct = cg_min(c.C, prow), nKc = cg_cdiv(c.C, ct);
    int64_t Pa = c.vo.dim[po], at = cg_min(Pa, pcol), oc = cg_min(c.O, tmax);
    uint64_t xb = (uint64_t)c.H * c.W * ex, wb = (uint64_t)c.O * taps * ew;
    if ((xb + wb) * nKc > cg_budget(e) / 2)
        return cg_fail(e, "op %s: the swapped conv needs the whole input image in SBUF", c.x->name);
    uint64_t xbuf = cg_alloc(e, xb * nKc), wbuf = cg_alloc(e, wb * nKc);
    uint64_t obuf[2] = {cg_alloc(e, (uint64_t)tmax * eo), cg_alloc(e, (uint64_t)tmax * eo)};
    if (e->fail)
        return e->fail;
    int64_t hw[64], hx[64], xr = -1, orr[2] = {-1, -1}, bank_reader[2] = {-1, -1}, tile = 0;
    for (int64_t kc = 0; kc < nKc && kc < 64; kc++) {
        lo[0] = 0; len[0] = c.O; lo[1] = kc * ct; len[1] = cg_min(ct, c.C - kc * ct);
        lo[2] = 0; len[2] = c.KH; lo[3] = 0; len[3] = c.KW;
        hw[kc] = load_box(&c, &c.vw, lo, len, 1, wbuf + (uint64_t)kc * wb, c.x->inputs[1], pax[1], 1, -1);
        if (hw[kc] < 0)
            return e->fail;
    }
    for (int64_t n = 0; n < c.N; n++) {
        for (int64_t kc = 0; kc < nKc && kc < 64; kc++) {
            lo[0] = n; len[0] = 1; lo[1] = kc * ct; len[1] = cg_min(ct, c.C - kc * ct);
            lo[2] = 0; len[2] = c.H; lo[3] = 0; len[3] = c.W;
            hx[kc] = load_box(&c, &c.vx, lo, len, 1, xbuf + (uint64_t)kc * xb, c.x->inputs[0], pax[0],
                              n == 0, xr);
            if (hx[kc] < 0)
                return e->fail;
        }
        for (int64_t fi = 0; fi < c.vo.dim[f]; fi++)
            for (int64_t a0 = 0; a0 < Pa; a0 += at)
                for (int64_t o0 = 0; o0 < c.O; o0 += oc, tile++) {
                    int b = (int)(tile & 1);
                    int64_t al = cg_min(at, Pa - a0), ol2 = cg_min(oc, c.O - o0);
                    uint32_t bank = e->s->psum_bank0 + (uint32_t)(tile % nb);
                    struct sim_operand ps = sim_psum(0, (uint32_t)al, (uint64_t)bank * t->psum_bank_bytes,
                                                     LS_DT_FP32, (uint32_t)ol2);
                    int64_t last = -1, kk = 0;
                    for (int64_t kc = 0; kc < nKc && kc < 64; kc++) {
                        int64_t kl = cg_min(ct, c.C - kc * ct);
                        for (int64_t tp = 0; tp < taps; tp++, kk++) {
                            int64_t kh = tp / c.KW, kw = tp % c.KW;
                            int64_t r = po == 2 ? a0 * c.sh : fi * c.sh;
                            int64_t q = po == 3 ? a0 * c.sw : fi * c.sw;
                            r = cg_min(c.H - 1, cg_max(0, r + kh * c.dh - c.ph));
                            q = cg_min(c.W - 1, cg_max(0, q + kw * c.dw - c.pw));
                            struct sim_operand st = cg_sb(0, (uint32_t)kl,
                                                          xbuf + (uint64_t)kc * xb + (uint64_t)(r * c.W + q) * ex,
                                                          c.vx.dt, (uint64_t)al);
                            int64_t ssz[1] = {al}, sst[1] = {po == 2 ? c.sh * c.W : c.sw};
                            cg_pattern(&st, 1, ssz, sst);
                            int64_t hl = pe(&c, SIM_OP_LOAD_STATIONARY, &st, NULL, 0, &hx[kc], 1);
                            struct sim_operand mv = cg_sb(0, (uint32_t)kl,
                                                          wbuf + (uint64_t)kc * wb + (uint64_t)(o0 * taps + tp) * ew,
                                                          c.vw.dt, (uint64_t)ol2);
                            int64_t msz[1] = {ol2}, mst[1] = {taps};
                            cg_pattern(&mv, 1, msz, mst);
                            int64_t deps[3] = {hl, hw[kc], bank_reader[b]};
                            last = pe(&c, SIM_OP_MATMUL, &mv, &ps, kk > 0 ? SIM_F_ACCUMULATE : 0, deps,
                                      kk == 0 && bank_reader[b] >= 0 ? 3 : 2);
                            if (last < 0)
                                return e->fail;
                        }
                    }
                    xr = last;
                    struct sim_operand out = cg_sb(0, (uint32_t)al, obuf[b], c.vo.dt, (uint64_t)ol2);
                    struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE);
                    ev.dst = out;
                    ev.src = ps;
                    int64_t deps[2] = {last, orr[b]};
                    last = cg_emit(e, &ev, deps, orr[b] >= 0 ? 2 : 1);
                    bank_reader[b] = last;
                    if (last < 0)
                        return e->fail;
                    olo[0] = n; olen[0] = 1; olo[1] = o0; olen[1] = ol2;
                    olo[po] = a0; olen[po] = al; olo[f] = fi; olen[f] = 1;
                    orr[b] = store(&c, olo, olen, po, &out, last, po);
                    if (orr[b] < 0)
                        return e->fail;
                }
    }
    return e->fail;
}
