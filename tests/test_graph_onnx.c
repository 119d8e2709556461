/* graph/onnx: hand-built models (written here with the generated protobuf-c structs) through
 * the importer: op names, unknown dims from --batch/--seq/--input, shape arithmetic folded,
 * export_params=False weights, and malformed models answered with LS_ERR_INPUT naming the
 * node or the byte offset. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/model.h"
#include "graph/onnx.h"
#include "onnx.pb-c.h"

/* ---- a tiny model builder (everything static or malloc'ed per test, freed at the end) -- */

#define MAXN 32
struct mb {
    Onnx__ModelProto m;
    Onnx__GraphProto g;
    Onnx__OperatorSetIdProto opset, *opsets[1];
    Onnx__NodeProto nodes[MAXN], *pnodes[MAXN];
    Onnx__ValueInfoProto vis[MAXN], *pin[MAXN], *pout[MAXN];
    Onnx__TypeProto types[MAXN];
    Onnx__TypeProto__Tensor tts[MAXN];
    Onnx__TensorShapeProto shapes[MAXN];
    Onnx__TensorShapeProto__Dimension dims[MAXN][6], *pdims[MAXN][6];
    Onnx__TensorProto inits[MAXN], *pinits[MAXN];
    Onnx__AttributeProto attrs[MAXN], *pattrs[MAXN];
    int64_t ivals[MAXN][8];
    int nvi, nattr;
};

static void mb_init(struct mb *b)
{
    memset(b, 0, sizeof *b);
    b->m = (Onnx__ModelProto)ONNX__MODEL_PROTO__INIT;
    b->g = (Onnx__GraphProto)ONNX__GRAPH_PROTO__INIT;
    b->opset = (Onnx__OperatorSetIdProto)ONNX__OPERATOR_SET_ID_PROTO__INIT;
    b->opset.has_version = 1;
    b->opset.version = 13;
    b->opsets[0] = &b->opset;
    b->m.has_ir_version = 1;
    b->m.ir_version = 7;
    b->m.n_opset_import = 1;
    b->m.opset_import = b->opsets;
    b->m.graph = &b->g;
    b->g.name = "tiny";
    b->g.node = b->pnodes;
    b->g.input = b->pin;
    b->g.output = b->pout;
    b->g.initializer = b->pinits;
}

/* A tensor value info; dims: >0 a size, 0 the dim_param params[i]. */
static Onnx__ValueInfoProto *mb_vi(struct mb *b, char *name, int rank, const int64_t *d,
                                   char **params)
{
    int i = b->nvi++;
    b->vis[i] = (Onnx__ValueInfoProto)ONNX__VALUE_INFO_PROTO__INIT;
    b->types[i] = (Onnx__TypeProto)ONNX__TYPE_PROTO__INIT;
    b->tts[i] = (Onnx__TypeProto__Tensor)ONNX__TYPE_PROTO__TENSOR__INIT;
    b->shapes[i] = (Onnx__TensorShapeProto)ONNX__TENSOR_SHAPE_PROTO__INIT;
    for (int k = 0; k < rank; k++) {
        Onnx__TensorShapeProto__Dimension *dm = &b->dims[i][k];
        *dm = (Onnx__TensorShapeProto__Dimension)ONNX__TENSOR_SHAPE_PROTO__DIMENSION__INIT;
        if (d[k] > 0) {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dm->dim_value = d[k];
        } else {
            dm->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dm->dim_param = params[k];
        }
        b->pdims[i][k] = dm;
    }
    b->shapes[i].n_dim = (size_t)rank;
    b->shapes[i].dim = b->pdims[i];
    b->tts[i].has_elem_type = 1;
    b->tts[i].elem_type = 1;
    b->tts[i].shape = &b->shapes[i];
    b->types[i].value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    b->types[i].tensor_type = &b->tts[i];
    b->vis[i].name = name;
    b->vis[i].type = &b->types[i];
    return &b->vis[i];
}

static void mb_input(struct mb *b, char *name, int rank, const int64_t *d, char **params)
{
    b->pin[b->g.n_input++] = mb_vi(b, name, rank, d, params);
}

static void mb_output(struct mb *b, char *name)
{
    b->pout[b->g.n_output++] = mb_vi(b, name, 0, NULL, NULL);
}

