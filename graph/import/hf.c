/* graph/import: HuggingFace config.json -> struct zoo_arch -> graph. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/hf.h"
#include "util/fileio.h"
#include "util/jsonpos.h"

/* Field reader with a sticky error naming the file, the field and its line:col. */
struct hf {
    const char *file;
    const char *text; /* the JSON text, to locate fields in */
    size_t len;
    struct ls_error *err;
    int rc;
};

static const char *json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

static void bad(struct hf *h, const char *pfx, const char *key, const char *fmt, const char *x)
{
    if (h->rc)
        return;
    char msg[300], path[256];
    snprintf(msg, sizeof msg, fmt, x);
    snprintf(path, sizeof path, "%s%s", pfx, key);
    int line = 0, col = 0;
    ls_json_locate(h->text, h->len, path, &line, &col);
    h->rc = ls_error_set(h->err, LS_ERR_INPUT, h->file, line, col, "field '%s': %s", path, msg);
}

/* Integer field in [lo, hi]; missing or null keeps *v. */
static void geti(struct hf *h, json_t *o, const char *pfx, const char *key, int64_t *v,
                 int64_t lo, int64_t hi)
{
    json_t *j = o ? json_object_get(o, key) : NULL;
    if (!j || json_is_null(j) || h->rc)
        return;
    if (!json_is_integer(j)) {
        bad(h, pfx, key, "expected an integer, got %s", json_kind(j));
        return;
    }
    json_int_t x = json_integer_value(j);
    if (x < lo || x > hi) {
        char r[96];
        snprintf(r, sizeof r, "%lld is out of range %lld..%lld", (long long)x, (long long)lo,
                 (long long)hi);
        bad(h, pfx, key, "%s", r);
        return;
    }
    *v = x;
}

static void getb(struct hf *h, json_t *o, const char *pfx, const char *key, int *v)
{
    json_t *j = o ? json_object_get(o, key) : NULL;
    if (!j || json_is_null(j) || h->rc)
        return;
    if (!json_is_boolean(j)) {
        bad(h, pfx, key, "expected true or false, got %s", json_kind(j));
        return;
    }
    *v = json_is_true(j);
}

/* String field; NULL when missing. */
static const char *gets(struct hf *h, json_t *o, const char *pfx, const char *key)
{
    json_t *j = o ? json_object_get(o, key) : NULL;
    if (!j || json_is_null(j) || h->rc)
        return NULL;
    if (!json_is_string(j)) {
        bad(h, pfx, key, "expected a string, got %s", json_kind(j));
        return NULL;
    }
    return json_string_value(j);
}

/* Sub-object; NULL when missing. */
static json_t *getobj(struct hf *h, json_t *o, const char *key)
{
    json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j) || h->rc)
        return NULL;
    if (!json_is_object(j)) {
        bad(h, "", key, "expected an object, got %s", json_kind(j));
        return NULL;
    }
    return j;
}

#define BIG (1LL << 24)

static void get_act(struct hf *h, json_t *o, const char *pfx, const char *key,
                    enum zoo_act *act)
{
    const char *s = gets(h, o, pfx, key);
    if (!s)
        return;
    if (!strcmp(s, "relu"))
        *act = ZOO_RELU;
    else if (!strcmp(s, "silu") || !strcmp(s, "swish"))
        *act = ZOO_SILU;
    else if (!strncmp(s, "gelu", 4) || !strcmp(s, "quick_gelu"))
        *act = ZOO_GELU;
    else
        bad(h, pfx, key, "unsupported activation '%s' (relu, silu, gelu*)", s);
}

static void get_dtype(struct hf *h, json_t *o, enum ls_dtype *dt)
{
    const char *s = gets(h, o, "", "torch_dtype");
    if (!s)
        return;
    if (!strcmp(s, "float32"))
        *dt = LS_DT_FP32;
    else if (!strcmp(s, "bfloat16"))
        *dt = LS_DT_BF16;
    else if (!strcmp(s, "float16"))
        *dt = LS_DT_FP16;
    else
        bad(h, "", "torch_dtype", "unsupported dtype '%s' (float32, bfloat16, float16)", s);
}

