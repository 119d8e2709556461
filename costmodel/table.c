/* costmodel/table: latency tables (JSON, schema "laysim-latency-table" version 1) and the
 * price of one instruction. */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "costmodel/costmodel.h"
#include "codegen/codegen.h"
#include "sim/sim.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/jsonpos.h"

static void put(struct cm_table *tb, int op, int dt, int mem, double a, double b, double c)
{
    if (tb->n >= (int)(sizeof tb->e / sizeof tb->e[0]))
        return;
    struct cm_entry *e = &tb->e[tb->n++];
    memset(e, 0, sizeof *e);
    e->opcode = op;
    e->dtype = dt;
    e->mem = mem;
    e->a = a;
    e->b = b;
    e->c = c;
}

static void put_dma(struct cm_table *tb, int op, int mem, double fixed, double dmin, double bw)
{
    put(tb, op, -1, mem, 0, 0, 0);
    struct cm_entry *e = &tb->e[tb->n - 1];
    e->fixed_ns = fixed;
    e->desc_min_ns = dmin;
    e->bytes_per_ns = bw;
}

void cm_table_default(const struct sim_target *t, struct cm_table *tb)
{
    memset(tb, 0, sizeof *tb);
    snprintf(tb->target, sizeof tb->target, "%s", t->name);
    snprintf(tb->aggregate, sizeof tb->aggregate, "pipe");
    tb->agg = CM_AGG_PIPE;
    tb->group_ns = 2.0 * t->dma_transfer_latency_ns;
    tb->exposed = 1;
    tb->exposed_share = CM_EXPOSED_SHARE_DEFAULT;
    double ii = t->vec_min_ii, f32 = t->pe_fp32_passes;
    /* PE (hw-facts: MM II = max(N, 64), x4 for fp32; LS up to 4x faster; transpose
     * max(P, min(64, F)) ~ max(64, F)) */
    put(tb, SIM_OP_LOAD_STATIONARY, -1, -1, 0, 0, 1.0 / (t->pe_ls_speedup ? t->pe_ls_speedup : 1));
    put(tb, SIM_OP_MATMUL, LS_DT_FP32, -1, 0, t->pe_mm_min_ii * f32, f32);
    put(tb, SIM_OP_MATMUL, -1, -1, 0, t->pe_mm_min_ii, 1);
    put(tb, SIM_OP_PE_TRANSPOSE, LS_DT_FP32, -1, 0, t->pe_mm_min_ii * f32, f32);
    put(tb, SIM_OP_PE_TRANSPOSE, -1, -1, 0, t->pe_mm_min_ii, 1);
    /* ACT / DVE / POOL: max(MIN_II, k N) */
    put(tb, SIM_OP_ACTIVATION, -1, -1, 0, ii, 1);
    put(tb, SIM_OP_ACTIVATION_REDUCE, -1, -1, ii, ii, 1);
    put(tb, SIM_OP_TENSOR_TENSOR, -1, LS_MEM_PSUM, 0, ii, 1);
    put(tb, SIM_OP_TENSOR_TENSOR, LS_DT_BF16, -1, 0, ii, 1);
    put(tb, SIM_OP_TENSOR_TENSOR, -1, -1, 0, ii, 2);
    put(tb, SIM_OP_TENSOR_SCALAR, -1, -1, 0, ii, 1);
    put(tb, SIM_OP_TENSOR_COPY, -1, -1, 0, ii, 1);
    put(tb, SIM_OP_TENSOR_REDUCE, LS_DT_BF16, -1, 0, 0, 0.5);
    put(tb, SIM_OP_TENSOR_REDUCE, -1, -1, 0, 0, 1);
    put(tb, SIM_OP_DVE_TRANSPOSE, -1, -1, 0, ii, 1);
    put(tb, SIM_OP_MEMSET, -1, -1, 0, ii, 1);
    put(tb, SIM_OP_IOTA, -1, -1, t->pool_start_cycles, 0, 1);
    put(tb, SIM_OP_GATHER, -1, -1, t->pool_start_cycles, 0, 1);
    put(tb, SIM_OP_PARTITION_REDUCE, -1, -1, t->pool_start_cycles, 0, 3);
    /* DMA: transfer latency + descriptors x max(min, bytes / per-engine bandwidth) */
    put_dma(tb, SIM_OP_DMA_TRANSPOSE, LS_MEM_SBUF, t->dma_transfer_latency_ns,
            t->dma_desc_min_ns, t->dma_bytes_per_ns * t->dma_transpose_sbuf_eff);
    put_dma(tb, SIM_OP_DMA_TRANSPOSE, -1, t->dma_transfer_latency_ns, t->dma_desc_min_ns,
            t->dma_bytes_per_ns * t->dma_transpose_hbm_eff);
    put_dma(tb, SIM_OP_DMA_COPY, -1, t->dma_transfer_latency_ns, t->dma_desc_min_ns,
            t->dma_bytes_per_ns);
    /* a dependent vector instruction waits for the producer's write and its own read
     * access, plus the static overhead when tiny (hw-facts; sim_run.c vec_step) */
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        tb->dep[e] = cm_dep_engine(e) ? 2.0 * t->vec_access_overhead : 0;
    tb->dep_tiny = t->vec_static_overhead;
    tb->dep_tiny_free = t->vec_tiny_free;
}

