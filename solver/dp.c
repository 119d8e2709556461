/* solver/dp: the dynamic program of the paper's Appendix B over a nice tree
 * decomposition of the op graph (ops adjacent when one reads the other's output).
 * A table entry: for each bag op its configuration and the set S of layouts that
 * already-forgotten consumers requested of its output (a bitmask, L <= 8). Introduce
 * records a cfg with S empty; forget charges the op cost and the transposes of its
 * output (S plus the requests of bag consumers), and adds its own requests to the
 * sets of bag producers; join merges equal cfg parts with S united point-wise.
 * Memory: dp.mem_limit bytes (default 4 GiB), checked against an upper-bound estimate
 * before the run and against the bytes actually allocated during it; past it the solver
 * returns LS_ERR_LIMIT (status unknown) with the width and the estimate. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "solver/dp_ntd.h"
#include "solver/solver.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/treedec.h"

#define DP_MASK_SHIFT 24
#define DP_CFG(k) ((int32_t)((k) & ((1u << DP_MASK_SHIFT) - 1)))
#define DP_MASK(k) ((k) >> DP_MASK_SHIFT)

struct dp_tab {
    int32_t w;               /* key words = bag size */
    int64_t n, cap;
    uint32_t *key;           /* n * w */
    int64_t *cost;
    int32_t *bp;             /* 2 per entry */
    int32_t *slot;           /* hash: entry index or -1 */
    int64_t hcap;
};

struct dp {
    const struct lsp_problem *p;
    struct dp_ntd nt;
    struct dp_tab *tab;
    int64_t used, limit;
    struct ls_deadline dl;
    double estimate;
    int over;                /* the budget was hit */
};

static int64_t tab_bytes(int32_t w, int64_t cap, int64_t hcap)
{
    return cap * ((int64_t)w * 4 + 8 + 8) + hcap * 4;
}

static int tab_grow(struct dp *d, struct dp_tab *t)
{
    int64_t cap = t->cap ? 2 * t->cap : 16, hcap = 2 * cap;
    int64_t before = tab_bytes(t->w, t->cap, t->hcap), after = tab_bytes(t->w, cap, hcap);
    if (d->used - before + after > d->limit || cap > INT32_MAX) {
        d->over = 1;
        return LS_ERR_LIMIT;
    }
    uint32_t *k = realloc(t->key, (size_t)(cap * (t->w ? t->w : 1)) * sizeof *k);
    if (k)
        t->key = k;
    int64_t *c = realloc(t->cost, (size_t)cap * sizeof *c);
    if (c)
        t->cost = c;
    int32_t *b = realloc(t->bp, (size_t)cap * 2 * sizeof *b);
    if (b)
        t->bp = b;
    free(t->slot);
    t->slot = malloc((size_t)hcap * sizeof *t->slot);
    if (!k || !c || !b || !t->slot)
        return LS_ERR_NOMEM;
    d->used += after - before;
    t->cap = cap;
    t->hcap = hcap;
    for (int64_t i = 0; i < hcap; i++)
        t->slot[i] = -1;
    for (int64_t e = 0; e < t->n; e++) {
        uint64_t h = ls_fnv1a64(t->key + e * t->w, (size_t)t->w * 4) & (uint64_t)(hcap - 1);
        while (t->slot[h] >= 0)
            h = (h + 1) & (uint64_t)(hcap - 1);
        t->slot[h] = (int32_t)e;
    }
    return 0;
}

/* Keep the minimum of (key, cost); bp0/bp1 are the child entries behind it. */
static int tab_put(struct dp *d, struct dp_tab *t, const uint32_t *key, int64_t cost,
                   int32_t bp0, int32_t bp1)
{
    if (2 * (t->n + 1) > t->hcap) {
        int rc = tab_grow(d, t);
        if (rc)
            return rc;
    }
    size_t kb = (size_t)t->w * 4;
    uint64_t h = ls_fnv1a64(key, kb) & (uint64_t)(t->hcap - 1);
    for (;;) {
        int32_t e = t->slot[h];
        if (e < 0)
            break;
        if (!memcmp(t->key + (int64_t)e * t->w, key, kb)) {
            if (cost < t->cost[e]) {
                t->cost[e] = cost;
                t->bp[2 * e] = bp0;
                t->bp[2 * e + 1] = bp1;
            }
            return 0;
        }
        h = (h + 1) & (uint64_t)(t->hcap - 1);
    }
    int64_t e = t->n++;
    t->slot[h] = (int32_t)e;
    if (kb)
        memcpy(t->key + e * t->w, key, kb);
    t->cost[e] = cost;
    t->bp[2 * e] = bp0;
    t->bp[2 * e + 1] = bp1;
    return 0;
}

