/* graph: storage, names, the sticky error and the low-level builder. */
#include "graph/graph_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct graph *graph_new(const char *name)
{
    struct graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    ls_intern_init(&g->strings);
    ls_arena_init(&g->arena, 0);
    g->name = "";
    if (name)
        graph_set_name(g, name); /* a bad name becomes the sticky error */
    return g;
}

void graph_free(struct graph *g)
{
    if (!g)
        return;
    for (size_t i = 0; i < g->tensors.len; i++)
        free(g->tensors.data[i].uses);
    LS_VEC_FREE(&g->tensors);
    LS_VEC_FREE(&g->ops);
    LS_VEC_FREE(&g->tensor_by_str);
    LS_VEC_FREE(&g->op_by_str);
    ls_intern_free(&g->strings);
    ls_arena_free(&g->arena);
    free(g);
}

const char *graph_name(const struct graph *g)
{
    return g->name;
}

int graph_set_name(struct graph *g, const char *name)
{
    if (g->failed)
        return -1;
    if (name && strlen(name) > GRAPH_MAX_NAME)
        return graph_fail(g, LS_ERR_INPUT, "graph name longer than %d bytes", GRAPH_MAX_NAME);
    if (name && name[0] && !graph_name_ok(name, strlen(name)))
        return graph_fail(g, LS_ERR_INPUT, "bad graph name '%s' (letters, digits, _ . @ / -)",
                          name);
    const char *s = graph_intern(g, name ? name : "");
    if (!s)
        return graph_fail(g, LS_ERR_NOMEM, "out of memory");
    g->name = s;
    return 0;
}

void graph_set_prefix(struct graph *g, const char *prefix)
{
    if (!prefix)
        prefix = "";
    if (strlen(prefix) >= sizeof g->prefix) {   /* names built from it would be cut */
        g->prefix[0] = 0;
        graph_fail(g, LS_ERR_INPUT, "name prefix '%.40s...' longer than %zu bytes", prefix,
                   sizeof g->prefix - 1);
        return;
    }
    snprintf(g->prefix, sizeof g->prefix, "%s", prefix);
}

const struct ls_error *graph_error(const struct graph *g)
{
    return g->failed ? &g->err : NULL;
}

int graph_fail(struct graph *g, int code, const char *fmt, ...)
{
    if (g->failed)
        return -1;
    char msg[sizeof g->err.msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ls_error_set(&g->err, code, NULL, 0, 0, "%s", msg);
    g->failed = 1;
    return -1;
}

const char *graph_intern(struct graph *g, const char *s)
{
    int32_t id = ls_intern_add(&g->strings, s, strlen(s));
    return id < 0 ? NULL : ls_intern_str(&g->strings, id);
}

int graph_name_ok(const char *s, size_t n)
{
    if (n == 0 || s[0] == '-')
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '@' || c == '/' || c == '-'))
            return 0;
    }
    return 1;
}

