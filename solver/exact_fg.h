/* solver/exact_fg: the cost-function network behind the `exact` solver (internal).
 *
 * Variables (docs/exact.md):
 *   x_o      one per op: its configuration, duplicates of a slot-layout tuple merged
 *            (the cheapest, lowest index, represents them);
 *   p_t      one per tensor with L >= 2 and at least one consumer: its producer layout;
 *   y_{t,l}  one per tensor with >= 2 consumer ops and per layout l some consumer may
 *            request: "layout l of t is requested" (binary).
 * Cost functions are dense tables over a few variables (EX_INF = infeasible):
 *   unary op cost on x_o; x_P -> p_t (equality); for a single-consumer tensor
 *   (p_t, x_c) = transposes to the distinct layouts c requests; otherwise
 *   (p_t, y_{t,l}) = y * tr[p][l] and (x_c, y_{t,l}) = INF when c requests l but y = 0.
 * Minimising the sum over all variables gives exactly the .lsp objective. */
#ifndef LS_SOLVER_EXACT_FG_H
#define LS_SOLVER_EXACT_FG_H

#include <stdint.h>

#include "solver/problem.h"
#include "util/error.h"

#define EX_INF ((int64_t)1 << 60)

/* a + b, saturating at EX_INF (both operands in [0, EX_INF]). */
static inline int64_t ex_add(int64_t a, int64_t b)
{
    int64_t s = a + b;
    return s > EX_INF ? EX_INF : s;
}

struct ex_fn {
    int32_t arity;
    int32_t *scope;          /* ascending variable ids */
    int64_t *stride;         /* last scope variable fastest */
    int64_t size;            /* table entries */
    int64_t *tab;
};

enum ex_var_kind { EX_VAR_OP, EX_VAR_PROD, EX_VAR_REQ };

struct ex_var {
    int32_t dom;
    int32_t kind;            /* enum ex_var_kind */
    int32_t ref;             /* op id (EX_VAR_OP) or tensor id */
};

struct ex_fg {
    int32_t nvars;
    size_t capvars;
    struct ex_var *var;
    int32_t nfn;
    size_t capfn;
    struct ex_fn *fn;
    int32_t *xvar;           /* per op: its x variable */
    int32_t *xcfg_off;       /* per op: offset into xcfg (nops + 1) */
    int32_t *xcfg;           /* value of x_o -> representative cfg index */
    /* connected components of the variable interaction graph */
    int32_t ncomp;
    int32_t *comp_of_var;    /* nvars */
    int32_t *comp_var_off, *comp_var;  /* variables of each component, ascending */
    int32_t *comp_fn_off, *comp_fn;    /* functions of each component */
    int32_t *comp_op_off, *comp_op;    /* ops of each component */
};

int ex_fg_build(const struct lsp_problem *p, struct ex_fg *g, struct ls_error *err);
void ex_fg_free(struct ex_fg *g);

/* Allocate f over the given variables (any order, distinct), every entry = fill.
 * Returns 0 or LS_ERR_NOMEM. */
int ex_fn_init(struct ex_fn *f, const struct ex_fg *g, int32_t arity, const int32_t *vars,
               int64_t fill);
void ex_fn_free(struct ex_fn *f);
/* Stride of variable v in f (0 when absent). */
int64_t ex_fn_stride(const struct ex_fn *f, int32_t v);

#endif
