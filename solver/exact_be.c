/* solver/exact_be: (mini-)bucket elimination and branch and bound on one component.
 * See docs/exact.md for the scheme and why the bounds are valid. */
#include "solver/exact_be.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "solver/exact_order.h"
#include "util/vec.h"

struct msg {
    struct ex_fn f;          /* tab NULL in a dry run */
    double dsize;            /* entries, as a double (a dry run may overflow int64) */
    int32_t from, to;        /* bucket positions; to == n: the root (a constant) */
    int32_t next;            /* next message into bucket `to`, -1 ends */
};

struct be {
    const struct ex_fg *g;
    int32_t n;
    int32_t *order;          /* n global var ids */
    int32_t *pos;            /* nvars: position of a var in order (comp vars only) */
    int32_t *orig_off, *orig_fn;   /* original functions by bucket (CSR, n + 1) */
    struct msg *m;
    int32_t nm;
    size_t capm;
    int32_t *in_head;        /* n + 1 */
    int32_t *out_off;        /* n + 1: messages from bucket k are m[out_off[k]..out_off[k+1]) */
    double entries, maxsize;
    int32_t width;
    const struct ls_deadline *dl;
    int stopped;
};

static void be_free_msgs(struct be *b)
{
    for (int32_t i = 0; i < b->nm; i++)
        ex_fn_free(&b->m[i].f);
    b->nm = 0;
}

/* Stable sort by arity, largest first (insertion sort: buckets are small). */
static void sort_by_arity(const struct ex_fn **f, int32_t n)
{
    for (int32_t i = 1; i < n; i++) {
        const struct ex_fn *x = f[i];
        int32_t j = i;
        for (; j > 0 && f[j - 1]->arity < x->arity; j--)
            f[j] = f[j - 1];
        f[j] = x;
    }
}

/* Union of sorted scopes: out gets the merge of a (na) and b (nb); returns its length. */
static int32_t merge(const int32_t *a, int32_t na, const int32_t *b, int32_t nb, int32_t *out)
{
    int32_t i = 0, j = 0, m = 0;
    while (i < na || j < nb) {
        if (j >= nb || (i < na && a[i] < b[j]))
            out[m++] = a[i++];
        else if (i >= na || b[j] < a[i])
            out[m++] = b[j++];
        else {
            out[m++] = a[i++];
            j++;
        }
    }
    return m;
}

static double scope_size(const struct ex_fg *g, const int32_t *s, int32_t n)
{
    double z = 1;
    for (int32_t i = 0; i < n; i++)
        z *= g->var[s[i]].dom;
    return z > 1e300 ? 1e300 : z;
}

/* Compute the message of one mini-bucket: min over v of the sum of fns. */
static int fill_msg(struct be *b, struct msg *ms, int32_t v, const struct ex_fn *const *fns,
                    int32_t nf)
{
    const struct ex_fg *g = b->g;
    struct ex_fn *f = &ms->f;
    int32_t nu = f->arity, dv = g->var[v].dom;
    int64_t *sv = malloc((size_t)nf * sizeof *sv);
    int64_t *su = malloc((size_t)nf * (size_t)(nu ? nu : 1) * sizeof *su);
    int64_t *cur = calloc((size_t)nf, sizeof *cur);
    int32_t *dig = calloc((size_t)(nu ? nu : 1), sizeof *dig);
    int rc = LS_ERR_NOMEM;
    if (!sv || !su || !cur || !dig)
        goto out;
    for (int32_t j = 0; j < nf; j++) {
        sv[j] = ex_fn_stride(fns[j], v);
        for (int32_t i = 0; i < nu; i++)
            su[(size_t)j * nu + i] = ex_fn_stride(fns[j], f->scope[i]);
    }
    for (int64_t e = 0; e < f->size; e++) {
        if ((e & 0xffff) == 0xffff && ls_deadline_passed(b->dl)) {
            b->stopped = 1;
            rc = 0;
            goto out;
        }
        int64_t best = EX_INF;
        for (int32_t a = 0; a < dv; a++) {
            int64_t s = 0;
            for (int32_t j = 0; j < nf && s < best; j++)
                s = ex_add(s, fns[j]->tab[cur[j] + a * sv[j]]);
            if (s < best)
                best = s;
        }
        f->tab[e] = best;
        for (int32_t i = nu - 1; i >= 0; i--) {
            int32_t d = g->var[f->scope[i]].dom;
            for (int32_t j = 0; j < nf; j++)
                cur[j] += su[(size_t)j * nu + i];
            if (++dig[i] < d)
                break;
            for (int32_t j = 0; j < nf; j++)
                cur[j] -= su[(size_t)j * nu + i] * d;
            dig[i] = 0;
        }
    }
    rc = 0;
out:
    free(sv);
    free(su);
    free(cur);
    free(dig);
    return rc;
}