/* An initializer: dims only (float), or int64 values (vals != NULL, rank 1). */
static void mb_init_t(struct mb *b, char *name, int rank, int64_t *d, const int64_t *vals)
{
    size_t i = b->g.n_initializer++;
    Onnx__TensorProto *t = &b->inits[i];
    *t = (Onnx__TensorProto)ONNX__TENSOR_PROTO__INIT;
    t->name = name;
    t->n_dims = (size_t)rank;
    t->dims = d;
    t->has_data_type = 1;
    t->data_type = vals ? 7 : 1;
    if (vals) {
        t->n_int64_data = (size_t)d[0];
        t->int64_data = (int64_t *)vals;
    }
    b->pinits[i] = t;
}

static Onnx__NodeProto *mb_node(struct mb *b, char *op, char *name, int nin, char **in,
                                int nout, char **out)
{
    size_t i = b->g.n_node++;
    Onnx__NodeProto *n = &b->nodes[i];
    *n = (Onnx__NodeProto)ONNX__NODE_PROTO__INIT;
    n->op_type = op;
    n->name = name;
    n->n_input = (size_t)nin;
    n->input = in;
    n->n_output = (size_t)nout;
    n->output = out;
    b->pnodes[i] = n;
    return n;
}

static void mb_attr_ints(struct mb *b, Onnx__NodeProto *n, char *name, int cnt,
                         const int64_t *v)
{
    int i = b->nattr++;
    Onnx__AttributeProto *a = &b->attrs[i];
    *a = (Onnx__AttributeProto)ONNX__ATTRIBUTE_PROTO__INIT;
    a->name = name;
    a->has_type = 1;
    if (cnt < 0) {
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
        a->has_i = 1;
        a->i = v[0];
    } else {
        a->type = ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
        memcpy(b->ivals[i], v, sizeof(int64_t) * (size_t)cnt);
        a->n_ints = (size_t)cnt;
        a->ints = b->ivals[i];
    }
    b->pattrs[i] = a;
    if (!n->attribute)
        n->attribute = &b->pattrs[i];
    n->n_attribute++;   /* a node's attributes are added one after another */
}

static uint8_t *mb_pack(struct mb *b, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(&b->m);
    uint8_t *buf = malloc(*len);
    onnx__model_proto__pack(&b->m, buf);
    return buf;
}

static int import(struct mb *b, const struct zoo_opts *o, struct graph **g,
                  struct ls_error *err)
{
    size_t len;
    uint8_t *buf = mb_pack(b, &len);
    ls_error_clear(err);
    *g = NULL;
    int rc = onnx_import("tiny.onnx", buf, len, o, g, err);
    free(buf);
    return rc;
}

static const struct graph_shape *shape_of(const struct graph *g, const char *op)
{
    int32_t k = graph_find_op(g, op);
    assert_true(k >= 0);
    return &graph_tensor(g, graph_op(g, k)->output)->shape;
}

/* ---- a conv net: x[batch,3,8,8] -> Conv -> Relu -> GlobalAveragePool -> Flatten -> Gemm */

static char *x_params[] = {"batch", NULL, NULL, NULL};
static int64_t x_dims[] = {0, 3, 8, 8}, w_dims[] = {4, 3, 3, 3}, b_dims[] = {4},
               fc_dims[] = {10, 4}, fcb_dims[] = {10};
static char *conv_in[] = {"x", "conv.weight", "conv.bias"}, *conv_out[] = {"c"};
static char *relu_in[] = {"c"}, *relu_out[] = {"r"}, *gap_out[] = {"p"}, *gap_in[] = {"r"};
static char *fl_in[] = {"p"}, *fl_out[] = {"f"};
static char *fc_in[] = {"f", "fc.weight", "fc.bias"}, *fc_out[] = {"logits"};

