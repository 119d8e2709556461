/* graph/import: HLO attribute values (hlo_int.h) and the opcode names. */
#include <ctype.h>
#include <string.h>

#include "graph/import/hlo_int.h"

/* Every opcode of XLA's HLO (the ones the IR has no kind for are refused later, by name). */
static const char *const OPCODES[] = {
    "abs", "add", "add-dependency", "after-all", "all-gather", "all-gather-done",
    "all-gather-start", "all-reduce", "all-reduce-done", "all-reduce-start", "all-to-all",
    "and", "async-done", "async-start", "async-update", "atan2", "batch-norm-grad",
    "batch-norm-inference", "batch-norm-training", "bitcast", "bitcast-convert", "broadcast",
    "call", "cbrt", "ceil", "cholesky", "clamp", "clz", "collective-broadcast",
    "collective-permute", "collective-permute-done", "collective-permute-start", "compare",
    "complex", "concatenate", "conditional", "constant", "convert", "convolution", "copy",
    "copy-done", "copy-start", "cosine", "custom-call", "divide", "domain", "dot",
    "dynamic-reshape", "dynamic-slice", "dynamic-update-slice", "erf", "exponential",
    "exponential-minus-one", "fft", "floor", "fusion", "gather", "get-dimension-size",
    "get-tuple-element", "imag", "infeed", "iota", "is-finite", "log", "log-plus-one",
    "logistic", "map", "maximum", "minimum", "multiply", "negate", "not",
    "optimization-barrier", "or", "outfeed", "pad", "parameter", "partition-id", "popcnt",
    "power", "ragged-all-to-all", "real", "recv", "recv-done", "reduce", "reduce-precision",
    "reduce-scatter", "reduce-window", "remainder", "replica-id", "reshape", "reverse", "rng",
    "rng-bit-generator", "rng-get-and-update-state", "round-nearest-afz",
    "round-nearest-even", "rsqrt", "scatter", "select", "select-and-scatter", "send",
    "send-done", "set-dimension-size", "shift-left", "shift-right-arithmetic",
    "shift-right-logical", "sign", "sine", "slice", "sort", "sqrt", "stochastic-convert",
    "subtract", "tan", "tanh", "topk", "transpose", "triangular-solve", "tuple", "while",
    "xor",
};

int hlo_opcode_known(const char *s, int n)
{
    for (size_t i = 0; i < sizeof OPCODES / sizeof OPCODES[0]; i++)
        if ((int)strlen(OPCODES[i]) == n && !memcmp(OPCODES[i], s, (size_t)n))
            return 1;
    return 0;
}

/* A cursor inside an attribute value. */
struct vc {
    const struct hlo_module *m;
    const struct hlo_attr *a;
    int i;
    struct ls_error *err;
};

static int vfail(struct vc *v, const char *what)
{
    struct hlo_span at = v->a->val;
    for (int k = 0; k < v->i && k < at.n; k++)
        at.col++;
    return hlo_fail_at(v->m, &at, v->err, "attribute %.*s: %s", v->a->key.n, v->a->key.s, what);
}

static int vpeek(struct vc *v)
{
    while (v->i < v->a->val.n && v->a->val.s[v->i] == ' ')
        v->i++;
    return v->i < v->a->val.n ? (unsigned char)v->a->val.s[v->i] : -1;
}

static int veat(struct vc *v, char ch)
{
    if (vpeek(v) != (unsigned char)ch)
        return 0;
    v->i++;
    return 1;
}

static int vint(struct vc *v, int64_t *x, int allow_neg)
{
    int neg = allow_neg && veat(v, '-');
    if (!isdigit(vpeek(v)))
        return vfail(v, "expected an integer");
    *x = 0;
    while (v->i < v->a->val.n && isdigit((unsigned char)v->a->val.s[v->i])) {
        if (*x > GRAPH_MAX_DIM)
            return vfail(v, "integer too large");
        *x = *x * 10 + (v->a->val.s[v->i++] - '0');
    }
    if (neg)
        *x = -*x;
    return 0;
}

