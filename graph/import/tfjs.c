/* graph/import: TF.js graph model -> graph. This file reads the JSON (nodes, manifest,
 * attributes), orders the nodes, evaluates them one by one through the lowerings of
 * tfjs_ops.c / tfjs_shape.c and returns the sink nodes. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/tfjs_int.h"
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

static int fail_path(struct tfjs *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_path(struct tfjs *c, const char *path, const char *fmt, ...)
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
    return fail_path(c, n ? path : NULL, "node '%.200s' (%.60s): %s", n ? n->name : "?",
                     n ? n->op : "?", msg);
}

static const char *kind_of(const json_t *v)
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
static int json_int(const json_t *j, int64_t *v)
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

static enum ls_dtype dtype_of(const char *s)
{
    if (!s)
        return LS_DT_FP32;
    if (!strcmp(s, "DT_INT32") || !strcmp(s, "DT_INT64") || !strcmp(s, "int32") ||
        !strcmp(s, "int64") || !strcmp(s, "DT_INT16") || !strcmp(s, "DT_UINT8"))
        return LS_DT_INT32;
    if (!strcmp(s, "DT_BOOL") || !strcmp(s, "bool") || !strcmp(s, "DT_INT8"))
        return LS_DT_INT8;
    return LS_DT_FP32;
}

/* ---- names --------------------------------------------------------------------------- */

static void sanitize(char *s)
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
    sanitize(b);
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
    if (json_int(i, v))
        return tf_fail(c, "attr '%s': expected an integer, got %s", key, kind_of(i));
    return 0;
}

