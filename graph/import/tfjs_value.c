/* graph/import: TF.js importer values: names, node attributes, node outputs (struct tv) and
 * their materialization as graph tensors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/tfjs_int.h"

/* ---- names --------------------------------------------------------------------------- */

void tf_sanitize(char *s)
{
    if (*s == '-')
        *s = '_';
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
              *s == '_' || *s == '.' || *s == '@' || *s == '/' || *s == '-'))
            *s = '_';
}

const char *tf_name(struct tfjs *c, const char *what)
{
    return tf_name_of(c, c->cur >= 0 ? c->nodes[c->cur].name : "tfjs", what);
}

const char *tf_name_of(struct tfjs *c, const char *base, const char *what)
{
    static _Thread_local char ring[8][GRAPH_MAX_NAME + 1];
    static _Thread_local int next;
    char *b = ring[next++ & 7];
    snprintf(b, GRAPH_MAX_NAME - 12, "%s%s%s", *base ? base : "node", what ? "." : "",
             what ? what : "");
    tf_sanitize(b);
    size_t len = strlen(b);
    for (int k = 1; graph_find_tensor(c->g, b) >= 0; k++)
        snprintf(b + len, 12, ".%d", k);
    return b;
}

/* ---- attributes ---------------------------------------------------------------------- */

static json_t *attr(struct tnode *n, const char *key)
{
    json_t *a = json_object_get(n->j, "attr");
    return json_is_object(a) ? json_object_get(a, key) : NULL;
}

int tf_attr_int(struct tfjs *c, struct tnode *n, const char *key, int64_t dflt, int64_t *v)
{
    json_t *a = attr(n, key);
    *v = dflt;
    if (!a)
        return 0;
    json_t *i = json_is_object(a) ? json_object_get(a, "i") : NULL;
    if (json_is_object(a) && json_is_boolean(json_object_get(a, "b"))) {
        *v = json_is_true(json_object_get(a, "b"));
        return 0;
    }
    if (!i)
        return 0; /* proto3 JSON leaves zero out */
    if (tf_json_int(i, v))
        return tf_fail(c, "attr '%s': expected an integer, got %s", key, tf_kind_of(i));
    return 0;
}

int tf_attr_float(struct tfjs *c, struct tnode *n, const char *key, double dflt, double *v)
{
    json_t *a = attr(n, key), *f = json_is_object(a) ? json_object_get(a, "f") : NULL;
    *v = dflt;
    if (!f)
        return 0;
    if (!json_is_number(f))
        return tf_fail(c, "attr '%s': expected a number, got %s", key, tf_kind_of(f));
    *v = json_number_value(f);
    return 0;
}

/* list.i of an attr; returns the count (0 when absent) or -1. */
int tf_attr_ints(struct tfjs *c, struct tnode *n, const char *key, int64_t *v, int max)
{
    json_t *a = attr(n, key), *l = json_is_object(a) ? json_object_get(a, "list") : NULL;
    json_t *i = json_is_object(l) ? json_object_get(l, "i") : NULL;
    if (!i)
        return 0;
    if (!json_is_array(i) || (int)json_array_size(i) > max)
        return tf_fail(c, "attr '%s': expected a list of at most %d integers", key, max), -1;
    for (size_t k = 0; k < json_array_size(i); k++)
        if (tf_json_int(json_array_get(i, k), &v[k]))
            return tf_fail(c, "attr '%s': element %zu is not an integer", key, k), -1;
    return (int)json_array_size(i);
}

static int b64(int ch)
{
    if (ch >= 'A' && ch <= 'Z') return ch - 'A';
    if (ch >= 'a' && ch <= 'z') return ch - 'a' + 26;
    if (ch >= '0' && ch <= '9') return ch - '0' + 52;
    if (ch == '+' || ch == '-') return 62;
    if (ch == '/' || ch == '_') return 63;
    return -1;
}

