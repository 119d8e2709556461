/* graph: shape inference and attribute range checks, one case per op kind. */
#include "graph/graph_int.h"

#include <string.h>

#define BAD(...) ls_error_msg(err, LS_ERR_INPUT, __VA_ARGS__)

static int in_range(int a, int rank)
{
    return a >= 0 && a < rank;
}

/* Axes list: each in range and distinct; used marks them. */
static int check_axes(const char *kn, const char *what, const int *axes, int n, int rank,
                      int *used, struct ls_error *err)
{
    for (int i = 0; i < n; i++) {
        if (!in_range(axes[i], rank))
            return BAD("%s: %s axis %d out of range for rank %d", kn, what, axes[i], rank);
        if (used[axes[i]])
            return BAD("%s: axis %d used twice in %s", kn, axes[i], what);
        used[axes[i]] = 1;
    }
    return 0;
}

static int infer_dot(enum graph_op_kind kind, const struct graph_shape *a,
                     const struct graph_shape *b, const struct graph_attrs *at,
                     struct graph_shape *out, struct ls_error *err)
{
    const char *kn = graph_op_kind_name(kind);
    int ua[GRAPH_MAX_RANK] = {0}, ub[GRAPH_MAX_RANK] = {0};
    if (at->ncontract < 1 || at->ncontract > GRAPH_MAX_RANK)
        return BAD("%s: needs 1 to %d contraction axes, got %d", kn, GRAPH_MAX_RANK,
                   at->ncontract);
    if (kind == GRAPH_OP_MATMUL && at->nbatch != 0)
        return BAD("matmul has no batch axes (use batch_matmul)");
    if (kind == GRAPH_OP_BATCH_MATMUL && (at->nbatch < 1 || at->nbatch > GRAPH_MAX_RANK))
        return BAD("batch_matmul: needs 1 to %d batch axes, got %d", GRAPH_MAX_RANK,
                   at->nbatch);
    if (check_axes(kn, "lhs batch", at->lhs_batch, at->nbatch, a->rank, ua, err) ||
        check_axes(kn, "rhs batch", at->rhs_batch, at->nbatch, b->rank, ub, err) ||
        check_axes(kn, "lhs contraction", at->lhs_contract, at->ncontract, a->rank, ua, err) ||
        check_axes(kn, "rhs contraction", at->rhs_contract, at->ncontract, b->rank, ub, err))
        return LS_ERR_INPUT;
    for (int i = 0; i < at->nbatch; i++) {
        int64_t x = a->dims[at->lhs_batch[i]].size, y = b->dims[at->rhs_batch[i]].size;
        if (x != y)
            return BAD("%s: batch sizes differ: lhs axis %d has %lld, rhs axis %d has %lld", kn,
                       at->lhs_batch[i], (long long)x, at->rhs_batch[i], (long long)y);
    }
    for (int i = 0; i < at->ncontract; i++) {
        int64_t x = a->dims[at->lhs_contract[i]].size, y = b->dims[at->rhs_contract[i]].size;
        if (x != y)
            return BAD("%s: contraction sizes differ: lhs axis %d has %lld, rhs axis %d has %lld",
                       kn, at->lhs_contract[i], (long long)x, at->rhs_contract[i],
                       (long long)y);
    }
    int r = at->nbatch + (a->rank - at->nbatch - at->ncontract) +
            (b->rank - at->nbatch - at->ncontract);
    if (r > GRAPH_MAX_RANK)
        return BAD("%s: output rank %d exceeds %d", kn, r, GRAPH_MAX_RANK);
    out->rank = 0;
    for (int i = 0; i < at->nbatch; i++)
        out->dims[out->rank++].size = a->dims[at->lhs_batch[i]].size;
    for (int i = 0; i < a->rank; i++)
        if (!ua[i])
            out->dims[out->rank++].size = a->dims[i].size;
    for (int i = 0; i < b->rank; i++)
        if (!ub[i])
            out->dims[out->rank++].size = b->dims[i].size;
    return 0;
}