/* One elimination pass with mini-buckets of at most zmax entries (<= 0: unbounded).
 * dry: scopes and sizes only. */
static int be_pass(struct be *b, double zmax, int dry)
{
    const struct ex_fg *g = b->g;
    int32_t n = b->n;
    be_free_msgs(b);
    b->entries = b->maxsize = 0;
    b->width = 0;
    for (int32_t k = 0; k <= n; k++)
        b->in_head[k] = -1;
    const struct ex_fn **fns = NULL;
    int32_t *mb = NULL, *tmp = NULL;   /* mini-bucket of each function; merge scratch */
    int32_t **ub = NULL;               /* union scope of each mini-bucket */
    int32_t *ulen = NULL;
    size_t *urcap = NULL;              /* capacity of each ub row */
    size_t nub = 0;                    /* ub rows set (NULL or allocated) */
    size_t cfns = 0, cmb = 0, ctmp = 0, cub = 0, culen = 0, curcap = 0;
    int rc = LS_ERR_NOMEM;
    for (int32_t k = 0; k < n; k++) {
        if ((k & 63) == 63 && ls_deadline_passed(b->dl)) {
            b->stopped = 1;
            rc = 0;
            goto out;
        }
        b->out_off[k] = b->nm;
        int32_t v = b->order[k];
        int32_t nf = b->orig_off[k + 1] - b->orig_off[k];
        for (int32_t i = b->in_head[k]; i >= 0; i = b->m[i].next)
            nf++;
        /* fns: the bucket's functions, then (fns + nf) one mini-bucket's share */
        if (LS_ARRAY_RESERVE(fns, cfns, 2 * (size_t)nf) || LS_ARRAY_RESERVE(mb, cmb, (size_t)nf) ||
            LS_ARRAY_RESERVE(ulen, culen, (size_t)nf) || LS_ARRAY_RESERVE(ub, cub, (size_t)nf) ||
            LS_ARRAY_RESERVE(urcap, curcap, (size_t)nf))
            goto out;
        for (; nub < (size_t)nf; nub++) {
            ub[nub] = NULL;
            urcap[nub] = 0;
        }
        /* room for this bucket's messages now: fns points into b->m */
        if (LS_ARRAY_RESERVE(b->m, b->capm, (size_t)(b->nm + nf + 1)))
            goto out;
        nf = 0;
        int32_t maxar = 1;
        for (int32_t i = b->orig_off[k]; i < b->orig_off[k + 1]; i++)
            fns[nf++] = &g->fn[b->orig_fn[i]];
        for (int32_t i = b->in_head[k]; i >= 0; i = b->m[i].next)
            fns[nf++] = &b->m[i].f;
        int32_t totar = 0;
        for (int32_t j = 0; j < nf; j++) {
            totar += fns[j]->arity;
            if (fns[j]->arity > maxar)
                maxar = fns[j]->arity;
        }
        if (LS_ARRAY_RESERVE(tmp, ctmp, (size_t)totar + 1))
            goto out;
        if (zmax > 0)
            sort_by_arity(fns, nf);
        /* first fit into mini-buckets; bucket q's union scope is ub[q] */
        int32_t nmb = 0;
        for (int32_t j = 0; j < nf; j++) {
            int32_t q = 0;
            for (; q < nmb; q++) {
                if (zmax <= 0)
                    break;
                int32_t m = merge(ub[q], ulen[q], fns[j]->scope, fns[j]->arity, tmp);
                if (scope_size(g, tmp, m) <= zmax)
                    break;
            }
            if (q == nmb) {
                ulen[q] = 0;
                nmb++;
            }
            ulen[q] = merge(ub[q], ulen[q], fns[j]->scope, fns[j]->arity, tmp);
            if (LS_ARRAY_RESERVE(ub[q], urcap[q], (size_t)ulen[q] + 1))
                goto out;
            memcpy(ub[q], tmp, (size_t)ulen[q] * sizeof *tmp);
            mb[j] = q;
        }
        for (int32_t q = 0; q < nmb; q++) {
            struct msg *ms = &b->m[b->nm];
            memset(ms, 0, sizeof *ms);
            int32_t *u = ub[q], nu = 0;
            for (int32_t i = 0; i < ulen[q]; i++)
                if (u[i] != v)
                    tmp[nu++] = u[i];
            ms->f.arity = nu;
            ms->f.scope = malloc((size_t)(nu ? nu : 1) * sizeof *ms->f.scope);
            ms->f.stride = malloc((size_t)(nu ? nu : 1) * sizeof *ms->f.stride);
            if (!ms->f.scope || !ms->f.stride) {
                ex_fn_free(&ms->f);
                goto out;
            }
            b->nm++;
            memcpy(ms->f.scope, tmp, (size_t)nu * sizeof *tmp);
            ms->dsize = scope_size(g, tmp, nu);
            int64_t sz = 1;
            for (int32_t i = nu - 1; i >= 0; i--) {
                ms->f.stride[i] = sz;
                if (ms->dsize < 1e18)
                    sz *= g->var[tmp[i]].dom;
            }
            ms->f.size = ms->dsize < 1e18 ? sz : 0;
            ms->from = k;
            ms->to = n;
            for (int32_t i = 0; i < nu; i++)
                if (b->pos[tmp[i]] < ms->to)
                    ms->to = b->pos[tmp[i]];
            ms->next = b->in_head[ms->to];
            b->in_head[ms->to] = b->nm - 1;
            b->entries += ms->dsize;
            if (ms->dsize > b->maxsize)
                b->maxsize = ms->dsize;
            if (nu > b->width)
                b->width = nu;
        }
        if (!dry) {
            const struct ex_fn **sub = (const struct ex_fn **)(fns + nf);
            for (int32_t q = 0; q < nmb; q++) {
                struct msg *ms = &b->m[b->nm - nmb + q];
                if (ms->f.size <= 0) {
                    rc = LS_ERR_LIMIT;
                    goto out;
                }
                ms->f.tab = malloc((size_t)(ms->f.size ? ms->f.size : 1) * sizeof *ms->f.tab);
                if (!ms->f.tab)
                    goto out;
                int32_t nq = 0;
                for (int32_t j = 0; j < nf; j++)
                    if (mb[j] == q)
                        sub[nq++] = fns[j];
                if (fill_msg(b, ms, v, sub, nq))
                    goto out;
                if (b->stopped) {
                    rc = 0;
                    goto out;
                }
            }
        }
    }
    b->out_off[n] = b->nm;
    rc = 0;
out:
    for (size_t q = 0; q < nub; q++)
        free(ub[q]);
    free(ub);
    free(urcap);
    free(fns);
    free(mb);
    free(tmp);
    free(ulen);
    return rc;
}

