/* solver/rulebased: the production strategy of the layout middle-end, on the abstract
 * problem (docs/solvers.md):
 *  1. ops with a single cfg are decided; the others are grouped into undecided connected
 *     components (two undecided ops are linked when they touch the same tensor as
 *     producer/consumer or as co-consumers);
 *  2. each component is solved by exhaustive search with running-minimum pruning when its
 *     solution space (product of cfg counts) is at most rb.exhaustive_max, by divide and
 *     conquer when it has at most rb.split_max_ops ops, else by the greedy fallback;
 *  3. the operand-swap-style peephole: flip an op to an alternative of equal or lower op
 *     cost when that lowers the objective (removes conversions). */
#include "solver/heur.h"
#include "util/clock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct rb {
    const struct lsp_problem *p;
    struct lsp_incr s;
    struct ls_deadline dl;
    double exh_log10;
    int64_t node_limit, nodes;
    int64_t *minc;           /* cheapest cfg cost per op */
    int32_t *pos;            /* position of an op in the current list, -1 otherwise */
    int32_t *tmin, *tmax;    /* per tensor: first/last list position touching it */
    int32_t *tstamp;
    int32_t stamp;
    int32_t *tlist, ntl;     /* tensors touched by the current list */
    int cut;                 /* set when the deadline or node limit stopped a search */
    /* exhaustive search */
    const int32_t *xops;
    int32_t xn;
    int64_t *rest;           /* rest[k] = sum of minc over xops[k..] */
    int32_t *bestcfg;
    int64_t best;
    struct lsp_stats *stats;
};

static double space_log10(const struct rb *b, const int32_t *ops, int32_t n)
{
    double s = 0;
    for (int32_t i = 0; i < n; i++)
        s += log10((double)b->p->ops[ops[i]].ncfg);
    return s;
}

static int out_of_budget(struct rb *b)
{
    if (b->node_limit > 0 && b->nodes >= b->node_limit)
        return 1;
    if ((b->nodes & 1023) == 0 && ls_deadline_passed(&b->dl))
        return 1;
    return 0;
}

static void dfs(struct rb *b, int32_t k)
{
    b->nodes++;
    if (k == b->xn) {
        if (b->s.cost < b->best) {
            b->best = b->s.cost;
            for (int32_t i = 0; i < b->xn; i++)
                b->bestcfg[i] = b->s.cfg[b->xops[i]];
        }
        return;
    }
    if (b->cut || out_of_budget(b)) {
        b->cut = 1;
        return;
    }
    int32_t o = b->xops[k];
    for (int32_t c = 0; c < b->p->ops[o].ncfg; c++) {
        lsp_incr_set(&b->s, o, c);
        if (b->s.cost + b->rest[k + 1] < b->best)
            dfs(b, k + 1);
        if (b->cut)
            break;
    }
    lsp_incr_set(&b->s, o, -1);
}

/* Exhaustive search over ops (all assigned: the incumbent), others held fixed. Returns
 * 1 when the search completed (the result is optimal for these ops). */
static int exhaustive(struct rb *b, const int32_t *ops, int32_t n)
{
    b->xops = ops;
    b->xn = n;
    b->best = b->s.cost;
    for (int32_t i = 0; i < n; i++)
        b->bestcfg[i] = b->s.cfg[ops[i]];
    b->rest[n] = 0;
    for (int32_t i = n - 1; i >= 0; i--)
        b->rest[i] = b->rest[i + 1] + b->minc[ops[i]];
    for (int32_t i = 0; i < n; i++)
        lsp_incr_set(&b->s, ops[i], -1);
    int was_cut = b->cut;
    b->cut = 0;
    dfs(b, 0);
    int complete = !b->cut;
    b->cut = was_cut || b->cut;
    for (int32_t i = 0; i < n; i++)
        lsp_incr_set(&b->s, ops[i], b->bestcfg[i]);
    return complete;
}

/* Record the first/last list position touching each tensor; tlist gets the tensors. */
static void touch_range(struct rb *b, int32_t t, int32_t k)
{
    if (b->tstamp[t] != b->stamp) {
        b->tstamp[t] = b->stamp;
        b->tmin[t] = b->tmax[t] = k;
        b->tlist[b->ntl++] = t;
    } else if (k > b->tmax[t]) {
        b->tmax[t] = k;
    }
}

static void ranges(struct rb *b, const int32_t *ops, int32_t n)
{
    b->stamp++;
    b->ntl = 0;
    for (int32_t k = 0; k < n; k++) {
        const struct lsp_op *op = &b->p->ops[ops[k]];
        for (int32_t i = 0; i < op->nin; i++)
            touch_range(b, op->in[i], k);
        if (op->out >= 0)
            touch_range(b, op->out, k);
    }
}

/* Split position in [n/4, 3n/4] crossed by the fewest shared tensors (ties: nearest the
 * middle); a tensor crosses split k (left = positions < k) when tmin < k <= tmax. Fills
 * seam (the list ops touching a crossing tensor); returns the split. */
