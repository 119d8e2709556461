/* graph/import: TF.js compute ops other than convolutions (tfjs_conv.c): matmuls,
 * elementwise, normalization, reductions and the data-dependent selections, lowered onto
 * the IR's kinds. */
#include <string.h>

#include "graph/import/tfjs_int.h"
static void same_dtype(struct tfjs *c, int32_t *a, int32_t *b);

/* ---- matmuls ------------------------------------------------------------------------- */

static int32_t matmul2(struct tfjs *c, struct tv *a, struct tv *b, int ta, int tb,
                       const char *name)
{
    if (a->rank < 2 || b->rank != 2)
        return tf_fail(c, "matmul operands must be rank >= 2 and 2, have %d and %d", a->rank,
                       b->rank), -1;
    int64_t k = a->dims[ta ? a->rank - 2 : a->rank - 1];
    if (k != b->dims[tb ? 1 : 0])
        return tf_fail(c, "contraction sizes differ: %lld and %lld", (long long)k,
                       (long long)b->dims[tb ? 1 : 0]), -1;
    if (a->weight && b->weight) { /* constant folding: the shape only */
        struct tnode *n = &c->nodes[c->cur];
        int64_t d[GRAPH_MAX_RANK];
        int r = 0;
        for (int i = 0; i < a->rank; i++)
            if (i != (ta ? a->rank - 2 : a->rank - 1))
                d[r++] = a->dims[i];
        d[r++] = b->dims[tb ? 0 : 1];
        tf_set_value(c, n, 0, a->dt, r, d, NULL);
        return -2;
    }
    if (k == 1 && !ta && !tb) { /* an outer product: no contraction to partition */
        int32_t x = tf_mat(c, a, NULL), y = tf_mat(c, b, NULL);
        same_dtype(c, &x, &y);
        return graph_binary(c->g, name, GRAPH_OP_MUL, x, y);
    }
    if (!ta && b->dims[tb ? 0 : 1] == 1 && tf_numel(a->rank - 1, a->dims) == 1) {
        /* a single output element: the IR's matmul needs an output axis longer than 1
         * to partition, so it is the product with the weight row summed over K */
        static const int T[2] = {1, 0};
        int32_t row = tb ? tf_mat(c, b, NULL) : tf_perm(c, b, T, tf_name_of(c, b->name, "row"));
        int32_t x = tf_mat(c, a, NULL);
        int ax[1] = {a->rank - 1};
        if (x >= 0 && row >= 0 && graph_tensor(c->g, x)->dtype != graph_tensor(c->g, row)->dtype)
            x = graph_cast(c->g, tf_name(c, "x"), x, graph_tensor(c->g, row)->dtype);
        int32_t m = graph_binary(c->g, tf_name(c, "prod"), GRAPH_OP_MUL, x, row);
        return graph_reduce(c->g, name, GRAPH_OP_REDUCE_SUM, m, 1, ax, 1);
    }
    return graph_matmul_axes(c->g, name, tf_mat(c, a, NULL), tf_mat(c, b, NULL),
                             ta ? a->rank - 2 : a->rank - 1, tb ? 1 : 0);
}

static int op_matmul(struct tfjs *c, struct tnode *n)
{
    int64_t ta, tb;
    struct tv *a = tf_in(c, n, 0), *b = tf_in(c, n, 1);
    if (!a || !b || tf_attr_int(c, n, "transpose_a", 0, &ta) ||
        tf_attr_int(c, n, "transpose_b", 0, &tb))
        return c->rc;
    int fused = n->op[0] == '_';
    int32_t y = matmul2(c, a, b, (int)ta, (int)tb, tf_name(c, fused ? "matmul" : NULL));
    if (y == -2 && !fused)
        return c->rc;
    if (y == -2)
        return tf_fail(c, "a fused matmul of two constants");
    if (y >= 0 && fused)
        y = tf_fused_tail(c, n, y, graph_tensor(c->g, y)->shape.dims[1].size, 0);
    return tf_set(c, n, 0, y);
}

/* A batch-matmul operand brought to rank r with the batch dims batch[0..r-3]: leading
 * size-1 axes added by a reshape, size-1 batch axes broadcast by concatenated copies (a
 * constant is created at the full size instead). */
