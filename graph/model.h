/* graph/model: resolve a model argument into a graph. The one entry point every command
 * that accepts a model uses (`laysim graph MODEL`, and later commands):
 *
 *     zoo:NAME              a built-in zoo model (graph/zoo.h), scaled by opts
 *     path/to/config.json   a HuggingFace config (graph/hf.h), scaled by opts
 *     path/to/model.onnx    an ONNX model (graph/onnx.h): --input, --batch and --seq give
 *                           its unknown input dims; the other scaling options are rejected
 *     path/to/model.json    a TF.js graph model (graph/tfjs.h); --input, --batch/--image
 *                           fill its unknown input dims
 *     path/to/module.hlo    an XLA HLO text module (graph/hlo.h): a `.hlo` path, or any
 *                           file whose first token is `HloModule` (`.txt` dumps); static
 *                           shapes, so scaling options and --input are rejected
 *     path/to/file.lg       a graph file (graph/lg.h); scaling options are rejected
 *
 * then applies the bf16 auto-cast of matmul/conv operands (graph/autocast.h) unless
 * opts->autocast is GRAPH_AUTOCAST_NONE.
 *     -                     a graph file on stdin
 *
 * A path is taken as ONNX when it ends in ".onnx" or its content starts like a protobuf
 * ModelProto (graph/onnx.h onnx_sniff); as JSON when it ends in ".json" or its first
 * non-blank byte is '{': JSON with a top-level "modelTopology" or "weightsManifest" key is a
 * TF.js model, any other JSON a HuggingFace config; anything else is read as .lg. */
#ifndef LS_GRAPH_MODEL_H
#define LS_GRAPH_MODEL_H

#include "graph/graph.h"
#include "graph/zoo.h"
#include "util/error.h"

/* opts may be NULL (zoo_opts_init: no scaling, autocast matmul). Every source then goes
 * through the dtype pass opts->autocast (graph/autocast.h), so `--autocast` applies to .lg
 * files too. *out: a validated graph the caller frees (graph_free);
 * NULL on failure, with LS_ERR_INPUT for a bad name, file or option value (exit 2) and
 * LS_ERR_IO when the file cannot be read. */
int model_load(const char *spec, const struct zoo_opts *opts, struct graph **out,
               struct ls_error *err);

/* The model options, by their command-line names: the one list the CLI's options
 * (--NAME VALUE, cli/cli.h) and the library API's ("NAME=VALUE", laysim_model_load) are
 * spelled from. X(name) once per option, in this order. */
#define MODEL_OPTIONS(X) \
    X(layers) X(seq) X(batch) X(hidden) X(image) X(dtype) X(autocast) X(decode) X(input)
enum model_opt {
#define MODEL_OPT_ENUM_(n) MODEL_OPT_##n,
    MODEL_OPTIONS(MODEL_OPT_ENUM_)
#undef MODEL_OPT_ENUM_
    MODEL_NOPTS
};
extern const char *const model_opt_names[MODEL_NOPTS];

/* Set one option by its command-line name (model_opt_names) from text: layers, seq,
 * batch, hidden, image, decode (integers), dtype, autocast, and input (NAME=D1xD2...,
 * repeatable: appended with ';' to the text in *inputs, malloc'd and grown here, which
 * opts->inputs then points to; the caller frees *inputs after its last use of opts; NULL
 * inputs refuses the option). LS_ERR_INPUT naming the option for an unknown name or a bad
 * value. The one parser of these options: the CLI and the library API both call it. */
int model_opts_set(struct zoo_opts *opts, const char *name, const char *value, char **inputs,
                   struct ls_error *err);

/* 1 when any scaling option is set (--autocast is not one: it applies to every source). */
int model_opts_any(const struct zoo_opts *opts);

#endif
