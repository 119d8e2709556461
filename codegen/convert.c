/* codegen/convert: layout conversions of a tensor from partition axis a to b (docs/costmodel.md,
 * "Conversions"). */
#include <stdlib.h>

#include "codegen/cg_int.h"
#include "codegen/memplan.h"
#include "sim/sim.h"

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

/* ---- tiling ----------------------------------------------------------------------------
 * A conversion tile ("super-tile") is an a-range AL (ka blocks of <= at rows), a b-range BL
 * (kb blocks of <= bt) and a box of the other axes (the planner's, largest that fits).
 * Each a-block is loaded in one DMA whose rows hold the box and the whole b-range in source
 * storage order (long runs), into a ring of two load buffers; every PE/DVE transpose of the
 * loaded block writes its [b-block x a-block] result into the b-block's output buffer, which
 * gathers the whole a-range; once the tile's last a-block is transposed, one store per b-block
 * writes rows holding the box and the whole a-range in destination storage order. Output
 * buffers are double-buffered across tiles (or one set, when its longer runs pay clearly).
 * (AL, BL) is chosen by the estimated DMA time of the tiles (descriptor-bound runs are what
 * make conversions slow), a function of the tensor, the two layouts and the target only. */

#define CV_MAXK 16        /* at most this many blocks per side of a tile */
#define CV_MAXG 8         /* transposes evacuated together from one PSUM bank */

struct cvc {
    struct cg_view va, vb;
    int a, b;
    enum cg_conv_method m;
    int64_t A, B, at, bt, AL, BL;
    size_t es;
    uint64_t budget;
    int in_res, out_res;
    int nob;                        /* output buffer sets: 2 (double-buffered) or 1 */
    int fa[R_], fb[R_], nfa, nfb;   /* free axes in source / destination storage order */
    int rax[R_];                    /* the other axes (planner order) */
    const struct sim_target *tg;
};

static uint64_t r64(uint64_t x)
{
    return (x + 63) & ~(uint64_t)63;
}

static int uses_load(const struct cvc *c)
{
    return (c->m == CG_CONV_PE || c->m == CG_CONV_DVE) && !c->in_res;
}

static int uses_out(const struct cvc *c)
{
    return c->m != CG_CONV_DMA_STRIDED && !c->out_res;
}

/* Output buffer of one b-block: rc x AL elements, rounded to 64 bytes. */
static uint64_t out_blk_bytes(const struct cvc *c, int64_t rc)
{
    return r64((uint64_t)rc * (uint64_t)c->AL * c->es);
}

static uint64_t footprint(const struct cvc *c, int64_t rc)
{
    uint64_t f = r64(32 * 4);   /* DVE staging block */
    if (uses_load(c))
        f += 2 * r64((uint64_t)rc * (uint64_t)c->BL * c->es);
    if (uses_out(c))
        f += (uint64_t)c->nob * r64((uint64_t)cg_cdiv(c->BL, c->bt) * out_blk_bytes(c, rc));
    return f;
}

