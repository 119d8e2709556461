/* graph/hf: build a graph from a HuggingFace `config.json`.
 *
 * Supported model_types: bert albert electra roberta xlm-roberta bart gpt2 llama mistral
 * qwen2 qwen3 gemma gemma2 gemma3_text olmo olmo2 olmoe mixtral qwen2_moe whisper vit
 * resnet perceiver musicgen paligemma. Each maps onto a zoo family (graph/zoo.h); fields
 * the file leaves out keep the values of that type's base zoo model (docs/zoo.md lists the
 * base of every type and the fields read). Sequence length, batch and the other scaling
 * options come from struct zoo_opts, never from the file. */
#ifndef LS_GRAPH_HF_H
#define LS_GRAPH_HF_H

#include <stddef.h>

#include "graph/graph.h"
#include "graph/zoo.h"
#include "util/error.h"

/* Fill *a from the JSON text buf[0..len) (file names it in messages). LS_ERR_INPUT for a
 * JSON syntax error (file:line:col), a missing model_type, an unsupported model_type, or a
 * field of the wrong type or out of range (the message names the field). */
int hf_arch_parse(const char *file, const char *buf, size_t len, struct zoo_arch *a,
                  struct ls_error *err);
/* Read path, parse, apply opts (may be NULL), build. *out: a validated graph to free. */
int hf_load_file(const char *path, const struct zoo_opts *opts, struct graph **out,
                 struct ls_error *err);
/* The supported model_types, space separated. */
const char *hf_supported_types(void);

#endif
