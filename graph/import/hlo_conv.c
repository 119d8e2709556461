/* graph/import: HLO convolution -> conv2d, reduce-window -> pool_max / pool_avg.
 * dim_labels name the axes of input, filter and output (`b01f_01io->b01f` is NHWC / HWIO /
 * NHWC); the IR's conv2d and pools are NCHW / OIHW, so input and filter are transposed to it
 * and the output back (no op when already so). */
#include <stdio.h>
#include <string.h>

#include "graph/import/hlo_int.h"

static int attr_int(struct hlo_ctx *c, const struct hlo_instr *in, const char *key, int64_t *v)
{
    const struct hlo_attr *a = hlo_attr_find(in, key);
    *v = 1;
    if (!a)
        return 0;
    *v = 0;
    for (int i = 0; i < a->val.n; i++) {
        if (a->val.s[i] < '0' || a->val.s[i] > '9' || *v > GRAPH_MAX_DIM)
            return hlo_fail(c, "%s= is not a positive integer", key);
        *v = *v * 10 + (a->val.s[i] - '0');
    }
    return *v >= 1 ? 0 : hlo_fail(c, "%s= is not a positive integer", key);
}

static int conv_attrs(struct hlo_ctx *c, const struct hlo_instr *in, struct hlo_window *w,
                      struct hlo_dimlabels *dl, int64_t *groups)
{
    const struct hlo_attr *wa = hlo_attr_find(in, "window"), *la = hlo_attr_find(in, "dim_labels");
    int64_t bg;
    if (!wa || !la)
        return hlo_fail(c, "window= and dim_labels= are required");
    if (hlo_attr_window(c->m, wa, w, c->err) || hlo_attr_dimlabels(c->m, la, dl, c->err) ||
        attr_int(c, in, "feature_group_count", groups) ||
        attr_int(c, in, "batch_group_count", &bg))
        return LS_ERR_INPUT;
    if (dl->rank != 4 || w->n != 2)
        return hlo_fail(c, "only 2-D convolutions (rank-4 operands, 2-D window) are supported");
    if (bg != 1)
        return hlo_fail(c, "batch_group_count other than 1 is not supported");
    if (w->ldil[0] != 1 || w->ldil[1] != 1)
        return hlo_fail(c, "lhs_dilate (a transposed convolution) is not supported");
    return 0;
}

int hlo_convolution(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                    struct hv *out)
{
    struct hlo_window w;
    struct hlo_dimlabels dl;
    struct graph_attrs at;
    if (in->nops != 2)
        return hlo_fail(c, "expected 2 operands, found %d", in->nops);
    if (conv_attrs(c, in, &w, &dl, &at.groups))
        return LS_ERR_INPUT;
    int px[4], pw[4], po[4], id = 1;
    for (int s = 0; s < 4; s++) {
        px[s] = dl.axes[0][s];
        pw[s] = dl.axes[1][s];
        po[dl.axes[2][s]] = s;
    }
    for (int j = 0; j < 4; j++)
        id &= po[j] == j;
    int32_t x, f;
    if (ops[1].kind == HV_CONST) {   /* a weight is made in OIHW: no transpose op */
        struct hv w4 = ops[1];
        for (int i = 0; i < 4; i++) {
            w4.cdims[i] = ops[1].cdims[pw[i]];
            w4.full.dims[i] = ops[1].full.dims[pw[i]];
        }
        f = hlo_tensor(c, &w4);
    } else if ((f = hlo_tensor(c, &ops[1])) >= 0) {
        f = hlo_transpose(c, f, pw, ".oihw");
    }
    if (f < 0 || (x = hlo_tensor_perm(c, &ops[0], px, ".nchw")) < 0)
        return LS_ERR_INPUT;
    int64_t groups = at.groups;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    at.groups = groups;
    for (int d = 0; d < 2; d++) {
        if (graph_tensor(c->g, f)->shape.dims[2 + d].size != w.size[d])
            return hlo_fail(c, "shape mismatch: window size %lld, the filter's spatial dim %d "
                            "is %lld", (long long)w.size[d], d,
                            (long long)graph_tensor(c->g, f)->shape.dims[2 + d].size);
        int64_t sym = w.lo[d] < w.hi[d] ? w.lo[d] : w.hi[d];
        if (sym < 0)
            sym = 0;
        if ((w.lo[d] != sym || w.hi[d] != sym) &&
            (x = hlo_pad_axis(c, x, 2 + d, w.lo[d] - sym, w.hi[d] - sym)) < 0)
            return LS_ERR_INPUT;
        at.stride[d] = w.stride[d];
        at.pad[d] = sym;
        at.dilation[d] = w.rdil[d];
    }
    int32_t xf[2] = {x, f};
    int32_t y = hlo_op(c, GRAPH_OP_CONV2D, xf, 2, &at, in->shape.dt, id ? "" : ".conv");
    return y < 0 ? LS_ERR_INPUT : hlo_set_perm(c, out, y, po, &in->shape);
}

