/* graph/import: TF.js convolutions, pooling and resizing on the IR's NCHW conv2d / pools.
 *
 * NHWC convolutions and pools run on an NCHW view: the input is transposed to NCHW, the
 * op runs, and its output is a lazy transpose back to NHWC (tfjs_value.c) that a following
 * conv's transpose to NCHW cancels, so conv chains stay NCHW without copies. */
#include <string.h>

#include "graph/import/tfjs_int.h"

static const int TO_NCHW[4] = {0, 3, 1, 2}, TO_NHWC[4] = {0, 2, 3, 1};

int tf_nchw_format(struct tfjs *c, struct tnode *n)
{
    char fmt[16];
    tf_attr_str(c, n, "data_format", fmt, sizeof fmt);
    return !strcmp(fmt, "NCHW");
}

/* x as an NCHW graph tensor. */
static int32_t x_nchw(struct tfjs *c, struct tnode *n, struct tv *x, int nchw)
{
    if (x->rank != 4)
        return tf_fail(c, "input 0 must be rank 4 (NHWC), has rank %d", x->rank), -1;
    return nchw ? tf_mat(c, x, NULL) : tf_perm(c, x, TO_NCHW, tf_name(c, "nchw_in"));
}

/* A per-channel vector (weight or tensor of O elements) shaped [O,1,1] for NCHW. */
int32_t tf_chan_vec(struct tfjs *c, struct tv *v, int64_t o, const char *what)
{
    if (c->rc)
        return -1;
    int64_t m = tf_numel(v->rank, v->dims);
    if (m == 1 && v->rank <= 1)
        return tf_mat(c, v, NULL);
    if (m != o)
        return tf_fail(c, "%s has %lld elements, expected %lld channels", what, (long long)m,
                       (long long)o), -1;
    if (v->weight && v->t < 0) {
        struct tv w = *v;
        w.t = w.tr_src = -1;
        w.rank = 3;
        w.dims[0] = o, w.dims[1] = w.dims[2] = 1;
        return tf_mat(c, &w, tf_name_of(c, v->name, "c11"));
    }
    return graph_reshape(c->g, tf_name(c, what), tf_mat(c, v, NULL), GRAPH_DIMS(o, 1, 1), NULL);
}

static int32_t unary(struct tfjs *c, const char *what, enum graph_op_kind k, int32_t x)
{
    return graph_unary(c->g, tf_name(c, what), k, x);
}

/* max(y, y * alpha): the cost of a PReLU / LeakyReLU. */
static int32_t prelu(struct tfjs *c, int32_t y, int32_t alpha)
{
    int32_t m = graph_binary(c->g, tf_name(c, "alpha"), GRAPH_OP_MUL, y, alpha);
    return graph_binary(c->g, tf_name(c, "prelu"), GRAPH_OP_MAX, y, m);
}

/* The activation named act on y; alpha: the PReLU slope tensor (-1: none). */
static int32_t activation(struct tfjs *c, const char *act, int32_t y, int32_t alpha)
{
    if (!strcmp(act, "Relu") || !strcmp(act, "Relu6") || !strcmp(act, "Elu") ||
        !strcmp(act, "Selu") || !strcmp(act, "LeakyRelu"))
        return unary(c, "relu", GRAPH_OP_RELU, y);
    if (!strcmp(act, "Sigmoid"))
        return unary(c, "sigmoid", GRAPH_OP_SIGMOID, y);
    if (!strcmp(act, "Tanh"))
        return unary(c, "tanh", GRAPH_OP_TANH, y);
    if (!strcmp(act, "Prelu") && alpha >= 0)
        return prelu(c, y, alpha);
    return tf_fail(c, "unsupported fused activation '%s'", act), -1;
}

static int64_t window_size(int64_t size, int64_t k, int64_t s)
{
    return size >= k ? (size - k) / s + 1 : 0;
}

struct win {
    int64_t stride[2], dil[2], pad[2], out[2];
};

/* TF padding rules for the H and W axes of an NCHW x with kernel kh x kw. SAME pads
 * ceil(total/2) on both sides (the IR pads symmetrically); a size one too large is sliced
 * away afterwards. */
