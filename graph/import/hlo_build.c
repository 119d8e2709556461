/* graph/import: HLO module -> graph: values, liveness, parameters, constants, tuples,
 * fusions and calls inlined, outputs (hlo_int.h). The opcodes are lowered in hlo_ops.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/hlo_int.h"

int hlo_fail(struct hlo_ctx *c, const char *fmt, ...)
{
    char msg[sizeof c->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!c->cur)
        return hlo_fail_at(c->m, NULL, c->err, "%s", msg);
    const struct hlo_instr *in = c->cur;
    return hlo_fail_at(c->m, &in->name, c->err, "instruction '%.*s' (%.*s): %s", in->name.n,
                       in->name.s, in->opcode.n, in->opcode.s, msg);
}

const char *hlo_name(struct hlo_ctx *c, const char *suffix, char *buf, size_t n)
{
    const struct hlo_span *nm = &c->cur->name;
    int len = snprintf(buf, n, "%s%.*s%s", c->prefix, nm->n, nm->s, suffix);
    if (len < 0 || (size_t)len >= n - 8)
        len = (int)n - 9;
    buf[len] = 0;
    for (int k = 2; graph_find_tensor(c->g, buf) >= 0 && k < 1000000; k++)
        snprintf(buf + len, 8, "_%d", k);
    return buf;
}

void hlo_graph_shape(const struct hlo_shape *s, struct graph_shape *g)
{
    memset(g, 0, sizeof *g);
    g->rank = s->rank;
    for (int i = 0; i < s->rank; i++)
        g->dims[i].size = s->dims[i];
}

int32_t hlo_op(struct hlo_ctx *c, enum graph_op_kind kind, const int32_t *in, int n,
               const struct graph_attrs *at, enum ls_dtype dt, const char *suffix)
{
    struct graph_attrs def;
    if (!at) {
        int ranks[2] = {0, 0};
        for (int i = 0; i < n && i < 2; i++)
            ranks[i] = graph_tensor(c->g, in[i])->shape.rank;
        graph_attrs_default(kind, ranks, n, &def);
        at = &def;
    }
    struct graph_shape sh;
    enum ls_dtype got;
    struct ls_error e;
    if (graph_infer(c->g, kind, in, n, at, NULL, &sh, &got, &e))
        return hlo_fail(c, "%s", e.msg), -1;
    if (dt != got && !graph_output_dtype_ok(kind, got, dt))
        dt = got;   /* hlo_set reports the difference */
    char name[GRAPH_MAX_NAME + 1];
    int32_t t = graph_add_tensor_shape(c->g, hlo_name(c, suffix, name, sizeof name), dt,
                                       GRAPH_ROLE_ACTIVATION, &sh);
    if (t < 0 || graph_add_op(c->g, kind, in, n, t, at) < 0)
        return -1;
    return t;
}

int32_t hlo_tensor_lazy(struct hlo_ctx *c, struct hv *v)
{
    if (v->kind == HV_TENSOR && v->tp) {   /* the transpose back, made once */
        int32_t t = v->back ? v->back - 1 : hlo_transpose(c, v->t, v->tperm, ".back");
        if (t >= 0)
            v->back = t + 1;
        return t;
    }
    if (v->kind == HV_TENSOR)
        return v->t;
    if (v->kind != HV_CONST)
        return hlo_fail(c, v->kind == HV_TUPLE ? "an operand is a tuple where an array is needed"
                                               : "an operand was not emitted"), -1;
    char name[GRAPH_MAX_NAME + 1];
    snprintf(name, sizeof name, "%s", v->name);
    size_t len = strlen(name);
    for (int k = 2; graph_find_tensor(c->g, name) >= 0 && k < 1000000 && len < sizeof name - 8;
         k++)
        snprintf(name + len, 8, "_%d", k);
    int32_t t = graph_weight(c->g, name, v->dt, v->full.rank, v->cdims, NULL);
    if (t >= 0) {   /* made once: the value is now this (possibly pending) tensor */
        v->kind = HV_TENSOR;
        v->t = t;
    }
    return t;
}

int32_t hlo_tensor(struct hlo_ctx *c, struct hv *v)
{
    int32_t t = hlo_tensor_lazy(c, v);
    if (t < 0 || graph_shape_equal(&graph_tensor(c->g, t)->shape, &v->full))
        return t;
    int64_t dims[GRAPH_MAX_RANK];
    for (int i = 0; i < v->full.rank; i++)
        dims[i] = v->full.dims[i].size;
    char name[GRAPH_MAX_NAME + 1];
    int32_t z = graph_weight(c->g, hlo_name(c, ".zeros", name, sizeof name), v->dt,
                             v->full.rank, dims, NULL);
    t = graph_binary(c->g, hlo_name(c, ".bcast", name, sizeof name), GRAPH_OP_ADD, t, z);
    if (t >= 0)
        v->t = t;   /* materialized once */
    return t;
}