/* hidden_size / layers / heads / kv heads / head_dim / intermediate_size of an LLM stack. */
static void get_llm(struct hf *h, json_t *o, const char *p, struct zoo_stack *s, int keep_hd)
{
    geti(h, o, p, "hidden_size", &s->hidden, 1, BIG);
    geti(h, o, p, "num_hidden_layers", &s->layers, 1, 4096);
    geti(h, o, p, "num_attention_heads", &s->heads, 1, 4096);
    /* num_key_value_heads defaults to num_attention_heads when the file sets the latter */
    if (json_object_get(o, "num_attention_heads") || s->kv_heads > s->heads)
        s->kv_heads = s->heads;
    geti(h, o, p, "num_key_value_heads", &s->kv_heads, 1, 4096);
    if (!keep_hd)
        s->head_dim = s->hidden / s->heads > 0 ? s->hidden / s->heads : 1;
    geti(h, o, p, "head_dim", &s->head_dim, 1, 65536);
    geti(h, o, p, "intermediate_size", &s->ffn, 1, BIG);
    get_act(h, o, p, "hidden_act", &s->act);
    int ab = s->qkv_bias;
    getb(h, o, p, "attention_bias", &ab);
    s->qkv_bias = ab;
}

static void get_bert(struct hf *h, json_t *o, struct zoo_arch *a, int factorized)
{
    struct zoo_stack *s = &a->main;
    geti(h, o, "", "hidden_size", &s->hidden, 1, BIG);
    geti(h, o, "", "num_hidden_layers", &s->layers, 1, 4096);
    geti(h, o, "", "num_attention_heads", &s->heads, 1, 4096);
    geti(h, o, "", "intermediate_size", &s->ffn, 1, BIG);
    geti(h, o, "", "vocab_size", &a->vocab, 1, BIG);
    get_act(h, o, "", "hidden_act", &s->act);
    s->kv_heads = s->heads;
    s->head_dim = s->hidden / s->heads > 0 ? s->hidden / s->heads : 1;
    if (factorized)
        geti(h, o, "", "embedding_size", &a->embed, 1, BIG);
    if (s->hidden % s->heads && !h->rc)
        bad(h, "", "hidden_size", "%s", "must be a multiple of num_attention_heads");
}

static void get_moe(struct hf *h, json_t *o, struct zoo_stack *s, const char *experts_key,
                    const char *ffn_key)
{
    geti(h, o, "", experts_key, &s->experts, 1, 1024);
    geti(h, o, "", "num_experts_per_tok", &s->topk, 1, 1024);
    geti(h, o, "", ffn_key, &s->expert_ffn, 1, BIG);
    geti(h, o, "", "shared_expert_intermediate_size", &s->shared_ffn, 0, BIG);
}

static void get_encdec(struct hf *h, json_t *o, struct zoo_arch *a)
{
    struct zoo_stack *e = &a->main, *d = &a->aux;
    geti(h, o, "", "d_model", &e->hidden, 1, BIG);
    d->hidden = e->hidden;
    geti(h, o, "", "encoder_layers", &e->layers, 1, 4096);
    geti(h, o, "", "decoder_layers", &d->layers, 1, 4096);
    geti(h, o, "", "encoder_attention_heads", &e->heads, 1, 4096);
    geti(h, o, "", "decoder_attention_heads", &d->heads, 1, 4096);
    geti(h, o, "", "encoder_ffn_dim", &e->ffn, 1, BIG);
    geti(h, o, "", "decoder_ffn_dim", &d->ffn, 1, BIG);
    geti(h, o, "", "vocab_size", &a->vocab, 1, BIG);
    get_act(h, o, "", "activation_function", &e->act);
    d->act = e->act;
    e->kv_heads = e->heads;
    d->kv_heads = d->heads;
    e->head_dim = e->hidden / e->heads > 0 ? e->hidden / e->heads : 1;
    d->head_dim = d->hidden / d->heads > 0 ? d->hidden / d->heads : 1;
    if (!h->rc && (e->hidden % e->heads || d->hidden % d->heads))
        bad(h, "", "d_model", "%s", "must be a multiple of the attention head counts");
}

