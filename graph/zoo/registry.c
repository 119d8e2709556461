/* graph/zoo: the named models (published hyperparameters), scaling and checks. */
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zb.h"

/* ---- stack presets ---- */

static void stack(struct zoo_stack *s, int64_t layers, int64_t hidden, int64_t heads,
                  int64_t kv_heads, int64_t head_dim, int64_t ffn)
{
    memset(s, 0, sizeof *s);
    s->layers = layers;
    s->hidden = hidden;
    s->heads = heads;
    s->kv_heads = kv_heads ? kv_heads : heads;
    s->head_dim = head_dim ? head_dim : hidden / heads;
    s->ffn = ffn;
}

/* BERT/BART: post-LN, GELU, biases */
static void post_ln(struct zoo_stack *s)
{
    s->norm = ZOO_LAYERNORM;
    s->norm_pos = ZOO_POST;
    s->act = ZOO_GELU;
    s->bias = 1;
}

/* GPT-2, ViT, Whisper, CLIP/SigLIP: pre-LN, GELU, biases */
static void pre_ln(struct zoo_stack *s)
{
    s->norm = ZOO_LAYERNORM;
    s->norm_pos = ZOO_PRE;
    s->act = ZOO_GELU;
    s->bias = 1;
}

/* LLaMA-style: pre-RMSNorm, SwiGLU, no biases, causal */
static void llama(struct zoo_stack *s)
{
    s->norm = ZOO_RMSNORM;
    s->norm_pos = ZOO_PRE;
    s->act = ZOO_SILU;
    s->gated = 1;
    s->causal = 1;
}

static void base(struct zoo_arch *a, const char *name, enum zoo_family f, enum ls_dtype dt,
                 int64_t seq, int64_t vocab)
{
    memset(a, 0, sizeof *a);
    snprintf(a->name, sizeof a->name, "%s", name);
    a->family = f;
    a->dtype = dt;
    a->batch = 1;
    a->seq = seq;
    a->vocab = vocab;
    a->channels = 3;
}

static void m_bert(struct zoo_arch *a, const char *name, int64_t l, int64_t h, int64_t nh,
                   int64_t ffn, int64_t vocab)
{
    base(a, name, ZOO_ENCODER, LS_DT_FP32, 128, vocab);
    a->pos = ZOO_POS_LEARNED;
    stack(&a->main, l, h, nh, 0, 0, ffn);
    post_ln(&a->main);
}

static void m_bert_base(struct zoo_arch *a) { m_bert(a, "bert-base", 12, 768, 12, 3072, 30522); }
static void m_bert_large(struct zoo_arch *a) { m_bert(a, "bert-large", 24, 1024, 16, 4096, 30522); }
static void m_albert_large(struct zoo_arch *a)
{
    m_bert(a, "albert-large", 24, 1024, 16, 4096, 30000);
    a->embed = 128;
    a->main.shared_weights = 1;
}
static void m_electra_large(struct zoo_arch *a)
{
    m_bert(a, "electra-large", 24, 1024, 16, 4096, 30522);
}
static void m_xlmr(struct zoo_arch *a) { m_bert(a, "xlm-roberta", 12, 768, 12, 3072, 250002); }

static void m_bart(struct zoo_arch *a, const char *name, int64_t enc, int64_t dec, int64_t h,
                   int64_t nh, int64_t ffn, int64_t vocab)
{
    base(a, name, ZOO_ENCDEC, LS_DT_FP32, 128, vocab);
    a->src_seq = 128;
    a->pos = ZOO_POS_LEARNED;
    a->tied_head = 1;
    stack(&a->main, enc, h, nh, 0, 0, ffn);
    post_ln(&a->main);
    stack(&a->aux, dec, h, nh, 0, 0, ffn);
    post_ln(&a->aux);
    a->aux.causal = 1;
}
static void m_bart_base(struct zoo_arch *a) { m_bart(a, "bart-base", 6, 6, 768, 12, 3072, 50265); }
static void m_distilbart(struct zoo_arch *a)
{
    m_bart(a, "distilbart", 12, 6, 1024, 16, 4096, 50264);
}

