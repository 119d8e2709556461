/* graph/import/onnx_nn: ONNX's contraction, convolution, pooling and normalization
 * operators onto matmul, batch_matmul, conv2d, pool_*, batchnorm and layernorm. */
#include <stdio.h>
#include <string.h>

#include "graph/import/onnx_ops.h"

static const struct graph_shape *shp(struct ox *x, int32_t t)
{
    return &graph_tensor(x->g, t)->shape;
}

void oxo_dims_of(const struct graph_shape *s, int64_t *d)
{
    for (int i = 0; i < s->rank; i++)
        d[i] = s->dims[i].size;
}

/* b in a's dtype (weights of an fp16 model built from fp32 constants...). */
static int32_t same_dtype(struct ox *x, int32_t a, int32_t b, const char *sfx)
{
    if (a < 0 || b < 0)
        return -1;
    enum ls_dtype da = graph_tensor(x->g, a)->dtype;
    if (graph_tensor(x->g, b)->dtype == da)
        return b;
    char nm[GRAPH_MAX_NAME + 1];
    return graph_cast(x->g, ox_name(x, sfx, nm, sizeof nm), b, da);
}

/* A parameter value as a tensor of exactly rank/dims: a weight of that shape for a
 * constant, else a reshape. */
static int32_t param_as(struct ox *x, struct ox_val *v, enum ls_dtype dt, int rank,
                        const int64_t *dims, const char *sfx)
{
    if (v->konst && v->t < 0) {
        int64_t n = 1;
        for (int i = 0; i < rank; i++)
            n *= dims[i];
        if (ox_numel(v) != n)
            return OX_FAIL_T(x, "parameter has %lld elements, expected %lld",
                           (long long)ox_numel(v), (long long)n);
        return ox_block(x, sfx, dt, rank, dims);
    }
    int32_t t = ox_tensor(x, v, dt);
    if (t < 0)
        return -1;
    if (graph_tensor(x->g, t)->dtype != dt) {
        char nm[GRAPH_MAX_NAME + 1], s2[64];
        snprintf(s2, sizeof s2, "%s.cast", sfx);
        t = graph_cast(x->g, ox_name(x, s2, nm, sizeof nm), t, dt);
    }
    return oxo_reshape_to(x, t, rank, dims, sfx);
}

/* ---- MatMul, Gemm, Einsum ---- */

static int32_t matmul2(struct ox *x, int32_t a, int32_t b, int ta, int tb, const char *sfx);

/* a[..., M, K] @ b[..., K, N] with numpy broadcasting of the batch axes (ranks >= 2). */
static int32_t bmm(struct ox *x, int32_t a, int32_t b, const char *sfx)
{
    char nm[GRAPH_MAX_NAME + 1];
    const struct graph_shape *sa = shp(x, a), *sb = shp(x, b);
    int ra = sa->rank, rb = sb->rank;
    int64_t da[GRAPH_MAX_RANK], db[GRAPH_MAX_RANK], bo[OX_MAX_RANK];
    oxo_dims_of(sa, da);
    oxo_dims_of(sb, db);
    int allone_b = 1;
    for (int i = 0; i < rb - 2; i++)
        allone_b &= db[i] == 1;
    if (allone_b && ra >= rb) {   /* b is one matrix: a plain matmul */
        int32_t b2 = oxo_reshape_to(x, b, 2, db + rb - 2, ".rhs");
        if (b2 >= 0 && ra == 2)
            return matmul2(x, a, b2, 0, 0, sfx);
        return b2 < 0 ? -1 : graph_matmul(x->g, ox_name(x, sfx, nm, sizeof nm), a, b2);
    }
    /* batch axes broadcast to a common shape first (a zero-block add where they differ) */
    int rbo;
    if (oxo_broadcast_shape(x, ra - 2, da, rb - 2, db, &rbo, bo))
        return -1;
    if (rbo + 2 > GRAPH_MAX_RANK)
        return OX_FAIL_T(x, "matmul rank %d exceeds %d", rbo + 2, GRAPH_MAX_RANK);
    int64_t fa[GRAPH_MAX_RANK], fb[GRAPH_MAX_RANK];
    memcpy(fa, bo, sizeof(int64_t) * (size_t)rbo);
    memcpy(fb, bo, sizeof(int64_t) * (size_t)rbo);
    fa[rbo] = da[ra - 2];
    fa[rbo + 1] = da[ra - 1];
    fb[rbo] = db[rb - 2];
    fb[rbo + 1] = db[rb - 1];
    a = oxo_broadcast(x, a, rbo + 2, fa, ".lhs");
    b = oxo_broadcast(x, b, rbo + 2, fb, ".rhs");
    if (a < 0 || b < 0)
        return -1;
    return graph_batch_matmul(x->g, ox_name(x, sfx, nm, sizeof nm), a, b, 0);
}