int hlo_attr_ints(const struct hlo_module *m, const struct hlo_attr *a, int64_t *out, int max,
                  int *n, struct ls_error *err)
{
    struct vc v = {m, a, 0, err};
    *n = 0;
    if (!veat(&v, '{'))
        return vfail(&v, "expected '{'");
    while (!veat(&v, '}')) {
        if (*n && !veat(&v, ','))
            return vfail(&v, "expected ',' or '}'");
        if (*n == max)
            return vfail(&v, "too many entries");
        if (vint(&v, &out[(*n)++], 0))
            return LS_ERR_INPUT;
    }
    return vpeek(&v) < 0 ? 0 : vfail(&v, "text after '}'");
}

/* NxM... into x (n entries). */
static int vdims(struct vc *v, int64_t *x, int *n, int max)
{
    *n = 0;
    do {
        if (*n == max)
            return vfail(v, "too many window dimensions");
        if (vint(v, &x[(*n)++], 0))
            return LS_ERR_INPUT;
    } while (veat(v, 'x'));
    return 0;
}

static int vword(struct vc *v, const char *w)
{
    int n = (int)strlen(w);
    if (v->i + n > v->a->val.n || memcmp(v->a->val.s + v->i, w, (size_t)n))
        return 0;
    v->i += n;
    return 1;
}

static int window_pad(struct vc *v, struct hlo_window *w, int *n)
{
    *n = 0;
    do {
        if (*n == GRAPH_MAX_RANK)
            return vfail(v, "too many window dimensions");
        if (vint(v, &w->lo[*n], 1))
            return LS_ERR_INPUT;
        if (!veat(v, '_'))
            return vfail(v, "expected LOW_HIGH padding");
        if (vint(v, &w->hi[*n], 1))
            return LS_ERR_INPUT;
        (*n)++;
    } while (veat(v, 'x'));
    return 0;
}

int hlo_attr_window(const struct hlo_module *m, const struct hlo_attr *a, struct hlo_window *w,
                    struct ls_error *err)
{
    struct vc v = {m, a, 0, err};
    memset(w, 0, sizeof *w);
    for (int d = 0; d < GRAPH_MAX_RANK; d++)
        w->stride[d] = w->rdil[d] = w->ldil[d] = 1;
    if (!veat(&v, '{'))
        return vfail(&v, "expected '{'");
    int n = -1, k = 0;
    while (!veat(&v, '}')) {
        const int R = GRAPH_MAX_RANK;
        if (vword(&v, "size="))
            k = vdims(&v, w->size, &n, R) ? -1 : n;
        else if (vword(&v, "stride="))
            k = vdims(&v, w->stride, &k, R) ? -1 : k;
        else if (vword(&v, "pad="))
            k = window_pad(&v, w, &k) ? -1 : k;
        else if (vword(&v, "rhs_dilate="))
            k = vdims(&v, w->rdil, &k, R) ? -1 : k;
        else if (vword(&v, "lhs_dilate="))
            k = vdims(&v, w->ldil, &k, R) ? -1 : k;
        else
            return vfail(&v, "expected size=, stride=, pad=, lhs_dilate= or rhs_dilate=");
        if (k < 0)
            return LS_ERR_INPUT;
        if (n >= 0 && k != n)
            return vfail(&v, "the window's parts have different numbers of dimensions");
    }
    if (n < 0)
        return vfail(&v, "no size=");
    w->n = n;
    return 0;
}

