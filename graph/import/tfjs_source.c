/* graph/import: TF.js importer sources: the weights manifest and the small constant values
 * read from its shards, Placeholder, Const and the pass-through ops. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "graph/import/tfjs_int.h"
#include "util/fileio.h"

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

/* ---- the weights manifest ------------------------------------------------------------ */

/* weight name -> [group, byte offset in the group, shape array, dtype string, quantized] */
int tf_read_manifest(struct tfjs *c)
{
    json_t *wm = json_object_get(c->root, "weightsManifest");
    c->manifest = json_object();
    if (!c->manifest)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    if (!wm)
        return 0;
    if (!json_is_array(wm))
        return tf_fail_path(c, "weightsManifest", "field 'weightsManifest': expected an array, "
                         "got %s", tf_kind_of(wm));
    for (size_t gi = 0; gi < json_array_size(wm); gi++) {
        json_t *grp = json_array_get(wm, gi), *ws = json_object_get(grp, "weights");
        char path[96];
        snprintf(path, sizeof path, "weightsManifest[%zu]", gi);
        if (!json_is_object(grp) || !json_is_array(ws))
            return tf_fail_path(c, path, "field '%s': expected an object with an array "
                             "'weights'", path);
        int64_t off = 0; /* -1 once a string weight makes later offsets unknown */
        for (size_t wi = 0; wi < json_array_size(ws); wi++) {
            json_t *w = json_array_get(ws, wi), *nm = json_object_get(w, "name");
            json_t *sh = json_object_get(w, "shape"), *dt = json_object_get(w, "dtype");
            snprintf(path, sizeof path, "weightsManifest[%zu].weights[%zu]", gi, wi);
            if (!json_is_string(nm) || !json_is_array(sh) || !json_is_string(dt))
                return tf_fail_path(c, path, "field '%s': expected name (string), shape (array) "
                                 "and dtype (string)", path);
            int64_t m = 1, d;
            for (size_t k = 0; k < json_array_size(sh); k++) {
                if (tf_json_int(json_array_get(sh, k), &d) || d < 0 || d > GRAPH_MAX_DIM)
                    return tf_fail_path(c, path, "weight '%.200s': bad shape entry %zu",
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

/* Read n bytes at offset off of weight group gi (its shards concatenated). 0 when read;
 * a missing shard leaves the values unknown, one that is not a regular file (a FIFO
 * would block forever) is an error in c->rc. */
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
        struct stat st;
        FILE *fp;
        int regular;
        if (stat(full, &st))
            return -1;
        if ((c->rc = ls_open_read(full, 1, &fp, &regular, c->err)))
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
        if (s && tf_json_int(s, &dims[i]))
            return tf_fail(c, "shape: dim %zu is not an integer", i), -1;
        if (dims[i] > GRAPH_MAX_DIM)
            return tf_fail(c, "shape: dim %zu is too large", i), -1;
    }
    return (int)json_array_size(dl);
}

/* The --input entry naming Placeholder `name` ("name" or "name:0"), NULL when none. */
static const struct tfjs_input_shape *given_shape(const struct tfjs *c, const char *name)
{
    size_t l = strlen(name);
    for (size_t i = 0; i < c->o.ninputs; i++) {
        const char *s = c->o.inputs[i].name;
        if (!strncmp(s, name, l) && (!s[l] || !strcmp(s + l, ":0")))
            return &c->o.inputs[i];
    }
    return NULL;
}

static int placeholder_value(struct tfjs *c, struct tnode *n, enum ls_dtype dt, int rank,
                             const int64_t *d, double value)
{
    int64_t m = tf_numel(rank, d);
    if (m > TV_MAX_VALS)
        return tf_fail(c, "--input %s=...:%g: a value is for inputs of at most %d elements",
                       n->name, value, TV_MAX_VALS);
    double *v = malloc((size_t)(m ? m : 1) * sizeof *v);
    if (!v)
        return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < m; i++)
        v[i] = value;
    int rc = tf_set_value(c, n, 0, dt, rank, d, v);
    free(v);
    return rc;
}

static int op_placeholder(struct tfjs *c, struct tnode *n)
{
    json_t *a = json_object_get(n->j, "attr");
    json_t *sh = json_object_get(json_object_get(a, "shape"), "shape");
    json_t *dt = json_object_get(json_object_get(a, "dtype"), "type");
    const struct tfjs_input_shape *s = given_shape(c, n->name);
    int64_t d[GRAPH_MAX_RANK];
    int unknown_rank = !sh || json_is_true(json_object_get(sh, "unknownRank"));
    int rank = unknown_rank ? 0 : shape_proto(c, sh, d);
    if (rank < 0)
        return c->rc;
    if (unknown_rank && !s)
        return tf_fail(c, "input of unknown rank: give its shape with --input %s=...", n->name);
    if (s && !unknown_rank && s->rank != rank)
        return tf_fail(c, "--input gives rank %d, the model has rank %d", s->rank, rank);
    if (s) {
        rank = s->rank;
        memcpy(d, s->dims, sizeof d);
        c->batch.used = 1;   /* --input wins over --batch */
    } else if (rank && c->o.batch_set) {
        d[0] = graph_batch_axis0(&c->batch, n->name, rank, d[0]);
    }
    for (int i = 0; i < rank; i++)
        if (d[i] <= 0)
            d[i] = i == 0 ? c->o.batch : c->o.image;
    if (s && s->has_value)   /* a constant, so that a cond on it folds */
        return placeholder_value(c, n, dtype_of(json_string_value(dt)), rank, d, s->value);
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
                   : !tf_json_int(e, &x) ? (double)x : 0;
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
            tf_json_int(json_array_get(sh, (size_t)i), &d[i]);
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
    int rc = c->rc ? c->rc : tf_set_value(c, n, 0, dtype_of(dts), rank, d, v);
    free(v);
    return rc;
}

static int op_identity(struct tfjs *c, struct tnode *n)
{
    for (int i = 0; i < n->nin; i++) {
        struct tv *x = tf_in(c, n, i);
        if (!x || tf_pass(c, n, i, x))
            return c->rc;
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
    {"PreventGradient", op_identity}, {"NoOp", op_noop}, {"Switch", tf_op_switch},
    {"Merge", tf_op_merge},
};

tf_lower_fn tf_find_op(const char *op)
{
    for (size_t i = 0; i < sizeof source_ops / sizeof *source_ops; i++)
        if (!strcmp(op, source_ops[i].op))
            return source_ops[i].fn;
    tf_lower_fn f = tf_conv_ops_find(op);
    f = f ? f : tf_ops_find(op);
    f = f ? f : tf_shape_ops_find(op);
    f = f ? f : tf_loop_ops_find(op);
    return f ? f : tf_move_ops_find(op);
}
