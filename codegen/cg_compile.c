/* codegen/compile: the whole-graph program for an assignment.
 *
 * Steps (ops and conversions) are emitted in topological order. Step k uses SBUF half k%2
 * and PSUM banks half k%2; the first instruction of step k on each engine / DMA queue
 * depends on the last instructions of step k-2 (which used the same half). HBM buffers are
 * allocated per (tensor, layout) once; reads depend on the stores that wrote them. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/attn.h"
#include "codegen/epi.h"
#include "codegen/cg_int.h"
#include "codegen/memplan.h"
#include "util/vec.h"

#define NKEYS (LS_ENGINE_COUNT + SIM_MAX_QUEUES)

typedef LS_VEC(int64_t) hvec;

struct buf {
    int64_t addr;            /* -1: not allocated */
    hvec writers;
    struct buf *alias;       /* the buffer this one is (cc_alias), NULL */
};

struct cc {
    const struct graph *g;
    struct sim_program *p;
    struct buf *bufs;        /* ntensors * (CG_MAX_LAYOUTS) */
    uint64_t hbm_next;
    int64_t tails[CG_STEP_REGIONS][NKEYS];
    int64_t prev2[NKEYS];
    unsigned char seen[NKEYS];
    int step;
    int wide;                    /* this step uses every PSUM bank (wide_step) */
    LS_VEC(uint32_t) deps;
    /* SBUF residency: the last instruction per key so far; per resident tensor, that
     * snapshot when its last reader was emitted (the readers its bytes' next occupant
     * must wait for); the extra deps of the first instruction per key of this step. */
    const struct cg_memplan *plan;
    int64_t last[NKEYS];
    int64_t *freed;              /* ntensors * NKEYS, -1 */
    hvec war;
    /* the constant ring: per 64-byte granule the snapshot (of `last`, taken when its
     * step ended) of the step that loaded it last, -1, and the owner before this step's
     * (what a load into the granule waits for); this step's snapshot id or -1 */
    int32_t *ring_owner, *ring_prev;
    size_t ring_granules;
    hvec snaps;                  /* NKEYS per snapshot */
    int32_t ring_snap;
    uint64_t ring_base, ring_end;
    struct cg_compile_stats *st;
};

static struct buf *bufof(struct cc *c, int32_t t, int pax)
{
    int li = cg_layout_index(c->g, t, pax);
    struct buf *b = &c->bufs[(size_t)t * CG_MAX_LAYOUTS + (size_t)(li < 0 ? 0 : li)];
    while (b->alias)
        b = b->alias;
    return b;
}

static int cc_alias(void *ctx, int32_t t, int pax, int32_t src, int src_pax)
{
    struct cc *c = ctx;
    struct buf *to = bufof(c, src, src_pax);
    int li = cg_layout_index(c->g, t, pax);
    struct buf *b = &c->bufs[(size_t)t * CG_MAX_LAYOUTS + (size_t)(li < 0 ? 0 : li)];
    if (b == to || b->addr >= 0 || b->writers.len)
        return 1;   /* already addressed: not expected, the caller copies */
    b->alias = to;
    return 0;
}

/* HBM space is given to a (tensor, layout) the first time lowering asks for its address
 * (SBUF-resident tensors never ask). */
static uint64_t cc_addr(void *ctx, int32_t t, int pax)
{
    struct cc *c = ctx;
    struct buf *b = bufof(c, t, pax);
    if (b->addr < 0) {
        const struct graph_tensor *x = graph_tensor(c->g, t);
        uint64_t bytes = (uint64_t)graph_shape_numel(&x->shape) * ls_dtype_size(x->dtype);
        b->addr = (int64_t)c->hbm_next;
        c->hbm_next += (bytes + 63) & ~(uint64_t)63;
        c->st->hbm_bytes = c->hbm_next;
    }
    return (uint64_t)b->addr;
}

static size_t cc_writers(void *ctx, int32_t t, int pax, const int64_t **out)
{
    struct buf *b = bufof(ctx, t, pax);
    *out = b->writers.data;
    return b->writers.len;
}

