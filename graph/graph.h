/* graph: the tensor dataflow IR.
 *
 * A graph is a set of tensors and a set of ops. Every op has a kind, attributes, a list of
 * input tensors (a multiset: the same tensor may appear in several slots) and at most one
 * output tensor. Graph inputs and weights are produced by `source` ops, graph outputs are
 * consumed by `return` ops (which have no output), so every tensor has exactly one producer.
 *
 * Building from C: the builder keeps a sticky error. Every builder call returns a tensor
 * (or op) id >= 0, or -1 once anything went wrong; calls given an id of -1 just return -1,
 * so a model can be written without checking each call:
 *
 *     struct graph *g = graph_new("fig1");
 *     int32_t a = graph_input(g, "A", LS_DT_FP32, GRAPH_DIMS(4, 8), NULL);
 *     int32_t b = graph_weight(g, "B", LS_DT_FP32, GRAPH_DIMS(8, 3), NULL);
 *     int32_t c = graph_matmul(g, "C", a, b);
 *     int32_t d = graph_reduce(g, "D", GRAPH_OP_REDUCE_SUM, c, GRAPH_AXES(0), 1);
 *     graph_output(g, graph_binary(g, "R", GRAPH_OP_ADD, d, b));
 *     if (graph_validate(g, &err)) ...      (reports the first builder error, if any)
 *     graph_free(g);
 *
 * Shape helpers infer the output shape and dtype from the inputs and attributes, and carry
 * dimension roles ("batch", "seq", "hidden"...) from input axes to the output axes they map
 * to (see graph_axis_map), so roles need to be given only on graph inputs and weights.
 *
 * Ids are dense: tensors 0..ntensors-1, ops 0..nops-1, in creation order. Pointers returned
 * by graph_tensor()/graph_op() are invalidated by the next builder call; names and role
 * strings stay valid until graph_free.
 *
 * The text format (.lg) is documented in docs/formats.md; reader/writer are in graph/lg.h.
 */
#ifndef LS_GRAPH_GRAPH_H
#define LS_GRAPH_GRAPH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/dtype.h"
#include "util/error.h"

/* Limits shared by the builder and the .lg reader, so that every graph the builder
 * accepts can be written and read back. */
#define GRAPH_MAX_RANK 6
#define GRAPH_MAX_INPUTS 4096    /* concat fan-in limit */
#define GRAPH_MAX_NAME 511       /* bytes in a tensor, op or graph name */
#define GRAPH_MAX_ROLE 127       /* bytes in a dimension role name */
#define GRAPH_MAX_DIM ((int64_t)1 << 40)   /* size of one dimension */
#define GRAPH_MAX_ELEMS ((int64_t)1 << 50) /* elements of one tensor */

/* ---- tensors ------------------------------------------------------------------------ */

enum graph_tensor_role {
    GRAPH_ROLE_INPUT,        /* produced by a source op: a graph input */
    GRAPH_ROLE_WEIGHT,       /* produced by a source op: a parameter / constant */
    GRAPH_ROLE_ACTIVATION,   /* produced by a compute op */
    GRAPH_ROLE_OUTPUT,       /* produced by a compute op and consumed by a return op */
    GRAPH_ROLE_COUNT
};

struct graph_dim {
    int64_t size;            /* >= 1 */
    const char *role;        /* "batch", "seq", "channels"...; NULL when none (interned) */
};

struct graph_shape {
    int rank;                /* 0..GRAPH_MAX_RANK */
    struct graph_dim dims[GRAPH_MAX_RANK];
};

struct graph_use {
    int32_t op;              /* consumer op */
    int32_t slot;            /* input slot of that op */
};

struct graph_tensor {
    const char *name;        /* unique among tensors */
    enum ls_dtype dtype;
    struct graph_shape shape;
    enum graph_tensor_role role;
    /* 1 for a graph input the model itself wrote in an earlier step (a decode step's KV
     * cache): the compiler chose its layout then, so, like a weight's, it is whatever its
     * readers want (graph_set_state; `input ... state` in .lg files). */
    int state;
    int32_t producer;        /* op id, -1 while none */
    int32_t nproducers;      /* validation reports tensors with != 1 producer */
    struct graph_use *uses;  /* every input slot reading this tensor, in op order */
    size_t nuses, capuses;
};