static void m_llm(struct zoo_arch *a, const char *name, int64_t l, int64_t h, int64_t nh,
                  int64_t kv, int64_t hd, int64_t ffn, int64_t vocab, int tied)
{
    base(a, name, ZOO_DECODER, LS_DT_BF16, 512, vocab);
    a->pos = ZOO_POS_ROTARY;
    a->tied_head = tied;
    stack(&a->main, l, h, nh, kv, hd, ffn);
    llama(&a->main);
}
static void m_olmo7b(struct zoo_arch *a)
{
    m_llm(a, "olmo-7b", 32, 4096, 32, 32, 0, 11008, 50304, 0);
    a->main.norm = ZOO_LAYERNORM_PLAIN;
}
static void m_qwen2(struct zoo_arch *a)
{
    m_llm(a, "qwen2", 28, 1536, 12, 2, 0, 8960, 151936, 1);
    a->main.qkv_bias = 1;
}
static void m_ministral(struct zoo_arch *a)
{
    m_llm(a, "ministral", 36, 4096, 32, 8, 128, 12288, 131072, 0);
}
static void m_gemma(struct zoo_arch *a)
{
    m_llm(a, "gemma", 26, 1152, 4, 1, 256, 6912, 256000, 1);
    a->main.act = ZOO_GELU;
}

static void moe(struct zoo_stack *s, int64_t experts, int64_t topk, int64_t effn)
{
    s->experts = experts;
    s->topk = topk;
    s->expert_ffn = effn;
}
static void m_olmoe(struct zoo_arch *a)
{
    m_llm(a, "olmoe", 16, 2048, 16, 16, 0, 1024, 50304, 0);
    moe(&a->main, 64, 8, 1024);
    a->main.qk_norm = ZOO_QKNORM_FULL;
}
static void m_granite_moe(struct zoo_arch *a)
{
    m_llm(a, "granite-moe", 32, 1536, 24, 8, 0, 512, 49155, 1);
    moe(&a->main, 40, 8, 512);
}
static void m_flexolmo(struct zoo_arch *a)
{
    m_llm(a, "flexolmo", 32, 4096, 32, 32, 0, 11008, 100352, 0);
    moe(&a->main, 7, 2, 11008);
    a->main.norm_pos = ZOO_REORDERED;
    a->main.qk_norm = ZOO_QKNORM_FULL;
}

static void m_whisper(struct zoo_arch *a, const char *name, int parts)
{
    base(a, name, ZOO_WHISPER, LS_DT_FP32, 448, 51865);
    a->whisper_parts = parts;
    a->src_seq = 1500;
    a->mels = 80;
    a->cond_dim = 512;
    a->pos = ZOO_POS_LEARNED;
    a->tied_head = 1;
    stack(&a->main, 6, 512, 8, 0, 0, 2048);
    pre_ln(&a->main);
    stack(&a->aux, 6, 512, 8, 0, 0, 2048);
    pre_ln(&a->aux);
    a->aux.causal = 1;
}
static void m_whisper_enc(struct zoo_arch *a) { m_whisper(a, "whisper-enc", 1); }
static void m_whisper_dec(struct zoo_arch *a) { m_whisper(a, "whisper-dec", 2); }

static void m_cnn(struct zoo_arch *a)
{
    base(a, "cnn", ZOO_CNN, LS_DT_FP32, 1, 1);
    a->main.layers = 5;
    a->image = 32;
    a->stem = 16;
    a->classes = 10;
}

