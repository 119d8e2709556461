/* graph/import/onnx_conv3d: a 3-D Conv ([N,C,D,H,W], groups 1) as one conv2d with the same
 * multiply-adds: the depth (and any asymmetric H/W rest) padded explicitly, symmetric H/W
 * padding in the conv2d, per depth tap j the depths j*dd + d*sd sliced
 * (step sd), the depth moved into the batch, the kd taps concatenated on the channels, the
 * filter [O,C,kd,kh,kw] made [O,kd*C,kh,kw]; the output's depth moved back after. */
#include <stdio.h>
#include <string.h>

#include "onnx_int.h"
#include "onnx_ops.h"

struct c3 {
    int64_t k[3], s[3], d[3], pb[3], pe[3];
};

/* The kernel from the filter, strides, dilations and pads (3 entries each; auto_pad VALID or
 * NOTSET). 0 or an error. */
static int attrs3(struct ox *x, const struct graph_shape *ws, struct c3 *c)
{
    int64_t v[6];
    for (int i = 0; i < 3; i++) {
        c->k[i] = ws->dims[2 + i].size;
        c->s[i] = c->d[i] = 1;
        c->pb[i] = c->pe[i] = 0;
    }
    int n;
    if ((n = ox_attr_ints(x, "strides", v, 6)) == 3)
        memcpy(c->s, v, sizeof c->s);
    if ((n = ox_attr_ints(x, "dilations", v, 6)) == 3)
        memcpy(c->d, v, sizeof c->d);
    if ((n = ox_attr_ints(x, "pads", v, 6)) == 6) {
        memcpy(c->pb, v, sizeof c->pb);
        memcpy(c->pe, v + 3, sizeof c->pe);
    } else if (n >= 0) {
        return ox_fail(x, "pads has %d entries, expected 6", n);
    }
    char ap[32];
    if (ox_attr_s(x, "auto_pad", ap, sizeof ap) && strcmp(ap, "NOTSET") && strcmp(ap, "VALID"))
        return ox_fail(x, "auto_pad %s is not supported for 3-D convolutions", ap);
    for (int i = 0; i < 3; i++)
        if (c->k[i] < 1 || c->s[i] < 1 || c->d[i] < 1 || c->pb[i] < 0 || c->pe[i] < 0 ||
            c->s[i] > 1 << 20 || c->d[i] > 1 << 20 || c->pb[i] > 1 << 20 || c->pe[i] > 1 << 20)
            return ox_fail(x, "kernel, strides, dilations or pads out of range");
    return 0;
}

static const int swap12[5] = {0, 2, 1, 3, 4};

/* The input taps: [N*Do, kd*C, Hp, Wp]. */
static int32_t taps(struct ox *x, int32_t t, const struct c3 *c, int64_t od)
{
    const struct graph_shape s = graph_tensor(x->g, t)->shape;
    int64_t n = s.dims[0].size, ch = s.dims[1].size, h = s.dims[3].size, w = s.dims[4].size;
    int32_t parts[64];
    char nm[GRAPH_MAX_NAME + 1], sfx[32];
    for (int64_t j = 0; j < c->k[0]; j++) {
        int64_t b = j * c->d[0], e = b + (od - 1) * c->s[0] + 1, dims[4] = {n * od, ch, h, w};
        snprintf(sfx, sizeof sfx, ".tap%lld", (long long)j);
        int32_t sl = graph_slice(x->g, ox_name(x, sfx, nm, sizeof nm), t, 2, b, e, c->s[0]);
        snprintf(sfx, sizeof sfx, ".tap%lld.t", (long long)j);
        sl = sl < 0 ? -1 : graph_transpose(x->g, ox_name(x, sfx, nm, sizeof nm), sl, swap12);
        snprintf(sfx, sizeof sfx, ".tap%lld.b", (long long)j);
        parts[j] = sl < 0 ? -1 : oxo_reshape_to(x, sl, 4, dims, sfx);
        if (parts[j] < 0)
            return -1;
    }
    return c->k[0] == 1 ? parts[0]
                        : graph_concat(x->g, ox_name(x, ".taps", nm, sizeof nm), (int)c->k[0],
                                       parts, 1);
}

