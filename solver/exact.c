/* solver/exact: the flagship exact solver. Components of the cost-function network
 * (exact_fg) are solved one by one, smallest first, by bucket elimination when its
 * tables fit the memory budget and by mini-bucket bounds plus branch and bound otherwise
 * (exact_be). Anytime: the incumbent and the sum of proven component bounds are reported
 * when a limit stops it. Deterministic: no randomness, one thread. docs/exact.md. */
#include <stdlib.h>
#include <string.h>

#include "solver/exact_be.h"
#include "solver/exact_fg.h"
#include "solver/solver.h"

/* full keys: lsp_opts_check compares prefixes of "key=value" */
static const char *const exact_prefixes[] = {"exact.mem_limit=", "exact.max_table=", NULL};

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

int lsp_solve_exact(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                    struct lsp_result *r, struct ls_error *err)
{
    int64_t mem_limit, max_table;
    if (lsp_opts_check(o, exact_prefixes, err) ||
        lsp_opt_i64(o, "exact.mem_limit", (int64_t)768 << 20, &mem_limit, err) ||
        lsp_opt_i64(o, "exact.max_table", 0, &max_table, err))
        return LS_ERR_INPUT;
    if (mem_limit < 1024)
        return ls_error_msg(err, LS_ERR_INPUT, "exact.mem_limit: at least 1024 bytes");
    struct ls_deadline dl = ls_deadline_in(o->time_limit);
    struct ex_fg g;
    int rc = ex_fg_build(p, &g, err);
    if (rc) {
        ex_fg_free(&g);
        return rc;
    }
    int32_t *cfg = r->sol.cfg;
    int32_t *scratch = malloc((size_t)(p->nops ? p->nops : 1) * sizeof *scratch);
    struct comp_key *ck = malloc((size_t)(g.ncomp ? g.ncomp : 1) * sizeof *ck);
    if (!scratch || !ck) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory");
        goto out;
    }
    /* start: every op at its cheapest configuration */
    for (int32_t op = 0; op < p->nops; op++) {
        int32_t best = 0;
        for (int32_t c = 1; c < p->ops[op].ncfg; c++)
            if (lsp_cfg_cost(p, op, c) < lsp_cfg_cost(p, op, best))
                best = c;
        cfg[op] = scratch[op] = best;
    }
    for (int32_t c = 0; c < g.ncomp; c++)
        ck[c] = (struct comp_key){g.comp_var_off[c + 1] - g.comp_var_off[c], c};
    qsort(ck, (size_t)g.ncomp, sizeof *ck, cmp_comp);
    struct ex_be_opts bo = {(double)mem_limit / sizeof(int64_t), (double)max_table, &dl,
                            o->node_limit};
    int64_t total = 0, bound = 0;
    int32_t nopt = 0, nmbe = 0, width = 0;
    double maxtab = 0, entries = 0, nodes = 0, needed = 0;
    int stopped = 0;
    for (int32_t i = 0; i < g.ncomp; i++) {
        int32_t c = ck[i].id;
        int64_t cost = ex_comp_cost(p, &g, c, cfg);
        int64_t lb = 0;
        for (int32_t j = g.comp_op_off[c]; j < g.comp_op_off[c + 1]; j++)
            lb += lsp_cfg_cost(p, g.comp_op[j], cfg[g.comp_op[j]]);   /* cheapest cfgs */
        struct ex_be_out bout = {0};
        if (!stopped && ls_deadline_passed(&dl))
            stopped = 1;
        if (!stopped) {
            struct ex_be_opts co = bo;
            if (o->node_limit)
                co.node_limit = o->node_limit > (uint64_t)nodes ? o->node_limit - (uint64_t)nodes : 1;
            if ((rc = ex_be_solve(p, &g, c, &co, cfg, scratch, &cost, &bout, err)))
                goto out;
            if (bout.lb > lb)
                lb = bout.lb;
            if (bout.optimal)
                lb = cost;
            stopped = bout.stopped;
            nmbe += !bout.exact_be;
            if (bout.width > width)
                width = bout.width;
            if (bout.max_table > maxtab)
                maxtab = bout.max_table;
            if (bout.entries > entries)
                entries = bout.entries;
            if (bout.exact_entries > needed)
                needed = bout.exact_entries;
            nodes += (double)bout.nodes;
        }
        nopt += lb == cost;
        total += cost;
        bound += lb;
    }
    r->sol.cost = lsp_eval(p, cfg, NULL, NULL);
    if (r->sol.cost != total) {
        rc = ls_error_msg(err, LS_ERR_INTERNAL, "exact: component costs do not add up");
        goto out;
    }
    r->sol.has_bound = 1;
    r->sol.bound = bound;
    r->sol.status = bound == total ? LSP_OPTIMAL : LSP_FEASIBLE;
    lsp_stats_set(&r->stats, "components", g.ncomp);
    lsp_stats_set(&r->stats, "components_proven", nopt);
    lsp_stats_set(&r->stats, "components_minibucket", nmbe);
    lsp_stats_set(&r->stats, "variables", g.nvars);
    lsp_stats_set(&r->stats, "functions", g.nfn);
    lsp_stats_set(&r->stats, "induced_width", width);
    lsp_stats_set(&r->stats, "max_table_entries", maxtab);
    lsp_stats_set(&r->stats, "table_mib", entries * 8.0 / (1 << 20));
    lsp_stats_set(&r->stats, "exact_table_mib", needed * 8.0 / (1 << 20));
    lsp_stats_set(&r->stats, "nodes", nodes);
    lsp_stats_set(&r->stats, "stopped", stopped);
    rc = 0;
out:
    free(scratch);
    free(ck);
    ex_fg_free(&g);
    return rc;
}
