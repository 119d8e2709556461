#include "util/treedec.h"
#include "util/clock.h"

#include <stdlib.h>
#include <string.h>

/* Unsorted adjacency lists with a stamp array for O(1) membership tests. */
struct adj {
    int32_t *v;
    int32_t len, cap;
};

struct elim {
    int32_t n;
    struct adj *adj;
    unsigned char *gone;
    uint32_t *stamp;
    uint32_t cur;
    /* lazy min-heap of (score, vertex); stale entries skipped via score[] */
    int64_t *score;
    int64_t *heap_score;
    int32_t *heap_v;
    size_t heap_len, heap_cap;
    /* min-fill's scoring work (adjacency entries read) and its budget (0 = none) */
    int64_t work, work_max;
};

static int adj_push(struct adj *a, int32_t x)
{
    if (a->len == a->cap) {
        int32_t cap = a->cap ? a->cap * 2 : 4;
        int32_t *p = realloc(a->v, (size_t)cap * sizeof *p);
        if (!p)
            return -1;
        a->v = p;
        a->cap = cap;
    }
    a->v[a->len++] = x;
    return 0;
}

static uint32_t next_stamp(struct elim *e)
{
    if (++e->cur == 0) {
        memset(e->stamp, 0, (size_t)e->n * sizeof *e->stamp);
        e->cur = 1;
    }
    return e->cur;
}

static int heap_less(const struct elim *e, size_t a, size_t b)
{
    if (e->heap_score[a] != e->heap_score[b])
        return e->heap_score[a] < e->heap_score[b];
    return e->heap_v[a] < e->heap_v[b];
}

static void heap_swap(struct elim *e, size_t a, size_t b)
{
    int64_t s = e->heap_score[a];
    e->heap_score[a] = e->heap_score[b];
    e->heap_score[b] = s;
    int32_t v = e->heap_v[a];
    e->heap_v[a] = e->heap_v[b];
    e->heap_v[b] = v;
}

static int heap_push(struct elim *e, int64_t score, int32_t v)
{
    if (e->heap_len == e->heap_cap) {
        size_t cap = e->heap_cap ? e->heap_cap * 2 : 64;
        int64_t *s = realloc(e->heap_score, cap * sizeof *s);
        if (!s)
            return -1;
        e->heap_score = s;
        int32_t *hv = realloc(e->heap_v, cap * sizeof *hv);
        if (!hv)
            return -1;
        e->heap_v = hv;
        e->heap_cap = cap;
    }
    size_t i = e->heap_len++;
    e->heap_score[i] = score;
    e->heap_v[i] = v;
    while (i > 0 && heap_less(e, i, (i - 1) / 2)) {
        heap_swap(e, i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
    return 0;
}

static void heap_pop(struct elim *e)
{
    e->heap_len--;
    if (!e->heap_len)
        return;
    heap_swap(e, 0, e->heap_len);
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < e->heap_len && heap_less(e, l, m))
            m = l;
        if (r < e->heap_len && heap_less(e, r, m))
            m = r;
        if (m == i)
            break;
        heap_swap(e, i, m);
        i = m;
    }
}

/* Pairs of neighbours of w that are not adjacent (capped for very large degrees). */
static int64_t fill_in(struct elim *e, int32_t w)
{
    struct adj *a = &e->adj[w];
    int64_t d = a->len;
    if (d > 256)
        return d * (d - 1) / 2;
    uint32_t st = next_stamp(e);
    for (int32_t i = 0; i < a->len; i++)
        e->stamp[a->v[i]] = st;
    int64_t inside = 0;
    for (int32_t i = 0; i < a->len; i++) {
        struct adj *b = &e->adj[a->v[i]];
        e->work += b->len;
        for (int32_t j = 0; j < b->len; j++)
            inside += e->stamp[b->v[j]] == st;
    }
    return d * (d - 1) / 2 - inside / 2;
}

static int64_t score_of(struct elim *e, int32_t w, enum ls_elim_heuristic h)
{
    return h == LS_ELIM_MIN_FILL ? fill_in(e, w) : e->adj[w].len;
}

static int rescore(struct elim *e, int32_t w, enum ls_elim_heuristic h)
{
    int64_t s = score_of(e, w, h);
    if (s == e->score[w])
        return 0;
    e->score[w] = s;
    return heap_push(e, s, w);
}

static void elim_free(struct elim *e)
{
    if (e->adj)
        for (int32_t i = 0; i < e->n; i++)
            free(e->adj[i].v);
    free(e->adj);
    free(e->gone);
    free(e->stamp);
    free(e->score);
    free(e->heap_score);
    free(e->heap_v);
}

