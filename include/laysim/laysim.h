/* laysim.h: the public C API of laysim (docs/api.md; Python binding: docs/python.md).
 *
 * Every object is an opaque handle made inside one context. A context is not shared
 * between threads (make one per thread); the objects of different contexts are
 * independent. Functions that can fail return a status code (0 = LAYSIM_OK) and leave
 * the message in the context (laysim_errmsg); they never print and never exit.
 *
 *     laysim_ctx *cx = laysim_new();
 *     laysim_model *m;      laysim_model_load(cx, "zoo:bert-base", NULL, &m);
 *     laysim_target *t;     laysim_target_load(cx, "nc-v2", &t);
 *     laysim_instance *in;  laysim_instance_new(cx, m, t, NULL, &in);
 *     laysim_solution *s;   laysim_instance_solve(cx, in, "exact", NULL, &s);
 *     laysim_program *pr;   laysim_compile(cx, in, s, &pr);
 *     laysim_sim_result r;  laysim_simulate(cx, t, pr, NULL, &r);
 *     ... laysim_solution_cost(s), r.cycles ...
 *     laysim_program_free(pr); laysim_solution_free(s); laysim_instance_free(in);
 *     laysim_target_free(t); laysim_model_free(m); laysim_free(cx);
 *
 * Handles borrowed from another (laysim_instance_problem) live as long as their owner.
 * Free functions accept NULL. Every handle is checked on entry: one of another kind (a
 * program where a target is expected) or one already freed (while its memory still says
 * so) is refused with LAYSIM_EINPUT naming the argument, and ignored by the free
 * functions and the getters (which then return 0, -1 or NULL). A freed handle stays
 * undefined behaviour: the check is a safety net, not a licence. */
#ifndef LAYSIM_LAYSIM_H
#define LAYSIM_LAYSIM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define LAYSIM_API __attribute__((visibility("default")))
#else
#define LAYSIM_API
#endif

/* ---- context and errors ------------------------------------------------------------- */

enum laysim_status {
    LAYSIM_OK = 0,
    LAYSIM_EINPUT = 1,     /* bad input: malformed file, unknown name, bad option */
    LAYSIM_EIO = 2,        /* an output cannot be written */
    LAYSIM_ENOMEM = 3,     /* out of memory */
    LAYSIM_ELIMIT = 4,     /* a time or size limit was reached */
    LAYSIM_EINTERNAL = 5   /* a bug in laysim */
};

typedef struct laysim_ctx laysim_ctx;
typedef struct laysim_model laysim_model;
typedef struct laysim_target laysim_target;
typedef struct laysim_table laysim_table;
typedef struct laysim_instance laysim_instance;
typedef struct laysim_problem laysim_problem;
typedef struct laysim_solution laysim_solution;
typedef struct laysim_program laysim_program;

/* The library's version, "MAJOR.MINOR.PATCH". */
LAYSIM_API const char *laysim_version(void);
/* NULL when out of memory. */
LAYSIM_API laysim_ctx *laysim_new(void);
LAYSIM_API void laysim_free(laysim_ctx *cx);
/* The status and message of the last failed call in cx ("" and 0 after a success). The
 * message names the file, line and field or the option when there is one. */
LAYSIM_API int laysim_errcode(const laysim_ctx *cx);
LAYSIM_API const char *laysim_errmsg(const laysim_ctx *cx);

/* ---- models ------------------------------------------------------------------------- */

/* spec: "zoo:NAME" (laysim zoo lists them), a graph file (.lg), a HuggingFace
 * config.json, an ONNX model (.onnx), a TF.js model.json or an HLO text module (the
 * sources of `laysim graph MODEL`, docs/import.md). options: NULL or a NULL-terminated
 * list of "key=value" strings, each a model option of the CLI (--key value), parsed by the
 * same code: layers, seq, batch, hidden, image, dtype (fp32, bf16, fp16, fp8), decode (a
 * decoder's one-token step over a KV cache of N tokens), autocast (matmul, none) and
 * input (NAME=D1xD2..., the shape of an ONNX or TF.js input; repeatable)
 * (e.g. {"layers=2", "seq=128", NULL}, {"input=x=3x5x32", "input=mask=3x1x1x5", NULL};
 * docs/zoo.md). laysim_model_option_name lists them. */
