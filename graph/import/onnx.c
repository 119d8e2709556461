/* graph/import/onnx: ONNX ModelProto -> graph (graph/onnx.h). This file: decoding, the
 * value table, graph inputs and initializers, the node loop and the outputs; the operators
 * are in onnx_ops.c, the import-time evaluation of constants in onnx_fold.c. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/inputs.h"
#include "graph/onnx.h"
#include "graph/import/onnx_int.h"

/* ---- values ---------------------------------------------------------------------------- */

struct ox_val *ox_val(struct ox *x, const char *name)
{
    int32_t id = ls_intern_add(&x->names, name, strlen(name));
    if (id < 0)
        return NULL;
    while ((size_t)id >= x->nvals) {
        if (x->nvals == x->capvals) {
            size_t cap = x->capvals ? 2 * x->capvals : 256;
            struct ox_val *nv = realloc(x->vals, cap * sizeof *nv);
            if (!nv)
                return NULL;
            x->vals = nv;
            x->capvals = cap;
        }
        memset(&x->vals[x->nvals], 0, sizeof x->vals[0]);
        x->vals[x->nvals++].t = -1;
    }
    return &x->vals[id];
}

int ox_fail(struct ox *x, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (x->node)
        return ls_error_set(x->err, LS_ERR_INPUT, x->file, 0, 0, "node '%.100s' (%.60s): %s",
                            x->node->name ? x->node->name : "",
                            x->node->op_type ? x->node->op_type : "", msg);
    return ls_error_set(x->err, LS_ERR_INPUT, x->file, 0, 0, "%s", msg);
}

enum ls_dtype ox_dtype(int dt)
{
    switch (dt) {
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT:
    case ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE:
        return LS_DT_FP32;
    case ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16:
        return LS_DT_FP16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__BFLOAT16:
        return LS_DT_BF16;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT8:
    case ONNX__TENSOR_PROTO__DATA_TYPE__BOOL:
        return LS_DT_INT8;
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT16:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT32:
    case ONNX__TENSOR_PROTO__DATA_TYPE__INT64:
    case ONNX__TENSOR_PROTO__DATA_TYPE__UINT64:
        return LS_DT_INT32;
    default:
        return LS_DT_COUNT;
    }
}

int64_t ox_dims_numel(int rank, const int64_t *dims)
{
    int64_t n = 1;
    for (int i = 0; i < rank; i++)
        if (dims[i] <= 0)
            return 0;
    for (int i = 0; i < rank; i++)
        n = n > INT64_MAX / dims[i] ? INT64_MAX : n * dims[i];
    return n;
}

int64_t ox_numel(const struct ox_val *v)
{
    return ox_dims_numel(v->rank, v->dims);
}

int64_t ox_i64(double d)
{
    const double lim = 4611686018427387904.0;   /* 2^62 */
    return d != d ? 0 : d >= lim ? (int64_t)lim : d <= -lim ? -(int64_t)lim : (int64_t)d;
}

static int name_char_ok(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '_' || c == '.' || c == '@' || c == '/' || c == '-';
}

/* The graph's name made valid (PaddlePaddle exports name it "Model from PaddlePaddle."). */
static void valid_graph_name(const char *name, char *buf, size_t n)
{
    size_t k = 0;
    for (const char *p = name ? name : ""; *p && k + 1 < n; p++)
        buf[k++] = name_char_ok(*p) ? *p : '_';
    buf[k] = 0;
    if (!k || buf[0] == '-')
        snprintf(buf, n, "onnx");
}

/* A valid unique tensor name from base + suffix. */
static const char *unique_name(struct ox *x, const char *base, const char *suffix, char *buf,
                               size_t n)
{
    char b[GRAPH_MAX_NAME + 1];
    size_t k = 0;
    for (const char *p = base; *p && k < 400; p++)
        b[k++] = name_char_ok(*p) ? *p : '_';
    if (k == 0)
        b[k++] = 'v';
    if (b[0] == '-')
        b[0] = '_';
    b[k] = 0;
    snprintf(buf, n, "%s%s", b, suffix);
    for (int i = 2; graph_find_tensor(x->g, buf) >= 0; i++)
        snprintf(buf, n, "%s%s_%d", b, suffix, i);
    return buf;
}

