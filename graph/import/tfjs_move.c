/* graph/import: TF.js padding, tiling, broadcasting, gathers, depth/space moves and the
 * ops that make constants (Shape, Fill, Range, SparseToDense...). */
#include <stdlib.h>
#include <string.h>

#include "graph/import/tfjs_int.h"

#define NOMEM(c) ((c)->rc = ls_error_msg((c)->err, LS_ERR_NOMEM, "out of memory"))

/* ---- padding and tiling -------------------------------------------------------------- */

/* Pad / PadV2 / MirrorPad: along each padded axis, concat [before, x, after] where the
 * blocks are constant weights (Pad) or slices of x (MirrorPad). */
static int op_pad(struct tfjs *c, struct tnode *n)
{
    int64_t p[GRAPH_MAX_RANK * 2];
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_ints(c, n, 1, p, GRAPH_MAX_RANK * 2) != 2 * x->rank)
        return c->rc ? c->rc : tf_fail(c, "paddings must be [rank, 2]");
    char mode[16] = "";
    int mirror = !strcmp(n->op, "MirrorPad");
    if (mirror && tf_attr_str(c, n, "mode", mode, sizeof mode))
        return c->rc;
    int64_t d[GRAPH_MAX_RANK];
    memcpy(d, x->dims, sizeof d);
    for (int i = 0; i < x->rank; i++) {
        if (p[2 * i] < 0 || p[2 * i + 1] < 0 || p[2 * i] > GRAPH_MAX_DIM ||
            p[2 * i + 1] > GRAPH_MAX_DIM)
            return tf_fail(c, "negative or huge padding on axis %d", i);
        d[i] += p[2 * i] + p[2 * i + 1];
    }
    if (x->weight)
        return tf_set_value(c, n, 0, x->dt, x->rank, d, NULL);
    int32_t t = tf_mat(c, x, NULL);
    int refl = strcmp(mode, "SYMMETRIC") != 0, last = -1;
    for (int i = 0; i < x->rank; i++)
        if (p[2 * i] || p[2 * i + 1])
            last = i;
    if (last < 0)
        t = graph_unary(c->g, tf_name(c, NULL), GRAPH_OP_COPY, t);
    for (int i = 0; i < x->rank && t >= 0; i++) {
        if (!p[2 * i] && !p[2 * i + 1])
            continue;
        int32_t parts[3];
        int np = 0;
        int64_t cur[GRAPH_MAX_RANK];
        int rank;
        tf_shape_of(c, t, &rank, cur);
        for (int side = 0; side < 2; side++) {
            int64_t w = p[2 * i + side], dim = cur[i];
            if (side)
                parts[np++] = t;
            if (!w)
                continue;
            if (mirror && w + refl <= dim) {
                int64_t b0 = side ? dim - w - refl : refl;
                parts[np++] = graph_slice(c->g, tf_name(c, side ? "after" : "before"), t, i, b0,
                                          b0 + w, 1);
            } else {
                int64_t bd[GRAPH_MAX_RANK];
                memcpy(bd, cur, sizeof bd);
                bd[i] = w;
                parts[np++] = graph_weight(c->g, tf_name(c, side ? "after" : "before"),
                                           graph_tensor(c->g, t)->dtype, rank, bd, NULL);
            }
        }
        t = graph_concat(c->g, tf_name(c, i == last ? NULL : "pad"), np, parts, i);
    }
    return tf_set(c, n, 0, t);
}

static int op_tile(struct tfjs *c, struct tnode *n)
{
    int64_t m[GRAPH_MAX_RANK], d[GRAPH_MAX_RANK];
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_ints(c, n, 1, m, GRAPH_MAX_RANK) != x->rank)
        return c->rc ? c->rc : tf_fail(c, "multiples must have one value per axis");
    for (int i = 0; i < x->rank; i++) {
        if (m[i] < 1 || m[i] > GRAPH_MAX_INPUTS)
            return tf_fail(c, "multiple %lld out of range 1..%d", (long long)m[i],
                           GRAPH_MAX_INPUTS);
        d[i] = x->dims[i] * m[i];
    }
    if (x->weight)
        return tf_set_value(c, n, 0, x->dt, x->rank, d, NULL);
    int32_t t = tf_mat(c, x, NULL), *parts = malloc(GRAPH_MAX_INPUTS * sizeof *parts);
    if (!parts)
        return NOMEM(c);
    int last = -1;
    for (int i = 0; i < x->rank; i++)
        if (m[i] > 1)
            last = i;
    for (int i = 0; i < x->rank && t >= 0; i++) {
        if (m[i] == 1)
            continue;
        for (int64_t k = 0; k < m[i]; k++)
            parts[k] = t;
        t = graph_concat(c->g, tf_name(c, i == last ? NULL : "tile"), (int)m[i], parts, i);
    }
    free(parts);
    if (t == tf_mat(c, x, NULL))
        t = graph_unary(c->g, tf_name(c, NULL), GRAPH_OP_COPY, t);
    return tf_set(c, n, 0, t);
}