static int32_t bmm_operand(struct tfjs *c, struct tv *v, int r, const int64_t *batch,
                          const char *what)
{
    int64_t d[GRAPH_MAX_RANK];
    int pad = r - v->rank;
    for (int i = 0; i < r; i++)
        d[i] = i < pad ? 1 : v->dims[i - pad];
    if (v->weight && v->t < 0) {
        struct tv w = *v;
        w.rank = r;
        for (int i = 0; i < r; i++)
            w.dims[i] = i < r - 2 ? batch[i] : d[i];
        return tf_mat(c, &w, tf_name_of(c, v->name, what));
    }
    int32_t t = tf_mat(c, v, NULL);
    if (pad)
        t = graph_reshape(c->g, tf_name(c, what), t, r, d, NULL);
    for (int i = 0; i < r - 2 && t >= 0; i++) {
        if (d[i] == batch[i])
            continue;
        if (batch[i] > GRAPH_MAX_INPUTS)
            return tf_fail(c, "cannot broadcast batch axis %d to %lld", i, (long long)batch[i]),
                   -1;
        int32_t parts[GRAPH_MAX_INPUTS];
        for (int64_t k = 0; k < batch[i]; k++)
            parts[k] = t;
        t = graph_concat(c->g, tf_name(c, what), (int)batch[i], parts, i);
    }
    return t;
}

static int op_batch_matmul(struct tfjs *c, struct tnode *n)
{
    int64_t ax, ay;
    struct tv *a = tf_in(c, n, 0), *b = tf_in(c, n, 1);
    if (!a || !b || tf_attr_int(c, n, "adj_x", 0, &ax) || tf_attr_int(c, n, "adj_y", 0, &ay))
        return c->rc;
    if (b->rank == 2 && a->rank >= 2) {
        int32_t y = matmul2(c, a, b, (int)ax, (int)ay, tf_name(c, NULL));
        return y == -2 ? c->rc : tf_set(c, n, 0, y);
    }
    int r = a->rank > b->rank ? a->rank : b->rank;
    if (a->rank < 2 || b->rank < 2 || r > GRAPH_MAX_RANK)
        return tf_fail(c, "batch matmul of ranks %d and %d", a->rank, b->rank);
    int64_t batch[GRAPH_MAX_RANK];
    for (int i = 0; i < r - 2; i++) {
        int ia = i - (r - a->rank), ib = i - (r - b->rank);
        int64_t x = ia >= 0 ? a->dims[ia] : 1, y = ib >= 0 ? b->dims[ib] : 1;
        if (x != y && x != 1 && y != 1)
            return tf_fail(c, "batch axis %d: %lld and %lld do not broadcast", i, (long long)x,
                           (long long)y);
        batch[i] = x > y ? x : y;
    }
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.nbatch = r - 2, at.ncontract = 1;
    for (int i = 0; i < r - 2; i++)
        at.lhs_batch[i] = at.rhs_batch[i] = i;
    at.lhs_contract[0] = ax ? r - 2 : r - 1;
    at.rhs_contract[0] = ay ? r - 1 : r - 2;
    int32_t in[2] = {bmm_operand(c, a, r, batch, "lhs"), bmm_operand(c, b, r, batch, "rhs")};
    if (in[0] < 0 || in[1] < 0)
        return c->rc ? c->rc : tf_fail(c, "%s", graph_error(c->g)->msg);
    same_dtype(c, &in[0], &in[1]);
    return tf_set(c, n, 0, graph_op_infer(c->g, tf_name(c, NULL), GRAPH_OP_BATCH_MATMUL, in, 2,
                                          &at));
}

/* ---- elementwise --------------------------------------------------------------------- */

/* Bring two operands to one dtype: the integer one is cast to fp32. */
static void same_dtype(struct tfjs *c, int32_t *a, int32_t *b)
{
    if (*a < 0 || *b < 0)
        return;
    enum ls_dtype da = graph_tensor(c->g, *a)->dtype, db = graph_tensor(c->g, *b)->dtype;
    if (da == db)
        return;
    if (da == LS_DT_FP32)
        *b = graph_cast(c->g, tf_name(c, "cast_b"), *b, LS_DT_FP32);
    else if (db == LS_DT_FP32)
        *a = graph_cast(c->g, tf_name(c, "cast_a"), *a, LS_DT_FP32);
    else
        *b = graph_cast(c->g, tf_name(c, "cast_b"), *b, da);
}

