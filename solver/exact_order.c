/* solver/exact_order: greedy min-weight elimination order of one component: repeatedly
 * eliminate the variable whose message (the product of its neighbours' domains) is
 * smallest, ties to the lowest variable id. Deterministic. */
#include "solver/exact_order.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

struct nb {
    int32_t *v;
    int32_t len;
    size_t cap;
};

struct hent {
    double s;
    int32_t v;
    uint32_t ver;
};

struct heap {
    struct hent *a;
    size_t len, cap;
};

static int hless(const struct hent *x, const struct hent *y)
{
    return x->s < y->s || (x->s == y->s && x->v < y->v);
}

static int hpush(struct heap *h, struct hent e)
{
    if (LS_ARRAY_RESERVE(h->a, h->cap, h->len + 1))
        return -1;
    size_t i = h->len++;
    h->a[i] = e;
    while (i > 0 && hless(&h->a[i], &h->a[(i - 1) / 2])) {
        struct hent t = h->a[i];
        h->a[i] = h->a[(i - 1) / 2];
        h->a[(i - 1) / 2] = t;
        i = (i - 1) / 2;
    }
    return 0;
}

static struct hent hpop(struct heap *h)
{
    struct hent top = h->a[0];
    h->a[0] = h->a[--h->len];
    size_t i = 0;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < h->len && hless(&h->a[l], &h->a[m]))
            m = l;
        if (r < h->len && hless(&h->a[r], &h->a[m]))
            m = r;
        if (m == i)
            break;
        struct hent t = h->a[i];
        h->a[i] = h->a[m];
        h->a[m] = t;
        i = m;
    }
    return top;
}

static int nb_reserve(struct nb *a, int32_t need)
{
    return LS_ARRAY_RESERVE(a->v, a->cap, (size_t)need) ? -1 : 0;
}

static int cmp_i32(const void *a, const void *b)
{
    int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
    return (x > y) - (x < y);
}

/* Score of eliminating u: log2 of its message size; with fill, the number of missing
 * edges among its neighbours first (the weight breaks ties). */
static double score(struct nb *adj, const double *lg, int32_t u, int fill, uint32_t *stamp,
                    uint32_t *cur)
{
    const struct nb *A = &adj[u];
    double s = 0;
    for (int32_t q = 0; q < A->len; q++)
        s += lg[A->v[q]];
    if (!fill || A->len < 2)
        return s;
    if (A->len > 200)
        return s + 1e3 * (double)A->len * (double)(A->len - 1) / 2;
    ++*cur;
    for (int32_t q = 0; q < A->len; q++)
        stamp[A->v[q]] = *cur;
    int64_t inside = 0;
    for (int32_t q = 0; q < A->len; q++) {
        const struct nb *B = &adj[A->v[q]];
        for (int32_t r = 0; r < B->len; r++)
            inside += stamp[B->v[r]] == *cur;
    }
    int64_t missing = (int64_t)A->len * (A->len - 1) / 2 - inside / 2;
    return s + 1e3 * (double)missing;
}

/* Past a message of 2^HOPELESS_LOG2 entries no budget lets plain elimination run, and the
 * greedy's cost grows with the ever denser neighbourhoods (random-5000: a quarter of
 * exact's CPU time went into the two orders). The rest of the order then only serves
 * mini-buckets, which cannot be exact there either: it is the remaining variables by id. */
#define HOPELESS_LOG2 62.0

/* Append the variables not yet ordered, by id (they are positions k.. of order). */
static void order_rest(const int32_t *vars, int32_t n, const unsigned char *gone,
                       int32_t k, int32_t *order)
{
    for (int32_t i = 0; i < n; i++)
        if (!gone[i])
            order[k++] = vars[i];
}