static const char *shape_str(const struct graph_shape *s, char *buf, size_t n)
{
    size_t k = (size_t)snprintf(buf, n, "[");
    for (int i = 0; i < s->rank && k < n; i++)
        k += (size_t)snprintf(buf + k, n - k, "%s%lld", i ? "," : "", (long long)s->dims[i].size);
    if (k < n)
        snprintf(buf + k, n - k, "]");
    return buf;
}

int hlo_set(struct hlo_ctx *c, struct hv *out, int32_t t, const struct hlo_shape *shape,
            int pending)
{
    if (t < 0)
        return c->err->code ? c->err->code : LS_ERR_INPUT;
    const struct graph_tensor *gt = graph_tensor(c->g, t);
    struct graph_shape full;
    hlo_graph_shape(shape, &full);
    int ok = gt->shape.rank == full.rank;
    for (int i = 0; ok && i < full.rank; i++)
        ok = gt->shape.dims[i].size == full.dims[i].size ||
             (pending && gt->shape.dims[i].size == 1);
    if (!ok) {
        char a[128], b[128];
        return hlo_fail(c, "shape mismatch: the instruction declares %s, its operands give %s",
                        shape_str(&full, a, sizeof a), shape_str(&gt->shape, b, sizeof b));
    }
    if (gt->dtype != shape->dt)
        return hlo_fail(c, "element type mismatch: the instruction declares %s, its operands "
                        "give %s", ls_dtype_name(shape->dt), ls_dtype_name(gt->dtype));
    memset(out, 0, sizeof *out);
    out->kind = HV_TENSOR;
    out->t = t;
    out->dt = shape->dt;
    out->full = full;
    return 0;
}

/* constant, iota, and entry parameters that are weights: a weight made on first use. */
static void constant(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *out)
{
    memset(out, 0, sizeof *out);
    out->kind = HV_CONST;
    out->dt = in->shape.dt;
    hlo_graph_shape(&in->shape, &out->full);
    memcpy(out->cdims, in->shape.dims, sizeof out->cdims);
    char name[GRAPH_MAX_NAME + 1];
    out->name = ls_arena_strdup(&c->arena, hlo_name(c, "", name, sizeof name));
}

int hlo_set_perm(struct hlo_ctx *c, struct hv *out, int32_t t, const int *perm,
                 const struct hlo_shape *shape)
{
    int n = shape->rank, id = 1;
    struct hlo_shape tshape = *shape;   /* the HLO shape in t's axis order */
    for (int i = 0; i < n; i++) {
        tshape.dims[perm[i]] = shape->dims[i];
        id &= perm[i] == i;
    }
    if (id || hlo_set(c, out, t, &tshape, 0))
        return id ? hlo_set(c, out, t, shape, 0) : LS_ERR_INPUT;
    hlo_graph_shape(shape, &out->full);
    out->tp = 1;
    memcpy(out->tperm, perm, sizeof(int) * (size_t)n);
    return 0;
}

int32_t hlo_tensor_perm(struct hlo_ctx *c, struct hv *v, const int *perm, const char *suffix)
{
    int q[GRAPH_MAX_RANK], n = v->full.rank;
    if (v->kind != HV_TENSOR || !v->tp) {
        int32_t t = hlo_tensor(c, v);
        return t < 0 ? -1 : hlo_transpose(c, t, perm, suffix);
    }
    for (int i = 0; i < n; i++)
        q[i] = v->tperm[perm[i]];
    return hlo_transpose(c, v->t, q, suffix);
}

static int param_number(struct hlo_ctx *c, const struct hlo_instr *in, int64_t *k)
{
    const char *p = in->args.s + 1, *e = in->args.s + in->args.n - 1;
    while (p < e && *p == ' ')
        p++;
    *k = 0;
    if (p == e)
        return hlo_fail(c, "parameter has no number");
    for (; p < e && *p >= '0' && *p <= '9'; p++)
        if ((*k = *k * 10 + (*p - '0')) > 1000000)
            return hlo_fail(c, "parameter number too large");
    while (p < e && *p == ' ')
        p++;
    return p == e ? 0 : hlo_fail(c, "parameter number is not an integer");
}

