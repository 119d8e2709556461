/* solver/tune_space: tuning points and their plans (solver/tune.h).
 *
 * Automatic grouping: the undecided ops (two or more configurations) are linked when they
 * touch the same tensor, as producer or consumer (the rule-based components). Walking the
 * ops in id order, each op not yet in a group starts one, which grows breadth-first over
 * those links (neighbours in id order) until it holds group_max_ops ops. A point's plans
 * are found by depth-first search over its ops with the rest at the start: a sorted list
 * of the best top_k + 1 joint assignments by the full objective, pruned by the partial
 * objective (a lower bound), stopped after node_limit nodes. */
#include "solver/incr.h"
#include "solver/tune.h"
#include "util/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct lsp_tune_space {
    struct ls_arena arena;
    const struct lsp_problem *p;
    int32_t *start;
    int32_t npoints;
    struct lsp_tune_point *points;
    double log10_size;
    uint64_t size;           /* 0 when > 2^62 */
};

void lsp_tune_space_opts_init(struct lsp_tune_space_opts *o)
{
    memset(o, 0, sizeof *o);
    o->group_max_ops = LSP_TUNE_GROUP_DEFAULT;
    o->top_k = LSP_TUNE_TOP_K_DEFAULT;
    o->node_limit = 1000000;
}

const struct lsp_problem *lsp_tune_space_problem(const struct lsp_tune_space *s) { return s->p; }
const int32_t *lsp_tune_space_start(const struct lsp_tune_space *s) { return s->start; }
int32_t lsp_tune_space_npoints(const struct lsp_tune_space *s) { return s->npoints; }
double lsp_tune_space_log10_size(const struct lsp_tune_space *s) { return s->log10_size; }
uint64_t lsp_tune_space_size(const struct lsp_tune_space *s) { return s->size; }

const struct lsp_tune_point *lsp_tune_space_point(const struct lsp_tune_space *s, int32_t i)
{
    return i >= 0 && i < s->npoints ? &s->points[i] : NULL;
}

void lsp_tune_design_apply(const struct lsp_tune_space *s, const int32_t *design,
                           int32_t *assignment)
{
    memcpy(assignment, s->start, sizeof *assignment * (size_t)s->p->nops);
    for (int32_t i = 0; i < s->npoints; i++) {
        const struct lsp_tune_point *pt = &s->points[i];
        const int32_t *row = pt->plan_cfg + (int64_t)design[i] * pt->nops;
        for (int32_t k = 0; k < pt->nops; k++)
            assignment[pt->ops[k]] = row[k];
    }
}

void lsp_tune_space_free(struct lsp_tune_space *s)
{
    if (!s)
        return;
    ls_arena_free(&s->arena);
    free(s);
}

/* ---- grouping ------------------------------------------------------------------------ */

/* Automatic groups: gid[op] = group number (in order of first op) or -1. */
static int auto_groups(const struct lsp_problem *p, int32_t max_ops, int32_t *gid)
{
    int32_t *queue = malloc(sizeof *queue * ((size_t)p->nops + 1));
    if (!queue)
        return LS_ERR_NOMEM;
    for (int32_t o = 0; o < p->nops; o++)
        gid[o] = -1;
    int32_t ng = 0;
    for (int32_t seed = 0; seed < p->nops; seed++) {
        if (gid[seed] >= 0 || p->ops[seed].ncfg < 2)
            continue;
        int32_t g = ng++, head = 0, tail = 0, size = 1;
        gid[seed] = g;
        queue[tail++] = seed;
        while (head < tail && size < max_ops) {
            const struct lsp_op *op = &p->ops[queue[head++]];
            /* the tensors this op touches: its inputs, then its output */
            for (int32_t k = 0; k <= op->nin && size < max_ops; k++) {
                int32_t t = k < op->nin ? op->in[k] : op->out;
                if (t < 0)
                    continue;
                int32_t pr = p->tensors[t].producer;
                for (int32_t u = p->use_off[t] - 1; u < p->use_off[t + 1] && size < max_ops;
                     u++) {
                    int32_t nb = u < p->use_off[t] ? pr : p->use_op[u];
                    if (nb < 0 || gid[nb] >= 0 || p->ops[nb].ncfg < 2)
                        continue;
                    gid[nb] = g;
                    queue[tail++] = nb;
                    size++;
                }
            }
        }
    }
    free(queue);
    return 0;
}

/* ---- plans of one point --------------------------------------------------------------- */

struct cand {
    int64_t cost;
    int32_t *cfg;            /* nops of the point (malloc'd) */
};

struct enum_state {
    struct lsp_incr s;
    const int32_t *ops;
    int32_t n;
    int64_t *rest;           /* rest[k]: sum of the cheapest op cost of ops[k..] */
    int64_t nodes, node_limit;
    struct cand *c;          /* sorted by cost, then discovery (lexicographic) order */
    int32_t nc, cap;         /* cap: top_k + 1 kept at most; none when unlimited */
    size_t alloc;            /* room in c */
    int unlimited;
    int nomem;
};

