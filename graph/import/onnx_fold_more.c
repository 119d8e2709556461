/* graph/import/onnx_fold_more: import-time evaluation of Split and the reductions
 * (ReduceMax, ReduceMin, ReduceSum, ReduceMean, ReduceProd) over small constants, so shape
 * chains such as Shape -> Split -> ReduceMax -> Concat -> Pad fold to constant pads. The
 * other foldable ops are in onnx_fold.c, which calls ox_fold_more last. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/onnx_int.h"

#define FOLDED 2   /* as onnx_fold.c: outputs bound */

/* Bind output k as a constant of this shape with room for its values. */
static double *bind_vals(struct ox *x, int k, int dt, int rank, const int64_t *dims)
{
    struct ox_val *v = ox_bind_const(x, k, dt, rank, dims);
    if (!v)
        return NULL;
    int64_t n = ox_numel(v);
    if (!(v->vals = calloc((size_t)(n ? n : 1), sizeof(double))))
        ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    return v->vals;
}

static int axis_of(struct ox *x, int64_t a, int rank, int *out)
{
    if (a < -rank || a >= rank)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, rank);
    *out = (int)(a < 0 ? a + rank : a);
    return 0;
}

static int fold_split(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int nout = (int)x->node->n_output, ax = 0;
    int64_t parts[OX_MAX_CONST];
    if (a->rank < 1 || axis_of(x, ox_attr_i(x, "axis", 0), a->rank, &ax))
        return a->rank < 1 ? ox_fail(x, "cannot split a scalar") : -1;
    if (nout < 1 || nout > OX_MAX_CONST)
        return ox_fail(x, "needs 1 to %d outputs", OX_MAX_CONST);
    int np = ox_attr_ints(x, "split", parts, OX_MAX_CONST);
    if (np == -1)
        np = ox_in_ints(x, 1, parts, OX_MAX_CONST);
    if (np < 0) {   /* equal parts; the last may be smaller */
        int64_t n = a->dims[ax], each = (n + nout - 1) / nout;
        for (int i = 0; i < nout; i++)
            parts[i] = i < nout - 1 ? each : n - each * (nout - 1);
        np = nout;
    }
    if (np != nout)
        return ox_fail(x, "%d split sizes for %d outputs", np, nout);
    int64_t inner = ox_dims_numel(a->rank - ax - 1, a->dims + ax + 1);
    int64_t outer = ox_dims_numel(ax, a->dims), at = 0;
    for (int k = 0; k < nout; k++) {
        if (parts[k] < 0 || at + parts[k] > a->dims[ax])
            return ox_fail(x, "split sizes do not fit axis %d of size %lld", ax,
                           (long long)a->dims[ax]);
        int64_t d[OX_MAX_RANK];
        memcpy(d, a->dims, sizeof d);
        d[ax] = parts[k];
        double *o = bind_vals(x, k, a->onnx_dt, a->rank, d);
        if (!o)
            return -1;
        for (int64_t i = 0; i < outer; i++)
            memcpy(o + i * parts[k] * inner, a->vals + (i * a->dims[ax] + at) * inner,
                   sizeof(double) * (size_t)(parts[k] * inner));
        at += parts[k];
    }
    return FOLDED;
}

static double reduce_step(const char *op, double acc, double v)
{
    if (!strcmp(op, "ReduceMax"))
        return v > acc ? v : acc;
    if (!strcmp(op, "ReduceMin"))
        return v < acc ? v : acc;
    if (!strcmp(op, "ReduceProd"))
        return acc * v;
    return acc + v;   /* ReduceSum, ReduceMean */
}

/* The reduced axes (mask) from the axes attribute or input; 0, or 1 for "no reduction"
 * (noop_with_empty_axes), or an error. */
static int reduce_axes(struct ox *x, int rank, int *mask)
{
    int64_t v[OX_MAX_RANK];
    int n = ox_attr_ints(x, "axes", v, OX_MAX_RANK);
    if (n == -1)
        n = ox_in_ints(x, 1, v, OX_MAX_RANK);
    if (n == -2 || n == -3)
        return ox_fail(x, "axes must be a constant");
    if (n <= 0 && ox_attr_i(x, "noop_with_empty_axes", 0))
        return 1;
    for (int i = 0; i < rank; i++)
        mask[i] = n <= 0;
    for (int i = 0; i < n; i++) {
        int a = 0;
        if (axis_of(x, v[i], rank, &a))
            return -1;
        mask[a] = 1;
    }
    return 0;
}

static int fold_reduce(struct ox *x)
{
    const char *op = x->node->op_type;
    struct ox_val *a = ox_in(x, 0);
    int mask[OX_MAX_RANK], keep = (int)ox_attr_i(x, "keepdims", 1), r = 0;
    int rc = reduce_axes(x, a->rank, mask);
    if (rc < 0 || rc > 1)
        return -1;
    int64_t d[OX_MAX_RANK];
    for (int i = 0; i < a->rank; i++)
        if (rc == 1 || !mask[i] || keep)
            d[r++] = rc == 1 || !mask[i] ? a->dims[i] : 1;
    double *o = bind_vals(x, 0, a->onnx_dt, r, d);
    if (!o)
        return -1;
    int64_t n = ox_numel(a), no = ox_dims_numel(r, d), *cnt = calloc((size_t)(no ? no : 1), sizeof(int64_t));
    if (!cnt)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, off = 0, stride = 1;   /* the output element of input element i */
        for (int k = a->rank - 1; k >= 0; k--) {
            int64_t c = rem % a->dims[k];
            rem /= a->dims[k];
            if (rc == 1 || !mask[k]) {
                off += c * stride;
                stride *= a->dims[k];
            }
        }
        o[off] = cnt[off]++ ? reduce_step(op, o[off], a->vals[i]) : a->vals[i];
    }
    for (int64_t i = 0; i < no && !strcmp(op, "ReduceMean"); i++)
        o[i] = cnt[i] ? o[i] / (double)cnt[i] : NAN;
    free(cnt);
    return FOLDED;
}

int ox_fold_more(struct ox *x)
{
    const char *op = x->node->op_type;
    if (!strcmp(op, "Split"))
        return fold_split(x);
    static const char *const reduce[] = {"ReduceMax", "ReduceMin", "ReduceSum", "ReduceMean",
                                         "ReduceProd"};
    for (size_t i = 0; i < sizeof reduce / sizeof *reduce; i++)
        if (!strcmp(op, reduce[i]))
            return fold_reduce(x);
    return 0;
}