static int window(struct tfjs *c, struct tnode *n, int nchw, int32_t x, const int64_t *k,
                  struct win *w)
{
    int64_t st[4] = {1, 1, 1, 1}, dl[4] = {1, 1, 1, 1}, ep[8] = {0};
    char pad[16];
    if (tf_attr_ints(c, n, "strides", st, 4) < 0 || tf_attr_ints(c, n, "dilations", dl, 4) < 0 ||
        tf_attr_ints(c, n, "explicit_paddings", ep, 8) < 0 ||
        tf_attr_str(c, n, "padding", pad, sizeof pad))
        return c->rc;
    const struct graph_tensor *t = graph_tensor(c->g, x);
    for (int i = 0; i < 2; i++) {
        int ax = nchw ? 2 + i : 1 + i;
        w->stride[i] = st[ax], w->dil[i] = dl[ax];
        if (w->stride[i] < 1 || w->dil[i] < 1 || w->stride[i] > 1 << 20 || w->dil[i] > 1 << 20)
            return tf_fail(c, "strides/dilations out of range");
        int64_t h = t->shape.dims[2 + i].size, keff = (k[i] - 1) * w->dil[i] + 1;
        if (!strcmp(pad, "SAME")) {
            w->out[i] = (h + w->stride[i] - 1) / w->stride[i];
            int64_t tot = (w->out[i] - 1) * w->stride[i] + keff - h;
            w->pad[i] = tot > 0 ? (tot + 1) / 2 : 0;
        } else if (!strcmp(pad, "VALID")) {
            w->out[i] = window_size(h, keff, w->stride[i]), w->pad[i] = 0;
        } else if (!strcmp(pad, "EXPLICIT")) {
            int64_t b = ep[2 * ax], a = ep[2 * ax + 1];
            if (b < 0 || a < 0 || b > 1 << 20 || a > 1 << 20)
                return tf_fail(c, "explicit_paddings out of range");
            w->out[i] = window_size(h + a + b, keff, w->stride[i]), w->pad[i] = (a + b + 1) / 2;
        } else {
            return tf_fail(c, "unsupported padding '%s'", pad);
        }
        if (w->out[i] < 1)
            return tf_fail(c, "the window %lld does not fit the input size %lld", (long long)keff,
                           (long long)h);
    }
    return 0;
}

/* Slice an NCHW result down to the TF output size where symmetric padding overshot. */
static int32_t fit(struct tfjs *c, int32_t y, const struct win *w)
{
    for (int i = 0; i < 2 && y >= 0; i++)
        if (graph_tensor(c->g, y)->shape.dims[2 + i].size > w->out[i])
            y = graph_slice(c->g, tf_name(c, i ? "fitw" : "fith"), y, 2 + i, 0, w->out[i], 1);
    return y;
}

/* Filter [KH,KW,I,O] (depthwise: [KH,KW,C,M]) as the IR's [O, I, KH, KW]. */
static int32_t filter(struct tfjs *c, struct tv *f, int depthwise)
{
    static const int OIHW[4] = {3, 2, 0, 1};
    if (f->rank != 4)
        return tf_fail(c, "filter must be rank 4, has rank %d", f->rank), -1;
    if (!depthwise)
        return tf_perm(c, f, OIHW, tf_name_of(c, f->name, "oihw"));
    int64_t kh = f->dims[0], kw = f->dims[1], cm = f->dims[2] * f->dims[3];
    if (f->weight && f->t < 0) {
        struct tv w = *f;
        w.t = w.tr_src = -1;
        w.dims[0] = cm, w.dims[1] = 1, w.dims[2] = kh, w.dims[3] = kw;
        return tf_mat(c, &w, tf_name_of(c, f->name, "oihw"));
    }
    static const int CMHW[4] = {2, 3, 0, 1};
    int32_t t = tf_perm(c, f, CMHW, tf_name(c, "filter_t"));
    return graph_reshape(c->g, tf_name(c, "filter"), t, GRAPH_DIMS(cm, 1, kh, kw), NULL);
}

/* A conv with one output element per image (one filter covering the image, as a dense
 * head): the IR's conv needs an output axis longer than 1 to partition, so it is the
 * product with the weight summed over C, H, W. */
static int32_t dot_conv(struct tfjs *c, int32_t x, int32_t w, const int64_t *k,
                        const char *name)
{
    for (int i = 0; i < 2 && x >= 0; i++)
        if (graph_tensor(c->g, x)->shape.dims[2 + i].size > k[i])
            x = graph_slice(c->g, tf_name(c, i ? "win_w" : "win_h"), x, 2 + i, 0, k[i], 1);
    if (x >= 0 && graph_tensor(c->g, x)->dtype != graph_tensor(c->g, w)->dtype)
        x = graph_cast(c->g, tf_name(c, "x"), x, graph_tensor(c->g, w)->dtype);
    int32_t m = graph_binary(c->g, tf_name(c, "prod"), GRAPH_OP_MUL, x, w);
    return graph_reduce(c->g, name, GRAPH_OP_REDUCE_SUM, m, GRAPH_AXES(1, 2, 3), 1);
}

