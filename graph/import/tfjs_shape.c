/* graph/import: TF.js shape ops (Reshape, Squeeze, ExpandDims, Transpose, ConcatV2, Pack,
 * Unpack, Split, Slice, StridedSlice; the rest of data movement is in tfjs_move.c). On
 * constants they fold (values kept when small); on tensors they become reshape /
 * transpose / slice / concat ops. */
#include <stdlib.h>
#include <string.h>

#include "graph/import/tfjs_int.h"

#define NOMEM(c) ((c)->rc = ls_error_msg((c)->err, LS_ERR_NOMEM, "out of memory"))

/* Output k: constant x re-shaped (values, when known, are permuted by src: out element i
 * is x element src[i]; src NULL keeps the order). */
int tf_const_out(struct tfjs *c, struct tnode *n, int k, struct tv *x, int rank,
                     const int64_t *dims, const int64_t *src)
{
    int64_t m = tf_numel(rank, dims);
    double *v = NULL;
    if (x->vals && m <= TV_MAX_VALS) {
        if (!(v = malloc((size_t)(m ? m : 1) * sizeof *v)))
            return NOMEM(c);
        for (int64_t i = 0; i < m; i++)
            v[i] = x->vals[src ? src[i] : i];
    }
    int rc = tf_set_value(c, n, k, x->dt, rank, dims, v);
    free(v);
    return rc;
}

/* Output k: x reshaped to dims (a reshape op only when the shape changes). */
static int reshape_out(struct tfjs *c, struct tnode *n, int k, struct tv *x, int rank,
                       const int64_t *dims, const char *what)
{
    if (tf_numel(rank, dims) != tf_numel(x->rank, x->dims))
        return tf_fail(c, "cannot reshape %lld elements into %lld",
                       (long long)tf_numel(x->rank, x->dims), (long long)tf_numel(rank, dims));
    if (x->weight)
        return tf_const_out(c, n, k, x, rank, dims, NULL);
    int same = rank == x->rank;
    for (int i = 0; same && i < rank; i++)
        same = dims[i] == x->dims[i];
    int32_t t = tf_mat(c, x, NULL);
    if (!same)
        t = graph_reshape(c->g, tf_name(c, what), t, rank, dims, NULL);
    return tf_set(c, n, k, t);
}

static int op_reshape(struct tfjs *c, struct tnode *n)
{
    int64_t d[GRAPH_MAX_RANK + 1];
    struct tv *x = tf_in(c, n, 0);
    int r = x ? tf_ints(c, n, 1, d, GRAPH_MAX_RANK) : -1;
    if (r < 0)
        return c->rc;
    int64_t known = 1, m = tf_numel(x->rank, x->dims);
    int free_axis = -1;
    for (int i = 0; i < r; i++) {
        if (d[i] == -1 && free_axis < 0)
            free_axis = i;
        else if (d[i] < 1)
            return tf_fail(c, "target dim %d is %lld", i, (long long)d[i]);
        else
            known = known && d[i] <= GRAPH_MAX_ELEMS / known ? known * d[i] : 0;
    }
    if (free_axis >= 0)
        d[free_axis] = known && m % known == 0 ? m / known : 0;
    if (free_axis >= 0 && d[free_axis] < 1)
        return tf_fail(c, "cannot infer the -1 dim of the target from %lld elements",
                       (long long)m);
    return reshape_out(c, n, 0, x, r, d, NULL);
}

static int op_squeeze(struct tfjs *c, struct tnode *n)
{
    int64_t sq[GRAPH_MAX_RANK], d[GRAPH_MAX_RANK];
    struct tv *x = tf_in(c, n, 0);
    int ns = x ? tf_attr_ints(c, n, "squeeze_dims", sq, GRAPH_MAX_RANK) : -1;
    if (ns < 0)
        return c->rc;
    int drop[GRAPH_MAX_RANK] = {0}, r = 0;
    for (int i = 0; i < ns; i++) {
        int a = tf_axis(c, sq[i], x->rank);
        if (a < 0)
            return c->rc;
        drop[a] = 1;
    }
    for (int i = 0; i < x->rank; i++)
        if (!(ns ? drop[i] : x->dims[i] == 1))
            d[r++] = x->dims[i];
    return reshape_out(c, n, 0, x, r, d, NULL);
}

