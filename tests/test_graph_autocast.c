/* Tests for graph/autocast: the bf16 auto-cast of matmul/conv operands, the relaxed output
 * dtype rule it relies on, and model_load applying it to zoo models. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/autocast.h"
#include "graph/graph.h"
#include "graph/lg.h"
#include "graph/model.h"

static char *lg_text(const struct graph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(graph_write(g, fp, &err), 0);
    fclose(fp);
    return buf;
}

static struct graph *cast_of(const struct graph *g, enum graph_autocast mode)
{
    struct graph *out = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = graph_autocast(g, mode, &out, &err);
    if (rc)
        fprintf(stderr, "autocast: %s\n", err.msg);
    assert_int_equal(rc, 0);
    assert_non_null(out);
    assert_int_equal(graph_validate(out, &err), 0);
    return out;
}

static enum ls_dtype dtype_of(const struct graph *g, const char *name)
{
    int32_t t = graph_find_tensor(g, name);
    assert_true(t >= 0);
    return graph_tensor(g, t)->dtype;
}

/* x -> layernorm ln (read by two matmuls only) -> h1, h2 -> s = h1 + h2, read by two
 * matmuls and an exp named "s.bf16"; wb read by an add and a matmul; o read by a matmul. */
static struct graph *sample(void)
{
    struct graph *g = graph_new("sample");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(4, 8), "batch,hidden");
    int32_t ga = graph_weight(g, "g", LS_DT_FP32, GRAPH_DIMS(8), NULL);
    int32_t be = graph_weight(g, "b", LS_DT_FP32, GRAPH_DIMS(8), NULL);
    int32_t ln = graph_layernorm(g, "ln", x, ga, be, -1);
    int32_t h1 = graph_matmul(g, "h1", ln, graph_weight(g, "w1", LS_DT_FP32, GRAPH_DIMS(8, 16), NULL));
    int32_t h2 = graph_matmul(g, "h2", ln, graph_weight(g, "w2", LS_DT_FP32, GRAPH_DIMS(8, 16), NULL));
    int32_t s = graph_binary(g, "s", GRAPH_OP_ADD, h1, h2);
    int32_t m3 = graph_matmul(g, "m3", s, graph_weight(g, "w3", LS_DT_FP32, GRAPH_DIMS(16, 4), NULL));
    int32_t m4 = graph_matmul(g, "m4", s, graph_weight(g, "w4", LS_DT_FP32, GRAPH_DIMS(16, 4), NULL));
    int32_t e = graph_unary(g, "s.bf16", GRAPH_OP_EXP, s);  /* takes the cast's first name */
    int32_t wb = graph_weight(g, "wb", LS_DT_FP32, GRAPH_DIMS(4, 4), NULL);
    int32_t o = graph_binary(g, "o", GRAPH_OP_ADD, graph_binary(g, "t", GRAPH_OP_ADD, m3, m4), wb);
    graph_output(g, graph_matmul(g, "m5", o, wb));
    graph_output(g, e);
    struct ls_error err;
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

