/* graph/import: each HLO opcode lowered onto the IR's op kinds (hlo_int.h;
 * docs/import.md "XLA HLO" has the table). */
#include <stdio.h>
#include <string.h>

#include "graph/import/hlo_int.h"

static const struct {
    const char *op;
    enum graph_op_kind kind;
} UNARY[] = {
    {"exponential", GRAPH_OP_EXP}, {"tanh", GRAPH_OP_TANH}, {"logistic", GRAPH_OP_SIGMOID},
    {"rsqrt", GRAPH_OP_RSQRT}, {"sqrt", GRAPH_OP_RSQRT}, {"cbrt", GRAPH_OP_RSQRT},
    {"negate", GRAPH_OP_COPY}, {"abs", GRAPH_OP_RELU}, {"sign", GRAPH_OP_COPY},
    {"floor", GRAPH_OP_COPY}, {"ceil", GRAPH_OP_COPY}, {"round-nearest-afz", GRAPH_OP_COPY},
    {"round-nearest-even", GRAPH_OP_COPY}, {"not", GRAPH_OP_COPY}, {"copy", GRAPH_OP_COPY},
    {"log", GRAPH_OP_EXP}, {"log-plus-one", GRAPH_OP_EXP},
    {"exponential-minus-one", GRAPH_OP_EXP}, {"erf", GRAPH_OP_TANH}, {"sine", GRAPH_OP_TANH},
    {"cosine", GRAPH_OP_TANH}, {"tan", GRAPH_OP_TANH}, {"reduce-precision", GRAPH_OP_COPY},
    {"reverse", GRAPH_OP_COPY}, {"clamp", GRAPH_OP_RELU},
}, BINARY[] = {
    {"add", GRAPH_OP_ADD}, {"subtract", GRAPH_OP_SUB}, {"multiply", GRAPH_OP_MUL},
    {"divide", GRAPH_OP_DIV}, {"maximum", GRAPH_OP_MAX}, {"minimum", GRAPH_OP_MAX},
    {"power", GRAPH_OP_MUL}, {"remainder", GRAPH_OP_SUB}, {"atan2", GRAPH_OP_DIV},
    {"and", GRAPH_OP_MUL}, {"or", GRAPH_OP_MAX}, {"xor", GRAPH_OP_SUB},
    {"compare", GRAPH_OP_SUB}, {"select", GRAPH_OP_MAX},
};
#define NUNARY (int)(sizeof UNARY / sizeof UNARY[0])
#define NBINARY (int)(sizeof BINARY / sizeof BINARY[0])

static int find(const struct hlo_instr *in, int binary)
{
    int n = binary ? NBINARY : NUNARY;
    for (int i = 0; i < n; i++)
        if (hlo_span_is(&in->opcode, binary ? BINARY[i].op : UNARY[i].op))
            return i;
    return -1;
}

static int is(const struct hlo_instr *in, const char *op)
{
    return hlo_span_is(&in->opcode, op);
}

int hlo_reads_operand(const struct hlo_instr *in, int i)
{
    if (is(in, "select"))
        return i != 0;   /* max of the branches: the predicate is not read */
    if (is(in, "clamp"))
        return i == 1;   /* relu of the operand: the bounds are not read */
    if (is(in, "reduce") || is(in, "reduce-window") || is(in, "pad"))
        return i == 0;   /* init and padding values are scalars */
    if (is(in, "batch-norm-inference"))
        return i < 3;    /* mean and variance are folded into scale and offset */
    return 1;
}

static int need_ops(struct hlo_ctx *c, const struct hlo_instr *in, int n)
{
    return in->nops == n ? 0 : hlo_fail(c, "expected %d operand%s, found %d", n,
                                        n == 1 ? "" : "s", in->nops);
}

static int ints(struct hlo_ctx *c, const struct hlo_instr *in, const char *key, int64_t *v,
                int *n, int required)
{
    const struct hlo_attr *a = hlo_attr_find(in, key);
    *n = 0;
    if (!a)
        return required ? hlo_fail(c, "no %s=", key) : 0;
    return hlo_attr_ints(c->m, a, v, GRAPH_MAX_RANK, n, c->err);
}

