/* codegen/attn: fused attention, ctx = softmax(Q K^T) V without the score matrix in HBM
 * (docs/costmodel.md, "Fused attention").
 *
 * A group is batch_matmul (scores) -> softmax along the keys -> batch_matmul (ctx) whose
 * scores and probabilities are read by nothing else. Q, K, V and ctx are read and
 * written in place when the memory plan keeps them in SBUF, else loaded and stored. Per
 * (batch combo, tile of <= 128 queries): the scores row block lands in PSUM, one ACT pass
 * copies it to a bf16 tile in SBUF where softmax turns it into the probabilities in
 * place (max on DVE, exp and row sum on ACT), PE transposes them
 * (keys on partitions) and multiplies by V; the evacuation scales by 1 / row sum.
 *
 * Each op of the group emits its own part of every tile (scores: Q^T/K^T loads and the
 * QK^T matmuls; softmax: the statistics and the exp; ctx: V loads, transposes, PV
 * matmuls, evacuation, store), so its price is a function of the group's shapes only
 * (each op has one configuration). The compiler emits the parts software-pipelined
 * (cg_lower_attn) as one step. */
#include <stdlib.h>

#include "codegen/attn.h"
#include "codegen/cg_int.h"

/* V blocks (rows of head_dim elements: short DMA runs) and ctx stores go over queues of
 * their own, ATTN_SPREAD of them from queue class ATTN_Q0 (queues 8-15 with 16 queues),
 * so that their descriptors run in parallel instead of behind each other. */
#define ATTN_Q0 4
#define ATTN_SPREAD 8
#define ATTN_NP 4 /* most probability tiles in flight (cg_attn_geom.np) */

static int only_use(const struct graph *g, int32_t t, int32_t *op)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    if (x->nuses != 1)
        return 0;
    *op = x->uses[0].op;
    return x->uses[0].slot == 0;
}

/* The leading r-2 axes are batch axes of both operands, in order. */
static int leading_batch(const struct graph_attrs *at, int r)
{
    if (at->nbatch != r - 2 || at->ncontract != 1)
        return 0;
    for (int i = 0; i < r - 2; i++)
        if (at->lhs_batch[i] != i || at->rhs_batch[i] != i)
            return 0;
    return 1;
}

/* Per-partition SBUF bytes of the fused lowering (double-buffered K and V, nqbuf Q
 * buffers, np probability tiles). */
static uint64_t attn_sbuf_bytes(const struct cg_attn_geom *m)
{
    uint64_t b = m->nqbuf * (uint64_t)m->Sq * m->esq + 2 * (uint64_t)m->Sk * m->esk +
                 2 * (uint64_t)m->nkb * m->Dv * m->esv + m->np * (uint64_t)m->Sk * 2 +
                 (uint64_t)m->nkb * 128 * 2 + 2 * (uint64_t)m->Dv * m->eso +
                 m->np * (uint64_t)(m->nc + 4) * 4;
    return b + (2 * m->np + m->nqbuf + 7) * 64;   /* alignment of each buffer */
}

/* The deepest pipeline that fits the smallest step region any plan leaves (codegen/core.c
 * cg_step_sbuf_bytes): four probability tiles in flight (double-buffered Q^T, else one
 * Q^T buffer), else three. 0 when nothing fits. */
static int fit_buffers(const struct sim_target *t, struct cg_attn_geom *m)
{
    uint64_t half = t->sbuf_usable_bytes - t->sbuf_usable_bytes / 2;
    uint64_t room = (uint64_t)cg_min((int64_t)half / (CG_STEP_REGIONS + 1), CG_STEP_MIN_BYTES);
    static const uint32_t tries[4][2] = {{4, 2}, {4, 1}, {3, 2}, {3, 1}};
    for (int i = 0; i < 4; i++) {
        m->np = tries[i][0];
        m->nqbuf = tries[i][1];
        if (attn_sbuf_bytes(m) <= room)
            return 1;
    }
    return 0;
}