static int op_expand_dims(struct tfjs *c, struct tnode *n)
{
    int64_t a, d[GRAPH_MAX_RANK];
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_ints(c, n, 1, &a, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "axis must be one value");
    if (x->rank >= GRAPH_MAX_RANK)
        return tf_fail(c, "rank %d would exceed %d", x->rank + 1, GRAPH_MAX_RANK);
    int ax = tf_axis(c, a, x->rank + 1);
    if (ax < 0)
        return c->rc;
    for (int i = 0, j = 0; i <= x->rank; i++)
        d[i] = i == ax ? 1 : x->dims[j++];
    return reshape_out(c, n, 0, x, x->rank + 1, d, NULL);
}

/* Out element index -> in element index for a transpose. */
static int64_t *perm_src(int rank, const int64_t *dims, const int *perm)
{
    int64_t od[GRAPH_MAX_RANK], st[GRAPH_MAX_RANK], idx[GRAPH_MAX_RANK] = {0};
    int64_t m = tf_numel(rank, dims), s = 1;
    for (int i = rank - 1; i >= 0; i--)
        st[i] = s, s *= dims[i];
    for (int i = 0; i < rank; i++)
        od[i] = dims[perm[i]];
    int64_t *src = malloc((size_t)(m ? m : 1) * sizeof *src);
    for (int64_t k = 0; src && k < m; k++) {
        int64_t f = 0;
        for (int i = 0; i < rank; i++)
            f += idx[i] * st[perm[i]];
        src[k] = f;
        for (int i = rank - 1; i >= 0; i--) {
            if (++idx[i] < od[i])
                break;
            idx[i] = 0;
        }
    }
    return src;
}

static int op_transpose(struct tfjs *c, struct tnode *n)
{
    int64_t p[GRAPH_MAX_RANK], d[GRAPH_MAX_RANK];
    struct tv *x = tf_in(c, n, 0);
    int r = x ? tf_ints(c, n, 1, p, GRAPH_MAX_RANK) : -1;
    if (r < 0)
        return c->rc;
    if (r != x->rank)
        return tf_fail(c, "perm has %d entries for rank %d", r, x->rank);
    int perm[GRAPH_MAX_RANK], seen[GRAPH_MAX_RANK] = {0};
    for (int i = 0; i < r; i++) {
        if (p[i] < 0 || p[i] >= r || seen[p[i]]++)
            return tf_fail(c, "perm is not a permutation");
        perm[i] = (int)p[i], d[i] = x->dims[p[i]];
    }
    if (x->weight) {
        int64_t *src = x->vals ? perm_src(r, x->dims, perm) : NULL;
        if (x->vals && !src)
            return NOMEM(c);
        int rc = tf_const_out(c, n, 0, x, r, d, src);
        free(src);
        return rc;
    }
    return tf_set(c, n, 0, tf_perm(c, x, perm, tf_name(c, NULL)));
}

/* ---- concat, pack, unpack, split ----------------------------------------------------- */

