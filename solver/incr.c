/* solver/incr: incremental objective for local search and branch-and-bound. */
#include "solver/incr.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>

int lsp_incr_init(struct lsp_incr *s, const struct lsp_problem *p)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->cfg = malloc(((size_t)p->nops + 1) * sizeof *s->cfg);
    s->req_off = malloc(((size_t)p->ntensors + 1) * sizeof *s->req_off);
    if (!s->cfg || !s->req_off) {
        lsp_incr_free(s);
        return LS_ERR_NOMEM;
    }
    int64_t n = 0;
    for (int32_t t = 0; t < p->ntensors; t++) {
        s->req_off[t] = n;
        n += p->tensors[t].nlayouts;
    }
    s->req_off[p->ntensors] = n;
    s->req = calloc((size_t)n + 1, sizeof *s->req);
    if (!s->req) {
        lsp_incr_free(s);
        return LS_ERR_NOMEM;
    }
    for (int32_t o = 0; o < p->nops; o++)
        s->cfg[o] = -1;
    return 0;
}

void lsp_incr_free(struct lsp_incr *s)
{
    free(s->cfg);
    free(s->req);
    free(s->req_off);
    memset(s, 0, sizeof *s);
}

static int32_t src_layout(const struct lsp_incr *s, int32_t t)
{
    int32_t pr = s->p->tensors[t].producer;
    if (pr < 0 || s->cfg[pr] < 0)
        return -1;
    return lsp_cfg_out_layout(s->p, pr, s->cfg[pr]);
}

int64_t lsp_incr_tensor_cost(const struct lsp_incr *s, int32_t t)
{
    const struct lsp_tensor *x = &s->p->tensors[t];
    if (x->nlayouts < 2)
        return 0;
    int32_t src = src_layout(s, t);
    if (src < 0)
        return 0;
    const int32_t *r = s->req + s->req_off[t];
    const int64_t *row = s->p->tr + x->tr0 + (int64_t)src * x->nlayouts;
    int64_t sum = 0;
    for (int32_t l = 0; l < x->nlayouts; l++)
        if (r[l] && l != src)
            sum += row[l];
    return sum;
}

int64_t lsp_incr_set(struct lsp_incr *s, int32_t o, int32_t c)
{
    const struct lsp_problem *p = s->p;
    int32_t a = s->cfg[o];
    if (a == c)
        return 0;
    const struct lsp_op *op = &p->ops[o];
    int64_t d = 0;
    if (a >= 0) {
        d -= lsp_cfg_cost(p, o, a);
        const int32_t *la = lsp_cfg_layouts(p, o, a);
        for (int32_t i = 0; i < op->nin; i++) {
            int32_t t = op->in[i];
            int32_t *r = &s->req[s->req_off[t] + la[i]];
            if (--*r == 0) {
                int32_t src = src_layout(s, t);
                if (src >= 0 && src != la[i])
                    d -= lsp_tr_cost(p, t, src, la[i]);
            }
        }
    }
    if (c >= 0) {
        d += lsp_cfg_cost(p, o, c);
        const int32_t *lc = lsp_cfg_layouts(p, o, c);
        for (int32_t i = 0; i < op->nin; i++) {
            int32_t t = op->in[i];
            int32_t *r = &s->req[s->req_off[t] + lc[i]];
            if ((*r)++ == 0) {
                int32_t src = src_layout(s, t);
                if (src >= 0 && src != lc[i])
                    d += lsp_tr_cost(p, t, src, lc[i]);
            }
        }
    }
    if (op->out >= 0 && p->tensors[op->out].nlayouts >= 2) {
        d -= lsp_incr_tensor_cost(s, op->out);
        s->cfg[o] = c;
        d += lsp_incr_tensor_cost(s, op->out);
    }
    s->cfg[o] = c;
    s->cost += d;
    return d;
}

int64_t lsp_incr_delta(struct lsp_incr *s, int32_t o, int32_t c)
{
    int32_t a = s->cfg[o];
    int64_t d = lsp_incr_set(s, o, c);
    lsp_incr_set(s, o, a);
    return d;
}

int64_t lsp_incr_improve(struct lsp_incr *s, const int32_t *ops, int32_t nops, int peephole,
                         const struct ls_deadline *dl, int *timed_out)
{
    const struct lsp_problem *p = s->p;
    int64_t moves = 0;
    int changed = 1;
    if (timed_out)
        *timed_out = 0;
    if (!ops)
        nops = p->nops;
    while (changed) {
        changed = 0;
        if (dl && ls_deadline_passed(dl)) {
            if (timed_out)
                *timed_out = 1;
            break;
        }
        for (int32_t k = 0; k < nops; k++) {
            int32_t o = ops ? ops[k] : k;
            int32_t a = s->cfg[o];
            if (p->ops[o].ncfg < 2 || a < 0)
                continue;
            int64_t cap = lsp_cfg_cost(p, o, a);
            int64_t best = 0;
            int32_t bc = -1;
            for (int32_t c = 0; c < p->ops[o].ncfg; c++) {
                if (c == a || (peephole && lsp_cfg_cost(p, o, c) > cap))
                    continue;
                int64_t d = lsp_incr_delta(s, o, c);
                if (d < best) {
                    best = d;
                    bc = c;
                }
            }
            if (bc >= 0) {
                lsp_incr_set(s, o, bc);
                moves++;
                changed = 1;
            }
        }
    }
    return moves;
}