static int geom(const struct graph *g, const struct sim_target *t, const int32_t *op,
                struct cg_attn_geom *m)
{
    const struct graph_op *a = graph_op(g, op[0]), *b = graph_op(g, op[2]);
    const struct graph_tensor *q = graph_tensor(g, a->inputs[0]);
    const struct graph_tensor *k = graph_tensor(g, a->inputs[1]);
    const struct graph_tensor *v = graph_tensor(g, b->inputs[1]);
    const struct graph_tensor *o = graph_tensor(g, b->output);
    int r = q->shape.rank;
    if (r < 3 || k->shape.rank != r || v->shape.rank != r || o->shape.rank != r)
        return 0;
    if (!leading_batch(&a->attrs, r) || !leading_batch(&b->attrs, r) ||
        a->attrs.lhs_contract[0] != r - 1 || a->attrs.rhs_contract[0] != r - 1 ||
        b->attrs.lhs_contract[0] != r - 1 || b->attrs.rhs_contract[0] != r - 2)
        return 0;
    m->r = r;
    m->nb = 1;
    for (int i = 0; i < r - 2; i++)
        m->nb *= q->shape.dims[i].size;
    m->Sq = q->shape.dims[r - 2].size;
    m->D = q->shape.dims[r - 1].size;
    m->Sk = k->shape.dims[r - 2].size;
    m->Dv = v->shape.dims[r - 1].size;
    m->esq = ls_dtype_size(q->dtype);
    m->esk = ls_dtype_size(k->dtype);
    m->esv = ls_dtype_size(v->dtype);
    m->eso = ls_dtype_size(o->dtype);
    m->chunk = cg_min(t->pe_moving_max, t->psum_bank_bytes / 4);
    m->nc = cg_cdiv(m->Sk, m->chunk);
    m->nkb = cg_cdiv(m->Sk, 128);
    m->tpb = t->psum_bank_bytes / (128 * 4);           /* transposes per PSUM bank */
    m->ns = (uint32_t)(2 * m->nc + 2 <= t->psum_banks ? 2 : 1);
    if (m->Sq < 2 || m->D > t->pe_rows || m->D < 2 || m->Dv > t->pe_cols || m->Dv < 2 ||
        m->Sk < 2 || t->sbuf_partitions < 128 || t->pe_rows < 128 || t->pe_cols < 128 ||
        m->tpb < 1 || m->ns * m->nc + 2 > t->psum_banks || q->dtype != k->dtype ||
        graph_tensor(g, b->inputs[0])->dtype != LS_DT_BF16)
        return 0;
    return fit_buffers(t, m);
}

int cg_attn_find(const struct graph *g, const struct sim_target *t, int32_t op,
                 struct cg_attn *out)
{
    const struct graph_op *x = graph_op(g, op);
    int32_t ops[3] = {-1, -1, -1}, u, self = op;
    if (x->kind != GRAPH_OP_BATCH_MATMUL && x->kind != GRAPH_OP_SOFTMAX)
        return -1;
    /* walk back to the scores op */
    if (x->kind == GRAPH_OP_BATCH_MATMUL && x->ninputs == 2 &&
        graph_op(g, graph_tensor(g, x->inputs[0])->producer)->kind == GRAPH_OP_SOFTMAX)
        op = graph_tensor(g, graph_op(g, graph_tensor(g, x->inputs[0])->producer)->inputs[0])
                 ->producer;
    else if (x->kind == GRAPH_OP_SOFTMAX)
        op = graph_tensor(g, x->inputs[0])->producer;
    if (op < 0 || graph_op(g, op)->kind != GRAPH_OP_BATCH_MATMUL)
        return -1;
    ops[0] = op;
    const struct graph_op *a = graph_op(g, op);
    if (!only_use(g, a->output, &u) || graph_op(g, u)->kind != GRAPH_OP_SOFTMAX)
        return -1;
    ops[1] = u;
    const struct graph_op *sm = graph_op(g, u);
    if (sm->attrs.axis != graph_tensor(g, a->output)->shape.rank - 1)
        return -1;
    if (!only_use(g, sm->output, &u) || graph_op(g, u)->kind != GRAPH_OP_BATCH_MATMUL ||
        graph_op(g, u)->ninputs != 2)
        return -1;
    ops[2] = u;
    struct cg_attn_geom m;
    if (!geom(g, t, ops, &m))
        return -1;
    int role = -1;
    for (int i = 0; i < 3; i++) {
        out->op[i] = ops[i];
        if (ops[i] == self)
            role = i;
    }
    out->m = m;
    return role;
}

void cg_attn_cfg(const struct cg_attn *a, int role, int8_t *pax)
{
    int r = a->m.r;
    if (role == 0) {            /* Q, K with head_dim on partitions; S with queries */
        pax[0] = pax[1] = (int8_t)(r - 1);
        pax[2] = (int8_t)(r - 2);
    } else if (role == 1) {     /* S, P with queries on partitions */
        pax[0] = pax[1] = (int8_t)(r - 2);
    } else {                    /* P (queries), V (keys), ctx (queries) */
        pax[0] = pax[1] = pax[2] = (int8_t)(r - 2);
    }
}

/* ---- lowering ------------------------------------------------------------------------ */