static int cv_fits(void *ctx, const struct cg_split *sp)
{
    const struct cvc *c = ctx;
    int64_t rc = cg_split_tile_elems(sp);
    return footprint(c, rc) <= c->budget;
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

/* Table-style price of one DMA (ns): rows over the engines, descriptors per row from the
 * contiguous runs of both sides. The fixed latency counts a tenth: transfers on different
 * queues overlap it, descriptors do not. */
static double dma_ns(const struct cvc *c, int64_t rows, int64_t per_row, int64_t run, double bw)
{
    const struct sim_target *t = c->tg;
    if (run < 1)
        run = 1;
    if (run > per_row)
        run = per_row;
    double chunk = (double)run * (double)c->es / bw;
    if (chunk < t->dma_desc_min_ns)
        chunk = t->dma_desc_min_ns;
    uint32_t E = t->dma_engines ? t->dma_engines : 1;
    return 0.1 * t->dma_transfer_latency_ns +
           (double)cg_cdiv(rows, E) * (double)cg_cdiv(per_row, run) * chunk;
}

/* Box of one tile: a-range [a0, a0 + al), b-range [b0, b0 + bl), the other axes from the
 * planner's box (rlo/rlen). */
static void tile_box(const struct cvc *c, const struct cg_split *sp, const int64_t *rlo,
                     const int64_t *rlen, int64_t a0, int64_t al, int64_t b0, int64_t bl,
                     int64_t *lo, int64_t *len)
{
    for (int i = 0; i < c->va.rank; i++) {
        lo[i] = 0;
        len[i] = c->va.dim[i];
    }
    for (int k = 0; k < sp->n; k++) {
        lo[c->rax[k]] = rlo[k];
        len[c->rax[k]] = rlen[k];
    }
    lo[c->a] = a0;
    len[c->a] = al;
    lo[c->b] = b0;
    len[c->b] = bl;
}

/* Estimated DMA price of one tile of ALa x BLa (first box of the plan); < 0 when a pattern
 * cannot be expressed. */
static double est_tile(const struct cvc *c, const struct cg_split *sp, int64_t ALa, int64_t BLa)
{
    int64_t rlo[R_], rlen[R_], lo[R_], len[R_];
    cg_split_box(sp, 0, rlo, rlen);
    int64_t rc = cg_split_tile_elems(sp);
    double ns = 0;
    const struct sim_target *t = c->tg;
    if (uses_load(c)) {
        tile_box(c, sp, rlo, rlen, 0, cg_min(c->at, ALa), 0, BLa, lo, len);
        struct sim_operand o;
        if (cg_box(&c->va, lo, len, NULL, c->a, 1, c->fa, c->nfa, &o))
            return -1;
        int64_t run = (int64_t)sim_operand_run(&o);
        for (int64_t i = 0; i < ALa; i += c->at)
            ns += dma_ns(c, cg_min(c->at, ALa - i), rc * BLa, run, t->dma_bytes_per_ns);
    }
    if (c->m == CG_CONV_DMA_T) {
        double bw = t->dma_bytes_per_ns * (c->in_res ? t->dma_transpose_sbuf_eff
                                                      : t->dma_transpose_hbm_eff);
        for (int64_t i = 0; i < ALa; i += c->at)
            for (int64_t j = 0; j < BLa; j += c->bt)
                ns += (double)rc * dma_ns(c, cg_min(c->at, ALa - i), cg_min(c->bt, BLa - j),
                                          cg_min(c->bt, BLa - j), bw);
    }
    if (uses_out(c)) {
        tile_box(c, sp, rlo, rlen, 0, ALa, 0, cg_min(c->bt, BLa), lo, len);
        struct sim_operand o;
        if (cg_box(&c->vb, lo, len, NULL, c->b, 1, c->fb, c->nfb, &o))
            return -1;
        int64_t run = (int64_t)sim_operand_run(&o);
        for (int64_t j = 0; j < BLa; j += c->bt)
            ns += dma_ns(c, cg_min(c->bt, BLa - j), rc * ALa, run, t->dma_bytes_per_ns);
    }
    return ns;
}

/* Plan the box of the other axes for the current (AL, BL); 0 when it fits. */
static int plan_box(struct cvc *c, struct cg_split *sp)
{
    memset(sp, 0, sizeof *sp);
    int order[R_];
    int n = cg_storage_order(&c->va, order);
    for (int k = 0; k < n; k++)
        if (order[k] != c->a && order[k] != c->b) {
            c->rax[sp->n] = order[k];
            sp->ext[sp->n++] = c->va.dim[order[k]];
        }
    return cg_plan(sp, cv_fits, c);
}

/* Price of the whole conversion with tiles of (AL, BL) (< 0: not expressible). */
static double est_all(struct cvc *c, struct cg_split *sp)
{
    if (plan_box(c, sp))
        return -1;
    int64_t nA = c->A / c->AL, nB = c->B / c->BL;
    int64_t eA = c->A % c->AL, eB = c->B % c->BL;
    double tot = 0, x;
    if ((x = est_tile(c, sp, c->AL, c->BL)) < 0)
        return -1;
    tot += x * (double)(nA * nB);
    if (eA) {
        if ((x = est_tile(c, sp, eA, c->BL)) < 0)
            return -1;
        tot += x * (double)nB;
    }
    if (eB) {
        if ((x = est_tile(c, sp, c->AL, eB)) < 0)
            return -1;
        tot += x * (double)nA;
    }
    if (eA && eB) {
        if ((x = est_tile(c, sp, eA, eB)) < 0)
            return -1;
        tot += x;
    }
    return tot * (double)cg_split_tiles(sp);
}

/* Pick (AL, BL) and the box: the cheapest estimated DMA price; ties to smaller tiles. */
static int choose_tiles(struct cvc *c, struct cg_split *sp)
{
    int64_t ka_max = cg_min(CV_MAXK, cg_cdiv(c->A, c->at));
    int64_t kb_max = cg_min(CV_MAXK, cg_cdiv(c->B, c->bt));
    /* the b-range only lengthens loads (PE/DVE from HBM) */
    if (!uses_load(c))
        kb_max = 1;
    /* the a-range only lengthens stores */
    if (!uses_out(c))
        ka_max = 1;
    double best = -1;
    int64_t bal = 0, bbl = 0;
    int bnob = 2;
    /* double-buffered output first; a single set only when its longer runs pay clearly
     * (the next tile's transposes then wait for this tile's stores) */
    for (int nob = 2; nob >= 1; nob--) {
        if (nob == 1 && !uses_out(c))
            break;
        c->nob = nob;
        double gain = nob == 2 ? 1 - 1e-9 : 0.9;
        for (int64_t ka = 1; ka <= ka_max; ka++)
            for (int64_t kb = 1; kb <= kb_max; kb++) {
                c->AL = cg_min(ka * c->at, c->A);
                c->BL = cg_min(kb * c->bt, c->B);
                double x = est_all(c, sp);
                if (x >= 0 && (best < 0 || x < best * gain)) {
                    best = x;
                    bal = c->AL;
                    bbl = c->BL;
                    bnob = nob;
                }
            }
    }
    c->nob = bnob;
    if (best < 0) {
        c->AL = c->at;
        c->BL = c->bt;
        return plan_box(c, sp) ? -1 : 0;
    }
    c->AL = bal;
    c->BL = bbl;
    return plan_box(c, sp);
}

/* ---- dma_strided: element-granular HBM -> HBM copies ----------------------------------
 * No SBUF is involved, so the rows of a transfer (what spreads it over the DMA engines) may
 * be any axis X: tiles are blocks of <= 128 indices of X times a box of the other axes in
 * destination storage order; X is the axis whose tiles have the cheapest estimated DMA time
 * (a small destination partition axis would leave most engines idle). */

struct svc {
    const struct cvc *c;
    int x;                       /* row axis */
    int fo[R_], nfo;             /* free axes: destination storage order without x */
};

static int sv_fits(void *ctx, const struct cg_split *sp)
{
    (void)ctx;
    return cg_split_tile_elems(sp) <= (1 << 16);
}

static void sv_plan(const struct svc *v, struct cg_split *sp)
{
    memset(sp, 0, sizeof *sp);
    for (int k = 0; k < v->nfo; k++)
        sp->ext[sp->n++] = v->c->va.dim[v->fo[k]];
    cg_plan(sp, sv_fits, NULL);   /* a single element always fits */
}

/* Box of tile (row block x0, box index ri). */
static void sv_box(const struct svc *v, const struct cg_split *sp, int64_t x0, int64_t ri,
                   int64_t *lo, int64_t *len)
{
    int64_t rlo[R_], rlen[R_];
    cg_split_box(sp, ri, rlo, rlen);
    for (int i = 0; i < v->c->va.rank; i++) {
        lo[i] = 0;
        len[i] = v->c->va.dim[i];
    }
    for (int k = 0; k < v->nfo; k++) {
        lo[v->fo[k]] = rlo[k];
        len[v->fo[k]] = rlen[k];
    }
    lo[v->x] = x0;
    len[v->x] = cg_min(128, v->c->va.dim[v->x] - x0);
}

/* Estimated DMA time of the whole conversion with row axis v->x; < 0 when a pattern cannot
 * be expressed. */
static double sv_est(const struct svc *v, const struct cg_split *sp)
{
    const struct cvc *c = v->c;
    const struct sim_target *t = c->tg;
    int64_t lo[R_], len[R_];
    sv_box(v, sp, 0, 0, lo, len);
    struct sim_operand s, d;
    if (cg_box(&c->va, lo, len, NULL, v->x, 1, v->fo, v->nfo, &s) ||
        cg_box(&c->vb, lo, len, NULL, v->x, 1, v->fo, v->nfo, &d))
        return -1;
    uint64_t e = sim_operand_free(&s), a = sim_operand_run(&s), b = sim_operand_run(&d);
    a = a > e ? e : a;
    b = b > e ? e : b;
    uint64_t chunks = sim_dma_chunks(e, a, b);
    double dsc = (double)e * (double)c->es / (double)chunks / t->dma_bytes_per_ns;
    if (dsc < t->dma_desc_min_ns)
        dsc = t->dma_desc_min_ns;
    uint32_t E = t->dma_engines ? t->dma_engines : 1;
    int64_t X = c->va.dim[v->x];
    double tot = 0;
    for (int64_t x0 = 0; x0 < X; x0 += 128)
        tot += 0.1 * t->dma_transfer_latency_ns +
               (double)cg_cdiv(cg_min(128, X - x0), E) * (double)chunks * dsc;
    return tot * (double)cg_split_tiles(sp);
}

static int lower_strided(struct cg_em *e, struct cvc *c, int32_t t)
{
    int order_b[R_];
    int nb = cg_storage_order(&c->vb, order_b);
    struct svc best = {c, -1, {0}, 0}, v = {c, -1, {0}, 0};
    double bx = -1;
    for (int x = 0; x < c->va.rank; x++) {
        if (c->va.dim[x] == 1)
            continue;
        v.x = x;
        v.nfo = 0;
        for (int k = 0; k < nb; k++)
            if (order_b[k] != x)
                v.fo[v.nfo++] = order_b[k];
        struct cg_split sp;
        sv_plan(&v, &sp);
        double est = sv_est(&v, &sp);
        /* ties to the destination partition axis */
        if (est >= 0 && (bx < 0 || est < bx * (1 - 1e-9) ||
                         (x == c->b && est <= bx * (1 + 1e-9)))) {
            bx = est;
            best = v;
        }
    }
    if (bx < 0)
        return cg_fail(e, "conversion pattern needs more than 4 dims");
    struct cg_split sp;
    sv_plan(&best, &sp);
    int64_t X = c->va.dim[best.x], nr = cg_split_tiles(&sp);
    for (int64_t x0 = 0; x0 < X; x0 += 128)
        for (int64_t ri = 0; ri < nr; ri++) {
            int64_t lo[R_], len[R_];
            sv_box(&best, &sp, x0, ri, lo, len);
            struct sim_operand src, dst;
            if (cg_box(&c->va, lo, len, NULL, best.x, 1, best.fo, best.nfo, &src) ||
                cg_box(&c->vb, lo, len, NULL, best.x, 1, best.fo, best.nfo, &dst))
                return cg_fail(e, "conversion pattern needs more than 4 dims");
            if (x0 == 0 && ri < 2)   /* the first DMA on each of the two load queues */
                cg_writers(e, t, c->a);
            int64_t h = cg_dma(e, 0, &dst, &src, SIM_OP_DMA_COPY, NULL, 0);
            if (h < 0)
                return e->fail;
            cg_wrote(e, t, c->b, h);
        }
    return e->fail;
}


/* One run of a tiled conversion (PE, DVE or DMA transposes): its buffers, the last reader
 * or writer of each, and the current tile, a-block and row. */
struct cvr {
    struct cg_em *e;
    struct cvc *c;
    int32_t t;
    struct cg_split sp;
    int64_t nr, OBe;
    uint64_t OB, ib[2], ob[2], stage;
    uint32_t nbank;
    int64_t in_reader[2], bank_reader[SIM_PSUM_BANKS_MAX], out_reader[2][CV_MAXK], last_w[CV_MAXK];
    int64_t tile, nload, ntr, nfirst;
    int64_t chain;                      /* DVE / DMA transposes: one serial chain (the DVE
                                           staging block is shared by all tiles) */
    /* the tile: a-range A0.., b-range B0.., box rows */
    int par;
    int64_t A0, B0, ALa, BLa, nab, nbb, rc;
    int64_t lo[R_], len[R_], cin[R_], cout[R_];
    uint64_t obase[CV_MAXK];            /* where each b-block's transposed data goes */
    uint32_t opart[CV_MAXK];
    /* the a-block: rows a0.., its load (pre) or its place in the resident input */
    int slot;
    int64_t a0, al, l1[R_], n1[R_], pre[4], last_read;
    size_t npre;
    uint64_t ibase;
    uint32_t ipart;
    /* the row of the box: offsets in the input and output buffers */
    int64_t rl2[R_], ioff, oa;
};

static int cv_pattern_fail(struct cvr *r)
{
    return cg_fail(r->e, "conversion pattern needs more than 4 dims");
}

/* The tile's box and SBUF strides (load buffers hold [a-block rows][box and b-range in
 * source order], output buffers [b-block rows][box and a-range in destination order]), and
 * where each b-block's transposed data goes. */
static int cvr_tile(struct cvr *r, int64_t ri)
{
    struct cvc *c = r->c;
    int64_t rlo[R_], rlen[R_];
    r->par = (int)(r->tile & 1) & (c->nob - 1);
    r->ALa = cg_min(c->AL, c->A - r->A0);
    r->BLa = cg_min(c->BL, c->B - r->B0);
    r->nab = cg_cdiv(r->ALa, c->at);
    r->nbb = cg_cdiv(r->BLa, c->bt);
    cg_split_box(&r->sp, ri, rlo, rlen);
    r->rc = 1;
    for (int k = 0; k < r->sp.n; k++)
        r->rc *= rlen[k];
    tile_box(c, &r->sp, rlo, rlen, r->A0, r->ALa, r->B0, r->BLa, r->lo, r->len);
    compact(c->fa, c->nfa, r->len, r->cin);
    compact(c->fb, c->nfb, r->len, r->cout);
    if (c->in_res)
        memcpy(r->cin, c->va.stride, sizeof r->cin);
    if (c->out_res)
        memcpy(r->cout, c->vb.stride, sizeof r->cout);
    for (int64_t j = 0; j < r->nbb; j++) {
        r->last_w[j] = -1;
        r->obase[j] = r->ob[r->par] + (uint64_t)j * r->OB;
        r->opart[j] = 0;
        if (!c->out_res)
            continue;
        int64_t l2[R_], n2[R_];
        memcpy(l2, r->lo, sizeof l2);
        memcpy(n2, r->len, sizeof n2);
        l2[c->b] = r->B0 + j * c->bt;
        n2[c->b] = cg_min(c->bt, r->BLa - j * c->bt);
        struct sim_operand rd;
        if (cg_box(&c->vb, l2, n2, NULL, c->b, 1, c->fb, c->nfb, &rd))
            return cv_pattern_fail(r);
        r->obase[j] = rd.addr;
        r->opart[j] = rd.part_start;
    }
    return 0;
}

/* A-block i of the tile: loaded into the next load buffer (PE, DVE), or read in place. */
static int cvr_ablock(struct cvr *r, int64_t i)
{
    struct cvc *c = r->c;
    struct cg_em *e = r->e;
    r->a0 = r->A0 + i * c->at;
    r->al = cg_min(c->at, c->A - r->a0);
    memcpy(r->l1, r->lo, sizeof r->l1);
    memcpy(r->n1, r->len, sizeof r->n1);
    r->l1[c->a] = r->a0;
    r->n1[c->a] = r->al;
    r->ibase = 0;
    r->ipart = 0;
    r->npre = 0;
    r->last_read = -1;
    r->slot = (int)(r->nload & 1);
    if (uses_load(c)) {
        struct sim_operand src;
        if (cg_box(&c->va, r->l1, r->n1, NULL, c->a, 1, c->fa, c->nfa, &src))
            return cv_pattern_fail(r);
        struct sim_operand itile = cg_sb(0, (uint32_t)r->al, r->ib[r->slot], c->va.dt,
                                         (uint64_t)(r->BLa * r->rc));
        if (r->nload < 2)   /* the first load on each of the two queues */
            cg_writers(e, r->t, c->a);
        int64_t *rd = &r->in_reader[r->slot];
        int64_t hl = cg_dma(e, 0, &itile, &src, SIM_OP_DMA_COPY, rd, *rd >= 0 ? 1 : 0);
        if (hl < 0)
            return e->fail;
        r->nload++;
        r->ibase = r->ib[r->slot];
        r->pre[r->npre++] = hl;
    } else {
        if (c->in_res) {
            struct sim_operand rs;
            if (cg_box(&c->va, r->l1, r->n1, NULL, c->a, 1, c->fa, c->nfa, &rs))
                return cv_pattern_fail(r);
            r->ibase = rs.addr;
            r->ipart = rs.part_start;
        }
        if (r->nfirst < 2)  /* in place: the first transposes wait */
            cg_writers(e, r->t, c->a);
    }
    r->nfirst++;
    return 0;
}

/* DMA transposes of the row, one per b-block, on the serial chain. */
static int cvr_row_dma(struct cvr *r)
{
    struct cvc *c = r->c;
    struct cg_em *e = r->e;
    for (int64_t j = 0; j < r->nbb; j++) {
        const int64_t b0 = r->B0 + j * c->bt, bl = cg_min(c->bt, c->B - b0);
        int64_t ln2[R_], lo2[R_];
        memcpy(lo2, r->rl2, sizeof lo2);
        for (int k = 0; k < c->va.rank; k++)
            ln2[k] = 1;
        ln2[c->a] = r->al;
        ln2[c->b] = bl;
        lo2[c->b] = b0;
        struct sim_operand src;
        int fbx[1] = {c->b};
        if (cg_box(&c->va, lo2, ln2, NULL, c->a, 1, fbx, 1, &src))
            return cv_pattern_fail(r);
        struct sim_operand dst = cg_sb(r->opart[j], (uint32_t)bl, r->obase[j] + (uint64_t)r->oa * c->es,
                                       c->va.dt, (uint64_t)r->al);
        int64_t sz[1] = {r->al}, st[1] = {r->cout[c->a]};
        cg_pattern(&dst, 1, sz, st);
        int64_t d[8];
        size_t nd = 0;
        for (size_t k = 0; k < r->npre; k++)
            d[nd++] = r->pre[k];
        r->npre = 0;
        if (r->chain >= 0)
            d[nd++] = r->chain;
        if (r->out_reader[r->par][j] >= 0)
            d[nd++] = r->out_reader[r->par][j];
        r->chain = cg_dma(e, 0, &dst, &src, SIM_OP_DMA_TRANSPOSE, d, nd);
        if (r->chain < 0)
            return e->fail;
        r->last_w[j] = r->chain;
    }
    return 0;
}

/* PE transposes of b-blocks j0..j0+gn-1 (all bl wide) into one PSUM bank, evacuated by
 * one ACT copy into their output buffers. */
static int cvr_pe_group(struct cvr *r, int64_t j0, int64_t gn, int64_t bl)
{
    struct cvc *c = r->c;
    struct cg_em *e = r->e;
    const struct sim_target *tg = c->tg;
    uint32_t bank = e->s->psum_bank0 + (uint32_t)(r->ntr % r->nbank);
    int64_t ht = -1, *rd = &r->bank_reader[bank % SIM_PSUM_BANKS_MAX];
    for (int64_t u = 0; u < gn; u++) {
        struct sim_instr tr = cg_instr(e, LS_ENGINE_PE, SIM_OP_PE_TRANSPOSE, SIM_FN_NONE);
        tr.src = cg_sb(r->ipart, (uint32_t)r->al,
                       r->ibase + (uint64_t)(r->ioff + (j0 + u) * c->bt * r->cin[c->b]) * c->es,
                       c->va.dt, (uint64_t)bl);
        int64_t sz[1] = {bl}, st[1] = {r->cin[c->b]};
        cg_pattern(&tr.src, 1, sz, st);
        tr.dst = sim_psum(0, (uint32_t)bl, (uint64_t)bank * tg->psum_bank_bytes + (uint64_t)u * r->al * 4,
                          LS_DT_FP32, (uint32_t)r->al);
        size_t n2 = r->npre;
        if (u == 0 && *rd >= 0)
            r->pre[n2++] = *rd;
        if ((ht = cg_emit(e, &tr, r->pre, n2)) < 0)
            return e->fail;
    }
    r->last_read = ht;
    struct sim_instr ev = cg_instr(e, LS_ENGINE_ACT, SIM_OP_ACTIVATION, SIM_FN_NONE);
    ev.src = sim_psum(0, (uint32_t)bl, (uint64_t)bank * tg->psum_bank_bytes, LS_DT_FP32,
                      (uint32_t)(gn * r->al));
    ev.dst = cg_sb(r->opart[j0], (uint32_t)bl, r->obase[j0] + (uint64_t)r->oa * c->es, c->va.dt,
                   (uint64_t)(gn * r->al));
    int64_t so[2] = {r->OBe, r->cout[c->a]}, sa[2] = {gn, r->al};
    cg_pattern(&ev.dst, 2, sa, so);
    int64_t d3[CV_MAXG + 1];
    size_t n3 = 0;
    d3[n3++] = ht;
    for (int64_t u = 0; u < gn; u++)
        if (r->out_reader[r->par][j0 + u] >= 0)
            d3[n3++] = r->out_reader[r->par][j0 + u];
    int64_t hv = cg_emit(e, &ev, d3, n3);
    if (hv < 0)
        return e->fail;
    for (int64_t u = 0; u < gn; u++)
        r->last_w[j0 + u] = hv;
    *rd = hv;
    r->ntr++;
    return 0;
}

/* PE transposes of the row: b-blocks of equal size share a PSUM bank, one evacuation
 * each. */
static int cvr_row_pe(struct cvr *r)
{
    struct cvc *c = r->c;
    int64_t g = (int64_t)(c->tg->psum_bank_bytes / ((uint64_t)r->al * 4));
    if (g > CV_MAXG)
        g = CV_MAXG;
    if (g < 1 || c->out_res)
        g = 1;
    for (int64_t j0 = 0; j0 < r->nbb;) {
        const int64_t bl = cg_min(c->bt, c->B - (r->B0 + j0 * c->bt));
        int64_t gn = 0;
        while (gn < g && j0 + gn < r->nbb && cg_min(c->bt, c->B - (r->B0 + (j0 + gn) * c->bt)) == bl)
            gn++;
        if (cvr_pe_group(r, j0, gn, bl))
            return r->e->fail;
        j0 += gn;
    }
    return 0;
}

/* DVE 32x32 transposes of b-block j's rows ii.. and columns jj..: diagonal blocks straight
 * into the output buffer, off-diagonal ones through the staging block and a DMA across
 * partition groups. */
static int cvr_dve_block(struct cvr *r, int64_t j, uint64_t ib0, uint64_t ob0, int64_t ii,
                         int64_t jj, int64_t n)
{
    struct cvc *c = r->c;
    struct cg_em *e = r->e;
    int64_t *ord = &r->out_reader[r->par][j];
    struct sim_instr tr = cg_instr(e, LS_ENGINE_DVE, SIM_OP_DVE_TRANSPOSE, SIM_FN_NONE);
    tr.src = cg_sb(r->ipart + (uint32_t)ii, (uint32_t)n, ib0 + (uint64_t)(jj * r->cin[c->b]) * c->es,
                   c->va.dt, (uint64_t)n);
    int64_t sz[1] = {n}, st1[1] = {r->cin[c->b]}, st2[1] = {r->cout[c->a]};
    cg_pattern(&tr.src, 1, sz, st1);
    int same = ii == jj;
    struct sim_operand od = cg_sb(r->opart[j] + (uint32_t)jj, (uint32_t)n,
                                  ob0 + (uint64_t)(ii * r->cout[c->a]) * c->es, c->va.dt, (uint64_t)n);
    cg_pattern(&od, 1, sz, st2);
    tr.dst = same ? od : cg_sb(r->ipart + (uint32_t)ii, (uint32_t)n, r->stage, c->va.dt, (uint64_t)n);
    size_t n2 = r->npre;
    if (r->chain >= 0)
        r->pre[n2++] = r->chain;
    if (same && *ord >= 0)
        r->pre[n2++] = *ord;
    if ((r->chain = cg_emit(e, &tr, r->pre, n2)) < 0)
        return e->fail;
    r->last_read = r->chain;
    if (!same) {
        int64_t d3[2] = {r->chain, *ord};
        if ((r->chain = cg_dma(e, 0, &od, &tr.dst, SIM_OP_DMA_COPY, d3, *ord >= 0 ? 2 : 1)) < 0)
            return e->fail;
    }
    r->last_w[j] = r->chain;
    return 0;
}

/* DVE transposes of the row, 32x32 blocks of every b-block. */
static int cvr_row_dve(struct cvr *r)
{
    struct cvc *c = r->c;
    for (int64_t j = 0; j < r->nbb; j++) {
        const int64_t b0 = r->B0 + j * c->bt, bl = cg_min(c->bt, c->B - b0);
        const uint64_t ib0 = r->ibase + (uint64_t)(r->ioff + (b0 - r->lo[c->b]) * r->cin[c->b]) * c->es;
        const uint64_t ob0 = r->obase[j] + (uint64_t)r->oa * c->es;
        for (int64_t ii = 0; ii < r->al; ii += 32)
            for (int64_t jj = 0; jj < bl; jj += 32)
                if (cvr_dve_block(r, j, ib0, ob0, ii, jj, cg_min(32, cg_min(r->al - ii, bl - jj))))
                    return r->e->fail;
    }
    r->last_read = r->chain;
    return 0;
}

/* Row q of the a-block's box: its offsets, then the method's transposes. */
static int cvr_row(struct cvr *r, int64_t q)
{
    struct cvc *c = r->c;
    int64_t ooff = 0;
    r->ioff = 0;
    for (int k = 0; k < c->va.rank; k++)
        r->rl2[k] = r->l1[k];
    for (int k = r->sp.n - 1; k >= 0; k--) {
        int ax = c->rax[k];
        r->rl2[ax] = r->lo[ax] + q % r->len[ax];
        r->ioff += (q % r->len[ax]) * r->cin[ax];
        ooff += (q % r->len[ax]) * r->cout[ax];
        q /= r->len[ax];
    }
    r->oa = ooff + (r->a0 - r->A0) * r->cout[c->a];   /* the a-block's place in the output */
    if (c->m == CG_CONV_DMA_T)
        return cvr_row_dma(r);
    return c->m == CG_CONV_PE ? cvr_row_pe(r) : cvr_row_dve(r);
}

/* The tile's stores: one per b-block, rows of the box and the a-range (none into a
 * resident output). */
static int cvr_stores(struct cvr *r)
{
    struct cvc *c = r->c;
    struct cg_em *e = r->e;
    for (int64_t j = 0; j < r->nbb; j++) {
        if (r->last_w[j] < 0)
            return cg_fail(e, "conversion: empty tile");
        if (c->out_res) {
            cg_wrote(e, r->t, c->b, r->last_w[j]);
            continue;
        }
        const int64_t b0 = r->B0 + j * c->bt, bl = cg_min(c->bt, c->B - b0);
        int64_t l2[R_], n2[R_];
        memcpy(l2, r->lo, sizeof l2);
        memcpy(n2, r->len, sizeof n2);
        l2[c->b] = b0;
        n2[c->b] = bl;
        struct sim_operand dst;
        if (cg_box(&c->vb, l2, n2, NULL, c->b, 1, c->fb, c->nfb, &dst))
            return cv_pattern_fail(r);
        struct sim_operand otile = cg_sb(0, (uint32_t)bl, r->obase[j], c->va.dt, (uint64_t)(r->ALa * r->rc));
        int64_t hs = cg_dma(e, 1, &dst, &otile, SIM_OP_DMA_COPY, &r->last_w[j], 1);
        if (hs < 0)
            return e->fail;
        cg_wrote(e, r->t, c->b, hs);
        r->out_reader[r->par][j] = hs;
    }
    return 0;
}

/* Buffers: a ring of two load buffers, one or two sets of output buffers, the DVE staging
 * block; every reader unknown yet. */
static int cvr_init(struct cvr *r)
{
    struct cvc *c = r->c;
    struct cg_em *e = r->e;
    const int64_t rmax = cg_split_tile_elems(&r->sp);
    const int64_t nbmax = cg_cdiv(c->BL, c->bt);
    r->OB = out_blk_bytes(c, rmax);      /* bytes per b-block output buffer */
    r->OBe = (int64_t)(r->OB / c->es);
    if (uses_load(c)) {
        r->ib[0] = cg_alloc(e, (uint64_t)rmax * c->BL * c->es);
        r->ib[1] = cg_alloc(e, (uint64_t)rmax * c->BL * c->es);
    }
    if (uses_out(c)) {
        r->ob[0] = cg_alloc(e, (uint64_t)nbmax * r->OB);
        r->ob[1] = c->nob == 2 ? cg_alloc(e, (uint64_t)nbmax * r->OB) : r->ob[0];
    }
    r->stage = cg_alloc(e, 32 * 4);
    r->nbank = e->s->psum_nbanks ? e->s->psum_nbanks : 1;
    r->nr = cg_split_tiles(&r->sp);
    r->in_reader[0] = r->in_reader[1] = -1;
    r->chain = -1;
    for (int i = 0; i < SIM_PSUM_BANKS_MAX; i++)
        r->bank_reader[i] = -1;
    for (int p = 0; p < 2; p++)
        for (int j = 0; j < CV_MAXK; j++)
            r->out_reader[p][j] = -1;
    return e->fail;
}

/* The tiles: per (a-range, b-range, box) each a-block's load and its rows' transposes,
 * then the stores. */
static int lower_tiled(struct cg_em *e, struct cvc *c, int32_t t, const struct cg_split *sp)
{
    struct cvr *r = calloc(1, sizeof *r);
    if (!r)
        return cg_fail_nomem(e);
    r->e = e;
    r->c = c;
    r->t = t;
    r->sp = *sp;
    int rc = cvr_init(r);
    for (r->A0 = 0; r->A0 < c->A && !rc; r->A0 += c->AL)
        for (r->B0 = 0; r->B0 < c->B && !rc; r->B0 += c->BL)
            for (int64_t ri = 0; ri < r->nr && !rc; ri++, r->tile++) {
                rc = cvr_tile(r, ri);
                for (int64_t i = 0; i < r->nab && !rc; i++) {
                    rc = cvr_ablock(r, i);
                    for (int64_t q = 0; q < r->rc && !rc; q++)
                        rc = cvr_row(r, q);
                    if (!rc && uses_load(c))
                        r->in_reader[r->slot] = r->last_read;
                }
                if (!rc)
                    rc = cvr_stores(r);
            }
    free(r);
    return rc ? rc : e->fail;
}

int cg_lower_conversion(const struct graph *g, const struct sim_target *tg,
                        const struct cg_options *o, int32_t t, int from, int to,
                        enum cg_conv_method m, struct cg_sink *s, struct ls_error *err)
{
    static const struct cg_options defo = {0};
    struct cg_em e0 = {g, tg, o ? o : &defo, s, err, s->sbuf_base, 0, 0, 0}, *e = &e0;
    if (!cg_conv_possible(g, tg, o, t, from, to, m))
        return cg_fail(e, "tensor %s: conversion %s not possible", graph_tensor(g, t)->name,
                       cg_conv_method_name(m));
    struct cvc c;
    memset(&c, 0, sizeof c);
    cg_view_make(e, t, from, &c.va);
    cg_view_make(e, t, to, &c.vb);
    c.a = from;
    c.b = to;
    c.m = m;
    c.tg = tg;
    c.es = ls_dtype_size(c.va.dt);
    c.in_res = cg_resident(&c.va);
    c.out_res = cg_resident(&c.vb);
    const int64_t A = c.va.dim[from], B = c.va.dim[to];
    c.A = A;
    c.B = B;
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
    for (int k = 1; k < na; k++)
        c.fa[c.nfa++] = order_a[k];
    for (int k = 1; k < nb; k++)
        c.fb[c.nfb++] = order_b[k];
    if (m == CG_CONV_DMA_STRIDED)
        return lower_strided(e, &c, t);
    struct cg_split sp;
    if (choose_tiles(&c, &sp))
        return cg_fail(e, "tensor %s: conversion tile does not fit", graph_tensor(g, t)->name);
    return lower_tiled(e, &c, t, &sp);
}