/* The operands of an elementwise op have the instruction's dims (HLO has no implicit
 * broadcasting); operand `skip` (a predicate) may differ in type only. */
static int same_dims(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops)
{
    for (int i = 0; i < in->nops; i++) {
        if (!hlo_reads_operand(in, i) && !is(in, "select"))
            continue;
        const struct hlo_shape *s = &c->comp->ins[in->opi[i]].shape;
        int ok = !s->tuple && s->rank == in->shape.rank;
        for (int d = 0; ok && d < s->rank; d++)
            ok = s->dims[d] == in->shape.dims[d];
        if (!ok)
            return hlo_fail(c, "shape mismatch: operand %d ('%.*s') has other dims than the "
                            "instruction", i, in->ops[i].n, in->ops[i].s);
        if (ops[i].kind == HV_TUPLE)
            return hlo_fail(c, "operand %d is a tuple", i);
    }
    return 0;
}

/* The pending transpose shared by the read operands of an elementwise op when each is
 * either pending with that same permutation or a constant (the op is then done in the
 * untransposed order, and its result stays pending); NULL otherwise. */
static const int *common_perm(const struct hlo_instr *in, const struct hv *ops)
{
    const int *p = NULL;
    for (int i = 0; i < in->nops; i++) {
        if (!hlo_reads_operand(in, i))
            continue;
        const struct hv *v = &ops[i];
        if (v->kind == HV_TENSOR && v->tp) {
            if (p && memcmp(p, v->tperm, sizeof(int) * (size_t)v->full.rank))
                return NULL;
            p = v->tperm;
        } else if (v->kind != HV_CONST) {
            return NULL;
        }
    }
    return p;
}

/* An operand of an elementwise op: in the untransposed order of perm p when p is set
 * (a constant is then made in that order). */
static int32_t operand(struct hlo_ctx *c, struct hv *v, const int *p)
{
    if (!p)
        return hlo_tensor_lazy(c, v);
    if (v->kind == HV_TENSOR)
        return v->t;
    struct hv w = *v;
    for (int i = 0; i < v->full.rank; i++) {
        w.cdims[p[i]] = v->cdims[i];
        w.full.dims[p[i]] = v->full.dims[i];
    }
    return hlo_tensor_lazy(c, &w);
}

static int result(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *out, int32_t t,
                  const int *p)
{
    if (t < 0)
        return hlo_set(c, out, t, &in->shape, 1);
    return p ? hlo_set_perm(c, out, t, p, &in->shape) : hlo_set(c, out, t, &in->shape, 1);
}

static int elementwise(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                       struct hv *out)
{
    int u = find(in, 0), b = find(in, 1);
    if (same_dims(c, in, ops))
        return LS_ERR_INPUT;
    int perm[GRAPH_MAX_RANK];
    const int *p = common_perm(in, ops);
    if (p)   /* a copy: operand() may change the operands */
        p = memcpy(perm, p, sizeof perm);
    if (is(in, "convert")) {
        if (need_ops(c, in, 1))
            return LS_ERR_INPUT;
        int32_t x = operand(c, &ops[0], p);
        if (x >= 0 && graph_tensor(c->g, x)->dtype != in->shape.dt) {
            char name[GRAPH_MAX_NAME + 1];
            x = graph_cast(c->g, hlo_name(c, "", name, sizeof name), x, in->shape.dt);
        }
        return result(c, in, out, x, p);
    }
    if (u >= 0) {
        int arg = is(in, "clamp");
        if (need_ops(c, in, arg ? 3 : 1))
            return LS_ERR_INPUT;
        int32_t x = operand(c, &ops[arg], p);
        return result(c, in, out, x < 0 ? -1 : hlo_op(c, UNARY[u].kind, &x, 1, NULL,
                                                       in->shape.dt, ""), p);
    }
    int first = is(in, "select");
    if (need_ops(c, in, first + 2))
        return LS_ERR_INPUT;
    int32_t xy[2] = {operand(c, &ops[first], p), operand(c, &ops[first + 1], p)};
    if (xy[0] < 0 || xy[1] < 0)
        return LS_ERR_INPUT;
    int cmp = is(in, "compare");
    int32_t t = hlo_op(c, BINARY[b].kind, xy, 2, NULL, cmp ? ops[0].dt : in->shape.dt,
                       cmp ? ".sub" : "");
    if (cmp && t >= 0) {
        char name[GRAPH_MAX_NAME + 1];
        t = graph_cast(c->g, hlo_name(c, "", name, sizeof name), t, in->shape.dt);
    }
    return result(c, in, out, t, p);
}