int oxo_matmul(struct ox *x)
{
    int32_t a = oxo_req(x, 0), b = oxo_req(x, 1);
    b = same_dtype(x, a, b, ".rhs_cast");
    if (a < 0 || b < 0)
        return -1;
    int ra = shp(x, a)->rank, rb = shp(x, b)->rank;
    if (ra < 1 || rb < 1)
        return ox_fail(x, "scalar operands");
    int64_t da[GRAPH_MAX_RANK], db[GRAPH_MAX_RANK], o[GRAPH_MAX_RANK];
    oxo_dims_of(shp(x, a), da);
    oxo_dims_of(shp(x, b), db);
    if (ra == 1 || rb == 1) {   /* vectors: matrix forms, then the vector axis dropped */
        int64_t a2[2] = {1, da[0]}, b2[2] = {db[0], 1};
        int32_t a1 = ra == 1 ? oxo_reshape_to(x, a, 2, a2, ".lhs") : a;
        int32_t b1 = rb == 1 ? oxo_reshape_to(x, b, 2, b2, ".rhs") : b;
        int32_t m = bmm(x, a1, b1, ".mm");
        if (m < 0)
            return -1;
        int r = 0;
        const struct graph_shape *s = shp(x, m);
        for (int i = 0; i < s->rank; i++)
            if (!((ra == 1 && i == s->rank - 2) || (rb == 1 && i == s->rank - 1)))
                o[r++] = s->dims[i].size;
        return ox_bind(x, 0, oxo_reshape_to(x, m, r, o, ""));
    }
    return ox_bind(x, 0, bmm(x, a, b, ""));
}

/* A product with a single output element ([1,K] x [K,1]): the IR's matmul needs an output
 * axis longer than 1 to partition (no layout is feasible otherwise), so it is the elementwise
 * product of the two rows summed over K (as the TF.js importer does). arow, brow: [1,K]. */
static int32_t dot_row(struct ox *x, int32_t arow, int32_t brow, const char *sfx)
{
    char nm[GRAPH_MAX_NAME + 1];
    int32_t m = graph_binary(x->g, ox_name(x, ".prod", nm, sizeof nm), GRAPH_OP_MUL, arow, brow);
    int ax[1] = {1};
    return m < 0 ? -1 : graph_reduce(x->g, ox_name(x, sfx, nm, sizeof nm), GRAPH_OP_REDUCE_SUM,
                                     m, 1, ax, 1);
}

/* a x b of matrices with transposes ta, tb; a dot_row when the result is [1,1]. */
static int32_t matmul2(struct ox *x, int32_t a, int32_t b, int ta, int tb, const char *sfx)
{
    const struct graph_shape *sa = shp(x, a), *sb = shp(x, b);
    int64_t m = sa->dims[ta ? 1 : 0].size, n = sb->dims[tb ? 0 : 1].size;
    int64_t row[2] = {1, sa->dims[ta ? 0 : 1].size};
    if (m == 1 && n == 1)
        return dot_row(x, ta ? oxo_reshape_to(x, a, 2, row, ".row") : a,
                       tb ? b : oxo_reshape_to(x, b, 2, row, ".rhs_row"), sfx);
    char nm[GRAPH_MAX_NAME + 1];
    return graph_matmul_axes(x->g, ox_name(x, sfx, nm, sizeof nm), a, b, ta ? 0 : 1, tb ? 1 : 0);
}

int oxo_gemm(struct ox *x)
{
    int32_t a = oxo_req(x, 0), b = oxo_req(x, 1);
    b = same_dtype(x, a, b, ".rhs_cast");
    if (a < 0 || b < 0)
        return -1;
    if (shp(x, a)->rank != 2 || shp(x, b)->rank != 2)
        return ox_fail(x, "A and B must be matrices");
    int ta = (int)ox_attr_i(x, "transA", 0), tb = (int)ox_attr_i(x, "transB", 0);
    struct ox_val *c = ox_in(x, 2);
    char nm[GRAPH_MAX_NAME + 1];
    int32_t m = matmul2(x, a, b, ta, tb, c ? ".matmul" : "");
    if (!c || m < 0)
        return ox_bind(x, 0, m);
    int32_t ct = same_dtype(x, m, ox_tensor(x, c, graph_tensor(x->g, m)->dtype), ".bias_cast");
    return ox_bind(x, 0, graph_binary(x->g, ox_name(x, "", nm, sizeof nm), GRAPH_OP_ADD, m, ct));
}

