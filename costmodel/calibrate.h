/* costmodel/calibrate: fitting latency tables from traces (docs/calibration.md).
 *
 * Two fits:
 *  - per instruction (cm_calib_fit): samples are single instructions (microbenchmarks run
 *    in isolation, or any trace); each table entry (opcode, dtype, mem) gets its own fit:
 *    compute  cycles = a + max(b, c N): a knee search over kappa = b / c with a robust
 *             (bisquare) linear fit of y = a + c max(kappa, N) per candidate;
 *    DMA      ns = fixed + D max(desc_min, chunk / bw): a knee search over the chunk size
 *             with a robust fit of y = fixed + desc_min (D [chunk < k]) + (D chunk [chunk >= k]) / bw;
 *  - per group (cm_group_fit): samples are groups (one operator's or one conversion's
 *    instructions in a whole program) with their exposed simulated time; the fit scales
 *    each entry's latency term (a, fixed_ns) and throughput term (b, c / desc_min, 1/bw)
 *    and sets group_ns, so that the aggregated group cost matches the exposed time
 *    (least squares; for "max" the argmax engine of each group is re-linearized a few
 *    times). This absorbs engine overlap and contention the per-instruction form cannot
 *    see. From traces (cm_trace_group_fit) the scales are tied by default: one latency and
 *    one throughput scale for every entry, fitted to program totals (struct cm_groups). */
#ifndef LS_COSTMODEL_CALIBRATE_H
#define LS_COSTMODEL_CALIBRATE_H

#include <stddef.h>
#include <stdint.h>

#include "costmodel/costmodel.h"
#include "sim/program.h"
#include "sim/target.h"
#include "traces/record.h"
#include "util/error.h"

/* ---- samples ------------------------------------------------------------------------ */

struct cm_sample {
    int opcode, engine, dtype, mem;
    double n;          /* compute: N of the price formula */
    double y;          /* compute: cycles in the engine clock; DMA: ns */
    double d;          /* DMA: descriptors per engine (ceil(P / engines) x chunks per row) */
    double chunk;      /* DMA: bytes per chunk */
};

struct cm_calib {
    struct cm_sample *s;
    size_t n, cap;
    /* Share of each entry's samples held out of its fit (every k-th sample, k = 1/share)
     * to judge it against the prior; cm_calib_init sets CM_HOLDOUT_DEFAULT, 0 = none. */
    double holdout;
    /* The largest pipeline latency a trace showed per engine, engine cycles
     * (cm_pipe_adjust: taken off its samples by cm_calib_add_trace) */
    double pipe_lat[LS_ENGINE_COUNT];
};

#define CM_HOLDOUT_DEFAULT 0.2

void cm_calib_init(struct cm_calib *c);
void cm_calib_free(struct cm_calib *c);
int cm_calib_push(struct cm_calib *c, const struct cm_sample *s);
/* One trace record (opcode given by name, clocks from the trace header) -> one sample;
 * records of unknown opcodes are skipped (returns 0). dma_engines: of the target. */
int cm_calib_add_record(struct cm_calib *c, const struct trace_record *r, const char *opcode,
                        uint64_t tick_hz, const uint32_t *clock_mhz, uint32_t dma_engines);
/* The sample of one record (0: not usable: unknown opcode, empty, no clock), 1: *s set. */
int cm_record_sample(const struct trace_record *r, const char *opcode, uint64_t tick_hz,
                     const uint32_t *clock_mhz, uint32_t dma_engines, struct cm_sample *s);
/* The sample of one instruction, as the cost model prices it (y = 0): the table key
 * (opcode; dtype and mem of the source, else of the destination; PSUM when a
 * tensor_tensor's second source is in PSUM) and the features of sim_features. A record of
 * the instruction run by the simulator gives the same sample (cm_record_sample), but for
 * the key of a tensor_tensor whose only PSUM source is the second: records carry no
 * second source. */
void cm_instr_sample(const struct sim_target *t, const struct sim_instr *in,
                     struct cm_sample *s);
/* The price of sample s under entry e, as the cost model prices an instruction: the fixed
 * and variable parts in the engine's unit (engine cycles; ns for DMA) and the factor to
 * base-clock cycles (docs/costmodel.md, "Compute entries"). */