struct attn_run {
    const struct cg_attn_geom *m;
    struct cg_view vq, vk, vv, vo;
    int qord[R_], kord[R_], vord[R_], oord[R_], nq, nk, nv, no;
    uint64_t qb[2], kb[2], vb[2], ob[2], ptb;
    int vall;                    /* 1: V of every batch combo loaded once, into vb[0] */
    uint64_t st[ATTN_NP], pb[ATTN_NP]; /* statistics, probabilities: np tiles in flight */
    uint32_t sbank0, tbank, pvbank;
    const int32_t *tags;
    int64_t nqt;                 /* query tiles per batch combo */
    /* handles (-1: none, or emitted by a part not lowered here) */
    int64_t hq[2], hk[2], hv[2][ATTN_SPREAD], q_reader[2], k_reader[2], v_reader[2];
    int64_t mm[2][8], sbank_reader[2];
    int64_t p_h[ATTN_NP], p_reader[ATTN_NP], rs_h[ATTN_NP], st_reader[ATTN_NP], mx_h[ATTN_NP];
    int64_t cp_h[ATTN_NP];       /* the scores' copy to SBUF */
    int64_t pt_reader, t_reader[2], hcp[2], pv_reader[2], o_reader[2];
    int64_t tgroups;             /* transpose groups so far: the bank half they use */
};

static size_t dep(int64_t *d, size_t n, int64_t h)
{
    if (h >= 0)
        d[n++] = h;
    return n;
}

/* The box of batch combo bi: single indices on the leading axes, the rest whole. */
static void batch_box(const struct attn_run *z, int64_t bi, int rank, const int64_t *dim,
                      int64_t *lo, int64_t *len)
{
    for (int i = rank - 1; i >= 0; i--) {
        lo[i] = 0;
        len[i] = dim[i];
    }
    for (int i = z->m->r - 3; i >= 0; i--) {
        lo[i] = bi % dim[i];
        len[i] = 1;
        bi /= dim[i];
    }
}

/* Operand of an SBUF-resident Q or K (head_dim on partitions, the sequence free) or V
 * (keys on partitions: rows [lo, lo + n) of the sequence axis): batch combo bi. */
static int in_place(struct cg_em *e, const struct attn_run *z, const struct cg_view *v,
                    const int *ord, int n, int64_t bi, int64_t lo0, int64_t cnt,
                    struct sim_operand *o)
{
    int64_t lo[R_], len[R_];
    int r = z->m->r;
    batch_box(z, bi, r, v->dim, lo, len);
    lo[r - 2] = lo0;
    len[r - 2] = cnt;
    if (cg_box(v, lo, len, NULL, v->pax, 1, ord + 1, n - 1, o))
        return cg_fail(e, "fused attention: access pattern needs more than 4 dims");
    return 0;
}

/* The group's SBUF-resident inputs: the next instruction waits for their writers. */
static void resident_writers(struct cg_em *e, const struct attn_run *z)
{
    const struct cg_view *v[3] = {&z->vq, &z->vk, &z->vv};
    for (int i = 0; i < 3; i++)
        if (cg_resident(v[i]))
            cg_writers(e, v[i]->tensor, v[i]->pax);
}

static int64_t load(struct cg_em *e, const struct cg_view *v, const int *ord, int n,
                    const int64_t *lo, const int64_t *len, uint64_t addr, uint32_t rows,
                    uint64_t free, int64_t war, int first, int cls)
{
    struct sim_operand src, dst = cg_sb(0, rows, addr, v->dt, free);
    if (cg_box(v, lo, len, NULL, v->pax, 1, ord + 1, n - 1, &src))
        return cg_fail(e, "fused attention: access pattern needs more than 4 dims"), -1;
    if (first)
        cg_writers(e, v->tensor, v->pax);
    int64_t d[1];
    return cg_dma(e, cls, &dst, &src, SIM_OP_DMA_COPY, d, dep(d, 0, war));
}

static int64_t op1(struct cg_em *e, enum ls_engine eng, enum sim_opcode opc, enum sim_func fn,
                   const struct sim_operand *dst, const struct sim_operand *src,
                   const struct sim_operand *src2, uint8_t flags, const int64_t *deps,
                   size_t nd)
{
    struct sim_instr in = cg_instr(e, eng, opc, fn);
    in.flags = flags;
    in.dst = *dst;
    in.src = *src;
    if (src2)
        in.src2 = *src2;
    int64_t d[16];
    size_t n = 0;
    for (size_t i = 0; i < nd && n < 16; i++)
        n = dep(d, n, deps[i]);
    return cg_emit(e, &in, d, n);
}

/* A [rows x n] fp32 statistic read broadcast along a row of `n` elements. */
static struct sim_operand bcast(uint32_t rows, uint64_t addr, uint32_t n)
{
    struct sim_operand o = cg_sb(0, rows, addr, LS_DT_FP32, 1);
    uint32_t sz[1] = {n};
    int32_t sd[1] = {0};
    sim_operand_dims(&o, 1, sz, sd);
    return o;
}

