/* solver/answer: read an external solver's answer to a `laysim export` file back into a
 * solution of the problem (the way back from solver/export):
 *
 *   wcnf  the stdout of a MaxSAT solver on the WCNF export: `s`, `o` and `v` lines, `v`
 *         either as literals (`v 1 -2 3 ...`, possibly over several lines) or as the
 *         bit-string of the 2022+ evaluations (`v 0101...`, one character per variable)
 *   cfn   toulbar2's solution file (`toulbar2 P.cfn -w=ANSWER`): one value per CFN
 *         variable in declaration order, as indices or value names, or `name=value`
 *         tokens; the last non-empty line when it holds several solutions
 *   lp    cbc's solution file (`cbc P.lp solve solu ANSWER`): a status line with the
 *         objective, then `index name value reduced-cost` per (nonzero) variable
 *
 * The answer is mapped back through the export's variable numbering (solver/export.h),
 * checked to pick exactly one configuration per op, and its objective recomputed from
 * scratch (lsp_eval). docs/solvers.md "Reading answers back". */
#ifndef LS_SOLVER_ANSWER_H
#define LS_SOLVER_ANSWER_H

#include <stddef.h>
#include <stdint.h>

#include "solver/problem.h"

enum lsp_answer_format { LSP_ANSWER_WCNF, LSP_ANSWER_CFN, LSP_ANSWER_LP };

/* -1 when unknown: "wcnf" (or "wcnf-old", "maxsat"), "cfn" ("toulbar2"), "lp" ("cbc"). */
int lsp_answer_format_parse(const char *name);

/* What the answer says about itself. */
struct lsp_answer_claim {
    int optimal;             /* "s OPTIMUM FOUND" / cbc "Optimal" (toulbar2's file: never) */
    int has_objective;
    int64_t objective;       /* the `o` line / cbc's objective value */
};

/* Parse an answer. On success s holds the assignment, cost = its objective, and status
 * optimal (bound = cost) when the answer claims optimality with the same objective, else
 * feasible. Errors (LS_ERR_INPUT) name file:line:col of the offending token, or the op
 * the answer leaves without a configuration or gives two. */
int lsp_answer_parse(const struct lsp_problem *p, int format, const char *file,
                     const char *buf, size_t len, struct lsp_solution *s,
                     struct lsp_answer_claim *claim, struct ls_error *err);
int lsp_answer_read(const struct lsp_problem *p, int format, const char *path,
                    struct lsp_solution *s, struct lsp_answer_claim *claim,
                    struct ls_error *err);

#endif