void cm_entry_parts(const struct cm_entry *e, const struct sim_target *t,
                    const struct cm_sample *s, double *fixed, double *var, double *to_base);
/* Every record of a .lstrace file. */
int cm_calib_add_trace(struct cm_calib *c, const char *path, uint32_t dma_engines,
                       struct ls_error *err);

/* The pipeline latency of each (engine, opcode) of one trace's compute samples s[0..n)
 * (records' start and end ticks), measured from the overlap of consecutive instructions
 * of that opcode on that engine (costmodel/fit_pipe.c), is taken off their cycles, so
 * that they measure occupancy. lat_cycles (may be NULL): per engine, the largest latency
 * taken off, in engine cycles. */
int cm_pipe_adjust(struct cm_sample *s, const uint64_t *start, const uint64_t *end, size_t n,
                   uint64_t tick_hz, const uint32_t *clock_mhz, double *lat_cycles);

/* ---- per-instruction fit -------------------------------------------------------------- */

#define CM_RESID_MAX 64

/* What became of a table entry (cm_verdict_name: "good", "weak"...). */
enum cm_verdict {
    CM_KEPT_PRIOR,             /* fewer than CM_FIT_MIN_SAMPLES samples: the prior is kept */
    CM_REJECTED,               /* the fit predicts its held-out samples worse than the prior
                                  does: the prior is kept */
    CM_WEAK,                   /* fitted; R2 < 0.9 or median relative error > 10% */
    CM_GOOD                    /* fitted; R2 >= 0.9 and median relative error <= 10% */
};
#define CM_FIT_MIN_SAMPLES 3
const char *cm_verdict_name(enum cm_verdict v);

struct cm_fit_entry {
    int entry;                 /* index in the table */
    int samples;
    int fitted;                /* verdict good or weak: the entry holds the fitted values */
    enum cm_verdict verdict;
    int held_out;              /* samples held out of the fit */
    double holdout_fit, holdout_prior; /* their median relative error: fit / prior (NAN: none) */
    double r2, max_rel, median_rel;    /* of the entry's values over all its samples */
    int nresid;                /* residual plot data: x (N or D), measured, predicted */
    double rx[CM_RESID_MAX], ry[CM_RESID_MAX], rp[CM_RESID_MAX];
};

struct cm_fit_report {
    int n;
    struct cm_fit_entry e[96];
    int verdicts[4];            /* entries per enum cm_verdict */
    int held_out;               /* samples held out over all entries */
    double holdout_fit, holdout_prior; /* their median relative error: table / prior */
    double pipe_lat[LS_ENGINE_COUNT];  /* struct cm_calib: pipe_lat (engine cycles) */
};

/* Fit every entry of prior that has at least CM_FIT_MIN_SAMPLES samples; the others keep
 * their values. An entry with held-out samples (c->holdout) is first fitted without them;
 * when that fit predicts them worse than the prior (median relative error), the entry keeps
 * the prior (rejected); otherwise it is refitted on all its samples.
 * out may be prior. rep may be NULL. */
int cm_calib_fit(const struct cm_calib *c, const struct cm_table *prior, struct cm_table *out,
                 struct cm_fit_report *rep, struct ls_error *err);

/* Index of the table entry an instruction with (opcode, dtype, mem) is priced by, or -1. */
int cm_table_find(const struct cm_table *tb, int opcode, int dtype, int mem);

/* Model value of entry e for a sample (engine cycles / ns, unrounded). */
double cm_entry_eval(const struct cm_entry *e, const struct cm_sample *s);

/* ---- the microbenchmarks ------------------------------------------------------------ */

/* Build the microbenchmark instructions for target t: for every opcode, sweeps of the
 * parameters its cost depends on. Each is a one-instruction program; fn is called with
 * each (stop on non-zero). Instructions the target rejects are skipped. */
typedef int (*cm_micro_fn)(void *ctx, const struct sim_program *p, struct ls_error *err);
int cm_microbench(const struct sim_target *t, cm_micro_fn fn, void *ctx, size_t *count,
                  struct ls_error *err);
