/* study/study: the study driver behind `laysim study` and `laysim whatif` (docs/study.md).
 *
 * A study is a grid of independent cells. One *job* is one (model, target) pair; it
 * builds the model, then for each latency table (the target's datasheet table and the
 * table calibrated on the target by the calibration loop's fit, in sample on the study's
 * own programs) runs the pipeline (study/pipeline.h) with each strategy (local, greedy,
 * rulebased, exact), under the datasheet table also the treewidth DP (solve only,
 * under a time and memory limit), and, when o.mcts_evaluations > 0, the autotuner
 * ("mcts": MCTS over layout plans started from exact's assignment, rewarded by simulated
 * time; study/study_tune.h) under each table. Each (model, target, strategy, table) result is one
 * row of the results database (study/db.h); the report (report/report.h) is computed
 * from the store alone, so a resumed, sharded or merged run gives the same report as one
 * run.
 *
 *     struct study_opts o;  study_opts_init(&o);
 *     study_models_select("quick", &o.models, &err);
 *     study_targets_from_sets(&base, sets, nsets, &o.targets, &err);   // whatif
 *     study_run(&o, store, &summary, &err);
 */
#ifndef LS_STUDY_STUDY_H
#define LS_STUDY_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "costmodel/costmodel.h"
#include "graph/zoo.h"
#include "sim/target.h"
#include "study/db.h"
#include "study/pipeline.h"
#include "util/error.h"

/* ---- model sets ----------------------------------------------------------------------- */

struct study_model {
    char name[64];        /* the row key: "bert-base" */
    char spec[1024];      /* model_load spec: "zoo:bert-base", or a model file's path */
    char family[32];      /* zoo family of the entry ("encoder", "vision"...) */
    char group[32];       /* Table 1 group: "dense" or "complex" */
    struct zoo_opts opts; /* scaling */
    char scale[96];       /* the scaling as text ("--layers 2 --hidden 256"), "" = none */
};

struct study_models {
    struct study_model *m;
    size_t n, cap;             /* grown by util/vec's ls_vec_reserve_ */
};

/* SET: "quick" (default set: one model per architecture family, scaled down so the whole
 * study takes a few minutes on 2 cores), "full" (every zoo model at its published size),
 * "all-quick" (every zoo model at the quick scale), or a comma-separated list of zoo names
 * (optionally NAME:quick to take the quick scale) and model files (an entry with a '/' or
 * ending in .json, .lg or .onnx: its path, row key its base name, or the directory name of
 * a .../NAME/model.json). LS_ERR_INPUT naming the bad entry. */
int study_models_select(const char *set, struct study_models *out, struct ls_error *err);
void study_models_free(struct study_models *ms);

/* ---- targets -------------------------------------------------------------------------- */

struct study_target {
    char label[160];      /* row key: the base name, then " KEY=V" for each varied key */
    char variant[128];    /* "" for the base target, else "KEY=V KEY=V" */
    struct sim_target t;
};

struct study_targets {
    struct study_target *t;
    size_t n, cap;             /* grown by util/vec's ls_vec_reserve_ */
};

/* The cartesian product of sets[i] = "KEY=V1,V2,..." over base (first key varies slowest).
 * Every key and value is validated (sim_target_set + sim_target_validate on every
 * variant) before returning; LS_ERR_INPUT names the key or value. When include_base is set
 * and no variant equals the base (by target hash), the base comes first. */
int study_targets_product(const struct sim_target *base, const char *const *sets,
                          size_t nsets, int include_base, struct study_targets *out,
                          struct ls_error *err);
void study_targets_free(struct study_targets *ts);

/* ---- running -------------------------------------------------------------------------- */

/* "K/N" with 1 <= K <= N. */
int study_parse_shard(const char *s, int *k, int *n, struct ls_error *err);