/* Join inputs [first, first+cnt) along axis (values folded when all are known). */
static int concat_out(struct tfjs *c, struct tnode *n, int first, int cnt, int64_t axis_v)
{
    struct tv *x0 = tf_in(c, n, first);
    if (!x0)
        return c->rc;
    int axis = tf_axis(c, axis_v, x0->rank), allconst = 1, allvals = 1;
    int64_t d[GRAPH_MAX_RANK];
    if (axis < 0 || cnt > GRAPH_MAX_INPUTS)
        return c->rc ? c->rc : tf_fail(c, "too many inputs");
    memcpy(d, x0->dims, sizeof d);
    d[axis] = 0;
    for (int i = 0; i < cnt; i++) {
        struct tv *x = tf_in(c, n, first + i);
        if (!x)
            return c->rc;
        if (x->rank != x0->rank)
            return tf_fail(c, "input %d has rank %d, input %d has %d", first + i, x->rank, first,
                           x0->rank);
        for (int k = 0; k < x->rank; k++)
            if (k != axis && x->dims[k] != x0->dims[k])
                return tf_fail(c, "input %d's axis %d is %lld, input %d's is %lld", first + i,
                               k, (long long)x->dims[k], first, (long long)x0->dims[k]);
        allconst &= x->weight, allvals &= x->vals != NULL;
        d[axis] += x->dims[axis];
    }
    if (allconst) {
        int64_t m = tf_numel(x0->rank, d), outer = 1, pos = 0;
        double *v = allvals && m <= TV_MAX_VALS ? malloc((size_t)(m ? m : 1) * sizeof *v) : NULL;
        for (int i = 0; i < axis; i++)
            outer *= d[i];
        for (int64_t o = 0; v && o < outer; o++)
            for (int i = 0; i < cnt; i++) {
                struct tv *x = tf_in(c, n, first + i);
                int64_t blk = tf_numel(x->rank - axis, x->dims + axis);
                memcpy(v + pos, x->vals + o * blk, (size_t)blk * sizeof *v);
                pos += blk;
            }
        int rc = tf_set_value(c, n, 0, x0->dt, x0->rank, d, v);
        free(v);
        return rc;
    }
    int32_t *ts = malloc((size_t)cnt * sizeof *ts);
    if (!ts)
        return NOMEM(c);
    int m = 0;   /* empty constants (a padding of no rows) are left out */
    for (int i = 0; i < cnt; i++) {
        struct tv *x = tf_in(c, n, first + i);
        if (x->weight && !tf_numel(x->rank, x->dims))
            continue;
        ts[m] = tf_mat(c, x, NULL);
        if (ts[m] >= 0 && graph_tensor(c->g, ts[m])->dtype != LS_DT_FP32)
            ts[m] = graph_cast(c->g, tf_name(c, "f32"), ts[m], LS_DT_FP32);
        m++;
    }
    cnt = m;
    int32_t y = cnt == 1 ? graph_unary(c->g, tf_name(c, NULL), GRAPH_OP_COPY, ts[0])
                         : graph_concat(c->g, tf_name(c, NULL), cnt, ts, axis);
    free(ts);
    return tf_set(c, n, 0, y);
}

