/* graph: axis maps — what each input axis of an op becomes in its output. */
#include "graph/graph_int.h"

#include <string.h>

static void set(struct graph_axis *m, enum graph_axis_kind k, int out)
{
    m->kind = k;
    m->out = out;
    m->out_n = out >= 0 ? 1 : 0;
}

/* Reshape: pair input and output axes into minimal groups with equal products. */
static void reshape_map(const struct graph_shape *in, const struct graph_shape *out,
                        struct graph_axis *map)
{
    int i = 0, j = 0;
    while (i < in->rank) {
        /* A size-1 input axis facing a non-1 output axis (or none) disappears. */
        if (in->dims[i].size == 1 && (j >= out->rank || out->dims[j].size != 1)) {
            set(&map[i++], GRAPH_AXIS_DROP, -1);
            continue;
        }
        /* A size-1 output axis facing a non-1 input axis is a new axis: skip it. */
        if (j < out->rank && out->dims[j].size == 1 && in->dims[i].size != 1) {
            j++;
            continue;
        }
        if (j >= out->rank) { /* cannot happen for equal element counts */
            set(&map[i++], GRAPH_AXIS_DROP, -1);
            continue;
        }
        int i0 = i, j0 = j;
        int64_t pi = in->dims[i++].size, po = out->dims[j++].size;
        while (pi != po) {
            if (pi < po && i < in->rank)
                pi *= in->dims[i++].size;
            else if (po < pi && j < out->rank)
                po *= out->dims[j++].size;
            else
                break;
        }
        int ni = i - i0, no = j - j0;
        for (int k = i0; k < i; k++) {
            enum graph_axis_kind kind = ni == 1 && no == 1   ? GRAPH_AXIS_MAP
                                        : ni == 1            ? GRAPH_AXIS_SPLIT
                                        : no == 1            ? GRAPH_AXIS_MERGE
                                                             : GRAPH_AXIS_REGROUP;
            map[k].kind = kind;
            map[k].out = j0;
            map[k].out_n = no;
        }
    }
}

static void window_map(const struct graph_shape *x, int64_t k0, int64_t k1,
                       const struct graph_attrs *at, struct graph_axis *map)
{
    int64_t k[2] = {k0, k1};
    for (int i = 0; i < 2; i++) {
        int pointwise = k[i] == 1 && at->stride[i] == 1 && at->pad[i] == 0;
        set(&map[2 + i], pointwise ? GRAPH_AXIS_MAP : GRAPH_AXIS_WINDOW, 2 + i);
    }
    (void)x;
}

