/* codegen/core: views, access patterns, the tile planner, emission helpers, layouts. */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>

#include "codegen/attn.h"
#include "codegen/epi.h"
#include "codegen/cg_int.h"
#include "codegen/memplan.h"

/* ---- layouts ----------------------------------------------------------------------- */

void cg_tensor_layouts(const struct graph *g, int32_t t, struct cg_layouts *out)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    out->n = 0;
    int def = -1;
    for (int i = 0; i < x->shape.rank; i++)
        if (x->shape.dims[i].size > 1) {
            def = i;
            break;
        }
    if (def < 0) {
        out->n = 1;
        out->pax[0] = -1;
        return;
    }
    out->pax[out->n++] = def;
    if (cg_epi_fused(g, t))
        return;   /* never materialized (codegen/epi.h): one layout, nothing converts it */
    for (int i = 0; i < x->shape.rank; i++)
        if (i != def && x->shape.dims[i].size > 1)
            out->pax[out->n++] = i;
    /* A row vector [1,..,1,H] of rank >= 3 (one token of a decode step, [B=1,1,H]) also
     * has the row layout: the extent-1 axis before H on partitions, all of H on one
     * partition's free axis, so a norm along an H wider than the partitions has a
     * configuration. Rank 2 ([1,C] classifier inputs, [1,S] ids) keeps the plain rule. */
    int r = x->shape.rank;
    if (out->n == 1 && def == r - 1 && r >= 3 && x->role != GRAPH_ROLE_WEIGHT)
        out->pax[out->n++] = r - 2;
}

int cg_layout_index(const struct graph *g, int32_t t, int pax)
{
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    for (int i = 0; i < l.n; i++)
        if (l.pax[i] == pax)
            return i;
    return -1;
}

void cg_layout_label(const struct graph *g, int32_t t, int pax, char *buf, size_t n)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    if (pax < 0) {
        snprintf(buf, n, "p:-");
        return;
    }
    const char *role = x->shape.dims[pax].role;
    int unique = role != NULL;
    for (int i = 0; role && i < x->shape.rank; i++)
        if (i != pax && x->shape.dims[i].role && strcmp(x->shape.dims[i].role, role) == 0)
            unique = 0;
    int ok = unique;
    for (const char *c = role; ok && *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
              strchr("_.:/@-", *c)))
            ok = 0;
    if (ok)
        snprintf(buf, n, "p:%s", role);
    else
        snprintf(buf, n, "p:%d", pax);
}

/* ---- views and patterns ------------------------------------------------------------ */

/* Weights read only by matmuls (always with pax on partitions) whose partition extent is
 * a whole number of blocks are stored k-tiled (cg_view.tiles). */
static int k_tiled(const struct graph *g, int32_t t, int pax, int64_t pblk)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    if (!cg_layout_free(g, t) || pax < 0 || x->shape.dims[pax].size <= pblk ||
        x->shape.dims[pax].size % pblk)
        return 0;
    for (size_t u = 0; u < x->nuses; u++) {
        enum graph_op_kind k = graph_op(g, x->uses[u].op)->kind;
        if (k != GRAPH_OP_MATMUL && k != GRAPH_OP_BATCH_MATMUL)
            return 0;
    }
    return 1;
}

void cg_view_make(struct cg_em *e, int32_t t, int pax, struct cg_view *v)
{
    const struct graph_tensor *x = graph_tensor(e->g, t);
    v->rank = x->shape.rank;
    v->pax = pax;
    v->dt = x->dtype;
    v->tensor = t;
    for (int i = 0; i < v->rank; i++)
        v->dim[i] = x->shape.dims[i].size;
    int order[R_];
    int n = cg_storage_order(v, order);
    int64_t s = 1;
    for (int k = n - 1; k >= 0; k--) {
        v->stride[order[k]] = s;
        s *= v->dim[order[k]];
    }
    v->pblk = e->t->sbuf_partitions;
    v->tiles = 0;
    if (cg_memplan_in_sbuf(e->o->plan, e->g, t, pax)) {
        v->mem = LS_MEM_SBUF;
        v->base = e->o->plan->res[t].slot[cg_layout_index(e->g, t, pax)];
        v->blk = cg_res_block_bytes(e->g, t, pax);
        return;
    }
    v->mem = LS_MEM_HBM;
    v->blk = 0;
    v->tiles = 0;
    if (k_tiled(e->g, t, pax, v->pblk))
        v->tiles = v->dim[pax] / v->pblk;
    v->base = e->s->hbm_addr ? e->s->hbm_addr(e->s->ctx, t, pax) : 0;
}