/* One part of dim_labels: letters b/f (or o/i) for the two named axes, digits spatial. */
static int labels_part(struct vc *v, const char *named, int *axes, int *rank)
{
    int seen = 0;
    for (*rank = 0; v->i < v->a->val.n && (isalnum((unsigned char)v->a->val.s[v->i])); v->i++) {
        char ch = v->a->val.s[v->i];
        int slot = ch == named[0] ? 0 : ch == named[1] ? 1 : isdigit((unsigned char)ch)
                                                             ? 2 + (ch - '0') : -1;
        if (slot < 0 || slot >= GRAPH_MAX_RANK || (seen >> slot & 1) || *rank == GRAPH_MAX_RANK)
            return vfail(v, "bad dimension label");
        seen |= 1 << slot;
        axes[slot] = (*rank)++;
    }
    if (seen != (1 << *rank) - 1)
        return vfail(v, "dimension labels are not two named axes and spatial 0..n-1");
    return 0;
}

int hlo_attr_dimlabels(const struct hlo_module *m, const struct hlo_attr *a,
                       struct hlo_dimlabels *d, struct ls_error *err)
{
    struct vc v = {m, a, 0, err};
    int r[3];
    if (labels_part(&v, "bf", d->axes[0], &r[0]) || !veat(&v, '_') ||
        labels_part(&v, "oi", d->axes[1], &r[1]) || !vword(&v, "->") ||
        labels_part(&v, "bf", d->axes[2], &r[2]))
        return err->code ? LS_ERR_INPUT : vfail(&v, "expected LHS_RHS->OUT");
    if (r[0] != r[1] || r[1] != r[2] || vpeek(&v) >= 0)
        return vfail(&v, "the three parts have different ranks");
    d->rank = r[0];
    return 0;
}

int hlo_attr_slice(const struct hlo_module *m, const struct hlo_attr *a, int rank,
                   int64_t *begin, int64_t *end, int64_t *step, struct ls_error *err)
{
    struct vc v = {m, a, 0, err};
    int n = 0;
    if (!veat(&v, '{'))
        return vfail(&v, "expected '{'");
    while (!veat(&v, '}')) {
        if (n && !veat(&v, ','))
            return vfail(&v, "expected ',' or '}'");
        if (n == rank)
            return vfail(&v, "more ranges than the operand has dimensions");
        step[n] = 1;
        if (!veat(&v, '[') || vint(&v, &begin[n], 0) || !veat(&v, ':') || vint(&v, &end[n], 0) ||
            (veat(&v, ':') && vint(&v, &step[n], 0)) || !veat(&v, ']'))
            return err->code ? LS_ERR_INPUT : vfail(&v, "expected [BEGIN:END] or [BEGIN:END:STEP]");
        n++;
    }
    return n == rank ? 0 : vfail(&v, "fewer ranges than the operand has dimensions");
}

int hlo_attr_padding(const struct hlo_module *m, const struct hlo_attr *a, int rank,
                     int64_t *lo, int64_t *hi, int64_t *interior, struct ls_error *err)
{
    struct vc v = {m, a, 0, err};
    int n = 0;
    do {
        if (n == rank)
            return vfail(&v, "more entries than the operand has dimensions");
        interior[n] = 0;
        if (vint(&v, &lo[n], 1) || !veat(&v, '_') || vint(&v, &hi[n], 1) ||
            (veat(&v, '_') && vint(&v, &interior[n], 0)))
            return err->code ? LS_ERR_INPUT : vfail(&v, "expected LOW_HIGH[_INTERIOR]");
        n++;
    } while (veat(&v, 'x'));
    return n == rank && vpeek(&v) < 0 ? 0 : vfail(&v, "one LOW_HIGH entry per dimension");
}

int hlo_attr_comp(const struct hlo_module *m, const struct hlo_attr *a, int before, int *comp,
                  struct ls_error *err)
{
    struct hlo_span nm = a->val;
    if (nm.n && nm.s[0] == '%') {
        nm.s++;
        nm.n--;
    }
    for (int i = 0; i < before; i++)
        if (m->comps[i].name.n == nm.n && !memcmp(m->comps[i].name.s, nm.s, (size_t)nm.n)) {
            *comp = i;
            return 0;
        }
    return hlo_fail_at(m, &a->val, err, "attribute %.*s: no computation '%.*s' is defined "
                       "before this one", a->key.n, a->key.s, nm.n, nm.s);
}
