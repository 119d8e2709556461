/* solver/gen: generators of layout selection problems for tests and benchmarks:
 * realistic shapes (transformer, cnn), uniform random DAGs, and the paper's two
 * NP-hardness gadgets (3-SAT clause operators, odd-cycle-transversal matmuls).
 * Deterministic: same options, same problem. */
#ifndef LS_SOLVER_GEN_H
#define LS_SOLVER_GEN_H

#include <stdint.h>

#include "solver/problem.h"

enum lsp_gen_shape {
    LSP_GEN_TRANSFORMER,
    LSP_GEN_CNN,
    LSP_GEN_RANDOM,
    LSP_GEN_SAT,
    LSP_GEN_OCT
};

/* -1 when unknown. */
int lsp_gen_shape_parse(const char *name);

/* The random shape's defaults (`laysim gen --layouts/--cfgs/--fanin` spell their help
 * from them). */
#define LSP_GEN_DEFAULT_LAYOUTS 3
#define LSP_GEN_DEFAULT_CFGS 6
#define LSP_GEN_DEFAULT_FANIN 3
#define LSP_GEN_DEFAULT_COST 20

struct lsp_gen_opts {
    int shape;               /* enum lsp_gen_shape */
    int32_t ops;             /* number of operators (exact for every shape) */
    uint64_t seed;
    /* random shape only (0 = the LSP_GEN_DEFAULT_ value below): */
    int32_t max_layouts;
    int32_t max_cfg;
    int32_t max_inputs;
    int64_t max_cost;
    /* Windowed random DAG (random shape only; 0 = off, the uniform DAG above): each op
     * after the first reads 1..max_inputs distinct tensors among the last `window`
     * tensors produced, so the op graph's width bound stays near the window whatever the
     * size. max_fanout > 0 (window only) retires a tensor once it has that many consumer
     * ops; 0 = no cap. */
    int32_t window;
    int32_t max_fanout;
};

void lsp_gen_opts_init(struct lsp_gen_opts *o);
int lsp_gen(const struct lsp_gen_opts *o, struct lsp_problem **out, struct ls_error *err);

/* 3-SAT gadget of a CNF formula: nvars variables (1..nvars), clause i has the literals
 * lits[off[i] .. off[i+1]) (DIMACS style: +v / -v). One source op per variable (two
 * layouts T=0, F=1, cost 0), one op per clause whose cfgs are all layout tuples of its
 * inputs, cost 0 when the tuple satisfies the clause and 1 otherwise; transposes cost 1.
 * Optimum 0 iff the formula is satisfiable. */
int lsp_gen_sat(int32_t nvars, int32_t nclauses, const int32_t *off, const int32_t *lits,
                struct lsp_problem **out, struct ls_error *err);
#define LSP_GEN_SAT_MAX_LITS 20 /* literals per clause: a clause op has 2^k cfgs */
/* The same from a DIMACS CNF file ('c' comments, 'p cnf V C', clauses ending in 0). */
int lsp_gen_sat_file(const char *path, struct lsp_problem **out, struct ls_error *err);
/* Random 3-SAT with a planted assignment (so satisfiable): ops = nvars + nclauses. */
int lsp_gen_sat_random(int32_t ops, uint64_t seed, struct lsp_problem **out,
                       struct ls_error *err);
/* Odd-cycle-transversal gadget of a graph: one source per vertex (layouts A=0, B=1, cost
 * 0), one matmul per edge (u, v) = edges[2i], edges[2i+1] with the two cfgs reading its
 * inputs in different layouts (cost 0; equal layouts are infeasible, so absent);
 * transposes cost 1. Optimum = minimum odd cycle transversal. */
int lsp_gen_oct(int32_t nverts, int32_t nedges, const int32_t *edges,
                struct lsp_problem **out, struct ls_error *err);
/* The same from an edge-list file: the vertex count, then "u v" per edge (0-based). */
int lsp_gen_oct_file(const char *path, struct lsp_problem **out, struct ls_error *err);
int lsp_gen_oct_random(int32_t ops, uint64_t seed, struct lsp_problem **out,
                       struct ls_error *err);

#endif
