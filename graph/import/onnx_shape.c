/* graph/import/onnx_shape: ONNX's data-movement operators (Reshape family, Transpose,
 * Concat, Slice, Split, Gather, Pad, Resize/Upsample, Tile, Expand) onto reshape,
 * transpose, concat, slice and gather ops. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "graph/import/onnx_int.h"
#include "graph/import/onnx_ops.h"

static int norm_axis(struct ox *x, int64_t a, int rank, int *out)
{
    *out = 0;
    if (a < -rank || a >= (rank ? rank : 1))
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, rank);
    *out = (int)(a < 0 ? a + rank : a);
    return 0;
}

/* Axes from attribute `axes` (older opsets) or input 1 (newer): count, -1 when neither. */
static int axes_of(struct ox *x, int64_t *axes, int max)
{
    int n = ox_attr_ints(x, "axes", axes, max);
    if (n == -3)
        return -3;
    if (n >= 0)
        return n;
    n = ox_in_ints(x, 1, axes, max);
    if (n == -2) {
        ox_fail(x, "the axes input must be a constant");
        return -3;
    }
    return n;
}

int ox_reshape_target(struct ox *x, int rank, const int64_t *dims, int *orank, int64_t *odims)
{
    const char *op = x->node->op_type;
    int64_t v[OX_MAX_RANK * 2];
    int n;
    if (!strcmp(op, "Identity") || !strcmp(op, "Dropout")) {
        *orank = rank;
        memcpy(odims, dims, sizeof(int64_t) * (size_t)rank);
        return 0;
    }
    if (!strcmp(op, "Flatten")) {
        int64_t a = ox_attr_i(x, "axis", 1);
        if (a < -rank || a > rank)
            return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, rank);
        a = a < 0 ? a + rank : a;
        odims[0] = ox_dims_numel((int)a, dims);
        odims[1] = ox_dims_numel(rank - (int)a, dims + a);
        *orank = 2;
        return 0;
    }
    if (!strcmp(op, "Squeeze")) {
        int used[OX_MAX_RANK] = {0}, a;
        n = axes_of(x, v, OX_MAX_RANK);
        if (n == -3)
            return LS_ERR_INPUT;
        for (int i = 0; i < n; i++) {
            if (norm_axis(x, v[i], rank, &a))
                return LS_ERR_INPUT;
            if (dims[a] != 1)
                return ox_fail(x, "cannot squeeze axis %d of size %lld", a, (long long)dims[a]);
            used[a] = 1;
        }
        *orank = 0;
        for (int i = 0; i < rank; i++)
            if (!(n > 0 ? used[i] : dims[i] == 1))
                odims[(*orank)++] = dims[i];
        return 0;
    }
    if (!strcmp(op, "Unsqueeze")) {
        int used[OX_MAX_RANK] = {0}, a;
        n = axes_of(x, v, OX_MAX_RANK);
        if (n == -3)
            return LS_ERR_INPUT;
        if (n < 0)
            return ox_fail(x, "no axes given");
        int r = rank + n;
        if (r > OX_MAX_RANK)
            return ox_fail(x, "output rank %d exceeds %d", r, OX_MAX_RANK);
        for (int i = 0; i < n; i++) {
            if (norm_axis(x, v[i], r, &a))
                return LS_ERR_INPUT;
            if (used[a])
                return ox_fail(x, "axis %d given twice", a);
            used[a] = 1;
        }
        for (int i = 0, k = 0; i < r; i++)
            odims[i] = used[i] ? 1 : dims[k++];
        *orank = r;
        return 0;
    }
    /* Reshape: input 1 (or the attribute of opset < 5): 0 copies, -1 is inferred */
    n = ox_attr_ints(x, "shape", v, OX_MAX_RANK);
    if (n == -1)
        n = ox_in_ints(x, 1, v, OX_MAX_RANK);
    if (n == -2)
        return -2;
    if (n < 0)
        return n == -3 ? LS_ERR_INPUT : ox_fail(x, "no target shape");
    int allowzero = (int)ox_attr_i(x, "allowzero", 0), infer = -1;
    int64_t known = 1, total = ox_dims_numel(rank, dims);
    for (int i = 0; i < n; i++) {
        int64_t d = v[i];
        if (d == 0 && !allowzero) {
            if (i >= rank)
                return ox_fail(x, "target dim %d is 0 (copy) beyond the input rank %d", i, rank);
            d = dims[i];
        }
        if (d == -1) {
            if (infer >= 0)
                return ox_fail(x, "more than one -1 in the target shape");
            infer = i;
            d = 1;
        } else if (d < 1 || d > GRAPH_MAX_DIM) {
            return ox_fail(x, "target dim %d is %lld", i, (long long)v[i]);
        }
        odims[i] = d;
    }
    known = ox_dims_numel(n, odims);
    if (infer >= 0) {
        if (known < 1 || total % known)
            return ox_fail(x, "cannot infer the -1 dim: %lld elements over %lld",
                           (long long)total, (long long)known);
        odims[infer] = total / known;
        known = ox_dims_numel(n, odims);
    }
    if (known != total)
        return ox_fail(x, "%lld elements cannot become %lld", (long long)total, (long long)known);
    *orank = n;
    return 0;
}

