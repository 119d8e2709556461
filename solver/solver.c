/* solver/solver: options, statistics, results and the registry. */
#include "solver/solver.h"
#include "util/clock.h"
#include "util/invariant.h"
#include "util/prng.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void lsp_opts_init(struct lsp_solve_opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = LS_SEED_DEFAULT;
    o->threads = 1;
}

int lsp_opts_add_param(struct lsp_solve_opts *o, const char *kv, struct ls_error *err)
{
    const char *eq = strchr(kv, '=');
    if (!eq || eq == kv || !eq[1])
        return ls_error_msg(err, LS_ERR_INPUT, "parameter '%s': expected key=value", kv);
    if (o->nparams >= LSP_MAX_PARAMS)
        return ls_error_msg(err, LS_ERR_INPUT, "too many parameters (max %d)", LSP_MAX_PARAMS);
    /* Keys are compared up to the '='; value points past it. */
    o->params[o->nparams].key = kv;
    o->params[o->nparams].value = eq + 1;
    o->nparams++;
    return 0;
}

static int key_is(const struct lsp_param *pr, const char *key)
{
    size_t n = (size_t)(pr->value - 1 - pr->key);
    return strlen(key) == n && !memcmp(pr->key, key, n);
}

const char *lsp_opt_str(const struct lsp_solve_opts *o, const char *key)
{
    const char *v = NULL;
    for (int i = 0; i < o->nparams; i++)   /* the last setting wins */
        if (key_is(&o->params[i], key))
            v = o->params[i].value;
    return v;
}

void lsp_stats_set(struct lsp_stats *s, const char *key, double value)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->item[i].key, key)) {
            s->item[i].value = value;
            return;
        }
    if (s->n >= LSP_MAX_STATS || strlen(key) > LSP_STAT_KEY_MAX) {
        if (!s->lost)
            s->lost = key;   /* the solvers' keys are string literals */
        return;
    }
    snprintf(s->item[s->n].key, sizeof s->item[s->n].key, "%s", key);
    s->item[s->n].value = value;
    s->n++;
}

void lsp_stats_add(struct lsp_stats *s, const char *key, double delta)
{
    const double *v = lsp_stats_get(s, key);
    lsp_stats_set(s, key, (v ? *v : 0) + delta);
}

int lsp_stats_check(const struct lsp_stats *s, const char *who, struct ls_error *err)
{
    if (!s->lost)
        return 0;
    return ls_error_msg(err, LS_ERR_INTERNAL,
                        "%s: statistic '%.60s' did not fit (at most %d statistics of at "
                        "most %d bytes: LSP_MAX_STATS, LSP_STAT_KEY_MAX)",
                        who, s->lost, LSP_MAX_STATS, LSP_STAT_KEY_MAX);
}

const double *lsp_stats_get(const struct lsp_stats *s, const char *key)
{
    for (int i = 0; i < s->n; i++)
        if (!strcmp(s->item[i].key, key))
            return &s->item[i].value;
    return NULL;
}

void lsp_result_init(struct lsp_result *r)
{
    memset(r, 0, sizeof *r);
    lsp_solution_init(&r->sol);
}

void lsp_result_free(struct lsp_result *r)
{
    lsp_solution_free(&r->sol);
    lsp_result_init(r);
}

static const struct lsp_solver registry[] = {
#define LSP_SOLVER(name, summary) {#name, summary, lsp_solve_##name},
#include "solver/solvers.def"
#undef LSP_SOLVER
};

const struct lsp_solver *lsp_solvers(size_t *n)
{
    *n = sizeof registry / sizeof registry[0];
    return registry;
}

const struct lsp_solver *lsp_solver_find(const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++)
        if (!strcmp(registry[i].name, name))
            return &registry[i];
    return NULL;
}

int lsp_solve(const char *name, const struct lsp_problem *p, const struct lsp_solve_opts *o,
              struct lsp_result *r, struct ls_error *err)
{
    lsp_result_init(r);
    const struct lsp_solver *s = lsp_solver_find(name);
    if (!s)
        return ls_error_msg(err, LS_ERR_INPUT, "unknown solver '%s'", name);
    if (NEVER(!p->finished))
        return LS_INTERNAL(err, "lsp_solve: problem not finished");
    int rc = lsp_params_check(name, o, err);
    if (rc || (rc = lsp_solution_alloc(&r->sol, p, err)))
        return rc;
    uint64_t t0 = ls_now_ns();
    rc = s->solve(p, o, r, err);
    r->seconds = ls_seconds_since(t0);
    if (rc)
        return rc;
    if ((rc = lsp_stats_check(&r->stats, name, err)))
        return rc;
    if (r->sol.nops == 0 || !r->sol.cfg) {
        r->sol.status = LSP_UNKNOWN;
        if (p->nops > 0)
            return 0;
    }
    /* the solution's shape: one configuration per op of p, each one of the op's */
    if (NEVER(r->sol.nops != p->nops))
        return LS_INTERNAL(err, "the solver's assignment does not have one entry per op");
    if (r->sol.cfg) {
        if (NEVER(lsp_check_assignment(p, r->sol.cfg, err) != 0))
            return ls_error_msg(err, LS_ERR_INTERNAL, "solver %s: invalid assignment (%s)", name,
                                err->msg);
        int64_t c = lsp_eval(p, r->sol.cfg, NULL, NULL);
        if (NEVER(c != r->sol.cost))
            return ls_error_msg(err, LS_ERR_INTERNAL,
                                "solver %s reported cost %" PRId64 " but the objective is %" PRId64,
                                name, r->sol.cost, c);
        if (NEVER(r->sol.has_bound && r->sol.bound > c))
            return ls_error_msg(err, LS_ERR_INTERNAL,
                                "solver %s reported bound %" PRId64 " above its cost %" PRId64, name,
                                r->sol.bound, c);
        if (r->sol.status == LSP_OPTIMAL) {
            r->sol.has_bound = 1;
            r->sol.bound = c;
        }
    }
    return 0;
}