static int einsum_letter(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Einsum of two operands without ellipsis whose every letter (either case; spaces ignored,
 * as in maxvit's 'B G H I D, B G H J D -> B G H I J') is a batch axis (in both inputs and
 * the output), a contraction (in both, not in the output) or kept (in one input and the
 * output). */
int oxo_einsum(struct ox *x)
{
    char eq[128], in[2][16], outs[16];
    if (!ox_attr_s(x, "equation", eq, sizeof eq))
        return ox_fail(x, "no equation");
    char *p = eq, *q = in[0];
    int k = 0, len = 0;
    memset(in, 0, sizeof in);
    memset(outs, 0, sizeof outs);
    for (; *p && !(p[0] == '-' && p[1] == '>'); p++) {
        if (*p == ' ')
            continue;
        if (*p == ',') {
            if (++k > 1)
                return ox_fail(x, "only two-operand einsums are supported");
            q = in[k];
            len = 0;
        } else if (einsum_letter(*p) && len < GRAPH_MAX_RANK) {
            q[len++] = *p;
        } else {
            return ox_fail(x, "equation '%s': only letters, ',' and '->' are supported", eq);
        }
    }
    if (k != 1 || !*p || x->node->n_input != 2)
        return ox_fail(x, "equation '%s': need 'ab,bc->ac' form with two operands", eq);
    len = 0;
    for (p += 2; *p; p++)
        if (einsum_letter(*p) && len < GRAPH_MAX_RANK)
            outs[len++] = *p;
    int32_t a = oxo_req(x, 0), b = oxo_req(x, 1);
    b = same_dtype(x, a, b, ".rhs_cast");
    if (a < 0 || b < 0)
        return -1;
    if ((int)strlen(in[0]) != shp(x, a)->rank || (int)strlen(in[1]) != shp(x, b)->rank)
        return ox_fail(x, "equation '%s' does not match the operand ranks", eq);
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    char order[GRAPH_MAX_RANK * 3] = {0};
    int no = 0;
    for (int i = 0; in[0][i]; i++) {
        char c = in[0][i];
        const char *inb = strchr(in[1], c);
        int inout = strchr(outs, c) != NULL;
        if (inb && inout) {
            at.lhs_batch[at.nbatch] = i;
            at.rhs_batch[at.nbatch++] = (int)(inb - in[1]);
            order[no++] = c;
        } else if (inb) {
            at.lhs_contract[at.ncontract] = i;
            at.rhs_contract[at.ncontract++] = (int)(inb - in[1]);
        } else if (!inout) {
            return ox_fail(x, "equation '%s': '%c' is summed over one operand", eq, c);
        }
    }
    for (int i = 0; in[0][i]; i++)
        if (!strchr(in[1], in[0][i]))
            order[no++] = in[0][i];
    for (int i = 0; in[1][i]; i++) {
        if (!strchr(in[0], in[1][i]) && !strchr(outs, in[1][i]))
            return ox_fail(x, "equation '%s': '%c' is summed over one operand", eq, in[1][i]);
        if (!strchr(in[0], in[1][i]))
            order[no++] = in[1][i];
    }
    if (no != (int)strlen(outs))
        return ox_fail(x, "equation '%s': output letters do not match", eq);
    int perm[GRAPH_MAX_RANK], ident = 1;
    for (int i = 0; i < no; i++) {
        const char *w = strchr(order, outs[i]);
        if (!w)
            return ox_fail(x, "equation '%s': output letter '%c' is in no input", eq, outs[i]);
        perm[i] = (int)(w - order);
        ident &= perm[i] == i;
    }
    char nm[GRAPH_MAX_NAME + 1];
    int32_t ins[2] = {a, b};
    int32_t m = graph_op_infer(x->g, ox_name(x, ident ? "" : ".mm", nm, sizeof nm),
                               at.nbatch ? GRAPH_OP_BATCH_MATMUL : GRAPH_OP_MATMUL, ins, 2, &at);
    if (ident || m < 0)
        return ox_bind(x, 0, m);
    return ox_bind(x, 0, graph_transpose(x->g, ox_name(x, "", nm, sizeof nm), m, perm));
}

/* ---- convolution and pooling ---- */

/* Window attributes of Conv/ConvTranspose/pools for the 2 spatial axes of input dims in[]:
 * kernel k, stride s, dilation d, pads begin pb / end pe (auto_pad resolved). */
struct win {
    int64_t k[2], s[2], d[2], pb[2], pe[2];
};

/* nsp: spatial axes of the node (1 for a 1-D form run as 2-D with height 1: its attribute
 * entries describe the width, axis 1). */
static int window(struct ox *x, const int64_t *in, const int64_t *kernel, int transposed,
                  int nsp, struct win *w)
{
    int64_t v[8];
    for (int i = 0; i < 2; i++) {
        w->k[i] = kernel[i];
        w->s[i] = w->d[i] = 1;
        w->pb[i] = w->pe[i] = 0;
    }
    int n, a = 2 - nsp;   /* first axis the attributes describe */
    if ((n = ox_attr_ints(x, "strides", v, 8)) == nsp)
        memcpy(w->s + a, v, sizeof *v * (size_t)nsp);
    if ((n = ox_attr_ints(x, "dilations", v, 8)) == nsp)
        memcpy(w->d + a, v, sizeof *v * (size_t)nsp);
    if ((n = ox_attr_ints(x, "pads", v, 8)) == 2 * nsp) {
        memcpy(w->pb + a, v, sizeof *v * (size_t)nsp);
        memcpy(w->pe + a, v + nsp, sizeof *v * (size_t)nsp);
    } else if (n >= 0) {
        return ox_fail(x, "pads has %d entries, expected %d", n, 2 * nsp);
    }
    char ap[32];
    if (ox_attr_s(x, "auto_pad", ap, sizeof ap) && strncmp(ap, "SAME", 4) == 0 && !transposed) {
        for (int i = 0; i < 2; i++) {
            int64_t o = (in[i] + w->s[i] - 1) / w->s[i];
            int64_t tot = (o - 1) * w->s[i] + (w->k[i] - 1) * w->d[i] + 1 - in[i];
            tot = tot < 0 ? 0 : tot;
            w->pb[i] = !strcmp(ap, "SAME_LOWER") ? tot - tot / 2 : tot / 2;
            w->pe[i] = tot - w->pb[i];
        }
    } else if (ox_attr_s(x, "auto_pad", ap, sizeof ap) && !strcmp(ap, "VALID")) {
        w->pb[0] = w->pb[1] = w->pe[0] = w->pe[1] = 0;
    }
    for (int i = 0; i < 2; i++)
        if (w->k[i] < 1 || w->s[i] < 1 || w->d[i] < 1 || w->pb[i] < 0 || w->pe[i] < 0 ||
            w->k[i] > (1 << 20) || w->s[i] > (1 << 20) || w->d[i] > (1 << 20) ||
            w->pb[i] > (1 << 20) || w->pe[i] > (1 << 20))
            return ox_fail(x, "kernel, strides, dilations or pads out of range");
    return 0;
}

/* Symmetric padding goes into the op; the rest is padded explicitly (zero blocks). */
static int32_t pad_rest(struct ox *x, int32_t t, struct win *w, int64_t *sym)
{
    int64_t b[GRAPH_MAX_RANK] = {0}, e[GRAPH_MAX_RANK] = {0};
    for (int i = 0; i < 2; i++) {
        sym[i] = w->pb[i] < w->pe[i] ? w->pb[i] : w->pe[i];
        b[2 + i] = w->pb[i] - sym[i];
        e[2 + i] = w->pe[i] - sym[i];
    }
    return oxo_pad(x, t, b, e, ".pad");
}

/* 1-D forms (rank 3) run as 2-D with height 1. */
static int32_t to_2d(struct ox *x, int32_t t, const char *sfx)
{
    const struct graph_shape *s = shp(x, t);
    if (s->rank != 3)
        return t;
    int64_t d[4] = {s->dims[0].size, s->dims[1].size, 1, s->dims[2].size};
    return oxo_reshape_to(x, t, 4, d, sfx);
}

static int bind_nd(struct ox *x, int32_t t, int rank)
{
    if (t < 0 || rank == 4)
        return ox_bind(x, 0, t);
    const struct graph_shape *s = shp(x, t);
    int64_t d[3] = {s->dims[0].size, s->dims[1].size, s->dims[3].size};
    return ox_bind(x, 0, oxo_reshape_to(x, t, 3, d, ".1d"));
}

static int32_t add_bias(struct ox *x, int32_t y, struct ox_val *bv, const char *sfx)
{
    if (!bv || y < 0)
        return y;
    const struct graph_tensor *yt = graph_tensor(x->g, y);
    int64_t d[3] = {yt->shape.dims[1].size, 1, 1};
    int32_t bt = param_as(x, bv, yt->dtype, 3, d, ".bias");
    char nm[GRAPH_MAX_NAME + 1];
    return bt < 0 ? -1 : graph_binary(x->g, ox_name(x, sfx, nm, sizeof nm), GRAPH_OP_ADD, y, bt);
}

/* conv2d of t by w. One output channel over an input image of >= 4096 pixels would make
 * codegen hold the whole image in SBUF ("the swapped conv needs the whole input image"),
 * and over a single pixel of batch 1 it leaves no output axis longer than 1 to partition
 * (silero-vad's decoder head): the filter is doubled along its output axis and the extra
 * channel sliced away after (PaddleOCR's DB head; the TF.js importer does the same). At
 * most twice this op's work. */
static int32_t conv2d(struct ox *x, int32_t t, int32_t w, const struct graph_attrs *at,
                      const char *sfx)
{
    const struct graph_shape *ts = shp(x, t), *ws = shp(x, w);
    int64_t pixels = ts->dims[2].size * ts->dims[3].size;
    int one = ws->dims[0].size == 1 && at->groups == 1 &&
              (pixels >= 4096 || pixels * ts->dims[0].size == 1);
    char nm[GRAPH_MAX_NAME + 1];
    int32_t ins[2] = {t, w};
    if (ts->dims[1].size == 1 && at->groups == 1) {
        /* one input channel: the IR's conv partitions C, so the input is concatenated with
         * itself and the filter gets 2 channels (audio front ends, grayscale inputs) */
        int32_t tt[2] = {t, t}, ww[2] = {w, w};
        ins[0] = graph_concat(x->g, ox_name(x, ".c2", nm, sizeof nm), 2, tt, 1);
        ins[1] = graph_concat(x->g, ox_name(x, ".wc2", nm, sizeof nm), 2, ww, 1);
        if (ins[0] < 0 || ins[1] < 0)
            return -1;
        w = ins[1];
    }
    if (one) {
        int32_t two[2] = {w, w};
        ins[1] = graph_concat(x->g, ox_name(x, ".w2", nm, sizeof nm), 2, two, 0);
        if (ins[1] < 0)
            return -1;
    }
    int32_t y = graph_op_infer(x->g, ox_name(x, one ? ".conv2" : sfx, nm, sizeof nm),
                               GRAPH_OP_CONV2D, ins, 2, at);
    if (one && y >= 0)
        y = graph_slice(x->g, ox_name(x, sfx, nm, sizeof nm), y, 1, 0, 1, 1);
    return y;
}

int oxo_conv(struct ox *x)
{
    int32_t t = oxo_req(x, 0), w = oxo_req(x, 1);
    if (t < 0 || w < 0)
        return -1;
    int rank = shp(x, t)->rank;
    if (rank == 5)
        return oxo_conv3d(x);
    if ((rank != 3 && rank != 4) || shp(x, w)->rank != rank)
        return ox_fail(x, "only 1-D, 2-D and 3-D convolutions are supported (input rank %d)",
                       rank);
    t = to_2d(x, t, ".2d");
    w = same_dtype(x, t, to_2d(x, w, ".w2d"), ".wcast");
    if (t < 0 || w < 0)
        return -1;
    int64_t in[2] = {shp(x, t)->dims[2].size, shp(x, t)->dims[3].size};
    int64_t ks[2] = {shp(x, w)->dims[2].size, shp(x, w)->dims[3].size}, sym[2];
    struct win wn;
    if (window(x, in, ks, 0, rank - 2, &wn))
        return -1;
    t = pad_rest(x, t, &wn, sym);
    struct graph_attrs at;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    for (int i = 0; i < 2; i++) {
        at.stride[i] = wn.s[i];
        at.pad[i] = sym[i];
        at.dilation[i] = wn.d[i];
    }
    at.groups = ox_attr_i(x, "group", 1);
    struct ox_val *bv = ox_in(x, 2);
    int32_t y = conv2d(x, t, w, &at, bv || rank == 3 ? ".conv" : "");
    y = add_bias(x, y, bv, rank == 3 ? ".biased" : "");
    return bind_nd(x, y, rank);
}

/* Transposed convolution: zero insertion approximated by a gather that spreads the rows to
 * (H-1)*stride+1, then a stride-1 convolution with the flipped kernel (docs/import.md). */
int oxo_conv_transpose(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    struct ox_val *wv = ox_in(x, 1);
    if (t < 0 || !wv)
        return t < 0 ? -1 : ox_fail(x, "weight missing");
    if (shp(x, t)->rank != 4 || wv->rank != 4)
        return ox_fail(x, "only 2-D transposed convolutions are supported");
    const struct graph_shape *s = shp(x, t);
    int64_t in[2] = {s->dims[2].size, s->dims[3].size}, ks[2] = {wv->dims[2], wv->dims[3]};
    int64_t g = ox_attr_i(x, "group", 1), c = s->dims[1].size, outpad[2] = {0, 0}, v[4];
    if (g < 1 || c % g || wv->dims[0] != c)
        return ox_fail(x, "weight [%lld,...] does not match %lld input channels in %lld groups",
                       (long long)wv->dims[0], (long long)c, (long long)g);
    struct win wn;
    if (window(x, in, ks, 1, 2, &wn))
        return -1;
    if (ox_attr_ints(x, "output_padding", v, 4) == 2)
        outpad[0] = v[0], outpad[1] = v[1];
    char ap[32];
    int same = ox_attr_s(x, "auto_pad", ap, sizeof ap) && !strncmp(ap, "SAME", 4);
    int nos = ox_attr_ints(x, "output_shape", v, 4);
    if (same || nos == 2) {   /* the total padding that gives the requested output size */
        for (int i = 0; i < 2; i++) {
            int64_t want = nos == 2 ? v[i] : in[i] * wn.s[i];
            int64_t tot = wn.s[i] * (in[i] - 1) + outpad[i] + (ks[i] - 1) * wn.d[i] + 1 - want;
            wn.pe[i] = tot / 2;
            wn.pb[i] = tot - tot / 2;
        }
    }
    int64_t up[4] = {s->dims[0].size, c, (in[0] - 1) * wn.s[0] + 1, (in[1] - 1) * wn.s[1] + 1};
    char nm[GRAPH_MAX_NAME + 1];
    for (int i = 0; i < 2; i++)
        if (up[2 + i] != in[i]) {
            int32_t ids = ox_block(x, i ? ".spread_w" : ".spread_h", LS_DT_INT32, 1, &up[2 + i]);
            t = graph_gather(x->g, ox_name(x, i ? ".upw" : ".uph", nm, sizeof nm), t, ids, 2 + i);
        }
    int64_t b[GRAPH_MAX_RANK] = {0}, e[GRAPH_MAX_RANK] = {0};
    for (int i = 0; i < 2; i++) {
        int64_t span = wn.d[i] * (ks[i] - 1);
        b[2 + i] = span - wn.pb[i];
        e[2 + i] = span - wn.pe[i] + outpad[i];
    }
    t = oxo_pad(x, t, b, e, ".pad");
    int64_t wd[4] = {wv->dims[1] * g, c / g, ks[0], ks[1]};
    int32_t w = param_as(x, wv, t >= 0 ? graph_tensor(x->g, t)->dtype : LS_DT_FP32, 4, wd,
                         ".wflip");
    if (t < 0 || w < 0)
        return -1;
    struct graph_attrs at;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    at.dilation[0] = wn.d[0];
    at.dilation[1] = wn.d[1];
    at.groups = g;
    struct ox_val *bv = ox_in(x, 2);
    int32_t y = conv2d(x, t, w, &at, bv ? ".conv" : "");
    return ox_bind(x, 0, add_bias(x, y, bv, ""));
}

int oxo_pool(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int rank = shp(x, t)->rank;
    if (rank != 4 && rank != 3)
        return ox_fail(x, "only 1-D and 2-D pooling is supported (input rank %d)", rank);
    int64_t ks[4];
    int nk = ox_attr_ints(x, "kernel_shape", ks, 4);
    if (nk != rank - 2)
        return ox_fail(x, "kernel_shape must have %d entries", rank - 2);
    t = to_2d(x, t, ".2d");
    if (rank == 3)
        ks[1] = ks[0], ks[0] = 1;
    const struct graph_shape *s = shp(x, t);
    int64_t in[2] = {s->dims[2].size, s->dims[3].size}, sym[2];
    struct win w;
    if (window(x, in, ks, 0, rank - 2, &w))
        return -1;
    for (int i = 0; i < 2; i++) {
        w.k[i] = w.d[i] * (w.k[i] - 1) + 1;   /* dilated max pool: its span (docs) */
        if (ox_attr_i(x, "ceil_mode", 0)) {
            int64_t span = in[i] + w.pb[i] + w.pe[i] - w.k[i];
            int64_t o = (span + w.s[i] - 1) / w.s[i] + 1;
            if ((o - 1) * w.s[i] >= in[i] + w.pb[i])
                o--;
            int64_t extra = (o - 1) * w.s[i] + w.k[i] - (in[i] + w.pb[i] + w.pe[i]);
            w.pe[i] += extra > 0 ? extra : 0;
        }
    }
    t = pad_rest(x, t, &w, sym);
    struct graph_attrs at;
    int ranks[1] = {4};
    enum graph_op_kind kind = strstr(x->node->op_type, "Max") ? GRAPH_OP_POOL_MAX
                                                              : GRAPH_OP_POOL_AVG;
    graph_attrs_default(kind, ranks, 1, &at);
    for (int i = 0; i < 2; i++) {
        at.kernel[i] = w.k[i];
        at.stride[i] = w.s[i];
        at.pad[i] = sym[i];
        if (sym[i] >= w.k[i])
            return ox_fail(x, "padding %lld is not smaller than the kernel %lld",
                           (long long)sym[i], (long long)w.k[i]);
    }
    char nm[GRAPH_MAX_NAME + 1];
    /* N = C = 1: the IR's pool partitions N or C, so the channel is doubled and the copy
     * sliced away after (as the TF.js importer does); twice this op's work */
    int one = t >= 0 && shp(x, t)->dims[0].size == 1 && shp(x, t)->dims[1].size == 1;
    int32_t ins[1] = {t}, two[2] = {t, t};
    if (one && (ins[0] = graph_concat(x->g, ox_name(x, ".c2", nm, sizeof nm), 2, two, 1)) < 0)
        return -1;
    const char *sfx = one ? ".pool2" : rank == 3 ? ".pool" : "";
    int32_t y = t < 0 ? -1 : graph_op_infer(x->g, ox_name(x, sfx, nm, sizeof nm), kind, ins, 1,
                                            &at);
    if (one && y >= 0)
        y = graph_slice(x->g, ox_name(x, rank == 3 ? ".pool" : "", nm, sizeof nm), y, 1, 0, 1, 1);
    if (y >= 0 && x->node->n_output > 1) {   /* MaxPool's indices */
        const struct graph_shape *ys = shp(x, y);
        int64_t d[GRAPH_MAX_RANK];
        oxo_dims_of(ys, d);
        if (ox_bind_aux(x, 1, ONNX__TENSOR_PROTO__DATA_TYPE__INT64, ys->rank, d))
            return -1;
    }
    return bind_nd(x, y, rank);
}

int oxo_global_pool(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r = shp(x, t)->rank, axes[GRAPH_MAX_RANK];
    if (r < 3)
        return ox_fail(x, "input rank %d: needs [N,C,spatial...]", r);
    for (int i = 2; i < r; i++)
        axes[i - 2] = i;
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, graph_reduce(x->g, ox_name(x, "", nm, sizeof nm),
                                      strstr(x->node->op_type, "Max") ? GRAPH_OP_REDUCE_MAX
                                                                      : GRAPH_OP_REDUCE_MEAN,
                                      t, r - 2, axes, 1));
}