int graph_role_ok(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

/* ---- shapes ---- */

int graph_shape_make(struct graph_shape *s, int rank, const int64_t *sizes)
{
    memset(s, 0, sizeof *s);
    if (rank < 0 || rank > GRAPH_MAX_RANK)
        return -1;
    s->rank = rank;
    for (int i = 0; i < rank; i++) {
        if (sizes[i] < 1)
            return -1;
        s->dims[i].size = sizes[i];
    }
    return 0;
}

int64_t graph_shape_numel(const struct graph_shape *s)
{
    int64_t n = 1;
    for (int i = 0; i < s->rank; i++) {
        if (s->dims[i].size > 0 && n > INT64_MAX / s->dims[i].size)
            return INT64_MAX;
        n *= s->dims[i].size;
    }
    return n;
}

int graph_shape_equal(const struct graph_shape *a, const struct graph_shape *b)
{
    if (a->rank != b->rank)
        return 0;
    for (int i = 0; i < a->rank; i++)
        if (a->dims[i].size != b->dims[i].size)
            return 0;
    return 1;
}

const char *graph_shape_str(const struct graph_shape *s, int with_roles, char *buf, size_t n)
{
    size_t at = 0;
    if (n == 0)
        return buf;
    buf[0] = 0;
#define PUT(...)                                                        \
    do {                                                                \
        int w_ = snprintf(buf + at, n - at, __VA_ARGS__);               \
        if (w_ < 0 || (size_t)w_ >= n - at)                             \
            return buf;                                                 \
        at += (size_t)w_;                                               \
    } while (0)
    PUT("[");
    for (int i = 0; i < s->rank; i++) {
        if (i)
            PUT(",");
        if (with_roles && s->dims[i].role)
            PUT("%s:", s->dims[i].role);
        PUT("%lld", (long long)s->dims[i].size);
    }
    PUT("]");
#undef PUT
    return buf;
}

/* ---- lookup ---- */

int32_t graph_ntensors(const struct graph *g)
{
    return (int32_t)g->tensors.len;
}

int32_t graph_nops(const struct graph *g)
{
    return (int32_t)g->ops.len;
}

const struct graph_tensor *graph_tensor(const struct graph *g, int32_t t)
{
    return t >= 0 && (size_t)t < g->tensors.len ? &g->tensors.data[t] : NULL;
}

const struct graph_op *graph_op(const struct graph *g, int32_t op)
{
    return op >= 0 && (size_t)op < g->ops.len ? &g->ops.data[op] : NULL;
}

static int32_t lookup(const struct graph *g, const char *s, size_t n, int ops)
{
    int32_t sid = ls_intern_find(&g->strings, s, n);
    if (sid < 0)
        return -1;
    const int32_t *tab = ops ? g->op_by_str.data : g->tensor_by_str.data;
    size_t len = ops ? g->op_by_str.len : g->tensor_by_str.len;
    return (size_t)sid < len ? tab[sid] : -1;
}

int32_t graph_find_tensor(const struct graph *g, const char *name)
{
    return lookup(g, name, strlen(name), 0);
}

int32_t graph_find_op(const struct graph *g, const char *name)
{
    return lookup(g, name, strlen(name), 1);
}

/* Register name -> id in a table; -1 when taken (error recorded). */
static int bind_name(struct graph *g, const char *name, int32_t id, int ops, const char **out)
{
    int32_t sid = ls_intern_add(&g->strings, name, strlen(name));
    if (sid < 0)
        return graph_fail(g, LS_ERR_NOMEM, "out of memory");
    if (ops) {
        while (g->op_by_str.len <= (size_t)sid)
            if (LS_VEC_PUSH(&g->op_by_str, -1))
                return graph_fail(g, LS_ERR_NOMEM, "out of memory");
        if (g->op_by_str.data[sid] >= 0)
            return graph_fail(g, LS_ERR_INPUT, "op name '%s' used twice", name);
        g->op_by_str.data[sid] = id;
    } else {
        while (g->tensor_by_str.len <= (size_t)sid)
            if (LS_VEC_PUSH(&g->tensor_by_str, -1))
                return graph_fail(g, LS_ERR_NOMEM, "out of memory");
        if (g->tensor_by_str.data[sid] >= 0)
            return graph_fail(g, LS_ERR_INPUT, "tensor name '%s' used twice", name);
        g->tensor_by_str.data[sid] = id;
    }
    *out = ls_intern_str(&g->strings, sid);
    return 0;
}

/* ---- low-level builder ---- */

static int parse_roles(struct graph *g, struct graph_shape *s, const char *roles)
{
    if (!roles)
        return 0;
    const char *p = roles;
    for (int i = 0; i < s->rank; i++) {
        const char *e = strchr(p, ',');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n) {
            if (!graph_role_ok(p, n))
                return graph_fail(g, LS_ERR_INPUT, "bad dimension role list '%s'", roles);
            char buf[GRAPH_MAX_ROLE + 1];
            if (n >= sizeof buf)
                return graph_fail(g, LS_ERR_INPUT, "dimension role too long in '%s'", roles);
            memcpy(buf, p, n);
            buf[n] = 0;
            if (!(s->dims[i].role = graph_intern(g, buf)))
                return graph_fail(g, LS_ERR_NOMEM, "out of memory");
        }
        if (i + 1 < s->rank) {
            if (!e)
                return graph_fail(g, LS_ERR_INPUT, "role list '%s' has fewer than %d entries",
                                  roles, s->rank);
            p = e + 1;
        } else if (e) {
            return graph_fail(g, LS_ERR_INPUT, "role list '%s' has more than %d entries", roles,
                              s->rank);
        }
    }
    if (s->rank == 0 && roles[0])
        return graph_fail(g, LS_ERR_INPUT, "role list '%s' given for a scalar", roles);
    return 0;
}

int32_t graph_add_tensor(struct graph *g, const char *name, enum ls_dtype dt,
                         enum graph_tensor_role role, int rank, const int64_t *sizes,
                         const char *roles)
{
    if (g->failed)
        return -1;
    struct graph_shape s;
    if (rank < 0 || rank > GRAPH_MAX_RANK)
        return graph_fail(g, LS_ERR_INPUT, "tensor '%s': rank %d out of range 0..%d",
                          name ? name : "?", rank, GRAPH_MAX_RANK);
    if (graph_shape_make(&s, rank, sizes))
        return graph_fail(g, LS_ERR_INPUT, "tensor '%s': dimension sizes must be >= 1",
                          name ? name : "?");
    if (parse_roles(g, &s, roles))
        return -1;
    return graph_add_tensor_shape(g, name, dt, role, &s);
}

