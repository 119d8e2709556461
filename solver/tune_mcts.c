/* solver/tune_mcts: Monte-Carlo tree search over designs.
 *
 * The tree decides the tuning points in order of *promise*, not in point order: depth d
 * decides point order[d], where points are sorted by the static cost of their best
 * alternative plan over no-change (near-ties first; ties by point index). Points whose
 * alternatives the cost model calls much worse sit deep in the tree and are mostly left at
 * the incumbent's plan. On the study's models this ordering took MCTS from finding nothing
 * within 200 evaluations of exact's start to matching the sweep explorer (bench/tune.sh).
 *
 * A node at depth d is a prefix of d decisions; the root is the empty design, a leaf
 * (depth = npoints) a full design. One iteration:
 *  1. selection: from the root, while the node has all its children, descend to the child
 *     with the largest UCT value among those whose subtree is not fully scored:
 *        (1 - b) * mean + b * best + c * sqrt(ln N / n)
 *     where mean and best are the child's average and best score mapped into [0, 1] by
 *     tune_norm: a mix of the rank among every score seen so far and the closeness to
 *     the incumbent (1 = best; unrunnable = 0);
 *  2. expansion: the first missing child in plan-id order (plan ids are ordered by static
 *     cost, so the static model is the prior) becomes a node;
 *  3. rollout: the remaining points take the incumbent's plans; when that design was
 *     scored already and the path so far is the incumbent's, the rollout is instead the
 *     next unscored single-plan move around the incumbent at the shallowest remaining
 *     depth (per-depth cursors, reset when the incumbent changes: a sweep of the
 *     incumbent's neighbourhood in promise order); otherwise each remaining point moves
 *     to another plan (uniformly) with probability rollout_mutations / (points
 *     remaining), so a rollout changes about rollout_mutations points; up to 16 draws to
 *     find a design not scored yet;
 *  4. backpropagation of the score along the path; a node whose children all exist and
 *     are all complete is complete (a leaf is complete once scored) and is never selected
 *     again, so the search ends by itself when the design space is exhausted.
 * Besides, a share (neighbour_share) of the iterations skips the tree: it scores the next
 * unscored single-plan move around the incumbent (the same cursors as above, from depth 0)
 * and backpropagates it at the root only. With deep trees (tens to hundreds of points) the
 * tree alone reaches deep single moves slowly; this keeps the incumbent's neighbourhood
 * covered while the tree searches the joint moves.
 * The root starts with the start design's score; the first expansion is plan 0 (no
 * change) of the most promising point, whose rollout explores around the start. */
#include "solver/tune_impl.h"
#include "util/arena.h"
#include "util/vec.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct node {
    int32_t depth, nexp;
    int32_t *child;          /* nplans of point `depth`: node index + 1, 0 = none */
    uint64_t visits, nfinite;
    double sum, best;        /* over finite scores */
    int complete;
};

struct mcts {
    struct tune_run *t;
    LS_VEC(struct node) nodes;
    struct ls_arena arena;
    int32_t *path, len;
    int32_t *design;         /* indexed by point */
    int32_t *order;          /* depth -> point: most promising points first */
    int32_t *cursor;         /* per depth: next plan to try around the incumbent */
    uint64_t cursor_at;      /* the incumbent (its best_at) the cursors belong to */
};

static int32_t nplans(const struct mcts *m, int32_t depth)
{
    return lsp_tune_space_point(m->t->s, m->order[depth])->nplans;
}

/* A point's promise: how much the static model says its best alternative plan costs over
 * no-change (plans are sorted by static cost, so that is plan 1). Small or negative gaps
 * are near-ties, where an error of the cost model is most likely to flip the decision. */
struct promise {
    int64_t gap;
    int32_t point;
};

static int by_gap(const void *a, const void *b)
{
    const struct promise *x = a, *y = b;
    if (x->gap != y->gap)
        return x->gap < y->gap ? -1 : 1;
    return (x->point > y->point) - (x->point < y->point);
}