static int32_t binary(struct tfjs *c, const char *name, enum graph_op_kind k, int32_t a,
                      int32_t b)
{
    same_dtype(c, &a, &b);
    return graph_binary(c->g, name, k, a, b);
}

static const struct {
    const char *op;
    enum graph_op_kind kind;
} binops[] = {
    {"Add", GRAPH_OP_ADD}, {"AddV2", GRAPH_OP_ADD}, {"BiasAdd", GRAPH_OP_ADD},
    {"Sub", GRAPH_OP_SUB}, {"Mul", GRAPH_OP_MUL}, {"RealDiv", GRAPH_OP_DIV},
    {"Div", GRAPH_OP_DIV}, {"DivNoNan", GRAPH_OP_DIV}, {"FloorDiv", GRAPH_OP_DIV},
    {"FloorMod", GRAPH_OP_DIV}, {"Maximum", GRAPH_OP_MAX}, {"Minimum", GRAPH_OP_MAX},
    {"Pow", GRAPH_OP_MUL}, {"Atan2", GRAPH_OP_DIV}, {"Greater", GRAPH_OP_SUB},
    {"GreaterEqual", GRAPH_OP_SUB}, {"Less", GRAPH_OP_SUB}, {"LessEqual", GRAPH_OP_SUB},
    {"Equal", GRAPH_OP_SUB}, {"NotEqual", GRAPH_OP_SUB}, {"LogicalAnd", GRAPH_OP_MUL},
    {"LogicalOr", GRAPH_OP_MAX}, {"SquaredDifference", GRAPH_OP_SUB},
};

static int op_binary(struct tfjs *c, struct tnode *n)
{
    if (tf_fold_binary(c, n))
        return c->rc;
    enum graph_op_kind k = GRAPH_OP_ADD;
    for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
        if (!strcmp(n->op, binops[i].op))
            k = binops[i].kind;
    struct tv *a = tf_in(c, n, 0), *b = tf_in(c, n, 1);
    if (!a || !b)
        return c->rc;
    int32_t bt;
    if (!strcmp(n->op, "BiasAdd") && tf_nchw_format(c, n) && a->rank == 4)
        bt = tf_chan_vec(c, b, a->dims[1], "bias");
    else
        bt = tf_mat(c, b, NULL);
    int sq = !strcmp(n->op, "SquaredDifference");
    int32_t y = binary(c, tf_name(c, sq ? "diff" : NULL), k, tf_mat(c, a, NULL), bt);
    if (sq)
        y = graph_binary(c->g, tf_name(c, NULL), GRAPH_OP_MUL, y, y);
    return tf_set(c, n, 0, y);
}

/* AddN and Select/SelectV2 (the condition's cost left out: max of the two branches; known
 * values fold). */
static int op_addn(struct tfjs *c, struct tnode *n)
{
    int sel = strncmp(n->op, "Select", 6) == 0, first = sel ? 1 : 0;
    if (sel && tf_fold_select(c, n))
        return c->rc;
    struct tv *x = tf_in(c, n, first);
    if (!x)
        return c->rc;
    int32_t y = tf_mat(c, x, NULL);
    for (int i = first + 1; i < n->nin && y >= 0; i++) {
        struct tv *b = tf_in(c, n, i);
        if (!b)
            return c->rc;
        y = binary(c, tf_name(c, i + 1 == n->nin ? NULL : "acc"),
                   sel ? GRAPH_OP_MAX : GRAPH_OP_ADD, y, tf_mat(c, b, NULL));
    }
    return tf_set(c, n, 0, y);
}

static int op_prelu(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0), *a = tf_in(c, n, 1);
    if (!x || !a)
        return c->rc;
    int32_t xt = tf_mat(c, x, NULL), at = tf_mat(c, a, NULL);
    same_dtype(c, &xt, &at);
    int32_t m = graph_binary(c->g, tf_name(c, "alpha"), GRAPH_OP_MUL, xt, at);
    return tf_set(c, n, 0, graph_binary(c->g, tf_name(c, NULL), GRAPH_OP_MAX, xt, m));
}