int graph_axis_map_raw(const struct graph *g, enum graph_op_kind kind, const int32_t *inputs,
                       int ninputs, const struct graph_attrs *at, const struct graph_shape *out,
                       int slot, struct graph_axis *map)
{
    if (slot < 0 || slot >= ninputs)
        return -1;
    const struct graph_tensor *t = graph_tensor(g, inputs[slot]);
    if (!t)
        return -1;
    const struct graph_shape *s = &t->shape;
    int r = s->rank;
    for (int i = 0; i < r; i++)
        set(&map[i], GRAPH_AXIS_MAP, i);
    switch (kind) {
    case GRAPH_OP_MATMUL:
    case GRAPH_OP_BATCH_MATMUL: {
        const int *batch = slot ? at->rhs_batch : at->lhs_batch;
        const int *con = slot ? at->rhs_contract : at->lhs_contract;
        int role[GRAPH_MAX_RANK] = {0}; /* 1 batch, 2 contract */
        for (int i = 0; i < at->nbatch && i < GRAPH_MAX_RANK; i++)
            if (batch[i] >= 0 && batch[i] < r) {
                role[batch[i]] = 1;
                set(&map[batch[i]], GRAPH_AXIS_MAP, i);
            }
        for (int i = 0; i < at->ncontract && i < GRAPH_MAX_RANK; i++)
            if (con[i] >= 0 && con[i] < r) {
                role[con[i]] = 2;
                set(&map[con[i]], GRAPH_AXIS_CONTRACT, -1);
            }
        int o = at->nbatch;
        if (slot == 1) { /* after lhs's free axes */
            const struct graph_tensor *a = graph_tensor(g, inputs[0]);
            o += a->shape.rank - at->nbatch - at->ncontract;
        }
        for (int i = 0; i < r; i++)
            if (!role[i])
                set(&map[i], GRAPH_AXIS_MAP, o++);
        break;
    }
    case GRAPH_OP_CONV2D:
        if (r != 4)
            break;
        if (slot == 0) {
            set(&map[1], at->groups == s->dims[1].size && at->groups > 1 ? GRAPH_AXIS_MAP
                                                                          : GRAPH_AXIS_CONTRACT,
                at->groups == s->dims[1].size && at->groups > 1 ? 1 : -1);
            const struct graph_tensor *w = graph_tensor(g, inputs[1]);
            if (w->shape.rank == 4)
                window_map(s, w->shape.dims[2].size, w->shape.dims[3].size, at, map);
        } else {
            set(&map[0], GRAPH_AXIS_MAP, 1);
            for (int i = 1; i < 4; i++)
                set(&map[i], GRAPH_AXIS_CONTRACT, -1);
        }
        break;
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        if (r == 4)
            window_map(s, at->kernel[0], at->kernel[1], at, map);
        break;
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN: {
        int o = 0;
        for (int i = 0; i < r; i++) {
            int red = 0;
            for (int k = 0; k < at->naxes && k < GRAPH_MAX_RANK; k++)
                red |= at->axes[k] == i;
            if (red)
                set(&map[i], GRAPH_AXIS_REDUCE, at->keep ? o++ : -1);
            else
                set(&map[i], GRAPH_AXIS_MAP, o++);
        }
        break;
    }
    case GRAPH_OP_SOFTMAX:
    case GRAPH_OP_LAYERNORM:
    case GRAPH_OP_RMSNORM:
        if (slot == 0 && at->axis >= 0 && at->axis < r)
            set(&map[at->axis], GRAPH_AXIS_NORMALIZE, at->axis);
        else if (slot > 0 && r == 1)
            set(&map[0], GRAPH_AXIS_MAP, at->axis);
        break;
    case GRAPH_OP_BATCHNORM:
        if (slot > 0 && r == 1)
            set(&map[0], GRAPH_AXIS_MAP, at->axis);
        break;
    case GRAPH_OP_TRANSPOSE:
        for (int i = 0; i < r; i++)
            if (at->perm[i] >= 0 && at->perm[i] < r)
                set(&map[at->perm[i]], GRAPH_AXIS_MAP, i);
        break;
    case GRAPH_OP_RESHAPE:
        if (out)
            reshape_map(s, out, map);
        break;
    case GRAPH_OP_CONCAT:
        if (at->axis >= 0 && at->axis < r)
            set(&map[at->axis], GRAPH_AXIS_CONCAT, at->axis);
        break;
    case GRAPH_OP_SLICE:
        if (at->axis >= 0 && at->axis < r)
            set(&map[at->axis], GRAPH_AXIS_SLICE, at->axis);
        break;
    case GRAPH_OP_GATHER:
        if (slot == 0) {
            int ri = graph_tensor(g, inputs[1])->shape.rank;
            for (int i = 0; i < r; i++)
                if (i == at->axis)
                    set(&map[i], GRAPH_AXIS_INDEX, -1);
                else
                    set(&map[i], GRAPH_AXIS_MAP, i < at->axis ? i : i - 1 + ri);
        } else {
            for (int i = 0; i < r; i++)
                set(&map[i], GRAPH_AXIS_MAP, at->axis + i);
        }
        break;
    default:
        if (graph_kind_is_binary(kind) && out) {
            int off = out->rank - r;
            for (int i = 0; i < r; i++) {
                int o = i + off;
                int bc = s->dims[i].size == 1 && o >= 0 && out->dims[o].size > 1;
                set(&map[i], bc ? GRAPH_AXIS_BROADCAST : GRAPH_AXIS_MAP, o);
            }
        }
        break;
    }
    return r;
}

int graph_axis_map(const struct graph *g, int32_t op, int slot, struct graph_axis *map)
{
    const struct graph_op *o = graph_op(g, op);
    if (!o || slot < 0 || slot >= o->ninputs)
        return -1;
    const struct graph_shape *out = o->output >= 0 ? &graph_tensor(g, o->output)->shape : NULL;
    return graph_axis_map_raw(g, o->kind, o->inputs, o->ninputs, &o->attrs, out, slot, map);
}
