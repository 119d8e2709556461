/* solver/exact: the flagship exact solver. Components of the cost-function network
 * (exact_fg) are solved one by one, smallest first, by bucket elimination when its
 * tables fit the memory budget and by mini-bucket bounds plus branch and bound otherwise
 * (exact_be). When a component is wide (its tables past exact.race_entries or the
 * budget), the portfolio (exact_pf) seeds the incumbent with the rule-based solver and
 * races CBC on the local-polytope MIP (exact_mip) in a child process: the first proof
 * wins and stops the other. Anytime: the best incumbent and the best proven bound are
 * reported when a limit stops it. docs/exact.md. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/exact_be.h"
#include "solver/exact_fg.h"
#include "solver/exact_mip.h"
#include "solver/exact_pf.h"
#include "solver/exact_wc.h"
#include "solver/solver.h"


enum { ENGINE_AUTO, ENGINE_BE, ENGINE_MIP, ENGINE_WC };   /* exact.engine's choices */

struct comp_key {
    int32_t nvars, id;
};

static int cmp_comp(const void *a, const void *b)
{
    const struct comp_key *x = a, *y = b;
    if (x->nvars != y->nvars)
        return x->nvars < y->nvars ? -1 : 1;
    return (x->id > y->id) - (x->id < y->id);
}

/* What the component loop found, for the statistics and the merge with the MIP. */
struct be_run {
    int64_t total, bound;
    int32_t nopt, nmbe, width;
    double maxtab, entries, nodes, needed;
    int stopped;
    char *proven;            /* per component */
};

static void note(struct be_run *s, const struct ex_be_out *b)
{
    s->nmbe += !b->exact_be;
    if (b->width > s->width)
        s->width = b->width;
    if (b->max_table > s->maxtab)
        s->maxtab = b->max_table;
    if (b->entries > s->entries)
        s->entries = b->entries;
    if (b->exact_entries > s->needed)
        s->needed = b->exact_entries;
    s->nodes += (double)b->nodes;
}

/* Every component by bucket elimination / branch and bound, smallest first. cfg holds
 * the cheapest cfgs on entry, the incumbent on return; lb0[c]: the trivial bound. */
static int run_be(const struct lsp_problem *p, const struct ex_fg *g, struct ex_be_opts *bo,
                  const int64_t *lb0, int32_t *cfg, int32_t *scratch, struct ex_pf *pf,
                  struct be_run *s, struct ls_error *err)
{
    struct comp_key *ck = malloc((size_t)(g->ncomp ? g->ncomp : 1) * sizeof *ck);
    if (!ck)
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory");
    for (int32_t c = 0; c < g->ncomp; c++)
        ck[c] = (struct comp_key){g->comp_var_off[c + 1] - g->comp_var_off[c], c};
    qsort(ck, (size_t)g->ncomp, sizeof *ck, cmp_comp);
    int rc = 0;
    for (int32_t i = 0; i < g->ncomp; i++) {
        int32_t c = ck[i].id;
        int64_t cost = ex_comp_cost(p, g, c, cfg), lb = lb0[c];
        struct ex_be_out bout = {0};
        if (!s->stopped && ls_deadline_passed(bo->deadline))
            s->stopped = 1;
        if (!s->stopped) {
            struct ex_be_opts co = *bo;
            if (bo->node_limit)
                co.node_limit = bo->node_limit > (uint64_t)s->nodes
                                    ? bo->node_limit - (uint64_t)s->nodes : 1;
            if ((rc = ex_be_solve(p, g, c, &co, cfg, scratch, &cost, &bout, err)))
                break;
            if (bout.lb > lb)
                lb = bout.lb;
            if (bout.optimal)
                lb = cost;
            s->stopped = bout.stopped;
            note(s, &bout);
        }
        pf->done[c] = 1;   /* solved, proven or not: the seed leaves it alone */
        s->proven[c] = lb == cost;
        s->nopt += lb == cost;
        s->total += cost;
        s->bound += lb;
    }
    free(ck);
    return rc;
}