static void build_cnn(struct mb *b, int params_as_inputs)
{
    mb_init(b);
    mb_input(b, "x", 4, x_dims, x_params);
    if (params_as_inputs) {   /* export_params=False */
        mb_input(b, "conv.weight", 4, w_dims, NULL);
        mb_input(b, "conv.bias", 1, b_dims, NULL);
        mb_input(b, "fc.weight", 2, fc_dims, NULL);
        mb_input(b, "fc.bias", 1, fcb_dims, NULL);
    } else {
        mb_init_t(b, "conv.weight", 4, w_dims, NULL);
        mb_init_t(b, "conv.bias", 1, b_dims, NULL);
        mb_init_t(b, "fc.weight", 2, fc_dims, NULL);
        mb_init_t(b, "fc.bias", 1, fcb_dims, NULL);
    }
    Onnx__NodeProto *c = mb_node(b, "Conv", "/conv/Conv", 3, conv_in, 1, conv_out);
    static const int64_t pads[] = {1, 1, 1, 1}, ks[] = {3, 3}, one = 1;
    mb_attr_ints(b, c, "pads", 4, pads);
    mb_attr_ints(b, c, "kernel_shape", 2, ks);
    mb_node(b, "Relu", "/relu/Relu", 1, relu_in, 1, relu_out);
    mb_node(b, "GlobalAveragePool", "gap", 1, gap_in, 1, gap_out);
    mb_node(b, "Flatten", "flat", 1, fl_in, 1, fl_out);
    Onnx__NodeProto *fc = mb_node(b, "Gemm", "fc", 3, fc_in, 1, fc_out);
    mb_attr_ints(b, fc, "transB", -1, &one);
    mb_output(b, "logits");
}