static void get_vision(struct hf *h, json_t *o, const char *p, struct zoo_arch *a,
                       struct zoo_stack *s)
{
    geti(h, o, p, "hidden_size", &s->hidden, 1, BIG);
    geti(h, o, p, "num_hidden_layers", &s->layers, 1, 4096);
    geti(h, o, p, "num_attention_heads", &s->heads, 1, 4096);
    geti(h, o, p, "intermediate_size", &s->ffn, 1, BIG);
    geti(h, o, p, "image_size", &a->image, 1, 1 << 14);
    geti(h, o, p, "patch_size", &a->patch, 1, 1 << 12);
    geti(h, o, p, "num_channels", &a->channels, 1, 4096);
    s->kv_heads = s->heads;
    s->head_dim = s->hidden / s->heads > 0 ? s->hidden / s->heads : 1;
    if (!h->rc && s->hidden % s->heads)
        bad(h, p, "hidden_size", "%s", "must be a multiple of num_attention_heads");
}

static void get_labels(struct hf *h, json_t *o, struct zoo_arch *a)
{
    json_t *l = json_object_get(o, "id2label");
    if (l && json_is_object(l) && json_object_size(l) > 0)
        a->classes = (int64_t)json_object_size(l);
    geti(h, o, "", "num_labels", &a->classes, 1, 1 << 20);
}

static void get_array4(struct hf *h, json_t *o, const char *key, int64_t *v, int64_t lo)
{
    json_t *j = json_object_get(o, key);
    if (!j || json_is_null(j) || h->rc)
        return;
    if (!json_is_array(j) || json_array_size(j) != 4) {
        bad(h, "", key, "expected an array of 4 integers, got %s", json_kind(j));
        return;
    }
    for (size_t i = 0; i < 4; i++) {
        json_t *x = json_array_get(j, i);
        if (!json_is_integer(x) || json_integer_value(x) < lo || json_integer_value(x) > BIG) {
            char k[64];
            snprintf(k, sizeof k, "%s[%zu]", key, i);
            bad(h, "", k, "expected an integer >= %s", lo ? "1" : "0");
            return;
        }
        v[i] = json_integer_value(x);
    }
}

/* ---- one function per group of model_types ---- */

enum hf_kind {
    K_BERT, K_ALBERT, K_ELECTRA, K_ROBERTA, K_BART, K_GPT2, K_LLAMA, K_QWEN2, K_QWEN3,
    K_GEMMA, K_GEMMA2, K_GEMMA3, K_OLMO, K_OLMO2, K_OLMOE, K_MIXTRAL, K_QWEN2MOE, K_WHISPER,
    K_VIT, K_RESNET, K_PERCEIVER, K_MUSICGEN, K_MUSICGEN_DEC, K_PALIGEMMA
};

static const struct {
    const char *type, *base;
    enum hf_kind kind;
} types[] = {
    {"bert", "bert-base", K_BERT},         {"albert", "albert-large", K_ALBERT},
    {"electra", "electra-large", K_ELECTRA}, {"roberta", "xlm-roberta", K_ROBERTA},
    {"xlm-roberta", "xlm-roberta", K_ROBERTA}, {"bart", "bart-base", K_BART},
    {"gpt2", "qwen2", K_GPT2},             {"llama", "ministral", K_LLAMA},
    {"mistral", "ministral", K_LLAMA},     {"ministral3", "ministral", K_LLAMA},
    {"qwen2", "qwen2", K_QWEN2},
    {"qwen3", "qwen2", K_QWEN3},           {"gemma", "gemma", K_GEMMA},
    {"gemma2", "gemma", K_GEMMA2},         {"gemma3_text", "gemma", K_GEMMA3},
    {"olmo", "olmo-7b", K_OLMO},           {"olmo2", "olmo-7b", K_OLMO2},
    {"olmoe", "olmoe", K_OLMOE},           {"mixtral", "ministral", K_MIXTRAL},
    {"qwen2_moe", "qwen2", K_QWEN2MOE},    {"whisper", "whisper-enc", K_WHISPER},
    {"vit", "vit-b16", K_VIT},             {"resnet", "resnet50", K_RESNET},
    {"perceiver", "perceiver", K_PERCEIVER}, {"musicgen", "musicgen", K_MUSICGEN},
    {"musicgen_melody", "musicgen", K_MUSICGEN},
    {"musicgen_melody_decoder", "musicgen", K_MUSICGEN_DEC},
    {"paligemma", "paligemma", K_PALIGEMMA},
};
#define NTYPES (sizeof types / sizeof types[0])