int32_t graph_add_tensor_shape(struct graph *g, const char *name, enum ls_dtype dt,
                               enum graph_tensor_role role, const struct graph_shape *shape)
{
    if (g->failed)
        return -1;
    int32_t id = (int32_t)g->tensors.len;
    char buf[GRAPH_MAX_NAME + 1];
    int len = name ? snprintf(buf, sizeof buf, "%s%s", g->prefix, name)
                   : snprintf(buf, sizeof buf, "%st%d", g->prefix, (int)id);
    if (len < 0 || (size_t)len >= sizeof buf)
        return graph_fail(g, LS_ERR_INPUT, "tensor name '%s%s' is longer than %d bytes",
                          g->prefix, name ? name : "", GRAPH_MAX_NAME);
    if (!graph_name_ok(buf, strlen(buf)))
        return graph_fail(g, LS_ERR_INPUT, "bad tensor name '%s' (letters, digits, _ . @ / -)",
                          buf);
    if ((unsigned)dt >= LS_DT_COUNT || (unsigned)role >= GRAPH_ROLE_COUNT)
        return graph_fail(g, LS_ERR_INPUT, "tensor '%s': bad dtype or role", buf);
    if (shape->rank < 0 || shape->rank > GRAPH_MAX_RANK)
        return graph_fail(g, LS_ERR_INPUT, "tensor '%s': rank %d out of range 0..%d", buf,
                          shape->rank, GRAPH_MAX_RANK);
    int64_t elems = 1;
    for (int i = 0; i < shape->rank; i++) {
        int64_t n = shape->dims[i].size;
        if (n < 1 || n > GRAPH_MAX_DIM)
            return graph_fail(g, LS_ERR_INPUT,
                              "tensor '%s': dimension %d has size %lld (allowed 1..2^40)", buf,
                              i, (long long)n);
        if (elems > GRAPH_MAX_ELEMS / n)
            return graph_fail(g, LS_ERR_INPUT, "tensor '%s': shape has more than 2^50 elements",
                              buf);
        elems *= n;
        if (shape->dims[i].role && strlen(shape->dims[i].role) > GRAPH_MAX_ROLE)
            return graph_fail(g, LS_ERR_INPUT, "tensor '%s': dimension role longer than %d bytes",
                              buf, GRAPH_MAX_ROLE);
    }
    struct graph_tensor t;
    memset(&t, 0, sizeof t);
    if (bind_name(g, buf, id, 0, &t.name))
        return -1;
    t.dtype = dt;
    t.shape = *shape;
    for (int i = shape->rank; i < GRAPH_MAX_RANK; i++)
        t.shape.dims[i] = (struct graph_dim){0, NULL};
    for (int i = 0; i < shape->rank; i++)
        if (shape->dims[i].role && !(t.shape.dims[i].role = graph_intern(g, shape->dims[i].role)))
            return graph_fail(g, LS_ERR_NOMEM, "out of memory");
    t.role = role;
    t.producer = -1;
    if (LS_VEC_PUSH(&g->tensors, t))
        return graph_fail(g, LS_ERR_NOMEM, "out of memory");
    return id;
}

int graph_set_dim_role(struct graph *g, int32_t t, int axis, const char *role)
{
    if (g->failed)
        return -1;
    if (t < 0 || (size_t)t >= g->tensors.len)
        return graph_fail(g, LS_ERR_INPUT, "graph_set_dim_role: no tensor %d", (int)t);
    struct graph_tensor *ten = &g->tensors.data[t];
    if (axis < 0 || axis >= ten->shape.rank)
        return graph_fail(g, LS_ERR_INPUT, "tensor '%s' has no axis %d", ten->name, axis);
    if (role && (!graph_role_ok(role, strlen(role)) || strlen(role) > GRAPH_MAX_ROLE))
        return graph_fail(g, LS_ERR_INPUT, "bad dimension role '%s'", role);
    const char *r = role ? graph_intern(g, role) : NULL;
    if (role && !r)
        return graph_fail(g, LS_ERR_NOMEM, "out of memory");
    ten->shape.dims[axis].role = r;
    return 0;
}

