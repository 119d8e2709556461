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

#include <stdint.h>

#include "costmodel/calibrate.h"
#include "costmodel/costmodel.h"
#include "graph/zoo.h"
#include "sim/target.h"
#include "solver/solver.h"
#include "study/pipeline.h"
#include "study/regret.h"
#include "study/validate.h"
#include "util/error.h"
#include "util/vec.h"

/* Defaults of study_loop_opts (`laysim loop --iterations/--perturb/--explore` spell their
 * help from them). */
#define STUDY_LOOP_ITERATIONS_DEFAULT 3
#define STUDY_LOOP_PERTURB_DEFAULT 8
#define STUDY_LOOP_EXPLORE_DEFAULT 1

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
    const char *program_dir;      /* study_validate: write each strategy's compiled program
                                     there, <k>-<model>.<strategy>.lsprog (NULL: no) */
    const char *const *extra_traces; /* more calibration traces (per-instruction fit) */
    int nextra;
    struct cm_fit_form form;      /* the group fit's form: calibrate --traces' default
                                     (CM_FIT_FORM_DEFAULT) with tied scales and a
                                     vector issue latency; the same code path */
    const char *const *holdout_models; /* specs of models whose programs never enter any
                                     fit; their figures are reported apart (held_*) */
    int nholdout;
    enum cg_memplan_mode memplan; /* the memory plan's mode (codegen/codegen.h; default whole) */
    struct study_progress_cb progress; /* per model and iteration (optional) */
    int threads;                  /* study_loop_calibrate: models solved and simulated at
                                     once (default 1); results are merged in model order */
};

void study_loop_opts_init(struct study_loop_opts *o);

/* ---- results (plain data; cli/ prints them, as JSON or text) ------------------------- */

/* Fidelity figures over one set of points (study/validate.h); NaN = undefined. */
struct study_metrics {
    struct study_pairwise pw;
    double pairwise_accuracy, kendall_tau, median_rel_error, max_rel_error;
};

/* One strategy's solution of one model: solved, compiled, simulated. */
struct study_strategy_result {
    char strategy[32];
    int64_t predicted;             /* .lsp objective */
    int64_t simulated;             /* base-clock cycles */
    double rel_error;              /* |predicted - simulated| / simulated, NaN when 0 */
    int status;                    /* enum lsp_status */
    double solve_seconds;
    int64_t conversions, instructions;
    uint64_t assignment;           /* FNV-1a-64 of the configuration vector (int32 per op) */
    char program[512];             /* the program written (program_dir), else "" */
};

/* Predicted price vs exposed simulated time of one name (class, operator, conversion). */
struct study_attr {
    char *name;                    /* owned */
    double predicted, simulated;
};
/* Error attribution of one run, each list sorted by |error| (largest first), entries with
 * neither a price nor a time left out. */
struct study_attribution {
    int present;                   /* 0: the run kept no trace records */
    LS_VEC(struct study_attr) classes;      /* every instruction class */
    LS_VEC(struct study_attr) operators;    /* the 10 largest errors */
    LS_VEC(struct study_attr) conversions;  /* the 10 largest errors */
    double conversions_predicted, conversions_simulated;    /* over every conversion */
};

/* The four strategies on one model under one table. */
struct study_model_eval {
    const char *model, *family;    /* the caller's spec, its family (static) */
    struct study_metrics metrics;
    struct study_strategy_result runs[STUDY_NSTRATEGIES];
    struct study_criterion criterion;  /* exact = the last strategy */
};

struct study_validate_model {
    struct study_model_eval eval;
    struct study_attribution attribution_exact;
    /* study/regret.h: the best simulated time known (this run's strategies, or a
     * reference's when lower), where it comes from, and exact's regret against it */
    double best_known, regret;
    char best_source[64];          /* a strategy, or "reference" / "reference:<source>" */
};

struct study_validation {
    char table_aggregate[16];
    LS_VEC(struct study_validate_model) models;
    struct study_metrics all;      /* pairs over every model; tau = mean over models */
    int exact_within_1pct_all;
    struct study_regret regret;    /* exact's regret over the models */
    int reference_used;            /* models whose best known time came from a reference */
};
void study_validation_free(struct study_validation *v);
/* Lower each model's best known time to the reference's where it is lower, and recompute
 * the regrets (study_validate sets them from the run's own strategies). */
