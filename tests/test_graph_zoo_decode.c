/* graph/zoo: decode steps (--decode N): the one-token step of every decoder model over a
 * KV cache of N tokens (docs/zoo.md "Decode steps"), zoo and config.json, and the errors
 * for models without a decoder. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/hf.h"
#include "graph/model.h"
#include "graph/zoo.h"

#define HF LAYSIM_SOURCE_DIR "/tests/data/hf/"

static int build_rc(const char *name, int64_t layers, int64_t batch, int64_t seq,
                    int64_t decode, struct graph **g, struct ls_error *err)
{
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.layers = layers;
    o.batch = batch;
    o.seq = seq;
    o.decode = decode;
    ls_error_clear(err);
    return zoo_build(name, &o, g, err);
}

static struct graph *build(const char *name, int64_t layers, int64_t batch, int64_t seq,
                           int64_t decode)
{
    struct ls_error err;
    struct graph *g = NULL;
    int rc = build_rc(name, layers, batch, seq, decode, &g, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    assert_int_equal(rc, 0);
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* Shape of tensor `name` equals dims[0..rank). */
static void assert_shape(const struct graph *g, const char *name, int rank,
                         const int64_t *dims)
{
    int32_t t = graph_find_tensor(g, name);
    if (t < 0)
        fprintf(stderr, "no tensor %s\n", name);
    assert_true(t >= 0);
    const struct graph_shape *s = &graph_tensor(g, t)->shape;
    assert_int_equal(s->rank, rank);
    for (int i = 0; i < rank; i++)
        assert_int_equal(s->dims[i].size, dims[i]);
}

#define SHAPE(g, name, ...) \
    assert_shape(g, name, (int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)), \
                 (const int64_t[]){__VA_ARGS__})

static double flops(const struct graph *g)
{
    struct graph_stats st;
    struct ls_error err;
    assert_int_equal(graph_stats(g, &st, &err), 0);
    return st.flops;
}

/* Every attention of a decode step has one query row per head: scores [B, heads, 1, keys],
 * or, under grouped-query attention, [B, kv_heads, group, keys] with the group's query heads
 * as rows (q reshaped by "<scope>.q.group" from one query position). Returns the number of
 * score tensors; *keys the largest key count seen. */
static int check_one_query(const struct graph *g, int64_t *keys)
{
    int n = 0;
    *keys = 0;
    for (int32_t i = 0; i < graph_nops(g); i++) {
        const struct graph_op *op = graph_op(g, i);
        const char *nm = graph_tensor(g, op->output >= 0 ? op->output : op->inputs[0])->name;
        size_t len = strlen(nm);
        if (op->kind != GRAPH_OP_BATCH_MATMUL || len < 7 || strcmp(nm + len - 7, ".scores"))
            continue;
        const struct graph_shape *s = &graph_tensor(g, op->output)->shape;
        assert_int_equal(s->rank, 4);
        if (s->dims[2].size != 1) { /* GQA folded: its q is one position's heads */
            const struct graph_tensor *q = graph_tensor(g, op->inputs[0]);
            const struct graph_op *r = graph_op(g, q->producer);
            assert_int_equal(r->kind, GRAPH_OP_RESHAPE);
            assert_non_null(strstr(q->name, ".q.group"));
            assert_int_equal(graph_tensor(g, r->inputs[0])->shape.dims[2].size, 1);
        }
        if (s->dims[3].size > *keys)
            *keys = s->dims[3].size;
        n++;
    }
    return n;
}

