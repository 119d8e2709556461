/* graph/import/onnx_fold: evaluate at import time the nodes whose inputs are all small
 * constants (the shape arithmetic of exported models: Shape -> Gather -> Unsqueeze ->
 * Concat -> Reshape). Values are doubles: exact for the integers shapes need. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/onnx_ops.h"

#define FOLDED 2   /* distinct from LS_ERR_INPUT (1), which ox_fail returns */

/* Offset in an input of rank ir/dims id of output element i (right-aligned broadcast). */
static int64_t bidx(int64_t i, int orank, const int64_t *od, int ir, const int64_t *id)
{
    int64_t off = 0, stride = 1;
    for (int a = orank - 1; a >= 0; a--) {
        int64_t c = i % od[a];
        i /= od[a];
        int b = a - (orank - ir);
        if (b >= 0) {
            if (id[b] != 1)
                off += c * stride;
            stride *= id[b];
        }
    }
    return off;
}

static int is_int(int dt)
{
    return dt != 1 && dt != 10 && dt != 11 && dt != 16;
}

static double binop(const char *op, double a, double b, int integer)
{
    if (!strcmp(op, "Add")) return a + b;
    if (!strcmp(op, "Sub")) return a - b;
    if (!strcmp(op, "Mul")) return a * b;
    if (!strcmp(op, "Div")) return b == 0 ? 0 : integer ? trunc(a / b) : a / b;
    if (!strcmp(op, "Mod")) return b == 0 ? 0 : fmod(a, b);
    if (!strcmp(op, "Pow")) return pow(a, b);
    if (!strcmp(op, "Max")) return a > b ? a : b;
    if (!strcmp(op, "Min")) return a < b ? a : b;
    if (!strcmp(op, "Equal")) return a == b;
    if (!strcmp(op, "Less")) return a < b;
    if (!strcmp(op, "Greater")) return a > b;
    if (!strcmp(op, "LessOrEqual")) return a <= b;
    if (!strcmp(op, "GreaterOrEqual")) return a >= b;
    if (!strcmp(op, "And")) return a != 0 && b != 0;
    if (!strcmp(op, "Or")) return a != 0 || b != 0;
    return NAN;
}

static double unop(const char *op, double a)
{
    if (!strcmp(op, "Neg")) return -a;
    if (!strcmp(op, "Abs")) return fabs(a);
    if (!strcmp(op, "Floor")) return floor(a);
    if (!strcmp(op, "Ceil")) return ceil(a);
    if (!strcmp(op, "Sqrt")) return sqrt(a);
    if (!strcmp(op, "Reciprocal")) return a != 0 ? 1 / a : 0;
    if (!strcmp(op, "Not")) return a == 0;
    if (!strcmp(op, "Relu")) return a > 0 ? a : 0;
    return NAN;
}

static struct ox_val *out(struct ox *x, int dt, int rank, const int64_t *dims)
{
    struct ox_val *v = ox_bind_const(x, 0, dt, rank, dims);
    if (!v)
        return NULL;
    int64_t n = ox_numel(v);
    v->vals = calloc((size_t)(n ? n : 1), sizeof(double));
    if (!v->vals)
        ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    return v->vals ? v : NULL;
}

static int64_t numel_of(int rank, const int64_t *d)
{
    return ox_dims_numel(rank, d);
}

