/* graph: shape-inferring builder helpers (one call per op, output tensor created). */
#include "graph/graph_int.h"

#include <stdio.h>
#include <string.h>

static int bad_ids(struct graph *g, const int32_t *ids, int n)
{
    if (g->failed)
        return 1;
    for (int i = 0; i < n; i++)
        if (ids[i] < 0 || ids[i] >= graph_ntensors(g))
            return graph_fail(g, LS_ERR_INPUT, "builder: input %d is not a tensor (id %d)", i,
                              (int)ids[i]), 1;
    return 0;
}

static int norm_axis(const struct graph *g, int32_t t, int axis)
{
    int r = graph_tensor(g, t)->shape.rank;
    return axis < 0 ? axis + r : axis;
}

static int32_t finish(struct graph *g, const char *name, enum graph_op_kind kind,
                      const int32_t *inputs, int n, const struct graph_attrs *at,
                      const struct graph_shape *target)
{
    struct graph_shape s;
    enum ls_dtype dt;
    struct ls_error e;
    ls_error_clear(&e);
    if (graph_infer(g, kind, inputs, n, at, target, &s, &dt, &e)) {
        char nm[600];
        if (name)
            snprintf(nm, sizeof nm, "%s%s", g->prefix, name);
        else
            snprintf(nm, sizeof nm, "%s%s_%d", g->prefix, graph_op_kind_name(kind),
                     (int)graph_nops(g));
        return graph_fail(g, e.code, "op '%s': %s", nm, e.msg);
    }
    char auto_name[64];
    if (!name) {
        snprintf(auto_name, sizeof auto_name, "%s_%d", graph_op_kind_name(kind),
                 (int)graph_nops(g));
        name = auto_name;
    }
    int32_t t = graph_add_tensor_shape(g, name, dt, GRAPH_ROLE_ACTIVATION, &s);
    if (t < 0 || graph_add_op(g, kind, inputs, n, t, at) < 0)
        return -1;
    return t;
}

static void defaults(const struct graph *g, enum graph_op_kind kind, const int32_t *in, int n,
                     struct graph_attrs *at)
{
    int ranks[2] = {0, 0};
    for (int i = 0; i < n && i < 2; i++)
        ranks[i] = graph_tensor(g, in[i])->shape.rank;
    graph_attrs_default(kind, ranks, n, at);
}

int32_t graph_op_infer(struct graph *g, const char *name, enum graph_op_kind kind,
                       const int32_t *inputs, int ninputs, const struct graph_attrs *attrs)
{
    if (ninputs < 0 || ninputs > GRAPH_MAX_INPUTS)
        return graph_fail(g, LS_ERR_INPUT, "builder: %d inputs", ninputs);
    if (bad_ids(g, inputs, ninputs))
        return -1;
    struct graph_attrs at;
    if (attrs)
        at = *attrs;
    else
        defaults(g, kind, inputs, ninputs, &at);
    return finish(g, name, kind, inputs, ninputs, &at, NULL);
}

int32_t graph_matmul(struct graph *g, const char *name, int32_t a, int32_t b)
{
    int32_t in[2] = {a, b};
    return graph_op_infer(g, name, GRAPH_OP_MATMUL, in, 2, NULL);
}

int32_t graph_matmul_axes(struct graph *g, const char *name, int32_t a, int32_t b, int ca,
                          int cb)
{
    int32_t in[2] = {a, b};
    if (bad_ids(g, in, 2))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.ncontract = 1;
    at.lhs_contract[0] = norm_axis(g, a, ca);
    at.rhs_contract[0] = norm_axis(g, b, cb);
    return finish(g, name, GRAPH_OP_MATMUL, in, 2, &at, NULL);
}

int32_t graph_batch_matmul(struct graph *g, const char *name, int32_t a, int32_t b,
                           int b_transposed)
{
    int32_t in[2] = {a, b};
    if (bad_ids(g, in, 2))
        return -1;
    int ra = graph_tensor(g, a)->shape.rank, rb = graph_tensor(g, b)->shape.rank;
    if (ra < 3 || rb != ra)
        return graph_fail(g, LS_ERR_INPUT,
                          "op '%s%s': batch_matmul needs operands of equal rank >= 3 (%d, %d)",
                          g->prefix, name ? name : "?", ra, rb);
    struct graph_attrs at;
    defaults(g, GRAPH_OP_BATCH_MATMUL, in, 2, &at);
    if (b_transposed)
        at.rhs_contract[0] = rb - 1;
    return finish(g, name, GRAPH_OP_BATCH_MATMUL, in, 2, &at, NULL);
}