/* Which axes of a rank-4 reduce-window are spatial (sp, ascending) and which are N, C
 * (nc): the windowed axes, filled up with the last unwindowed ones. */
static int pool_axes(struct hlo_ctx *c, const struct hlo_window *w, int *nc, int *sp)
{
    int win[4], nw = 0, un[4], nu = 0;
    for (int d = 0; d < 4; d++) {
        if (w->rdil[d] != 1 || w->ldil[d] != 1)
            return hlo_fail(c, "dilated windows are not supported");
        if (w->size[d] > 1 || w->stride[d] > 1 || w->lo[d] || w->hi[d])
            win[nw++] = d;
        else
            un[nu++] = d;
    }
    if (nw > 2)
        return hlo_fail(c, "a window over %d dims; only 2-D pooling is supported", nw);
    int ns = 0, taken[4] = {0};
    for (int i = 0; i < nw; i++)
        taken[win[i]] = 1;
    for (int i = nu - 1; i >= 0 && nw + ns < 2; i--, ns++)
        taken[un[i]] = 1;
    for (int d = 0, a = 0, b = 0; d < 4; d++) {
        if (taken[d])
            sp[a++] = d;
        else
            nc[b++] = d;
    }
    return 0;
}

int hlo_reduce_window(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                      struct hv *out)
{
    const struct hlo_attr *wa = hlo_attr_find(in, "window"), *fa = hlo_attr_find(in, "to_apply");
    struct hlo_window w;
    int comp, nc[2], sp[2];
    if (in->nops != 2 || in->shape.tuple || in->shape.rank != 4)
        return hlo_fail(c, "only a reduce-window of one rank-4 operand and one init value is "
                        "supported");
    if (!wa || !fa)
        return hlo_fail(c, "window= and to_apply= are required");
    if (hlo_attr_window(c->m, wa, &w, c->err) ||
        hlo_attr_comp(c->m, fa, (int)(c->comp - c->m->comps), &comp, c->err))
        return LS_ERR_INPUT;
    if (w.n != 4)
        return hlo_fail(c, "window has %d dims, the operand 4", w.n);
    const struct hlo_comp *f = &c->m->comps[comp];
    const struct hlo_span *op = &f->ins[f->root].opcode;
    enum graph_op_kind k = hlo_span_is(op, "maximum") ? GRAPH_OP_POOL_MAX
                           : hlo_span_is(op, "add")   ? GRAPH_OP_POOL_AVG : GRAPH_OP_COUNT;
    if (k == GRAPH_OP_COUNT)
        return hlo_fail(c, "to_apply computation '%.*s' computes %.*s; only maximum and add "
                        "windows are supported", f->name.n, f->name.s, op->n, op->s);
    if (pool_axes(c, &w, nc, sp))
        return LS_ERR_INPUT;
    int perm[4] = {nc[0], nc[1], sp[0], sp[1]}, back[4], id = 1;
    for (int j = 0; j < 4; j++) {
        back[perm[j]] = j;
        id &= perm[j] == j;
    }
    int32_t x = hlo_tensor_perm(c, &ops[0], perm, ".nchw");
    if (x < 0)
        return LS_ERR_INPUT;
    struct graph_attrs at;
    int rank = 4;
    graph_attrs_default(k, &rank, 1, &at);
    for (int i = 0; i < 2; i++) {
        int d = sp[i];
        int64_t sym = w.lo[d] < w.hi[d] ? w.lo[d] : w.hi[d];
        sym = sym < 0 ? 0 : sym;
        if ((w.lo[d] != sym || w.hi[d] != sym) &&
            (x = hlo_pad_axis(c, x, 2 + i, w.lo[d] - sym, w.hi[d] - sym)) < 0)
            return LS_ERR_INPUT;
        at.kernel[i] = w.size[d];
        at.stride[i] = w.stride[d];
        at.pad[i] = sym;
    }
    int32_t y = hlo_op(c, k, &x, 1, &at, in->shape.dt, id ? "" : ".pool");
    return y < 0 ? LS_ERR_INPUT : hlo_set_perm(c, out, y, back, &in->shape);
}
