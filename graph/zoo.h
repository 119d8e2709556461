/* graph/zoo: built-in model graphs from published architecture hyperparameters.
 *
 * Every model is described by one `struct zoo_arch` (an architecture family plus its
 * hyperparameters); one builder per family turns it into a forward (inference) graph.
 * The named zoo (`zoo:bert-base` ...) is a table of such descriptions with the published
 * values as defaults; the HuggingFace importer (graph/hf.h) fills the same struct from a
 * config.json. docs/zoo.md lists every model, the source of its numbers and the op
 * patterns (attention, rotary, GQA, MoE routing, multimodal joins). */
#ifndef LS_GRAPH_ZOO_H
#define LS_GRAPH_ZOO_H

#include <stddef.h>
#include <stdint.h>

#include "graph/autocast.h"
#include "graph/graph.h"
#include "util/dtype.h"
#include "util/error.h"

enum zoo_family {
    ZOO_ENCODER,     /* BERT-style encoder stack */
    ZOO_ENCDEC,      /* BART-style encoder-decoder */
    ZOO_DECODER,     /* decoder-only LLM (dense or MoE FFN) */
    ZOO_WHISPER,     /* conv stem + encoder and/or decoder with cross-attention */
    ZOO_CNN,         /* small conv-bn-relu CNN */
    ZOO_RESNET,      /* ResNet (basic or bottleneck blocks) */
    ZOO_VIT,         /* ViT: conv patch embedding + encoder + class head */
    ZOO_PERCEIVER,   /* latent array, cross-attention in, self-attention, cross-attention out */
    ZOO_MUSICGEN,    /* multi-codebook decoder with cross-attention to a conditioning seq */
    ZOO_VLM,         /* vision encoder + projector/resampler + language decoder */
    ZOO_FAMILY_COUNT
};

enum zoo_norm { ZOO_LAYERNORM, ZOO_LAYERNORM_PLAIN /* no affine params */, ZOO_RMSNORM };
/* Where a transformer layer normalizes (relative to the residual add). */
enum zoo_norm_pos {
    ZOO_PRE,         /* x + f(norm(x))                 (GPT-2, LLaMA, ViT, Whisper) */
    ZOO_POST,        /* norm(x + f(x))                 (BERT, BART) */
    ZOO_SANDWICH,    /* x + norm2(f(norm1(x)))         (Gemma 2/3) */
    ZOO_REORDERED    /* x + norm(f(x))                 (OLMo 2) */
};
enum zoo_act { ZOO_GELU, ZOO_RELU, ZOO_SILU };
enum zoo_qknorm { ZOO_QKNORM_NONE, ZOO_QKNORM_FULL /* over heads*dim */, ZOO_QKNORM_HEAD };
enum zoo_pos { ZOO_POS_NONE, ZOO_POS_LEARNED, ZOO_POS_ROTARY };
/* How the vision tokens reach the language model (ZOO_VLM). */
enum zoo_join {
    ZOO_JOIN_PROJECT,    /* linear projector, image tokens prepended (PaLiGemma) */
    ZOO_JOIN_MERGE,      /* 2x2 patch merger MLP, image tokens prepended (Qwen-VL) */
    ZOO_JOIN_RESAMPLE    /* latent-query cross-attention resampler (Kosmos-2) */
};

/* A transformer stack (also used for the vision tower and the decoder of enc-dec models). */
struct zoo_stack {
    int64_t layers, hidden, heads, kv_heads, head_dim, ffn;
    int64_t experts, topk, expert_ffn, shared_ffn;  /* MoE when experts > 0 */
    enum zoo_norm norm;
    enum zoo_norm_pos norm_pos;
    enum zoo_act act;
    enum zoo_qknorm qk_norm;
    int gated;           /* FFN = act(x W1) * (x W3), then W2 */
    int bias;            /* biases on all linear layers */
    int qkv_bias;        /* biases on q, k, v only (Qwen2) */
    int fused_qkv;       /* one [H, 3H] projection sliced into q, k, v (GPT-2) */
    int causal;          /* self-attention adds a causal mask */
    int shared_weights;  /* one set of layer weights for all layers (ALBERT) */
};