static void test_matmul_mode(void **state)
{
    (void)state;
    struct graph *g = sample(), *a = cast_of(g, GRAPH_AUTOCAST_MATMUL);
    /* weights read only by matmuls are stored bf16; norm params keep fp32 */
    assert_int_equal(dtype_of(a, "w1"), LS_DT_BF16);
    assert_int_equal(dtype_of(a, "w3"), LS_DT_BF16);
    assert_int_equal(dtype_of(a, "g"), LS_DT_FP32);
    /* ln is read only by matmuls: the layernorm writes bf16, no cast op */
    assert_int_equal(dtype_of(a, "ln"), LS_DT_BF16);
    assert_int_equal(graph_find_tensor(a, "ln.bf16"), -1);
    /* matmul outputs stay fp32 */
    assert_int_equal(dtype_of(a, "h1"), LS_DT_FP32);
    assert_int_equal(dtype_of(a, "m5"), LS_DT_FP32);
    /* s has mixed readers: one cast, uniquely named, right after s, shared by m3 and m4 */
    assert_int_equal(dtype_of(a, "s"), LS_DT_FP32);
    int32_t sc = graph_find_tensor(a, "s.bf16.1");
    assert_true(sc >= 0);
    assert_int_equal(graph_tensor(a, sc)->dtype, LS_DT_BF16);
    assert_int_equal(graph_find_op(a, "s.bf16.1"), graph_find_op(a, "s") + 1);
    assert_int_equal(graph_op(a, graph_find_op(a, "m3"))->inputs[0], sc);
    assert_int_equal(graph_op(a, graph_find_op(a, "m4"))->inputs[0], sc);
    assert_int_equal(graph_op(a, graph_find_op(a, "s.bf16"))->inputs[0],
                     graph_find_tensor(a, "s"));
    assert_int_equal(dtype_of(a, "s.bf16"), LS_DT_FP32);   /* the exp is untouched */
    /* wb is read by an add too: it stays fp32, its matmul reads wb.bf16, a second weight
     * holding its bf16 copy made at compile time (no run-time cast op) */
    assert_int_equal(dtype_of(a, "wb"), LS_DT_FP32);
    int32_t wc = graph_find_tensor(a, "wb.bf16");
    assert_int_equal(dtype_of(a, "wb.bf16"), LS_DT_BF16);
    assert_int_equal(graph_tensor(a, wc)->role, GRAPH_ROLE_WEIGHT);
    assert_int_equal(graph_op(a, graph_find_op(a, "wb.bf16"))->kind, GRAPH_OP_SOURCE);
    assert_int_equal(graph_op(a, graph_find_op(a, "m5"))->inputs[1], wc);
    assert_int_equal(graph_find_op(a, "wb.bf16"), graph_find_op(a, "wb") + 1);
    /* o (an add read only by a matmul) is written bf16 */
    assert_int_equal(dtype_of(a, "o"), LS_DT_BF16);
    assert_int_equal(graph_nops(a), graph_nops(g) + 2);
    /* roles survive the copy and the cast */
    assert_string_equal(graph_tensor(a, graph_find_tensor(a, "ln"))->shape.dims[1].role, "hidden");
    /* the result round-trips through .lg, and a second pass changes nothing */
    struct graph *b = cast_of(a, GRAPH_AUTOCAST_MATMUL);
    char *ta = lg_text(a), *tb = lg_text(b);
    assert_string_equal(ta, tb);
    free(ta);
    free(tb);
    graph_free(b);
    graph_free(a);
    graph_free(g);
}

static void test_none_is_identity(void **state)
{
    (void)state;
    struct graph *g = sample(), *n = cast_of(g, GRAPH_AUTOCAST_NONE);
    char *tg = lg_text(g), *tn = lg_text(n);
    graph_free(g);   /* the copy owns everything it uses */
    assert_string_equal(tg, tn);
    char *tn2 = lg_text(n);
    assert_string_equal(tn, tn2);
    free(tg);
    free(tn);
    free(tn2);
    graph_free(n);
}

/* Graph inputs and tensors made by DMA moves (reshape) get a cast. */
static void test_inputs_and_moves(void **state)
{
    (void)state;
    struct graph *g = graph_new("moves");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(2, 4, 8), NULL);
    int32_t r = graph_reshape(g, "r", x, GRAPH_DIMS(8, 8), NULL);
    int32_t y = graph_input(g, "y", LS_DT_FP32, GRAPH_DIMS(8, 8), NULL);
    int32_t w = graph_weight(g, "w", LS_DT_FP16, GRAPH_DIMS(8, 3), NULL);
    graph_output(g, graph_matmul(g, "m", r, graph_weight(g, "v", LS_DT_FP32, GRAPH_DIMS(8, 3), NULL)));
    graph_output(g, graph_matmul(g, "n", y, w));
    struct graph *a = cast_of(g, GRAPH_AUTOCAST_MATMUL);
    assert_int_equal(dtype_of(a, "r"), LS_DT_FP32);
    assert_int_equal(dtype_of(a, "r.bf16"), LS_DT_BF16);
    assert_int_equal(dtype_of(a, "y"), LS_DT_FP32);
    assert_int_equal(dtype_of(a, "y.bf16"), LS_DT_BF16);
    assert_int_equal(dtype_of(a, "w"), LS_DT_FP16);     /* other dtypes are left alone */
    assert_int_equal(graph_find_tensor(a, "x.bf16"), -1);
    graph_free(a);
    graph_free(g);
}