static int source(struct hlo_ctx *c, const struct hlo_instr *in, int idx, struct hv *args,
                  int nargs, struct hv *out)
{
    int64_t k = 0;
    if (param_number(c, in, &k))
        return LS_ERR_INPUT;
    if (args) {
        if (k >= nargs)
            return hlo_fail(c, "parameter %lld, the caller passes %d operands", (long long)k,
                            nargs);
        *out = args[k];
        struct graph_shape want;
        hlo_graph_shape(&in->shape, &want);
        if (!in->shape.tuple && (out->kind == HV_TUPLE || !graph_shape_equal(&out->full, &want)))
            return hlo_fail(c, "shape mismatch: parameter %lld differs from the caller's "
                            "operand", (long long)k);
        return 0;
    }
    if (in->shape.tuple)
        return hlo_fail(c, "tuple-shaped entry parameters are not supported");
    if (c->weight_param[idx] || in->shape.rank <= 1) {
        constant(c, in, out);   /* a weight: made in the shape its first reader wants */
        return 0;
    }
    char name[GRAPH_MAX_NAME + 1];
    int32_t t = graph_input(c->g, hlo_name(c, "", name, sizeof name), in->shape.dt,
                            in->shape.rank, in->shape.dims, NULL);
    return hlo_set(c, out, t, &in->shape, 0);
}

static int tuple_index(struct hlo_ctx *c, const struct hlo_instr *in, int64_t *k)
{
    const struct hlo_attr *a = hlo_attr_find(in, "index");
    if (!a)
        return hlo_fail(c, "no index=");
    *k = 0;
    for (int i = 0; i < a->val.n; i++) {
        if (a->val.s[i] < '0' || a->val.s[i] > '9' || *k > 100000)
            return hlo_fail(c, "index= is not a small integer");
        *k = *k * 10 + (a->val.s[i] - '0');
    }
    return 0;
}

static int structural(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                      struct hv *out)
{
    if (hlo_span_is(&in->opcode, "tuple") || hlo_span_is(&in->opcode, "optimization-barrier")) {
        if (hlo_span_is(&in->opcode, "optimization-barrier")) {
            if (in->nops != 1)
                return hlo_fail(c, "expected one operand");
            *out = ops[0];
            return 0;
        }
        memset(out, 0, sizeof *out);
        out->kind = HV_TUPLE;
        out->nelems = in->nops;
        out->elems = ls_arena_alloc(&c->arena, sizeof *out->elems * (size_t)(in->nops + 1));
        if (!out->elems)
            return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
        memcpy(out->elems, ops, sizeof *ops * (size_t)in->nops);
        return 0;
    }
    /* get-tuple-element */
    int64_t k = 0;
    if (in->nops != 1 || tuple_index(c, in, &k))
        return c->err->code ? LS_ERR_INPUT : hlo_fail(c, "expected one operand");
    if (ops[0].kind != HV_TUPLE || k >= ops[0].nelems)
        return hlo_fail(c, "operand '%.*s' has no tuple element %lld", in->ops[0].n,
                        in->ops[0].s, (long long)k);
    *out = ops[0].elems[k];
    return 0;
}

/* fusion (calls=) and call (to_apply=): the called computation inlined. */
static int inline_call(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                       struct hv *out)
{
    const struct hlo_attr *a = hlo_attr_find(in, hlo_span_is(&in->opcode, "fusion") ? "calls"
                                                                                     : "to_apply");
    int callee;
    if (!a)
        return hlo_fail(c, "no called computation (calls= / to_apply=)");
    if (hlo_attr_comp(c->m, a, (int)(c->comp - c->m->comps), &callee, c->err))
        return LS_ERR_INPUT;
    if (c->depth >= 32)
        return hlo_fail(c, "calls nested deeper than 32");
    char saved[sizeof c->prefix];
    memcpy(saved, c->prefix, sizeof saved);
    size_t len = strlen(c->prefix);
    snprintf(c->prefix + len, sizeof c->prefix - len, "%.*s.", in->name.n, in->name.s);
    const struct hlo_comp *comp = c->comp;
    c->depth++;
    int rc = hlo_emit_comp(c, callee, ops, in->nops, out);
    c->depth--;
    c->comp = comp;
    c->cur = in;
    memcpy(c->prefix, saved, sizeof saved);
    return rc;
}

static int is_op(const struct hlo_instr *in, const char *op)
{
    return hlo_span_is(&in->opcode, op);
}