static void tab_free(struct dp *d, struct dp_tab *t)
{
    d->used -= tab_bytes(t->w, t->cap, t->hcap);
    free(t->key);
    free(t->cost);
    free(t->bp);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static int32_t bag_pos(const struct dp_ntd *nt, int32_t node, int32_t v)
{
    const struct dp_node *x = &nt->node[node];
    for (int32_t i = 0; i < x->bag_len; i++)
        if (nt->bag[x->bag_off + i] == v)
            return i;
    return -1;
}

/* Transposes of v's output under cfg cv, given the forgotten requests S and the bag. */
static int64_t out_cost(const struct dp *d, int32_t node, int32_t v, int32_t cv, uint32_t S,
                        const uint32_t *key)
{
    const struct lsp_problem *p = d->p;
    int32_t t = p->ops[v].out;
    if (t < 0 || p->tensors[t].nlayouts < 2)
        return 0;
    const struct dp_node *x = &d->nt.node[node];
    for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++) {
        int32_t o = p->use_op[i];
        int32_t pos = bag_pos(&d->nt, node, o);
        if (pos >= 0)
            S |= 1u << lsp_cfg_layouts(p, o, DP_CFG(key[pos]))[p->use_slot[i]];
    }
    (void)x;
    int32_t src = lsp_cfg_out_layout(p, v, cv);
    int64_t s = 0;
    for (int32_t l = 0; l < p->tensors[t].nlayouts; l++)
        if ((S >> l & 1) && l != src)
            s += lsp_tr_cost(p, t, src, l);
    return s;
}