const char *ox_name(struct ox *x, const char *suffix, char *buf, size_t n)
{
    const Onnx__NodeProto *nd = x->node;
    const char *base = nd->name && *nd->name ? nd->name
                       : nd->n_output && *nd->output[0] ? nd->output[0]
                                                        : nd->op_type;
    return unique_name(x, base ? base : "node", suffix, buf, n);
}

int32_t ox_block(struct ox *x, const char *suffix, enum ls_dtype dt, int rank,
                 const int64_t *dims)
{
    char nm[GRAPH_MAX_NAME + 1];
    return graph_weight(x->g, ox_name(x, suffix, nm, sizeof nm), dt, rank, dims, NULL);
}

int32_t ox_tensor(struct ox *x, struct ox_val *v, int like)
{
    if (v->t >= 0 || !v->konst)
        return v->t;
    enum ls_dtype dt = like >= 0 ? (enum ls_dtype)like : ox_dtype(v->onnx_dt);
    if (dt == LS_DT_COUNT)
        return OX_FAIL_T(x, "a constant input has an unsupported data type %d", v->onnx_dt);
    if (v->rank > GRAPH_MAX_RANK)
        return OX_FAIL_T(x, "a constant input has rank %d (at most %d)", v->rank,
                       GRAPH_MAX_RANK);
    for (int i = 0; i < v->rank; i++)
        if (v->dims[i] < 1)
            return OX_FAIL_T(x, "empty tensors (a dim of 0) are not supported");
    char nm[GRAPH_MAX_NAME + 1];
    int32_t id = (int32_t)(v - x->vals);
    v->t = graph_weight(x->g, unique_name(x, ls_intern_str(&x->names, id), "", nm, sizeof nm),
                        dt, v->rank, v->dims, NULL);
    return v->t;
}

struct ox_val *ox_in(struct ox *x, int k)
{
    const Onnx__NodeProto *nd = x->node;
    if (k < 0 || (size_t)k >= nd->n_input || !nd->input[k][0])
        return NULL;
    return ox_val(x, nd->input[k]);
}

static struct ox_val *out_val(struct ox *x, int k)
{
    const Onnx__NodeProto *nd = x->node;
    if ((size_t)k >= nd->n_output || !nd->output[k][0])
        return NULL;
    struct ox_val *v = ox_val(x, nd->output[k]);
    if (v && v->defined) {
        ox_fail(x, "value '%.100s' is produced twice", nd->output[k]);
        return NULL;
    }
    return v;
}

int ox_bind(struct ox *x, int k, int32_t t)
{
    if (t < 0)
        return -1;
    struct ox_val *v = out_val(x, k);
    if (!v)
        return (size_t)k < x->node->n_output && x->node->output[k][0] ? -1 : 0;
    const struct graph_tensor *tt = graph_tensor(x->g, t);
    v->defined = 1;
    v->t = t;
    v->rank = tt->shape.rank;
    for (int i = 0; i < v->rank; i++)
        v->dims[i] = tt->shape.dims[i].size;
    return 0;
}

struct ox_val *ox_bind_const(struct ox *x, int k, int onnx_dt, int rank, const int64_t *dims)
{
    struct ox_val *v = out_val(x, k);
    if (!v)
        return NULL;
    if (rank > OX_MAX_RANK) {
        ox_fail(x, "constant of rank %d (at most %d)", rank, OX_MAX_RANK);
        return NULL;
    }
    v->defined = v->konst = 1;
    v->onnx_dt = onnx_dt;
    v->rank = rank;
    if (rank > 0)
        memcpy(v->dims, dims, sizeof(int64_t) * (size_t)rank);
    return v;
}

int ox_bind_aux(struct ox *x, int k, int onnx_dt, int rank, const int64_t *dims)
{
    if ((size_t)k >= x->node->n_output || !x->node->output[k][0])
        return 0;
    return ox_bind_const(x, k, onnx_dt, rank, dims) ? 0 : -1;
}

/* ---- attributes ------------------------------------------------------------------------ */

