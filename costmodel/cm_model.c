/* costmodel/model: memoized C_op / C_tr (the pricing sink sums the prices of exactly the
 * instructions codegen emits), configuration enumeration, compilation. The .lsp problem is
 * built by costmodel/instance. */
#include <stdlib.h>
#include <string.h>

#include "codegen/attn.h"
#include "codegen/epi.h"
#include "codegen/memplan.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "solver/solver.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/invariant.h"
#include "util/vec.h"

/* One memoized price; its key is keys[off .. off + len), h its hash. */
struct slot {
    uint64_t h;
    size_t off, len;
    int64_t cost;
    int rc, method;
};

struct cm_model {
    const struct graph *g;
    struct sim_target t;
    struct cm_table tb;
    struct cg_options o;
    struct cg_memplan plan;         /* o.plan points here (unless o.no_residency) */
    int plan_level;                 /* 0: the default plan, 1: capped (give_steps_room) */
    LS_VEC(struct slot) memo;
    struct ls_hmap map;             /* key -> memo index */
    LS_VEC(unsigned char) keys;
    LS_VEC(unsigned char) key;      /* scratch */
    int limit;                      /* sticky: a cg_options bound was crossed while pricing */
};

/* A model without a plan yet. */
static struct cm_model *model_alloc(const struct graph *g, const struct sim_target *t,
                                    const struct cm_table *tb, const struct cg_options *o)
{
    struct cm_model *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->g = g;
    m->t = *t;
    m->tb = *tb;
    if (o)
        m->o = *o;
    m->o.plan = NULL;
    return m;
}

/* The objective of greedy's solution of c's problem (no pins). */
static int greedy_cost(struct cm_model *c, int64_t *cost)
{
    struct ls_error err = {0};
    struct cm_instance *in = NULL;
    int rc = cm_instance_create(c, NULL, &in, &err);
    if (rc)
        return rc;
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    struct lsp_result r;
    rc = lsp_solve("greedy", in->p, &so, &r, &err);
    if (!rc)
        *cost = r.sol.cost;
    lsp_result_free(&r);
    cm_instance_free(in);
    return rc;
}

/* --memplan partial: of the candidate plans (codegen/memplan.h), the one whose problem
 * greedy solves cheapest under the target's datasheet table, so still a function of the
 * graph and the target (fewest spilled bytes, the default's measure, is not fastest:
 * docs/costmodel.md "Partial keeps"). Into m->plan; the default's choice when no
 * candidate could be priced. */
static int pick_plan(struct cm_model *m)
{
    struct cm_table ds;
    cm_table_default(&m->t, &ds);
    int64_t best = INT64_MAX;
    for (int k = 0; k < cg_memplan_nplans(&m->o); k++) {
        struct cm_model *c = model_alloc(m->g, &m->t, &ds, &m->o);
        if (!c || cg_memplan_build_plan(m->g, &m->t, &c->o, k, &c->plan, NULL)) {
            cm_model_free(c);
            return -1;
        }
        c->o.plan = &c->plan;
        int64_t cost;
        int rc = greedy_cost(c, &cost);
        if (rc == LS_ERR_NOMEM) { /* not a candidate that cannot be priced */
            cm_model_free(c);
            return -1;
        }
        if (rc == 0 && cost < best) {
            best = cost;
            cg_memplan_free(&m->plan);
            m->plan = c->plan;
            memset(&c->plan, 0, sizeof c->plan);
        }
        cm_model_free(c);
    }
    return best < INT64_MAX ? 0 : cg_memplan_build(m->g, &m->t, &m->o, &m->plan, NULL);
}

struct cm_model *cm_model_new(const struct graph *g, const struct sim_target *t,
                              const struct cm_table *tb, const struct cg_options *o)
{
    struct cm_model *m = model_alloc(g, t, tb, o);
    if (!m)
        return NULL;
    if (!m->o.no_residency) {
        int rc = m->o.memplan == CG_MEMPLAN_PARTIAL ? pick_plan(m)
                                                    : cg_memplan_build(g, &m->t, &m->o, &m->plan, NULL);
        if (rc) {
            cm_model_free(m);
            return NULL;
        }
        m->o.plan = &m->plan;
    }
    return m;
}

const struct cg_options *cm_model_options(const struct cm_model *m)
{
    return &m->o;
}

void cm_model_set_deadline(struct cm_model *m, struct ls_deadline dl)
{
    m->o.deadline = dl;
}

const struct graph *cm_model_graph(const struct cm_model *m)
{
    return m->g;
}

