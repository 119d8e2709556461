/* solver/gen: random DAGs and the two NP-hardness gadgets. */
#include "solver/gen.h"
#include "solver/gen_impl.h"
#include "util/prng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lsp_gen_shape_parse(const char *name)
{
    static const char *const names[] = {"transformer", "cnn", "random", "sat", "oct"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(name, names[i]))
            return i;
    return -1;
}

void lsp_gen_opts_init(struct lsp_gen_opts *o)
{
    memset(o, 0, sizeof *o);
    o->shape = LSP_GEN_RANDOM;
    o->ops = 10;
    o->seed = LS_SEED_DEFAULT;
}

/* Sum of costs must stay below 2^53: generators keep costs small, so only the builder's
 * own checks apply. */

/* Draws shared by the uniform and the windowed random DAGs (same order of draws as
 * the original generator, so existing seeds give the same files). */
struct gen_rand {
    struct ls_rng rng;
    int32_t maxl, maxc, maxin;
    int64_t maxcost;
    int32_t *in, *lay;
    int64_t *tr;
};

static int gen_rand_init(struct gen_rand *g, const struct lsp_gen_opts *o, struct ls_error *err)
{
    ls_rng_seed(&g->rng, o->seed);
    g->maxl = o->max_layouts > 0 ? o->max_layouts : LSP_GEN_DEFAULT_LAYOUTS;
    g->maxc = o->max_cfg > 0 ? o->max_cfg : LSP_GEN_DEFAULT_CFGS;
    g->maxin = o->max_inputs > 0 ? o->max_inputs : LSP_GEN_DEFAULT_FANIN;
    g->maxcost = o->max_cost > 0 ? o->max_cost : LSP_GEN_DEFAULT_COST;
    g->in = malloc(((size_t)g->maxin + 1) * sizeof *g->in);
    g->lay = malloc(((size_t)g->maxin + 2) * sizeof *g->lay);
    g->tr = malloc((size_t)g->maxl * (size_t)g->maxl * sizeof *g->tr);
    if (!g->in || !g->lay || !g->tr)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    return 0;
}

static void gen_rand_free(struct gen_rand *g)
{
    free(g->in);
    free(g->lay);
    free(g->tr);
}

/* Op i reading g->in[0..nin): maybe an output tensor t<i> (85%), then op<i> with 1..maxc
 * random cfgs. *out = the tensor or -1. */
static int gen_rand_op(struct gen_rand *g, struct lsp_problem *p, int32_t i, int32_t nin,
                       int32_t *out, struct ls_error *err)
{
    char name[32];
    int rc;
    *out = -1;
    if (ls_rng_below(&g->rng, 100) < 85) {
        int32_t L = 1 + (int32_t)ls_rng_below(&g->rng, (uint64_t)g->maxl);
        for (int32_t a = 0; a < L; a++)
            for (int32_t b = 0; b < L; b++) {
                if (a == b) {
                    g->tr[a * L + b] = 0;
                    continue;
                }
                int64_t w = (int64_t)ls_rng_below(&g->rng, (uint64_t)g->maxcost);
                g->tr[a * L + b] = w + (ls_rng_below(&g->rng, 8) ? 1 : 0);
            }
        snprintf(name, sizeof name, "t%d", i);
        if ((rc = lsp_add_tensor(p, name, L, NULL, g->tr, out, err)))
            return rc;
    }
    snprintf(name, sizeof name, "op%d", i);
    int32_t id;
    if ((rc = lsp_add_op(p, name, nin ? "compute" : "source", nin, g->in, *out, &id, err)))
        return rc;
    int32_t ncfg = 1 + (int32_t)ls_rng_below(&g->rng, (uint64_t)g->maxc);
    const struct lsp_op *op = &p->ops[id];
    for (int32_t c = 0; c < ncfg; c++) {
        for (int32_t s = 0; s < op->nslots; s++) {
            int32_t t = s < op->nin ? op->in[s] : op->out;
            g->lay[s] = (int32_t)ls_rng_below(&g->rng, (uint64_t)p->tensors[t].nlayouts);
        }
        int64_t cost = (int64_t)ls_rng_below(&g->rng, (uint64_t)g->maxcost + 1);
        if ((rc = lsp_add_cfg(p, id, cost, g->lay, NULL, err)))
            return rc;
    }
    return 0;
}

/* Uniform random DAG: each op reads 0..maxin tensors (repeats allowed) of all earlier
 * outputs. */