int tf_attr_float(struct tfjs *c, struct tnode *n, const char *key, double dflt, double *v)
{
    json_t *a = attr(n, key), *f = json_is_object(a) ? json_object_get(a, "f") : NULL;
    *v = dflt;
    if (!f)
        return 0;
    if (!json_is_number(f))
        return tf_fail(c, "attr '%s': expected a number, got %s", key, kind_of(f));
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
        if (json_int(json_array_get(i, k), &v[k]))
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
        return tf_fail(c, "attr '%s': expected a base64 string, got %s", key, kind_of(s));
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

/* ---- the weights manifest ------------------------------------------------------------ */

/* weight name -> [group, byte offset in the group, shape array, dtype string, quantized] */
static int read_manifest(struct tfjs *c)
{
    json_t *wm = json_object_get(c->root, "weightsManifest");
    c->manifest = json_object();
    if (!c->manifest)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    if (!wm)
        return 0;
    if (!json_is_array(wm))
        return fail_path(c, "weightsManifest", "field 'weightsManifest': expected an array, "
                         "got %s", kind_of(wm));
    for (size_t gi = 0; gi < json_array_size(wm); gi++) {
        json_t *grp = json_array_get(wm, gi), *ws = json_object_get(grp, "weights");
        char path[96];
        snprintf(path, sizeof path, "weightsManifest[%zu]", gi);
        if (!json_is_object(grp) || !json_is_array(ws))
            return fail_path(c, path, "field '%s': expected an object with an array "
                             "'weights'", path);
        int64_t off = 0; /* -1 once a string weight makes later offsets unknown */
        for (size_t wi = 0; wi < json_array_size(ws); wi++) {
            json_t *w = json_array_get(ws, wi), *nm = json_object_get(w, "name");
            json_t *sh = json_object_get(w, "shape"), *dt = json_object_get(w, "dtype");
            snprintf(path, sizeof path, "weightsManifest[%zu].weights[%zu]", gi, wi);
            if (!json_is_string(nm) || !json_is_array(sh) || !json_is_string(dt))
                return fail_path(c, path, "field '%s': expected name (string), shape (array) "
                                 "and dtype (string)", path);
            int64_t m = 1, d;
            for (size_t k = 0; k < json_array_size(sh); k++) {
                if (json_int(json_array_get(sh, k), &d) || d < 0 || d > GRAPH_MAX_DIM)
                    return fail_path(c, path, "weight '%.200s': bad shape entry %zu",
                                     json_string_value(nm), k);
                m = m <= GRAPH_MAX_ELEMS / (d ? d : 1) ? m * d : GRAPH_MAX_ELEMS;
            }
            json_t *q = json_object_get(w, "quantization");
            const char *qd = json_is_object(q) && json_is_string(json_object_get(q, "dtype"))
                                 ? json_string_value(json_object_get(q, "dtype"))
                                 : NULL;
            const char *sd = qd ? qd : json_string_value(dt);
            int bytes = !strcmp(sd, "uint8") || !strcmp(sd, "bool") ? 1
                        : !strcmp(sd, "float16") || !strcmp(sd, "uint16") ? 2 : 4;
            json_t *e = json_pack("[i, I, O, O, O]", (int)gi, (json_int_t)off, sh, dt,
                                  qd ? q : json_null());
            if (!e || json_object_set_new(c->manifest, json_string_value(nm), e))
                return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
            off = off < 0 || !strcmp(sd, "string") ? -1 : off + m * bytes;
        }
    }
    return 0;
}

/* Read n bytes at offset off of weight group gi (its shards concatenated). 0 when read. */
static int read_shards(struct tfjs *c, int gi, int64_t off, size_t n, unsigned char *buf)
{
    json_t *paths = json_object_get(json_array_get(json_object_get(c->root, "weightsManifest"),
                                                   (size_t)gi), "paths");
    for (size_t i = 0; n && i < json_array_size(paths); i++) {
        const char *p = json_string_value(json_array_get(paths, i));
        char full[2048];
        if (!p || strstr(p, ".."))
            return -1;
        snprintf(full, sizeof full, "%s%s", c->dir, p);
        FILE *fp = fopen(full, "rb");
        if (!fp)
            return -1;
        long size = fseek(fp, 0, SEEK_END) ? -1 : ftell(fp);
        if (size < 0 || off >= size) {
            off -= size < 0 ? 0 : size;
            fclose(fp);
            if (size < 0)
                return -1;
            continue;
        }
        size_t k = (size_t)(size - off) < n ? (size_t)(size - off) : n;
        int ok = !fseek(fp, (long)off, SEEK_SET) && fread(buf, 1, k, fp) == k;
        fclose(fp);
        if (!ok)
            return -1;
        buf += k, n -= k, off = 0;
    }
    return n ? -1 : 0;
}

static double half_to_double(unsigned h)
{
    int e = (int)(h >> 10) & 31;
    double m = h & 1023, v = e ? ldexp(m + 1024, e - 25) : ldexp(m, -24);
    return e == 31 ? 0 : (h & 0x8000 ? -v : v);
}

/* The values of a small int32/float32 manifest weight (float16 and uint8/uint16
 * quantization decoded), NULL when unavailable. */
static double *manifest_values(struct tfjs *c, json_t *e, int64_t m)
{
    json_int_t off = json_integer_value(json_array_get(e, 1));
    const char *dt = json_string_value(json_array_get(e, 3));
    json_t *q = json_array_get(e, 4);
    const char *qd = json_is_object(q) ? json_string_value(json_object_get(q, "dtype")) : NULL;
    int isint = !strcmp(dt, "int32") && !qd;
    int bytes = !qd ? 4 : !strcmp(qd, "uint8") ? 1 : 2;
    if (off < 0 || (!isint && strcmp(dt, "float32")) || m > (isint ? TV_MAX_VALS : 64) ||
        (qd && strcmp(qd, "float16") && strcmp(qd, "uint8") && strcmp(qd, "uint16")))
        return NULL;
    double qmin = json_number_value(json_object_get(q, "min"));
    double qscale = json_number_value(json_object_get(q, "scale"));
    unsigned char *raw = malloc((size_t)m * 4 + 1);
    double *v = malloc((size_t)(m ? m : 1) * sizeof *v);
    if (!raw || !v || read_shards(c, (int)json_integer_value(json_array_get(e, 0)), off,
                                  (size_t)(m * bytes), raw)) {
        free(raw), free(v);
        return NULL;
    }
    for (int64_t i = 0; i < m; i++) {
        const unsigned char *p = raw + i * bytes;
        uint32_t u = bytes == 1 ? p[0] : bytes == 2 ? (uint32_t)p[0] | (uint32_t)p[1] << 8
                     : (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
                           (uint32_t)p[3] << 24;
        float f;
        memcpy(&f, &u, 4);
        v[i] = isint ? (double)(int32_t)u
               : !qd ? (double)f
               : !strcmp(qd, "float16") ? half_to_double(u) : qmin + u * qscale;
    }
    free(raw);
    return v;
}

/* ---- sources ------------------------------------------------------------------------- */

/* dims of a TensorShapeProto {"dim": [{"size": "N"}...]}; -1 for unknown; rank or -1. */
static int shape_proto(struct tfjs *c, json_t *sp, int64_t *dims)
{
    json_t *dl = json_object_get(sp, "dim");
    if (!dl)
        return 0;
    if (!json_is_array(dl) || json_array_size(dl) > GRAPH_MAX_RANK)
        return tf_fail(c, "shape: expected at most %d dims", GRAPH_MAX_RANK), -1;
    for (size_t i = 0; i < json_array_size(dl); i++) {
        json_t *s = json_object_get(json_array_get(dl, i), "size");
        dims[i] = 0;
        if (s && json_int(s, &dims[i]))
            return tf_fail(c, "shape: dim %zu is not an integer", i), -1;
        if (dims[i] > GRAPH_MAX_DIM)
            return tf_fail(c, "shape: dim %zu is too large", i), -1;
    }
    return (int)json_array_size(dl);
}

static int op_placeholder(struct tfjs *c, struct tnode *n)
{
    json_t *a = json_object_get(n->j, "attr");
    json_t *sh = json_object_get(json_object_get(a, "shape"), "shape");
    json_t *dt = json_object_get(json_object_get(a, "dtype"), "type");
    int64_t d[GRAPH_MAX_RANK];
    int rank = sh ? shape_proto(c, sh, d) : 0;
    if (rank < 0)
        return c->rc;
    if (!sh || json_is_true(json_object_get(sh, "unknownRank")))
        return tf_fail(c, "input of unknown rank: give its shape with --input %s=...", n->name);
    for (size_t i = 0; i < c->o.ninputs; i++) {
        const struct tfjs_input_shape *s = &c->o.inputs[i];
        size_t l = strlen(n->name);
        if (!strncmp(s->name, n->name, l) && (!s->name[l] || !strcmp(s->name + l, ":0"))) {
            if (s->rank != rank)
                return tf_fail(c, "--input gives rank %d, the model has rank %d", s->rank, rank);
            memcpy(d, s->dims, sizeof d);
        }
    }
    for (int i = 0; i < rank; i++)
        if (d[i] <= 0)
            d[i] = i == 0 ? c->o.batch : c->o.image;
    return tf_set(c, n, 0, graph_input(c->g, tf_name(c, NULL), dtype_of(json_string_value(dt)),
                                       rank, d, NULL));
}

/* Inline values of a TensorProto (intVal/int64Val/floatVal/boolVal), NULL when none. */
static double *inline_values(json_t *tensor, int64_t m)
{
    static const char *keys[] = {"intVal", "int64Val", "floatVal", "boolVal", "halfVal"};
    for (size_t k = 0; k < sizeof keys / sizeof *keys; k++) {
        json_t *l = json_object_get(tensor, keys[k]);
        if (!json_is_array(l) || !json_array_size(l) || m > TV_MAX_VALS)
            continue;
        double *v = malloc((size_t)(m ? m : 1) * sizeof *v);
        if (!v)
            return NULL;
        for (int64_t i = 0; i < m; i++) { /* a single value fills the tensor */
            json_t *e = json_array_get(l, (size_t)i < json_array_size(l) ? (size_t)i : 0);
            int64_t x;
            v[i] = json_is_number(e) ? json_number_value(e)
                   : json_is_boolean(e) ? json_is_true(e)
                   : !json_int(e, &x) ? (double)x : 0;
        }
        return v;
    }
    return NULL;
}

static int op_const(struct tfjs *c, struct tnode *n)
{
    json_t *a = json_object_get(n->j, "attr");
    json_t *tensor = json_object_get(json_object_get(a, "value"), "tensor");
    json_t *e = json_object_get(c->manifest, n->name);
    int64_t d[GRAPH_MAX_RANK];
    int rank;
    if (e) {
        json_t *sh = json_array_get(e, 2);
        rank = (int)json_array_size(sh);
        if (rank > GRAPH_MAX_RANK)
            return tf_fail(c, "weight of rank %d (at most %d)", rank, GRAPH_MAX_RANK);
        for (int i = 0; i < rank; i++)
            json_int(json_array_get(sh, (size_t)i), &d[i]);
    } else if (json_is_object(tensor)) {
        rank = shape_proto(c, json_object_get(tensor, "tensorShape"), d);
        if (rank < 0)
            return c->rc;
    } else {
        return tf_fail(c, "constant with neither a manifest entry nor a 'value' tensor");
    }
    const char *dts = e ? json_string_value(json_array_get(e, 3))
                        : json_string_value(json_object_get(tensor, "dtype"));
    int64_t m = tf_numel(rank, d);
    double *v = e ? manifest_values(c, e, m) : inline_values(tensor, m);
    int rc = tf_set_value(c, n, 0, dtype_of(dts), rank, d, v);
    free(v);
    return rc;
}

static int op_identity(struct tfjs *c, struct tnode *n)
{
    for (int i = 0; i < n->nin; i++) {
        struct tv *x = tf_in(c, n, i), *o = tf_out(c, n, i);
        if (!x || !o)
            return c->rc;
        const char *nm = o->name;
        *o = *x;
        o->name = nm;
        if (x->vals) {
            int64_t m = tf_numel(x->rank, x->dims);
            o->vals = malloc((size_t)(m ? m : 1) * sizeof *o->vals);
            if (!o->vals)
                return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
            memcpy(o->vals, x->vals, (size_t)m * sizeof *o->vals);
        }
    }
    return 0;
}

static int op_noop(struct tfjs *c, struct tnode *n)
{
    (void)c, (void)n;
    return 0;
}

static const struct {
    const char *op;
    tf_lower_fn fn;
} source_ops[] = {
    {"Placeholder", op_placeholder}, {"Const", op_const}, {"Identity", op_identity},
    {"IdentityN", op_identity}, {"StopGradient", op_identity}, {"Snapshot", op_identity},
    {"PreventGradient", op_identity}, {"NoOp", op_noop},
};

static tf_lower_fn find_op(const char *op)
{
    for (size_t i = 0; i < sizeof source_ops / sizeof *source_ops; i++)
        if (!strcmp(op, source_ops[i].op))
            return source_ops[i].fn;
    tf_lower_fn f = tf_ops_find(op);
    return f ? f : tf_shape_ops_find(op);
}

/* ---- nodes and their order ----------------------------------------------------------- */

static int read_nodes(struct tfjs *c)
{
    json_t *mt = json_object_get(c->root, "modelTopology");
    json_t *nl = json_is_object(mt) ? json_object_get(mt, "node") : NULL;
    if (!json_is_array(nl))
        return fail_path(c, mt ? "modelTopology" : NULL, "field 'modelTopology.node': expected "
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
            return fail_path(c, path, "node %zu: expected a string 'name' and 'op'", i);
        n->name = json_string_value(nm);
        n->op = json_string_value(op);
        if (json_object_get(c->index, n->name))
            return fail_path(c, path, "node '%.200s' (%.60s): a second node of that name",
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

/* Kahn's order over data inputs; a node left over sits on a cycle. */
static int order(struct tfjs *c, int32_t *ord)
{
    int32_t *deg = calloc(c->n ? c->n : 1, sizeof *deg);
    int32_t *users = NULL, *start = calloc(c->n + 1, sizeof *start);
    if (!deg || !start)
        goto nomem;
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->nodes[i].nin; k++)
            start[c->nodes[i].in[k] + 1]++, deg[i]++;
    for (size_t i = 0; i < c->n; i++)
        start[i + 1] += start[i];
    users = malloc((size_t)(start[c->n] ? start[c->n] : 1) * sizeof *users);
    if (!users)
        goto nomem;
    int32_t *fill = calloc(c->n ? c->n : 1, sizeof *fill);
    if (!fill)
        goto nomem;
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->nodes[i].nin; k++) {
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
    }
    for (size_t i = 0; i < c->n && tail < c->n; i++)
        if (deg[i]) {
            c->cur = (int32_t)i;
            tf_fail(c, "lies on a cycle of data inputs");
            break;
        }
    free(deg), free(users), free(start);
    return c->rc;
nomem:
    free(deg), free(users), free(start);
    return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
}

static int lower_all(struct tfjs *c, const int32_t *ord)
{
    for (size_t i = 0; i < c->n && !c->rc; i++) {
        struct tnode *n = &c->nodes[ord[i]];
        c->cur = ord[i];
        tf_lower_fn f = find_op(n->op);
        if (!f)
            return tf_fail(c, "unsupported op");
        if (f(c, n) || c->rc)
            return c->rc ? c->rc : tf_fail(c, "lowering failed");
        if (graph_error(c->g))
            return tf_fail(c, "%s", graph_error(c->g)->msg);
        n->done = 1;
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
        for (int k = 0; k < n->nout && !used[i] && !c->rc; k++) {
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
        fail_path(c, NULL, "the model computes nothing: no node output depends on an input");
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
    json_error_t je;
    c.root = json_loadb(buf, len, 0, &je);
    if (!c.root)
        return ls_error_set(err, LS_ERR_INPUT, c.file, je.line, je.column, "%s", je.text);
    int32_t *ord = NULL;
    if (!read_manifest(&c) && !read_nodes(&c) && !link_inputs(&c)) {
        ord = malloc((c.n ? c.n : 1) * sizeof *ord);
        char gname[GRAPH_MAX_NAME + 1];
        const char *base = strrchr(c.file, '/');
        snprintf(gname, sizeof gname, "%s", base ? base + 1 : c.file);
        sanitize(gname);
        c.g = graph_new(gname);
        if (!ord || !c.g)
            c.rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        else if (!order(&c, ord) && !lower_all(&c, ord) && !add_outputs(&c))
            graph_validate(c.g, err) ? (void)(c.rc = LS_ERR_INPUT) : (void)0;
    }
    free(ord);
    cleanup(&c);
    if (c.rc) {
        graph_free(c.g);
        return c.rc;
    }
    *out = c.g;
    return 0;
}