static int op_concat(struct tfjs *c, struct tnode *n)
{
    int64_t ax;
    int v2 = strcmp(n->op, "Concat") != 0;
    if (n->nin < 2 || tf_ints(c, n, v2 ? n->nin - 1 : 0, &ax, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "needs values and an axis");
    return concat_out(c, n, v2 ? 0 : 1, n->nin - 1, ax);
}

/* Pack: each input gets a size-1 axis at `axis` (a reshape), then all are concatenated. */
static int op_pack(struct tfjs *c, struct tnode *n)
{
    int64_t ax, d[GRAPH_MAX_RANK];
    struct tv *x0 = tf_in(c, n, 0);
    if (!x0 || tf_attr_int(c, n, "axis", 0, &ax))
        return c->rc;
    if (x0->rank >= GRAPH_MAX_RANK || n->nin > GRAPH_MAX_INPUTS)
        return tf_fail(c, "rank %d would exceed %d", x0->rank + 1, GRAPH_MAX_RANK);
    int a = tf_axis(c, ax, x0->rank + 1), allconst = 1, allvals = 1;
    if (a < 0)
        return c->rc;
    for (int i = 0; i < n->nin; i++) {
        struct tv *x = tf_in(c, n, i);
        if (!x)
            return c->rc;
        if (x->rank != x0->rank || memcmp(x->dims, x0->dims, sizeof x->dims[0] * x->rank))
            return tf_fail(c, "input %d's shape differs from input 0's", i);
        allconst &= x->weight, allvals &= x->vals != NULL;
    }
    for (int i = 0, j = 0; i <= x0->rank; i++)
        d[i] = i == a ? 1 : x0->dims[j++];
    int64_t blk = tf_numel(x0->rank - a, x0->dims + a), outer = tf_numel(a, x0->dims);
    if (allconst) {
        int64_t m = tf_numel(x0->rank, x0->dims) * n->nin, pos = 0;
        double *v = allvals && m <= TV_MAX_VALS ? malloc((size_t)(m ? m : 1) * sizeof *v) : NULL;
        for (int64_t o = 0; v && o < outer; o++)
            for (int i = 0; i < n->nin; i++, pos += blk)
                memcpy(v + pos, tf_in(c, n, i)->vals + o * blk, (size_t)blk * sizeof *v);
        d[a] = n->nin;
        int rc = tf_set_value(c, n, 0, x0->dt, x0->rank + 1, d, v);
        free(v);
        return rc;
    }
    int32_t *ts = malloc((size_t)n->nin * sizeof *ts);
    if (!ts)
        return NOMEM(c);
    for (int i = 0; i < n->nin; i++)
        ts[i] = tf_mat(c, tf_in(c, n, i), NULL);
    int32_t y = tf_stack(c, n->nin, ts, a);
    free(ts);
    return tf_set(c, n, 0, y);
}

int32_t tf_stack(struct tfjs *c, int n, const int32_t *ts, int a)
{
    int r;
    int64_t d0[GRAPH_MAX_RANK], d[GRAPH_MAX_RANK];
    if (n < 1 || n > GRAPH_MAX_INPUTS || ts[0] < 0)
        return n < 1 || ts[0] >= 0 ? (tf_fail(c, "%d tensors to stack", n), -1) : -1;
    tf_shape_of(c, ts[0], &r, d0);
    if (r >= GRAPH_MAX_RANK)
        return tf_fail(c, "rank %d would exceed %d", r + 1, GRAPH_MAX_RANK), -1;
    for (int i = 0, j = 0; i <= r; i++)
        d[i] = i == a ? 1 : d0[j++];
    int32_t *xs = malloc((size_t)n * sizeof *xs), y = -1;
    if (!xs)
        return NOMEM(c), -1;
    for (int i = 0; i < n; i++) {
        xs[i] = graph_reshape(c->g, tf_name(c, "e"), ts[i], r + 1, d, NULL);
        if (xs[i] >= 0 && graph_tensor(c->g, xs[i])->dtype != LS_DT_FP32)
            xs[i] = graph_cast(c->g, tf_name(c, "f32"), xs[i], LS_DT_FP32);
    }
    y = graph_concat(c->g, tf_name(c, NULL), n, xs, a);
    free(xs);
    return y;
}

/* Output k: x[begin : begin + (len-1)*step + 1 : step] along axis (len elements). */
static int slice_out(struct tfjs *c, struct tnode *n, int k, struct tv *x, int axis,
                     int64_t begin, int64_t len, int64_t step, int drop_axis)
{
    int64_t d[GRAPH_MAX_RANK], r = 0;
    for (int i = 0; i < x->rank; i++)
        if (i != axis || !drop_axis)
            d[r++] = i == axis ? len : x->dims[i];
    if (x->weight) {
        int64_t m = tf_numel((int)r, d), *src = NULL, inner = 1, idx = 0;
        for (int i = axis + 1; i < x->rank; i++)
            inner *= x->dims[i];
        if (x->vals && m <= TV_MAX_VALS && !(src = malloc((size_t)(m ? m : 1) * sizeof *src)))
            return NOMEM(c);
        for (int64_t o = 0; src && o < m / (len * inner); o++)
            for (int64_t j = 0; j < len; j++)
                for (int64_t e = 0; e < inner; e++)
                    src[idx++] = (o * x->dims[axis] + begin + j * step) * inner + e;
        int rc = tf_const_out(c, n, k, x, (int)r, d, src);
        free(src);
        return rc;
    }
    int32_t t = tf_mat(c, x, NULL);
    if (begin != 0 || len != x->dims[axis] || step != 1)
        t = graph_slice(c->g, tf_name(c, drop_axis ? "s" : NULL), t, axis, begin,
                        begin + (len - 1) * step + 1, step);
    if (drop_axis && t >= 0)
        t = graph_reshape(c->g, tf_name(c, NULL), t, (int)r, d, NULL);
    return tf_set(c, n, k, t);
}

static int op_unpack(struct tfjs *c, struct tnode *n)
{
    int64_t ax, num;
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_attr_int(c, n, "axis", 0, &ax) || tf_attr_int(c, n, "num", 0, &num))
        return c->rc;
    int a = tf_axis(c, ax, x->rank);
    if (a < 0)
        return c->rc;
    if (num != x->dims[a] || num > GRAPH_MAX_INPUTS)
        return tf_fail(c, "num %lld does not match axis size %lld", (long long)num,
                       (long long)x->dims[a]);
    for (int64_t i = 0; i < num && !c->rc; i++)
        slice_out(c, n, (int)i, tf_in(c, n, 0), a, i, 1, 1, 1);
    return c->rc;
}

