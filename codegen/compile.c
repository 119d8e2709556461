/* codegen/compile: the whole-graph program for an assignment.
 *
 * Steps (ops and conversions) are emitted in topological order. Step k uses SBUF half k%2
 * and PSUM banks half k%2; the first instruction of step k on each engine / DMA queue
 * depends on the last instructions of step k-2 (which used the same half). HBM buffers are
 * allocated per (tensor, layout) once; reads depend on the stores that wrote them. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/cg_int.h"
#include "codegen/memplan.h"
#include "util/vec.h"

#define NKEYS (LS_ENGINE_COUNT + SIM_MAX_QUEUES)

typedef LS_VEC(int64_t) hvec;

struct buf {
    int64_t addr;            /* -1: not allocated */
    hvec writers;
};

struct cc {
    const struct graph *g;
    struct sim_program *p;
    struct buf *bufs;        /* ntensors * (CG_MAX_LAYOUTS) */
    uint64_t hbm_next;
    int64_t tails[2][NKEYS];
    int64_t prev2[NKEYS];
    unsigned char seen[NKEYS];
    int step;
    LS_VEC(uint32_t) deps;
    /* SBUF residency: the last instruction per key so far; per resident tensor, that
     * snapshot when its last reader was emitted (the readers its bytes' next occupant
     * must wait for); the extra deps of the first instruction per key of this step. */
    const struct cg_memplan *plan;
    int64_t last[NKEYS];
    int64_t *freed;              /* ntensors * NKEYS, -1 */
    hvec war;
    struct cg_compile_stats *st;
};

static struct buf *bufof(struct cc *c, int32_t t, int pax)
{
    int li = cg_layout_index(c->g, t, pax);
    return &c->bufs[(size_t)t * CG_MAX_LAYOUTS + (size_t)(li < 0 ? 0 : li)];
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
    int eng = sim_program_instr(c->p, (size_t)h)->engine;
    if (eng != LS_ENGINE_DMA)
        for (size_t i = 0; i < b->writers.len; i++)
            if (sim_program_instr(c->p, (size_t)b->writers.data[i])->engine == eng) {
                b->writers.data[i] = h;
                return 0;
            }
    return LS_VEC_PUSH(&b->writers, h) ? LS_ERR_NOMEM : 0;
}