/* Compute engines finish in issue order, so a later writer on the same engine replaces an
 * earlier one in the list readers depend on; DMA writers are all kept. */
static int cc_wrote(void *ctx, int32_t t, int pax, int64_t h)
{
    struct cc *c = ctx;
    struct buf *b = bufof(c, t, pax);
    enum ls_engine eng = sim_program_engine(c->p, (size_t)h);
    if (eng != LS_ENGINE_DMA)
        for (size_t i = 0; i < b->writers.len; i++)
            if (sim_program_engine(c->p, (size_t)b->writers.data[i]) == eng) {
                b->writers.data[i] = h;
                return 0;
            }
    return LS_VEC_PUSH(&b->writers, h) ? LS_ERR_NOMEM : 0;
}

/* A DMA into the constant ring writes no step region: it waits only for the readers of
 * the ring bytes it overwrites (ring_deps), not for step k-2, so weights load ahead. */
static int ring_load(const struct cc *c, const struct sim_instr *in)
{
    return in->engine == LS_ENGINE_DMA && in->dst.mem == LS_MEM_SBUF &&
           in->dst.addr >= c->ring_base && in->dst.addr < c->ring_end;
}

static int push_deps(struct cc *c, const int64_t *h, size_t n);

/* A ring load waits for the steps that loaded the granules it writes before this step
 * (as of their end), not for every earlier occupant of the step's ring bytes: the first
 * groups of a streamed weight load while the op whose bytes its later groups reuse
 * still computes. It also waits for the step that loaded into the ring
 * CG_RING_LOOKAHEAD such steps before (codegen.h: loads running further ahead take the
 * DMA engines from the loads and stores of the ops computing now). */
static int ring_deps(struct cc *c, const struct sim_instr *in)
{
    uint64_t lo, hi;
    if (sim_operand_extent(&in->dst, &lo, &hi))
        return 0; /* no such operand passes sim_check; nothing to order it after */
    lo = lo < c->ring_base ? c->ring_base : lo;
    uint64_t g0 = (lo - c->ring_base) / 64, g1 = (hi - c->ring_base + 63) / 64;
    int32_t seen = -1;
    for (uint64_t g = g0; g < g1 && g < c->ring_granules; g++) {
        int32_t o = c->ring_prev[g];
        if (o >= 0 && o != seen &&
            push_deps(c, c->snaps.data + (size_t)o * NKEYS, NKEYS))
            return -1;
        seen = o;
    }
    int32_t back = c->ring_snap - CG_RING_LOOKAHEAD;   /* < 0 also without a ring step */
    if (back >= 0 && push_deps(c, c->snaps.data + (size_t)back * NKEYS, NKEYS))
        return -1;
    return 0;
}

static int push_deps(struct cc *c, const int64_t *h, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (h[i] >= 0 && LS_VEC_PUSH(&c->deps, (uint32_t)h[i]))
            return -1;
    return 0;
}

static int64_t cc_emit(void *ctx, const struct sim_instr *in, const int64_t *deps, size_t nd,
                       struct ls_error *err)
{
    struct cc *c = ctx;
    int key = in->engine == LS_ENGINE_DMA ? LS_ENGINE_COUNT + (in->queue % SIM_MAX_QUEUES)
                                          : in->engine;
    c->deps.len = 0;
    int fail = push_deps(c, deps, nd);
    if (ring_load(c, in)) {
        fail = fail || ring_deps(c, in);
    } else if (!c->seen[key]) {
        c->seen[key] = 1;
        fail = fail || push_deps(c, c->prev2, NKEYS) || push_deps(c, c->war.data, c->war.len);
    }
    if (fail)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
    /* drop duplicates (small lists) */
    size_t m = 0;
    for (size_t i = 0; i < c->deps.len; i++) {
        size_t j = 0;
        while (j < m && c->deps.data[j] != c->deps.data[i])
            j++;
        if (j == m)
            c->deps.data[m++] = c->deps.data[i];
    }
    int64_t h = sim_program_add(c->p, in, c->deps.data, m, err);
    if (h >= 0) {
        c->tails[c->step % CG_STEP_REGIONS][key] = c->last[key] = h;
        if (c->wide)   /* the next step reuses PSUM banks this one took */
            c->tails[(c->step + 1) % CG_STEP_REGIONS][key] = h;
    }
    return h;
}