/* Run every microbenchmark in the simulator and add its samples (and, when trace_path is
 * not NULL, write all records into one trace). */
int cm_microbench_run(const struct sim_target *t, struct cm_calib *c, const char *trace_path,
                      size_t *count, struct ls_error *err);

/* ---- per-group fit ------------------------------------------------------------------ */

/* The price of one instruction split into the latency part (a / fixed_ns) and the
 * throughput part, in base-clock cycles (unrounded), with its table entry (-1: none). */
struct cm_parts {
    int16_t entry;
    uint8_t engine;
    uint8_t dep;               /* CM_DEP: it depends on its engine's previous instruction
                                  in its group; CM_DEP_TINY: and its N is below the
                                  table's dep_tiny_free (struct cm_table: dep) */
    float fixed, var;          /* without the dependency latency */
    float cyc;                 /* base-clock cycles per cycle of its engine */
};
#define CM_DEP 1
#define CM_DEP_TINY 2
/* dep: whether in depends on the previous instruction of its engine in its group
 * (cm_program_dep_flags). */
void cm_price_parts(const struct cm_table *tb, const struct sim_target *t,
                    const struct sim_instr *in, int dep, struct cm_parts *out);
/* The dep bits of an instruction on engine with N elements (0 off the vector engines). */
uint8_t cm_parts_dep(const struct cm_table *tb, int engine, int dep, double N);

/* How the group fit ties its scales: one latency and one throughput scale per entry
 * (CM_TIE_NONE), for every entry (CM_TIE_ALL), or per class, DMA entries and compute
 * entries (CM_TIE_DMA: four scales). */
enum cm_tie { CM_TIE_NONE, CM_TIE_ALL, CM_TIE_DMA };

/* Group samples: features under the table the parts were computed with. */
struct cm_groups {
    int nent;                  /* table entries (features per engine: 2 * nent) */
    size_t n, cap;             /* rows, room in y (capw, capx: in w and x) */
    double *y;                 /* exposed time, base-clock cycles */
    double *x;                 /* n * LS_ENGINE_COUNT * 2 * nent */
    double *w;                 /* weights */
    size_t capw, capx;
    /* Programs: rows [pstart[k], pstart[k + 1]) (the last ends at n) are program k's
     * groups. Programs with the same key >= 0 (one model's programs) also give the fit a
     * difference row each pair: predicted(A) - predicted(B) against simulated(A) -
     * simulated(B), because layout selection ranks a model's programs by exactly that
     * difference, which matching every group's time on its own fits only loosely. */
    size_t nprog, capprog, capkey;
    size_t *pstart;
    int32_t *pkey;
    /* 0: one latency and one throughput scale per table entry; 1 (tied): one latency
     * scale and one throughput scale shared by every entry. The per-instruction fit has
     * already measured each instruction; what whole programs add is how much of that
     * overlaps, and few programs (three models' traces) cannot pin 2 x entries scales
     * without fitting their noise (docs/calibration.md: tied scales on unseen models). */
    int tied;                  /* enum cm_tie */
    unsigned char dma_entry[96]; /* CM_TIE_DMA: entry k is a DMA entry */
    /* 0: one row per group (its exposed time); 1: one row per program (its time). A
     * group's exposed time is the growth of the running end in program order, which a
     * prefetched load (issued for a later operator, run under an earlier one's compute)
     * moves from group to group; a program's total is what the layout choice pays. */
    int totals;
    /* 1: the rows charge the DMA latency once per group, as a table with dma_group prices
     * it (cm_groups_add_trace under such a table): the fitted table keeps that rule.
     * 0: every DMA its fixed_ns, and the fitted table says so (no dma_group). */
    int dma_once;
    /* n * LS_ENGINE_COUNT: instructions per engine of each row, for pricing rows under
     * a "pipe" table (a datasheet prior) */
    double *count;
    size_t capc;
    /* "max" only. 0: the fit keeps the table's serial_share; 1: it also fits the share
     * (a grid over 0..1, the one with the least squared error kept): the part of the
     * non-largest engines' sums a group's dependency chain does not overlap. */
    int fit_serial;
    /* 1: the fit also adds one issue latency A (engine cycles, >= 0) to every vector
     * instruction (ACT, DVE, POOL): its features are the rows' instruction counts. A scale
     * cannot create a latency the base table does not have (the datasheet's vector
     * entries have a = 0), yet a chain of dependent vector instructions waits on each
     * one's predecessor (docs/history.md: a normalization's exposed time). */
    int fit_issue;
    double issue_cyc[LS_ENGINE_COUNT];  /* set by cm_group_fit: base cycles per engine
                                           cycle of the engines A applies to, else 0 */
    /* The dependency latency (struct cm_table: dep). dcount: n * LS_ENGINE_COUNT * 2, per
     * row and engine the dependent instructions and the tiny ones among them, each counted
     * in base cycles per engine cycle (so that a latency in engine cycles times it is base
     * cycles). dep0: the latency of the table the rows were priced under (engine cycles,
     * per engine, then the tiny extra at [LS_ENGINE_COUNT]), which the rows' predictions
     * include; fit_dep = 1: the fit solves for it instead (one per vector engine and the
     * tiny extra, ridge towards dep0). */
    double *dcount;
    size_t capd;
    double dep0[LS_ENGINE_COUNT + 1];
    int fit_dep;
    /* The measured gaps (costmodel/fit_dep.c): per dependent vector instruction whose
     * engine's previous instruction is the one it waits for, its start minus that one's
     * end, in engine cycles. With fit_dep, cm_group_fit takes the latency from them
     * instead of fitting it. */
    struct cm_dep_gap *gap;
    size_t ngap, capgap;
    /* per row: 1 when it is a layout conversion's group (its records carry a conversion
     * id, no op id), which a table's exposed_share does not discount */
    unsigned char *conv;
    size_t capv;
};
struct cm_dep_gap {
    uint8_t engine, tiny;
    float cycles;
};
/* Record the gaps of one program's records (cm_groups_add_program's arguments; tick_mhz
 * ticks per microsecond, base_mhz the base clock). */