/* Elementwise ops with broadcasting over up to 3 inputs (Where). */
static int fold_elementwise(struct ox *x, int nin)
{
    const char *op = x->node->op_type;
    struct ox_val *in[3];
    int r = 0;
    int64_t d[OX_MAX_RANK];
    for (int k = 0; k < nin; k++) {
        in[k] = ox_in(x, k);
        int64_t o[OX_MAX_RANK];
        int ro;
        if (k == 0) {
            r = in[0]->rank;
            memcpy(d, in[0]->dims, sizeof d);
            continue;
        }
        if (oxo_broadcast_shape(x, r, d, in[k]->rank, in[k]->dims, &ro, o))
            return -1;
        r = ro;
        memcpy(d, o, sizeof d);
    }
    if (numel_of(r, d) > OX_MAX_CONST)
        return 0;
    int where = !strcmp(op, "Where");
    int dt = where ? in[1]->onnx_dt : in[0]->onnx_dt;
    int cmp = !strcmp(op, "Equal") || !strncmp(op, "Less", 4) || !strncmp(op, "Greater", 7) ||
              !strcmp(op, "And") || !strcmp(op, "Or") || !strcmp(op, "Not");
    struct ox_val *v = out(x, cmp ? 9 : dt, r, d);
    if (!v)
        return -1;
    int64_t n = ox_numel(v);
    for (int64_t i = 0; i < n; i++) {
        double a = in[0]->vals[bidx(i, r, d, in[0]->rank, in[0]->dims)];
        if (nin == 1)
            v->vals[i] = unop(op, a);
        else if (where)
            v->vals[i] = a != 0 ? in[1]->vals[bidx(i, r, d, in[1]->rank, in[1]->dims)]
                                : in[2]->vals[bidx(i, r, d, in[2]->rank, in[2]->dims)];
        else
            v->vals[i] = binop(op, a, in[1]->vals[bidx(i, r, d, in[1]->rank, in[1]->dims)],
                               is_int(dt));
    }
    return FOLDED;
}

static int fold_concat(struct ox *x)
{
    int n = (int)x->node->n_input, r = -1;
    int64_t d[OX_MAX_RANK];
    struct ox_val *first = NULL;
    for (int k = 0; k < n; k++) {
        struct ox_val *v = ox_in(x, k);
        if (!v)
            continue;
        if (!first) {
            first = v;
            r = v->rank;
            memcpy(d, v->dims, sizeof d);
            d[0] = 0;
        }
    }
    if (!first || r < 1)
        return 0;
    int64_t axis = ox_attr_i(x, "axis", 0);
    if (axis < -r || axis >= r)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)axis, r);
    int a = (int)(axis < 0 ? axis + r : axis);
    memcpy(d, first->dims, sizeof d);
    d[a] = 0;
    for (int k = 0; k < n; k++) {
        struct ox_val *v = ox_in(x, k);
        if (!v)
            continue;
        if (v->rank != r)
            return ox_fail(x, "input %d has rank %d, input 0 has %d", k, v->rank, r);
        for (int i = 0; i < r; i++)
            if (i != a && v->dims[i] != first->dims[i])
                return ox_fail(x, "input %d axis %d differs", k, i);
        d[a] += v->dims[a];
    }
    if (numel_of(r, d) > OX_MAX_CONST)
        return 0;
    struct ox_val *o = out(x, first->onnx_dt, r, d);
    if (!o)
        return -1;
    int64_t outer = numel_of(a, d), inner = numel_of(r - a - 1, d + a + 1), at = 0;
    for (int k = 0; k < n; k++) {
        struct ox_val *v = ox_in(x, k);
        if (!v)
            continue;
        int64_t w = v->dims[a] * inner;
        for (int64_t i = 0; i < outer; i++)
            memcpy(o->vals + i * d[a] * inner + at, v->vals + i * w, sizeof(double) * (size_t)w);
        at += w;
    }
    return FOLDED;
}

static int fold_gather(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0), *ix = ox_in(x, 1);
    int r = a->rank;
    int64_t axis = ox_attr_i(x, "axis", 0);
    if (r < 1 || axis < -r || axis >= r)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)axis, r);
    int ax = (int)(axis < 0 ? axis + r : axis), ro = r - 1 + ix->rank;
    if (ro > OX_MAX_RANK)
        return ox_fail(x, "output rank %d exceeds %d", ro, OX_MAX_RANK);
    int64_t d[OX_MAX_RANK];
    memcpy(d, a->dims, sizeof(int64_t) * (size_t)ax);
    memcpy(d + ax, ix->dims, sizeof(int64_t) * (size_t)ix->rank);
    memcpy(d + ax + ix->rank, a->dims + ax + 1, sizeof(int64_t) * (size_t)(r - ax - 1));
    if (numel_of(ro, d) > OX_MAX_CONST)
        return 0;
    struct ox_val *o = out(x, a->onnx_dt, ro, d);
    if (!o)
        return -1;
    int64_t outer = numel_of(ax, a->dims), inner = numel_of(r - ax - 1, a->dims + ax + 1);
    int64_t ni = ox_numel(ix), n = a->dims[ax];
    for (int64_t i = 0; i < outer; i++)
        for (int64_t j = 0; j < ni; j++) {
            int64_t k = ox_i64(ix->vals[j]);
            if (k < -n || k >= n)
                return ox_fail(x, "index %lld out of range for size %lld", (long long)k,
                               (long long)n);
            k = k < 0 ? k + n : k;
            memcpy(o->vals + (i * ni + j) * inner, a->vals + (i * n + k) * inner,
                   sizeof(double) * (size_t)inner);
        }
    return FOLDED;
}

