/* graph/zoo: the shared building blocks (attention, FFN, MoE, norms, layers, conv-bn-relu).
 * Op patterns are described in docs/zoo.md. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "graph/zoo/zb.h"

void zb_init(struct zb *z, struct graph *g, enum ls_dtype dt, int64_t batch)
{
    memset(z, 0, sizeof *z);
    z->g = g;
    z->dt = dt;
    z->batch = batch;
}

static void append(char *buf, size_t cap, const char *s)
{
    size_t n = strlen(buf);
    snprintf(buf + n, cap - n, "%s.", s);
}

void zb_push(struct zb *z, const char *name, int is_layer)
{
    if (z->depth >= ZB_DEPTH) {
        graph_fail(z->g, LS_ERR_INTERNAL, "zoo: scopes nested too deeply at '%s'", name);
        return;
    }
    z->plen[z->depth] = strlen(z->path);
    z->wlen[z->depth] = strlen(z->wpath);
    z->depth++;
    append(z->path, sizeof z->path, name);
    if (!(is_layer && z->share))
        append(z->wpath, sizeof z->wpath, name);
    graph_set_prefix(z->g, z->path);
}

void zb_pushf(struct zb *z, int is_layer, const char *fmt, ...)
{
    char buf[96];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    zb_push(z, buf, is_layer);
}

void zb_pop(struct zb *z)
{
    if (z->depth <= 0)
        return;
    z->depth--;
    z->path[z->plen[z->depth]] = 0;
    z->wpath[z->wlen[z->depth]] = 0;
    graph_set_prefix(z->g, z->path);
}

int64_t zb_dim(struct zb *z, int32_t t, int axis)
{
    const struct graph_tensor *x = t >= 0 ? graph_tensor(z->g, t) : NULL;
    if (!x)
        return 1;
    if (axis < 0)
        axis += x->shape.rank;
    if (axis < 0 || axis >= x->shape.rank)
        return 1;
    return x->shape.dims[axis].size;
}

int32_t zb_input(struct zb *z, const char *name, enum ls_dtype dt, int rank,
                 const int64_t *sizes, const char *roles)
{
    if (graph_error(z->g))
        return -1;
    int32_t t = graph_find_tensor(z->g, name);
    if (t >= 0)
        return t;
    graph_set_prefix(z->g, NULL);
    t = graph_input(z->g, name, dt, rank, sizes, roles);
    graph_set_prefix(z->g, z->path);
    return t;
}

int32_t zb_weight(struct zb *z, const char *name, int rank, const int64_t *sizes,
                  const char *roles)
{
    if (graph_error(z->g))
        return -1;
    char full[512];
    snprintf(full, sizeof full, "%s%s", z->wpath, name);
    int32_t t = z->share ? graph_find_tensor(z->g, full) : -1;
    if (t >= 0)
        return t;
    graph_set_prefix(z->g, NULL);
    t = graph_weight(z->g, full, z->dt, rank, sizes, roles);
    graph_set_prefix(z->g, z->path);
    return t;
}

static const char *sub_name(char *buf, size_t n, const char *name, const char *suffix)
{
    snprintf(buf, n, "%s.%s", name, suffix);
    return buf;
}

int32_t zb_linear(struct zb *z, const char *name, int32_t x, int64_t out, int bias)
{
    char b1[160], b2[160];
    int64_t in = zb_dim(z, x, -1);
    int32_t w = zb_weight(z, sub_name(b1, sizeof b1, name, "w"), GRAPH_DIMS(in, out), NULL);
    if (!bias)
        return graph_matmul(z->g, name, x, w);
    int32_t y = graph_matmul(z->g, sub_name(b2, sizeof b2, name, "mm"), x, w);
    int32_t b = zb_weight(z, sub_name(b1, sizeof b1, name, "b"), GRAPH_DIMS(out), NULL);
    return graph_binary(z->g, name, GRAPH_OP_ADD, y, b);
}

int32_t zb_norm(struct zb *z, const char *name, int32_t x, enum zoo_norm kind)
{
    char b1[160];
    int64_t h = zb_dim(z, x, -1);
    if (kind == ZOO_LAYERNORM_PLAIN)
        return graph_layernorm(z->g, name, x, -1, -1, -1);
    int32_t gm = zb_weight(z, sub_name(b1, sizeof b1, name, "g"), GRAPH_DIMS(h), NULL);
    if (kind == ZOO_RMSNORM)
        return graph_rmsnorm(z->g, name, x, gm, -1);
    int32_t bt = zb_weight(z, sub_name(b1, sizeof b1, name, "b"), GRAPH_DIMS(h), NULL);
    return graph_layernorm(z->g, name, x, gm, bt, -1);
}

int32_t zb_act(struct zb *z, const char *name, int32_t x, enum zoo_act act)
{
    enum graph_op_kind k = act == ZOO_RELU ? GRAPH_OP_RELU
                           : act == ZOO_SILU ? GRAPH_OP_SILU : GRAPH_OP_GELU;
    return graph_unary(z->g, name, k, x);
}

int32_t zb_add(struct zb *z, const char *name, int32_t a, int32_t b)
{
    return graph_binary(z->g, name, GRAPH_OP_ADD, a, b);
}

int32_t zb_mul(struct zb *z, const char *name, int32_t a, int32_t b)
{
    return graph_binary(z->g, name, GRAPH_OP_MUL, a, b);
}

int32_t zb_reshape(struct zb *z, const char *name, int32_t x, int rank, const int64_t *sizes)
{
    return graph_reshape(z->g, name, x, rank, sizes, NULL);
}

int32_t zb_transpose(struct zb *z, const char *name, int32_t x, int rank, const int *perm)
{
    (void)rank;
    return graph_transpose(z->g, name, x, perm);
}

int32_t zb_embed(struct zb *z, const char *name, int32_t ids, int64_t vocab, int64_t width,
                 int32_t *table)
{
    char b1[160];
    int32_t t = zb_weight(z, sub_name(b1, sizeof b1, name, "table"), GRAPH_DIMS(vocab, width),
                          "vocab,hidden");
    if (table)
        *table = t;
    return graph_gather(z->g, name, t, ids, 0);
}

int32_t zb_tied_head(struct zb *z, const char *name, int32_t x, int32_t table)
{
    return graph_matmul_axes(z->g, name, x, table, 2, 1);
}

int32_t zb_conv(struct zb *z, const char *name, int32_t x, int64_t cout, int64_t kh,
                int64_t kw, int64_t sh, int64_t sw, int64_t ph, int64_t pw, int bias)
{
    char b1[160], b2[160];
    int64_t cin = zb_dim(z, x, 1);
    int32_t w = zb_weight(z, sub_name(b1, sizeof b1, name, "w"), GRAPH_DIMS(cout, cin, kh, kw),
                          NULL);
    if (w < 0 || x < 0)
        return -1;
    struct graph_attrs at;
    int ranks[2] = {4, 4};
    graph_attrs_default(GRAPH_OP_CONV2D, ranks, 2, &at);
    at.stride[0] = sh;
    at.stride[1] = sw;
    at.pad[0] = ph;
    at.pad[1] = pw;
    int32_t in[2] = {x, w};
    int32_t y = graph_op_infer(z->g, bias ? sub_name(b2, sizeof b2, name, "conv") : name,
                               GRAPH_OP_CONV2D, in, 2, &at);
    if (!bias)
        return y;
    int32_t b = zb_weight(z, sub_name(b1, sizeof b1, name, "b"), GRAPH_DIMS(cout, 1, 1), NULL);
    return zb_add(z, name, y, b);
}

int32_t zb_conv_bn(struct zb *z, const char *name, int32_t x, int64_t cout, int64_t k,
                   int64_t stride, int64_t pad, int relu)
{
    char b1[160], b2[160];
    zb_push(z, name, 0);
    int32_t y = zb_conv(z, "conv", x, cout, k, k, stride, stride, pad, pad, 0);
    int32_t sc = zb_weight(z, sub_name(b1, sizeof b1, "bn", "scale"), GRAPH_DIMS(cout), NULL);
    int32_t sh = zb_weight(z, sub_name(b2, sizeof b2, "bn", "shift"), GRAPH_DIMS(cout), NULL);
    y = graph_batchnorm(z->g, "bn", y, sc, sh, 1);
    if (relu)
        y = graph_unary(z->g, "relu", GRAPH_OP_RELU, y);
    zb_pop(z);
    return y;
}

/* [B,S,n*hd] -> [B,S,n,hd] (-> per-head norm) -> [B,n,S,hd] */
static int32_t split_heads(struct zb *z, const char *name, int32_t x, int64_t n, int64_t hd,
                           int head_norm)
{
    char b1[160];
    int64_t b = zb_dim(z, x, 0), s = zb_dim(z, x, 1);
    int32_t y = graph_reshape(z->g, sub_name(b1, sizeof b1, name, "split"), x,
                              GRAPH_DIMS(b, s, n, hd), "batch,seq,heads,head_dim");
    if (head_norm)
        y = zb_norm(z, sub_name(b1, sizeof b1, name, "norm"), y, ZOO_RMSNORM);
    return graph_transpose(z->g, sub_name(b1, sizeof b1, name, "heads"), y,
                           (const int[]){0, 2, 1, 3});
}