int cm_dep_engine(int engine)
{
    return engine == LS_ENGINE_ACT || engine == LS_ENGINE_DVE || engine == LS_ENGINE_POOL;
}

/* The dependency latency of a dependent instruction of N elements on engine e, in engine
 * cycles (struct cm_table: dep). */
static double dep_cycles(const struct cm_table *tb, int e, double N)
{
    if (!cm_dep_engine(e))
        return 0;
    return tb->dep[e] + (N < tb->dep_tiny_free ? tb->dep_tiny : 0);
}

void cm_dep_track_init(struct cm_dep_track *d)
{
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        d->last[e] = -1;
}

int cm_dep_track_add(struct cm_dep_track *d, int engine, int64_t h, const int64_t *deps,
                     size_t nd)
{
    if (!cm_dep_engine(engine))
        return 0;
    int64_t prev = d->last[engine];
    d->last[engine] = h;
    for (size_t k = 0; prev >= 0 && k < nd; k++)
        if (deps[k] == prev)
            return 1;
    return 0;
}

int cm_program_dep_flags(const struct sim_program *p, uint8_t *flags)
{
    size_t n = sim_program_count(p), ng = sim_program_strings(p)->count;
    /* last instruction per (tag, engine); untagged instructions are their own group */
    int64_t *last = malloc(sizeof *last * (ng + 1) * LS_ENGINE_COUNT);
    if (!last)
        return LS_ERR_NOMEM;
    for (size_t k = 0; k < (ng + 1) * LS_ENGINE_COUNT; k++)
        last[k] = -1;
    struct sim_instr buf;
    for (size_t i = 0; i < n; i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        int32_t tag = in->op_tag >= 0 ? in->op_tag : in->conv_tag;
        flags[i] = 0;
        if (tag < 0 || (size_t)tag >= ng || !cm_dep_engine(in->engine))
            continue;
        int64_t *l = &last[(size_t)tag * LS_ENGINE_COUNT + in->engine];
        size_t nd;
        const uint32_t *deps = sim_program_deps(p, i, &nd);
        for (size_t k = 0; *l >= 0 && k < nd; k++)
            if ((int64_t)deps[k] == *l)
                flags[i] = 1;
        *l = (int64_t)i;
    }
    free(last);
    return 0;
}

int cm_table_find(const struct cm_table *tb, int op, int dt, int mem)
{
    int best = -1, bs = -1;
    for (int i = 0; i < tb->n; i++) {
        const struct cm_entry *e = &tb->e[i];
        if (e->opcode != op || (e->dtype >= 0 && e->dtype != dt) || (e->mem >= 0 && e->mem != mem))
            continue;
        int score = (e->dtype >= 0) * 2 + (e->mem >= 0);
        if (score > bs) {
            bs = score;
            best = i;
        }
    }
    return best;
}

/* Prices saturate at 2^53: a .lsp cannot hold more (its builder refuses the sum), and no
 * conversion to int64 or sum of prices may overflow on the way there. */
#define CM_PRICE_MAX ((int64_t)1 << 53)

static int64_t half_up(double x)
{
    if (!(x < (double)CM_PRICE_MAX)) /* also NaN */
        return CM_PRICE_MAX;
    return (int64_t)floor(x + 0.5);
}

static int64_t sat_add(int64_t a, int64_t b)
{
    return a > CM_PRICE_MAX - b ? CM_PRICE_MAX : a + b;
}

/* The price split: entry index, latency and throughput parts in the engine's unit (engine
 * cycles; ns for DMA), and the factor to base-clock cycles. */
/* cm_table_find, memoized in pr when there is one. */
static int find(const struct cm_table *tb, struct cm_pricer *pr, int op, int dt, int mem)
{
    if (!pr || op < 0 || op >= SIM_OP_COUNT || dt < 0 || dt >= LS_DT_COUNT || mem < 0 ||
        mem >= LS_MEM_COUNT || tb->n > INT16_MAX - 2)
        return cm_table_find(tb, op, dt, mem);
    int16_t *k = &pr->k[op][dt][mem];
    if (!*k)
        *k = (int16_t)(cm_table_find(tb, op, dt, mem) + 2);
    return *k - 2;
}

