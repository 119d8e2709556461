/* study/db: the one SQLite results database of laysim (docs/study.md).
 *
 * Two kinds of rows, each in its own table, each file holding the tables it was opened for:
 *  - cells (STUDY_DB_CELLS): one row per (model, target, strategy, table) of a study or a
 *    what-if sweep, and the key/value facts of the run in `meta` (schema version, kind,
 *    laysim version): results.sqlite. Rows are written with INSERT OR REPLACE, so
 *    re-running a cell overwrites it and merging databases is a union. The timing columns
 *    (solve_seconds, wall_seconds) are the only ones that differ between two runs of the
 *    same grid.
 *  - tune metrics (STUDY_DB_TUNE): the autotuner's simulated time per design, keyed on
 *    (problem, assignment, target, table, codegen version) (study/study_tune.h):
 *    tune-metrics.sqlite, or any file given to `laysim tune --db`.
 *
 * The schema is written once, in db.c (a table of CREATE statements and a table of
 * migrations): it is a handful of statements, and keeping them as C strings beside the
 * migrations that must agree with them needs no build step. Schema versions of the cells
 * tables (meta 'schema'): 1, then 2 added the autotuner columns (tune_budget,
 * tune_evaluations, tune_simulations), 3 the roofline and engine columns (roofline_cycles,
 * roofline_by, busy_pe, busy_act, busy_dve, busy_pool, busy_dma), 4 conv_share. Opening for
 * writing migrates in place; opening read-only (merge inputs) never writes and reads schemas
 * 1 to 3 as they are (the newer columns read 0 or "").
 *
 *     struct study_db *db;
 *     study_db_open("out/study/results.sqlite", STUDY_DB_CELLS, &db, &err);
 *     study_db_put(db, &cell, &err);
 *     study_db_load(db, &cells, &err);           // every row, in key order
 *     study_db_close(db);
 */
#ifndef LS_STUDY_DB_H
#define LS_STUDY_DB_H

#include <stddef.h>
#include <stdint.h>

#include "util/arch.h"
#include "util/error.h"

#define STUDY_DB_SCHEMA 4

/* The tables a file is opened for (a bit set). */
enum study_db_part {
    STUDY_DB_CELLS = 1,      /* meta + cells */
    STUDY_DB_TUNE = 2,       /* tune_metric */
};

struct study_cell {
    /* key */
    char model[64];
    char target[160];
    char strategy[16];       /* local greedy rulebased exact dp mcts */
    char table[16];          /* datasheet calibrated */
    /* what was run */
    char family[32], group[32];
    char scale[96];          /* scaling options as text */
    int model_ix, target_ix; /* display order */
    char variant[128];       /* "" for a base target, else "KEY=V ..." */
    char target_hash[20], table_hash[20];
    int64_t ops;             /* problem operators */
    int treewidth;           /* util/treedec bound of the model's op graph */
    /* outcome */
    int rc;                  /* 0 ok, else an ls_status code */
    char error[256];
    char status[12];         /* optimal feasible unknown */
    int64_t predicted;       /* .lsp objective; -1 when none */
    int64_t bound;           /* solver lower bound; -1 when none */
    int64_t sim_cycles;      /* simulated base-clock cycles; -1 when not simulated */
    int64_t conversions, instructions;
    double dma_eff;
    int rb_exhaustive, rb_split, rb_greedy;   /* rulebased components by method, else 0 */
    double mem_mib;          /* dp: table estimate / peak in MiB, else 0 */
    char *layouts;           /* per problem op "name=pax,pax,..;" (malloc'd, may be NULL) */
    /* mcts only (else 0): the evaluations budget, distinct designs scored (the start
     * included), programs compiled + simulated by the tuner */
    int64_t tune_budget, tune_evaluations, tune_simulations;
    /* simulated cells (else 0 / ""): the model's roofline on the target
     * (costmodel/roofline.h) in base-clock cycles like sim_cycles, the limit that binds it
     * ("pe", "hbm"), and each engine's busy time as a fraction of sim_cycles */
    double roofline_cycles;
    char roofline_by[4];
    double busy[LS_ENGINE_COUNT];
    double conv_share;       /* layout conversions' share of the summed instruction time */
    /* timing (excluded from comparisons) */
    double solve_seconds, wall_seconds;
};

void study_cell_init(struct study_cell *c);
void study_cell_free(struct study_cell *c);

/* An LS_VEC (util/vec.h) of cells, each owning its layouts. */
struct study_cells {
    struct study_cell *data;
    size_t len, cap;
};
void study_cells_free(struct study_cells *cs);
/* Append a copy (layouts duplicated). */
int study_cells_push(struct study_cells *cs, const struct study_cell *c, struct ls_error *err);

struct study_db;

/* Open or create for reading and writing, with the tables of `parts` (enum study_db_part):
 * creates absent tables, migrates a schema-1 cells table in place, rejects any other
 * version (LS_ERR_INPUT naming the file). */
int study_db_open(const char *path, unsigned parts, struct study_db **out,
                  struct ls_error *err);
/* Open an existing results database (cells, schema 1 or 2) to read from: never created,
 * migrated or written. LS_ERR_INPUT when absent or not a results database. */
int study_db_open_readonly(const char *path, struct study_db **out, struct ls_error *err);
void study_db_close(struct study_db *db);

/* ---- cells (STUDY_DB_CELLS) ----------------------------------------------------------- */

int study_db_meta_set(struct study_db *db, const char *key, const char *value,
                      struct ls_error *err);
/* value into buf ("" when absent). */
int study_db_meta_get(struct study_db *db, const char *key, char *buf, size_t n,
                      struct ls_error *err);

/* Insert or replace one row; a batch of puts may be wrapped in begin/commit. */
int study_db_begin(struct study_db *db, struct ls_error *err);
int study_db_commit(struct study_db *db, struct ls_error *err);
int study_db_put(struct study_db *db, const struct study_cell *c, struct ls_error *err);

/* Number of rows for (model, target). */
int study_db_count(struct study_db *db, const char *model, const char *target, int *count,
                   struct ls_error *err);

/* Every row, ordered by target_ix, model_ix, strategy, table. */
int study_db_load(struct study_db *db, struct study_cells *out, struct ls_error *err);

/* Copy every row (and missing meta keys) of the results database at path into db. The
 * source is opened read-only (study_db_open_readonly) and never modified. */
int study_db_merge_from(struct study_db *db, const char *path, struct ls_error *err);

/* A text dump of every row without the timing columns, one line per row in key order
 * (for comparing runs). *out is malloc'd. */
int study_db_dump(struct study_db *db, char **out, struct ls_error *err);

/* ---- tune metrics (STUDY_DB_TUNE) ----------------------------------------------------- */

struct study_db_tune_key {
    uint64_t problem_hash, assignment_hash, target_hash, table_hash;
    const char *codegen_version;
};

/* The simulated time of assignment a[0..nops) under key: *found = 0 when absent or when
 * the stored assignment differs (a hash collision); *cycles = HUGE_VAL when the target
 * rejected the program. */
int study_db_tune_get(struct study_db *db, const struct study_db_tune_key *k,
                      const int32_t *a, int32_t nops, double *cycles, int *found,
                      struct ls_error *err);
/* Insert or replace; cycles not finite = rejected (stored as NULL). */
int study_db_tune_put(struct study_db *db, const struct study_db_tune_key *k,
                      const int32_t *a, int32_t nops, double cycles, struct ls_error *err);
/* Number of rows in the metric table (all keys). */
int study_db_tune_count(struct study_db *db, int64_t *n, struct ls_error *err);

#endif