/* Rotary embedding of x[B,n,S,hd]: x*cos + rotate_half(x)*sin, rotate_half as
 * concat(x[hd/2:], x[:hd/2]) with the sign folded into the sin table. */
static int32_t rope(struct zb *z, const char *name, int32_t x)
{
    char b1[160];
    int64_t s = zb_dim(z, x, 2), hd = zb_dim(z, x, 3);
    char cn[64], sn[64];
    snprintf(cn, sizeof cn, "rope.cos.%lld.%lld", (long long)s, (long long)hd);
    snprintf(sn, sizeof sn, "rope.sin.%lld.%lld", (long long)s, (long long)hd);
    int32_t cs = zb_input(z, cn, z->dt, GRAPH_DIMS(s, hd), "seq,head_dim");
    int32_t sg = zb_input(z, sn, z->dt, GRAPH_DIMS(s, hd), "seq,head_dim");
    int32_t lo = graph_slice(z->g, sub_name(b1, sizeof b1, name, "lo"), x, 3, 0, hd / 2, 1);
    int32_t hi = graph_slice(z->g, sub_name(b1, sizeof b1, name, "hi"), x, 3, hd / 2, hd, 1);
    int32_t rot = graph_concat(z->g, sub_name(b1, sizeof b1, name, "rot"), 2,
                               (const int32_t[]){hi, lo}, 3);
    int32_t a = zb_mul(z, sub_name(b1, sizeof b1, name, "cos"), x, cs);
    int32_t b = zb_mul(z, sub_name(b1, sizeof b1, name, "sin"), rot, sg);
    return zb_add(z, name, a, b);
}

