/* costmodel: latency tables, instruction pricing, memoized C_op / C_tr, and building the
 * layout selection problem (.lsp) of a graph. docs/costmodel.md documents the table format
 * and every rule. Costs are integers in the target's base-clock cycles: each instruction's
 * price is converted and rounded half-up once; C_op and C_tr are sums of those prices. */
#ifndef LS_COSTMODEL_COSTMODEL_H
#define LS_COSTMODEL_COSTMODEL_H

#include <stdint.h>

#include "codegen/codegen.h"
#include "graph/graph.h"
#include "sim/program.h"
#include "sim/target.h"
#include "solver/problem.h"
#include "util/arch.h"
#include "util/error.h"
#include "util/hmap.h"

#define CM_TABLE_SCHEMA "laysim-latency-table"
#define CM_TABLE_VERSION 1
/* The datasheet table's exposed_share (struct cm_table): the median, over the quick
 * study's eleven models and four strategies on nc-v2 (44 programs), of a program's
 * simulated time less its conversions' price over its ops' price, every group priced in
 * full (`bash bench/exposed_share.sh` measures it again: 0.6814 under the whole memory
 * plan, where it was set; 0.6743 under the partial plan, the default since). */
#define CM_EXPOSED_SHARE_DEFAULT 0.68
#define CM_EXPOSED_SHARE_MAX 4.0

/* cycles = a + max(b, c * N) in the engine's clock (N: see docs/costmodel.md) */
struct cm_entry {
    int opcode;              /* enum sim_opcode */
    int dtype;               /* enum ls_dtype, -1 = any */
    int mem;                 /* enum ls_mem of the source, -1 = any */
    double a, b, c;
    /* DMA opcodes: ns = fixed + D * max(desc_min, chunk_bytes / bytes_per_ns) */
    double fixed_ns, desc_min_ns, bytes_per_ns;
};

/* Aggregation of the instruction prices of one group (one operator's lowering, one
 * conversion's lowering) into the group's cost:
 *   CM_AGG_SUM  "sum": the sum of the prices (every instruction waits for the previous);
 *   CM_AGG_MAX  "max": overlap-aware: the largest per-engine sum (PE, ACT, DVE, POOL, DMA)
 *               plus the exposed latency group_ns (pipeline fill and drain), once per
 *               non-empty group, plus serial_share (0..1, optional key, default 0) times
 *               the other engines' sums: the part of them a group's dependency chain
 *               does not overlap (a softmax's reduce, exp and divide on three engines run
 *               one after another; a matmul's loads run under its compute);
 *   CM_AGG_PIPE "pipe": a software pipeline of n tiles over the engines: the bottleneck
 *               engine's sum B plus one tile's trip through the other engines,
 *               (sum - B) / n, where n is the bottleneck engine's instruction count. One
 *               tile (n = 1) costs the sum, many tiles approach B. Needs no fitted
 *               constant, so it is the datasheet table's aggregation.
 * Every mode keeps C_op / C_tr additive over groups, so the objective stays an .lsp
 * problem and equals the table's price of the compiled program (cm_price_program groups
 * the program's instructions by their op / conversion tag). */
enum cm_aggregate { CM_AGG_SUM, CM_AGG_MAX, CM_AGG_PIPE };