void cm_entry_parts(const struct cm_entry *e, const struct sim_target *t,
                    const struct cm_sample *s, double *fixed, double *var, double *to_base)
{
    if (s->engine == LS_ENGINE_DMA) {
        double bw = e->bytes_per_ns > 0 ? e->bytes_per_ns : 1;
        *fixed = e->fixed_ns;
        *var = s->d * fmax(e->desc_min_ns, s->chunk / bw);
        *to_base = t->base_mhz / 1000.0;
        return;
    }
    *fixed = e->a;
    *var = fmax(e->b, e->c * s->n);
    uint32_t mhz = sim_engine_mhz(t, (enum ls_engine)s->engine);
    *to_base = t->base_mhz / (double)(mhz ? mhz : t->base_mhz);
}

static int price_core(const struct cm_table *tb, const struct sim_target *t,
                      const struct sim_instr *in, struct cm_pricer *memo, double *fixed,
                      double *var, double *to_base, double *N_out)
{
    struct cm_sample sm;
    cm_instr_sample(t, in, &sm);
    int k = find(tb, memo, sm.opcode, sm.dtype, sm.mem);
    *fixed = *var = *N_out = 0;
    *to_base = 1;
    if (k < 0)
        return -1;
    cm_entry_parts(&tb->e[k], t, &sm, fixed, var, to_base);
    *N_out = in->engine == LS_ENGINE_DMA ? 0 : sm.n;
    return k;
}

static int64_t price(const struct cm_table *tb, const struct sim_target *t,
                     const struct sim_instr *in, struct cm_pricer *memo, int dep)
{
    double f, v, r, N;
    if (price_core(tb, t, in, memo, &f, &v, &r, &N) < 0)
        return 0;
    /* the same operations, in the same order, as the documented formula */
    if (in->engine == LS_ENGINE_DMA) { /* per-group latency: charged by cm_agg_total */
        double ns = tb->dma_group ? v : f + v;
        if (tb->dma_prefetch && cg_dma_queue_runs_ahead(t, in->queue) &&
            !(dep & CM_PRICE_RELOAD))
            ns *= tb->dma_prefetch_share;
        return half_up(ns * t->base_mhz / 1000.0);
    }
    uint32_t mhz = sim_engine_mhz(t, (enum ls_engine)in->engine);
    (void)r;
    if (dep & CM_PRICE_DEP) /* engine cycles, converted and rounded with the rest: once */
        f += dep_cycles(tb, in->engine, N);
    return half_up((f + v) * t->base_mhz / (double)(mhz ? mhz : t->base_mhz));
}

int64_t cm_price(const struct cm_table *tb, const struct sim_target *t,
                 const struct sim_instr *in)
{
    return price(tb, t, in, NULL, 0);
}

int64_t cm_price_dep(const struct cm_table *tb, const struct sim_target *t,
                     const struct sim_instr *in, int dep)
{
    return price(tb, t, in, NULL, dep);
}

void cm_pricer_init(struct cm_pricer *pr, const struct cm_table *tb,
                    const struct sim_target *t)
{
    memset(pr, 0, sizeof *pr);
    pr->tb = tb;
    pr->t = t;
}

int64_t cm_pricer_price(struct cm_pricer *pr, const struct sim_instr *in)
{
    return price(pr->tb, pr->t, in, pr, 0);
}

int64_t cm_pricer_price_dep(struct cm_pricer *pr, const struct sim_instr *in, int dep)
{
    return price(pr->tb, pr->t, in, pr, dep);
}

void cm_price_parts(const struct cm_table *tb, const struct sim_target *t,
                    const struct sim_instr *in, int dep, struct cm_parts *out)
{
    double f, v, r, N;
    out->entry = (int16_t)price_core(tb, t, in, NULL, &f, &v, &r, &N);
    out->engine = in->engine;
    out->fixed = (float)(f * r);
    out->var = (float)(v * r);
    out->dep = cm_parts_dep(tb, in->engine, dep, N);
    out->cyc = (float)r;
}

uint8_t cm_parts_dep(const struct cm_table *tb, int engine, int dep, double N)
{
    if (!(dep & CM_PRICE_DEP) || !cm_dep_engine(engine))
        return 0;
    return (uint8_t)(CM_DEP | (N < tb->dep_tiny_free ? CM_DEP_TINY : 0));
}

void cm_table_set_aggregate(struct cm_table *tb, enum cm_aggregate a, double group_ns)
{
    tb->agg = a;
    snprintf(tb->aggregate, sizeof tb->aggregate, "%s", cm_aggregate_name(a));
    if (group_ns >= 0)
        tb->group_ns = group_ns;
}

static const char *const agg_names[] = {"sum", "max", "pipe"};

const char *cm_aggregate_name(enum cm_aggregate a)
{
    return (unsigned)a < sizeof agg_names / sizeof agg_names[0] ? agg_names[a] : "sum";
}

