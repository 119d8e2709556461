/* solver/exact_fg: building the cost-function network of a problem (see exact_fg.h). */
#include "solver/exact_fg.h"

#include <stdlib.h>
#include <string.h>

#include "util/hash.h"
#include "util/hmap.h"
#include "util/vec.h"

int64_t ex_fn_stride(const struct ex_fn *f, int32_t v)
{
    for (int32_t i = 0; i < f->arity; i++)
        if (f->scope[i] == v)
            return f->stride[i];
    return 0;
}

int ex_fn_init(struct ex_fn *f, const struct ex_fg *g, int32_t arity, const int32_t *vars,
               int64_t fill)
{
    memset(f, 0, sizeof *f);
    f->arity = arity;
    f->scope = malloc((size_t)(arity ? arity : 1) * sizeof *f->scope);
    f->stride = malloc((size_t)(arity ? arity : 1) * sizeof *f->stride);
    if (!f->scope || !f->stride)
        goto nomem;
    memcpy(f->scope, vars, (size_t)arity * sizeof *vars);
    for (int32_t i = 1; i < arity; i++)   /* insertion sort: arities are small */
        for (int32_t j = i; j > 0 && f->scope[j - 1] > f->scope[j]; j--) {
            int32_t t = f->scope[j];
            f->scope[j] = f->scope[j - 1];
            f->scope[j - 1] = t;
        }
    f->size = 1;
    for (int32_t i = arity - 1; i >= 0; i--) {
        f->stride[i] = f->size;
        f->size *= g->var[f->scope[i]].dom;
    }
    f->tab = malloc((size_t)f->size * sizeof *f->tab);
    if (!f->tab)
        goto nomem;
    for (int64_t i = 0; i < f->size; i++)
        f->tab[i] = fill;
    return 0;
nomem:
    ex_fn_free(f);
    return LS_ERR_NOMEM;
}

void ex_fn_free(struct ex_fn *f)
{
    free(f->scope);
    free(f->stride);
    free(f->tab);
    memset(f, 0, sizeof *f);
}

static int add_var(struct ex_fg *g, int32_t dom, int32_t kind, int32_t ref, int32_t *id)
{
    if (g->nvars == INT32_MAX || LS_ARRAY_RESERVE(g->var, g->capvars, (size_t)g->nvars + 1))
        return LS_ERR_NOMEM;
    g->var[g->nvars] = (struct ex_var){dom, kind, ref};
    *id = g->nvars++;
    return 0;
}

/* A new function over vars, filled with fill; *out points at it (valid until the next
 * add_fn). */
static int add_fn(struct ex_fg *g, int32_t arity, const int32_t *vars, int64_t fill,
                  struct ex_fn **out)
{
    if (g->nfn == INT32_MAX || LS_ARRAY_RESERVE(g->fn, g->capfn, (size_t)g->nfn + 1))
        return LS_ERR_NOMEM;
    if (ex_fn_init(&g->fn[g->nfn], g, arity, vars, fill))
        return LS_ERR_NOMEM;
    *out = &g->fn[g->nfn++];
    return 0;
}

struct dedup_ctx {
    const struct lsp_problem *p;
    int32_t o;
    const int32_t *rep;      /* representative id -> cfg (g->xcfg from the op's start) */
    size_t bytes;
};

static int dedup_eq(const void *ctx, int32_t id, const void *key)
{
    const struct dedup_ctx *c = ctx;
    return !memcmp(lsp_cfg_layouts(c->p, c->o, c->rep[id]), key, c->bytes);
}

static uint64_t dedup_hash(const void *ctx, int32_t id)
{
    const struct dedup_ctx *c = ctx;
    return ls_fnv1a64(lsp_cfg_layouts(c->p, c->o, c->rep[id]), c->bytes);
}

static const struct ls_hmap_fns dedup_fns = {dedup_hash, dedup_eq};

/* Merge configurations with identical slot layouts: the representatives of op o are
 * appended to g->xcfg (the cheapest of each tuple, lowest index among equals). */