int cm_groups_add_gaps(struct cm_groups *g, const struct cm_parts *parts,
                       const struct trace_record *rec, const int32_t *tag, size_t n,
                       uint64_t tick_mhz, uint32_t base_mhz);
/* The dependency latency the gaps measure, into dep (engine cycles per engine, then the
 * tiny extra at [LS_ENGINE_COUNT]; in: the prior's, kept where nothing is measured);
 * returns the number of gaps used (0: dep unchanged). */
size_t cm_groups_dep_measure(const struct cm_groups *g, double *dep);
/* Take the dependency latency of the table the rows are priced under (g->dep0). */
void cm_groups_set_dep(struct cm_groups *g, const struct cm_table *tb);
/* Whether any row has a dependent instruction (fit_dep has something to fit). */
int cm_groups_dep_seen(const struct cm_groups *g);
void cm_groups_init(struct cm_groups *g, int nent);
void cm_groups_free(struct cm_groups *g);
/* Add one program's groups: parts[i] and rec[i] for instruction i (records indexed by
 * instruction id), tag[i] = op / conversion tag id of instruction i (-1: own group). The
 * exposed time of a group: the growth of the running maximum end time over the group's
 * instructions in program order, so the groups' exposed times sum to the program time.
 * key: the model the program belongs to (programs of one key are ranked against each
 * other by the fit, see struct cm_groups); -1: none. */
int cm_groups_add_program(struct cm_groups *g, const struct cm_parts *parts,
                          const struct trace_record *rec, const int32_t *tag, size_t n,
                          size_t ntags, uint64_t tick_mhz, uint32_t base_mhz, double weight,
                          int32_t key);
/* Append every row and program of src to dst (same nent); keys are kept as they are. */
int cm_groups_append(struct cm_groups *dst, const struct cm_groups *src);
/* Add the groups of one trace (one program run) whose records carry op or conversion
 * attribution: the parts of each record are priced under tb from the record's shape (the
 * program itself is not needed), records in instruction-id order, groups by op/conversion
 * name, weight 1 / (program time)^2. *attributed: records with a group (0: the trace
 * carries no attribution, nothing was added). */
/* key CM_KEY_BY_OPS: one key per set of operator names, i.e. per model (a layout changes
 * the conversions, not the operators), so one model's traces rank against each other. */