static int64_t cc_emit(void *ctx, const struct sim_instr *in, const int64_t *deps, size_t nd,
                       struct ls_error *err)
{
    struct cc *c = ctx;
    int key = in->engine == LS_ENGINE_DMA ? LS_ENGINE_COUNT + (in->queue % SIM_MAX_QUEUES)
                                          : in->engine;
    c->deps.len = 0;
    for (size_t i = 0; i < nd; i++)
        if (deps[i] >= 0 && LS_VEC_PUSH(&c->deps, (uint32_t)deps[i]))
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
    if (!c->seen[key]) {
        c->seen[key] = 1;
        for (int k = 0; k < NKEYS; k++)
            if (c->prev2[k] >= 0 && LS_VEC_PUSH(&c->deps, (uint32_t)c->prev2[k]))
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
        for (size_t k = 0; k < c->war.len; k++)
            if (LS_VEC_PUSH(&c->deps, (uint32_t)c->war.data[k]))
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
    }
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
    if (h >= 0)
        c->tails[c->step & 1][key] = c->last[key] = h;
    return h;
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

static void begin_step(struct cc *c, struct cg_sink *s, const struct sim_target *t,
                       const struct cg_options *o)
{
    c->step++;
    for (int k = 0; k < NKEYS; k++) {
        c->prev2[k] = c->tails[c->step & 1][k];
        c->tails[c->step & 1][k] = -1;
        c->seen[k] = 0;
    }
    /* prev2 covers the reuse of this step's scratch half by step k-2; war_deps the reuse
     * of resident bytes */
    c->war.len = 0;
    cg_sink_region(s, t, o, c->step & 1);
}

static int convert(struct cc *c, struct cg_sink *s, const struct sim_target *t,
                   const struct cg_options *o, int32_t tn, int from, int to, cg_choose_fn choose,
                   void *cctx, struct ls_error *err)
{
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
    enum cg_conv_method m = choose(cctx, tn, from, to);
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

int cg_compile(const struct graph *g, const struct sim_target *t, const struct cg_options *o,
               const int8_t *const *op_pax, cg_choose_fn choose, void *choose_ctx,
               struct sim_program **out, struct cg_compile_stats *st, struct ls_error *err)
{
    struct cg_compile_stats dummy;
    if (!st)
        st = &dummy;
    memset(st, 0, sizeof *st);
    *out = NULL;
    int32_t nops = graph_nops(g), nt = graph_ntensors(g);
    struct cc c;
    memset(&c, 0, sizeof c);
    c.g = g;
    c.st = st;
    c.plan = o ? o->plan : NULL;
    if (c.plan) {
        st->resident_tensors = c.plan->resident_tensors;
        st->spilled_tensors = c.plan->spilled_tensors;
        st->resident_bytes = c.plan->resident_bytes;
        st->spilled_bytes = c.plan->spilled_bytes;
        st->resident_region = c.plan->region;
    }
    for (int k = 0; k < NKEYS; k++)
        c.last[k] = -1;
    c.p = sim_program_new();
    c.bufs = calloc((size_t)nt * CG_MAX_LAYOUTS + 1, sizeof *c.bufs);
    c.freed = malloc(sizeof *c.freed * ((size_t)nt * NKEYS + 1));
    int32_t *order = malloc(sizeof *order * (size_t)(nops + 1));
    int rc = 0;
    if (!c.p || !c.bufs || !order || !c.freed) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < (size_t)nt * CG_MAX_LAYOUTS; i++)
        c.bufs[i].addr = -1;
    for (size_t i = 0; i < (size_t)nt * NKEYS; i++)
        c.freed[i] = -1;
    for (int k = 0; k < NKEYS; k++)
        c.tails[0][k] = c.tails[1][k] = -1;
    if ((rc = graph_topo_order(g, order, err)))
        goto done;
    struct cg_sink s = {.ctx = &c, .emit = cc_emit, .hbm_addr = cc_addr, .hbm_writers = cc_writers,
                        .hbm_wrote = cc_wrote, .op_tag = -1, .conv_tag = -1};
    for (int32_t i = 0; i < nops && !rc; i++) {
        int32_t op = order[i];
        const struct graph_op *x = graph_op(g, op);
        const int8_t *pax = op_pax[op];
        if (x->kind == GRAPH_OP_SOURCE) {
            struct cg_layouts l;
            cg_tensor_layouts(g, x->output, &l);
            if (!cg_memplan_resident(c.plan, x->output))
                cc_addr(&c, x->output, l.pax[0]);
            if (pax[0] != l.pax[0] && !cg_layout_free(g, x->output))
                rc = convert(&c, &s, t, o, x->output, l.pax[0], pax[0], choose, choose_ctx, err);
            if (rc && s.limit)
                rc = name_limit(err, x->name);
            continue;
        }
        for (int k = 0; k < x->ninputs && !rc; k++) {
            int32_t tn = x->inputs[k];
            int32_t pr = graph_tensor(g, tn)->producer;
            int have = op_pax[pr][graph_op(g, pr)->ninputs];
            if (pax[k] != have && !cg_layout_free(g, tn))
                rc = convert(&c, &s, t, o, tn, have, pax[k], choose, choose_ctx, err);
            if (rc && s.limit)
                rc = name_limit(err, x->name);
        }
        if (rc || x->kind == GRAPH_OP_RETURN)
            continue;
        begin_step(&c, &s, t, o);
        if (war_deps(&c, x->output)) {
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            break;
        }
        s.op_tag = sim_program_tag(c.p, x->name);
        s.conv_tag = -1;
        rc = cg_lower_op(g, t, o, op, pax, &s, err);
        st->ops_lowered++;
        if (rc && s.limit)
            rc = name_limit(err, x->name);
        for (int k = 0; k < x->ninputs; k++)
            release(&c, x->inputs[k], i);
        if (x->output >= 0)
            release(&c, x->output, i);
    }
    st->instructions = c.p ? (int64_t)sim_program_count(c.p) : 0;
done:
    if (c.bufs)
        for (size_t i = 0; i < (size_t)nt * CG_MAX_LAYOUTS; i++)
            LS_VEC_FREE(&c.bufs[i].writers);
    free(c.bufs);
    free(c.freed);
    LS_VEC_FREE(&c.war);
    free(order);
    LS_VEC_FREE(&c.deps);
    if (rc) {
        sim_program_free(c.p);
        return rc;
    }
    *out = c.p;
    return 0;
}
