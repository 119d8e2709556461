/* codegen/compile: the whole-graph program for an assignment.
 *
 * Steps (ops and conversions) are emitted in topological order. Step k uses SBUF half k%2
 * and PSUM banks half k%2; the first instruction of step k on each engine / DMA queue
 * depends on the last instructions of step k-2 (which used the same half). HBM buffers are
 * allocated per (tensor, layout) once; reads depend on the stores that wrote them. */
#include <stdio.h>
#include <stdlib.h>

#include "codegen/cg_int.h"
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
    struct cg_compile_stats *st;
};

static struct buf *bufof(struct cc *c, int32_t t, int pax)
{
    int li = cg_layout_index(c->g, t, pax);
    if (li < 0)
        li = 0;
    struct buf *b = &c->bufs[(size_t)t * CG_MAX_LAYOUTS + (size_t)li];
    if (b->addr < 0) {
        const struct graph_tensor *x = graph_tensor(c->g, t);
        uint64_t bytes = (uint64_t)graph_shape_numel(&x->shape) * ls_dtype_size(x->dtype);
        b->addr = (int64_t)c->hbm_next;
        c->hbm_next += (bytes + 63) & ~(uint64_t)63;
        c->st->hbm_bytes = c->hbm_next;
    }
    return b;
}

static uint64_t cc_addr(void *ctx, int32_t t, int pax)
{
    return (uint64_t)bufof(ctx, t, pax)->addr;
}

static size_t cc_writers(void *ctx, int32_t t, int pax, const int64_t **out)
{
    struct buf *b = bufof(ctx, t, pax);
    *out = b->writers.data;
    return b->writers.len;
}

static int cc_wrote(void *ctx, int32_t t, int pax, int64_t h)
{
    struct buf *b = bufof(ctx, t, pax);
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
        c->tails[c->step & 1][key] = h;
    return h;
}

static void begin_step(struct cc *c, struct cg_sink *s, const struct sim_target *t)
{
    c->step++;
    for (int k = 0; k < NKEYS; k++) {
        c->prev2[k] = c->tails[c->step & 1][k];
        c->tails[c->step & 1][k] = -1;
        c->seen[k] = 0;
    }
    /* a step also waits for the previous step's tails on engines it has not used yet:
     * prev2 covers the same-half reuse, which is the only hazard */
    uint64_t half = cg_step_sbuf_bytes(t);
    s->sbuf_base = (uint64_t)(c->step & 1) * half;
    s->sbuf_bytes = half;
    s->psum_nbanks = cg_step_psum_banks(t);
    s->psum_bank0 = (uint32_t)(c->step & 1) * s->psum_nbanks;
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
    begin_step(c, s, t);
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
    c.p = sim_program_new();
    c.bufs = calloc((size_t)nt * CG_MAX_LAYOUTS + 1, sizeof *c.bufs);
    int32_t *order = malloc(sizeof *order * (size_t)(nops + 1));
    int rc = 0;
    if (!c.p || !c.bufs || !order) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < (size_t)nt * CG_MAX_LAYOUTS; i++)
        c.bufs[i].addr = -1;
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
            bufof(&c, x->output, l.pax[0]);
            if (pax[0] != l.pax[0])
                rc = convert(&c, &s, t, o, x->output, l.pax[0], pax[0], choose, choose_ctx, err);
            if (rc && s.limit)
                rc = name_limit(err, x->name);
            continue;
        }
        for (int k = 0; k < x->ninputs && !rc; k++) {
            int32_t tn = x->inputs[k];
            int32_t pr = graph_tensor(g, tn)->producer;
            int have = op_pax[pr][graph_op(g, pr)->ninputs];
            if (pax[k] != have)
                rc = convert(&c, &s, t, o, tn, have, pax[k], choose, choose_ctx, err);
            if (rc && s.limit)
                rc = name_limit(err, x->name);
        }
        if (rc || x->kind == GRAPH_OP_RETURN)
            continue;
        begin_step(&c, &s, t);
        s.op_tag = sim_program_tag(c.p, x->name);
        s.conv_tag = -1;
        rc = cg_lower_op(g, t, o, op, pax, &s, err);
        st->ops_lowered++;
        if (rc && s.limit)
            rc = name_limit(err, x->name);
    }
    st->instructions = c.p ? (int64_t)sim_program_count(c.p) : 0;
done:
    if (c.bufs)
        for (size_t i = 0; i < (size_t)nt * CG_MAX_LAYOUTS; i++)
            LS_VEC_FREE(&c.bufs[i].writers);
    free(c.bufs);
    free(order);
    LS_VEC_FREE(&c.deps);
    if (rc) {
        sim_program_free(c.p);
        return rc;
    }
    *out = c.p;
    return 0;
}
