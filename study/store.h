/* study/store: the SQLite results store of studies and what-if sweeps (docs/study.md).
 *
 * One row per (model, target, strategy, table) in table `cells`; table `meta` holds
 * key/value facts about the run (schema version, kind, laysim version). The timing
 * columns (solve_seconds, wall_seconds) are the only ones that differ between two runs
 * of the same grid; everything else is deterministic. Rows are written with INSERT OR
 * REPLACE, so re-running a cell overwrites it and merging stores is a union.
 *
 *     struct study_store *st;
 *     study_store_open("out/study/results.sqlite", &st, &err);
 *     study_store_put(st, &cell, &err);
 *     study_store_load(st, &cells, &err);          // every row, in key order
 *     study_store_close(st);
 */
#ifndef LS_STUDY_STORE_H
#define LS_STUDY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

/* Schema 2 added the autotuner columns (tune_budget, tune_evaluations, tune_simulations);
 * a schema-1 store is upgraded in place when opened for writing, and read as is (the new
 * columns read 0) when merged from. */
#define STUDY_STORE_SCHEMA 2

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
    /* timing (excluded from comparisons) */
    double solve_seconds, wall_seconds;
};

void study_cell_init(struct study_cell *c);
void study_cell_free(struct study_cell *c);

struct study_cells {
    struct study_cell *c;
    size_t n, cap;
};
void study_cells_free(struct study_cells *cs);
/* Append a copy (layouts duplicated). */
int study_cells_push(struct study_cells *cs, const struct study_cell *c, struct ls_error *err);

struct study_store;

/* Open or create; creates the schema when absent, upgrades schema 1 in place (adding the
 * tune_* columns), rejects any other schema version (LS_ERR_INPUT naming the file). */
int study_store_open(const char *path, struct study_store **out, struct ls_error *err);
void study_store_close(struct study_store *st);

int study_store_meta_set(struct study_store *st, const char *key, const char *value,
                         struct ls_error *err);
/* value into buf ("" when absent). */
int study_store_meta_get(struct study_store *st, const char *key, char *buf, size_t n,
                         struct ls_error *err);

/* Insert or replace one row; a batch of puts may be wrapped in begin/commit. */
int study_store_begin(struct study_store *st, struct ls_error *err);
int study_store_commit(struct study_store *st, struct ls_error *err);
int study_store_put(struct study_store *st, const struct study_cell *c, struct ls_error *err);

/* Number of rows for (model, target) with rc == 0 or a recorded limit (complete cells). */
int study_store_count(struct study_store *st, const char *model, const char *target,
                      int *count, struct ls_error *err);

/* Every row, ordered by target_ix, model_ix, strategy, table. */
int study_store_load(struct study_store *st, struct study_cells *out, struct ls_error *err);

/* Copy every row (and missing meta keys) of the store at path into st. The source is opened
 * read-only (schema 1 or 2) and never modified; LS_ERR_INPUT when it is not a store. */
int study_store_merge_from(struct study_store *st, const char *path, struct ls_error *err);

/* A text dump of every row without the timing columns, one line per row in key order
 * (for comparing runs). *out is malloc'd. */
int study_store_dump(struct study_store *st, char **out, struct ls_error *err);

#endif