const Onnx__AttributeProto *ox_attr(const struct ox *x, const char *name)
{
    for (size_t i = 0; i < x->node->n_attribute; i++)
        if (x->node->attribute[i]->name && !strcmp(x->node->attribute[i]->name, name))
            return x->node->attribute[i];
    return NULL;
}

int64_t ox_attr_i(const struct ox *x, const char *name, int64_t def)
{
    const Onnx__AttributeProto *a = ox_attr(x, name);
    return a && a->has_i ? a->i : def;
}

float ox_attr_f(const struct ox *x, const char *name, float def)
{
    const Onnx__AttributeProto *a = ox_attr(x, name);
    return a && a->has_f ? a->f : def;
}

int ox_attr_ints(struct ox *x, const char *name, int64_t *out, int max)
{
    const Onnx__AttributeProto *a = ox_attr(x, name);
    if (!a)
        return -1;
    if (a->n_ints > (size_t)max)
        return ox_fail(x, "attribute '%s' has %zu values (at most %d)", name, a->n_ints, max),
               -3;
    if (a->n_ints)   /* protobuf-c leaves ints NULL when empty */
        memcpy(out, a->ints, a->n_ints * sizeof *out);
    return (int)a->n_ints;
}

const char *ox_attr_s(const struct ox *x, const char *name, char *buf, size_t n)
{
    const Onnx__AttributeProto *a = ox_attr(x, name);
    if (!a || !a->has_s)
        return NULL;
    buf[0] = 0;
    if (a->s.len && a->s.data)
        snprintf(buf, n, "%.*s", (int)(a->s.len < n ? a->s.len : n - 1), (const char *)a->s.data);
    return buf;
}

int ox_in_ints(struct ox *x, int k, int64_t *out, int max)
{
    struct ox_val *v = ox_in(x, k);
    if (!v)
        return -1;
    int64_t n = ox_numel(v);
    if (!v->konst || !v->vals || n > max)
        return -2;
    for (int64_t i = 0; i < n; i++)
        out[i] = ox_i64(v->vals[i]);
    return (int)n;
}

/* ---- initializers ---------------------------------------------------------------------- */

/* Element i of a tensor's data (int64_data, int32_data, float_data, double_data or
 * raw_data little-endian); 0 when the data does not hold it. */
static int tensor_values(const Onnx__TensorProto *tp, int64_t n, double *out)
{
    int dt = tp->data_type;
    size_t esz = dt == 7 || dt == 11 || dt == 13 ? 8 : dt == 1 || dt == 6 || dt == 12 ? 4
                 : dt == 10 || dt == 16 || dt == 4 || dt == 5 ? 2 : 1;
    if (tp->has_raw_data) {
        if (tp->raw_data.len != (size_t)n * esz)
            return -1;
        const uint8_t *p = tp->raw_data.data;
        for (int64_t i = 0; i < n; i++, p += esz) {
            uint64_t u = 0;
            for (size_t b = 0; b < esz; b++)
                u |= (uint64_t)p[b] << (8 * b);
            int32_t i32 = (int32_t)(uint32_t)u;
            float f;
            double d;
            memcpy(&f, &i32, 4);
            memcpy(&d, &u, 8);
            out[i] = dt == 7 ? (double)(int64_t)u : dt == 6 ? i32 : dt == 1 ? f : dt == 11 ? d
                     : dt == 3 ? (int8_t)u : dt == 12 || dt == 13 ? (double)u
                     : dt == 5 ? (int16_t)u : (double)u;
        }
        return dt == 10 || dt == 16 ? -1 : 0;   /* half floats: never needed as values */
    }
    for (int64_t i = 0; i < n; i++) {
        if (dt == 7 && (size_t)i < tp->n_int64_data)
            out[i] = (double)tp->int64_data[i];
        else if (dt == 1 && (size_t)i < tp->n_float_data)
            out[i] = tp->float_data[i];
        else if (dt == 11 && (size_t)i < tp->n_double_data)
            out[i] = tp->double_data[i];
        else if ((dt == 6 || dt == 9 || dt == 3 || dt == 2 || dt == 5 || dt == 4) &&
                 (size_t)i < tp->n_int32_data)
            out[i] = tp->int32_data[i];
        else
            return -1;
    }
    return 0;
}

