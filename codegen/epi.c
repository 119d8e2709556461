/* codegen/epi: recognising epilogue chains (see epi.h); the lowering is the matmul's
 * (codegen/mm.c) or the conv's (codegen/conv.c), whose evacuation takes the bias and the
 * activation. */
#include "codegen/epi.h"

#include "codegen/cg_int.h"

/* Activations the ACT engine applies in the evacuating instruction itself. */
static int act_kind(enum graph_op_kind k)
{
    return k == GRAPH_OP_GELU || k == GRAPH_OP_RELU || k == GRAPH_OP_TANH ||
           k == GRAPH_OP_SIGMOID;
}

enum sim_func cg_epi_act_fn(enum graph_op_kind k)
{
    return act_kind(k) ? cg_op_fn(k) : SIM_FN_NONE;
}

static int same_shape(const struct graph *g, int32_t a, int32_t b)
{
    const struct graph_shape *x = &graph_tensor(g, a)->shape, *y = &graph_tensor(g, b)->shape;
    if (x->rank != y->rank)
        return 0;
    for (int i = 0; i < x->rank; i++)
        if (x->dims[i].size != y->dims[i].size)
            return 0;
    return 1;
}

/* The one reader of t (op id), or -1. */
static int32_t sole_reader(const struct graph *g, int32_t t)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    return x->nuses == 1 ? x->uses[0].op : -1;
}

/* The activation alone reading t, of t's shape, or -1. */
static int32_t sole_act(const struct graph *g, int32_t t)
{
    int32_t u = sole_reader(g, t);
    if (u < 0)
        return -1;
    const struct graph_op *a = graph_op(g, u);
    return act_kind(a->kind) && a->ninputs == 1 && a->output >= 0 && same_shape(g, t, a->output)
               ? u
               : -1;
}

/* A plain projection x[..., K] @ w[K, N] with w a weight. */
static int projection(const struct graph *g, const struct graph_op *m)
{
    if (m->kind != GRAPH_OP_MATMUL || m->ninputs != 2 || m->output < 0 ||
        m->attrs.nbatch != 0 || m->attrs.ncontract != 1)
        return 0;
    const struct graph_tensor *x = graph_tensor(g, m->inputs[0]);
    const struct graph_tensor *w = graph_tensor(g, m->inputs[1]);
    return cg_layout_free(g, m->inputs[1]) && !cg_layout_free(g, m->inputs[0]) &&
           w->shape.rank == 2 && m->attrs.rhs_contract[0] == 0 && x->shape.rank >= 2 &&
           m->attrs.lhs_contract[0] == x->shape.rank - 1 &&
           graph_tensor(g, m->output)->shape.rank == x->shape.rank;
}

/* The chain starting at matmul mm, or -1. */
static int chain_from(const struct graph *g, int32_t mm, struct cg_epi *c)
{
    const struct graph_op *m = graph_op(g, mm);
    if (!projection(g, m))
        return -1;
    int32_t a = sole_reader(g, m->output);
    if (a < 0)
        return -1;
    const struct graph_op *ad = graph_op(g, a);
    if (ad->kind != GRAPH_OP_ADD || ad->ninputs != 2 || ad->output < 0)
        return -1;
    int slot = ad->inputs[0] == m->output ? 0 : 1;
    int32_t b = ad->inputs[1 - slot];
    const struct graph_tensor *bt = graph_tensor(g, b);
    int64_t N = graph_tensor(g, m->inputs[1])->shape.dims[1].size;
    if (b == m->output || !cg_layout_free(g, b) || bt->shape.rank != 1 ||
        bt->shape.dims[0].size != N || N < 2 || !same_shape(g, m->output, ad->output))
        return -1;
    *c = (struct cg_epi){.op = {mm, a, -1}, .n = 2, .x = m->inputs[0], .w = m->inputs[1],
                         .bias = b, .out = ad->output, .act = GRAPH_OP_SOURCE};
    int32_t u = sole_act(g, ad->output);
    if (u >= 0) {
        c->op[2] = u;
        c->n = 3;
        c->out = graph_op(g, u)->output;
        c->act = graph_op(g, u)->kind;
    }
    return 0;
}

