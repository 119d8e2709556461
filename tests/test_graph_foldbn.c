/* graph/foldbn: a batchnorm after a convolution folds into it; one that cannot stays. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "graph/foldbn.h"
#include "graph/graph.h"

/* x -> conv c1 -> bn b1 -> relu r -> conv c2 -> bn b2 (returned) and c2 also returned:
 * b1 folds (c1 read only by it, channel axis); b2 does not (c2 has another reader). */
static struct graph *net(void)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("net");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(1, 8, 16, 16), NULL);
    int32_t w1 = graph_weight(g, "w1", LS_DT_FP32, GRAPH_DIMS(16, 8, 3, 3), NULL);
    int32_t w2 = graph_weight(g, "w2", LS_DT_FP32, GRAPH_DIMS(16, 16, 1, 1), NULL);
    int32_t s1 = graph_weight(g, "s1", LS_DT_FP32, GRAPH_DIMS(16), NULL);
    int32_t t1 = graph_weight(g, "t1", LS_DT_FP32, GRAPH_DIMS(16), NULL);
    int32_t s2 = graph_weight(g, "s2", LS_DT_FP32, GRAPH_DIMS(16), NULL);
    int32_t t2 = graph_weight(g, "t2", LS_DT_FP32, GRAPH_DIMS(16), NULL);
    int32_t c1 = graph_conv2d(g, "c1", x, w1, 1, 1, 1);
    int32_t b1 = graph_batchnorm(g, "b1", c1, s1, t1, 1);
    int32_t r = graph_unary(g, "r", GRAPH_OP_RELU, b1);
    int32_t c2 = graph_conv2d(g, "c2", r, w2, 1, 0, 1);
    graph_output(g, graph_batchnorm(g, "b2", c2, s2, t2, 1));
    graph_output(g, c2);
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

static void test_fold(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = net(), *f = NULL;
    assert_int_equal(graph_fold_batchnorm(g, &f, &err), 0);
    /* b1 and its parameters are gone; the conv writes b1's tensor */
    assert_true(graph_find_tensor(f, "c1") < 0);
    assert_true(graph_find_tensor(f, "s1") < 0 && graph_find_tensor(f, "t1") < 0);
    int32_t b1 = graph_find_tensor(f, "b1");
    assert_true(b1 >= 0);
    assert_int_equal(graph_op(f, graph_tensor(f, b1)->producer)->kind, GRAPH_OP_CONV2D);
    /* b2 stays: c2 is also returned */
    int32_t b2 = graph_find_tensor(f, "b2");
    assert_int_equal(graph_op(f, graph_tensor(f, b2)->producer)->kind, GRAPH_OP_BATCHNORM);
    assert_true(graph_find_tensor(f, "s2") >= 0);
    assert_int_equal(graph_nops(f), graph_nops(g) - 3); /* b1 and the sources of s1, t1 */
    assert_int_equal(graph_validate(f, &err), 0);
    graph_free(f);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_fold)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