void cm_model_free(struct cm_model *m)
{
    if (!m)
        return;
    cg_memplan_free(&m->plan);
    LS_VEC_FREE(&m->memo);
    ls_hmap_free(&m->map);
    LS_VEC_FREE(&m->keys);
    LS_VEC_FREE(&m->key);
    free(m);
}

static int kput(struct cm_model *m, const void *p, size_t n)
{
    if (LS_VEC_RESERVE(&m->key, m->key.len + n))
        return -1;
    memcpy(m->key.data + m->key.len, p, n);
    m->key.len += n;
    return 0;
}

static void kshape(struct cm_model *m, int32_t t)
{
    const struct graph_tensor *x = graph_tensor(m->g, t);
    int32_t r = x->shape.rank, dt = x->dtype;
    int8_t where = (int8_t)(cg_memplan_resident(m->o.plan, t) * 2 + cg_layout_free(m->g, t));
    uint8_t in_sbuf = (uint8_t)cg_memplan_sbuf_mask(m->o.plan, m->g, t);
    /* a reshape's output in its input's bytes: the reshape copies nothing */
    uint8_t aliased = (uint8_t)(in_sbuf && m->o.plan->res[t].aliased);
    kput(m, &where, sizeof where);
    kput(m, &in_sbuf, sizeof in_sbuf);
    kput(m, &aliased, sizeof aliased);
    kput(m, &r, sizeof r);
    kput(m, &dt, sizeof dt);
    for (int i = 0; i < r; i++)
        kput(m, &x->shape.dims[i].size, sizeof(int64_t));
}

static int key_eq(const void *ctx, int32_t id, const void *key)
{
    const struct cm_model *m = ctx;
    const struct slot *s = &m->memo.data[id];
    /* key: the hash of m->key, compared first as the entries keep theirs */
    return s->h == *(const uint64_t *)key && s->len == m->key.len && memcmp(m->keys.data + s->off, m->key.data, s->len) == 0;
}

static uint64_t key_hash(const void *ctx, int32_t id)
{
    return ((const struct cm_model *)ctx)->memo.data[id].h;
}

static const struct ls_hmap_fns key_fns = {key_hash, key_eq};

/* The memo entry of m->key, added (zeroed) when new; NULL when out of memory. */
static struct slot *lookup(struct cm_model *m, int *found)
{
    uint64_t h = ls_fnv1a64(m->key.data, m->key.len);
    /* room first: once the map holds a new id, its entry and key bytes must exist */
    if (m->memo.len >= INT32_MAX || LS_VEC_RESERVE(&m->memo, m->memo.len + 1) ||
        LS_VEC_RESERVE(&m->keys, m->keys.len + m->key.len))
        return NULL;
    int32_t next = (int32_t)m->memo.len;
    int32_t id = ls_hmap_put(&m->map, h, &key_fns, m, &h);
    if (id < 0)
        return NULL;
    *found = id != next;
    if (*found)
        return &m->memo.data[id];
    struct slot *s = &m->memo.data[m->memo.len++];
    memset(s, 0, sizeof *s);
    s->h = h;
    s->off = m->keys.len;
    s->len = m->key.len;
    (void)LS_VEC_APPEND(&m->keys, m->key.data, m->key.len);   /* reserved: cannot fail */
    return s;
}

struct psink {
    const struct cm_model *m;
    struct cm_agg agg;
    int64_t count;
    struct cm_pricer pr; /* set by psink_init */
    struct cm_dep_track dep; /* one sink prices one group: as cm_program_dep_flags */
    struct cm_reload_track rl; /* and as cm_program_reload_flags */
    int64_t bound; /* stop once the group costs at least this (-1: never) */
    int cut;       /* stopped at the bound: the lowering costs at least bound */
};

/* The group's floor is checked every this many instructions: it is a loop over the
 * engines, and a late stop costs nothing but time. */
#define PSINK_BOUND_EVERY 64