/* A constant value from a TensorProto (initializers, Constant's value). */
int ox_set_tensor(struct ox *x, struct ox_val *v, const Onnx__TensorProto *tp)
{
    const char *nm = tp->name ? tp->name : "";
    if (tp->n_dims > OX_MAX_RANK)
        return ox_fail(x, "tensor '%.100s' has rank %zu (at most %d)", nm, tp->n_dims,
                       OX_MAX_RANK);
    v->defined = v->konst = 1;
    v->onnx_dt = tp->data_type;
    v->rank = (int)tp->n_dims;
    for (int i = 0; i < v->rank; i++) {
        if (tp->dims[i] < 0 || tp->dims[i] > GRAPH_MAX_DIM)
            return ox_fail(x, "tensor '%.100s' has dim %d = %lld", nm, i,
                           (long long)tp->dims[i]);
        v->dims[i] = tp->dims[i];
    }
    int64_t n = ox_numel(v);
    if (n > OX_MAX_CONST || tp->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL)
        return 0;   /* weights: shape only */
    free(v->vals);
    v->vals = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!v->vals)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    if (tensor_values(tp, n, v->vals)) {
        free(v->vals);
        v->vals = NULL;
    }
    return 0;
}

static int read_initializers(struct ox *x, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_initializer; i++) {
        const Onnx__TensorProto *tp = gp->initializer[i];
        if (!tp->name || !*tp->name)
            return ox_fail(x, "initializer %zu has no name", i);
        struct ox_val *v = ox_val(x, tp->name);
        if (!v)
            return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
        if (v->defined && gp != x->gp)
            continue;   /* a loop body's, read on its first iteration: one weight for all */
        if (v->defined)
            return ox_fail(x, "initializer '%.100s' is given twice", tp->name);
        if (ox_set_tensor(x, v, tp))
            return LS_ERR_INPUT;
    }
    return 0;
}

/* ---- graph inputs ---------------------------------------------------------------------- */

static int sequence_like(const char *p)
{
    static const char *const words[] = {"seq", "len", "token", "time", "step", "past"};
    for (size_t i = 0; p && i < sizeof words / sizeof *words; i++)
        if (strstr(p, words[i]))
            return 1;
    return 0;
}

/* export_params=False keeps the parameters as graph inputs without initializers; PyTorch
 * names them after the module path ("layer1.0.conv1.weight") or "onnx::Op_N". */
static int looks_like_param(const char *name)
{
    return strchr(name, '.') != NULL || !strncmp(name, "onnx::", 6);
}

/* Fill the dims of graph input vi; roles gets "batch"/"seq" for the dims defaulted. */
static int input_dims(struct ox *x, const Onnx__ValueInfoProto *vi, int *rank, int64_t *dims,
                      char *roles, size_t nroles, int *dt)
{
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return ox_fail(x, "graph input '%.100s' is not a tensor", vi->name);
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    *dt = tt->elem_type;
    int found = graph_inputs_find(x->opts->inputs, vi->name, rank, dims, x->err);
    if (found < 0)
        return LS_ERR_INPUT;
    roles[0] = 0;
    if (found && tt->shape && (int)tt->shape->n_dim != *rank)
        return ox_fail(x, "--input %s=...: rank %d, the model declares rank %zu", vi->name,
                       *rank, tt->shape->n_dim);
    if (found) {
        x->batch.used = 1;   /* --input wins over --batch */
        return 0;
    }
    if (!tt->shape)
        return ox_fail(x, "graph input '%.100s' has no shape: give it with --input %s=D1xD2...",
                       vi->name, vi->name);
    if (tt->shape->n_dim > GRAPH_MAX_RANK)
        return ox_fail(x, "graph input '%.100s' has rank %zu (at most %d)", vi->name,
                       tt->shape->n_dim, GRAPH_MAX_RANK);
    *rank = (int)tt->shape->n_dim;
    size_t used = 0;
    for (int i = 0; i < *rank; i++) {
        const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];
        const char *role = "";
        if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
            if (d->dim_value < 1 || d->dim_value > GRAPH_MAX_DIM)
                return ox_fail(x, "graph input '%.100s' axis %d is %lld (1 to %lld): give the "
                               "shape with --input %.100s=D1xD2...", vi->name, i,
                               (long long)d->dim_value, (long long)GRAPH_MAX_DIM, vi->name);
            dims[i] = d->dim_value;
            if (i == 0 && !looks_like_param(vi->name)) {   /* --batch on a declared 1 */
                dims[0] = graph_batch_axis0(&x->batch, vi->name, *rank, d->dim_value);
                role = dims[0] != d->dim_value ? "batch" : "";
            }
        } else {
            const char *p = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM
                                ? d->dim_param : NULL;
            if ((i == 0 && !sequence_like(p)) || (p && strstr(p, "batch"))) {
                dims[i] = graph_batch_axis0(&x->batch, vi->name, *rank, 0);
                role = "batch";
            } else if (sequence_like(p)) {
                dims[i] = x->opts->seq > 0 ? x->opts->seq : GRAPH_IMPORT_SEQ_DEFAULT;
                role = "seq";
            } else {
                return ox_fail(x, "graph input '%.100s' axis %d ('%.60s') is unknown: give the "
                               "shape with --input %.100s=D1xD2...", vi->name, i, p ? p : "?",
                               vi->name);
            }
        }
        used += (size_t)snprintf(roles + used, used < nroles ? nroles - used : 0, "%s%s",
                                 i ? "," : "", role);
    }
    return 0;
}