/* Scores: per batch combo the Q^T and K^T loads, per tile one load_stationary (queries)
 * and one matmul per key chunk into the tile's PSUM banks. */
static int part_scores(struct cg_em *e, struct attn_run *z, int64_t bi, int64_t qt)
{
    const struct cg_attn_geom *m = z->m;
    int64_t lo[R_], len[R_], qlen = cg_min(128, m->Sq - qt * 128), t = bi * z->nqt + qt;
    int b = (int)(bi & 1), s = (int)(t % m->ns), qi = (int)(bi % m->nqbuf);
    e->s->op_tag = z->tags[0];
    if (qt == 0 && !cg_resident(&z->vq)) {
        batch_box(z, bi, m->r, z->vq.dim, lo, len);
        z->hq[qi] = load(e, &z->vq, z->qord, z->nq, lo, len, z->qb[qi], (uint32_t)m->D,
                         (uint64_t)m->Sq, z->q_reader[qi], bi < 2, CG_Q_LOAD);
    }
    if (qt == 0 && !cg_resident(&z->vk)) {
        batch_box(z, bi, m->r, z->vk.dim, lo, len);
        z->hk[b] = load(e, &z->vk, z->kord, z->nk, lo, len, z->kb[b], (uint32_t)m->D,
                        (uint64_t)m->Sk, z->k_reader[b], bi < 2, CG_Q_LOAD);
    }
    struct sim_operand qs = cg_sb(0, (uint32_t)m->D, z->qb[qi] + (uint64_t)qt * 128 * m->esq,
                                  z->vq.dt, (uint64_t)qlen);
    if (cg_resident(&z->vq) && in_place(e, z, &z->vq, z->qord, z->nq, bi, qt * 128, qlen, &qs))
        return e->fail;
    if (t == 0)   /* PE runs in order: its first instruction waits for the writers */
        resident_writers(e, z);
    int64_t d[3] = {z->hq[qi]};
    struct sim_instr ls = cg_instr(e, LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY, SIM_FN_NONE);
    ls.src = qs;
    int64_t dd[1];
    int64_t hls = cg_emit(e, &ls, dd, dep(dd, 0, d[0]));
    for (int64_t c = 0; c < m->nc; c++) {
        int64_t cl = cg_min(m->chunk, m->Sk - c * m->chunk);
        struct sim_operand mv = cg_sb(0, (uint32_t)m->D,
                                      z->kb[b] + (uint64_t)(c * m->chunk) * m->esk, z->vk.dt,
                                      (uint64_t)cl);
        if (cg_resident(&z->vk) &&
            in_place(e, z, &z->vk, z->kord, z->nk, bi, c * m->chunk, cl, &mv))
            return e->fail;
        uint32_t bank = z->sbank0 + (uint32_t)(s * m->nc + c);
        struct sim_operand ps = sim_psum(0, (uint32_t)qlen, (uint64_t)bank * e->t->psum_bank_bytes,
                                         LS_DT_FP32, (uint32_t)cl);
        int64_t md[3] = {hls, z->hk[b], z->sbank_reader[s]};
        z->mm[s][c] = op1(e, LS_ENGINE_PE, SIM_OP_MATMUL, SIM_FN_NONE, &ps, &mv, NULL, 0, md, 3);
    }
    z->q_reader[qi] = z->k_reader[b] = z->mm[s][m->nc - 1];
    return e->fail;
}

/* Softmax, the one PSUM pass: ACT copies the tile's score banks to the tile's bf16
 * buffer in SBUF (as the published flash-attention kernels do), so that the row max and
 * the exp read SBUF and the PSUM port (one reader at a time on nc-v2, ACT or DVE) only
 * sees this copy and the transposes' copies. The copy frees the score banks early. */
static int sm_copy(struct cg_em *e, struct attn_run *z, int64_t t)
{
    const struct cg_attn_geom *m = z->m;
    uint32_t rows = (uint32_t)cg_min(128, m->Sq - (t % z->nqt) * 128);
    int s = (int)(t % m->ns), u = (int)(t % m->np);
    e->s->op_tag = z->tags[1];
    int64_t h = -1;
    for (int64_t c = 0; c < m->nc; c++) {
        int64_t cl = cg_min(m->chunk, m->Sk - c * m->chunk);
        uint32_t bank = z->sbank0 + (uint32_t)(s * m->nc + c);
        struct sim_operand ps = sim_psum(0, rows, (uint64_t)bank * e->t->psum_bank_bytes,
                                         LS_DT_FP32, (uint32_t)cl);
        struct sim_operand sc = cg_sb(0, rows, z->pb[u] + (uint64_t)(c * m->chunk) * 2,
                                      LS_DT_BF16, (uint64_t)cl);
        int64_t d[2] = {z->mm[s][c], z->p_reader[u]};
        h = op1(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE, &sc, &ps, NULL, 0, d, 2);
    }
    z->sbank_reader[s] = z->cp_h[u] = h;
    return e->fail;
}