int oxo_reshape(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r;
    int64_t d[OX_MAX_RANK];
    int rc = ox_reshape_target(x, a->rank, a->dims, &r, d);
    if (rc == -2 && oxo_value_info(x, 0, &r, d) == 0)
        rc = 0;
    if (rc)
        return rc == -2 ? ox_fail(x, "the target shape is not a constant and value_info "
                                     "does not give the output shape")
                        : rc;
    return ox_bind(x, 0, oxo_reshape_to(x, t, r, d, ""));
}

int32_t oxo_reshape_to(struct ox *x, int32_t t, int rank, const int64_t *dims,
                       const char *suffix)
{
    if (t < 0)
        return -1;
    if (rank > GRAPH_MAX_RANK)
        return OX_FAIL_T(x, "output rank %d exceeds %d", rank, GRAPH_MAX_RANK);
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int same = s->rank == rank;
    for (int i = 0; same && i < rank; i++)
        same = s->dims[i].size == dims[i];
    if (same)
        return t;
    char nm[GRAPH_MAX_NAME + 1];
    return graph_reshape(x->g, ox_name(x, suffix, nm, sizeof nm), t, rank, dims, NULL);
}

int ox_attr_perm(struct ox *x, int r, int *perm)
{
    int64_t p[OX_MAX_RANK];
    int used[OX_MAX_RANK] = {0};
    int n = ox_attr_ints(x, "perm", p, OX_MAX_RANK);
    if (n == -3)
        return LS_ERR_INPUT;
    if (n >= 0 && n != r)
        return ox_fail(x, "perm has %d entries for rank %d", n, r);
    for (int i = 0; i < r; i++) {
        if (n >= 0 && (p[i] < 0 || p[i] >= r))
            return ox_fail(x, "perm[%d] = %lld is out of range [0, %d]", i, (long long)p[i],
                           r - 1);
        perm[i] = n < 0 ? r - 1 - i : (int)p[i];
        if (used[perm[i]]++)
            return ox_fail(x, "perm: axis %d given twice", perm[i]);
    }
    return 0;
}

int oxo_transpose(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r = graph_tensor(x->g, t)->shape.rank;
    int perm[OX_MAX_RANK], ident = 1;
    if (ox_attr_perm(x, r, perm))
        return -1;
    for (int i = 0; i < r; i++)
        ident &= perm[i] == i;
    if (ident)
        return ox_bind(x, 0, t);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, graph_transpose(x->g, ox_name(x, "", nm, sizeof nm), t, perm));
}

int oxo_concat(struct ox *x)
{
    int n = (int)x->node->n_input;
    if (n < 1 || n > GRAPH_MAX_INPUTS)
        return ox_fail(x, "needs 1 to %d inputs", GRAPH_MAX_INPUTS);
    int32_t ts[GRAPH_MAX_INPUTS];
    int like = -1, k = 0;
    for (int i = 0; i < n; i++) {
        struct ox_val *v = ox_in(x, i);
        if (v && !v->konst)
            like = graph_tensor(x->g, v->t)->dtype;
    }
    int rank = -1;
    for (int i = 0; i < n; i++) {
        struct ox_val *v = ox_in(x, i);
        if (!v || (v->konst && ox_numel(v) == 0))
            continue;   /* empty pieces (shape arithmetic leftovers) add nothing */
        ts[k] = ox_tensor(x, v, like);
        if (ts[k] < 0)
            return -1;
        rank = graph_tensor(x->g, ts[k++])->shape.rank;
    }
    if (k == 0)
        return ox_fail(x, "every input is empty");
    int axis;
    if (norm_axis(x, ox_attr_i(x, "axis", 0), rank, &axis))
        return -1;
    if (k == 1)
        return ox_bind(x, 0, ts[0]);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, graph_concat(x->g, ox_name(x, "", nm, sizeof nm), k, ts, axis));
}

