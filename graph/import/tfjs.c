/* graph/import: TF.js graph model -> graph. This file parses the JSON, reads the nodes and
 * their inputs, orders them, lowers them one by one (tfjs_source.c, tfjs_conv.c,
 * tfjs_ops.c, tfjs_shape.c, tfjs_move.c; values in tfjs_value.c, folding in tfjs_fold.c)
 * and makes the unread node outputs the graph outputs. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/tfjs_int.h"
#include "graph/inputs.h"
#include "util/jsonpos.h"

void tfjs_opts_init(struct tfjs_opts *o)
{
    memset(o, 0, sizeof *o);
    o->batch = 1;
    o->image = TFJS_DEFAULT_IMAGE;
}

int tfjs_is_model(const char *buf, size_t len)
{
    json_t *root = json_loadb(buf, len, JSON_DECODE_ANY, NULL);
    int yes = json_is_object(root) && (json_object_get(root, "modelTopology") ||
                                       json_object_get(root, "weightsManifest"));
    static const char key[] = "\"modelTopology\"";
    for (size_t i = 0; !root && i + sizeof key - 1 <= len && !yes; i++)
        yes = !memcmp(buf + i, key, sizeof key - 1); /* malformed: the TF.js reader reports */
    json_decref(root);
    return yes;
}

/* ---- errors -------------------------------------------------------------------------- */

static int fail_at(struct tfjs *c, const char *path, const char *fmt, va_list ap)
{
    if (c->rc)
        return c->rc;
    char msg[400];
    vsnprintf(msg, sizeof msg, fmt, ap);
    int line = 0, col = 0;
    if (path)
        ls_json_locate(c->text, c->len, path, &line, &col);
    c->rc = ls_error_set(c->err, LS_ERR_INPUT, c->file, line, col, "%s", msg);
    return c->rc;
}

int tf_fail_path(struct tfjs *c, const char *path, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(c, path, fmt, ap);
    va_end(ap);
    return c->rc;
}

int tf_fail(struct tfjs *c, const char *fmt, ...)
{
    if (c->rc)
        return c->rc;
    char msg[400], path[64];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct tnode *n = c->cur >= 0 ? &c->nodes[c->cur] : NULL;
    snprintf(path, sizeof path, "modelTopology.node[%d]", (int)c->cur);
    return tf_fail_path(c, n ? path : NULL, "node '%.200s' (%.60s): %s", n ? n->name : "?",
                     n ? n->op : "?", msg);
}

const char *tf_kind_of(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* ---- small helpers ------------------------------------------------------------------- */

int64_t tf_numel(int rank, const int64_t *dims)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        n = dims[i] == 0 ? 0
            : dims[i] > 0 && n <= GRAPH_MAX_ELEMS / dims[i] ? n * dims[i] : GRAPH_MAX_ELEMS + 1;
    return n;
}

int64_t tf_to_int(double x)
{
    const double lim = (double)((int64_t)1 << 50); /* beyond any size; no overflow later */
    return x != x ? 0 : x > lim ? (int64_t)lim : x < -lim ? -(int64_t)lim : (int64_t)x;
}

int tf_axis(struct tfjs *c, int64_t a, int rank)
{
    int64_t r = a < 0 ? a + rank : a;
    if (r < 0 || r >= (rank ? rank : 1))
        return tf_fail(c, "axis %lld out of range for rank %d", (long long)a, rank), -1;
    return (int)r;
}

/* An integer in JSON written as a number or as a decimal string ("256", "-1"). */
int tf_json_int(const json_t *j, int64_t *v)
{
    if (json_is_integer(j)) {
        *v = json_integer_value(j);
        return 0;
    }
    if (json_is_string(j)) {
        char *end;
        long long x = strtoll(json_string_value(j), &end, 10);
        if (end != json_string_value(j) && !*end) {
            *v = x;
            return 0;
        }
    }
    return -1;
}

/* ---- nodes and their order ----------------------------------------------------------- */

static int read_nodes(struct tfjs *c)
{
    json_t *mt = json_object_get(c->root, "modelTopology");
    json_t *nl = json_is_object(mt) ? json_object_get(mt, "node") : NULL;
    if (!json_is_array(nl))
        return tf_fail_path(c, mt ? "modelTopology" : NULL, "field 'modelTopology.node': expected "
                         "an array of nodes (a TF.js graph model; layers models are not "
                         "supported)");
    c->n = json_array_size(nl);
    c->nodes = calloc(c->n ? c->n : 1, sizeof *c->nodes);
    c->index = json_object();
    if (!c->nodes || !c->index)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++) {
        struct tnode *n = &c->nodes[i];
        char path[64];
        snprintf(path, sizeof path, "modelTopology.node[%zu]", i);
        n->j = json_array_get(nl, i);
        json_t *nm = json_object_get(n->j, "name"), *op = json_object_get(n->j, "op");
        if (!json_is_string(nm) || !json_is_string(op) || !*json_string_value(nm))
            return tf_fail_path(c, path, "node %zu: expected a string 'name' and 'op'", i);
        n->name = json_string_value(nm);
        n->op = json_string_value(op);
        if (json_object_get(c->index, n->name))
            return tf_fail_path(c, path, "node '%.200s' (%.60s): a second node of that name",
                             n->name, n->op);
        if (json_object_set_new(c->index, n->name, json_integer((json_int_t)i)))
            return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    }
    return 0;
}