int64_t ex_comp_cost(const struct lsp_problem *p, const struct ex_fg *g, int32_t c,
                     const int32_t *cfg)
{
    int64_t s = 0;
    for (int32_t i = g->comp_op_off[c]; i < g->comp_op_off[c + 1]; i++) {
        int32_t o = g->comp_op[i];
        s += lsp_cfg_cost(p, o, cfg[o]);
        if (p->ops[o].out >= 0)
            s += lsp_eval_tensor(p, cfg, p->ops[o].out, NULL);
    }
    return s;
}

static int64_t eval_fn(const struct ex_fn *f, const int32_t *val)
{
    int64_t i = 0;
    for (int32_t a = 0; a < f->arity; a++)
        i += f->stride[a] * val[f->scope[a]];
    return f->tab[i];
}

/* Depth-first branch and bound in reverse elimination order. f[k] is the bound after
 * assigning positions k..n-1: the original functions of those buckets plus every message
 * that crosses from a bucket below k into one at or above k. */
static int be_search(struct be *b, const struct lsp_problem *p, int32_t c,
                     const struct ex_be_opts *o, int32_t *cfg, int32_t *scratch,
                     int64_t *inc, struct ex_be_out *out)
{
    const struct ex_fg *g = b->g;
    int32_t n = b->n;
    int32_t *val = calloc((size_t)g->nvars, sizeof *val);
    int64_t *f = malloc(((size_t)n + 1) * sizeof *f);
    int32_t *coff = malloc(((size_t)n + 1) * sizeof *coff);
    int32_t *ncand = calloc((size_t)n + 1, sizeof *ncand);
    int32_t *nxt = calloc((size_t)n + 1, sizeof *nxt);
    int rc = LS_ERR_NOMEM;
    int64_t *cf = NULL;
    int32_t *cv = NULL;
    if (!val || !f || !coff || !ncand || !nxt)
        goto out;
    coff[0] = 0;
    for (int32_t k = 0; k < n; k++)
        coff[k + 1] = coff[k] + g->var[b->order[k]].dom;
    cf = malloc((size_t)coff[n] * sizeof *cf);
    cv = malloc((size_t)coff[n] * sizeof *cv);
    if (!cf || !cv)
        goto out;
    f[n] = 0;
    for (int32_t i = b->in_head[n]; i >= 0; i = b->m[i].next)
        f[n] = ex_add(f[n], b->m[i].f.tab[0]);
    int64_t root = f[n];
    int32_t k = n - 1;
    int expand = 1;
    int done = 0;
    for (;;) {
        if (expand) {
            /* candidates of position k, sorted by bound */
            int32_t v = b->order[k], d = g->var[v].dom;
            int32_t m = 0;
            if (f[k + 1] < EX_INF) {
                int64_t base = f[k + 1];
                for (int32_t i = b->out_off[k]; i < b->out_off[k + 1]; i++)
                    base -= eval_fn(&b->m[i].f, val);
                for (int32_t a = 0; a < d; a++) {
                    val[v] = a;
                    int64_t s = base;
                    for (int32_t i = b->orig_off[k]; i < b->orig_off[k + 1] && s < EX_INF; i++)
                        s = ex_add(s, eval_fn(&g->fn[b->orig_fn[i]], val));
                    for (int32_t i = b->in_head[k]; i >= 0 && s < EX_INF; i = b->m[i].next)
                        s = ex_add(s, eval_fn(&b->m[i].f, val));
                    if (s >= EX_INF)
                        continue;
                    int32_t j = m++;
                    for (; j > 0 && cf[coff[k] + j - 1] > s; j--) {
                        cf[coff[k] + j] = cf[coff[k] + j - 1];
                        cv[coff[k] + j] = cv[coff[k] + j - 1];
                    }
                    cf[coff[k] + j] = s;
                    cv[coff[k] + j] = a;
                }
            }
            ncand[k] = m;
            nxt[k] = 0;
            expand = 0;
        }
        if (nxt[k] < ncand[k] && cf[coff[k] + nxt[k]] < *inc) {
            int32_t v = b->order[k];
            val[v] = cv[coff[k] + nxt[k]];
            f[k] = cf[coff[k] + nxt[k]];
            nxt[k]++;
            out->nodes++;
            if ((out->nodes & 1023) == 0 &&
                (ls_deadline_passed(o->deadline) || (o->node_limit && out->nodes >= o->node_limit))) {
                out->stopped = 1;
                break;
            }
            if (k > 0) {
                k--;
                expand = 1;
                continue;
            }
            /* a full assignment: decode and price it exactly */
            for (int32_t i = g->comp_op_off[c]; i < g->comp_op_off[c + 1]; i++) {
                int32_t op = g->comp_op[i];
                scratch[op] = g->xcfg[g->xcfg_off[op] + val[g->xvar[op]]];
            }
            int64_t cost = ex_comp_cost(p, g, c, scratch);
            if (cost < *inc) {
                *inc = cost;
                for (int32_t i = g->comp_op_off[c]; i < g->comp_op_off[c + 1]; i++) {
                    int32_t op = g->comp_op[i];
                    cfg[op] = scratch[op];
                }
            }
            continue;
        }
        if (++k >= n) {
            done = 1;
            break;
        }
    }
    if (done) {
        out->optimal = 1;
        out->lb = *inc;
    } else {
        int64_t lb = f[k] < *inc ? f[k] : *inc;   /* the subtree just entered */
        for (int32_t j = k; j < n; j++)
            if (nxt[j] < ncand[j] && cf[coff[j] + nxt[j]] < lb)
                lb = cf[coff[j] + nxt[j]];
        if (root > lb)   /* cannot happen: bounds only grow along a path */
            lb = root;
        out->lb = lb < *inc ? lb : *inc;
    }
    rc = 0;
out:
    free(val);
    free(f);
    free(coff);
    free(ncand);
    free(nxt);
    free(cf);
    free(cv);
    return rc;
}