void ls_treedec_free(struct ls_treedec *td)
{
    free(td->order);
    free(td->bag_off);
    free(td->bag);
    free(td->parent);
    memset(td, 0, sizeof *td);
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Returns 0, -1 when out of memory, or -2 when the deadline passed (*steps: eliminations
 * done by then). */
static int build(int32_t n, const int32_t *edges, size_t nedges, enum ls_elim_heuristic h,
                 const struct ls_deadline *dl, struct ls_treedec *td, struct elim *e,
                 int32_t *steps)
{
    e->n = n;
    e->adj = calloc((size_t)n, sizeof *e->adj);
    e->gone = calloc((size_t)n, 1);
    e->stamp = calloc((size_t)n, sizeof *e->stamp);
    e->score = calloc((size_t)n, sizeof *e->score);
    td->order = malloc((size_t)n * sizeof *td->order);
    td->bag_off = malloc(((size_t)n + 1) * sizeof *td->bag_off);
    td->parent = malloc((size_t)n * sizeof *td->parent);
    int32_t *pos = malloc((size_t)n * sizeof *pos);
    size_t bag_cap = (size_t)n + 2 * nedges + 16, bag_len = 0;
    td->bag = malloc(bag_cap * sizeof *td->bag);
    if (!e->adj || !e->gone || !e->stamp || !e->score || !td->order || !td->bag_off ||
        !td->parent || !pos || !td->bag) {
        free(pos);
        return -1;
    }
    td->n = n;
    td->width = n ? 0 : -1;

    /* adjacency without loops or repeats */
    for (size_t k = 0; k < nedges; k++) {
        int32_t u = edges[2 * k], v = edges[2 * k + 1];
        if (u == v)
            continue;
        if (adj_push(&e->adj[u], v) || adj_push(&e->adj[v], u)) {
            free(pos);
            return -1;
        }
    }
    for (int32_t v = 0; v < n; v++) {
        struct adj *a = &e->adj[v];
        if (a->len > 1)
            qsort(a->v, (size_t)a->len, sizeof *a->v, cmp_i32);
        int32_t m = 0;
        for (int32_t i = 0; i < a->len; i++)
            if (m == 0 || a->v[m - 1] != a->v[i])
                a->v[m++] = a->v[i];
        a->len = m;
    }
    for (int32_t v = 0; v < n; v++) {
        e->score[v] = score_of(e, v, h);
        if (heap_push(e, e->score[v], v)) {
            free(pos);
            return -1;
        }
    }

    for (int32_t step = 0; step < n; step++) {
        /* min-fill rescoring can cost O(degree^3) per step on dense graphs: check often */
        *steps = step;
        if (dl && ls_deadline_passed(dl)) {
            free(pos);
            return -2;
        }
        if (e->work_max && e->work > e->work_max) {
            free(pos);
            return -3;
        }
        int32_t v;
        for (;;) {
            v = e->heap_v[0];
            int64_t s = e->heap_score[0];
            heap_pop(e);
            if (!e->gone[v] && s == e->score[v])
                break;
        }
        e->gone[v] = 1;
        td->order[step] = v;
        pos[v] = step;
        struct adj *nv = &e->adj[v];
        if (nv->len > td->width)
            td->width = nv->len;

        /* record the bag */
        if (bag_len + (size_t)nv->len + 1 > bag_cap) {
            size_t cap = (bag_cap + (size_t)nv->len + 1) * 2;
            int32_t *b = realloc(td->bag, cap * sizeof *b);
            if (!b) {
                free(pos);
                return -1;
            }
            td->bag = b;
            bag_cap = cap;
        }
        td->bag_off[step] = (int32_t)bag_len;
        td->bag[bag_len++] = v;
        for (int32_t i = 0; i < nv->len; i++)
            td->bag[bag_len++] = nv->v[i];
        qsort(td->bag + td->bag_off[step], (size_t)nv->len + 1, sizeof *td->bag, cmp_i32);

        /* remove v from its neighbours, then make the neighbours a clique */
        int added = 0;
        for (int32_t i = 0; i < nv->len; i++) {
            struct adj *a = &e->adj[nv->v[i]];
            for (int32_t j = 0; j < a->len; j++)
                if (a->v[j] == v) {
                    a->v[j] = a->v[--a->len];
                    break;
                }
        }
        for (int32_t i = 0; i < nv->len; i++) {
            int32_t a = nv->v[i];
            uint32_t st = next_stamp(e);
            for (int32_t j = 0; j < e->adj[a].len; j++)
                e->stamp[e->adj[a].v[j]] = st;
            for (int32_t j = 0; j < nv->len; j++) {
                int32_t b = nv->v[j];
                if (b != a && e->stamp[b] != st) {
                    if (adj_push(&e->adj[a], b)) {
                        free(pos);
                        return -1;
                    }
                    added = 1;
                }
            }
        }
        /* rescore what changed */
        for (int32_t i = 0; i < nv->len; i++)
            if (rescore(e, nv->v[i], h)) {
                free(pos);
                return -1;
            }
        if (h == LS_ELIM_MIN_FILL && added) {
            for (int32_t i = 0; i < nv->len; i++) {
                struct adj *a = &e->adj[nv->v[i]];
                for (int32_t j = 0; j < a->len; j++)
                    if (rescore(e, a->v[j], h)) {
                        free(pos);
                        return -1;
                    }
            }
        }
    }
    td->bag_off[n] = (int32_t)bag_len;

    /* parent: earliest-eliminated later neighbour */
    for (int32_t i = 0; i < n; i++) {
        int32_t best = -1;
        for (int32_t k = td->bag_off[i]; k < td->bag_off[i + 1]; k++) {
            int32_t p = pos[td->bag[k]];
            if (p > i && (best < 0 || p < best))
                best = p;
        }
        td->parent[i] = best;
    }
    free(pos);
    return 0;
}

int ls_treedec_build(int32_t n, const int32_t *edges, size_t nedges,
                     enum ls_elim_heuristic h, struct ls_treedec *td, struct ls_error *err)
{
    return ls_treedec_build_until(n, edges, nedges, h, NULL, td, err);
}

/* Min-fill's scoring budget in ls_treedec_best_until, in adjacency entries read (about 3 s
 * on a 2-core machine; a 256-expert MoE's 16 layers stay within it): a vertex of very high degree (an MoE router over 1,000 experts) makes every
 * rescoring of its neighbours scan it, and min-fill ran for minutes where min-degree takes
 * milliseconds. Past the budget the min-degree decomposition is kept. A count, not a
 * time, so that the bound stays deterministic. */
#define FILL_WORK_MAX INT64_C(4000000000)

/* One elimination; work_max: min-fill's budget (0 = none), LS_ERR_LIMIT with *over set
 * when it is exceeded. */
static int build_one(int32_t n, const int32_t *edges, size_t nedges, enum ls_elim_heuristic h,
                     const struct ls_deadline *dl, int64_t work_max, int *over,
                     struct ls_treedec *td, struct ls_error *err)
{
    memset(td, 0, sizeof *td);
    *over = 0;
    for (size_t k = 0; k < 2 * nedges; k++)
        if (edges[k] < 0 || edges[k] >= n)
            return ls_error_msg(err, LS_ERR_INTERNAL, "treedec: edge endpoint %d out of range",
                                (int)edges[k]);
    struct elim e;
    memset(&e, 0, sizeof e);
    e.work_max = work_max;
    int32_t steps = 0;
    int rc = build(n, edges, nedges, h, dl, td, &e, &steps);
    elim_free(&e);
    if (!rc)
        return LS_OK;
    ls_treedec_free(td);
    const char *name = h == LS_ELIM_MIN_FILL ? "min-fill" : "min-degree";
    if (rc == -3) {
        *over = 1;
        return ls_error_msg(err, LS_ERR_LIMIT, "%s elimination over its work budget (%d of "
                            "%d vertices eliminated)", name, (int)steps, (int)n);
    }
    if (rc == -2)
        return ls_error_msg(err, LS_ERR_LIMIT,
                            "time limit reached building a tree decomposition (%s "
                            "elimination, %d of %d vertices eliminated)", name, (int)steps,
                            (int)n);
    return ls_error_msg(err, LS_ERR_NOMEM, "out of memory building a tree decomposition");
}

int ls_treedec_build_until(int32_t n, const int32_t *edges, size_t nedges,
                           enum ls_elim_heuristic h, const struct ls_deadline *dl,
                           struct ls_treedec *td, struct ls_error *err)
{
    int over;
    return build_one(n, edges, nedges, h, dl, 0, &over, td, err);
}

int ls_treedec_best(int32_t n, const int32_t *edges, size_t nedges, struct ls_treedec *td,
                    struct ls_error *err)
{
    return ls_treedec_best_until(n, edges, nedges, NULL, td, err);
}

int ls_treedec_best_until(int32_t n, const int32_t *edges, size_t nedges,
                          const struct ls_deadline *dl, struct ls_treedec *td,
                          struct ls_error *err)
{
    return ls_treedec_best_budget(n, edges, nedges, dl, FILL_WORK_MAX, td, err);
}

int ls_treedec_best_budget(int32_t n, const int32_t *edges, size_t nedges,
                           const struct ls_deadline *dl, int64_t fill_work_max,
                           struct ls_treedec *td, struct ls_error *err)
{
    struct ls_treedec fill;
    int over;
    int rc = build_one(n, edges, nedges, LS_ELIM_MIN_DEGREE, dl, 0, &over, td, err);
    if (rc)
        return rc;
    rc = build_one(n, edges, nedges, LS_ELIM_MIN_FILL, dl, fill_work_max, &over, &fill, err);
    if (rc && over) {
        ls_error_clear(err);       /* min-fill too costly here: min-degree's bound stands */
        return LS_OK;
    }
    if (rc) {
        ls_treedec_free(td);
        return rc;
    }
    if (fill.width <= td->width) { /* min-fill on ties, as before */
        ls_treedec_free(td);
        *td = fill;
    } else {
        ls_treedec_free(&fill);
    }
    return LS_OK;
}

int ls_treewidth_ub(int32_t n, const int32_t *edges, size_t nedges, int32_t *width,
                    struct ls_error *err)
{
    struct ls_treedec td;
    int rc = ls_treedec_best(n, edges, nedges, &td, err);
    if (rc)
        return rc;
    *width = td.width;
    ls_treedec_free(&td);
    return LS_OK;
}