/* Resolve "name", "name:k" inputs (control inputs "^name" only order nothing here). */
static int link_inputs(struct tfjs *c)
{
    for (size_t i = 0; i < c->n && !c->rc; i++) {
        struct tnode *n = &c->nodes[i];
        json_t *in = json_object_get(n->j, "input");
        c->cur = (int32_t)i;
        if (in && !json_is_array(in))
            return tf_fail(c, "field 'input': expected an array of strings");
        size_t m = json_array_size(in);
        n->in = malloc((m ? m : 1) * sizeof *n->in);
        n->port = malloc((m ? m : 1) * sizeof *n->port);
        if (!n->in || !n->port)
            return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
        for (size_t k = 0; k < m; k++) {
            const char *s = json_string_value(json_array_get(in, k));
            if (!s)
                return tf_fail(c, "input %zu is not a string", k);
            if (*s == '^')
                continue;
            char buf[1024];
            snprintf(buf, sizeof buf, "%s", s);
            char *colon = strrchr(buf, ':');
            int port = 0;
            if (colon && colon[1]) {
                char *end;
                long p = strtol(colon + 1, &end, 10);
                if (!*end && p >= 0 && p < 1 << 16)
                    *colon = 0, port = (int)p;
            }
            json_t *id = json_object_get(c->index, buf);
            if (!id)
                return tf_fail(c, "input %zu '%.200s' names no node", k, s);
            n->in[n->nin] = (int32_t)json_integer_value(id);
            n->port[n->nin++] = port;
        }
    }
    return c->rc;
}

/* A node left over by the order sits on a cycle (while loops' back edges are not counted):
 * name a Merge or NextIteration when one is there, else the first. */
static void cycle_fail(struct tfjs *c, const int32_t *deg)
{
    size_t first = c->n;
    for (size_t i = 0; i < c->n; i++) {
        if (!deg[i])
            continue;
        first = first < c->n ? first : i;
        if (!strcmp(c->nodes[i].op, "Merge") || !strcmp(c->nodes[i].op, "NextIteration")) {
            c->cur = (int32_t)i;
            tf_fail(c, "lies on a cycle of data inputs that is not a while loop's frame");
            return;
        }
    }
    c->cur = (int32_t)first;
    tf_fail(c, "lies on a cycle of data inputs");
}

/* Kahn's order over data inputs; a node left over sits on a cycle. */
static int order(struct tfjs *c, int32_t *ord)
{
    int32_t *deg = calloc(c->n ? c->n : 1, sizeof *deg);
    int32_t *users = NULL, *start = calloc(c->n + 1, sizeof *start);
    if (!deg || !start)
        goto nomem;
    for (size_t i = 0; i < c->n; i++) {
        for (int k = 0; k < c->nodes[i].nin; k++)
            if (!tf_loop_back_edge(c, (int32_t)i, k))
                start[c->nodes[i].in[k] + 1]++, deg[i]++;
        deg[i] += tf_loop_extra(c, (int32_t)i);
    }
    for (size_t i = 0; i < c->n; i++)
        start[i + 1] += start[i];
    users = malloc((size_t)(start[c->n] ? start[c->n] : 1) * sizeof *users);
    if (!users)
        goto nomem;
    int32_t *fill = calloc(c->n ? c->n : 1, sizeof *fill);
    if (!fill)
        goto nomem;
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->nodes[i].nin; k++)
            if (!tf_loop_back_edge(c, (int32_t)i, k)) {
                int32_t p = c->nodes[i].in[k];
                users[start[p] + fill[p]++] = (int32_t)i;
            }
    free(fill);
    size_t head = 0, tail = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!deg[i])
            ord[tail++] = (int32_t)i;
    while (head < tail) {
        int32_t v = ord[head++];
        for (int32_t u = start[v]; u < start[v + 1]; u++)
            if (--deg[users[u]] == 0)
                ord[tail++] = users[u];
        tf_loop_release(c, v, deg, ord, &tail);
    }
    if (tail < c->n)
        cycle_fail(c, deg);
    free(deg), free(users), free(start);
    return c->rc;
nomem:
    free(deg), free(users), free(start);
    return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
}

int tf_lower_node(struct tfjs *c, int32_t i)
{
    struct tnode *n = &c->nodes[i];
    c->cur = i;
    if ((n->dead = tf_node_dead(c, n))) {   /* the untaken side of a cond */
        n->done = 1;
        return 0;
    }
    tf_lower_fn f = tf_find_op(n->op);
    if (!f)
        return tf_fail(c, "unsupported op");
    if (f(c, n) || c->rc)
        return c->rc ? c->rc : tf_fail(c, "lowering failed");
    if (graph_error(c->g))
        return tf_fail(c, "%s", graph_error(c->g)->msg);
    n->done = 1;
    return 0;
}

