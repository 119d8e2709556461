/* solver/local: every op takes its cheapest configuration; transposes are ignored when
 * choosing (ties: lowest index) but counted in the reported cost. */
#include "solver/heur.h"

#include <string.h>

int64_t lsp_trivial_bound(const struct lsp_problem *p)
{
    int64_t lb = 0;
    for (int32_t o = 0; o < p->nops; o++) {
        int64_t m = lsp_cfg_cost(p, o, 0);
        for (int32_t c = 1; c < p->ops[o].ncfg; c++)
            if (lsp_cfg_cost(p, o, c) < m)
                m = lsp_cfg_cost(p, o, c);
        lb += m;
    }
    return lb;
}

void lsp_result_take(struct lsp_result *r, const struct lsp_incr *s, int64_t bound)
{
    const struct lsp_problem *p = s->p;
    memcpy(r->sol.cfg, s->cfg, (size_t)p->nops * sizeof *s->cfg);
    r->sol.nops = p->nops;
    r->sol.cost = lsp_eval(p, r->sol.cfg, NULL, NULL);
    r->sol.has_bound = 1;
    r->sol.bound = bound < r->sol.cost ? bound : r->sol.cost;
    r->sol.status = r->sol.bound == r->sol.cost ? LSP_OPTIMAL : LSP_FEASIBLE;
}

int lsp_solve_local(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                    struct lsp_result *r, struct ls_error *err)
{
    (void)o;
    (void)err;
    for (int32_t op = 0; op < p->nops; op++) {
        int32_t best = 0;
        for (int32_t c = 1; c < p->ops[op].ncfg; c++)
            if (lsp_cfg_cost(p, op, c) < lsp_cfg_cost(p, op, best))
                best = c;
        r->sol.cfg[op] = best;
    }
    int64_t opc, trc;
    r->sol.nops = p->nops;
    r->sol.cost = lsp_eval(p, r->sol.cfg, &opc, &trc);
    r->sol.has_bound = 1;
    r->sol.bound = lsp_trivial_bound(p);
    r->sol.status = r->sol.bound == r->sol.cost ? LSP_OPTIMAL : LSP_FEASIBLE;
    lsp_stats_set(&r->stats, "op_cost", (double)opc);
    lsp_stats_set(&r->stats, "transpose_cost", (double)trc);
    return 0;
}
