/* solver/exact_wc: branch and bound under soft arc consistency (see exact_wc.h).
 *
 * Cost of edge e between its variables i and j (directional arc consistency moves cost
 * from j towards i; the root flips directions) at values (a, b):
 *   C[a][b] - P_i[a] - P_j[b]     (EX_INF when C[a][b] is, whatever the deltas)
 * P_i[a] grows when cost is projected from e onto value a of i and shrinks when unary
 * cost of i is extended into e. A removed value has unary cost EX_INF. Every change to a
 * unary cost, a delta, a domain size or c0 goes through set(), which logs the old value
 * on the trail; backtracking replays the log backwards. */
#include "solver/exact_wc.h"

#include <stdlib.h>
#include <string.h>

#include "solver/exact_be.h"
#include "solver/exact_wc_net.h"

struct edge {
    int32_t i, j;            /* local variables, i < j: cost moves towards i (DAC) */
    const int64_t *tab;      /* C[a * si + b * sj] */
    int64_t si, sj;
    int64_t *pi, *pj;        /* deltas, dom_i and dom_j entries */
    int64_t weight;          /* dom/wdeg: failures this edge caused */
};

struct undo {
    int64_t *at, old;
};

struct wc {
    const struct ex_fg *g;
    int32_t n, ne;
    int32_t *var;            /* local -> global variable */
    int32_t *dom;
    int64_t **u;             /* unary costs per variable (EX_INF: removed) */
    int64_t *size;           /* live values per variable */
    int32_t *adj_off, *adj;  /* edges of each variable */
    struct edge *e;
    int64_t c0, ub;
    struct undo *trail;
    size_t ntrail, captrail;
    int32_t *queue;          /* circular, n slots */
    char *inq;
    int32_t qhead, qlen;
    int32_t *eacq, neac;     /* candidates for the existential check (a stack) */
    char *ineac;
    int64_t *pbuf, *ebuf;    /* scratch of the largest domain */
    struct wc_net net;       /* the reduced network; search variable k is net.var[var[k]] */
    int64_t *delta;          /* all edges' deltas */
    int32_t *val;            /* per net variable, at a leaf */
    char *isop;
    int nomem, stop;
    uint64_t nodes, node_limit;
    const struct ls_deadline *dl;
    /* the incumbent */
    const struct lsp_problem *p;
    int32_t c, *cfg, *scratch;
};

static void set(struct wc *w, int64_t *at, int64_t v)
{
    if (*at == v)
        return;
    if (w->ntrail == w->captrail) {
        size_t cap = w->captrail ? 2 * w->captrail : 4096;
        struct undo *t = realloc(w->trail, cap * sizeof *t);
        if (!t) {
            w->nomem = 1;   /* the search stops; the change is still made */
            *at = v;
            return;
        }
        w->trail = t;
        w->captrail = cap;
    }
    w->trail[w->ntrail++] = (struct undo){at, *at};
    *at = v;
}

static void undo_to(struct wc *w, size_t mark)
{
    while (w->ntrail > mark) {
        struct undo *t = &w->trail[--w->ntrail];
        *t->at = t->old;
    }
}

static void push(struct wc *w, int32_t v)
{
    if (!w->ineac[v]) {
        w->ineac[v] = 1;
        w->eacq[w->neac++] = v;
    }
    if (w->inq[v])
        return;
    w->inq[v] = 1;
    w->queue[(w->qhead + w->qlen++) % w->n] = v;
}

static int32_t pop(struct wc *w)
{
    int32_t v = w->queue[w->qhead];
    w->qhead = (w->qhead + 1) % w->n;
    w->qlen--;
    w->inq[v] = 0;
    return v;
}

static void clear_queue(struct wc *w)
{
    while (w->qlen)
        pop(w);
}

static inline int64_t ecost(const struct edge *e, int32_t a, int32_t b)
{
    int64_t t = e->tab[a * e->si + b * e->sj];
    return t >= EX_INF ? EX_INF : t - e->pi[a] - e->pj[b];
}

static void remove_value(struct wc *w, int32_t v, int32_t a)
{
    set(w, &w->u[v][a], EX_INF);
    set(w, &w->size[v], w->size[v] - 1);
    push(w, v);
}

/* Node consistency of v: its smallest unary cost goes to c0, values that would reach the
 * incumbent are removed. 0: domain wiped out or c0 >= ub. */