/* exact.engine=wc: every component by the soft-arc-consistency search alone, from the
 * cheapest cfgs (tests compare it with brute force and with elimination). */
static int run_wc(const struct lsp_problem *p, const struct ex_fg *g,
                  const struct ls_deadline *dl, uint64_t node_limit, const int64_t *lb0,
                  int32_t *cfg, struct ex_pf *pf, struct be_run *s, struct ls_error *err)
{
    for (int32_t c = 0; c < g->ncomp; c++) {
        int64_t cost = ex_comp_cost(p, g, c, cfg), lb = lb0[c];
        struct ex_wc_out wo = {0};
        if (!s->stopped) {
            struct ex_wc_opts wopt = {dl, node_limit, 0, 0};
            if (ex_wc_solve(p, g, c, &wopt, cfg, &cost, &wo))
                return ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory");
            if (wo.unsupported)
                return ls_error_msg(err, LS_ERR_INTERNAL, "exact: a function of arity > 2");
            lb = wo.lb > lb ? wo.lb : lb;
            s->stopped = wo.stopped;
            pf->wc_nodes += (double)wo.nodes;
            pf->wc_proven += wo.optimal;
        }
        s->proven[c] = lb == cost;
        s->nopt += lb == cost;
        s->total += cost;
        s->bound += lb;
    }
    return 0;
}

/* The MIP engine's answer joined with bucket elimination's, component by component (they
 * are independent): a component proven by bucket elimination keeps its assignment (so
 * the answer does not depend on which engine finished first there), the others take the
 * cheaper of the two. The bound is the better proven one. */
static void merge_mip(const struct lsp_problem *p, const struct ex_fg *g,
                      const struct ex_mip_job *j, int32_t *cfg, struct be_run *s)
{
    s->total = 0;
    for (int32_t c = 0; c < g->ncomp; c++) {
        int64_t mine = ex_comp_cost(p, g, c, cfg), theirs = ex_comp_cost(p, g, c, j->cfg);
        if (!s->proven[c] && theirs < mine) {
            for (int32_t k = g->comp_op_off[c]; k < g->comp_op_off[c + 1]; k++)
                cfg[g->comp_op[k]] = j->cfg[g->comp_op[k]];
            mine = theirs;
        }
        s->total += mine;
    }
    if (j->out.status == LSP_OPTIMAL) {
        s->bound = s->total;   /* each component of an optimum is optimal */
        s->nopt = g->ncomp;
    } else if (j->out.bound > s->bound) {
        s->bound = j->out.bound;
    }
    if (s->bound > s->total)
        s->bound = s->total;
}

/* The ops of the components bucket elimination did not prove (or proved after a race,
 * whose winner may vary between runs), to be made canonical. */
static int canonical_rest(const struct lsp_problem *p, const struct ex_fg *g,
                          const struct be_run *s, const char *raced, int32_t *cfg)
{
    int32_t *ops = malloc(((size_t)p->nops + 1) * sizeof *ops), n = 0;
    if (!ops)
        return LS_ERR_NOMEM;
    for (int32_t c = 0; c < g->ncomp; c++)
        for (int32_t k = g->comp_op_off[c];
             (!s->proven[c] || raced[c]) && k < g->comp_op_off[c + 1]; k++)
            ops[n++] = g->comp_op[k];
    int rc = ex_canonical(p, ops, n, cfg);
    free(ops);
    return rc;
}

