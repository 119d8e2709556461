/* solver/gen_model: transformer- and CNN-shaped problems. Every tensor has 2 or 3 axes;
 * layout l puts axis l on the 128 partitions (label "p:<axis>"). Costs are abstract
 * cycle-like units following the effects of docs/design.md: contraction on partitions
 * for matmuls (the output's partition axis picks the stationary operand), partition
 * utilisation for elementwise work, cross-partition reductions, DMA chunk size for
 * loads, and PE transposes proportional to size. */
#include "solver/gen_impl.h"
#include "util/prng.h"

#include <stdio.h>
#include <string.h>

#define MAXAX 3

struct ten {
    int32_t id;
    int n;
    char ax[MAXAX][16];
    int64_t dim[MAXAX];
};

struct gm {
    struct lsp_problem *p;
    struct ls_rng rng;
    int32_t left;            /* ops still to add */
    int32_t count;
    struct ls_error *err;
    int rc;
};

static int64_t elems(const struct ten *t)
{
    int64_t e = 1;
    for (int i = 0; i < t->n; i++)
        e *= t->dim[i];
    return e;
}

static int64_t noise(struct gm *g, int64_t c)
{
    /* +-3% deterministic jitter so ties are rare but the structure stays */
    int64_t span = c / 16 + 1;
    int64_t v = c + (int64_t)ls_rng_below(&g->rng, (uint64_t)span) - span / 2;
    return v > 0 ? v : 1;
}

/* -1 without an error when the op budget is spent (the tensor would have no producer). */
static int new_tensor(struct gm *g, struct ten *t)
{
    if (g->rc)
        return g->rc;
    if (g->left <= 0)
        return -1;
    char name[32], labels[MAXAX][24];
    const char *lp[MAXAX];
    int64_t tr[MAXAX * MAXAX];
    int64_t base = 64 + elems(t) / 64;
    for (int i = 0; i < t->n; i++) {
        snprintf(labels[i], sizeof labels[i], "p:%s", t->ax[i]);
        lp[i] = labels[i];
        for (int j = 0; j < t->n; j++)
            tr[i * t->n + j] = i == j ? 0 : noise(g, base);
    }
    snprintf(name, sizeof name, "t%d", g->count);
    g->rc = lsp_add_tensor(g->p, name, t->n, lp, tr, &t->id, g->err);
    return g->rc;
}

/* Add an op; returns its id or -1 (budget exhausted or error). */
static int32_t new_op(struct gm *g, const char *kind, int32_t nin, const int32_t *in,
                      int32_t out)
{
    if (g->rc || g->left <= 0)
        return -1;
    char name[48];
    snprintf(name, sizeof name, "%s%d", kind, g->count++);
    int32_t id;
    if ((g->rc = lsp_add_op(g->p, name, kind, nin, in, out, &id, g->err)))
        return -1;
    g->left--;
    return id;
}

static void cfg(struct gm *g, int32_t op, int64_t cost, const int32_t *lay)
{
    if (!g->rc && op >= 0)
        g->rc = lsp_add_cfg(g->p, op, cost, lay, NULL, g->err);
}

static int64_t lane_cost(const struct ten *t, int l)
{
    int64_t d = t->dim[l] < 128 ? t->dim[l] : 128;
    return elems(t) / (d * 4) + 16;
}

/* A loaded tensor (weights, inputs): DMA is cheap unless the partition axis is the
 * innermost (last) axis in memory. */
static int source(struct gm *g, struct ten *t, const char *kind)
{
    if (new_tensor(g, t))
        return -1;
    int32_t op = new_op(g, kind, 0, NULL, t->id);
    if (op < 0)
        return -1;
    for (int l = 0; l < t->n; l++) {
        int64_t c = l == t->n - 1 ? elems(t) / 8 + 64 : elems(t) / 512 + 32;
        cfg(g, op, noise(g, c), (int32_t[]){l});
    }
    return 0;
}

/* Elementwise over inputs of the same axes as out; reduce_axis >= 0 makes it a reduction
 * along that axis (expensive across partitions). */
static int eltwise(struct gm *g, const char *kind, int nin, const struct ten *in, struct ten *out,
                   int reduce_axis)
{
    *out = in[0];
    if (new_tensor(g, out))
        return -1;
    int32_t ids[4];
    for (int i = 0; i < nin; i++)
        ids[i] = in[i].id;
    int32_t op = new_op(g, kind, nin, ids, out->id);
    if (op < 0)
        return -1;
    for (int l = 0; l < out->n; l++) {
        int32_t lay[5];
        for (int i = 0; i <= nin; i++)
            lay[i] = l;
        int64_t c = lane_cost(out, l) * (nin > 1 ? 2 : 1);
        if (l == reduce_axis)
            c *= 4;
        cfg(g, op, noise(g, c), lay);
    }
    return 0;
}

