/* solver/gen_impl: the model-shaped generators (gen_model.c). */
#ifndef LS_SOLVER_GEN_IMPL_H
#define LS_SOLVER_GEN_IMPL_H

#include "solver/gen.h"

/* Add exactly o->ops ops to p (not finished). */
int lsp_gen_transformer(const struct lsp_gen_opts *o, struct lsp_problem *p,
                        struct ls_error *err);
int lsp_gen_cnn(const struct lsp_gen_opts *o, struct lsp_problem *p, struct ls_error *err);

#endif