static int node_consistent(struct wc *w, int32_t v)
{
    int64_t *u = w->u[v], lo = EX_INF;
    for (int32_t a = 0; a < w->dom[v]; a++)
        if (u[a] < lo)
            lo = u[a];
    if (lo >= EX_INF)
        return 0;
    if (lo > 0) {
        for (int32_t a = 0; a < w->dom[v]; a++)
            if (u[a] < EX_INF)
                set(w, &u[a], u[a] - lo);
        set(w, &w->c0, w->c0 + lo);
    }
    if (w->c0 >= w->ub)
        return 0;
    for (int32_t a = 0; a < w->dom[v]; a++)
        if (u[a] < EX_INF && w->c0 + u[a] >= w->ub)
            remove_value(w, v, a);
    return 1;
}

/* AC*: every live value b of j gets a zero-cost support in i. */
static void project_to_j(struct wc *w, struct edge *e)
{
    int32_t di = w->dom[e->i], dj = w->dom[e->j];
    int64_t *ui = w->u[e->i], *uj = w->u[e->j];
    for (int32_t b = 0; b < dj; b++) {
        if (uj[b] >= EX_INF)
            continue;
        int64_t m = EX_INF;
        for (int32_t a = 0; a < di && m > 0; a++)
            if (ui[a] < EX_INF) {
                int64_t c = ecost(e, a, b);
                if (c < m)
                    m = c;
            }
        if (m >= EX_INF) {
            remove_value(w, e->j, b);
        } else if (m > 0) {
            set(w, &e->pj[b], e->pj[b] + m);
            set(w, &uj[b], uj[b] + m);
            push(w, e->j);
        }
    }
}

/* DAC: every live value a of i gets a full support b in j (edge cost + unary cost of b
 * zero): unary cost of j is extended into the edge (E[b] <= u_j[b]) and the minimum
 * projected onto i. Both steps keep every cost non-negative. */
static void full_support_i(struct wc *w, struct edge *e)
{
    int32_t di = w->dom[e->i], dj = w->dom[e->j];
    int64_t *ui = w->u[e->i], *uj = w->u[e->j], *P = w->pbuf, *E = w->ebuf;
    int any = 0;
    for (int32_t a = 0; a < di; a++) {
        P[a] = 0;
        if (ui[a] >= EX_INF)
            continue;
        int64_t m = EX_INF;
        for (int32_t b = 0; b < dj && m > 0; b++)
            if (uj[b] < EX_INF) {
                int64_t c = ecost(e, a, b);
                if (c < EX_INF && c + uj[b] < m)
                    m = c + uj[b];
            }
        P[a] = m;
        any |= m > 0;
    }
    if (!any)
        return;
    for (int32_t b = 0; b < dj; b++) {
        E[b] = 0;
        if (uj[b] >= EX_INF)
            continue;
        for (int32_t a = 0; a < di; a++)
            if (ui[a] < EX_INF && P[a] > 0 && P[a] < EX_INF) {
                int64_t c = ecost(e, a, b);
                if (c < EX_INF && P[a] - c > E[b])
                    E[b] = P[a] - c;
            }
        if (E[b] > 0) {
            set(w, &e->pj[b], e->pj[b] - E[b]);
            set(w, &uj[b], uj[b] - E[b]);
        }
    }
    for (int32_t a = 0; a < di; a++) {
        if (ui[a] >= EX_INF || P[a] == 0)
            continue;
        if (P[a] >= EX_INF) {
            remove_value(w, e->i, a);
        } else {
            set(w, &e->pi[a], e->pi[a] + P[a]);
            set(w, &ui[a], ui[a] + P[a]);
            push(w, e->i);
        }
    }
}


/* Revise every edge of changed variables until nothing changes (or the work cap: every
 * step is an equivalence-preserving move, so stopping early only weakens the bound).
 * 0: the node is a dead end. */
static int ac_fixpoint(struct wc *w)
{
    int64_t work = 0, cap = 64 * (int64_t)(w->ne + w->n) + 4096;
    while (w->qlen && work < cap) {
        int32_t v = pop(w);
        for (int32_t k = w->adj_off[v]; k < w->adj_off[v + 1]; k++) {
            struct edge *e = &w->e[w->adj[k]];
            work++;
            project_to_j(w, e);
            full_support_i(w, e);
            if (!node_consistent(w, e->i) || !node_consistent(w, e->j)) {
                e->weight++;
                clear_queue(w);
                return 0;
            }
        }
    }
    clear_queue(w);
    return w->c0 < w->ub;
}

static int32_t other(const struct edge *e, int32_t v)
{
    return e->i == v ? e->j : e->i;
}

