/* codegen/mm: matmul and batch_matmul on the PE array (docs/costmodel.md, "Matmul").
 *
 * Tiles: the stationary operand S (whose free axis becomes the output partition axis) is
 * cut into k-steps of kt <= pe.rows contracted rows (times the other contracted pairs) and
 * m-tiles of mt <= pe.cols columns; the moving operand M's free axes into chunks of
 * T <= min(pe.moving_max, psum.bank_bytes / 4) elements; G = banks / 2 chunks per group
 * (the step's PSUM banks; consecutive groups alternate between the two halves).
 *
 * Loop order: batch, S's other free axes, m-tile, group, k-step, chunk: one load_stationary
 * per (m-tile, group, k-step), one matmul per (m-tile, k-step, chunk) accumulating in PSUM,
 * one ACT evacuation and, for an HBM output, one store per (m-tile, chunk).
 *
 * Memory (mm_plan_sbuf): SBUF-resident operands are read in place and a resident output
 * written in place. A moving weight is loaded whole into the constant ring when it fits
 * (k-tiled in HBM: kg k-steps per DMA, rows of at least one minimum descriptor), another HBM
 * moving operand whole into the step region when it fits (one DMA per k-step when its chunks
 * are consecutive), else it streams per (k-step, chunk), double-buffered. An HBM stationary
 * operand is loaded in groups of mg m-tiles (one DMA per k-step and group, double-buffered;
 * in the ring for a weight), or streamed per (k-step, m-tile) when one m-tile of every
 * k-step does not fit in half the region.
 *
 * Code: mm_plan() decides all of that (struct mm_plan); the emitters (load_moving_resident,
 * load_stationary_group, emit_group, evacuate) walk the loops with their shared state in
 * struct mm_run. */
#include <stdlib.h>

#include "codegen/cg_int.h"
#include "codegen/epi.h"

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

