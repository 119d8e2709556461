/* graph/import/onnx_ops: the operator table of the ONNX importer and the elementwise,
 * reduction, cast and constant-producing operators. Every approximation is listed in
 * docs/import.md. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/onnx_ops.h"

int32_t oxo_req(struct ox *x, int k)
{
    struct ox_val *v = ox_in(x, k);
    if (!v)
        return OX_FAIL_T(x, "input %d is missing", k);
    return ox_tensor(x, v, -1);
}

static int vi_shape(const Onnx__ValueInfoProto *vi, int *rank, int64_t *dims)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type ||
        !tp->tensor_type->shape || tp->tensor_type->shape->n_dim > GRAPH_MAX_RANK)
        return -1;
    const Onnx__TensorShapeProto *s = tp->tensor_type->shape;
    for (size_t i = 0; i < s->n_dim; i++) {
        if (s->dim[i]->value_case != ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE ||
            s->dim[i]->dim_value < 1 || s->dim[i]->dim_value > GRAPH_MAX_DIM)
            return -1;
        dims[i] = s->dim[i]->dim_value;
    }
    *rank = (int)s->n_dim;
    return 0;
}

int oxo_value_info(struct ox *x, int k, int *rank, int64_t *dims)
{
    if ((size_t)k >= x->node->n_output)
        return -1;
    const char *name = x->node->output[k];
    for (size_t i = 0; i < x->gp->n_value_info; i++)
        if (x->gp->value_info[i]->name && !strcmp(x->gp->value_info[i]->name, name))
            return vi_shape(x->gp->value_info[i], rank, dims);
    for (size_t i = 0; i < x->gp->n_output; i++)
        if (x->gp->output[i]->name && !strcmp(x->gp->output[i]->name, name))
            return vi_shape(x->gp->output[i], rank, dims);
    return -1;
}

/* ---- elementwise ---- */

struct unary_map {
    const char *op;
    enum graph_op_kind kind;
};

/* Nearest IR kind of each elementwise ONNX operator (same shape, one engine pass). */
static const struct unary_map unary_ops[] = {
    {"Relu", GRAPH_OP_RELU},         {"Gelu", GRAPH_OP_GELU},
    {"FastGelu", GRAPH_OP_GELU},     {"BiasGelu", GRAPH_OP_GELU},
    {"Sigmoid", GRAPH_OP_SIGMOID},   {"Tanh", GRAPH_OP_TANH},
    {"Exp", GRAPH_OP_EXP},           {"HardSwish", GRAPH_OP_SILU},
    {"HardSigmoid", GRAPH_OP_SIGMOID}, {"Clip", GRAPH_OP_RELU},
    {"LeakyRelu", GRAPH_OP_RELU},    {"Elu", GRAPH_OP_RELU},
    {"Selu", GRAPH_OP_RELU},         {"Celu", GRAPH_OP_RELU},
    {"ThresholdedRelu", GRAPH_OP_RELU}, {"Softplus", GRAPH_OP_SILU},
    {"Mish", GRAPH_OP_SILU},         {"Erf", GRAPH_OP_TANH},
    {"Softsign", GRAPH_OP_TANH},     {"Sqrt", GRAPH_OP_RSQRT},
    {"Reciprocal", GRAPH_OP_RSQRT},  {"Log", GRAPH_OP_EXP},
    {"Sin", GRAPH_OP_TANH},          {"Cos", GRAPH_OP_TANH},
    {"Neg", GRAPH_OP_COPY},          {"Abs", GRAPH_OP_RELU},
    {"Floor", GRAPH_OP_COPY},        {"Ceil", GRAPH_OP_COPY},
    {"Round", GRAPH_OP_COPY},        {"Sign", GRAPH_OP_COPY},
    {"Not", GRAPH_OP_COPY},          {"IsNaN", GRAPH_OP_COPY},
};

static const struct unary_map binary_ops[] = {
    {"Add", GRAPH_OP_ADD}, {"Sub", GRAPH_OP_SUB}, {"Mul", GRAPH_OP_MUL},
    {"Div", GRAPH_OP_DIV}, {"Max", GRAPH_OP_MAX}, {"Min", GRAPH_OP_MAX},
    {"Pow", GRAPH_OP_MUL}, {"Sum", GRAPH_OP_ADD}, {"Mean", GRAPH_OP_ADD},
    {"Mod", GRAPH_OP_SUB}, {"And", GRAPH_OP_MUL}, {"Or", GRAPH_OP_MAX},
    {"Xor", GRAPH_OP_SUB}, {"Equal", GRAPH_OP_SUB}, {"Less", GRAPH_OP_SUB},
    {"Greater", GRAPH_OP_SUB}, {"LessOrEqual", GRAPH_OP_SUB},
    {"GreaterOrEqual", GRAPH_OP_SUB}, {"BitShift", GRAPH_OP_MUL},
};