static void flip_edge(struct edge *e)
{
    *e = (struct edge){e->j, e->i, e->tab, e->sj, e->si, e->pj, e->pi, e->weight};
}

/* Existential arc consistency of v (EDAC): when no value of v is fully supported on all
 * its edges at once, the cheapest value's total (unary + every neighbour's best
 * edge-plus-unary cost) is > 0: pull those costs onto v (full supports towards v on every
 * edge) and move them to c0. 1: c0 grew; 0: v was consistent; -1: dead end. */
static int existential(struct wc *w, int32_t v)
{
    int64_t best = EX_INF;
    for (int32_t a = 0; a < w->dom[v] && best > 0; a++) {
        int64_t s = w->u[v][a];
        for (int32_t k = w->adj_off[v]; k < w->adj_off[v + 1] && s < best; k++) {
            const struct edge *e = &w->e[w->adj[k]];
            int32_t j = other(e, v);
            int64_t m = EX_INF;
            for (int32_t b = 0; b < w->dom[j] && m > 0; b++)
                if (w->u[j][b] < EX_INF) {
                    int64_t x = e->i == v ? ecost(e, a, b) : ecost(e, b, a);
                    if (x < EX_INF && x + w->u[j][b] < m)
                        m = x + w->u[j][b];
                }
            s = ex_add(s, m);
        }
        best = s < best ? s : best;
    }
    if (best == 0)
        return 0;
    for (int32_t k = w->adj_off[v]; k < w->adj_off[v + 1]; k++) {
        struct edge *e = &w->e[w->adj[k]];
        int turn = e->i != v;
        if (turn)
            flip_edge(e);
        full_support_i(w, e);
        if (turn)
            flip_edge(e);
    }
    return node_consistent(w, v) ? 1 : -1;
}

static void clear_eac(struct wc *w)
{
    while (w->neac)
        w->ineac[w->eacq[--w->neac]] = 0;
}

/* AC* and FDAC* to a fixpoint, then existential checks on the variables it touched, until
 * neither changes anything. 0: the node is a dead end. */
static int propagate(struct wc *w)
{
    for (;;) {
        if (!ac_fixpoint(w)) {
            clear_eac(w);
            return 0;
        }
        int moved = 0;
        while (w->neac && !moved) {
            int32_t v = w->eacq[--w->neac];
            w->ineac[v] = 0;
            int r = w->size[v] > 1 || w->adj_off[v + 1] > w->adj_off[v] ? existential(w, v) : 0;
            if (r < 0 || w->c0 >= w->ub) {
                clear_eac(w);
                return 0;
            }
            moved = r;
        }
        if (!moved)
            return 1;
    }
}

/* Every variable decided: the eliminated ones follow, then the configurations are
 * priced exactly (at most the network's value: its other variables only add cost). */
static void leaf(struct wc *w)
{
    const struct ex_fg *g = w->g;
    for (int32_t k = 0; k < w->n; k++) {
        int32_t a = 0;
        while (w->u[k][a] >= EX_INF)
            a++;
        w->val[w->var[k]] = a;
    }
    wc_net_recover(&w->net, w->val);
    for (int32_t v = 0; v < w->net.n; v++) {
        const struct ex_var *x = &g->var[w->net.var[v]];
        if (x->kind == EX_VAR_OP)
            w->scratch[x->ref] = g->xcfg[g->xcfg_off[x->ref] + w->val[v]];
    }
    int64_t cost = ex_comp_cost(w->p, g, w->c, w->scratch);
    if (cost >= w->ub)
        return;
    w->ub = cost;
    for (int32_t k = g->comp_op_off[w->c]; k < g->comp_op_off[w->c + 1]; k++)
        w->cfg[g->comp_op[k]] = w->scratch[g->comp_op[k]];
}

/* dom/wdeg over undecided variables, op variables first; -1 when every variable is
 * decided. */
static int32_t pick_var(const struct wc *w)
{
    int32_t best = -1;
    double score = 0;
    int anyop = 0;   /* op variables first: the others mostly follow from them */
    for (int32_t v = 0; v < w->n; v++)
        anyop |= w->size[v] > 1 && w->isop[v];
    for (int32_t v = 0; v < w->n; v++) {
        if (w->size[v] <= 1 || (anyop && !w->isop[v]))
            continue;
        double wd = 1;
        for (int32_t k = w->adj_off[v]; k < w->adj_off[v + 1]; k++) {
            const struct edge *e = &w->e[w->adj[k]];
            if (w->size[other(e, v)] > 1)
                wd += 1 + (double)e->weight;
        }
        double s = wd / (double)w->size[v];
        if (s > score) {
            score = s;
            best = v;
        }
    }
    return best;
}

