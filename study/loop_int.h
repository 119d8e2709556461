/* study/loop_int: helpers shared by loop_eval.c and study_loop.c (not a public API). */
#ifndef LS_STUDY_LOOP_INT_H
#define LS_STUDY_LOOP_INT_H

#include "study/loop.h"
#include "study/pipeline.h"
#include "study/validate.h"

/* Fidelity figures of pts[0..n); LS_ERR_NOMEM. */
int lp_metrics(const struct study_point *pts, int n, struct study_metrics *m,
               struct ls_error *err);
/* The attribution of run r (empty, present = 0, when it kept no records). */
int lp_attribution(const struct study_run *r, const struct sim_target *t,
                   const struct cm_table *tb, struct study_attribution *out,
                   struct ls_error *err);
void lp_attribution_free(struct study_attribution *a);
/* The pipeline options of the loop's runs: o's solve options, memplan, trace and program
 * directories; records kept, their parts priced with parts_tb. */
void lp_pipe_opts(const struct study_loop_opts *o, const struct cm_table *parts_tb,
                  const char *trace_prefix, struct study_pipe_opts *po);
int lp_run_strategies(const struct graph *g, const struct study_loop_opts *o,
                      const struct cm_table *tb, const struct cm_table *parts_tb,
                      const char *trace_prefix, struct study_pipe **pipe,
                      const struct study_run **runs, struct ls_error *err);
void lp_points(const struct study_run *const *runs, int n, struct study_point *pts);
/* Metrics, the runs and the criterion of the four strategies (runs[0..STUDY_NSTRATEGIES)). */
int lp_model_eval(const struct study_run *const *runs, const struct study_point *pts,
                  struct study_model_eval *out, struct ls_error *err);

/* The .lsp objective under tb (o's memory plan) of n assignments of g, nops entries each
 * from cfgs, into pred[0..n). */
int lp_objectives(const struct graph *g, const struct study_loop_opts *o,
                  const struct cm_table *tb, const int32_t *cfgs, int32_t nops, int n,
                  double *pred, struct ls_error *err);

/* One model's calibration programs, as a refit's verdict reads them. */
struct lp_calset {
    const struct graph *g;
    const char *family;
    int fitted;                    /* 0: held out (its programs enter no fit) */
    int32_t nops;
    int ncal;
    const int32_t *cfg;            /* ncal * nops */
    const double *sim;             /* ncal simulated times */
};
/* Fitted models in at least two families: a table fitted without one can be judged. */
int lp_verdict_applies(const struct lp_calset *cs, int n);
/* The table tabs[i] of each fitted model i judged on its calibration programs. */
int lp_judge(const struct lp_calset *cs, int n, const struct study_loop_opts *o,
             const struct cm_table *tabs, struct study_loop_judged *j, struct ls_error *err);
/* The share-only candidate: t0's entries with the exposed share measured on the
 * calibration programs (cm_groups_exposed_share's rule: the median of (simulated -
 * conversions) / ops), over every fitted model into *whole (share: its value), and over
 * the models outside model i's family into folds[i]. */
int lp_share_fit(const struct lp_calset *cs, int n, const struct study_loop_opts *o,
                 const struct cm_table *t0, struct cm_table *whole, struct cm_table *folds,
                 double *share, struct ls_error *err);
/* a ranks more pairs as simulated than b, or as many and predicts them better */
int lp_judged_better(const struct study_loop_judged *a, const struct study_loop_judged *b);

#endif