int32_t hlo_transpose(struct hlo_ctx *c, int32_t x, const int *perm, const char *suffix)
{
    int rank = graph_tensor(c->g, x)->shape.rank, id = 1;
    for (int i = 0; i < rank; i++)
        id &= perm[i] == i;
    if (id)
        return x;
    char name[GRAPH_MAX_NAME + 1];
    return graph_transpose(c->g, hlo_name(c, suffix, name, sizeof name), x, perm);
}

static int broadcast(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                     struct hv *out)
{
    int64_t dims[GRAPH_MAX_RANK];
    int n;
    if (need_ops(c, in, 1) || ints(c, in, "dimensions", dims, &n, 1))
        return LS_ERR_INPUT;
    const struct hlo_shape *s = &c->comp->ins[in->opi[0]].shape;
    if (s->tuple || n != s->rank)
        return hlo_fail(c, "shape mismatch: dimensions= has %d entries, the operand rank %d", n,
                        s->tuple ? -1 : s->rank);
    int64_t padded[GRAPH_MAX_RANK];
    int perm[GRAPH_MAX_RANK], np = 0;
    unsigned seen = 0;
    for (int d = 0; d < in->shape.rank; d++)
        padded[d] = 1;
    for (int k = 0; k < n; k++) {
        if (dims[k] >= in->shape.rank || (seen >> dims[k] & 1) ||
            s->dims[k] != in->shape.dims[dims[k]])
            return hlo_fail(c, "shape mismatch: operand dim %d does not map onto the output", k);
        seen |= 1u << dims[k];
        padded[dims[k]] = s->dims[k];
    }
    for (int d = 0; d < in->shape.rank; d++)   /* operand axes in output order */
        for (int k = 0; k < n; k++)
            if (dims[k] == d)
                perm[np++] = k;
    if (ops[0].kind == HV_CONST) {
        *out = ops[0];
        hlo_graph_shape(&in->shape, &out->full);
        memcpy(out->cdims, padded, sizeof padded);
        return 0;
    }
    int32_t x = hlo_tensor(c, &ops[0]);
    if (x >= 0)
        x = hlo_transpose(c, x, perm, ".t");
    struct graph_shape want;
    graph_shape_make(&want, in->shape.rank, padded);
    if (x >= 0 && !graph_shape_equal(&graph_tensor(c->g, x)->shape, &want)) {
        char name[GRAPH_MAX_NAME + 1];
        x = graph_reshape(c->g, hlo_name(c, "", name, sizeof name), x, in->shape.rank, padded,
                          NULL);
    }
    return hlo_set(c, out, x, &in->shape, 1);
}

static int reshape(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                   struct hv *out)
{
    if (need_ops(c, in, 1))
        return LS_ERR_INPUT;
    int32_t x = hlo_tensor(c, &ops[0]);
    struct graph_shape want;
    hlo_graph_shape(&in->shape, &want);
    if (x >= 0 && !graph_shape_equal(&graph_tensor(c->g, x)->shape, &want)) {
        char name[GRAPH_MAX_NAME + 1];
        x = graph_reshape(c->g, hlo_name(c, "", name, sizeof name), x, in->shape.rank,
                          in->shape.dims, NULL);
    }
    return hlo_set(c, out, x, &in->shape, 0);
}

static int transpose_op(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                        struct hv *out)
{
    int64_t d[GRAPH_MAX_RANK];
    int n, perm[GRAPH_MAX_RANK];
    if (need_ops(c, in, 1) || ints(c, in, "dimensions", d, &n, 1))
        return LS_ERR_INPUT;
    if (ops[0].kind == HV_TUPLE || n != ops[0].full.rank)
        return hlo_fail(c, "shape mismatch: dimensions= has %d entries, the operand rank %d", n,
                        ops[0].full.rank);
    for (int i = 0; i < n; i++) {
        if (d[i] < 0 || d[i] >= n)
            return hlo_fail(c, "dimensions= is not a permutation");
        perm[i] = (int)d[i];
    }
    return hlo_set(c, out, hlo_tensor_perm(c, &ops[0], perm, ""), &in->shape, 0);
}

