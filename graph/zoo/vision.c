/* graph/zoo: vision families (small CNN, ResNet, ViT) and Perceiver. */
#include <stdio.h>

#include "graph/zoo/zb.h"

int32_t zb_build_cnn(struct zb *z, const struct zoo_arch *a)
{
    int64_t b = a->batch, side = a->image, c = a->stem;
    int32_t x = zb_input(z, "image", z->dt, GRAPH_DIMS(b, a->channels, side, side),
                         "batch,channels,height,width");
    for (int64_t i = 0; i < a->main.layers; i++) {
        char bn[32], pn[32];
        snprintf(bn, sizeof bn, "b%lld", (long long)i);
        snprintf(pn, sizeof pn, "b%lld.pool", (long long)i);
        x = zb_conv_bn(z, bn, x, c, 3, 1, 1, 1);
        if (side > 4) {
            x = graph_pool(z->g, pn, GRAPH_OP_POOL_MAX, x, 2, 2, 0);
            side /= 2;
        }
        if (c < 256)
            c *= 2;
    }
    int64_t ch = zb_dim(z, x, 1);
    x = graph_pool(z->g, "gap", GRAPH_OP_POOL_AVG, x, side, side, 0);
    x = graph_reshape(z->g, "flat", x, GRAPH_DIMS(b, ch), "batch,channels");
    x = zb_linear(z, "fc", x, a->classes, 1);
    return graph_output(z->g, graph_softmax(z->g, "probs", x, 1));
}

int32_t zb_build_resnet(struct zb *z, const struct zoo_arch *a)
{
    int64_t b = a->batch;
    int32_t x = zb_input(z, "image", z->dt, GRAPH_DIMS(b, a->channels, a->image, a->image),
                         "batch,channels,height,width");
    x = zb_conv_bn(z, "stem", x, a->stem, 7, 2, 3, 1);
    x = graph_pool(z->g, "stem.pool", GRAPH_OP_POOL_MAX, x, 3, 2, 1);
    int64_t cin = a->stem;
    for (int s = 0; s < 4; s++)
        for (int64_t k = 0; k < a->stages[s]; k++) {
            int64_t stride = (k == 0 && s > 0) ? 2 : 1, out = a->widths[s];
            zb_pushf(z, 0, "s%d.b%lld", s, (long long)k);
            int32_t y;
            if (a->bottleneck) {
                int64_t mid = out / 4;
                y = zb_conv_bn(z, "c1", x, mid, 1, 1, 0, 1);
                y = zb_conv_bn(z, "c2", y, mid, 3, stride, 1, 1);
                y = zb_conv_bn(z, "c3", y, out, 1, 1, 0, 0);
            } else {
                y = zb_conv_bn(z, "c1", x, out, 3, stride, 1, 1);
                y = zb_conv_bn(z, "c2", y, out, 3, 1, 1, 0);
            }
            int32_t sc = x;
            if (stride != 1 || cin != out)
                sc = zb_conv_bn(z, "down", x, out, 1, stride, 0, 0);
            x = graph_unary(z->g, "relu", GRAPH_OP_RELU, zb_add(z, "add", y, sc));
            zb_pop(z);
            cin = out;
        }
    int64_t side = zb_dim(z, x, 2);
    x = graph_pool(z->g, "gap", GRAPH_OP_POOL_AVG, x, side, side, 0);
    x = graph_reshape(z->g, "flat", x, GRAPH_DIMS(b, cin), "batch,channels");
    return graph_output(z->g, zb_linear(z, "fc", x, a->classes, 1));
}

int32_t zb_patch_embed(struct zb *z, int32_t img, int64_t patch, int64_t width)
{
    int64_t b = zb_dim(z, img, 0), n = zb_dim(z, img, 2) / patch;
    int32_t x = zb_conv(z, "patch", img, width, patch, patch, patch, patch, 0, 0, 1);
    x = graph_reshape(z->g, "flat", x, GRAPH_DIMS(b, width, n * n), "batch,hidden,seq");
    return graph_transpose(z->g, "tokens", x, (const int[]){0, 2, 1});
}