static int resnet_depth(struct zoo_arch *a, int64_t depth)
{
    static const struct { int64_t depth, st[4]; int bottleneck; } t[] = {
        {18, {2, 2, 2, 2}, 0}, {34, {3, 4, 6, 3}, 0}, {50, {3, 4, 6, 3}, 1},
        {101, {3, 4, 23, 3}, 1}, {152, {3, 8, 36, 3}, 1}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        if (t[i].depth == depth) {
            int64_t mult = t[i].bottleneck ? 4 : 1;
            for (int s = 0; s < 4; s++) {
                a->stages[s] = t[i].st[s];
                a->widths[s] = a->stem * mult << s;
            }
            a->bottleneck = t[i].bottleneck;
            return 0;
        }
    return -1;
}
static void m_resnet50(struct zoo_arch *a)
{
    base(a, "resnet50", ZOO_RESNET, LS_DT_FP32, 1, 1);
    a->image = 224;
    a->stem = 64;
    a->classes = 1000;
    resnet_depth(a, 50);
}

static void m_vit_b16(struct zoo_arch *a)
{
    base(a, "vit-b16", ZOO_VIT, LS_DT_FP32, 1, 1);
    a->image = 224;
    a->patch = 16;
    a->classes = 1000;
    stack(&a->main, 12, 768, 12, 0, 0, 3072);
    pre_ln(&a->main);
}

static void m_perceiver(struct zoo_arch *a)
{
    base(a, "perceiver", ZOO_PERCEIVER, LS_DT_FP32, 2048, 262);
    a->latents = 256;
    stack(&a->main, 26, 1280, 8, 0, 0, 1280);
    pre_ln(&a->main);
    stack(&a->aux, 1, 768, 8, 0, 0, 768);    /* input width and cross-attention heads */
    pre_ln(&a->aux);
}

static void m_musicgen(struct zoo_arch *a)
{
    base(a, "musicgen", ZOO_MUSICGEN, LS_DT_FP32, 256, 2048);
    a->codebooks = 4;
    a->src_seq = 64;
    a->cond_dim = 768;
    a->pos = ZOO_POS_LEARNED;
    stack(&a->main, 24, 1024, 16, 0, 0, 4096);
    pre_ln(&a->main);
    a->main.bias = 0;
    a->main.causal = 1;
}

static void m_vlm(struct zoo_arch *a, const char *name, int64_t image, int64_t patch)
{
    base(a, name, ZOO_VLM, LS_DT_BF16, 64, 1);
    a->image = image;
    a->patch = patch;
}
static void m_paligemma(struct zoo_arch *a)
{
    m_vlm(a, "paligemma", 224, 14);
    a->vocab = 257216;
    a->pos = ZOO_POS_ROTARY;
    a->tied_head = 1;
    a->join = ZOO_JOIN_PROJECT;
    stack(&a->aux, 27, 1152, 16, 0, 0, 4304);
    pre_ln(&a->aux);
    stack(&a->main, 18, 2048, 8, 1, 256, 16384);
    llama(&a->main);
    a->main.act = ZOO_GELU;
}
static void m_qwen_vl(struct zoo_arch *a)
{
    m_vlm(a, "qwen-vl", 448, 14);
    a->vocab = 151936;
    a->pos = ZOO_POS_ROTARY;
    a->tied_head = 1;
    a->join = ZOO_JOIN_MERGE;
    a->merge = 2;
    stack(&a->aux, 32, 1280, 16, 0, 0, 5120);
    pre_ln(&a->aux);
    a->aux.fused_qkv = 1;
    stack(&a->main, 28, 1536, 12, 2, 0, 8960);
    llama(&a->main);
    a->main.qkv_bias = 1;
}
static void m_kosmos(struct zoo_arch *a)
{
    m_vlm(a, "kosmos", 224, 14);
    a->vocab = 65037;
    a->pos = ZOO_POS_LEARNED;
    a->tied_head = 1;
    a->join = ZOO_JOIN_RESAMPLE;
    a->resampler_queries = 64;
    stack(&a->aux, 24, 1024, 16, 0, 0, 4096);
    pre_ln(&a->aux);
    stack(&a->main, 24, 2048, 32, 0, 0, 8192);
    pre_ln(&a->main);
    a->main.causal = 1;
}

struct zoo_model {
    struct zoo_entry e;
    void (*fill)(struct zoo_arch *a);
};

static const struct zoo_model models[] = {
    {{"bert-base", "encoder", "google-bert/bert-base-uncased"}, m_bert_base},
    {{"bert-large", "encoder", "google-bert/bert-large-uncased"}, m_bert_large},
    {{"albert-large", "encoder", "albert/albert-large-v2 (shared layer weights)"},
     m_albert_large},
    {{"electra-large", "encoder", "google/electra-large-discriminator"}, m_electra_large},
    {{"xlm-roberta", "encoder", "FacebookAI/xlm-roberta-base"}, m_xlmr},
    {{"bart-base", "encoder-decoder", "facebook/bart-base"}, m_bart_base},
    {{"distilbart", "encoder-decoder", "sshleifer/distilbart-cnn-12-6"}, m_distilbart},
    {{"olmo-7b", "decoder", "allenai/OLMo-7B-hf"}, m_olmo7b},
    {{"qwen2", "decoder", "Qwen/Qwen2-1.5B"}, m_qwen2},
    {{"ministral", "decoder", "mistralai/Ministral-8B-Instruct-2410"}, m_ministral},
    {{"gemma", "decoder", "google/vaultgemma-1b (Gemma-style)"}, m_gemma},
    {{"whisper-enc", "audio", "openai/whisper-base (encoder)"}, m_whisper_enc},
    {{"whisper-dec", "audio", "openai/whisper-base (decoder)"}, m_whisper_dec},
    {{"cnn", "vision", "small 5-block conv-bn-relu CNN, 32x32 input (laysim)"}, m_cnn},
    {{"resnet50", "vision", "microsoft/resnet-50"}, m_resnet50},
    {{"vit-b16", "vision", "google/vit-base-patch16-224"}, m_vit_b16},
    {{"perceiver", "multimodal", "deepmind/language-perceiver"}, m_perceiver},
    {{"olmoe", "moe", "allenai/OLMoE-1B-7B-0924"}, m_olmoe},
    {{"granite-moe", "moe", "ibm-granite/granite-3.1-3b-a800m-instruct"}, m_granite_moe},
    {{"flexolmo", "moe", "allenai/FlexOlmo-7x7B-1T (class)"}, m_flexolmo},
    {{"musicgen", "audio", "facebook/musicgen-small (decoder)"}, m_musicgen},
    {{"paligemma", "multimodal", "google/paligemma-3b-pt-224"}, m_paligemma},
    {{"qwen-vl", "multimodal", "Qwen/Qwen2-VL-2B-Instruct"}, m_qwen_vl},
    {{"kosmos", "multimodal", "microsoft/kosmos-2-patch14-224"}, m_kosmos},
};
#define NMODELS (sizeof models / sizeof models[0])

size_t zoo_count(void)
{
    return NMODELS;
}

const struct zoo_entry *zoo_entry(size_t i)
{
    return i < NMODELS ? &models[i].e : NULL;
}

const char *zoo_family_name(enum zoo_family f)
{
    static const char *const names[ZOO_FAMILY_COUNT] = {
        "encoder", "encdec", "decoder", "whisper", "cnn", "resnet", "vit", "perceiver",
        "musicgen", "vlm"};
    return (unsigned)f < ZOO_FAMILY_COUNT ? names[f] : "?";
}

void zoo_opts_init(struct zoo_opts *o)
{
    memset(o, 0, sizeof *o);
    o->dtype = -1;
    o->autocast = GRAPH_AUTOCAST_MATMUL;
}

int zoo_arch_get(const char *name, struct zoo_arch *a, struct ls_error *err)
{
    for (size_t i = 0; i < NMODELS; i++)
        if (!strcmp(models[i].e.name, name)) {
            models[i].fill(a);
            return 0;
        }
    char list[600] = "";
    for (size_t i = 0; i < NMODELS; i++) {
        size_t n = strlen(list);
        snprintf(list + n, sizeof list - n, "%s%s", i ? " " : "", models[i].e.name);
    }
    return ls_error_msg(err, LS_ERR_INPUT, "unknown zoo model '%s' (known: %s)", name, list);
}

/* ---- scaling ---- */

static int scale_stack(struct zoo_stack *s, int64_t h, struct ls_error *err)
{
    if (s->hidden == h)
        return 0;
    if (h % s->head_dim)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "--hidden %lld is not a multiple of the head size %lld",
                            (long long)h, (long long)s->head_dim);
    int64_t heads = h / s->head_dim;
    int64_t kv = s->kv_heads * heads / s->heads;
    if (kv < 1)
        kv = 1;
    while (heads % kv)
        kv--;
    int64_t old = s->hidden;
    s->ffn = s->ffn * h / old > 0 ? s->ffn * h / old : 1;
    s->expert_ffn = s->expert_ffn * h / old > 0 ? s->expert_ffn * h / old : 1;
    s->shared_ffn = s->shared_ffn * h / old;
    s->heads = heads;
    s->kv_heads = kv;
    s->hidden = h;
    return 0;
}

