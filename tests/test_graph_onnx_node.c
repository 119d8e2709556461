/* graph/onnx: import every node model of Debian's libonnx-testdata whose operators the
 * importer supports and compare the output shapes with the expected outputs of
 * test_data_set_0 (TensorProto dims). Integer graph inputs of those models (shapes, axes,
 * pads, repeats...) are runtime data there; the test turns them into initializers from
 * input_<k>.pb first, as an exporter does for constants. Skipped without the package. */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/onnx.h"
#include "onnx.pb-c.h"
#include "util/fileio.h"

#define NODE_DIR "/usr/share/libonnx-testdata/data/node"

static Onnx__TensorProto *read_tensor(const char *dir, const char *kind, size_t k)
{
    char path[1200], *buf = NULL;
    size_t len = 0;
    struct ls_error err;
    snprintf(path, sizeof path, "%s/test_data_set_0/%s_%zu.pb", dir, kind, k);
    if (ls_read_file(path, &buf, &len, &err))
        return NULL;
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, (const uint8_t *)buf);
    free(buf);
    return t;
}

static int supported(const char *op)
{
    const char *list = onnx_supported_ops();
    size_t n = strlen(op);
    for (const char *p = strstr(list, op); p; p = strstr(p + 1, op))
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == 0))
            return 1;
    return 0;
}

static int is_int_type(int dt)
{
    return dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT64 || dt == ONNX__TENSOR_PROTO__DATA_TYPE__INT32;
}

/* Integer graph inputs become initializers holding their test data. Returns the tensors
 * added (freed by the caller) via *added. */
static void inline_int_inputs(const char *dir, Onnx__ModelProto *m, Onnx__TensorProto **added,
                              char **names, size_t *nadded, Onnx__TensorProto ***inits)
{
    Onnx__GraphProto *g = m->graph;
    *nadded = 0;
    *inits = calloc(g->n_initializer + g->n_input + 1, sizeof **inits);
    for (size_t i = 0; i < g->n_initializer; i++)
        (*inits)[i] = g->initializer[i];
    size_t n = g->n_initializer;
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__TypeProto *tp = g->input[i]->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
            !is_int_type(tp->tensor_type->elem_type))
            continue;
        Onnx__TensorProto *t = read_tensor(dir, "input", i);
        if (!t)
            continue;
        names[*nadded] = t->name;   /* its own name, restored before freeing */
        t->name = g->input[i]->name;
        added[(*nadded)++] = t;
        (*inits)[n++] = t;
    }
    g->initializer = *inits;
    g->n_initializer = n;
}

/* A graph with an operator whose output size depends on the data (NonZero,
 * NonMaxSuppression): the importer gives the maximum size, so its outputs are bounds. */
static int data_dependent(const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++)
        if (!strcmp(gp->node[i]->op_type, "NonZero") ||
            !strcmp(gp->node[i]->op_type, "NonMaxSuppression"))
            return 1;
    return 0;
}

/* 0 ok (a bound's dims at least the expected ones), 1 import rejected (LS_ERR_INPUT), 2 shape
 * mismatch; aborts on anything else. */
static int check_model(const char *dir, const char *name)
{
    char path[1200], *buf = NULL;
    size_t len = 0;
    struct ls_error err;
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    assert_int_equal(ls_read_file(path, &buf, &len, &err), 0);
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, (const uint8_t *)buf);
    free(buf);
    assert_non_null(m);
    for (size_t i = 0; i < m->graph->n_node; i++)
        if (!supported(m->graph->node[i]->op_type)) {
            onnx__model_proto__free_unpacked(m, NULL);
            return -1;
        }
    Onnx__TensorProto *added[64];
    char *names[64];
    size_t nadded = 0, nold = m->graph->n_initializer;
    Onnx__TensorProto **inits = NULL, **old = m->graph->initializer;
    if (m->graph->n_input < 64)
        inline_int_inputs(dir, m, added, names, &nadded, &inits);
    size_t plen = onnx__model_proto__get_packed_size(m);
    uint8_t *packed = malloc(plen);
    onnx__model_proto__pack(m, packed);
    if (inits) {
        m->graph->initializer = old;
        m->graph->n_initializer = nold;
        free(inits);
    }
    for (size_t i = 0; i < nadded; i++) {
        added[i]->name = names[i];
        onnx__tensor_proto__free_unpacked(added[i], NULL);
    }
    struct graph *g = NULL;
    ls_error_clear(&err);
    int rc = onnx_import(name, packed, plen, NULL, &g, &err), res = 0;
    free(packed);
    if (rc) {
        assert_int_equal(rc, LS_ERR_INPUT);
        assert_true(err.msg[0] != 0);
        printf("  %-50s rejected: %s\n", name, err.msg);
        onnx__model_proto__free_unpacked(m, NULL);
        return 1;
    }
    size_t k = 0;
    int bound = data_dependent(m->graph);
    for (int32_t op = 0; op < graph_nops(g) && !res; op++) {
        const struct graph_op *o = graph_op(g, op);
        if (o->kind != GRAPH_OP_RETURN)
            continue;
        Onnx__TensorProto *want = read_tensor(dir, "output", k++);
        if (!want)
            continue;
        const struct graph_shape *s = &graph_tensor(g, o->inputs[0])->shape;
        int same = (size_t)s->rank == want->n_dims;
        for (int i = 0; same && i < s->rank; i++)   /* a bound: at least the data's count */
            same = bound ? s->dims[i].size >= want->dims[i] : s->dims[i].size == want->dims[i];
        if (!same) {
            printf("  %-50s output %zu: shape mismatch (rank %d vs %zu)\n", name, k - 1,
                   s->rank, want->n_dims);
            res = 2;
        }
        onnx__tensor_proto__free_unpacked(want, NULL);
    }
    graph_free(g);
    onnx__model_proto__free_unpacked(m, NULL);
    return res;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void test_node_models(void **state)
{
    (void)state;
    DIR *d = opendir(NODE_DIR);
    if (!d) {
        printf("libonnx-testdata not installed: skipped\n");
        skip();
    }
    char *names[4096];
    size_t n = 0;
    for (struct dirent *e; (e = readdir(d)) && n < 4096;)
        if (!strncmp(e->d_name, "test_", 5))
            names[n++] = strdup(e->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, cmp_names);
    int ok = 0, rejected = 0, mismatched = 0, unsupported = 0;
    for (size_t i = 0; i < n; i++) {
        char dir[600];
        snprintf(dir, sizeof dir, "%s/%s", NODE_DIR, names[i]);
        int r = check_model(dir, names[i]);
        ok += r == 0;
        rejected += r == 1;
        mismatched += r == 2;
        unsupported += r == -1;
        free(names[i]);
    }
    printf("node models: %d imported with the expected shapes, %d rejected (LS_ERR_INPUT), "
           "%d shape mismatches, %d with unsupported operators\n",
           ok, rejected, mismatched, unsupported);
    assert_int_equal(mismatched, 0);
    assert_true(ok >= 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_node_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
