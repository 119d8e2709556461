/* solver/exact_order: elimination order for the exact solver (internal). */
#ifndef LS_SOLVER_EXACT_ORDER_H
#define LS_SOLVER_EXACT_ORDER_H

#include <stdint.h>

#include "solver/exact_fg.h"
#include "util/clock.h"

/* order gets the variables of component c (global ids) in elimination order, greedy:
 * fill = 0: min-weight (smallest message first); fill = 1: min-fill, ties by weight;
 * remaining ties to the lowest id. loc: nvars scratch; on return loc[v] is v's index
 * within the component. 0; 1 when the deadline passed; -1 when out of memory. */
int ex_order(const struct ex_fg *g, int32_t c, int fill, int32_t *order, int32_t *loc,
             const struct ls_deadline *dl);

#endif
