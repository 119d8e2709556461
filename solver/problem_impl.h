/* solver/problem_impl: internals shared by the .lsp builder, reader and writer. */
#ifndef LS_SOLVER_PROBLEM_IMPL_H
#define LS_SOLVER_PROBLEM_IMPL_H

#include "solver/problem.h"

/* 1 when s[0..n) matches [A-Za-z0-9_.:/@-]+. */
int lsp_valid_name(const char *s, size_t n);
/* 1 when s[0..n) is non-empty and holds no space, tab, CR, LF, NUL or '#'. */
int lsp_valid_kind(const char *s, size_t n);

/* Raw appends without the checks of the public builder (the reader checks with token
 * positions first). Return 0, or LS_ERR_NOMEM. */
int lsp_push_tensor(struct lsp_problem *p, const char *name, size_t n, int32_t nlayouts,
                    int32_t *id);
int lsp_push_tr(struct lsp_problem *p, int32_t t, int64_t **matrix);
int lsp_push_op(struct lsp_problem *p, const char *name, size_t n, const char *kind,
                size_t kn, int32_t nin, int32_t out, int32_t **in, int32_t *id);
int lsp_push_cfg(struct lsp_problem *p, int32_t op, int64_t cost, int32_t **layouts);
/* The derived fields; assumes every rule has been checked. */
int lsp_build_uses(struct lsp_problem *p);

#endif