/* Decode base64 s into buf (NUL-terminated, truncated to cap). */
static void unbase64(const char *s, char *buf, size_t cap)
{
    size_t o = 0;
    unsigned acc = 0;
    int bits = 0;
    for (; *s && o + 1 < cap; s++) {
        int d = b64((unsigned char)*s);
        if (d < 0)
            continue;
        acc = (acc << 6) | (unsigned)d;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            buf[o++] = (char)((acc >> bits) & 0xff);
        }
    }
    buf[o] = 0;
}

int tf_attr_str(struct tfjs *c, struct tnode *n, const char *key, char *buf, size_t cap)
{
    json_t *a = attr(n, key), *s = json_is_object(a) ? json_object_get(a, "s") : NULL;
    buf[0] = 0;
    if (!s)
        return 0;
    if (!json_is_string(s))
        return tf_fail(c, "attr '%s': expected a base64 string, got %s", key, tf_kind_of(s));
    unbase64(json_string_value(s), buf, cap);
    return 0;
}

int tf_attr_strs(struct tfjs *c, struct tnode *n, const char *key, char (*buf)[32], int max)
{
    json_t *a = attr(n, key), *l = json_is_object(a) ? json_object_get(a, "list") : NULL;
    json_t *s = json_is_object(l) ? json_object_get(l, "s") : NULL;
    if (!s)
        return 0;
    if (!json_is_array(s) || (int)json_array_size(s) > max)
        return tf_fail(c, "attr '%s': expected a list of at most %d strings", key, max), -1;
    for (size_t k = 0; k < json_array_size(s); k++) {
        json_t *e = json_array_get(s, k);
        if (!json_is_string(e))
            return tf_fail(c, "attr '%s': element %zu is not a string", key, k), -1;
        unbase64(json_string_value(e), buf[k], 32);
    }
    return (int)json_array_size(s);
}

/* ---- values -------------------------------------------------------------------------- */

struct tv *tf_in(struct tfjs *c, struct tnode *n, int i)
{
    if (i >= n->nin) {
        tf_fail(c, "expects at least %d inputs, has %d", i + 1, n->nin);
        return NULL;
    }
    struct tnode *p = &c->nodes[n->in[i]];
    if (n->port[i] >= p->nout) {
        tf_fail(c, "input %d reads output %d of '%.200s', which has %d", i, n->port[i], p->name,
                p->nout);
        return NULL;
    }
    return &p->out[n->port[i]];
}

struct tv *tf_out(struct tfjs *c, struct tnode *n, int k)
{
    if (k >= n->nout) {
        struct tv *o = realloc(n->out, (size_t)(k + 1) * sizeof *o);
        if (!o) {
            c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
            return NULL;
        }
        for (int i = n->nout; i <= k; i++) {
            memset(&o[i], 0, sizeof o[i]);
            o[i].t = o[i].tr_src = -1;
            o[i].name = n->name;
        }
        n->out = o;
        n->nout = k + 1;
    }
    return &n->out[k];
}

void tf_shape_of(struct tfjs *c, int32_t t, int *rank, int64_t *dims)
{
    const struct graph_tensor *x = graph_tensor(c->g, t);
    *rank = x->shape.rank;
    for (int i = 0; i < x->shape.rank; i++)
        dims[i] = x->shape.dims[i].size;
}

int tf_set(struct tfjs *c, struct tnode *n, int k, int32_t t)
{
    if (t < 0 || c->rc)
        return c->rc ? c->rc : tf_fail(c, "%s", graph_error(c->g) ? graph_error(c->g)->msg : "?");
    struct tv *v = tf_out(c, n, k);
    if (!v)
        return c->rc;
    v->t = t;
    v->dt = graph_tensor(c->g, t)->dtype;
    tf_shape_of(c, t, &v->rank, v->dims);
    return 0;
}

int tf_set_value(struct tfjs *c, struct tnode *n, int k, enum ls_dtype dt, int rank,
                 const int64_t *dims, const double *vals)
{
    struct tv *v = tf_out(c, n, k);
    if (!v)
        return c->rc;
    if (rank > GRAPH_MAX_RANK)
        return tf_fail(c, "rank %d exceeds %d", rank, GRAPH_MAX_RANK);
    v->dt = dt;
    v->rank = rank;
    memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
    v->weight = 1;
    int64_t m = tf_numel(rank, dims);
    if (m > GRAPH_MAX_ELEMS)
        return tf_fail(c, "constant of more than 2^50 elements");
    if (vals && m <= TV_MAX_VALS) {
        v->vals = malloc((size_t)(m ? m : 1) * sizeof *vals);
        if (!v->vals)
            return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
        memcpy(v->vals, vals, (size_t)m * sizeof *vals);
    }
    return 0;
}