/* GQA: [B,kv,S,hd] -> [B,kv*g,S,hd] by repeating each KV head g times (HF repeat_kv). */
static int32_t repeat_kv(struct zb *z, const char *name, int32_t x, int64_t g)
{
    char b1[160];
    int64_t b = zb_dim(z, x, 0), kv = zb_dim(z, x, 1), s = zb_dim(z, x, 2), hd = zb_dim(z, x, 3);
    int32_t xs[256];
    if (g < 1 || g > 256)
        return graph_fail(z->g, LS_ERR_INPUT, "zoo: %lld query heads per KV head (max 256)",
                          (long long)g);
    int32_t y = graph_reshape(z->g, sub_name(b1, sizeof b1, name, "group"), x,
                              GRAPH_DIMS(b, kv, 1, s, hd), NULL);
    for (int64_t i = 0; i < g; i++)
        xs[i] = y;
    y = graph_concat(z->g, sub_name(b1, sizeof b1, name, "repeat"), (int)g, xs, 2);
    return graph_reshape(z->g, sub_name(b1, sizeof b1, name, "expand"), y,
                         GRAPH_DIMS(b, kv * g, s, hd), "batch,heads,seq,head_dim");
}

/* A cached K or V of a decode step: graph input "<scope><name>" [B,kvh,len,hd]. */
static int32_t kv_cache(struct zb *z, const char *name, int64_t kvh, int64_t len, int64_t hd)
{
    char full[512];
    snprintf(full, sizeof full, "%s%s", z->path, name);
    int32_t t = zb_input(z, full, z->dt, GRAPH_DIMS(z->batch, kvh, len, hd),
                         "batch,heads,seq,head_dim");
    return t < 0 || graph_set_state(z->g, t) ? -1 : t;
}