/* order[depth] = point, most promising first (ties: point order). */
static int order_points(const struct tune_run *t, int32_t *order)
{
    struct promise *pr = malloc(sizeof *pr * ((size_t)t->np + 1));
    if (!pr)
        return -1;
    for (int32_t i = 0; i < t->np; i++) {
        const struct lsp_tune_point *pt = lsp_tune_space_point(t->s, i);
        pr[i] = (struct promise){pt->plan_cost[1] - pt->plan_cost[0], i};
    }
    qsort(pr, (size_t)t->np, sizeof *pr, by_gap);
    for (int32_t d = 0; d < t->np; d++)
        order[d] = pr[d].point;
    free(pr);
    return 0;
}

/* New node at depth; returns its index or -1 when out of memory. */
static int32_t new_node(struct mcts *m, int32_t depth)
{
    struct node n = {.depth = depth, .best = HUGE_VAL};
    if (depth < m->t->np) {
        n.child = ls_arena_alloc(&m->arena, sizeof *n.child * (size_t)nplans(m, depth));
        if (!n.child)
            return -1;
    }
    if (LS_VEC_PUSH(&m->nodes, n))
        return -1;
    return (int32_t)m->nodes.len - 1;
}

static int32_t add_child(struct mcts *m, int32_t parent, int32_t plan)
{
    int32_t c = new_node(m, m->nodes.data[parent].depth + 1);
    if (c < 0)
        return -1;
    struct node *p = &m->nodes.data[parent];
    p->child[plan] = c + 1;
    p->nexp++;
    return c;
}

static double uct(const struct mcts *m, const struct node *parent, const struct node *ch)
{
    const struct lsp_tune_opts *o = m->t->o;
    if (ch->visits == 0)
        return HUGE_VAL;
    double mean = ch->nfinite ? tune_norm(m->t, ch->sum / (double)ch->nfinite) : 0;
    double best = tune_norm(m->t, ch->best);
    double explore = sqrt(log((double)(parent->visits > 1 ? parent->visits : 1)) /
                          (double)ch->visits);
    return (1 - o->uct_best) * mean + o->uct_best * best + o->uct_c * explore;
}

static void backprop(struct mcts *m, double cycles)
{
    for (int32_t k = 0; k < m->len; k++) {
        struct node *n = &m->nodes.data[m->path[k]];
        n->visits++;
        if (isfinite(cycles)) {
            n->nfinite++;
            n->sum += cycles;
            if (cycles < n->best)
                n->best = cycles;
        }
    }
    /* completion, bottom-up */
    struct node *last = &m->nodes.data[m->path[m->len - 1]];
    if (last->depth < m->t->np)
        return;
    last->complete = 1;
    for (int32_t k = m->len - 2; k >= 0; k--) {
        struct node *n = &m->nodes.data[m->path[k]];
        int32_t np = nplans(m, n->depth);
        if (n->nexp < np)
            return;
        for (int32_t j = 0; j < np; j++)
            if (!m->nodes.data[n->child[j] - 1].complete)
                return;
        n->complete = 1;
    }
}

/* On the incumbent's own path, the next single-plan move around the incumbent that is not
 * scored yet, at the shallowest depth >= from (per-depth cursors, reset whenever the
 * incumbent changes). Leaves it in m->design and returns 1; 0 when there is none. */
static int neighbour(struct mcts *m, int32_t from)
{
    struct tune_run *t = m->t;
    const int32_t *inc = t->r->best_design;
    for (int32_t d = 0; d < from; d++)
        if (m->design[m->order[d]] != inc[m->order[d]])
            return 0;
    if (m->cursor_at != t->r->best_at) {
        memset(m->cursor, 0, sizeof *m->cursor * (size_t)t->np);
        m->cursor_at = t->r->best_at;
    }
    for (int32_t d = from; d < t->np; d++) {
        int32_t pt = m->order[d];
        while (m->cursor[d] < nplans(m, d)) {
            int32_t j = m->cursor[d]++;
            if (j == inc[pt])
                continue;
            m->design[pt] = j;
            if (!tune_cached(t, m->design, NULL))
                return 1;
        }
        m->design[pt] = inc[pt];
    }
    return 0;
}