/* BroadcastTo: x plus a zero constant of the target shape. */
static int op_broadcast_to(struct tfjs *c, struct tnode *n)
{
    int64_t d[GRAPH_MAX_RANK];
    struct tv *x = tf_in(c, n, 0);
    int r = x ? tf_ints(c, n, 1, d, GRAPH_MAX_RANK) : -1;
    if (r < 0)
        return c->rc;
    for (int i = 0; i < r; i++)
        if (d[i] < 1 || d[i] > GRAPH_MAX_DIM)
            return tf_fail(c, "target dim %d is %lld", i, (long long)d[i]);
    if (x->weight)
        return tf_set_value(c, n, 0, x->dt, r, d, NULL);
    int32_t t = tf_mat(c, x, NULL);
    int32_t z = graph_weight(c->g, tf_name(c, "zeros"), x->dt, r, d, NULL);
    return tf_set(c, n, 0, graph_binary(c->g, tf_name(c, NULL), GRAPH_OP_ADD, t, z));
}

/* ---- shape queries and generated constants ------------------------------------------- */

static int op_shape(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return c->rc;
    double v[GRAPH_MAX_RANK];
    int64_t r = x->rank, one = 1;
    for (int i = 0; i < x->rank; i++)
        v[i] = (double)x->dims[i];
    if (!strcmp(n->op, "Size")) {
        v[0] = (double)tf_numel(x->rank, x->dims);
        return tf_set_value(c, n, 0, LS_DT_INT32, 0, &one, v);
    }
    if (!strcmp(n->op, "Rank")) {
        v[0] = x->rank;
        return tf_set_value(c, n, 0, LS_DT_INT32, 0, &one, v);
    }
    return tf_set_value(c, n, 0, LS_DT_INT32, 1, &r, v);
}

static int op_fill(struct tfjs *c, struct tnode *n)
{
    int64_t d[GRAPH_MAX_RANK];
    int like = strstr(n->op, "Like") != NULL;
    struct tv *x = tf_in(c, n, like ? 0 : 1);
    int r = like ? (x ? x->rank : -1) : tf_ints(c, n, 0, d, GRAPH_MAX_RANK);
    if (r < 0 || !x)
        return c->rc;
    if (like)
        memcpy(d, x->dims, sizeof d);
    for (int i = 0; i < r; i++)   /* 0: an empty constant (ConcatV2 leaves it out) */
        if (d[i] < 0 || d[i] > GRAPH_MAX_DIM)
            return tf_fail(c, "dim %d is %lld", i, (long long)d[i]);
    int64_t m = tf_numel(r, d);
    double fillv = like ? !strcmp(n->op, "OnesLike") : x->vals ? x->vals[0] : 0, *v = NULL;
    if ((like || x->vals) && m <= TV_MAX_VALS) {
        if (!(v = malloc((size_t)(m ? m : 1) * sizeof *v)))
            return NOMEM(c);
        for (int64_t i = 0; i < m; i++)
            v[i] = fillv;
    }
    int rc = tf_set_value(c, n, 0, x->dt, r, d, v);
    free(v);
    return rc;
}

/* Range(start, limit, delta): a constant. A limit computed from tensor data (a count of
 * selected boxes) with an upper bound: the range up to the bound (bounded by its maximum
 * size, as if every element were selected). */