static void test_output_dtype_rule(void **state)
{
    (void)state;
    assert_true(graph_output_dtype_ok(GRAPH_OP_RELU, LS_DT_FP32, LS_DT_BF16));
    assert_true(graph_output_dtype_ok(GRAPH_OP_LAYERNORM, LS_DT_FP32, LS_DT_FP8));
    assert_false(graph_output_dtype_ok(GRAPH_OP_RELU, LS_DT_BF16, LS_DT_FP32));   /* wider */
    assert_false(graph_output_dtype_ok(GRAPH_OP_ADD, LS_DT_BF16, LS_DT_FP16));    /* same size */
    assert_false(graph_output_dtype_ok(GRAPH_OP_RESHAPE, LS_DT_FP32, LS_DT_BF16)); /* DMA */
    assert_false(graph_output_dtype_ok(GRAPH_OP_RELU, LS_DT_INT32, LS_DT_INT8));
    assert_true(graph_output_dtype_ok(GRAPH_OP_MATMUL, LS_DT_BF16, LS_DT_FP32));
    enum graph_autocast m;
    assert_int_equal(graph_autocast_parse("none", &m), 0);
    assert_int_equal(m, GRAPH_AUTOCAST_NONE);
    assert_int_equal(graph_autocast_parse("matmul", &m), 0);
    assert_int_equal(m, GRAPH_AUTOCAST_MATMUL);
    assert_int_equal(graph_autocast_parse("bf16", &m), -1);
    assert_string_equal(graph_autocast_name(GRAPH_AUTOCAST_MATMUL), "matmul");
}

/* Number of fp32 operands of matmul/batch_matmul/conv2d ops. */
static int fp32_dot_operands(const struct graph *g)
{
    int n = 0;
    for (int32_t o = 0; o < graph_nops(g); o++) {
        const struct graph_op *op = graph_op(g, o);
        if (op->kind != GRAPH_OP_MATMUL && op->kind != GRAPH_OP_BATCH_MATMUL &&
            op->kind != GRAPH_OP_CONV2D)
            continue;
        for (int i = 0; i < op->ninputs; i++)
            n += graph_tensor(g, op->inputs[i])->dtype == LS_DT_FP32;
    }
    return n;
}

static void check_zoo(const char *spec, int64_t layers, int64_t seq)
{
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.layers = layers;
    o.seq = seq;
    o.dtype = LS_DT_FP32;   /* some models are published in bf16 */
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(model_load(spec, &o, &g, &err), 0);   /* default: matmul */
    assert_int_equal(fp32_dot_operands(g), 0);
    graph_free(g);
    o.autocast = GRAPH_AUTOCAST_NONE;
    assert_int_equal(model_load(spec, &o, &g, &err), 0);
    assert_true(fp32_dot_operands(g) > 0);
    graph_free(g);
}

static void test_zoo_models(void **state)
{
    (void)state;
    check_zoo("zoo:bert-base", 1, 32);
    check_zoo("zoo:cnn", 0, 0);
    check_zoo("zoo:gemma", 1, 16);   /* tied LM head: a bf16 twin of the table */
    check_zoo(LAYSIM_SOURCE_DIR "/tests/data/hf/bert.json", 1, 8);
}

/* .lg files go through the pass too; --autocast is no scaling option, --layers still is. */
static void test_lg_source(void **state)
{
    (void)state;
    struct zoo_opts o;
    zoo_opts_init(&o);
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    const char *fig1 = LAYSIM_SOURCE_DIR "/examples/fig1.lg";
    assert_int_equal(model_load(fig1, NULL, &g, &err), 0);   /* NULL opts: defaults */
    assert_int_equal(fp32_dot_operands(g), 0);
    assert_true(graph_find_tensor(g, "A.bf16") >= 0);
    graph_free(g);
    o.autocast = GRAPH_AUTOCAST_NONE;
    assert_false(model_opts_any(&o));
    assert_int_equal(model_load(fig1, &o, &g, &err), 0);
    assert_int_equal(fp32_dot_operands(g), 2);
    graph_free(g);
    o.layers = 2;
    assert_int_equal(model_load(fig1, &o, &g, &err), LS_ERR_INPUT);
    assert_null(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_mode),
        cmocka_unit_test(test_none_is_identity),
        cmocka_unit_test(test_inputs_and_moves),
        cmocka_unit_test(test_output_dtype_rule),
        cmocka_unit_test(test_zoo_models),
        cmocka_unit_test(test_lg_source),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
