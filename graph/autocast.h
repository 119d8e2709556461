/* graph/autocast: the bf16 auto-cast of matmul and convolution operands (a graph pass).
 *
 * The Neuron compiler casts matmul operands to bf16 by default and accumulates in fp32
 * (PSUM). laysim's zoo models are fp32 graphs, so without this pass every matmul runs at
 * the PE's fp32 rate and weights take twice the HBM bytes. In mode MATMUL every fp32
 * operand of a matmul, batch_matmul or conv2d becomes bf16:
 *   - a weight read only by such ops is stored bf16 (cast at compile time);
 *   - a tensor read only by such ops and produced by an op that may write a narrower
 *     float (graph_kind_may_narrow: elementwise, normalizations, transpose...) or by a
 *     cast is written bf16 directly by its producer;
 *   - any other such operand (a graph input, a tensor also read by other ops or
 *     returned, the output of a matmul, reshape, slice...) gets ONE cast op to bf16,
 *     named "<tensor>.bf16" (".bf16.1", ".bf16.2"... when taken), right after its
 *     producer, shared by all its matmul/conv readers.
 * Matmul/conv outputs keep their dtype (fp32 accumulation; the evacuation writes it), and
 * operands of other dtypes are left alone. Every other op, tensor, name, role and attribute
 * is copied unchanged, in the same order. docs/costmodel.md "dtypes". */
#ifndef LS_GRAPH_AUTOCAST_H
#define LS_GRAPH_AUTOCAST_H

#include "graph/graph.h"
#include "util/error.h"

enum graph_autocast {
    GRAPH_AUTOCAST_NONE,     /* keep the model's dtypes */
    GRAPH_AUTOCAST_MATMUL,   /* matmul/conv operands in bf16 (the default of model_load) */
    GRAPH_AUTOCAST_COUNT
};

/* "none", "matmul"; "?" when out of range. */
const char *graph_autocast_name(enum graph_autocast m);
/* 0 and *out, or -1 when s is not a mode name. */
int graph_autocast_parse(const char *s, enum graph_autocast *out);

/* A new graph (caller frees; g is never changed, and may be freed afterwards): g with the
 * pass of `mode` applied; mode NONE gives a graph_equal copy. g must be valid
 * (graph_validate); the result is validated. LS_ERR_INPUT (a cast name that cannot be
 * made, a bad mode) or LS_ERR_NOMEM; *out is NULL on failure. */
int graph_autocast(const struct graph *g, enum graph_autocast mode, struct graph **out,
                   struct ls_error *err);

#endif
