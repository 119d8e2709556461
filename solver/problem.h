/* solver/problem: layout selection problems (.lsp) and solutions (.sol) in memory.
 *
 * A problem is a list of tensors (each with L admissible layouts, optional labels and an
 * LxL transpose-cost matrix) and a list of operators in topological order (kind, input
 * tensors as a multiset, an output tensor or none, and a non-empty list of configurations:
 * one layout per slot plus a cost). Slots of an op are its inputs in order, then its output
 * when it has one. The normative text format is in docs/design.md; reading notes in
 * docs/formats.md.
 *
 * Everything lives in the problem's own arena; ids are dense 0-based indices. Build a
 * problem either by reading a file (lsp_read / lsp_parse) or in memory:
 *
 *     struct lsp_problem *p = lsp_new();
 *     lsp_add_tensor(p, "x", 2, NULL, tr, &t, err);     // tr: 2x2 row-major, diag 0
 *     lsp_add_op(p, "src", "source", 0, NULL, t, &o, err);
 *     lsp_add_cfg(p, o, 0, (int32_t[]){0}, NULL, err);  // layouts of (inputs..., out)
 *     ...
 *     lsp_finish(p, err);                               // validates, builds use lists
 *
 * After lsp_finish the problem is read-only and may be shared by threads.
 */
#ifndef LS_SOLVER_PROBLEM_H
#define LS_SOLVER_PROBLEM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/arena.h"
#include "util/error.h"
#include "util/intern.h"
#include "solver/lsp_tie.h"

/* Costs are exact integers; the sum of all costs of a problem stays below 2^53. */
#define LSP_COST_LIMIT ((int64_t)1 << 53)

struct lsp_tensor {
    const char *name;
    int32_t nlayouts;        /* L >= 1 */
    const char **labels;     /* NULL or nlayouts names (arena) */
    int64_t tr0;             /* offset of the LxL matrix in problem->tr; -1 when L == 1 */
    int32_t producer;        /* op id; -1 until the producing op is added */
    int32_t line;            /* source line of the tensor line; 0 when built in memory */
};

struct lsp_op {
    const char *name;
    const char *kind;
    int32_t nin;             /* number of input slots */
    const int32_t *in;       /* nin tensor ids (arena); repeats allowed */
    int32_t out;             /* output tensor id or -1 */
    int32_t nslots;          /* nin + (out >= 0) */
    int32_t ncfg;            /* >= 1 after lsp_finish */
    int64_t cfg0;            /* global index of cfg 0 in problem->cfg_cost */
    int64_t lay0;            /* offset of cfg 0's slot layouts in problem->cfg_layout */
    int32_t line;            /* source line of the op line; 0 when built in memory */
};

struct lsp_problem {
    struct ls_arena arena;
    struct ls_intern tensor_names, op_names;  /* name id == tensor id / op id */

    int32_t ntensors, nops;
    struct lsp_tensor *tensors;
    struct lsp_op *ops;

    int64_t *tr;             /* all transpose matrices, concatenated */
    int64_t ntr;
    int64_t ncfg;            /* total configurations */
    int64_t *cfg_cost;       /* ncfg */
    int32_t *cfg_layout;     /* per op: ncfg * nslots layouts, cfg-major */
    int64_t nlayout;

    /* Derived by lsp_finish: the input slots reading each tensor, in (op, slot) order.
     * Uses of tensor t are use_op[i], use_slot[i] for use_off[t] <= i < use_off[t+1]. */
    int32_t *use_off, *use_op, *use_slot;
    int64_t cost_sum;        /* sum of every cost in the problem (< 2^53) */
    int32_t max_cfg;         /* largest ncfg of any op */
    int32_t max_layouts;     /* largest L of any tensor */
    int finished;
    /* The `# key: value` headers read from the file or set by the builder (model, target,
     * table, codegen); written back by lsp_write and copied into every .sol of it. */
    struct lsp_tie tie;

    size_t cap_tensors, cap_ops, cap_tr, cap_cfg, cap_layout;  /* builder bookkeeping */
};

/* ---- building ---------------------------------------------------------------------- */

/* NULL when out of memory. */
struct lsp_problem *lsp_new(void);
void lsp_free(struct lsp_problem *p);

/* Declare a tensor. labels: NULL or nlayouts names (copied). transpose: NULL or the
 * nlayouts x nlayouts matrix (copied); for L >= 2 it may be given later with
 * lsp_set_transpose, but before the tensor's producer is added. *id gets the tensor id. */