static int op_range(struct tfjs *c, struct tnode *n)
{
    int64_t s, l, d;
    double hi;
    struct tv *x = tf_in(c, n, 0), *lim = tf_in(c, n, 1);
    if (x && lim && !lim->vals && tf_upper_bound(c, n, 1, &hi))
        l = tf_to_int(hi);
    else if (x && lim && tf_ints(c, n, 1, &l, 1) != 1)
        x = NULL;
    if (!x || tf_ints(c, n, 0, &s, 1) != 1 || tf_ints(c, n, 2, &d, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "start, limit and delta must be single values");
    if (d == 0 || (l - s) / d < 0 || (l - s) / d > GRAPH_MAX_DIM)
        return tf_fail(c, "empty or huge range");
    int64_t m = d > 0 ? (l - s + d - 1) / d : (s - l - d - 1) / -d;
    if (m < 1)
        return tf_fail(c, "empty range");
    double *v = m <= TV_MAX_VALS ? malloc((size_t)m * sizeof *v) : NULL;
    for (int64_t i = 0; v && i < m; i++)
        v[i] = (double)(s + i * d);
    int rc = tf_set_value(c, n, 0, x->dt, 1, &m, v);
    free(v);
    return rc;
}

/* GatherV2 (params, indices, axis): a gather op (constant ids become an int32 weight). */
static int op_gather(struct tfjs *c, struct tnode *n)
{
    int64_t ax = 0, d[GRAPH_MAX_RANK * 2];
    struct tv *p = tf_in(c, n, 0), *ids = tf_in(c, n, 1);
    if (!p || !ids || (n->nin > 2 && tf_ints(c, n, 2, &ax, 1) != 1))
        return c->rc ? c->rc : tf_fail(c, "axis must be one value");
    int a = tf_axis(c, ax, p->rank), r = 0;
    if (a < 0)
        return c->rc;
    for (int i = 0; i < a; i++)
        d[r++] = p->dims[i];
    for (int i = 0; i < ids->rank; i++)
        d[r++] = ids->dims[i];
    for (int i = a + 1; i < p->rank; i++)
        d[r++] = p->dims[i];
    if (r > GRAPH_MAX_RANK)
        return tf_fail(c, "result rank %d exceeds %d", r, GRAPH_MAX_RANK);
    if (p->weight && ids->weight) {
        int64_t m = tf_numel(r, d), inner = tf_numel(p->rank - a - 1, p->dims + a + 1);
        int64_t nid = tf_numel(ids->rank, ids->dims), *src = NULL, k = 0;
        if (p->vals && ids->vals && m <= TV_MAX_VALS) {
            if (!(src = malloc((size_t)(m ? m : 1) * sizeof *src)))
                return NOMEM(c);
            for (int64_t o = 0; o < m / (nid * inner != 0 ? nid * inner : 1); o++)
                for (int64_t j = 0; j < nid; j++) {
                    int64_t id = tf_to_int(ids->vals[j]);
                    if (id < 0 || id >= p->dims[a])
                        return free(src), tf_fail(c, "index %lld out of range", (long long)id);
                    for (int64_t e = 0; e < inner; e++)
                        src[k++] = (o * p->dims[a] + id) * inner + e;
                }
        }
        int rc = tf_const_out(c, n, 0, p, r, d, src);
        free(src);
        return rc;
    }
    int32_t it = tf_mat(c, ids, NULL);
    if (it >= 0 && graph_tensor(c->g, it)->dtype != LS_DT_INT32 &&
        graph_tensor(c->g, it)->dtype != LS_DT_INT8)
        it = graph_cast(c->g, tf_name(c, "ids"), it, LS_DT_INT32);
    return tf_set(c, n, 0, graph_gather(c->g, tf_name(c, NULL), tf_mat(c, p, NULL), it, a));
}

/* GatherNd (params, indices [..., K]): params' first K axes merged and gathered with one
 * id per index tuple (computed indices: their row maximum, cast to int32). */
static int op_gather_nd(struct tfjs *c, struct tnode *n)
{
    struct tv *p = tf_in(c, n, 0), *ids = tf_in(c, n, 1);
    if (!p || !ids)
        return c->rc;
    int64_t k = ids->rank ? ids->dims[ids->rank - 1] : 0, d[GRAPH_MAX_RANK], r = 0;
    if (ids->rank < 1 || k < 1 || k > p->rank)
        return tf_fail(c, "indices' last axis must be 1..rank of params");
    int64_t merged[GRAPH_MAX_RANK], mr = 0;
    merged[mr++] = tf_numel((int)k, p->dims);
    for (int i = (int)k; i < p->rank; i++)
        merged[mr++] = p->dims[i];
    int32_t pt = tf_mat(c, p, NULL);
    if (k > 1)
        pt = graph_reshape(c->g, tf_name(c, "flat"), pt, (int)mr, merged, NULL);
    for (int i = 0; i < ids->rank - 1; i++)
        d[r++] = ids->dims[i];
    int32_t it;
    if (ids->weight) {
        it = graph_weight(c->g, tf_name(c, "ids"), LS_DT_INT32, (int)(r ? r : 1),
                          r ? d : (int64_t[]){1}, NULL);
    } else {
        int ax[1] = {ids->rank - 1};
        it = tf_mat(c, ids, NULL);
        if (it >= 0 && graph_tensor(c->g, it)->dtype != LS_DT_FP32)
            it = graph_cast(c->g, tf_name(c, "idsf"), it, LS_DT_FP32);
        it = graph_reduce(c->g, tf_name(c, "idsmax"), GRAPH_OP_REDUCE_MAX, it, 1, ax, 0);
        it = graph_cast(c->g, tf_name(c, "ids"), it, LS_DT_INT32);
    }
    return tf_set(c, n, 0, graph_gather(c->g, tf_name(c, NULL), pt, it, 0));
}

/* DepthToSpace / SpaceToDepth (NHWC, block b): reshape, transpose, reshape. */
static int op_depth_space(struct tfjs *c, struct tnode *n)
{
    int64_t b;
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_attr_int(c, n, "block_size", 0, &b))
        return c->rc;
    if (x->rank != 4 || b < 1 || b > 1 << 20)
        return tf_fail(c, "expects NHWC input and block_size >= 1");
    int64_t N = x->dims[0], H = x->dims[1], W = x->dims[2], C = x->dims[3];
    static const int P[6] = {0, 1, 3, 2, 4, 5};
    int32_t t = tf_mat(c, x, NULL);
    if (!strcmp(n->op, "DepthToSpace")) {
        if (C % (b * b))
            return tf_fail(c, "channels %lld not divisible by block^2", (long long)C);
        t = graph_reshape(c->g, tf_name(c, "r1"), t, GRAPH_DIMS(N, H, W, b, b, C / (b * b)),
                          NULL);
        t = graph_transpose(c->g, tf_name(c, "t"), t, P);
        t = graph_reshape(c->g, tf_name(c, NULL), t, GRAPH_DIMS(N, H * b, W * b, C / (b * b)),
                          NULL);
    } else {
        if (H % b || W % b)
            return tf_fail(c, "spatial size not divisible by the block");
        t = graph_reshape(c->g, tf_name(c, "r1"), t, GRAPH_DIMS(N, H / b, b, W / b, b, C), NULL);
        t = graph_transpose(c->g, tf_name(c, "t"), t, P);
        t = graph_reshape(c->g, tf_name(c, NULL), t, GRAPH_DIMS(N, H / b, W / b, b * b * C),
                          NULL);
    }
    return tf_set(c, n, 0, t);
}