/* Output extent of a sliding window; 0 when the window does not fit. */
static int64_t window_out(int64_t size, int64_t k, int64_t s, int64_t p, int64_t d)
{
    int64_t span = d * (k - 1) + 1;
    if (size + 2 * p < span)
        return 0;
    return (size + 2 * p - span) / s + 1;
}

static int check_window(const char *kn, const struct graph_attrs *at, int conv,
                        struct ls_error *err)
{
    for (int i = 0; i < 2; i++) {
        if (at->stride[i] < 1 || at->stride[i] > (1 << 20))
            return BAD("%s: stride %lld out of range 1..%d", kn, (long long)at->stride[i],
                       1 << 20);
        if (at->pad[i] < 0 || at->pad[i] > (1 << 20))
            return BAD("%s: padding %lld out of range 0..%d", kn, (long long)at->pad[i], 1 << 20);
        if (conv && (at->dilation[i] < 1 || at->dilation[i] > (1 << 20)))
            return BAD("%s: dilation %lld out of range 1..%d", kn, (long long)at->dilation[i],
                       1 << 20);
        if (!conv && (at->kernel[i] < 1 || at->kernel[i] > (1 << 20)))
            return BAD("%s: kernel %lld out of range 1..%d", kn, (long long)at->kernel[i],
                       1 << 20);
        if (!conv && at->pad[i] >= at->kernel[i])
            return BAD("%s: padding %lld must be smaller than the kernel %lld", kn,
                       (long long)at->pad[i], (long long)at->kernel[i]);
    }
    return 0;
}

static int infer_conv(const struct graph_shape *x, const struct graph_shape *w,
                      const struct graph_attrs *at, struct graph_shape *out,
                      struct ls_error *err)
{
    if (x->rank != 4)
        return BAD("conv2d: input must be [N,C,H,W] (rank 4), has rank %d", x->rank);
    if (w->rank != 4)
        return BAD("conv2d: weight must be [O,C/groups,KH,KW] (rank 4), has rank %d", w->rank);
    if (check_window("conv2d", at, 1, err))
        return LS_ERR_INPUT;
    int64_t c = x->dims[1].size, o = w->dims[0].size, gr = at->groups;
    if (gr < 1 || gr > c || c % gr || o % gr)
        return BAD("conv2d: groups %lld must be >= 1 and divide the %lld input and %lld output "
                   "channels", (long long)gr, (long long)c, (long long)o);
    if (w->dims[1].size != c / gr)
        return BAD("conv2d: weight axis 1 has %lld, expected C/groups = %lld",
                   (long long)w->dims[1].size, (long long)(c / gr));
    out->rank = 4;
    out->dims[0].size = x->dims[0].size;
    out->dims[1].size = o;
    for (int i = 0; i < 2; i++) {
        int64_t e = window_out(x->dims[2 + i].size, w->dims[2 + i].size, at->stride[i],
                               at->pad[i], at->dilation[i]);
        if (e < 1)
            return BAD("conv2d: kernel %lld does not fit %s %lld with padding %lld",
                       (long long)w->dims[2 + i].size, i ? "width" : "height",
                       (long long)x->dims[2 + i].size, (long long)at->pad[i]);
        out->dims[2 + i].size = e;
    }
    return 0;
}

static int infer_pool(const struct graph_shape *x, const struct graph_attrs *at,
                      struct graph_shape *out, const char *kn, struct ls_error *err)
{
    if (x->rank != 4)
        return BAD("%s: input must be [N,C,H,W] (rank 4), has rank %d", kn, x->rank);
    if (check_window(kn, at, 0, err))
        return LS_ERR_INPUT;
    *out = *x;
    for (int i = 0; i < 2; i++) {
        int64_t e = window_out(x->dims[2 + i].size, at->kernel[i], at->stride[i], at->pad[i], 1);
        if (e < 1)
            return BAD("%s: kernel %lld does not fit %s %lld", kn, (long long)at->kernel[i],
                       i ? "width" : "height", (long long)x->dims[2 + i].size);
        out->dims[2 + i].size = e;
    }
    return 0;
}