int lsp_add_tensor(struct lsp_problem *p, const char *name, int32_t nlayouts,
                   const char *const *labels, const int64_t *transpose, int32_t *id,
                   struct ls_error *err);
int lsp_set_transpose(struct lsp_problem *p, int32_t tensor, const int64_t *transpose,
                      struct ls_error *err);
/* Add an operator. Every input must already have its producer (topological order); out
 * (-1 for none) must be declared, with its transpose matrix, and not yet produced. */
int lsp_add_op(struct lsp_problem *p, const char *name, const char *kind, int32_t nin,
               const int32_t *in, int32_t out, int32_t *id, struct ls_error *err);
/* Add a configuration to op (currently: the most recently added op). layouts holds
 * op.nslots entries (inputs in order, then the output). *index (may be NULL) gets the
 * cfg index. */
int lsp_add_cfg(struct lsp_problem *p, int32_t op, int64_t cost, const int32_t *layouts,
                int32_t *index, struct ls_error *err);
/* Check the whole problem (every tensor produced, every op with a cfg, cost sum < 2^53)
 * and build the derived fields. Must be called once before solving or writing. */
int lsp_finish(struct lsp_problem *p, struct ls_error *err);

/* ---- access (valid after lsp_finish; the layout/cost accessors also before) -------- */

static inline int64_t lsp_cfg_cost(const struct lsp_problem *p, int32_t op, int32_t c)
{
    return p->cfg_cost[p->ops[op].cfg0 + c];
}
/* The nslots layouts of cfg c of op (inputs in order, then the output). */
static inline const int32_t *lsp_cfg_layouts(const struct lsp_problem *p, int32_t op, int32_t c)
{
    return p->cfg_layout + p->ops[op].lay0 + (int64_t)c * p->ops[op].nslots;
}
/* Layout of op's output under cfg c (-1 when the op has no output). */
static inline int32_t lsp_cfg_out_layout(const struct lsp_problem *p, int32_t op, int32_t c)
{
    const struct lsp_op *o = &p->ops[op];
    return o->out < 0 ? -1 : p->cfg_layout[o->lay0 + (int64_t)c * o->nslots + o->nin];
}
/* transpose[t][from][to] (0 when L == 1). */
static inline int64_t lsp_tr_cost(const struct lsp_problem *p, int32_t t, int32_t from,
                                  int32_t to)
{
    const struct lsp_tensor *x = &p->tensors[t];
    return x->tr0 < 0 ? 0 : p->tr[x->tr0 + (int64_t)from * x->nlayouts + to];
}
/* -1 when absent. */
int32_t lsp_find_tensor(const struct lsp_problem *p, const char *name, size_t n);
int32_t lsp_find_op(const struct lsp_problem *p, const char *name, size_t n);

/* ---- objective ------------------------------------------------------------------- */

/* The objective of docs/design.md for a full assignment cfg[op] (each in 0..ncfg-1).
 * Returns the total; op_part / tr_part (may be NULL) get the two parts. Pure: computes
 * every term from scratch, independently of any solver. */
int64_t lsp_eval(const struct lsp_problem *p, const int32_t *cfg, int64_t *op_part,
                 int64_t *tr_part);
/* Transpose cost charged on tensor t alone; *nconv (may be NULL) gets the number of
 * distinct conversions (requested layouts != producer layout). */
int64_t lsp_eval_tensor(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                        int32_t *nconv);
/* The layout that use i of a tensor (use_off[t] <= i < use_off[t+1]) requests under cfg. */
static inline int32_t lsp_use_layout(const struct lsp_problem *p, const int32_t *cfg,
                                     int32_t i)
{
    int32_t o = p->use_op[i];
    return lsp_cfg_layouts(p, o, cfg[o])[p->use_slot[i]];
}
/* 1 when some consumer slot of tensor t requests layout l under cfg. With the producer's
 * layout src, the objective charges tr[t][src][l] once for each such l != src. */
int lsp_tensor_requests(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                        int32_t l);
/* The layouts of an assignment per tensor, as `laysim solve --layouts` and the API's
 * laysim_solution_conversion list them (one definition for both). The layout tensor t is
 * produced in under cfg: */
int32_t lsp_tensor_layout(const struct lsp_problem *p, const int32_t *cfg, int32_t t);
/* Conversion i (0-based, in layout order) that the objective charges for tensor t under
 * cfg: its destination layout, and in *cost (may be NULL) tr[t][produced][destination];
 * -1 when t has at most i conversions. */
int32_t lsp_tensor_conversion(const struct lsp_problem *p, const int32_t *cfg, int32_t t,
                              int32_t i, int64_t *cost);
