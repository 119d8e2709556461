/* solver/mip_model: the local-polytope 0-1 MIP of a problem, built once in memory and
 * used both by the CPLEX LP exporter (solver/lsp_export.c writes it as text) and by the
 * exact solver's MIP engine (solver/exact_mip.c hands it to CBC), so the two can never
 * disagree. Encoding (docs/solvers.md, "LP"):
 *
 *   columns  x_{o,c} binary, objective = cfg cost        (col k-1 for export var x<k>)
 *            y_{t,l} binary, objective 0                 (col k-1 for export var y<k>)
 *            z_{t,l,m} >= 0, objective = tr[t][l][m]     (after x and y; one per tensor
 *                  with y variables, producible source l, destination m != l, tr != 0)
 *   rows     one_o:     sum_c x_{o,c} = 1
 *            req_o_c_s: y_{t,lay(c,s)} - x_{o,c} >= 0     (input slot s of cfg c; a slot
 *                  repeating an earlier (tensor, layout) of the cfg is skipped)
 *            tr_t_l_m:  z_{t,l,m} - y_{t,m} - sum_{c: out(c)=l} x_{prod,c} >= -1
 *
 * in this order: per op its one row then its req rows (cfg, then slot order); then the
 * tr rows in (t, l, m) order. Every coefficient is +1 or -1. */
#ifndef LS_SOLVER_MIP_MODEL_H
#define LS_SOLVER_MIP_MODEL_H

#include <stdint.h>

#include "solver/export.h"
#include "solver/problem.h"

enum lsp_mip_row_kind {
    LSP_ROW_ONE, LSP_ROW_REQ, LSP_ROW_TR,
    /* the tight variant only (every one ">= 0"):
     *   reqsum_o_t_l: y_{t,l} - sum_{c of o requesting (t,l)} x_{o,c} >= 0
     *   marg_t_l_m:   sum_{c: out(c)=l} x_{prod,c} - z_{t,l,m} >= 0   (producible l)
     *   cover_t_m:    sum_l z_{t,l,m} - y_{t,m} >= 0 */
    LSP_ROW_REQSUM, LSP_ROW_MARG, LSP_ROW_COVER
};

struct lsp_mip_row {
    int8_t kind;             /* enum lsp_mip_row_kind */
    int32_t a, b, c;         /* one: op; req: op, cfg, slot; tr: tensor, l, m */
    int64_t off;             /* first term in col/coef */
    double rhs;              /* one: = 1; req: >= 0; tr: >= -1 */
};

struct lsp_mip {
    struct lsp_export_vars v;     /* the x/y numbering shared with the other exports */
    int64_t ncols, nz0;           /* all columns; z columns start at nz0 (= v.nvars) */
    int32_t *zt, *zl, *zm;        /* per z column: tensor, source, destination */
    double *obj;                  /* ncols objective coefficients */
    int64_t nrows, nterms;
    struct lsp_mip_row *rows;     /* nrows + 1: rows[nrows].off = nterms */
    int64_t *col;                 /* nterms column indices */
    int8_t *coef;                 /* nterms coefficients (+1 / -1) */
    int tight;                    /* built by lsp_mip_build_tight */
};

/* LS_ERR_NOMEM (err filled) or 0. Free with lsp_mip_free (also after a failure). */
int lsp_mip_build(const struct lsp_problem *p, struct lsp_mip *m, struct ls_error *err);
/* The same optimum with a tighter LP relaxation, for the MIP engine (the LP export keeps
 * the model above): one request row per (op, tensor, layout) summing the op's requesting
 * cfgs, and the transposes of each (t, m) as the local polytope of (producer, y_{t,m});
 * z columns also for l == m and zero costs, where a cover row needs them. */
int lsp_mip_build_tight(const struct lsp_problem *p, struct lsp_mip *m, struct ls_error *err);
void lsp_mip_free(struct lsp_mip *m);
/* 1 when input slot s of cfg c of op o repeats the (tensor, layout) of an earlier slot
 * (the request is already made; every encoding skips it). */
int lsp_mip_slot_repeats(const struct lsp_problem *p, int32_t o, int32_t c, int32_t s);
/* 1 when column k is binary (x or y). */
static inline int lsp_mip_is_binary(const struct lsp_mip *m, int64_t k)
{
    return k < m->nz0;
}

#endif
