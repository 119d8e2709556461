/* study/validate: cost-model fidelity metrics (docs/calibration.md).
 *
 * Inputs are points: one solution (assignment) of one model with its predicted cost (the
 * .lsp objective) and its simulated time, both in base-clock cycles.
 *
 *  - three-way comparison with the paper's equality band: a = b iff |a - b| < 0.005 min(a, b);
 *  - pairwise ranking accuracy: for every pair of points of one model whose assignments
 *    differ, the outcome on predicted costs and on simulated times; correct when equal.
 *    Pairs with identical assignments are excluded and counted apart;
 *  - Kendall's tau-b over the distinct assignments of a model (ties = the equality band);
 *  - relative error |predicted - simulated| / simulated: median and max;
 *  - the paper's criterion for exact solving: a heuristic's optimality gap under the cost
 *    model (predicted(h) / predicted(exact) - 1) against the cost model's error. */
#ifndef LS_STUDY_VALIDATE_H
#define LS_STUDY_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "costmodel/calibrate.h"
#include "util/error.h"

#define STUDY_EQ_BAND CM_EQ_BAND

struct study_point {
    const char *label;         /* strategy or perturbation name */
    double predicted, simulated;
    const int32_t *cfg;        /* assignment, may be NULL (then never identical) */
    int32_t ncfg;
};

/* -1 when a < b, 0 when equal within the band, +1 when a > b. */
int study_cmp3(double a, double b);
/* 1 when both assignments are present and equal. */
int study_same_assignment(const struct study_point *a, const struct study_point *b);

struct study_pairwise {
    int pairs;                 /* compared (distinct assignments) */
    int correct;
    int identical;             /* excluded: identical assignments */
};
/* Accumulates into *acc (zero it first) over every pair of pts[0..n). */
void study_pairwise_add(const struct study_point *pts, int n, struct study_pairwise *acc);
/* correct / pairs, or NaN when there are no pairs. */
double study_pairwise_accuracy(const struct study_pairwise *a);

/* Kendall's tau-b of (predicted, simulated) over the points with distinct assignments
 * (the first of each group of identical ones); NaN when undefined (fewer than 2 points or
 * every pair tied on one side). */
double study_kendall_tau_b(const struct study_point *pts, int n);

/* |predicted - simulated| / simulated of each point into rel[0..n); returns n. */
int study_rel_errors(const struct study_point *pts, int n, double *rel);
/* Median / max of x[0..n) (x is not modified); NaN when n == 0. */
double study_median(const double *x, int n);
double study_max(const double *x, int n);
/* Mean of the non-NaN values; NaN when none. */
double study_nanmean(const double *x, int n);

/* Criterion for exact solving on one model. pts[exact_index] is the exact solution. */
#define STUDY_CRITERION_MAX 8  /* points (strategies) per model */
struct study_criterion {
    double gap[STUDY_CRITERION_MAX];  /* per point: predicted / predicted(exact) - 1 */
    double model_error;        /* max relative error over the points */
    double exact_error;        /* relative error of the exact solution */
    double best_sim;           /* best simulated time over the points */
    double exact_vs_best;      /* simulated(exact) / best_sim - 1 */
    int exact_within_1pct;     /* exact_vs_best <= 0.01 */
    int exact_pays;            /* max heuristic gap > model_error */
};
/* LS_ERR_INPUT (util/error.h; *out zeroed) unless 1 <= n <= STUDY_CRITERION_MAX and
 * exact_index < n. */
int study_criterion(const struct study_point *pts, int n, int exact_index,
                    struct study_criterion *out);

#endif