/* Softmax, DVE: the row max of the bf16 copy (statistics buffer t % np). */
static int sm_dve(struct cg_em *e, struct attn_run *z, int64_t t)
{
    const struct cg_attn_geom *m = z->m;
    uint32_t rows = (uint32_t)cg_min(128, m->Sq - (t % z->nqt) * 128);
    int u = (int)(t % m->np);
    e->s->op_tag = z->tags[1];
    struct sim_operand mx = cg_sb(0, rows, z->st[u], LS_DT_BF16, 1);
    struct sim_operand sc = cg_sb(0, rows, z->pb[u], LS_DT_BF16, (uint64_t)m->Sk);
    int64_t d[2] = {z->cp_h[u], z->st_reader[u]};
    z->mx_h[u] = op1(e, LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE, SIM_FN_MAX, &mx, &sc, NULL, 0, d, 2);
    return e->fail;
}

/* Softmax, ACT: exp(score - max) in place over the bf16 copy (the row max is the
 * per-partition bias), its accumulator readout giving the row sum, then the sum's
 * reciprocal. */
static int sm_act(struct cg_em *e, struct attn_run *z, int64_t t)
{
    const struct cg_attn_geom *m = z->m;
    uint32_t rows = (uint32_t)cg_min(128, m->Sq - (t % z->nqt) * 128);
    int u = (int)(t % m->np);
    e->s->op_tag = z->tags[1];
    struct sim_operand pr = cg_sb(0, rows, z->pb[u], LS_DT_BF16, (uint64_t)m->Sk);
    int64_t d[2] = {z->mx_h[u], z->cp_h[u]};
    int64_t hexp = op1(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION_REDUCE, SIM_FN_EXP, &pr, &pr, NULL,
                       0, d, 2);
    struct sim_operand sum = cg_sb(0, rows, z->st[u] + 4, LS_DT_FP32, 1);
    struct sim_operand rs = cg_sb(0, rows, z->st[u] + 8, LS_DT_FP32, 1);
    z->rs_h[u] = op1(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_RECIPROCAL, &rs, &sum, NULL, 0,
                     &hexp, 1);
    z->p_h[u] = hexp;
    return e->fail;
}

/* Transposes of the probabilities and their copies to SBUF (on DVE: ACT holds the
 * scores' copy and the exp). The transpose bank is used in two halves of tpb / 2 blocks,
 * alternating, so that the transposes of a group run while the previous group's copy
 * drains the other half. Sets z->hcp to the last copy of each parity of group. */
static void transpose_p(struct cg_em *e, struct attn_run *z, int u, uint32_t qlen)
{
    const struct cg_attn_geom *m = z->m;
    int64_t hb = m->tpb >= 2 ? m->tpb / 2 : 1;
    for (int64_t j0 = 0; j0 < m->nkb; j0 += hb) {
        int64_t n = cg_min(hb, m->nkb - j0), htr = -1;
        int h = m->tpb >= 2 ? (int)(z->tgroups & 1) : 0;
        uint64_t base = (uint64_t)z->tbank * e->t->psum_bank_bytes + (uint64_t)h * hb * 128 * 4;
        for (int64_t j = j0; j < j0 + n; j++) {
            uint32_t kl = (uint32_t)cg_min(128, m->Sk - j * 128);
            struct sim_operand src = cg_sb(0, qlen, z->pb[u] + (uint64_t)j * 256, LS_DT_BF16, kl);
            struct sim_operand dst = sim_psum(0, kl, base + (uint64_t)(j - j0) * 128 * 4,
                                              LS_DT_FP32, qlen);
            int64_t d[2] = {z->p_h[u], j == j0 ? z->t_reader[h] : -1};
            htr = op1(e, LS_ENGINE_PE, SIM_OP_PE_TRANSPOSE, SIM_FN_NONE, &dst, &src, NULL, 0, d,
                      2);
        }
        /* full blocks in one copy, a short last block on its own */
        int64_t full = j0 + n == m->nkb && m->Sk % 128 ? n - 1 : n;
        for (int part = 0; part < 2; part++) {
            int64_t nb = part ? n - full : full, jb = j0 + (part ? full : 0);
            if (nb <= 0)
                continue;
            uint32_t kl = (uint32_t)cg_min(128, m->Sk - jb * 128);
            struct sim_operand src = sim_psum(0, kl, base + (uint64_t)(jb - j0) * 128 * 4,
                                              LS_DT_FP32, (uint32_t)(nb * qlen));
            struct sim_operand dst = cg_sb(0, kl, z->ptb + (uint64_t)jb * 128 * 2, LS_DT_BF16,
                                           (uint64_t)(nb * qlen));
            uint32_t sz[2] = {(uint32_t)nb, qlen};
            int32_t sd[2] = {128, 1};
            sim_operand_dims(&src, 2, sz, sd);
            sim_operand_dims(&dst, 2, sz, sd);
            int odd = (int)((z->tgroups + part) & 1);
            int64_t cd[2] = {htr, z->pt_reader};
            z->hcp[odd] = op1(e, LS_ENGINE_DVE, SIM_OP_TENSOR_COPY, SIM_FN_NONE, &dst, &src,
                              NULL, 0, cd, 2);
            z->t_reader[h] = z->hcp[odd];
        }
        z->tgroups++;
    }
}