struct cm_table {
    char target[64];
    char aggregate[16];      /* "sum", "max" or "pipe" (the name of agg) */
    int agg;                 /* enum cm_aggregate */
    double group_ns;         /* "max": exposed latency per group, ns */
    double serial;           /* "max": share of the non-largest engines' sums charged
                                (key serial_share; 0 = engines overlap fully) */
    /* Dependency latency (optional key "dependency"; absent = 0, as before it existed): an
     * ACT, DVE or POOL instruction that depends on the previous instruction of its own
     * engine in its group costs dep[engine] more engine cycles, plus dep_tiny when its N
     * is below dep_tiny_free: the simulator makes it wait for the producer's write and its
     * own read access (docs/costmodel.md). The per-instruction table alone prices a chain
     * of dependent vector instructions (a normalization) like independent ones. */
    double dep[LS_ENGINE_COUNT];
    double dep_tiny, dep_tiny_free;
    /* DMA latency per group (optional key "dma_latency_per_group"; absent = 0, the meaning
     * before it existed: every DMA pays its entry's fixed_ns): when set, a DMA instruction
     * is priced without fixed_ns and each group with DMA instructions charges its DMA
     * engine dma_group_lat x the table's largest DMA fixed_ns instead. The simulator lets
     * a queue trigger its next transfer while the previous one is in flight, and the
     * queues overlap, so an op's transfers expose the latency about once, not per DMA. */
    int dma_group;           /* the key is present */
    double dma_group_lat;    /* 0..64 */
    /* Optional key "dma_latency_waves" (with dma_group; absent = 0): the latency is charged
     * once per direction the group's transfers take (HBM -> chip, chip -> HBM, on chip)
     * instead of once: an op that loads, computes and stores waits for the latency of its
     * first loads and again for that of its last stores, which depend on the compute. */
    int dma_waves;
    /* Optional key "dma_prefetch_share" (0..1; absent = 1, the meaning before it existed):
     * the share of their price that DMA loads which may run ahead of the previous ops
     * (weights and other constants: no producer, cg_dma_queue_runs_ahead) are charged.
     * The simulator issues them as soon as their buffer is free, so they stream under the
     * compute of the ops before their own; a per-op price cannot see how much of that
     * compute there is, and charges this share of the load instead. */
    int dma_prefetch;        /* the key is present */
    double dma_prefetch_share;
    /* Optional key "exposed_share" (0 < share <= 4; absent = 1, the meaning before it
     * existed): every op's group's aggregated price is multiplied by it, rounded half-up
     * once per group. The simulator overlaps consecutive ops (the DMA queues never idle across
     * an op boundary, loads stream under earlier compute), which no price of one op can
     * see; this charges each group the share of its price that a program exposes on
     * average. Layout conversions (struct cm_agg: conversion) are charged in full: each
     * reads what one op wrote and writes what the next reads, so it sits on the chain
     * between them, where nothing overlaps it. The datasheet table carries
     * CM_EXPOSED_SHARE_DEFAULT. */
    int exposed;             /* the key is present */
    double exposed_share;
    int n;
    struct cm_entry e[96];
};

/* Set the aggregation mode (and its name); group_ns < 0 keeps the current value. */
void cm_table_set_aggregate(struct cm_table *tb, enum cm_aggregate a, double group_ns);
/* The mode named s ("sum", "max", "pipe"): 0, or -1 for another name. */
int cm_aggregate_parse(const char *s, enum cm_aggregate *a);
const char *cm_aggregate_name(enum cm_aggregate a);

/* Accumulates the prices of one group. Zero it before use. */
struct cm_agg {
    int64_t eng[LS_ENGINE_COUNT];
    int64_t sum, n;
    int64_t count[LS_ENGINE_COUNT]; /* instructions per engine ("pipe") */
    unsigned dma_dirs;              /* CM_DMA_* of its DMA instructions */
    int conversion;                 /* a layout conversion's group (set by its owner) */
};
enum { CM_DMA_IN = 1, CM_DMA_OUT = 2, CM_DMA_ONCHIP = 4 };
void cm_agg_add(struct cm_agg *a, int engine, int64_t price);
/* cm_agg_add of instruction in, whose direction a DMA also records. */
void cm_agg_add_instr(struct cm_agg *a, const struct sim_instr *in, int64_t price);
/* The DMA latency a group with DMA instructions is charged once (base cycles; 0 unless
 * the table has "dma_latency_per_group"). */
int64_t cm_dma_group_latency(const struct cm_table *tb, const struct sim_target *t);
/* The group's cost under tb (0 for an empty group), its DMA latency included. */
int64_t cm_agg_total(const struct cm_table *tb, const struct sim_target *t,
                     const struct cm_agg *a);