static int split_parts(struct tfjs *c, struct tnode *n, struct tv *x, int a, const int64_t *sz,
                       int parts)
{
    int64_t off = 0;
    for (int i = 0; i < parts && !c->rc; i++) {
        if (sz[i] < 1 || off + sz[i] > x->dims[a])
            return tf_fail(c, "split sizes do not fit axis size %lld", (long long)x->dims[a]);
        slice_out(c, n, i, x, a, off, sz[i], 1, 0);
        x = tf_in(c, n, strcmp(n->op, "Split") ? 0 : 1); /* out may have moved */
        off += sz[i];
    }
    return c->rc;
}

static int op_split(struct tfjs *c, struct tnode *n)
{
    int64_t ax, num, sz[GRAPH_MAX_INPUTS];
    int v = !strcmp(n->op, "SplitV");
    struct tv *x = tf_in(c, n, v ? 0 : 1);
    if (!x || tf_ints(c, n, v ? 2 : 0, &ax, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "axis must be one value");
    int a = tf_axis(c, ax, x->rank);
    if (a < 0)
        return c->rc;
    if (v) {
        int m = tf_ints(c, n, 1, sz, GRAPH_MAX_INPUTS), fi = -1;
        int64_t sum = 0;
        if (m < 1)
            return c->rc ? c->rc : tf_fail(c, "no size_splits");
        for (int i = 0; i < m; i++)
            if (sz[i] == -1)
                fi = i;
            else
                sum += sz[i];
        if (fi >= 0)
            sz[fi] = x->dims[a] - sum;
        return split_parts(c, n, x, a, sz, m);
    }
    if (tf_attr_int(c, n, "num_split", 1, &num))
        return c->rc;
    if (num < 1 || num > GRAPH_MAX_INPUTS || x->dims[a] % num)
        return tf_fail(c, "num_split %lld does not divide %lld", (long long)num,
                       (long long)x->dims[a]);
    for (int64_t i = 0; i < num; i++)
        sz[i] = x->dims[a] / num;
    return split_parts(c, n, x, a, sz, (int)num);
}

/* ---- slicing ------------------------------------------------------------------------- */

/* Apply per-axis (begin, len, step) to input 0 and reshape to the rank-r dims out. */
static int multi_slice(struct tfjs *c, struct tnode *n, const int64_t *b, const int64_t *len,
                       const int64_t *st, int r, const int64_t *out)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return c->rc;
    if (x->weight) {
        int64_t *src = NULL, m = tf_numel(r, out);
        if (x->vals && m <= TV_MAX_VALS) {
            int64_t idx[GRAPH_MAX_RANK] = {0}, stride[GRAPH_MAX_RANK], s = 1;
            for (int i = x->rank - 1; i >= 0; i--)
                stride[i] = s, s *= x->dims[i];
            if (!(src = malloc((size_t)(m ? m : 1) * sizeof *src)))
                return NOMEM(c);
            for (int64_t k = 0; k < m; k++) {
                int64_t f = 0;
                for (int i = 0; i < x->rank; i++)
                    f += (b[i] + idx[i] * st[i]) * stride[i];
                src[k] = f;
                for (int i = x->rank - 1; i >= 0; i--) {
                    if (++idx[i] < len[i])
                        break;
                    idx[i] = 0;
                }
            }
        }
        int rc = tf_const_out(c, n, 0, x, r, out, src);
        free(src);
        return rc;
    }
    int32_t t = tf_mat(c, x, NULL);
    int last = -1, reshape = r != x->rank;
    for (int i = 0; i < x->rank; i++) {
        if (b[i] != 0 || len[i] != x->dims[i] || st[i] != 1)
            last = i;
        reshape |= i < r && out[i] != len[i];
    }
    for (int i = 0; i < x->rank && t >= 0; i++)
        if (b[i] != 0 || len[i] != x->dims[i] || st[i] != 1)
            t = graph_slice(c->g, tf_name(c, i == last && !reshape ? NULL : "s"), t, i, b[i],
                            b[i] + (len[i] - 1) * st[i] + 1, st[i]);
    if (t < 0)
        return tf_set(c, n, 0, t);
    int rank;
    int64_t d[GRAPH_MAX_RANK];
    tf_shape_of(c, t, &rank, d);
    int same = rank == r;
    for (int i = 0; same && i < r; i++)
        same = d[i] == out[i];
    if (!same)
        t = graph_reshape(c->g, tf_name(c, NULL), t, r, out, NULL);
    else if (t == tf_mat(c, x, NULL))
        t = graph_unary(c->g, tf_name(c, NULL), GRAPH_OP_COPY, t);
    return tf_set(c, n, 0, t);
}