static int find_kind(const struct unary_map *m, size_t n, const char *op,
                     enum graph_op_kind *k)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(m[i].op, op)) {
            *k = m[i].kind;
            return 1;
        }
    return 0;
}

static int op_unary(struct ox *x, enum graph_op_kind k)
{
    int32_t t = oxo_req(x, 0);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, t < 0 ? -1 : graph_unary(x->g, ox_name(x, "", nm, sizeof nm), k, t));
}

/* Operand dtypes made equal: the non-float side is cast to the float side's dtype. */
static int unify(struct ox *x, int32_t *a, int32_t *b)
{
    enum ls_dtype da = graph_tensor(x->g, *a)->dtype, db = graph_tensor(x->g, *b)->dtype;
    if (da == db)
        return 0;
    char nm[GRAPH_MAX_NAME + 1];
    int a_int = da == LS_DT_INT32 || da == LS_DT_INT8;
    if (a_int && !(db == LS_DT_INT32 || db == LS_DT_INT8))
        *a = graph_cast(x->g, ox_name(x, ".lhs_cast", nm, sizeof nm), *a, db);
    else
        *b = graph_cast(x->g, ox_name(x, ".rhs_cast", nm, sizeof nm), *b, da);
    return *a < 0 || *b < 0 ? -1 : 0;
}

/* The tensor of input k, constants made in the dtype of the node's first tensor input. */
static int32_t operand(struct ox *x, int k)
{
    struct ox_val *v = ox_in(x, k);
    if (!v)
        return OX_FAIL_T(x, "input %d is missing", k);
    int like = -1;
    for (size_t i = 0; i < x->node->n_input && like < 0; i++) {
        struct ox_val *w = ox_in(x, (int)i);
        if (w && w->t >= 0)
            like = graph_tensor(x->g, w->t)->dtype;
    }
    return ox_tensor(x, v, like);
}

static int op_binary(struct ox *x, enum graph_op_kind k)
{
    int n = (int)x->node->n_input;
    if (n < 1)
        return ox_fail(x, "no inputs");
    int32_t acc = operand(x, 0);
    const char *op = x->node->op_type;
    int cmp = !strcmp(op, "Equal") || !strncmp(op, "Less", 4) || !strncmp(op, "Greater", 7);
    char nm[GRAPH_MAX_NAME + 1], sfx[32];
    if (n == 1)
        return ox_bind(x, 0, acc);
    if (!strcmp(op, "Pow") && acc >= 0) {   /* x ** c: one multiply */
        return ox_bind(x, 0, graph_binary(x->g, ox_name(x, "", nm, sizeof nm), k, acc, acc));
    }
    for (int i = 1; i < n && acc >= 0; i++) {
        int32_t b = operand(x, i);
        if (b < 0 || unify(x, &acc, &b))
            return -1;
        snprintf(sfx, sizeof sfx, ".%d", i);
        if (i == n - 1 && !cmp)
            sfx[0] = 0;
        acc = graph_binary(x->g, ox_name(x, sfx, nm, sizeof nm), k, acc, b);
    }
    if (cmp && acc >= 0)
        acc = graph_cast(x->g, ox_name(x, "", nm, sizeof nm), acc, LS_DT_INT8);
    return ox_bind(x, 0, acc);
}

static int op_prelu(struct ox *x)
{
    int32_t t = operand(x, 0), s = operand(x, 1);
    if (t < 0 || s < 0 || unify(x, &t, &s))
        return -1;
    char nm[GRAPH_MAX_NAME + 1];
    int32_t m = graph_binary(x->g, ox_name(x, ".neg", nm, sizeof nm), GRAPH_OP_MUL, t, s);
    return ox_bind(x, 0, graph_binary(x->g, ox_name(x, "", nm, sizeof nm), GRAPH_OP_MAX, t, m));
}

