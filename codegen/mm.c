/* codegen/mm: matmul and batch_matmul on the PE array.
 *
 * Tiling rule (docs/costmodel.md): the stationary operand S (whose free axis becomes the
 * output partition axis) is cut into [kt <= pe.rows] x [mt <= pe.cols] tiles, the moving
 * operand's free axes into chunks of T <= min(pe.moving_max, psum.bank_bytes / 4). Loop
 * order: batch, S's other free axes, m-tile, group of G = banks/2 chunks, k-step, chunk:
 * one load_stationary per (m-tile, group, k-step), one matmul per (m-tile, k-step, chunk)
 * accumulating in PSUM, one evacuation (ACT) and one store per (m-tile, chunk). */
#include <stdlib.h>

#include "codegen/cg_int.h"

struct mmc {
    int nax;                 /* axes in a combo list */
    int ax[R_];
    int64_t ext[R_];
};

static int64_t combos(const struct mmc *c)
{
    int64_t n = 1;
    for (int i = 0; i < c->nax; i++)
        n *= c->ext[i];
    return n;
}

/* Set lo/len of the axes of c to combo index i (single indices). */
static void combo_set(const struct mmc *c, int64_t i, int64_t *lo, int64_t *len)
{
    for (int k = c->nax - 1; k >= 0; k--) {
        lo[c->ax[k]] = i % c->ext[k];
        len[c->ax[k]] = 1;
        i /= c->ext[k];
    }
}

static int in_list(const int *l, int n, int a)
{
    for (int i = 0; i < n; i++)
        if (l[i] == a)
            return i;
    return -1;
}

struct mfit {
    int64_t tmax;
};

static int t_fits(void *ctx, const struct cg_split *sp)
{
    const struct mfit *f = ctx;
    return cg_split_tile_elems(sp) <= f->tmax;
}