/* ---- ops ------------------------------------------------------------------------------ */

enum graph_op_kind {
    GRAPH_OP_SOURCE,         /* 0 inputs; output role input or weight */
    GRAPH_OP_RETURN,         /* 1 input; no output */
    GRAPH_OP_MATMUL,         /* a, b; contraction axes, no batch axes */
    GRAPH_OP_BATCH_MATMUL,   /* a, b; contraction and >= 1 batch axes */
    GRAPH_OP_CONV2D,         /* x[N,C,H,W], w[O,C/groups,KH,KW] -> [N,O,OH,OW] */
    /* elementwise unary: 1 input, same shape */
    GRAPH_OP_RELU,
    GRAPH_OP_GELU,
    GRAPH_OP_SILU,
    GRAPH_OP_EXP,
    GRAPH_OP_TANH,
    GRAPH_OP_SIGMOID,
    GRAPH_OP_RSQRT,
    GRAPH_OP_COPY,
    GRAPH_OP_CAST,           /* output dtype = attrs.dtype */
    /* elementwise binary with numpy broadcasting (right-aligned; size-1 dims stretch) */
    GRAPH_OP_ADD,
    GRAPH_OP_SUB,
    GRAPH_OP_MUL,
    GRAPH_OP_DIV,
    GRAPH_OP_MAX,
    /* reductions over attrs.axes; attrs.keep keeps reduced axes with size 1 */
    GRAPH_OP_REDUCE_SUM,
    GRAPH_OP_REDUCE_MAX,
    GRAPH_OP_REDUCE_MEAN,
    GRAPH_OP_SOFTMAX,        /* x; normalizes along attrs.axis */
    GRAPH_OP_LAYERNORM,      /* x [, gamma, beta]; along attrs.axis; params [size of axis] */
    GRAPH_OP_RMSNORM,        /* x [, gamma]; along attrs.axis */
    GRAPH_OP_BATCHNORM,      /* x [, scale, shift]; per channel attrs.axis (inference form) */
    GRAPH_OP_TRANSPOSE,      /* out axis i = in axis attrs.perm[i] */
    GRAPH_OP_RESHAPE,        /* same element count; target = declared output shape */
    GRAPH_OP_CONCAT,         /* >= 1 inputs joined along attrs.axis */
    GRAPH_OP_SLICE,          /* attrs.axis, begin, end (exclusive), step */
    GRAPH_OP_GATHER,         /* table, ids (int) -> table dims with attrs.axis replaced by ids dims */
    GRAPH_OP_POOL_MAX,       /* x[N,C,H,W]; kernel, stride, pad */
    GRAPH_OP_POOL_AVG,
    GRAPH_OP_COUNT
};

/* Attributes of every kind in one flat struct; fields a kind does not use stay zero
 * (graph_attrs_default gives the defaults of a kind). */
struct graph_attrs {
    /* matmul / batch_matmul ("dot general"). Output axes: the batch axes (in the order of
     * lhs_batch), then lhs's remaining axes in order, then rhs's remaining axes in order.
     * lhs_contract[i] is contracted with rhs_contract[i]; lhs_batch[i] pairs with rhs_batch[i].
     * matmul default: lhs's last axis with rhs's axis 0 (x[..,K] @ W[K,N] -> [..,N]).
     * batch_matmul default: leading rank-2 axes are batch, a[..,M,K] @ b[..,K,N]. */
    int ncontract;
    int lhs_contract[GRAPH_MAX_RANK], rhs_contract[GRAPH_MAX_RANK];
    int nbatch;
    int lhs_batch[GRAPH_MAX_RANK], rhs_batch[GRAPH_MAX_RANK];
    /* reduce_*: the reduced axes (distinct, any order; kept sorted by the builder) */
    int naxes;
    int axes[GRAPH_MAX_RANK];
    int keep;                /* reduce_*: 1 keeps reduced axes as size 1 */
    /* softmax, layernorm, rmsnorm, batchnorm (channel axis), concat, slice, gather */
    int axis;
    /* transpose: a permutation of 0..rank-1 */
    int perm[GRAPH_MAX_RANK];
    /* conv2d and pool_*: [0] = height, [1] = width. conv2d's kernel comes from its weight. */
    int64_t kernel[2];       /* pool_* only, >= 1 */
    int64_t stride[2];       /* >= 1 */
    int64_t pad[2];          /* >= 0, added on both sides */
    int64_t dilation[2];     /* conv2d only, >= 1 */
    int64_t groups;          /* conv2d: >= 1, divides C and O */
    /* slice: 0 <= begin < end <= size, step >= 1; output size ceil((end-begin)/step) */
    int64_t begin, end, step;
    /* cast: target dtype */
    enum ls_dtype dtype;
};

