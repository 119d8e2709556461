/* graph/lg: the .lg graph text format (docs/formats.md), and DOT / JSON exports.
 * graph_write output read back by graph_read gives a graph_equal graph. */
#ifndef LS_GRAPH_LG_H
#define LS_GRAPH_LG_H

#include <stddef.h>
#include <stdio.h>

#include "graph/graph.h"
#include "util/error.h"

struct json_t;

/* Parse buf[0..len) (file names the source in messages). On success *out is a validated
 * graph the caller frees; on failure *out is NULL and err says file:line:col and what was
 * expected (LS_ERR_INPUT), or LS_ERR_NOMEM. */
int graph_read(const char *file, const char *buf, size_t len, struct graph **out,
               struct ls_error *err);
/* Read a file ("-" = stdin). */
int graph_read_file(const char *path, struct graph **out, struct ls_error *err);

/* Write the .lg text of g (sources first, then ops in id order, then outputs).
 * The graph must be valid (graph_validate). Returns 0 or LS_ERR_IO. */
int graph_write(const struct graph *g, FILE *fp, struct ls_error *err);
/* Write atomically to path ("-" = stdout). */
int graph_write_file(const struct graph *g, const char *path, struct ls_error *err);

/* Graphviz DOT: one node per op, one edge per use labelled with the tensor and shape. */
int graph_write_dot(const struct graph *g, FILE *fp, struct ls_error *err);

/* JSON: {"name", "tensors": [...], "ops": [...], "outputs": [...]}; NULL when out of memory. */
struct json_t *graph_to_json(const struct graph *g);
/* {"ops", "compute_ops", "sources", "returns", "tensors", "edges", "max_fanout",
 *  "treewidth_ub", "weight_elems", "tensor_bytes", "flops"} */
struct json_t *graph_stats_to_json(const struct graph_stats *st);

#endif