static int infer_broadcast(const char *kn, const struct graph_shape *a,
                           const struct graph_shape *b, struct graph_shape *out,
                           struct ls_error *err)
{
    int r = a->rank > b->rank ? a->rank : b->rank;
    out->rank = r;
    for (int i = 0; i < r; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t x = ia >= 0 ? a->dims[ia].size : 1, y = ib >= 0 ? b->dims[ib].size : 1;
        if (x != y && x != 1 && y != 1)
            return BAD("%s: shapes do not broadcast: output axis %d is %lld in one input and "
                       "%lld in the other", kn, i, (long long)x, (long long)y);
        out->dims[i].size = x > y ? x : y;
    }
    return 0;
}

static int check_param(const char *kn, const struct graph_tensor *p, const char *what,
                       int64_t size, enum ls_dtype dt, struct ls_error *err)
{
    if (p->shape.rank != 1 || p->shape.dims[0].size != size)
        return BAD("%s: %s '%s' must have shape [%lld]", kn, what, p->name, (long long)size);
    (void)dt;
    return 0;
}

static int infer_shape(const struct graph *g, enum graph_op_kind kind, const int32_t *in,
                       int nin, const struct graph_attrs *at, const struct graph_shape *target,
                       struct graph_shape *out, enum ls_dtype *dtype, struct ls_error *err)
{
    const char *kn = graph_op_kind_name(kind);
    const struct graph_tensor *x = graph_tensor(g, in[0]);
    const struct graph_shape *xs = &x->shape;
    int rank = xs->rank;
    *dtype = x->dtype;
    *out = *xs;
    switch (kind) {
    case GRAPH_OP_RETURN:
        return 0;
    case GRAPH_OP_MATMUL:
    case GRAPH_OP_BATCH_MATMUL:
        return infer_dot(kind, xs, &graph_tensor(g, in[1])->shape, at, out, err);
    case GRAPH_OP_CONV2D:
        if (graph_tensor(g, in[1])->dtype != x->dtype)
            return BAD("conv2d: input is %s but weight is %s", ls_dtype_name(x->dtype),
                       ls_dtype_name(graph_tensor(g, in[1])->dtype));
        return infer_conv(xs, &graph_tensor(g, in[1])->shape, at, out, err);
    case GRAPH_OP_CAST:
        if ((unsigned)at->dtype >= LS_DT_COUNT)
            return BAD("cast: bad target dtype");
        *dtype = at->dtype;
        return 0;
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN: {
        int used[GRAPH_MAX_RANK] = {0};
        if (at->naxes < 1 || at->naxes > rank)
            return BAD("%s: needs 1 to %d axes, got %d", kn, rank, at->naxes);
        if (check_axes(kn, "reduced", at->axes, at->naxes, rank, used, err))
            return LS_ERR_INPUT;
        if (at->keep != 0 && at->keep != 1)
            return BAD("%s: keep must be 0 or 1, got %d", kn, at->keep);
        out->rank = 0;
        for (int i = 0; i < rank; i++)
            if (!used[i])
                out->dims[out->rank++].size = xs->dims[i].size;
            else if (at->keep)
                out->dims[out->rank++].size = 1;
        return 0;
    }
    case GRAPH_OP_SOFTMAX:
    case GRAPH_OP_LAYERNORM:
    case GRAPH_OP_RMSNORM:
    case GRAPH_OP_BATCHNORM:
        if (!in_range(at->axis, rank))
            return BAD("%s: axis %d out of range for rank %d", kn, at->axis, rank);
        if (kind == GRAPH_OP_LAYERNORM && nin == 2)
            return BAD("layernorm takes x alone or x, gamma, beta");
        if (kind == GRAPH_OP_BATCHNORM && nin == 2)
            return BAD("batchnorm takes x alone or x, scale, shift");
        for (int i = 1; i < nin; i++)
            if (check_param(kn, graph_tensor(g, in[i]), i == 1 ? "scale" : "shift",
                            xs->dims[at->axis].size, x->dtype, err))
                return LS_ERR_INPUT;
        return 0;
    case GRAPH_OP_TRANSPOSE: {
        int used[GRAPH_MAX_RANK] = {0};
        if (check_axes(kn, "perm", at->perm, rank, rank, used, err))
            return LS_ERR_INPUT;
        for (int i = 0; i < rank; i++)
            out->dims[i].size = xs->dims[at->perm[i]].size;
        return 0;
    }
    case GRAPH_OP_RESHAPE:
        if (!target)
            return BAD("reshape: needs the target shape");
        if (graph_shape_numel(target) != graph_shape_numel(xs))
            return BAD("reshape: %lld elements cannot become %lld",
                       (long long)graph_shape_numel(xs), (long long)graph_shape_numel(target));
        out->rank = target->rank;
        for (int i = 0; i < target->rank; i++)
            out->dims[i].size = target->dims[i].size;
        return 0;
    case GRAPH_OP_CONCAT: {
        if (!in_range(at->axis, rank))
            return BAD("concat: axis %d out of range for rank %d", at->axis, rank);
        int64_t total = 0;
        for (int k = 0; k < nin; k++) {
            const struct graph_tensor *t = graph_tensor(g, in[k]);
            if (t->shape.rank != rank)
                return BAD("concat: input %d '%s' has rank %d, input 0 has %d", k, t->name,
                           t->shape.rank, rank);
            if (t->dtype != x->dtype)
                return BAD("concat: input %d '%s' is %s, input 0 is %s", k, t->name,
                           ls_dtype_name(t->dtype), ls_dtype_name(x->dtype));
            for (int i = 0; i < rank; i++)
                if (i != at->axis && t->shape.dims[i].size != xs->dims[i].size)
                    return BAD("concat: input %d '%s' axis %d is %lld, input 0 has %lld", k,
                               t->name, i, (long long)t->shape.dims[i].size,
                               (long long)xs->dims[i].size);
            total += t->shape.dims[at->axis].size;
        }
        out->dims[at->axis].size = total;
        return 0;
    }
    case GRAPH_OP_SLICE: {
        if (!in_range(at->axis, rank))
            return BAD("slice: axis %d out of range for rank %d", at->axis, rank);
        int64_t n = xs->dims[at->axis].size;
        if (at->begin < 0 || at->begin >= at->end || at->end > n)
            return BAD("slice: need 0 <= begin < end <= %lld, got begin %lld end %lld",
                       (long long)n, (long long)at->begin, (long long)at->end);
        if (at->step < 1)
            return BAD("slice: step must be >= 1, got %lld", (long long)at->step);
        out->dims[at->axis].size = (at->end - at->begin + at->step - 1) / at->step;
        return 0;
    }
    case GRAPH_OP_GATHER: {
        const struct graph_tensor *ids = graph_tensor(g, in[1]);
        if (ids->dtype != LS_DT_INT32 && ids->dtype != LS_DT_INT8)
            return BAD("gather: ids '%s' must be int32 or int8, not %s", ids->name,
                       ls_dtype_name(ids->dtype));
        if (!in_range(at->axis, rank))
            return BAD("gather: axis %d out of range for rank %d", at->axis, rank);
        int r = rank - 1 + ids->shape.rank;
        if (r > GRAPH_MAX_RANK)
            return BAD("gather: output rank %d exceeds %d", r, GRAPH_MAX_RANK);
        out->rank = 0;
        for (int i = 0; i < at->axis; i++)
            out->dims[out->rank++].size = xs->dims[i].size;
        for (int i = 0; i < ids->shape.rank; i++)
            out->dims[out->rank++].size = ids->shape.dims[i].size;
        for (int i = at->axis + 1; i < rank; i++)
            out->dims[out->rank++].size = xs->dims[i].size;
        return 0;
    }
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        return infer_pool(xs, at, out, kn, err);
    default:
        break;
    }
    if (graph_kind_is_unary(kind))
        return 0;
    if (graph_kind_is_binary(kind)) {
        const struct graph_tensor *y = graph_tensor(g, in[1]);
        if (y->dtype != x->dtype)
            return BAD("%s: inputs '%s' (%s) and '%s' (%s) have different dtypes", kn, x->name,
                       ls_dtype_name(x->dtype), y->name, ls_dtype_name(y->dtype));
        return infer_broadcast(kn, xs, &y->shape, out, err);
    }
    return BAD("%s: no shape inference for this kind", kn);
}