static int64_t p_emit(void *ctx, const struct sim_instr *in, const int64_t *deps, size_t nd,
                      struct ls_error *err)
{
    struct psink *p = ctx;
    int dep = cm_dep_track_add(&p->dep, in->engine, p->count, deps, nd) ? CM_PRICE_DEP : 0;
    int rl = cm_reload_track_add(&p->rl, &p->m->tb, &p->m->t, 0, in);
    if (rl < 0) {
        ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        return -1;
    }
    int64_t price = cm_pricer_price_dep(&p->pr, in, dep | rl);
    cm_agg_add_instr(&p->agg, in, price);
    if (price < 0) /* the floor holds for prices >= 0 only */
        p->bound = -1;
    if (p->bound >= 0 && p->count % PSINK_BOUND_EVERY == 0 &&
        cm_agg_floor(&p->m->tb, &p->m->t, &p->agg) >= p->bound) {
        p->cut = 1; /* the lowering stops here: its error is not reported */
        ls_error_msg(err, LS_ERR_LIMIT, "priced past the cheaper method");
        return -1;
    }
    return p->count++;
}

/* HBM space of its own per (tensor, layout), as a program has, so that the same bytes
 * have the same address within a group (cm_reload_track_add); prices do not read it. */
static uint64_t p_hbm_addr(void *ctx, int32_t t, int pax)
{
    (void)ctx;
    return ((uint64_t)(uint32_t)t + 1) << 40 | (uint64_t)(pax & 31) << 35;
}

static void psink_init(struct cg_sink *s, struct psink *p, const struct cm_model *m)
{
    memset(s, 0, sizeof *s);
    p->bound = -1;
    cm_pricer_init(&p->pr, &m->tb, &m->t);
    cm_dep_track_init(&p->dep);
    cm_reload_track_init(&p->rl);
    s->ctx = p;
    s->emit = p_emit;
    s->hbm_addr = p_hbm_addr;
    s->op_tag = s->conv_tag = -1;
    cg_sink_region(s, &m->t, &m->o, 0);
}

/* A cg_options bound was crossed while pricing: remembered, so that no caller takes the
 * failure for an infeasible configuration; the message says where. */
static int crossed(struct cm_model *m, int code, struct ls_error *err, const char *what,
                   const char *name)
{
    m->limit = code;
    if (!err)
        return code;
    char msg[sizeof err->msg];
    snprintf(msg, sizeof msg, "%s", err->msg);
    return ls_error_msg(err, code, "pricing: %s '%s': %s", what, name, msg);
}

/* The price of converting t by method meth into *cost; a method that reaches `bound` (a
 * cheaper method's price; -1: none) is not lowered further and costs INT64_MAX: the
 * choice among methods is the same, and a method that needs tens of millions of
 * instructions no longer makes every conversion of its tensor wait for them. */
static int conv_method_cost(struct cm_model *m, int32_t t, int from, int to,
                            enum cg_conv_method meth, int64_t bound, int64_t *cost,
                            struct ls_error *err)
{
    struct psink p = {.m = m};
    struct cg_sink s;
    psink_init(&s, &p, m);
    p.bound = bound;
    p.agg.conversion = 1;
    int rc = cg_lower_conversion(m->g, &m->t, &m->o, t, from, to, meth, &s, err);
    cm_reload_track_free(&p.rl);
    if (p.cut) {
        *cost = INT64_MAX;
        ls_error_clear(err);
        return 0;
    }
    *cost = cm_agg_total(&m->tb, &m->t, &p.agg);
    if (rc && s.limit)
        rc = crossed(m, s.limit, err, "converting tensor", graph_tensor(m->g, t)->name);
    return rc;
}

int cm_conv_cost(struct cm_model *m, int32_t t, int from, int to, int64_t *cost,
                 enum cg_conv_method *method, struct ls_error *err)
{
    *cost = 0;
    if (method)
        *method = CG_CONV_DMA_STRIDED;
    if (from == to || cg_layout_free(m->g, t))
        return 0;
    m->key.len = 0;
    kput(m, "tr", 2);
    kshape(m, t);
    int32_t ft[2] = {from, to};
    kput(m, ft, sizeof ft);
    int found;
    struct slot *s = lookup(m, &found);
    if (!s)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!found) {
        int64_t best = -1;
        int bm = -1, lrc = LS_ERR_INPUT;
        for (int k = 0; k < CG_CONV_COUNT; k++) {
            if (!cg_conv_possible(m->g, &m->t, &m->o, t, from, to, (enum cg_conv_method)k))
                continue;
            int64_t c;
            struct ls_error e2 = {0};
            int rc = conv_method_cost(m, t, from, to, (enum cg_conv_method)k, best, &c, &e2);
            if (rc && (m->limit || rc == LS_ERR_NOMEM)) { /* not an infeasible method */
                s->rc = rc;
                if (err)
                    *err = e2;
                return rc;
            }
            if (rc) {
                lrc = rc;
                if (err)
                    *err = e2;
                continue;
            }
            if (best < 0 || c < best) {
                best = c;
                bm = k;
            }
        }
        /* re-find the slot: the table may have grown (it does not: lookup inserted it) */
        s->rc = bm < 0 ? lrc : 0;
        s->cost = best < 0 ? 0 : best;
        s->method = bm;
    }
    if (s->rc)
        return s->rc;
    *cost = s->cost;
    if (method)
        *method = (enum cg_conv_method)s->method;
    return 0;
}