struct zoo_arch {
    char name[64];
    enum zoo_family family;
    enum ls_dtype dtype;
    int64_t batch, seq;          /* seq: text/target tokens (decoder tokens for enc-dec) */
    int64_t src_seq;             /* enc-dec / whisper / musicgen conditioning / perceiver input */
    int64_t vocab;
    int64_t embed;               /* embedding width when factorized (ALBERT); 0 = hidden */
    enum zoo_pos pos;
    int tied_head;               /* the LM head reuses the embedding table */
    struct zoo_stack main;       /* the only stack; the encoder of encdec and whisper; the
                                    latent self-attention of perceiver; the VLM's LM */
    struct zoo_stack aux;        /* the decoder of encdec and whisper; the VLM's vision tower */
    int whisper_parts;           /* ZOO_WHISPER: 1 encoder, 2 decoder, 3 both */
    int64_t mels;                /* whisper mel bins */
    int64_t image, patch, channels, classes;  /* vision */
    int64_t stages[4], widths[4];             /* ResNet blocks per stage, output widths */
    int64_t stem;                /* ResNet stem width / CNN first width */
    int bottleneck;              /* ResNet block type */
    int64_t latents, cond_dim;   /* Perceiver latents; MusicGen/Whisper-dec memory width */
    int64_t codebooks;           /* MusicGen */
    enum zoo_join join;
    int64_t merge;               /* ZOO_JOIN_MERGE: spatial merge factor */
    int64_t resampler_queries;   /* ZOO_JOIN_RESAMPLE */
    int64_t decode;              /* > 0: the one-token decode step of the decoder over a KV
                                    cache of `decode` tokens, the new one included
                                    (docs/zoo.md "Decode steps"); 0: the prefill graph */
};

/* Scaling overrides; 0 (or -1 for dtype) keeps the model's default. */
struct zoo_opts {
    int64_t layers;     /* transformer layers (both towers / stacks); CNN conv blocks;
                           ResNet depth 18/34/50/101/152 */
    int64_t seq;        /* text tokens; audio frames for whisper-enc; input bytes (perceiver) */
    int64_t batch;
    int64_t hidden;     /* model width (heads scale to keep the head size; FFN scales too) */
    int64_t image;      /* image side in pixels (vision models) */
    int dtype;          /* enum ls_dtype or -1 */
    int64_t decode;     /* KV cache length N: build the one-token decode step instead of the
                           prefill (decoder models only; excludes seq) */
    /* Not a scaling option: the dtype pass model_load applies to every model source (zoo,
     * config.json, .lg); zoo_build ignores it. enum graph_autocast, default MATMUL. */
    int autocast;
    /* Not a scaling option: shapes of imported models' inputs whose dims are unknown,
     * "NAME=1x3x224x224;NAME2=..." (`--input`, graph/inputs.h); NULL = none. */
    const char *inputs;
};

/* All overrides off, autocast GRAPH_AUTOCAST_MATMUL. */
void zoo_opts_init(struct zoo_opts *o);

struct zoo_entry {
    const char *name;       /* "bert-base" */
    const char *family;     /* "encoder", "decoder", "moe", "vision", "multimodal"... */
    const char *source;     /* one line: where the hyperparameters come from */
};

size_t zoo_count(void);
const struct zoo_entry *zoo_entry(size_t i);   /* NULL when out of range */

/* The published description of a named model (no scaling). LS_ERR_INPUT for unknown names
 * (the message lists the known ones). */
int zoo_arch_get(const char *name, struct zoo_arch *a, struct ls_error *err);
/* Apply scaling overrides; LS_ERR_INPUT naming the option when a value does not fit
 * (hidden size not a multiple of the head size, unsupported ResNet depth, --decode on a
 * model without a decoder or together with --seq...). */
int zoo_arch_scale(struct zoo_arch *a, const struct zoo_opts *o, struct ls_error *err);
/* Check the hyperparameters (positive sizes, divisibility); LS_ERR_INPUT naming the field. */
int zoo_arch_check(const struct zoo_arch *a, struct ls_error *err);
/* Build the graph of a description (checked first). *out: a validated graph to free. */
int zoo_arch_build(const struct zoo_arch *a, struct graph **out, struct ls_error *err);
/* zoo_arch_get + zoo_arch_scale + zoo_arch_build. opts may be NULL. */
int zoo_build(const char *name, const struct zoo_opts *opts, struct graph **out,
              struct ls_error *err);

const char *zoo_family_name(enum zoo_family f);

#endif