int cm_aggregate_parse(const char *s, enum cm_aggregate *a)
{
    for (size_t i = 0; s && i < sizeof agg_names / sizeof agg_names[0]; i++)
        if (strcmp(s, agg_names[i]) == 0) {
            *a = (enum cm_aggregate)i;
            return 0;
        }
    return -1;
}

void cm_agg_add(struct cm_agg *a, int engine, int64_t price)
{
    if (engine >= 0 && engine < LS_ENGINE_COUNT) {
        a->eng[engine] = sat_add(a->eng[engine], price);
        a->count[engine]++;
    }
    a->sum = sat_add(a->sum, price);
    a->n++;
}

void cm_agg_add_instr(struct cm_agg *a, const struct sim_instr *in, int64_t price)
{
    cm_agg_add(a, in->engine, price);
    if (in->engine != LS_ENGINE_DMA)
        return;
    if (in->src.mem == LS_MEM_HBM && in->dst.mem != LS_MEM_HBM)
        a->dma_dirs |= CM_DMA_IN;
    else if (in->dst.mem == LS_MEM_HBM && in->src.mem != LS_MEM_HBM)
        a->dma_dirs |= CM_DMA_OUT;
    else
        a->dma_dirs |= CM_DMA_ONCHIP;
}

/* How many times a group pays the DMA latency: once, or once per direction (dma_waves). */
static int dma_waves(const struct cm_table *tb, const struct cm_agg *a)
{
    if (!tb->dma_waves)
        return 1;
    unsigned d = a->dma_dirs;
    int w = (d & CM_DMA_IN ? 1 : 0) + (d & CM_DMA_OUT ? 1 : 0) + (d & CM_DMA_ONCHIP ? 1 : 0);
    return w ? w : 1;
}

/* The largest fixed_ns of the table's DMA entries. */
static double dma_fixed_max(const struct cm_table *tb)
{
    double m = 0;
    for (int i = 0; i < tb->n; i++)
        if (tb->e[i].opcode == SIM_OP_DMA_COPY || tb->e[i].opcode == SIM_OP_DMA_TRANSPOSE)
            m = fmax(m, tb->e[i].fixed_ns);
    return m;
}

int64_t cm_dma_group_latency(const struct cm_table *tb, const struct sim_target *t)
{
    if (!tb->dma_group)
        return 0;
    return half_up(tb->dma_group_lat * dma_fixed_max(tb) * t->base_mhz / 1000.0);
}

static int64_t agg_engines(const struct cm_table *tb, const struct sim_target *t,
                           const struct cm_agg *a);

/* v, a group's aggregated price, as exposed (struct cm_table: exposed_share). */
static int64_t exposed(const struct cm_table *tb, const struct cm_agg *a, int64_t v)
{
    return tb->exposed && !a->conversion ? half_up(tb->exposed_share * (double)v) : v;
}

int64_t cm_agg_total(const struct cm_table *tb, const struct sim_target *t,
                     const struct cm_agg *a0)
{
    struct cm_agg with_lat;
    const struct cm_agg *a = a0;
    if (tb->dma_group && a0->count[LS_ENGINE_DMA] > 0) {
        /* the group's exposed DMA latency is work of its DMA engine (pipe, max) */
        with_lat = *a0;
        int64_t lat = cm_dma_group_latency(tb, t) * dma_waves(tb, a0);
        with_lat.eng[LS_ENGINE_DMA] = sat_add(with_lat.eng[LS_ENGINE_DMA], lat);
        with_lat.sum = sat_add(with_lat.sum, lat);
        a = &with_lat;
    }
    return exposed(tb, a0, agg_engines(tb, t, a));
}

/* The group's engines aggregated by the table's mode (latencies aside). */
int64_t cm_agg_floor(const struct cm_table *tb, const struct sim_target *t,
                     const struct cm_agg *a)
{
    int64_t m = 0;
    for (int e = 0; e < LS_ENGINE_COUNT; e++) {
        int64_t busy = a->eng[e];
        if (e == LS_ENGINE_DMA && tb->dma_group && a->count[e] > 0)
            busy = sat_add(busy, cm_dma_group_latency(tb, t) * dma_waves(tb, a));
        m = busy > m ? busy : m;
    }
    /* rounded down: floor(s m) <= s total, so still below exposed()'s half-up of it */
    return tb->exposed && !a->conversion ? (int64_t)floor(tb->exposed_share * (double)m) : m;
}

