/* graph/lg: the .lg writer, DOT and JSON exports. */
#include "graph/graph_int.h"
#include "graph/lg.h"
#include "util/fileio.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

static void kv_ints(struct graph_attr_kv *kv, const char *key, const int *v, int n)
{
    kv->key = key;
    kv->n = n;
    for (int i = 0; i < n; i++)
        kv->v[i] = v[i];
}

static void kv_pair(struct graph_attr_kv *kv, const char *key, const int64_t *v)
{
    kv->key = key;
    kv->n = 2;
    kv->v[0] = v[0];
    kv->v[1] = v[1];
}

static void kv_one(struct graph_attr_kv *kv, const char *key, int64_t v)
{
    kv->key = key;
    kv->n = 1;
    kv->v[0] = v;
}

int graph_attr_list(const struct graph *g, const struct graph_op *op, struct graph_attr_kv *kv)
{
    const struct graph_attrs *a = &op->attrs;
    int n = 0;
    switch (op->kind) {
    case GRAPH_OP_BATCH_MATMUL:
        kv_ints(&kv[n++], "lhs_batch", a->lhs_batch, a->nbatch);
        kv_ints(&kv[n++], "rhs_batch", a->rhs_batch, a->nbatch);
        /* fall through */
    case GRAPH_OP_MATMUL:
        kv_ints(&kv[n++], "lhs_contract", a->lhs_contract, a->ncontract);
        kv_ints(&kv[n++], "rhs_contract", a->rhs_contract, a->ncontract);
        break;
    case GRAPH_OP_CONV2D:
        kv_pair(&kv[n++], "stride", a->stride);
        kv_pair(&kv[n++], "pad", a->pad);
        kv_pair(&kv[n++], "dilation", a->dilation);
        kv_one(&kv[n++], "groups", a->groups);
        break;
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        kv_pair(&kv[n++], "kernel", a->kernel);
        kv_pair(&kv[n++], "stride", a->stride);
        kv_pair(&kv[n++], "pad", a->pad);
        break;
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN:
        kv_ints(&kv[n++], "axes", a->axes, a->naxes);
        kv_one(&kv[n++], "keep", a->keep);
        break;
    case GRAPH_OP_SOFTMAX:
    case GRAPH_OP_LAYERNORM:
    case GRAPH_OP_RMSNORM:
    case GRAPH_OP_BATCHNORM:
    case GRAPH_OP_CONCAT:
    case GRAPH_OP_GATHER:
        kv_one(&kv[n++], "axis", a->axis);
        break;
    case GRAPH_OP_SLICE:
        kv_one(&kv[n++], "axis", a->axis);
        kv_one(&kv[n++], "begin", a->begin);
        kv_one(&kv[n++], "end", a->end);
        kv_one(&kv[n++], "step", a->step);
        break;
    case GRAPH_OP_TRANSPOSE:
        kv_ints(&kv[n++], "perm", a->perm, graph_tensor(g, op->inputs[0])->shape.rank);
        break;
    default:
        break;
    }
    return n;
}

/* ---- .lg ---- */

