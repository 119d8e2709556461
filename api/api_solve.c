/* api/solve: the solver registry, solving, and solutions (.sol). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "solver/solver.h"
#include "study/study_tune.h"

/* ---- solving ------------------------------------------------------------------------ */

LAYSIM_API void laysim_solve_options_init(laysim_solve_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    struct lsp_solve_opts d; /* the solver options' defaults, written once (lsp_opts_init) */
    lsp_opts_init(&d);
    o->time_limit = d.time_limit;
    o->seed = d.seed;
    o->threads = d.threads;
    o->node_limit = d.node_limit;
}

LAYSIM_API int32_t laysim_solver_count(void)
{
    size_t n;
    lsp_solvers(&n);
    return (int32_t)n;
}

static const struct lsp_solver *solver_at(int32_t i)
{
    size_t n;
    const struct lsp_solver *s = lsp_solvers(&n);
    return i >= 0 && (size_t)i < n ? &s[i] : NULL;
}

LAYSIM_API const char *laysim_solver_name(int32_t i)
{
    const struct lsp_solver *s = solver_at(i);
    return s ? s->name : NULL;
}

LAYSIM_API const char *laysim_solver_summary(int32_t i)
{
    const struct lsp_solver *s = solver_at(i);
    return s ? s->summary : NULL;
}

/* The caller's reward behind the solver's reward signature. */
struct user_reward {
    laysim_reward_fn fn;
    void *user;
    int32_t nops;
};

static int call_user_reward(void *ctx, const int32_t *assignment, double *reward,
                            struct ls_error *err)
{
    const struct user_reward *u = ctx;
    int rc = u->fn(u->user, assignment, u->nops, reward);
    return rc ? ls_error_msg(err, LS_ERR_INPUT, "the reward callback failed (returned %d)", rc) : 0;
}

static int build_opts(laysim_ctx *cx, const laysim_solve_options *o, struct lsp_solve_opts *so)
{
    lsp_opts_init(so);
    if (!o)
        return 0;
    if (o->time_limit > 0 && isfinite(o->time_limit))
        so->time_limit = o->time_limit;
    so->seed = o->seed;
    if (o->threads > 1)   /* accepting it would promise a speed-up nothing delivers */
        return ls_error_msg(&cx->err, LS_ERR_INPUT, "laysim_solve: threads %d: no solver uses "
                            "threads (give 1)", o->threads);
    so->node_limit = o->node_limit;
    for (size_t i = 0; o->params && o->params[i]; i++)
        if (lsp_opts_add_param(so, o->params[i], &cx->err))
            return cx->err.code;
    return 0;
}

/* Solve p into a new solution handle; so is complete (reward included). */
static int run_solver(laysim_ctx *cx, const struct lsp_problem *p, const char *solver,
                      const struct lsp_solve_opts *so, laysim_solution **out)
{
    laysim_solution *s = calloc(1, sizeof *s);
    if (!s)
        return ls_error_msg(&cx->err, LS_ERR_NOMEM, "out of memory");
    s->magic = API_MAGIC_SOLUTION;
    struct lsp_result r;
    lsp_result_init(&r);
    int rc = lsp_solve(solver, p, so, &r, &cx->err);
    if (rc) {
        lsp_result_free(&r);
        free(s);
        return rc;
    }
    s->sol = r.sol;          /* the solution's arrays move to the handle */
    s->seconds = r.seconds;
    lsp_sol_tie_of(p, &s->sol.tie);   /* tied to p, as its .sol will be */
    lsp_solution_init(&r.sol);
    lsp_result_free(&r);
    *out = s;
    return 0;
}