/* Every --input entry must name a graph input that is not an initializer; the message lists
 * the model's inputs, those that do not look like parameters first. */
static int check_input_names(struct ox *x)
{
    if (!x->opts->inputs || !*x->opts->inputs)
        return 0;
    const char **names = malloc((x->gp->n_input ? x->gp->n_input : 1) * sizeof *names);
    if (!names)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    size_t n = 0;
    for (int params = 0; params < 2; params++)
        for (size_t i = 0; i < x->gp->n_input; i++) {
            const char *nm = x->gp->input[i]->name;
            struct ox_val *v = nm ? ox_val(x, nm) : NULL;
            if (v && !v->defined && looks_like_param(nm) == params)
                names[n++] = nm;
        }
    int rc = graph_inputs_known(x->opts->inputs, names, n, 0, x->file, x->err);
    free(names);
    return rc;
}

/* An input given a value (--input NAME=DIMS:VALUE): a constant of the model, every element
 * that value, so that control flow on it folds (silero-vad's sample rate). */
static int input_const(struct ox *x, const char *name, struct ox_val *v, int dt, int rank,
                       const int64_t *dims, double value)
{
    int64_t n = ox_dims_numel(rank, dims);
    if (n > OX_MAX_CONST)
        return ox_fail(x, "--input %.100s=...:%g: a value is for inputs of at most %d elements",
                       name, value, OX_MAX_CONST);
    v->vals = malloc(sizeof(double) * (size_t)(n ? n : 1));
    if (!v->vals)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    for (int64_t i = 0; i < n; i++)
        v->vals[i] = value;
    v->konst = v->defined = 1;
    v->onnx_dt = dt;
    v->rank = rank;
    memcpy(v->dims, dims, sizeof(int64_t) * (size_t)rank);
    return 0;
}

static int read_inputs(struct ox *x)
{
    int rc;
    for (size_t i = 0; i < x->gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = x->gp->input[i];
        if (!vi->name || !*vi->name)
            return ox_fail(x, "graph input %zu has no name", i);
        struct ox_val *v = ox_val(x, vi->name);
        if (!v)
            return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
        if (v->defined)
            continue;   /* an initializer listed as input (IR version < 4) */
        int rank = 0, dt = 0;
        int64_t dims[GRAPH_MAX_RANK];
        char roles[GRAPH_MAX_RANK * (GRAPH_MAX_ROLE + 1) + 8];
        if (input_dims(x, vi, &rank, dims, roles, sizeof roles, &dt))
            return LS_ERR_INPUT;
        enum ls_dtype ld = ox_dtype(dt);
        if (ld == LS_DT_COUNT)
            return ox_fail(x, "graph input '%.100s' has unsupported element type %d", vi->name,
                           dt);
        double value;
        if (graph_inputs_value(x->opts->inputs, vi->name, &value)) {
            rc = input_const(x, vi->name, v, dt, rank, dims, value);
            if (rc)
                return rc;
            continue;
        }
        char nm[GRAPH_MAX_NAME + 1];
        unique_name(x, vi->name, "", nm, sizeof nm);
        int has_role = strchr(roles, 'b') || strchr(roles, 's');
        int weight = looks_like_param(vi->name) && !has_role;
        v->t = weight ? graph_weight(x->g, nm, ld, rank, dims, NULL)
                      : graph_input(x->g, nm, ld, rank, dims, has_role ? roles : NULL);
        if (v->t < 0)
            return ox_fail(x, "graph input '%.100s': %s", vi->name, graph_error(x->g)->msg);
        v->defined = 1;
        v->rank = rank;
        memcpy(v->dims, dims, sizeof(int64_t) * (size_t)rank);
    }
    return 0;
}