/* ---- normalization ---- */

int oxo_batchnorm(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    struct ox_val *sc = ox_in(x, 1), *bi = ox_in(x, 2);
    if (t < 0 || !sc || !bi)
        return t < 0 ? -1 : ox_fail(x, "scale and B are required");
    const struct graph_tensor *tt = graph_tensor(x->g, t);
    if (tt->shape.rank < 2)
        return ox_fail(x, "input rank %d: needs [N,C,...]", tt->shape.rank);
    int64_t c = tt->shape.dims[1].size;
    int32_t s = param_as(x, sc, tt->dtype, 1, &c, ".scale");
    int32_t b = param_as(x, bi, graph_tensor(x->g, t)->dtype, 1, &c, ".shift");
    char nm[GRAPH_MAX_NAME + 1];
    if (s < 0 || b < 0)
        return -1;
    for (int k = 1; k < 5; k++)   /* training mode: running mean and variance */
        if (ox_bind_aux(x, k, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, &c))
            return -1;
    return ox_bind(x, 0, graph_batchnorm(x->g, ox_name(x, "", nm, sizeof nm), t, s, b, 1));
}

/* LayerNormalization over axes axis..r-1: one layernorm over the merged trailing axes.
 * GroupNormalization (opset 18) is not taken (not in the list). */