/* A lower bound of cm_agg_total for a and for every group that extends a with more
 * instructions (prices >= 0): its busiest engine, the DMA latency charged so far
 * included. Every aggregation's total is at least that, and it never decreases as
 * instructions are added, so a lowering being priced against a cheaper one can stop
 * once it is reached (cm_conv_cost). */
int64_t cm_agg_floor(const struct cm_table *tb, const struct sim_target *t,
                     const struct cm_agg *a);

/* The default table of a target, derived from its datasheet numbers. */
void cm_table_default(const struct sim_target *t, struct cm_table *tb);
int cm_table_load(const char *path, struct cm_table *tb, struct ls_error *err);
int cm_table_write(const struct cm_table *tb, const char *path, struct ls_error *err);
uint64_t cm_table_hash(const struct cm_table *tb);

/* Price of one instruction in base-clock cycles (rounded half-up). */
int64_t cm_price(const struct cm_table *tb, const struct sim_target *t,
                 const struct sim_instr *in);
/* The same for an instruction that depends (dep != 0) or not on the previous instruction
 * of its own engine in its group (struct cm_table: dep). */
int64_t cm_price_dep(const struct cm_table *tb, const struct sim_target *t,
                     const struct sim_instr *in, int dep);
/* An engine the dependency latency applies to (ACT, DVE, POOL). */
int cm_dep_engine(int engine);
/* Which instructions of a program depend on the previous instruction of their own
 * (vector) engine within their group (op / conversion tag; an untagged instruction is its
 * own group): flags[i] = 1 or 0, for every instruction. 0, or LS_ERR_NOMEM. */
int cm_program_dep_flags(const struct sim_program *p, uint8_t *flags);
/* Bits of cm_price_dep's dep (and of the flags the callers keep per instruction). */
enum {
    CM_PRICE_DEP = 1,    /* depends on its engine's previous instruction in its group */
    CM_PRICE_RELOAD = 2, /* a DMA on a queue that runs ahead (cg_dma_queue_runs_ahead)
                            reading the HBM bytes (the same extent) that a DMA of its
                            group read before: under "dma_prefetch_share" it is charged in
                            full, since it reloads what the op itself overwrote and cannot
                            stream under earlier ops (costmodel/reload.c) */
};
/* The run-ahead loads seen so far, by (group tag, source extent) (costmodel/reload.c). */
struct cm_reload_key {
    int32_t tag;
    uint64_t lo, hi;
};
struct cm_reload_track {
    struct ls_hmap map;            /* util/hmap: ids into key[] */
    struct cm_reload_key *key;
    size_t cap;
};
void cm_reload_track_init(struct cm_reload_track *r);
void cm_reload_track_free(struct cm_reload_track *r);
/* CM_PRICE_RELOAD when tb has "dma_prefetch_share" and in (of group tag) is a run-ahead
 * DMA whose source extent a run-ahead DMA of the same group read before, else 0; records
 * it. -1: out of memory. */
int cm_reload_track_add(struct cm_reload_track *r, const struct cm_table *tb,
                        const struct sim_target *t, int32_t tag, const struct sim_instr *in);
/* ORs CM_PRICE_RELOAD into flags[i] for the program's reloads (as cm_reload_track_add
 * with each instruction's op / conversion tag). 0, or LS_ERR_NOMEM. */
int cm_program_reload_flags(const struct cm_table *tb, const struct sim_target *t,
                            const struct sim_program *p, uint8_t *flags);
/* Tracks the same while a group's instructions are emitted (a pricing sink): handle of
 * the last instruction per engine, -1 before the first. */
struct cm_dep_track {
    int64_t last[LS_ENGINE_COUNT];
};
void cm_dep_track_init(struct cm_dep_track *d);
/* Whether instruction h (on engine, depending on deps[0..nd)) depends on its engine's
 * previous one; records h as the engine's last. */