/* ---- nodes ----------------------------------------------------------------------------- */

static int node_ready(struct ox *x, const Onnx__NodeProto *nd, const char **missing)
{
    for (size_t i = 0; i < nd->n_input; i++) {
        if (!nd->input[i][0])
            continue;
        int32_t id = ls_intern_find(&x->names, nd->input[i], strlen(nd->input[i]));
        if (id < 0 || !x->vals[id].defined) {
            *missing = nd->input[i];
            return 0;
        }
    }
    return 1;
}

static int produced_by_some_node(const Onnx__GraphProto *gp, const char *name)
{
    for (size_t i = 0; i < gp->n_node; i++)
        for (size_t k = 0; k < gp->node[i]->n_output; k++)
            if (!strcmp(gp->node[i]->output[k], name))
                return 1;
    return 0;
}

static int run_node(struct ox *x, const Onnx__NodeProto *nd)
{
    x->node = nd;
    if (!nd->op_type || !*nd->op_type)
        return ox_fail(x, "node without op_type");
    for (size_t k = 0; k < nd->n_output; k++)
        if (nd->output[k][0] && !ox_val(x, nd->output[k]))
            return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    int rc = ox_fold(x);
    if (rc == 0)
        rc = ox_import_node(x);
    else if (rc == 2)   /* folded */
        rc = 0;
    if (!rc && graph_error(x->g))
        rc = -1;
    if (rc && x->err->code == 0) {
        const struct ls_error *ge = graph_error(x->g);
        ox_fail(x, "%s", ge ? ge->msg : "import failed");
    }
    if (rc)
        return x->err->code ? x->err->code : LS_ERR_INPUT;
    for (size_t k = 0; k < nd->n_output; k++) {
        struct ox_val *v = nd->output[k][0] ? ox_val(x, nd->output[k]) : NULL;
        if (k == 0 && v && !v->defined)
            return ox_fail(x, "output '%.100s' was not produced", nd->output[k]);
    }
    return 0;
}

/* Import the nodes in dependency order: a sorted graph takes one pass; an unsorted one
 * takes more; no progress means a cycle or a missing input. */
int ox_run_nodes(struct ox *x, const Onnx__GraphProto *gp)
{
    size_t n = gp->n_node, left = n;
    int rc = gp != x->gp ? read_initializers(x, gp) : 0;   /* a subgraph's own */
    char *done = rc ? NULL : calloc(n ? n : 1, 1);
    if (!done)
        return rc ? rc : ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    while (left && !rc) {
        size_t before = left;
        const char *missing = NULL;
        size_t first = n;
        for (size_t i = 0; i < n && !rc; i++) {
            if (done[i])
                continue;
            const char *m = NULL;
            if (!node_ready(x, gp->node[i], &m)) {
                if (first == n) {
                    first = i;
                    missing = m;
                }
                continue;
            }
            rc = run_node(x, gp->node[i]);
            done[i] = 1;
            left--;
        }
        if (!rc && left == before) {
            x->node = gp->node[first];
            rc = ox_fail(x, produced_by_some_node(gp, missing)
                                ? "input '%.100s' depends on this node's own output (a cycle)"
                                : "input '%.100s' is not produced by any node, initializer or "
                                  "graph input",
                         missing);
        }
    }
    free(done);
    x->node = NULL;
    return rc;
}