const char *hf_supported_types(void)
{
    return "bert albert electra roberta xlm-roberta bart gpt2 llama mistral ministral3 qwen2 "
           "qwen3 gemma gemma2 gemma3_text olmo olmo2 olmoe mixtral qwen2_moe whisper vit resnet "
           "perceiver musicgen musicgen_melody musicgen_melody_decoder paligemma";
}

static void fill_decoder(struct hf *h, json_t *o, struct zoo_arch *a, enum hf_kind k)
{
    struct zoo_stack *s = &a->main;
    int gemma = k == K_GEMMA || k == K_GEMMA2 || k == K_GEMMA3;
    switch (k) {
    case K_QWEN3:
        s->qkv_bias = 0;
        s->qk_norm = ZOO_QKNORM_HEAD;
        break;
    case K_GEMMA2:
        s->norm_pos = ZOO_SANDWICH;
        break;
    case K_GEMMA3:
        s->norm_pos = ZOO_SANDWICH;
        s->qk_norm = ZOO_QKNORM_HEAD;
        break;
    case K_OLMO2:
        s->norm = ZOO_RMSNORM;
        s->norm_pos = ZOO_REORDERED;
        s->qk_norm = ZOO_QKNORM_FULL;
        break;
    case K_MIXTRAL:
        s->experts = 8;
        s->topk = 2;
        s->expert_ffn = 14336;
        break;
    case K_QWEN2MOE:
        s->experts = 60;
        s->topk = 4;
        s->expert_ffn = 1408;
        s->shared_ffn = 5632;
        break;
    default:
        break;
    }
    get_llm(h, o, "", s, gemma);
    geti(h, o, "", "vocab_size", &a->vocab, 1, BIG);
    getb(h, o, "", "tie_word_embeddings", &a->tied_head);
    if (k == K_OLMOE)
        get_moe(h, o, s, "num_experts", "intermediate_size");
    if (k == K_MIXTRAL)
        get_moe(h, o, s, "num_local_experts", "intermediate_size");
    if (k == K_QWEN2MOE)
        get_moe(h, o, s, "num_experts", "moe_intermediate_size");
}

static void fill_gpt2(struct hf *h, json_t *o, struct zoo_arch *a)
{
    struct zoo_stack *s = &a->main;
    a->pos = ZOO_POS_LEARNED;
    a->tied_head = 1;
    a->vocab = 50257;
    s->layers = 12;
    s->hidden = 768;
    s->heads = 12;
    s->norm = ZOO_LAYERNORM;
    s->norm_pos = ZOO_PRE;
    s->act = ZOO_GELU;
    s->gated = 0;
    s->bias = 1;
    s->qkv_bias = 0;
    s->fused_qkv = 1;
    geti(h, o, "", "n_embd", &s->hidden, 1, BIG);
    geti(h, o, "", "n_layer", &s->layers, 1, 4096);
    geti(h, o, "", "n_head", &s->heads, 1, 4096);
    s->ffn = 4 * s->hidden;
    geti(h, o, "", "n_inner", &s->ffn, 1, BIG);
    geti(h, o, "", "vocab_size", &a->vocab, 1, BIG);
    get_act(h, o, "", "activation_function", &s->act);
    s->kv_heads = s->heads;
    s->head_dim = s->hidden / s->heads > 0 ? s->hidden / s->heads : 1;
    if (!h->rc && s->hidden % s->heads)
        bad(h, "", "n_embd", "%s", "must be a multiple of n_head");
}