static void test_cnn(void **state)
{
    (void)state;
    struct mb *b = malloc(sizeof *b);
    struct graph *g;
    struct ls_error err;
    for (int params = 0; params < 2; params++) {
        build_cnn(b, params);
        assert_int_equal(import(b, NULL, &g, &err), 0);
        assert_int_equal(shape_of(g, "/conv/Conv.conv")->dims[2].size, 8);   /* pads 1 */
        const struct graph_shape *s = shape_of(g, "fc");
        assert_int_equal(s->rank, 2);
        assert_int_equal(s->dims[0].size, 1);   /* batch defaults to 1 */
        assert_int_equal(s->dims[1].size, 10);
        assert_int_equal(graph_op(g, graph_find_op(g, "fc"))->kind, GRAPH_OP_ADD);
        assert_int_equal(graph_op(g, graph_find_op(g, "fc.matmul"))->kind, GRAPH_OP_MATMUL);
        assert_int_equal(graph_tensor(g, graph_find_tensor(g, "conv.weight"))->role,
                         GRAPH_ROLE_WEIGHT);
        assert_int_equal(graph_tensor(g, graph_find_tensor(g, "x"))->role, GRAPH_ROLE_INPUT);
        graph_free(g);
    }
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.batch = 3;
    assert_int_equal(import(b, &o, &g, &err), 0);
    assert_int_equal(shape_of(g, "fc")->dims[0].size, 3);
    graph_free(g);
    o.batch = 0;
    o.inputs = "x=2x3x16x16";
    assert_int_equal(import(b, &o, &g, &err), 0);
    assert_int_equal(shape_of(g, "/conv/Conv.conv")->dims[3].size, 16);
    assert_int_equal(shape_of(g, "fc")->dims[0].size, 2);
    graph_free(g);
    o.inputs = "x=2x3x16";   /* rank 3 where the model declares 4: rejected before any node */
    assert_int_equal(import(b, &o, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--input x=...: rank 3, the model declares rank 4"));
    o.inputs = "x=2xx3";
    assert_int_equal(import(b, &o, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--input"));
    free(b);
}

/* ---- shape arithmetic: Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1, 4, 4])) */

static char *t_params[] = {"batch", "sequence", NULL};
static int64_t t_dims[] = {0, 0, 16}, idx0[] = {0}, one_dim[] = {1}, tail[] = {-1, 4, 4},
               tail_dim[] = {3}, axes0[] = {0};
static char *sh_in[] = {"t"}, *sh_out[] = {"shape"}, *ga_in[] = {"shape", "zero"},
            *ga_out[] = {"n"}, *un_in[] = {"n", "axes0"}, *un_out[] = {"n1"},
            *cc_in[] = {"n1", "tail"}, *cc_out[] = {"target"}, *rs_in[] = {"t", "target"},
            *rs_out[] = {"y"};

static void build_shape_math(struct mb *b)
{
    static int64_t scalar_dims[1];
    mb_init(b);
    mb_input(b, "t", 3, t_dims, t_params);
    mb_init_t(b, "tail", 1, tail_dim, tail);
    mb_init_t(b, "axes0", 1, one_dim, axes0);
    mb_init_t(b, "zero", 1, one_dim, idx0);
    b->inits[b->g.n_initializer - 1].n_dims = 0;   /* a scalar index */
    b->inits[b->g.n_initializer - 1].dims = scalar_dims;
    mb_node(b, "Shape", "shape", 1, sh_in, 1, sh_out);
    mb_node(b, "Gather", "n", 2, ga_in, 1, ga_out);
    mb_node(b, "Unsqueeze", "n1", 2, un_in, 1, un_out);
    mb_node(b, "Concat", "target", 2, cc_in, 1, cc_out);
    Onnx__NodeProto *c = &b->nodes[b->g.n_node - 1];
    static const int64_t zero = 0;
    mb_attr_ints(b, c, "axis", -1, &zero);
    mb_node(b, "Reshape", "reshape", 2, rs_in, 1, rs_out);
    mb_output(b, "y");
}

static void test_shape_math(void **state)
{
    (void)state;
    struct mb *b = malloc(sizeof *b);
    struct graph *g;
    struct ls_error err;
    build_shape_math(b);
    assert_int_equal(import(b, NULL, &g, &err), 0);
    const struct graph_shape *s = shape_of(g, "reshape");
    assert_int_equal(s->rank, 4);
    assert_int_equal(s->dims[0].size, 1);
    assert_int_equal(s->dims[1].size, 128);   /* the sequence dim from the --seq default */
    assert_int_equal(graph_find_op(g, "target"), -1);   /* folded: no op */
    graph_free(g);
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.inputs = "other=1;t=2x5x16";   /* an entry naming no graph input is an error */
    assert_int_equal(import(b, &o, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no input 'other' (its inputs: t)"));
    o.inputs = "t=2x5x16";
    assert_int_equal(import(b, &o, &g, &err), 0);
    s = shape_of(g, "reshape");
    assert_int_equal(s->dims[0].size, 2);
    assert_int_equal(s->dims[1].size, 5);
    graph_free(g);
    /* a dim that is neither batch nor sequence-like stays unknown: exit 2 naming it */
    t_params[1] = "height";
    build_shape_math(b);
    assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--input t="));
    t_params[1] = "sequence";
    free(b);
}

/* ---- malformed models ---- */

static char *cy_a_in[] = {"x", "q"}, *cy_a_out[] = {"p"}, *cy_b_in[] = {"p"},
            *cy_b_out[] = {"q"}, *miss_in[] = {"x", "nope"}, *un_op_out[] = {"o"};

static void test_malformed(void **state)
{
    (void)state;
    struct mb *b = malloc(sizeof *b);
    struct graph *g;
    struct ls_error err;
    static int64_t d2[] = {2, 3};
    /* truncated */
    build_cnn(b, 0);
    size_t len;
    uint8_t *buf = mb_pack(b, &len);
    assert_int_equal(onnx_import("t.onnx", buf, len - 7, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "byte offset"));
    assert_null(g);
    /* wrong wire type: field 7 (graph) as a varint */
    uint8_t bad[] = {0x08, 0x07, 0x38, 0x01};
    assert_int_equal(onnx_import("t.onnx", bad, sizeof bad, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "byte offset 2"));
    assert_non_null(strstr(err.msg, "graph"));
    /* garbage and empty */
    assert_int_equal(onnx_import("t.onnx", "lg 1\n", 5, NULL, &g, &err), LS_ERR_INPUT);
    assert_int_equal(onnx_import("t.onnx", "", 0, NULL, &g, &err), LS_ERR_INPUT);
    free(buf);
    /* a cycle */
    mb_init(b);
    mb_input(b, "x", 2, d2, NULL);
    mb_node(b, "Add", "a", 2, cy_a_in, 1, cy_a_out);
    mb_node(b, "Relu", "b", 1, cy_b_in, 1, cy_b_out);
    mb_output(b, "q");
    assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "cycle"));
    assert_non_null(strstr(err.msg, "'a' (Add)"));
    /* a missing input */
    mb_init(b);
    mb_input(b, "x", 2, d2, NULL);
    mb_node(b, "Add", "a", 2, miss_in, 1, cy_a_out);
    mb_output(b, "p");
    assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "'nope'"));
    /* an unsupported operator */
    mb_init(b);
    mb_input(b, "x", 2, d2, NULL);
    mb_node(b, "Unique", "uq", 1, cy_b_in - 0, 1, un_op_out)->input = miss_in;
    mb_output(b, "o");
    assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "'uq' (Unique): unsupported operator"));
    /* an output nobody produces */
    mb_init(b);
    mb_input(b, "x", 2, d2, NULL);
    mb_output(b, "ghost");
    assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "ghost"));
    free(b);
}

