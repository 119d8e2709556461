/* study/tune: the simulated-time reward and the whole tuning run (study/study_tune.h). */
#include "study/study_tune.h"
#include "study/db.h"
#include "sim/sim.h"
#include "solver/solver.h"
#include "util/clock.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the reward -------------------------------------------------------------------------- */

void study_tune_sim_init(struct study_tune_sim *s, const struct cm_instance *in,
                         const struct sim_target *t)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->t = t;
}

void study_tune_sim_free(struct study_tune_sim *s)
{
    sim_program_free(s->prog);
    s->prog = NULL;
}

int study_tune_simulate(void *ctx, const int32_t *assignment, double *cycles,
                        struct ls_error *err)
{
    struct study_tune_sim *s = ctx;
    uint64_t t0 = ls_now_ns();
    struct cg_compile_stats cs;
    struct sim_stats st;
    if (!s->keep_program)
        study_tune_sim_free(s);
    int rc = cm_instance_compile_reuse(s->in, assignment, &s->prog, &cs, err);
    if (!rc)
        rc = sim_run(s->t, s->prog, NULL, &st, err);
    if (!s->keep_program)
        study_tune_sim_free(s);
    s->simulations++;
    s->seconds += ls_seconds_since(t0);
    if (rc == LS_ERR_INPUT) {        /* the target cannot run this program */
        if (!s->rejected++)
            snprintf(s->first_reject, sizeof s->first_reject, "%.255s", err->msg);
        ls_error_clear(err);
        *cycles = HUGE_VAL;
        return 0;
    }
    if (rc)
        return rc;
    *cycles = (double)sim_ticks_base_cycles(s->t, st.ticks);
    return 0;
}

static const char *sim_note(void *ctx)
{
    const struct study_tune_sim *s = ctx;
    return s->first_reject;
}

void study_tune_reward(struct study_tune_sim *s, const struct cm_instance *in,
                       const struct sim_target *t, struct lsp_solve_opts *o)
{
    study_tune_sim_init(s, in, t);
    o->reward = study_tune_simulate;
    o->reward_ctx = s;
    o->reward_note = sim_note;
}

/* ---- the run ------------------------------------------------------------------------------ */

void study_tune_args_init(struct study_tune_args *a)
{
    memset(a, 0, sizeof *a);
    a->start = "rulebased";
    lsp_tune_space_opts_init(&a->space);
    lsp_tune_opts_init(&a->tune);
}

void study_tune_report_free(struct study_tune_report *r)
{
    lsp_solution_free(&r->start);
    lsp_solution_free(&r->best);
    lsp_tune_result_free(&r->result);
    memset(r, 0, sizeof *r);
}

static int solve_start(const struct study_tune_args *a, const struct lsp_problem *p,
                       struct study_tune_report *rep, struct ls_error *err)
{
    if (!lsp_solver_find(a->start))
        return ls_error_msg(err, LS_ERR_INPUT, "tune: unknown start solver '%s'", a->start);
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    so.time_limit = a->start_time_limit;
    so.seed = a->tune.seed;
    struct lsp_result r;
    int rc = lsp_solve(a->start, p, &so, &r, err);
    if (rc)
        return rc;
    rep->start_seconds = r.seconds;
    if (!r.sol.cfg || r.sol.nops != p->nops) {
        lsp_result_free(&r);
        return ls_error_msg(err, LS_ERR_LIMIT, "tune: the start solver '%s' found no assignment",
                            a->start);
    }
    rep->start = r.sol;              /* take the solution */
    memset(&r.sol, 0, sizeof r.sol);
    lsp_result_free(&r);
    return 0;
}

/* The caller's start assignment as a solution (checked against the problem). */
static int given_start(const struct study_tune_args *a, const struct lsp_problem *p,
                       struct study_tune_report *rep, struct ls_error *err)
{
    for (int32_t i = 0; i < p->nops; i++)
        if (a->start_cfg[i] < 0 || a->start_cfg[i] >= p->ops[i].ncfg)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "tune: start configuration %d of op '%s' is out of range "
                                "(0..%d)",
                                (int)a->start_cfg[i], p->ops[i].name, (int)p->ops[i].ncfg - 1);
    int rc = lsp_solution_alloc(&rep->start, p, err);
    if (rc)
        return rc;
    memcpy(rep->start.cfg, a->start_cfg, sizeof *rep->start.cfg * (size_t)p->nops);
    rep->start.status = LSP_FEASIBLE;
    rep->start.cost = lsp_eval(p, rep->start.cfg, NULL, NULL);
    rep->start_seconds = 0;
    return 0;
}

int study_tune(const struct study_tune_args *a, struct study_tune_report *rep,
               struct ls_error *err)
{
    memset(rep, 0, sizeof *rep);
    lsp_solution_init(&rep->start);
    lsp_solution_init(&rep->best);
    lsp_tune_result_init(&rep->result);
    rep->db_rows = -1;
    const struct lsp_problem *p = a->in->p;
    struct lsp_tune_space *space = NULL;
    struct study_tune_sim sim = {0};
    struct study_db *db = NULL;
    int rc;
    if ((rc = a->start_cfg ? given_start(a, p, rep, err) : solve_start(a, p, rep, err)) ||
        (rc = lsp_tune_space_build(p, rep->start.cfg, &a->space, &space, err)))
        goto out;
    study_tune_sim_init(&sim, a->in, a->target);
    sim.keep_program = 1;
    rep->npoints = lsp_tune_space_npoints(space);
    rep->log10_designs = lsp_tune_space_log10_size(space);

    struct lsp_tune_opts o = a->tune;
    struct study_tune_store st = {0};
    struct lsp_tune_store hook;
    if (a->db) {
        if ((rc = study_db_open(a->db, STUDY_DB_TUNE, &db, err)))
            goto out;
        st.db = db;
        st.problem_hash = study_tune_problem_hash(p);
        st.target_hash = sim_target_hash(a->target);
        st.table_hash = cm_table_hash(a->table);
        st.codegen_version = STUDY_TUNE_CODEGEN_VERSION;
        study_tune_store_hook(&st, &hook);
        o.store = &hook;
    }
    rc = lsp_tune_run(space, study_tune_simulate, &sim, &o, &rep->result, err);
    rep->simulations = sim.simulations;
    rep->rejected = sim.rejected;
    rep->sim_seconds = sim.seconds;
    if (db && !rc)
        rc = study_db_tune_count(db, &rep->db_rows, err);
    if (rep->result.best_assignment && rep->result.evaluations > 0) {
        int rc2 = lsp_solution_alloc(&rep->best, p, err);
        if (rc2) {
            rc = rc ? rc : rc2;
            goto out;
        }
        memcpy(rep->best.cfg, rep->result.best_assignment, sizeof *rep->best.cfg * (size_t)p->nops);
        rep->best.status = LSP_FEASIBLE;
        rep->best.cost = lsp_eval(p, rep->best.cfg, NULL, NULL);
    }
    if (!rc && rep->result.evaluations > 0 && !isfinite(rep->result.best_cycles))
        rc = ls_error_msg(err, LS_ERR_INPUT,
                          "tune: the target rejects every program scored (%llu design%s)%s%s",
                          (unsigned long long)rep->result.evaluations,
                          rep->result.evaluations == 1 ? "" : "s",
                          sim.first_reject[0] ? "; the first: " : "", sim.first_reject);
out:
    study_tune_sim_free(&sim);
    study_db_close(db);
    lsp_tune_space_free(space);
    return rc;
}