int oxo_layernorm(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    struct ox_val *sc = ox_in(x, 1), *bi = ox_in(x, 2);
    if (t < 0)
        return -1;
    const struct graph_tensor *tt = graph_tensor(x->g, t);
    enum ls_dtype dt = tt->dtype;
    int r = tt->shape.rank;
    int64_t a = ox_attr_i(x, "axis", -1), d[GRAPH_MAX_RANK], m[GRAPH_MAX_RANK];
    if (a < -r || a >= r)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, r);
    if (a < 0)
        a += r;
    oxo_dims_of(&tt->shape, d);
    int64_t n = 1;
    for (int i = (int)a; i < r; i++)
        n *= d[i];
    memcpy(m, d, sizeof m);
    m[a] = n;
    int32_t u = oxo_reshape_to(x, t, (int)a + 1, m, ".merged");
    int32_t gm = sc ? param_as(x, sc, dt, 1, &n, ".gamma") : ox_block(x, ".gamma", dt, 1, &n);
    int32_t bt = bi ? param_as(x, bi, dt, 1, &n, ".beta") : ox_block(x, ".beta", dt, 1, &n);
    if (u < 0 || gm < 0 || bt < 0)
        return -1;
    char nm[GRAPH_MAX_NAME + 1];
    int64_t st[GRAPH_MAX_RANK];   /* Mean and InvStdDev: the normalized axes kept as 1 */
    memcpy(st, d, sizeof st);
    for (int i = (int)a; i < r; i++)
        st[i] = 1;
    for (int k = 1; k < 3; k++)
        if (ox_bind_aux(x, k, ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, r, st))
            return -1;
    int merged = (int)a != r - 1;
    int32_t y = graph_layernorm(x->g, ox_name(x, merged ? ".ln" : "", nm, sizeof nm), u, gm, bt,
                                -1);
    return ox_bind(x, 0, merged ? oxo_reshape_to(x, y, r, d, "") : y);
}

