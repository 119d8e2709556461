/* solver/exact_dee: dead-end elimination before the MIP engine (see exact_dee.h). */
#include "solver/exact_dee.h"

#include <stdlib.h>
#include <string.h>

/* What the live cfgs allow, per (tensor t, layout m) at off[t] + m: whether some live
 * consumer cfg requests m, and the largest transpose cost into m from a layout the
 * producer's live cfgs output. */
struct dee_ctx {
    const struct lsp_problem *p;
    const uint8_t *dead;
    int64_t *off;
    uint8_t *requested;
    int64_t *worst_in;
};

static int live(const struct dee_ctx *x, int32_t o, int32_t c)
{
    return !x->dead[x->p->ops[o].cfg0 + c];
}

static void refresh(struct dee_ctx *x)
{
    const struct lsp_problem *p = x->p;
    memset(x->requested, 0, (size_t)x->off[p->ntensors]);
    memset(x->worst_in, 0, (size_t)x->off[p->ntensors] * sizeof *x->worst_in);
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t L = p->tensors[t].nlayouts, pr = p->tensors[t].producer;
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
            for (int32_t c = 0; c < p->ops[p->use_op[i]].ncfg; c++)
                if (live(x, p->use_op[i], c))
                    x->requested[x->off[t] + lsp_cfg_layouts(p, p->use_op[i], c)[p->use_slot[i]]] = 1;
        for (int32_t c = 0; pr >= 0 && c < p->ops[pr].ncfg; c++)
            for (int32_t m = 0; live(x, pr, c) && m < L; m++) {
                int64_t w = lsp_tr_cost(p, t, lsp_cfg_out_layout(p, pr, c), m);
                if (w > x->worst_in[x->off[t] + m])
                    x->worst_in[x->off[t] + m] = w;
            }
    }
}

/* 1 when some input slot of cfg c of o reads tensor t in layout m. */
static int reads(const struct lsp_problem *p, int32_t o, int32_t c, int32_t t, int32_t m)
{
    const int32_t *lay = lsp_cfg_layouts(p, o, c);
    for (int32_t s = 0; s < p->ops[o].nin; s++)
        if (p->ops[o].in[s] == t && lay[s] == m)
            return 1;
    return 0;
}

/* The least, over every context, of cost(c) - cost(d) on o's output tensor: the other
 * consumers request any subset of the requestable layouts. */
static int64_t out_gain(const struct dee_ctx *x, int32_t o, int32_t c, int32_t d)
{
    const struct lsp_problem *p = x->p;
    int32_t t = p->ops[o].out;
    if (t < 0)
        return 0;
    int32_t lc = lsp_cfg_out_layout(p, o, c), ld = lsp_cfg_out_layout(p, o, d);
    int64_t least = 0;
    for (int32_t m = 0; lc != ld && m < p->tensors[t].nlayouts; m++) {
        int64_t diff = lsp_tr_cost(p, t, lc, m) - lsp_tr_cost(p, t, ld, m);
        if (diff < 0 && x->requested[x->off[t] + m])
            least += diff;
    }
    return least;
}

/* The least of cost(c) - cost(d) on o's inputs: what d requests and c does not may be
 * paid by d alone, at the worst producer layout; what c requests more costs >= 0. */
static int64_t in_gain(const struct dee_ctx *x, int32_t o, int32_t c, int32_t d)
{
    const struct lsp_problem *p = x->p;
    const struct lsp_op *op = &p->ops[o];
    const int32_t *lay = lsp_cfg_layouts(p, o, d);
    int64_t least = 0;
    for (int32_t s = 0; s < op->nin; s++) {
        int32_t t = op->in[s], m = lay[s], again = 0;
        for (int32_t j = 0; j < s; j++)
            again |= op->in[j] == t && lay[j] == m;
        if (!again && !reads(p, o, c, t, m))
            least -= x->worst_in[x->off[t] + m];
    }
    return least;
}

