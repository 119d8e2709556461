/* study/loop: validation of a table on models, and the closed calibration loop
 * (docs/calibration.md).
 *
 * validate: per model, the four strategies under one table: predicted vs simulated,
 *   pairwise accuracy, Kendall tau-b, relative errors, error attribution (instruction
 *   classes, operators, conversions: predicted price vs exposed simulated time), and the
 *   criterion for exact solving.
 * loop: start from the datasheet table; microbenchmark fit; per iteration solve with the
 *   four strategies, compile, simulate, add the chosen programs to the calibration set,
 *   refit (group fit over the microbenchmark table, aggregation mode agg); metrics per
 *   iteration: out of sample on a frozen evaluation set per model (the four datasheet
 *   solutions + nperturb seeded perturbations) and leave-one-family-out, in sample beside. */
#ifndef LS_STUDY_LOOP_H
#define LS_STUDY_LOOP_H

#include <jansson.h>

#include "costmodel/costmodel.h"
#include "graph/zoo.h"
#include "sim/target.h"
#include "solver/solver.h"
#include "util/error.h"

struct study_loop_opts {
    struct zoo_opts zo;           /* model scaling */
    struct sim_target target;
    struct lsp_solve_opts solve;
    int iterations;               /* refits (default 3) */
    enum cm_aggregate agg;        /* aggregation of the fitted tables (default max) */
    int nperturb;                 /* perturbations in the frozen set (default 8) */
    double perturb_frac;          /* fraction of ops re-drawn per perturbation (0.1) */
    uint64_t seed;                /* perturbation seed (default 1) */
    int lofo;                     /* leave-one-family-out (default 1) */
    int microbench;               /* start the fit from microbenchmarks (default 1) */
    int explore;                  /* seeded perturbations of the exact solution added to
                                     the calibration set per model and iteration (1) */
    const char *trace_dir;        /* write the chosen programs' traces there (NULL: no) */
    const char *const *extra_traces; /* more calibration traces (per-instruction fit) */
    int nextra;
};

void study_loop_opts_init(struct study_loop_opts *o);

/* Validation of table tb on models[0..n). *out: the JSON report. */
int study_validate(const char *const *models, int n, const struct study_loop_opts *o,
                   const struct cm_table *tb, json_t **out, struct ls_error *err);

/* The loop. *out: the JSON report ({"iterations": [...], ...}); final (may be NULL): the
 * last fitted table. */
int study_loop(const char *const *models, int n, const struct study_loop_opts *o,
               json_t **out, struct cm_table *final, struct ls_error *err);

/* The loop's calibration in one step, in sample: the per-instruction fit (microbenchmarks
 * on o->target, o->extra_traces) of the datasheet table, then the group fit (aggregation
 * o->agg) on the distinct programs the four strategies choose under the datasheet table
 * (solve options o->solve) for each graph gs[i] (NULL entries are skipped). A graph the
 * target cannot run, or whose strategies fail, is left out; only memory, I/O and internal
 * errors are returned. *programs (may be NULL): the programs fitted. */
int study_loop_calibrate(const struct graph *const *gs, int n, const struct study_loop_opts *o,
                         struct cm_table *out, int *programs, struct ls_error *err);

/* Family of a model spec: the zoo family of zoo:NAME, else the spec itself. */
const char *study_model_family(const char *spec);

#endif