/* A fused attention op's part depends on where the whole group's Q, K, V and ctx live
 * (its buffers and tile order do, codegen/attn.c), not only its own operands. */
static void key_attn(struct cm_model *m, int32_t op)
{
    struct cg_attn a;
    if (cg_attn_find(m->g, &m->t, op, &a) < 0)
        return;
    const struct graph_op *s = graph_op(m->g, a.op[0]), *c = graph_op(m->g, a.op[2]);
    kshape(m, s->inputs[0]);
    kshape(m, s->inputs[1]);
    kshape(m, c->inputs[1]);
    kshape(m, c->output);
}

int cm_op_cost(struct cm_model *m, int32_t op, const int8_t *pax, int64_t *cost,
               struct ls_error *err)
{
    const struct graph_op *x = graph_op(m->g, op);
    *cost = 0;
    if (x->kind == GRAPH_OP_RETURN)
        return 0;
    if (x->kind == GRAPH_OP_SOURCE) {
        struct cg_layouts l;
        cg_tensor_layouts(m->g, x->output, &l);
        return cm_conv_cost(m, x->output, l.pax[0], pax[0], cost, NULL, err);
    }
    m->key.len = 0;
    int32_t k = x->kind;
    kput(m, "op", 2);
    kput(m, &k, sizeof k);
    kput(m, &x->attrs, sizeof x->attrs);
    for (int i = 0; i < x->ninputs; i++)
        kshape(m, x->inputs[i]);
    kshape(m, x->output);
    kput(m, pax, (size_t)x->ninputs + 1);
    struct cg_epi ep;   /* an epilogue chain's last op prices the whole chain */
    int32_t erole = cg_epi_find(m->g, op, &ep);
    kput(m, &erole, sizeof erole);
    if (erole >= 0 && erole == ep.n - 1) {
        kshape(m, ep.x);
        kshape(m, ep.w);
        if (ep.bias >= 0)
            kshape(m, ep.bias);
        kput(m, &graph_op(m->g, ep.op[0])->attrs, sizeof(struct graph_attrs));
        kshape(m, graph_op(m->g, ep.op[0])->output);
    }
    key_attn(m, op);
    int found;
    struct slot *s = lookup(m, &found);
    if (!s)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!found) {
        struct psink p = {.m = m};
        struct cg_sink sk;
        psink_init(&sk, &p, m);
        struct ls_error e2 = {0};
        s->rc = cg_lower_op(m->g, &m->t, &m->o, op, pax, &sk, &e2);
        cm_reload_track_free(&p.rl);
        s->cost = cm_agg_total(&m->tb, &m->t, &p.agg);
        if (s->rc && sk.limit)
            s->rc = crossed(m, sk.limit, &e2, "op", x->name);
        if (s->rc && err)
            *err = e2;
    }
    if (s->rc) {
        if (err && !err->code)
            ls_error_msg(err, s->rc, "op %s: configuration not feasible", x->name);
        return s->rc;
    }
    *cost = s->cost;
    return 0;
}

static int enumerate(struct cm_model *m, const int *pins, struct cm_cfgs *out, int *starved,
                     struct ls_error *err)
{
    int32_t n = graph_nops(m->g);
    out->nops = n;
    out->op = calloc((size_t)n + 1, sizeof *out->op);
    out->cost = calloc((size_t)n + 1, sizeof *out->cost);
    if (!out->op || !out->cost)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t op = 0; op < n; op++) {
        struct cg_cfgs all;
        int rc = cg_op_cfgs(m->g, &m->t, op, pins ? pins[op] : -2, &all, err);
        if (rc)
            return rc;
        struct cg_cfgs *c = &out->op[op];
        c->nslots = all.nslots;
        c->ncfg = 0;
        c->pax = malloc((size_t)(all.ncfg * (all.nslots ? all.nslots : 1)) + 1);
        out->cost[op] = malloc(sizeof(int64_t) * (size_t)(all.ncfg + 1));
        if (!c->pax || !out->cost[op]) {
            cg_cfgs_free(&all);
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        }
        struct ls_error first = {0};
        for (int i = 0; i < all.ncfg; i++) {
            const int8_t *p = all.pax + (size_t)i * all.nslots;
            int64_t cost;
            struct ls_error e2 = {0};
            rc = cm_op_cost(m, op, p, &cost, &e2);
            if (rc == LS_ERR_INPUT && !m->limit) { /* an infeasible configuration */
                if (!first.code)
                    first = e2;
                continue;
            }
            if (rc) {
                cg_cfgs_free(&all);
                if (err)
                    *err = e2;
                return rc;
            }
            memcpy(c->pax + (size_t)c->ncfg * c->nslots, p, (size_t)c->nslots);
            out->cost[op][c->ncfg++] = cost;
        }
        cg_cfgs_free(&all);
        if (c->ncfg == 0) {
            *starved = 1;
            if (err)
                *err = first;
            return first.code ? first.code : LS_ERR_INPUT;
        }
    }
    return 0;
}

