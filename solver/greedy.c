/* solver/greedy: the paper's greedy. In topological (file) order each op takes the cfg
 * with the smallest marginal increase of the objective given the ops already assigned
 * (its cost plus the conversions it newly causes on its inputs; a layout that an assigned
 * co-consumer already requests is free; ties: lowest index). Then single-operator moves
 * against the full objective until no single move improves it. */
#include "solver/heur.h"
#include "util/clock.h"

void lsp_greedy_construct(struct lsp_incr *s, const int32_t *ops, int32_t n)
{
    const struct lsp_problem *p = s->p;
    if (!ops)
        n = p->nops;
    for (int32_t k = 0; k < n; k++) {
        int32_t o = ops ? ops[k] : k;
        if (s->cfg[o] >= 0)
            continue;
        int32_t best = 0;
        int64_t bd = 0;
        for (int32_t c = 0; c < p->ops[o].ncfg; c++) {
            int64_t d = lsp_incr_set(s, o, c);
            lsp_incr_set(s, o, -1);
            if (c == 0 || d < bd) {
                bd = d;
                best = c;
            }
        }
        lsp_incr_set(s, o, best);
    }
}

int lsp_solve_greedy(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                     struct lsp_result *r, struct ls_error *err)
{
    struct lsp_incr s;
    if (lsp_incr_init(&s, p))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct ls_deadline dl = ls_deadline_in(o->time_limit);
    lsp_greedy_construct(&s, NULL, 0);
    int64_t initial = s.cost;
    int timed_out = 0;
    int64_t moves = lsp_incr_improve(&s, NULL, 0, 0, &dl, &timed_out);
    lsp_result_take(r, &s, lsp_trivial_bound(p));
    lsp_stats_set(&r->stats, "construct_cost", (double)initial);
    lsp_stats_set(&r->stats, "moves", (double)moves);
    lsp_stats_set(&r->stats, "timed_out", timed_out);
    lsp_incr_free(&s);
    return 0;
}
