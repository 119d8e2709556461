/* graph/zoo: structural invariants of every zoo model, hand-counted op counts, scaling,
 * and graph/model (zoo:NAME | config.json | .lg). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/lg.h"
#include "graph/model.h"
#include "graph/zoo.h"

static struct graph *build(const char *name, int64_t layers, int64_t seq)
{
    struct zoo_opts o;
    struct ls_error err;
    struct graph *g = NULL;
    zoo_opts_init(&o);
    o.layers = layers;
    o.seq = seq;
    ls_error_clear(&err);
    int rc = zoo_build(name, &o, &g, &err);
    if (rc)
        fprintf(stderr, "%s: %s\n", name, err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(g);
    return g;
}

static int32_t ops_of(const char *name, int64_t layers, int64_t seq)
{
    struct graph *g = build(name, layers, seq);
    int32_t n = graph_nops(g);
    graph_free(g);
    return n;
}

/* Valid IR, acyclic, one producer per tensor, declared shapes = inferred shapes. */
static void check_structure(const struct graph *g)
{
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(graph_validate(g, &err), 0);
    int32_t n = graph_nops(g);
    int32_t *order = malloc(sizeof *order * (size_t)n);
    assert_non_null(order);
    assert_int_equal(graph_topo_order(g, order, &err), 0);
    int32_t *pos = malloc(sizeof *pos * (size_t)n);
    assert_non_null(pos);
    for (int32_t i = 0; i < n; i++)
        pos[order[i]] = i;
    int returns = 0, sources = 0;
    for (int32_t i = 0; i < n; i++) {
        const struct graph_op *op = graph_op(g, i);
        if (op->kind == GRAPH_OP_RETURN)
            returns++;
        if (op->kind == GRAPH_OP_SOURCE)
            sources++;
        for (int k = 0; k < op->ninputs; k++) {
            const struct graph_tensor *t = graph_tensor(g, op->inputs[k]);
            assert_int_equal(t->nproducers, 1);
            assert_true(pos[t->producer] < pos[i]);     /* edges follow the topo order */
        }
        if (op->kind == GRAPH_OP_SOURCE || op->kind == GRAPH_OP_RETURN)
            continue;
        struct graph_shape s;
        enum ls_dtype dt;
        const struct graph_tensor *out = graph_tensor(g, op->output);
        assert_int_equal(graph_infer(g, op->kind, op->inputs, op->ninputs, &op->attrs,
                                     &out->shape, &s, &dt, &err), 0);
        assert_true(graph_shape_equal(&s, &out->shape));
        assert_int_equal(dt, out->dtype);
    }
    assert_true(returns >= 1);
    assert_true(sources >= 2);
    for (int32_t t = 0; t < graph_ntensors(g); t++) {
        const struct graph_tensor *x = graph_tensor(g, t);
        assert_int_equal(x->nproducers, 1);
        /* nothing computed is left unused: every activation reaches an op */
        if (x->role == GRAPH_ROLE_ACTIVATION)
            assert_true(x->nuses >= 1);
    }
    free(pos);
    free(order);
}

static void test_every_model_is_valid(void **state)
{
    (void)state;
    int32_t lo = 1 << 30, hi = 0;
    assert_true(zoo_count() >= 24);
    for (size_t i = 0; i < zoo_count(); i++) {
        const struct zoo_entry *e = zoo_entry(i);
        assert_non_null(e->family);
        assert_non_null(e->source);
        struct graph *g = build(e->name, 0, 0);
        check_structure(g);
        assert_string_equal(graph_name(g), e->name);
        lo = graph_nops(g) < lo ? graph_nops(g) : lo;
        hi = graph_nops(g) > hi ? graph_nops(g) : hi;
        graph_free(g);
        /* and the smallest configuration of the same model */
        g = build(e->name, strcmp(e->name, "resnet50") ? 1 : 18, 8);
        check_structure(g);
        graph_free(g);
    }
    assert_null(zoo_entry(zoo_count()));
    /* the paper's range: ~40 operators up to more than 10,000 */
    assert_true(lo <= 45);
    assert_true(hi > 10000);
}