LAYSIM_API int laysim_model_load(laysim_ctx *cx, const char *spec, const char *const *options,
                                 laysim_model **out);
/* Drops the caller's reference: the model is freed once no instance holds it either. */
LAYSIM_API void laysim_model_free(laysim_model *m);
/* The number of model options, and the name of option i (NULL when out of range). */
LAYSIM_API int32_t laysim_model_option_count(void);
LAYSIM_API const char *laysim_model_option_name(int32_t i);
LAYSIM_API int32_t laysim_model_ops(const laysim_model *m);
LAYSIM_API int32_t laysim_model_tensors(const laysim_model *m);
/* The number of zoo models, and the name of zoo model i (NULL when out of range). */
LAYSIM_API int32_t laysim_zoo_count(void);
LAYSIM_API const char *laysim_zoo_name(int32_t i);

/* ---- targets (hardware configurations, docs/targets.md) ---------------------------- */

/* name_or_file: a built-in target ("nc-v2", "nc-v3") or a target INI file. */
LAYSIM_API int laysim_target_load(laysim_ctx *cx, const char *name_or_file, laysim_target **out);
/* Set one key ("pe.rows", "dma.transpose"...) and re-validate; on failure the target is
 * left as it was. */
LAYSIM_API int laysim_target_set(laysim_ctx *cx, laysim_target *t, const char *key,
                                 const char *value);
LAYSIM_API void laysim_target_free(laysim_target *t);
LAYSIM_API const char *laysim_target_name(const laysim_target *t);
/* The hash `laysim sim --print-target` prints. */
LAYSIM_API uint64_t laysim_target_hash(const laysim_target *t);

/* ---- latency tables (docs/costmodel.md) -------------------------------------------- */

/* The datasheet table of a target. */
LAYSIM_API int laysim_table_default(laysim_ctx *cx, const laysim_target *t, laysim_table **out);
/* A table file (JSON, as `laysim calibrate` writes). */
LAYSIM_API int laysim_table_load(laysim_ctx *cx, const char *path, laysim_table **out);
/* Written atomically. */
LAYSIM_API int laysim_table_write(laysim_ctx *cx, const laysim_table *tb, const char *path);
LAYSIM_API void laysim_table_free(laysim_table *tb);

/* Fit a table from traces and/or the built-in microbenchmarks, exactly as `laysim calibrate`
 * does with its defaults (docs/calibration.md): per instruction, the overlap-aware group fit
 * of traces with op attribution, and with traces of two or more models each model left out
 * in turn (the fit's form chosen on them). When the fit predicts the held-out traces or the
 * models left out worse than the prior, *out is a copy of the prior.
 * prior: NULL = the target's datasheet table; traces: NULL or a NULL-terminated list of
 * .lstrace paths; microbench: 1 to run the microbenchmarks on the target. */
LAYSIM_API int laysim_calibrate(laysim_ctx *cx, const laysim_target *t, const laysim_table *prior,
                                const char *const *traces, int microbench, laysim_table **out);
/* flags for laysim_calibrate_ex: return the fit even when it predicts worse (--keep-worse) */
#define LAYSIM_CALIBRATE_KEEP_WORSE 1u
/* As laysim_calibrate, with programs (NULL, or one program path per trace, in the same
 * order and NULL-terminated: their dependencies let the fit measure the dependency
 * latency, `--programs`) and is_prior (may be NULL): set to 1 when *out is the prior. */
LAYSIM_API int laysim_calibrate_ex(laysim_ctx *cx, const laysim_target *t,
                                   const laysim_table *prior, const char *const *traces,
                                   const char *const *programs, int microbench, unsigned flags,
                                   laysim_table **out, int *is_prior);

/* ---- instances: model + target + table -> the priced layout selection problem ------- */

/* Enumerate and price every configuration of every op, as `laysim problem` does. The
 * instance keeps its own copies of the target and table and holds a reference to the
 * model (laysim_model_free before laysim_instance_free is safe: the model goes with the
 * last instance). table: NULL = the target's datasheet table. */
LAYSIM_API int laysim_instance_new(laysim_ctx *cx, const laysim_model *m, const laysim_target *t,
                                   const laysim_table *table, laysim_instance **out);