static int do_node(struct dp *d, int32_t i, uint32_t *key)
{
    const struct lsp_problem *p = d->p;
    const struct dp_node *x = &d->nt.node[i];
    struct dp_tab *t = &d->tab[i];
    t->w = x->bag_len;
    int rc;
    if (x->type == DP_LEAF)
        return tab_put(d, t, key, 0, -1, -1);
    struct dp_tab *a = &d->tab[x->child[0]];
    int32_t w = t->w;
    if (x->type == DP_INTRO) {
        int32_t pos = bag_pos(&d->nt, i, x->v);
        for (int64_t e = 0; e < a->n; e++) {
            const uint32_t *ck = a->key + e * a->w;
            if (pos)
                memcpy(key, ck, (size_t)pos * 4);
            if (w - pos - 1)
                memcpy(key + pos + 1, ck + pos, (size_t)(w - pos - 1) * 4);
            for (int32_t c = 0; c < p->ops[x->v].ncfg; c++) {
                key[pos] = (uint32_t)c;
                if ((rc = tab_put(d, t, key, a->cost[e], (int32_t)e, -1)))
                    return rc;
            }
        }
        return 0;
    }
    if (x->type == DP_FORGET) {
        int32_t v = x->v, pos = bag_pos(&d->nt, x->child[0], v);
        const struct lsp_op *op = &p->ops[v];
        for (int64_t e = 0; e < a->n; e++) {
            if ((e & 0xfff) == 0xfff && ls_deadline_passed(&d->dl))
                return -1;
            const uint32_t *ck = a->key + e * a->w;
            if (pos)
                memcpy(key, ck, (size_t)pos * 4);
            if (w - pos)
                memcpy(key + pos, ck + pos + 1, (size_t)(w - pos) * 4);
            int32_t cv = DP_CFG(ck[pos]);
            int64_t cost = a->cost[e] + lsp_cfg_cost(p, v, cv) +
                           out_cost(d, i, v, cv, DP_MASK(ck[pos]), key);
            const int32_t *lay = lsp_cfg_layouts(p, v, cv);
            for (int32_t s = 0; s < op->nin; s++) {
                int32_t u = op->in[s];
                if (p->tensors[u].nlayouts < 2)
                    continue;
                int32_t q = bag_pos(&d->nt, i, p->tensors[u].producer);
                if (q >= 0)
                    key[q] |= 1u << (DP_MASK_SHIFT + lay[s]);
            }
            if ((rc = tab_put(d, t, key, cost, (int32_t)e, -1)))
                return rc;
        }
        return 0;
    }
    /* join: pair entries of the two children with equal configurations */
    struct dp_tab *b = &d->tab[x->child[1]];
    int64_t hcap = 16;
    while (hcap < 2 * b->n)
        hcap *= 2;
    int32_t *head = malloc((size_t)hcap * sizeof *head);
    int32_t *next = malloc((size_t)(b->n ? b->n : 1) * sizeof *next);
    uint32_t *ca = malloc((size_t)(w ? w : 1) * 4);
    if (!head || !next || !ca) {
        free(head);
        free(next);
        free(ca);
        return LS_ERR_NOMEM;
    }
    for (int64_t h = 0; h < hcap; h++)
        head[h] = -1;
    uint64_t cmask = (1u << DP_MASK_SHIFT) - 1;
    for (int64_t e = b->n - 1; e >= 0; e--) {
        uint64_t hh = LS_FNV64_INIT;
        for (int32_t k = 0; k < w; k++) {
            uint32_t c = b->key[e * w + k] & (uint32_t)cmask;
            hh = ls_fnv1a64_update(hh, &c, 4);
        }
        hh &= (uint64_t)(hcap - 1);
        next[e] = head[hh];
        head[hh] = (int32_t)e;
    }
    rc = 0;
    for (int64_t e = 0; e < a->n && !rc; e++) {
        if ((e & 0xff) == 0xff && ls_deadline_passed(&d->dl)) {
            rc = -1;
            break;
        }
        uint64_t hh = LS_FNV64_INIT;
        for (int32_t k = 0; k < w; k++) {
            ca[k] = a->key[e * w + k] & (uint32_t)cmask;
            hh = ls_fnv1a64_update(hh, &ca[k], 4);
        }
        hh &= (uint64_t)(hcap - 1);
        for (int32_t f = head[hh]; f >= 0 && !rc; f = next[f]) {
            int same = 1;
            for (int32_t k = 0; k < w && same; k++)
                same = (b->key[(int64_t)f * w + k] & (uint32_t)cmask) == ca[k];
            if (!same)
                continue;
            for (int32_t k = 0; k < w; k++)
                key[k] = a->key[e * w + k] | b->key[(int64_t)f * w + k];
            rc = tab_put(d, t, key, a->cost[e] + b->cost[f], (int32_t)e, f);
        }
    }
    free(head);
    free(next);
    free(ca);
    return rc;
}

/* Follow the back pointers from entry e of node i, writing the forgotten ops' cfgs. */
static int backtrack(struct dp *d, int32_t i, int32_t e, int32_t *cfg)
{
    int64_t cap = 64, n = 0;
    int32_t *st = malloc((size_t)cap * 2 * sizeof *st);
    if (!st)
        return LS_ERR_NOMEM;
    st[n * 2] = i;
    st[n * 2 + 1] = e;
    n++;
    while (n > 0) {
        n--;
        i = st[n * 2];
        e = st[n * 2 + 1];
        const struct dp_node *x = &d->nt.node[i];
        if (x->type == DP_LEAF)
            continue;
        const struct dp_tab *t = &d->tab[i];
        if (n + 2 > cap) {
            cap *= 2;
            int32_t *s2 = realloc(st, (size_t)cap * 2 * sizeof *s2);
            if (!s2) {
                free(st);
                return LS_ERR_NOMEM;
            }
            st = s2;
        }
        for (int k = 0; k < (x->type == DP_JOIN ? 2 : 1); k++) {
            int32_t c = x->child[k], ce = t->bp[2 * e + k];
            if (x->type == DP_FORGET) {
                const struct dp_tab *ct = &d->tab[c];
                cfg[x->v] = DP_CFG(ct->key[(int64_t)ce * ct->w + bag_pos(&d->nt, c, x->v)]);
            }
            st[n * 2] = c;
            st[n * 2 + 1] = ce;
            n++;
        }
    }
    free(st);
    return 0;
}