#define CM_KEY_BY_OPS (-2)
/* program (NULL: none): the program the trace ran (its records matched by instruction id),
 * whose dependencies mark the records that depend on their engine's previous instruction
 * (struct cm_groups: dcount); a trace alone does not carry them. */
int cm_groups_add_trace(struct cm_groups *g, const struct cm_table *tb,
                        const struct sim_target *t, const char *path, const char *program,
                        int32_t key, size_t *attributed, struct ls_error *err);

/* Scales of the group fit (calibrate --traces and the loop):
 *   CM_SCALES_SPLIT  (the loop's default until 2026-12-02) a latency and a throughput
 *                    scale for the DMA entries, another pair for the compute entries (and
 *                    group_ns), fitted to each
 *                    program's total time, with the ranking rows of programs that share
 *                    their operators: in programs whose weight loads run under earlier
 *                    operators' compute, how much of the compute stays exposed differs
 *                    from how much of the DMA does (docs/calibration.md);
 *   CM_SCALES_TIED   (the loop's default) the same with one latency and one throughput
 *                    scale for every entry;
 *   CM_SCALES_ENTRY  one latency and one throughput scale per entry, fitted to each
 *                    group's exposed time (the loop's form until 2026-12-01);
 *   CM_SCALES_AUTO   (calibrate --traces' default) with traces of two or more models,
 *                    cm_calibrate fits split, tied, tied with an issue latency and no
 *                    group fit, and keeps the one whose fits predict the models left out
 *                    best (costmodel/calib_run.h); here,
 *                    with one model's traces, the one that predicts the held-out traces
 *                    better (split when nothing is held out); elsewhere it means split. */
enum cm_group_scales { CM_SCALES_TIED, CM_SCALES_ENTRY, CM_SCALES_SPLIT, CM_SCALES_AUTO };
const char *cm_group_scales_name(enum cm_group_scales s);
/* Parse "tied", "split", "entry" or "auto"; -1: none of them. */
int cm_group_scales_parse(const char *name);

/* The form of a group fit: its scales, and whether it also fits the serial share of a
 * "max" table (struct cm_groups: fit_serial). */
struct cm_fit_form {
    enum cm_group_scales scales;
    int fit_serial;
    int fit_issue;             /* struct cm_groups: fit_issue */
    int fit_dep;               /* struct cm_groups: fit_dep */
    /* 1: the fitted table charges the DMA latency once per group (struct cm_table:
     * dma_group), as the simulator exposes it, and the fit's rows price it that way;
     * 0: every DMA its fixed_ns (the prior's rule when it has no dma_group). */
    int dma_group;
};
#define CM_FIT_FORM_DEFAULT ((struct cm_fit_form){CM_SCALES_SPLIT, 0, 0, 1, 0})
/* Set g up for form: ties, rows (program totals unless per-entry), which entries of base
 * are DMA entries. Call before adding groups or before cm_group_fit. */
void cm_groups_set_form(struct cm_groups *g, struct cm_fit_form form,
                        const struct cm_table *base);

/* The overlap-aware stage of `calibrate --traces`: the group fit (aggregation agg) of tb
 * (in: the per-instruction fit; out: scaled) on the traces that carry op attribution,
 * every k-th trace (k = 1 / holdout, when two remain to fit) held out and predicted before
 * and after. With held-out traces the fit is also made from the prior, and the base (and,
 * for CM_SCALES_AUTO, the form) whose fit predicts them better is kept. done = 0 when no trace carries attribution (tb
 * unchanged). */
