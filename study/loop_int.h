/* study/loop_int: helpers shared by loop_eval.c and loop.c (not a public API). */
#ifndef LS_STUDY_LOOP_INT_H
#define LS_STUDY_LOOP_INT_H

#include <jansson.h>

#include "study/loop.h"
#include "study/pipeline.h"
#include "study/validate.h"

json_t *lp_num(double v);
json_t *lp_metrics_json(const struct study_point *pts, int n);
json_t *lp_attribution(const struct study_run *r, const struct sim_target *t,
                       const struct cm_table *tb);
int lp_run_strategies(const struct graph *g, const struct study_loop_opts *o,
                      const struct cm_table *tb, const struct cm_table *parts_tb,
                      const char *trace_prefix, struct study_pipe **pipe,
                      const struct study_run **runs, struct ls_error *err);
void lp_points(const struct study_run *const *runs, int n, struct study_point *pts);
json_t *lp_strategies_json(const struct study_run *const *runs, int n);
json_t *lp_criterion_json(const struct study_point *pts, int n, int exact_index);

#endif