static int32_t pick_value(const struct wc *w, int32_t v)
{
    int32_t best = -1;
    for (int32_t a = 0; a < w->dom[v]; a++)
        if (w->u[v][a] < EX_INF && (best < 0 || w->u[v][a] < w->u[v][best]))
            best = a;
    return best;
}

static int should_stop(struct wc *w)
{
    if (w->stop)
        return 1;
    if (w->nomem || (w->node_limit && w->nodes >= w->node_limit) ||
        ((w->nodes & 63) == 0 && ls_deadline_passed(w->dl)))
        w->stop = 1;
    return w->stop;
}

/* Binary branching: v = a first, then v != a in the same frame, so the recursion is at
 * most one level per variable. */
static void dfs(struct wc *w)
{
    for (;;) {
        w->nodes++;
        if (should_stop(w) || !propagate(w))
            return;
        int32_t v = pick_var(w);
        if (v < 0) {
            leaf(w);
            return;
        }
        int32_t a = pick_value(w, v);
        size_t mark = w->ntrail;
        for (int32_t b = 0; b < w->dom[v]; b++)
            if (b != a && w->u[v][b] < EX_INF)
                remove_value(w, v, b);
        dfs(w);
        undo_to(w, mark);
        clear_queue(w);
        if (w->stop || w->c0 >= w->ub)
            return;
        remove_value(w, v, a);
    }
}

static void wc_free(struct wc *w)
{
    free(w->delta);
    free(w->var);
    free(w->dom);
    free(w->size);
    free(w->u);
    free(w->adj_off);
    free(w->adj);
    free(w->e);
    free(w->trail);
    free(w->queue);
    free(w->inq);
    free(w->isop);
    free(w->ineac);
    free(w->eacq);
    free(w->pbuf);
    free(w->ebuf);
    free(w->val);
    free(w->scratch);
    wc_net_free(&w->net);
}

/* The search's view of the reduced network: its live variables and edges. */
static int build(struct wc *w)
{
    struct wc_net *nt = &w->net;
    int32_t n = 0, maxd = 1;
    for (int32_t v = 0; v < nt->n; v++)
        n += !nt->gone[v];
    w->n = n;
    size_t sn = (size_t)(n ? n : 1);
    w->var = malloc(sn * sizeof *w->var);
    w->dom = malloc(sn * sizeof *w->dom);
    w->size = malloc(sn * sizeof *w->size);
    w->u = malloc(sn * sizeof *w->u);
    w->adj_off = calloc(sn + 1, sizeof *w->adj_off);
    w->queue = malloc(sn * sizeof *w->queue);
    w->inq = calloc(sn, 1);
    w->isop = calloc(sn, 1);
    w->ineac = calloc(sn, 1);
    w->eacq = malloc(sn * sizeof *w->eacq);
    w->val = malloc((size_t)(nt->n ? nt->n : 1) * sizeof *w->val);
    w->e = malloc((size_t)(nt->ne ? nt->ne : 1) * sizeof *w->e);
    int32_t *loc = malloc((size_t)(nt->n ? nt->n : 1) * sizeof *loc);
    if (!w->var || !w->dom || !w->size || !w->u || !w->adj_off || !w->queue || !w->inq ||
        !w->ineac || !w->eacq ||
        !w->val || !w->e || !loc) {
        free(loc);
        return -1;
    }
    for (int32_t v = 0, k = 0; v < nt->n; v++) {
        if (nt->gone[v])
            continue;
        loc[v] = k;
        w->var[k] = v;
        w->dom[k] = nt->dom[v];
        w->isop[k] = w->g->var[nt->var[v]].kind == EX_VAR_OP;
        w->u[k] = nt->u[v];
        w->size[k] = 0;
        for (int32_t a = 0; a < w->dom[k]; a++)
            w->size[k] += nt->u[v][a] < EX_INF;
        maxd = w->dom[k] > maxd ? w->dom[k] : maxd;
        k++;
    }
    int64_t ndelta = 0;
    for (int32_t k = 0; k < nt->ne; k++) {
        const struct wc_edge *x = &nt->e[k];
        if (!x->live)
            continue;
        struct edge *e = &w->e[w->ne++];
        /* DAC moves cost towards the edge's variable of higher id: the producer-layout and
         * request variables, which come after the op variables (measured: a tighter root
         * than the other direction on the wide families, 2765 against 2652 on random-500's
         * largest component before the root's flips) */
        *e = (struct edge){loc[x->j], loc[x->i], x->t, 1, nt->dom[x->j], NULL, NULL, 0};
        ndelta += nt->dom[x->i] + nt->dom[x->j];
        w->adj_off[e->i + 1]++;
        w->adj_off[e->j + 1]++;
    }
    w->delta = calloc((size_t)(ndelta ? ndelta : 1), sizeof *w->delta);
    w->adj = malloc((size_t)(2 * w->ne + 1) * sizeof *w->adj);
    w->pbuf = malloc((size_t)maxd * sizeof *w->pbuf);
    w->ebuf = malloc((size_t)maxd * sizeof *w->ebuf);
    if (!w->delta || !w->adj || !w->pbuf || !w->ebuf) {
        free(loc);
        return -1;
    }
    int64_t *d = w->delta;
    for (int32_t k = 0; k < w->ne; k++) {
        w->e[k].pi = d;
        w->e[k].pj = d + w->dom[w->e[k].i];
        d += w->dom[w->e[k].i] + w->dom[w->e[k].j];
    }
    for (int32_t k = 0; k < n; k++)
        w->adj_off[k + 1] += w->adj_off[k];
    for (int32_t k = 0; k < n; k++)   /* loc reused: fill counters */
        loc[k] = w->adj_off[k];
    for (int32_t k = 0; k < w->ne; k++) {
        w->adj[loc[w->e[k].i]++] = k;
        w->adj[loc[w->e[k].j]++] = k;
    }
    free(loc);
    w->c0 = nt->c0;
    return 0;
}