/* 1 when the description has a causal decoder whose one-token step can be built. */
static int has_decoder(const struct zoo_arch *a)
{
    switch (a->family) {
    case ZOO_DECODER:
    case ZOO_ENCDEC:
    case ZOO_MUSICGEN:
    case ZOO_VLM:
        return 1;
    case ZOO_WHISPER:
        return (a->whisper_parts & 2) != 0;
    default:
        return 0;
    }
}

/* --decode N: one new token per sequence (seq 1) over a KV cache of N tokens. */
static int scale_decode(struct zoo_arch *a, const struct zoo_opts *o, struct ls_error *err)
{
    if (o->seq)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "--seq and --decode exclude each other: a decode step has one new "
                            "token per sequence and --decode N sets its KV cache length");
    if (o->decode < 2)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "--decode %lld: the KV cache holds the new token and at least one "
                            "earlier one, so N >= 2 (one token alone is the prefill --seq 1)",
                            (long long)o->decode);
    if (!has_decoder(a))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "--decode: '%s' (family %s) has no decoder, so no KV cache to step "
                            "over; decode steps need a decoder-only, MoE, encoder-decoder, "
                            "whisper decoder, musicgen or vision-language model",
                            a->name, zoo_family_name(a->family));
    a->decode = o->decode;
    a->seq = 1;
    return 0;
}