/* V of every batch combo, once: per block of 128 keys one DMA whose rows hold all the
 * combos' head_dim elements, one run per partition (V has the keys on partitions, so a
 * key's [batch combos, head_dim] elements are adjacent in HBM). Per combo a row is only
 * head_dim elements, one DMA descriptor each (128 B for whisper-enc): 96 loads of about
 * 1.2 us per layer instead of 12, and every head waited for its own. */
static void load_v_all(struct cg_em *e, struct attn_run *z)
{
    const struct cg_attn_geom *m = z->m;
    int64_t lo[R_], len[R_];
    for (int i = 0; i < m->r; i++) {
        lo[i] = 0;
        len[i] = z->vv.dim[i];
    }
    uint64_t row = (uint64_t)m->nb * m->Dv;
    for (int64_t j = 0; j < m->nkb; j++) {
        lo[m->r - 2] = j * 128;
        len[m->r - 2] = cg_min(128, m->Sk - j * 128);
        z->hv[0][j % ATTN_SPREAD] =
            load(e, &z->vv, z->vord, z->nv, lo, len, z->vb[0] + (uint64_t)j * row * m->esv,
                 (uint32_t)len[m->r - 2], row, -1, j < ATTN_SPREAD,
                 ATTN_Q0 + (int)(j % (ATTN_SPREAD / 2)));
    }
}

/* ctx, first half: per batch combo the V loads (one per key block), per tile the
 * transposes of the probabilities and their copies. */
static int ctx_t(struct cg_em *e, struct attn_run *z, int64_t t)
{
    const struct cg_attn_geom *m = z->m;
    int64_t lo[R_], len[R_], bi = t / z->nqt, qt = t % z->nqt;
    int b = (int)(bi & 1);
    e->s->op_tag = z->tags[2];
    if (z->vall) {
        if (t == 0)
            load_v_all(e, z);
    } else if (qt == 0 && !cg_resident(&z->vv)) {
        batch_box(z, bi, m->r, z->vv.dim, lo, len);
        for (int64_t j = 0; j < m->nkb; j++) {
            lo[m->r - 2] = j * 128;
            len[m->r - 2] = cg_min(128, m->Sk - j * 128);
            int64_t h = load(e, &z->vv, z->vord, z->nv, lo, len,
                             z->vb[b] + (uint64_t)j * m->Dv * m->esv, (uint32_t)len[m->r - 2],
                             (uint64_t)m->Dv, z->v_reader[b], bi < 2 && j < ATTN_SPREAD,
                             ATTN_Q0 + (int)(j % (ATTN_SPREAD / 2)));
            z->hv[b][j % ATTN_SPREAD] = h;   /* the last load on each queue */
        }
    }
    transpose_p(e, z, (int)(t % m->np), (uint32_t)cg_min(128, m->Sq - qt * 128));
    z->p_reader[t % m->np] = z->hcp[0] > z->hcp[1] ? z->hcp[0] : z->hcp[1];
    return e->fail;
}

/* ctx, second half: the PV matmuls (stationary P^T blocks, moving V blocks) accumulating
 * in PSUM, the evacuation scaled by 1 / row sum, and the store. */