int cg_storage_order(const struct cg_view *v, int *order)
{
    int n = 0;
    if (v->pax >= 0)
        order[n++] = v->pax;
    for (int i = 0; i < v->rank; i++)
        if (i != v->pax)
            order[n++] = i;
    return n;
}

static int merge_dims(int n, int64_t *size, int64_t *stride)
{
    int m = 0;
    for (int i = 0; i < n; i++) {
        if (size[i] == 1)
            continue;
        if (m > 0 && stride[m - 1] == size[i] * stride[i]) {
            size[m - 1] *= size[i];
            stride[m - 1] = stride[i];
            continue;
        }
        size[m] = size[i];
        stride[m] = stride[i];
        m++;
    }
    return m;
}

void cg_pattern(struct sim_operand *o, int n, const int64_t *size, const int64_t *stride)
{
    int64_t sz[16], st[16];
    int64_t total = 1;
    for (int i = 0; i < n; i++) {
        sz[i] = size[i];
        st[i] = stride[i];
        total *= size[i];
    }
    int m = merge_dims(n, sz, st);
    uint32_t s32[SIM_AP_MAX_DIMS];
    int32_t t32[SIM_AP_MAX_DIMS];
    if (m > SIM_AP_MAX_DIMS || m == 0) {
        s32[0] = (uint32_t)total;
        t32[0] = 1;
        sim_operand_dims(o, 1, s32, t32);
        return;
    }
    for (int i = 0; i < m; i++) {
        s32[i] = (uint32_t)sz[i];
        t32[i] = (int32_t)st[i];
    }
    sim_operand_dims(o, m, s32, t32);
}

/* The free dims of a box (sizes, element strides) in the order of fax, merged, after an
 * optional leading dim (lead_size 1 = none). */
static int box_dims(const struct cg_view *v, const int64_t *len, const int64_t *step,
                    const int *fax, int nf, int64_t lead_size, int64_t lead_stride,
                    struct sim_operand *o)
{
    int64_t size[R_ + 1] = {lead_size}, stride[R_ + 1] = {lead_stride};
    int n = 1;
    for (int k = 0; k < nf; k++) {
        int a = fax[k];
        size[n] = len[a];
        stride[n] = v->stride[a] * (step ? step[a] : 1);
        n++;
    }
    int m = merge_dims(n, size, stride);
    if (m > SIM_AP_MAX_DIMS)
        return -1;
    uint32_t s32[SIM_AP_MAX_DIMS] = {1};
    int32_t t32[SIM_AP_MAX_DIMS] = {1};
    for (int i = 0; i < m; i++) {
        s32[i] = (uint32_t)size[i];
        t32[i] = (int32_t)stride[i];
    }
    sim_operand_dims(o, m ? m : 1, s32, t32);
    return 0;
}

/* Element offset of the box corner over the free axes (every axis but skip). */
static int64_t corner(const struct cg_view *v, const int64_t *lo, int skip)
{
    int64_t off = 0;
    for (int i = 0; i < v->rank; i++)
        if (i != skip)
            off += lo[i] * v->stride[i];
    return off;
}

static int sbuf_box(const struct cg_view *v, const int64_t *lo, const int64_t *len,
                    const int64_t *step, int rax, uint32_t nrows_bcast, const int *fax, int nf,
                    struct sim_operand *o)
{
    if (rax != v->pax || (rax < 0 && nrows_bcast != 1) || (rax >= 0 && step && step[rax] != 1))
        return -2;
    int64_t p0 = rax >= 0 ? lo[rax] : 0, np = rax >= 0 ? len[rax] : 1;
    int64_t part0 = p0 % v->pblk;
    if (part0 + np > v->pblk)
        return -2;
    uint64_t addr = v->base + (uint64_t)(p0 / v->pblk) * v->blk +
                    (uint64_t)corner(v, lo, v->pax) * ls_dtype_size(v->dt);
    *o = sim_sbuf((uint32_t)part0, (uint32_t)np, addr, v->dt, 1);
    return box_dims(v, len, step, fax, nf, 1, 1, o);
}

