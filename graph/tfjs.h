/* graph/tfjs: build a graph from a TensorFlow.js graph model (`model.json` with
 * `modelTopology.node` and `weightsManifest`).
 *
 * Only shapes are imported: weight shapes come from the manifest, and the only weight bytes
 * ever read are those of small integer/float constants that shapes depend on (Reshape
 * targets, Transpose perms, Pad amounts, reduction axes...), looked up in the .bin shards
 * next to model.json. NHWC tensors stay NHWC; ops the IR has no kind for are lowered onto
 * the IR's kinds (docs/import.md, "TensorFlow.js", lists every lowering and approximation).
 *
 * Unknown input dims (-1): axis 0 takes opts->batch, every other one opts->image, unless
 * opts->inputs names the input with a full shape (the hook `--input NAME=shape` fills).
 * With opts->batch_set, a declared batch of 1 takes opts->batch too. */
#ifndef LS_GRAPH_TFJS_H
#define LS_GRAPH_TFJS_H

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "util/error.h"

#define TFJS_DEFAULT_IMAGE 224

/* A full shape for one graph input, by its node name ("input" or "input:0"). */
struct tfjs_input_shape {
    const char *name;
    int rank;
    int64_t dims[GRAPH_MAX_RANK];
    int has_value;   /* --input NAME=DIMS:VALUE: a constant, every element value */
    double value;
};

struct tfjs_opts {
    int64_t batch;                          /* for a -1 axis 0 (default 1) */
    int batch_set;  /* batch was asked for (--batch): it also replaces a declared axis 0 of 1
                       (rank >= 2), and no input able to take it is an error (graph/inputs.h) */
    int64_t image;                          /* for any other -1 dim (default 224) */
    const struct tfjs_input_shape *inputs;  /* overrides, may be NULL */
    size_t ninputs;
};

void tfjs_opts_init(struct tfjs_opts *o);

/* 1 when buf[0..len) is a JSON object with a top-level "modelTopology" or
 * "weightsManifest" key (a TF.js model, not a HuggingFace config). */
int tfjs_is_model(const char *buf, size_t len);

/* Import the model.json text buf[0..len). file: its path (for messages and to find the
 * weight shards beside it; may be a name without a directory). opts may be NULL.
 * *out: a validated graph to free. LS_ERR_INPUT (exit 2) for malformed JSON (file:line:col),
 * a field of the wrong type, an unknown input, a cycle, an unsupported op or an unresolved
 * dim, naming the node (name and op). */
int tfjs_import(const char *file, const char *buf, size_t len, const struct tfjs_opts *opts,
                struct graph **out, struct ls_error *err);

#endif