/* A fused attention step takes every PSUM bank: it also waits (first instruction per key)
 * for the previous step, whose banks it reuses, and the next step waits for it. */
static int wide_step(struct cc *c, struct cg_sink *s, const struct sim_target *t)
{
    const int64_t *prev = c->tails[(c->step + 1) % CG_STEP_REGIONS];
    for (int k = 0; k < NKEYS; k++)
        if (prev[k] >= 0 && LS_VEC_PUSH(&c->war, prev[k]))
            return LS_ERR_NOMEM;
    c->wide = 1;
    s->psum_bank0 = 0;
    s->psum_nbanks = t->psum_banks;
    return 0;
}

/* A step that writes resident tensor tn waits (first instruction per key) for every
 * reader of the earlier occupants of its bytes. */
static int war_deps(struct cc *c, int32_t tn)
{
    if (!cg_memplan_resident(c->plan, tn))
        return 0;
    const struct cg_res *r = &c->plan->res[tn];
    for (uint32_t i = 0; i < r->nprev; i++) {
        const int64_t *f = c->freed + (size_t)c->plan->prev[r->prev_off + i] * NKEYS;
        for (int k = 0; k < NKEYS; k++)
            if (f[k] >= 0 && LS_VEC_PUSH(&c->war, f[k]))
                return LS_ERR_NOMEM;
    }
    return 0;
}

/* After the step at topological position pos: resident tensors read for the last time
 * (or never read) release their bytes as of now. */
static void release(struct cc *c, int32_t tn, int32_t pos)
{
    if (cg_memplan_resident(c->plan, tn) && c->plan->res[tn].last == pos)
        memcpy(c->freed + (size_t)tn * NKEYS, c->last, sizeof c->last);
}

/* A step loads weights into ring bytes [addr, +bytes): a load into them waits for the
 * step that loaded them before (ring_deps), as of that step's end. */
static int cc_ring_used(void *ctx, uint64_t addr, uint64_t bytes)
{
    struct cc *c = ctx;
    uint64_t g0 = (addr - c->ring_base) / 64, g1 = g0 + bytes / 64;
    if (c->ring_snap < 0) {
        c->ring_snap = (int32_t)(c->snaps.len / NKEYS);
        if (LS_VEC_RESIZE(&c->snaps, c->snaps.len + NKEYS))
            return LS_ERR_NOMEM;
        for (int k = 0; k < NKEYS; k++)
            c->snaps.data[(size_t)c->ring_snap * NKEYS + (size_t)k] = -1;
    }
    for (uint64_t g = g0; g < g1 && g < c->ring_granules; g++) {
        if (c->ring_owner[g] != c->ring_snap)
            c->ring_prev[g] = c->ring_owner[g];
        c->ring_owner[g] = c->ring_snap;
    }
    return 0;
}

/* The most recent step (snapshot id) that loaded ring bytes [addr, +bytes) before this
 * step, -1 (cg_sink.ring_age). */
static int32_t cc_ring_age(void *ctx, uint64_t addr, uint64_t bytes)
{
    struct cc *c = ctx;
    int32_t age = -1;
    for (uint64_t g = (addr - c->ring_base) / 64;
         g < (addr - c->ring_base + bytes) / 64 && g < c->ring_granules; g++)
        if (c->ring_prev[g] > age)
            age = c->ring_prev[g];
    return age;
}

static void end_step(struct cc *c)
{
    if (c->ring_snap >= 0)
        memcpy(c->snaps.data + (size_t)c->ring_snap * NKEYS, c->last, sizeof c->last);
    c->ring_snap = -1;
}