/* A box of a k-tiled HBM view: its rows must lie in one k-tile. */
static int tiled_box(const struct cg_view *v, const int64_t *lo, const int64_t *len,
                     const int64_t *step, int rax, const int *fax, int nf, struct sim_operand *o)
{
    if (rax != v->pax || (step && step[rax] != 1))
        return -2;
    int64_t p0 = lo[rax] % v->pblk, F = v->stride[v->pax];
    if (p0 + len[rax] > v->pblk)
        return -2;
    int64_t off = corner(v, lo, v->pax) + (p0 * v->tiles + lo[rax] / v->pblk) * F;
    *o = sim_hbm((uint32_t)len[rax], (int32_t)(v->tiles * F),
                 v->base + (uint64_t)off * ls_dtype_size(v->dt), v->dt, 1);
    return box_dims(v, len, step, fax, nf, 1, 1, o);
}

int cg_box_tiles(const struct cg_view *v, int64_t kb0, int64_t n, const int64_t *lo,
                 const int64_t *len, const int *fax, int nf, struct sim_operand *o)
{
    int64_t F = v->stride[v->pax];
    uint64_t off = (uint64_t)(corner(v, lo, v->pax) + kb0 * F);
    *o = sim_hbm((uint32_t)v->pblk, (int32_t)(v->tiles * F),
                 v->base + off * ls_dtype_size(v->dt), v->dt, 1);
    return box_dims(v, len, NULL, fax, nf, n, F, o);
}

int cg_box(const struct cg_view *v, const int64_t *lo, const int64_t *len, const int64_t *step,
           int rax, uint32_t nrows_bcast, const int *fax, int nf, struct sim_operand *o)
{
    if (cg_resident(v))
        return sbuf_box(v, lo, len, step, rax, nrows_bcast, fax, nf, o);
    if (v->tiles)
        return tiled_box(v, lo, len, step, rax, fax, nf, o);
    uint32_t nrows = rax >= 0 ? (uint32_t)len[rax] : nrows_bcast;
    int64_t pstride = rax >= 0 ? v->stride[rax] * (step ? step[rax] : 1) : 0;
    size_t es = ls_dtype_size(v->dt);
    *o = sim_hbm(nrows, (int32_t)pstride, v->base + (uint64_t)corner(v, lo, -1) * es, v->dt, 1);
    return box_dims(v, len, step, fax, nf, 1, 1, o);
}

/* ---- allocation and emission ------------------------------------------------------- */