/* Decode: the kv_len - 1 cached positions followed by the new token's k or v [B,kvh,1,hd]. */
static int32_t append_cache(struct zb *z, const char *name, int32_t x)
{
    char cn[160], an[160];
    snprintf(cn, sizeof cn, "%s_cache", name);
    snprintf(an, sizeof an, "%s.append", name);
    int32_t c = kv_cache(z, cn, zb_dim(z, x, 1), z->kv_len - 1, zb_dim(z, x, 3));
    return graph_concat(z->g, an, 2, (const int32_t[]){c, x}, 2);
}

/* q, k, v projections of x (k and v from mem), head-split, q/k-normed, rotated: q
 * [B,nh,Sq,hd], k and v [B,kvh,Sk,hd]. A cached memory (ZB_MEM_CACHED) projects q only. */
static void project_qkv(struct zb *z, int32_t x, int32_t mem, const struct zoo_stack *s,
                        int rotary, int32_t qkv_out[3])
{
    int self = mem == x, cached = mem == ZB_MEM_CACHED;
    int64_t nh = s->heads, kvh = s->kv_heads ? s->kv_heads : s->heads, hd = s->head_dim;
    int bias = s->bias || s->qkv_bias, hn = s->qk_norm == ZOO_QKNORM_HEAD;
    struct graph *g = z->g;
    int32_t q, k = -1, v = -1;
    if (s->fused_qkv && self) {
        int32_t qkv = zb_linear(z, "qkv", x, (nh + 2 * kvh) * hd, bias);
        q = graph_slice(g, "q", qkv, 2, 0, nh * hd, 1);
        k = graph_slice(g, "k", qkv, 2, nh * hd, (nh + kvh) * hd, 1);
        v = graph_slice(g, "v", qkv, 2, (nh + kvh) * hd, (nh + 2 * kvh) * hd, 1);
    } else {
        q = zb_linear(z, "q", x, nh * hd, bias);
        if (!cached) {
            k = zb_linear(z, "k", mem, kvh * hd, bias);
            v = zb_linear(z, "v", mem, kvh * hd, bias);
        }
    }
    if (s->qk_norm == ZOO_QKNORM_FULL) {
        q = zb_norm(z, "q_norm", q, ZOO_RMSNORM);
        if (!cached)
            k = zb_norm(z, "k_norm", k, ZOO_RMSNORM);
    }
    q = split_heads(z, "q", q, nh, hd, hn);
    if (cached) {   /* the memory's keys and values were projected once, at prefill */
        k = kv_cache(z, "k_cache", kvh, z->mem_len, hd);
        v = kv_cache(z, "v_cache", kvh, z->mem_len, hd);
    } else {
        k = split_heads(z, "k", k, kvh, hd, hn);
        v = split_heads(z, "v", v, kvh, hd, 0);
    }
    if (rotary && self) {
        q = rope(z, "q.rope", q);
        k = rope(z, "k.rope", k);
    }
    if (self && z->kv_len > 0) {
        k = append_cache(z, "k", k);
        v = append_cache(z, "v", v);
    }
    qkv_out[0] = q;
    qkv_out[1] = k;
    qkv_out[2] = v;
}