int tf_ints(struct tfjs *c, struct tnode *n, int i, int64_t *v, int max)
{
    struct tv *x = tf_in(c, n, i);
    if (!x)
        return -1;
    int64_t m = tf_numel(x->rank, x->dims);
    if (!x->vals)
        return tf_fail(c, "input %d must be a constant whose value is known (its weight "
                          "shard missing or the value computed at run time)", i), -1;
    if (m > max)
        return tf_fail(c, "input %d has %lld values, at most %d expected", i, (long long)m, max),
               -1;
    for (int64_t k = 0; k < m; k++)
        v[k] = tf_to_int(x->vals[k]);
    return (int)m;
}

static int32_t make_weight(struct tfjs *c, struct tv *v, const int *perm, const char *name)
{
    int64_t d[GRAPH_MAX_RANK];
    for (int i = 0; i < v->rank; i++)
        d[i] = v->dims[perm ? perm[i] : i];
    for (int i = 0; i < v->rank; i++)
        if (d[i] < 1)
            return tf_fail(c, "weight '%s' has an empty dim", name), -1;
    return graph_weight(c->g, name, v->dt, v->rank, v->rank ? d : NULL, NULL);
}

int tf_set_view(struct tfjs *c, struct tnode *n, int k, int32_t src, const int *perm)
{
    if (src < 0 || c->rc)
        return c->rc ? c->rc : tf_fail(c, "%s", graph_error(c->g) ? graph_error(c->g)->msg : "?");
    struct tv *v = tf_out(c, n, k);
    if (!v)
        return c->rc;
    int64_t d[GRAPH_MAX_RANK];
    tf_shape_of(c, src, &v->rank, d);
    for (int i = 0; i < v->rank; i++)
        v->dims[i] = d[perm[i]];
    memcpy(v->tr_perm, perm, (size_t)v->rank * sizeof *perm);
    v->tr_src = src;
    v->dt = graph_tensor(c->g, src)->dtype;
    return 0;
}

int32_t tf_mat(struct tfjs *c, struct tv *v, const char *name)
{
    if (c->rc)
        return -1;
    if (v->t < 0 && v->tr_src >= 0)
        v->t = graph_transpose(c->g, name ? name : tf_name_of(c, v->name, NULL), v->tr_src,
                               v->tr_perm);
    if (v->t < 0 && v->weight)
        v->t = make_weight(c, v, NULL, name ? name : tf_name_of(c, v->name, NULL));
    if (v->t < 0 && !c->rc)
        tf_fail(c, "input has no tensor");
    return v->t;
}

int32_t tf_transpose(struct tfjs *c, int32_t t, const int *perm, const char *name)
{
    return graph_transpose(c->g, name, t, perm);
}

int32_t tf_perm(struct tfjs *c, struct tv *v, const int *perm, const char *name)
{
    if (c->rc)
        return -1;
    int id = 1;
    for (int i = 0; i < v->rank; i++)
        id &= perm[i] == i;
    if (id)
        return tf_mat(c, v, NULL);
    if (v->t < 0 && v->weight && v->tr_src < 0)
        return make_weight(c, v, perm, name ? name : tf_name_of(c, v->name, "T"));
    if (v->tr_src >= 0) { /* transpose of our transpose: compose, maybe cancel */
        int q[GRAPH_MAX_RANK], ident = 1;
        for (int i = 0; i < v->rank; i++)
            ident &= (q[i] = v->tr_perm[perm[i]]) == i;
        return ident ? v->tr_src : graph_transpose(c->g, name, v->tr_src, q);
    }
    return graph_transpose(c->g, name, tf_mat(c, v, NULL), perm);
}