/* MusicGen's decoder: its fields under "decoder" (musicgen, musicgen_melody) or at the top
 * (flat: a musicgen_melody_decoder config on its own, the conditioning width then the
 * base's); the conditioning width from text_encoder.d_model. MusicGen Melody prepends its
 * conditioning to the decoder's sequence instead of cross-attending to it: built as
 * MusicGen's cross-attention (docs/import.md). */
static void fill_musicgen(struct hf *h, json_t *o, struct zoo_arch *a, int flat)
{
    json_t *d = flat ? o : getobj(h, o, "decoder"), *t = getobj(h, o, "text_encoder");
    const char *p = flat ? "" : "decoder.";
    struct zoo_stack *s = &a->main;
    geti(h, d, p, "hidden_size", &s->hidden, 1, BIG);
    geti(h, d, p, "num_hidden_layers", &s->layers, 1, 4096);
    geti(h, d, p, "num_attention_heads", &s->heads, 1, 4096);
    geti(h, d, p, "ffn_dim", &s->ffn, 1, BIG);
    geti(h, d, p, "vocab_size", &a->vocab, 1, BIG);
    geti(h, d, p, "num_codebooks", &a->codebooks, 1, 64);
    geti(h, t, "text_encoder.", "d_model", &a->cond_dim, 1, BIG);
    s->kv_heads = s->heads;
    s->head_dim = s->hidden / s->heads > 0 ? s->hidden / s->heads : 1;
    if (!h->rc && s->hidden % s->heads)
        bad(h, p, "hidden_size", "%s", "must be a multiple of num_attention_heads");
}

static void fill(struct hf *h, json_t *o, struct zoo_arch *a, enum hf_kind k)
{
    switch (k) {
    case K_BERT: case K_ALBERT: case K_ELECTRA: case K_ROBERTA:
        get_bert(h, o, a, k == K_ALBERT || k == K_ELECTRA);
        return;
    case K_BART:
        get_encdec(h, o, a);
        return;
    case K_GPT2:
        fill_gpt2(h, o, a);
        return;
    case K_WHISPER:
        a->whisper_parts = 3;
        get_encdec(h, o, a);
        geti(h, o, "", "num_mel_bins", &a->mels, 1, 4096);
        geti(h, o, "", "max_source_positions", &a->src_seq, 1, 1 << 20);
        a->cond_dim = a->main.hidden;
        return;
    case K_VIT:
        get_vision(h, o, "", a, &a->main);
        get_labels(h, o, a);
        return;
    case K_RESNET: {
        geti(h, o, "", "embedding_size", &a->stem, 1, BIG);
        geti(h, o, "", "num_channels", &a->channels, 1, 4096);
        get_array4(h, o, "depths", a->stages, 0);
        get_array4(h, o, "hidden_sizes", a->widths, 1);
        const char *lt = gets(h, o, "", "layer_type");
        if (lt && strcmp(lt, "basic") && strcmp(lt, "bottleneck"))
            bad(h, "", "layer_type", "expected \"basic\" or \"bottleneck\", got '%s'", lt);
        if (lt)
            a->bottleneck = !strcmp(lt, "bottleneck");
        get_labels(h, o, a);
        return;
    }
    case K_PERCEIVER: {
        int64_t blocks = 1, per = a->main.layers;
        geti(h, o, "", "d_latents", &a->main.hidden, 1, BIG);
        geti(h, o, "", "num_latents", &a->latents, 1, BIG);
        geti(h, o, "", "d_model", &a->aux.hidden, 1, BIG);
        geti(h, o, "", "num_blocks", &blocks, 1, 4096);
        geti(h, o, "", "num_self_attends_per_block", &per, 1, 4096);
        geti(h, o, "", "num_self_attention_heads", &a->main.heads, 1, 4096);
        geti(h, o, "", "num_cross_attention_heads", &a->aux.heads, 1, 4096);
        geti(h, o, "", "vocab_size", &a->vocab, 1, BIG);
        a->main.layers = blocks * per;
        a->main.kv_heads = a->main.heads;
        a->main.head_dim = a->main.hidden / a->main.heads > 0 ? a->main.hidden / a->main.heads : 1;
        int64_t wf = 1;
        geti(h, o, "", "self_attention_widening_factor", &wf, 1, 64);
        a->main.ffn = wf * a->main.hidden;
        if (!h->rc && a->main.hidden % a->main.heads)
            bad(h, "", "d_latents", "%s", "must be a multiple of num_self_attention_heads");
        return;
    }
    case K_MUSICGEN:
    case K_MUSICGEN_DEC:
        fill_musicgen(h, o, a, k == K_MUSICGEN_DEC);
        return;
    case K_PALIGEMMA: {
        json_t *v = getobj(h, o, "vision_config"), *t = getobj(h, o, "text_config");
        if (v)
            get_vision(h, v, "vision_config.", a, &a->aux);
        if (t) {
            get_llm(h, t, "text_config.", &a->main, 1);
            geti(h, t, "text_config.", "vocab_size", &a->vocab, 1, BIG);
        }
        geti(h, o, "", "vocab_size", &a->vocab, 1, BIG);
        return;
    }
    default:
        fill_decoder(h, o, a, k);
    }
}