int32_t zb_attention(struct zb *z, const char *name, int32_t x, int32_t mem,
                     const struct zoo_stack *s, int64_t out, int rotary, int causal)
{
    int self = mem == x;
    int64_t b = zb_dim(z, x, 0), sq = zb_dim(z, x, 1);
    int64_t nh = s->heads, kvh = s->kv_heads ? s->kv_heads : s->heads, hd = s->head_dim;
    struct graph *g = z->g;
    int32_t qkv[3];
    zb_push(z, name, 0);
    project_qkv(z, x, mem, s, rotary, qkv);
    int32_t q = qkv[0], k = qkv[1], v = qkv[2];
    int64_t sk = zb_dim(z, k, 2);
    /* A one-query step (decode) folds each KV head's group of query heads into the rows
     * of one product with that head's K and V, as decode kernels do, instead of copying K
     * and V once per query head: the copies (HF repeat_kv) would be most of the step's
     * cache traffic. The prefill keeps the repeat (a fused attention group per head). */
    int fold = kvh < nh && sq == 1;
    if (fold)
        q = graph_reshape(g, "q.group", q, GRAPH_DIMS(b, kvh, nh / kvh, hd),
                          "batch,heads,,head_dim");
    else if (kvh < nh) {
        k = repeat_kv(z, "k", k, nh / kvh);
        v = repeat_kv(z, "v", v, nh / kvh);
    }
    /* scores [B,nh,Sq,Sk]; the 1/sqrt(hd) scale is folded into Wq (docs/zoo.md) */
    int32_t sc = graph_batch_matmul(g, "scores", q, k, 1);
    /* a decode step's one query is the last position: it sees the whole cache, no mask */
    if (causal && self && z->kv_len == 0) {
        char mn[64];
        snprintf(mn, sizeof mn, "causal_mask.%lld", (long long)sq);
        int32_t m = zb_input(z, mn, z->dt, GRAPH_DIMS(1, 1, sq, sk), ",,seq,seq");
        sc = zb_add(z, "masked", sc, m);
    }
    int32_t p = graph_softmax(g, "probs", sc, 3);
    int32_t c = graph_batch_matmul(g, "ctx", p, v, 0);
    if (fold)
        c = graph_reshape(g, "ctx.heads", c, GRAPH_DIMS(b, nh, 1, hd), "batch,heads,seq,head_dim");
    c = graph_transpose(g, "ctx.t", c, (const int[]){0, 2, 1, 3});
    c = graph_reshape(g, "ctx.merge", c, GRAPH_DIMS(b, sq, nh * hd), "batch,seq,");
    int32_t o = zb_linear(z, "o", c, out, s->bias);
    zb_pop(z);
    return o;
}

int32_t zb_ffn(struct zb *z, const char *name, int32_t x, int64_t ffn, enum zoo_act act,
               int gated, int bias)
{
    int64_t h = zb_dim(z, x, -1);
    int32_t y;
    zb_push(z, name, 0);
    if (gated) {
        int32_t a = zb_act(z, "act", zb_linear(z, "gate", x, ffn, bias), act);
        int32_t u = zb_linear(z, "up", x, ffn, bias);
        y = zb_linear(z, "down", zb_mul(z, "mul", a, u), h, bias);
    } else {
        int32_t a = zb_act(z, "act", zb_linear(z, "fc1", x, ffn, bias), act);
        y = zb_linear(z, "fc2", a, h, bias);
    }
    zb_pop(z);
    return y;
}

/* Router: probs = softmax(x Wr) over experts; top-k gates = relu(probs - thr) where thr
 * stands for the (k+1)-th largest score (drawn as reduce_max: the IR has no sort). Each
 * expert is an FFN branch over all tokens, scaled by its gate column, summed. */