static void begin_step(struct cc *c, struct cg_sink *s, const struct sim_target *t,
                       const struct cg_options *o)
{
    end_step(c);
    c->step++;
    for (int k = 0; k < NKEYS; k++) {
        c->prev2[k] = c->tails[c->step % CG_STEP_REGIONS][k];
        c->tails[c->step % CG_STEP_REGIONS][k] = -1;
        c->seen[k] = 0;
    }
    /* prev2 covers the reuse of this step's scratch region by step k-CG_STEP_REGIONS;
     * war_deps the reuse
     * of resident bytes */
    c->war.len = 0;
    cg_sink_region(s, t, o, c->step % CG_STEP_REGIONS);
}

/* What the steps of one compilation share: the state, the sink, and the caller's
 * target, options, assignment and conversion chooser. */
struct cc_run {
    struct cc *c;
    struct cg_sink *s;
    const struct sim_target *t;
    const struct cg_options *o;
    const int8_t *const *op_pax;
    cg_choose_fn choose;
    void *choose_ctx;
    struct ls_error *err;
};

static int convert(struct cc_run *R, int32_t tn, int from, int to)
{
    struct cc *c = R->c;
    struct cg_sink *s = R->s;
    const struct sim_target *t = R->t;
    const struct cg_options *o = R->o;
    struct ls_error *err = R->err;
    struct buf *b = bufof(c, tn, to);
    if (b->writers.len > 0)
        return 0;                      /* already converted: shared by every consumer */
    char name[512], lf[64], lt[64];
    cg_layout_label(c->g, tn, from, lf, sizeof lf);
    cg_layout_label(c->g, tn, to, lt, sizeof lt);
    snprintf(name, sizeof name, "%s@%s->%s", graph_tensor(c->g, tn)->name, lf, lt);
    begin_step(c, s, t, o);
    if (war_deps(c, tn))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    s->op_tag = -1;
    s->conv_tag = sim_program_tag(c->p, name);
    if (s->conv_tag < 0)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    enum cg_conv_method m = R->choose(R->choose_ctx, tn, from, to);
    c->st->conversions++;
    return cg_lower_conversion(c->g, t, o, tn, from, to, m, s, err);
}

/* A cg_options bound was crossed while lowering op: say where. */
static int name_limit(struct ls_error *err, const char *op)
{
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return ls_error_msg(err, err->code, "compiling op '%s': %s", op, msg);
}

/* rc, with the op's name in the message when a lowering bound was crossed. */
static int limited(const struct cc_run *R, int rc, const char *op)
{
    return rc && R->s->limit ? name_limit(R->err, op) : rc;
}

/* The memory plan's figures (compile --json's memory_plan). */
static void plan_stats(const struct cg_memplan *plan, struct cg_compile_stats *st)
{
    st->resident_tensors = plan->resident_tensors;
    st->spilled_tensors = plan->spilled_tensors;
    st->resident_bytes = plan->resident_bytes;
    st->spilled_bytes = plan->spilled_bytes;
    st->fused_tensors = plan->fused_tensors;
    st->fused_bytes = plan->fused_bytes;
    st->resident_region = plan->region;
    st->partial_tensors = plan->partial_tensors;
    st->aliased_tensors = plan->aliased_tensors;
    st->memplan_candidate = plan->candidate;
}

/* The buffers per (tensor, layout), the freed snapshots and the step tails. */
static int cc_alloc(struct cc *c, int32_t nt, struct sim_program *reuse, struct ls_error *err)
{
    for (int k = 0; k < NKEYS; k++)
        c->last[k] = -1;
    if (reuse)
        sim_program_clear(reuse);
    c->p = reuse ? reuse : sim_program_new();
    c->bufs = calloc((size_t)nt * CG_MAX_LAYOUTS + 1, sizeof *c->bufs);
    c->freed = malloc(sizeof *c->freed * ((size_t)nt * NKEYS + 1));
    if (!c->p || !c->bufs || !c->freed)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < (size_t)nt * CG_MAX_LAYOUTS; i++)
        c->bufs[i].addr = -1;
    for (size_t i = 0; i < (size_t)nt * NKEYS; i++)
        c->freed[i] = -1;
    for (int k = 0; k < NKEYS; k++)
        for (int r = 0; r < CG_STEP_REGIONS; r++)
            c->tails[r][k] = -1;
    return 0;
}