static void axis_copy(char *dst, const char *src, const char *avoid)
{
    snprintf(dst, 16, "%s%s", src, avoid && !strcmp(src, avoid) ? "2" : "");
}

/* out[m, n] = A[.., k, ..] x B[.., k, ..]; ka / kb: index of the contraction axis (2-axis
 * operands). Contraction must be on partitions; the output's partition axis is the
 * stationary operand's free axis (m or n). A third cfg reads A with its free axis on
 * partitions and transposes it on the PE array first. */
static int matmul(struct gm *g, const struct ten *a, int ka, const struct ten *b, int kb,
                  struct ten *out)
{
    memset(out, 0, sizeof *out);
    out->n = 2;
    axis_copy(out->ax[0], a->ax[1 - ka], NULL);
    axis_copy(out->ax[1], b->ax[1 - kb], out->ax[0]);
    out->dim[0] = a->dim[1 - ka];
    out->dim[1] = b->dim[1 - kb];
    if (new_tensor(g, out))
        return -1;
    int32_t op = new_op(g, "matmul", 2, (int32_t[]){a->id, b->id}, out->id);
    if (op < 0)
        return -1;
    int64_t f = out->dim[0] * out->dim[1] / 128 * a->dim[ka] / (128 * 4) + 64;
    cfg(g, op, noise(g, f), (int32_t[]){ka, kb, 0});
    cfg(g, op, noise(g, f + f / 16), (int32_t[]){ka, kb, 1});
    cfg(g, op, noise(g, f + 96 + elems(a) / 48), (int32_t[]){1 - ka, kb, 0});
    return 0;
}

static struct ten mk2(const char *a0, int64_t d0, const char *a1, int64_t d1)
{
    struct ten t;
    memset(&t, 0, sizeof t);
    t.n = 2;
    snprintf(t.ax[0], sizeof t.ax[0], "%s", a0);
    snprintf(t.ax[1], sizeof t.ax[1], "%s", a1);
    t.dim[0] = d0;
    t.dim[1] = d1;
    return t;
}

int lsp_gen_transformer(const struct lsp_gen_opts *o, struct lsp_problem *p,
                        struct ls_error *err)
{
    struct gm g = {.p = p, .left = o->ops, .err = err};
    ls_rng_seed(&g.rng, o->seed);
    static const int64_t seqs[] = {128, 256, 512, 1024, 2048};
    static const int64_t hids[] = {256, 512, 768, 1024, 2048, 4096};
    int64_t S = seqs[ls_rng_below(&g.rng, 5)], H = hids[ls_rng_below(&g.rng, 6)];
    int64_t F = 4 * H, D = H;
    struct ten x = mk2("seq", S, "hid", H);
    if (source(&g, &x, "input") < 0)
        return g.rc;
    while (g.left > 0 && !g.rc) {
        struct ten ln1, wq, wk, wv, q, k, v, s, pr, a, wo, at, x2, ln2, w1, h, ge, w2, f, x3;
        wq = mk2("hid", H, "dq", D);
        wk = mk2("hid", H, "dk", D);
        wv = mk2("hid", H, "dv", D);
        wo = mk2("dv", D, "hid", H);
        w1 = mk2("hid", H, "ffn", F);
        w2 = mk2("ffn", F, "hid", H);
        if (eltwise(&g, "layernorm", 1, &x, &ln1, 1) || source(&g, &wq, "weight") ||
            matmul(&g, &ln1, 1, &wq, 0, &q) || source(&g, &wk, "weight") ||
            matmul(&g, &ln1, 1, &wk, 0, &k) || source(&g, &wv, "weight") ||
            matmul(&g, &ln1, 1, &wv, 0, &v) || matmul(&g, &q, 1, &k, 1, &s) ||
            eltwise(&g, "softmax", 1, &s, &pr, 1) || matmul(&g, &pr, 1, &v, 0, &a) ||
            source(&g, &wo, "weight") || matmul(&g, &a, 1, &wo, 0, &at))
            break;
        struct ten pair[2] = {x, at};
        if (eltwise(&g, "add", 2, pair, &x2, -1) || eltwise(&g, "layernorm", 1, &x2, &ln2, 1) ||
            source(&g, &w1, "weight") || matmul(&g, &ln2, 1, &w1, 0, &h) ||
            eltwise(&g, "gelu", 1, &h, &ge, -1) || source(&g, &w2, "weight") ||
            matmul(&g, &ge, 1, &w2, 0, &f))
            break;
        struct ten pair2[2] = {x2, f};
        if (eltwise(&g, "add", 2, pair2, &x3, -1))
            break;
        x = x3;
    }
    return g.rc;
}