static void mmc_add(struct mmc *c, int ax, int64_t ext)
{
    c->ax[c->nax] = ax;
    c->ext[c->nax++] = ext;
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

/* What one matmul lowering decides before it emits anything: the operands and their axes,
 * the tiles, and where each operand lives in SBUF (mm_plan). */
struct mm_plan {
    const struct graph_op *x;
    const struct graph_attrs *at;
    struct graph_axis map[2][R_];
    int S, M;                    /* input slots of the stationary and the moving operand */
    int a, po;                   /* S's free axis that becomes the output partition axis po */
    int kS, kM;                  /* the contracted pair on partitions (S's and M's axis) */
    int paxS, paxM;              /* the operands' layouts */
    struct cg_view vS, vM, vO;
    int sorder[R_], morder[R_], oorder[R_], ns, nm, no;   /* storage orders */
    /* combos: batch pairs, the other contracted pairs (on S, on M), S's other free axes */
    struct mmc cb, ckS, ckM, cso;
    int mfree[R_], nmf;          /* M's free axes, cut into chunks by sp */
    struct cg_split sp;
    int64_t K, Ma;               /* contracted extent, S's free extent (a) */
    int64_t kt, mtt;             /* k-step rows, m-tile columns */
    int64_t nK, nKK, nM;         /* k-steps per contracted combo, k-steps in all, m-tiles */
    int64_t nT, tmax;            /* moving chunks, elements of the largest chunk */
    uint32_t nb;                 /* PSUM banks of the step */
    int64_t G;                   /* chunks per group (half the banks: groups alternate) */
    size_t esS, esM, esO;
    int inS, inM, inO;           /* SBUF-resident: read or written in place */
    /* SBUF decisions (mm_plan_sbuf) */
    int m_whole;                 /* M split along its outermost free axis or not at all: a
                                  * k-step's chunks are consecutive, one DMA loads them */
    int64_t mks;                 /* resident moving layout: k-step kk at element kk * mks */
    int m_ring, s_ring;          /* a weight operand in the constant ring */
    int s_stream;                /* stationary tiles streamed one (k-step, m-tile) at a time */
    int m_res;                   /* moving operand loaded whole (ring or step region) */
    int m_grp;                   /* streamed per (k-step, group): one DMA for the group's
                                  * chunks (consecutive in storage), rows G times longer */
    int m_one;                   /* ... from a k-tiled weight, kg k-steps per DMA */
    int64_t mg, kg;              /* m-tiles per stationary group, k-steps per moving DMA */
    int s_blk;                   /* a ring weight stored group-major (s_blockable) */
    uint64_t s1, sgrp;           /* bytes per partition: one m-tile of S (all k-steps), a group */
    int gflip;                   /* 1: the first group in the upper half (group_base) */
    int sbufs;                   /* group buffers: 1 when one group holds every m-tile */
    uint64_t sbase, obase[2], mbase;
    /* epilogue chain (codegen/epi.h), or NULL: the evacuation adds the bias, along the
     * output partitions (bias_part: one ACT instruction func(psum + bias)) or along the
     * moving free axis (a DVE add from PSUM with the bias row replicated on every
     * partition, then the activation on ACT in place), and writes the chain's output */
    const struct cg_epi *epi;
    int32_t out_t;               /* the tensor the evacuations write */
    int bias_part;
    enum sim_func fn;
    struct cg_view vB;
    uint64_t bbase;
};

/* Operands, the stationary one (whose free axis lands on the output partitions) and the
 * combos of the axes the loops walk. */
static int mm_plan_axes(struct cg_em *e, int32_t op, const int8_t *pax, struct mm_plan *p)
{
    p->x = graph_op(e->g, op);
    const struct graph_attrs *at = p->at = &p->x->attrs;
    int rank[2] = {graph_axis_map(e->g, op, 0, p->map[0]), graph_axis_map(e->g, op, 1, p->map[1])};
    const int *batch[2] = {at->lhs_batch, at->rhs_batch};
    const int *con[2] = {at->lhs_contract, at->rhs_contract};
    p->po = pax[2];
    p->S = -1;
    for (int s = 0; s < 2 && p->S < 0; s++)
        for (int i = 0; i < rank[s]; i++)
            if (p->map[s][i].kind == GRAPH_AXIS_MAP && p->map[s][i].out == p->po &&
                in_list(batch[s], at->nbatch, i) < 0) {
                p->S = s;
                p->a = i;
                break;
            }
    if (p->S < 0)
        return cg_fail(e, "op %s: output axis %d is not a free axis of an operand", p->x->name,
                       p->po);
    int S = p->S, M = p->M = 1 - S;
    int ip = in_list(con[0], at->ncontract, pax[0]);
    if (ip < 0 || con[1][ip] != pax[1])
        return cg_fail(e, "op %s: partition axes must be a contracted pair", p->x->name);
    p->kS = con[S][ip];
    p->kM = con[M][ip];
    p->paxS = pax[S];
    p->paxM = pax[M];
    cg_view_make(e, p->x->inputs[S], pax[S], &p->vS);
    cg_view_make(e, p->x->inputs[M], pax[M], &p->vM);
    cg_view_make(e, p->out_t, p->po, &p->vO);
    for (int i = 0; i < at->nbatch; i++)
        mmc_add(&p->cb, i, p->vS.dim[batch[S][i]]);
    for (int i = 0; i < at->ncontract; i++)
        if (i != ip) {
            mmc_add(&p->ckS, con[S][i], p->vS.dim[con[S][i]]);
            mmc_add(&p->ckM, con[M][i], p->vM.dim[con[M][i]]);
        }
    for (int i = 0; i < rank[S]; i++)
        if (i != p->a && in_list(batch[S], at->nbatch, i) < 0 &&
            in_list(con[S], at->ncontract, i) < 0)
            mmc_add(&p->cso, i, p->vS.dim[i]);
    for (int i = 0; i < rank[M]; i++)
        if (in_list(batch[M], at->nbatch, i) < 0 && in_list(con[M], at->ncontract, i) < 0)
            p->mfree[p->nmf++] = i;
    return 0;
}

/* k-steps of kt <= pe.rows, m-tiles of mtt <= pe.cols, moving chunks of <= T elements. */
static int mm_plan_tiles(struct cg_em *e, struct mm_plan *p)
{
    const struct sim_target *t = e->t;
    p->K = p->vS.dim[p->kS];
    p->Ma = p->vS.dim[p->a];
    p->kt = cg_min(p->K, cg_min(t->pe_rows, t->sbuf_partitions));
    p->mtt = cg_min(p->Ma, cg_min(t->pe_cols, t->sbuf_partitions));
    p->nK = cg_cdiv(p->K, p->kt);
    p->nKK = p->nK * combos(&p->ckS);
    p->nM = cg_cdiv(p->Ma, p->mtt);
    struct mfit mf = {cg_min(t->pe_moving_max, t->psum_bank_bytes / 4)};
    p->sp.n = p->nmf;
    for (int k = 0; k < p->nmf; k++)
        p->sp.ext[k] = p->vM.dim[p->mfree[k]];
    if (cg_plan(&p->sp, t_fits, &mf))
        return cg_fail(e, "op %s: no moving tile fits", p->x->name);
    p->nT = cg_split_tiles(&p->sp);
    p->tmax = cg_split_tile_elems(&p->sp);
    p->nb = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    p->G = p->nb >= 2 ? p->nb / 2 : 1;
    p->esS = ls_dtype_size(p->vS.dt);
    p->esM = ls_dtype_size(p->vM.dt);
    p->esO = ls_dtype_size(p->vO.dt);
    return 0;
}

/* The moving chunks are consecutive runs of M's storage order: every planned axis before
 * the split one is a single index, and every axis stored before the split axis (but the
 * partition axis) is a single index in a chunk's box (batch, other contracted pairs, free
 * axes of extent 1). */
static int chunks_consecutive(const struct mm_plan *p)
{
    if (p->sp.split < 0)
        return 0;
    for (int k = 0; k < p->sp.split; k++)
        if (p->sp.ext[k] != 1)
            return 0;
    int sa = p->mfree[p->sp.split], order[R_];
    int n = cg_storage_order(&p->vM, order);
    for (int i = 1; i < n && order[i] != sa; i++) {
        int k = in_list(p->mfree, p->nmf, order[i]);
        if (k >= 0 && k > p->sp.split && p->sp.ext[k] > 1)
            return 0;   /* a whole free axis stored outside the split one */
    }
    return 1;
}

/* SBUF plan. SBUF-resident operands are read in place and a resident output written in
 * place. A moving weight goes whole into the constant ring when it fits, another HBM moving
 * operand whole into the step region when it fits (after the stationary's minimum), else it
 * streams per (k-step, chunk). An HBM stationary operand loads in groups of mg m-tiles per
 * k-step, one DMA each (long contiguous rows when the m axis is innermost), double-buffered
 * across groups (one buffer when one group holds every m-tile), in the ring for a weight
 * (so that its loads run ahead of the steps before this one); the groups grow into what
 * the moving operand leaves. When not even one m-tile
 * of every k-step fits in half the region, stationary tiles stream per (k-step, m-tile). */
static void mm_plan_sbuf(struct cg_em *e, struct mm_plan *p)
{
    p->inS = cg_resident(&p->vS);
    p->inM = cg_resident(&p->vM);
    p->inO = cg_resident(&p->vO);
    if (p->epi) {   /* the bias: a column per m-tile, or one replicated row */
        size_t esb = ls_dtype_size(p->vB.dt);
        p->bbase = cg_alloc(e, p->bias_part ? (uint64_t)p->nM * esb : (uint64_t)p->vB.dim[0] * esb);
    }
    uint64_t budget = cg_budget(e), ring = e->s->ring_bytes;
    p->m_whole = p->sp.split <= 0;
    p->mks = p->nT * p->tmax;
    for (int k = 0; p->m_whole && k < p->nmf; k++)
        p->mks = (k == 0 ? 1 : p->mks) * p->sp.ext[k];
    p->s1 = p->inS ? 0 : (uint64_t)p->nKK * p->mtt * p->esS;
    uint64_t s1 = p->s1, mres_bytes = (uint64_t)p->nKK * p->mks * p->esM;
    p->m_ring = !p->inM && cg_layout_free(e->g, p->x->inputs[p->M]) && mres_bytes <= ring;
    p->s_ring = !p->m_ring && !p->inS && cg_layout_free(e->g, p->x->inputs[p->S]) &&
                2 * s1 <= ring;
    uint64_t obytes = p->inO ? 0 : (uint64_t)p->tmax * p->esO;
    /* streamed also when two k-step columns fit half the region but not beside the output
     * buffers and the least moving buffers (olmo2 at --hidden 8192: K = 22016), only in
     * the largest step region (what the cost model gives the steps last, as for wide
     * rows): a plan that fitted is not changed (it allocates at least this much), and
     * no configuration that was infeasible in a smaller region becomes feasible there */
    uint64_t mleast = cg_min((int64_t)(2 * (uint64_t)p->tmax * p->esM), (int64_t)mres_bytes);
    uint64_t least = 2 * s1 + 2 * ((obytes + 63) & ~(uint64_t)63) +
                     (p->inM || p->m_ring ? 0 : mleast);
    int largest = e->s->sbuf_bytes >= cg_step_sbuf_bytes(e->t, NULL);
    p->s_stream = !p->s_ring && (s1 > budget / 2 || (largest && least > budget));
    uint64_t sstream_bytes = 2 * (uint64_t)p->mtt * p->esS;
    uint64_t used = (p->s_ring ? 0 : p->s_stream ? sstream_bytes : 2 * s1) + 2 * obytes + 512;
    p->m_res = p->m_ring || (!p->inM && used + mres_bytes <= budget);
    p->m_grp = !p->inM && !p->m_res && p->G > 1 && p->nT > 1 && chunks_consecutive(p) &&
               used + 2 * (uint64_t)p->G * p->tmax * p->esM <= budget;
    uint64_t mbytes = p->inM || p->m_ring ? 0
                      : p->m_res          ? mres_bytes
                                          : 2 * (uint64_t)(p->m_grp ? p->G : 1) * p->tmax * p->esM;
    used += mbytes;
    p->mg = 1;
    if (p->s_ring)
        p->mg = cg_min(p->nM, (int64_t)(ring / (2 * s1)));
    else if (!p->s_stream && !p->inS && budget > used)
        p->mg = cg_min(p->nM, 1 + (int64_t)((budget - used) / (2 * s1)));
    p->sgrp = (uint64_t)p->mg * s1;
    /* a weight loaded in one group needs no second buffer: its ring bytes are what the
     * next ops' weights load into while it computes */
    p->sbufs = p->s_ring && p->mg >= p->nM ? 1 : 2;
    p->sbase = p->s_ring ? cg_ring_alloc(e, (uint64_t)p->sbufs * p->sgrp)
                         : cg_alloc(e, p->s_stream ? sstream_bytes : 2 * p->sgrp);
    struct cg_sink *s = e->s;
    p->gflip = p->s_ring && p->sbufs == 2 && s->ring_age && p->sbase != CG_NO_RING &&
               s->ring_age(s->ctx, p->sbase + p->sgrp, p->sgrp) <
                   s->ring_age(s->ctx, p->sbase, p->sgrp);
    p->obase[0] = cg_alloc(e, obytes);
    p->obase[1] = cg_alloc(e, obytes);
    p->mbase = p->m_ring ? cg_ring_alloc(e, mres_bytes) : cg_alloc(e, mbytes);
    p->m_one = p->m_res && p->m_whole && p->vM.tiles == p->nK && p->ckM.nax == 0 &&
               p->kt == p->vM.pblk;
    /* k-steps per DMA: enough for rows of one minimum descriptor (dma.desc_min_ns at
     * dma.bytes_per_ns), so that matmuls start on the first k-steps while the rest load */
    double desc_bytes = e->t->dma_desc_min_ns * e->t->dma_bytes_per_ns;
    p->kg = p->m_one ? cg_max(1, (int64_t)(desc_bytes / (double)((uint64_t)p->mks * p->esM)) + 1)
                     : 1;
}

/* A stationary weight in the ring, read by this op only, its contracted axis on partitions
 * in whole k-steps and no other axes: it is stored in HBM in the order the groups read it,
 * group-major blocks [k mod kt][k / kt][the group's columns], so a partition's share of a
 * group is one contiguous run (instead of one row of glen columns per k-step). */
static int s_blockable(const struct cg_em *e, const struct mm_plan *p)
{
    return p->s_ring && p->vS.rank == 2 && p->vS.pax == p->kS && p->K % p->kt == 0 &&
           p->cb.nax == 0 && p->ckS.nax == 0 && p->cso.nax == 0 &&
           graph_tensor(e->g, p->x->inputs[p->S])->nuses == 1;
}

static int mm_plan(struct cg_em *e, int32_t op, const int8_t *pax, const struct cg_epi *epi,
                   struct mm_plan *p)
{
    memset(p, 0, sizeof *p);
    p->epi = epi;
    p->out_t = epi ? epi->out : graph_op(e->g, op)->output;
    if (mm_plan_axes(e, op, pax, p) || mm_plan_tiles(e, p))
        return e->fail;
    if (epi) {
        cg_view_make(e, epi->bias, 0, &p->vB);
        p->bias_part = p->S == 1;   /* the weight's columns on the output partitions */
        p->fn = epi->n == 3 ? cg_epi_act_fn(epi->act) : SIM_FN_NONE;
    }
    mm_plan_sbuf(e, p);
    p->s_blk = s_blockable(e, p);
    p->ns = cg_storage_order(&p->vS, p->sorder);
    p->nm = cg_storage_order(&p->vM, p->morder);
    p->no = cg_storage_order(&p->vO, p->oorder);
    return e->fail;
}

/* Loop state the emitters share: the boxes being built, the current m-tile and group, and
 * the handles later instructions wait for. */
struct mm_run {
    int64_t sl[R_], sn[R_], ml[R_], mn[R_], ol[R_], on[R_], tl[R_], tn[R_];
    int64_t bi;                  /* batch combo */
    int64_t mi, mlen;            /* m-tile and its columns */
    int64_t tg, tcount;          /* group of chunks and its chunk count */
    int64_t groups;              /* groups emitted so far (every m-tile and combo): the
                                  * parity picks the group's half of the banks */
    int64_t boff;                /* bank (and last_mm) offset of the current m-tile's chunks
                                  * in a group of several m-tiles (lower_m_tiles_k_outer) */
    int64_t nstored;             /* chunks evacuated into output buffers so far: the buffer */
    uint64_t gbase;              /* SBUF address of the current stationary group */
    int64_t *hs;                 /* [kk]: the group's stationary load of k-step kk; [nKK + b]:
                                  * 1 + the last load_stationary reading streamed buffer b */
    int64_t *hm;                 /* [kk * nT + ti]: the resident moving load of (kk, ti) */
    int64_t sgroups, s_reader, s_rd[2];   /* groups loaded, last readers of each group buffer */
    int64_t loads;               /* streamed loads (stationary and moving): buffer parity */
    int64_t bank_reader[64], obuf_reader[2], mbuf_reader[2], last_mm[64];
    int first_s, first_m;        /* the next loads of S / M wait for their writers */
    int64_t *hb;                 /* epilogue: the bias load of m-tile mi (or [0]: the row) */
    int64_t hgrp;                /* m_grp: the current group's moving load */
    int gmb;                     /* m_grp: the current group's moving buffer */
};

static int64_t klen_of(const struct mm_plan *p, int64_t kk)
{
    return cg_min(p->kt, p->K - (kk % p->nK) * p->kt);
}

/* Chunk ti's box in r->tl/tn; returns its elements. */
static int64_t chunk_box(const struct mm_plan *p, struct mm_run *r, int64_t ti)
{
    int64_t te = 1;
    cg_split_box(&p->sp, ti, r->tl, r->tn);
    for (int k = 0; k < p->nmf; k++)
        te *= r->tn[k];
    return te;
}

/* PSUM bank of chunk j of the current group. Consecutive groups alternate between the two
 * halves, across m-tiles too: with one group per m-tile (by the group's index in its m-tile)
 * every m-tile's first matmul waited for the previous m-tile's evacuation. */
static uint32_t chunk_bank(const struct cg_em *e, const struct mm_plan *p,
                           const struct mm_run *r, int64_t j)
{
    return e->s->psum_bank0 + (uint32_t)(((r->groups & 1) * p->G + r->boff + j) % p->nb);
}

/* The box of k-step kk of S in r->sl/sn (its m columns as they are). */
static void stationary_box(const struct mm_plan *p, struct mm_run *r, int64_t kk)
{
    combo_set(&p->ckS, kk / p->nK, r->sl, r->sn);
    r->sl[p->kS] = (kk % p->nK) * p->kt;
    r->sn[p->kS] = klen_of(p, kk);
}

/* The box of k-step kk of M in r->ml/mn: chunk ti, or every chunk when whole. Returns its
 * free elements. */
static int64_t moving_box(const struct mm_plan *p, struct mm_run *r, int64_t kk, int64_t ti,
                          int whole)
{
    int64_t te = 1;
    combo_set(&p->ckM, kk / p->nK, r->ml, r->mn);
    r->ml[p->kM] = (kk % p->nK) * p->kt;
    r->mn[p->kM] = klen_of(p, kk);
    cg_split_box(&p->sp, ti, r->tl, r->tn);
    for (int k = 0; k < p->nmf; k++) {
        r->ml[p->mfree[k]] = whole ? 0 : r->tl[k];
        r->mn[p->mfree[k]] = whole ? p->sp.ext[k] : r->tn[k];
        te *= r->mn[p->mfree[k]];
    }
    return te;
}

/* The first two loads (or reads) of M wait for every writer of it. */
static size_t moving_writers(struct cg_em *e, const struct mm_plan *p, struct mm_run *r,
                             int64_t *deps, size_t nd)
{
    if (r->first_m > 0) {
        cg_writers(e, p->x->inputs[p->M], p->paxM);
        r->first_m--;
    }
    return nd;
}

/* Batch combo bi: every axis at its full extent but the batch axes, single indices. */
static void batch_boxes(const struct mm_plan *p, struct mm_run *r, int64_t bi)
{
    const int *batch[2] = {p->at->lhs_batch, p->at->rhs_batch};
    for (int i = 0; i < p->vS.rank; i++) { r->sl[i] = 0; r->sn[i] = p->vS.dim[i]; }
    for (int i = 0; i < p->vM.rank; i++) { r->ml[i] = 0; r->mn[i] = p->vM.dim[i]; }
    for (int i = 0; i < p->vO.rank; i++) { r->ol[i] = 0; r->on[i] = p->vO.dim[i]; }
    for (int k = p->at->nbatch - 1; k >= 0; k--) {
        int64_t v = bi % p->cb.ext[k];
        bi /= p->cb.ext[k];
        r->sl[batch[p->S][k]] = r->ml[batch[p->M][k]] = v;
        r->sn[batch[p->S][k]] = r->mn[batch[p->M][k]] = 1;
        int oa = p->map[p->S][batch[p->S][k]].out;
        r->ol[oa] = v;
        r->on[oa] = 1;
    }
}

/* Resident moving operand of the batch combo: per k-step, chunks split along the outermost
 * free axis are consecutive in SBUF (one DMA loads them all); a k-tiled weight loads kg
 * k-steps per DMA (long contiguous rows). */
static int load_moving_resident(struct cg_em *e, const struct mm_plan *p, struct mm_run *r)
{
    for (int64_t kk = 0; kk < p->nKK; kk++) {
        if (p->m_one && kk % p->kg) {
            for (int64_t j = 0; j < p->nT; j++)
                r->hm[kk * p->nT + j] = r->hm[(kk - 1) * p->nT];
            continue;
        }
        int64_t kn = cg_min(p->kg, p->nKK - kk);
        for (int64_t ti = 0; ti < p->nT; ti += p->m_whole ? p->nT : 1) {
            int64_t te = moving_box(p, r, kk, ti, p->m_whole);
            uint64_t addr = p->mbase + (uint64_t)(kk * p->mks + ti * p->tmax) * p->esM;
            struct sim_operand src, dst = cg_sb(0, (uint32_t)r->mn[p->kM], addr, p->vM.dt,
                                                (uint64_t)(p->m_one ? kn * te : te));
            if (p->m_one ? cg_box_tiles(&p->vM, kk, kn, r->ml, r->mn, p->morder + 1, p->nm - 1,
                                        &src)
                         : cg_box(&p->vM, r->ml, r->mn, NULL, p->kM, 1, p->morder + 1,
                                  p->nm - 1, &src))
                return cg_fail(e, "op %s: moving access pattern needs > 4 dims", p->x->name);
            int64_t deps[72];
            size_t nd = moving_writers(e, p, r, deps, 0);
            if (r->bi > 0 && r->mbuf_reader[0] >= 0)
                deps[nd++] = r->mbuf_reader[0];
            int cls = p->m_ring ? CG_Q_RING : cg_load_class(e, p->x->inputs[p->M]);
            r->hm[kk * p->nT + ti] = cg_dma(e, cls, &dst, &src, SIM_OP_DMA_COPY, deps, nd);
            for (int64_t j = 1; p->m_whole && j < p->nT; j++)
                r->hm[kk * p->nT + j] = r->hm[kk * p->nT];
        }
    }
    return 0;
}

/* DMAs of a blocked group of glen columns: as many as keep every partition row at least
 * two minimum descriptors long, so that the first matmuls start while the rest loads. */
static int64_t blocked_pieces(const struct cg_em *e, const struct mm_plan *p, int64_t glen)
{
    double desc_bytes = e->t->dma_desc_min_ns * e->t->dma_bytes_per_ns;
    double kstep_bytes = (double)((uint64_t)glen * p->esS);
    int64_t kmin = cg_max(1, (int64_t)(2 * desc_bytes / kstep_bytes) + 1);
    return cg_max(1, p->nKK / kmin);
}

/* A blocked stationary group (s_blk) of glen columns from column c0, each partition's
 * share of a DMA one contiguous run of the group's block in HBM. */
static void load_blocked_group(struct cg_em *e, const struct mm_plan *p, struct mm_run *r,
                               int64_t glen)
{
    int64_t c0 = r->mi * p->mtt, row = p->nKK * glen;   /* elements per partition */
    int64_t np = blocked_pieces(e, p, glen);
    for (int64_t i = 0; i < np; i++) {
        int64_t k0 = i * p->nKK / np, kn = (i + 1) * p->nKK / np - k0;
        uint64_t off = (uint64_t)(p->K * c0 + k0 * glen) * p->esS;
        struct sim_operand src = sim_hbm((uint32_t)p->kt, (int32_t)row, p->vS.base + off,
                                         p->vS.dt, (uint32_t)(kn * glen));
        uint64_t addr = r->gbase + (uint64_t)(k0 * p->mg * p->mtt) * p->esS;
        struct sim_operand dst = cg_sb(0, (uint32_t)p->kt, addr, p->vS.dt, 1);
        int64_t size[2] = {kn, glen}, stride[2] = {p->mg * p->mtt, 1};
        cg_pattern(&dst, 2, size, stride);
        int64_t deps[1];
        size_t nd = 0;
        if (r->s_reader >= 0)
            deps[nd++] = r->s_reader;
        int64_t h = cg_dma(e, CG_Q_RING, &dst, &src, SIM_OP_DMA_COPY, deps, nd);
        for (int64_t kk = k0; kk < k0 + kn; kk++)
            r->hs[kk] = h;
    }
}

/* The buffer of stationary group n (counted from 1): the first in the half of the ring
 * allocation loaded least recently before (gflip), so that its load waits for no recent
 * op's weights; the lower half without a program sink (addresses do not change prices). */
static uint64_t group_base(const struct mm_plan *p, int64_t n)
{
    return p->sbase + (uint64_t)((n + 1 + p->gflip) % p->sbufs) * p->sgrp;
}

/* The stationary group starting at m-tile r->mi: mg m-tiles of every k-step, one DMA per
 * k-step (a few per group when blocked), into the group buffer not read by the previous
 * group. */
static int load_stationary_group(struct cg_em *e, const struct mm_plan *p, struct mm_run *r)
{
    r->gbase = group_base(p, ++r->sgroups);
    r->s_reader = r->s_rd[r->sgroups & 1];
    int64_t glen = cg_min(p->mg * p->mtt, p->Ma - r->mi * p->mtt);
    if (p->s_blk) {
        load_blocked_group(e, p, r, glen);
        r->first_s = 0;
        return 0;
    }
    r->sn[p->a] = glen;
    for (int64_t kk = 0; kk < p->nKK; kk++) {
        stationary_box(p, r, kk);
        uint64_t addr = r->gbase + (uint64_t)kk * p->mg * p->mtt * p->esS;
        struct sim_operand src, dst = cg_sb(0, (uint32_t)r->sn[p->kS], addr, p->vS.dt,
                                            (uint64_t)glen);
        if (cg_box(&p->vS, r->sl, r->sn, NULL, p->kS, 1, p->sorder + 1, p->ns - 1, &src))
            return cg_fail(e, "op %s: stationary pattern needs > 4 dims", p->x->name);
        int64_t deps[72];
        size_t nd = 0;
        if (r->first_s)
            cg_writers(e, p->x->inputs[p->S], p->paxS);
        if (r->s_reader >= 0)
            deps[nd++] = r->s_reader;
        int cls = p->s_ring ? CG_Q_RING : cg_load_class(e, p->x->inputs[p->S]);
        r->hs[kk] = cg_dma(e, cls, &dst, &src, SIM_OP_DMA_COPY, deps, nd);
    }
    r->first_s = 0;
    r->sn[p->a] = r->mlen;
    return 0;
}

/* The load_stationary of k-step kk of the m-tile: from its group, from a tile streamed in
 * here (s_stream), or in place (inS). Returns its handle, -1 on failure. */
static int64_t stationary_step(struct cg_em *e, const struct mm_plan *p, struct mm_run *r,
                               int64_t kk)
{
    uint32_t klen = (uint32_t)klen_of(p, kk);
    uint64_t saddr =
        r->gbase + ((uint64_t)kk * p->mg + (uint64_t)(r->mi % p->mg)) * p->mtt * p->esS;
    int64_t hsl = r->hs[kk];
    if (p->s_stream) {
        int64_t *rd = &r->hs[p->nKK + (r->loads & 1)];
        stationary_box(p, r, kk);
        saddr = p->sbase + (uint64_t)(r->loads & 1) * p->mtt * p->esS;
        struct sim_operand src, dst = cg_sb(0, klen, saddr, p->vS.dt, (uint64_t)r->mlen);
        if (cg_box(&p->vS, r->sl, r->sn, NULL, p->kS, 1, p->sorder + 1, p->ns - 1, &src))
            return cg_fail(e, "op %s: stationary pattern needs > 4 dims", p->x->name), -1;
        int64_t deps[72];
        size_t nd = 0;
        if (r->loads < 2)
            cg_writers(e, p->x->inputs[p->S], p->paxS);
        if (*rd > 0)
            deps[nd++] = *rd - 1;
        hsl = cg_dma(e, cg_load_class(e, p->x->inputs[p->S]), &dst, &src, SIM_OP_DMA_COPY,
                     deps, nd);
        r->loads++;
    }
    struct sim_instr ls = cg_instr(e, LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY, SIM_FN_NONE);
    ls.src = cg_sb(0, klen, saddr, p->vS.dt, (uint64_t)r->mlen);
    int64_t ld[72];
    size_t nl = 0;
    if (hsl >= 0 && !p->inS)   /* an in-place stationary has no load (hs stays unset) */
        ld[nl++] = hsl;
    if (p->inS) {
        stationary_box(p, r, kk);
        if (cg_box(&p->vS, r->sl, r->sn, NULL, p->kS, 1, p->sorder + 1, p->ns - 1, &ls.src))
            return cg_fail(e, "op %s: stationary pattern needs > 4 dims", p->x->name), -1;
        if (r->first_s)   /* the first k-steps wait for its writers; PE runs in order */
            cg_writers(e, p->x->inputs[p->S], p->paxS);
    }
    return cg_emit(e, &ls, ld, nl);
}

/* Elements of M's chunk ti before the split axis' position lo (whole planned axes after
 * the split one). */
static int64_t split_inner(const struct mm_plan *p)
{
    int64_t n = 1;
    for (int k = p->sp.split + 1; k < p->sp.n; k++)
        n *= p->sp.ext[k];
    return n;
}

/* Grouped streaming (m_grp): the group's first chunk loads every chunk of the group for
 * k-step kk in one DMA into buffer mb; each chunk's matmul reads its part of it. */
static int moving_grouped(struct cg_em *e, const struct mm_plan *p, struct mm_run *r,
                          int64_t kk, int64_t ti, int64_t te, int mb, struct sim_operand *mv,
                          int64_t *deps, size_t *nd)
{
    uint32_t klen = (uint32_t)klen_of(p, kk);
    int64_t t0 = r->tg * p->G, sa = p->mfree[p->sp.split];
    int64_t lo[R_], len[R_], lo0;
    cg_split_box(&p->sp, t0, lo, len);
    lo0 = lo[p->sp.split];
    cg_split_box(&p->sp, ti, lo, len);
    uint64_t buf = p->mbase + (uint64_t)mb * p->G * p->tmax * p->esM;
    if (ti == t0) {
        int64_t n = moving_box(p, r, kk, t0, 0);
        cg_split_box(&p->sp, t0 + r->tcount - 1, lo, len);
        r->mn[sa] = lo[p->sp.split] + len[p->sp.split] - lo0;
        n = n / (r->tn[p->sp.split] ? r->tn[p->sp.split] : 1) * r->mn[sa];
        struct sim_operand src, dst = cg_sb(0, klen, buf, p->vM.dt, (uint64_t)n);
        if (cg_box(&p->vM, r->ml, r->mn, NULL, p->kM, 1, p->morder + 1, p->nm - 1, &src))
            return cg_fail(e, "op %s: moving pattern needs > 4 dims", p->x->name);
        int64_t ld[72];
        size_t nl = moving_writers(e, p, r, ld, 0);
        if (r->mbuf_reader[mb] >= 0)
            ld[nl++] = r->mbuf_reader[mb];
        r->hgrp = cg_dma(e, cg_load_class(e, p->x->inputs[p->M]), &dst, &src, SIM_OP_DMA_COPY,
                         ld, nl);
        r->loads++;
        cg_split_box(&p->sp, ti, lo, len);
    }
    uint64_t off = (uint64_t)((lo[p->sp.split] - lo0) * split_inner(p)) * p->esM;
    *mv = cg_sb(0, klen, buf + off, p->vM.dt, (uint64_t)te);
    deps[(*nd)++] = r->hgrp;
    return 0;
}

/* The moving operand of the matmul of (k-step kk, chunk ti of te elements) in *mv, what it
 * waits for appended to deps: in place (inM), resident (m_res), or streamed into buffer mb. */
static int moving_operand(struct cg_em *e, const struct mm_plan *p, struct mm_run *r, int64_t kk,
                          int64_t ti, int64_t te, int mb, struct sim_operand *mv,
                          int64_t *deps, size_t *nd)
{
    uint32_t klen = (uint32_t)klen_of(p, kk);
    if (p->m_res) {
        uint64_t addr = p->mbase + (uint64_t)(kk * p->mks + ti * p->tmax) * p->esM;
        *mv = cg_sb(0, klen, addr, p->vM.dt, (uint64_t)te);
        deps[(*nd)++] = r->hm[kk * p->nT + ti];
        return 0;
    }
    struct sim_operand src;
    if (p->m_grp)
        return moving_grouped(e, p, r, kk, ti, te, mb, mv, deps, nd);
    moving_box(p, r, kk, ti, 0);
    if (cg_box(&p->vM, r->ml, r->mn, NULL, p->kM, 1, p->morder + 1, p->nm - 1,
               p->inM ? mv : &src))
        return cg_fail(e, "op %s: moving pattern needs > 4 dims", p->x->name);
    if (p->inM) {
        *nd = moving_writers(e, p, r, deps, *nd);
        return 0;
    }
    *mv = cg_sb(0, klen, p->mbase + (uint64_t)mb * p->tmax * p->esM, p->vM.dt, (uint64_t)te);
    int64_t ld[72];
    size_t nl = moving_writers(e, p, r, ld, 0);
    if (r->mbuf_reader[mb] >= 0)
        ld[nl++] = r->mbuf_reader[mb];
    deps[(*nd)++] = cg_dma(e, cg_load_class(e, p->x->inputs[p->M]), mv, &src, SIM_OP_DMA_COPY,
                           ld, nl);
    r->loads++;
    return 0;
}

/* The matmul of k-step kk (load_stationary hls) and chunk j of the group into its bank. */
static int emit_matmul(struct cg_em *e, const struct mm_plan *p, struct mm_run *r, int64_t kk,
                       int64_t j, int64_t hls)
{
    int64_t ti = r->tg * p->G + j, te = chunk_box(p, r, ti);
    int64_t deps[72];
    size_t nd = 0;
    deps[nd++] = hls;
    struct sim_operand mv;
    int mb = (int)(r->loads & 1);
    if (p->m_grp && j > 0)
        mb = r->gmb;   /* the buffer the group's first chunk loaded */
    else if (p->m_grp)
        r->gmb = mb;
    if (moving_operand(e, p, r, kk, ti, te, mb, &mv, deps, &nd))
        return e->fail;
    uint32_t bank = chunk_bank(e, p, r, j);
    if (kk == 0 && r->bank_reader[bank % 64] >= 0)
        deps[nd++] = r->bank_reader[bank % 64];
    struct sim_instr mm = cg_instr(e, LS_ENGINE_PE, SIM_OP_MATMUL, SIM_FN_NONE);
    mm.flags = kk > 0 ? SIM_F_ACCUMULATE : 0;
    mm.src = mv;
    mm.dst = sim_psum(0, (uint32_t)r->mlen, (uint64_t)bank * e->t->psum_bank_bytes, LS_DT_FP32,
                      (uint32_t)te);
    int64_t hmm = r->last_mm[r->boff + j] = cg_emit(e, &mm, deps, nd);
    if (hmm < 0)
        return e->fail;
    r->mbuf_reader[p->m_res ? 0 : mb] = hmm;
    return 0;
}

/* Chunk j of the group: ACT evacuates its bank into the output (in place when resident,
 * else into an output buffer stored by one DMA). */
static int evacuate_chunk(struct cg_em *e, const struct mm_plan *p, struct mm_run *r, int64_t j)
{
    int64_t ti = r->tg * p->G + j, te = chunk_box(p, r, ti);
    for (int k = 0; k < p->nmf; k++) {
        int oa = p->map[p->M][p->mfree[k]].out;
        r->ol[oa] = r->tl[k];
        r->on[oa] = r->tn[k];
    }
    uint32_t bank = chunk_bank(e, p, r, j);
    /* output buffers alternate over every chunk of the op, across m-tiles too: with one
     * chunk per m-tile (whisper-enc's k and v, [1500, 512] stored to HBM), by the chunk's
     * index in its m-tile each evacuation waited for the previous m-tile's store */
    int ob = (int)(r->nstored & 1);
    struct sim_operand o = cg_sb(0, (uint32_t)r->mlen, p->obase[ob], p->vO.dt, (uint64_t)te);
    if (p->inO && cg_box(&p->vO, r->ol, r->on, NULL, p->po, 1, p->oorder + 1, p->no - 1, &o))
        return cg_fail(e, "op %s: output pattern needs > 4 dims", p->x->name);
    int dve_add = p->epi && !p->bias_part;   /* the bias along the free axis */
    struct sim_instr ev = dve_add ? cg_instr(e, LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR, SIM_FN_ADD)
                                  : cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, p->fn);
    ev.dst = o;
    ev.src = sim_psum(0, (uint32_t)r->mlen, (uint64_t)bank * e->t->psum_bank_bytes, LS_DT_FP32,
                      (uint32_t)te);
    int64_t deps[3] = {r->last_mm[r->boff + j]};
    size_t nd = 1;
    if (r->obuf_reader[ob] >= 0 && !p->inO)
        deps[nd++] = r->obuf_reader[ob];
    if (p->epi)
        deps[nd++] = r->hb[p->bias_part ? r->mi : 0];
    if (dve_add)
        ev.src2 = cg_sb(0, (uint32_t)r->mlen,
                        p->bbase + (uint64_t)r->tl[0] * ls_dtype_size(p->vB.dt), p->vB.dt,
                        (uint64_t)te);
    int64_t hev = cg_emit(e, &ev, deps, nd);
    r->bank_reader[bank % 64] = hev;
    if (dve_add && p->fn != SIM_FN_NONE && hev >= 0) {   /* the activation, in place */
        struct sim_instr ac = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, p->fn);
        ac.dst = ac.src = o;
        hev = cg_emit(e, &ac, &hev, 1);
    }
    if (p->inO) {
        if (hev < 0)
            return e->fail;
        cg_wrote(e, p->out_t, p->po, hev);
        return 0;
    }
    r->nstored++;
    struct sim_operand dst;
    if (cg_box(&p->vO, r->ol, r->on, NULL, p->po, 1, p->oorder + 1, p->no - 1, &dst))
        return cg_fail(e, "op %s: output pattern needs > 4 dims", p->x->name);
    int64_t hst = cg_dma(e, CG_Q_STORE, &dst, &o, SIM_OP_DMA_COPY, &hev, 1);
    if (hst < 0)
        return e->fail;
    cg_wrote(e, p->out_t, p->po, hst);
    r->obuf_reader[ob] = hst;
    return 0;
}

