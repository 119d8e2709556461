/* graph: private definitions shared by the graph/ sources. */
#ifndef LS_GRAPH_GRAPH_INT_H
#define LS_GRAPH_GRAPH_INT_H

#include "graph/graph.h"
#include "util/arena.h"
#include "util/intern.h"
#include "util/vec.h"

struct graph {
    const char *name;                   /* interned, "" when unnamed */
    struct ls_intern strings;           /* names and roles */
    struct ls_arena arena;              /* op input arrays */
    LS_VEC(struct graph_tensor) tensors;
    LS_VEC(struct graph_op) ops;
    LS_VEC(int32_t) tensor_by_str;      /* interned string id -> tensor id or -1 */
    LS_VEC(int32_t) op_by_str;          /* interned string id -> op id or -1 */
    char prefix[128];
    int failed;
    struct ls_error err;                /* sticky builder error */
};

/* Name checks shared by the builder and the reader. */
int graph_name_ok(const char *s, size_t n);      /* tensor names */
int graph_role_ok(const char *s, size_t n);      /* dimension role names */

/* Axis map of a would-be op (inputs + attrs + output shape), used by graph_axis_map and by
 * role propagation in graph_infer. Returns the rank of the slot's input or -1. */
int graph_axis_map_raw(const struct graph *g, enum graph_op_kind kind, const int32_t *inputs,
                       int ninputs, const struct graph_attrs *at, const struct graph_shape *out,
                       int slot, struct graph_axis *map);

/* Kinds whose output dtype may differ from the inputs' (accumulating ops). */
int graph_kind_free_dtype(enum graph_op_kind k);

/* "[4,8]" / "[batch:1,seq:8]" into buf (for messages and the writer). */
const char *graph_shape_str(const struct graph_shape *s, int with_roles, char *buf, size_t n);

/* The attributes of an op as written in .lg files and JSON, in a fixed order:
 * key and 1..GRAPH_MAX_RANK integer values. Returns the count (<= GRAPH_ATTR_MAX). */
#define GRAPH_ATTR_MAX 8
struct graph_attr_kv {
    const char *key;
    int n;
    int64_t v[GRAPH_MAX_RANK];
};
int graph_attr_list(const struct graph *g, const struct graph_op *op, struct graph_attr_kv *kv);

#endif