LAYSIM_API void laysim_instance_free(laysim_instance *in);
/* The instance's problem (borrowed: lives as long as the instance). */
LAYSIM_API const laysim_problem *laysim_instance_problem(const laysim_instance *in);

/* ---- problems (.lsp, docs/design.md) ----------------------------------------------- */

LAYSIM_API int laysim_problem_read(laysim_ctx *cx, const char *path, laysim_problem **out);
/* Written atomically in the normative format. */
LAYSIM_API int laysim_problem_write(laysim_ctx *cx, const laysim_problem *p, const char *path);
/* Build a problem by hand, in the order of a .lsp file: declare each tensor (L layouts,
 * labels NULL or L names, transpose NULL when L == 1 or the L x L row-major matrix with a
 * zero diagonal) before its producer; add ops in topological order (in: nin tensor ids,
 * out: a tensor id or -1), each followed by its configurations (layouts of the inputs in
 * order, then of the output). Ids are dense from 0. laysim_problem_finish checks the whole
 * problem; only a finished problem can be solved or written. */
LAYSIM_API int laysim_problem_new(laysim_ctx *cx, laysim_problem **out);
LAYSIM_API int laysim_problem_add_tensor(laysim_ctx *cx, laysim_problem *p, const char *name,
                                         int32_t nlayouts, const char *const *labels,
                                         const int64_t *transpose, int32_t *id);
LAYSIM_API int laysim_problem_add_op(laysim_ctx *cx, laysim_problem *p, const char *name,
                                     const char *kind, int32_t nin, const int32_t *in,
                                     int32_t out, int32_t *id);
LAYSIM_API int laysim_problem_add_config(laysim_ctx *cx, laysim_problem *p, int32_t op,
                                         int64_t cost, const int32_t *layouts);
/* The same with the length of the caller's arrays, checked before they are read (bindings
 * use these): ntranspose must be nlayouts * nlayouts (0 with transpose NULL or one layout),
 * nlayouts of a configuration the op's inputs plus its output; LAYSIM_EINPUT otherwise. */
LAYSIM_API int laysim_problem_add_tensor_n(laysim_ctx *cx, laysim_problem *p, const char *name,
                                           int32_t nlayouts, const char *const *labels,
                                           int64_t ntranspose, const int64_t *transpose,
                                           int32_t *id);
LAYSIM_API int laysim_problem_add_config_n(laysim_ctx *cx, laysim_problem *p, int32_t op,
                                           int64_t cost, int32_t nlayouts,
                                           const int32_t *layouts);
LAYSIM_API int laysim_problem_finish(laysim_ctx *cx, laysim_problem *p);
/* Only for problems from laysim_problem_read or _new (not borrowed ones). */
LAYSIM_API void laysim_problem_free(laysim_problem *p);
LAYSIM_API int32_t laysim_problem_ops(const laysim_problem *p);
LAYSIM_API int32_t laysim_problem_tensors(const laysim_problem *p);
/* Names; NULL when out of range. Ops are in topological order. */
LAYSIM_API const char *laysim_problem_op_name(const laysim_problem *p, int32_t op);
LAYSIM_API const char *laysim_problem_op_kind(const laysim_problem *p, int32_t op);
LAYSIM_API const char *laysim_problem_tensor_name(const laysim_problem *p, int32_t tensor);
/* Feasible configurations of op (0 when out of range). */
LAYSIM_API int32_t laysim_problem_op_configs(const laysim_problem *p, int32_t op);
/* The objective of a full assignment (cfg[op] for every op), or -1 when one is out of
 * range. */
LAYSIM_API int64_t laysim_problem_eval(const laysim_problem *p, const int32_t *cfg);

/* ---- solving (docs/solvers.md) ----------------------------------------------------- */

/* The cost of running an assignment (nops configuration indices), lower is better; for
 * laysim, simulated cycles. Return 0, or non-zero to stop the solver with an error. A
 * design that cannot run scores HUGE_VAL. */
typedef int (*laysim_reward_fn)(void *user, const int32_t *cfg, int32_t nops, double *reward);