static int solve_checked(laysim_ctx *cx, const struct laysim_instance *in,
                         const laysim_problem *p, const char *solver,
                         const laysim_solve_options *o, laysim_solution **out)
{
    int rc;
    if ((rc = api_need_finished(cx, p, "laysim_solve")) ||
        (rc = api_need(cx, solver, "laysim_solve", "solver")) ||
        (rc = api_need(cx, out, "laysim_solve", "out")))
        return rc;
    *out = NULL;
    struct lsp_solve_opts so;
    if ((rc = build_opts(cx, o, &so)))
        return api_done(cx, rc);
    struct user_reward ur = {o ? o->reward : NULL, o ? o->reward_user : NULL, p->p->nops};
    struct study_tune_sim sim;
    if (ur.fn) {
        so.reward = call_user_reward;
        so.reward_ctx = &ur;
    } else if (in) {
        study_tune_reward(&sim, in->in, &in->t, &so);
    }
    return api_done(cx, run_solver(cx, p->p, solver, &so, out));
}

LAYSIM_API int laysim_solve(laysim_ctx *cx, const laysim_problem *p, const char *solver,
                            const laysim_solve_options *o, laysim_solution **out)
{
    API_CX(cx);
    return solve_checked(cx, NULL, p, solver, o, out);
}

LAYSIM_API int laysim_instance_solve(laysim_ctx *cx, const laysim_instance *in, const char *solver,
                                     const laysim_solve_options *o, laysim_solution **out)
{
    API_CX(cx);
    int rc = api_handle(cx, in, API_MAGIC_INSTANCE, "laysim_instance_solve", "instance");
    return rc ? rc : solve_checked(cx, in, &in->problem, solver, o, out);
}

/* ---- solutions ---------------------------------------------------------------------- */

LAYSIM_API int laysim_solution_read(laysim_ctx *cx, const laysim_problem *p, const char *path,
                                    laysim_solution **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need_finished(cx, p, "laysim_solution_read")) ||
        (rc = api_need(cx, path, "laysim_solution_read", "path")) ||
        (rc = api_need(cx, out, "laysim_solution_read", "out")))
        return rc;
    laysim_solution *s = calloc(1, sizeof *s);
    if (!s)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    s->magic = API_MAGIC_SOLUTION;
    lsp_solution_init(&s->sol);
    if ((rc = lsp_sol_read(p->p, path, &s->sol, &cx->err)) ||
        (rc = lsp_solution_verify(p->p, &s->sol, &cx->err))) {
        laysim_solution_free(s);
        *out = NULL;
        return api_done(cx, rc);
    }
    *out = s;
    return api_done(cx, 0);
}

LAYSIM_API int laysim_solution_write(laysim_ctx *cx, const laysim_problem *p,
                                     const laysim_solution *s, const char *path)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need_finished(cx, p, "laysim_solution_write")) ||
        (rc = api_handle(cx, s, API_MAGIC_SOLUTION, "laysim_solution_write", "solution")) ||
        (rc = api_need(cx, path, "laysim_solution_write", "path")))
        return rc;
    if (s->sol.nops && (s->sol.nops != p->p->nops || !s->sol.cfg ||
                        lsp_check_assignment(p->p, s->sol.cfg, NULL)))
        return api_fail(cx, LAYSIM_EINPUT, "laysim_solution_write: the solution (%d ops) is not "
                        "one of this problem (%d ops)", s->sol.nops, p->p->nops);
    return api_done(cx, lsp_sol_write(p->p, &s->sol, path, &cx->err));
}

LAYSIM_API void laysim_solution_free(laysim_solution *s)
{
    if (!api_is(s, API_MAGIC_SOLUTION))
        return;
    s->magic = API_MAGIC_DEAD;
    lsp_solution_free(&s->sol);
    free(s);
}

LAYSIM_API int laysim_solution_status(const laysim_solution *s)
{
    return api_is(s, API_MAGIC_SOLUTION) ? s->sol.status : LAYSIM_UNKNOWN;
}

LAYSIM_API const char *laysim_solution_status_name(const laysim_solution *s)
{
    return lsp_status_name(laysim_solution_status(s));
}

LAYSIM_API int laysim_solution_has_assignment(const laysim_solution *s)
{
    return api_is(s, API_MAGIC_SOLUTION) && s->sol.cfg && s->sol.nops > 0;
}

