/* codegen/convert: layout conversions of a tensor from partition axis a to b.
 * Tiles: an a-range (<= 128), a b-range (<= 128) and a box of the other axes; each tile is
 * loaded from layout a, transposed per index of the other axes, and stored in layout b. */
#include "codegen/cg_int.h"
#include "codegen/memplan.h"

static const char *const names[CG_CONV_COUNT] = {"pe_transpose", "dve_transpose",
                                                  "dma_transpose", "dma_strided"};

const char *cg_conv_method_name(enum cg_conv_method m)
{
    return (unsigned)m < CG_CONV_COUNT ? names[m] : "?";
}

int cg_conv_possible(const struct graph *g, const struct sim_target *tg,
                     const struct cg_options *o, int32_t t, int from, int to,
                     enum cg_conv_method m)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    if (from < 0 || to < 0 || from == to)
        return 0;
    int64_t A = x->shape.dims[from].size, B = x->shape.dims[to].size;
    size_t es = ls_dtype_size(x->dtype);
    switch (m) {
    case CG_CONV_PE:
        return !(o && o->exact_transpose && x->dtype == LS_DT_FP32) && tg->pe_background_load;
    case CG_CONV_DVE:
        return (A % 32 == 0 && B % 32 == 0) || (A == B && A <= 32);
    case CG_CONV_DMA_T:
        return tg->dma_transpose && (es == 2 || es == 4);
    case CG_CONV_DMA_STRIDED:   /* an element gather from HBM to HBM: not on chip */
        return !cg_memplan_in_sbuf(o ? o->plan : NULL, g, t, from) &&
               !cg_memplan_in_sbuf(o ? o->plan : NULL, g, t, to);
    default:
        return 0;
    }
}

struct cvc {
    struct cg_view va, vb;
    int a, b;
    int64_t at, bt;
    size_t es;
    uint64_t budget;
};

static int cv_fits(void *ctx, const struct cg_split *sp)
{
    const struct cvc *c = ctx;
    int64_t rc = cg_split_tile_elems(sp);
    uint64_t bytes = (uint64_t)(c->at + c->bt) * rc * c->es * 2 + 32 * 32 * 4 + 512;
    return bytes <= c->budget;
}

/* Compact strides of a box over the given axis order. */
static void compact(const int *ax, int n, const int64_t *len, int64_t *cst)
{
    int64_t acc = 1;
    for (int k = n - 1; k >= 0; k--) {
        cst[ax[k]] = acc;
        acc *= len[ax[k]];
    }
}