/* ONNX Slice bounds for one axis of size n: begin/count/step (count 0: empty). */
static void slice_bounds(int64_t n, int64_t st, int64_t en, int64_t step, int64_t *b,
                         int64_t *cnt)
{
    if (st < 0)
        st += n;
    if (en < 0)
        en += n;
    if (step > 0) {
        st = st < 0 ? 0 : st > n ? n : st;
        en = en < 0 ? 0 : en > n ? n : en;
        *b = st;
        *cnt = en > st ? (en - st + step - 1) / step : 0;
    } else {
        st = st < 0 ? -1 : st > n - 1 ? n - 1 : st;
        en = en < -1 ? -1 : en > n - 1 ? n - 1 : en;
        *b = st;
        *cnt = st > en ? (st - en + (-step) - 1) / (-step) : 0;
    }
}

int oxo_slice_params(struct ox *x, int rank, const int64_t *dims, int64_t *begin,
                     int64_t *count, int64_t *step, int allow_empty)
{
    int64_t st[OX_MAX_RANK], en[OX_MAX_RANK], ax[OX_MAX_RANK], sp[OX_MAX_RANK];
    int ns = ox_attr_ints(x, "starts", st, OX_MAX_RANK), ne, na, np = -1;
    if (ns >= 0) {
        ne = ox_attr_ints(x, "ends", en, OX_MAX_RANK);
        na = ox_attr_ints(x, "axes", ax, OX_MAX_RANK);
    } else {
        ns = ox_in_ints(x, 1, st, OX_MAX_RANK);
        ne = ox_in_ints(x, 2, en, OX_MAX_RANK);
        na = ox_in_ints(x, 3, ax, OX_MAX_RANK);
        np = ox_in_ints(x, 4, sp, OX_MAX_RANK);
    }
    if (ns < 0 || ne < 0 || na == -2 || np == -2 || na == -3 || ns != ne)
        return ox_fail(x, "starts, ends, axes and steps must be constants of equal length");
    for (int i = 0; i < rank; i++) {
        begin[i] = 0;
        count[i] = dims[i];
        step[i] = 1;
    }
    for (int i = 0; i < ns; i++) {
        int a;
        if (norm_axis(x, na >= 0 ? ax[i] : i, rank, &a))
            return -1;
        int64_t s = np >= 0 && i < np ? sp[i] : 1;
        if (s == 0)
            return ox_fail(x, "step 0");
        slice_bounds(dims[a], st[i], en[i], s, &begin[a], &count[a]);
        step[a] = s;
        if (count[a] < 1 && !allow_empty)
            return ox_fail(x, "slice of axis %d is empty (empty tensors are not supported)", a);
    }
    return 0;
}

int oxo_slice(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    struct graph_shape s = graph_tensor(x->g, t)->shape;
    int64_t dims[GRAPH_MAX_RANK] = {0}, b[GRAPH_MAX_RANK], c[GRAPH_MAX_RANK], st[GRAPH_MAX_RANK];
    for (int i = 0; i < s.rank; i++)
        dims[i] = s.dims[i].size;
    if (oxo_slice_params(x, s.rank, dims, b, c, st, 0))
        return -1;
    char nm[GRAPH_MAX_NAME + 1], sfx[32];
    int last = -1;
    for (int i = 0; i < s.rank; i++)
        if (c[i] != dims[i])
            last = i;
    for (int i = 0; i <= last; i++) {
        if (c[i] == dims[i])
            continue;
        /* a reversed range is taken as the forward range of the same extent (docs) */
        int64_t step = st[i] < 0 ? -st[i] : st[i];
        int64_t lo = st[i] < 0 ? b[i] + st[i] * (c[i] - 1) : b[i];
        snprintf(sfx, sizeof sfx, ".ax%d", i);
        if (i == last)
            sfx[0] = 0;
        t = graph_slice(x->g, ox_name(x, sfx, nm, sizeof nm), t, i, lo,
                        lo + step * (c[i] - 1) + 1, step);
    }
    return ox_bind(x, 0, t);
}

