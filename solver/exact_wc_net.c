/* solver/exact_wc_net: the binary network of a component, with small-degree variables
 * eliminated (see exact_wc_net.h). */
#include "solver/exact_wc_net.h"

#include <stdlib.h>
#include <string.h>

static int adj_add(struct wc_net *nt, int32_t v, int32_t id)
{
    if (nt->nadj[v] == nt->capadj[v]) {
        int32_t cap = nt->capadj[v] ? 2 * nt->capadj[v] : 4;
        int32_t *a = realloc(nt->adj[v], (size_t)cap * sizeof *a);
        if (!a)
            return -1;
        nt->adj[v] = a;
        nt->capadj[v] = cap;
    }
    nt->adj[v][nt->nadj[v]++] = id;
    return 0;
}

/* Drop dead edges from v's list. */
static void adj_compact(struct wc_net *nt, int32_t v)
{
    int32_t k = 0;
    for (int32_t m = 0; m < nt->nadj[v]; m++)
        if (nt->e[nt->adj[v][m]].live)
            nt->adj[v][k++] = nt->adj[v][m];
    nt->nadj[v] = k;
}

static int64_t *edge_table(const struct wc_net *nt, int32_t i, int32_t j)
{
    for (int32_t m = 0; m < nt->nadj[i]; m++) {
        const struct wc_edge *e = &nt->e[nt->adj[i][m]];
        if (e->live && e->i == i && e->j == j)
            return e->t;
    }
    return NULL;
}

/* Add f(a, b) (stride sa, sb into tab) to the edge (i, j), i < j, creating it. */
static int add_edge(struct wc_net *nt, int32_t i, int32_t j, const int64_t *tab, int64_t si,
                    int64_t sj)
{
    int64_t *t = edge_table(nt, i, j);
    int32_t di = nt->dom[i], dj = nt->dom[j];
    if (!t) {
        if (nt->ne == nt->cape) {
            int32_t cap = nt->cape ? 2 * nt->cape : 64;
            struct wc_edge *e = realloc(nt->e, (size_t)cap * sizeof *e);
            if (!e)
                return -1;
            nt->e = e;
            nt->cape = cap;
        }
        if (!(t = calloc((size_t)di * (size_t)dj, sizeof *t)))
            return -1;
        nt->e[nt->ne] = (struct wc_edge){i, j, t, 1};
        if (adj_add(nt, i, nt->ne) || adj_add(nt, j, nt->ne)) {
            nt->ne++;   /* freed with the others */
            return -1;
        }
        nt->ne++;
    }
    for (int32_t a = 0; a < di; a++)
        for (int32_t b = 0; b < dj; b++)
            t[a * dj + b] = ex_add(t[a * dj + b], tab[a * si + b * sj]);
    return 0;
}

static int32_t live_degree(struct wc_net *nt, int32_t v)
{
    adj_compact(nt, v);
    return nt->nadj[v];
}

/* Cost of value x of v with neighbour values (nb[k] for its k-th live edge). */
static int64_t local_cost(const struct wc_net *nt, int32_t v, int32_t x, const int32_t *nb,
                          const int32_t *val)
{
    int64_t s = nt->u[v][x];
    for (int32_t k = 0; k < nt->nadj[v] && s < EX_INF; k++) {
        const struct wc_edge *e = &nt->e[nt->adj[v][k]];
        int32_t y = nb ? nb[k] : val[e->i == v ? e->j : e->i];
        s = ex_add(s, e->i == v ? e->t[x * nt->dom[e->j] + y] : e->t[y * nt->dom[v] + x]);
    }
    return s;
}

/* Eliminate v (live degree <= 2): its edges die, a message goes to the neighbours. The
 * dead edges stay in v's list for wc_net_recover. */
static int eliminate(struct wc_net *nt, int32_t v)
{
    int32_t deg = nt->nadj[v], nbv[2] = {-1, -1}, y[2] = {0, 0};
    for (int32_t k = 0; k < deg; k++) {
        const struct wc_edge *e = &nt->e[nt->adj[v][k]];
        nbv[k] = e->i == v ? e->j : e->i;
    }
    int32_t da = deg > 0 ? nt->dom[nbv[0]] : 1, db = deg > 1 ? nt->dom[nbv[1]] : 1;
    int64_t *msg = malloc((size_t)da * (size_t)db * sizeof *msg);
    if (!msg)
        return -1;
    for (y[0] = 0; y[0] < da; y[0]++)
        for (y[1] = 0; y[1] < db; y[1]++) {
            int64_t m = EX_INF;
            for (int32_t x = 0; x < nt->dom[v] && m > 0; x++) {
                int64_t s = local_cost(nt, v, x, y, NULL);
                m = s < m ? s : m;
            }
            msg[y[0] * db + y[1]] = m;
        }
    for (int32_t k = 0; k < deg; k++)
        nt->e[nt->adj[v][k]].live = 0;
    nt->gone[v] = 1;
    nt->elim[nt->nelim++] = v;
    int rc = 0;
    if (deg == 0) {
        nt->c0 = ex_add(nt->c0, msg[0]);
    } else if (deg == 1) {
        for (int32_t a = 0; a < da; a++)
            nt->u[nbv[0]][a] = ex_add(nt->u[nbv[0]][a], msg[a]);
    } else if (nbv[0] < nbv[1]) {
        rc = add_edge(nt, nbv[0], nbv[1], msg, db, 1);
    } else {
        rc = add_edge(nt, nbv[1], nbv[0], msg, 1, db);
    }
    free(msg);
    return rc;
}