int32_t graph_conv2d(struct graph *g, const char *name, int32_t x, int32_t w, int64_t stride,
                     int64_t pad, int64_t groups)
{
    int32_t in[2] = {x, w};
    if (bad_ids(g, in, 2))
        return -1;
    struct graph_attrs at;
    defaults(g, GRAPH_OP_CONV2D, in, 2, &at);
    at.stride[0] = at.stride[1] = stride;
    at.pad[0] = at.pad[1] = pad;
    at.groups = groups;
    return finish(g, name, GRAPH_OP_CONV2D, in, 2, &at, NULL);
}

int32_t graph_unary(struct graph *g, const char *name, enum graph_op_kind kind, int32_t x)
{
    if (!graph_kind_is_unary(kind) || kind == GRAPH_OP_CAST)
        return graph_fail(g, LS_ERR_INPUT, "graph_unary: %s is not a unary kind (cast: "
                          "graph_cast)", graph_op_kind_name(kind));
    return graph_op_infer(g, name, kind, &x, 1, NULL);
}

int32_t graph_cast(struct graph *g, const char *name, int32_t x, enum ls_dtype to)
{
    if (bad_ids(g, &x, 1))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.dtype = to;
    return finish(g, name, GRAPH_OP_CAST, &x, 1, &at, NULL);
}

int32_t graph_binary(struct graph *g, const char *name, enum graph_op_kind kind, int32_t a,
                     int32_t b)
{
    if (!graph_kind_is_binary(kind))
        return graph_fail(g, LS_ERR_INPUT, "graph_binary: %s is not a binary kind",
                          graph_op_kind_name(kind));
    int32_t in[2] = {a, b};
    return graph_op_infer(g, name, kind, in, 2, NULL);
}

int32_t graph_reduce(struct graph *g, const char *name, enum graph_op_kind kind, int32_t x,
                     int naxes, const int *axes, int keep)
{
    if (bad_ids(g, &x, 1))
        return -1;
    if (!graph_kind_is_reduce(kind))
        return graph_fail(g, LS_ERR_INPUT, "graph_reduce: %s is not a reduction",
                          graph_op_kind_name(kind));
    if (naxes < 1 || naxes > GRAPH_MAX_RANK)
        return graph_fail(g, LS_ERR_INPUT, "graph_reduce: %d axes", naxes);
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.naxes = naxes;
    for (int i = 0; i < naxes; i++)
        at.axes[i] = norm_axis(g, x, axes[i]);
    /* keep the list sorted so equal reductions compare equal */
    for (int i = 1; i < naxes; i++)
        for (int j = i; j > 0 && at.axes[j - 1] > at.axes[j]; j--) {
            int tmp = at.axes[j];
            at.axes[j] = at.axes[j - 1];
            at.axes[j - 1] = tmp;
        }
    at.keep = keep ? 1 : 0;
    return finish(g, name, kind, &x, 1, &at, NULL);
}

static int32_t axis_op(struct graph *g, const char *name, enum graph_op_kind kind,
                       const int32_t *in, int n, int axis)
{
    int32_t ids[3];
    int m = 0;
    for (int i = 0; i < n; i++)
        if (i == 0 || in[i] >= 0)
            ids[m++] = in[i];
    if (bad_ids(g, ids, m))
        return -1;
    struct graph_attrs at;
    defaults(g, kind, ids, m, &at);
    at.axis = norm_axis(g, ids[0], axis);
    return finish(g, name, kind, ids, m, &at, NULL);
}

int32_t graph_softmax(struct graph *g, const char *name, int32_t x, int axis)
{
    return axis_op(g, name, GRAPH_OP_SOFTMAX, &x, 1, axis);
}

int32_t graph_layernorm(struct graph *g, const char *name, int32_t x, int32_t gamma,
                        int32_t beta, int axis)
{
    int32_t in[3] = {x, gamma, beta};
    return axis_op(g, name, GRAPH_OP_LAYERNORM, in, 3, axis);
}