void study_validation_reference(struct study_validation *v, const struct study_reference *ref);

struct study_loop_model {
    const char *model, *family;
    int held_out;                  /* in o->holdout_models: never fitted on */
    double best_known, regret;     /* study_loop_iter: regret */
    struct study_metrics frozen;   /* out of sample: the frozen set, current table */
    int has_lofo;
    struct study_metrics lofo;     /* the frozen set under the leave-one-family-out table */
    struct study_model_eval strategies;   /* solved under the current table */
};

/* The candidates of a refit's verdict (docs/calibration.md, "The loop"). */
enum study_loop_form {
    STUDY_LOOP_KEEP,        /* the table of an iteration so far (kept_from), with its own
                               leave-one-family-out tables */
    STUDY_LOOP_GROUP_FIT,   /* the group fit of every calibration program (o->form) */
    STUDY_LOOP_SHARE_ONLY,  /* the datasheet's entries, its exposed share measured */
    STUDY_LOOP_NFORMS
};
const char *study_loop_form_name(enum study_loop_form f);

/* One candidate judged: its tables fitted without a family, on that family's calibration
 * programs (every fitted model's), the pairs of programs ranked as simulated and the mean
 * over the models of the median relative error. */
struct study_loop_judged {
    int pairs, correct;
    double mean_median;
};

struct study_loop_iter {
    int iteration;
    char aggregate[16];
    uint64_t table_hash;
    /* over every model: frozen sets, lofo (has_lofo), strategies, calibration set */
    struct study_metrics frozen, lofo, strategy, in_sample;
    /* the frozen sets' four strategy points only (the paper's metric: strategy pairs, the
     * 0.5% tie rule; the perturbation pairs left out), under the current table and under
     * each model's leave-one-family-out table (the headline: no program of the model's
     * family entered that fit) */
    struct study_metrics frozen_strategies, lofo_strategies;
    int has_lofo;
    /* the held-out models only (has_held): their four strategies solved under the
     * iteration's table and simulated (held_strategy), and their frozen sets' strategy
     * points (held_frozen_strategies); no program of theirs entered any fit. The stop rule
     * and strategy_* read the other models only. */
    int has_held;
    struct study_metrics held_strategy, held_frozen_strategies;
    int exact_within_1pct_all;
    /* exact's regret (study/regret.h) against the best simulated time known for each model
     * at the end of the loop (its frozen set, its calibration programs, every iteration's
     * strategies): the calibration models and, apart, the held-out ones (has_held) */
    struct study_regret regret, held_regret;
    LS_VEC(struct study_loop_model) models;
    int has_fit;                   /* a refit followed this iteration */
    double fit_rel_error;          /* its in-sample relative error (NaN when none) */
    /* the refit's verdict (has_verdict: leave-one-family-out and two fitted families or
     * more): every candidate judged (judged[STUDY_LOOP_KEEP]: the best of the tables of
     * iterations 0..this one, the table of iteration kept_from), the form kept
     * (STUDY_LOOP_KEEP: the loop stopped, and that table is final), and the share-only
     * candidate's exposed share over every calibration program */
    int has_verdict;
    struct study_loop_judged judged[STUDY_LOOP_NFORMS];
    enum study_loop_form form;
    int kept_from;
    double share;
};

struct study_loop_result {
    size_t microbenchmarks, microbench_samples;
    int final_iteration;           /* whose table is the final one: the last iteration,
                                      the one whose refit's verdict kept its table, or the
                                      one before when the stop rule saw the last one's
                                      refit not help the training side */
    LS_VEC(struct study_loop_iter) iterations;
};
void study_loop_result_free(struct study_loop_result *r);

/* Validation of table tb on models[0..n) (the strings must outlive *out). */
int study_validate(const char *const *models, int n, const struct study_loop_opts *o,
                   const struct cm_table *tb, struct study_validation *out,
                   struct ls_error *err);

/* The loop (models must outlive *out); final (may be NULL): the table of iteration
 * out->final_iteration. On error *out is empty. */
int study_loop(const char *const *models, int n, const struct study_loop_opts *o,
               struct study_loop_result *out, struct cm_table *final, struct ls_error *err);

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