static int32_t find_split(struct rb *b, const int32_t *ops, int32_t n, int32_t *seam,
                          int32_t *nseam, int32_t *diff)
{
    int32_t lo = n / 4 > 1 ? n / 4 : 1, hi = 3 * n / 4 > lo ? 3 * n / 4 : lo;
    int32_t split = n / 2 > 0 ? n / 2 : 1;
    ranges(b, ops, n);
    memset(diff, 0, ((size_t)n + 2) * sizeof *diff);
    for (int32_t i = 0; i < b->ntl; i++) {
        int32_t t = b->tlist[i];
        if (b->tmin[t] < b->tmax[t]) {
            diff[b->tmin[t] + 1]++;
            diff[b->tmax[t] + 1]--;
        }
    }
    int32_t run = 0, bestc = INT32_MAX;
    for (int32_t k = 1; k < n; k++) {
        run += diff[k];
        if (k < lo || k > hi)
            continue;
        if (run < bestc || (run == bestc && abs(k - n / 2) < abs(split - n / 2))) {
            bestc = run;
            split = k;
        }
    }
    *nseam = 0;
    for (int32_t k = 0; k < n; k++) {
        const struct lsp_op *op = &b->p->ops[ops[k]];
        int on = 0;
        for (int32_t i = 0; i <= op->nin && !on; i++) {
            int32_t t = i < op->nin ? op->in[i] : op->out;
            on = t >= 0 && b->tmin[t] < split && b->tmax[t] >= split;
        }
        if (on)
            seam[(*nseam)++] = ops[k];
    }
    return split;
}

/* Divide and conquer over ops (unassigned on entry; assigned on return). */
static void divide(struct rb *b, const int32_t *ops, int32_t n, int depth)
{
    if (n == 1 || space_log10(b, ops, n) <= b->exh_log10 || b->cut) {
        lsp_greedy_construct(&b->s, ops, n);
        if (!b->cut)
            exhaustive(b, ops, n);
        return;
    }
    int32_t *seam = malloc((size_t)n * sizeof *seam);
    int32_t *diff = malloc(((size_t)n + 2) * sizeof *diff);
    if (!seam || !diff) {   /* fall back to greedy rather than fail */
        free(seam);
        free(diff);
        lsp_greedy_construct(&b->s, ops, n);
        return;
    }
    int32_t nseam;
    int32_t k = find_split(b, ops, n, seam, &nseam, diff);
    free(diff);
    lsp_stats_add(b->stats, "splits", 1);
    divide(b, ops, k, depth + 1);
    divide(b, ops + k, n - k, depth + 1);
    /* Repair at the seam: re-solve the seam ops jointly when small, else local moves. */
    if (nseam > 0 && !b->cut) {
        if (space_log10(b, seam, nseam) <= b->exh_log10)
            exhaustive(b, seam, nseam);
        else
            lsp_incr_improve(&b->s, seam, nseam, 0, &b->dl, NULL);
    }
    free(seam);
}

/* Union-find over ops. */
static int32_t find(int32_t *uf, int32_t x)
{
    while (uf[x] != x) {
        uf[x] = uf[uf[x]];
        x = uf[x];
    }
    return x;
}

static void unite(int32_t *uf, int32_t a, int32_t b)
{
    a = find(uf, a);
    b = find(uf, b);
    if (a != b) {
        if (a < b)
            uf[b] = a;
        else
            uf[a] = b;
    }
}