int oxo_split(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int axis;
    if (norm_axis(x, ox_attr_i(x, "axis", 0), s->rank, &axis))
        return -1;
    int64_t n = s->dims[axis].size, parts[256];
    int nout = (int)x->node->n_output;
    if (nout < 1 || nout > 256)
        return ox_fail(x, "needs 1 to 256 outputs");
    int np = ox_attr_ints(x, "split", parts, 256);
    if (np == -1)
        np = ox_in_ints(x, 1, parts, 256);
    if (np == -2 || np == -3)
        return ox_fail(x, "the split sizes must be a constant");
    if (np < 0) {   /* equal parts; the last may be smaller (opset 18) */
        int64_t each = (n + nout - 1) / nout;
        for (int i = 0; i < nout; i++)
            parts[i] = i < nout - 1 ? each : n - each * (nout - 1);
        np = nout;
    }
    if (np != nout)
        return ox_fail(x, "%d split sizes for %d outputs", np, nout);
    int64_t at = 0;
    for (int i = 0; i < nout; i++) {
        if (parts[i] < 1 || at + parts[i] > n)
            return ox_fail(x, "split sizes do not fit axis %d of size %lld", axis, (long long)n);
        char nm[GRAPH_MAX_NAME + 1], sfx[32];
        snprintf(sfx, sizeof sfx, ".%d", i);
        int32_t o = parts[i] == n ? t
                    : graph_slice(x->g, ox_name(x, sfx, nm, sizeof nm), t, axis, at,
                                  at + parts[i], 1);
        if (ox_bind(x, i, o))
            return -1;
        at += parts[i];
    }
    return 0;
}

int oxo_gather(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    struct ox_val *iv = ox_in(x, 1);
    if (t < 0 || !iv)
        return t < 0 ? -1 : ox_fail(x, "indices missing");
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int axis;
    if (norm_axis(x, ox_attr_i(x, "axis", 0), s->rank, &axis))
        return -1;
    int64_t n = s->dims[axis].size;
    char nm[GRAPH_MAX_NAME + 1];
    if (iv->konst && iv->vals && iv->rank == 0) {   /* one index: a slice, axis dropped */
        int64_t i = ox_i64(iv->vals[0]);
        if (i < -n || i >= n)
            return ox_fail(x, "index %lld out of range for size %lld", (long long)i,
                           (long long)n);
        if (i < 0)
            i += n;
        int64_t d[GRAPH_MAX_RANK];
        int r = 0;
        for (int k = 0; k < s->rank; k++)
            if (k != axis)
                d[r++] = s->dims[k].size;
        int32_t sl = n == 1 ? t : graph_slice(x->g, ox_name(x, ".slice", nm, sizeof nm), t,
                                              axis, i, i + 1, 1);
        return ox_bind(x, 0, oxo_reshape_to(x, sl, r, d, ""));
    }
    int32_t ids = ox_tensor(x, iv, LS_DT_INT32);
    if (ids < 0)
        return -1;
    enum ls_dtype idt = graph_tensor(x->g, ids)->dtype;
    if (idt != LS_DT_INT32 && idt != LS_DT_INT8)
        ids = graph_cast(x->g, ox_name(x, ".ids", nm, sizeof nm), ids, LS_DT_INT32);
    return ox_bind(x, 0, graph_gather(x->g, ox_name(x, "", nm, sizeof nm), t, ids, axis));
}