static int add_outputs(struct ox *x)
{
    if (x->gp->n_output == 0)
        return ox_fail(x, "the graph has no outputs");
    for (size_t i = 0; i < x->gp->n_output; i++) {
        const char *name = x->gp->output[i]->name ? x->gp->output[i]->name : "";
        int32_t id = ls_intern_find(&x->names, name, strlen(name));
        struct ox_val *v = id >= 0 ? &x->vals[id] : NULL;
        if (!v || !v->defined)
            return ox_fail(x, "graph output '%.100s' is not produced by any node", name);
        int32_t t = ox_tensor(x, v, -1);
        if (t < 0)
            return LS_ERR_INPUT;
        enum graph_tensor_role r = graph_tensor(x->g, t)->role;
        if (r == GRAPH_ROLE_INPUT || r == GRAPH_ROLE_WEIGHT) {   /* returns read op outputs */
            char nm[GRAPH_MAX_NAME + 1];
            t = graph_unary(x->g, unique_name(x, name, ".out", nm, sizeof nm), GRAPH_OP_COPY, t);
        }
        if (graph_output(x->g, t) < 0)
            return ox_fail(x, "graph output '%.100s': %s", name,
                           graph_error(x->g) ? graph_error(x->g)->msg : "?");
    }
    return 0;
}

static int64_t main_opset(const Onnx__ModelProto *m)
{
    for (size_t i = 0; i < m->n_opset_import; i++) {
        const char *d = m->opset_import[i]->domain;
        if ((!d || !*d || !strcmp(d, "ai.onnx")) && m->opset_import[i]->has_version)
            return m->opset_import[i]->version;
    }
    return 13;
}

static int import_model(struct ox *x, const Onnx__ModelProto *m, struct graph **out)
{
    if (!m->graph)
        return ls_error_set(x->err, LS_ERR_INPUT, x->file, 0, 0, "the model has no graph");
    x->gp = m->graph;
    x->opset = main_opset(m);
    char gname[GRAPH_MAX_NAME + 1];
    valid_graph_name(m->graph->name, gname, 200);
    x->g = graph_new(gname);
    if (!x->g)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    int rc = read_initializers(x, x->gp);
    if (!rc)
        rc = check_input_names(x);   /* before read_inputs: only initializers are defined */
    graph_batch_init(&x->batch, x->opts->batch);
    if (!rc)
        rc = read_inputs(x);
    if (!rc)
        rc = graph_batch_check(&x->batch, x->file, x->err);
    if (!rc)
        rc = ox_run_nodes(x, x->gp);
    if (!rc)
        rc = add_outputs(x);
    if (!rc && graph_validate(x->g, x->err))
        rc = x->err->code ? x->err->code : LS_ERR_INPUT;
    if (rc) {
        graph_batch_note(&x->batch, x->err);
        graph_free(x->g);
        return rc;
    }
    *out = x->g;
    return 0;
}

int onnx_import(const char *file, const void *buf, size_t len, const struct zoo_opts *opts,
                struct graph **out, struct ls_error *err)
{
    *out = NULL;
    struct zoo_opts defaults;
    if (!opts) {
        zoo_opts_init(&defaults);
        opts = &defaults;
    }
    if (graph_inputs_check(opts->inputs, err))
        return LS_ERR_INPUT;
    if (ox_wire_check(file, buf, len, &onnx__model_proto__descriptor, err))
        return LS_ERR_INPUT;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, buf);
    if (!m)
        return ls_error_set(err, LS_ERR_INPUT, file, 0, 0,
                            "malformed protobuf: not an ONNX ModelProto (bad UTF-8 or enum)");
    struct ox x;
    memset(&x, 0, sizeof x);
    x.file = file;
    x.opts = opts;
    x.err = err;
    ls_intern_init(&x.names);
    int rc = import_model(&x, m, out);
    for (size_t i = 0; i < x.nvals; i++)
        free(x.vals[i].vals);
    free(x.vals);
    ls_intern_free(&x.names);
    onnx__model_proto__free_unpacked(m, NULL);
    return rc;
}

int onnx_sniff(const void *buf, size_t len)
{
    const uint8_t *p = buf;
    /* field 1 (ir_version) varint: tag 0x08, then a small version number */
    return len >= 2 && p[0] == 0x08 && p[1] >= 1 && p[1] < 0x20;
}
