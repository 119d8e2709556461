/* solver/exact_dee: dead-end elimination before the MIP engine (see exact_dee.h). */
#include "solver/exact_dee.h"

#include <stdlib.h>
#include <string.h>

/* What the live cfgs allow, per (tensor t, layout m) at off[t] + m: how many consumer ops
 * have a live cfg that requests m (nreq), how many request it in every live cfg (nforce,
 * one of them in forcer), and the largest and least transpose cost into m from a layout
 * the producer's live cfgs output. */
struct dee_ctx {
    const struct lsp_problem *p;
    const uint8_t *dead;
    int64_t *off;
    int32_t *nreq, *nforce, *forcer;
    int64_t *worst_in, *least_in;
};

static int live(const struct dee_ctx *x, int32_t o, int32_t c)
{
    return !x->dead[x->p->ops[o].cfg0 + c];
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

/* Consumer u of t (counted once however many slots read t): its requests of each m. */
static void count_consumer(struct dee_ctx *x, int32_t t, int32_t u)
{
    const struct lsp_problem *p = x->p;
    for (int32_t m = 0; m < p->tensors[t].nlayouts; m++) {
        int some = 0, every = 1;
        for (int32_t c = 0; c < p->ops[u].ncfg; c++)
            if (live(x, u, c)) {
                int r = reads(p, u, c, t, m);
                some |= r;
                every &= r;
            }
        x->nreq[x->off[t] + m] += some;
        if (every) {
            x->nforce[x->off[t] + m]++;
            x->forcer[x->off[t] + m] = u;
        }
    }
}

static void refresh(struct dee_ctx *x)
{
    const struct lsp_problem *p = x->p;
    size_t n = (size_t)x->off[p->ntensors];
    memset(x->nreq, 0, n * sizeof *x->nreq);
    memset(x->nforce, 0, n * sizeof *x->nforce);
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t L = p->tensors[t].nlayouts, pr = p->tensors[t].producer;
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
            if (i == p->use_off[t] || p->use_op[i] != p->use_op[i - 1])   /* (op, slot) order */
                count_consumer(x, t, p->use_op[i]);
        for (int32_t m = 0; m < L; m++) {
            x->worst_in[x->off[t] + m] = 0;
            x->least_in[x->off[t] + m] = INT64_MAX;
        }
        for (int32_t c = 0; pr >= 0 && c < p->ops[pr].ncfg; c++)
            for (int32_t m = 0; live(x, pr, c) && m < L; m++) {
                int64_t w = lsp_tr_cost(p, t, lsp_cfg_out_layout(p, pr, c), m);
                int64_t *hi = &x->worst_in[x->off[t] + m], *lo = &x->least_in[x->off[t] + m];
                *hi = w > *hi ? w : *hi;
                *lo = w < *lo ? w : *lo;
            }
    }
}

/* Does an op other than o request (t, m) in every live cfg, i.e. in every context? */
static int forced_by_other(const struct dee_ctx *x, int64_t k, int32_t o)
{
    return x->nforce[k] >= 2 || (x->nforce[k] == 1 && x->forcer[k] != o);
}

/* The least, over every context, of cost(c) - cost(d) on o's output tensor: the layouts
 * some consumer requests in every context count in full, the others that some live
 * consumer cfg requests only where d's output pays more for them. */
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
        int64_t k = x->off[t] + m;
        if (x->nforce[k])
            least += diff;
        else if (diff < 0 && x->nreq[k])
            least += diff;
    }
    return least;
}

/* Part of the least of cost(c) - cost(d) on o's inputs: the requests of f that e does
 * not make, with sign +1 for f = c (extra cost of c) and -1 for f = d (extra cost of d).
 * A layout another op requests in every context costs nothing extra; one of c's that no
 * other op can request costs at least the cheapest transpose into it; one of d's at most
 * the dearest. */
static int64_t in_side(const struct dee_ctx *x, int32_t o, int32_t f, int32_t e, int sign)
{
    const struct lsp_problem *p = x->p;
    const struct lsp_op *op = &p->ops[o];
    const int32_t *lay = lsp_cfg_layouts(p, o, f);
    int64_t least = 0;
    for (int32_t s = 0; s < op->nin; s++) {
        int32_t t = op->in[s], m = lay[s], again = 0;
        for (int32_t j = 0; j < s; j++)
            again |= op->in[j] == t && lay[j] == m;
        int64_t k = x->off[t] + m;
        if (again || reads(p, o, e, t, m) || forced_by_other(x, k, o))
            continue;
        if (sign < 0)
            least -= x->worst_in[k];
        else if (x->nreq[k] == 1 && x->least_in[k] != INT64_MAX)   /* o alone requests m */
            least += x->least_in[k];
    }
    return least;
}

static int64_t in_gain(const struct dee_ctx *x, int32_t o, int32_t c, int32_t d)
{
    return in_side(x, o, c, d, 1) + in_side(x, o, d, c, -1);
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
    struct dee_ctx x = {p, dead, malloc(((size_t)p->ntensors + 1) * sizeof *x.off), NULL, NULL,
                        NULL, NULL, NULL};
    if (!x.off)
        return -1;
    x.off[0] = 0;
    for (int32_t t = 0; t < p->ntensors; t++)
        x.off[t + 1] = x.off[t] + p->tensors[t].nlayouts;
    size_t n = (size_t)x.off[p->ntensors] + 1;
    x.nreq = malloc(n * sizeof *x.nreq);
    x.nforce = malloc(n * sizeof *x.nforce);
    x.forcer = malloc(n * sizeof *x.forcer);
    x.worst_in = malloc(n * sizeof *x.worst_in);
    x.least_in = malloc(n * sizeof *x.least_in);
    int64_t total = x.nreq && x.nforce && x.forcer && x.worst_in && x.least_in ? 0 : -1;
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
    free(x.nreq);
    free(x.nforce);
    free(x.forcer);
    free(x.worst_in);
    free(x.least_in);
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