/* Concatenate zero blocks before/after each axis (negative amounts slice instead). */
int32_t oxo_pad(struct ox *x, int32_t t, const int64_t *before, const int64_t *after,
                const char *suffix)
{
    int r = t >= 0 ? graph_tensor(x->g, t)->shape.rank : 0;
    for (int a = 0; a < r && t >= 0; a++) {
        if (!before[a] && !after[a])
            continue;
        const struct graph_tensor *tt = graph_tensor(x->g, t);
        enum ls_dtype dt = tt->dtype;
        int64_t d[GRAPH_MAX_RANK], n = tt->shape.dims[a].size;
        for (int i = 0; i < r; i++)
            d[i] = tt->shape.dims[i].size;
        char nm[GRAPH_MAX_NAME + 1], sfx[64];
        if (before[a] < 0 || after[a] < 0) {
            int64_t lo = before[a] < 0 ? -before[a] : 0, hi = n - (after[a] < 0 ? -after[a] : 0);
            if (hi <= lo)
                return OX_FAIL_T(x, "negative padding leaves axis %d empty", a);
            snprintf(sfx, sizeof sfx, "%s.crop%d", suffix, a);
            t = graph_slice(x->g, ox_name(x, sfx, nm, sizeof nm), t, a, lo, hi, 1);
            int64_t b2[GRAPH_MAX_RANK] = {0}, a2[GRAPH_MAX_RANK] = {0};
            b2[a] = before[a] > 0 ? before[a] : 0;
            a2[a] = after[a] > 0 ? after[a] : 0;
            t = oxo_pad(x, t, b2, a2, suffix);
            continue;
        }
        int32_t parts[3];
        int k = 0;
        if (before[a]) {
            d[a] = before[a];
            snprintf(sfx, sizeof sfx, "%s.padb%d", suffix, a);
            parts[k++] = ox_block(x, sfx, dt, r, d);
        }
        parts[k++] = t;
        if (after[a]) {
            d[a] = after[a];
            snprintf(sfx, sizeof sfx, "%s.pada%d", suffix, a);
            parts[k++] = ox_block(x, sfx, dt, r, d);
        }
        snprintf(sfx, sizeof sfx, "%s.pad%d", suffix, a);
        t = graph_concat(x->g, ox_name(x, sfx, nm, sizeof nm), k, parts, a);
    }
    return t;
}

int oxo_pad_node(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r = graph_tensor(x->g, t)->shape.rank;
    int64_t p[2 * OX_MAX_RANK], ax[OX_MAX_RANK];
    int n = ox_attr_ints(x, "pads", p, 2 * OX_MAX_RANK);
    if (n == -1)
        n = ox_in_ints(x, 1, p, 2 * OX_MAX_RANK);
    int na = ox_in_ints(x, 3, ax, OX_MAX_RANK);
    if (n < 0 || na == -2)
        return ox_fail(x, "pads must be a constant");
    int64_t b[GRAPH_MAX_RANK] = {0}, e[GRAPH_MAX_RANK] = {0};
    int cnt = na >= 0 ? na : r;
    if (n != 2 * cnt)
        return ox_fail(x, "%d pads for %d axes", n, cnt);
    for (int i = 0; i < cnt; i++) {
        int a;
        if (norm_axis(x, na >= 0 ? ax[i] : i, r, &a))
            return -1;
        b[a] = p[i];
        e[a] = p[cnt + i];
    }
    return ox_bind(x, 0, oxo_pad(x, t, b, e, ""));
}

int32_t oxo_resize_to(struct ox *x, int32_t t, const int64_t *out)
{
    int r = graph_tensor(x->g, t)->shape.rank, last = -1;
    for (int a = 0; a < r; a++)
        if (graph_tensor(x->g, t)->shape.dims[a].size != out[a])
            last = a;
    for (int a = 0; a <= last && t >= 0; a++) {
        if (graph_tensor(x->g, t)->shape.dims[a].size == out[a])
            continue;
        char nm[GRAPH_MAX_NAME + 1], sfx[32];
        snprintf(sfx, sizeof sfx, ".idx%d", a);
        int32_t ids = ox_block(x, sfx, LS_DT_INT32, 1, &out[a]);
        snprintf(sfx, sizeof sfx, ".ax%d", a);
        if (a == last)
            sfx[0] = 0;
        t = graph_gather(x->g, ox_name(x, sfx, nm, sizeof nm), t, ids, a);
    }
    return t;
}

int oxo_resize(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int r = s->rank;
    int64_t out[OX_MAX_RANK];
    struct ox_val *sc = NULL, *sz = NULL;
    const Onnx__AttributeProto *sa = ox_attr(x, "scales");
    if (!strcmp(x->node->op_type, "Upsample") || x->opset < 11)
        sc = ox_in(x, 1);
    else {
        sc = ox_in(x, 2);
        sz = ox_in(x, 3);
    }
    if (sc && ox_numel(sc) == 0)
        sc = NULL;
    for (int a = 0; a < r; a++) {
        int64_t d = s->dims[a].size;
        if (sz && sz->konst && sz->vals && ox_numel(sz) == r)
            out[a] = ox_i64(sz->vals[a]);
        else if (sc && sc->konst && sc->vals && ox_numel(sc) == r)
            out[a] = ox_i64(floor((double)d * sc->vals[a]));
        else if (!sc && !sz && sa && sa->n_floats == (size_t)r)
            out[a] = ox_i64(floor((double)d * sa->floats[a]));
        else {
            int rr;
            if (oxo_value_info(x, 0, &rr, out) || rr != r)
                return ox_fail(x, "scales/sizes must be constants (or value_info must give "
                                  "the output shape)");
            break;
        }
        if (out[a] < 1 || out[a] > GRAPH_MAX_DIM)
            return ox_fail(x, "output axis %d would be %lld", a, (long long)out[a]);
    }
    return ox_bind(x, 0, oxo_resize_to(x, t, out));
}