/* Where(c, a, b): max(a, b) (same shape and cost), broadcast to the condition's shape. */
static int op_where(struct ox *x)
{
    struct ox_val *c = ox_in(x, 0);
    int32_t a = operand(x, 1), b = operand(x, 2);
    if (!c || a < 0 || b < 0 || unify(x, &a, &b))
        return c ? -1 : ox_fail(x, "condition missing");
    char nm[GRAPH_MAX_NAME + 1];
    int32_t m = graph_binary(x->g, ox_name(x, ".select", nm, sizeof nm), GRAPH_OP_MAX, a, b);
    if (m < 0)
        return -1;
    const struct graph_shape *s = &graph_tensor(x->g, m)->shape;
    int64_t d[GRAPH_MAX_RANK], o[OX_MAX_RANK];
    for (int i = 0; i < s->rank; i++)
        d[i] = s->dims[i].size;
    int r;
    if (oxo_broadcast_shape(x, s->rank, d, c->rank, c->dims, &r, o))
        return -1;
    if (r > GRAPH_MAX_RANK)
        return ox_fail(x, "output rank %d exceeds %d", r, GRAPH_MAX_RANK);
    return ox_bind(x, 0, oxo_broadcast(x, m, r, o, ""));
}

static int op_softmax(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r = graph_tensor(x->g, t)->shape.rank;
    int64_t a = ox_attr_i(x, "axis", x->opset < 13 ? 1 : -1);
    if (a < -r || a >= r)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, r);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, graph_softmax(x->g, ox_name(x, "", nm, sizeof nm), t,
                                       (int)(a < 0 ? a + r : a)));
}

static int op_reduce(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const char *op = x->node->op_type;
    enum graph_op_kind k = strstr(op, "Mean")                           ? GRAPH_OP_REDUCE_MEAN
                           : strstr(op, "Max") || strstr(op, "Min")     ? GRAPH_OP_REDUCE_MAX
                                                                        : GRAPH_OP_REDUCE_SUM;
    int r = graph_tensor(x->g, t)->shape.rank, axes[GRAPH_MAX_RANK], used[GRAPH_MAX_RANK] = {0};
    int64_t v[GRAPH_MAX_RANK];
    int n = ox_attr_ints(x, "axes", v, GRAPH_MAX_RANK);
    if (n == -1)
        n = ox_in_ints(x, 1, v, GRAPH_MAX_RANK);
    if (n == -2 || n == -3)
        return ox_fail(x, "axes must be a constant");
    if (n <= 0 && ox_attr_i(x, "noop_with_empty_axes", 0))
        return ox_bind(x, 0, t);
    int na = 0;
    for (int i = 0; i < (n > 0 ? n : r); i++) {
        int64_t a = n > 0 ? v[i] : i;
        if (a < -r || a >= r)
            return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, r);
        a = a < 0 ? a + r : a;
        if (!used[a])
            axes[na++] = (int)a;
        used[a] = 1;
    }
    if (na == 0)
        return ox_bind(x, 0, t);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, graph_reduce(x->g, ox_name(x, "", nm, sizeof nm), k, t, na, axes,
                                      (int)ox_attr_i(x, "keepdims", 1) != 0));
}

/* ArgMax/ArgMin: reduce_max along the axis, then a cast to int32. */
static int op_arg(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    int r = graph_tensor(x->g, t)->shape.rank;
    int64_t a = ox_attr_i(x, "axis", 0);
    if (a < -r || a >= r)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, r);
    int ax = (int)(a < 0 ? a + r : a);
    char nm[GRAPH_MAX_NAME + 1];
    int32_t m = graph_reduce(x->g, ox_name(x, ".max", nm, sizeof nm), GRAPH_OP_REDUCE_MAX, t, 1,
                             &ax, (int)ox_attr_i(x, "keepdims", 1) != 0);
    return ox_bind(x, 0, m < 0 ? -1 : graph_cast(x->g, ox_name(x, "", nm, sizeof nm), m,
                                                 LS_DT_INT32));
}

static int op_cast(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    enum ls_dtype to;
    if (!strcmp(x->node->op_type, "CastLike")) {
        struct ox_val *l = ox_in(x, 1);
        if (!l)
            return ox_fail(x, "target_type input missing");
        to = l->t >= 0 ? graph_tensor(x->g, l->t)->dtype : ox_dtype(l->onnx_dt);
    } else {
        to = ox_dtype((int)ox_attr_i(x, "to", 0));
    }
    if (to == LS_DT_COUNT)
        return ox_fail(x, "unsupported target type");
    if (graph_tensor(x->g, t)->dtype == to)
        return ox_bind(x, 0, t);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, graph_cast(x->g, ox_name(x, "", nm, sizeof nm), t, to));
}