/* conv2d of NCHW x with an OIHW weight under the node's strides/padding. */
static int32_t conv(struct tfjs *c, struct tnode *n, int nchw, int32_t x, int32_t w,
                    int64_t groups, const char *name)
{
    if (x < 0 || w < 0)
        return -1;
    const struct graph_tensor *wt = graph_tensor(c->g, w);
    int64_t k[2] = {wt->shape.dims[2].size, wt->shape.dims[3].size};
    struct win win;
    if (window(c, n, nchw, x, k, &win))
        return -1;
    if (wt->shape.dims[0].size == 1 && win.out[0] == 1 && win.out[1] == 1 && groups == 1 &&
        !win.pad[0] && !win.pad[1] && win.dil[0] == 1 && win.dil[1] == 1)
        return dot_conv(c, x, w, k, name);
    struct graph_attrs at;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    for (int i = 0; i < 2; i++)
        at.stride[i] = win.stride[i], at.pad[i] = win.pad[i], at.dilation[i] = win.dil[i];
    at.groups = groups;
    int32_t in[2] = {x, w};
    return fit(c, graph_op_infer(c->g, name, GRAPH_OP_CONV2D, in, 2, &at), &win);
}

/* The NCHW result y as output 0, NHWC unless the node is NCHW. */
static int finish_nchw(struct tfjs *c, struct tnode *n, int nchw, int32_t y)
{
    return nchw ? tf_set(c, n, 0, y) : tf_set_view(c, n, 0, y, TO_NHWC);
}

/* Fused ops after a conv (NCHW y with o channels): BiasAdd / FusedBatchNorm, then an
 * activation; their operands are inputs 2.. of the node. */
int32_t tf_fused_tail(struct tfjs *c, struct tnode *n, int32_t y, int64_t o, int nchw_axis)
{
    char ops[4][32];
    int nf = tf_attr_strs(c, n, "fused_ops", ops, 4);
    int arg = 2;
    for (int i = 0; i < nf && y >= 0; i++) {
        struct tv *a;
        if (!strcmp(ops[i], "BiasAdd") || !strcmp(ops[i], "Add")) {
            if (!(a = tf_in(c, n, arg++)))
                return -1;
            int32_t b = nchw_axis ? tf_chan_vec(c, a, o, "bias") : tf_mat(c, a, NULL);
            y = graph_binary(c->g, tf_name(c, "bias"), GRAPH_OP_ADD, y, b);
        } else if (!strcmp(ops[i], "FusedBatchNorm")) {
            struct tv *s = tf_in(c, n, arg), *sh = tf_in(c, n, arg + 1);
            if (!s || !sh)
                return -1;
            arg += 4;
            y = graph_batchnorm(c->g, tf_name(c, "bn"), y, tf_mat(c, s, NULL),
                                tf_mat(c, sh, NULL), nchw_axis ? 1 : -1);
        } else {
            int32_t alpha = -1;
            if (!strcmp(ops[i], "Prelu")) {
                if (!(a = tf_in(c, n, arg++)))
                    return -1;
                alpha = nchw_axis ? tf_chan_vec(c, a, o, "alpha") : tf_mat(c, a, NULL);
            }
            y = activation(c, ops[i], y, alpha);
        }
    }
    return y;
}

/* One output channel over a large image: codegen would have to partition the image and
 * hold all of it in SBUF, so the filter (a constant, output axis oaxis) gets two output
 * channels; the caller slices one away. 1 when *f was widened. */
static int widen(struct tv *f, int oaxis, const struct tv *x, int nchw)
{
    int64_t px = x->rank == 4 ? x->dims[nchw ? 2 : 1] * x->dims[nchw ? 3 : 2] : 0;
    if (f->rank != 4 || !f->weight || f->t >= 0 || f->dims[oaxis] != 1 || px < 4096)
        return 0;
    f->dims[oaxis] = 2;
    return 1;
}

