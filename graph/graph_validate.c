/* graph: validation, topological order and structural equality. */
#include "graph/graph_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BAD(...) ls_error_msg(err, LS_ERR_INPUT, __VA_ARGS__)

/* Min-heap of op ids for a deterministic Kahn order (smallest ready id first). */
static void heap_push(int32_t *h, size_t *n, int32_t v)
{
    size_t i = (*n)++;
    h[i] = v;
    while (i && h[(i - 1) / 2] > h[i]) {
        int32_t t = h[i];
        h[i] = h[(i - 1) / 2];
        h[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
}

static int32_t heap_pop(int32_t *h, size_t *n)
{
    int32_t top = h[0];
    h[0] = h[--*n];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < *n && h[l] < h[m])
            m = l;
        if (r < *n && h[r] < h[m])
            m = r;
        if (m == i)
            break;
        int32_t t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
    return top;
}

int graph_topo_order(const struct graph *g, int32_t *order, struct ls_error *err)
{
    int32_t n = graph_nops(g);
    if (n == 0)
        return 0;
    int32_t *indeg = calloc((size_t)n, sizeof *indeg);
    int32_t *heap = malloc((size_t)n * sizeof *heap);
    if (!indeg || !heap) {
        free(indeg);
        free(heap);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (int32_t o = 0; o < n; o++) {
        const struct graph_op *op = graph_op(g, o);
        for (int i = 0; i < op->ninputs; i++)
            if (graph_tensor(g, op->inputs[i])->producer >= 0)
                indeg[o]++;
    }
    size_t hn = 0, done = 0;
    for (int32_t o = 0; o < n; o++)
        if (!indeg[o])
            heap_push(heap, &hn, o);
    while (hn) {
        int32_t o = heap_pop(heap, &hn);
        order[done++] = o;
        int32_t t = graph_op(g, o)->output;
        if (t < 0)
            continue;
        const struct graph_tensor *ten = graph_tensor(g, t);
        if (ten->producer != o)
            continue;
        for (size_t u = 0; u < ten->nuses; u++)
            if (--indeg[ten->uses[u].op] == 0)
                heap_push(heap, &hn, ten->uses[u].op);
    }
    int rc = 0;
    if (done < (size_t)n) {
        for (int32_t o = 0; o < n; o++)
            if (indeg[o]) {
                rc = BAD("the graph has a cycle through op '%s'", graph_op(g, o)->name);
                break;
            }
    }
    free(indeg);
    free(heap);
    return rc;
}

static int check_op(const struct graph *g, int32_t id, struct ls_error *err)
{
    const struct graph_op *op = graph_op(g, id);
    const char *kn = graph_op_kind_name(op->kind);
    int lo, hi;
    graph_kind_arity(op->kind, &lo, &hi);
    if (op->ninputs < lo || (hi >= 0 && op->ninputs > hi))
        return BAD("op '%s' (%s): wrong number of inputs (%d)", op->name, kn, op->ninputs);
    for (int i = 0; i < op->ninputs; i++)
        if (!graph_tensor(g, op->inputs[i]))
            return BAD("op '%s' (%s): input %d is not a tensor", op->name, kn, i);
    if (op->kind == GRAPH_OP_RETURN) {
        const struct graph_tensor *t = graph_tensor(g, op->inputs[0]);
        if (op->output != -1)
            return BAD("op '%s': a return has no output", op->name);
        if (t->role == GRAPH_ROLE_ACTIVATION)
            return BAD("tensor '%s' is returned but has role activation", t->name);
        for (size_t u = 0; u < t->nuses; u++) {
            const struct graph_op *o2 = graph_op(g, t->uses[u].op);
            if (t->uses[u].op != id && o2->kind == GRAPH_OP_RETURN)
                return BAD("tensor '%s' is returned twice", t->name);
        }
        return 0;
    }
    const struct graph_tensor *out = graph_tensor(g, op->output);
    if (!out)
        return BAD("op '%s' (%s): no output tensor", op->name, kn);
    if (op->kind == GRAPH_OP_SOURCE) {
        if (out->role != GRAPH_ROLE_INPUT && out->role != GRAPH_ROLE_WEIGHT)
            return BAD("source op '%s' produces '%s' with role %s (expected input or weight)",
                       op->name, out->name, graph_role_name(out->role));
        return 0;
    }
    if (out->role != GRAPH_ROLE_ACTIVATION && out->role != GRAPH_ROLE_OUTPUT)
        return BAD("op '%s' (%s) produces '%s' with role %s (expected activation or output)",
                   op->name, kn, out->name, graph_role_name(out->role));
    int returned = 0;
    for (size_t u = 0; u < out->nuses; u++)
        returned |= graph_op(g, out->uses[u].op)->kind == GRAPH_OP_RETURN;
    if (returned != (out->role == GRAPH_ROLE_OUTPUT))
        return BAD("tensor '%s' has role %s but is %sreturned", out->name,
                   graph_role_name(out->role), returned ? "" : "not ");
    struct graph_shape s;
    enum ls_dtype dt;
    struct ls_error e;
    ls_error_clear(&e);
    if (graph_infer(g, op->kind, op->inputs, op->ninputs, &op->attrs, &out->shape, &s, &dt, &e))
        return BAD("op '%s': %s", op->name, e.msg);
    char b1[160], b2[160];
    if (!graph_shape_equal(&s, &out->shape))
        return BAD("op '%s' (%s): declared shape %s but the inputs give %s", op->name, kn,
                   graph_shape_str(&out->shape, 0, b1, sizeof b1),
                   graph_shape_str(&s, 0, b2, sizeof b2));
    if (!graph_output_dtype_ok(op->kind, dt, out->dtype))
        return BAD("op '%s' (%s): declared dtype %s but the inputs give %s", op->name, kn,
                   ls_dtype_name(out->dtype), ls_dtype_name(dt));
    return 0;
}

int graph_validate(const struct graph *g, struct ls_error *err)
{
    if (g->failed) {
        if (err)
            *err = g->err;
        return g->err.code ? g->err.code : LS_ERR_INTERNAL;
    }
    for (int32_t t = 0; t < graph_ntensors(g); t++) {
        const struct graph_tensor *ten = graph_tensor(g, t);
        if (ten->nproducers != 1)
            return BAD("tensor '%s' has %d producers (expected exactly 1)", ten->name,
                       (int)ten->nproducers);
    }
    for (int32_t o = 0; o < graph_nops(g); o++)
        if (check_op(g, o, err))
            return LS_ERR_INPUT;
    int32_t *order = malloc(((size_t)graph_nops(g) + 1) * sizeof *order);
    if (!order)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = graph_topo_order(g, order, err);
    free(order);
    return rc;
}

/* ---- equality ---- */

#define DIFF(...) (why ? (void)snprintf(why, n, __VA_ARGS__) : (void)0, 0)

static int str_eq(const char *a, const char *b)
{
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static int ints_eq(const int *a, const int *b, int n)
{
    return n <= 0 || memcmp(a, b, sizeof(int) * (size_t)n) == 0;
}

static int attrs_eq(enum graph_op_kind k, const struct graph_attrs *a, const struct graph_attrs *b,
                    int rank)
{
    switch (k) {
    case GRAPH_OP_MATMUL:
    case GRAPH_OP_BATCH_MATMUL:
        return a->ncontract == b->ncontract && a->nbatch == b->nbatch &&
               ints_eq(a->lhs_contract, b->lhs_contract, a->ncontract) &&
               ints_eq(a->rhs_contract, b->rhs_contract, a->ncontract) &&
               ints_eq(a->lhs_batch, b->lhs_batch, a->nbatch) &&
               ints_eq(a->rhs_batch, b->rhs_batch, a->nbatch);
    case GRAPH_OP_CONV2D:
        return memcmp(a->stride, b->stride, sizeof a->stride) == 0 &&
               memcmp(a->pad, b->pad, sizeof a->pad) == 0 &&
               memcmp(a->dilation, b->dilation, sizeof a->dilation) == 0 &&
               a->groups == b->groups;
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        return memcmp(a->kernel, b->kernel, sizeof a->kernel) == 0 &&
               memcmp(a->stride, b->stride, sizeof a->stride) == 0 &&
               memcmp(a->pad, b->pad, sizeof a->pad) == 0;
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN:
        return a->naxes == b->naxes && ints_eq(a->axes, b->axes, a->naxes) && a->keep == b->keep;
    case GRAPH_OP_SOFTMAX:
    case GRAPH_OP_LAYERNORM:
    case GRAPH_OP_RMSNORM:
    case GRAPH_OP_BATCHNORM:
    case GRAPH_OP_CONCAT:
    case GRAPH_OP_GATHER:
        return a->axis == b->axis;
    case GRAPH_OP_SLICE:
        return a->axis == b->axis && a->begin == b->begin && a->end == b->end &&
               a->step == b->step;
    case GRAPH_OP_TRANSPOSE:
        return ints_eq(a->perm, b->perm, rank);
    case GRAPH_OP_CAST:
        return a->dtype == b->dtype;
    default:
        return 1;
    }
}

int graph_equal(const struct graph *a, const struct graph *b, char *why, size_t n)
{
    if (strcmp(a->name, b->name))
        return DIFF("graph names differ: '%s' vs '%s'", a->name, b->name);
    if (graph_ntensors(a) != graph_ntensors(b))
        return DIFF("tensor counts differ: %d vs %d", (int)graph_ntensors(a),
                    (int)graph_ntensors(b));
    if (graph_nops(a) != graph_nops(b))
        return DIFF("op counts differ: %d vs %d", (int)graph_nops(a), (int)graph_nops(b));
    for (int32_t t = 0; t < graph_ntensors(a); t++) {
        const struct graph_tensor *x = graph_tensor(a, t), *y = graph_tensor(b, t);
        if (strcmp(x->name, y->name) || x->dtype != y->dtype || x->role != y->role ||
            !graph_shape_equal(&x->shape, &y->shape))
            return DIFF("tensor %d differs: '%s' vs '%s'", (int)t, x->name, y->name);
        for (int i = 0; i < x->shape.rank; i++)
            if (!str_eq(x->shape.dims[i].role, y->shape.dims[i].role))
                return DIFF("tensor '%s' axis %d role differs", x->name, i);
    }
    for (int32_t o = 0; o < graph_nops(a); o++) {
        const struct graph_op *x = graph_op(a, o), *y = graph_op(b, o);
        if (strcmp(x->name, y->name) || x->kind != y->kind || x->ninputs != y->ninputs ||
            x->output != y->output)
            return DIFF("op %d differs: '%s' (%s) vs '%s' (%s)", (int)o, x->name,
                        graph_op_kind_name(x->kind), y->name, graph_op_kind_name(y->kind));
        for (int i = 0; i < x->ninputs; i++)
            if (x->inputs[i] != y->inputs[i])
                return DIFF("op '%s' input %d differs", x->name, i);
        int rank = x->ninputs ? graph_tensor(a, x->inputs[0])->shape.rank : 0;
        if (!attrs_eq(x->kind, &x->attrs, &y->attrs, rank))
            return DIFF("op '%s' attributes differ", x->name);
    }
    return 1;
}
