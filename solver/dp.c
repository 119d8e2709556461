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
#include "util/hmap.h"
#include "util/treedec.h"
#include "util/vec.h"

#define DP_MASK_SHIFT 24
#define DP_CFG(k) ((int32_t)((k) & ((1u << DP_MASK_SHIFT) - 1)))
#define DP_MASK(k) ((k) >> DP_MASK_SHIFT)

struct dp_tab {
    int32_t w;               /* key words = bag size */
    int64_t n, cap;          /* entries, and room for them in every array below */
    uint32_t *key;           /* n * w */
    int64_t *cost;
    int32_t *bp;             /* 2 per entry */
    struct ls_hmap map;      /* key -> entry */
    /* 64 bytes: one per tree-decomposition node, millions on big problems */
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

static int64_t tab_bytes(int32_t w, int64_t cap, size_t nslots)
{
    return cap * ((int64_t)w * 4 + 8 + 8) + (int64_t)(nslots * sizeof(int32_t));
}

static int tab_eq(const void *ctx, int32_t e, const void *key)
{
    const struct dp_tab *t = ctx;
    return !memcmp(t->key + (int64_t)e * t->w, key, (size_t)t->w * 4);
}

static uint64_t tab_hash(const void *ctx, int32_t e)
{
    const struct dp_tab *t = ctx;
    return ls_fnv1a64(t->key + (int64_t)e * t->w, (size_t)t->w * 4);
}

static const struct ls_hmap_fns tab_fns = {tab_hash, tab_eq};

/* Double the room, exactly (the budget counts what is allocated). */
static int tab_grow(struct dp *d, struct dp_tab *t)
{
    int64_t cap = t->cap ? 2 * t->cap : 16;
    size_t nslots = ls_hmap_slots_for((size_t)cap);
    int64_t before = tab_bytes(t->w, t->cap, ls_hmap_nslots(&t->map));
    int64_t after = tab_bytes(t->w, cap, nslots);
    if (d->used - before + after > d->limit || cap > INT32_MAX) {
        d->over = 1;
        return LS_ERR_LIMIT;
    }
    size_t kw = (size_t)(t->w ? t->w : 1), kc = (size_t)t->cap * kw, cc = (size_t)t->cap,
           bc = (size_t)t->cap * 2;
    if (LS_ARRAY_RESERVE_EXACT(t->key, kc, (size_t)cap * kw) ||
        LS_ARRAY_RESERVE_EXACT(t->cost, cc, (size_t)cap) ||
        LS_ARRAY_RESERVE_EXACT(t->bp, bc, (size_t)cap * 2) ||
        ls_hmap_reserve(&t->map, (size_t)cap, &tab_fns, t))
        return LS_ERR_NOMEM;
    d->used += after - before;
    t->cap = cap;
    return 0;
}


/* Keep the minimum of (key, cost); bp0/bp1 are the child entries behind it. */
static int tab_put(struct dp *d, struct dp_tab *t, const uint32_t *key, int64_t cost,
                   int32_t bp0, int32_t bp1)
{
    if (t->n + 1 > t->cap) {
        int rc = tab_grow(d, t);
        if (rc)
            return rc;
    }
    size_t kb = (size_t)t->w * 4;
    int32_t e = ls_hmap_put(&t->map, ls_fnv1a64(key, kb), &tab_fns, t, key);
    if (e < 0)
        return LS_ERR_NOMEM;
    if (e < t->n) {
        if (cost < t->cost[e]) {
            t->cost[e] = cost;
            t->bp[2 * e] = bp0;
            t->bp[2 * e + 1] = bp1;
        }
        return 0;
    }
    t->n++;
    if (kb)
        memcpy(t->key + (int64_t)e * t->w, key, kb);
    t->cost[e] = cost;
    t->bp[2 * e] = bp0;
    t->bp[2 * e + 1] = bp1;
    return 0;
}

static void tab_free(struct dp *d, struct dp_tab *t)
{
    d->used -= tab_bytes(t->w, t->cap, ls_hmap_nslots(&t->map));
    free(t->key);
    free(t->cost);
    free(t->bp);
    ls_hmap_free(&t->map);
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

/* The cfg part of a key (the forgotten-request masks cleared) into out; its hash. */
static uint64_t cfg_part(const uint32_t *key, int32_t w, uint32_t *out)
{
    const uint32_t cmask = (1u << DP_MASK_SHIFT) - 1;
    for (int32_t k = 0; k < w; k++)
        out[k] = key[k] & cmask;
    return ls_fnv1a64(out, (size_t)w * 4);
}

struct join_ctx {
    const struct dp_tab *b;
    int32_t *head;           /* group -> an entry of b with that cfg part */
    uint32_t *scratch;       /* w words for join_hash */
};

static int join_eq(const void *ctx, int32_t g, const void *key)
{
    const struct join_ctx *c = ctx;
    const uint32_t *cp = key, *bk = c->b->key + (int64_t)c->head[g] * c->b->w;
    for (int32_t k = 0; k < c->b->w; k++)
        if ((bk[k] & ((1u << DP_MASK_SHIFT) - 1)) != cp[k])
            return 0;
    return 1;
}

static uint64_t join_hash(const void *ctx, int32_t g)
{
    const struct join_ctx *c = ctx;
    return cfg_part(c->b->key + (int64_t)c->head[g] * c->b->w, c->b->w, c->scratch);
}

static const struct ls_hmap_fns join_fns = {join_hash, join_eq};

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
    /* join: pair entries of the two children with equal configurations. b's entries are
     * grouped by their cfg part (group id -> first entry, next[] chains the rest in
     * increasing order), so each entry of a meets its partners in b's order. */
    struct dp_tab *b = &d->tab[x->child[1]];
    struct join_ctx jc = {b, NULL, NULL};
    struct ls_hmap groups = {0};
    int32_t *next = malloc((size_t)(b->n ? b->n : 1) * sizeof *next);
    LS_VEC(int32_t) head = {0};   /* group -> its first entry of b */
    uint32_t *ca = malloc((size_t)(w ? w : 1) * 2 * 4);   /* a key, then join_hash's */
    jc.scratch = ca ? ca + (w ? w : 1) : NULL;
    /* sized for b's entries up front (as many slots as the old chained index had heads):
     * no re-hashing while grouping */
    rc = !next || !ca || LS_VEC_RESERVE_EXACT(&head, (size_t)(b->n ? b->n : 1)) ||
                 ls_hmap_reserve(&groups, (size_t)b->n, &join_fns, &jc)
             ? LS_ERR_NOMEM
             : 0;
    jc.head = head.data;
    for (int64_t e = b->n - 1; e >= 0 && !rc; e--) {
        uint64_t hh = cfg_part(b->key + e * w, w, ca);
        int32_t ng = (int32_t)head.len;   /* at most b->n groups: reserved */
        int32_t g = ls_hmap_put(&groups, hh, &join_fns, &jc, ca);
        if (g < 0) {
            rc = LS_ERR_NOMEM;
            break;
        }
        if (g == ng)
            head.data[head.len++] = -1;
        next[e] = head.data[g];
        head.data[g] = (int32_t)e;
    }
    const int32_t *hd = head.data;
    for (int64_t e = 0; e < a->n && !rc; e++) {
        if ((e & 0xff) == 0xff && ls_deadline_passed(&d->dl)) {
            rc = -1;
            break;
        }
        uint64_t hh = cfg_part(a->key + e * w, w, ca);
        int32_t g = ls_hmap_find(&groups, hh, &join_fns, &jc, ca);
        for (int32_t f = g < 0 ? -1 : hd[g]; f >= 0 && !rc; f = next[f]) {
            for (int32_t k = 0; k < w; k++)
                key[k] = a->key[e * w + k] | b->key[(int64_t)f * w + k];
            rc = tab_put(d, t, key, a->cost[e] + b->cost[f], (int32_t)e, f);
        }
    }
    ls_hmap_free(&groups);
    LS_VEC_FREE(&head);
    free(next);
    free(ca);
    return rc;
}

/* Follow the back pointers from entry e of node i, writing the forgotten ops' cfgs. */
static int backtrack(struct dp *d, int32_t i, int32_t e, int32_t *cfg)
{
    LS_VEC(int32_t) st = {0};   /* (node, entry) pairs still to visit */
    int32_t top[2] = {i, e};
    if (LS_VEC_APPEND(&st, top, 2))
        return LS_ERR_NOMEM;
    while (st.len > 0) {
        st.len -= 2;
        i = st.data[st.len];
        e = st.data[st.len + 1];
        const struct dp_node *x = &d->nt.node[i];
        if (x->type == DP_LEAF)
            continue;
        const struct dp_tab *t = &d->tab[i];
        for (int k = 0; k < (x->type == DP_JOIN ? 2 : 1); k++) {
            int32_t c = x->child[k], ce = t->bp[2 * e + k];
            if (x->type == DP_FORGET) {
                const struct dp_tab *ct = &d->tab[c];
                cfg[x->v] = DP_CFG(ct->key[(int64_t)ce * ct->w + bag_pos(&d->nt, c, x->v)]);
            }
            int32_t child[2] = {c, ce};
            if (LS_VEC_APPEND(&st, child, 2)) {
                LS_VEC_FREE(&st);
                return LS_ERR_NOMEM;
            }
        }
    }
    LS_VEC_FREE(&st);
    return 0;
}

/* Upper bound on the entries of every table: product over the bag of ncfg * 2^|R|, priced
 * at key + cost + back pointers + 8 bytes of index per entry (two 4-byte slots). */
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
    double mem_limit;
    if (lsp_param_num(o, "dp.mem_limit", &mem_limit, err))
        return LS_ERR_INPUT;
    int64_t limit = (int64_t)mem_limit;
    if (p->max_layouts > 8)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "solver dp: at most 8 layouts per tensor (this problem has %d)",
                            p->max_layouts);
    if (p->max_cfg >= (1 << DP_MASK_SHIFT))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "solver dp: too many configurations per op (at most %d)",
                            (1 << DP_MASK_SHIFT) - 1);
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