static int dedup_op(const struct lsp_problem *p, int32_t o, struct ex_fg *g, int32_t *pos)
{
    const struct lsp_op *op = &p->ops[o];
    int32_t start = *pos;
    struct dedup_ctx c = {p, o, g->xcfg + start, (size_t)op->nslots * sizeof(int32_t)};
    struct ls_hmap seen = {0};
    if (ls_hmap_reserve(&seen, (size_t)op->ncfg, &dedup_fns, &c))
        return LS_ERR_NOMEM;
    for (int32_t cfg = 0; cfg < op->ncfg; cfg++) {
        const int32_t *lay = lsp_cfg_layouts(p, o, cfg);
        int32_t next = *pos - start;
        int32_t id = ls_hmap_put(&seen, ls_fnv1a64(lay, c.bytes), &dedup_fns, &c, lay);
        if (id < 0) {
            ls_hmap_free(&seen);
            return LS_ERR_NOMEM;
        }
        if (id == next) {
            g->xcfg[(*pos)++] = cfg;
        } else if (lsp_cfg_cost(p, o, cfg) < lsp_cfg_cost(p, o, g->xcfg[start + id])) {
            g->xcfg[start + id] = cfg;
        }
    }
    ls_hmap_free(&seen);
    return 0;
}

/* Distinct layouts op c requests of tensor t under its cfg cfg: bits of the first 64
 * layouts in *mask, and the transpose sum from producer layout src (src < 0: none). */
static int64_t request_cost(const struct lsp_problem *p, int32_t t, int32_t c, int32_t cfg,
                            int32_t src, int32_t *req, int32_t *nreq)
{
    const struct lsp_op *op = &p->ops[c];
    const int32_t *lay = lsp_cfg_layouts(p, c, cfg);
    int32_t n = 0;
    for (int32_t s = 0; s < op->nin; s++) {
        if (op->in[s] != t)
            continue;
        int dup = 0;
        for (int32_t i = 0; i < n && !dup; i++)
            dup = req[i] == lay[s];
        if (!dup)
            req[n++] = lay[s];
    }
    *nreq = n;
    int64_t sum = 0;
    if (src >= 0)
        for (int32_t i = 0; i < n; i++)
            sum += lsp_tr_cost(p, t, src, req[i]);
    return sum;
}

static int tensor_fns(const struct lsp_problem *p, int32_t t, struct ex_fg *g, int32_t *req,
                      int32_t *cons, unsigned char *can)
{
    const struct lsp_tensor *x = &p->tensors[t];
    int32_t L = x->nlayouts, P = x->producer;
    if (L < 2 || p->use_off[t] == p->use_off[t + 1])
        return 0;
    int32_t K = 0;   /* distinct consumer ops (uses are in op order) */
    for (int32_t i = p->use_off[t]; i < p->use_off[t + 1]; i++)
        if (!K || cons[K - 1] != p->use_op[i])
            cons[K++] = p->use_op[i];
    int32_t pv;
    struct ex_fn *f;
    if (add_var(g, L, EX_VAR_PROD, t, &pv))
        return LS_ERR_NOMEM;
    int32_t xp = g->xvar[P];
    if (add_fn(g, 2, (int32_t[]){xp, pv}, EX_INF, &f))
        return LS_ERR_NOMEM;
    for (int32_t v = 0; v < g->var[xp].dom; v++) {
        int32_t l = lsp_cfg_out_layout(p, P, g->xcfg[g->xcfg_off[P] + v]);
        f->tab[v * ex_fn_stride(f, xp) + l * ex_fn_stride(f, pv)] = 0;
    }
    int32_t nreq;
    if (K == 1) {
        int32_t c = cons[0], xc = g->xvar[c];
        if (add_fn(g, 2, (int32_t[]){pv, xc}, 0, &f))
            return LS_ERR_NOMEM;
        for (int32_t v = 0; v < g->var[xc].dom; v++)
            for (int32_t l = 0; l < L; l++)
                f->tab[v * ex_fn_stride(f, xc) + l * ex_fn_stride(f, pv)] =
                    request_cost(p, t, c, g->xcfg[g->xcfg_off[c] + v], l, req, &nreq);
        return 0;
    }
    /* can[k * L + l]: consumer k may request layout l */
    memset(can, 0, (size_t)K * (size_t)L);
    for (int32_t k = 0; k < K; k++) {
        int32_t c = cons[k];
        for (int32_t v = 0; v < g->var[g->xvar[c]].dom; v++) {
            request_cost(p, t, c, g->xcfg[g->xcfg_off[c] + v], -1, req, &nreq);
            for (int32_t i = 0; i < nreq; i++)
                can[(size_t)k * L + req[i]] = 1;
        }
    }
    for (int32_t l = 0; l < L; l++) {
        int any = 0;
        for (int32_t k = 0; k < K && !any; k++)
            any = can[(size_t)k * L + l];
        if (!any)
            continue;
        int32_t yv;
        if (add_var(g, 2, EX_VAR_REQ, t, &yv))
            return LS_ERR_NOMEM;
        if (add_fn(g, 2, (int32_t[]){pv, yv}, 0, &f))
            return LS_ERR_NOMEM;
        for (int32_t s = 0; s < L; s++)
            f->tab[s * ex_fn_stride(f, pv) + ex_fn_stride(f, yv)] = lsp_tr_cost(p, t, s, l);
        for (int32_t k = 0; k < K; k++) {
            if (!can[(size_t)k * L + l])
                continue;
            int32_t c = cons[k], xc = g->xvar[c];
            if (add_fn(g, 2, (int32_t[]){xc, yv}, 0, &f))
                return LS_ERR_NOMEM;
            for (int32_t v = 0; v < g->var[xc].dom; v++) {
                request_cost(p, t, c, g->xcfg[g->xcfg_off[c] + v], -1, req, &nreq);
                for (int32_t i = 0; i < nreq; i++)
                    if (req[i] == l)
                        f->tab[v * ex_fn_stride(f, xc)] = EX_INF;   /* y = 0 */
            }
        }
    }
    return 0;
}

