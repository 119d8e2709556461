/* graph/zoo: hyperparameter checks (positive sizes, divisibility), with messages that name
 * the HuggingFace field. */
#include "graph/zoo/zb.h"

#define LIM_DIM (1LL << 20)

static int chk(struct ls_error *err, const char *pfx, const char *field, int64_t v, int64_t lo,
               int64_t hi)
{
    if (v < lo || v > hi)
        return ls_error_msg(err, LS_ERR_INPUT, "%s%s = %lld is out of range %lld..%lld", pfx,
                            field, (long long)v, (long long)lo, (long long)hi);
    return 0;
}

static int check_stack(const struct zoo_stack *s, const char *p, int rotary,
                       struct ls_error *err)
{
    if (chk(err, p, "num_hidden_layers", s->layers, 1, 4096) ||
        chk(err, p, "hidden_size", s->hidden, 1, LIM_DIM) ||
        chk(err, p, "num_attention_heads", s->heads, 1, 4096) ||
        chk(err, p, "num_key_value_heads", s->kv_heads, 1, s->heads) ||
        chk(err, p, "head_dim", s->head_dim, 1, 65536) ||
        chk(err, p, "intermediate_size", s->ffn, 1, LIM_DIM))
        return LS_ERR_INPUT;
    if (s->heads % s->kv_heads)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "%snum_attention_heads (%lld) is not a multiple of "
                            "%snum_key_value_heads (%lld)", p, (long long)s->heads, p,
                            (long long)s->kv_heads);
    if (s->heads / s->kv_heads > 256)
        return ls_error_msg(err, LS_ERR_INPUT, "%smore than 256 query heads per KV head", p);
    if (rotary && s->head_dim % 2)
        return ls_error_msg(err, LS_ERR_INPUT, "%shead_dim (%lld) must be even for rotary "
                            "embeddings", p, (long long)s->head_dim);
    if (s->experts) {
        if (chk(err, p, "num_experts", s->experts, 1, 1024) ||
            chk(err, p, "num_experts_per_tok", s->topk, 1, s->experts) ||
            chk(err, p, "moe_intermediate_size", s->expert_ffn, 1, LIM_DIM) ||
            chk(err, p, "shared_expert_intermediate_size", s->shared_ffn, 0, LIM_DIM))
            return LS_ERR_INPUT;
    }
    return 0;
}