/* Positions of the order and each original function in the bucket of its
 * first-eliminated variable. */
static int place(struct be *b, int32_t c)
{
    const struct ex_fg *g = b->g;
    int32_t n = b->n, nfn = g->comp_fn_off[c + 1] - g->comp_fn_off[c];
    for (int32_t k = 0; k < n; k++)
        b->pos[b->order[k]] = k;
    int32_t *home = malloc((size_t)(nfn ? nfn : 1) * sizeof *home);
    int32_t *fillp = calloc((size_t)n + 1, sizeof *fillp);
    if (!home || !fillp) {
        free(home);
        free(fillp);
        return LS_ERR_NOMEM;
    }
    memset(b->orig_off, 0, ((size_t)n + 2) * sizeof *b->orig_off);
    for (int32_t i = 0; i < nfn; i++) {
        const struct ex_fn *fn = &g->fn[g->comp_fn[g->comp_fn_off[c] + i]];
        int32_t h = n;
        for (int32_t a = 0; a < fn->arity; a++)
            if (b->pos[fn->scope[a]] < h)
                h = b->pos[fn->scope[a]];
        home[i] = h;
        b->orig_off[h + 1]++;
    }
    for (int32_t k = 0; k < n; k++)
        b->orig_off[k + 1] += b->orig_off[k];
    for (int32_t i = 0; i < nfn; i++)
        b->orig_fn[b->orig_off[home[i]] + fillp[home[i]]++] = g->comp_fn[g->comp_fn_off[c] + i];
    free(home);
    free(fillp);
    return 0;
}