int graph_write(const struct graph *g, FILE *fp, struct ls_error *err)
{
    int32_t n = graph_nops(g);
    int32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    if (!order)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = graph_topo_order(g, order, err);
    if (rc) {
        free(order);
        return rc;
    }
    fprintf(fp, "lg 1\n");
    if (graph_name(g)[0])
        fprintf(fp, "name %s\n", graph_name(g));
    char buf[512];
    for (int32_t k = 0; k < n; k++) {
        const struct graph_op *op = graph_op(g, order[k]);
        if (op->kind == GRAPH_OP_RETURN) {
            fprintf(fp, "output %s\n", graph_tensor(g, op->inputs[0])->name);
            continue;
        }
        const struct graph_tensor *t = graph_tensor(g, op->output);
        graph_shape_str(&t->shape, 1, buf, sizeof buf);
        if (op->kind == GRAPH_OP_SOURCE) {
            fprintf(fp, "%s %s %s %s%s\n", t->role == GRAPH_ROLE_WEIGHT ? "weight" : "input",
                    t->name, ls_dtype_name(t->dtype), buf, t->state ? " state" : "");
            continue;
        }
        fprintf(fp, "op %s %s %s = %s", t->name, ls_dtype_name(t->dtype), buf,
                graph_op_kind_name(op->kind));
        for (int i = 0; i < op->ninputs; i++)
            fprintf(fp, " %s", graph_tensor(g, op->inputs[i])->name);
        struct graph_attr_kv kv[GRAPH_ATTR_MAX];
        int na = graph_attr_list(g, op, kv);
        for (int i = 0; i < na; i++) {
            fprintf(fp, " %s=", kv[i].key);
            for (int j = 0; j < kv[i].n; j++)
                fprintf(fp, "%s%lld", j ? "," : "", (long long)kv[i].v[j]);
        }
        fputc('\n', fp);
    }
    free(order);
    if (ferror(fp))
        return ls_error_msg(err, LS_ERR_IO, "write error");
    return 0;
}

int graph_write_file(const struct graph *g, const char *path, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    rc = graph_write(g, af.fp, err);
    if (rc) {
        ls_atomic_abort(&af);
        return rc;
    }
    return ls_atomic_commit(&af, err);
}

/* ---- DOT ---- */

static void dot_id(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '\n') {
            fputs("\\n", fp);
            continue;
        }
        if (*s == '"' || *s == '\\')
            fputc('\\', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}

int graph_write_dot(const struct graph *g, FILE *fp, struct ls_error *err)
{
    char buf[512];
    fprintf(fp, "digraph ");
    dot_id(fp, graph_name(g)[0] ? graph_name(g) : "graph");
    fprintf(fp, " {\n  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n"
                "  edge [fontname=\"Helvetica\", fontsize=9];\n");
    for (int32_t o = 0; o < graph_nops(g); o++) {
        const struct graph_op *op = graph_op(g, o);
        fprintf(fp, "  n%d [label=", (int)o);
        if (op->kind == GRAPH_OP_SOURCE) {
            const struct graph_tensor *t = graph_tensor(g, op->output);
            snprintf(buf, sizeof buf, "%s\n%s", t->name, graph_role_name(t->role));
            dot_id(fp, buf);
            fprintf(fp, ", shape=%s", t->role == GRAPH_ROLE_WEIGHT ? "note" : "ellipse");
        } else if (op->kind == GRAPH_OP_RETURN) {
            dot_id(fp, "return");
            fprintf(fp, ", shape=doublecircle");
        } else {
            snprintf(buf, sizeof buf, "%s\n%s", op->name, graph_op_kind_name(op->kind));
            dot_id(fp, buf);
            fprintf(fp, ", shape=box");
        }
        fprintf(fp, "];\n");
    }
    for (int32_t o = 0; o < graph_nops(g); o++) {
        const struct graph_op *op = graph_op(g, o);
        for (int i = 0; i < op->ninputs; i++) {
            const struct graph_tensor *t = graph_tensor(g, op->inputs[i]);
            if (t->producer < 0)
                continue;
            char sh[256];
            graph_shape_str(&t->shape, 0, sh, sizeof sh);
            snprintf(buf, sizeof buf, "%s %s %s", t->name, ls_dtype_name(t->dtype), sh);
            fprintf(fp, "  n%d -> n%d [label=", (int)t->producer, (int)o);
            dot_id(fp, buf);
            fprintf(fp, "];\n");
        }
    }
    fprintf(fp, "}\n");
    if (ferror(fp))
        return ls_error_msg(err, LS_ERR_IO, "write error");
    return 0;
}

/* ---- JSON ---- */

static int put(json_t *obj, const char *key, json_t *v)
{
    return !v || json_object_set_new(obj, key, v);
}