static int evacuate(struct cg_em *e, const struct mm_plan *p, struct mm_run *r)
{
    for (int64_t j = 0; j < r->tcount; j++)
        if (evacuate_chunk(e, p, r, j))
            return e->fail;
    return 0;
}

/* m-tile q of the batch combo (S's other free axes' combo q / nM, its m-tile q % nM): its
 * indices and columns in the boxes of S and of the output. */
static void set_m_tile(const struct mm_plan *p, struct mm_run *r, int64_t q)
{
    int64_t mi = q % p->nM, m0 = mi * p->mtt;
    combo_set(&p->cso, q / p->nM, r->sl, r->sn);
    for (int k = 0; k < p->cso.nax; k++) {
        int oa = p->map[p->S][p->cso.ax[k]].out;
        r->ol[oa] = r->sl[p->cso.ax[k]];
        r->on[oa] = 1;
    }
    r->mi = mi;
    r->mlen = cg_min(p->mtt, p->Ma - m0);
    r->sl[p->a] = r->ol[p->po] = m0;
    r->sn[p->a] = r->on[p->po] = r->mlen;
    r->gbase = group_base(p, r->sgroups);
}

/* The load_stationary of k-step kk of the current m-tile and its matmuls of every chunk
 * of the group. */
static int emit_k_step(struct cg_em *e, const struct mm_plan *p, struct mm_run *r, int64_t kk)
{
    int64_t hls = stationary_step(e, p, r, kk);
    if (hls < 0)
        return e->fail;
    for (int64_t j = 0; j < r->tcount; j++)
        if (emit_matmul(e, p, r, kk, j, hls))
            return e->fail;
    if (p->s_stream)
        r->hs[p->nKK + ((r->loads - 1) & 1)] = hls + 1;
    r->s_reader = r->s_rd[r->sgroups & 1] = hls;
    return 0;
}