static int fold_slice(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int r = a->rank;
    int64_t b[OX_MAX_RANK], c[OX_MAX_RANK], s[OX_MAX_RANK];
    if (r < 1 || oxo_slice_params(x, r, a->dims, b, c, s, 1))
        return r < 1 ? ox_fail(x, "cannot slice a scalar") : -1;
    struct ox_val *o = out(x, a->onnx_dt, r, c);
    if (!o)
        return -1;
    int64_t n = ox_numel(o);
    for (int64_t i = 0; i < n; i++) {
        int64_t rem = i, off = 0, stride = 1;
        for (int k = r - 1; k >= 0; k--) {
            int64_t q = rem % c[k];
            rem /= c[k];
            off += (b[k] + q * s[k]) * stride;
            stride *= a->dims[k];
        }
        o->vals[i] = a->vals[off];
    }
    return FOLDED;
}

static int fold_transpose(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int r = a->rank, perm[OX_MAX_RANK];
    int64_t d[OX_MAX_RANK], stride[OX_MAX_RANK];
    if (ox_attr_perm(x, r, perm))
        return -1;
    for (int i = 0; i < r; i++)
        d[i] = a->dims[perm[i]];
    for (int i = r - 1, s = 1; i >= 0; s *= (int)a->dims[i], i--)
        stride[i] = s;
    struct ox_val *o = out(x, a->onnx_dt, r, d);
    if (!o)
        return -1;
    for (int64_t i = 0; i < ox_numel(o); i++) {
        int64_t rem = i, off = 0;
        for (int k = r - 1; k >= 0; k--) {
            off += (rem % d[k]) * stride[perm[k]];
            rem /= d[k];
        }
        o->vals[i] = a->vals[off];
    }
    return FOLDED;
}

/* ScatterND(data, indices[..., k], updates): each index tuple overwrites a slice. */
static int fold_scatter_nd(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0), *ix = ox_in(x, 1), *up = ox_in(x, 2);
    int r = a->rank, k = ix->rank ? (int)ix->dims[ix->rank - 1] : 0;
    if (ix->rank < 1 || k < 1 || k > r)
        return ox_fail(x, "indices must end in an axis of 1..%d", r);
    int64_t slice = ox_dims_numel(r - k, a->dims + k), nt = ox_numel(ix) / k;
    if (ox_numel(up) != nt * slice)
        return ox_fail(x, "updates have %lld elements, expected %lld",
                       (long long)ox_numel(up), (long long)(nt * slice));
    struct ox_val *o = out(x, a->onnx_dt, r, a->dims);
    if (!o)
        return -1;
    memcpy(o->vals, a->vals, sizeof(double) * (size_t)ox_numel(a));
    for (int64_t t = 0; t < nt; t++) {
        int64_t off = 0;
        for (int j = 0; j < k; j++) {
            int64_t i = ox_i64(ix->vals[t * k + j]), n = a->dims[j];
            if (i < -n || i >= n)
                return ox_fail(x, "index %lld out of range for size %lld", (long long)i,
                               (long long)n);
            off = off * n + (i < 0 ? i + n : i);
        }
        memcpy(o->vals + off * slice, up->vals + t * slice, sizeof(double) * (size_t)slice);
    }
    return FOLDED;
}

static int fold_range(struct ox *x)
{
    double st = ox_in(x, 0)->vals[0], lim = ox_in(x, 1)->vals[0], dl = ox_in(x, 2)->vals[0];
    if (dl == 0)
        return ox_fail(x, "delta is 0");
    double cnt = ceil((lim - st) / dl);
    int64_t n = cnt > 0 ? ox_i64(cnt) : 0;
    if (n > OX_MAX_CONST)
        return ox_fail(x, "range of %lld elements", (long long)n);
    struct ox_val *o = out(x, ox_in(x, 0)->onnx_dt, 1, &n);
    if (!o)
        return -1;
    for (int64_t i = 0; i < n; i++)
        o->vals[i] = st + (double)i * dl;
    return FOLDED;
}