static int64_t agg_engines(const struct cm_table *tb, const struct sim_target *t,
                           const struct cm_agg *a)
{
    if (tb->agg == CM_AGG_SUM)
        return a->sum;
    if (a->n == 0)
        return 0;
    int bottleneck = 0;
    for (int e = 1; e < LS_ENGINE_COUNT; e++)
        if (a->eng[e] > a->eng[bottleneck])
            bottleneck = e;
    int64_t m = a->eng[bottleneck];
    if (tb->agg == CM_AGG_MAX) {
        int64_t rest = tb->serial > 0 ? half_up(tb->serial * (double)(a->sum - m)) : 0;
        return sat_add(sat_add(m, rest), half_up(tb->group_ns * t->base_mhz / 1000.0));
    }
    /* pipe: instructions without an engine count towards the sum only */
    int64_t n = a->count[bottleneck] > 0 ? a->count[bottleneck] : 1;
    return sat_add(m, (a->sum - m + n / 2) / n);
}

static int price_nomem(const struct sim_program *p, struct ls_error *err)
{
    return ls_error_msg(err, LS_ERR_NOMEM, "out of memory pricing the compiled program (%zu "
                        "instructions, %zu tags)", sim_program_count(p),
                        sim_program_strings(p)->count);
}

/* Whether instruction in belongs to a layout conversion's group. */
static int is_conversion(const struct sim_instr *in)
{
    return in->op_tag < 0 && in->conv_tag >= 0;
}

int cm_price_program(const struct cm_table *tb, const struct sim_target *t,
                     const struct sim_program *p, int64_t *out, struct ls_error *err)
{
    int64_t conv;
    return cm_price_program_parts(tb, t, p, out, &conv, err);
}

/* The groups of ops into *ops, those of conversions into *conv. */
static int price_parts(const struct cm_table *tb, const struct sim_target *t,
                       const struct sim_program *p, int64_t *ops, int64_t *conv,
                       struct ls_error *err)
{
    size_t n = sim_program_count(p);
    struct sim_instr buf;
    struct cm_pricer memo;
    cm_pricer_init(&memo, tb, t);
    *ops = *conv = 0;
    uint8_t *dep = malloc(n + 1);
    if (!dep || cm_program_dep_flags(p, dep) || cm_program_reload_flags(tb, t, p, dep)) {
        free(dep);
        return price_nomem(p, err);
    }
    if (tb->agg == CM_AGG_SUM && !tb->dma_group && !tb->exposed) {
        for (size_t i = 0; i < n; i++) {
            const struct sim_instr *in = sim_program_get(p, i, &buf);
            int64_t *to = is_conversion(in) ? conv : ops;
            *to = sat_add(*to, price(tb, t, in, &memo, dep[i]));
        }
        free(dep);
        return 0;
    }
    /* groups by tag id (op and conversion tags share the program's string table) */
    size_t ng = sim_program_strings(p)->count;
    struct cm_agg *g = calloc(ng + 1, sizeof *g);
    if (!g) {
        free(dep);
        return price_nomem(p, err);
    }
    for (size_t i = 0; i < n; i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        int64_t pr = price(tb, t, in, &memo, dep[i]);
        int32_t tag = in->op_tag >= 0 ? in->op_tag : in->conv_tag;
        if (tag < 0 || (size_t)tag >= ng) {
            struct cm_agg one;
            memset(&one, 0, sizeof one);
            cm_agg_add_instr(&one, in, pr);
            *ops = sat_add(*ops, cm_agg_total(tb, t, &one));
        } else {
            cm_agg_add_instr(&g[tag], in, pr);
            g[tag].conversion = is_conversion(in);
        }
    }
    for (size_t k = 0; k < ng; k++) {
        int64_t *to = g[k].conversion ? conv : ops;
        *to = sat_add(*to, cm_agg_total(tb, t, &g[k]));
    }
    free(g);
    free(dep);
    return 0;
}

int cm_price_program_parts(const struct cm_table *tb, const struct sim_target *t,
                           const struct sim_program *p, int64_t *price, int64_t *conv,
                           struct ls_error *err)
{
    int64_t ops;
    int rc = price_parts(tb, t, p, &ops, conv, err);
    *price = sat_add(ops, *conv);
    return rc;
}

/* ---- JSON ------------------------------------------------------------------------- */

static const char *memname(int m)
{
    return m < 0 ? "*" : ls_mem_name((enum ls_mem)m);
}

/* Any dependency latency: a table without one is written without the key, so tables
 * from before it existed keep their canonical JSON and hash. */
static int has_dep(const struct cm_table *tb)
{
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        if (tb->dep[e] != 0)
            return 1;
    return tb->dep_tiny != 0;
}