/* Upper bound on the entries of every table: product over the bag of ncfg * 2^|R|. */
static double estimate(const struct lsp_problem *p, const struct dp_ntd *nt,
                       double *largest)
{
    double total = 0;
    *largest = 0;
    for (int32_t i = 0; i < nt->nnodes; i++) {
        const struct dp_node *x = &nt->node[i];
        double z = 1;
        for (int32_t k = 0; k < x->bag_len; k++) {
            int32_t o = nt->bag[x->bag_off + k];
            z *= p->ops[o].ncfg;
            int32_t t = p->ops[o].out;
            if (t >= 0 && p->tensors[t].nlayouts >= 2 && p->use_off[t + 1] > p->use_off[t])
                z *= (double)(1u << p->tensors[t].nlayouts);
        }
        if (z > *largest)
            *largest = z;
        total += z * (double)(x->bag_len * 4 + 8 + 8 + 8);
    }
    return total;
}

int lsp_solve_dp(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                 struct lsp_result *r, struct ls_error *err)
{
    static const char *const prefixes[] = {"dp.mem_limit=", NULL};   /* whole keys */
    int64_t limit;
    if (lsp_opts_check(o, prefixes, err) ||
        lsp_opt_i64(o, "dp.mem_limit", (int64_t)4 << 30, &limit, err))
        return LS_ERR_INPUT;
    if (p->max_layouts > 8)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "solver dp: at most 8 layouts per tensor (this problem has %d)",
                            p->max_layouts);
    if (p->max_cfg >= (1 << DP_MASK_SHIFT))
        return ls_error_msg(err, LS_ERR_INPUT, "solver dp: too many configurations per op");
    struct dp d = {0};
    d.p = p;
    d.limit = limit;
    d.dl = ls_deadline_in(o->time_limit);
    /* The decomposition covers the ops with at least one edge (compact ids); each
     * isolated op gets its own leaf-introduce-forget branch. */
    int64_t nedges = 0;
    for (int32_t t = 0; t < p->ntensors; t++)
        nedges += p->use_off[t + 1] - p->use_off[t];
    int32_t *edges = malloc((size_t)(nedges ? nedges : 1) * 2 * sizeof *edges);
    int32_t *cid = malloc((size_t)(p->nops ? p->nops : 1) * sizeof *cid);
    int32_t *back = malloc((size_t)(p->nops ? p->nops : 1) * sizeof *back);
    if (!edges || !cid || !back) {
        free(edges);
        free(cid);
        free(back);
        return ls_error_msg(err, LS_ERR_NOMEM, "dp: out of memory");
    }
    for (int32_t op = 0; op < p->nops; op++)
        cid[op] = -1;
    for (int32_t t = 0; t < p->ntensors; t++)
        if (p->use_off[t + 1] > p->use_off[t]) {
            cid[p->tensors[t].producer] = 0;
            for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
                cid[p->use_op[i]] = 0;
        }
    int32_t nv = 0;
    for (int32_t op = 0; op < p->nops; op++)
        if (cid[op] == 0) {
            back[nv] = op;
            cid[op] = nv++;
        }
    nedges = 0;
    for (int32_t t = 0; t < p->ntensors; t++)
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++) {
            edges[2 * nedges] = cid[p->tensors[t].producer];
            edges[2 * nedges + 1] = cid[p->use_op[i]];
            nedges++;
        }
    struct ls_treedec td;
    int rc = ls_treedec_best_until(nv, edges, (size_t)nedges, &d.dl, &td, err);
    free(edges);
    if (rc) {
        free(cid);
        free(back);
        if (rc != LS_ERR_LIMIT)
            return rc;
        ls_error_clear(err); /* time limit: no assignment, as when the DP phase runs out */
        r->sol.status = LSP_UNKNOWN;
        r->sol.nops = 0;
        return 0;
    }
    for (int32_t i = 0; i < td.n; i++)
        td.order[i] = back[td.order[i]];
    for (int32_t i = 0; i < (td.n ? td.bag_off[td.n] : 0); i++)
        td.bag[i] = back[td.bag[i]];   /* increasing map: bags stay sorted */
    rc = dp_ntd_build(&td, &d.nt, err);
    ls_treedec_free(&td);
    for (int32_t op = 0; op < p->nops && !rc; op++)
        if (cid[op] < 0)
            rc = dp_ntd_add_single(&d.nt, op, err);
    free(cid);
    free(back);
    if (rc)
        return rc;
    double largest;
    d.estimate = estimate(p, &d.nt, &largest);
    lsp_stats_set(&r->stats, "width", d.nt.width);
    lsp_stats_set(&r->stats, "nice_nodes", d.nt.nnodes);
    lsp_stats_set(&r->stats, "estimate_mib", d.estimate / (1 << 20));
    r->sol.status = LSP_UNKNOWN;
    if (d.estimate > (double)limit) {
        rc = ls_error_msg(err, LS_ERR_LIMIT,
                          "solver dp: the tables would need an estimated %.0f MiB (tree "
                          "decomposition of width %d, up to %.3g states per bag), over "
                          "dp.mem_limit = %.0f MiB",
                          d.estimate / (1 << 20), d.nt.width, largest,
                          (double)limit / (1 << 20));
        dp_ntd_free(&d.nt);
        return rc;
    }
    d.tab = calloc((size_t)(d.nt.nnodes ? d.nt.nnodes : 1), sizeof *d.tab);
    uint32_t *key = malloc((size_t)(d.nt.width + 2) * 4);
    if (!d.tab || !key) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "dp: out of memory");
        goto out;
    }
    int64_t peak = 0;
    for (int32_t i = 0; i < d.nt.nnodes && !rc; i++) {
        rc = do_node(&d, i, key);
        if (d.used > peak)
            peak = d.used;
    }
    lsp_stats_set(&r->stats, "peak_mib", (double)peak / (1 << 20));
    if (rc == -1) {
        rc = 0;   /* time limit: no assignment */
        r->sol.nops = 0;
        goto out;
    }
    if (rc == LS_ERR_LIMIT) {
        rc = ls_error_msg(err, LS_ERR_LIMIT,
                          "solver dp: the tables outgrew dp.mem_limit = %.0f MiB (tree "
                          "decomposition of width %d, estimated %.0f MiB)",
                          (double)limit / (1 << 20), d.nt.width, d.estimate / (1 << 20));
        goto out;
    }
    if (rc) {
        rc = ls_error_msg(err, rc, "dp: out of memory");
        goto out;
    }
    int64_t sum = 0;
    for (int32_t k = 0; k < d.nt.nroots; k++) {
        int32_t root = d.nt.root[k];
        if (d.tab[root].n != 1) {
            rc = ls_error_msg(err, LS_ERR_INTERNAL, "dp: root table has %" PRId64 " entries",
                              d.tab[root].n);
            goto out;
        }
        sum += d.tab[root].cost[0];
        if ((rc = backtrack(&d, root, 0, r->sol.cfg))) {
            rc = ls_error_msg(err, rc, "dp: out of memory");
            goto out;
        }
    }
    r->sol.cost = lsp_eval(p, r->sol.cfg, NULL, NULL);
    if (r->sol.cost != sum) {
        rc = ls_error_msg(err, LS_ERR_INTERNAL, "dp: table optimum %" PRId64
                          " but the assignment costs %" PRId64, sum, r->sol.cost);
        goto out;
    }
    r->sol.status = LSP_OPTIMAL;
    r->sol.has_bound = 1;
    r->sol.bound = r->sol.cost;
out:
    if (d.tab)
        for (int32_t i = 0; i < d.nt.nnodes; i++)
            tab_free(&d, &d.tab[i]);
    free(d.tab);
    free(key);
    dp_ntd_free(&d.nt);
    return rc;
}