int lsp_solve_rulebased(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                        struct lsp_result *r, struct ls_error *err)
{
    double exh_max, split_max, nodes;
    int rc;
    if ((rc = lsp_param_num(o, "rb.exhaustive_max", &exh_max, err)) ||
        (rc = lsp_param_num(o, "rb.split_max_ops", &split_max, err)) ||
        (rc = lsp_param_num(o, "rb.node_limit", &nodes, err)))
        return rc;
    int64_t split_max_ops = (int64_t)split_max;
    int64_t node_limit = isnan(nodes) ? (int64_t)o->node_limit : (int64_t)nodes;
    struct rb b;
    memset(&b, 0, sizeof b);
    b.p = p;
    b.dl = ls_deadline_in(o->time_limit);
    b.exh_log10 = exh_max >= 1 ? log10(exh_max) : -1;
    b.node_limit = node_limit;
    b.stats = &r->stats;
    size_t no = (size_t)p->nops + 1, nt = (size_t)p->ntensors + 1;
    int32_t *uf = malloc(no * sizeof *uf), *order = malloc(no * sizeof *order);
    int32_t *start = malloc((no + 1) * sizeof *start);
    b.minc = malloc(no * sizeof *b.minc);
    b.rest = malloc((no + 1) * sizeof *b.rest);
    b.bestcfg = malloc(no * sizeof *b.bestcfg);
    b.pos = malloc(no * sizeof *b.pos);
    b.tmin = malloc(nt * sizeof *b.tmin);
    b.tmax = malloc(nt * sizeof *b.tmax);
    b.tstamp = calloc(nt, sizeof *b.tstamp);
    b.tlist = malloc(nt * sizeof *b.tlist);
    rc = 0;
    if (!uf || !order || !start || !b.minc || !b.rest || !b.bestcfg || !b.pos || !b.tmin ||
        !b.tmax || !b.tstamp || !b.tlist || lsp_incr_init(&b.s, p)) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    /* Decided ops first; then components of the undecided ones. */
    int32_t nfixed = 0;
    for (int32_t i = 0; i < p->nops; i++) {
        uf[i] = i;
        b.minc[i] = lsp_cfg_cost(p, i, 0);
        for (int32_t c = 1; c < p->ops[i].ncfg; c++)
            if (lsp_cfg_cost(p, i, c) < b.minc[i])
                b.minc[i] = lsp_cfg_cost(p, i, c);
        if (p->ops[i].ncfg == 1) {
            lsp_incr_set(&b.s, i, 0);
            nfixed++;
        }
    }
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t first = -1;
        int32_t pr = p->tensors[t].producer;
        if (p->tensors[t].nlayouts < 2)
            continue;   /* one layout: no conversion can couple anything */
        if (pr >= 0 && p->ops[pr].ncfg >= 2)
            first = pr;
        for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++) {
            int32_t u = p->use_op[i];
            if (p->ops[u].ncfg < 2)
                continue;
            if (first < 0)
                first = u;
            else
                unite(uf, first, u);
        }
    }
    /* Group undecided ops by root, in index order within each component and components
     * ordered by their smallest op (counting sort on roots). */
    for (int32_t i = 0; i <= p->nops; i++)
        start[i] = 0;
    for (int32_t i = 0; i < p->nops; i++)
        if (p->ops[i].ncfg >= 2)
            start[find(uf, i) + 1]++;
    for (int32_t i = 0; i < p->nops; i++)
        start[i + 1] += start[i];
    {
        int32_t *fill = b.pos;   /* reuse as a cursor array */
        for (int32_t i = 0; i < p->nops; i++)
            fill[i] = start[i];
        for (int32_t i = 0; i < p->nops; i++)
            if (p->ops[i].ncfg >= 2)
                order[fill[find(uf, i)]++] = i;
    }
    int all_exact = 1;
    int64_t ncomp = 0, nexh = 0, nsplit = 0, ngreedy = 0, largest = 0;
    for (int32_t root = 0; root < p->nops; root++) {
        int32_t n = start[root + 1] - start[root];
        if (n == 0)
            continue;
        const int32_t *ops = order + start[root];
        ncomp++;
        if (n > largest)
            largest = n;
        double sp = space_log10(&b, ops, n);
        if (b.cut) {
            lsp_greedy_construct(&b.s, ops, n);
            all_exact = 0;
            ngreedy++;
        } else if (sp <= b.exh_log10) {
            lsp_greedy_construct(&b.s, ops, n);
            if (!exhaustive(&b, ops, n))
                all_exact = 0;
            nexh++;
        } else if (n <= split_max_ops) {
            divide(&b, ops, n, 0);
            lsp_incr_improve(&b.s, ops, n, 0, &b.dl, NULL);
            all_exact = 0;
            nsplit++;
        } else {
            lsp_greedy_construct(&b.s, ops, n);
            lsp_incr_improve(&b.s, ops, n, 0, &b.dl, NULL);
            all_exact = 0;
            ngreedy++;
        }
    }
    int64_t before = b.s.cost;
    int64_t flips = lsp_incr_improve(&b.s, NULL, 0, 1, &b.dl, NULL);
    int64_t bound = all_exact && !b.cut ? b.s.cost : lsp_trivial_bound(p);
    lsp_result_take(r, &b.s, bound);
    lsp_stats_set(&r->stats, "ops_fixed", nfixed);
    lsp_stats_set(&r->stats, "components", (double)ncomp);
    lsp_stats_set(&r->stats, "components_exhaustive", (double)nexh);
    lsp_stats_set(&r->stats, "components_split", (double)nsplit);
    lsp_stats_set(&r->stats, "components_greedy", (double)ngreedy);
    lsp_stats_set(&r->stats, "largest_component", (double)largest);
    lsp_stats_set(&r->stats, "search_nodes", (double)b.nodes);
    lsp_stats_set(&r->stats, "peephole_flips", (double)flips);
    lsp_stats_set(&r->stats, "peephole_gain", (double)(before - b.s.cost));
    lsp_stats_set(&r->stats, "budget_exhausted", b.cut);
done:
    lsp_incr_free(&b.s);
    free(uf);
    free(order);
    free(start);
    free(b.minc);
    free(b.rest);
    free(b.bestcfg);
    free(b.pos);
    free(b.tmin);
    free(b.tmax);
    free(b.tstamp);
    free(b.tlist);
    return rc;
}
