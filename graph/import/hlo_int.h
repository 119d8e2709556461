/* graph/import: XLA HLO text importer internals, shared by hlo_parse.c (module text ->
 * computations and instructions), hlo_attr.c (attribute values: integer lists, window,
 * dim_labels, slice, padding), hlo_build.c (values, liveness, calls, tuples, outputs) and
 * hlo_ops.c (the lowering of each opcode onto the IR). */
#ifndef LS_GRAPH_IMPORT_HLO_INT_H
#define LS_GRAPH_IMPORT_HLO_INT_H

#include <stdint.h>

#include "graph/graph.h"
#include "graph/hlo.h"
#include "util/arena.h"

/* A piece of the text and where it starts (1-based line and column). */
struct hlo_span {
    const char *s;
    int n;
    int line, col;
};

/* An array shape `f32[8,128]{1,0}` or a tuple shape `(f32[], s32[4])`. */
struct hlo_shape {
    int tuple;                       /* 1: nelems element shapes, no dims */
    enum ls_dtype dt;
    int rank;
    int64_t dims[GRAPH_MAX_RANK];
    int nlayout;                     /* minor-to-major entries; -1: no layout given */
    int layout[GRAPH_MAX_RANK];
    int nelems;
    struct hlo_shape *elems;
};

struct hlo_attr {
    struct hlo_span key, val;        /* val: the raw text, braces and quotes included */
};

struct hlo_instr {
    struct hlo_span name, opcode;
    struct hlo_shape shape;
    int root;
    int nops;
    struct hlo_span *ops;            /* operand names (no '%') */
    int *opi;                        /* the instruction each operand names */
    struct hlo_span args;            /* the text between the parentheses */
    int nattrs;
    struct hlo_attr *attrs;
};

struct hlo_comp {
    struct hlo_span name;
    int entry;
    int nins;
    struct hlo_instr *ins;
    int root;                        /* ROOT, else the last instruction */
};

struct hlo_module {
    const char *file;
    struct hlo_span name;
    int ncomps;
    struct hlo_comp *comps;
    int entry;
    struct ls_arena arena;
};

/* Parse buf into m (m->arena holds everything; hlo_module_free releases it). Checks the
 * syntax, the opcode names, operands defined before use, called computations defined
 * before their callers, one ENTRY, layouts that are permutations of the shape's axes. */
int hlo_parse(const char *file, const char *buf, size_t len, struct hlo_module *m,
              struct ls_error *err);
void hlo_module_free(struct hlo_module *m);
int hlo_opcode_known(const char *s, int n);