static int32_t uf_find(int32_t *par, int32_t a)
{
    while (par[a] != a) {
        par[a] = par[par[a]];
        a = par[a];
    }
    return a;
}

/* Group the variables, functions and ops into connected components, numbered by their
 * smallest variable. */
static int components(const struct lsp_problem *p, struct ex_fg *g)
{
    int32_t n = g->nvars;
    int32_t *par = malloc((size_t)(n ? n : 1) * sizeof *par);
    g->comp_of_var = malloc((size_t)(n ? n : 1) * sizeof *g->comp_of_var);
    if (!par || !g->comp_of_var) {
        free(par);
        return LS_ERR_NOMEM;
    }
    for (int32_t i = 0; i < n; i++)
        par[i] = i;
    for (int32_t f = 0; f < g->nfn; f++)
        for (int32_t i = 1; i < g->fn[f].arity; i++) {
            int32_t a = uf_find(par, g->fn[f].scope[0]), b = uf_find(par, g->fn[f].scope[i]);
            if (a != b)
                par[a > b ? a : b] = a < b ? a : b;
        }
    g->ncomp = 0;
    for (int32_t i = 0; i < n; i++) {
        int32_t r = uf_find(par, i);
        g->comp_of_var[i] = r == i ? g->ncomp++ : g->comp_of_var[r];
    }
    free(par);
    int32_t nc = g->ncomp;
    g->comp_var_off = calloc((size_t)nc + 1, sizeof(int32_t));
    g->comp_fn_off = calloc((size_t)nc + 1, sizeof(int32_t));
    g->comp_op_off = calloc((size_t)nc + 1, sizeof(int32_t));
    g->comp_var = malloc((size_t)(n ? n : 1) * sizeof(int32_t));
    g->comp_fn = malloc((size_t)(g->nfn ? g->nfn : 1) * sizeof(int32_t));
    g->comp_op = malloc((size_t)(p->nops ? p->nops : 1) * sizeof(int32_t));
    if (!g->comp_var_off || !g->comp_fn_off || !g->comp_op_off || !g->comp_var ||
        !g->comp_fn || !g->comp_op)
        return LS_ERR_NOMEM;
    for (int32_t i = 0; i < n; i++)
        g->comp_var_off[g->comp_of_var[i] + 1]++;
    for (int32_t f = 0; f < g->nfn; f++)
        g->comp_fn_off[g->comp_of_var[g->fn[f].scope[0]] + 1]++;
    for (int32_t o = 0; o < p->nops; o++)
        g->comp_op_off[g->comp_of_var[g->xvar[o]] + 1]++;
    for (int32_t c = 0; c < nc; c++) {
        g->comp_var_off[c + 1] += g->comp_var_off[c];
        g->comp_fn_off[c + 1] += g->comp_fn_off[c];
        g->comp_op_off[c + 1] += g->comp_op_off[c];
    }
    int32_t *fill = calloc((size_t)nc + 1, 3 * sizeof(int32_t));
    if (!fill)
        return LS_ERR_NOMEM;
    for (int32_t i = 0; i < n; i++) {
        int32_t c = g->comp_of_var[i];
        g->comp_var[g->comp_var_off[c] + fill[3 * c]++] = i;
    }
    for (int32_t f = 0; f < g->nfn; f++) {
        int32_t c = g->comp_of_var[g->fn[f].scope[0]];
        g->comp_fn[g->comp_fn_off[c] + fill[3 * c + 1]++] = f;
    }
    for (int32_t o = 0; o < p->nops; o++) {
        int32_t c = g->comp_of_var[g->xvar[o]];
        g->comp_op[g->comp_op_off[c] + fill[3 * c + 2]++] = o;
    }
    free(fill);
    return 0;
}