/* conv: contraction over channels (axis 0 of the activation, axis 0 of the weight
 * [cin, cout]); output [cout, h, w] with any axis on partitions at growing cost, or the
 * input read spatial-on-partitions (im2col through the vector engine). */
static int conv(struct gm *g, const struct ten *x, int64_t cout, int stride, struct ten *y)
{
    struct ten w;
    memset(&w, 0, sizeof w);
    w.n = 2;
    snprintf(w.ax[0], 16, "cin");
    snprintf(w.ax[1], 16, "cout");
    w.dim[0] = x->dim[0];
    w.dim[1] = cout;
    if (source(g, &w, "weight"))
        return -1;
    *y = *x;
    y->dim[0] = cout;
    y->dim[1] = x->dim[1] / stride > 1 ? x->dim[1] / stride : 1;
    y->dim[2] = x->dim[2] / stride > 1 ? x->dim[2] / stride : 1;
    if (new_tensor(g, y))
        return -1;
    int32_t op = new_op(g, "conv", 2, (int32_t[]){x->id, w.id}, y->id);
    if (op < 0)
        return -1;
    int64_t f = elems(y) / 128 * x->dim[0] * 9 / (128 * 4) + 64;
    /* the output's partition axis sets PE column utilisation */
    for (int l = 0; l < 3; l++) {
        int64_t d = y->dim[l] < 128 ? y->dim[l] : 128;
        cfg(g, op, noise(g, f * 128 / d + (l ? f / 8 : 0)), (int32_t[]){0, l == 2, l});
    }
    cfg(g, op, noise(g, 2 * f + elems(x) / 32), (int32_t[]){1, 0, 0});
    return 0;
}

int lsp_gen_cnn(const struct lsp_gen_opts *o, struct lsp_problem *p, struct ls_error *err)
{
    struct gm g = {.p = p, .left = o->ops, .err = err};
    ls_rng_seed(&g.rng, o->seed);
    static const int64_t sizes[] = {56, 112, 224};
    int64_t hw = sizes[ls_rng_below(&g.rng, 3)];
    struct ten x;
    memset(&x, 0, sizeof x);
    x.n = 3;
    snprintf(x.ax[0], 16, "c");
    snprintf(x.ax[1], 16, "h");
    snprintf(x.ax[2], 16, "w");
    x.dim[0] = 3;
    x.dim[1] = x.dim[2] = hw;
    if (source(&g, &x, "input") < 0)
        return g.rc;
    struct ten y;
    if (conv(&g, &x, 64, 2, &y))
        return g.rc;
    x = y;
    int64_t ch = 64;
    int block = 0;
    while (g.left > 0 && !g.rc) {
        int down = block > 0 && block % 3 == 0 && x.dim[1] > 7;
        struct ten c1, b1, r1, c2, b2, sum, out, skip = x;
        if (down) {
            if (eltwise(&g, "maxpool", 1, &x, &skip, -1))
                break;
            skip.dim[1] = skip.dim[1] / 2 > 1 ? skip.dim[1] / 2 : 1;
            skip.dim[2] = skip.dim[2] / 2 > 1 ? skip.dim[2] / 2 : 1;
            ch *= 2;
            if (conv(&g, &skip, ch, 1, &c1))
                break;
            struct ten proj;
            if (conv(&g, &skip, ch, 1, &proj))
                break;
            skip = proj;
        } else if (conv(&g, &x, ch, 1, &c1)) {
            break;
        }
        if (eltwise(&g, "batchnorm", 1, &c1, &b1, 1) || eltwise(&g, "relu", 1, &b1, &r1, -1) ||
            conv(&g, &r1, ch, 1, &c2) || eltwise(&g, "batchnorm", 1, &c2, &b2, 1))
            break;
        struct ten pair[2] = {skip, b2};
        if (eltwise(&g, "add", 2, pair, &sum, -1) || eltwise(&g, "relu", 1, &sum, &out, -1))
            break;
        x = out;
        block++;
    }
    return g.rc;
}