static const struct {
    const char *op;
    enum graph_op_kind kind;
} unops[] = {
    {"Relu", GRAPH_OP_RELU}, {"Relu6", GRAPH_OP_RELU}, {"Elu", GRAPH_OP_RELU},
    {"Selu", GRAPH_OP_RELU}, {"LeakyRelu", GRAPH_OP_RELU}, {"Sigmoid", GRAPH_OP_SIGMOID},
    {"Tanh", GRAPH_OP_TANH}, {"Erf", GRAPH_OP_TANH}, {"Exp", GRAPH_OP_EXP},
    {"Log", GRAPH_OP_EXP}, {"Log1p", GRAPH_OP_EXP}, {"Softplus", GRAPH_OP_EXP},
    {"Rsqrt", GRAPH_OP_RSQRT}, {"Sqrt", GRAPH_OP_RSQRT}, {"Reciprocal", GRAPH_OP_RSQRT},
    {"Inv", GRAPH_OP_RSQRT}, {"Neg", GRAPH_OP_COPY}, {"Abs", GRAPH_OP_COPY},
    {"Floor", GRAPH_OP_COPY}, {"Ceil", GRAPH_OP_COPY}, {"Round", GRAPH_OP_COPY},
    {"Sign", GRAPH_OP_COPY}, {"Sin", GRAPH_OP_COPY}, {"Cos", GRAPH_OP_COPY},
    {"LogicalNot", GRAPH_OP_COPY}, {"Square", GRAPH_OP_MUL}, {"Swish", GRAPH_OP_SILU},
};

static int op_unary(struct tfjs *c, struct tnode *n)
{
    if (tf_fold_unary(c, n))
        return c->rc;
    enum graph_op_kind k = GRAPH_OP_COPY;
    for (size_t i = 0; i < sizeof unops / sizeof *unops; i++)
        if (!strcmp(n->op, unops[i].op))
            k = unops[i].kind;
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return c->rc;
    int32_t t = tf_mat(c, x, NULL);
    if (k == GRAPH_OP_MUL)
        return tf_set(c, n, 0, graph_binary(c->g, tf_name(c, NULL), k, t, t));
    if (t >= 0 && graph_tensor(c->g, t)->dtype != LS_DT_FP32 && k != GRAPH_OP_COPY)
        t = graph_cast(c->g, tf_name(c, "f32"), t, LS_DT_FP32);
    return tf_set(c, n, 0, graph_unary(c->g, tf_name(c, NULL), k, t));
}

/* Cast: a float-to-float cast keeps the tensor (the IR imports activations as fp32). */
static int op_cast(struct tfjs *c, struct tnode *n)
{
    if (tf_fold_unary(c, n))
        return c->rc;
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return c->rc;
    json_t *a = json_object_get(json_object_get(n->j, "attr"), "DstT");
    const char *dst = json_string_value(json_object_get(a, "type"));
    enum ls_dtype to = dst && (strstr(dst, "INT") || strstr(dst, "BOOL")) ? LS_DT_INT32
                                                                          : LS_DT_FP32;
    int32_t t = tf_mat(c, x, NULL);
    if (t >= 0 && graph_tensor(c->g, t)->dtype != to)
        t = graph_cast(c->g, tf_name(c, NULL), t, to);
    return tf_set(c, n, 0, t);
}

/* ---- normalization, softmax, reductions ---------------------------------------------- */

static int op_batchnorm(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0), *s = tf_in(c, n, 1), *b = tf_in(c, n, 2);
    if (!x || !s || !b)
        return c->rc;
    int axis = tf_nchw_format(c, n) ? 1 : -1;
    return tf_set(c, n, 0, graph_batchnorm(c->g, tf_name(c, NULL), tf_mat(c, x, NULL),
                                           tf_mat(c, s, NULL), tf_mat(c, b, NULL), axis));
}

static int op_softmax(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x)
        return c->rc;
    return tf_set(c, n, 0, graph_softmax(c->g, tf_name(c, NULL), tf_mat(c, x, NULL), -1));
}

