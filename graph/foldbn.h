/* graph/foldbn: fold inference batchnorms into the convolution before them (a graph pass).
 *
 * An inference compiler folds a batchnorm that follows a convolution into it: the scale
 * into the weights (at compile time) and the shift into a per-channel bias added when the
 * accumulator is evacuated from PSUM (the same instruction as a plain evacuation). A
 * batchnorm is folded when its input is the output of a conv2d read by nothing else and
 * it normalizes along the conv output's channel axis (1); the conv then writes the
 * batchnorm's output tensor (its name, dtype and roles) and the batchnorm, with the
 * scale/shift weights read by nothing else, disappears. Everything else is copied
 * unchanged, in the same order. docs/costmodel.md "Graph passes". */
#ifndef LS_GRAPH_FOLDBN_H
#define LS_GRAPH_FOLDBN_H

#include "graph/graph.h"
#include "util/error.h"

/* A new validated graph (caller frees; g is never changed): g with its foldable
 * batchnorms folded. g must be valid. LS_ERR_NOMEM or LS_ERR_INPUT; *out NULL then. */
int graph_fold_batchnorm(const struct graph *g, struct graph **out, struct ls_error *err);

#endif