static int op_slice(struct tfjs *c, struct tnode *n)
{
    int64_t b[GRAPH_MAX_RANK], s[GRAPH_MAX_RANK], st[GRAPH_MAX_RANK];
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_ints(c, n, 1, b, GRAPH_MAX_RANK) != x->rank ||
        tf_ints(c, n, 2, s, GRAPH_MAX_RANK) != x->rank)
        return c->rc ? c->rc : tf_fail(c, "begin and size must have one value per axis");
    for (int i = 0; i < x->rank; i++) {
        if (s[i] == -1)
            s[i] = x->dims[i] - b[i];
        if (b[i] < 0 || s[i] < 1 || b[i] + s[i] > x->dims[i])
            return tf_fail(c, "slice of axis %d out of range", i);
        st[i] = 1;
    }
    return multi_slice(c, n, b, s, st, x->rank, s);
}

struct ss_axis {
    int64_t b, len, st;
};

/* One StridedSlice axis of size D: normalized begin, element count and a positive step
 * (a negative step selects the same elements; their reversed order is not modeled). */
static int ss_norm(int64_t D, int64_t b, int64_t e, int64_t s, int bm, int em, int shrink,
                   struct ss_axis *o)
{
    if (s == 0)
        return -1;
    if (b < 0) b += D;
    if (e < 0) e += D;
    if (s > 0) {
        b = bm ? 0 : b < 0 ? 0 : b > D ? D : b;
        e = em ? D : e < 0 ? 0 : e > D ? D : e;
        if (shrink)
            e = b + 1;
        o->len = e > b ? (e - b + s - 1) / s : 0;
        o->b = b, o->st = s;
    } else {
        b = bm ? D - 1 : b < -1 ? -1 : b > D - 1 ? D - 1 : b;
        e = em ? -1 : e < -1 ? -1 : e > D - 1 ? D - 1 : e;
        if (shrink)
            e = b - 1;
        o->len = b > e ? (b - e - s - 1) / -s : 0;
        o->st = -s, o->b = b - (o->len - 1) * -s;
    }
    return o->len >= 1 && o->b >= 0 && o->b + (o->len - 1) * o->st < D ? 0 : -1;
}