static int fold_reshape(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int r;
    int64_t d[OX_MAX_RANK];
    int rc = ox_reshape_target(x, a->rank, a->dims, &r, d);
    if (rc)
        return rc == -2 ? 0 : -1;
    struct ox_val *o = out(x, a->onnx_dt, r, d);
    if (!o)
        return -1;
    memcpy(o->vals, a->vals, sizeof(double) * (size_t)ox_numel(a));
    return FOLDED;
}

static int fold_cast(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int to = (int)ox_attr_i(x, "to", 1);
    struct ox_val *o = out(x, to, a->rank, a->dims);
    if (!o)
        return -1;
    int64_t n = ox_numel(a);
    for (int64_t i = 0; i < n; i++)
        o->vals[i] = is_int(to) ? trunc(a->vals[i]) : a->vals[i];
    return FOLDED;
}

static int fold_expand(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0), *s = ox_in(x, 1);
    int64_t sd[OX_MAX_RANK], d[OX_MAX_RANK];
    int ns = (int)ox_numel(s), r;
    if (ns > OX_MAX_RANK)
        return ox_fail(x, "shape of rank %d", ns);
    for (int i = 0; i < ns; i++)
        sd[i] = ox_i64(s->vals[i]);
    if (oxo_broadcast_shape(x, a->rank, a->dims, ns, sd, &r, d))
        return -1;
    if (numel_of(r, d) > OX_MAX_CONST)
        return 0;
    struct ox_val *o = out(x, a->onnx_dt, r, d);
    if (!o)
        return -1;
    for (int64_t i = 0; i < ox_numel(o); i++)
        o->vals[i] = a->vals[bidx(i, r, d, a->rank, a->dims)];
    return FOLDED;
}

int ox_fold(struct ox *x)
{
    const Onnx__NodeProto *nd = x->node;
    const char *op = nd->op_type;
    int shape_only = !strcmp(op, "Reshape") || !strcmp(op, "Flatten") ||
                     !strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze") ||
                     !strcmp(op, "Identity") || !strcmp(op, "Dropout");
    for (size_t i = 0; i < nd->n_input; i++) {
        struct ox_val *v = ox_in(x, (int)i);
        if (v && (!v->konst || !v->vals))
            return 0;
    }
    if (nd->n_input == 0 || !ox_in(x, 0))
        return 0;
    if (shape_only)
        return fold_reshape(x);
    static const char *const unary[] = {"Neg",  "Abs", "Floor", "Ceil",
                                        "Sqrt", "Not", "Relu",  "Reciprocal"};
    static const char *const binary[] = {"Add", "Sub", "Mul", "Div", "Mod", "Pow", "Max",
                                         "Min", "Equal", "Less", "Greater", "LessOrEqual",
                                         "GreaterOrEqual", "And", "Or"};
    for (size_t i = 0; i < sizeof unary / sizeof *unary; i++)
        if (!strcmp(op, unary[i]) && nd->n_input == 1)
            return fold_elementwise(x, 1);
    for (size_t i = 0; i < sizeof binary / sizeof *binary; i++)
        if (!strcmp(op, binary[i]) && nd->n_input == 2 && ox_in(x, 1))
            return fold_elementwise(x, 2);
    if (!strcmp(op, "Where") && nd->n_input == 3 && ox_in(x, 1) && ox_in(x, 2))
        return fold_elementwise(x, 3);
    if (!strcmp(op, "Concat"))
        return fold_concat(x);
    if (!strcmp(op, "Gather") && ox_in(x, 1))
        return fold_gather(x);
    if (!strcmp(op, "Slice"))
        return fold_slice(x);
    if (!strcmp(op, "Range") && nd->n_input == 3 && ox_in(x, 1) && ox_in(x, 2))
        return fold_range(x);
    if (!strcmp(op, "Cast"))
        return fold_cast(x);
    if (!strcmp(op, "Transpose"))
        return fold_transpose(x);
    if (!strcmp(op, "ScatterND") && nd->n_input == 3 && ox_in(x, 1) && ox_in(x, 2))
        return fold_scatter_nd(x);
    if (!strcmp(op, "Expand") && ox_in(x, 1))
        return fold_expand(x);
    return ox_fold_more(x);
}