static int dot(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops, struct hv *out)
{
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    int64_t v[4][GRAPH_MAX_RANK];
    int n[4];
    if (need_ops(c, in, 2) || ints(c, in, "lhs_contracting_dims", v[0], &n[0], 1) ||
        ints(c, in, "rhs_contracting_dims", v[1], &n[1], 1) ||
        ints(c, in, "lhs_batch_dims", v[2], &n[2], 0) ||
        ints(c, in, "rhs_batch_dims", v[3], &n[3], 0))
        return LS_ERR_INPUT;
    if (n[0] != n[1] || n[2] != n[3])
        return hlo_fail(c, "lhs and rhs list different numbers of contracting or batch dims");
    at.ncontract = n[0];
    at.nbatch = n[2];
    for (int i = 0; i < n[0]; i++)
        at.lhs_contract[i] = (int)v[0][i], at.rhs_contract[i] = (int)v[1][i];
    for (int i = 0; i < n[2]; i++)
        at.lhs_batch[i] = (int)v[2][i], at.rhs_batch[i] = (int)v[3][i];
    int32_t ab[2] = {hlo_tensor(c, &ops[0]), hlo_tensor(c, &ops[1])};
    if (ab[0] < 0 || ab[1] < 0)
        return LS_ERR_INPUT;
    enum graph_op_kind k = at.nbatch ? GRAPH_OP_BATCH_MATMUL : GRAPH_OP_MATMUL;
    return hlo_set(c, out, hlo_op(c, k, ab, 2, &at, in->shape.dt, ""), &in->shape, 0);
}

/* A reduce of a pending transpose can read the untransposed tensor when the axes it keeps
 * are in the same order there (a global pool over H, W of NHWC kept NCHW): the axes are
 * mapped and 1 returned. */
static int reduce_pending(const struct hv *v, struct graph_attrs *at)
{
    if (v->kind != HV_TENSOR || !v->tp)
        return 0;
    unsigned red = 0;
    for (int i = 0; i < at->naxes; i++) {
        if (at->axes[i] < 0 || at->axes[i] >= v->full.rank)
            return 0;   /* reported by the reduce itself */
        red |= 1u << at->axes[i];
    }
    for (int i = 0, last = -1; i < v->full.rank; i++) {
        if (red >> i & 1)
            continue;
        if (v->tperm[i] < last)
            return 0;
        last = v->tperm[i];
    }
    for (int i = 0; i < at->naxes; i++)
        at->axes[i] = v->tperm[at->axes[i]];
    return 1;
}

/* Reduce with a to_apply computation whose root is add (reduce_sum) or maximum/minimum
 * (reduce_max). */
static int reduce(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                  struct hv *out)
{
    int64_t d[GRAPH_MAX_RANK];
    int n, comp;
    const struct hlo_attr *a = hlo_attr_find(in, "to_apply");
    if (in->nops != 2 || in->shape.tuple)
        return hlo_fail(c, "only a reduce of one operand and one init value is supported");
    if (!a)
        return hlo_fail(c, "no to_apply=");
    if (ints(c, in, "dimensions", d, &n, 1) ||
        hlo_attr_comp(c->m, a, (int)(c->comp - c->m->comps), &comp, c->err))
        return LS_ERR_INPUT;
    const struct hlo_comp *f = &c->m->comps[comp];
    const struct hlo_span *op = &f->ins[f->root].opcode;
    enum graph_op_kind k = hlo_span_is(op, "add") ? GRAPH_OP_REDUCE_SUM
                           : hlo_span_is(op, "maximum") || hlo_span_is(op, "minimum")
                               ? GRAPH_OP_REDUCE_MAX : GRAPH_OP_COUNT;
    if (k == GRAPH_OP_COUNT)
        return hlo_fail(c, "to_apply computation '%.*s' computes %.*s; only add, maximum and "
                        "minimum reductions are supported", f->name.n, f->name.s, op->n, op->s);
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.naxes = n;
    for (int i = 0; i < n; i++)
        at.axes[i] = (int)d[i];
    int32_t x = reduce_pending(&ops[0], &at) ? ops[0].t : hlo_tensor(c, &ops[0]);
    return hlo_set(c, out, x < 0 ? -1 : hlo_op(c, k, &x, 1, &at, in->shape.dt, ""), &in->shape,
                   0);
}