int32_t graph_rmsnorm(struct graph *g, const char *name, int32_t x, int32_t gamma, int axis)
{
    int32_t in[2] = {x, gamma};
    return axis_op(g, name, GRAPH_OP_RMSNORM, in, 2, axis);
}

int32_t graph_batchnorm(struct graph *g, const char *name, int32_t x, int32_t scale,
                        int32_t shift, int axis)
{
    int32_t in[3] = {x, scale, shift};
    return axis_op(g, name, GRAPH_OP_BATCHNORM, in, 3, axis);
}

int32_t graph_transpose(struct graph *g, const char *name, int32_t x, const int *perm)
{
    if (bad_ids(g, &x, 1))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    int r = graph_tensor(g, x)->shape.rank;
    for (int i = 0; i < r; i++)
        at.perm[i] = norm_axis(g, x, perm[i]);
    return finish(g, name, GRAPH_OP_TRANSPOSE, &x, 1, &at, NULL);
}

int32_t graph_reshape(struct graph *g, const char *name, int32_t x, int rank,
                      const int64_t *sizes, const char *roles)
{
    if (bad_ids(g, &x, 1))
        return -1;
    struct graph_shape target;
    if (rank < 0 || rank > GRAPH_MAX_RANK || graph_shape_make(&target, rank, sizes))
        return graph_fail(g, LS_ERR_INPUT, "op '%s%s': bad reshape target", g->prefix,
                          name ? name : "?");
    if (roles) {
        /* parse through a scratch tensor-free path: reuse the role-list syntax */
        const char *p = roles;
        for (int i = 0; i < rank; i++) {
            const char *e = strchr(p, ',');
            size_t n = e ? (size_t)(e - p) : strlen(p);
            char buf[128];
            if (n >= sizeof buf || (n && !graph_role_ok(p, n)) || (i + 1 < rank && !e) ||
                (i + 1 == rank && e))
                return graph_fail(g, LS_ERR_INPUT, "op '%s%s': bad role list '%s'", g->prefix,
                                  name ? name : "?", roles);
            memcpy(buf, p, n);
            buf[n] = 0;
            if (n && !(target.dims[i].role = graph_intern(g, buf)))
                return graph_fail(g, LS_ERR_NOMEM, "out of memory");
            p = e ? e + 1 : p + n;
        }
    }
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    return finish(g, name, GRAPH_OP_RESHAPE, &x, 1, &at, &target);
}

int32_t graph_concat(struct graph *g, const char *name, int n, const int32_t *xs, int axis)
{
    if (n < 1 || n > GRAPH_MAX_INPUTS)
        return graph_fail(g, LS_ERR_INPUT, "graph_concat: %d inputs", n);
    if (bad_ids(g, xs, n))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.axis = norm_axis(g, xs[0], axis);
    return finish(g, name, GRAPH_OP_CONCAT, xs, n, &at, NULL);
}

int32_t graph_slice(struct graph *g, const char *name, int32_t x, int axis, int64_t begin,
                    int64_t end, int64_t step)
{
    if (bad_ids(g, &x, 1))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.axis = norm_axis(g, x, axis);
    at.begin = begin;
    at.end = end;
    at.step = step;
    return finish(g, name, GRAPH_OP_SLICE, &x, 1, &at, NULL);
}

int32_t graph_gather(struct graph *g, const char *name, int32_t table, int32_t ids, int axis)
{
    int32_t in[2] = {table, ids};
    if (bad_ids(g, in, 2))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.axis = norm_axis(g, table, axis);
    return finish(g, name, GRAPH_OP_GATHER, in, 2, &at, NULL);
}

int32_t graph_pool(struct graph *g, const char *name, enum graph_op_kind kind, int32_t x,
                   int64_t kernel, int64_t stride, int64_t pad)
{
    if (kind != GRAPH_OP_POOL_MAX && kind != GRAPH_OP_POOL_AVG)
        return graph_fail(g, LS_ERR_INPUT, "graph_pool: %s is not a pool kind",
                          graph_op_kind_name(kind));
    if (bad_ids(g, &x, 1))
        return -1;
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.kernel[0] = at.kernel[1] = kernel;
    at.stride[0] = at.stride[1] = stride;
    at.pad[0] = at.pad[1] = pad;
    return finish(g, name, kind, &x, 1, &at, NULL);
}