/* ---- values that do not fit: a graph input's dim_value below 1, huge perm values ---- */

static char *tr_in[] = {"x"}, *tr_out[] = {"y"};

static void test_bad_values(void **state)
{
    (void)state;
    struct mb *b = malloc(sizeof *b);
    struct graph *g;
    struct ls_error err;
    static int64_t d3[] = {2, 3, 4};
    /* dim_value 0 or -5 on a graph input: an error naming it (not silently the batch) */
    static const int64_t below[] = {0, -5};
    for (int k = 0; k < 2; k++) {
        mb_init(b);
        mb_input(b, "x", 3, d3, NULL);
        b->dims[0][0].dim_value = below[k];
        mb_node(b, "Relu", "r", 1, tr_in, 1, tr_out);
        mb_output(b, "y");
        assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
        assert_non_null(strstr(err.msg, "graph input 'x' axis 0 is"));
        assert_non_null(strstr(err.msg, "--input x="));
    }
    /* perm values beyond int are out of range (they truncated to "axis 0 used twice") */
    static const int64_t huge[] = {(int64_t)1 << 62, INT64_MIN, 1};
    mb_init(b);
    mb_input(b, "x", 3, d3, NULL);
    mb_attr_ints(b, mb_node(b, "Transpose", "t", 1, tr_in, 1, tr_out), "perm", 3, huge);
    mb_output(b, "y");
    assert_int_equal(import(b, NULL, &g, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "perm[0] = 4611686018427387904 is out of range [0, 2]"));
    free(b);
}

/* ---- Pad(x, Concat(zeros6, Div(ReduceMax(Split(Shape(x))[1]), 8) x 2)): the pads fold
 * through Split and ReduceMax into constants [0,0,0,0,0,0,1,1] */

static int64_t p_dims[] = {1, 3, 8, 8}, six[] = {6}, two_parts[] = {2, 2},
               two[] = {2}, zeros6[] = {0, 0, 0, 0, 0, 0}, eight[] = {8};
static char *ps_in[] = {"x"}, *ps_out[] = {"shp"}, *sp_in[] = {"shp", "parts"},
            *sp_out[] = {"nc", "hw"}, *rm_in[] = {"hw"}, *rm_out[] = {"m"},
            *dv_in[] = {"m", "eight"}, *dv_out[] = {"q"}, *pc_in[] = {"zeros6", "q", "q"},
            *pc_out[] = {"pads"}, *pd_in[] = {"x", "pads"}, *pd_out[] = {"y"};

static void test_fold_split_reduce(void **state)
{
    (void)state;
    struct mb *b = malloc(sizeof *b);
    struct graph *g;
    struct ls_error err;
    static const int64_t zero = 0, one = 1;
    mb_init(b);
    mb_input(b, "x", 4, p_dims, NULL);
    mb_init_t(b, "parts", 1, two, two_parts);
    mb_init_t(b, "zeros6", 1, six, zeros6);
    mb_init_t(b, "eight", 1, one_dim, eight);
    mb_node(b, "Shape", "shp", 1, ps_in, 1, ps_out);
    mb_attr_ints(b, mb_node(b, "Split", "split", 2, sp_in, 2, sp_out), "axis", -1, &zero);
    mb_attr_ints(b, mb_node(b, "ReduceMax", "m", 1, rm_in, 1, rm_out), "keepdims", -1, &one);
    mb_node(b, "Div", "q", 2, dv_in, 1, dv_out);
    mb_attr_ints(b, mb_node(b, "Concat", "pads", 3, pc_in, 1, pc_out), "axis", -1, &zero);
    mb_node(b, "Pad", "pad", 2, pd_in, 1, pd_out);
    mb_output(b, "y");
    assert_int_equal(import(b, NULL, &g, &err), 0);
    const struct graph_shape *s = shape_of(g, "pad.pad3");   /* the last zero block */
    assert_int_equal(s->rank, 4);
    assert_int_equal(s->dims[1].size, 3);
    assert_int_equal(s->dims[2].size, 9);   /* 8 + the folded pad of 1 at the end */
    assert_int_equal(s->dims[3].size, 9);
    assert_int_equal(graph_find_op(g, "m"), -1);   /* folded: no op */
    graph_free(g);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cnn),
        cmocka_unit_test(test_shape_math),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_bad_values),
        cmocka_unit_test(test_fold_split_reduce),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