/* Hand counts (ops = sources + compute ops + returns).
 *
 * BERT, 1 layer, seq 8 (post-LN, biases, no mask):
 *   embeddings: ids, word table, gather, pos table, add, type table, add, ln gamma,
 *               ln beta, layernorm                                         = 10
 *   attention:  q/k/v: weight, bias, matmul, add (3 x 4 = 12); split heads: reshape +
 *               transpose (3 x 2 = 6); scores, softmax, ctx (3); merge: transpose +
 *               reshape (2); output projection: weight, bias, matmul, add (4) = 27
 *   residual add + layernorm (gamma, beta, op)                            =  4
 *   FFN: fc1 (4), gelu (1), fc2 (4)                                        =  9
 *   residual add + layernorm                                               =  4
 *   return                                                                 =  1
 *   total 10 + 27 + 4 + 9 + 4 + 1 = 55; every further layer adds 27+4+9+4 = 44.
 *
 * OLMo-7B, 1 layer (non-parametric LayerNorm, no biases, rotary, causal, 32 = 32 heads):
 *   ids, table, gather                                                     =  3
 *   attn norm (1); q/k/v weight + matmul (6); split heads (6); rotary per q and k:
 *   slice, slice, concat, mul cos, mul sin, add (12) + cos and sin inputs (2);
 *   scores (1); causal mask input (1) + add (1); softmax, ctx, transpose, reshape (4);
 *   o weight + matmul (2); residual add (1)                                = 37
 *   FFN norm (1); gate w+mm (2), silu (1), up w+mm (2), mul (1), down w+mm (2);
 *   residual add (1)                                                       = 10
 *   final norm (1), lm head weight + matmul (2), return (1)                =  4
 *   total 3 + 37 + 10 + 4 = 54; further layers add 47 - 3 (cos, sin, mask are shared) = 44.
 *
 * CNN (5 blocks, 32x32): image (1); per block conv weight, conv, bn scale, bn shift, bn,
 *   relu (5 x 6 = 30); max pools after blocks 0..2 while the side is > 4 (3); global avg
 *   pool, reshape (2); fc weight, matmul, bias, add (4); softmax (1); return (1) = 42. */
static void test_hand_counts(void **state)
{
    (void)state;
    assert_int_equal(ops_of("bert-base", 1, 8), 55);
    assert_int_equal(ops_of("bert-base", 2, 8), 99);
    assert_int_equal(ops_of("bert-base", 0, 0), 10 + 12 * 44 + 1);
    assert_int_equal(ops_of("olmo-7b", 1, 8), 54);
    assert_int_equal(ops_of("olmo-7b", 2, 8), 98);
    assert_int_equal(ops_of("cnn", 0, 0), 42);
    /* Qwen2 adds to the OLMo count: q/k/v biases (+6), GQA repeat of k and v: reshape,
     * concat, reshape (+6), three RMSNorm gammas (+3); the tied head drops a weight (-1). */
    assert_int_equal(ops_of("qwen2", 1, 8), 54 + 6 + 6 + 3 - 1);
    /* ALBERT shares layer weights: the second layer adds no sources (44 - 16 weights). */
    assert_int_equal(ops_of("albert-large", 2, 8) - ops_of("albert-large", 1, 8), 44 - 16);
}

static void test_moe_expert_pattern(void **state)
{
    (void)state;
    struct zoo_arch a;
    struct ls_error err;
    struct graph *g2, *g3;
    assert_int_equal(zoo_arch_get("olmoe", &a, &err), 0);
    a.main.layers = 1;
    a.seq = 8;
    a.main.experts = 2;
    a.main.topk = 1;
    assert_int_equal(zoo_arch_build(&a, &g2, &err), 0);
    a.main.experts = 3;
    assert_int_equal(zoo_arch_build(&a, &g3, &err), 0);
    /* one expert = route slice, gate (w, mm), silu, up (w, mm), mul, down (w, mm),
     * weighting mul, accumulating add = 11 ops */
    assert_int_equal(graph_nops(g3) - graph_nops(g2), 11);
    int32_t gates = graph_find_tensor(g3, "dec.l0.ffn.router.gates");
    assert_true(gates >= 0);
    assert_int_equal(graph_tensor(g3, gates)->shape.dims[1].size, 3);
    assert_int_equal((int)graph_tensor(g3, gates)->nuses, 3);   /* one slice per expert */
    int32_t w = graph_find_tensor(g3, "dec.l0.ffn.e2.down.w");
    assert_true(w >= 0);
    assert_int_equal(graph_tensor(g3, w)->shape.dims[0].size, 1024);
    check_structure(g3);
    graph_free(g2);
    graph_free(g3);
}

static void test_shapes_of_key_tensors(void **state)
{
    (void)state;
    struct graph *g = build("qwen2", 1, 16);
    /* GQA: 2 KV heads repeated to 12, scores [B, heads, S, S] */
    int32_t k = graph_find_tensor(g, "dec.l0.self.k.expand");
    assert_true(k >= 0);
    const struct graph_shape *s = &graph_tensor(g, k)->shape;
    assert_int_equal(s->dims[1].size, 12);
    assert_int_equal(s->dims[3].size, 128);
    int32_t p = graph_find_op(g, "dec.l0.self.probs");
    assert_true(p >= 0);
    assert_int_equal(graph_op(g, p)->kind, GRAPH_OP_SOFTMAX);
    assert_int_equal(graph_op(g, p)->attrs.axis, 3);
    graph_free(g);

    g = build("vit-b16", 1, 0);
    int32_t pe = graph_find_op(g, "embed.patch.conv");
    assert_true(pe >= 0);
    assert_int_equal(graph_op(g, pe)->attrs.stride[0], 16);
    int32_t cat = graph_find_tensor(g, "embed.cat");
    assert_int_equal(graph_tensor(g, cat)->shape.dims[1].size, 197);
    graph_free(g);

    g = build("resnet50", 0, 0);
    int32_t fc = graph_find_tensor(g, "fc.w");
    assert_int_equal(graph_tensor(g, fc)->shape.dims[0].size, 2048);
    int32_t last = graph_find_tensor(g, "s3.b2.relu");
    assert_int_equal(graph_tensor(g, last)->shape.dims[2].size, 7);
    graph_free(g);

    g = build("whisper-enc", 0, 100);
    int32_t mel = graph_find_tensor(g, "mel");
    assert_int_equal(graph_tensor(g, mel)->shape.dims[3].size, 200);
    graph_free(g);

    g = build("qwen-vl", 1, 16);   /* 448/14 = 32x32 patches merged 2x2 -> 256 tokens */
    int32_t j = graph_find_tensor(g, "embed.join");
    assert_int_equal(graph_tensor(g, j)->shape.dims[1].size, 256 + 16);
    graph_free(g);
}