int32_t hlo_pad_axis(struct hlo_ctx *c, int32_t t, int axis, int64_t lo, int64_t hi)
{
    char name[GRAPH_MAX_NAME + 1], sfx[32];
    const struct graph_tensor *gt = graph_tensor(c->g, t);
    int64_t size = gt->shape.dims[axis].size;
    if (lo < 0 || hi < 0) {
        snprintf(sfx, sizeof sfx, ".crop%d", axis);
        t = graph_slice(c->g, hlo_name(c, sfx, name, sizeof name), t, axis, lo < 0 ? -lo : 0,
                        hi < 0 ? size + hi : size, 1);
    }
    int32_t parts[3];
    int np = 0;
    for (int side = 0; side < 2 && t >= 0; side++) {
        int64_t amount = side ? hi : lo;
        if (amount > 0) {
            gt = graph_tensor(c->g, t);
            int64_t dims[GRAPH_MAX_RANK];
            for (int i = 0; i < gt->shape.rank; i++)
                dims[i] = i == axis ? amount : gt->shape.dims[i].size;
            snprintf(sfx, sizeof sfx, ".zeros%d", axis);
            parts[np++] = graph_weight(c->g, hlo_name(c, sfx, name, sizeof name), gt->dtype,
                                       gt->shape.rank, dims, NULL);
        }
        if (!side)
            parts[np++] = t;
    }
    if (np == 1 || t < 0)
        return t;
    snprintf(sfx, sizeof sfx, ".pad%d", axis);
    return graph_concat(c->g, hlo_name(c, sfx, name, sizeof name), np, parts, axis);
}

static int pad(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops, struct hv *out)
{
    int64_t lo[GRAPH_MAX_RANK], hi[GRAPH_MAX_RANK], inner[GRAPH_MAX_RANK];
    const struct hlo_attr *a = hlo_attr_find(in, "padding");
    if (need_ops(c, in, 2))
        return LS_ERR_INPUT;
    if (!a)
        return hlo_fail(c, "no padding=");
    int32_t x = hlo_tensor(c, &ops[0]);
    if (x < 0 || hlo_attr_padding(c->m, a, graph_tensor(c->g, x)->shape.rank, lo, hi, inner,
                                  c->err))
        return LS_ERR_INPUT;
    for (int d = 0; x >= 0 && d < graph_tensor(c->g, x)->shape.rank; d++) {
        if (inner[d])
            return hlo_fail(c, "interior padding is not supported");
        if (lo[d] || hi[d])
            x = hlo_pad_axis(c, x, d, lo[d], hi[d]);
    }
    return hlo_set(c, out, x, &in->shape, 0);
}

static int slice(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                 struct hv *out)
{
    int64_t b[GRAPH_MAX_RANK], e[GRAPH_MAX_RANK], s[GRAPH_MAX_RANK];
    const struct hlo_attr *a = hlo_attr_find(in, "slice");
    if (need_ops(c, in, 1))
        return LS_ERR_INPUT;
    if (!a)
        return hlo_fail(c, "no slice=");
    int32_t x = hlo_tensor(c, &ops[0]);
    if (x < 0 || hlo_attr_slice(c->m, a, graph_tensor(c->g, x)->shape.rank, b, e, s, c->err))
        return LS_ERR_INPUT;
    for (int d = 0; x >= 0 && d < graph_tensor(c->g, x)->shape.rank; d++) {
        if (b[d] == 0 && s[d] == 1 && e[d] == graph_tensor(c->g, x)->shape.dims[d].size)
            continue;
        char name[GRAPH_MAX_NAME + 1], sfx[32];
        snprintf(sfx, sizeof sfx, ".slice%d", d);
        x = graph_slice(c->g, hlo_name(c, sfx, name, sizeof name), x, d, b[d], e[d], s[d]);
    }
    return hlo_set(c, out, x, &in->shape, 0);
}