static int op_reduce(struct tfjs *c, struct tnode *n)
{
    if (tf_fold_reduce(c, n))
        return c->rc;
    struct tv *x = tf_in(c, n, 0);
    int64_t ax[GRAPH_MAX_RANK], keep = 0;
    int arg = !strncmp(n->op, "Arg", 3);
    int na = x ? tf_ints(c, n, 1, ax, GRAPH_MAX_RANK) : -1;
    if (na < 0 || tf_attr_int(c, n, "keep_dims", 0, &keep))
        return c->rc;
    int axes[GRAPH_MAX_RANK], used[GRAPH_MAX_RANK] = {0}, m = 0;
    for (int i = 0; i < na; i++) {
        int a = tf_axis(c, ax[i], x->rank);
        if (a < 0)
            return c->rc;
        if (!used[a])
            used[a] = 1, axes[m++] = a;
    }
    int32_t t = tf_mat(c, x, NULL);
    if (!m)
        return tf_set(c, n, 0, t);
    enum graph_op_kind k = !strcmp(n->op, "Mean") ? GRAPH_OP_REDUCE_MEAN
                           : !strcmp(n->op, "Sum") || !strcmp(n->op, "Prod") ? GRAPH_OP_REDUCE_SUM
                                                                             : GRAPH_OP_REDUCE_MAX;
    if (t >= 0 && graph_tensor(c->g, t)->dtype != LS_DT_FP32)
        t = graph_cast(c->g, tf_name(c, "f32"), t, LS_DT_FP32);
    int32_t y = graph_reduce(c->g, tf_name(c, arg ? "max" : NULL), k, t, m, axes, (int)keep);
    if (arg)
        y = graph_cast(c->g, tf_name(c, NULL), y, LS_DT_INT32);
    return tf_set(c, n, 0, y);
}

/* ---- data-dependent selection, bounded by its maximum size ---------------------------- */

/* NonMaxSuppressionV3/4/5 (boxes [N,4], scores [N], max_output_size, ...): the pairwise
 * IoU matrix boxes x boxes^T, its row maxima, the first min(M, N) kept as the selection. */