/* Record the current joint assignment of the point's ops (all assigned). */
static void keep(struct enum_state *e)
{
    int64_t cost = e->s.cost;
    int32_t *tuple = NULL;
    if (!e->unlimited && e->nc == e->cap) {
        if (cost >= e->c[e->nc - 1].cost)
            return;
        tuple = e->c[--e->nc].cfg;           /* drop the worst, reuse its buffer */
    } else if (LS_ARRAY_RESERVE(e->c, e->alloc, (size_t)e->nc + 1)) {
        e->nomem = 1;
        return;
    }
    if (!tuple && !(tuple = malloc(sizeof *tuple * (size_t)e->n))) {
        e->nomem = 1;
        return;
    }
    for (int32_t k = 0; k < e->n; k++)
        tuple[k] = e->s.cfg[e->ops[k]];
    int32_t pos = e->nc;
    while (pos > 0 && e->c[pos - 1].cost > cost)
        pos--;
    memmove(&e->c[pos + 1], &e->c[pos], sizeof *e->c * (size_t)(e->nc - pos));
    e->c[pos].cost = cost;
    e->c[pos].cfg = tuple;
    e->nc++;
}

static void dfs(struct enum_state *e, int32_t k)
{
    e->nodes++;
    if (k == e->n) {
        keep(e);
        return;
    }
    int32_t o = e->ops[k];
    int32_t nc = e->s.p->ops[o].ncfg;
    for (int32_t c = 0; c < nc && !e->nomem; c++) {
        if (e->node_limit > 0 && e->nodes >= e->node_limit)
            break;
        lsp_incr_set(&e->s, o, c);
        if (e->unlimited || e->nc < e->cap || e->s.cost + e->rest[k + 1] < e->c[e->nc - 1].cost)
            dfs(e, k + 1);
    }
    lsp_incr_set(&e->s, o, -1);
}

/* Fill pt (ops already set) with its plans; pt->nplans may end as 1 (nothing to tune).
 * at: the objective state of the start assignment, left as it was found (the point's ops
 * are unassigned for the search, then set back: one state serves every point, where
 * setting every op per point made the build quadratic, 2.4 s on olmoe's 12k points). */
static int point_plans(struct lsp_tune_space *sp, struct lsp_tune_point *pt, int32_t top_k,
                       int64_t node_limit, struct lsp_incr *at)
{
    const struct lsp_problem *p = sp->p;
    struct enum_state e;
    memset(&e, 0, sizeof e);
    int rc = LS_ERR_NOMEM;
    e.s = *at;
    e.ops = pt->ops;
    e.n = pt->nops;
    e.node_limit = node_limit;
    e.unlimited = top_k <= 0;
    e.cap = e.unlimited ? 16 : top_k + 1;
    e.alloc = (size_t)e.cap;
    e.c = malloc(sizeof *e.c * e.alloc);
    e.rest = malloc(sizeof *e.rest * ((size_t)e.n + 1));
    if (!e.c || !e.rest)
        goto out;
    e.rest[e.n] = 0;
    for (int32_t k = e.n - 1; k >= 0; k--) {
        int32_t o = e.ops[k];
        int64_t m = lsp_cfg_cost(p, o, 0);
        for (int32_t c = 1; c < p->ops[o].ncfg; c++)
            if (lsp_cfg_cost(p, o, c) < m)
                m = lsp_cfg_cost(p, o, c);
        e.rest[k] = e.rest[k + 1] + m;
    }
    int64_t start_cost = e.s.cost;
    for (int32_t k = 0; k < e.n; k++)
        lsp_incr_set(&e.s, e.ops[k], -1);
    dfs(&e, 0);
    if (e.nomem)
        goto out;
    /* plan 0 = no change, then the candidates that differ from it */
    int32_t limit = top_k > 0 ? top_k : e.nc;
    int32_t *cfgs = ls_arena_alloc(&sp->arena, sizeof *cfgs * ((size_t)limit + 1) * (size_t)e.n);
    int64_t *costs = ls_arena_alloc(&sp->arena, sizeof *costs * ((size_t)limit + 1));
    if (!cfgs || !costs)
        goto out;
    int32_t np = 1;
    for (int32_t k = 0; k < e.n; k++)
        cfgs[k] = sp->start[e.ops[k]];
    costs[0] = start_cost;
    for (int32_t i = 0; i < e.nc && np <= limit; i++) {
        if (memcmp(e.c[i].cfg, cfgs, sizeof *cfgs * (size_t)e.n) == 0)
            continue;
        memcpy(cfgs + (int64_t)np * e.n, e.c[i].cfg, sizeof *cfgs * (size_t)e.n);
        costs[np++] = e.c[i].cost;
    }
    pt->nplans = np;
    pt->plan_cfg = cfgs;
    pt->plan_cost = costs;
    rc = 0;
out:
    for (int32_t i = 0; e.c && i < e.nc; i++)
        free(e.c[i].cfg);
    free(e.c);
    free(e.rest);
    for (int32_t k = 0; k < e.n; k++)   /* unassigned by the search (or not yet) */
        lsp_incr_set(&e.s, e.ops[k], sp->start[e.ops[k]]);
    *at = e.s;
    return rc;
}

