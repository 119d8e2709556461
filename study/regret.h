/* study/regret: the headline figure of a validation, exact's regret (docs/calibration.md
 * "Regret").
 *
 * The regret of a strategy on a model is its simulated time over the best simulated time
 * known for that model, minus one: how much slower the layout the cost model calls optimal
 * runs than the fastest layout anyone has found. Pairwise accuracy compares strategies
 * under one table with each other and cannot see a table that makes every strategy
 * slower; regret can, once the best known time comes from every table, strategy and
 * autotuner run. A validation's best known time is its own fastest strategy, lowered by a
 * reference file of best times found elsewhere:
 *
 *     # comments and blank lines are skipped
 *     model,best_cycles[,source]
 *     zoo:bert-base,1503946,mcts
 *
 * model is the MODEL argument as given to validate; best_cycles base-clock cycles (> 0). */
#ifndef LS_STUDY_REGRET_H
#define LS_STUDY_REGRET_H

#include <stddef.h>

#include "util/error.h"

#define STUDY_REGRET_OK 0.01   /* "within 1%" */

/* Regret over models. */
struct study_regret {
    int models;                /* with a regret (exact simulated) */
    int within;                /* regret <= STUDY_REGRET_OK */
    double max, median;        /* NaN when models == 0 */
};
/* Over regret[0..n) (NaN entries skipped). */
void study_regret_summary(const double *regret, int n, struct study_regret *out);

struct study_reference_row {
    char *model, *source;      /* owned; source "" when absent */
    double best_cycles;
    int line;
};
struct study_reference {
    char path[256];
    struct study_reference_row *rows;
    size_t n;
};
/* Read a reference file; LS_ERR_INPUT names path:line:col (a duplicate model included). */
int study_reference_read(const char *path, struct study_reference *ref, struct ls_error *err);
/* The row of model, or NULL. */
const struct study_reference_row *study_reference_find(const struct study_reference *ref,
                                                       const char *model);
void study_reference_free(struct study_reference *ref);

#endif