static int op_nms(struct tfjs *c, struct tnode *n)
{
    int64_t m;
    struct tv *b = tf_in(c, n, 0);
    if (!b || tf_ints(c, n, 2, &m, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "max_output_size must be one value");
    if (b->rank != 2 || m < 1)
        return tf_fail(c, "expects boxes [N,4] and max_output_size >= 1");
    int32_t bt = tf_mat(c, b, NULL);
    int32_t iou = graph_matmul_axes(c->g, tf_name(c, "iou"), bt, bt, 1, 1);
    int32_t best = graph_reduce(c->g, tf_name(c, "best"), GRAPH_OP_REDUCE_MAX, iou,
                                GRAPH_AXES(1), 0);
    int64_t nb = b->dims[0] < m ? b->dims[0] : m;
    int32_t sel = graph_slice(c->g, tf_name(c, "scores"), best, 0, 0, nb, 1);
    int32_t idx = graph_cast(c->g, tf_name(c, NULL), sel, LS_DT_INT32);
    if (tf_set(c, n, 0, idx))
        return c->rc;
    if (!strcmp(n->op, "NonMaxSuppressionV5") && tf_set(c, n, 1, sel))
        return c->rc;
    int32_t cnt = graph_reduce(c->g, tf_name(c, "count"), GRAPH_OP_REDUCE_SUM, sel,
                               GRAPH_AXES(0), 1);
    return tf_set(c, n, strcmp(n->op, "NonMaxSuppressionV5") ? 1 : 2,
                  graph_cast(c->g, tf_name(c, "valid"), cnt, LS_DT_INT32));
}

/* TopKV2 (x, k): values = the first k along the last axis plus the row maximum (so the
 * whole row is read), indices = those values cast to int32. */
static int op_topk(struct tfjs *c, struct tnode *n)
{
    int64_t k;
    struct tv *x = tf_in(c, n, 0);
    if (!x || tf_ints(c, n, 1, &k, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "k must be one value");
    if (x->rank < 1 || k < 1 || k > x->dims[x->rank - 1])
        return tf_fail(c, "k %lld out of range for the last axis", (long long)k);
    int32_t t = tf_mat(c, x, NULL);
    int last = x->rank - 1, ax[1] = {last};
    int32_t mx = graph_reduce(c->g, tf_name(c, "rowmax"), GRAPH_OP_REDUCE_MAX, t, 1, ax, 1);
    int32_t s = graph_slice(c->g, tf_name(c, "first"), t, last, 0, k, 1);
    int32_t v = graph_binary(c->g, tf_name(c, NULL), GRAPH_OP_ADD, s, mx);
    if (tf_set(c, n, 0, v))
        return c->rc;
    return tf_set(c, n, 1, graph_cast(c->g, tf_name(c, "indices"), v, LS_DT_INT32));
}

/* Where(cond) with one input: int32 [count, rank], the indices of the true elements.
 * A known cond folds; else bounded by its maximum size, as if every element were true:
 * cond flattened to [numel, 1], repeated rank times on axis 1, cast. */
static int op_where(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x || n->nin != 1 || x->rank < 1)
        return c->rc ? c->rc : tf_fail(c, "expects one input of rank 1 or more");
    int64_t m = tf_numel(x->rank, x->dims), d[2] = {m, 1}, cnt = 0;
    if (x->vals) {
        double *v = malloc((size_t)(m ? m : 1) * (size_t)x->rank * sizeof *v);
        if (!v)
            return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
        for (int64_t i = 0; i < m; i++) {
            if (x->vals[i] == 0)
                continue;
            for (int64_t r = x->rank - 1, q = i; r >= 0; q /= x->dims[r--])
                v[cnt * x->rank + r] = (double)(q % x->dims[r]);   /* i's coordinates */
            cnt++;
        }
        d[0] = cnt, d[1] = x->rank;
        int rc = tf_set_value(c, n, 0, LS_DT_INT32, 2, d, v);
        free(v);
        return rc;
    }
    int32_t rows[GRAPH_MAX_RANK], f = graph_reshape(c->g, tf_name(c, "flat"),
                                                    tf_mat(c, x, NULL), 2, d, NULL);
    for (int i = 0; i < x->rank; i++)
        rows[i] = f;
    if (f >= 0 && x->rank > 1)
        f = graph_concat(c->g, tf_name(c, "rows"), x->rank, rows, 1);
    return tf_set(c, n, 0, f < 0 ? -1 : graph_cast(c->g, tf_name(c, NULL), f, LS_DT_INT32));
}

static const struct {
    const char *op;
    tf_lower_fn fn;
} ops[] = {
    {"Where", op_where},
    {"MatMul", op_matmul}, {"_FusedMatMul", op_matmul}, {"BatchMatMul", op_batch_matmul},
    {"BatchMatMulV2", op_batch_matmul}, {"AddN", op_addn}, {"Select", op_addn},
    {"SelectV2", op_addn}, {"Prelu", op_prelu}, {"Cast", op_cast},
    {"FusedBatchNorm", op_batchnorm}, {"FusedBatchNormV2", op_batchnorm},
    {"FusedBatchNormV3", op_batchnorm}, {"Softmax", op_softmax}, {"LogSoftmax", op_softmax},
    {"Mean", op_reduce}, {"Sum", op_reduce}, {"Max", op_reduce}, {"Min", op_reduce},
    {"Prod", op_reduce}, {"All", op_reduce}, {"Any", op_reduce}, {"ArgMax", op_reduce},
    {"ArgMin", op_reduce}, {"NonMaxSuppressionV3", op_nms}, {"NonMaxSuppressionV4", op_nms},
    {"NonMaxSuppressionV5", op_nms}, {"TopKV2", op_topk},
};

tf_lower_fn tf_ops_find(const char *op)
{
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(op, ops[i].op))
            return ops[i].fn;
    for (size_t i = 0; i < sizeof binops / sizeof *binops; i++)
        if (!strcmp(op, binops[i].op))
            return op_binary;
    for (size_t i = 0; i < sizeof unops / sizeof *unops; i++)
        if (!strcmp(op, unops[i].op))
            return op_unary;
    return NULL;
}
