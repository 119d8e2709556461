/* graph/inputs: the `--input NAME=1x3x224x224` specs importers use for the shapes of graph
 * inputs whose dims the model leaves unknown. zoo_opts.inputs holds the entries joined by
 * ';' ("ids=1x128;mask=1x128"). */
#ifndef LS_GRAPH_INPUTS_H
#define LS_GRAPH_INPUTS_H

#include <stdint.h>

#include "graph/graph.h"
#include "util/error.h"

/* Check every entry of spec (NULL or "" is fine): NAME=D1xD2..., dims in 1..GRAPH_MAX_DIM,
 * rank <= GRAPH_MAX_RANK (rank 0: "NAME="). LS_ERR_INPUT naming the entry. */
int graph_inputs_check(const char *spec, struct ls_error *err);

/* The dims given for input `name`: 1 and *rank, dims filled when spec names it, 0 when it
 * does not, LS_ERR_INPUT-negated (-1) with err set when its entry is malformed. */
int graph_inputs_find(const char *spec, const char *name, int *rank, int64_t *dims,
                      struct ls_error *err);

/* Every entry of spec must name one of the model's inputs names[0..n) (with tf_ports, "x:0"
 * names input "x" too). 0, or LS_ERR_INPUT naming the first unknown entry and listing the
 * model's inputs (file: for the message). */
int graph_inputs_known(const char *spec, const char *const *names, size_t n, int tf_ports,
                       const char *file, struct ls_error *err);

/* The same for one entry name name[0..len). */
int graph_input_known(const char *name, size_t len, const char *const *names, size_t n,
                      int tf_ports, const char *file, struct ls_error *err);

#endif
