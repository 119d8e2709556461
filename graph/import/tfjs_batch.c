/* graph/import/tfjs_batch: SpaceToBatchND and BatchToSpaceND on NHWC inputs (the pair TF
 * puts around a dilated convolution), lowered to the IR's data movement: padding (concat of
 * zero blocks), reshape, transpose, reshape, and for BatchToSpaceND a slice of the crops. */
#include <string.h>

#include "graph/import/tfjs_int.h"

/* t padded on axis with `before` and `after` zero rows (concat with weight blocks). */
static int32_t pad_axis(struct tfjs *c, int32_t t, int axis, int64_t before, int64_t after)
{
    if (t < 0 || (!before && !after))
        return t;
    int32_t parts[3];
    int np = 0, rank;
    int64_t d[GRAPH_MAX_RANK];
    tf_shape_of(c, t, &rank, d);
    for (int side = 0; side < 2; side++) {
        int64_t w = side ? after : before;
        if (side)
            parts[np++] = t;
        if (!w)
            continue;
        int64_t bd[GRAPH_MAX_RANK];
        memcpy(bd, d, sizeof bd);
        bd[axis] = w;
        parts[np++] = graph_weight(c->g, tf_name(c, side ? "after" : "before"),
                                   graph_tensor(c->g, t)->dtype, rank, bd, NULL);
    }
    return graph_concat(c->g, tf_name(c, "pad"), np, parts, axis);
}

/* The block shape and the paddings/crops ([2,2]) of an NHWC op; 0 or an error. */
static int block_args(struct tfjs *c, struct tnode *n, struct tv *x, int64_t *b, int64_t *p)
{
    if (x->rank != 4)
        return tf_fail(c, "expects an NHWC input of rank 4 (rank %d)", x->rank);
    if (tf_ints(c, n, 1, b, 2) != 2 || tf_ints(c, n, 2, p, 4) != 4)
        return c->rc ? c->rc : tf_fail(c, "expects block_shape [2] and paddings/crops [2,2]");
    for (int i = 0; i < 2; i++)
        if (b[i] < 1 || b[i] > 1 << 16 || p[2 * i] < 0 || p[2 * i + 1] < 0 ||
            p[2 * i] > GRAPH_MAX_DIM || p[2 * i + 1] > GRAPH_MAX_DIM)
            return tf_fail(c, "block %lld or padding/crop out of range on spatial axis %d",
                           (long long)b[i], i);
    return 0;
}

int tf_op_space_to_batch(struct tfjs *c, struct tnode *n)
{
    int64_t b[2], p[4];
    struct tv *x = tf_in(c, n, 0);
    if (!x || block_args(c, n, x, b, p))
        return c->rc;
    int64_t N = x->dims[0], H = x->dims[1] + p[0] + p[1], W = x->dims[2] + p[2] + p[3];
    int64_t C = x->dims[3];
    if (b[0] * b[1] > GRAPH_MAX_DIM / N)   /* the new batch must be a dim */
        return tf_fail(c, "batch %lld times the block %lldx%lld is too large", (long long)N,
                       (long long)b[0], (long long)b[1]);
    if (H % b[0] || W % b[1])
        return tf_fail(c, "padded size %lldx%lld not divisible by the block %lldx%lld",
                       (long long)H, (long long)W, (long long)b[0], (long long)b[1]);
    static const int perm[6] = {2, 4, 0, 1, 3, 5};
    int32_t t = pad_axis(c, pad_axis(c, tf_mat(c, x, NULL), 1, p[0], p[1]), 2, p[2], p[3]);
    if (t >= 0)
        t = graph_reshape(c->g, tf_name(c, "split"), t,
                          GRAPH_DIMS(N, H / b[0], b[0], W / b[1], b[1], C), NULL);
    if (t >= 0)
        t = graph_transpose(c->g, tf_name(c, "perm"), t, perm);
    if (t >= 0)
        t = graph_reshape(c->g, tf_name(c, NULL), t,
                          GRAPH_DIMS(b[0] * b[1] * N, H / b[0], W / b[1], C), NULL);
    return tf_set(c, n, 0, t);
}

int tf_op_batch_to_space(struct tfjs *c, struct tnode *n)
{
    int64_t b[2], k[4];
    struct tv *x = tf_in(c, n, 0);
    if (!x || block_args(c, n, x, b, k))
        return c->rc;
    int64_t B = x->dims[0], h = x->dims[1], w = x->dims[2], C = x->dims[3];
    if (b[0] > GRAPH_MAX_DIM / h || b[1] > GRAPH_MAX_DIM / w)
        return tf_fail(c, "the block %lldx%lld makes a dim too large", (long long)b[0],
                       (long long)b[1]);
    if (B % (b[0] * b[1]) || k[0] + k[1] >= h * b[0] || k[2] + k[3] >= w * b[1])
        return tf_fail(c, "batch %lld not divisible by the block %lldx%lld, or crops too large",
                       (long long)B, (long long)b[0], (long long)b[1]);
    int64_t N = B / (b[0] * b[1]);
    static const int perm[6] = {2, 3, 0, 4, 1, 5};
    int32_t t = graph_reshape(c->g, tf_name(c, "split"), tf_mat(c, x, NULL),
                              GRAPH_DIMS(b[0], b[1], N, h, w, C), NULL);
    if (t >= 0)
        t = graph_transpose(c->g, tf_name(c, "perm"), t, perm);
    if (t >= 0)
        t = graph_reshape(c->g, tf_name(c, k[0] + k[1] + k[2] + k[3] ? "joined" : NULL), t,
                          GRAPH_DIMS(N, h * b[0], w * b[1], C), NULL);
    if (t >= 0 && (k[0] || k[1]))
        t = graph_slice(c->g, tf_name(c, k[2] || k[3] ? "croph" : NULL), t, 1, k[0],
                        h * b[0] - k[1], 1);
    if (t >= 0 && (k[2] || k[3]))
        t = graph_slice(c->g, tf_name(c, NULL), t, 2, k[2], w * b[1] - k[3], 1);
    return tf_set(c, n, 0, t);
}