/* m-tile q of the batch combo: its stationary group when one starts here, then per group
 * of chunks the matmuls and the evacuations. */
static int lower_m_tile(struct cg_em *e, const struct mm_plan *p, struct mm_run *r, int64_t q)
{
    set_m_tile(p, r, q);
    if (!p->s_stream && !p->inS && r->mi % p->mg == 0 && load_stationary_group(e, p, r))
        return e->fail;
    for (r->tg = 0; r->tg * p->G < p->nT; r->tg++) {
        r->tcount = cg_min(p->G, p->nT - r->tg * p->G);
        for (int64_t kk = 0; kk < p->nKK; kk++)
            if (emit_k_step(e, p, r, kk))
                return e->fail;
        if (evacuate(e, p, r))
            return e->fail;
        r->groups++;
    }
    return 0;
}

/* M-tiles a group of several from q may take (1: lower_m_tile): when the moving operand is
 * loaded whole (a weight k-step by k-step into the ring, or an activation into the step
 * region) and an m-tile's chunks fill at most half a group, as many m-tiles as the group's
 * banks (half the step's) hold; of one combo and stationary group when S is loaded in
 * groups. */
static int64_t k_outer_span(const struct mm_plan *p, int64_t q, int64_t nq)
{
    if (!p->m_res || p->nT > p->G / 2)
        return 1;
    int64_t n = cg_min(p->G / p->nT, nq - q), mi = q % p->nM;
    if (!p->s_stream && !p->inS)
        n = cg_min(n, cg_min(p->mg - mi % p->mg, p->nM - mi));
    return n;
}