static int op_conv(struct tfjs *c, struct tnode *n)
{
    int nchw = tf_nchw_format(c, n);
    int depthwise = strstr(n->op, "Depthwise") != NULL;
    struct tv *x = tf_in(c, n, 0), *f = tf_in(c, n, 1);
    if (!x || !f)
        return c->rc;
    struct tv wide = *f;
    int narrow = !depthwise && widen(&wide, 3, x, nchw), dup = 0;
    if (!depthwise && x->rank == 4 && f->rank == 4 && x->dims[nchw ? 1 : 3] == 1 &&
        f->dims[2] == 1 && f->weight && f->t < 0) {
        /* one input channel: the IR's conv partitions C, so the channel is doubled (the
         * input concatenated with itself, a filter of 2 channels) */
        wide.dims[2] = 2;
        dup = 1;
    }
    if (narrow || dup)
        f = &wide;
    int32_t xt = x_nchw(c, n, x, nchw), w = filter(c, f, depthwise);
    if (dup && xt >= 0) {
        int32_t two[2] = {xt, xt};
        xt = graph_concat(c->g, tf_name(c, "c2"), 2, two, 1);
    }
    if (xt < 0 || w < 0)
        return c->rc ? c->rc : tf_fail(c, "bad conv operands");
    int64_t ch = graph_tensor(c->g, xt)->shape.dims[1].size;
    int64_t wi = graph_tensor(c->g, w)->shape.dims[1].size;
    int64_t groups = depthwise ? ch : (wi > 0 && ch % wi == 0 ? ch / wi : 1);
    int fused = n->op[0] == '_' || !strncmp(n->op, "Fused", 5);
    int32_t y = conv(c, n, nchw, xt, w, groups,
                     fused ? tf_name(c, "conv") : tf_name(c, "nchw"));
    if (narrow && y >= 0)
        y = graph_slice(c->g, tf_name(c, "o1"), y, 1, 0, 1, 1);
    if (y >= 0 && fused)
        y = tf_fused_tail(c, n, y, graph_tensor(c->g, y)->shape.dims[1].size, 1);
    return finish_nchw(c, n, nchw, y);
}

/* Transposed conv (Conv2DBackpropInput: output_shape, filter [KH,KW,O,I], x): the input is
 * upsampled to the output size by index gathers, then a stride-1 SAME conv runs on it. */
static int32_t upsample(struct tfjs *c, int32_t x, int axis, int64_t to, const char *name)
{
    if (x < 0 || graph_tensor(c->g, x)->shape.dims[axis].size == to)
        return x;
    int32_t ids = graph_weight(c->g, tf_name(c, "ids"), LS_DT_INT32,
                               GRAPH_DIMS(to), NULL);
    return graph_gather(c->g, tf_name(c, name), x, ids, axis);
}

static int op_conv_transpose(struct tfjs *c, struct tnode *n)
{
    int64_t os[4];
    int nchw = tf_nchw_format(c, n);
    if (tf_ints(c, n, 0, os, 4) != 4)
        return c->rc ? c->rc : tf_fail(c, "output_shape must have 4 values");
    struct tv *f = tf_in(c, n, 1), *x = tf_in(c, n, 2), wide;
    static const int IOHW[4] = {2, 3, 0, 1};
    if (!f || !x || f->rank != 4)
        return c->rc ? c->rc : tf_fail(c, "filter must be rank 4");
    wide = *f;
    struct tv out = *x; /* the output's spatial size decides */
    out.rank = 4;
    out.dims[nchw ? 2 : 1] = os[nchw ? 2 : 1], out.dims[nchw ? 3 : 2] = os[nchw ? 3 : 2];
    int narrow = widen(&wide, 2, &out, nchw);
    f = &wide;
    int32_t xt = x_nchw(c, n, x, nchw);
    int h = nchw ? 2 : 1;
    xt = upsample(c, upsample(c, xt, 2, os[h], "up_h"), 3, os[h + 1], "up_w");
    int32_t w = tf_perm(c, f, IOHW, tf_name_of(c, f->name, "oihw"));
    if (xt < 0 || w < 0)
        return c->rc ? c->rc : tf_fail(c, "%s", graph_error(c->g)->msg);
    const struct graph_tensor *wt = graph_tensor(c->g, w);
    int64_t k[2] = {wt->shape.dims[2].size, wt->shape.dims[3].size};
    struct graph_attrs at;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    at.pad[0] = (k[0] - 1 + 1) / 2, at.pad[1] = (k[1] - 1 + 1) / 2;
    struct win win = {{1, 1}, {1, 1}, {at.pad[0], at.pad[1]}, {os[h], os[h + 1]}};
    int32_t in[2] = {xt, w};
    int32_t y = fit(c, graph_op_infer(c->g, tf_name(c, "nchw"), GRAPH_OP_CONV2D, in, 2, &at),
                    &win);
    if (narrow && y >= 0)
        y = graph_slice(c->g, tf_name(c, "o1"), y, 1, 0, 1, 1);
    return finish_nchw(c, n, nchw, y);
}