typedef struct laysim_solve_options {
    double time_limit;             /* seconds; <= 0: none */
    uint64_t seed;                 /* randomized solvers (default 1) */
    int threads;                   /* 1: no solver uses threads yet; > 1 is refused */
    uint64_t node_limit;           /* count budget; 0: none */
    const char *const *params;     /* NULL or NULL-terminated "key=value" knobs */
    /* mcts's reward. NULL: laysim_instance_solve uses the simulated time of the program
     * (compile + simulate on the instance's target); laysim_solve has none. */
    laysim_reward_fn reward;
    void *reward_user;
} laysim_solve_options;

/* Defaults: no limits, seed 1, one thread, no params, no reward. */
LAYSIM_API void laysim_solve_options_init(laysim_solve_options *o);
/* The number of registered solvers, and the name and summary of solver i (NULL when out
 * of range). */
LAYSIM_API int32_t laysim_solver_count(void);
LAYSIM_API const char *laysim_solver_name(int32_t i);
LAYSIM_API const char *laysim_solver_summary(int32_t i);

/* Run solver `solver` on a problem. o: NULL = defaults. The cost is re-checked against an
 * independent evaluation of the objective. */
LAYSIM_API int laysim_solve(laysim_ctx *cx, const laysim_problem *p, const char *solver,
                            const laysim_solve_options *o, laysim_solution **out);
/* The same on an instance's problem; mcts gets the simulated time as its reward unless
 * o->reward is set. */
LAYSIM_API int laysim_instance_solve(laysim_ctx *cx, const laysim_instance *in, const char *solver,
                                     const laysim_solve_options *o, laysim_solution **out);

/* ---- solutions (.sol) -------------------------------------------------------------- */

/* Solutions are tied to their problem: a solution carries the problem's hash headers
 * (model, target, table, codegen version, problem; the `# key: value` lines of `laysim
 * solve`), so a .sol written here is the CLI's for the same model, target and table. */

enum laysim_solution_status { LAYSIM_UNKNOWN = 0, LAYSIM_FEASIBLE = 1, LAYSIM_OPTIMAL = 2 };

/* A .sol for problem p (names must be p's ops); its cost is verified. */
LAYSIM_API int laysim_solution_read(laysim_ctx *cx, const laysim_problem *p, const char *path,
                                    laysim_solution **out);
LAYSIM_API int laysim_solution_write(laysim_ctx *cx, const laysim_problem *p,
                                     const laysim_solution *s, const char *path);
LAYSIM_API void laysim_solution_free(laysim_solution *s);
/* enum laysim_solution_status, and its name ("optimal", "feasible", "unknown"). */
LAYSIM_API int laysim_solution_status(const laysim_solution *s);
LAYSIM_API const char *laysim_solution_status_name(const laysim_solution *s);
/* 1 when the solution has an assignment (every op configured). */
LAYSIM_API int laysim_solution_has_assignment(const laysim_solution *s);
/* The objective (undefined without an assignment). */
LAYSIM_API int64_t laysim_solution_cost(const laysim_solution *s);
/* 1 and *bound = the proven lower bound when the solver proved one. */
LAYSIM_API int laysim_solution_bound(const laysim_solution *s, int64_t *bound);
/* Wall-clock seconds of the solve (0 for a solution read from a file). */
LAYSIM_API double laysim_solution_seconds(const laysim_solution *s);
/* The configuration index of op (-1 without an assignment or out of range). */
LAYSIM_API int32_t laysim_solution_config(const laysim_solution *s, int32_t op);
/* The layout tensor `tensor` is produced in: its index (-1 when out of range or without
 * an assignment), and in *label (may be NULL) its label ("p:hidden") or NULL when the
 * problem has no labels for it. */
LAYSIM_API int32_t laysim_solution_layout(const laysim_problem *p, const laysim_solution *s,
                                          int32_t tensor, const char **label);
/* The rest of the listing of `laysim solve --layouts`, computed by the same code. The
 * producer op of tensor, and the number of its uses (input slots that read it); -1 / 0
 * when out of range. */
LAYSIM_API int32_t laysim_problem_tensor_producer(const laysim_problem *p, int32_t tensor);
LAYSIM_API int32_t laysim_problem_tensor_uses(const laysim_problem *p, int32_t tensor);
/* Use i of tensor: the layout it requests under s (-1 when out of range or without an
 * assignment), its op in *op and input slot in *slot, *label as above (each may be NULL). */
