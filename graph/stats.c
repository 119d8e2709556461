/* graph: statistics (sizes, fan-out, the treewidth bound of the op graph, flops). */
#include "graph/graph_int.h"
#include "util/treedec.h"

#include <stdlib.h>
#include <string.h>

double graph_op_flops(const struct graph *g, int32_t id)
{
    const struct graph_op *op = graph_op(g, id);
    if (!op || !graph_kind_is_compute(op->kind) || op->output < 0)
        return 0;
    double out = (double)graph_shape_numel(&graph_tensor(g, op->output)->shape);
    const struct graph_shape *x = &graph_tensor(g, op->inputs[0])->shape;
    switch (op->kind) {
    case GRAPH_OP_MATMUL:
    case GRAPH_OP_BATCH_MATMUL: {
        double k = 1;
        for (int i = 0; i < op->attrs.ncontract; i++)
            k *= (double)x->dims[op->attrs.lhs_contract[i]].size;
        return 2 * out * k;
    }
    case GRAPH_OP_CONV2D: {
        const struct graph_shape *w = &graph_tensor(g, op->inputs[1])->shape;
        return 2 * out * (double)w->dims[1].size * (double)w->dims[2].size *
               (double)w->dims[3].size;
    }
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN:
        return (double)graph_shape_numel(x);
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        return out * (double)op->attrs.kernel[0] * (double)op->attrs.kernel[1];
    default:
        return out;
    }
}

int graph_stats(const struct graph *g, struct graph_stats *st, struct ls_error *err)
{
    memset(st, 0, sizeof *st);
    st->ops = graph_nops(g);
    st->tensors = graph_ntensors(g);
    for (int32_t o = 0; o < st->ops; o++) {
        const struct graph_op *op = graph_op(g, o);
        st->edges += op->ninputs;
        if (op->kind == GRAPH_OP_SOURCE)
            st->sources++;
        else if (op->kind == GRAPH_OP_RETURN)
            st->returns++;
        else
            st->compute_ops++;
        st->flops += graph_op_flops(g, o);
    }
    for (int32_t t = 0; t < st->tensors; t++) {
        const struct graph_tensor *ten = graph_tensor(g, t);
        if ((int32_t)ten->nuses > st->max_fanout)
            st->max_fanout = (int32_t)ten->nuses;
        int64_t n = graph_shape_numel(&ten->shape);
        if (ten->role == GRAPH_ROLE_WEIGHT)
            st->weight_elems += n;
        st->tensor_bytes += n * (int64_t)ls_dtype_size(ten->dtype);
    }
    int32_t *edges = malloc(((size_t)st->edges + 1) * 2 * sizeof *edges);
    if (!edges)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    size_t ne = 0;
    for (int32_t o = 0; o < st->ops; o++) {
        const struct graph_op *op = graph_op(g, o);
        for (int i = 0; i < op->ninputs; i++) {
            int32_t p = graph_tensor(g, op->inputs[i])->producer;
            if (p < 0)
                continue;
            edges[2 * ne] = p;
            edges[2 * ne + 1] = o;
            ne++;
        }
    }
    int32_t w = -1;
    int rc = ls_treewidth_ub(st->ops, edges, ne, &w, err);
    free(edges);
    st->treewidth_ub = w;
    return rc;
}
