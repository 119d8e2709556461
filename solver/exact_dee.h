/* solver/exact_dee: dead-end elimination of configurations before the MIP engine
 * (docs/exact.md, "The MIP engine"). A cfg c of op o is dead when another live cfg c' of
 * o is at least as cheap in every context the live cfgs of the other ops allow
 * (Goldstein's criterion, applied once to the whole problem, not at search nodes). Some
 * optimum then uses live cfgs only, so the optimum value is unchanged; the MIP of the
 * reduced problem has fewer columns and rows. */
#ifndef LS_SOLVER_EXACT_DEE_H
#define LS_SOLVER_EXACT_DEE_H

#include <stdint.h>

#include "solver/problem.h"
#include "util/error.h"

/* dead (p->ncfg, indexed by op cfg0 + c) gets 1 for every dead cfg; returns the number
 * of dead cfgs, or -1 when out of memory. Every op keeps at least one live cfg. */
int64_t ex_dee(const struct lsp_problem *p, uint8_t *dead);

/* The problem restricted to the live cfgs, in *q (same tensors and ops, same names);
 * keep[q's global cfg index] = the cfg index in p of that live cfg. Free q with lsp_free
 * and keep with free. */
int ex_dee_restrict(const struct lsp_problem *p, const uint8_t *dead, struct lsp_problem **q,
                    int32_t **keep, struct ls_error *err);

#endif
