/* graph/import: the operator handlers of the ONNX importer (onnx_ops.c, onnx_shape.c,
 * onnx_nn.c, onnx_rnn.c, onnx_flow.c, onnx_move.c, onnx_detect.c, onnx_conv3d.c). Each
 * imports x->node and binds its outputs; 0 or nonzero (error set). */
#ifndef LS_GRAPH_IMPORT_ONNX_OPS_H
#define LS_GRAPH_IMPORT_ONNX_OPS_H

#include "graph/import/onnx_int.h"

/* The sizes of shape s into d (s->rank of them). */
void oxo_dims_of(const struct graph_shape *s, int64_t *d);
/* The tensor of required input k (ox_fail when absent). */
int32_t oxo_req(struct ox *x, int k);
/* The static shape value_info (or a graph output) declares for output k: 0 or -1. */
int oxo_value_info(struct ox *x, int k, int *rank, int64_t *dims);
int32_t oxo_reshape_to(struct ox *x, int32_t t, int rank, const int64_t *dims,
                       const char *suffix);
/* Resize the axes of t to out[] by gathering rows (nearest-neighbour index tables). */
int32_t oxo_resize_to(struct ox *x, int32_t t, const int64_t *out);
int32_t oxo_pad(struct ox *x, int32_t t, const int64_t *before, const int64_t *after,
                const char *suffix);
int32_t oxo_broadcast(struct ox *x, int32_t t, int rank, const int64_t *dims, const char *sfx);
int oxo_broadcast_shape(struct ox *x, int ra, const int64_t *a, int rb, const int64_t *b,
                        int *ro, int64_t *o);
int oxo_slice_params(struct ox *x, int rank, const int64_t *dims, int64_t *begin,
                     int64_t *count, int64_t *step, int allow_empty);

int oxo_reshape(struct ox *x);
int oxo_transpose(struct ox *x);
int oxo_concat(struct ox *x);
int oxo_slice(struct ox *x);
int oxo_split(struct ox *x);
int oxo_gather(struct ox *x);
int oxo_pad_node(struct ox *x);
int oxo_resize(struct ox *x);
int oxo_tile(struct ox *x);
int oxo_expand(struct ox *x);

int oxo_matmul(struct ox *x);
int oxo_gemm(struct ox *x);
int oxo_einsum(struct ox *x);
int oxo_conv(struct ox *x);
int oxo_conv_transpose(struct ox *x);
int oxo_pool(struct ox *x);
int oxo_global_pool(struct ox *x);
int oxo_batchnorm(struct ox *x);
int oxo_layernorm(struct ox *x);
int oxo_instancenorm(struct ox *x);
/* onnx_rnn.c */
int oxo_lstm(struct ox *x);
/* onnx_flow.c: If on a constant condition, Loop with a constant trip count (unrolled). */
int oxo_if(struct ox *x);
int oxo_loop(struct ox *x);
/* onnx_move.c */
int oxo_depth_space(struct ox *x);
int oxo_trilu(struct ox *x);
/* onnx_detect.c: detection post-processing bounded by its maximum size */
int oxo_nonzero(struct ox *x);
int oxo_topk(struct ox *x);
int oxo_gather_nd(struct ox *x);
int oxo_nms(struct ox *x);
int oxo_roi_align(struct ox *x);
/* onnx_conv3d.c: Conv of rank 5 (called by oxo_conv) */
int oxo_conv3d(struct ox *x);
int oxo_gru(struct ox *x);
int oxo_rnn(struct ox *x);

#endif