/* ScatterND/ScatterElements on tensors: the data's shape, a copy (updates not modelled). */
static int op_scatter(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    char nm[GRAPH_MAX_NAME + 1];
    return ox_bind(x, 0, t < 0 ? -1 : graph_unary(x->g, ox_name(x, "", nm, sizeof nm),
                                                  GRAPH_OP_COPY, t));
}

/* ---- operators that produce constants ---- */

static int op_shape(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    if (!a)
        return ox_fail(x, "input missing");
    int64_t r = a->rank, st = ox_attr_i(x, "start", 0), en = ox_attr_i(x, "end", r);
    st = st < 0 ? st + r : st;
    en = en < 0 ? en + r : en;
    st = st < 0 ? 0 : st > r ? r : st;
    en = en < 0 ? 0 : en > r ? r : en;
    int64_t n = en > st ? en - st : 0;
    if (!strcmp(x->node->op_type, "Size"))
        n = 1;
    struct ox_val *v = ox_bind_const(x, 0, ONNX__TENSOR_PROTO__DATA_TYPE__INT64,
                                     strcmp(x->node->op_type, "Size") ? 1 : 0, &n);
    if (!v)
        return -1;
    v->vals = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!v->vals)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    if (!strcmp(x->node->op_type, "Size"))
        v->vals[0] = (double)ox_numel(a);
    else
        for (int64_t i = 0; i < n; i++)
            v->vals[i] = (double)a->dims[st + i];
    return 0;
}

static int op_constant(struct ox *x)
{
    const Onnx__AttributeProto *a = x->node->n_attribute ? x->node->attribute[0] : NULL;
    if (!a || !a->name)
        return ox_fail(x, "no value attribute");
    if (!strcmp(a->name, "value") && a->t) {
        struct ox_val *v = ox_bind_const(x, 0, 1, 0, NULL);
        return v ? ox_set_tensor(x, v, a->t) : -1;
    }
    int is_f = !strcmp(a->name, "value_float") || !strcmp(a->name, "value_floats");
    int list = !strcmp(a->name, "value_ints") || !strcmp(a->name, "value_floats");
    if (!is_f && strcmp(a->name, "value_int") && strcmp(a->name, "value_ints"))
        return ox_fail(x, "unsupported value attribute '%.60s'", a->name);
    int64_t n = list ? (int64_t)(is_f ? a->n_floats : a->n_ints) : 1;
    struct ox_val *v = ox_bind_const(x, 0, is_f ? 1 : 7, list ? 1 : 0, &n);
    if (!v || n > OX_MAX_CONST)
        return v ? 0 : -1;
    v->vals = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!v->vals)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        v->vals[i] = is_f ? (list ? a->floats[i] : a->f) : (double)(list ? a->ints[i] : a->i);
    return 0;
}

static int op_constant_of_shape(struct ox *x)
{
    int64_t d[OX_MAX_RANK];
    int n = ox_in_ints(x, 0, d, OX_MAX_RANK), r;
    if (n < 0) {
        if (oxo_value_info(x, 0, &r, d))
            return ox_fail(x, "the shape must be a constant (or value_info must give it)");
        n = r;
    }
    const Onnx__AttributeProto *a = ox_attr(x, "value");
    int dt = a && a->t && a->t->has_data_type ? a->t->data_type : 1;
    double fill = 0;
    if (a && a->t) {
        struct ox_val tmp;
        memset(&tmp, 0, sizeof tmp);
        if (ox_set_tensor(x, &tmp, a->t))
            return -1;
        fill = tmp.vals && ox_numel(&tmp) == 1 ? tmp.vals[0] : 0;
        free(tmp.vals);
    }
    for (int i = 0; i < n; i++)
        if (d[i] < 0 || d[i] > GRAPH_MAX_DIM)
            return ox_fail(x, "shape dim %d is %lld", i, (long long)d[i]);
    struct ox_val *v = ox_bind_const(x, 0, dt, n, d);
    if (!v)
        return -1;
    int64_t cnt = ox_numel(v);
    if (cnt <= OX_MAX_CONST) {
        v->vals = malloc(sizeof(double) * (size_t)(cnt ? cnt : 1));
        if (!v->vals)
            return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
        for (int64_t i = 0; i < cnt; i++)
            v->vals[i] = fill;
    }
    return 0;
}