/* A per-channel parameter of InstanceNormalization must be 1-D of c elements: 0 or -1. */
static int check_channel_param(struct ox *x, const struct ox_val *v, const char *what,
                               int64_t c)
{
    if (!v)
        return ox_fail(x, "input '%s' is required", what), -1;
    if (v->rank == 1 && v->dims[0] == c)
        return 0;
    char sh[96] = "";
    size_t n = 0;
    for (int i = 0; i < v->rank && n < sizeof sh; i++)
        n += (size_t)snprintf(sh + n, sizeof sh - n, "%s%lld", i ? "," : "",
                              (long long)v->dims[i]);
    return ox_fail(x, "%s has shape [%s], expected [%lld] (the input's channels, axis 1)", what,
                   sh, (long long)c), -1;
}

/* 1 when v is a constant whose every element is known and equal to k. */
static int all_equal(const struct ox_val *v, double k)
{
    if (!v->konst || !v->vals)
        return 0;
    for (int64_t i = 0; i < ox_numel(v); i++)
        if (v->vals[i] != k)
            return 0;
    return 1;
}

/* InstanceNormalization of x [N, C, D1...]: mean and variance over D1... of each (n, c),
 * then scale[c] and B[c]. Lowered to a layernorm without parameters over the merged
 * spatial axes ([N, C, D1*D2...]) and a batchnorm on channel axis 1 for the affine part,
 * left out when scale is all ones and B all zeros (PyTorch's GroupNorm exports it so, on
 * [N, groups, C/groups*D...] with a reshape on either side). */