/* SparseToDense (indices, output_shape, values, default) of constants: a constant. */
static int op_sparse_to_dense(struct tfjs *c, struct tnode *n)
{
    int64_t d[GRAPH_MAX_RANK];
    int r = tf_ints(c, n, 1, d, GRAPH_MAX_RANK);
    if (r < 0)
        return c->rc;
    for (int i = 0; i < n->nin; i++) {
        struct tv *x = tf_in(c, n, i);
        if (!x)
            return c->rc;
        if (!x->weight)
            return tf_fail(c, "input %d is computed at run time (only constants fold)", i);
    }
    for (int i = 0; i < r; i++)
        if (d[i] < 1 || d[i] > GRAPH_MAX_DIM)
            return tf_fail(c, "dim %d is %lld", i, (long long)d[i]);
    struct tv *ids = tf_in(c, n, 0), *val = tf_in(c, n, 2), *dflt = tf_in(c, n, 3);
    int64_t m = tf_numel(r, d), nid = ids->rank ? ids->dims[0] : 1;
    int64_t width = ids->rank > 1 ? ids->dims[1] : 1, nval = tf_numel(val->rank, val->dims);
    double *v = NULL;
    if (dflt && dflt->vals && val->vals && (ids->vals || !nid) && m <= TV_MAX_VALS &&
        width == (r ? r : 1) && (v = malloc((size_t)(m ? m : 1) * sizeof *v))) {
        for (int64_t i = 0; i < m; i++)
            v[i] = dflt->vals[0];
        for (int64_t k = 0; k < nid; k++) {
            int64_t f = 0;
            for (int j = 0; j < width; j++) {
                int64_t x = tf_to_int(ids->vals[k * width + j]);
                if (x < 0 || x >= (r ? d[j] : 1))
                    return free(v), tf_fail(c, "index out of range");
                f = f * (r ? d[j] : 1) + x;
            }
            v[f] = val->vals[nval == 1 ? 0 : k];
        }
    }
    int rc = tf_set_value(c, n, 0, val->dt, r, d, v);
    free(v);
    return rc;
}
static const struct {
    const char *op;
    tf_lower_fn fn;
} move_ops[] = {
    {"SparseToDense", op_sparse_to_dense}, {"Pad", op_pad}, {"PadV2", op_pad},
    {"MirrorPad", op_pad}, {"Tile", op_tile}, {"BroadcastTo", op_broadcast_to},
    {"SpaceToBatchND", tf_op_space_to_batch}, {"BatchToSpaceND", tf_op_batch_to_space},
    {"Shape", op_shape}, {"Size", op_shape}, {"Rank", op_shape}, {"Fill", op_fill},
    {"ZerosLike", op_fill}, {"OnesLike", op_fill}, {"Range", op_range},
    {"GatherV2", op_gather}, {"Gather", op_gather}, {"GatherNd", op_gather_nd},
    {"DepthToSpace", op_depth_space}, {"SpaceToDepth", op_depth_space},
};

tf_lower_fn tf_move_ops_find(const char *op)
{
    for (size_t i = 0; i < sizeof move_ops / sizeof *move_ops; i++)
        if (!strcmp(op, move_ops[i].op))
            return move_ops[i].fn;
    return NULL;
}