int cg_lower_matmul(struct cg_em *e, int32_t op, const int8_t *pax)
{
    const struct graph_op *x = graph_op(e->g, op);
    const struct graph_attrs *at = &x->attrs;
    const struct sim_target *t = e->t;
    struct graph_axis map[2][R_];
    int rank[2];
    rank[0] = graph_axis_map(e->g, op, 0, map[0]);
    rank[1] = graph_axis_map(e->g, op, 1, map[1]);
    int po = pax[2];
    int S = -1, a = -1;
    const int *batch[2] = {at->lhs_batch, at->rhs_batch};
    const int *con[2] = {at->lhs_contract, at->rhs_contract};
    for (int s = 0; s < 2 && S < 0; s++)
        for (int i = 0; i < rank[s]; i++)
            if (map[s][i].kind == GRAPH_AXIS_MAP && map[s][i].out == po &&
                in_list(batch[s], at->nbatch, i) < 0) {
                S = s;
                a = i;
                break;
            }
    if (S < 0)
        return cg_fail(e, "op %s: output axis %d is not a free axis of an operand", x->name, po);
    int M = 1 - S;
    int ip = in_list(con[0], at->ncontract, pax[0]);
    if (ip < 0 || con[1][ip] != pax[1])
        return cg_fail(e, "op %s: partition axes must be a contracted pair", x->name);
    int kS = con[S][ip], kM = con[M][ip];
    struct cg_view vS, vM, vO;
    cg_view_make(e, x->inputs[S], pax[S], &vS);
    cg_view_make(e, x->inputs[M], pax[M], &vM);
    cg_view_make(e, x->output, po, &vO);
    /* combos: batch pairs, other contract pairs, S other free, M free (split) */
    struct mmc cb = {0}, ckS = {0}, ckM = {0}, cso = {0};
    for (int i = 0; i < at->nbatch; i++) {
        cb.ax[cb.nax] = i;
        cb.ext[cb.nax++] = vS.dim[batch[S][i]];
    }
    for (int i = 0; i < at->ncontract; i++)
        if (i != ip) {
            ckS.ax[ckS.nax] = con[S][i];
            ckS.ext[ckS.nax++] = vS.dim[con[S][i]];
            ckM.ax[ckM.nax] = con[M][i];
            ckM.ext[ckM.nax++] = vM.dim[con[M][i]];
        }
    int mfree[R_], nmf = 0;
    for (int i = 0; i < rank[S]; i++)
        if (i != a && in_list(batch[S], at->nbatch, i) < 0 && in_list(con[S], at->ncontract, i) < 0) {
            cso.ax[cso.nax] = i;
            cso.ext[cso.nax++] = vS.dim[i];
        }
    for (int i = 0; i < rank[M]; i++)
        if (in_list(batch[M], at->nbatch, i) < 0 && in_list(con[M], at->ncontract, i) < 0)
            mfree[nmf++] = i;
    int64_t K = vS.dim[kS], Ma = vS.dim[a];
    int64_t kt = cg_min(K, cg_min(t->pe_rows, t->sbuf_partitions));
    int64_t mtt = cg_min(Ma, cg_min(t->pe_cols, t->sbuf_partitions));
    int64_t nK = cg_cdiv(K, kt), nKK = nK * combos(&ckS), nM = cg_cdiv(Ma, mtt);
    struct mfit mf = {cg_min(t->pe_moving_max, t->psum_bank_bytes / 4)};
    struct cg_split sp = {0};
    sp.n = nmf;
    for (int k = 0; k < nmf; k++)
        sp.ext[k] = vM.dim[mfree[k]];
    if (cg_plan(&sp, t_fits, &mf))
        return cg_fail(e, "op %s: no moving tile fits", x->name);
    int64_t nT = cg_split_tiles(&sp);
    int64_t tmax = cg_split_tile_elems(&sp);
    uint32_t nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    int64_t G = nb >= 2 ? nb / 2 : 1;
    size_t esS = ls_dtype_size(vS.dt), esM = ls_dtype_size(vM.dt), esO = ls_dtype_size(vO.dt);
    /* SBUF plan */
    /* SBUF-resident operands are read in place and a resident output written in place */
    int inS = cg_resident(&vS), inM = cg_resident(&vM), inO = cg_resident(&vO);
    uint64_t budget = cg_budget(e);
    /* HBM stationary: blocks of mg m-tiles per k-step in one DMA each (long contiguous
     * rows when the m axis is innermost), double-buffered across groups. A resident moving
     * operand comes first; the groups grow into what is left. Weights (one operand) are
     * loaded into the constant ring instead, so that their loads run ahead of the steps
     * before this one. */
    /* resident moving layout: k-step kk at element kk * mks, chunk ti at + ti * tmax */
    int m_whole = sp.split <= 0;
    int64_t mks = nT * tmax;
    for (int k = 0; m_whole && k < nmf; k++)
        mks = (k == 0 ? 1 : mks) * sp.ext[k];
    uint64_t ring = e->s->ring_bytes;
    uint64_t s1 = inS ? 0 : (uint64_t)nKK * mtt * esS;   /* one m-tile, all k-steps */
    uint64_t mres_bytes = (uint64_t)nKK * mks * esM;
    int m_ring = !inM && cg_layout_free(e->g, x->inputs[M]) && mres_bytes <= ring;
    int s_ring = !m_ring && !inS && cg_layout_free(e->g, x->inputs[S]) && 2 * s1 <= ring;
    int s_stream = !s_ring && s1 > budget / 2;
    uint64_t obytes = inO ? 0 : (uint64_t)tmax * esO;
    uint64_t used = (s_ring ? 0 : s_stream ? 2 * (uint64_t)mtt * esS : 2 * s1) + 2 * obytes + 512;
    int m_res = m_ring || (!inM && used + mres_bytes <= budget);
    used += inM || m_ring ? 0 : m_res ? mres_bytes : 2 * (uint64_t)tmax * esM;
    int64_t mg = 1;
    if (s_ring)
        mg = cg_min(nM, (int64_t)(ring / (2 * s1)));
    else if (!s_stream && !inS && budget > used)
        mg = cg_min(nM, 1 + (int64_t)((budget - used) / (2 * s1)));
    uint64_t sgrp = (uint64_t)mg * s1;
    uint64_t sbase = s_ring ? cg_ring_alloc(e, 2 * sgrp)
                            : cg_alloc(e, s_stream ? 2 * (uint64_t)mtt * esS : 2 * sgrp);
    int64_t sgroups = 0, s_rd[2] = {-1, -1};
    uint64_t obase[2] = {cg_alloc(e, obytes), cg_alloc(e, obytes)};
    uint64_t mbase = m_ring ? cg_ring_alloc(e, mres_bytes)
                            : cg_alloc(e, inM ? 0 : m_res ? mres_bytes : 2 * (uint64_t)tmax * esM);
    int m_one = m_res && m_whole && vM.tiles == nK && ckM.nax == 0 && kt == vM.pblk;
    /* k-steps per DMA: enough for rows of one minimum descriptor (dma.desc_min_ns at
     * dma.bytes_per_ns), so that matmuls start on the first k-steps while the rest load */
    double desc_bytes = t->dma_desc_min_ns * t->dma_bytes_per_ns;
    int64_t kg = m_one ? cg_max(1, (int64_t)(desc_bytes / (double)((uint64_t)mks * esM)) + 1) : 1;
    if (e->fail)
        return e->fail;
    int64_t *hs = calloc((size_t)nKK + 2, sizeof *hs);
    int64_t *hm = calloc((size_t)(m_res ? nKK * nT : 2) + 2, sizeof *hm);
    if (!hs || !hm) {
        free(hs);
        free(hm);
        return cg_fail(e, "out of memory");
    }
    int sorder[R_], morder[R_], oorder[R_];
    int ns = cg_storage_order(&vS, sorder), nm = cg_storage_order(&vM, morder),
        no = cg_storage_order(&vO, oorder);
    int64_t sl[R_], sn[R_], ml[R_], mn[R_], ol[R_], on[R_], tl[R_], tn[R_];
    int64_t s_reader = -1, bank_reader[64], obuf_reader[2] = {-1, -1}, mbuf_reader[2] = {-1, -1};
    for (int i = 0; i < 64; i++)
        bank_reader[i] = -1;
    int first_s = 1, first_m = 2;
    int64_t loads = 0;
    int rc = 0;
    for (int64_t bi = 0; bi < combos(&cb) && !rc; bi++) {
        for (int i = 0; i < vS.rank; i++) { sl[i] = 0; sn[i] = vS.dim[i]; }
        for (int i = 0; i < vM.rank; i++) { ml[i] = 0; mn[i] = vM.dim[i]; }
        for (int i = 0; i < vO.rank; i++) { ol[i] = 0; on[i] = vO.dim[i]; }
        /* batch indices on all three */
        {
            int64_t r = bi;
            for (int k = at->nbatch - 1; k >= 0; k--) {
                int64_t v = r % cb.ext[k];
                r /= cb.ext[k];
                sl[batch[S][k]] = ml[batch[M][k]] = v;
                sn[batch[S][k]] = mn[batch[M][k]] = 1;
                int oa = map[S][batch[S][k]].out;
                ol[oa] = v;
                on[oa] = 1;
            }
        }
        /* resident moving operand: per k-step, chunks split along the outermost free axis
         * are consecutive in SBUF (one DMA loads them all); a k-tiled weight loads every
         * k-step in one DMA (long contiguous rows) */
        for (int64_t kk = 0; m_res && kk < nKK && !rc; kk++) {
            if (m_one && kk % kg) {
                for (int64_t j = 0; j < nT; j++)
                    hm[kk * nT + j] = hm[(kk - 1) * nT];
                continue;
            }
            int64_t kc = kk / nK, k0 = (kk % nK) * kt, kn = cg_min(kg, nKK - kk);
            combo_set(&ckM, kc, ml, mn);
            ml[kM] = k0;
            mn[kM] = cg_min(kt, K - k0);
            for (int64_t ti = 0; ti < nT; ti += m_whole ? nT : 1) {
                cg_split_box(&sp, ti, tl, tn);
                int64_t te = 1;
                for (int k = 0; k < nmf; k++) {
                    ml[mfree[k]] = m_whole ? 0 : tl[k];
                    mn[mfree[k]] = m_whole ? sp.ext[k] : tn[k];
                    te *= mn[mfree[k]];
                }
                struct sim_operand src, dst = cg_sb(0, (uint32_t)mn[kM],
                                                    mbase + (uint64_t)(kk * mks + ti * tmax) * esM,
                                                    vM.dt, (uint64_t)(m_one ? kn * te : te));
                if (m_one ? cg_box_tiles(&vM, kk, kn, ml, mn, morder + 1, nm - 1, &src)
                          : cg_box(&vM, ml, mn, NULL, kM, 1, morder + 1, nm - 1, &src)) {
                    rc = cg_fail(e, "op %s: moving access pattern needs > 4 dims", x->name);
                    break;
                }
                int64_t deps[72];
                size_t nd = 0;
                if (first_m > 0) {
                    nd = cg_writers(e, x->inputs[M], pax[M], deps, nd, 64);
                    first_m--;
                }
                if (bi > 0 && mbuf_reader[0] >= 0)
                    deps[nd++] = mbuf_reader[0];
                hm[kk * nT + ti] = cg_dma(e, m_ring ? CG_Q_RING : cg_load_class(e, x->inputs[M]), &dst, &src, SIM_OP_DMA_COPY, deps, nd);
                for (int64_t j = 1; m_whole && j < nT; j++)
                    hm[kk * nT + j] = hm[kk * nT];
            }
        }
        for (int64_t so = 0; so < combos(&cso) && !rc; so++) {
            combo_set(&cso, so, sl, sn);
            for (int k = 0; k < cso.nax; k++) {
                int oa = map[S][cso.ax[k]].out;
                ol[oa] = sl[cso.ax[k]];
                on[oa] = 1;
            }
            for (int64_t mi = 0; mi < nM && !rc; mi++) {
                int64_t m0 = mi * mtt, mlen = cg_min(mtt, Ma - m0);
                sl[a] = m0;
                sn[a] = mlen;
                ol[po] = m0;
                on[po] = mlen;
                /* stationary group (or streamed tiles, loaded below) */
                uint64_t gbase = sbase + (uint64_t)(sgroups & 1) * sgrp;
                if (!s_stream && !inS && mi % mg == 0) {
                    gbase = sbase + (uint64_t)(++sgroups & 1) * sgrp;
                    s_reader = s_rd[sgroups & 1];
                    int64_t glen = cg_min(mg * mtt, Ma - m0);
                    sn[a] = glen;
                    for (int64_t kk = 0; kk < nKK; kk++) {
                        int64_t kc = kk / nK, k0 = (kk % nK) * kt;
                        combo_set(&ckS, kc, sl, sn);
                        sl[kS] = k0;
                        sn[kS] = cg_min(kt, K - k0);
                        struct sim_operand src, dst = cg_sb(0, (uint32_t)sn[kS],
                                                            gbase + (uint64_t)kk * mg * mtt * esS,
                                                            vS.dt, (uint64_t)glen);
                        if (cg_box(&vS, sl, sn, NULL, kS, 1, sorder + 1, ns - 1, &src)) {
                            rc = cg_fail(e, "op %s: stationary pattern needs > 4 dims", x->name);
                            break;
                        }
                        int64_t deps[72];
                        size_t nd = 0;
                        if (first_s) 
                            nd = cg_writers(e, x->inputs[S], pax[S], deps, nd, 64);
                        if (s_reader >= 0)
                            deps[nd++] = s_reader;
                        hs[kk] = cg_dma(e, s_ring ? CG_Q_RING : cg_load_class(e, x->inputs[S]), &dst, &src, SIM_OP_DMA_COPY, deps, nd);
                    }
                    first_s = 0;
                    sn[a] = mlen;
                }
                for (int64_t tg = 0; tg * G < nT && !rc; tg++) {
                    int64_t tcount = cg_min(G, nT - tg * G);
                    int64_t last_mm[64];
                    for (int64_t kk = 0; kk < nKK && !rc; kk++) {
                        int64_t kc = kk / nK, k0 = (kk % nK) * kt, klen = cg_min(kt, K - k0);
                        uint64_t saddr = gbase + ((uint64_t)kk * mg + (uint64_t)(mi % mg)) * mtt * esS;
                        int64_t hsl = hs[kk];
                        if (s_stream) {
                            combo_set(&ckS, kc, sl, sn);
                            sl[kS] = k0;
                            sn[kS] = klen;
                            saddr = sbase + (uint64_t)(loads & 1) * mtt * esS;
                            struct sim_operand src, dst = cg_sb(0, (uint32_t)klen, saddr, vS.dt,
                                                                (uint64_t)mlen);
                            if (cg_box(&vS, sl, sn, NULL, kS, 1, sorder + 1, ns - 1, &src)) {
                                rc = cg_fail(e, "op %s: stationary pattern needs > 4 dims", x->name);
                                break;
                            }
                            int64_t deps[72];
                            size_t nd = 0;
                            if (loads < 2)
                                nd = cg_writers(e, x->inputs[S], pax[S], deps, nd, 64);
                            if (hs[nKK + (loads & 1)] > 0)
                                deps[nd++] = hs[nKK + (loads & 1)] - 1;
                            hsl = cg_dma(e, cg_load_class(e, x->inputs[S]), &dst, &src, SIM_OP_DMA_COPY, deps, nd);
                            loads++;
                        }
                        struct sim_instr ls = cg_instr(e, LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY,
                                                       SIM_FN_NONE);
                        ls.src = cg_sb(0, (uint32_t)klen, saddr, vS.dt, (uint64_t)mlen);
                        int64_t ld[72];
                        size_t nl = 0;
                        if (hsl >= 0)
                            ld[nl++] = hsl;
                        if (inS) {
                            combo_set(&ckS, kc, sl, sn);
                            sl[kS] = k0;
                            sn[kS] = klen;
                            if (cg_box(&vS, sl, sn, NULL, kS, 1, sorder + 1, ns - 1, &ls.src)) {
                                rc = cg_fail(e, "op %s: stationary pattern needs > 4 dims", x->name);
                                break;
                            }
                            if (first_s)
                                nl = cg_writers(e, x->inputs[S], pax[S], ld, nl, 64);
                        }
                        int64_t hls = cg_emit(e, &ls, ld, nl);
                        if (hls < 0) {
                            rc = e->fail;
                            break;
                        }
                        for (int64_t j = 0; j < tcount; j++) {
                            int64_t ti = tg * G + j;
                            cg_split_box(&sp, ti, tl, tn);
                            int64_t te = 1;
                            for (int k = 0; k < nmf; k++)
                                te *= tn[k];
                            int64_t deps[72];
                            size_t nd = 0;
                            deps[nd++] = hls;
                            struct sim_operand mv;
                            int mb = (int)(loads & 1);
                            if (inM) {
                                combo_set(&ckM, kc, ml, mn);
                                ml[kM] = k0;
                                mn[kM] = klen;
                                for (int k = 0; k < nmf; k++) {
                                    ml[mfree[k]] = tl[k];
                                    mn[mfree[k]] = tn[k];
                                }
                                if (cg_box(&vM, ml, mn, NULL, kM, 1, morder + 1, nm - 1, &mv)) {
                                    rc = cg_fail(e, "op %s: moving pattern needs > 4 dims", x->name);
                                    break;
                                }
                                if (first_m > 0) {
                                    nd = cg_writers(e, x->inputs[M], pax[M], deps, nd, 64);
                                    first_m--;
                                }
                            } else if (m_res) {
                                mv = cg_sb(0, (uint32_t)klen,
                                           mbase + (uint64_t)(kk * mks + ti * tmax) * esM, vM.dt,
                                           (uint64_t)te);
                                deps[nd++] = hm[kk * nT + ti];
                            } else {
                                combo_set(&ckM, kc, ml, mn);
                                ml[kM] = k0;
                                mn[kM] = klen;
                                for (int k = 0; k < nmf; k++) {
                                    ml[mfree[k]] = tl[k];
                                    mn[mfree[k]] = tn[k];
                                }
                                mv = cg_sb(0, (uint32_t)klen, mbase + (uint64_t)mb * tmax * esM,
                                           vM.dt, (uint64_t)te);
                                struct sim_operand src;
                                if (cg_box(&vM, ml, mn, NULL, kM, 1, morder + 1, nm - 1, &src)) {
                                    rc = cg_fail(e, "op %s: moving pattern needs > 4 dims", x->name);
                                    break;
                                }
                                int64_t ld[72];
                                size_t nl = 0;
                                if (first_m > 0) {
                                    nl = cg_writers(e, x->inputs[M], pax[M], ld, nl, 64);
                                    first_m--;
                                }
                                if (mbuf_reader[mb] >= 0)
                                    ld[nl++] = mbuf_reader[mb];
                                deps[nd++] = cg_dma(e, cg_load_class(e, x->inputs[M]), &mv, &src, SIM_OP_DMA_COPY, ld, nl);
                                loads++;
                            }
                            uint32_t bank = e->s->psum_bank0 + (uint32_t)(((tg & 1) * G + j) % nb);
                            if (kk == 0 && bank_reader[bank % 64] >= 0)
                                deps[nd++] = bank_reader[bank % 64];
                            struct sim_instr mm = cg_instr(e, LS_ENGINE_PE, SIM_OP_MATMUL,
                                                           SIM_FN_NONE);
                            mm.flags = kk > 0 ? SIM_F_ACCUMULATE : 0;
                            mm.src = mv;
                            mm.dst = sim_psum(0, (uint32_t)mlen,
                                              (uint64_t)bank * t->psum_bank_bytes, LS_DT_FP32,
                                              (uint32_t)te);
                            last_mm[j] = cg_emit(e, &mm, deps, nd);
                            if (last_mm[j] < 0) {
                                rc = e->fail;
                                break;
                            }
                            if (!m_res)
                                mbuf_reader[mb] = last_mm[j];
                            else
                                mbuf_reader[0] = last_mm[j];
                        }
                        if (s_stream)
                            hs[nKK + ((loads - 1) & 1)] = hls + 1;
                        s_reader = s_rd[sgroups & 1] = hls;
                    }
                    /* evacuate and store each chunk */
                    for (int64_t j = 0; j < tcount && !rc; j++) {
                        int64_t ti = tg * G + j;
                        cg_split_box(&sp, ti, tl, tn);
                        int64_t te = 1;
                        for (int k = 0; k < nmf; k++) {
                            int oa = map[M][mfree[k]].out;
                            ol[oa] = tl[k];
                            on[oa] = tn[k];
                            te *= tn[k];
                        }
                        uint32_t bank = e->s->psum_bank0 + (uint32_t)(((tg & 1) * G + j) % nb);
                        int ob = (int)(ti & 1);
                        struct sim_operand ob_op = cg_sb(0, (uint32_t)mlen, obase[ob], vO.dt,
                                                         (uint64_t)te);
                        if (inO && cg_box(&vO, ol, on, NULL, po, 1, oorder + 1, no - 1, &ob_op)) {
                            rc = cg_fail(e, "op %s: output pattern needs > 4 dims", x->name);
                            break;
                        }
                        struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION,
                                                       SIM_FN_NONE);
                        ev.dst = ob_op;
                        ev.src = sim_psum(0, (uint32_t)mlen, (uint64_t)bank * t->psum_bank_bytes,
                                          LS_DT_FP32, (uint32_t)te);
                        int64_t deps[2] = {last_mm[j], obuf_reader[ob]};
                        int64_t hev = cg_emit(e, &ev, deps, obuf_reader[ob] >= 0 && !inO ? 2 : 1);
                        bank_reader[bank % 64] = hev;
                        if (inO) {
                            if (hev < 0) {
                                rc = e->fail;
                                break;
                            }
                            cg_wrote(e, x->output, po, hev);
                            continue;
                        }
                        struct sim_operand dst;
                        if (cg_box(&vO, ol, on, NULL, po, 1, oorder + 1, no - 1, &dst)) {
                            rc = cg_fail(e, "op %s: output pattern needs > 4 dims", x->name);
                            break;
                        }
                        int64_t hst = cg_dma(e, 1, &dst, &ob_op, SIM_OP_DMA_COPY, &hev, 1);
                        if (hst < 0) {
                            rc = e->fail;
                            break;
                        }
                        cg_wrote(e, x->output, po, hst);
                        obuf_reader[ob] = hst;
                    }
                }
            }
        }
    }
    free(hs);
    free(hm);
    return rc ? rc : e->fail;
}
