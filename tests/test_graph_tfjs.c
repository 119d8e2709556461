/* graph/tfjs: TF.js graph-model import through its C API: telling a model.json from other
 * JSON, unknown dims from --batch/--image and from per-input shapes (the --input hook),
 * and small hand-written graphs checked op by op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/tfjs.h"
#include "util/fileio.h"

#define DATA LAYSIM_SOURCE_DIR "/tests/data/tfjs/"

static int64_t dim(const struct graph *g, const char *name, int axis)
{
    int32_t t = graph_find_tensor(g, name);
    return t < 0 ? -1 : graph_tensor(g, t)->shape.dims[axis].size;
}

static int import_text(const char *text, const struct tfjs_opts *o, struct graph **g,
                       struct ls_error *err)
{
    ls_error_clear(err);
    return tfjs_import("mem/model.json", text, strlen(text), o, g, err);
}

/* A one-conv model whose input has unknown batch, height and width. */
static const char *CONV =
    "{\"modelTopology\": {\"node\": ["
    "{\"name\": \"x\", \"op\": \"Placeholder\", \"attr\": {\"shape\": {\"shape\": {\"dim\": "
    "[{\"size\": \"-1\"}, {\"size\": \"-1\"}, {\"size\": \"-1\"}, {\"size\": \"3\"}]}}}},"
    "{\"name\": \"w\", \"op\": \"Const\"},"
    "{\"name\": \"y\", \"op\": \"Conv2D\", \"input\": [\"x\", \"w\"], \"attr\": {"
    "\"strides\": {\"list\": {\"i\": [\"1\", \"1\", \"1\", \"1\"]}},"
    "\"padding\": {\"s\": \"U0FNRQ==\"}}}]},"
    "\"weightsManifest\": [{\"paths\": [], \"weights\": ["
    "{\"name\": \"w\", \"shape\": [3, 3, 3, 8], \"dtype\": \"float32\"}]}]}";

static void test_detect(void **state)
{
    (void)state;
    assert_true(tfjs_is_model(CONV, strlen(CONV)));
    const char *hf = "{\"model_type\": \"bert\", \"hidden_size\": 64}";
    assert_false(tfjs_is_model(hf, strlen(hf)));
    const char *broken = "{\"modelTopology\": {\"node\": [}";
    assert_true(tfjs_is_model(broken, strlen(broken)));
    assert_false(tfjs_is_model("[1, 2]", 6));
}

static void test_unknown_dims(void **state)
{
    (void)state;
    struct tfjs_opts o;
    struct ls_error err;
    struct graph *g = NULL;
    tfjs_opts_init(&o);
    assert_int_equal(import_text(CONV, &o, &g, &err), 0);
    assert_int_equal(dim(g, "x", 0), 1);
    assert_int_equal(dim(g, "x", 1), TFJS_DEFAULT_IMAGE);
    assert_int_equal(dim(g, "x", 2), TFJS_DEFAULT_IMAGE);
    graph_free(g);
    o.batch = 2, o.image = 40;
    assert_int_equal(import_text(CONV, &o, &g, &err), 0);
    assert_int_equal(dim(g, "x", 0), 2);
    assert_int_equal(dim(g, "x", 2), 40);
    assert_int_equal(dim(g, "y.nchw", 1), 8); /* conv output NCHW: [2, 8, 40, 40] */
    graph_free(g);
    /* the per-input hook wins over --batch/--image; a wrong rank is refused naming x */
    struct tfjs_input_shape in = {"x:0", 4, {3, 20, 30, 3}, 0, 0};
    o.inputs = &in, o.ninputs = 1;
    assert_int_equal(import_text(CONV, &o, &g, &err), 0);
    assert_int_equal(dim(g, "x", 0), 3);
    assert_int_equal(dim(g, "x", 1), 20);
    assert_int_equal(dim(g, "y", 2), 30); /* the NHWC view of the output */
    graph_free(g);
    in.rank = 3;
    assert_int_equal(import_text(CONV, &o, &g, &err), LS_ERR_INPUT);
    assert_null(g);
    assert_non_null(strstr(err.msg, "node 'x' (Placeholder)"));
}

static void test_fixtures(void **state)
{
    (void)state;
    static const char *files[] = {"cnn.json", "post.json"};
    for (size_t i = 0; i < 2; i++) {
        char path[512], *buf = NULL;
        size_t len = 0;
        struct ls_error err;
        struct graph *g = NULL;
        snprintf(path, sizeof path, "%s%s", DATA, files[i]);
        assert_int_equal(ls_read_file(path, &buf, &len, &err), 0);
        assert_int_equal(tfjs_import(path, buf, len, NULL, &g, &err), 0);
        assert_int_equal(graph_validate(g, &err), 0);
        if (i == 0) {
            assert_int_equal(dim(g, "probs", 1), 10);
            assert_int_equal(dim(g, "conv1.conv", 2), 16); /* SAME, stride 2 on 32 */
        } else {
            assert_int_equal(dim(g, "nms", 0), 5);          /* max_output_size bound */
            assert_int_equal(dim(g, "topk", 1), 3);
        }
        graph_free(g);
        free(buf);
    }
}

static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *file, *want;
    } bad[] = {
        {"bad_unsupported.json", "node 'y' (Cumsum): unsupported op"},
        {"bad_missing_input.json", "'nowhere' names no node"},
        {"bad_cycle.json", "lies on a cycle"},
        {"bad_wrong_type.json", "expected an array of strings"},
        {"bad_dynamic_reshape.json", "node 'y' (Reshape): input 1 must be a constant"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char path[512], *buf = NULL;
        size_t len = 0;
        struct ls_error err;
        struct graph *g = NULL;
        snprintf(path, sizeof path, "%s%s", DATA, bad[i].file);
        assert_int_equal(ls_read_file(path, &buf, &len, &err), 0);
        assert_int_equal(tfjs_import(path, buf, len, NULL, &g, &err), LS_ERR_INPUT);
        assert_null(g);
        if (!strstr(err.msg, bad[i].want))
            fail_msg("%s: '%s' lacks '%s'", bad[i].file, err.msg, bad[i].want);
        assert_true(err.line > 0);
        free(buf);
    }
}

static void test_truncations(void **state)
{
    (void)state;
    char path[512], *buf = NULL;
    size_t len = 0;
    struct ls_error err;
    snprintf(path, sizeof path, "%scnn.json", DATA);
    assert_int_equal(ls_read_file(path, &buf, &len, &err), 0);
    for (size_t cut = 0; cut < len; cut += 97) {
        struct graph *g = NULL;
        assert_int_equal(tfjs_import(path, buf, cut, NULL, &g, &err), LS_ERR_INPUT);
        assert_null(g);
    }
    free(buf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_detect),         cmocka_unit_test(test_unknown_dims),
        cmocka_unit_test(test_fixtures),       cmocka_unit_test(test_errors),
        cmocka_unit_test(test_truncations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