int32_t zb_build_vit(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *s = &a->main;
    int64_t b = a->batch, h = s->hidden, n = (a->image / a->patch) * (a->image / a->patch);
    int32_t img = zb_input(z, "image", z->dt, GRAPH_DIMS(b, a->channels, a->image, a->image),
                           "batch,channels,height,width");
    zb_push(z, "embed", 0);
    int32_t x = zb_patch_embed(z, img, a->patch, h);
    int32_t cls = zb_weight(z, "cls", GRAPH_DIMS(b, 1, h), "batch,seq,hidden");
    x = graph_concat(z->g, "cat", 2, (const int32_t[]){cls, x}, 1);
    x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(n + 1, h), "seq,hidden"));
    zb_pop(z);
    x = zb_stack(z, "enc", x, -1, s, 0, 1);
    zb_push(z, "head", 0);
    x = graph_slice(z->g, "cls", x, 1, 0, 1, 1);
    x = graph_reshape(z->g, "flat", x, GRAPH_DIMS(b, h), "batch,hidden");
    x = zb_linear(z, "fc", x, a->classes, 1);
    zb_pop(z);
    return graph_output(z->g, x);
}

/* A Perceiver cross-attention block: q = norm(query), kv = norm(mem), attention with
 * `heads` heads over the query width, query residual, then an MLP with residual. */
static int32_t perceiver_cross(struct zb *z, const char *name, int32_t query, int32_t mem,
                               const struct zoo_stack *base, int64_t heads, int residual)
{
    struct zoo_stack s = *base;
    int64_t w = zb_dim(z, query, -1);
    s.heads = s.kv_heads = heads;
    s.head_dim = w / heads;
    s.qk_norm = ZOO_QKNORM_NONE;
    s.fused_qkv = 0;
    zb_push(z, name, 0);
    int32_t q = zb_norm(z, "q_norm", query, s.norm);
    int32_t kv = zb_norm(z, "kv_norm", mem, s.norm);
    int32_t y = zb_attention(z, "attn", q, kv, &s, w, 0, 0);
    if (residual)
        y = zb_add(z, "attn_add", query, y);
    int32_t f = zb_ffn(z, "ffn", zb_norm(z, "ffn_norm", y, s.norm), w, s.act, 0, s.bias);
    y = zb_add(z, "ffn_add", y, f);
    zb_pop(z);
    return y;
}

int32_t zb_build_perceiver(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *s = &a->main;
    int64_t b = a->batch, sq = a->seq, din = a->aux.hidden;
    int32_t table = -1;
    int32_t ids = zb_input(z, "ids", LS_DT_INT32, GRAPH_DIMS(b, sq), "batch,seq");
    zb_push(z, "embed", 0);
    int32_t x = zb_embed(z, "word", ids, a->vocab, din, &table);
    x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(sq, din), "seq,hidden"));
    zb_pop(z);
    int32_t lat = zb_weight(z, "latents", GRAPH_DIMS(b, a->latents, s->hidden),
                            "batch,latent,hidden");
    lat = perceiver_cross(z, "encoder", lat, x, s, a->aux.heads, 1);
    lat = zb_stack(z, "latent", lat, -1, s, 0, 0);
    int32_t qd = zb_weight(z, "decoder.queries", GRAPH_DIMS(b, sq, din), "batch,seq,hidden");
    int32_t y = perceiver_cross(z, "decoder", qd, lat, s, a->aux.heads, 0);
    zb_push(z, "head", 0);
    y = zb_tied_head(z, "mm", y, table);
    y = zb_add(z, "logits", y, zb_weight(z, "bias", GRAPH_DIMS(a->vocab), NULL));
    zb_pop(z);
    return graph_output(z->g, y);
}