/* Qwen2 (GQA 12 query heads over 2 KV heads, rotary): the shapes of one decode step. */
static void test_decoder_shapes(void **state)
{
    (void)state;
    struct graph *g = build("qwen2", 1, 2, 0, 64);
    SHAPE(g, "ids", 2, 1);
    SHAPE(g, "dec.l0.self.q.mm", 2, 1, 1536);              /* M = 1 per sequence */
    SHAPE(g, "dec.l0.ffn.gate", 2, 1, 8960);
    SHAPE(g, "dec.l0.self.k_cache", 2, 2, 63, 128);       /* N - 1 cached positions */
    SHAPE(g, "dec.l0.self.v_cache", 2, 2, 63, 128);
    SHAPE(g, "dec.l0.self.k.append", 2, 2, 64, 128);      /* + the new token = N */
    /* GQA: each KV head's 6 query heads are the rows of one product with its K and V,
     * which are not repeated per query head */
    assert_true(graph_find_tensor(g, "dec.l0.self.k.expand") < 0);
    SHAPE(g, "dec.l0.self.q.group", 2, 2, 6, 128);
    SHAPE(g, "dec.l0.self.scores", 2, 2, 6, 64);
    SHAPE(g, "dec.l0.self.ctx", 2, 2, 6, 128);
    SHAPE(g, "dec.l0.self.ctx.heads", 2, 12, 1, 128);
    /* the cache is state: the previous step wrote it in the layouts this one reads */
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "dec.l0.self.k_cache"))->state, 1);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "ids"))->state, 0);
    SHAPE(g, "rope.cos.1.128", 1, 128);                   /* one position */
    SHAPE(g, "logits", 2, 1, 151936);
    assert_true(graph_find_tensor(g, "causal_mask.1") < 0);   /* one query sees all N */
    int32_t cat = graph_find_op(g, "dec.l0.self.k.append");
    assert_int_equal(graph_op(g, cat)->kind, GRAPH_OP_CONCAT);
    /* the cache is appended to after the rotation (the cache holds rotated keys) */
    int32_t rot = graph_find_tensor(g, "dec.l0.self.k.rope");
    assert_int_equal(graph_op(g, cat)->inputs[1], rot);
    graph_free(g);

}

/* Every model with a decoder builds its decode step; all attentions have one query. */
static void test_every_decoder(void **state)
{
    (void)state;
    int built = 0;
    for (size_t i = 0; i < zoo_count(); i++) {
        const char *name = zoo_entry(i)->name;
        struct zoo_arch a;
        struct ls_error err;
        assert_int_equal(zoo_arch_get(name, &a, &err), 0);
        struct graph *g = NULL;
        int rc = build_rc(name, name[0] == 'r' ? 18 : 1, 1, 0, 40, &g, &err);
        if (rc) {   /* the families without a decoder, named in the message */
            assert_int_equal(rc, LS_ERR_INPUT);
            assert_non_null(strstr(err.msg, name));
            assert_true(a.family == ZOO_ENCODER || a.family == ZOO_CNN ||
                        a.family == ZOO_RESNET || a.family == ZOO_VIT ||
                        a.family == ZOO_PERCEIVER ||
                        (a.family == ZOO_WHISPER && a.whisper_parts == 1));
            continue;
        }
        int64_t keys = 0;
        assert_true(check_one_query(g, &keys) >= 1);
        assert_true(keys >= 40);   /* self: the cache; cross: the memory's positions */
        built++;
        graph_free(g);
    }
    assert_int_equal(built, 14);
}

/* Encoder-decoder and Whisper decode: no encoder; cross-attention reads cached K/V. */
static void test_cross_attention_cache(void **state)
{
    (void)state;
    struct graph *g = build("bart-base", 1, 1, 0, 32);
    assert_true(graph_find_tensor(g, "src_ids") < 0);
    SHAPE(g, "dec.l0.self.scores", 1, 12, 1, 32);
    SHAPE(g, "dec.l0.cross.k_cache", 1, 12, 128, 64);     /* src_seq 128 positions */
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "dec.l0.cross.v_cache"))->state, 1);
    SHAPE(g, "dec.l0.cross.scores", 1, 12, 1, 128);
    graph_free(g);

    g = build("whisper-dec", 1, 1, 0, 32);
    assert_true(graph_find_tensor(g, "encoder_out") < 0);
    SHAPE(g, "dec.l0.cross.scores", 1, 8, 1, 1500);
    graph_free(g);

    g = build("musicgen", 1, 1, 0, 32);
    assert_true(graph_find_tensor(g, "cond") < 0);
    SHAPE(g, "codes0", 1, 1);
    graph_free(g);

    g = build("paligemma", 1, 1, 0, 300);   /* image tokens live in the cache */
    assert_true(graph_find_tensor(g, "image") < 0);
    SHAPE(g, "lm.l0.self.scores", 1, 1, 8, 300);          /* one KV head for 8 queries */
    graph_free(g);
}