static void be_release(struct be *b)
{
    be_free_msgs(b);
    free(b->m);
    free(b->order);
    free(b->pos);
    free(b->orig_off);
    free(b->orig_fn);
    free(b->in_head);
    free(b->out_off);
}

int ex_be_solve(const struct lsp_problem *p, const struct ex_fg *g, int32_t c,
                const struct ex_be_opts *o, int32_t *cfg, int32_t *scratch, int64_t *cost,
                struct ex_be_out *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    struct be b = {0};
    b.g = g;
    b.dl = o->deadline;
    b.n = g->comp_var_off[c + 1] - g->comp_var_off[c];
    int32_t n = b.n;
    b.order = malloc((size_t)n * 2 * sizeof *b.order);
    b.pos = malloc((size_t)g->nvars * sizeof *b.pos);
    b.orig_off = calloc((size_t)n + 2, sizeof *b.orig_off);
    int32_t nfn = g->comp_fn_off[c + 1] - g->comp_fn_off[c];
    b.orig_fn = malloc((size_t)(nfn ? nfn : 1) * sizeof *b.orig_fn);
    b.in_head = malloc(((size_t)n + 1) * sizeof *b.in_head);
    b.out_off = malloc(((size_t)n + 1) * sizeof *b.out_off);
    int rc = LS_ERR_NOMEM;
    if (!b.order || !b.pos || !b.orig_off || !b.orig_fn || !b.in_head || !b.out_off)
        goto out;
    /* two greedy orders (min-fill, min-weight): keep the one whose plain elimination
     * needs fewer table entries (a dry run), min-fill on ties */
    double best = -1;
    for (int fill = 1; fill >= 0; fill--) {
        int orc = ex_order(g, c, fill, b.order, b.pos, b.dl);   /* b.pos: scratch */
        if (orc < 0)
            goto out;
        if (orc == 0 && ((rc = place(&b, c)) || (rc = be_pass(&b, 0, 1))))
            goto out;
        if (orc || b.stopped) {
            out->stopped = 1;
            rc = 0;
            goto out;
        }
        rc = LS_ERR_NOMEM;
        if (fill || b.entries < best) {
            best = b.entries;
            if (fill)
                memcpy(b.order + n, b.order, (size_t)n * sizeof *b.order);
        } else if (!fill) {
            memcpy(b.order, b.order + n, (size_t)n * sizeof *b.order);   /* back to min-fill */
            if ((rc = place(&b, c)))
                goto out;
        }
    }
    if (b.entries != best && (rc = be_pass(&b, 0, 1)))
        goto out;
    if (b.stopped) {
        out->stopped = 1;
        goto out;
    }
    out->exact_entries = b.entries;
    int proven = 0;
    if (o->sized && (rc = o->sized(o->sized_ctx, c, b.entries, cfg, cost, &proven, err))) {
        be_release(&b);
        return rc;
    }
    if (proven) {
        out->optimal = 1;
        out->lb = *cost;
        goto out;
    }

    /* choose the mini-bucket cap: none when plain elimination fits the budget */
    double zmax = o->max_table;
    if (zmax <= 0) {
        if (b.entries > o->budget) {
            double lo = 2, hi = o->budget;   /* largest cap whose total fits */
            zmax = lo;
            for (int it = 0; it < 40 && hi / lo > 1.05; it++) {
                double mid = sqrt(lo * hi);
                if ((rc = be_pass(&b, mid, 1)))
                    goto out;
                if (b.stopped) {
                    out->stopped = 1;
                    goto out;
                }
                if (b.entries <= o->budget)
                    lo = zmax = mid;
                else
                    hi = mid;
            }
            zmax = floor(zmax);
        }
    }
    if ((rc = be_pass(&b, zmax, 0)))
        goto out;
    out->exact_be = zmax <= 0;
    out->max_table = b.maxsize;
    out->width = b.width;
    out->entries = b.entries;
    if (b.stopped) {
        out->stopped = 1;
        rc = 0;
        goto out;
    }
    rc = be_search(&b, p, c, o, cfg, scratch, cost, out);
out:
    be_release(&b);
    if (rc)
        return ls_error_msg(err, rc, rc == LS_ERR_LIMIT ? "exact: a message table is too large"
                                                        : "exact: out of memory");
    return 0;
}