static int ctx_pv(struct cg_em *e, struct attn_run *z, int64_t t)
{
    const struct cg_attn_geom *m = z->m;
    int64_t lo[R_], len[R_], bi = t / z->nqt, qt = t % z->nqt;
    int64_t qlen = cg_min(128, m->Sq - qt * 128);
    int b = (int)(bi & 1), p = (int)(t & 1), u = (int)(t % m->np);
    e->s->op_tag = z->tags[2];
    uint64_t pv = (uint64_t)z->pvbank * e->t->psum_bank_bytes + (uint64_t)p * m->Dv * 4;
    int64_t hmm = -1;
    for (int64_t j = 0; j < m->nkb; j++) {
        uint32_t kl = (uint32_t)cg_min(128, m->Sk - j * 128);
        struct sim_instr ls = cg_instr(e, LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY, SIM_FN_NONE);
        ls.src = cg_sb(0, kl, z->ptb + (uint64_t)j * 128 * 2, LS_DT_BF16, (uint64_t)qlen);
        int64_t d[2];   /* the copies on both engines wrote the transposed blocks */
        int64_t hls = cg_emit(e, &ls, d, dep(d, dep(d, 0, z->hcp[0]), z->hcp[1]));
        uint64_t va = z->vall ? z->vb[0] + ((uint64_t)j * m->nb + (uint64_t)bi) * m->Dv * m->esv
                              : z->vb[b] + (uint64_t)j * m->Dv * m->esv;
        struct sim_operand mv = cg_sb(0, kl, va, z->vv.dt, (uint64_t)m->Dv);
        if (cg_resident(&z->vv) && in_place(e, z, &z->vv, z->vord, z->nv, bi, j * 128, kl, &mv))
            return e->fail;
        struct sim_operand ps = sim_psum(0, (uint32_t)qlen, pv, LS_DT_FP32, (uint32_t)m->Dv);
        int64_t md[2 + ATTN_SPREAD] = {hls, j == 0 ? z->pv_reader[p] : -1};
        for (int q = 0; q < ATTN_SPREAD; q++)
            md[2 + q] = z->hv[z->vall ? 0 : b][q];
        hmm = op1(e, LS_ENGINE_PE, SIM_OP_MATMUL, SIM_FN_NONE, &ps, &mv, NULL,
                  j > 0 ? SIM_F_ACCUMULATE : 0, md, 2 + ATTN_SPREAD);
    }
    z->pt_reader = z->v_reader[b] = hmm;
    struct sim_operand ps = sim_psum(0, (uint32_t)qlen, pv, LS_DT_FP32, (uint32_t)m->Dv);
    struct sim_operand ob = cg_sb(0, (uint32_t)qlen, z->ob[p], z->vo.dt, (uint64_t)m->Dv);
    if (cg_resident(&z->vo) &&   /* the evacuation writes the resident ctx in place */
        in_place(e, z, &z->vo, z->oord, z->no, bi, qt * 128, qlen, &ob))
        return e->fail;
    struct sim_operand rs = bcast((uint32_t)qlen, z->st[u] + 8, (uint32_t)m->Dv);
    int64_t ed[3] = {hmm, z->rs_h[u], z->o_reader[p]};
    int64_t hev = op1(e, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_MUL, &ob, &ps, &rs, 0, ed, 3);
    z->pv_reader[p] = z->st_reader[u] = hev;
    if (cg_resident(&z->vo)) {
        cg_wrote(e, z->vo.tensor, z->vo.pax, hev);
        return e->fail;
    }
    batch_box(z, bi, m->r, z->vo.dim, lo, len);
    lo[m->r - 2] = qt * 128;
    len[m->r - 2] = qlen;
    struct sim_operand dst;
    if (cg_box(&z->vo, lo, len, NULL, z->vo.pax, 1, z->oord + 1, z->no - 1, &dst))
        return cg_fail(e, "fused attention: output pattern needs more than 4 dims");
    int64_t hst = cg_dma(e, ATTN_Q0 + ATTN_SPREAD / 2 + (int)(t % (ATTN_SPREAD / 2)), &dst, &ob,
                         SIM_OP_DMA_COPY, &hev, hev >= 0);
    cg_wrote(e, z->vo.tensor, z->vo.pax, hst);
    z->o_reader[p] = hst;
    return e->fail;
}

/* V buffers, the last allocation: every batch combo at once when they fit what the step's
 * SBUF has left, else two per-combo buffers; none for a resident V (read in place). */
static void alloc_v(struct cg_em *e, struct attn_run *z)
{
    const struct cg_attn_geom *m = z->m;
    uint64_t one = (uint64_t)m->nkb * m->Dv * m->esv, all = one * (uint64_t)m->nb;
    z->vall = 0;
    if (cg_resident(&z->vv))
        return;
    if (m->nb > 1 && cg_budget(e) >= ((all + 63) & ~(uint64_t)63)) {
        z->vall = 1;
        z->vb[0] = cg_alloc(e, all);
        return;
    }
    z->vb[0] = cg_alloc(e, one);
    z->vb[1] = cg_alloc(e, one);
}