/* Identity, Dropout (inference): the output is the input. */
static int op_alias(struct ox *x)
{
    struct ox_val *a = ox_in(x, 0);
    if (!a)
        return ox_fail(x, "input missing");
    if (a->konst && a->t < 0) {
        struct ox_val *v = ox_bind_const(x, 0, a->onnx_dt, a->rank, a->dims);
        return v ? 0 : -1;   /* values only via ox_fold; a weight on first use */
    }
    if (ox_bind_aux(x, 1, ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, a->rank, a->dims))
        return -1;   /* Dropout's mask */
    return ox_bind(x, 0, a->t);
}

/* ---- the table ---- */

struct op_entry {
    const char *op;
    int (*fn)(struct ox *x);
};

static const struct op_entry ops[] = {
    {"MatMul", oxo_matmul}, {"Gemm", oxo_gemm}, {"Einsum", oxo_einsum},
    {"Conv", oxo_conv}, {"ConvTranspose", oxo_conv_transpose},
    {"MaxPool", oxo_pool}, {"AveragePool", oxo_pool},
    {"GlobalAveragePool", oxo_global_pool}, {"GlobalMaxPool", oxo_global_pool},
    {"BatchNormalization", oxo_batchnorm}, {"LayerNormalization", oxo_layernorm},
    {"InstanceNormalization", oxo_instancenorm}, {"LSTM", oxo_lstm}, {"GRU", oxo_gru},
    {"RNN", oxo_rnn},
    {"Softmax", op_softmax}, {"LogSoftmax", op_softmax},
    {"Reshape", oxo_reshape}, {"Flatten", oxo_reshape}, {"Squeeze", oxo_reshape},
    {"Unsqueeze", oxo_reshape}, {"Transpose", oxo_transpose}, {"Concat", oxo_concat},
    {"Slice", oxo_slice}, {"Split", oxo_split}, {"Gather", oxo_gather},
    {"Pad", oxo_pad_node}, {"Resize", oxo_resize}, {"Upsample", oxo_resize},
    {"Tile", oxo_tile}, {"Expand", oxo_expand}, {"Where", op_where}, {"PRelu", op_prelu},
    {"ReduceMean", op_reduce}, {"ReduceSum", op_reduce}, {"ReduceMax", op_reduce},
    {"ReduceMin", op_reduce}, {"ReduceProd", op_reduce}, {"ReduceL2", op_reduce},
    {"ReduceSumSquare", op_reduce}, {"ArgMax", op_arg}, {"ArgMin", op_arg},
    {"Cast", op_cast}, {"CastLike", op_cast}, {"Shape", op_shape}, {"Size", op_shape},
    {"Constant", op_constant}, {"ConstantOfShape", op_constant_of_shape},
    {"Identity", op_alias}, {"Dropout", op_alias}, {"ScatterND", op_scatter},
    {"ScatterElements", op_scatter}, {"If", oxo_if}, {"Loop", oxo_loop},
    {"DepthToSpace", oxo_depth_space}, {"SpaceToDepth", oxo_depth_space}, {"Trilu", oxo_trilu},
    {"NonZero", oxo_nonzero}, {"TopK", oxo_topk}, {"GatherND", oxo_gather_nd},
    {"NonMaxSuppression", oxo_nms}, {"RoiAlign", oxo_roi_align},
};

int ox_import_node(struct ox *x)
{
    const char *op = x->node->op_type;
    enum graph_op_kind k;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(ops[i].op, op))
            return ops[i].fn(x);
    if (find_kind(unary_ops, sizeof unary_ops / sizeof *unary_ops, op, &k))
        return op_unary(x, k);
    if (find_kind(binary_ops, sizeof binary_ops / sizeof *binary_ops, op, &k))
        return op_binary(x, k);
    return ox_fail(x, "unsupported operator (docs/import.md lists the supported ones)");
}

const char *onnx_supported_ops(void)
{
    static char buf[2048];
    if (buf[0])
        return buf;
    size_t n = 0;
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", ops[i].op);
    for (size_t i = 0; i < sizeof unary_ops / sizeof *unary_ops; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", unary_ops[i].op);
    for (size_t i = 0; i < sizeof binary_ops / sizeof *binary_ops; i++)
        n += (size_t)snprintf(buf + n, sizeof buf - n, " %s", binary_ops[i].op);
    return buf;
}
