/* costmodel/roofline: PE and HBM lower bounds of a graph on a target. */
#include "costmodel/roofline.h"

static int is_contraction(enum graph_op_kind k)
{
    return k == GRAPH_OP_MATMUL || k == GRAPH_OP_BATCH_MATMUL || k == GRAPH_OP_CONV2D;
}

static uint64_t tensor_bytes(const struct graph_tensor *t)
{
    return (uint64_t)graph_shape_numel(&t->shape) * ls_dtype_size(t->dtype);
}

/* A weight read only by gather ops (an embedding table) need not be loaded whole: only
 * the rows the ids pick cross HBM. Other weights are read in full at least once. */
static uint64_t weight_min_bytes(const struct graph *g, const struct graph_tensor *w)
{
    uint64_t whole = tensor_bytes(w), rows = 0;
    for (size_t u = 0; u < w->nuses; u++) {
        const struct graph_op *op = graph_op(g, w->uses[u].op);
        if (op->kind != GRAPH_OP_GATHER || w->uses[u].slot != 0)
            return whole;
        uint64_t row = whole / (uint64_t)w->shape.dims[op->attrs.axis].size;
        rows += row * (uint64_t)graph_shape_numel(&graph_tensor(g, op->inputs[1])->shape);
    }
    return w->nuses && rows < whole ? rows : whole;
}

static uint64_t min_hbm_bytes(const struct graph *g)
{
    uint64_t bytes = 0;
    for (int32_t o = 0; o < graph_nops(g); o++) {
        const struct graph_op *op = graph_op(g, o);
        if (op->kind == GRAPH_OP_SOURCE) {
            const struct graph_tensor *t = graph_tensor(g, op->output);
            bytes += t->role == GRAPH_ROLE_WEIGHT ? weight_min_bytes(g, t) : tensor_bytes(t);
        } else if (op->kind == GRAPH_OP_RETURN) {
            bytes += tensor_bytes(graph_tensor(g, op->inputs[0]));
        }
    }
    return bytes;
}

void cm_roofline(const struct graph *g, const struct sim_target *t, struct cm_roofline *r)
{
    r->flops = 0;
    for (int32_t o = 0; o < graph_nops(g); o++)
        if (is_contraction(graph_op(g, o)->kind))
            r->flops += graph_op_flops(g, o);
    r->min_hbm_bytes = min_hbm_bytes(g);
    double macs_per_ns = (double)t->pe_rows * t->pe_cols * t->pe_mhz * 1e-3;
    r->pe_ns = r->flops / (2.0 * macs_per_ns);
    r->hbm_ns = (double)r->min_hbm_bytes / t->hbm_bytes_per_ns;
    r->bound_by = r->hbm_ns > r->pe_ns ? CM_BOUND_HBM : CM_BOUND_PE;
    r->bound_ns = r->bound_by == CM_BOUND_HBM ? r->hbm_ns : r->pe_ns;
}

const char *cm_bound_name(enum cm_bound b)
{
    return b == CM_BOUND_HBM ? "hbm" : "pe";
}