/* The constant ring of sink s's first region: per 64-byte granule no owner yet. */
static int cc_ring(struct cc *c, const struct cg_sink *s, struct ls_error *err)
{
    c->ring_base = s->ring_base;
    c->ring_end = s->ring_base + s->ring_bytes;
    c->ring_granules = s->ring_bytes / 64;
    c->ring_snap = -1;
    c->ring_owner = malloc(sizeof *c->ring_owner * (c->ring_granules + 1));
    c->ring_prev = malloc(sizeof *c->ring_prev * (c->ring_granules + 1));
    if (!c->ring_owner || !c->ring_prev)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (size_t g = 0; g < c->ring_granules; g++)
        c->ring_owner[g] = c->ring_prev[g] = -1;
    return 0;
}

static void cc_free(struct cc *c, int32_t nt)
{
    if (c->bufs)
        for (size_t i = 0; i < (size_t)nt * CG_MAX_LAYOUTS; i++)
            LS_VEC_FREE(&c->bufs[i].writers);
    free(c->bufs);
    free(c->freed);
    free(c->ring_owner);
    free(c->ring_prev);
    LS_VEC_FREE(&c->snaps);
    LS_VEC_FREE(&c->war);
    LS_VEC_FREE(&c->deps);
}

/* A source op: its tensor's HBM address in its entry layout (unless resident), then the
 * conversion to the layout the assignment wants (none for weights: laid out for free). */
static int compile_source(struct cc_run *R, const struct graph_op *x, const int8_t *pax)
{
    const struct graph *g = R->c->g;
    struct cg_layouts l;
    cg_tensor_layouts(g, x->output, &l);
    if (!cg_memplan_resident(R->c->plan, x->output))
        cc_addr(R->c, x->output, l.pax[0]);
    int rc = 0;
    if (pax[0] != l.pax[0] && !cg_layout_free(g, x->output))
        rc = convert(R, x->output, l.pax[0], pax[0]);
    return limited(R, rc, x->name);
}

/* Each input of x in the layout its producer wrote that the assignment does not want
 * here: one conversion. */
static int convert_inputs(struct cc_run *R, const struct graph_op *x, const int8_t *pax)
{
    const struct graph *g = R->c->g;
    int rc = 0;
    for (int k = 0; k < x->ninputs && !rc; k++) {
        int32_t tn = x->inputs[k];
        int32_t pr = graph_tensor(g, tn)->producer;
        int have = R->op_pax[pr][graph_op(g, pr)->ninputs];
        if (pax[k] != have && !cg_layout_free(g, tn))
            rc = limited(R, convert(R, tn, have, pax[k]), x->name);
    }
    return rc;
}

/* Op `op` (position i in topological order) as one step, unless another op's step emits
 * it (a fused attention group's scores and softmax, an epilogue chain's later ops). */
