/* graph/import: the ONNX importer's internals, shared by onnx*.c (not a public header). */
#ifndef LS_GRAPH_IMPORT_ONNX_INT_H
#define LS_GRAPH_IMPORT_ONNX_INT_H

#include <stdint.h>

#include "graph/graph.h"
#include "graph/inputs.h"
#include "graph/zoo.h"
#include "onnx.pb-c.h"
#include "util/error.h"
#include "util/intern.h"

/* Constants wider than this are never evaluated (shape arithmetic needs only small ones). */
#define OX_MAX_CONST 4096
/* Rank of values that never reach the IR (shape arithmetic may use more than the IR). */
#define OX_MAX_RANK 8

/* One ONNX value (a name in the graph): a tensor of the IR, or a constant known at import
 * time (then vals holds its elements when they were read or computed, else it is a weight
 * made on first use, like an initializer). */
struct ox_val {
    int32_t t;                /* IR tensor id, -1 while none */
    int defined;              /* produced or given (graph input, initializer, node output) */
    int konst;                /* a constant: shape known, vals may be set */
    int onnx_dt;              /* TensorProto.DataType */
    int rank;
    int64_t dims[OX_MAX_RANK];
    double *vals;             /* numel elements, or NULL when not evaluated */
};

struct ox {
    const char *file;
    const struct zoo_opts *opts;
    const Onnx__GraphProto *gp;
    int64_t opset;
    struct graph *g;
    struct ls_intern names;    /* ONNX value names -> index into vals */
    struct ox_val *vals;
    size_t nvals, capvals;
    struct graph_batch batch;  /* --batch on the graph inputs */
    const Onnx__NodeProto *node;  /* the node being imported (for messages) */
    struct ls_error *err;
};

/* ---- onnx.c: values and naming ---- */
struct ox_val *ox_val(struct ox *x, const char *name);     /* NULL when out of memory */
int ox_fail(struct ox *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
enum ls_dtype ox_dtype(int onnx_dt);
int64_t ox_numel(const struct ox_val *v);
/* Product of rank dims, 0 when any is 0, saturating at INT64_MAX (no overflow). */
int64_t ox_dims_numel(int rank, const int64_t *dims);
/* A constant's element as an integer: clamped to +-2^62, NaN as 0 (no undefined casts). */
int64_t ox_i64(double d);
/* The IR tensor of a value, creating the weight of a constant on first use (dtype like:
 * an IR dtype to use for a constant without a float/int type preference, or -1). */
int32_t ox_tensor(struct ox *x, struct ox_val *v, int like);
/* A unique valid tensor name from the node's name plus suffix (may be ""). */
const char *ox_name(struct ox *x, const char *suffix, char *buf, size_t n);
/* Bind output k of the current node to tensor t / to a constant. */
int ox_bind(struct ox *x, int k, int32_t t);
struct ox_val *ox_bind_const(struct ox *x, int k, int onnx_dt, int rank, const int64_t *dims);
/* Output k (when the node has it) as a constant of that shape with no values: the
 * secondary outputs (Dropout's mask, MaxPool's indices, LayerNormalization's Mean...). */
int ox_bind_aux(struct ox *x, int k, int onnx_dt, int rank, const int64_t *dims);
/* Input k of the current node; NULL when absent ("" or beyond n_input). */
struct ox_val *ox_in(struct ox *x, int k);
/* A weight of the given shape that exists only for its shape (zero blocks, index tables). */
int32_t ox_block(struct ox *x, const char *suffix, enum ls_dtype dt, int rank,
                 const int64_t *dims);

/* Make v the constant of TensorProto tp (its values when small). 0 or LS_ERR_INPUT. */
int ox_set_tensor(struct ox *x, struct ox_val *v, const Onnx__TensorProto *tp);
/* The output shape of Reshape/Flatten/Squeeze/Unsqueeze for an input of rank/dims:
 * 0, -2 when a needed constant input is unknown, or LS_ERR_INPUT (ox_fail called). */
int ox_reshape_target(struct ox *x, int rank, const int64_t *dims, int *orank, int64_t *odims);

/* ---- attributes ---- */
const Onnx__AttributeProto *ox_attr(const struct ox *x, const char *name);
int64_t ox_attr_i(const struct ox *x, const char *name, int64_t def);
float ox_attr_f(const struct ox *x, const char *name, float def);
/* Copy an ints attribute (at most max); returns the count, -1 when absent. */
int ox_attr_ints(struct ox *x, const char *name, int64_t *out, int max);
const char *ox_attr_s(const struct ox *x, const char *name, char *buf, size_t n);
/* Transpose's perm for rank r (at most OX_MAX_RANK; reversed axes when absent) into perm:
 * 0, or LS_ERR_INPUT (ox_fail called) for a wrong count, a value outside [0, r) or an
 * axis given twice. */
int ox_attr_perm(struct ox *x, int r, int *perm);
/* Integer values of input k (a constant) into out (at most max); -1 when input k is
 * absent, -2 when it is not a known constant (ox_fail not called). */
int ox_in_ints(struct ox *x, int k, int64_t *out, int max);

/* Import the nodes of graph gp (the model's graph, or a subgraph of If/Loop whose nodes see
 * the outer values) in dependency order. 0 or an error code. */
int ox_run_nodes(struct ox *x, const Onnx__GraphProto *gp);

/* ---- onnx_ops.c / onnx_fold.c ---- */
int ox_import_node(struct ox *x);
/* Evaluate the node when all its inputs are constants with values and its op folds:
 * 2 folded (outputs bound), 0 not foldable, anything else an error. */
int ox_fold(struct ox *x);
/* onnx_fold_more.c: Split and the reductions (ReduceMax/Min/Sum/Mean/Prod), same contract. */
int ox_fold_more(struct ox *x);
/* ox_fail for functions returning a tensor id: records the error, gives -1. */
#define OX_FAIL_T(x, ...) (ox_fail((x), __VA_ARGS__), -1)

/* ---- onnx_wire.c ---- */
/* Walk the protobuf wire format of buf against the message descriptor; LS_ERR_INPUT with the
 * byte offset and field of the first malformed field. */
int ox_wire_check(const char *file, const uint8_t *buf, size_t len,
                  const ProtobufCMessageDescriptor *desc, struct ls_error *err);

#endif