int hf_arch_parse(const char *file, const char *buf, size_t len, struct zoo_arch *a,
                  struct ls_error *err)
{
    json_error_t je;
    json_t *root = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &je);
    if (!root)
        return ls_error_set(err, LS_ERR_INPUT, file, je.line > 0 ? je.line : 0,
                            je.column > 0 ? je.column : 0, "JSON syntax error: %s", je.text);
    struct hf h = {file, buf, len, err, 0};
    int rc = 0;
    if (!json_is_object(root)) {
        rc = ls_error_set(err, LS_ERR_INPUT, file, 0, 0,
                          "expected a JSON object (a HuggingFace config.json), got %s",
                          json_kind(root));
        goto done;
    }
    json_t *mt = json_object_get(root, "model_type");
    if (!mt) {
        rc = ls_error_set(err, LS_ERR_INPUT, file, 0, 0, "missing field 'model_type'");
        goto done;
    }
    if (!json_is_string(mt)) {
        bad(&h, "", "model_type", "expected a string, got %s", json_kind(mt));
        rc = h.rc;
        goto done;
    }
    const char *type = json_string_value(mt);
    size_t i = 0;
    while (i < NTYPES && strcmp(types[i].type, type))
        i++;
    if (i == NTYPES) {
        int line = 0, col = 0;
        ls_json_locate(buf, len, "model_type", &line, &col);
        rc = ls_error_set(err, LS_ERR_INPUT, file, line, col,
                          "field 'model_type': '%s' is not supported (supported: %s)", type,
                          hf_supported_types());
        goto done;
    }
    if ((rc = zoo_arch_get(types[i].base, a, err)))
        goto done;
    snprintf(a->name, sizeof a->name, "%s", type);
    get_dtype(&h, root, &a->dtype);
    fill(&h, root, a, types[i].kind);
    rc = h.rc;
    if (!rc && (rc = zoo_arch_check(a, err))) {
        /* the check's messages open with the field they are about (shared with the zoo,
         * so in HF's spelling where the two agree): point at it when the file has it */
        char msg[sizeof err->msg], field[64] = "";
        snprintf(msg, sizeof msg, "%s", err->msg);
        int line = 0, col = 0;
        if (sscanf(msg, "%63[a-z_]", field) == 1)
            ls_json_locate(buf, len, field, &line, &col);
        ls_error_set(err, rc, file, line, col, "%s", msg);
    }
done:
    json_decref(root);
    return rc;
}

int hf_load_file(const char *path, const struct zoo_opts *opts, struct graph **out,
                 struct ls_error *err)
{
    char *buf = NULL;
    size_t len = 0;
    struct zoo_arch a;
    *out = NULL;
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = hf_arch_parse(path, buf, len, &a, err);
    free(buf);
    if (!rc)
        rc = zoo_arch_scale(&a, opts, err);
    if (!rc)
        rc = zoo_arch_build(&a, out, err);
    return rc;
}
