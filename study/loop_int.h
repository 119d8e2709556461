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

#endif
