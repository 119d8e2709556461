/* graph/hf: HuggingFace config.json import of every supported model_type (tests/data/hf),
 * and malformed configs answered with LS_ERR_INPUT naming the field or line:column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/hf.h"
#include "graph/model.h"

#define DATA LAYSIM_SOURCE_DIR "/tests/data/hf/"

static struct graph *load(const char *file, int64_t seq)
{
    struct zoo_opts o;
    struct ls_error err;
    struct graph *g = NULL;
    zoo_opts_init(&o);
    o.seq = seq;
    ls_error_clear(&err);
    char path[512];
    snprintf(path, sizeof path, "%s%s", DATA, file);
    int rc = hf_load_file(path, &o, &g, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", file, err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* Size of axis `axis` of tensor `name`, -1 when the tensor is absent. */
static int64_t dim(const struct graph *g, const char *name, int axis)
{
    int32_t t = graph_find_tensor(g, name);
    if (t < 0) {
        fprintf(stderr, "no tensor %s\n", name);
        return -1;
    }
    return graph_tensor(g, t)->shape.dims[axis].size;
}

static void test_every_type_imports(void **state)
{
    (void)state;
    static const char *const types[] = {
        "bert", "albert", "electra", "roberta", "xlm-roberta", "bart", "gpt2", "llama",
        "mistral", "qwen2", "qwen3", "gemma", "gemma2", "gemma3_text", "olmo", "olmo2", "olmoe",
        "mixtral", "qwen2_moe", "whisper", "vit", "resnet", "perceiver", "musicgen",
        "paligemma", "ministral3", "musicgen_melody_decoder"};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        char file[64];
        snprintf(file, sizeof file, "%s.json", types[i]);
        struct graph *g = load(file, 16);
        assert_string_equal(graph_name(g), types[i]);
        assert_non_null(strstr(hf_supported_types(), types[i]));
        assert_true(graph_nops(g) > 40);
        graph_free(g);
    }
}

static void test_fields_reach_the_graph(void **state)
{
    (void)state;
    struct graph *g = load("llama.json", 16);     /* Llama-3.2-1B: 32 heads, 8 KV, dim 64 */
    assert_int_equal(dim(g, "dec.l15.self.k.w", 0), 2048);
    assert_int_equal(dim(g, "dec.l15.self.k.w", 1), 8 * 64);
    assert_int_equal(dim(g, "dec.l0.ffn.up.w", 1), 8192);
    assert_int_equal(graph_find_tensor(g, "dec.l16.self.k.w"), -1);
    assert_true(graph_find_tensor(g, "logits.w") < 0);            /* tied head */
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "embed.word.table"))->dtype,
                     LS_DT_BF16);                                   /* torch_dtype */
    graph_free(g);

    g = load("gpt2.json", 16);     /* fused c_attn [768, 2304], n_inner null -> 4 * 768 */
    assert_int_equal(dim(g, "dec.l0.self.qkv.w", 1), 3 * 768);
    assert_int_equal(dim(g, "dec.l0.ffn.fc1.w", 1), 3072);
    assert_int_equal(dim(g, "embed.pos.table", 0), 16);
    graph_free(g);

    g = load("mixtral.json", 16);
    assert_int_equal(dim(g, "dec.l0.ffn.e7.down.w", 0), 14336);
    assert_int_equal(graph_find_tensor(g, "dec.l0.ffn.e8.down.w"), -1);
    assert_int_equal(dim(g, "dec.l0.ffn.router.w", 1), 8);
    graph_free(g);

    g = load("qwen2_moe.json", 16);
    assert_int_equal(dim(g, "dec.l0.ffn.e59.up.w", 1), 1408);
    assert_int_equal(dim(g, "dec.l0.ffn.shared.up.w", 1), 5632);
    graph_free(g);

    g = load("qwen3.json", 16);    /* per-head q/k RMSNorm over head_dim 128 */
    assert_int_equal(dim(g, "dec.l0.self.q.norm.g", 0), 128);
    graph_free(g);

    g = load("gemma2.json", 16);   /* sandwich norms */
    assert_true(graph_find_tensor(g, "dec.l0.self_post_norm") >= 0);
    graph_free(g);

    g = load("olmo2.json", 16);    /* q/k norm over all heads, norm after the sublayer */
    assert_int_equal(dim(g, "dec.l0.self.q_norm.g", 0), 4096);
    assert_true(graph_find_tensor(g, "dec.l0.self_norm.g") >= 0);
    graph_free(g);

    g = load("albert.json", 16);   /* factorized embedding, one set of layer weights */
    assert_int_equal(dim(g, "embed.proj.w", 0), 128);
    assert_true(graph_find_tensor(g, "enc.self.q.w") >= 0);
    assert_int_equal(graph_find_tensor(g, "enc.l0.self.q.w"), -1);
    graph_free(g);

    g = load("whisper.json", 16);  /* encoder + decoder of whisper-tiny */
    assert_int_equal(dim(g, "mel", 3), 3000);
    assert_int_equal(dim(g, "dec.l3.cross.k.w", 0), 384);
    graph_free(g);

    g = load("vit.json", 0);       /* 3 labels from id2label */
    assert_int_equal(dim(g, "head.fc.w", 1), 3);
    graph_free(g);

    g = load("resnet.json", 0);
    assert_int_equal(dim(g, "s2.b5.c3.conv.w", 0), 1024);
    graph_free(g);

    g = load("perceiver.json", 64);
    assert_int_equal(dim(g, "latents", 1), 256);
    assert_int_equal(dim(g, "latent.l25.ffn.fc1.w", 0), 1280);
    graph_free(g);

    g = load("musicgen.json", 16);
    assert_int_equal(dim(g, "enc_to_dec.w", 0), 768);
    assert_true(graph_find_tensor(g, "logits3") >= 0);
    graph_free(g);

    g = load("musicgen_melody_decoder.json", 16);   /* the decoder's fields at the top */
    assert_int_equal(dim(g, "dec.l47.self.q.w", 1), 1536);
    assert_int_equal(dim(g, "dec.l47.ffn.fc1.w", 1), 6144);
    assert_int_equal(dim(g, "enc_to_dec.w", 0), 768);   /* no text_encoder: T5-base width */
    assert_true(graph_find_tensor(g, "logits3") >= 0);
    graph_free(g);

    g = load("ministral3.json", 16);   /* Mistral's layout: 34 layers, 8 KV heads of 128 */
    assert_int_equal(dim(g, "dec.l33.self.k.w", 1), 8 * 128);
    assert_int_equal(dim(g, "dec.l33.ffn.gate.w", 1), 14336);
    graph_free(g);

    g = load("paligemma.json", 16);   /* 256 image tokens + 16 text tokens */
    assert_int_equal(dim(g, "embed.join", 1), 256 + 16);
    assert_int_equal(dim(g, "lm.l17.self.q.w", 1), 8 * 256);
    assert_int_equal(dim(g, "vision.l26.ffn.fc1.w", 1), 4304);
    graph_free(g);
}