int ex_order(const struct ex_fg *g, int32_t c, int fill, int32_t *order, int32_t *loc,
             const struct ls_deadline *dl)
{
    const int32_t *vars = g->comp_var + g->comp_var_off[c];
    int32_t n = g->comp_var_off[c + 1] - g->comp_var_off[c];
    for (int32_t i = 0; i < n; i++)
        loc[vars[i]] = i;
    struct nb *adj = calloc((size_t)n, sizeof *adj);
    double *lg = malloc((size_t)n * sizeof *lg);
    uint32_t *ver = calloc((size_t)n, sizeof *ver);
    uint32_t *stamp = calloc((size_t)n, sizeof *stamp), cur = 0;
    unsigned char *gone = calloc((size_t)n, 1);
    int32_t *tmp = NULL;
    size_t tmpcap = 0;
    struct heap h = {0};
    int rc = -1;
    if (!adj || !lg || !ver || !gone || !stamp)
        goto out;
    for (int32_t i = 0; i < n; i++)
        lg[i] = log2((double)g->var[vars[i]].dom);
    for (int32_t k = g->comp_fn_off[c]; k < g->comp_fn_off[c + 1]; k++) {
        const struct ex_fn *f = &g->fn[g->comp_fn[k]];
        for (int32_t a = 0; a < f->arity; a++)
            for (int32_t b = 0; b < f->arity; b++) {
                if (a == b)
                    continue;
                struct nb *x = &adj[loc[f->scope[a]]];
                if (nb_reserve(x, x->len + 1))
                    goto out;
                x->v[x->len++] = loc[f->scope[b]];
            }
    }
    for (int32_t i = 0; i < n; i++) {
        struct nb *x = &adj[i];
        if (x->len > 1)
            qsort(x->v, (size_t)x->len, sizeof *x->v, cmp_i32);
        int32_t m = 0;
        for (int32_t j = 0; j < x->len; j++)
            if (!m || x->v[m - 1] != x->v[j])
                x->v[m++] = x->v[j];
        x->len = m;
    }
    for (int32_t i = 0; i < n; i++)
        if (hpush(&h, (struct hent){score(adj, lg, i, fill, stamp, &cur), i, 0}))
            goto out;
    for (int32_t k = 0; k < n; k++) {
        if ((k & 63) == 63 && ls_deadline_passed(dl)) {
            rc = 1;
            goto out;
        }
        struct hent e;
        do
            e = hpop(&h);
        while (gone[e.v] || e.ver != ver[e.v]);
        int32_t v = e.v;
        order[k] = vars[v];
        gone[v] = 1;
        struct nb *N = &adj[v];
        double msg = 0;
        for (int32_t j = 0; j < N->len; j++)
            msg += lg[N->v[j]];
        if (msg > HOPELESS_LOG2) {
            order_rest(vars, n, gone, k + 1, order);
            break;
        }
        for (int32_t j = 0; j < N->len; j++) {
            int32_t u = N->v[j];
            struct nb *A = &adj[u];
            if (LS_ARRAY_RESERVE(tmp, tmpcap, (size_t)(A->len + N->len + 1)))
                goto out;
            /* A := (A \ {v}) U (N \ {u}), both sorted */
            int32_t a = 0, b = 0, m = 0;
            while (a < A->len || b < N->len) {
                int32_t x;
                if (b >= N->len || (a < A->len && A->v[a] < N->v[b]))
                    x = A->v[a++];
                else if (a >= A->len || N->v[b] < A->v[a])
                    x = N->v[b++];
                else {
                    x = A->v[a++];
                    b++;
                }
                if (x != v && x != u)
                    tmp[m++] = x;
            }
            if (nb_reserve(A, m))
                goto out;
            if (m)
                memcpy(A->v, tmp, (size_t)m * sizeof *tmp);
            A->len = m;
        }
        for (int32_t j = 0; j < N->len; j++) {
            int32_t u = N->v[j];
            if (hpush(&h, (struct hent){score(adj, lg, u, fill, stamp, &cur), u, ++ver[u]}))
                goto out;
        }
        free(N->v);
        N->v = NULL;
        N->len = N->cap = 0;
    }
    rc = 0;
out:
    if (adj)
        for (int32_t i = 0; i < n; i++)
            free(adj[i].v);
    free(adj);
    free(lg);
    free(ver);
    free(gone);
    free(stamp);
    free(tmp);
    free(h.a);
    return rc;
}