/* A while loop's nodes wait for its first Exit, which runs the whole loop. */
static int lower_all(struct tfjs *c, const int32_t *ord)
{
    for (size_t i = 0; i < c->n && !c->rc; i++) {
        struct tnode *n = &c->nodes[ord[i]];
        if (!n->loop)
            tf_lower_node(c, ord[i]);
        else if (!n->done && !strcmp(n->op, "Exit"))
            tf_loop_run(c, n->loop - 1, ord);
    }
    return c->rc;
}

/* Every output of a node nobody reads becomes a graph output (once per tensor; inputs and
 * constants passed straight through are left out). */
static int add_outputs(struct tfjs *c)
{
    char *used = calloc(c->n ? c->n : 1, 1);
    if (!used)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->nodes[i].nin; k++)
            used[c->nodes[i].in[k]] = 1;
    int nout = 0;
    for (size_t i = 0; i < c->n && !c->rc; i++) {
        struct tnode *n = &c->nodes[i];
        c->cur = (int32_t)i;
        for (int k = 0; k < n->nout && !used[i] && !n->dead && !c->rc; k++) {
            struct tv *v = &n->out[k];
            if (v->weight || (v->t < 0 && v->tr_src < 0))
                continue;
            int32_t t = tf_mat(c, v, NULL);
            if (t < 0)
                break;
            const struct graph_tensor *x = graph_tensor(c->g, t);
            if (x->role != GRAPH_ROLE_ACTIVATION)
                continue;
            if (graph_output(c->g, t) < 0)
                tf_fail(c, "%s", graph_error(c->g) ? graph_error(c->g)->msg : "output");
            nout++;
        }
    }
    free(used);
    c->cur = -1;
    if (!c->rc && !nout)
        tf_fail_path(c, NULL, "the model computes nothing: no node output depends on an input");
    return c->rc;
}

/* Every --input entry must name a Placeholder ("x" or "x:0"); the message lists them. */
static int check_input_names(struct tfjs *c)
{
    if (!c->o.ninputs)
        return 0;
    const char **names = malloc((c->n ? c->n : 1) * sizeof *names);
    if (!names)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < c->n; i++)
        if (!strcmp(c->nodes[i].op, "Placeholder"))
            names[n++] = c->nodes[i].name;
    for (size_t i = 0; i < c->o.ninputs && !c->rc; i++)
        c->rc = graph_input_known(c->o.inputs[i].name, strlen(c->o.inputs[i].name), names, n,
                                  1, c->file, c->err);
    free(names);
    return c->rc;
}

static void cleanup(struct tfjs *c)
{
    for (size_t i = 0; c->nodes && i < c->n; i++) {
        for (int k = 0; k < c->nodes[i].nout; k++)
            free(c->nodes[i].out[k].vals);
        free(c->nodes[i].out), free(c->nodes[i].in), free(c->nodes[i].port);
    }
    free(c->nodes);
    tf_loops_free(c);
    json_decref(c->index), json_decref(c->manifest), json_decref(c->root);
}

static void set_dir(struct tfjs *c, const char *file)
{
    const char *slash = strrchr(file, '/');
    size_t l = slash ? (size_t)(slash - file + 1) : 0;
    if (l >= sizeof c->dir)
        l = 0;
    memcpy(c->dir, file, l);
    c->dir[l] = 0;
}

int tfjs_import(const char *file, const char *buf, size_t len, const struct tfjs_opts *opts,
                struct graph **out, struct ls_error *err)
{
    struct tfjs c;
    memset(&c, 0, sizeof c);
    *out = NULL;
    c.file = file ? file : "model.json";
    c.text = buf, c.len = len, c.err = err, c.cur = -1;
    set_dir(&c, c.file);
    if (opts)
        c.o = *opts;
    else
        tfjs_opts_init(&c.o);
    graph_batch_init(&c.batch, c.o.batch_set ? c.o.batch : 0);
    json_error_t je;
    c.root = json_loadb(buf, len, 0, &je);
    if (!c.root)
        return ls_error_set(err, LS_ERR_INPUT, c.file, je.line, je.column, "%s", je.text);
    int32_t *ord = NULL;
    if (!tf_read_manifest(&c) && !read_nodes(&c) && !link_inputs(&c) &&
        !tf_loops_find(&c) && !check_input_names(&c)) {
        ord = malloc((c.n ? c.n : 1) * sizeof *ord);
        char gname[GRAPH_MAX_NAME + 1];
        const char *base = strrchr(c.file, '/');
        snprintf(gname, sizeof gname, "%s", base ? base + 1 : c.file);
        tf_sanitize(gname);
        c.g = graph_new(gname);
        if (!ord || !c.g)
            c.rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        else if (!order(&c, ord) && !lower_all(&c, ord) &&
                 !(c.rc = graph_batch_check(&c.batch, c.file, err)) && !add_outputs(&c))
            graph_validate(c.g, err) ? (void)(c.rc = LS_ERR_INPUT) : (void)0;
    }
    free(ord);
    cleanup(&c);
    if (c.rc) {
        graph_batch_note(&c.batch, err);
        graph_free(c.g);
        return c.rc;
    }
    *out = c.g;
    return 0;
}