int ex_fg_build(const struct lsp_problem *p, struct ex_fg *g, struct ls_error *err)
{
    memset(g, 0, sizeof *g);
    int32_t nops = p->nops;
    g->xvar = malloc((size_t)(nops ? nops : 1) * sizeof *g->xvar);
    g->xcfg_off = malloc(((size_t)nops + 1) * sizeof *g->xcfg_off);
    g->xcfg = malloc((size_t)(p->ncfg ? p->ncfg : 1) * sizeof *g->xcfg);
    int32_t maxuse = 1;
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t u = p->use_off[t + 1] - p->use_off[t];
        if (u > maxuse)
            maxuse = u;
    }
    int32_t L = p->max_layouts > 0 ? p->max_layouts : 1;
    int32_t *req = malloc((size_t)(maxuse + L) * sizeof *req);
    int32_t *cons = malloc((size_t)maxuse * sizeof *cons);
    unsigned char *can = malloc((size_t)maxuse * (size_t)L);
    int rc = LS_ERR_NOMEM;
    if (!g->xvar || !g->xcfg_off || !g->xcfg || !req || !cons || !can)
        goto out;
    int32_t pos = 0;
    for (int32_t o = 0; o < nops; o++) {
        g->xcfg_off[o] = pos;
        if (dedup_op(p, o, g, &pos))
            goto out;
        struct ex_fn *f;
        if (add_var(g, pos - g->xcfg_off[o], EX_VAR_OP, o, &g->xvar[o]) ||
            add_fn(g, 1, &g->xvar[o], 0, &f))
            goto out;
        for (int32_t v = 0; v < g->var[g->xvar[o]].dom; v++)
            f->tab[v] = lsp_cfg_cost(p, o, g->xcfg[g->xcfg_off[o] + v]);
    }
    g->xcfg_off[nops] = pos;
    for (int32_t t = 0; t < p->ntensors; t++)
        if (tensor_fns(p, t, g, req, cons, can))
            goto out;
    if (components(p, g))
        goto out;
    rc = 0;
out:
    free(req);
    free(cons);
    free(can);
    if (rc)
        return ls_error_msg(err, rc, "exact: out of memory building the cost function network");
    return 0;
}

void ex_fg_free(struct ex_fg *g)
{
    for (int32_t f = 0; f < g->nfn; f++)
        ex_fn_free(&g->fn[f]);
    free(g->fn);
    free(g->var);
    free(g->xvar);
    free(g->xcfg_off);
    free(g->xcfg);
    free(g->comp_of_var);
    free(g->comp_var_off);
    free(g->comp_var);
    free(g->comp_fn_off);
    free(g->comp_fn);
    free(g->comp_op_off);
    free(g->comp_op);
    memset(g, 0, sizeof *g);
}