static json_t *to_json(const struct cm_table *tb)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "schema", json_string(CM_TABLE_SCHEMA));
    json_object_set_new(root, "version", json_integer(CM_TABLE_VERSION));
    json_object_set_new(root, "target", json_string(tb->target));
    json_object_set_new(root, "aggregate", json_string(tb->aggregate));
    if (tb->agg == CM_AGG_MAX)
        json_object_set_new(root, "group_ns", json_real(tb->group_ns));
    /* only when set: the canonical JSON (and hash) of older tables stays as it was */
    if (tb->agg == CM_AGG_MAX && tb->serial > 0)
        json_object_set_new(root, "serial_share", json_real(tb->serial));
    if (has_dep(tb)) {
        json_t *d = json_object();
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            if (cm_dep_engine(e))
                json_object_set_new(d, ls_engine_name((enum ls_engine)e), json_real(tb->dep[e]));
        json_object_set_new(d, "tiny", json_real(tb->dep_tiny));
        json_object_set_new(d, "tiny_free", json_real(tb->dep_tiny_free));
        json_object_set_new(root, "dependency", d);
    }
    if (tb->dma_group) /* only when present: older tables keep their JSON and hash */
        json_object_set_new(root, "dma_latency_per_group", json_real(tb->dma_group_lat));
    if (tb->dma_group && tb->dma_waves)
        json_object_set_new(root, "dma_latency_waves", json_true());
    if (tb->dma_prefetch)
        json_object_set_new(root, "dma_prefetch_share", json_real(tb->dma_prefetch_share));
    if (tb->exposed)
        json_object_set_new(root, "exposed_share", json_real(tb->exposed_share));
    for (int i = 0; i < tb->n; i++) {
        const struct cm_entry *e = &tb->e[i];
        json_t *o = json_object();
        json_object_set_new(o, "opcode", json_string(sim_opcode_name((enum sim_opcode)e->opcode)));
        json_object_set_new(o, "dtype", json_string(e->dtype < 0 ? "*" : ls_dtype_name((enum ls_dtype)e->dtype)));
        json_object_set_new(o, "mem", json_string(memname(e->mem)));
        if (e->opcode == SIM_OP_DMA_COPY || e->opcode == SIM_OP_DMA_TRANSPOSE) {
            json_object_set_new(o, "fixed_ns", json_real(e->fixed_ns));
            json_object_set_new(o, "desc_min_ns", json_real(e->desc_min_ns));
            json_object_set_new(o, "bytes_per_ns", json_real(e->bytes_per_ns));
        } else {
            json_object_set_new(o, "a", json_real(e->a));
            json_object_set_new(o, "b", json_real(e->b));
            json_object_set_new(o, "c", json_real(e->c));
        }
        json_array_append_new(arr, o);
    }
    json_object_set_new(root, "entries", arr);
    return root;
}

uint64_t cm_table_hash(const struct cm_table *tb)
{
    json_t *j = to_json(tb);
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
    json_decref(j);
    uint64_t h = s ? ls_fnv1a64(s, strlen(s)) : 0;
    free(s);
    return h;
}

int cm_table_write(const struct cm_table *tb, const char *path, struct ls_error *err)
{
    json_t *j = to_json(tb);
    char *s = json_dumps(j, JSON_INDENT(2) | JSON_REAL_PRECISION(17));
    json_decref(j);
    if (!s)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    size_t n = strlen(s);
    s[n] = 0;
    int rc = ls_write_file_atomic(path, s, n, err);
    free(s);
    return rc;
}

/* A table being loaded: errors name the file, the field's JSON path and its line:col. */
struct tload {
    const char *path, *text;
    size_t len;
    struct ls_error *err;
};

