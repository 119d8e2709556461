/* costmodel/calib_run: the whole of `laysim calibrate` as one call (docs/calibration.md),
 * so that the command line and the C API fit a table the same way:
 *  1. the per-instruction fit of the traces' and microbenchmarks' samples (cm_calib_fit),
 *  2. the overlap-aware group fit of the traces that carry op attribution
 *     (cm_trace_group_fit), or without it the dependency latency measured alone,
 *  3. with traces of two or more models (cm_trace_model_key): each model left out in turn,
 *     fitted on the others and predicting the programs left out; unless the form is
 *     fixed, the candidate forms (the group fit with split scales, with tied scales, with
 *     tied scales and a vector issue latency, each with the DMA latency per DMA; no group
 *     fit, the DMA latency per group) are all
 *     fitted and the one that predicts the models left out best is kept,
 *  4. the verdict: when the kept fit predicts the held-out traces, or the models left out,
 *     worse than the prior does, the prior is what the caller should write. */
#ifndef LS_COSTMODEL_CALIB_RUN_H
#define LS_COSTMODEL_CALIB_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "costmodel/calibrate.h"

struct cm_run_opts {
    const char *const *traces; /* ntraces .lstrace paths */
    const char *const *progs;  /* NULL, or the program each trace ran (NULL entries: none) */
    int ntraces;
    int micro;                 /* run and fit the built-in microbenchmarks */
    const char *mbtrace;       /* NULL, or write the microbenchmarks' records here */
    double holdout;            /* share of samples / traces held out (CM_HOLDOUT_DEFAULT) */
    enum cm_aggregate agg;     /* of the group fit (CM_AGG_MAX) */
    struct cm_fit_form form;   /* of the group fit (CM_FIT_FORM_DEFAULT, scales auto) */
    int no_group;              /* no group fit (the dependency latency alone) */
    int fixed_form;            /* 1: no choice of the form on the models left out */
    int no_model_holdout;      /* 1: no model left out (no check, no choice) */
    int keep_worse;            /* 1: out is the fit even when it predicts worse */
    /* progress (may be NULL): steps done of total, per form the microbenchmarks, each
     * trace, the fit and each model left out (the caller draws it: cli/ draws a bar) */
    void (*progress)(void *ctx, uint64_t done, uint64_t total);
    void *progress_ctx;
};
void cm_run_opts_init(struct cm_run_opts *o);

/* Models left out in turn: per model, its first trace, its trace count and the median
 * program-time error of the table fitted without it and of the prior on its programs. */
struct cm_lomo {
    int nmodels;               /* 0: fewer than two models (or not asked) */
    int *first, *ntraces;
    double *fit, *prior;
    double fit_mean, prior_mean;
    /* program pairs of the models left out, and those each side ranks as measured */
    int pairs, fit_correct, prior_correct;
};
/* The fits without each model rank fewer of their program pairs as measured than the
 * prior (the paper's pairwise accuracy: a table closer in level that ranks worse picks
 * slower layouts), or as many and predict them worse (within rounding). Ranking first:
 * layout selection pays for a wrong ranking, not for a level. */
int cm_lomo_worse(const struct cm_lomo *lm);
/* The order both that verdict and the loop's (study/loop_verdict.c) use: a ranks more
 * program pairs as measured than b, or as many and predicts them better beyond rounding
 * (b's mean error above a's by more than a relative 1e-3). */
int cm_ranks_better(int correct_a, double mean_a, int correct_b, double mean_b);

/* One form of the fit that cm_calibrate compares on the models left out. */
struct cm_form_cand {
    int no_group, dma_group;
    int share_only;            /* the prior's entries kept, its exposed share measured */
    int fit_issue;             /* the group fit also fits a vector issue latency */
    enum cm_group_scales scales; /* of the group fit (CM_SCALES_AUTO: the held-out traces
                                    choose; no_group: unused) */
    double lomo_mean;          /* its mean median error on the models left out (NAN: none) */
    int lomo_correct;          /* their program pairs it ranks as measured */
};
#define CM_MAX_FORMS 5

struct cm_run {
    struct cm_table fit;       /* the kept form's fitted table */
    const struct cm_table *out;/* &fit, or the prior when the fit predicts worse */
    struct cm_fit_report *rep; /* the per-instruction fit's report */
    struct cm_trace_fit gr;    /* the group fit's report (done = 0: none) */
    size_t nmb, ns;            /* microbenchmarks run, samples fitted */
    int no_group, dma_group;   /* the form kept */
    int share_only;            /* the form kept is the prior with its share measured */
    int form_chosen;           /* the form was chosen on the models left out */
    struct cm_lomo lomo;       /* the kept form's models left out */
    int ncand, chosen;         /* the forms compared (1: none), cand[chosen] the kept one */
    struct cm_form_cand cand[CM_MAX_FORMS];
    double other_mean;         /* form_chosen: the best mean of the forms not kept */
    int held_worse;            /* the group fit predicts the held-out traces worse */
};

/* Fit as described above; r is filled even on error (free it with cm_run_free). r->out
 * may point to prior, which must outlive r. */
int cm_calibrate(const struct cm_run_opts *o, const struct sim_target *t,
                 const struct cm_table *prior, struct cm_run *r, struct ls_error *err);
void cm_run_free(struct cm_run *r);

#endif