static int load(struct wc_net *nt, const struct ex_fg *g, int32_t c, int32_t *loc)
{
    int32_t v0 = g->comp_var_off[c], n = g->comp_var_off[c + 1] - v0;
    int32_t f0 = g->comp_fn_off[c], nf = g->comp_fn_off[c + 1] - f0;
    nt->n = n;
    nt->var = malloc((size_t)n * sizeof *nt->var);
    nt->dom = malloc((size_t)n * sizeof *nt->dom);
    nt->u = malloc((size_t)n * sizeof *nt->u);
    nt->adj = calloc((size_t)n, sizeof *nt->adj);
    nt->nadj = calloc((size_t)n, sizeof *nt->nadj);
    nt->capadj = calloc((size_t)n, sizeof *nt->capadj);
    nt->gone = calloc((size_t)n, 1);
    nt->elim = malloc((size_t)n * sizeof *nt->elim);
    if (!nt->var || !nt->dom || !nt->u || !nt->adj || !nt->nadj || !nt->capadj || !nt->gone ||
        !nt->elim)
        return -1;
    int64_t nval = 0;
    for (int32_t k = 0; k < n; k++) {
        nt->var[k] = g->comp_var[v0 + k];
        loc[nt->var[k]] = k;
        nt->dom[k] = g->var[nt->var[k]].dom;
        nval += nt->dom[k];
    }
    if (!(nt->u[0] = calloc((size_t)(nval ? nval : 1), sizeof **nt->u)))
        return -1;
    for (int32_t k = 1; k < n; k++)
        nt->u[k] = nt->u[k - 1] + nt->dom[k - 1];
    for (int32_t k = 0; k < nf; k++) {
        const struct ex_fn *f = &g->fn[g->comp_fn[f0 + k]];
        if (f->arity > 2)
            return 1;
        if (f->arity == 0) {
            nt->c0 = ex_add(nt->c0, f->tab[0]);
        } else if (f->arity == 1) {
            int64_t *u = nt->u[loc[f->scope[0]]];
            for (int32_t a = 0; a < f->size; a++)
                u[a] = ex_add(u[a], f->tab[a]);
        } else if (add_edge(nt, loc[f->scope[0]], loc[f->scope[1]], f->tab, f->stride[0],
                            f->stride[1])) {
            return -1;
        }
    }
    return 0;
}

int wc_net_build(struct wc_net *nt, const struct ex_fg *g, int32_t c)
{
    memset(nt, 0, sizeof *nt);
    int32_t *loc = malloc((size_t)(g->nvars ? g->nvars : 1) * sizeof *loc);
    int rc = loc ? load(nt, g, c, loc) : -1;
    free(loc);
    if (rc)
        return rc;
    /* a stack of candidates: a variable's degree only falls, so each is pushed again
     * only when an elimination touches it */
    int32_t *stack = malloc((size_t)(nt->n ? nt->n : 1) * sizeof *stack), top = 0;
    char *in = calloc((size_t)(nt->n ? nt->n : 1), 1);
    if (!stack || !in) {
        free(stack);
        free(in);
        return -1;
    }
    for (int32_t v = nt->n - 1; v >= 0; v--) {
        stack[top++] = v;
        in[v] = 1;
    }
    while (top && !rc) {
        int32_t v = stack[--top];
        in[v] = 0;
        if (nt->gone[v] || live_degree(nt, v) > 2)
            continue;
        int32_t nb[2], deg = nt->nadj[v];
        for (int32_t k = 0; k < deg; k++) {
            const struct wc_edge *e = &nt->e[nt->adj[v][k]];
            nb[k] = e->i == v ? e->j : e->i;
        }
        rc = eliminate(nt, v);
        for (int32_t k = 0; k < deg && !rc; k++)
            if (!in[nb[k]]) {
                in[nb[k]] = 1;
                stack[top++] = nb[k];
            }
    }
    for (int32_t v = 0; v < nt->n; v++)
        if (!nt->gone[v])
            adj_compact(nt, v);
    free(stack);
    free(in);
    return rc;
}

void wc_net_recover(const struct wc_net *nt, int32_t *val)
{
    for (int32_t k = nt->nelim - 1; k >= 0; k--) {
        int32_t v = nt->elim[k], best = 0;
        int64_t bc = EX_INF + 1;
        for (int32_t x = 0; x < nt->dom[v]; x++) {
            int64_t s = local_cost(nt, v, x, NULL, val);
            if (s < bc) {
                bc = s;
                best = x;
            }
        }
        val[v] = best;
    }
}

void wc_net_free(struct wc_net *nt)
{
    for (int32_t k = 0; k < nt->ne; k++)
        free(nt->e[k].t);
    for (int32_t v = 0; nt->adj && v < nt->n; v++)
        free(nt->adj[v]);
    if (nt->u)
        free(nt->u[0]);
    free(nt->u);
    free(nt->var);
    free(nt->dom);
    free(nt->e);
    free(nt->adj);
    free(nt->nadj);
    free(nt->capadj);
    free(nt->gone);
    free(nt->elim);
}
