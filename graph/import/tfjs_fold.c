/* graph/import: constant folding for the TF.js importer. An op whose inputs are all
 * constants gives a constant: with its values when they are known and small (the shape
 * arithmetic Reshape targets need: Shape -> StridedSlice -> Pack -> Reshape), otherwise
 * just with its shape (a folded weight, no compute op). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/tfjs_int.h"

/* Right-aligned numpy broadcast of two shapes; -1 when they do not broadcast. */
static int bcast(int ra, const int64_t *a, int rb, const int64_t *b, int64_t *out)
{
    int r = ra > rb ? ra : rb;
    for (int i = 0; i < r; i++) {
        int64_t x = i < r - ra ? 1 : a[i - (r - ra)], y = i < r - rb ? 1 : b[i - (r - rb)];
        if (x != y && x != 1 && y != 1)
            return -1;
        out[i] = x == 1 ? y : x;
    }
    return r;
}

/* Flat index into a (rank ra) of output index idx (rank r) under broadcasting. */
static int64_t bindex(int r, const int64_t *idx, int ra, const int64_t *a)
{
    int64_t f = 0;
    for (int i = r - ra; i < r; i++) {
        int64_t d = a[i - (r - ra)];
        f = f * d + (d == 1 ? 0 : idx[i]);
    }
    return f;
}

static void next_index(int r, const int64_t *dims, int64_t *idx)
{
    for (int i = r - 1; i >= 0; i--) {
        if (++idx[i] < dims[i])
            return;
        idx[i] = 0;
    }
}

static double apply2(const char *op, double x, double y, int isint)
{
    if (!strcmp(op, "Sub")) return x - y;
    if (!strcmp(op, "Mul")) return x * y;
    if (!strcmp(op, "RealDiv") || !strcmp(op, "Div") || !strcmp(op, "DivNoNan"))
        return y == 0 ? 0 : isint ? trunc(x / y) : x / y;
    if (!strcmp(op, "FloorDiv")) return y == 0 ? 0 : floor(x / y);
    if (!strcmp(op, "FloorMod")) return y == 0 ? 0 : x - floor(x / y) * y;
    if (!strcmp(op, "Maximum") || !strcmp(op, "LogicalOr")) return x > y ? x : y;
    if (!strcmp(op, "Minimum")) return x < y ? x : y;
    if (!strcmp(op, "Pow")) return pow(x, y);
    if (!strcmp(op, "Greater")) return x > y;
    if (!strcmp(op, "GreaterEqual")) return x >= y;
    if (!strcmp(op, "Less")) return x < y;
    if (!strcmp(op, "LessEqual")) return x <= y;
    if (!strcmp(op, "Equal")) return x == y;
    if (!strcmp(op, "NotEqual")) return x != y;
    if (!strcmp(op, "LogicalAnd")) return x && y;
    if (!strcmp(op, "SquaredDifference")) return (x - y) * (x - y);
    if (!strcmp(op, "Atan2")) return atan2(x, y);
    return x + y; /* Add, AddV2, BiasAdd */
}

int tf_fold_binary(struct tfjs *c, struct tnode *n)
{
    struct tv *a = tf_in(c, n, 0), *b = tf_in(c, n, 1);
    if (!a || !b)
        return 1;
    if (!a->weight || !b->weight)
        return 0;
    int64_t d[GRAPH_MAX_RANK], idx[GRAPH_MAX_RANK] = {0};
    int r = bcast(a->rank, a->dims, b->rank, b->dims, d);
    if (r < 0)
        return tf_fail(c, "constant operands do not broadcast"), 1;
    int64_t m = tf_numel(r, d);
    double *v = NULL;
    if (a->vals && b->vals && m <= TV_MAX_VALS && (v = malloc((size_t)(m ? m : 1) * sizeof *v))) {
        for (int64_t k = 0; k < m; k++, next_index(r, d, idx))
            v[k] = apply2(n->op, a->vals[bindex(r, idx, a->rank, a->dims)],
                          b->vals[bindex(r, idx, b->rank, b->dims)], a->dt != LS_DT_FP32);
    }
    tf_set_value(c, n, 0, a->dt, r, d, v);
    free(v);
    return 1;
}

static double apply1(const char *op, double x, int *known)
{
    *known = 1;
    if (!strcmp(op, "Neg")) return -x;
    if (!strcmp(op, "Floor")) return floor(x);
    if (!strcmp(op, "Ceil")) return ceil(x);
    if (!strcmp(op, "Round")) return nearbyint(x);
    if (!strcmp(op, "Abs")) return fabs(x);
    if (!strcmp(op, "Sqrt")) return x > 0 ? sqrt(x) : 0;
    if (!strcmp(op, "Rsqrt")) return x > 0 ? 1 / sqrt(x) : 0;
    if (!strcmp(op, "Reciprocal") || !strcmp(op, "Inv")) return x ? 1 / x : 0;
    if (!strcmp(op, "Square")) return x * x;
    if (!strcmp(op, "Exp")) return exp(x);
    if (!strcmp(op, "Log")) return x > 0 ? log(x) : 0;
    if (!strcmp(op, "Sign")) return (x > 0) - (x < 0);
    if (!strcmp(op, "Relu")) return x > 0 ? x : 0;
    if (!strcmp(op, "LogicalNot")) return !x;
    if (!strcmp(op, "Cast")) return x;
    *known = 0;
    return 0;
}