int zoo_arch_check(const struct zoo_arch *a, struct ls_error *err)
{
    const char *mp = "", *ap = "decoder.";
    if (a->family == ZOO_VLM) {
        mp = "text_config.";
        ap = "vision_config.";
    }
    if ((unsigned)a->family >= ZOO_FAMILY_COUNT)
        return ls_error_msg(err, LS_ERR_INPUT, "unknown model family %d", (int)a->family);
    if (chk(err, "", "batch", a->batch, 1, 1 << 16) ||
        chk(err, "", "seq", a->seq, 1, LIM_DIM) ||
        chk(err, "", "vocab_size", a->vocab, 1, 1 << 24) ||
        (a->decode && chk(err, "", "decode", a->decode, 2, LIM_DIM)))
        return LS_ERR_INPUT;
    if ((unsigned)a->dtype >= LS_DT_COUNT)
        return ls_error_msg(err, LS_ERR_INPUT, "bad dtype %d", (int)a->dtype);
    int rot = a->pos == ZOO_POS_ROTARY;
    switch (a->family) {
    case ZOO_CNN:
        return chk(err, "", "num_blocks", a->main.layers, 1, 64) ||
               chk(err, "", "image_size", a->image, 1, 1 << 14) ||
               chk(err, "", "hidden_size", a->stem, 1, LIM_DIM) ||
               chk(err, "", "num_labels", a->classes, 1, 1 << 20)
                   ? LS_ERR_INPUT : 0;
    case ZOO_RESNET:
        for (int s = 0; s < 4; s++)
            if (chk(err, "", "depths[i]", a->stages[s], 0, 1024) ||
                chk(err, "", "hidden_sizes[i]", a->widths[s], 4, LIM_DIM))
                return LS_ERR_INPUT;
        return chk(err, "", "image_size", a->image, 32, 1 << 14) ||
               chk(err, "", "embedding_size", a->stem, 1, LIM_DIM) ||
               chk(err, "", "num_labels", a->classes, 1, 1 << 20)
                   ? LS_ERR_INPUT : 0;
    case ZOO_ENCDEC:
    case ZOO_WHISPER:
        if (check_stack(&a->main, mp, 0, err) || check_stack(&a->aux, ap, 0, err) ||
            chk(err, "", "source_seq", a->src_seq, 1, LIM_DIM))
            return LS_ERR_INPUT;
        if (a->main.hidden != a->aux.hidden)
            return ls_error_msg(err, LS_ERR_INPUT, "encoder and decoder widths differ");
        if (a->family == ZOO_WHISPER &&
            (chk(err, "", "num_mel_bins", a->mels, 1, 4096) ||
             chk(err, "", "whisper_parts", a->whisper_parts, 1, 3)))
            return LS_ERR_INPUT;
        if (a->family == ZOO_WHISPER && a->whisper_parts == 2 &&
            a->cond_dim != a->main.hidden)
            return ls_error_msg(err, LS_ERR_INPUT, "whisper: memory width differs");
        return 0;
    case ZOO_VLM:
        if (check_stack(&a->aux, ap, 0, err) ||
            chk(err, ap, "patch_size", a->patch, 1, 1 << 12) ||
            chk(err, ap, "image_size", a->image, a->patch, 1 << 14))
            return LS_ERR_INPUT;
        if (a->image % a->patch)
            return ls_error_msg(err, LS_ERR_INPUT, "%simage_size (%lld) is not a multiple of "
                                "patch_size (%lld)", ap, (long long)a->image,
                                (long long)a->patch);
        if (a->join == ZOO_JOIN_MERGE &&
            (a->merge < 1 || (a->image / a->patch) % a->merge))
            return ls_error_msg(err, LS_ERR_INPUT, "%sspatial_merge_size (%lld) must divide the "
                                "patch grid (%lld)", ap, (long long)a->merge,
                                (long long)(a->image / a->patch));
        if (a->join == ZOO_JOIN_RESAMPLE &&
            (chk(err, "", "latent_query_num", a->resampler_queries, 1, 1 << 16) ||
             a->main.hidden % a->main.heads))
            return ls_error_msg(err, LS_ERR_INPUT, "resampler: bad query count or width");
        return check_stack(&a->main, mp, rot, err);
    case ZOO_VIT:
        if (chk(err, "", "patch_size", a->patch, 1, 1 << 12) ||
            chk(err, "", "image_size", a->image, a->patch, 1 << 14) ||
            chk(err, "", "num_labels", a->classes, 1, 1 << 20))
            return LS_ERR_INPUT;
        if (a->image % a->patch)
            return ls_error_msg(err, LS_ERR_INPUT, "image_size (%lld) is not a multiple of "
                                "patch_size (%lld)", (long long)a->image, (long long)a->patch);
        return check_stack(&a->main, mp, 0, err);
    case ZOO_PERCEIVER:
        if (chk(err, "", "num_latents", a->latents, 1, LIM_DIM) ||
            chk(err, "", "d_model", a->aux.hidden, 1, LIM_DIM) ||
            chk(err, "", "num_cross_attention_heads", a->aux.heads, 1, 4096))
            return LS_ERR_INPUT;
        if (a->main.hidden % a->aux.heads || a->aux.hidden % a->aux.heads)
            return ls_error_msg(err, LS_ERR_INPUT, "d_latents (%lld) and d_model (%lld) must be "
                                "multiples of num_cross_attention_heads (%lld)",
                                (long long)a->main.hidden, (long long)a->aux.hidden,
                                (long long)a->aux.heads);
        return check_stack(&a->main, mp, 0, err);
    case ZOO_MUSICGEN:
        if (chk(err, "", "num_codebooks", a->codebooks, 1, 64) ||
            chk(err, "", "conditioning_seq", a->src_seq, 1, LIM_DIM) ||
            chk(err, "", "text_encoder.d_model", a->cond_dim, 1, LIM_DIM))
            return LS_ERR_INPUT;
        return check_stack(&a->main, mp, 0, err);
    case ZOO_ENCODER:
        if (chk(err, "", "embedding_size", a->embed, 0, LIM_DIM))
            return LS_ERR_INPUT;
        return check_stack(&a->main, mp, 0, err);
    default:
        return check_stack(&a->main, mp, rot, err);
    }
}