static int compile_step(struct cc_run *R, int32_t i, int32_t op)
{
    struct cc *c = R->c;
    struct cg_sink *s = R->s;
    const struct graph *g = c->g;
    const struct graph_op *x = graph_op(g, op);
    struct cg_attn at;
    int role = cg_attn_find(g, R->t, op, &at);
    if (role == 0 || role == 1)
        return 0;   /* emitted with the group's ctx op, interleaved tile by tile */
    struct cg_epi ep;
    int erole = cg_epi_find(g, op, &ep);
    if (erole > 0) {   /* lowered with the chain's matmul */
        for (int k = 0; k < x->ninputs; k++)
            release(c, x->inputs[k], i);
        release(c, x->output, i);
        return 0;
    }
    int32_t owner = erole == 0 ? ep.op[ep.n - 1] : op;   /* prices (and tags) the step */
    int rc = 0;
    begin_step(c, s, R->t, R->o);
    if (role == 2)
        rc = wide_step(c, s, R->t);
    if (war_deps(c, x->output) || (erole == 0 && war_deps(c, ep.out)))
        return ls_error_msg(R->err, LS_ERR_NOMEM, "out of memory");
    s->op_tag = sim_program_tag(c->p, graph_op(g, owner)->name);
    s->conv_tag = -1;
    if (s->op_tag < 0)
        return ls_error_msg(R->err, LS_ERR_NOMEM, "out of memory");
    if (role == 2 && !rc) {
        int32_t tags[3];
        for (int k = 0; k < 3 && !rc; k++)
            if ((tags[k] = sim_program_tag(c->p, graph_op(g, at.op[k])->name)) < 0)
                rc = ls_error_msg(R->err, LS_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = cg_lower_attn_group(g, R->t, R->o, &at, 7, tags, s, R->err);
        c->st->ops_lowered += 2;
    } else if (!rc) {
        rc = cg_lower_op(g, R->t, R->o, owner, R->op_pax[owner], s, R->err);
        c->st->ops_lowered += erole == 0 ? ep.n - 1 : 0;
    }
    c->wide = 0;
    c->st->ops_lowered++;
    rc = limited(R, rc, x->name);
    for (int k = 0; k < x->ninputs; k++)
        release(c, x->inputs[k], i);
    for (int k = 0; role == 2 && k < graph_op(g, at.op[0])->ninputs; k++)
        release(c, graph_op(g, at.op[0])->inputs[k], i);   /* Q and K: read here */
    if (x->output >= 0)
        release(c, x->output, i);
    return rc;
}

int cg_compile(const struct graph *g, const struct sim_target *t, const struct cg_options *o,
               const int8_t *const *op_pax, cg_choose_fn choose, void *choose_ctx,
               struct sim_program **out, struct cg_compile_stats *st, struct ls_error *err)
{
    *out = NULL;
    return cg_compile_reuse(g, t, o, op_pax, choose, choose_ctx, out, st, err);
}

int cg_compile_reuse(const struct graph *g, const struct sim_target *t,
                     const struct cg_options *o, const int8_t *const *op_pax,
                     cg_choose_fn choose, void *choose_ctx, struct sim_program **out,
                     struct cg_compile_stats *st, struct ls_error *err)
{
    struct cg_compile_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    struct sim_program *reuse = *out;
    *out = NULL;
    int32_t nops = graph_nops(g), nt = graph_ntensors(g);
    struct cc c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.st = st;
    c.plan = o ? o->plan : NULL;
    if (c.plan)
        plan_stats(c.plan, st);
    int32_t *order = malloc(sizeof *order * (size_t)(nops + 1));
    struct cg_sink s = {.ctx = &c, .emit = cc_emit, .hbm_addr = cc_addr, .hbm_writers = cc_writers,
                        .hbm_wrote = cc_wrote, .hbm_alias = cc_alias, .op_tag = -1, .conv_tag = -1,
                        .ring_used = cc_ring_used, .ring_age = cc_ring_age};
    int rc = cc_alloc(&c, nt, reuse, err);
    if (!rc && !order)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = graph_topo_order(g, order, err);
    if (!rc) {
        cg_sink_region(&s, t, o, 0);
        rc = cc_ring(&c, &s, err);
    }
    struct cc_run R = {&c, &s, t, o, op_pax, choose, choose_ctx, err};
    for (int32_t i = 0; i < nops && !rc; i++) {
        const struct graph_op *x = graph_op(g, order[i]);
        const int8_t *pax = op_pax[order[i]];
        if (x->kind == GRAPH_OP_SOURCE)
            rc = compile_source(&R, x, pax);
        else if (!(rc = convert_inputs(&R, x, pax)) && x->kind != GRAPH_OP_RETURN)
            rc = compile_step(&R, i, order[i]);
    }
    free(s.xdeps);
    st->instructions = c.p ? (int64_t)sim_program_count(c.p) : 0;
    cc_free(&c, nt);
    free(order);
    if (rc) {
        sim_program_free(c.p);
        return rc;
    }
    *out = c.p;
    return 0;
}
