/* study/study_mcts: the study's autotuner cell (study/study.h, docs/tune.md "In the study"). */
#include "study/study_int.h"
#include "study/study_tune.h"
#include "util/clock.h"
#include "util/prng.h"

#include <stdio.h>
#include <string.h>

/* The autotuner cell: MCTS from exact's assignment `start` of this table (NULL when exact
 * failed: the cell records exact's error), scored by simulated time; the best design is
 * evaluated like a solver's assignment. */
int study_run_mcts(const struct study_opts *o, struct job *j, struct study_pipe *pp,
                    const struct cm_table *tb, const char *tname, int tw, const int32_t *start,
                    int exact_rc, const char *exact_msg,
                    struct ls_error *err)
{
    const struct study_model *m = &o->models.m[j->model];
    const struct study_target *t = &o->targets.t[j->target];
    const struct lsp_problem *p = study_pipe_problem(pp);
    struct study_cell c;
    study_cell_base(&c, m, j->model, t, j->target, STUDY_MCTS, tname, tb, p->nops, tw);
    c.tune_budget = (int64_t)o->mcts_evaluations;
    uint64_t c0 = ls_now_ns();
    int rc = 0;
    if (!start) {
        c.rc = exact_rc ? exact_rc : LS_ERR_LIMIT;
        snprintf(c.error, sizeof c.error, "no start assignment: exact failed: %.200s",
                 exact_msg);
        snprintf(c.status, sizeof c.status, "unknown");
    } else {
        study_progress_phase(&o->progress, "%s @ %s (%s): mcts (up to %llu evaluations)",
                             m->name, t->label, tname,
                             (unsigned long long)o->mcts_evaluations);
        struct study_tune_args a;
        study_tune_args_init(&a);
        a.in = study_pipe_instance(pp);
        a.target = &t->t;
        a.table = tb;
        a.start_cfg = start;           /* default space: one op per point, top-k 16 */
        a.tune.explorer = "mcts";
        a.tune.seed = LS_SEED_DEFAULT;
        a.tune.max_evaluations = o->mcts_evaluations;
        a.tune.time_limit = o->mcts_time_limit;
        a.db = o->tune_db;
        struct study_tune_report rep;
        struct ls_error e2 = {0};
        uint64_t t0 = ls_now_ns();
        int r = study_tune(&a, &rep, &e2);
        c.solve_seconds = ls_seconds_since(t0);
        c.tune_evaluations = (int64_t)rep.result.evaluations;
        c.tune_simulations = (int64_t)rep.simulations;
        if (!r && !rep.best.cfg)
            r = ls_error_msg(&e2, LS_ERR_LIMIT, "mcts scored no design");
        const struct study_run *run = NULL;
        if (!r)
            r = study_pipe_eval(pp, STUDY_MCTS, rep.best.cfg, &run, &e2);
        if (r == LS_ERR_NOMEM || r == LS_ERR_INTERNAL) {
            rc = ls_error_msg(err, r, "%s: %s: %s", m->name, STUDY_MCTS, e2.msg);
        } else if (r) {
            study_cell_error(&c, r, &e2);
            snprintf(c.status, sizeof c.status, "unknown");
        } else {
            snprintf(c.status, sizeof c.status, "%s", lsp_status_name(LSP_FEASIBLE));
            rc = study_cell_fill(&c, pp, run, err);
        }
        study_tune_report_free(&rep);
    }
    c.wall_seconds = ls_seconds_since(c0);
    if (!rc)
        rc = study_cells_push(&j->out, &c, err);
    study_cell_free(&c);
    return rc;
}