/* Forget every memoized price (they depend on the SBUF split). */
static void forget(struct cm_model *m)
{
    m->memo.len = 0;
    m->keys.len = 0;
    ls_hmap_free(&m->map);
    memset(&m->map, 0, sizeof m->map);
}

/* Give the steps more SBUF: without the constant ring, then with the resident region
 * capped at a quarter of the usable bytes, then without residency. 1 when a level was
 * left to take. */
static int give_steps_room(struct cm_model *m)
{
    if (!m->o.plan)
        return 0;
    if (!m->plan.no_ring) {
        m->plan.no_ring = 1;
        return 1;
    }
    uint64_t quarter = m->t.sbuf_usable_bytes / 4;
    cg_memplan_free(&m->plan);
    if (m->plan_level == 0 &&
        cg_memplan_build_capped(m->g, &m->t, &m->o, quarter, &m->plan, NULL) == 0) {
        m->plan.no_ring = 1;
        m->plan_level = 1;
        return 1;
    }
    m->o.plan = NULL;
    return 1;
}

/* When some op has no feasible configuration in the room its step gets, the model gives
 * the steps more room (give_steps_room) and enumerates again: a decision per model,
 * independent of the layouts. */
int cm_enumerate(struct cm_model *m, const int *pins, struct cm_cfgs *out, struct ls_error *err)
{
    int starved = 0;
    int rc = enumerate(m, pins, out, &starved, err);
    while (rc && starved && give_steps_room(m)) {
        cm_cfgs_free(out);
        forget(m);
        starved = 0;
        if (err)
            memset(err, 0, sizeof *err);
        rc = enumerate(m, pins, out, &starved, err);
    }
    return rc;
}

void cm_cfgs_free(struct cm_cfgs *c)
{
    if (c->op)
        for (int32_t i = 0; i < c->nops; i++)
            cg_cfgs_free(&c->op[i]);
    if (c->cost)
        for (int32_t i = 0; i < c->nops; i++)
            free(c->cost[i]);
    free(c->op);
    free(c->cost);
    c->op = NULL;
    c->cost = NULL;
}

static enum cg_conv_method choose(void *ctx, int32_t t, int from, int to)
{
    enum cg_conv_method m = CG_CONV_DMA_STRIDED;
    int64_t c;
    cm_conv_cost(ctx, t, from, to, &c, &m, NULL);
    return m;
}

int cm_compile(struct cm_model *m, const struct cm_cfgs *cf, const int32_t *cfg,
               struct sim_program **out, struct cg_compile_stats *st, struct ls_error *err)
{
    int32_t n = graph_nops(m->g);
    if (NEVER(cf->nops != n)) /* the configurations were enumerated for this model */
        return LS_INTERNAL(err, "cm_compile: configurations of another model");
    const int8_t **pax = malloc(sizeof *pax * (size_t)(n + 1));
    int rc = pax ? 0 : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < n && !rc; i++) {
        int c = cfg ? cfg[i] : 0;
        if (c < 0 || c >= cf->op[i].ncfg)
            rc = ls_error_msg(err, LS_ERR_INPUT, "op %s: configuration %d out of range",
                              graph_op(m->g, i)->name, c);
        else
            pax[i] = cf->op[i].pax + (size_t)c * cf->op[i].nslots;
    }
    if (rc) {
        free(pax);
        sim_program_free(*out);
        *out = NULL;
        return rc;
    }
    rc = cg_compile_reuse(m->g, &m->t, &m->o, pax, choose, m, out, st, err);
    free(pax);
    return rc;
}