static int concatenate(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                       struct hv *out)
{
    int64_t d[GRAPH_MAX_RANK];
    int n;
    if (ints(c, in, "dimensions", d, &n, 1))
        return LS_ERR_INPUT;
    if (n != 1 || in->nops < 1)
        return hlo_fail(c, "expected one dimension and at least one operand");
    int32_t xs[GRAPH_MAX_INPUTS];
    for (int i = 0; i < in->nops; i++)
        if ((xs[i] = hlo_tensor(c, &ops[i])) < 0)
            return LS_ERR_INPUT;
    char name[GRAPH_MAX_NAME + 1];
    return hlo_set(c, out, graph_concat(c->g, hlo_name(c, "", name, sizeof name), in->nops, xs,
                                        (int)d[0]), &in->shape, 0);
}

static int batchnorm(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                     struct hv *out)
{
    const struct hlo_attr *a = hlo_attr_find(in, "feature_index");
    if (need_ops(c, in, 5))
        return LS_ERR_INPUT;
    if (!a || a->val.n != 1 || a->val.s[0] < '0' || a->val.s[0] > '5')
        return hlo_fail(c, "feature_index= must be an axis");
    int32_t x = hlo_tensor(c, &ops[0]), s = hlo_tensor(c, &ops[1]), o = hlo_tensor(c, &ops[2]);
    char name[GRAPH_MAX_NAME + 1];
    int32_t t = x < 0 || s < 0 || o < 0 ? -1 : graph_batchnorm(c->g, hlo_name(c, "", name,
                                                               sizeof name), x, s, o,
                                                               a->val.s[0] - '0');
    return hlo_set(c, out, t, &in->shape, 0);
}

/* Every read operand a constant: the result is a constant of the instruction's shape
 * (values are never computed; only shapes matter). The first constant operand, or -1. */
static int folds(const struct hlo_instr *in, const struct hv *ops)
{
    if (in->shape.tuple || (is(in, "reduce") && in->nops != 2) ||
        (is(in, "reduce-window") && in->nops != 2) || is(in, "broadcast"))
        return -1;
    int first = -1;
    for (int i = 0; i < in->nops; i++) {
        if (!hlo_reads_operand(in, i))
            continue;
        if (ops[i].kind != HV_CONST)
            return -1;
        if (first < 0)
            first = i;
    }
    return first;
}

int hlo_lower(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops, struct hv *out)
{
    if (in->shape.tuple && !is(in, "reduce"))
        return hlo_fail(c, "a tuple-shaped result is supported only for tuple, call and fusion");
    int k = folds(in, ops);
    if (k >= 0) {
        memset(out, 0, sizeof *out);
        out->kind = HV_CONST;
        out->dt = in->shape.dt;
        hlo_graph_shape(&in->shape, &out->full);
        memcpy(out->cdims, in->shape.dims, sizeof out->cdims);
        out->name = ops[k].name;
        return 0;
    }
    if (find(in, 0) >= 0 || find(in, 1) >= 0 || is(in, "convert"))
        return elementwise(c, in, ops, out);
    static const struct {
        const char *op;
        int (*fn)(struct hlo_ctx *, const struct hlo_instr *, struct hv *, struct hv *);
    } OPS[] = {
        {"broadcast", broadcast}, {"reshape", reshape}, {"bitcast", reshape},
        {"transpose", transpose_op}, {"dot", dot}, {"convolution", hlo_convolution},
        {"reduce", reduce}, {"pad", pad}, {"slice", slice}, {"concatenate", concatenate},
        {"batch-norm-inference", batchnorm}, {"reduce-window", hlo_reduce_window},
    };
    for (size_t i = 0; i < sizeof OPS / sizeof OPS[0]; i++)
        if (is(in, OPS[i].op))
            return OPS[i].fn(c, in, ops, out);
    return hlo_fail(c, "opcode %.*s has no IR op kind (unsupported)", in->opcode.n,
                    in->opcode.s);
}
