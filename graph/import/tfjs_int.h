/* graph/import: TF.js importer internals shared by its files: tfjs.c (parsing, order,
 * outputs), tfjs_source.c (manifest, sources), tfjs_value.c (attributes, node values),
 * tfjs_conv.c, tfjs_ops.c, tfjs_shape.c, tfjs_move.c, tfjs_batch.c (lowerings), tfjs_fold.c
 * (folding), tfjs_flow.c (cond blocks), tfjs_loop.c (while loops), tfjs_list.c (TensorList,
 * TensorArray), tfjs_bound.c (upper bounds of data-dependent sizes). */
#ifndef LS_GRAPH_IMPORT_TFJS_INT_H
#define LS_GRAPH_IMPORT_TFJS_INT_H

#include <jansson.h>

#include "graph/inputs.h"
#include "graph/tfjs.h"

/* Constants up to this many elements keep their values (for shape arithmetic). */
#define TV_MAX_VALS 4096

/* One output of a node: a graph tensor, or a weight/constant not yet placed in the graph
 * (weights become sources only when a compute op reads them, in the layout it wants). */
struct tv {
    int32_t t;               /* graph tensor, -1 while not materialized */
    enum ls_dtype dt;
    int rank;
    int64_t dims[GRAPH_MAX_RANK];
    double *vals;            /* the value when known (constants and folded shape math) */
    int weight;              /* a constant: materializes as a graph weight */
    const char *name;        /* the producing node's name, for lazily made tensors */
    /* a transpose this importer added lazily (t made on first use): its input and perm, so
     * a transpose back cancels instead of adding a second copy */
    int32_t tr_src;
    int tr_perm[GRAPH_MAX_RANK];
    int list;                /* a TensorList or TensorArray: 1 + its index in tfjs.lists */
};

struct tnode {
    const char *name, *op;
    json_t *j;
    int nin;
    int32_t *in;             /* producer node of each data input */
    int *port;               /* which output of it */
    struct tv *out;
    int nout;
    int done;
    int dead;                /* reads a dead value (the untaken branch of a cond) */
    int dead_port;           /* a Switch: 1 + its untaken output, 0 when none */
    int loop;                /* in a while loop's frame (not its Enter nodes): 1 + the loop */
};

/* A TF while loop (tfjs_loop.c): its frame's nodes other than Enter, run once per iteration. */
struct tloop {
    int32_t *mem;
    int nmem;
    int32_t cond;            /* its LoopCond */
    int iter;                /* the iteration being lowered */
};

/* A TensorList or TensorArray: the graph tensor of each element, -1 while unset. */
struct tlist {
    int n;
    int32_t *el;
};

struct tfjs {
    struct graph *g;
    const char *file, *text;
    size_t len;
    json_t *root, *index;    /* index: node name -> node number */
    json_t *manifest;        /* weight name -> {shape, dtype, shard, offset, quant} */
    struct tnode *nodes;
    size_t n;
    struct tfjs_opts o;
    struct graph_batch batch; /* opts.batch on the inputs when batch_set */
    char dir[1024];          /* directory of model.json, for the shards */
    struct ls_error *err;
    int rc;
    int32_t cur;             /* node being lowered, for messages */
    struct tloop *loops;
    int nloops;
    struct tlist *lists;
    int nlists;
};

struct tfjs;
struct tnode;
/* Lowering of one op; 0 or LS_ERR_INPUT. */
typedef int (*tf_lower_fn)(struct tfjs *c, struct tnode *n);

