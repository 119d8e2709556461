/* graph/zoo: text families: encoder (BERT...), encoder-decoder (BART), decoder-only LLMs
 * (dense and MoE). */
#include <stdio.h>

#include "graph/zoo/zb.h"

int32_t zb_build_encoder(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *s = &a->main;
    int64_t b = a->batch, sq = a->seq, e = a->embed ? a->embed : s->hidden;
    int32_t ids = zb_input(z, "ids", LS_DT_INT32, GRAPH_DIMS(b, sq), "batch,seq");
    zb_push(z, "embed", 0);
    int32_t x = zb_embed(z, "word", ids, a->vocab, e, NULL);
    x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(sq, e), "seq,hidden"));
    x = zb_add(z, "type", x, zb_weight(z, "type.table", GRAPH_DIMS(e), "hidden"));
    x = zb_norm(z, "norm", x, s->norm);
    if (e != s->hidden)
        x = zb_linear(z, "proj", x, s->hidden, 1);
    zb_pop(z);
    x = zb_stack(z, "enc", x, -1, s, 0, s->norm_pos != ZOO_POST);
    return graph_output(z->g, x);
}

/* Token embedding (+ learned positions) (+ embedding norm) in scope `name`. */
static int32_t embed_tokens(struct zb *z, const char *name, int32_t ids, int32_t *table,
                            const struct zoo_arch *a, int64_t width, int learned_pos,
                            int norm)
{
    int64_t sq = zb_dim(z, ids, 1);
    zb_push(z, name, 0);
    int32_t x;
    if (*table < 0)
        x = zb_embed(z, "word", ids, a->vocab, width, table);
    else
        x = graph_gather(z->g, "word", *table, ids, 0);
    if (learned_pos)
        x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(sq, width), "seq,hidden"));
    if (norm)
        x = zb_norm(z, "norm", x, ZOO_LAYERNORM);
    zb_pop(z);
    return x;
}

static int32_t lm_head(struct zb *z, const struct zoo_arch *a, int32_t x, int32_t table)
{
    if (a->tied_head)
        return zb_tied_head(z, "logits", x, table);
    return zb_linear(z, "logits", x, a->vocab, 0);
}

/* Decode steps run the decoder only: the encoder ran once at prefill and each layer's
 * cross-attention reads its cached K/V of src_seq positions. */
int32_t zb_build_encdec(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *e = &a->main, *d = &a->aux;
    int32_t table = -1, mem = ZB_MEM_CACHED;
    if (a->decode) {
        z->mem_len = a->src_seq;
    } else {
        int32_t src = zb_input(z, "src_ids", LS_DT_INT32, GRAPH_DIMS(a->batch, a->src_seq),
                               "batch,seq");
        int32_t x = embed_tokens(z, "enc_embed", src, &table, a, e->hidden, 1, 1);
        mem = zb_stack(z, "enc", x, -1, e, 0, e->norm_pos != ZOO_POST);
    }
    int32_t tgt = zb_input(z, "ids", LS_DT_INT32, GRAPH_DIMS(a->batch, a->seq), "batch,seq");
    int32_t y = embed_tokens(z, "dec_embed", tgt, &table, a, d->hidden, 1, 1);
    y = zb_stack(z, "dec", y, mem, d, 0, d->norm_pos != ZOO_POST);
    return graph_output(z->g, lm_head(z, a, y, table));
}

int32_t zb_build_decoder(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *s = &a->main;
    int32_t table = -1;
    int32_t ids = zb_input(z, "ids", LS_DT_INT32, GRAPH_DIMS(a->batch, a->seq), "batch,seq");
    int32_t x = embed_tokens(z, "embed", ids, &table, a, s->hidden, a->pos == ZOO_POS_LEARNED, 0);
    x = zb_stack(z, "dec", x, -1, s, a->pos == ZOO_POS_ROTARY, 1);
    return graph_output(z->g, lm_head(z, a, x, table));
}

int32_t zb_build_musicgen(struct zb *z, const struct zoo_arch *a)
{
    const struct zoo_stack *s = &a->main;
    int64_t b = a->batch, sq = a->seq, h = s->hidden;
    int32_t x = -1;
    zb_push(z, "embed", 0);
    for (int64_t k = 0; k < a->codebooks; k++) {
        char in[32], en[32], sn[32];
        snprintf(in, sizeof in, "codes%lld", (long long)k);
        snprintf(en, sizeof en, "cb%lld", (long long)k);
        snprintf(sn, sizeof sn, "sum%lld", (long long)k);
        int32_t ids = zb_input(z, in, LS_DT_INT32, GRAPH_DIMS(b, sq), "batch,seq");
        int32_t y = zb_embed(z, en, ids, a->vocab, h, NULL);
        x = x < 0 ? y : zb_add(z, sn, x, y);
    }
    x = zb_add(z, "pos", x, zb_weight(z, "pos.table", GRAPH_DIMS(sq, h), "seq,hidden"));
    zb_pop(z);
    int32_t mem = ZB_MEM_CACHED;   /* decode: cross K/V of the conditioning are cached */
    if (a->decode) {
        z->mem_len = a->src_seq;
    } else {
        int32_t cond = zb_input(z, "cond", z->dt, GRAPH_DIMS(b, a->src_seq, a->cond_dim),
                                "batch,seq,hidden");
        mem = zb_linear(z, "enc_to_dec", cond, h, 1);
    }
    x = zb_stack(z, "dec", x, mem, s, 0, 1);
    int32_t r = -1;
    for (int64_t k = 0; k < a->codebooks; k++) {
        char hn[32];
        snprintf(hn, sizeof hn, "logits%lld", (long long)k);
        r = graph_output(z->g, zb_linear(z, hn, x, a->vocab, 0));
    }
    return r;
}