int32_t zb_moe(struct zb *z, const char *name, int32_t x, const struct zoo_stack *s)
{
    struct graph *g = z->g;
    int64_t b = zb_dim(z, x, 0), sq = zb_dim(z, x, 1), h = zb_dim(z, x, 2), t = b * sq;
    zb_push(z, name, 0);
    int32_t xt = graph_reshape(g, "tokens", x, GRAPH_DIMS(t, h), "tokens,hidden");
    int32_t lg = zb_linear(z, "router", xt, s->experts, 0);
    int32_t pr = graph_softmax(g, "router.probs", lg, 1);
    int32_t th = graph_reduce(g, "router.topk_thr", GRAPH_OP_REDUCE_MAX, pr, GRAPH_AXES(1), 1);
    int32_t gt = graph_unary(g, "router.gates", GRAPH_OP_RELU,
                             graph_binary(g, "router.topk", GRAPH_OP_SUB, pr, th));
    int32_t acc = -1;
    for (int64_t e = 0; e < s->experts; e++) {
        char en[32];
        snprintf(en, sizeof en, "e%lld", (long long)e);
        zb_push(z, en, 0);
        int32_t ge = graph_slice(g, "route", gt, 1, e, e + 1, 1);
        zb_pop(z);
        int32_t y = zb_ffn(z, en, xt, s->expert_ffn, s->act, s->gated, s->bias);
        zb_push(z, en, 0);
        y = zb_mul(z, "weighted", y, ge);
        acc = acc < 0 ? y : zb_add(z, "sum", acc, y);
        zb_pop(z);
    }
    if (s->shared_ffn > 0) {
        int32_t y = zb_ffn(z, "shared", xt, s->shared_ffn, s->act, s->gated, s->bias);
        int32_t sg = graph_unary(g, "shared_gate", GRAPH_OP_SIGMOID,
                                 zb_linear(z, "shared_gate.proj", xt, 1, 0));
        acc = zb_add(z, "shared.sum", acc, zb_mul(z, "shared.weighted", y, sg));
    }
    int32_t y = graph_reshape(g, "out", acc, GRAPH_DIMS(b, sq, h), "batch,seq,hidden");
    zb_pop(z);
    return y;
}

enum { SUB_SELF, SUB_CROSS, SUB_FFN };

static int32_t sublayer(struct zb *z, const char *name, int kind, int32_t x, int32_t mem,
                        const struct zoo_stack *s, int rotary)
{
    char nn[64], pn[64], an[64];
    snprintf(nn, sizeof nn, "%s_norm", name);
    snprintf(pn, sizeof pn, "%s_post_norm", name);
    snprintf(an, sizeof an, "%s_add", name);
    int64_t h = zb_dim(z, x, -1);
    int32_t y = x;
    if (s->norm_pos == ZOO_PRE || s->norm_pos == ZOO_SANDWICH)
        y = zb_norm(z, nn, x, s->norm);
    if (kind == SUB_SELF)
        y = zb_attention(z, name, y, y, s, h, rotary, s->causal);
    else if (kind == SUB_CROSS)
        y = zb_attention(z, name, y, mem, s, h, 0, 0);
    else if (s->experts > 0)
        y = zb_moe(z, name, y, s);
    else
        y = zb_ffn(z, name, y, s->ffn, s->act, s->gated, s->bias);
    if (s->norm_pos == ZOO_SANDWICH)
        y = zb_norm(z, pn, y, s->norm);
    if (s->norm_pos == ZOO_REORDERED)
        y = zb_norm(z, nn, y, s->norm);
    y = zb_add(z, an, x, y);
    if (s->norm_pos == ZOO_POST)
        y = zb_norm(z, nn, y, s->norm);
    return y;
}

int32_t zb_layer(struct zb *z, int32_t x, int32_t mem, const struct zoo_stack *s, int rotary)
{
    x = sublayer(z, "self", SUB_SELF, x, -1, s, rotary);
    if (mem >= 0 || mem == ZB_MEM_CACHED)
        x = sublayer(z, "cross", SUB_CROSS, x, mem, s, 0);
    return sublayer(z, "ffn", SUB_FFN, x, -1, s, 0);
}

int32_t zb_stack(struct zb *z, const char *name, int32_t x, int32_t mem,
                 const struct zoo_stack *s, int rotary, int final_norm)
{
    int share = z->share;
    z->share = s->shared_weights;
    zb_push(z, name, 0);
    for (int64_t i = 0; i < s->layers; i++) {
        zb_pushf(z, 1, "l%lld", (long long)i);
        x = zb_layer(z, x, mem, s, rotary);
        zb_pop(z);
    }
    if (final_norm)
        x = zb_norm(z, "norm", x, s->norm);
    zb_pop(z);
    z->share = share;
    return x;
}
