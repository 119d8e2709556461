/* solver/tune_solve: the autotuner as the registered solver `mcts` (solvers.def).
 *
 * The reward comes with the options (lsp_solve_opts.reward): the solver layer cannot run
 * an assignment itself. Params (docs/solvers.md): tune.evaluations (default 200, the start
 * included), tune.start (the solver giving the start assignment, default rulebased; a
 * warm start in the options replaces it). The tuning space and the explorer knobs are the
 * autotuner's defaults; `laysim tune` exposes them all. Statistics: start_cycles,
 * best_cycles, evaluations, simulations (reward calls), tuning_points. */
#include <math.h>
#include <string.h>

#include "solver/solver.h"
#include "solver/tune.h"

/* The start assignment: the warm start, or solver `name`'s solution, into start. */
static int start_of(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                    const char *name, struct lsp_solution *start, struct ls_error *err)
{
    if (o->start && o->start->cfg && o->start->nops == p->nops) {
        int rc = lsp_solution_alloc(start, p, err);
        if (!rc)
            memcpy(start->cfg, o->start->cfg, sizeof *start->cfg * (size_t)p->nops);
        return rc ? rc : lsp_check_assignment(p, start->cfg, err);
    }
    if (!lsp_solver_find(name))
        return ls_error_msg(err, LS_ERR_INPUT, "tune: unknown start solver '%s'", name);
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    so.seed = o->seed;             /* no time limit: the budget is the tuner's */
    struct lsp_result r;
    int rc = lsp_solve(name, p, &so, &r, err);
    if (!rc && (!r.sol.cfg || r.sol.nops != p->nops))
        rc = ls_error_msg(err, LS_ERR_LIMIT, "tune: the start solver '%s' found no assignment",
                          name);
    if (!rc) {
        *start = r.sol;            /* take the solution */
        memset(&r.sol, 0, sizeof r.sol);
    }
    lsp_result_free(&r);
    return rc;
}

int lsp_solve_mcts(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                   struct lsp_result *r, struct ls_error *err)
{
    if (!o->reward)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "solver mcts needs a MODEL (a reward callback): it scores "
                            "assignments by running them; a bare .lsp problem has nothing "
                            "to run");
    double evals;
    int rc = lsp_param_num(o, "tune.evaluations", &evals, err);
    if (rc)
        return rc;
    const char *name = lsp_param_word(o, "tune.start");

    struct lsp_solution start;
    lsp_solution_init(&start);
    struct lsp_tune_space *space = NULL;
    struct lsp_tune_space_opts so;
    lsp_tune_space_opts_init(&so);
    struct lsp_tune_opts to;
    lsp_tune_opts_init(&to);
    to.seed = o->seed;
    to.time_limit = o->time_limit;
    to.max_evaluations = (uint64_t)evals;
    struct lsp_tune_result tr;
    lsp_tune_result_init(&tr);
    if ((rc = start_of(p, o, name, &start, err)) ||
        (rc = lsp_tune_space_build(p, start.cfg, &so, &space, err)) ||
        (rc = lsp_tune_run(space, o->reward, o->reward_ctx, &to, &tr, err)))
        goto out;
    if (!isfinite(tr.best_cycles)) {
        const char *note = o->reward_note ? o->reward_note(o->reward_ctx) : NULL;
        rc = ls_error_msg(err, LS_ERR_INPUT,
                          "mcts: the reward rejects every assignment scored (%llu design%s)%s%s",
                          (unsigned long long)tr.evaluations, tr.evaluations == 1 ? "" : "s",
                          note && *note ? "; the first: " : "", note ? note : "");
        goto out;
    }
    memcpy(r->sol.cfg, tr.best_assignment, sizeof *r->sol.cfg * (size_t)p->nops);
    r->sol.status = LSP_FEASIBLE;
    r->sol.cost = lsp_eval(p, r->sol.cfg, NULL, NULL);
    lsp_stats_set(&r->stats, "start_cycles", tr.start_cycles);
    lsp_stats_set(&r->stats, "best_cycles", tr.best_cycles);
    lsp_stats_set(&r->stats, "evaluations", (double)tr.evaluations);
    lsp_stats_set(&r->stats, "simulations", (double)tr.callbacks);
    lsp_stats_set(&r->stats, "tuning_points", lsp_tune_space_npoints(space));
out:
    lsp_tune_result_free(&tr);
    lsp_tune_space_free(space);
    lsp_solution_free(&start);
    return rc;
}
