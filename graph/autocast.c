/* graph/autocast: the bf16 auto-cast pass (graph/autocast.h): decide per tensor, then copy
 * the graph op by op in topological order with the decisions applied. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/autocast.h"

static const char *const mode_names[GRAPH_AUTOCAST_COUNT] = {"none", "matmul"};

const char *graph_autocast_name(enum graph_autocast m)
{
    return (unsigned)m < GRAPH_AUTOCAST_COUNT ? mode_names[m] : "?";
}

int graph_autocast_parse(const char *s, enum graph_autocast *out)
{
    for (int m = 0; s && m < GRAPH_AUTOCAST_COUNT; m++)
        if (!strcmp(s, mode_names[m])) {
            *out = (enum graph_autocast)m;
            return 0;
        }
    return -1;
}

/* What becomes of one tensor. */
enum plan {
    KEEP,     /* unchanged */
    RETYPE,   /* its dtype becomes bf16 (weight stored bf16, or its producer writes bf16) */
    CAST,     /* unchanged, plus one cast op to bf16 read by its matmul/conv consumers */
    COPY      /* a weight also read by other ops: unchanged, plus a second weight holding its
               * bf16 copy (made at compile time, like RETYPE) for its matmul/conv consumers */
};

static int is_dot(enum graph_op_kind k)
{
    return k == GRAPH_OP_MATMUL || k == GRAPH_OP_BATCH_MATMUL || k == GRAPH_OP_CONV2D;
}

static enum plan plan_of(const struct graph *g, int32_t t)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    if (x->dtype != LS_DT_FP32)
        return KEEP;
    size_t dots = 0;
    for (size_t u = 0; u < x->nuses; u++)
        dots += is_dot(graph_op(g, x->uses[u].op)->kind);
    if (dots == 0)
        return KEEP;
    const struct graph_op *p = graph_op(g, x->producer);
    int weight = p->kind == GRAPH_OP_SOURCE && x->role == GRAPH_ROLE_WEIGHT;
    if (dots < x->nuses)   /* also read by other ops (or returned): they keep fp32 */
        return weight ? COPY : CAST;
    if (p->kind == GRAPH_OP_SOURCE) /* weights are cast at compile time, inputs at run time */
        return weight ? RETYPE : CAST;
    /* matmul/conv outputs stay fp32 (the PSUM evacuation writes fp32); DMA moves can't cast */
    return p->kind == GRAPH_OP_CAST || graph_kind_may_narrow(p->kind) ? RETYPE : CAST;
}

struct copier {
    const struct graph *g;
    struct graph *out;
    enum plan *plan;     /* per tensor of g */
    int32_t *map;        /* tensor of g -> tensor of out */
    int32_t *cast;       /* tensor of g -> its bf16 cast in out, or -1 */
    int32_t *in;         /* scratch: one op's inputs */
};

/* "<base>.bf16", else "<base>.bf16.K": a name neither graph has. -1 when none fits. */
static int cast_name(const struct copier *c, const char *base, char *buf, size_t n)
{
    for (int k = 0; k < 1000; k++) {
        int w = k ? snprintf(buf, n, "%s.bf16.%d", base, k) : snprintf(buf, n, "%s.bf16", base);
        if (w < 0 || (size_t)w >= n)
            return -1;
        if (graph_find_tensor(c->g, buf) < 0 && graph_find_tensor(c->out, buf) < 0)
            return 0;
    }
    return -1;
}

static int add_cast(struct copier *c, int32_t t)
{
    char name[GRAPH_MAX_NAME + 1];
    const char *base = graph_tensor(c->g, t)->name;
    if (cast_name(c, base, name, sizeof name))
        return graph_fail(c->out, LS_ERR_INPUT, "autocast: no name for the bf16 cast of '%s'",
                          base);
    const struct graph_tensor *x = graph_tensor(c->g, t);
    if (c->plan[t] == COPY) { /* a tied embedding: its logits matmul reads a bf16 twin */
        c->cast[t] = graph_add_tensor_shape(c->out, name, LS_DT_BF16, x->role, &x->shape);
        if (c->cast[t] >= 0 && graph_add_op(c->out, GRAPH_OP_SOURCE, NULL, 0, c->cast[t], NULL) < 0)
            return -1;
    } else
        c->cast[t] = graph_cast(c->out, name, c->map[t], LS_DT_BF16);
    return c->cast[t] < 0 ? -1 : 0;
}

/* Copy op o of g (its output tensor first, then the op, then the output's cast if any). */
static int copy_op(struct copier *c, int32_t o)
{
    const struct graph_op *op = graph_op(c->g, o);
    for (int i = 0; i < op->ninputs; i++) {
        int32_t t = op->inputs[i];
        c->in[i] = is_dot(op->kind) && c->cast[t] >= 0 ? c->cast[t] : c->map[t];
    }
    struct graph_attrs at = op->attrs;
    int32_t nt = -1;
    if (op->output >= 0) {
        const struct graph_tensor *x = graph_tensor(c->g, op->output);
        int retype = c->plan[op->output] == RETYPE;
        if (retype && op->kind == GRAPH_OP_CAST)
            at.dtype = LS_DT_BF16;
        nt = graph_add_tensor_shape(c->out, x->name, retype ? LS_DT_BF16 : x->dtype, x->role,
                                    &x->shape);
        c->map[op->output] = nt;
        if (nt < 0 || (x->state && graph_set_state(c->out, nt)))
            return -1;
    }
    if (graph_add_op(c->out, op->kind, c->in, op->ninputs, nt, &at) < 0)
        return -1;
    if (op->output < 0 || (c->plan[op->output] != CAST && c->plan[op->output] != COPY))
        return 0;
    return add_cast(c, op->output);
}

static int copy_all(struct copier *c, enum graph_autocast mode, struct ls_error *err)
{
    int32_t nt = graph_ntensors(c->g), no = graph_nops(c->g);
    int32_t *order = malloc(((size_t)no + 1) * sizeof *order);
    if (!order)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = graph_topo_order(c->g, order, err);
    for (int32_t t = 0; !rc && t < nt; t++) {
        c->plan[t] = mode == GRAPH_AUTOCAST_MATMUL ? plan_of(c->g, t) : KEEP;
        c->map[t] = c->cast[t] = -1;
    }
    for (int32_t i = 0; !rc && i < no; i++)
        if (copy_op(c, order[i]))
            break;
    free(order);
    if (!rc && graph_error(c->out)) {
        if (err)
            *err = *graph_error(c->out);
        rc = graph_error(c->out)->code ? graph_error(c->out)->code : LS_ERR_INTERNAL;
    }
    return rc ? rc : graph_validate(c->out, err);
}

int graph_autocast(const struct graph *g, enum graph_autocast mode, struct graph **out,
                   struct ls_error *err)
{
    *out = NULL;
    if ((unsigned)mode >= GRAPH_AUTOCAST_COUNT)
        return ls_error_msg(err, LS_ERR_INPUT, "autocast: bad mode %d", (int)mode);
    size_t nt = (size_t)graph_ntensors(g) + 1;
    struct copier c = {g, graph_new(graph_name(g)), malloc(nt * sizeof *c.plan),
                       malloc(nt * sizeof *c.map), malloc(nt * sizeof *c.cast),
                       malloc(GRAPH_MAX_INPUTS * sizeof *c.in)};
    int rc = c.out && c.plan && c.map && c.cast && c.in
                 ? copy_all(&c, mode, err)
                 : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    free(c.plan);
    free(c.map);
    free(c.cast);
    free(c.in);
    if (rc)
        graph_free(c.out);
    else
        *out = c.out;
    return rc;
}
