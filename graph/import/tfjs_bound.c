/* graph/import/tfjs_bound: an upper bound on a scalar computed from tensor data, for a size
 * bounded by its maximum (a Range up to the count of selected boxes, as post-processing
 * writes it: range(min(count, M))). Followed back through the producers: a known value
 * (its largest element), a comparison or logical op (1), Cast and reshapes (their input),
 * Sum (the input's bound times the elements summed into one), Max (its input's), Minimum
 * (the smaller bound of those known), Maximum, Select and AddV2 (from both inputs). */
#include <string.h>

#include "tfjs_int.h"

static int any_of(const char *op, const char *const *ops)
{
    for (; *ops; ops++)
        if (!strcmp(op, *ops))
            return 1;
    return 0;
}

static const char *const boolean[] = {"Greater", "GreaterEqual", "Less", "LessEqual", "Equal",
                                      "NotEqual", "LogicalAnd", "LogicalOr", "LogicalNot",
                                      NULL};
static const char *const same[] = {"Cast", "Identity", "Reshape", "Squeeze", "ExpandDims",
                                   "Max", NULL};
static const char *const both[] = {"Maximum", "Select", "SelectV2", "AddV2", "Add", NULL};

static int bound(const struct tfjs *c, int32_t node, int port, int depth, double *hi)
{
    const struct tnode *n = &c->nodes[node];
    if (depth > 64 || n->dead || port >= n->nout)
        return 0;
    const struct tv *v = &n->out[port];
    int64_t m = tf_numel(v->rank, v->dims);
    if (v->vals && m > 0) {
        *hi = v->vals[0];
        for (int64_t i = 1; i < m; i++)
            *hi = v->vals[i] > *hi ? v->vals[i] : *hi;
        return 1;
    }
    double a, b;
    if (any_of(n->op, boolean))
        return *hi = 1, 1;
    if (any_of(n->op, same) && n->nin > 0)
        return bound(c, n->in[0], n->port[0], depth + 1, hi);
    if (!strcmp(n->op, "Sum") && n->nin > 0 && m > 0 &&
        bound(c, n->in[0], n->port[0], depth + 1, hi)) {
        const struct tv *x = &c->nodes[n->in[0]].out[n->port[0]];
        return *hi *= (double)(tf_numel(x->rank, x->dims) / m), 1;
    }
    if (n->nin < 2)
        return 0;
    int k = !strncmp(n->op, "Select", 6);   /* Select(cond, a, b) */
    if (n->nin < 2 + k)
        return 0;
    int ka = bound(c, n->in[k], n->port[k], depth + 1, &a);
    int kb = bound(c, n->in[k + 1], n->port[k + 1], depth + 1, &b);
    if (!strcmp(n->op, "Minimum") && (ka || kb))
        return *hi = ka && kb ? (a < b ? a : b) : ka ? a : b, 1;
    if (!any_of(n->op, both) || !ka || !kb)
        return 0;
    return *hi = strncmp(n->op, "Add", 3) ? (a > b ? a : b) : a + b, 1;
}

int tf_upper_bound(const struct tfjs *c, const struct tnode *n, int i, double *hi)
{
    return i < n->nin && bound(c, n->in[i], n->port[i], 0, hi);
}