static int gen_random(const struct lsp_gen_opts *o, struct lsp_problem *p, struct ls_error *err)
{
    struct gen_rand g;
    int32_t *avail = malloc(((size_t)o->ops + 1) * sizeof *avail);
    int32_t navail = 0;
    int rc = gen_rand_init(&g, o, err);
    if (!rc && !avail)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < o->ops && !rc; i++) {
        int32_t lim = g.maxin < navail + 1 ? g.maxin : navail;
        int32_t nin = navail ? (int32_t)ls_rng_below(&g.rng, (uint64_t)lim + 1) : 0;
        for (int32_t k = 0; k < nin; k++)
            g.in[k] = avail[ls_rng_below(&g.rng, (uint64_t)navail)];
        int32_t out;
        if ((rc = gen_rand_op(&g, p, i, nin, &out, err)))
            break;
        if (out >= 0)
            avail[navail++] = out;
    }
    free(avail);
    gen_rand_free(&g);
    return rc;
}

/* Windowed random DAG: op i (after the first) reads 1..maxin distinct tensors drawn from
 * the last `window` tensors produced that have fewer than max_fanout consumers (an op
 * with no such tensor is a source). A ring of the last W tensors keeps it O(ops · W). */
static int gen_window(const struct lsp_gen_opts *o, struct lsp_problem *p, struct ls_error *err)
{
    struct gen_rand g;
    int32_t W = o->window < o->ops ? o->window : o->ops;
    int32_t *ring = malloc((size_t)W * sizeof *ring);      /* tensor ids, oldest first */
    int32_t *uses = malloc((size_t)W * sizeof *uses);      /* consumer ops so far */
    int32_t *cand = malloc((size_t)W * sizeof *cand);      /* ring positions */
    int32_t nring = 0;
    int rc = gen_rand_init(&g, o, err);
    if (!rc && (!ring || !uses || !cand))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < o->ops && !rc; i++) {
        int32_t ncand = 0;
        for (int32_t k = 0; k < nring; k++)
            if (o->max_fanout <= 0 || uses[k] < o->max_fanout)
                cand[ncand++] = k;
        int32_t lim = g.maxin < ncand ? g.maxin : ncand;
        int32_t nin = lim ? 1 + (int32_t)ls_rng_below(&g.rng, (uint64_t)lim) : 0;
        for (int32_t k = 0; k < nin; k++) {   /* partial Fisher-Yates: distinct inputs */
            int32_t j = k + (int32_t)ls_rng_below(&g.rng, (uint64_t)(ncand - k));
            int32_t x = cand[k];
            cand[k] = cand[j];
            cand[j] = x;
            g.in[k] = ring[cand[k]];
            uses[cand[k]]++;
        }
        int32_t out;
        if ((rc = gen_rand_op(&g, p, i, nin, &out, err)))
            break;
        if (out < 0)
            continue;
        if (nring == W) {   /* the oldest tensor leaves the window */
            memmove(ring, ring + 1, (size_t)(W - 1) * sizeof *ring);
            memmove(uses, uses + 1, (size_t)(W - 1) * sizeof *uses);
            nring--;
        }
        ring[nring] = out;
        uses[nring++] = 0;
    }
    free(ring);
    free(uses);
    free(cand);
    gen_rand_free(&g);
    return rc;
}

static const int64_t unit_tr[4] = {0, 1, 1, 0};