int zoo_arch_scale(struct zoo_arch *a, const struct zoo_opts *o, struct ls_error *err)
{
    if (!o)
        return 0;
    if (o->decode && scale_decode(a, o, err))
        return LS_ERR_INPUT;
    if (o->layers) {
        int64_t l = o->layers;
        switch (a->family) {
        case ZOO_ENCDEC:
        case ZOO_WHISPER:
            a->main.layers = a->aux.layers = l;
            break;
        case ZOO_VLM:
            a->main.layers = l;
            if (a->aux.layers > l)
                a->aux.layers = l;
            break;
        case ZOO_RESNET:
            if (resnet_depth(a, l))
                return ls_error_msg(err, LS_ERR_INPUT, "--layers: ResNet depth must be 18, 34, "
                                    "50, 101 or 152, not %lld", (long long)l);
            break;
        default:
            a->main.layers = l;
        }
    }
    if (o->seq) {
        if (a->family == ZOO_WHISPER && a->whisper_parts == 1)
            a->src_seq = o->seq;
        else
            a->seq = o->seq;
    }
    if (o->batch)
        a->batch = o->batch;
    if (o->image)
        a->image = o->image;
    if (o->dtype >= 0) {
        if (o->dtype >= LS_DT_COUNT || o->dtype == LS_DT_INT32 || o->dtype == LS_DT_INT8)
            return ls_error_msg(err, LS_ERR_INPUT, "--dtype must be a floating-point type");
        a->dtype = (enum ls_dtype)o->dtype;
    }
    if (o->hidden) {
        int64_t h = o->hidden;
        if (h < 1 || h > (1 << 20))
            return ls_error_msg(err, LS_ERR_INPUT, "--hidden %lld out of range 1..%d",
                                (long long)h, 1 << 20);
        switch (a->family) {
        case ZOO_CNN:
            a->stem = h;
            break;
        case ZOO_RESNET:
            for (int s = 0; s < 4; s++)
                a->widths[s] = a->widths[s] * h / a->stem;
            a->stem = h;
            break;
        case ZOO_ENCDEC:
        case ZOO_WHISPER:
            if (scale_stack(&a->main, h, err) || scale_stack(&a->aux, h, err))
                return LS_ERR_INPUT;
            a->cond_dim = h;
            break;
        default:
            if (a->embed == a->main.hidden)
                a->embed = h;
            if (scale_stack(&a->main, h, err))
                return LS_ERR_INPUT;
        }
    }
    return 0;
}

/* ---- building ---- */

int zoo_arch_build(const struct zoo_arch *a, struct graph **out, struct ls_error *err)
{
    *out = NULL;
    int rc = zoo_arch_check(a, err);
    if (rc)
        return rc;
    struct graph *g = graph_new(a->name[0] ? a->name : NULL);
    if (!g)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct zb z;
    zb_init(&z, g, a->dtype, a->batch);
    z.kv_len = a->decode;
    static int32_t (*const build[ZOO_FAMILY_COUNT])(struct zb *, const struct zoo_arch *) = {
        [ZOO_ENCODER] = zb_build_encoder,   [ZOO_ENCDEC] = zb_build_encdec,
        [ZOO_DECODER] = zb_build_decoder,   [ZOO_WHISPER] = zb_build_whisper,
        [ZOO_CNN] = zb_build_cnn,           [ZOO_RESNET] = zb_build_resnet,
        [ZOO_VIT] = zb_build_vit,           [ZOO_PERCEIVER] = zb_build_perceiver,
        [ZOO_MUSICGEN] = zb_build_musicgen, [ZOO_VLM] = zb_build_vlm};
    build[a->family](&z, a);
    graph_set_prefix(g, NULL);
    rc = graph_validate(g, err);
    if (rc) {
        graph_free(g);
        return rc;
    }
    *out = g;
    return 0;
}

int zoo_build(const char *name, const struct zoo_opts *opts, struct graph **out,
              struct ls_error *err)
{
    struct zoo_arch a;
    *out = NULL;
    int rc = zoo_arch_get(name, &a, err);
    if (!rc)
        rc = zoo_arch_scale(&a, opts, err);
    if (!rc)
        rc = zoo_arch_build(&a, out, err);
    return rc;
}