struct cm_trace_fit {
    int done;
    int from_prior;                    /* the group fit scaled the prior, not the
                                          per-instruction fit (it predicted the held-out
                                          traces better) */
    int fitted_traces, held_traces;
    struct cm_fit_form form;           /* of the fit kept */
    int auto_form;                     /* the form was chosen (CM_SCALES_AUTO) */
    size_t groups, attributed;         /* groups fitted; records with an op or conversion */
    int dep_rows;                      /* the fitted rows have dependent instructions (the
                                          traces came with their programs) */
    size_t dep_gaps;                   /* gaps the dependency latency was measured from
                                          (costmodel/fit_dep.c; 0: fitted or kept) */
    double dep[LS_ENGINE_COUNT + 1];   /* the kept table's dependency latency (engine
                                          cycles; [LS_ENGINE_COUNT]: the tiny extra) */
    double rel_in;                     /* in-sample weighted relative error of the fitted
                                          rows (groups, or program totals when tied) */
    double held_prior, held_before, held_after; /* median relative error of the held-out
                                          programs' time: prior / per-instruction table /
                                          group-fitted table */
};
/* progs: NULL, or per trace its program (NULL: none), see cm_groups_add_trace. */
int cm_trace_group_fit(const char *const *paths, const char *const *progs, int n,
                       const struct sim_target *t,
                       double holdout, enum cm_aggregate agg, struct cm_fit_form form,
                       const struct cm_table *prior,
                       struct cm_table *tb, struct cm_trace_fit *rep, struct ls_error *err);

/* A key shared by the traces of one model's programs (a hash of its operators' names: a
 * layout changes the conversions, not the operators); -1 when no record carries op
 * attribution. */
int cm_trace_model_key(const char *path, int32_t *key, struct ls_error *err);

/* The paper's equality band: two times a and b are equal when |a - b| < CM_EQ_BAND
 * min(a, b). cm_cmp3: -1 when a < b, 0 when equal within the band, +1 when a > b. */
#define CM_EQ_BAND 0.005
int cm_cmp3(double a, double b);

/* How a table predicts the programs of some traces: the median relative error of the
 * predicted (priced under tb) against the measured program times (NAN when no trace
 * carries op attribution), and the pairs of programs it ranks as the measurements do
 * (cm_cmp3 on both sides; the paper's pairwise accuracy is correct / pairs). */
struct cm_held {
    double median;
    int pairs, correct;
};
/* cm_held of the programs of the traces paths[k] with mask[k] set (progs: as in
 * cm_groups_add_trace). */
int cm_trace_programs_judge(const char *const *paths, const char *const *progs, int n,
                            const unsigned char *mask, const struct cm_table *tb,
                            const struct sim_target *t, struct cm_held *out,
                            struct ls_error *err);

/* tb's exposed_share measured on the traces (cm_groups_exposed_share of their programs,
 * priced under tb): set when some trace has op groups, else tb is left as it was. */
int cm_trace_share_fit(const char *const *paths, const char *const *progs, int n,
                       const struct sim_target *t, struct cm_table *tb, struct ls_error *err);

/* The dependency latency of tb measured from the gaps of the traces that came with their
 * programs (progs[k] for paths[k]; costmodel/fit_dep.c), without a group fit: engines
 * with too few gaps keep tb's. *gaps: the gaps used (0: tb unchanged). */
int cm_trace_dep_measure(const char *const *paths, const char *const *progs, int n,
                         const struct sim_target *t, struct cm_table *tb, size_t *gaps,
                         struct ls_error *err);

/* Program k of g (parts priced under some table T): T's predicted time and the measured
 * time, base-clock cycles; group_cycles: T's per-group latency for "max" (group_ns in
 * base cycles) and serial share; share: T's exposed_share (1 without it), which every
 * group but a conversion's is charged. *conv (may be NULL): the conversions' part. */
void cm_groups_program_time(const struct cm_groups *g, size_t k, enum cm_aggregate agg,
                            double group_cycles, double serial, double share,
                            double *predicted, double *measured, double *conv);
/* The exposed_share that prices g's programs best in the median: over the programs with
 * a measured time and op groups, the median of (measured - conversions' price) / ops'
 * price, every group priced in full under T (as cm_groups_program_time); 0 when there
 * is none. */
double cm_groups_exposed_share(const struct cm_groups *g, enum cm_aggregate agg,
                               double group_cycles, double serial);

/* Fit scales into tb (whose entries produced the parts) for aggregation mode agg.
 * in-sample relative error of the summed prediction goes to *rel (may be NULL). */
int cm_group_fit(const struct cm_groups *g, enum cm_aggregate agg, const struct sim_target *t,
                 struct cm_table *tb, double *rel, struct ls_error *err);

#endif