/* m-tiles q0..q0+n-1 as one group, k-step outer: each k-step's matmuls of every m-tile,
 * then (after the last k-step of each m-tile) its evacuation. The first m-tile no longer
 * waits for every k-step of a moving operand still loading: the matmuls follow its DMAs
 * over n m-tiles' work. Same instructions as n lower_m_tile calls, in another order. */
static int lower_m_tiles_k_outer(struct cg_em *e, const struct mm_plan *p, struct mm_run *r,
                                 int64_t q0, int64_t n)
{
    set_m_tile(p, r, q0);
    if (!p->s_stream && !p->inS && r->mi % p->mg == 0 && load_stationary_group(e, p, r))
        return e->fail;
    r->tg = 0;
    r->tcount = p->nT;
    for (int64_t kk = 0; kk < p->nKK; kk++)
        for (int64_t m = 0; m < n; m++) {
            set_m_tile(p, r, q0 + m);
            r->boff = m * p->nT;
            if (emit_k_step(e, p, r, kk) || (kk == p->nKK - 1 && evacuate(e, p, r)))
                return e->fail;
        }
    r->boff = 0;
    r->groups++;
    return 0;
}

/* A bias column per m-tile, read by this chain only, over more than one whole m-tile: it
 * is stored in HBM m-tile-major at compile time, [p][mi] = bias[mi x mt + p] for the whole
 * m-tiles (then the rest in order), so that one DMA of one short row per partition loads
 * every whole m-tile's column instead of one DMA of one element per partition each. */