static void test_scaling(void **state)
{
    (void)state;
    struct zoo_opts o;
    struct ls_error err;
    struct graph *g = NULL;
    zoo_opts_init(&o);
    o.hidden = 1024;
    o.layers = 1;
    o.batch = 2;
    assert_int_equal(zoo_build("qwen2", &o, &g, &err), 0);
    int32_t q = graph_find_tensor(g, "dec.l0.self.q.heads");
    assert_int_equal(graph_tensor(g, q)->shape.dims[0].size, 2);
    assert_int_equal(graph_tensor(g, q)->shape.dims[1].size, 8);    /* 1024 / 128 */
    graph_free(g);

    o.hidden = 100;   /* not a multiple of BERT's head size 64 */
    assert_int_equal(zoo_build("bert-base", &o, &g, &err), LS_ERR_INPUT);
    assert_null(g);
    assert_non_null(strstr(err.msg, "--hidden"));

    zoo_opts_init(&o);
    o.layers = 7;
    assert_int_equal(zoo_build("resnet50", &o, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--layers"));
    o.layers = 18;
    assert_int_equal(zoo_build("resnet50", &o, &g, &err), 0);
    check_structure(g);
    graph_free(g);

    assert_int_equal(zoo_build("gpt-5", NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bert-base"));    /* lists the known names */
}

static void test_model_load(void **state)
{
    (void)state;
    struct ls_error err;
    struct graph *g = NULL, *h = NULL;
    struct zoo_opts o;
    zoo_opts_init(&o);
    assert_int_equal(model_load("zoo:cnn", NULL, &g, &err), 0);
    char path[] = "/tmp/laysim_zoo_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(graph_write_file(g, path, &err), 0);
    assert_int_equal(model_load(path, NULL, &h, &err), 0);
    char why[256];
    assert_true(graph_equal(g, h, why, sizeof why));
    graph_free(h);
    o.layers = 2;
    assert_int_equal(model_load(path, &o, &h, &err), LS_ERR_INPUT);   /* no scaling of .lg */
    assert_null(h);
    unlink(path);
    graph_free(g);
    assert_int_equal(model_load("zoo:nope", NULL, &g, &err), LS_ERR_INPUT);
    assert_int_equal(model_load("/nonexistent/model.lg", NULL, &g, &err), LS_ERR_INPUT);
    assert_int_equal(model_load("", NULL, &g, &err), LS_ERR_INPUT);
    /* config.json through the same entry point, scaled */
    o.layers = 1;
    o.seq = 8;
    o.autocast = GRAPH_AUTOCAST_NONE;       /* the model's own ops, no bf16 casts */
    assert_int_equal(model_load(LAYSIM_SOURCE_DIR "/tests/data/hf/bert.json", &o, &g, &err), 0);
    assert_int_equal(graph_nops(g), 55);    /* = the hand-counted 1-layer BERT */
    graph_free(g);
}

/* Every zoo model survives the .lg writer and reader unchanged (names, attrs, roles). */
static void test_lg_roundtrip(void **state)
{
    (void)state;
    for (size_t i = 0; i < zoo_count(); i++) {
        const char *name = zoo_entry(i)->name;
        struct graph *g = build(name, strcmp(name, "resnet50") ? 1 : 18, 8), *h = NULL;
        char *buf = NULL;
        size_t len = 0;
        struct ls_error err;
        FILE *fp = open_memstream(&buf, &len);
        assert_non_null(fp);
        assert_int_equal(graph_write(g, fp, &err), 0);
        fclose(fp);
        int rc = graph_read(name, buf, len, &h, &err);
        if (rc)
            fprintf(stderr, "%s: %s:%d:%d: %s\n", name, err.file, err.line, err.col, err.msg);
        assert_int_equal(rc, 0);
        char why[256] = "";
        if (!graph_equal(g, h, why, sizeof why))
            fprintf(stderr, "%s: %s\n", name, why);
        assert_true(graph_equal(g, h, NULL, 0));
        graph_free(h);
        graph_free(g);
        free(buf);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_model_is_valid),
        cmocka_unit_test(test_hand_counts),
        cmocka_unit_test(test_moe_expert_pattern),
        cmocka_unit_test(test_shapes_of_key_tensors),
        cmocka_unit_test(test_scaling),
        cmocka_unit_test(test_model_load),
        cmocka_unit_test(test_lg_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