int cg_lower_conversion(const struct graph *g, const struct sim_target *tg,
                        const struct cg_options *o, int32_t t, int from, int to,
                        enum cg_conv_method m, struct cg_sink *s, struct ls_error *err)
{
    static const struct cg_options defo = {0};
    struct cg_em e0 = {g, tg, o ? o : &defo, s, err, s->sbuf_base, 0, 0}, *e = &e0;
    if (!cg_conv_possible(g, tg, o, t, from, to, m))
        return cg_fail(e, "tensor %s: conversion %s not possible", graph_tensor(g, t)->name,
                       cg_conv_method_name(m));
    struct cvc c;
    memset(&c, 0, sizeof c);
    cg_view_make(e, t, from, &c.va);
    cg_view_make(e, t, to, &c.vb);
    c.a = from;
    c.b = to;
    c.es = ls_dtype_size(c.va.dt);
    int64_t A = c.va.dim[from], B = c.va.dim[to];
    int64_t lim = tg->sbuf_partitions;
    if (m == CG_CONV_PE)
        lim = cg_min(cg_min(tg->pe_rows, tg->pe_cols), lim);
    c.at = cg_min(A, lim);
    c.bt = cg_min(B, lim);
    if (m == CG_CONV_DVE && c.at > 32) {
        c.at -= c.at % 32;
        c.bt -= c.bt % 32;
    }
    c.budget = cg_budget(e);
    int order_a[R_], order_b[R_];
    int na = cg_storage_order(&c.va, order_a), nb = cg_storage_order(&c.vb, order_b);
    /* other axes, in a's storage order */
    struct cg_split sp = {0};
    int rax[R_];
    for (int k = 0; k < na; k++)
        if (order_a[k] != from && order_a[k] != to) {
            rax[sp.n] = order_a[k];
            sp.ext[sp.n++] = c.va.dim[order_a[k]];
        }
    if (cg_plan(&sp, cv_fits, &c))
        return cg_fail(e, "tensor %s: conversion tile does not fit", graph_tensor(g, t)->name);
    int64_t rmax = cg_split_tile_elems(&sp);
    uint64_t ib[2] = {cg_alloc(e, (uint64_t)c.bt * rmax * c.es),
                      cg_alloc(e, (uint64_t)c.bt * rmax * c.es)};
    uint64_t ob[2] = {cg_alloc(e, (uint64_t)c.at * rmax * c.es),
                      cg_alloc(e, (uint64_t)c.at * rmax * c.es)};
    uint64_t stage = cg_alloc(e, 32 * 4);
    if (e->fail)
        return e->fail;
    int fa[R_], fb[R_], nfa = 0, nfb = 0;
    for (int k = 1; k < na; k++)
        fa[nfa++] = order_a[k];
    for (int k = 1; k < nb; k++)
        fb[nfb++] = order_b[k];
    uint32_t nbank = s->psum_nbanks ? s->psum_nbanks : 1;
    int64_t nr = cg_split_tiles(&sp);
    int64_t in_reader[2] = {-1, -1}, out_reader[2] = {-1, -1}, bank_reader[64];
    for (int i = 0; i < 64; i++)
        bank_reader[i] = -1;
    int64_t tile = 0, ntr = 0;
    for (int64_t a0 = 0; a0 < A; a0 += c.at)
        for (int64_t b0 = 0; b0 < B; b0 += c.bt)
            for (int64_t ri = 0; ri < nr; ri++, tile++) {
                int bf = (int)(tile & 1);
                int64_t al = cg_min(c.at, A - a0), bl = cg_min(c.bt, B - b0);
                int64_t lo[R_], len[R_], rlo[R_], rlen[R_];
                for (int i = 0; i < c.va.rank; i++) {
                    lo[i] = 0;
                    len[i] = c.va.dim[i];
                }
                cg_split_box(&sp, ri, rlo, rlen);
                int64_t rc = 1;
                for (int k = 0; k < sp.n; k++) {
                    lo[rax[k]] = rlo[k];
                    len[rax[k]] = rlen[k];
                    rc *= rlen[k];
                }
                lo[from] = a0;
                len[from] = al;
                lo[to] = b0;
                len[to] = bl;
                int64_t cin[R_], cout[R_];
                compact(fa, nfa, len, cin);
                compact(fb, nfb, len, cout);
                /* a resident side is read / written in place, with its own strides */
                uint64_t ibase = ib[bf], obase = ob[bf];
                struct sim_operand rsrc, rdst;
                if (cg_resident(&c.va)) {
                    if (cg_box(&c.va, lo, len, NULL, from, 1, fa, nfa, &rsrc))
                        return cg_fail(e, "conversion pattern needs more than 4 dims");
                    ibase = rsrc.addr;
                    memcpy(cin, c.va.stride, sizeof cin);
                }
                if (cg_resident(&c.vb)) {
                    if (cg_box(&c.vb, lo, len, NULL, to, 1, fb, nfb, &rdst))
                        return cg_fail(e, "conversion pattern needs more than 4 dims");
                    obase = rdst.addr;
                    memcpy(cout, c.vb.stride, sizeof cout);
                }
                struct sim_operand otile = cg_sb(0, (uint32_t)bl, ob[bf], c.va.dt,
                                                 (uint64_t)(al * rc));
                int64_t deps[72];
                size_t nd = 0;
                if (tile < 2)
                    nd = cg_writers(e, t, from, deps, nd, 64);
                int64_t last = -1;
                if (m == CG_CONV_DMA_STRIDED) {
                    struct sim_operand src;
                    if (cg_box(&c.va, lo, len, NULL, to, 1, fb, nfb, &src))
                        return cg_fail(e, "conversion pattern needs more than 4 dims");
                    if (out_reader[bf] >= 0)
                        deps[nd++] = out_reader[bf];
                    last = cg_dma(e, 0, &otile, &src, SIM_OP_DMA_COPY, deps, nd);
                } else if (m == CG_CONV_DMA_T) {
                    if (out_reader[bf] >= 0)
                        deps[nd++] = out_reader[bf];
                    for (int64_t r = 0; r < rc; r++) {
                        /* decompose r over the other axes */
                        int64_t rl2[R_], q = r, ooff = 0;
                        for (int i = 0; i < c.va.rank; i++)
                            rl2[i] = lo[i];
                        for (int k = sp.n - 1; k >= 0; k--) {
                            rl2[rax[k]] = lo[rax[k]] + q % len[rax[k]];
                            ooff += (q % len[rax[k]]) * cout[rax[k]];
                            q /= len[rax[k]];
                        }
                        int64_t ln2[R_];
                        for (int i = 0; i < c.va.rank; i++)
                            ln2[i] = 1;
                        ln2[from] = al;
                        ln2[to] = bl;
                        struct sim_operand src;
                        int fbx[1] = {to};
                        cg_box(&c.va, rl2, ln2, NULL, from, 1, fbx, 1, &src);
                        struct sim_operand dst = cg_sb(0, (uint32_t)bl,
                                                       obase + (uint64_t)ooff * c.es, c.va.dt,
                                                       (uint64_t)al);
                        int64_t sz[1] = {al}, st[1] = {cout[from]};
                        cg_pattern(&dst, 1, sz, st);
                        last = cg_dma(e, 0, &dst, &src, SIM_OP_DMA_TRANSPOSE, deps, nd);
                        nd = 0;
                        deps[nd++] = last;
                    }
                } else {
                    int64_t hl = -1;
                    if (!cg_resident(&c.va)) {
                        struct sim_operand src;
                        if (cg_box(&c.va, lo, len, NULL, from, 1, fa, nfa, &src))
                            return cg_fail(e, "conversion pattern needs more than 4 dims");
                        struct sim_operand itile = cg_sb(0, (uint32_t)al, ib[bf], c.va.dt,
                                                         (uint64_t)(bl * rc));
                        if (in_reader[bf] >= 0)
                            deps[nd++] = in_reader[bf];
                        hl = cg_dma(e, 0, &itile, &src, SIM_OP_DMA_COPY, deps, nd);
                        if (hl < 0)
                            return e->fail;
                    }
                    /* what every transpose of the tile waits for: the load, or the writers
                     * of the resident tensor read in place */
                    int64_t pre[73];
                    size_t npre = 0;
                    if (hl >= 0)
                        pre[npre++] = hl;
                    else
                        for (size_t i = 0; i < nd; i++)
                            pre[npre++] = deps[i];
                    last = hl;
                    for (int64_t r = 0; r < rc; r++) {
                        int64_t q = r, ioff = 0, ooff = 0;
                        for (int k = sp.n - 1; k >= 0; k--) {
                            ioff += (q % len[rax[k]]) * cin[rax[k]];
                            ooff += (q % len[rax[k]]) * cout[rax[k]];
                            q /= len[rax[k]];
                        }
                        if (m == CG_CONV_PE) {
                            uint32_t bank = s->psum_bank0 + (uint32_t)(ntr % nbank);
                            struct sim_instr tr = cg_instr(e, LS_ENGINE_PE, SIM_OP_PE_TRANSPOSE,
                                                           SIM_FN_NONE);
                            tr.src = cg_sb(0, (uint32_t)al, ibase + (uint64_t)ioff * c.es,
                                           c.va.dt, (uint64_t)bl);
                            int64_t sz[1] = {bl}, st[1] = {cin[to]};
                            cg_pattern(&tr.src, 1, sz, st);
                            tr.dst = sim_psum(0, (uint32_t)bl, (uint64_t)bank * tg->psum_bank_bytes,
                                              LS_DT_FP32, (uint32_t)al);
                            size_t n2 = npre;
                            if (bank_reader[bank % 64] >= 0)
                                pre[n2++] = bank_reader[bank % 64];
                            int64_t ht = cg_emit(e, &tr, pre, n2);
                            struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION,
                                                           SIM_FN_NONE);
                            ev.src = tr.dst;
                            ev.dst = cg_sb(0, (uint32_t)bl, obase + (uint64_t)ooff * c.es,
                                           c.va.dt, (uint64_t)al);
                            int64_t so[1] = {cout[from]};
                            int64_t sa[1] = {al};
                            cg_pattern(&ev.dst, 1, sa, so);
                            int64_t d3[2] = {ht, out_reader[bf]};
                            last = cg_emit(e, &ev, d3, out_reader[bf] >= 0 ? 2 : 1);
                            bank_reader[bank % 64] = last;
                            ntr++;
                        } else {
                            /* DVE 32x32 blocks; off-diagonal blocks move across groups */
                            for (int64_t i = 0; i < al; i += 32)
                                for (int64_t j = 0; j < bl; j += 32) {
                                    int64_t n = cg_min(32, cg_min(al - i, bl - j));
                                    struct sim_instr tr = cg_instr(e, LS_ENGINE_DVE,
                                                                   SIM_OP_DVE_TRANSPOSE,
                                                                   SIM_FN_NONE);
                                    tr.src = cg_sb((uint32_t)i, (uint32_t)n,
                                                   ibase + (uint64_t)(ioff + j * cin[to]) * c.es,
                                                   c.va.dt, (uint64_t)n);
                                    int same = i == j;
                                    tr.dst = same ? cg_sb((uint32_t)j, (uint32_t)n,
                                                          obase + (uint64_t)(ooff + i * cout[from]) * c.es,
                                                          c.va.dt, (uint64_t)n)
                                                  : cg_sb((uint32_t)i, (uint32_t)n, stage, c.va.dt,
                                                          (uint64_t)n);
                                    size_t n2 = npre;
                                    if (last >= 0)
                                        pre[n2++] = last;
                                    last = cg_emit(e, &tr, pre, n2);
                                    if (!same) {
                                        struct sim_operand mv = cg_sb((uint32_t)j, (uint32_t)n,
                                                                      obase + (uint64_t)(ooff + i * cout[from]) * c.es,
                                                                      c.va.dt, (uint64_t)n);
                                        int64_t d3[2] = {last, out_reader[bf]};
                                        last = cg_dma(e, 0, &mv, &tr.dst, SIM_OP_DMA_COPY, d3,
                                                      out_reader[bf] >= 0 ? 2 : 1);
                                    }
                                }
                        }
                        if (last < 0)
                            return e->fail;
                    }
                    in_reader[bf] = last;
                }
                if (last < 0)
                    return e->fail;
                if (cg_resident(&c.vb)) {
                    cg_wrote(e, t, to, last);
                    out_reader[bf] = last;
                    continue;
                }
                struct sim_operand dst;
                if (cg_box(&c.vb, lo, len, NULL, to, 1, fb, nfb, &dst))
                    return cg_fail(e, "conversion pattern needs more than 4 dims");
                int64_t hs = cg_dma(e, 1, &dst, &otile, SIM_OP_DMA_COPY, &last, 1);
                if (hs < 0)
                    return e->fail;
                cg_wrote(e, t, to, hs);
                out_reader[bf] = hs;
            }
    return e->fail;
}