int32_t graph_add_op(struct graph *g, enum graph_op_kind kind, const int32_t *inputs,
                     int ninputs, int32_t output, const struct graph_attrs *attrs)
{
    if (g->failed)
        return -1;
    if ((unsigned)kind >= GRAPH_OP_COUNT)
        return graph_fail(g, LS_ERR_INPUT, "bad op kind %d", (int)kind);
    const char *kn = graph_op_kind_name(kind);
    int lo, hi;
    graph_kind_arity(kind, &lo, &hi);
    if (ninputs < lo || (hi >= 0 && ninputs > hi) || ninputs > GRAPH_MAX_INPUTS)
    {
        char want[32];
        if (hi < 0)
            snprintf(want, sizeof want, "%d or more", lo);
        else if (hi != lo)
            snprintf(want, sizeof want, "%d to %d", lo, hi);
        else
            snprintf(want, sizeof want, "%d", lo);
        return graph_fail(g, LS_ERR_INPUT, "%s takes %s inputs, got %d", kn, want, ninputs);
    }
    int ranks[2] = {0, 0};
    for (int i = 0; i < ninputs; i++) {
        if (inputs[i] < 0 || (size_t)inputs[i] >= g->tensors.len)
            return graph_fail(g, LS_ERR_INPUT, "%s: input %d is not a tensor (id %d)", kn, i,
                              (int)inputs[i]);
        if (i < 2)
            ranks[i] = g->tensors.data[inputs[i]].shape.rank;
    }
    int32_t id = (int32_t)g->ops.len;
    struct graph_op op;
    memset(&op, 0, sizeof op);
    op.kind = kind;
    op.ninputs = ninputs;
    op.output = -1;
    if (kind == GRAPH_OP_RETURN) {
        if (output != -1)
            return graph_fail(g, LS_ERR_INPUT, "a return op has no output");
        char buf[GRAPH_MAX_NAME + sizeof "return:"]; /* derived, never read back from .lg */
        snprintf(buf, sizeof buf, "return:%s", g->tensors.data[inputs[0]].name);
        if (bind_name(g, buf, id, 1, &op.name))
            return -1;
    } else {
        if (output < 0 || (size_t)output >= g->tensors.len)
            return graph_fail(g, LS_ERR_INPUT, "%s: output is not a tensor (id %d)", kn,
                              (int)output);
        if (bind_name(g, g->tensors.data[output].name, id, 1, &op.name))
            return -1;
        op.output = output;
    }
    if (attrs)
        op.attrs = *attrs;
    else
        graph_attrs_default(kind, ranks, ninputs, &op.attrs);
    if (ninputs) {
        op.inputs = ls_arena_alloc(&g->arena, sizeof(int32_t) * (size_t)ninputs);
        if (!op.inputs)
            return graph_fail(g, LS_ERR_NOMEM, "out of memory");
        memcpy(op.inputs, inputs, sizeof(int32_t) * (size_t)ninputs);
    }
    for (int i = 0; i < ninputs; i++) {
        struct graph_tensor *t = &g->tensors.data[inputs[i]];
        if (ls_vec_reserve_((void **)&t->uses, &t->capuses, t->nuses + 1, sizeof *t->uses))
            return graph_fail(g, LS_ERR_NOMEM, "out of memory");
        t->uses[t->nuses++] = (struct graph_use){id, i};
    }
    if (LS_VEC_PUSH(&g->ops, op))
        return graph_fail(g, LS_ERR_NOMEM, "out of memory");
    if (kind == GRAPH_OP_RETURN) {
        struct graph_tensor *t = &g->tensors.data[inputs[0]];
        if (t->role == GRAPH_ROLE_ACTIVATION)
            t->role = GRAPH_ROLE_OUTPUT;
    } else {
        struct graph_tensor *t = &g->tensors.data[output];
        if (t->nproducers++ == 0)
            t->producer = id;
    }
    return id;
}

/* ---- sources and returns ---- */

static int32_t add_source(struct graph *g, const char *name, enum ls_dtype dt,
                          enum graph_tensor_role role, int rank, const int64_t *sizes,
                          const char *roles)
{
    int32_t t = graph_add_tensor(g, name, dt, role, rank, sizes, roles);
    if (t < 0)
        return -1;
    if (graph_add_op(g, GRAPH_OP_SOURCE, NULL, 0, t, NULL) < 0)
        return -1;
    return t;
}

int32_t graph_input(struct graph *g, const char *name, enum ls_dtype dt, int rank,
                    const int64_t *sizes, const char *roles)
{
    return add_source(g, name, dt, GRAPH_ROLE_INPUT, rank, sizes, roles);
}

int32_t graph_weight(struct graph *g, const char *name, enum ls_dtype dt, int rank,
                     const int64_t *sizes, const char *roles)
{
    return add_source(g, name, dt, GRAPH_ROLE_WEIGHT, rank, sizes, roles);
}

int graph_set_state(struct graph *g, int32_t t)
{
    if (t < 0 || t >= graph_ntensors(g) || g->tensors.data[t].role != GRAPH_ROLE_INPUT)
        return graph_fail(g, LS_ERR_INPUT, "only a graph input can be state");
    g->tensors.data[t].state = 1;
    return 0;
}

int32_t graph_output(struct graph *g, int32_t t)
{
    if (g->failed || t < 0)
        return -1;
    return graph_add_op(g, GRAPH_OP_RETURN, &t, 1, -1, NULL);
}
