/* codegen: layouts, per-op configurations, and the lowering of ops and layout conversions
 * to simulator instructions (docs/costmodel.md describes every rule).
 *
 * A layout of a tensor is its partition axis (pax): the logical axis mapped to the SBUF
 * partitions; the other axes are free, in their original order. A tensor stored in HBM in
 * layout pax is laid out as [pax, the other axes in order], row-major. pax -1 is the trivial
 * layout of a tensor with no axis of extent > 1. A tensor's default layout (index 0) is
 * its first axis of extent > 1, which is byte-identical to row-major.
 *
 * One lowering serves both the cost model (which sums the prices of what is emitted) and
 * the program compiler (which appends it to a sim_program): lowering code only talks to a
 * struct cg_sink. */
#ifndef LS_CODEGEN_CODEGEN_H
#define LS_CODEGEN_CODEGEN_H

/* Version of the lowering rules: bump whenever the instructions emitted for some op or
 * conversion change, so stored simulation results keyed on it (study/tune) go stale. */
#define CG_VERSION "cg-12"

#include <stddef.h>
#include <stdint.h>

#include "graph/graph.h"
#include "sim/isa.h"
#include "sim/program.h"
#include "sim/target.h"
#include "util/clock.h"
#include "util/error.h"

#define CG_MAX_LAYOUTS GRAPH_MAX_RANK
#define CG_MAX_CFGS 64
/* Steps (ops, conversions) in flight: step k uses SBUF scratch region and PSUM banks
 * k % CG_STEP_REGIONS and waits for step k - CG_STEP_REGIONS, so up to this many steps
 * overlap (the next ops' weight loads run during the current op's compute). */
#ifndef CG_STEP_REGIONS
#define CG_STEP_REGIONS 2
#endif
/* Weight loads into the constant ring run ahead of the ops that compute by at most this
 * many steps that load into the ring: a load waits for the end of the step that loaded
 * into the ring that many such steps before it. The DMA engines serve transfers in the
 * order they are triggered, so loads far ahead delay the current ops' loads and stores.
 * 4 was the best of 2-8 and unbounded on the zoo at full size and the quick study
 * (docs/history.md, "cg-12"). */
#ifndef CG_RING_LOOKAHEAD
#define CG_RING_LOOKAHEAD 4
#endif
/* The SBUF a step region gets at least (when a third of what the resident region leaves
 * allows it); see cg_step_sbuf_bytes. */
#ifndef CG_STEP_MIN_BYTES
#define CG_STEP_MIN_BYTES 32768
#endif

/* ---- layouts ------------------------------------------------------------------------- */

struct cg_layouts {
    int n;                       /* >= 1 */
    int pax[CG_MAX_LAYOUTS];     /* partition axis of layout i; pax[0] = default */
};

/* Admissible layouts of tensor t: every axis of extent > 1, default first, then the
 * others in axis order; {-1} when no axis has extent > 1. */
void cg_tensor_layouts(const struct graph *g, int32_t t, struct cg_layouts *out);
/* Index of pax in the tensor's layouts, -1 when not admissible. */
int cg_layout_index(const struct graph *g, int32_t t, int pax);
/* Label "p:<role>" ("p:<axis>" when the axis has no role or its role repeats; "p:-" for
 * the trivial layout). */
void cg_layout_label(const struct graph *g, int32_t t, int pax, char *buf, size_t n);

/* 1 when t's layouts are chosen at compile time at no run-time cost: weights and other
 * constants are stored in HBM in whatever layouts their consumers want (no conversion),
 * and so is state (a KV cache), which the step before wrote in those layouts. */
int cg_layout_free(const struct graph *g, int32_t t);

/* ---- configurations ------------------------------------------------------------------ */

/* The configurations of one op: ncfg tuples of nslots partition axes (inputs in order, then
 * the output when the op has one). cfg 0 is the conventional configuration. */
struct cg_cfgs {
    int nslots, ncfg;
    int8_t *pax;                 /* ncfg * nslots, cfg-major (malloc'd) */
};

struct cg_memplan;

/* The memory plan's rule for a tensor whose kept layouts do not fit together
 * (codegen/memplan.h): keep its widest layout alone (partial, the default: the zero value,
 * so that zeroed options get it), or spill it (whole). */
enum cg_memplan_mode { CG_MEMPLAN_PARTIAL, CG_MEMPLAN_WHOLE };

/* One op or conversion lowers to at most max_instructions / CG_STEP_SHARE instructions,
 * or CG_STEP_FLOOR if more (never more than max_instructions): no op of a real model comes
 * near (olmo-7b's largest at 4,096 tokens, its logits, takes 210,336), and a tensor whose
 * conversion would take tens of millions (a few rows billions of elements long) is refused
 * after a second of pricing instead of after each of its methods reached the whole
 * program's limit. A small limit (a test's) binds the whole program only. */