static int emit_one(struct hlo_ctx *c, const struct hlo_instr *in, int idx, struct hv *vals,
                    struct hv *args, int nargs)
{
    struct hv ops[8], *many = NULL, *opv = ops;
    if (in->nops > 8 && !(opv = many = malloc(sizeof *many * (size_t)in->nops)))
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < in->nops; i++)
        opv[i] = vals[in->opi[i]];
    int rc;
    if (is_op(in, "parameter"))
        rc = source(c, in, idx, args, nargs, &vals[idx]);
    else if (is_op(in, "constant") || is_op(in, "iota"))
        constant(c, in, &vals[idx]), rc = 0;
    else if (is_op(in, "tuple") || is_op(in, "get-tuple-element") ||
             is_op(in, "optimization-barrier"))
        rc = structural(c, in, opv, &vals[idx]);
    else if (is_op(in, "fusion") || is_op(in, "call"))
        rc = inline_call(c, in, opv, &vals[idx]);
    else
        rc = hlo_lower(c, in, opv, &vals[idx]);
    for (int i = 0; !rc && i < in->nops; i++)   /* keep weights and broadcasts made */
        if (opv[i].kind == HV_TENSOR)
            vals[in->opi[i]] = opv[i];
    free(many);
    /* a builder call that failed leaves its message in the graph's sticky error */
    if ((rc && !c->err->code) || (!rc && graph_error(c->g)))
        rc = hlo_fail(c, "%s", graph_error(c->g) ? graph_error(c->g)->msg : "import failed");
    return rc;
}

static const unsigned char *comp_live(struct hlo_ctx *c, int ci, int depth);

/* Whether computation ci reads its parameter k (1 when unsure: a bad parameter number or
 * calls nested too deep are reported when emitted). */
static int param_read(struct hlo_ctx *c, int ci, int k, int depth)
{
    const struct hlo_comp *comp = &c->m->comps[ci];
    const unsigned char *live = comp_live(c, ci, depth);
    for (int i = 0; i < comp->nins; i++) {
        const struct hlo_instr *in = &comp->ins[i];
        if ((!live || live[i]) && hlo_span_is(&in->opcode, "parameter")) {
            char *end;
            long v = strtol(in->args.s + 1, &end, 10);
            if (!live || end == in->args.s + 1 || v == k)
                return 1;
        }
    }
    return 0;
}

/* live[i]: instruction i of computation ci is needed by its root; an operand of a fusion
 * or call is needed when the called computation reads that parameter. Computed once per
 * computation (it does not depend on the caller); NULL when out of memory or too deep. */
static const unsigned char *comp_live(struct hlo_ctx *c, int ci, int depth)
{
    if (c->live[ci] || depth > 32)
        return c->live[ci];
    const struct hlo_comp *comp = &c->m->comps[ci];
    unsigned char *live = calloc((size_t)comp->nins, 1);
    if (!live)
        return NULL;
    live[comp->root] = 1;
    for (int i = comp->root; i >= 0; i--) {
        const struct hlo_instr *in = &comp->ins[i];
        const struct hlo_attr *a = hlo_attr_find(in, hlo_span_is(&in->opcode, "fusion") ? "calls"
                                                 : hlo_span_is(&in->opcode, "call") ? "to_apply"
                                                                                    : "");
        int callee = -1;
        if (live[i] && a && hlo_attr_comp(c->m, a, ci, &callee, NULL))
            callee = -1;
        for (int k = 0; live[i] && k < in->nops; k++)
            if (hlo_reads_operand(in, k) && (callee < 0 || param_read(c, callee, k, depth + 1)))
                live[in->opi[k]] = 1;
    }
    return c->live[ci] = live;
}

int hlo_emit_comp(struct hlo_ctx *c, int ci, struct hv *args, int nargs, struct hv *result)
{
    const struct hlo_comp *comp = &c->m->comps[ci];
    unsigned char *live = calloc((size_t)comp->nins, 1);
    struct hv *vals = calloc((size_t)comp->nins, sizeof *vals);
    if (!live || !vals) {
        free(live);
        free(vals);
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    }
    const unsigned char *known = comp_live(c, ci, 0);
    if (known)
        memcpy(live, known, (size_t)comp->nins);
    else
        memset(live, 1, (size_t)comp->nins);   /* no memory for the analysis: emit all */
    int rc = 0;
    for (int i = 0; !rc && i <= comp->root; i++) {
        if (!live[i])
            continue;
        c->comp = comp;
        c->cur = &comp->ins[i];
        rc = emit_one(c, &comp->ins[i], i, vals, args, nargs);
    }
    if (!rc)
        *result = vals[comp->root];
    free(live);
    free(vals);
    return rc;
}

/* Entry parameters read (through reshapes, transposes, converts, copies) as operand 1 of a
 * dot or convolution are weights; so are those of rank 0 or 1 (biases, norm scales). */