int oxo_tile(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r = graph_tensor(x->g, t)->shape.rank;
    int64_t rep[OX_MAX_RANK];
    if (ox_in_ints(x, 1, rep, OX_MAX_RANK) != r)
        return ox_fail(x, "repeats must be a constant with one entry per axis");
    int last = -1;
    for (int a = 0; a < r; a++) {
        if (rep[a] < 1 || rep[a] > GRAPH_MAX_INPUTS)
            return ox_fail(x, "repeat %lld out of range 1..%d", (long long)rep[a],
                           GRAPH_MAX_INPUTS);
        if (rep[a] > 1)
            last = a;
    }
    for (int a = 0; a <= last && t >= 0; a++) {
        if (rep[a] == 1)
            continue;
        int32_t parts[GRAPH_MAX_INPUTS];
        for (int k = 0; k < rep[a]; k++)
            parts[k] = t;
        char nm[GRAPH_MAX_NAME + 1], sfx[32];
        snprintf(sfx, sizeof sfx, ".ax%d", a);
        if (a == last)
            sfx[0] = 0;
        t = graph_concat(x->g, ox_name(x, sfx, nm, sizeof nm), (int)rep[a], parts, a);
    }
    return ox_bind(x, 0, t);
}

/* Broadcast t to the shape rank/dims by adding a zero block of that shape. */
int32_t oxo_broadcast(struct ox *x, int32_t t, int rank, const int64_t *dims, const char *sfx)
{
    const struct graph_tensor *tt = graph_tensor(x->g, t);
    if (!tt)
        return -1;
    int same = tt->shape.rank == rank;
    for (int i = 0; same && i < rank; i++)
        same = tt->shape.dims[i].size == dims[i];
    if (same)
        return t;
    char s2[64], nm[GRAPH_MAX_NAME + 1];
    snprintf(s2, sizeof s2, "%s.zeros", sfx);
    int32_t z = ox_block(x, s2, tt->dtype, rank, dims);
    return graph_binary(x->g, ox_name(x, sfx, nm, sizeof nm), GRAPH_OP_ADD, t, z);
}

int oxo_broadcast_shape(struct ox *x, int ra, const int64_t *a, int rb, const int64_t *b,
                        int *ro, int64_t *o)
{
    int r = ra > rb ? ra : rb;
    if (r > OX_MAX_RANK)
        return ox_fail(x, "broadcast rank %d exceeds %d", r, OX_MAX_RANK);
    for (int i = 0; i < r; i++) {
        int ia = i - (r - ra), ib = i - (r - rb);
        int64_t p = ia >= 0 ? a[ia] : 1, q = ib >= 0 ? b[ib] : 1;
        if (p != q && p != 1 && q != 1)
            return ox_fail(x, "shapes do not broadcast at axis %d (%lld vs %lld)", i,
                           (long long)p, (long long)q);
        o[i] = p > q ? p : q;
    }
    *ro = r;
    return 0;
}

int oxo_expand(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int64_t s[OX_MAX_RANK], o[OX_MAX_RANK];
    int n = ox_in_ints(x, 1, s, OX_MAX_RANK), r;
    if (n < 0) {
        if (oxo_value_info(x, 0, &r, o))
            return ox_fail(x, "the shape must be a constant (or value_info must give the "
                              "output shape)");
    } else if (oxo_broadcast_shape(x, a->rank, a->dims, n, s, &r, o)) {
        return -1;
    }
    if (r > GRAPH_MAX_RANK)
        return ox_fail(x, "output rank %d exceeds %d", r, GRAPH_MAX_RANK);
    return ox_bind(x, 0, oxo_broadcast(x, t, r, o, ""));
}
