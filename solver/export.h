/* solver/export: a problem as weighted MaxSAT (WCNF, new and old header), as a cost
 * function network for WCSP solvers (toulbar2 CFN), and as a 0-1 ILP (CPLEX LP).
 * Encodings: docs/solvers.md. In every format the optimum equals the .lsp optimum.
 * Variable numbering shared by all formats: x_{o,c} = 1 + ops[o].cfg0 + c (1-based over
 * all configurations in file order), then the y_{t,l} variables ("consumer of t asks for
 * layout l") for tensors with L >= 2 and at least one use, in tensor then layout order. */
#ifndef LS_SOLVER_EXPORT_H
#define LS_SOLVER_EXPORT_H

#include <stdio.h>

#include "solver/problem.h"

enum lsp_export_format {
    LSP_EXPORT_WCNF,         /* current WCNF: "h ... 0" hard, "<w> ... 0" soft, no header */
    LSP_EXPORT_WCNF_OLD,     /* "p wcnf <vars> <clauses> <top>", hard clauses weigh top */
    LSP_EXPORT_CFN,          /* toulbar2 cost function network (JSON) */
    LSP_EXPORT_LP            /* CPLEX LP */
};

/* The variable numbering above, shared by the writers and by solver/answer (reading the
 * answers back). ybase[t] is y_{t,0}, or 0 when tensor t has no y variables; nvars counts
 * x and y variables. In CFN the op variables are named "o<op id>" with values "c<cfg>",
 * the y variables "y<t>_<l>" with values "n", "y", declared in the same order. */
struct lsp_export_vars {
    int64_t *ybase;          /* p->ntensors entries (malloc'd) */
    int64_t nvars;
};
int lsp_export_vars_init(const struct lsp_problem *p, struct lsp_export_vars *v);
void lsp_export_vars_free(struct lsp_export_vars *v);
/* x_{o,c}, 1-based. */
static inline int64_t lsp_export_xvar(const struct lsp_problem *p, int32_t o, int32_t c)
{
    return 1 + p->ops[o].cfg0 + c;
}
/* The op owning x variable k (1 <= k <= p->ncfg); *c gets the cfg index. */
int32_t lsp_export_xvar_op(const struct lsp_problem *p, int64_t k, int32_t *c);

/* -1 when unknown: "wcnf", "wcnf-old", "cfn", "lp". */
int lsp_export_format_parse(const char *name);
int lsp_export_fp(const struct lsp_problem *p, int format, FILE *fp, struct ls_error *err);
/* Atomic write to path ("-" = stdout). */
int lsp_export(const struct lsp_problem *p, int format, const char *path, struct ls_error *err);

#endif