LAYSIM_API int32_t laysim_solution_use_layout(const laysim_problem *p, const laysim_solution *s,
                                              int32_t tensor, int32_t i, int32_t *op,
                                              int32_t *slot, const char **label);
/* The conversions the objective charges for tensor under s, one per requested layout other
 * than the produced one, in layout order: conversion i's destination layout (-1 past the
 * last), its label in *label and its cost in *cost (each may be NULL). */
LAYSIM_API int32_t laysim_solution_conversion(const laysim_problem *p, const laysim_solution *s,
                                              int32_t tensor, int32_t i, const char **label,
                                              int64_t *cost);

/* ---- programs and the simulator ---------------------------------------------------- */

/* Lower every op of the instance's model under the solution's configurations (NULL: cfg 0
 * everywhere), inserting one conversion per distinct consumer layout (`laysim compile`).
 * A solution tied to another problem (its hash headers, docs/formats.md, name another
 * model, target, table, codegen or problem) is refused with LAYSIM_EINPUT naming what
 * differs; one without headers (hand-written, from an external solver) is accepted. */
LAYSIM_API int laysim_compile(laysim_ctx *cx, const laysim_instance *in, const laysim_solution *s,
                              laysim_program **out);
/* flags for laysim_compile_ex: compile a mismatched solution anyway (--ignore-mismatch). */
#define LAYSIM_IGNORE_MISMATCH 1u
LAYSIM_API int laysim_compile_ex(laysim_ctx *cx, const laysim_instance *in,
                                 const laysim_solution *s, unsigned flags, laysim_program **out);
/* Program text (.lsprog, docs/formats.md). */
LAYSIM_API int laysim_program_load(laysim_ctx *cx, const char *path, laysim_program **out);
LAYSIM_API int laysim_program_write(laysim_ctx *cx, const laysim_program *pr, const char *path);
LAYSIM_API void laysim_program_free(laysim_program *pr);
LAYSIM_API uint64_t laysim_program_instructions(const laysim_program *pr);

/* Engines, in the order of laysim_sim_result.engine: pe, act, dve, pool, dma. */
#define LAYSIM_ENGINES 5
LAYSIM_API const char *laysim_engine_name(int engine);

typedef struct laysim_engine_result {
    uint64_t instructions;
    uint64_t busy_cycles;          /* in the engine's own clock */
    double utilization;            /* busy time / total time */
} laysim_engine_result;

typedef struct laysim_sim_result {
    uint64_t cycles;               /* total, in the target's base clock */
    double ns;
    uint64_t instructions;
    uint64_t dma_bytes;
    double conversion_share;       /* layout conversions' share of instruction time */
    laysim_engine_result engine[LAYSIM_ENGINES];
} laysim_sim_result;

/* Run a program on target t (`laysim sim`); trace_path: NULL, or a .lstrace to write with
 * one record per instruction. */
LAYSIM_API int laysim_simulate(laysim_ctx *cx, const laysim_target *t, const laysim_program *pr,
                               const char *trace_path, laysim_sim_result *out);

/* ---- fidelity against measured times (`laysim validate --measured`) ---------------- */

/* The paper's figures over every model of a manifest (docs/formats.md, "Validation
 * manifests"); an undefined figure (no pairs, no rows) is NaN. */
typedef struct laysim_fidelity {
    int32_t models, rows;
    int32_t pairs, pairs_correct, pairs_identical;
    double pairwise_accuracy;      /* pairs_correct / pairs, 0.5% tie band */
    double kendall_tau;            /* mean over models */
    double median_rel_error, max_rel_error;   /* |predicted - measured| / measured */
    int32_t exact_within_1pct_all; /* over the models with an "exact" row */
} laysim_fidelity;
/* Read a manifest whose rows carry measured times (as `laysim validate --emit` writes it,
 * filled in) and compare them with its predicted costs; base_mhz: the clock of rows
 * without a base_mhz column (<= 0: 1400, nc-v2's). Bad manifests: LAYSIM_EINPUT naming the
 * file, line and column. */
LAYSIM_API int laysim_validate_measured(laysim_ctx *cx, const char *manifest, double base_mhz,
                                        laysim_fidelity *out);

#ifdef __cplusplus
}
#endif

#endif