static void expect_error(const char *file, const char *needle, int line, int col)
{
    struct ls_error err;
    struct graph *g = NULL;
    char path[512];
    snprintf(path, sizeof path, "%s%s", DATA, file);
    ls_error_clear(&err);
    assert_int_equal(model_load(path, NULL, &g, &err), LS_ERR_INPUT);
    assert_null(g);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "%s: '%s' lacks '%s'\n", file, err.msg, needle);
    assert_non_null(strstr(err.msg, needle));
    assert_non_null(strstr(err.file, file));
    if (line) {
        assert_int_equal(err.line, line);
        assert_int_equal(err.col, col);
    }
}

static void test_malformed(void **state)
{
    (void)state;
    /* line 4 is `  "num_hidden_layers" 12`: jansson reports the column just after the
     * unexpected token 12 (which starts at column 23) */
    expect_error("bad_syntax.json", "JSON syntax error", 4, 24);
    expect_error("bad_missing_type.json", "missing field 'model_type'", 0, 0);
    /* errors about a field's value point at the field's key */
    expect_error("bad_type.json", "'t5' is not supported", 2, 3);
    expect_error("bad_field.json", "field 'hidden_size': expected an integer, got a string", 3,
                 3);
    expect_error("bad_heads.json", "num_key_value_heads", 4, 3);
    expect_error("bad_array.json", "depths", 3, 3);
    expect_error("bad_range.json", "num_experts_per_tok", 4, 3);
    expect_error("bad_root.json", "expected a JSON object", 0, 0);

    struct zoo_arch a;
    struct ls_error err;
    static const char trunc[] = "{\"model_type\": \"bert\", \"hidden_size\": ";
    assert_int_equal(hf_arch_parse("t.json", trunc, sizeof trunc - 1, &a, &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 1);
    static const char neg[] = "{\"model_type\": \"gpt2\", \"n_layer\": -3}";
    assert_int_equal(hf_arch_parse("t.json", neg, sizeof neg - 1, &a, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "n_layer"));
    static const char act[] = "{\"model_type\": \"llama\", \"hidden_act\": \"mish\"}";
    assert_int_equal(hf_arch_parse("t.json", act, sizeof act - 1, &a, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "hidden_act"));
    static const char sub[] = "{\"model_type\": \"paligemma\", \"vision_config\": 3}";
    assert_int_equal(hf_arch_parse("t.json", sub, sizeof sub - 1, &a, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "vision_config"));
    /* every field missing: the base model's values */
    static const char bare[] = "{\"model_type\": \"mistral\"}";
    assert_int_equal(hf_arch_parse("t.json", bare, sizeof bare - 1, &a, &err), 0);
    assert_int_equal(a.main.hidden, 4096);
    assert_int_equal(a.main.kv_heads, 8);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_type_imports),
        cmocka_unit_test(test_fields_reach_the_graph),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