#define CG_STEP_SHARE 5
#define CG_STEP_FLOOR 1000000
/* The default bound on instructions (cg_options.max_instructions) of the API and of the
 * CLI's --max-instructions, whose help spells it: generous (the full-size zoo compiles to
 * at most about 1.2 M; olmo-7b at 4,096 tokens to 10.7 M), but it stops a shape that
 * would lower to billions of instructions before memory runs out. */
#define CG_MAX_INSTRUCTIONS_DEFAULT 50000000

struct cg_options {
    int exact_transpose;         /* 1: never use the PE transpose for fp32 (not bit-exact) */
    enum cg_memplan_mode memplan;
    /* Bounds on lowering (0 = none): instructions per sink (one op or conversion when
     * pricing, the whole program when compiling), of which one op or conversion may take
     * a share (CG_STEP_SHARE), and a wall-clock deadline. Crossing either count is
     * LS_ERR_INPUT, the deadline LS_ERR_LIMIT; each sets the sink's `limit`. */
    uint64_t max_instructions;   /* callers default to CG_MAX_INSTRUCTIONS_DEFAULT */
    struct ls_deadline deadline;
    /* The SBUF residency plan (codegen/memplan.h), or NULL: every tensor lives in HBM and
     * each op loads its inputs and stores its output. */
    const struct cg_memplan *plan;
    int no_residency;            /* 1: the cost model builds no plan (pre-residency programs) */
};

/* Enumerate op's configurations (every input/output layout admissible, every feasible
 * one listed, capped at CG_MAX_CFGS). pinned_out: -2 = not pinned, else the only allowed
 * pax for the output of a return op's input (used for return ops). */
int cg_op_cfgs(const struct graph *g, const struct sim_target *t, int32_t op, int pinned,
               struct cg_cfgs *out, struct ls_error *err);
void cg_cfgs_free(struct cg_cfgs *c);

/* ---- lowering ------------------------------------------------------------------------ */

/* Where lowering sends instructions. emit returns a handle >= 0 (the program index) or -1
 * with err set. Deps are handles returned earlier. The HBM callbacks may be NULL (pricing):
 * addresses are then 0 and loads have no producer dependencies. */
struct cg_sink {
    void *ctx;
    int64_t (*emit)(void *ctx, const struct sim_instr *in, const int64_t *deps, size_t ndeps,
                    struct ls_error *err);
    /* base address of tensor t stored in layout pax */
    uint64_t (*hbm_addr)(void *ctx, int32_t t, int pax);
    /* handles of the instructions that wrote that buffer (deps of every read) */
    size_t (*hbm_writers)(void *ctx, int32_t t, int pax, const int64_t **out);
    /* record that instruction h wrote (part of) that buffer */
    int (*hbm_wrote)(void *ctx, int32_t t, int pax, int64_t h);
    /* (may be NULL) tensor t in layout pax is the same HBM bytes as src in layout
     * src_pax (a reshape that keeps the element order): one buffer, one writer list.
     * Called before anything addresses t's buffer. */
    int (*hbm_alias)(void *ctx, int32_t t, int pax, int32_t src, int src_pax);
    int32_t op_tag, conv_tag;    /* copied into every instruction */
    uint64_t sbuf_base;          /* this step's SBUF region: [sbuf_base, +sbuf_bytes) */
    uint64_t sbuf_bytes;
    /* The constant ring: SBUF [ring_base, +ring_bytes) shared by every step for loads of
     * weights (cg_ring_alloc); allocations wrap around, ring_next persists across the
     * steps of one sink. ring_used (may be NULL) is told each allocation, so that a
     * program sink can order the new load after the readers of the bytes it reuses. */
    uint64_t ring_base, ring_bytes, ring_next;
    int (*ring_used)(void *ctx, uint64_t addr, uint64_t bytes);
    /* ring_age (may be NULL): how recently ring bytes [addr, +bytes) of this step's
     * allocations were loaded before this step (larger = more recently; -1 = never), so
     * that a double-buffered weight starts in the half its first load waits least for.
     * Addresses do not change prices. */
    int32_t (*ring_age)(void *ctx, uint64_t addr, uint64_t bytes);
    uint32_t psum_bank0, psum_nbanks; /* this step's PSUM banks */
    /* Extra deps of the next emitted instruction (the writers cg_writers found, however
     * many); grown with realloc, freed by the sink's owner. */
    int64_t *xdeps;
    size_t nxdeps, xcap;
    uint64_t emitted;            /* instructions emitted so far (set 0 when building) */
    int limit;                   /* 0, or the code of the cg_options bound that was crossed */
};