static int op_strided_slice(struct tfjs *c, struct tnode *n)
{
    int64_t b[GRAPH_MAX_RANK * 2], e[GRAPH_MAX_RANK * 2], s[GRAPH_MAX_RANK * 2];
    int64_t bm, em, elm, nam, sam;
    struct tv *x = tf_in(c, n, 0);
    int k = x ? tf_ints(c, n, 1, b, GRAPH_MAX_RANK * 2) : -1;
    if (k < 0 || tf_ints(c, n, 2, e, GRAPH_MAX_RANK * 2) != k ||
        tf_ints(c, n, 3, s, GRAPH_MAX_RANK * 2) != k)
        return c->rc ? c->rc : tf_fail(c, "begin, end and strides differ in length");
    if (tf_attr_int(c, n, "begin_mask", 0, &bm) || tf_attr_int(c, n, "end_mask", 0, &em) ||
        tf_attr_int(c, n, "ellipsis_mask", 0, &elm) ||
        tf_attr_int(c, n, "new_axis_mask", 0, &nam) ||
        tf_attr_int(c, n, "shrink_axis_mask", 0, &sam))
        return c->rc;
    int real = 0;
    for (int i = 0; i < k; i++)
        real += !((elm >> i) & 1) && !((nam >> i) & 1);
    int64_t B[GRAPH_MAX_RANK], L[GRAPH_MAX_RANK], S[GRAPH_MAX_RANK], out[GRAPH_MAX_RANK * 2];
    int ax = 0, r = 0;
    for (int i = 0; i <= k; i++) {
        int ell = i < k && ((elm >> i) & 1), tail = i == k;
        if (ell || tail) { /* full ranges: the ellipsis, or the axes after the spec */
            int cnt = tail ? x->rank - ax : x->rank - real;
            for (int j = 0; j < cnt && ax < x->rank; j++, ax++)
                B[ax] = 0, L[ax] = x->dims[ax], S[ax] = 1, out[r++] = x->dims[ax];
            if (tail)
                break;
            continue;
        }
        if ((nam >> i) & 1) {
            out[r++] = 1;
            continue;
        }
        struct ss_axis o;
        if (ax >= x->rank)
            return tf_fail(c, "slice spec longer than rank %d", x->rank);
        if (ss_norm(x->dims[ax], b[i], e[i], s[i], (int)((bm >> i) & 1), (int)((em >> i) & 1),
                    (int)((sam >> i) & 1), &o))
            return tf_fail(c, "axis %d: empty or invalid slice", ax);
        B[ax] = o.b, L[ax] = o.len, S[ax] = o.st;
        if (!((sam >> i) & 1))
            out[r++] = o.len;
        ax++;
    }
    if (r > GRAPH_MAX_RANK)
        return tf_fail(c, "result rank %d exceeds %d", r, GRAPH_MAX_RANK);
    return multi_slice(c, n, B, L, S, r, out);
}

static const struct {
    const char *op;
    tf_lower_fn fn;
} shape_ops[] = {
    {"Reshape", op_reshape}, {"Squeeze", op_squeeze}, {"ExpandDims", op_expand_dims},
    {"Transpose", op_transpose}, {"ConcatV2", op_concat}, {"Concat", op_concat},
    {"Pack", op_pack}, {"Unpack", op_unpack}, {"Split", op_split}, {"SplitV", op_split},
    {"Slice", op_slice}, {"StridedSlice", op_strided_slice},
};

tf_lower_fn tf_shape_ops_find(const char *op)
{
    for (size_t i = 0; i < sizeof shape_ops / sizeof *shape_ops; i++)
        if (!strcmp(op, shape_ops[i].op))
            return shape_ops[i].fn;
    return NULL;
}