static void find_weights(struct hlo_ctx *c, const struct hlo_comp *e)
{
    static const char *const through[] = {"reshape", "transpose", "convert", "bitcast", "copy"};
    for (int i = 0; i < e->nins; i++) {
        const struct hlo_instr *in = &e->ins[i];
        if ((!is_op(in, "dot") && !is_op(in, "convolution")) || in->nops < 2)
            continue;
        int k = in->opi[1];
        for (int hops = 0; hops < 16; hops++) {
            const struct hlo_instr *p = &e->ins[k];
            size_t t = 0;
            while (t < 5 && !is_op(p, through[t]))
                t++;
            if (t == 5 || p->nops != 1)
                break;
            k = p->opi[0];
        }
        if (is_op(&e->ins[k], "parameter"))
            c->weight_param[k] = 1;
    }
}

/* Every array of the root value becomes a graph output. */
static int outputs(struct hlo_ctx *c, struct hv *v, int depth)
{
    if (v->kind == HV_TUPLE) {
        for (int i = 0; i < v->nelems; i++)
            if (depth > 16 || outputs(c, &v->elems[i], depth + 1))
                return c->err->code ? c->err->code : hlo_fail(c, "tuples nested too deep");
        return 0;
    }
    int32_t t = hlo_tensor(c, v);
    if (t < 0)
        return c->err->code ? c->err->code : hlo_fail(c, "%s", graph_error(c->g)->msg);
    const struct graph_tensor *gt = graph_tensor(c->g, t);
    int copy = gt->role == GRAPH_ROLE_INPUT || gt->role == GRAPH_ROLE_WEIGHT;
    for (size_t i = 0; i < gt->nuses; i++)
        copy |= graph_op(c->g, gt->uses[i].op)->kind == GRAPH_OP_RETURN;
    if (copy) {   /* a source, or an array returned twice: the output is a copy of it */
        char name[GRAPH_MAX_NAME + 1];
        t = graph_unary(c->g, hlo_name(c, ".out", name, sizeof name), GRAPH_OP_COPY, t);
    }
    graph_output(c->g, t);
    return graph_error(c->g) ? hlo_fail(c, "%s", graph_error(c->g)->msg) : 0;
}

int hlo_sniff(const char *buf, size_t len)
{
    size_t i = 0;
    while (i < len) {
        if (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r') {
            i++;
        } else if (i + 1 < len && buf[i] == '/' && buf[i + 1] == '/') {
            while (i < len && buf[i] != '\n')
                i++;
        } else if (i + 1 < len && buf[i] == '/' && buf[i + 1] == '*') {
            const char *e = NULL;
            for (size_t k = i + 2; k + 1 < len && !e; k++)
                if (buf[k] == '*' && buf[k + 1] == '/')
                    e = buf + k + 2;
            if (!e)
                return 0;
            i = (size_t)(e - buf);
        } else {
            break;
        }
    }
    return len - i >= 10 && !memcmp(buf + i, "HloModule", 9) &&
           (buf[i + 9] == ' ' || buf[i + 9] == '\t' || buf[i + 9] == '%');
}

int hlo_import(const char *file, const char *buf, size_t len, struct graph **out,
               struct ls_error *err)
{
    struct ls_error local;
    if (!err)
        err = &local;
    ls_error_clear(err);
    *out = NULL;
    struct hlo_module m;
    int rc = hlo_parse(file, buf, len, &m, err);
    struct hlo_ctx c = {.m = &m, .err = err};
    ls_arena_init(&c.arena, 0);
    if (!rc) {
        char name[GRAPH_MAX_NAME + 1];
        snprintf(name, sizeof name, "%.*s", m.name.n, m.name.s);
        const struct hlo_comp *e = &m.comps[m.entry];
        c.g = graph_new(name);
        c.weight_param = calloc((size_t)e->nins, 1);
        c.live = calloc((size_t)m.ncomps, sizeof *c.live);
        if (!c.g || !c.weight_param || !c.live)
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    struct hv root;
    if (!rc) {
        find_weights(&c, &m.comps[m.entry]);
        rc = hlo_emit_comp(&c, m.entry, NULL, 0, &root);
    }
    if (!rc)
        rc = outputs(&c, &root, 0);
    if (!rc && graph_validate(c.g, err))
        rc = ls_error_set(err, LS_ERR_INPUT, file, 0, 0, "%s", err->msg);
    free(c.weight_param);
    for (int i = 0; c.live && i < m.ncomps; i++)
        free(c.live[i]);
    free(c.live);
    ls_arena_free(&c.arena);
    hlo_module_free(&m);
    if (rc) {
        graph_free(c.g);
        return rc;
    }
    *out = c.g;
    return 0;
}
