/* graph/onnx: build a graph from an ONNX model (`.onnx`, a protobuf ModelProto).
 *
 * Only shapes are read: initializer dims (their data only for the small integer tensors
 * that shape arithmetic needs), graph inputs and value_info. Every ONNX operator is mapped
 * onto the IR's op kinds (graph.h) with shape inference; shape subgraphs (Shape, Constant,
 * ConstantOfShape, Gather/Concat/Unsqueeze... of constants) are evaluated at import time
 * and produce no ops. docs/import.md lists the operators, the shape rules and every
 * approximation. Unknown input dims come from opts->inputs ("NAME=1x3x224x224;..."), else
 * axis 0 from opts->batch (default 1) and sequence-like axes from opts->seq (default 128). */
#ifndef LS_GRAPH_ONNX_H
#define LS_GRAPH_ONNX_H

#include <stddef.h>

#include "graph/graph.h"
#include "graph/zoo.h"
#include "util/error.h"

/* Build the graph of the ModelProto in buf[0..len) (file names it in messages; opts may
 * be NULL). LS_ERR_INPUT naming the byte offset of a malformed protobuf, or the node
 * (name, op_type) of an unsupported operator, a bad attribute or an unresolved dim.
 * *out: a validated graph the caller frees. */
int onnx_import(const char *file, const void *buf, size_t len, const struct zoo_opts *opts,
                struct graph **out, struct ls_error *err);

/* 1 when buf looks like a serialized ModelProto (its first field is ir_version). */
int onnx_sniff(const void *buf, size_t len);

/* The supported op_types, space separated (docs/import.md has the mapping). */
const char *onnx_supported_ops(void);

#endif