struct graph_op {
    const char *name;        /* unique among ops: the output tensor's name; "return:T" */
    enum graph_op_kind kind;
    int32_t *inputs;         /* tensor ids */
    int ninputs;
    int32_t output;          /* tensor id; -1 for return */
    struct graph_attrs attrs;
};

struct graph;                /* opaque except through the accessors below */

/* ---- kinds ----------------------------------------------------------------------------- */

const char *graph_op_kind_name(enum graph_op_kind k);        /* "matmul", "reduce_sum"... */
int graph_op_kind_parse(const char *s, size_t n, enum graph_op_kind *out); /* 0 or -1 */
const char *graph_role_name(enum graph_tensor_role r);       /* "input", "weight"... */
int graph_kind_is_unary(enum graph_op_kind k);               /* relu .. cast */
int graph_kind_is_binary(enum graph_op_kind k);              /* add .. max */
int graph_kind_is_reduce(enum graph_op_kind k);              /* reduce_sum/max/mean */
int graph_kind_is_compute(enum graph_op_kind k);             /* everything but source/return */
/* May an op of kind k declare output dtype `declared` when shape inference gives
 * `inferred`? Always when they are equal. Otherwise:
 *   - matmul, batch_matmul, conv2d, reduce_sum, reduce_mean: any dtype (they accumulate
 *     in fp32 and the evacuation writes whatever the output is);
 *   - ops computed on an engine (elementwise, softmax, layernorm, rmsnorm, batchnorm,
 *     transpose, reduce_max, pooling): a NARROWER float dtype (fp32 -> bf16/fp16/fp8,
 *     bf16/fp16 -> fp8), because their lowering writes the output tile in the output's
 *     dtype (the bf16 auto-cast, graph/autocast.h, relies on this);
 *   - cast (its attribute is the dtype) and the data-movement kinds reshape, concat, slice,
 *     gather (DMA copies, which move bytes without converting): never. */
int graph_output_dtype_ok(enum graph_op_kind k, enum ls_dtype inferred, enum ls_dtype declared);
/* Kinds that may write a narrower float output than their inputs (see above). */
int graph_kind_may_narrow(enum graph_op_kind k);
/* Allowed input counts of a kind (max -1: unbounded, i.e. concat). */
void graph_kind_arity(enum graph_op_kind k, int *min_inputs, int *max_inputs);
/* Defaults of a kind for inputs of the given ranks (ranks[0] = lhs/x, ranks[1] = rhs). */
void graph_attrs_default(enum graph_op_kind k, const int *ranks, int ninputs,
                         struct graph_attrs *at);

/* ---- building -------------------------------------------------------------------------- */

/* Literal size lists for the builder: GRAPH_DIMS(1, 8, 56, 56) expands to "rank, sizes".
 * (Scalars: pass "0, NULL"; an empty GRAPH_DIMS() is not valid C11.) */
#define GRAPH_DIMS(...)                                                        \
    (int)(sizeof((const int64_t[]){__VA_ARGS__}) / sizeof(int64_t)),           \
        ((const int64_t[]){__VA_ARGS__})
/* GRAPH_AXES(0, 2) expands to "naxes, axes" (int). */
#define GRAPH_AXES(...)                                                        \
    (int)(sizeof((const int[]){__VA_ARGS__}) / sizeof(int)), ((const int[]){__VA_ARGS__})