static int bad_field(const struct tload *t, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bad_field(const struct tload *t, const char *field, const char *fmt, ...)
{
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line = 0, col = 0;
    ls_json_locate(t->text, t->len, field, &line, &col);
    return ls_error_set(t->err, LS_ERR_INPUT, t->path, line, col, "%s: %s", field, msg);
}

/* Coefficients are bounded so that every price the table gives, for any instruction a
 * program can hold, stays far inside int64 (docs/costmodel.md, "Latency tables"). */
#define CM_COEF_MAX 1e9       /* cycles or ns of one latency coefficient */
#define CM_BPNS_MIN 1e-3      /* bytes per ns: 1 MB/s */
#define CM_BPNS_MAX 1e6

/* A coefficient of entry i: a finite number in [lo, hi]. */
static int coef(const struct tload *t, json_t *o, size_t i, const char *k, double lo, double hi,
                double *out)
{
    char field[64];
    snprintf(field, sizeof field, "entries[%zu].%s", i, k);
    json_t *v = json_object_get(o, k);
    if (!v)
        return bad_field(t, field, "missing (entries[%zu] is an object with it)", i);
    if (!json_is_number(v))
        return bad_field(t, field, "expected a number");
    double x = json_number_value(v);
    if (!isfinite(x) || x < lo || x > hi)
        return bad_field(t, field, "%g is out of range %g..%g", x, lo, hi);
    *out = x;
    return 0;
}

static int load_entry(const struct tload *t, json_t *o, size_t i, struct cm_entry *e)
{
    char field[64];
    memset(e, 0, sizeof *e);
    if (!json_is_object(o)) {
        snprintf(field, sizeof field, "entries[%zu]", i);
        return bad_field(t, field, "expected an object");
    }
    const char *opn = json_string_value(json_object_get(o, "opcode"));
    const char *dtn = json_string_value(json_object_get(o, "dtype"));
    const char *mn = json_string_value(json_object_get(o, "mem"));
    enum sim_opcode opc;
    snprintf(field, sizeof field, "entries[%zu].opcode", i);
    if (!opn || sim_opcode_parse(opn, strlen(opn), &opc))
        return bad_field(t, field, "unknown (expected an opcode name as a string)");
    e->opcode = opc;
    e->dtype = -1;
    snprintf(field, sizeof field, "entries[%zu].dtype", i);
    if (dtn && strcmp(dtn, "*") != 0 && ls_dtype_parse(dtn, strlen(dtn), (enum ls_dtype *)&e->dtype))
        return bad_field(t, field, "unknown (fp32, bf16, fp16, fp8, int32, int8 or *)");
    e->mem = -1;
    if (mn && strcmp(mn, "*") != 0) {
        for (int k = 1; k < LS_MEM_COUNT; k++)
            if (strcmp(mn, ls_mem_name((enum ls_mem)k)) == 0)
                e->mem = k;
        snprintf(field, sizeof field, "entries[%zu].mem", i);
        if (e->mem < 0)
            return bad_field(t, field, "unknown (hbm, sbuf, psum or *)");
    }
    if (opc == SIM_OP_DMA_COPY || opc == SIM_OP_DMA_TRANSPOSE)
        return coef(t, o, i, "fixed_ns", 0, CM_COEF_MAX, &e->fixed_ns) ||
                       coef(t, o, i, "desc_min_ns", 0, CM_COEF_MAX, &e->desc_min_ns) ||
                       coef(t, o, i, "bytes_per_ns", CM_BPNS_MIN, CM_BPNS_MAX, &e->bytes_per_ns)
                   ? LS_ERR_INPUT
                   : 0;
    return coef(t, o, i, "a", 0, CM_COEF_MAX, &e->a) || coef(t, o, i, "b", 0, CM_COEF_MAX, &e->b) ||
                   coef(t, o, i, "c", 0, CM_COEF_MAX, &e->c)
               ? LS_ERR_INPUT
               : 0;
}

/* Field k of the "dependency" object: a number in 0..CM_COEF_MAX (absent: 0). */
static int dep_field(const struct tload *t, json_t *d, const char *k, double *out)
{
    char field[64];
    snprintf(field, sizeof field, "dependency.%s", k);
    json_t *v = json_object_get(d, k);
    *out = 0;
    if (!v)
        return 0;
    double x = json_is_number(v) ? json_number_value(v) : NAN;
    if (!isfinite(x) || x < 0 || x > CM_COEF_MAX)
        return bad_field(t, field, "expected a number in 0..%g", CM_COEF_MAX);
    *out = x;
    return 0;
}

/* The optional "dependency" object (struct cm_table: dep); absent: no dependency latency,
 * which is what every table meant before the key existed. */
static int load_dep(const struct tload *t, json_t *root, struct cm_table *tb)
{
    json_t *d = json_object_get(root, "dependency");
    if (!d)
        return 0;
    if (!json_is_object(d))
        return bad_field(t, "dependency", "expected an object {\"act\", \"dve\", \"pool\", "
                         "\"tiny\", \"tiny_free\"} of engine cycles");
    const char *key;
    json_t *v;
    json_object_foreach(d, key, v) {
        int ok = strcmp(key, "tiny") == 0 || strcmp(key, "tiny_free") == 0;
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            ok |= cm_dep_engine(e) && strcmp(key, ls_engine_name((enum ls_engine)e)) == 0;
        if (!ok) {
            char field[96];
            snprintf(field, sizeof field, "dependency.%.60s", key);
            return bad_field(t, field, "unknown key (act, dve, pool, tiny, tiny_free)");
        }
    }
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        if (cm_dep_engine(e) && dep_field(t, d, ls_engine_name((enum ls_engine)e), &tb->dep[e]))
            return LS_ERR_INPUT;
    if (dep_field(t, d, "tiny", &tb->dep_tiny))
        return LS_ERR_INPUT;
    return dep_field(t, d, "tiny_free", &tb->dep_tiny_free) ? LS_ERR_INPUT : 0;
}

/* The optional number `key` of a table, in 0..max: *present and *value set when it is
 * there, an error naming it when it is not a number in range. */
static int optional_number(const struct tload *t, json_t *root, const char *key, double max,
                           int *present, double *value)
{
    json_t *v = json_object_get(root, key);
    if (!v)
        return 0;
    if (!json_is_number(v) || !(json_number_value(v) >= 0) || json_number_value(v) > max)
        return bad_field(t, key, "expected a number in 0..%g", max);
    *present = 1;
    *value = json_number_value(v);
    return 0;
}

/* The optional "dma_latency_per_group" (struct cm_table: dma_group) and, with it,
 * "dma_latency_waves". */
static int load_dma_group(const struct tload *t, json_t *root, struct cm_table *tb)
{
    if (optional_number(t, root, "dma_latency_per_group", 64, &tb->dma_group,
                        &tb->dma_group_lat))
        return LS_ERR_INPUT;
    if (!tb->dma_group)
        return 0;
    json_t *w = json_object_get(root, "dma_latency_waves");
    if (w && !json_is_boolean(w))
        return bad_field(t, "dma_latency_waves", "expected true or false");
    tb->dma_waves = w && json_is_true(w);
    return 0;
}


static int load_root(const struct tload *t, json_t *root, struct cm_table *tb)
{
    json_t *sc = json_object_get(root, "schema"), *ver = json_object_get(root, "version");
    json_t *ent = json_object_get(root, "entries");
    if (!json_is_object(root))
        return ls_error_set(t->err, LS_ERR_INPUT, t->path, 1, 1,
                            "expected a JSON object (a laysim latency table)");
    if (!json_is_string(sc) || strcmp(json_string_value(sc), CM_TABLE_SCHEMA) != 0)
        return bad_field(t, "schema", "expected \"%s\"", CM_TABLE_SCHEMA);
    if (!json_is_integer(ver) || json_integer_value(ver) != CM_TABLE_VERSION)
        return bad_field(t, "version", "expected %d", CM_TABLE_VERSION);
    json_t *tg = json_object_get(root, "target"), *ag = json_object_get(root, "aggregate");
    snprintf(tb->target, sizeof tb->target, "%s", json_is_string(tg) ? json_string_value(tg) : "");
    snprintf(tb->aggregate, sizeof tb->aggregate, "%s", json_is_string(ag) ? json_string_value(ag) : "sum");
    enum cm_aggregate agg;
    if (cm_aggregate_parse(tb->aggregate, &agg))
        return bad_field(t, "aggregate", "expected \"sum\", \"max\" or \"pipe\"");
    tb->agg = agg;
    if (agg == CM_AGG_MAX) {
        json_t *gn = json_object_get(root, "group_ns");
        if (!json_is_number(gn) || !isfinite(json_number_value(gn)) ||
            json_number_value(gn) < 0 || json_number_value(gn) > CM_COEF_MAX)
            return bad_field(t, "group_ns",
                             "a number in 0..%g is required when \"aggregate\" is \"max\"",
                             CM_COEF_MAX);
        tb->group_ns = json_number_value(gn);
        json_t *ss = json_object_get(root, "serial_share");
        if (ss && (!json_is_number(ss) || !(json_number_value(ss) >= 0) ||
                   json_number_value(ss) > 1))
            return bad_field(t, "serial_share", "expected a number in 0..1");
        tb->serial = ss ? json_number_value(ss) : 0;
    }
    if (load_dep(t, root, tb) || load_dma_group(t, root, tb) ||
        optional_number(t, root, "dma_prefetch_share", 1, &tb->dma_prefetch,
                        &tb->dma_prefetch_share) ||
        optional_number(t, root, "exposed_share", CM_EXPOSED_SHARE_MAX, &tb->exposed,
                        &tb->exposed_share))
        return LS_ERR_INPUT;
    if (tb->exposed && !(tb->exposed_share > 0))
        return bad_field(t, "exposed_share", "expected a number in 0..%g, above 0",
                         CM_EXPOSED_SHARE_MAX);
    if (!json_is_array(ent) || json_array_size(ent) > sizeof tb->e / sizeof tb->e[0])
        return bad_field(t, "entries", "expected an array of at most %zu entries",
                         sizeof tb->e / sizeof tb->e[0]);
    for (size_t i = 0; i < json_array_size(ent); i++) {
        int rc = load_entry(t, json_array_get(ent, i), i, &tb->e[tb->n]);
        if (rc)
            return rc;
        tb->n++;
    }
    return 0;
}

int cm_table_load(const char *path, struct cm_table *tb, struct ls_error *err)
{
    memset(tb, 0, sizeof *tb);
    char *text;
    size_t len;
    int rc = ls_read_file(path, &text, &len, err);
    if (rc)
        return rc;
    json_error_t je;
    json_t *root = json_loadb(text, len, 0, &je);
    if (!root) {
        free(text);
        return ls_error_set(err, LS_ERR_INPUT, path, je.line, je.column, "%s", je.text);
    }
    struct tload t = {path, text, len, err};
    rc = load_root(&t, root, tb);
    json_decref(root);
    free(text);
    return rc;
}