int oxo_conv3d(struct ox *x)
{
    int32_t t = oxo_req(x, 0), w = oxo_req(x, 1);
    if (t < 0 || w < 0)
        return -1;
    const struct graph_shape ts = graph_tensor(x->g, t)->shape, ws = graph_tensor(x->g, w)->shape;
    struct c3 c;
    if (ws.rank != 5 || ox_attr_i(x, "group", 1) != 1 || ws.dims[1].size != ts.dims[1].size)
        return ox_fail(x, "a 3-D convolution needs a filter [O,C,kd,kh,kw] and groups 1");
    if (attrs3(x, &ws, &c))
        return -1;
    if (c.k[0] > 64)
        return ox_fail(x, "depth kernel %lld (at most 64)", (long long)c.k[0]);
    int64_t sym[2], b[5] = {0, 0, c.pb[0], 0, 0}, e[5] = {0, 0, c.pe[0], 0, 0};
    for (int i = 0; i < 2; i++) {   /* symmetric H/W padding in the conv2d, the rest explicit */
        sym[i] = c.pb[i + 1] < c.pe[i + 1] ? c.pb[i + 1] : c.pe[i + 1];
        b[3 + i] = c.pb[i + 1] - sym[i];
        e[3 + i] = c.pe[i + 1] - sym[i];
    }
    int64_t dp = ts.dims[2].size + c.pb[0] + c.pe[0];
    int64_t od = (dp - c.d[0] * (c.k[0] - 1) - 1) / c.s[0] + 1;
    if (dp - c.d[0] * (c.k[0] - 1) < 1)
        return ox_fail(x, "depth %lld shorter than the dilated kernel", (long long)dp);
    if (od > GRAPH_MAX_DIM / ts.dims[0].size)
        return ox_fail(x, "batch %lld times depth %lld is too large", (long long)ts.dims[0].size,
                       (long long)od);
    int padded = memcmp(b, (int64_t[5]){0}, sizeof b) || memcmp(e, (int64_t[5]){0}, sizeof e);
    int32_t in = padded ? oxo_pad(x, t, b, e, ".pad") : t;
    int32_t tp = in < 0 ? -1 : taps(x, in, &c, od);
    int64_t o = ws.dims[0].size, wd[4] = {o, c.k[0] * ws.dims[1].size, c.k[1], c.k[2]};
    char nm[GRAPH_MAX_NAME + 1];
    int32_t wt = graph_transpose(x->g, ox_name(x, ".wt", nm, sizeof nm), w, swap12);
    wt = wt < 0 ? -1 : oxo_reshape_to(x, wt, 4, wd, ".w2d");
    if (tp < 0 || wt < 0)
        return -1;
    struct graph_attrs at;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    for (int i = 0; i < 2; i++) {
        at.stride[i] = c.s[i + 1];
        at.dilation[i] = c.d[i + 1];
        at.pad[i] = sym[i];
    }
    int32_t ins[2] = {tp, wt};
    int32_t y = graph_op_infer(x->g, ox_name(x, ".conv2d", nm, sizeof nm), GRAPH_OP_CONV2D, ins,
                               2, &at);
    if (y < 0)
        return -1;
    const struct graph_shape ys = graph_tensor(x->g, y)->shape;
    int64_t split[5] = {ts.dims[0].size, od, o, ys.dims[2].size, ys.dims[3].size};
    y = oxo_reshape_to(x, y, 5, split, ".split");
    struct ox_val *bv = ox_in(x, 2);
    y = y < 0 ? -1 : graph_transpose(x->g, ox_name(x, bv ? ".conv" : "", nm, sizeof nm), y,
                                     swap12);
    if (y < 0 || !bv)
        return ox_bind(x, 0, y);
    int64_t bd[4] = {o, 1, 1, 1};
    int32_t bt = oxo_reshape_to(x, ox_tensor(x, bv, graph_tensor(x->g, y)->dtype), 4, bd, ".bias");
    return ox_bind(x, 0, bt < 0 ? -1 : graph_binary(x->g, ox_name(x, "", nm, sizeof nm),
                                                    GRAPH_OP_ADD, y, bt));
}