struct study_opts {
    struct study_models models;
    struct study_targets targets;
    int calibrate;             /* also run everything under the calibrated table (default 1) */
    int resume;                /* skip jobs whose cells are all in the store */
    int shard_k, shard_n;      /* run only jobs j with j % n == k - 1 (default 1/1); job
                                  j = model * targets.n + target */
    int jobs;                  /* worker threads (default 1) */
    double exact_time_limit;   /* seconds per exact solve (default 60) */
    double dp_time_limit;      /* seconds per dp solve (default 10) */
    int64_t dp_mem_limit;      /* bytes (default 512 MiB) */
    /* The autotuner cell ("mcts") per table: MCTS (seed 1, tuning points of one op, top-k
     * 16 plans) started from exact's assignment of the same table, rewarded by simulated
     * time, with this budget of evaluations (distinct designs scored, the start included).
     * 0 = no mcts cells (the default here; `laysim study` sets STUDY_MCTS_DEFAULT). */
    uint64_t mcts_evaluations;
    /* Wall-clock cap per mcts cell in seconds (<= 0 = none; default 60): on the full-size
     * MoE models one simulation takes over a second. A cell cut by it records fewer
     * evaluations than its budget (and is then not reproducible to the design). */
    double mcts_time_limit;
    /* When non-NULL (an existing directory), each calibrated table is also written there as
     * calibrated-table.json (one target) or calibrated-table-K.json (target K, from 1), so
     * `laysim problem|solve|tune --table FILE` can reuse it. */
    const char *table_dir;
    /* When non-NULL, the calibrated tables are read from this directory (named as in
     * table_dir; written there by an earlier run) instead of fitted. */
    const char *table_in;
    /* Only calibrate (the targets of this shard's jobs): no job runs, no cell is written. */
    int calibrate_only;
    /* When non-NULL, the mcts cells keep every simulated time in this SQLite metric store
     * (study/study_tune.h, table tune_metric), so a resumed study does not simulate them again. */
    const char *tune_db;
    struct study_progress_cb progress;
};

void study_opts_init(struct study_opts *o);
void study_opts_free(struct study_opts *o);   /* frees models and targets */

struct study_summary {
    size_t jobs, jobs_run, jobs_skipped, cells, cells_failed;
    double seconds;
    int calibration_api;       /* 1: tables from the calibration loop's fit (in sample) */
};

/* Run every job of this shard (skipping complete ones when resuming) and write its cells
 * into st. Per-cell failures (a solver hitting its limit, a program the target rejects)
 * are recorded in the cell (rc, error) and do not stop the run; I/O and memory errors do. */
int study_run(const struct study_opts *o, struct study_db *st, struct study_summary *sum,
              struct ls_error *err);

/* The strategies of the simulated comparison, in table order, then "dp" and "mcts". */
#define STUDY_DP "dp"
#define STUDY_MCTS "mcts"
/* The budget `laysim study` gives the autotuner unless --mcts-evaluations says otherwise. */
#define STUDY_MCTS_DEFAULT 1000
/* study_opts_init's limits (`laysim study --help` spells them): seconds per exact solve,
 * per treewidth-DP solve and per mcts cell, and the DP table budget in MiB. */
#define STUDY_EXACT_TIME_LIMIT_DEFAULT 60
#define STUDY_DP_TIME_LIMIT_DEFAULT 10
#define STUDY_DP_MEM_LIMIT_MIB_DEFAULT 512
#define STUDY_MCTS_TIME_LIMIT_DEFAULT 60
/* Cells one job writes under these options (what --resume counts as complete). */
int study_cells_per_job(const struct study_opts *o);
#define STUDY_TABLE_DATASHEET "datasheet"
#define STUDY_TABLE_CALIBRATED "calibrated"

/* Latency table of t calibrated the way the calibration loop does it (study/loop.h,
 * study_loop_calibrate: per-instruction microbenchmark fit, then the whole-program group
 * fit with "max" aggregation), in sample on the strategy programs of o's models under the
 * datasheet table. */
int study_calibrated_table(const struct study_opts *o, const struct sim_target *t,
                           struct cm_table *out, struct ls_error *err);

#endif