/* Error at a span: LS_ERR_INPUT, "FILE:LINE:COL: message". */
int hlo_fail_at(const struct hlo_module *m, const struct hlo_span *at, struct ls_error *err,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

int hlo_span_is(const struct hlo_span *s, const char *lit);
const struct hlo_attr *hlo_attr_find(const struct hlo_instr *in, const char *key);

/* ---- attribute values (hlo_attr.c); each 0, or LS_ERR_INPUT located in the value ---- */

/* `{1,2}` (or `{}`): up to max integers. */
int hlo_attr_ints(const struct hlo_module *m, const struct hlo_attr *a, int64_t *v, int max,
                  int *n, struct ls_error *err);
/* `window={size=3x3 stride=2x2 pad=1_1x0_1 rhs_dilate=1x1 lhs_dilate=1x1}`: per window
 * dim (2 spatial dims of a convolution, every dim of a reduce-window): size, stride, pad
 * lo/hi, dilations (defaults 1, 0, 1). */
struct hlo_window {
    int n;
    int64_t size[GRAPH_MAX_RANK], stride[GRAPH_MAX_RANK], lo[GRAPH_MAX_RANK],
        hi[GRAPH_MAX_RANK], rdil[GRAPH_MAX_RANK], ldil[GRAPH_MAX_RANK];
};
int hlo_attr_window(const struct hlo_module *m, const struct hlo_attr *a, struct hlo_window *w,
                    struct ls_error *err);
/* `b01f_01io->b01f`: for each of the three parts, the axis of b/f (i/o), 0, 1 ...
 * axes[part][0] = batch (input) / output feature (filter), [1] = feature / input feature,
 * [2..] spatial 0, 1. rank: the axes of each part (all equal). */
struct hlo_dimlabels {
    int rank;
    int axes[3][GRAPH_MAX_RANK];
};
int hlo_attr_dimlabels(const struct hlo_module *m, const struct hlo_attr *a,
                       struct hlo_dimlabels *d, struct ls_error *err);
/* `slice={[0:8], [2:10:2]}`: begin, end, step per dim (n must equal rank). */
int hlo_attr_slice(const struct hlo_module *m, const struct hlo_attr *a, int rank,
                   int64_t *begin, int64_t *end, int64_t *step, struct ls_error *err);
/* `padding=0_0x1_1_0`: low, high, interior per dim (n must equal rank). */
int hlo_attr_padding(const struct hlo_module *m, const struct hlo_attr *a, int rank,
                     int64_t *lo, int64_t *hi, int64_t *interior, struct ls_error *err);
/* `to_apply=%add` / `calls=%fused`: the computation index (defined before `before`). */
int hlo_attr_comp(const struct hlo_module *m, const struct hlo_attr *a, int before, int *comp,
                  struct ls_error *err);

/* ---- building (hlo_build.c, hlo_ops.c) ----------------------------------------------- */

enum hv_kind { HV_NONE, HV_TENSOR, HV_CONST, HV_TUPLE };

/* The value of one instruction. A tensor may be a pending broadcast: its shape has the
 * rank of `full` with size-1 axes where `full` is larger (elementwise consumers broadcast
 * it; others materialize it with an add of a zero block). A constant becomes a weight of
 * its (possibly pending) shape on first use. */
struct hv {
    enum hv_kind kind;
    int32_t t;
    enum ls_dtype dt;
    struct graph_shape full;
    int64_t cdims[GRAPH_MAX_RANK];   /* HV_CONST: its shape (rank full.rank) */
    const char *name;                /* HV_CONST: name for the weight */
    int nelems;
    struct hv *elems;                /* HV_TUPLE */
    /* HV_TENSOR of full size: the value is transpose(t, tperm) when tp (an importer-made
     * NCHW result whose transpose back is made only for a reader that needs it) */
    int tp;
    int tperm[GRAPH_MAX_RANK];
    int32_t back;                    /* tp: the transpose back once made (back + 1; 0: none) */
};

struct hlo_ctx {
    const struct hlo_module *m;
    struct graph *g;
    struct ls_error *err;
    int depth;                       /* call nesting */
    char prefix[256];                /* names of inlined instructions: CALLER. */
    const struct hlo_comp *comp;     /* being emitted */
    const struct hlo_instr *cur;     /* being lowered, for messages */
    unsigned char *weight_param;     /* entry parameters read as dot/conv weights */
    struct ls_arena arena;           /* tuple elements */
    unsigned char **live;            /* per computation: instructions its root needs */
};

/* The last op of the current instruction: kind over inputs with attrs (NULL: defaults),
 * output dtype dt (a narrower or accumulating dtype when the kind allows it), named after
 * the instruction plus suffix. */
int32_t hlo_op(struct hlo_ctx *c, enum graph_op_kind kind, const int32_t *in, int n,
               const struct graph_attrs *at, enum ls_dtype dt, const char *suffix);

/* Fail naming the current instruction: "instruction 'x' (opcode): ..." */
int hlo_fail(struct hlo_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Name for an op of the current instruction: prefix + instruction name + suffix (unique). */
const char *hlo_name(struct hlo_ctx *c, const char *suffix, char *buf, size_t n);
/* The graph tensor of v with exactly v's full shape (materializing). -1 on error. */
int32_t hlo_tensor(struct hlo_ctx *c, struct hv *v);
/* The graph tensor of v, possibly smaller than full (pending broadcast). */
int32_t hlo_tensor_lazy(struct hlo_ctx *c, struct hv *v);
/* Set out to tensor t whose HLO shape is `shape`; checks t's shape and dtype against it
 * (equal, or broadcastable when pending is 1). */
int hlo_set(struct hlo_ctx *c, struct hv *out, int32_t t, const struct hlo_shape *shape,
            int pending);
/* Set out to transpose(t, perm) without making it (a pending transpose); checks shapes. */
int hlo_set_perm(struct hlo_ctx *c, struct hv *out, int32_t t, const int *perm,
                 const struct hlo_shape *shape);
/* transpose(v, perm) as one tensor: composed with v's pending transpose (none when the
 * two cancel). */
int32_t hlo_tensor_perm(struct hlo_ctx *c, struct hv *v, const int *perm, const char *suffix);
/* Emit computation comp with its parameters bound to args (NULL for the entry). */
int hlo_emit_comp(struct hlo_ctx *c, int comp, struct hv *args, int nargs, struct hv *result);

/* Lower one (non-structural) instruction; ops: its operands' values. */
int hlo_lower(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops, struct hv *out);
/* Whether the lowering of opcode reads operand i (select reads no predicate...). */
int hlo_reads_operand(const struct hlo_instr *in, int i);
/* Explicit zero padding of axis `axis` of t: lo before, hi after (negative: slice). */
int32_t hlo_pad_axis(struct hlo_ctx *c, int32_t t, int axis, int64_t lo, int64_t hi);
/* Transpose x by perm (none for the identity); the op is named after the instruction. */
int32_t hlo_transpose(struct hlo_ctx *c, int32_t x, const int *perm, const char *suffix);
/* convolution (hlo_conv.c): dim_labels and window onto conv2d between transposes. */
int hlo_convolution(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                    struct hv *out);
/* reduce-window (hlo_conv.c): a 2-D max or sum window -> pool_max / pool_avg. */
int hlo_reduce_window(struct hlo_ctx *c, const struct hlo_instr *in, struct hv *ops,
                      struct hv *out);
/* IR shape of an HLO array shape. */
void hlo_graph_shape(const struct hlo_shape *s, struct graph_shape *g);

#endif
