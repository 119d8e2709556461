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

/* -1 when unknown: "wcnf", "wcnf-old", "cfn", "lp". */
int lsp_export_format_parse(const char *name);
int lsp_export_fp(const struct lsp_problem *p, int format, FILE *fp, struct ls_error *err);
/* Atomic write to path ("-" = stdout). */
int lsp_export(const struct lsp_problem *p, int format, const char *path, struct ls_error *err);

#endif