/* Swap the direction of every edge: directional arc consistency then moves cost the
 * other way (an equivalence-preserving change of view, nothing is recomputed). */
static void flip(struct wc *w)
{
    for (int32_t k = 0; k < w->ne; k++)
        flip_edge(&w->e[k]);
}

/* Root: node consistency, then FDAC* in both edge directions in turn while the bound
 * grows (what one direction gathered on a variable the other can pass on). Returns the
 * proven bound; ub when nothing below the incumbent exists. */
static int64_t root_bound(struct wc *w)
{
    for (int32_t v = 0; v < w->n; v++)
        if (!node_consistent(w, v))
            return w->ub;
    int64_t last = -1;
    for (int it = 0; it < 8 && w->c0 > last; it++) {
        last = w->c0;
        if (it)
            flip(w);
        for (int32_t v = 0; v < w->n; v++)
            push(w, v);
        if (!propagate(w))
            return w->ub;
    }
    return w->c0;
}

int ex_wc_solve(const struct lsp_problem *p, const struct ex_fg *g, int32_t c,
                const struct ex_wc_opts *o, int32_t *cfg, int64_t *cost, struct ex_wc_out *out)
{
    memset(out, 0, sizeof *out);
    struct wc w = {.g = g, .p = p, .c = c, .cfg = cfg, .dl = o->deadline};
    w.scratch = malloc((size_t)(p->nops ? p->nops : 1) * sizeof *w.scratch);
    int rc = !w.scratch ? -1 : wc_net_build(&w.net, g, c);
    if (!rc)
        rc = build(&w);
    if (rc) {
        wc_free(&w);
        out->unsupported = rc > 0;
        return rc < 0 ? LS_ERR_NOMEM : 0;
    }
    memcpy(w.scratch, cfg, (size_t)p->nops * sizeof *cfg);
    w.ub = *cost;
    int64_t root = root_bound(&w);
    clear_queue(&w);
    clear_eac(&w);
    w.ntrail = 0;      /* the root's moves are never undone */
    out->root_lb = root < w.ub ? root : w.ub;
    w.node_limit = o->node_limit_per_var * (uint64_t)(w.n ? w.n : 1);
    if (o->node_limit && (!w.node_limit || o->node_limit < w.node_limit))
        w.node_limit = o->node_limit;
    out->skipped = root < w.ub && o->max_gap > 0 && (double)(w.ub - root) > o->max_gap * (double)w.ub;
    if (root < w.ub && !out->skipped)
        dfs(&w);
    out->nodes = w.nodes;
    out->stopped = w.stop;
    out->optimal = !w.stop && !out->skipped;
    *cost = w.ub;
    out->lb = out->optimal ? w.ub : root < w.ub ? root : w.ub;
    rc = w.nomem ? LS_ERR_NOMEM : 0;
    wc_free(&w);
    return rc;
}
