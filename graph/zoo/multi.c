/* graph/zoo: audio and multimodal families: Whisper (conv stem + encoder, decoder with
 * cross-attention) and vision-language models (vision tower + join + language model). */
#include <stdio.h>

#include "graph/zoo/zb.h"

int32_t zb_build_whisper(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *e = &a->main, *d = &a->aux;
    int64_t b = a->batch, t = a->src_seq, h = e->hidden;
    int32_t mem = -1;
    if (a->decode) {   /* the encoder ran at prefill; cross K/V of its t frames are cached */
        mem = ZB_MEM_CACHED;
        z->mem_len = t;
    } else if (a->whisper_parts & 1) {
        /* log-mel frames [B, mels, 1, 2T]: the 1-D convolutions as conv2d over a unit height */
        int32_t mel = zb_input(z, "mel", z->dt, GRAPH_DIMS(b, a->mels, 1, 2 * t),
                               "batch,mels,,frames");
        zb_push(z, "stem", 0);
        int32_t x = zb_conv(z, "conv1", mel, h, 1, 3, 1, 1, 0, 1, 1);
        x = zb_act(z, "gelu1", x, ZOO_GELU);
        x = zb_conv(z, "conv2", x, h, 1, 3, 1, 2, 0, 1, 1);
        x = zb_act(z, "gelu2", x, ZOO_GELU);
        x = graph_reshape(z->g, "flat", x, GRAPH_DIMS(b, h, t), "batch,hidden,seq");
        x = graph_transpose(z->g, "tokens", x, (const int[]){0, 2, 1});
        x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(t, h), "seq,hidden"));
        zb_pop(z);
        mem = zb_stack(z, "enc", x, -1, e, 0, 1);
        if (!(a->whisper_parts & 2))
            return graph_output(z->g, mem);
    } else {
        mem = zb_input(z, "encoder_out", z->dt, GRAPH_DIMS(b, t, a->cond_dim),
                       "batch,seq,hidden");
    }
    int32_t table = -1;
    int32_t ids = zb_input(z, "ids", LS_DT_INT32, GRAPH_DIMS(b, a->seq), "batch,seq");
    zb_push(z, "embed", 0);
    int32_t y = zb_embed(z, "word", ids, a->vocab, d->hidden, &table);
    y = zb_add(z, "pos", y, zb_weight(z, "pos.table", GRAPH_DIMS(a->seq, d->hidden),
                                      "seq,hidden"));
    zb_pop(z);
    y = zb_stack(z, "dec", y, mem, d, 0, 1);
    return graph_output(z->g, zb_tied_head(z, "logits", y, table));
}

/* Image tokens [B,N,Hv] -> language-model tokens [B,N',Hd]. */
static int32_t vlm_join(struct zb *z, const struct zoo_arch *a, int32_t v)
{
    const struct zoo_stack *m = &a->main;
    int64_t b = a->batch, hv = a->aux.hidden, hd = m->hidden, n = a->image / a->patch;
    int32_t y = -1;
    switch (a->join) {
    case ZOO_JOIN_PROJECT:
        return zb_linear(z, "projector", v, hd, 1);
    case ZOO_JOIN_MERGE: {
        /* 2x2 (merge x merge) neighbouring patches concatenated, then a 2-layer MLP */
        int64_t mg = a->merge, g = n / mg;
        zb_push(z, "merger", 0);
        y = zb_norm(z, "norm", v, ZOO_LAYERNORM);
        y = graph_reshape(z->g, "grid", y, GRAPH_DIMS(b, g, mg, g, mg, hv), NULL);
        y = graph_transpose(z->g, "group", y, (const int[]){0, 1, 3, 2, 4, 5});
        y = graph_reshape(z->g, "cat", y, GRAPH_DIMS(b, g * g, mg * mg * hv), "batch,seq,");
        y = zb_act(z, "act", zb_linear(z, "fc1", y, mg * mg * hv, 1), ZOO_GELU);
        y = zb_linear(z, "fc2", y, hd, 1);
        zb_pop(z);
        return y;
    }
    case ZOO_JOIN_RESAMPLE: {
        /* latent queries attend over [projected image tokens ; queries] */
        struct zoo_stack s = *m;
        s.kv_heads = s.heads;
        s.head_dim = hd / s.heads;
        s.qk_norm = ZOO_QKNORM_NONE;
        s.fused_qkv = 0;
        s.bias = 1;
        zb_push(z, "resampler", 0);
        int32_t f = zb_linear(z, "proj", v, hd, 1);
        int32_t q = zb_weight(z, "queries", GRAPH_DIMS(b, a->resampler_queries, hd),
                              "batch,seq,hidden");
        int32_t kv = graph_concat(z->g, "kv", 2, (const int32_t[]){f, q}, 1);
        y = zb_attention(z, "attn", q, kv, &s, hd, 0, 0);
        zb_pop(z);
        return y;
    }
    }
    return graph_fail(z->g, LS_ERR_INTERNAL, "zoo: unknown join %d", (int)a->join);
}

/* The vision tower and join: image tokens [B,N',Hd] for the language model. */
static int32_t vlm_image_tokens(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *v = &a->aux;
    int64_t b = a->batch, n = (a->image / a->patch) * (a->image / a->patch);
    int32_t img = zb_input(z, "image", z->dt, GRAPH_DIMS(b, a->channels, a->image, a->image),
                           "batch,channels,height,width");
    zb_push(z, "vis_embed", 0);
    int32_t x = zb_patch_embed(z, img, a->patch, v->hidden);
    x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(n, v->hidden), "seq,hidden"));
    zb_pop(z);
    x = zb_stack(z, "vision", x, -1, v, 0, 1);
    return vlm_join(z, a, x);
}

/* A decode step has no image input: the image tokens sit in the language model's KV cache
 * with the text, so the step is the language model alone. */
int32_t zb_build_vlm(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *m = &a->main;
    int32_t im = a->decode ? -1 : vlm_image_tokens(z, a);
    int32_t table = -1;
    int32_t ids = zb_input(z, "ids", LS_DT_INT32, GRAPH_DIMS(a->batch, a->seq), "batch,seq");
    zb_push(z, "embed", 0);
    int32_t y = zb_embed(z, "word", ids, a->vocab, m->hidden, &table);
    if (im >= 0)
        y = graph_concat(z->g, "join", 2, (const int32_t[]){im, y}, 1);
    if (a->pos == ZOO_POS_LEARNED) {
        int64_t tot = zb_dim(z, y, 1);
        y = zb_add(z, "pos", y, zb_weight(z, "pos.table", GRAPH_DIMS(tot, m->hidden),
                                          "seq,hidden"));
    }
    zb_pop(z);
    y = zb_stack(z, "lm", y, -1, m, a->pos == ZOO_POS_ROTARY, 1);
    if (a->tied_head)
        y = zb_tied_head(z, "logits", y, table);
    else
        y = zb_linear(z, "logits", y, a->vocab, 0);
    return graph_output(z->g, y);
}