int graph_infer(const struct graph *g, enum graph_op_kind kind, const int32_t *inputs,
                int ninputs, const struct graph_attrs *attrs, const struct graph_shape *target,
                struct graph_shape *out, enum ls_dtype *dtype, struct ls_error *err)
{
    if ((unsigned)kind >= GRAPH_OP_COUNT || kind == GRAPH_OP_SOURCE)
        return BAD("%s: no shape inference for this kind", graph_op_kind_name(kind));
    const char *kn = graph_op_kind_name(kind);
    int lo, hi;
    graph_kind_arity(kind, &lo, &hi);
    if (ninputs < lo || (hi >= 0 && ninputs > hi) || ninputs > GRAPH_MAX_INPUTS)
        return BAD("%s: wrong number of inputs (%d)", kn, ninputs);
    for (int i = 0; i < ninputs; i++)
        if (!graph_tensor(g, inputs[i]))
            return BAD("%s: input %d is not a tensor", kn, i);
    if (target && (target->rank < 0 || target->rank > GRAPH_MAX_RANK))
        return BAD("%s: target rank out of range", kn);
    struct graph_shape s;
    memset(&s, 0, sizeof s);
    int rc = infer_shape(g, kind, inputs, ninputs, attrs, target, &s, dtype, err);
    if (rc)
        return rc;
    for (int i = 0; i < GRAPH_MAX_RANK; i++)
        s.dims[i].role = NULL;
    /* Roles: declared target roles first (reshape), then from input axes that map. */
    if (kind == GRAPH_OP_RESHAPE)
        for (int i = 0; i < s.rank; i++)
            s.dims[i].role = target->dims[i].role;
    for (int pass = 0; pass < 2; pass++)
        for (int k = 0; k < ninputs; k++) {
            struct graph_axis map[GRAPH_MAX_RANK];
            int r = graph_axis_map_raw(g, kind, inputs, ninputs, attrs, &s, k, map);
            const struct graph_shape *is = &graph_tensor(g, inputs[k])->shape;
            for (int i = 0; i < r; i++) {
                int o = map[i].out;
                enum graph_axis_kind ak = map[i].kind;
                int strong = ak == GRAPH_AXIS_MAP || ak == GRAPH_AXIS_NORMALIZE ||
                             ak == GRAPH_AXIS_WINDOW || ak == GRAPH_AXIS_SLICE ||
                             ak == GRAPH_AXIS_CONCAT;
                int weak = ak == GRAPH_AXIS_BROADCAST || ak == GRAPH_AXIS_REDUCE;
                if (o < 0 || o >= s.rank || !is->dims[i].role || s.dims[o].role)
                    continue;
                if ((pass == 0 && strong) || (pass == 1 && weak))
                    s.dims[o].role = is->dims[i].role;
            }
        }
    if (kind == GRAPH_OP_CONV2D && !s.dims[1].role)
        s.dims[1].role = graph_tensor(g, inputs[0])->shape.dims[1].role;
    *out = s;
    return 0;
}