/* Is c at least as expensive as d in every context? */
static int dominated(const struct dee_ctx *x, int32_t o, int32_t c, int32_t d)
{
    int64_t least = lsp_cfg_cost(x->p, o, c) - lsp_cfg_cost(x->p, o, d);
    if (least < 0)
        return 0;
    least += out_gain(x, o, c, d);
    return least >= 0 && least + in_gain(x, o, c, d) >= 0;
}

/* Kill every dominated cfg of o (by a cfg still live); the number killed. */
static int64_t sweep_op(struct dee_ctx *x, uint8_t *dead, int32_t o)
{
    int64_t killed = 0;
    for (int32_t c = 0; c < x->p->ops[o].ncfg; c++)
        for (int32_t d = 0; live(x, o, c) && d < x->p->ops[o].ncfg; d++)
            if (d != c && live(x, o, d) && dominated(x, o, c, d)) {
                dead[x->p->ops[o].cfg0 + c] = 1;
                killed++;
            }
    return killed;
}

int64_t ex_dee(const struct lsp_problem *p, uint8_t *dead)
{
    memset(dead, 0, (size_t)p->ncfg);
    struct dee_ctx x = {p, dead, malloc(((size_t)p->ntensors + 1) * sizeof *x.off), NULL, NULL};
    if (!x.off)
        return -1;
    x.off[0] = 0;
    for (int32_t t = 0; t < p->ntensors; t++)
        x.off[t + 1] = x.off[t] + p->tensors[t].nlayouts;
    x.requested = malloc((size_t)x.off[p->ntensors] + 1);
    x.worst_in = malloc(((size_t)x.off[p->ntensors] + 1) * sizeof *x.worst_in);
    int64_t total = x.requested && x.worst_in ? 0 : -1;
    /* a kill shrinks the contexts of the neighbours: sweep again while it kills, the
     * tables refreshed between sweeps (a sweep on stale tables is still sound: contexts
     * only shrink) */
    for (int64_t killed = 1; total >= 0 && killed;) {
        refresh(&x);
        killed = 0;
        for (int32_t o = 0; o < p->nops; o++)
            killed += sweep_op(&x, dead, o);
        total += killed;
    }
    free(x.off);
    free(x.requested);
    free(x.worst_in);
    return total;
}

static int copy_op(const struct lsp_problem *p, const uint8_t *dead, int32_t o,
                   struct lsp_problem *q, int32_t *keep, int64_t *nkeep, struct ls_error *err)
{
    const struct lsp_op *op = &p->ops[o];
    int32_t id;
    int rc = lsp_add_op(q, op->name, op->kind, op->nin, op->in, op->out, &id, err);
    for (int32_t c = 0; !rc && c < op->ncfg; c++) {
        if (dead[op->cfg0 + c])
            continue;
        rc = lsp_add_cfg(q, id, lsp_cfg_cost(p, o, c), lsp_cfg_layouts(p, o, c), NULL, err);
        keep[(*nkeep)++] = c;
    }
    return rc;
}

int ex_dee_restrict(const struct lsp_problem *p, const uint8_t *dead, struct lsp_problem **q,
                    int32_t **keep, struct ls_error *err)
{
    *q = lsp_new();
    *keep = malloc(((size_t)p->ncfg + 1) * sizeof **keep);
    if (!*q || !*keep)
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory");
    int rc = 0;
    for (int32_t t = 0; !rc && t < p->ntensors; t++) {
        const struct lsp_tensor *x = &p->tensors[t];
        int32_t id;
        rc = lsp_add_tensor(*q, x->name, x->nlayouts, x->labels,
                            x->tr0 < 0 ? NULL : p->tr + x->tr0, &id, err);
    }
    int64_t nkeep = 0;
    for (int32_t o = 0; !rc && o < p->nops; o++)
        rc = copy_op(p, dead, o, *q, *keep, &nkeep, err);
    return rc ? rc : lsp_finish(*q, err);
}