int lsp_gen_sat(int32_t nvars, int32_t nclauses, const int32_t *off, const int32_t *lits,
                struct lsp_problem **out, struct ls_error *err)
{
    *out = NULL;
    struct lsp_problem *p = lsp_new();
    if (!p)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    static const char *const tf[] = {"T", "F"};
    int rc = 0;
    int32_t maxk = 0;
    for (int32_t i = 0; i < nclauses; i++) {
        int32_t k = off[i + 1] - off[i];
        if (k < 1 || k > LSP_GEN_SAT_MAX_LITS) {
            rc = ls_error_msg(err, LS_ERR_INPUT, "clause %d has %d literals (1..%d supported)",
                              i + 1, k, LSP_GEN_SAT_MAX_LITS);
            goto out;
        }
        if (k > maxk)
            maxk = k;
        for (int32_t j = off[i]; j < off[i + 1]; j++)
            if (lits[j] == 0 || abs(lits[j]) > nvars) {
                rc = ls_error_msg(err, LS_ERR_INPUT, "clause %d: literal %d out of range", i + 1,
                                  lits[j]);
                goto out;
            }
    }
    int32_t *in = malloc(((size_t)maxk + 1) * sizeof *in);
    int32_t *lay = malloc(((size_t)maxk + 2) * sizeof *lay);
    if (!in || !lay) {
        free(in);
        free(lay);
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    char name[32];
    for (int32_t v = 0; v < nvars && !rc; v++) {
        int32_t t, o;
        snprintf(name, sizeof name, "x%d", v + 1);
        if ((rc = lsp_add_tensor(p, name, 2, tf, unit_tr, &t, err)))
            break;
        snprintf(name, sizeof name, "s%d", v + 1);
        if ((rc = lsp_add_op(p, name, "source", 0, NULL, t, &o, err)))
            break;
        for (int32_t l = 0; l < 2 && !rc; l++)
            rc = lsp_add_cfg(p, o, 0, &l, NULL, err);
    }
    for (int32_t i = 0; i < nclauses && !rc; i++) {
        int32_t k = off[i + 1] - off[i], t, o;
        for (int32_t j = 0; j < k; j++)
            in[j] = abs(lits[off[i] + j]) - 1;   /* tensor id == variable index */
        snprintf(name, sizeof name, "r%d", i + 1);
        if ((rc = lsp_add_tensor(p, name, 1, NULL, NULL, &t, err)))
            break;
        snprintf(name, sizeof name, "c%d", i + 1);
        if ((rc = lsp_add_op(p, name, "clause", k, in, t, &o, err)))
            break;
        for (int32_t m = 0; m < (1 << k) && !rc; m++) {
            int sat = 0;
            for (int32_t j = 0; j < k; j++) {
                lay[j] = (m >> (k - 1 - j)) & 1;   /* 0 = T, 1 = F */
                int positive = lits[off[i] + j] > 0;
                if ((lay[j] == 0) == positive)
                    sat = 1;
            }
            lay[k] = 0;
            rc = lsp_add_cfg(p, o, sat ? 0 : 1, lay, NULL, err);
        }
    }
    free(in);
    free(lay);
    if (!rc)
        rc = lsp_finish(p, err);
out:
    if (rc) {
        lsp_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int lsp_gen_sat_random(int32_t ops, uint64_t seed, struct lsp_problem **out,
                       struct ls_error *err)
{
    if (ops < 4)
        return ls_error_msg(err, LS_ERR_INPUT, "--shape sat needs --ops >= 4");
    struct ls_rng rng;
    ls_rng_seed(&rng, seed);
    int32_t nvars = ops / 5 > 3 ? ops / 5 : 3;
    int32_t ncl = ops - nvars;
    int32_t *off = malloc(((size_t)ncl + 1) * sizeof *off);
    int32_t *lits = malloc(((size_t)ncl * 3 + 1) * sizeof *lits);
    unsigned char *planted = malloc((size_t)nvars);
    if (!off || !lits || !planted) {
        free(off);
        free(lits);
        free(planted);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (int32_t v = 0; v < nvars; v++)
        planted[v] = (unsigned char)ls_rng_below(&rng, 2);
    for (int32_t i = 0; i < ncl; i++) {
        off[i] = 3 * i;
        for (;;) {
            int sat = 0;
            int32_t v[3];
            v[0] = (int32_t)ls_rng_below(&rng, (uint64_t)nvars);
            do v[1] = (int32_t)ls_rng_below(&rng, (uint64_t)nvars); while (v[1] == v[0]);
            do v[2] = (int32_t)ls_rng_below(&rng, (uint64_t)nvars); while (v[2] == v[0] || v[2] == v[1]);
            for (int j = 0; j < 3; j++) {
                int pos = (int)ls_rng_below(&rng, 2);
                lits[3 * i + j] = pos ? v[j] + 1 : -(v[j] + 1);
                if (pos == planted[v[j]])
                    sat = 1;
            }
            if (sat)
                break;   /* keep only clauses the planted assignment satisfies */
        }
    }
    off[ncl] = 3 * ncl;
    int rc = lsp_gen_sat(nvars, ncl, off, lits, out, err);
    free(off);
    free(lits);
    free(planted);
    return rc;
}

int lsp_gen_oct(int32_t nverts, int32_t nedges, const int32_t *edges,
                struct lsp_problem **out, struct ls_error *err)
{
    *out = NULL;
    struct lsp_problem *p = lsp_new();
    if (!p)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    static const char *const ab[] = {"A", "B"};
    char name[32];
    int rc = 0;
    for (int32_t i = 0; i < nedges && !rc; i++)
        if (edges[2 * i] < 0 || edges[2 * i] >= nverts || edges[2 * i + 1] < 0 ||
            edges[2 * i + 1] >= nverts || edges[2 * i] == edges[2 * i + 1])
            rc = ls_error_msg(err, LS_ERR_INPUT, "edge %d: bad vertices %d %d", i + 1,
                              edges[2 * i], edges[2 * i + 1]);
    for (int32_t v = 0; v < nverts && !rc; v++) {
        int32_t t, o;
        snprintf(name, sizeof name, "v%d", v);
        if ((rc = lsp_add_tensor(p, name, 2, ab, unit_tr, &t, err)))
            break;
        snprintf(name, sizeof name, "s%d", v);
        if ((rc = lsp_add_op(p, name, "source", 0, NULL, t, &o, err)))
            break;
        for (int32_t l = 0; l < 2 && !rc; l++)
            rc = lsp_add_cfg(p, o, 0, &l, NULL, err);
    }
    for (int32_t i = 0; i < nedges && !rc; i++) {
        int32_t t, o, in[2] = {edges[2 * i], edges[2 * i + 1]};
        snprintf(name, sizeof name, "r%d_%d", in[0], in[1]);
        char tn[80];
        snprintf(tn, sizeof tn, "%s.%d", name, i);
        if ((rc = lsp_add_tensor(p, tn, 1, NULL, NULL, &t, err)))
            break;
        snprintf(name, sizeof name, "mm%d", i);
        if ((rc = lsp_add_op(p, name, "matmul", 2, in, t, &o, err)))
            break;
        int32_t c0[3] = {0, 1, 0}, c1[3] = {1, 0, 0};
        if (!(rc = lsp_add_cfg(p, o, 0, c0, NULL, err)))
            rc = lsp_add_cfg(p, o, 0, c1, NULL, err);
    }
    if (!rc)
        rc = lsp_finish(p, err);
    if (rc) {
        lsp_free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int lsp_gen_oct_random(int32_t ops, uint64_t seed, struct lsp_problem **out,
                       struct ls_error *err)
{
    if (ops < 4)
        return ls_error_msg(err, LS_ERR_INPUT, "--shape oct needs --ops >= 4");
    struct ls_rng rng;
    ls_rng_seed(&rng, seed);
    int32_t n = ops / 3 > 3 ? ops / 3 : 3;
    int64_t maxe = (int64_t)n * (n - 1) / 2;
    while (ops - n > maxe) {   /* too few vertices for that many distinct edges */
        n++;
        maxe = (int64_t)n * (n - 1) / 2;
    }
    int32_t m = ops - n;
    int32_t *edges = malloc(((size_t)m * 2 + 2) * sizeof *edges);
    if (!edges)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < m; i++) {
        for (;;) {
            int32_t u = (int32_t)ls_rng_below(&rng, (uint64_t)n);
            int32_t v = (int32_t)ls_rng_below(&rng, (uint64_t)n);
            if (u == v)
                continue;
            if (u > v) {
                int32_t x = u;
                u = v;
                v = x;
            }
            int dup = 0;
            /* duplicates only matter for small graphs; check the recent window cheaply */
            for (int32_t j = i - 1; j >= 0 && j >= i - 4096 && !dup; j--)
                dup = edges[2 * j] == u && edges[2 * j + 1] == v;
            if (dup)
                continue;
            edges[2 * i] = u;
            edges[2 * i + 1] = v;
            break;
        }
    }
    int rc = lsp_gen_oct(n, m, edges, out, err);
    free(edges);
    return rc;
}

int lsp_gen(const struct lsp_gen_opts *o, struct lsp_problem **out, struct ls_error *err)
{
    *out = NULL;
    if (o->ops < 1)
        return ls_error_msg(err, LS_ERR_INPUT, "need at least one op");
    switch (o->shape) {
    case LSP_GEN_SAT:
        return lsp_gen_sat_random(o->ops, o->seed, out, err);
    case LSP_GEN_OCT:
        return lsp_gen_oct_random(o->ops, o->seed, out, err);
    default:
        break;
    }
    struct lsp_problem *p = lsp_new();
    if (!p)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc;
    if (o->shape == LSP_GEN_RANDOM)
        rc = o->window > 0 ? gen_window(o, p, err) : gen_random(o, p, err);
    else if (o->shape == LSP_GEN_TRANSFORMER)
        rc = lsp_gen_transformer(o, p, err);
    else if (o->shape == LSP_GEN_CNN)
        rc = lsp_gen_cnn(o, p, err);
    else
        rc = ls_error_msg(err, LS_ERR_INPUT, "unknown shape %d", o->shape);
    if (!rc)
        rc = lsp_finish(p, err);
    if (rc) {
        lsp_free(p);
        return rc;
    }
    *out = p;
    return 0;
}