/* Errors name the current node: "node 'NAME' (OP): ...". Return LS_ERR_INPUT. */
/* An error at a JSON path ("weightsManifest[0]"): FILE:LINE:COL: msg. */
int tf_fail_path(struct tfjs *c, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *tf_kind_of(const json_t *v);              /* "an array", "a string"... */
/* An integer written as a number or a decimal string ("256", "-1"); 0 or -1. */
int tf_json_int(const json_t *j, int64_t *v);
void tf_sanitize(char *s);                            /* to the IR's name characters */
/* tfjs_source.c: the manifest (name -> group, offset, shape, dtype, quantization) and the
 * lowering of an op (sources and pass-throughs here, then tfjs_ops.c, tfjs_shape.c). */
int tf_read_manifest(struct tfjs *c);
tf_lower_fn tf_find_op(const char *op);
int tf_fail(struct tfjs *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Inputs and outputs of node n. */
struct tv *tf_in(struct tfjs *c, struct tnode *n, int i);
struct tv *tf_out(struct tfjs *c, struct tnode *n, int k);     /* grows n->out */
/* Output k of n as graph tensor t (shape read back from the graph). */
int tf_set(struct tfjs *c, struct tnode *n, int k, int32_t t);
/* A graph tensor for v (materializing a weight as a source). -1 after an error. */
int32_t tf_mat(struct tfjs *c, struct tv *v, const char *name);
/* v as a graph tensor permuted by perm (a weight is created permuted; a transpose of a
 * transpose cancels). */
int32_t tf_perm(struct tfjs *c, struct tv *v, const int *perm, const char *name);
int32_t tf_transpose(struct tfjs *c, int32_t t, const int *perm, const char *name);
/* A fresh unique tensor name "<node>.<what>" (sanitized). Static buffer rotation: valid
 * until 8 more calls. */
const char *tf_name(struct tfjs *c, const char *what);
const char *tf_name_of(struct tfjs *c, const char *base, const char *what);
/* Output k of n as a lazy transpose of graph tensor src by perm. */
int tf_set_view(struct tfjs *c, struct tnode *n, int k, int32_t src, const int *perm);
/* Shape of a graph tensor. */
void tf_shape_of(struct tfjs *c, int32_t t, int *rank, int64_t *dims);

/* Attributes of the current node. */
int tf_attr_int(struct tfjs *c, struct tnode *n, const char *key, int64_t dflt, int64_t *v);
int tf_attr_ints(struct tfjs *c, struct tnode *n, const char *key, int64_t *v, int max);
/* String attrs are base64 in the file; decoded into buf; "" when absent. */
int tf_attr_str(struct tfjs *c, struct tnode *n, const char *key, char *buf, size_t cap);
int tf_attr_strs(struct tfjs *c, struct tnode *n, const char *key, char (*buf)[32], int max);
int tf_attr_float(struct tfjs *c, struct tnode *n, const char *key, double dflt, double *v);

/* Input i's constant value as integers (must be known). Returns the count or -1. */
int tf_ints(struct tfjs *c, struct tnode *n, int i, int64_t *v, int max);
/* Known value output: shape + values (copied). */
int tf_set_value(struct tfjs *c, struct tnode *n, int k, enum ls_dtype dt, int rank,
                 const int64_t *dims, const double *vals);
int64_t tf_numel(int rank, const int64_t *dims);
/* A constant's value as an integer, clamped to +-2^50 (NaN: 0). */
int64_t tf_to_int(double x);
/* Normalize a possibly negative axis; -1 (after an error) when out of range. */
int tf_axis(struct tfjs *c, int64_t a, int rank);

/* The lowering of op name, NULL when unsupported. */
tf_lower_fn tf_conv_ops_find(const char *op);   /* tfjs_conv.c */
tf_lower_fn tf_ops_find(const char *op);        /* tfjs_ops.c */
tf_lower_fn tf_shape_ops_find(const char *op);  /* tfjs_shape.c */
tf_lower_fn tf_move_ops_find(const char *op);   /* tfjs_move.c */

/* tfjs_flow.c: `cond` blocks. Input i of n reads a dead value (the untaken side of a
 * Switch, or a dead node's output); n is dead when an input is (a Merge: when all are). */
int tf_input_dead(const struct tfjs *c, const struct tnode *n, int i);
int tf_node_dead(const struct tfjs *c, const struct tnode *n);
/* Output k of n: a copy of value x (its values too). 0 or an error. */
int tf_pass(struct tfjs *c, struct tnode *n, int k, const struct tv *x);
int tf_op_switch(struct tfjs *c, struct tnode *n);   /* in tfjs_source.c's table */
int tf_op_merge(struct tfjs *c, struct tnode *n);
/* The input a Merge passes: in a while loop its Enter input on the first iteration, its
 * NextIteration input after; in a cond block its live input. -1 when none. */
int tf_merge_input(const struct tfjs *c, const struct tnode *n);
/* tfjs.c: lower node i (or mark it dead). 0 or an error. */
int tf_lower_node(struct tfjs *c, int32_t i);
/* tfjs_loop.c: while loops (Enter/Merge/Switch/LoopCond/NextIteration/Exit frames) unrolled
 * at import time while their condition folds to a constant. tf_loops_find marks each
 * frame's nodes; the order drops each Merge's NextIteration input (tf_loop_back_edge) and
 * puts a loop's Exit nodes after all its other nodes (tf_loop_extra, tf_loop_release);
 * lower_all runs the whole loop at its first Exit (tf_loop_run). */
int tf_loops_find(struct tfjs *c);
int tf_loop_back_edge(const struct tfjs *c, int32_t node, int k);
int tf_loop_extra(const struct tfjs *c, int32_t node);
void tf_loop_release(const struct tfjs *c, int32_t v, int32_t *deg, int32_t *ord,
                     size_t *tail);
int tf_loop_run(struct tfjs *c, int loop, const int32_t *ord);
void tf_loops_free(struct tfjs *c);
tf_lower_fn tf_loop_ops_find(const char *op);
tf_lower_fn tf_list_ops_find(const char *op);    /* tfjs_list.c */
/* tfjs_shape.c: the n tensors ts (same shape) stacked on a new axis a, as fp32. -1 after an
 * error. */
int32_t tf_stack(struct tfjs *c, int n, const int32_t *ts, int a);
/* tfjs_bound.c: an upper bound on input i of n, a value computed from tensor data (a count
 * of selected elements). 1 when one is found, else 0. */
int tf_upper_bound(const struct tfjs *c, const struct tnode *n, int i, double *hi);
/* tfjs_batch.c: SpaceToBatchND, BatchToSpaceND (in tfjs_move.c's table). */
int tf_op_space_to_batch(struct tfjs *c, struct tnode *n);
int tf_op_batch_to_space(struct tfjs *c, struct tnode *n);

/* tfjs_conv.c helpers shared with tfjs_ops.c: the node's data_format is NCHW; a
 * per-channel vector of o elements shaped [o,1,1]; a fused op's tail (BiasAdd,
 * FusedBatchNorm, activation; nchw_axis: channels on axis 1, else last). */
int tf_nchw_format(struct tfjs *c, struct tnode *n);
int32_t tf_chan_vec(struct tfjs *c, struct tv *v, int64_t o, const char *what);
int32_t tf_fused_tail(struct tfjs *c, struct tnode *n, int32_t y, int64_t o, int nchw_axis);
/* tfjs_fold.c: fold the node when its inputs are constants; 1 when handled. */
int tf_fold_binary(struct tfjs *c, struct tnode *n);
int tf_fold_unary(struct tfjs *c, struct tnode *n);
int tf_fold_reduce(struct tfjs *c, struct tnode *n);
int tf_fold_select(struct tfjs *c, struct tnode *n);
/* tfjs_shape.c: output k as constant x reshaped (values permuted by src, NULL: in order). */
int tf_const_out(struct tfjs *c, struct tnode *n, int k, struct tv *x, int rank,
                 const int64_t *dims, const int64_t *src);

#endif