int oxo_instancenorm(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const struct graph_tensor *tt = graph_tensor(x->g, t);
    enum ls_dtype dt = tt->dtype;
    int r = tt->shape.rank;
    if (r < 3)
        return ox_fail(x, "input rank %d: needs [N,C,D1,...] (rank 3 or more)", r);
    int64_t d[GRAPH_MAX_RANK], m[3];
    oxo_dims_of(&tt->shape, d);
    struct ox_val *sv = ox_in(x, 1), *bv = ox_in(x, 2);
    if (check_channel_param(x, sv, "scale", d[1]) || check_channel_param(x, bv, "B", d[1]))
        return -1;
    int affine = !all_equal(sv, 1) || !all_equal(bv, 0);
    m[0] = d[0], m[1] = d[1], m[2] = ox_dims_numel(r - 2, d + 2);
    char nm[GRAPH_MAX_NAME + 1];
    int32_t u = oxo_reshape_to(x, t, 3, m, ".merged");
    int last = !affine && r == 3;   /* the layernorm is the node's output */
    int32_t n = u < 0 ? -1 : graph_layernorm(x->g, ox_name(x, last ? "" : ".norm", nm,
                                                           sizeof nm), u, -1, -1, -1);
    int32_t v = oxo_reshape_to(x, n, r, d, affine ? ".unmerged" : "");
    if (v < 0 || !affine)
        return ox_bind(x, 0, v);
    int32_t s = param_as(x, sv, dt, 1, &d[1], ".scale");
    int32_t b = s < 0 ? -1 : param_as(x, bv, dt, 1, &d[1], ".shift");
    return ox_bind(x, 0, b < 0 ? -1 : graph_batchnorm(x->g, ox_name(x, "", nm, sizeof nm), v,
                                                      s, b, 1));
}