static int bias_tiled(const struct cg_em *e, const struct mm_plan *p)
{
    return graph_tensor(e->g, p->epi->bias)->nuses == 1 && p->Ma / p->mtt > 1;
}

/* Epilogue: the bias into SBUF (a weight: no producer to wait for), a column of each
 * m-tile's elements when it runs along the output partitions, else the whole row
 * replicated on the m-tile's partitions by one DMA of partition stride 0. */
static int load_bias(struct cg_em *e, const struct mm_plan *p, struct mm_run *r)
{
    size_t esb = ls_dtype_size(p->vB.dt);
    int64_t n = p->bias_part ? p->nM : 1, mi0 = 0;
    if (p->bias_part && bias_tiled(e, p)) {   /* the whole m-tiles in one DMA */
        mi0 = p->Ma / p->mtt;
        struct sim_operand src = sim_hbm((uint32_t)p->mtt, (int32_t)mi0, p->vB.base, p->vB.dt,
                                         (uint32_t)mi0);
        struct sim_operand dst = cg_sb(0, (uint32_t)p->mtt, p->bbase, p->vB.dt, (uint64_t)mi0);
        int64_t h = cg_dma(e, CG_Q_CONST, &dst, &src, SIM_OP_DMA_COPY, NULL, 0);
        if (h < 0)
            return e->fail;
        for (int64_t mi = 0; mi < mi0; mi++)
            r->hb[mi] = h;
    }
    for (int64_t mi = mi0; mi < n; mi++) {
        int64_t m0 = p->bias_part ? mi * p->mtt : 0;
        uint32_t rows = (uint32_t)cg_min(p->mtt, p->Ma - m0);
        uint32_t len = p->bias_part ? 1 : (uint32_t)p->vB.dim[0];
        struct sim_operand src = sim_hbm(rows, p->bias_part ? 1 : 0,
                                         p->vB.base + (uint64_t)m0 * esb, p->vB.dt, len);
        struct sim_operand dst = cg_sb(0, rows, p->bbase + (uint64_t)mi * esb, p->vB.dt, len);
        r->hb[mi] = cg_dma(e, CG_Q_CONST, &dst, &src, SIM_OP_DMA_COPY, NULL, 0);
        if (r->hb[mi] < 0)
            return e->fail;
    }
    return 0;
}