struct graph *graph_new(const char *name);     /* NULL when out of memory; name may be NULL */
void graph_free(struct graph *g);

const char *graph_name(const struct graph *g); /* "" when unnamed */
int graph_set_name(struct graph *g, const char *name);

/* Prefix prepended to every name given to the builder from now on ("layer3." ...);
 * NULL or "" clears it. Copied. */
void graph_set_prefix(struct graph *g, const char *prefix);

/* The sticky builder error: NULL while none. */
const struct ls_error *graph_error(const struct graph *g);
/* Record an error (first one wins); returns -1 for "return graph_fail(...)". */
int graph_fail(struct graph *g, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Fill s with rank sizes (all >= 1), no roles; -1 when out of range. */
int graph_shape_make(struct graph_shape *s, int rank, const int64_t *sizes);
int64_t graph_shape_numel(const struct graph_shape *s);
int graph_shape_equal(const struct graph_shape *a, const struct graph_shape *b); /* sizes only */

/* Low level. name: NULL -> "t<id>". Names: letters, digits and _ . @ / - (not starting
 * with '-'), unique among tensors. roles: NULL, or a comma-separated list with exactly
 * rank entries, each empty (no role) or a role name [A-Za-z][A-Za-z0-9_]*:
 * "batch,seq,hidden", ",,hidden". Returns the id or -1. */
int32_t graph_add_tensor(struct graph *g, const char *name, enum ls_dtype dt,
                         enum graph_tensor_role role, int rank, const int64_t *sizes,
                         const char *roles);
int32_t graph_add_tensor_shape(struct graph *g, const char *name, enum ls_dtype dt,
                               enum graph_tensor_role role, const struct graph_shape *shape);
/* Add an op producing `output` (-1 for return; the return's input gets role output).
 * attrs NULL = defaults for the input ranks. Does not check shapes (graph_validate does);
 * records the use of every input and the producer of the output. Returns the op id or -1. */
int32_t graph_add_op(struct graph *g, enum graph_op_kind kind, const int32_t *inputs,
                     int ninputs, int32_t output, const struct graph_attrs *attrs);
/* Attach a dimension role to axis `axis` of tensor t (role NULL clears). */
int graph_set_dim_role(struct graph *g, int32_t t, int axis, const char *role);
/* Intern a string in the graph (for roles); NULL when out of memory. */
const char *graph_intern(struct graph *g, const char *s);

/* Sources and returns. */
int32_t graph_input(struct graph *g, const char *name, enum ls_dtype dt, int rank,
                    const int64_t *sizes, const char *roles);
int32_t graph_weight(struct graph *g, const char *name, enum ls_dtype dt, int rank,
                     const int64_t *sizes, const char *roles);
int32_t graph_output(struct graph *g, int32_t t);
/* Mark graph input t as state (struct graph_tensor: state). -1 (the graph's error set)
 * when t is not an input. */
int graph_set_state(struct graph *g, int32_t t);   /* return op id, or -1 */

/* Compute helpers: infer the output (shape, dtype, roles), create the output tensor named
 * `name` (NULL -> "<kind>_<op id>") and the op; return the output tensor id or -1. */
int32_t graph_op_infer(struct graph *g, const char *name, enum graph_op_kind kind,
                       const int32_t *inputs, int ninputs, const struct graph_attrs *attrs);
int32_t graph_matmul(struct graph *g, const char *name, int32_t a, int32_t b);
/* Contract a's axis ca with b's axis cb (no batch axes). */
int32_t graph_matmul_axes(struct graph *g, const char *name, int32_t a, int32_t b, int ca,
                          int cb);
/* a[..., M, K] @ b[..., K, N]  (b_transposed: b[..., N, K]); leading axes are batch. */
int32_t graph_batch_matmul(struct graph *g, const char *name, int32_t a, int32_t b,
                           int b_transposed);
int32_t graph_conv2d(struct graph *g, const char *name, int32_t x, int32_t w, int64_t stride,
                     int64_t pad, int64_t groups);
int32_t graph_unary(struct graph *g, const char *name, enum graph_op_kind kind, int32_t x);
int32_t graph_cast(struct graph *g, const char *name, int32_t x, enum ls_dtype to);
int32_t graph_binary(struct graph *g, const char *name, enum graph_op_kind kind, int32_t a,
                     int32_t b);
int32_t graph_reduce(struct graph *g, const char *name, enum graph_op_kind kind, int32_t x,
                     int naxes, const int *axes, int keep);
int32_t graph_softmax(struct graph *g, const char *name, int32_t x, int axis);
/* gamma/beta/scale/shift: tensor ids or -1 for none (both or neither for layernorm and
 * batchnorm). Negative axis counts from the end (-1 = last). */
int32_t graph_layernorm(struct graph *g, const char *name, int32_t x, int32_t gamma,
                        int32_t beta, int axis);
int32_t graph_rmsnorm(struct graph *g, const char *name, int32_t x, int32_t gamma, int axis);
int32_t graph_batchnorm(struct graph *g, const char *name, int32_t x, int32_t scale,
                        int32_t shift, int axis);
int32_t graph_transpose(struct graph *g, const char *name, int32_t x, const int *perm);
/* roles NULL: kept where an input axis maps one-to-one to an output axis. */
int32_t graph_reshape(struct graph *g, const char *name, int32_t x, int rank,
                      const int64_t *sizes, const char *roles);
int32_t graph_concat(struct graph *g, const char *name, int n, const int32_t *xs, int axis);
int32_t graph_slice(struct graph *g, const char *name, int32_t x, int axis, int64_t begin,
                    int64_t end, int64_t step);
int32_t graph_gather(struct graph *g, const char *name, int32_t table, int32_t ids, int axis);
int32_t graph_pool(struct graph *g, const char *name, enum graph_op_kind kind, int32_t x,
                   int64_t kernel, int64_t stride, int64_t pad);

/* ---- reading --------------------------------------------------------------------------- */

int32_t graph_ntensors(const struct graph *g);
int32_t graph_nops(const struct graph *g);
const struct graph_tensor *graph_tensor(const struct graph *g, int32_t t);
const struct graph_op *graph_op(const struct graph *g, int32_t op);
int32_t graph_find_tensor(const struct graph *g, const char *name);  /* -1 when absent */
int32_t graph_find_op(const struct graph *g, const char *name);      /* -1 when absent */

/* Shape inference of one op from its input tensors and attributes (no graph change).
 * target: the declared output shape, needed by reshape (ignored otherwise, may be NULL).
 * Fills the inferred shape (with propagated roles) and dtype, or returns LS_ERR_INPUT
 * with a message saying what is wrong (attribute out of range, shapes that disagree). */
int graph_infer(const struct graph *g, enum graph_op_kind kind, const int32_t *inputs,
                int ninputs, const struct graph_attrs *attrs, const struct graph_shape *target,
                struct graph_shape *out, enum ls_dtype *dtype, struct ls_error *err);

/* Full check: the sticky builder error; every tensor has exactly one producer; sources
 * produce input/weight tensors and compute ops activation/output tensors; returns read
 * output tensors; inputs exist; acyclic; attributes in range; every declared output
 * shape (sizes) and dtype agree with inference. 0 or LS_ERR_INPUT with a message naming
 * the op and tensor. */
int graph_validate(const struct graph *g, struct ls_error *err);

/* Ops in a topological order (sources first, ties by id). order: nops entries.
 * LS_ERR_INPUT when there is a cycle. */
int graph_topo_order(const struct graph *g, int32_t *order, struct ls_error *err);

/* Same name, tensors (name, dtype, shape incl. roles, role) and ops (kind, inputs, output,
 * the attributes the kind uses), in the same order. 1 when equal; otherwise 0 and a
 * description of the first difference in why (may be NULL). */
int graph_equal(const struct graph *a, const struct graph *b, char *why, size_t n);

/* ---- axis maps ------------------------------------------------------------------------- */

/* What becomes of one axis of one op input in the op's output. */
enum graph_axis_kind {
    GRAPH_AXIS_MAP,        /* becomes output axis `out`, same index space */
    GRAPH_AXIS_BROADCAST,  /* size 1, stretched along output axis `out` */
    GRAPH_AXIS_CONTRACT,   /* summed against the other operand (matmul K, conv C and kernel) */
    GRAPH_AXIS_REDUCE,     /* reduced; out = the kept size-1 axis, or -1 */
    GRAPH_AXIS_NORMALIZE,  /* becomes `out`, but the op reduces along it internally
                              (softmax, layernorm, rmsnorm axis) */
    GRAPH_AXIS_WINDOW,     /* conv/pool spatial axis: becomes `out` through a sliding window */
    GRAPH_AXIS_SLICE,      /* a strided sub-range of it becomes `out` (slice axis) */
    GRAPH_AXIS_CONCAT,     /* becomes a sub-range of `out` (concat axis) */
    GRAPH_AXIS_INDEX,      /* gather: the looked-up table axis, replaced by the ids axes */
    GRAPH_AXIS_SPLIT,      /* reshape: splits into output axes out .. out+out_n-1 */
    GRAPH_AXIS_MERGE,      /* reshape: merged with neighbouring input axes into `out` */
    GRAPH_AXIS_REGROUP,    /* reshape: a group of input axes becomes a group of out_n
                              output axes starting at out, neither a split nor a merge */
    GRAPH_AXIS_DROP,       /* reshape: a size-1 axis that disappears (out = -1) */
    GRAPH_AXIS_COUNT
};

struct graph_axis {
    enum graph_axis_kind kind;
    int out;               /* output axis, or -1 */
    int out_n;             /* output axes covered: 1, or the group size for split/regroup */
};

const char *graph_axis_kind_name(enum graph_axis_kind k);    /* "map", "broadcast"... */

/* Axis map of input slot `slot` of op `op`: map[i] for each axis i of that input.
 * Returns the input's rank (>= 0), or -1 when op/slot is out of range. Return ops map
 * every axis to itself; source ops have no inputs. Per kind (docs/formats.md has the table):
 *   matmul/batch_matmul: batch axes MAP to their output position, contraction axes
 *     CONTRACT, the other axes MAP to their output position.
 *   conv2d x: N MAP 0; C CONTRACT (MAP 1 when depthwise: groups == C); H, W WINDOW 2, 3
 *     (MAP when kernel 1, stride 1, pad 0). w: O MAP 1; C/g, KH, KW CONTRACT.
 *   unary, binary: MAP, or BROADCAST for a size-1 axis stretched to a larger size.
 *   reduce: reduced axes REDUCE, others MAP.  softmax/layernorm/rmsnorm: axis NORMALIZE.
 *   norm params (gamma...): their single axis MAPs to x's axis.  batchnorm x: all MAP.
 *   transpose: in axis perm[i] MAPs to i.  reshape: see graph_axis_kind.
 *   concat: axis CONCAT.  slice: axis SLICE.  gather: table axis INDEX, ids axes MAP.
 *   pool: like conv2d's x with C MAP 1. */
int graph_axis_map(const struct graph *g, int32_t op, int slot, struct graph_axis *map);

/* ---- statistics ------------------------------------------------------------------------ */

struct graph_stats {
    int32_t ops;            /* all ops, sources and returns included */
    int32_t compute_ops;    /* ops other than source and return */
    int32_t sources, returns;
    int32_t tensors;
    int64_t edges;          /* producer->consumer uses: sum of input counts over all ops */
    int32_t max_fanout;     /* max over tensors of the number of uses (input slots) */
    int32_t treewidth_ub;   /* util/treedec ls_treewidth_ub of the undirected op graph:
                               one vertex per op, one edge per use; -1 for an empty graph */
    int64_t weight_elems;   /* elements of weight tensors */
    int64_t tensor_bytes;   /* bytes of all tensors */
    double flops;           /* 2*MACs of matmul/conv2d + 1 per output element elsewhere */
};

int graph_stats(const struct graph *g, struct graph_stats *st, struct ls_error *err);

/* Floating-point operations of one op (the convention of graph_stats.flops). */
double graph_op_flops(const struct graph *g, int32_t op);

#endif