static int op_pool(struct tfjs *c, struct tnode *n)
{
    int nchw = tf_nchw_format(c, n);
    struct tv *x = tf_in(c, n, 0);
    int64_t ks[4] = {1, 1, 1, 1};
    if (!x || tf_attr_ints(c, n, "ksize", ks, 4) < 0)
        return c->rc;
    int32_t xt = x_nchw(c, n, x, nchw);
    int64_t k[2] = {ks[nchw ? 2 : 1], ks[nchw ? 3 : 2]};
    if (k[0] < 1 || k[1] < 1 || k[0] > 1 << 20 || k[1] > 1 << 20)
        return tf_fail(c, "ksize out of range");
    struct win w;
    if (xt < 0 || window(c, n, nchw, xt, k, &w))
        return c->rc;
    enum graph_op_kind kind = strstr(n->op, "Max") ? GRAPH_OP_POOL_MAX : GRAPH_OP_POOL_AVG;
    struct graph_attrs at;
    int ranks[1] = {4};
    graph_attrs_default(kind, ranks, 1, &at);
    for (int i = 0; i < 2; i++) {
        at.kernel[i] = k[i], at.stride[i] = w.stride[i];
        at.pad[i] = w.pad[i] < k[i] ? w.pad[i] : k[i] - 1;
    }
    const struct graph_tensor *xs = graph_tensor(c->g, xt);
    if (w.out[0] == 1 && w.out[1] == 1 && !w.pad[0] && !w.pad[1] &&
        xs->shape.dims[2].size == k[0] && xs->shape.dims[3].size == k[1]) {
        /* a window over the whole image: the global pool it is (a reduction over H, W) */
        enum graph_op_kind rk = kind == GRAPH_OP_POOL_MAX ? GRAPH_OP_REDUCE_MAX
                                                          : GRAPH_OP_REDUCE_MEAN;
        return finish_nchw(c, n, nchw, graph_reduce(c->g, tf_name(c, "nchw"), rk, xt,
                                                    GRAPH_AXES(2, 3), 1));
    }
    /* N = C = 1: the IR's pool partitions N or C, so the channel is doubled and the copy
     * sliced away after */
    int one = graph_tensor(c->g, xt)->shape.dims[0].size == 1 &&
              graph_tensor(c->g, xt)->shape.dims[1].size == 1;
    if (one) {
        int32_t two[2] = {xt, xt};
        xt = graph_concat(c->g, tf_name(c, "c2"), 2, two, 1);
    }
    int32_t y = fit(c, graph_op_infer(c->g, tf_name(c, one ? "pool2" : "nchw"), kind, &xt, 1,
                                      &at), &w);
    if (one && y >= 0)
        y = graph_slice(c->g, tf_name(c, "nchw"), y, 1, 0, 1, 1);
    return finish_nchw(c, n, nchw, y);
}

/* ---- resizing ------------------------------------------------------------------------ */

/* Resize* (x NHWC, size [2]): row and column index gathers (bilinear's four taps cost as
 * the nearest-neighbour gather). */
static int op_resize(struct tfjs *c, struct tnode *n)
{
    int64_t sz[2];
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_ints(c, n, 1, sz, 2) != 2)
        return c->rc ? c->rc : tf_fail(c, "size must have 2 values");
    if (x->rank != 4 || sz[0] < 1 || sz[1] < 1 || sz[0] > GRAPH_MAX_DIM || sz[1] > GRAPH_MAX_DIM)
        return tf_fail(c, "expects a rank-4 NHWC input and a positive size");
    int32_t t = tf_mat(c, x, NULL);
    int64_t w = x->dims[2];
    t = upsample(c, t, 1, sz[0], w == sz[1] ? NULL : "up_h");
    t = upsample(c, t, 2, sz[1], NULL);
    if (t >= 0 && t == tf_mat(c, x, NULL))
        t = graph_unary(c->g, tf_name(c, NULL), GRAPH_OP_COPY, t);
    return tf_set(c, n, 0, t);
}

static const struct {
    const char *op;
    tf_lower_fn fn;
} conv_ops[] = {
    {"Conv2D", op_conv}, {"_FusedConv2D", op_conv}, {"DepthwiseConv2dNative", op_conv},
    {"FusedDepthwiseConv2dNative", op_conv}, {"Conv2DBackpropInput", op_conv_transpose},
    {"MaxPool", op_pool}, {"AvgPool", op_pool}, {"ResizeBilinear", op_resize},
    {"ResizeNearestNeighbor", op_resize},
};

tf_lower_fn tf_conv_ops_find(const char *op)
{
    for (size_t i = 0; i < sizeof conv_ops / sizeof *conv_ops; i++)
        if (!strcmp(op, conv_ops[i].op))
            return conv_ops[i].fn;
    return NULL;
}