/* ---- building -------------------------------------------------------------------------- */

int lsp_tune_space_build(const struct lsp_problem *p, const int32_t *start,
                         const struct lsp_tune_space_opts *o, struct lsp_tune_space **out,
                         struct ls_error *err)
{
    *out = NULL;
    struct lsp_tune_space_opts def;
    if (!o) {
        lsp_tune_space_opts_init(&def);
        o = &def;
    }
    if (!p->finished)
        return ls_error_msg(err, LS_ERR_INTERNAL, "tune: problem not finished");
    if (o->group_max_ops < 1 || o->top_k < 0 || o->node_limit < 0)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "tune: group_max_ops must be >= 1, top_k and node_limit >= 0");
    int rc = lsp_check_assignment(p, start, err);
    if (rc)
        return rc;
    struct lsp_tune_space *s = calloc(1, sizeof *s);
    int32_t *gid = malloc(sizeof *gid * ((size_t)p->nops + 1));
    struct lsp_incr at;
    memset(&at, 0, sizeof at);   /* lsp_incr_free of a zeroed state is a no-op */
    int32_t *first = NULL, *bucket = NULL;
    if (!s || !gid) {
        free(s);
        free(gid);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    ls_arena_init(&s->arena, 0);
    s->p = p;
    rc = LS_ERR_NOMEM;
    s->start = ls_arena_alloc(&s->arena, sizeof *s->start * ((size_t)p->nops + 1));
    if (!s->start)
        goto fail;
    memcpy(s->start, start, sizeof *start * (size_t)p->nops);

    /* group ids, renumbered in order of each group's first op */
    int32_t ng = 0;
    if (o->group) {
        int32_t maxg = -1;
        for (int32_t i = 0; i < p->nops; i++) {
            if (o->group[i] < -1) {
                rc = ls_error_msg(err, LS_ERR_INPUT, "tune: group of op '%s' is %d (< -1)",
                                  p->ops[i].name, (int)o->group[i]);
                goto fail;
            }
            if (o->group[i] > maxg)
                maxg = o->group[i];
        }
        int32_t *map = malloc(sizeof *map * ((size_t)maxg + 2));
        if (!map)
            goto fail;
        for (int32_t g = 0; g <= maxg; g++)
            map[g] = -1;
        for (int32_t i = 0; i < p->nops; i++) {
            int32_t g = o->group[i];
            if (g >= 0 && map[g] < 0)
                map[g] = ng++;
            gid[i] = g >= 0 ? map[g] : -1;
        }
        free(map);
    } else {
        if (auto_groups(p, o->group_max_ops, gid))
            goto fail;
        for (int32_t i = 0; i < p->nops; i++)
            if (gid[i] + 1 > ng)
                ng = gid[i] + 1;
    }
    first = calloc((size_t)ng + 2, sizeof *first);
    bucket = malloc(sizeof *bucket * ((size_t)p->nops + 1));
    s->points = ls_arena_alloc(&s->arena, sizeof *s->points * ((size_t)ng + 1));
    if (!first || !bucket || !s->points || lsp_incr_init(&at, p))
        goto fail;
    for (int32_t i = 0; i < p->nops; i++)
        lsp_incr_set(&at, i, start[i]);
    /* bucket the ops by group, ascending within each: first[g]..first[g+1] in bucket[] */
    for (int32_t i = 0; i < p->nops; i++)
        if (gid[i] >= 0)
            first[gid[i] + 1]++;
    for (int32_t g = 0; g < ng; g++)
        first[g + 1] += first[g];
    for (int32_t i = 0, *fill = first; i < p->nops; i++)
        if (gid[i] >= 0)
            bucket[fill[gid[i]]++] = i;
    for (int32_t g = ng; g > 0; g--)   /* the fill shifted every start by one bucket */
        first[g] = first[g - 1];
    first[0] = 0;
    for (int32_t g = 0; g < ng; g++) {
        struct lsp_tune_point *pt = &s->points[s->npoints];
        int32_t n = first[g + 1] - first[g];
        int32_t *ops = ls_arena_alloc(&s->arena, sizeof *ops * (size_t)n);
        if (!ops)
            goto fail;
        memcpy(ops, bucket + first[g], sizeof *ops * (size_t)n);
        pt->ops = ops;
        pt->nops = n;
        if ((rc = point_plans(s, pt, o->top_k, o->node_limit, &at)))
            goto fail;
        if (pt->nplans >= 2)
            s->npoints++;
    }
    s->log10_size = 0;
    s->size = 1;
    for (int32_t i = 0; i < s->npoints; i++) {
        uint64_t n = (uint64_t)s->points[i].nplans;
        s->log10_size += log10((double)n);
        if (s->size && s->size <= ((uint64_t)1 << 62) / n)
            s->size *= n;
        else
            s->size = 0;
    }
    free(first);
    free(bucket);
    free(gid);
    lsp_incr_free(&at);
    *out = s;
    return 0;
fail:
    if (rc == LS_ERR_NOMEM)
        ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    free(first);
    free(bucket);
    free(gid);
    lsp_incr_free(&at);
    lsp_tune_space_free(s);
    return rc;
}