/* The chain starting at conv2d cv: a standard conv (groups 1: every lowering evacuates
 * PSUM through ACT) whose output only an activation reads; or -1. */
static int conv_chain_from(const struct graph *g, int32_t cv, struct cg_epi *c)
{
    const struct graph_op *x = graph_op(g, cv);
    if (x->kind != GRAPH_OP_CONV2D || x->attrs.groups > 1 || x->ninputs != 2 || x->output < 0 ||
        graph_tensor(g, x->inputs[0])->shape.dims[1].size <= 1)
        return -1;
    int32_t u = sole_act(g, x->output);
    if (u < 0)
        return -1;
    *c = (struct cg_epi){.op = {cv, u, -1}, .n = 2, .conv = 1, .x = x->inputs[0],
                         .w = x->inputs[1], .bias = -1, .out = graph_op(g, u)->output,
                         .act = graph_op(g, u)->kind};
    return 0;
}

static int32_t producer_of(const struct graph *g, int32_t t)
{
    return t >= 0 ? graph_tensor(g, t)->producer : -1;
}

/* The chain whose add is op a (a matmul producing one of its operands), or -1. */
static int chain_at_add(const struct graph *g, int32_t a, struct cg_epi *c)
{
    if (a < 0)
        return -1;
    const struct graph_op *x = graph_op(g, a);
    if (x->kind != GRAPH_OP_ADD || x->ninputs != 2)
        return -1;
    for (int s = 0; s < 2; s++) {
        int32_t p = producer_of(g, x->inputs[s]);
        if (p >= 0 && chain_from(g, p, c) == 0 && c->op[1] == a)
            return 0;
    }
    return -1;
}

int cg_epi_find(const struct graph *g, int32_t op, struct cg_epi *c)
{
    const struct graph_op *x = graph_op(g, op);
    int rc = -1;
    if (x->kind == GRAPH_OP_MATMUL)
        rc = chain_from(g, op, c);
    else if (x->kind == GRAPH_OP_CONV2D)
        rc = conv_chain_from(g, op, c);
    else if (x->kind == GRAPH_OP_ADD)
        rc = chain_at_add(g, op, c);
    else if (act_kind(x->kind) && x->ninputs == 1) {
        int32_t p = producer_of(g, x->inputs[0]);
        rc = p >= 0 && graph_op(g, p)->kind == GRAPH_OP_CONV2D ? conv_chain_from(g, p, c)
                                                                : chain_at_add(g, p, c);
    }
    if (rc)
        return -1;
    for (int i = 0; i < c->n; i++)
        if (c->op[i] == op)
            return i;
    return -1;
}

int cg_epi_fused(const struct graph *g, int32_t t)
{
    int32_t p = producer_of(g, t);
    struct cg_epi c;
    if (p < 0)
        return 0;
    int role = cg_epi_find(g, p, &c);
    return role >= 0 && role < c.n - 1;
}

void cg_epi_cfg(const struct graph *g, const struct cg_epi *c, int role, int8_t *pax)
{
    struct cg_layouts l;
    const struct graph_op *x = graph_op(g, c->op[role]);
    for (int s = 0; s < x->ninputs; s++) {
        cg_tensor_layouts(g, x->inputs[s], &l);
        pax[s] = (int8_t)l.pax[0];
    }
    if (role == 0 && c->conv) {   /* input channels on partitions (codegen/config.c) */
        pax[0] = 1;
        pax[1] = 1;
    } else if (role == 0) {   /* both operands with the contracted axis on partitions */
        pax[0] = (int8_t)x->attrs.lhs_contract[0];
        pax[1] = 0;
    }
    cg_tensor_layouts(g, x->output, &l);
    pax[x->ninputs] = (int8_t)l.pax[0];
}

void cg_epi_mm_pax(const struct graph *g, const struct cg_epi *c, int po, int8_t *pax)
{
    cg_epi_cfg(g, c, 0, pax);
    pax[2] = (int8_t)po;
}