int cm_dep_track_add(struct cm_dep_track *d, int engine, int64_t h, const int64_t *deps,
                     size_t nd);
/* cm_price for many instructions under one table that does not change meanwhile (a
 * program, one lowering being priced): the table's entry is looked up once per (opcode,
 * dtype, memory) instead of scanning the entries per instruction, a fifth of `laysim
 * compile`. */
struct cm_pricer {
    const struct cm_table *tb;
    const struct sim_target *t;
    int16_t k[SIM_OP_COUNT][LS_DT_COUNT][LS_MEM_COUNT]; /* entry + 2; 0 = not looked up */
};
void cm_pricer_init(struct cm_pricer *pr, const struct cm_table *tb,
                    const struct sim_target *t);
int64_t cm_pricer_price(struct cm_pricer *pr, const struct sim_instr *in);
int64_t cm_pricer_price_dep(struct cm_pricer *pr, const struct sim_instr *in, int dep);
/* The table's price of a program into *price: its instructions grouped by op / conversion
 * tag (an untagged instruction is its own group), each group aggregated by cm_agg_total.
 * For "sum" tables this is the sum of the instruction prices. Saturates at 2^53, as every
 * price. 0, or LS_ERR_NOMEM (its buffers: a byte per instruction, a group per tag). */
int cm_price_program(const struct cm_table *tb, const struct sim_target *t,
                     const struct sim_program *p, int64_t *price, struct ls_error *err);
/* The same, and into *conv the part of it the groups of layout conversions make up. */
int cm_price_program_parts(const struct cm_table *tb, const struct sim_target *t,
                           const struct sim_program *p, int64_t *price, int64_t *conv,
                           struct ls_error *err);

struct cm_model;
struct cm_model *cm_model_new(const struct graph *g, const struct sim_target *t,
                              const struct cm_table *tb, const struct cg_options *o);
void cm_model_free(struct cm_model *m);
/* The codegen options the model prices with (its memory plan included). */
const struct cg_options *cm_model_options(const struct cm_model *m);
/* Replace the wall-clock deadline of its lowering (cg_options: deadline): a command whose
 * limit covered building the problem lets the rest of it run under its own limits. */
void cm_model_set_deadline(struct cm_model *m, struct ls_deadline dl);
const struct graph *cm_model_graph(const struct cm_model *m);

/* C_op(op, pax) (LS_ERR_INPUT when infeasible). For a source op: the relayout from
 * row-major, i.e. C_tr(default -> pax). *ninstr (may be NULL) gets the instruction count. */
int cm_op_cost(struct cm_model *m, int32_t op, const int8_t *pax, int64_t *cost,
               struct ls_error *err);
/* C_tr(t, from, to) by the cheapest possible method. */
int cm_conv_cost(struct cm_model *m, int32_t t, int from, int to, int64_t *cost,
                 enum cg_conv_method *method, struct ls_error *err);

/* The feasible configurations of every op (cfg lists as in the .lsp). pins: per op id
 * of a return op, the pinned pax or -2 (NULL = none pinned). */
struct cm_cfgs {
    int32_t nops;
    struct cg_cfgs *op;      /* per op id */
    int64_t **cost;          /* per op id: ncfg costs */
};
int cm_enumerate(struct cm_model *m, const int *pins, struct cm_cfgs *out, struct ls_error *err);
void cm_cfgs_free(struct cm_cfgs *c);

/* The .lsp problem of the configurations: costmodel/instance.h. */

/* Compile the program for cfg[op] (indices into cf, per graph op; NULL = cfg 0). *out is
 * NULL or a program to reuse (cg_compile_reuse); on error it is freed and NULL. */
int cm_compile(struct cm_model *m, const struct cm_cfgs *cf, const int32_t *cfg,
               struct sim_program **out, struct cg_compile_stats *st, struct ls_error *err);

#endif