static int lower_mm(struct cg_em *e, int32_t op, const int8_t *pax, const struct cg_epi *epi)
{
    struct mm_plan p;
    int rc = mm_plan(e, op, pax, epi, &p);
    if (rc)
        return rc;
    struct mm_run run = {0}, *r = &run;
    int64_t *hs = calloc((size_t)p.nKK + 2, sizeof *hs);
    int64_t *hm = calloc((size_t)(p.m_res ? p.nKK * p.nT : 2) + 2, sizeof *hm);
    int64_t *hb = calloc((size_t)p.nM + 1, sizeof *hb);
    if (!hs || !hm || !hb) {
        free(hs);
        free(hm);
        free(hb);
        return cg_fail_nomem(e);
    }
    r->hs = hs;
    r->hm = hm;
    r->hb = hb;
    if (epi)
        rc = load_bias(e, &p, r);
    r->s_reader = r->s_rd[0] = r->s_rd[1] = -1;
    r->obuf_reader[0] = r->obuf_reader[1] = r->mbuf_reader[0] = r->mbuf_reader[1] = -1;
    for (int i = 0; i < 64; i++)
        r->bank_reader[i] = -1;
    r->first_s = 1;
    r->first_m = 2;
    for (r->bi = 0; r->bi < combos(&p.cb) && !rc; r->bi++) {
        batch_boxes(&p, r, r->bi);
        if (p.m_res)
            rc = load_moving_resident(e, &p, r);
        int64_t nq = combos(&p.cso) * p.nM;   /* m-tiles of every combo of S's other axes */
        for (int64_t q = 0, n; q < nq && !rc; q += n) {
            n = k_outer_span(&p, q, nq);
            rc = n > 1 ? lower_m_tiles_k_outer(e, &p, r, q, n) : lower_m_tile(e, &p, r, q);
        }
    }
    free(hs);
    free(hm);
    free(hb);
    return rc ? rc : e->fail;
}

int cg_lower_matmul(struct cg_em *e, int32_t op, const int8_t *pax)
{
    return lower_mm(e, op, pax, NULL);
}

int cg_lower_epi(struct cg_em *e, const struct cg_epi *c, int po)
{
    int8_t pax[3];
    cg_epi_mm_pax(e->g, c, po, pax);
    return lower_mm(e, c->op[0], pax, c);
}