static void run_init(struct cg_em *e, const struct cg_attn *a, struct attn_run *z)
{
    const struct cg_attn_geom *m = z->m = &a->m;
    const struct graph *g = e->g;
    int r = m->r;
    cg_view_make(e, graph_op(g, a->op[0])->inputs[0], r - 1, &z->vq);
    cg_view_make(e, graph_op(g, a->op[0])->inputs[1], r - 1, &z->vk);
    cg_view_make(e, graph_op(g, a->op[2])->inputs[1], r - 2, &z->vv);
    cg_view_make(e, graph_op(g, a->op[2])->output, r - 2, &z->vo);
    z->nq = cg_storage_order(&z->vq, z->qord);
    z->nk = cg_storage_order(&z->vk, z->kord);
    z->nv = cg_storage_order(&z->vv, z->vord);
    z->no = cg_storage_order(&z->vo, z->oord);
    for (int i = 0; i < 2; i++) {   /* resident Q and K are read in place */
        if ((uint32_t)i < m->nqbuf && !cg_resident(&z->vq))
            z->qb[i] = cg_alloc(e, (uint64_t)m->Sq * m->esq);
        if (!cg_resident(&z->vk))
            z->kb[i] = cg_alloc(e, (uint64_t)m->Sk * m->esk);
        z->ob[i] = cg_alloc(e, (uint64_t)m->Dv * m->eso);
        z->hq[i] = z->hk[i] = z->q_reader[i] = z->k_reader[i] = z->v_reader[i] = -1;
        for (int q = 0; q < ATTN_SPREAD; q++)
            z->hv[i][q] = -1;
        z->sbank_reader[i] = z->pv_reader[i] = z->o_reader[i] = -1;
        for (int c = 0; c < 8; c++)
            z->mm[i][c] = -1;
    }
    for (int i = 0; i < (int)m->np; i++) {
        z->st[i] = cg_alloc(e, (uint64_t)(m->nc + 4) * 4);
        z->pb[i] = cg_alloc(e, (uint64_t)m->Sk * 2);
        z->rs_h[i] = z->st_reader[i] = z->p_h[i] = z->p_reader[i] = z->mx_h[i] = z->cp_h[i] = -1;
    }
    z->ptb = cg_alloc(e, (uint64_t)m->nkb * 128 * 2);
    alloc_v(e, z);
    z->t_reader[0] = z->t_reader[1] = z->pt_reader = z->hcp[0] = z->hcp[1] = -1;
    z->tgroups = 0;
    /* the whole PSUM: scores banks first, then the transposes' and the PV bank */
    z->sbank0 = 0;
    z->tbank = m->ns * (uint32_t)m->nc;
    z->pvbank = z->tbank + 1;
}

static int cg_lower_attn(struct cg_em *e, const struct cg_attn *a, unsigned parts,
                  const int32_t *tags)
{
    struct attn_run z;
    memset(&z, 0, sizeof z);
    int32_t own[3] = {e->s->op_tag, e->s->op_tag, e->s->op_tag};
    z.tags = tags ? tags : own;
    run_init(e, a, &z);
    const struct cg_attn_geom *m = &a->m;
    int64_t nq = z.nqt = cg_cdiv(m->Sq, 128), T = m->nb * nq, L = (int64_t)m->np - 1;
    /* software pipeline over the tiles t = bi * nq + qt, so that no engine waits in
     * program order behind another tile's tail and the PSUM port alternates between its
     * two readers: while DVE copies the transposes of tile t out of PSUM, ACT computes the
     * exp of tile t + 1 (in SBUF); then ACT copies the scores of tile t + L out of PSUM
     * while DVE takes the max of tile t + L - 1 (in SBUF). */
    for (int64_t t = 0; t < L && t < T; t++) {
        if (parts & 1)
            part_scores(e, &z, t / nq, t % nq);
        if (parts & 2)
            sm_copy(e, &z, t);
        if ((parts & 2) && t < L - 1)
            sm_dve(e, &z, t);
    }
    if (parts & 2)
        sm_act(e, &z, 0);
    for (int64_t t = 0; t < T && !e->fail; t++) {
        if (parts & 4)
            ctx_t(e, &z, t);
        if ((parts & 1) && t + L < T)
            part_scores(e, &z, (t + L) / nq, (t + L) % nq);
        if ((parts & 2) && t + L - 1 < T)
            sm_dve(e, &z, t + L - 1);
        if ((parts & 2) && t + 1 < T)
            sm_act(e, &z, t + 1);
        if ((parts & 2) && t + L < T)
            sm_copy(e, &z, t + L);
        if (parts & 4)
            ctx_pv(e, &z, t);
    }
    e->s->op_tag = own[0];
    return e->fail;
}

int cg_lower_attn_group(const struct graph *g, const struct sim_target *t,
                        const struct cg_options *o, const struct cg_attn *a, unsigned parts,
                        const int32_t *tags, struct cg_sink *s, struct ls_error *err)
{
    static const struct cg_options defo = {0};
    struct cg_em e = {g, t, o ? o : &defo, s, err, s->sbuf_base, 0, 0, 0};
    return cg_lower_attn(&e, a, parts, tags);
}