static void set_stats(struct lsp_stats *st, const struct ex_fg *g, const struct be_run *s,
                      const struct ex_pf *pf, int mip_won, double mip_nodes)
{
    lsp_stats_set(st, "components", g->ncomp);
    lsp_stats_set(st, "components_proven", s->nopt);
    lsp_stats_set(st, "components_minibucket", s->nmbe);
    lsp_stats_set(st, "variables", g->nvars);
    lsp_stats_set(st, "functions", g->nfn);
    lsp_stats_set(st, "induced_width", s->width);
    lsp_stats_set(st, "max_table_entries", s->maxtab);
    lsp_stats_set(st, "table_mib", s->entries * 8.0 / (1 << 20));
    lsp_stats_set(st, "exact_table_mib", s->needed * 8.0 / (1 << 20));
    lsp_stats_set(st, "nodes", s->nodes);
    lsp_stats_set(st, "stopped", s->stopped);
    lsp_stats_set(st, "mip_started", pf->started);
    lsp_stats_set(st, "mip_won", mip_won);
    lsp_stats_set(st, "mip_nodes", mip_nodes);
    lsp_stats_set(st, "seed_gain", (double)pf->seed_gain);
    lsp_stats_set(st, "wc_proven", pf->wc_proven);
    lsp_stats_set(st, "wc_nodes", pf->wc_nodes);
    lsp_stats_set(st, "z3_proven", pf->z3_proven);
}

/* exact.engine=mip: CBC alone, in this process, from the rule-based start. */
static int solve_mip_only(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                          struct lsp_result *r, struct ls_error *err)
{
    struct lsp_solve_opts ro;   /* rule-based without exact's params */
    lsp_opts_init(&ro);
    ro.time_limit = o->time_limit;
    struct lsp_result rb;
    lsp_result_init(&rb);
    int rc = lsp_solution_alloc(&rb.sol, p, err);
    if (!rc)
        rc = lsp_solve_rulebased(p, &ro, &rb, err);
    struct ex_mip_out out;
    if (!rc)
        rc = ex_mip_solve(p, o->time_limit, rb.sol.nops ? rb.sol.cfg : NULL, r->sol.cfg, &out,
                          err);
    if (!rc && out.status == LSP_UNKNOWN && rb.sol.nops) {   /* CBC found nothing in time */
        memcpy(r->sol.cfg, rb.sol.cfg, (size_t)p->nops * sizeof *r->sol.cfg);
        out = (struct ex_mip_out){LSP_FEASIBLE, rb.sol.cost, out.bound, out.nodes};
    }
    lsp_result_free(&rb);
    if (rc)
        return rc;
    r->sol.status = out.status;
    if (out.status == LSP_UNKNOWN) {
        r->sol.nops = 0;
        return 0;
    }
    r->sol.cost = lsp_eval(p, r->sol.cfg, NULL, NULL);
    r->sol.has_bound = 1;
    r->sol.bound = out.bound < r->sol.cost ? out.bound : r->sol.cost;
    lsp_stats_set(&r->stats, "mip_nodes", out.nodes);
    return 0;
}

static int read_opts(const struct lsp_solve_opts *o, int *engine, int64_t *mem_limit,
                     int64_t *max_table, double *race, double *z3s, struct ls_error *err)
{
    double eng, mem, table;
    if (lsp_param_num(o, "exact.engine", &eng, err) ||
        lsp_param_num(o, "exact.mem_limit", &mem, err) ||
        lsp_param_num(o, "exact.max_table", &table, err) ||
        lsp_param_num(o, "exact.race_entries", race, err) ||
        lsp_param_num(o, "exact.z3_seconds", z3s, err))
        return LS_ERR_INPUT;
    *engine = (int)eng;
    *mem_limit = isnan(mem) ? ex_default_mem_limit() : (int64_t)mem;
    *max_table = (int64_t)table;
    return 0;
}