/* MoE: the router and experts see one token per sequence. */
static void test_moe_decode(void **state)
{
    (void)state;
    struct graph *g = build("olmoe", 1, 4, 0, 128);
    SHAPE(g, "dec.l0.ffn.tokens", 4, 2048);
    SHAPE(g, "dec.l0.ffn.router.gates", 4, 64);
    SHAPE(g, "dec.l0.ffn.e0.gate", 4, 1024);
    graph_free(g);
}

/* A decode step over N = S costs about 1/S of the prefill of S tokens: every projection
 * runs on 1 token instead of S, and the query row attends over the same S keys. */
static void test_flops_vs_prefill(void **state)
{
    (void)state;
    const int64_t s = 256;
    struct graph *pre = build("qwen2", 2, 1, s, 0);
    struct graph *dec = build("qwen2", 2, 1, 0, s);
    double fp = flops(pre), fd = flops(dec);
    double ratio = fp / fd;
    fprintf(stderr, "qwen2 2 layers: prefill %.4g flops, decode %.4g, ratio %.1f\n", fp, fd,
            ratio);
    assert_true(fd < fp);
    assert_true(ratio > 0.5 * (double)s && ratio < 1.5 * (double)s);
    graph_free(pre);
    graph_free(dec);
}

static void test_errors(void **state)
{
    (void)state;
    struct graph *g = NULL;
    struct ls_error err;
    assert_int_equal(build_rc("bert-base", 1, 1, 0, 64, &g, &err), LS_ERR_INPUT);
    assert_null(g);
    assert_non_null(strstr(err.msg, "'bert-base'"));
    assert_non_null(strstr(err.msg, "no decoder"));
    assert_int_equal(build_rc("resnet50", 0, 1, 0, 64, &g, &err), LS_ERR_INPUT);
    assert_int_equal(build_rc("whisper-enc", 0, 1, 0, 64, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "whisper-enc"));
    /* N counts the new token and at least one cached one */
    assert_int_equal(build_rc("qwen2", 1, 1, 0, 1, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "N >= 2"));
    /* --seq and --decode exclude each other */
    assert_int_equal(build_rc("qwen2", 1, 1, 16, 64, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--seq"));
    assert_null(g);
}

/* config.json models take --decode through the same path (model_load). */
static void test_hf_decode(void **state)
{
    (void)state;
    struct zoo_opts o;
    struct ls_error err;
    struct graph *g = NULL;
    zoo_opts_init(&o);
    o.layers = 1;
    o.decode = 100;
    o.autocast = GRAPH_AUTOCAST_NONE;
    assert_int_equal(model_load(HF "mistral.json", &o, &g, &err), 0);
    int32_t kc = graph_find_tensor(g, "dec.l0.self.k_cache");
    assert_true(kc >= 0);
    const struct graph_shape *s = &graph_tensor(g, kc)->shape;
    assert_int_equal(s->dims[2].size, 99);
    int64_t keys = 0;
    assert_int_equal(check_one_query(g, &keys), 1);
    assert_int_equal(keys, 100);
    graph_free(g);

    assert_int_equal(model_load(HF "whisper.json", &o, &g, &err), 0);   /* both towers */
    assert_true(graph_find_tensor(g, "mel") < 0);                       /* decoder only */
    graph_free(g);

    assert_int_equal(model_load(HF "vit.json", &o, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no decoder"));
    assert_null(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decoder_shapes),
        cmocka_unit_test(test_every_decoder),
        cmocka_unit_test(test_cross_attention_cache),
        cmocka_unit_test(test_moe_decode),
        cmocka_unit_test(test_flops_vs_prefill),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_hf_decode),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