int tf_fold_unary(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return 1;
    if (!x->weight)
        return 0;
    enum ls_dtype dt = x->dt;
    if (!strcmp(n->op, "Cast")) {
        json_t *a = json_object_get(json_object_get(n->j, "attr"), "DstT");
        const char *s = json_string_value(json_object_get(a, "type"));
        dt = s && (strstr(s, "INT") || strstr(s, "BOOL")) ? LS_DT_INT32 : LS_DT_FP32;
    }
    int64_t m = tf_numel(x->rank, x->dims);
    double *v = NULL;
    int known = 1;
    if (x->vals && (v = malloc((size_t)(m ? m : 1) * sizeof *v)))
        for (int64_t k = 0; k < m && known; k++) {
            v[k] = apply1(n->op, x->vals[k], &known);
            if (dt != LS_DT_FP32)
                v[k] = trunc(v[k]);
        }
    tf_set_value(c, n, 0, dt, x->rank, x->dims, known ? v : NULL);
    free(v);
    return 1;
}

/* Reductions of constants: the shape always, values for a full reduction. */
int tf_fold_reduce(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return 1;
    if (!x->weight)
        return 0;
    int64_t ax[GRAPH_MAX_RANK], keep = 0, d[GRAPH_MAX_RANK];
    int na = tf_ints(c, n, 1, ax, GRAPH_MAX_RANK), used[GRAPH_MAX_RANK] = {0}, r = 0;
    if (na < 0 || tf_attr_int(c, n, "keep_dims", 0, &keep))
        return 1;
    for (int i = 0; i < na; i++) {
        int a = tf_axis(c, ax[i], x->rank);
        if (a < 0)
            return 1;
        used[a] = 1;
    }
    int all = 1;
    for (int i = 0; i < x->rank; i++) {
        all &= used[i];
        if (!used[i] || keep)
            d[r++] = used[i] ? 1 : x->dims[i];
    }
    int64_t m = tf_numel(x->rank, x->dims);
    double acc = 0, *v = NULL;
    if (x->vals && all && m > 0) {
        acc = x->vals[0];
        for (int64_t k = 1; k < m; k++) {
            double y = x->vals[k];
            acc = !strcmp(n->op, "Prod") ? acc * y
                  : !strcmp(n->op, "Max") || !strcmp(n->op, "Any") ? (y > acc ? y : acc)
                  : !strcmp(n->op, "Min") || !strcmp(n->op, "All") ? (y < acc ? y : acc)
                                                                   : acc + y;
        }
        if (!strcmp(n->op, "Mean"))
            acc /= (double)m;
        v = !strncmp(n->op, "Arg", 3) ? NULL : &acc;
    }
    tf_set_value(c, n, 0, !strncmp(n->op, "Arg", 3) ? LS_DT_INT32 : x->dt, r, d, v);
    return 1;
}

/* Select/SelectV2 (cond, a, b) of known values, each of one element or of the output's:
 * folded. 1 when handled. */
int tf_fold_select(struct tfjs *c, struct tnode *n)
{
    struct tv *x[3], *o = NULL;
    for (int i = 0; i < 3; i++) {
        if (n->nin != 3 || !(x[i] = tf_in(c, n, i)) || !x[i]->vals)
            return 0;
        if (!o || tf_numel(x[i]->rank, x[i]->dims) > tf_numel(o->rank, o->dims))
            o = x[i];
    }
    int64_t m = tf_numel(o->rank, o->dims), mi[3];
    for (int i = 0; i < 3; i++)
        if ((mi[i] = tf_numel(x[i]->rank, x[i]->dims)) != 1 && mi[i] != m)
            return 0;
    double *v = malloc((size_t)(m ? m : 1) * sizeof *v);
    if (!v)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory"), 1;
    for (int64_t k = 0; k < m; k++) {
        int t = x[0]->vals[mi[0] == 1 ? 0 : k] != 0;
        v[k] = x[t ? 1 : 2]->vals[mi[t ? 1 : 2] == 1 ? 0 : k];
    }
    int64_t dims[GRAPH_MAX_RANK];
    memcpy(dims, o->dims, sizeof dims);
    tf_set_value(c, n, 0, x[1]->dt, o->rank, dims, v);
    free(v);
    return 1;
}