/* The SBUF bytes per partition and PSUM banks a step may use: a third of what the resident
 * region leaves (half of the banks), so that two consecutive steps never share buffers (the
 * last third is the constant ring); the region of a step of the given parity starts at
 * cg_step_sbuf_base. */
uint64_t cg_step_sbuf_bytes(const struct sim_target *t, const struct cg_options *o);
uint64_t cg_step_sbuf_base(const struct sim_target *t, const struct cg_options *o, int parity);
uint32_t cg_step_psum_banks(const struct sim_target *t);
/* Point s at the SBUF region and PSUM banks of a step of the given parity (and at the
 * constant ring, keeping ring_next when it lies inside). */
void cg_sink_region(struct cg_sink *s, const struct sim_target *t, const struct cg_options *o,
                    int parity);

/* Lower op under the configuration pax[nslots]. Source and return ops emit nothing (a
 * source's relayout is a conversion, see cg_lower_conversion). LS_ERR_INPUT when the
 * configuration is not feasible. */
int cg_lower_op(const struct graph *g, const struct sim_target *t, const struct cg_options *o,
                int32_t op, const int8_t *pax, struct cg_sink *s, struct ls_error *err);

/* Conversion methods of a tensor from layout `from` to layout `to`. */
enum cg_conv_method {
    CG_CONV_PE,          /* PE identity transpose through PSUM + copy back */
    CG_CONV_DVE,         /* DVE 32x32 block transposes + moves across 32-partition groups */
    CG_CONV_DMA_T,       /* DMA transpose (targets with dma.transpose = 1) */
    CG_CONV_DMA_STRIDED, /* element-granular strided DMA gather (always possible) */
    CG_CONV_COUNT
};
const char *cg_conv_method_name(enum cg_conv_method m);
/* 1 when the method can convert t from -> to on this target. */
int cg_conv_possible(const struct graph *g, const struct sim_target *tg,
                     const struct cg_options *o, int32_t t, int from, int to,
                     enum cg_conv_method m);
int cg_lower_conversion(const struct graph *g, const struct sim_target *tg,
                        const struct cg_options *o, int32_t t, int from, int to,
                        enum cg_conv_method m, struct cg_sink *s, struct ls_error *err);

/* 1 when DMA queue `queue` of target t carries only loads that may run ahead of the
 * previous ops (weights and other constants, which have no producer: loads of the
 * constant ring and constant loads, cg_dma); 0 for any queue that other transfers share
 * (targets with fewer than 8 queues). */
int cg_dma_queue_runs_ahead(const struct sim_target *t, unsigned queue);

/* ---- whole-graph program ------------------------------------------------------------- */

/* Chooses the conversion method (the cost model passes the cheapest by table price). */
typedef enum cg_conv_method (*cg_choose_fn)(void *ctx, int32_t t, int from, int to);

struct cg_compile_stats {
    int64_t ops_lowered, conversions, instructions;
    uint64_t hbm_bytes;
    /* the memory plan: tensors kept in SBUF and spilled to HBM, and their bytes */
    int64_t resident_tensors, spilled_tensors;
    uint64_t resident_bytes, spilled_bytes, resident_region;
    int64_t fused_tensors;       /* fused away: the scores/probabilities of fused attention */
    uint64_t fused_bytes;
    int64_t partial_tensors, aliased_tensors; /* resident in fewer layouts; in their input's
                                                 bytes (--memplan partial) */
    const char *memplan_candidate;            /* which candidate plan, NULL without a plan */
};

/* Lower every op of g under cfg_pax (per op: nslots partition axes, in op-id order) in
 * topological order, with one conversion per distinct (tensor, requested layout) that
 * differs from the produced layout. op_pax[op] points at that op's tuple. */
int cg_compile(const struct graph *g, const struct sim_target *t, const struct cg_options *o,
               const int8_t *const *op_pax, cg_choose_fn choose, void *choose_ctx,
               struct sim_program **out, struct cg_compile_stats *st, struct ls_error *err);
/* cg_compile into *out when it holds a program (of an earlier compile, no longer needed):
 * its memory is reused (sim_program_clear), the result is the same. *out NULL: as
 * cg_compile. On error *out is freed and NULL. */
int cg_compile_reuse(const struct graph *g, const struct sim_target *t,
                     const struct cg_options *o, const int8_t *const *op_pax,
                     cg_choose_fn choose, void *choose_ctx, struct sim_program **out,
                     struct cg_compile_stats *st, struct ls_error *err);

#endif