int lsp_solve_exact(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                    struct lsp_result *r, struct ls_error *err)
{
    int64_t mem_limit, max_table;
    double race, z3s;
    int engine, rc = read_opts(o, &engine, &mem_limit, &max_table, &race, &z3s, err);
    if (rc)
        return rc;
    if (engine == ENGINE_MIP)
        return solve_mip_only(p, o, r, err);
    struct ex_fg g;
    if ((rc = ex_fg_build(p, &g, err))) {
        ex_fg_free(&g);
        return rc;
    }
    int32_t *cfg = r->sol.cfg;
    int32_t *scratch = malloc((size_t)(p->nops ? p->nops : 1) * sizeof *scratch);
    int64_t *lb0 = calloc((size_t)(g.ncomp ? g.ncomp : 1), sizeof *lb0);
    struct be_run s = {.proven = calloc((size_t)g.ncomp + 1, 1)};
    struct ex_pf pf = {.p = p, .g = &g, .o = o, .race_entries = race, .z3_seconds = z3s,
                       .budget = (double)mem_limit / sizeof(int64_t),
                       .done = calloc((size_t)g.ncomp + 1, 1),
                       .raced = calloc((size_t)g.ncomp + 1, 1)};
    atomic_init(&pf.proved, 0);
    if (!scratch || !lb0 || !s.proven || !pf.done || !pf.raced) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory");
        goto out;
    }
    /* start: every op at its cheapest configuration (the trivial bound per component) */
    for (int32_t op = 0; op < p->nops; op++) {
        int32_t best = 0;
        for (int32_t c = 1; c < p->ops[op].ncfg; c++)
            if (lsp_cfg_cost(p, op, c) < lsp_cfg_cost(p, op, best))
                best = c;
        cfg[op] = scratch[op] = best;
    }
    for (int32_t c = 0; c < g.ncomp; c++)
        for (int32_t j = g.comp_op_off[c]; j < g.comp_op_off[c + 1]; j++)
            lb0[c] += lsp_cfg_cost(p, g.comp_op[j], cfg[g.comp_op[j]]);
    struct ls_deadline dl = ls_deadline_in(o->time_limit);
    dl.stop = &pf.proved;
    pf.dl = &dl;
    struct ex_be_opts bo = {pf.budget, (double)max_table, &dl, o->node_limit,
                            engine == ENGINE_AUTO ? ex_pf_sized : NULL, &pf};
    rc = engine == ENGINE_WC ? run_wc(p, &g, &dl, o->node_limit, lb0, cfg, &pf, &s, err)
                             : run_be(p, &g, &bo, lb0, cfg, scratch, &pf, &s, err);
    int mip_won = 0;
    double mip_nodes = 0;
    if (pf.started) {
        if (!rc && s.nopt < g.ncomp && !atomic_load(&pf.proved) && o->time_limit > 0)
            ex_mip_wait(&pf.job, &dl, 2.0);   /* both stopped by the clock: its answer */
        if (ex_mip_finish(&pf.job) && !rc && s.nopt < g.ncomp) {
            mip_won = pf.job.out.status == LSP_OPTIMAL;
            mip_nodes = pf.job.out.nodes;
            merge_mip(p, &g, &pf.job, cfg, &s);
        }
        ex_mip_job_free(&pf.job);
    }
    if (rc)
        goto out;
    if (s.bound == s.total && (pf.started || engine == ENGINE_WC) &&
        (rc = canonical_rest(p, &g, &s, pf.raced, cfg))) {
        rc = ls_error_msg(err, rc, "exact: out of memory");
        goto out;
    }
    r->sol.cost = lsp_eval(p, cfg, NULL, NULL);
    if (r->sol.cost != s.total) {
        rc = ls_error_msg(err, LS_ERR_INTERNAL, "exact: component costs do not add up");
        goto out;
    }
    r->sol.has_bound = 1;
    r->sol.bound = s.bound;
    r->sol.status = s.bound == s.total ? LSP_OPTIMAL : LSP_FEASIBLE;
    set_stats(&r->stats, &g, &s, &pf, mip_won, mip_nodes);
out:
    if (pf.started) {   /* an error after the start: the child must not outlive us */
        ex_mip_finish(&pf.job);
        ex_mip_job_free(&pf.job);
    }
    free(scratch);
    free(lb0);
    free(s.proven);
    free(pf.done);
    free(pf.raced);
    ex_fg_free(&g);
    return rc;
}