/* The label of layout l of tensor t, or its index written into buf (n >= 12) when the
 * tensor has no labels. */
const char *lsp_layout_label(const struct lsp_problem *p, int32_t t, int32_t l, char *buf,
                             size_t n);
/* 0 when every cfg[op] is a valid index, else LS_ERR_INPUT naming the op. */
int lsp_check_assignment(const struct lsp_problem *p, const int32_t *cfg,
                         struct ls_error *err);

/* FNV-1a-64 over the problem's content (names, labels, transpose matrices, ops, every
 * configuration's cost and layouts; not comments): equal for two files that differ only
 * in comments or spacing. The problem-hash header of .sol files. */
uint64_t lsp_problem_hash(const struct lsp_problem *p);

/* ---- .lsp text ------------------------------------------------------------------- */

/* Parse a whole .lsp text (file is used in messages). On success *out is a finished
 * problem; on failure *out is NULL and err names file:line:col. */
int lsp_parse(const char *file, const char *buf, size_t len, struct lsp_problem **out,
              struct ls_error *err);
/* Read a file ("-" = stdin) and parse it. */
int lsp_read(const char *path, struct lsp_problem **out, struct ls_error *err);
/* Write in the normative format (a finished problem). lsp_write is atomic. */
int lsp_write_fp(const struct lsp_problem *p, FILE *fp);
int lsp_write(const struct lsp_problem *p, const char *path, struct ls_error *err);

/* ---- solutions (.sol) ---------------------------------------------------------------- */

enum lsp_status { LSP_UNKNOWN = 0, LSP_FEASIBLE = 1, LSP_OPTIMAL = 2 };
const char *lsp_status_name(int status);   /* "unknown", "feasible", "optimal" */

struct lsp_solution {
    int status;              /* enum lsp_status */
    int32_t nops;            /* length of cfg; 0 when there is no assignment */
    int32_t *cfg;            /* malloc'd; cfg[op] = configuration index; NULL when none */
    int64_t cost;            /* the objective of cfg (as claimed, when read from a file) */
    int has_bound;
    int64_t bound;           /* best proven lower bound, <= cost; == cost when optimal */
    int32_t cost_line;       /* line of the cost in the .sol it was read from; 0 otherwise */
    struct lsp_tie tie;      /* the headers read from the .sol (empty when it has none) */
};

void lsp_solution_init(struct lsp_solution *s);
void lsp_solution_free(struct lsp_solution *s);
/* Allocate cfg for p->nops ops (zeroed). */
int lsp_solution_alloc(struct lsp_solution *s, const struct lsp_problem *p,
                       struct ls_error *err);

/* Parse a .sol against its problem: names must be ops of p, each exactly once.
 * Checks syntax and the rules of the format (cfg index in range, bound <= cost,
 * bound == cost when optimal) but not that cost is the true objective: that is
 * lsp_solution_verify's job. */
int lsp_sol_parse(const struct lsp_problem *p, const char *file, const char *buf, size_t len,
                  struct lsp_solution *s, struct ls_error *err);
int lsp_sol_read(const struct lsp_problem *p, const char *path, struct lsp_solution *s,
                 struct ls_error *err);
int lsp_sol_write_fp(const struct lsp_problem *p, const struct lsp_solution *s, FILE *fp);
int lsp_sol_write(const struct lsp_problem *p, const struct lsp_solution *s, const char *path,
                  struct ls_error *err);
/* lsp_sol_write writes p->tie and the problem-hash of p before the body (when s has an
 * assignment: `unknown` without one stays two lines). */
/* Compare the headers of a .sol (s->tie) with those of the problem it is used with (p->tie
 * and p's problem-hash): LSP_TIE_UNCHECKED when s records none, LSP_TIE_MISMATCH with the
 * differences in what (lsp_tie_mismatch), else LSP_TIE_MATCH. */
enum { LSP_TIE_MATCH = 0, LSP_TIE_MISMATCH = 1, LSP_TIE_UNCHECKED = 2 };
int lsp_sol_tie_check(const struct lsp_problem *p, const struct lsp_solution *s, char *what,
                      size_t n);
/* The headers lsp_sol_write gives a solution of p: p->tie plus p's problem-hash. */
void lsp_sol_tie_of(const struct lsp_problem *p, struct lsp_tie *out);
/* Recompute the objective of s and compare with s->cost (and the bound). */
int lsp_solution_verify(const struct lsp_problem *p, const struct lsp_solution *s,
                        struct ls_error *err);

#endif