static void rollout(struct mcts *m, int32_t from)
{
    struct tune_run *t = m->t;
    int32_t rem = t->np - from;
    if (rem == 0)
        return;
    for (int attempt = 0; attempt < 16; attempt++) {
        /* first the plain completion by the incumbent, then (on the incumbent's path) its
         * neighbours, then mutated completions */
        double q = attempt == 0 ? 0 : t->o->rollout_mutations / (double)rem;
        for (int32_t d = from; d < t->np; d++) {
            int32_t pt = m->order[d], inc = t->r->best_design[pt];
            m->design[pt] = inc;
            if (ls_rng_double(&t->rng) < q) {   /* another plan, uniformly */
                int32_t j = (int32_t)ls_rng_below(&t->rng, (uint64_t)nplans(m, d) - 1);
                m->design[pt] = j < inc ? j : j + 1;
            }
        }
        if (!tune_cached(t, m->design, NULL))
            return;
        if (attempt == 0 && neighbour(m, from))
            return;
    }
}

/* Score m->design and backpropagate it along m->path; 1 when the search should stop
 * (an error in *rc, or no budget left). */
static int score_path(struct mcts *m, int *rc, struct ls_error *err)
{
    double cycles;
    int scored;
    if ((*rc = tune_score(m->t, m->design, &cycles, &scored, NULL, err)) || !scored)
        return 1;
    backprop(m, cycles);
    return 0;
}

/* One iteration; 1 when the search should stop. */
static int iterate(struct mcts *m, int *rc, struct ls_error *err)
{
    struct tune_run *t = m->t;
    int32_t cur = 0;
    m->len = 0;
    m->path[m->len++] = 0;
    /* a share of the iterations scores the incumbent's next unscored single-plan move
     * directly (a sweep of its neighbourhood in promise order) */
    if (t->o->neighbour_share > 0 && ls_rng_double(&t->rng) < t->o->neighbour_share) {
        memcpy(m->design, t->r->best_design, sizeof *m->design * (size_t)t->np);
        if (neighbour(m, 0))
            return score_path(m, rc, err);   /* backpropagated at the root only */
    }
    while (m->nodes.data[cur].depth < t->np) {
        struct node *n = &m->nodes.data[cur];
        int32_t d = n->depth, np = nplans(m, d);
        if (n->nexp < np) {
            int32_t plan = 0;
            while (n->child[plan])
                plan++;
            int32_t c = add_child(m, cur, plan);
            if (c < 0) {
                *rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                return 1;
            }
            m->design[m->order[d]] = plan;
            m->path[m->len++] = c;
            cur = c;
            break;
        }
        int32_t pick = -1;
        double best = -HUGE_VAL;
        for (int32_t j = 0; j < np; j++) {
            if (!n->child[j])
                continue;
            const struct node *ch = &m->nodes.data[n->child[j] - 1];
            if (ch->complete)
                continue;
            double u = uct(m, n, ch);
            if (pick < 0 || u > best) {
                best = u;
                pick = j;
            }
        }
        if (pick < 0) {         /* cannot happen: such a node is marked complete */
            n->complete = 1;
            return 0;
        }
        m->design[m->order[d]] = pick;
        cur = n->child[pick] - 1;
        m->path[m->len++] = cur;
    }
    rollout(m, m->nodes.data[cur].depth);
    return score_path(m, rc, err);
}

int tune_explore_mcts(struct tune_run *t, struct ls_error *err)
{
    struct mcts m;
    memset(&m, 0, sizeof m);
    m.t = t;
    ls_arena_init(&m.arena, 0);
    int rc = 0;
    m.path = malloc(sizeof *m.path * ((size_t)t->np + 1));
    m.design = calloc((size_t)t->np + 1, sizeof *m.design);
    m.order = malloc(sizeof *m.order * ((size_t)t->np + 1));
    m.cursor = calloc((size_t)t->np + 1, sizeof *m.cursor);
    if (!m.path || !m.design || !m.order || !m.cursor || order_points(t, m.order) || new_node(&m, 0) < 0) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    m.len = 1;               /* the root has seen the start, scored already */
    m.path[0] = 0;
    backprop(&m, t->r->start_cycles);
    while (!t->stop && !m.nodes.data[0].complete) {
        t->r->iterations++;
        if (iterate(&m, &rc, err))
            break;
    }
out:
    free(m.path);
    free(m.design);
    free(m.order);
    free(m.cursor);
    LS_VEC_FREE(&m.nodes);
    ls_arena_free(&m.arena);
    return rc;
}