LAYSIM_API int64_t laysim_solution_cost(const laysim_solution *s)
{
    return api_is(s, API_MAGIC_SOLUTION) ? s->sol.cost : 0;
}

LAYSIM_API int laysim_solution_bound(const laysim_solution *s, int64_t *bound)
{
    if (!api_is(s, API_MAGIC_SOLUTION) || !s->sol.has_bound)
        return 0;
    if (bound)
        *bound = s->sol.bound;
    return 1;
}

LAYSIM_API double laysim_solution_seconds(const laysim_solution *s)
{
    return api_is(s, API_MAGIC_SOLUTION) ? s->seconds : 0.0;
}

LAYSIM_API int32_t laysim_solution_config(const laysim_solution *s, int32_t op)
{
    return laysim_solution_has_assignment(s) && op >= 0 && op < s->sol.nops ? s->sol.cfg[op] : -1;
}

/* 1 when s assigns every op of p a configuration p has (a solution of another problem
 * is refused) and tensor is one of p's. */
static int fits(const laysim_problem *p, const laysim_solution *s, int32_t tensor)
{
    return api_is(p, API_MAGIC_PROBLEM) && p->p->finished && laysim_solution_has_assignment(s) &&
           s->sol.nops == p->p->nops && tensor >= 0 && tensor < p->p->ntensors &&
           !lsp_check_assignment(p->p, s->sol.cfg, NULL);
}

static const char *label_of(const laysim_problem *p, int32_t tensor, int32_t layout)
{
    const char *const *labels = p->p->tensors[tensor].labels;
    return labels && layout >= 0 ? labels[layout] : NULL;
}

LAYSIM_API int32_t laysim_solution_layout(const laysim_problem *p, const laysim_solution *s,
                                          int32_t tensor, const char **label)
{
    if (label)
        *label = NULL;
    if (!fits(p, s, tensor))
        return -1;
    int32_t layout = lsp_tensor_layout(p->p, s->sol.cfg, tensor);
    if (label)
        *label = label_of(p, tensor, layout);
    return layout;
}

LAYSIM_API int32_t laysim_problem_tensor_producer(const laysim_problem *p, int32_t tensor)
{
    return api_is(p, API_MAGIC_PROBLEM) && tensor >= 0 && tensor < p->p->ntensors
               ? p->p->tensors[tensor].producer
               : -1;
}

LAYSIM_API int32_t laysim_problem_tensor_uses(const laysim_problem *p, int32_t tensor)
{
    if (!api_is(p, API_MAGIC_PROBLEM) || !p->p->finished || tensor < 0 || tensor >= p->p->ntensors)
        return 0;
    return p->p->use_off[tensor + 1] - p->p->use_off[tensor];
}

LAYSIM_API int32_t laysim_solution_use_layout(const laysim_problem *p, const laysim_solution *s,
                                              int32_t tensor, int32_t i, int32_t *op,
                                              int32_t *slot, const char **label)
{
    if (label)
        *label = NULL;
    if (!fits(p, s, tensor) || i < 0 || i >= laysim_problem_tensor_uses(p, tensor))
        return -1;
    int32_t u = p->p->use_off[tensor] + i;
    int32_t layout = lsp_use_layout(p->p, s->sol.cfg, u);
    if (op)
        *op = p->p->use_op[u];
    if (slot)
        *slot = p->p->use_slot[u];
    if (label)
        *label = label_of(p, tensor, layout);
    return layout;
}

LAYSIM_API int32_t laysim_solution_conversion(const laysim_problem *p, const laysim_solution *s,
                                              int32_t tensor, int32_t i, const char **label,
                                              int64_t *cost)
{
    if (label)
        *label = NULL;
    if (!fits(p, s, tensor) || i < 0)
        return -1;
    int32_t layout = lsp_tensor_conversion(p->p, s->sol.cfg, tensor, i, cost);
    if (label)
        *label = label_of(p, tensor, layout);
    return layout;
}