static json_t *shape_json(const struct graph_shape *s, int roles)
{
    json_t *a = json_array();
    if (!a)
        return NULL;
    for (int i = 0; i < s->rank; i++) {
        json_t *v = roles ? (s->dims[i].role ? json_string(s->dims[i].role) : json_null())
                          : json_integer(s->dims[i].size);
        if (json_array_append_new(a, v)) {
            json_decref(a);
            return NULL;
        }
    }
    return a;
}

json_t *graph_to_json(const struct graph *g)
{
    json_t *root = json_object(), *ts = json_array(), *os = json_array(), *outs = json_array();
    int bad = !root || !ts || !os || !outs;
    bad |= put(root, "name", json_string(graph_name(g)));
    for (int32_t t = 0; t < graph_ntensors(g) && !bad; t++) {
        const struct graph_tensor *x = graph_tensor(g, t);
        json_t *o = json_object();
        bad |= !o || json_array_append_new(ts, o);
        if (bad)
            break;
        bad |= put(o, "name", json_string(x->name));
        bad |= put(o, "dtype", json_string(ls_dtype_name(x->dtype)));
        bad |= put(o, "shape", shape_json(&x->shape, 0));
        bad |= put(o, "dim_roles", shape_json(&x->shape, 1));
        bad |= put(o, "role", json_string(graph_role_name(x->role)));
        if (x->state)
            bad |= put(o, "state", json_true());
        bad |= put(o, "uses", json_integer((json_int_t)x->nuses));
    }
    for (int32_t k = 0; k < graph_nops(g) && !bad; k++) {
        const struct graph_op *op = graph_op(g, k);
        json_t *o = json_object(), *in = json_array(), *at = json_object();
        bad |= !o || !in || !at || json_array_append_new(os, o);
        if (bad) {
            json_decref(in);
            json_decref(at);
            break;
        }
        bad |= put(o, "name", json_string(op->name));
        bad |= put(o, "kind", json_string(graph_op_kind_name(op->kind)));
        for (int i = 0; i < op->ninputs; i++)
            bad |= json_array_append_new(in, json_string(graph_tensor(g, op->inputs[i])->name));
        bad |= put(o, "inputs", in);
        bad |= put(o, "output", op->output >= 0
                                    ? json_string(graph_tensor(g, op->output)->name)
                                    : json_null());
        struct graph_attr_kv kv[GRAPH_ATTR_MAX];
        int na = graph_attr_list(g, op, kv);
        for (int i = 0; i < na; i++) {
            json_t *v = json_array();
            for (int j = 0; v && j < kv[i].n; j++)
                bad |= json_array_append_new(v, json_integer((json_int_t)kv[i].v[j]));
            bad |= put(at, kv[i].key, v);
        }
        bad |= put(o, "attrs", at);
        if (op->kind == GRAPH_OP_RETURN)
            bad |= json_array_append_new(outs,
                                         json_string(graph_tensor(g, op->inputs[0])->name));
    }
    bad |= put(root, "tensors", ts);
    bad |= put(root, "ops", os);
    bad |= put(root, "outputs", outs);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

json_t *graph_stats_to_json(const struct graph_stats *st)
{
    json_t *o = json_object();
    if (!o)
        return NULL;
    int bad = 0;
    bad |= put(o, "ops", json_integer(st->ops));
    bad |= put(o, "compute_ops", json_integer(st->compute_ops));
    bad |= put(o, "sources", json_integer(st->sources));
    bad |= put(o, "returns", json_integer(st->returns));
    bad |= put(o, "tensors", json_integer(st->tensors));
    bad |= put(o, "edges", json_integer(st->edges));
    bad |= put(o, "max_fanout", json_integer(st->max_fanout));
    bad |= put(o, "treewidth_ub", json_integer(st->treewidth_ub));
    bad |= put(o, "weight_elems", json_integer(st->weight_elems));
    bad |= put(o, "tensor_bytes", json_integer(st->tensor_bytes));
    bad |= put(o, "flops", json_real(st->flops));
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