int cg_fail(struct cg_em *e, const char *fmt, ...)
{
    if (!e->fail) {
        char buf[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(buf, sizeof buf, fmt, ap);
        va_end(ap);
        ls_error_msg(e->err, LS_ERR_INPUT, "%s", buf);
        e->fail = LS_ERR_INPUT;
    }
    return e->fail;
}

int cg_fail_nomem(struct cg_em *e)
{
    if (!e->fail) {
        ls_error_msg(e->err, LS_ERR_NOMEM, "out of memory");
        e->fail = LS_ERR_NOMEM;
    }
    return e->fail;
}

uint64_t cg_alloc(struct cg_em *e, uint64_t bytes)
{
    bytes = (bytes + 63) & ~(uint64_t)63;
    uint64_t a = e->sbuf_next;
    if (a + bytes > e->s->sbuf_base + e->s->sbuf_bytes) {
        cg_fail(e, "SBUF budget exceeded (%llu bytes per partition needed, %llu available)",
                (unsigned long long)(a + bytes - e->s->sbuf_base),
                (unsigned long long)e->s->sbuf_bytes);
        return e->s->sbuf_base;
    }
    e->sbuf_next = a + bytes;
    return a;
}

uint64_t cg_ring_alloc(struct cg_em *e, uint64_t bytes)
{
    struct cg_sink *s = e->s;
    bytes = (bytes + 63) & ~(uint64_t)63;
    if (bytes == 0 || bytes > s->ring_bytes)
        return CG_NO_RING;
    uint64_t a = s->ring_next;
    if (a + bytes > s->ring_base + s->ring_bytes)
        a = s->ring_base;
    s->ring_next = a + bytes;
    if (s->ring_used && s->ring_used(s->ctx, a, bytes))
        cg_fail_nomem(e);
    return a;
}

enum sim_func cg_op_fn(enum graph_op_kind k)
{
    switch (k) {
    case GRAPH_OP_RELU: return SIM_FN_RELU;
    case GRAPH_OP_GELU: return SIM_FN_GELU;
    case GRAPH_OP_SILU: return SIM_FN_SIGMOID;
    case GRAPH_OP_EXP: return SIM_FN_EXP;
    case GRAPH_OP_TANH: return SIM_FN_TANH;
    case GRAPH_OP_SIGMOID: return SIM_FN_SIGMOID;
    case GRAPH_OP_RSQRT: return SIM_FN_RSQRT;
    case GRAPH_OP_ADD: return SIM_FN_ADD;
    case GRAPH_OP_SUB: return SIM_FN_SUB;
    case GRAPH_OP_MUL: return SIM_FN_MUL;
    case GRAPH_OP_MAX:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_POOL_MAX: return SIM_FN_MAX;
    default: return SIM_FN_NONE;
    }
}

uint64_t cg_budget(const struct cg_em *e)
{
    uint64_t end = e->s->sbuf_base + e->s->sbuf_bytes;
    return end > e->sbuf_next ? end - e->sbuf_next : 0;
}

static int xdeps_room(struct cg_sink *s, size_t n)
{
    if (s->nxdeps + n <= s->xcap)
        return 0;
    size_t cap = s->xcap ? s->xcap : 64;
    while (cap < s->nxdeps + n)
        cap *= 2;
    int64_t *p = realloc(s->xdeps, cap * sizeof *p);
    if (!p)
        return -1;
    s->xdeps = p;
    s->xcap = cap;
    return 0;
}

/* The instructions one op or conversion may take under limit max (codegen.h:
 * CG_STEP_SHARE). */
static uint64_t step_limit(uint64_t max)
{
    uint64_t share = max / CG_STEP_SHARE, floor = max < CG_STEP_FLOOR ? max : CG_STEP_FLOOR;
    return share > floor ? share : floor;
}

/* The cg_options bounds, checked once per emitted instruction (the clock every 4096). */
static int over_limit(struct cg_em *e)
{
    struct cg_sink *s = e->s;
    if (e->o->max_instructions && s->emitted >= e->o->max_instructions) {
        cg_fail(e, "more than %llu instructions (the instruction limit)",
                (unsigned long long)e->o->max_instructions);
        return s->limit = LS_ERR_INPUT;
    }
    if (e->o->max_instructions && e->emitted >= step_limit(e->o->max_instructions)) {
        cg_fail(e, "more than %llu instructions in one operator or conversion (1/%d of the "
                "instruction limit)", (unsigned long long)step_limit(e->o->max_instructions),
                CG_STEP_SHARE);
        return s->limit = LS_ERR_INPUT;
    }
    e->emitted++;
    if ((s->emitted & 4095) == 0 && ls_deadline_passed(&e->o->deadline)) {
        ls_error_msg(e->err, LS_ERR_LIMIT, "time limit reached");
        return s->limit = e->fail = LS_ERR_LIMIT;
    }
    s->emitted++;
    return 0;
}

int64_t cg_emit(struct cg_em *e, struct sim_instr *in, const int64_t *deps, size_t nd)
{
    if (e->fail || over_limit(e))
        return -1;
    in->op_tag = e->s->op_tag;
    in->conv_tag = e->s->conv_tag;
    struct cg_sink *s = e->s;
    if (s->nxdeps) {   /* the writers cg_writers found go with this instruction */
        if (xdeps_room(s, nd))
            return cg_fail_nomem(e), -1;
        if (nd)
            memcpy(s->xdeps + s->nxdeps, deps, nd * sizeof *deps);
        deps = s->xdeps;
        nd += s->nxdeps;
        s->nxdeps = 0;
    }
    int64_t h = s->emit(s->ctx, in, deps, nd, e->err);
    if (h < 0)
        e->fail = e->err && e->err->code ? e->err->code : LS_ERR_INTERNAL;
    return h;
}

int cg_dma_queue_runs_ahead(const struct sim_target *t, unsigned queue)
{
    uint32_t nq = t->dma_queues ? t->dma_queues : 1;
    if (nq < 2 * (CG_Q_RING + 1)) /* classes share queues (cg_dma's modulo) */
        return 0;
    return queue / 2 == CG_Q_CONST || queue / 2 == CG_Q_RING;
}

int64_t cg_dma(struct cg_em *e, int cls, const struct sim_operand *dst,
               const struct sim_operand *src, enum sim_opcode op, const int64_t *deps,
               size_t nd)
{
    struct sim_instr in = cg_instr(e, LS_ENGINE_DMA, op, SIM_FN_NONE);
    uint32_t nq = e->t->dma_queues ? e->t->dma_queues : 1;
    /* loads alternate over queues 0/1, stores over 2/3, constant loads over 4/5, loads
     * into the constant ring over 6/7 (modulo the queue count); the turn is this op's
     * (docs/costmodel.md: a program-wide turn was measured and not adopted) */
    in.queue = (uint16_t)(((uint32_t)cls * 2 + (e->dmaq++ & 1)) % nq);
    in.dst = *dst;
    in.src = *src;
    return cg_emit(e, &in, deps, nd);
}

void cg_writers(struct cg_em *e, int32_t t, int pax)
{
    if (!e->s->hbm_writers)
        return;
    const int64_t *w = NULL;
    size_t n = e->s->hbm_writers(e->s->ctx, t, pax, &w);
    if (n == 0)
        return;
    if (xdeps_room(e->s, n)) {
        cg_fail_nomem(e);
        return;
    }
    memcpy(e->s->xdeps + e->s->nxdeps, w, n * sizeof *w);
    e->s->nxdeps += n;
    return;
}

void cg_wrote(struct cg_em *e, int32_t t, int pax, int64_t h)
{
    if (h >= 0 && e->s->hbm_wrote && e->s->hbm_wrote(e->s->ctx, t, pax, h))
        cg_fail_nomem(e);
}

static uint64_t resident_region(const struct cg_options *o)
{
    return o && o->plan ? o->plan->region : 0;
}

/* What the resident region leaves goes to CG_STEP_REGIONS step regions and the constant
 * ring: each step gets a quarter of it, or up to a third when a quarter is below
 * CG_STEP_MIN_BYTES (a normalization row, double-buffered, must fit); the ring the rest. */
static int ring_on(const struct cg_options *o)
{
    return o && o->plan && !o->plan->no_ring;
}

uint64_t cg_step_sbuf_bytes(const struct sim_target *t, const struct cg_options *o)
{
    uint64_t rest = t->sbuf_usable_bytes - resident_region(o);
    if (!ring_on(o))
        return (rest / CG_STEP_REGIONS) & ~(uint64_t)63;
    uint64_t quarter = rest / (CG_STEP_REGIONS + 2), third = rest / (CG_STEP_REGIONS + 1);
    uint64_t floor = third < CG_STEP_MIN_BYTES ? third : CG_STEP_MIN_BYTES;
    return (quarter > floor ? quarter : floor) & ~(uint64_t)63;
}

static uint64_t ring_bytes(const struct sim_target *t, const struct cg_options *o)
{
    if (!ring_on(o))
        return 0;
    return t->sbuf_usable_bytes - resident_region(o) - CG_STEP_REGIONS * cg_step_sbuf_bytes(t, o);
}

uint64_t cg_step_sbuf_base(const struct sim_target *t, const struct cg_options *o, int parity)
{
    return resident_region(o) + (uint64_t)parity * cg_step_sbuf_bytes(t, o);
}

uint32_t cg_step_psum_banks(const struct sim_target *t)
{
    return t->psum_banks >= CG_STEP_REGIONS ? t->psum_banks / CG_STEP_REGIONS : 1;
}

void cg_sink_region(struct cg_sink *s, const struct sim_target *t, const struct cg_options *o,
                    int parity)
{
    s->sbuf_base = cg_step_sbuf_base(t, o, parity);
    s->sbuf_bytes = cg_step_sbuf_bytes(t, o);
    s->ring_base = cg_step_sbuf_base(t, o, CG_STEP_REGIONS);
    s->ring_bytes = ring_bytes(t, o) & ~(uint64_t)63;
    if (s->ring_next < s->ring_base || s->ring_next >= s->ring_base + s->ring_bytes)
        s->ring_next = s->ring_base;
    s->psum_nbanks = cg_step_psum_banks(t);
    s->psum_bank0 = (uint32_t)(parity % CG_STEP_REGIONS) * s->psum_nbanks;
}

/* ---- tile planner ------------------------------------------------------------------ */

int cg_plan(struct cg_split *sp, int (*fits)(void *ctx, const struct cg_split *sp), void *ctx)
{
    sp->split = -1;
    sp->chunk = 1;
    if (fits(ctx, sp))
        return 0;
    if (sp->n == 0)
        return -1;
    int ax = sp->n - 1, fallback = -1;
    for (int k = 1; k < sp->n; k++) {
        sp->split = k;
        sp->chunk = sp->ext[k];
        if (fits(ctx, sp)) {   /* axes k.. full fit: grow a chunk of axis k-1 */
            ax = k - 1;
            fallback = k;
            break;
        }
    }
    sp->split = ax;
    sp->chunk = 1;
    if (!fits(ctx, sp)) {
        if (fallback < 0)
            return -1;
        sp->split = fallback;
        sp->chunk = sp->ext[fallback];
        return 0;
    }
    int64_t lo = 1, hi = sp->ext[ax];
    while (lo < hi) {
        int64_t mid = lo + (hi - lo + 1) / 2;
        sp->chunk = mid;
        if (fits(ctx, sp))
            lo = mid;
        else
            hi = mid - 1;
    }
    sp->chunk = lo;
    return 0;
}

int64_t cg_split_tiles(const struct cg_split *sp)
{
    if (sp->split < 0)
        return 1;
    int64_t n = 1;
    for (int i = 0; i < sp->split; i++)
        n *= sp->ext[i];
    return n * cg_cdiv(sp->ext[sp->split], sp->chunk);
}

void cg_split_box(const struct cg_split *sp, int64_t i, int64_t *lo, int64_t *len)
{
    for (int k = 0; k < sp->n; k++) {
        lo[k] = 0;
        len[k] = sp->ext[k];
    }
    if (sp->split < 0)
        return;
    int64_t nc = cg_cdiv(sp->ext[sp->split], sp->chunk);
    int64_t c = i % nc;
    i /= nc;
    lo[sp->split] = c * sp->chunk;
    len[sp->split] = cg_min(sp->chunk, sp->ext[sp->split] - lo[sp->split]);
    for (int k = sp->split - 1; k >= 0; k--) {
        lo[k] = i % sp->ext[k];
        len[k] = 1;
        i /= sp->ext[k];
    }
}

int64_t cg_split_tile_elems(const struct cg_split *sp)
{
    int64_t n = 1;
    for (int k = 0; k < sp->n; k++) {
        if (sp->split >= 0 && k < sp->split)
            continue;
        n *= (sp->split == k) ? sp->chunk : sp->ext[k];
    }
    return n;
}

/* ---- dispatch ---------------------------------------------------------------------- */

int cg_lower_op(const struct graph *g, const struct sim_target *t, const struct cg_options *o,
                int32_t op, const int8_t *pax, struct cg_sink *s, struct ls_error *err)
{
    static const struct cg_options defo = {0};
    struct cg_em e = {g, t, o ? o : &defo, s, err, s->sbuf_base, 0, 0, 0};
    const struct graph_op *x = graph_op(g, op);
    struct cg_epi ep;
    int erole = cg_epi_find(g, op, &ep);
    if (erole >= 0)   /* an epilogue chain: its last op lowers (and prices) all of it */
        return erole < ep.n - 1 ? 0
               : ep.conv        ? cg_lower_conv_epi(&e, &ep, pax[x->ninputs])
                                : cg_lower_epi(&e, &ep, pax[x->ninputs]);
    switch (x->kind) {
    case GRAPH_OP_SOURCE:
    case GRAPH_OP_RETURN:
        return 0;
    case GRAPH_OP_MATMUL:
    case GRAPH_OP_BATCH_MATMUL:
    case GRAPH_OP_SOFTMAX: {
        struct cg_attn a;   /* a fused attention op prices its part of the group */
        int role = cg_attn_find(g, t, op, &a);
        if (role >= 0)
            return cg_lower_attn_group(g, t, o, &a, 1u << role, NULL, s, err);
        if (x->kind == GRAPH_OP_SOFTMAX)
            return cg_lower_map(&e, op, pax);
        return cg_lower_matmul(&e, op, pax);
    }
    case GRAPH_OP_TRANSPOSE:
        return cg_lower_alias(&e, op, pax) ? e.fail : cg_lower_map(&e, op, pax);
    case GRAPH_OP_CONV2D:
        return cg_lower_conv(&e, op, pax);
    case GRAPH_OP_CAST:
    case GRAPH_OP_COPY:
        return cg_lower_cast_dma(&e, op, pax) ? e.fail : cg_lower_map(&e, op, pax);
    case GRAPH_OP_RESHAPE:
    case GRAPH_OP_CONCAT:
    case GRAPH_OP_SLICE:
    case GRAPH_OP_GATHER:
        return cg_lower_move(&e, op, pax);
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN:
        for (int i = 0; i < x->attrs.naxes; i++)
            if (x->attrs.axes[i] == pax[0])
                return cg_lower_preduce(&e, op, pax);
        return cg_lower_map(&e, op, pax);
    default:
        return cg_lower_map(&e, op, pax);
    }
}
