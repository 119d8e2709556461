/* graph/foldbn: batchnorm folding (graph/foldbn.h): mark the folds, then copy the graph op
 * by op in topological order without the folded batchnorms and their parameters. */
#include <stdlib.h>

#include "graph/foldbn.h"

/* The batchnorm that folds into conv op c, or -1. */
static int32_t folds_into(const struct graph *g, int32_t c)
{
    const struct graph_op *conv = graph_op(g, c);
    if (conv->kind != GRAPH_OP_CONV2D || conv->output < 0)
        return -1;
    const struct graph_tensor *y = graph_tensor(g, conv->output);
    if (y->nuses != 1 || y->uses[0].slot != 0)
        return -1;
    int32_t b = y->uses[0].op;
    const struct graph_op *bn = graph_op(g, b);
    return bn->kind == GRAPH_OP_BATCHNORM && bn->attrs.axis == 1 ? b : -1;
}

/* 1 when every reader of tensor t is a folded batchnorm (its scale or shift). */
static int only_folded(const struct graph *g, int32_t t, const int32_t *bn_of)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    for (size_t u = 0; u < x->nuses; u++)
        if (bn_of[x->uses[u].op] < 0 || x->uses[u].slot == 0)
            return 0;
    return x->nuses > 0;
}

struct folder {
    const struct graph *g;
    struct graph *out;
    int32_t *bn_of;      /* per op: for a folded batchnorm, its conv; else -1 */
    int32_t *into;       /* per op: for a conv, the batchnorm folded into it; else -1 */
    int32_t *map;        /* tensor of g -> tensor of out */
    int32_t in[GRAPH_MAX_INPUTS];
};

static int copy_op(struct folder *f, int32_t o)
{
    const struct graph_op *op = graph_op(f->g, o);
    if (f->bn_of[o] >= 0)
        return 0;                          /* folded: its conv wrote its output */
    if (op->kind == GRAPH_OP_SOURCE && only_folded(f->g, op->output, f->bn_of))
        return 0;                          /* scale / shift: part of the weights now */
    for (int i = 0; i < op->ninputs; i++)
        f->in[i] = f->map[op->inputs[i]];
    int32_t nt = -1;
    if (op->output >= 0) {
        int32_t y = f->into[o] >= 0 ? graph_op(f->g, f->into[o])->output : op->output;
        const struct graph_tensor *x = graph_tensor(f->g, y);
        nt = graph_add_tensor_shape(f->out, x->name, x->dtype, x->role, &x->shape);
        if (nt < 0 || (x->state && graph_set_state(f->out, nt)))
            return -1;
        f->map[op->output] = f->map[y] = nt;
    }
    return graph_add_op(f->out, op->kind, f->in, op->ninputs, nt, &op->attrs) < 0 ? -1 : 0;
}

static int fold_all(struct folder *f, struct ls_error *err)
{
    int32_t no = graph_nops(f->g);
    int32_t *order = malloc(((size_t)no + 1) * sizeof *order);
    if (!order)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t o = 0; o < no; o++)
        f->bn_of[o] = f->into[o] = -1;
    for (int32_t o = 0; o < no; o++) {
        int32_t b = folds_into(f->g, o);
        if (b >= 0) {
            f->into[o] = b;
            f->bn_of[b] = o;
        }
    }
    int rc = graph_topo_order(f->g, order, err);
    for (int32_t i = 0; !rc && i < no; i++)
        if (copy_op(f, order[i]))
            break;
    free(order);
    if (!rc && graph_error(f->out)) {
        if (err)
            *err = *graph_error(f->out);
        rc = graph_error(f->out)->code ? graph_error(f->out)->code : LS_ERR_INTERNAL;
    }
    return rc ? rc : graph_validate(f->out, err);
}

int graph_fold_batchnorm(const struct graph *g, struct graph **out, struct ls_error *err)
{
    *out = NULL;
    size_t no = (size_t)graph_nops(g) + 1, nt = (size_t)graph_ntensors(g) + 1;
    struct folder f = {g, graph_new(graph_name(g)), malloc(no * sizeof *f.bn_of),
                       malloc(no * sizeof *f.into), malloc(nt * sizeof *f.map), {0}};
    int rc = f.out && f.bn_of && f.into && f.map ? fold_all(&f, err)
                                                  : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    free(f.bn_of);
    free(f.into);
    free(f.map);
    if (rc)
        graph_free(f.out);
    else
        *out = f.out;
    return rc;
}
