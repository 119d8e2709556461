/* study/db_cells: the rows of a study (table cells, study/db.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/db_int.h"
#include "util/vec.h"

#define COLS_KEY_TO_LAYOUTS                                                               \
    "model, target, strategy, tbl, family, grp, scale, model_ix, target_ix, variant, "     \
    "target_hash, table_hash, ops, treewidth, rc, error, status, predicted, bound, "       \
    "sim_cycles, conversions, instructions, dma_eff, rb_exhaustive, rb_split, rb_greedy, " \
    "mem_mib, layouts, "
#define COLS_ROOFLINE                                                                      \
    "roofline_cycles, roofline_by, busy_pe, busy_act, busy_dve, busy_pool, busy_dma, "     \
    "conv_share, "
#define COLS                                                                              \
    COLS_KEY_TO_LAYOUTS "tune_budget, tune_evaluations, tune_simulations, " COLS_ROOFLINE \
    "solve_seconds, wall_seconds"
#define NCOLS 41
_Static_assert(LS_ENGINE_COUNT == 5, "one busy_* column per engine: pe act dve pool dma");
/* Older schemas read the columns they lack as 0 / "": 1 had no autotuner columns, 1 and
 * 2 no roofline or busy columns, 1 to 3 no conv_share. */
#define COLS_NO_ROOFLINE "0, '', 0, 0, 0, 0, 0, 0, "
#define COLS_V3_ROOFLINE                                                                   \
    "roofline_cycles, roofline_by, busy_pe, busy_act, busy_dve, busy_pool, busy_dma, 0, "
#define COLS_V3                                                                            \
    COLS_KEY_TO_LAYOUTS "tune_budget, tune_evaluations, tune_simulations, " COLS_V3_ROOFLINE \
    "solve_seconds, wall_seconds"
#define COLS_V1 COLS_KEY_TO_LAYOUTS "0, 0, 0, " COLS_NO_ROOFLINE "solve_seconds, wall_seconds"
#define COLS_V2                                                                            \
    COLS_KEY_TO_LAYOUTS "tune_budget, tune_evaluations, tune_simulations, " COLS_NO_ROOFLINE \
    "solve_seconds, wall_seconds"

void study_cell_init(struct study_cell *c)
{
    memset(c, 0, sizeof *c);
    c->predicted = c->bound = c->sim_cycles = -1;
    c->treewidth = -1;
}

void study_cell_free(struct study_cell *c)
{
    free(c->layouts);
    c->layouts = NULL;
}

void study_cells_free(struct study_cells *cs)
{
    for (size_t i = 0; i < cs->len; i++)
        study_cell_free(&cs->data[i]);
    LS_VEC_FREE(cs);
}

int study_cells_push(struct study_cells *cs, const struct study_cell *c, struct ls_error *err)
{
    if (LS_VEC_RESERVE(cs, cs->len + 1))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct study_cell *d = &cs->data[cs->len];
    *d = *c;
    d->layouts = NULL;
    if (c->layouts && !(d->layouts = strdup(c->layouts)))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    cs->len++;
    return 0;
}

int db_cells_prepare(struct study_db *d, struct ls_error *err)
{
    if (sqlite3_prepare_v2(d->db,
                           "INSERT OR REPLACE INTO cells(" COLS ") VALUES(?,?,?,?,?,?,?,?,?,?,"
                           "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &d->put, NULL) != SQLITE_OK)
        return db_fail(d, err, "prepare");
    return 0;
}

int study_db_put(struct study_db *st, const struct study_cell *c, struct ls_error *err)
{
    sqlite3_stmt *s = st->put;
    if (!s)
        return ls_error_set(err, LS_ERR_INTERNAL, st->path, 0, 0,
                            "results database opened read-only or without its cells");
    int i = 1;
    sqlite3_reset(s);
    sqlite3_clear_bindings(s);
    sqlite3_bind_text(s, i++, c->model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->target, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->strategy, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->table, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->family, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->group, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->scale, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(s, i++, c->model_ix);
    sqlite3_bind_int(s, i++, c->target_ix);
    sqlite3_bind_text(s, i++, c->variant, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->target_hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->table_hash, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, i++, c->ops);
    sqlite3_bind_int(s, i++, c->treewidth);
    sqlite3_bind_int(s, i++, c->rc);
    sqlite3_bind_text(s, i++, c->error, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, i++, c->status, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, i++, c->predicted);
    sqlite3_bind_int64(s, i++, c->bound);
    sqlite3_bind_int64(s, i++, c->sim_cycles);
    sqlite3_bind_int64(s, i++, c->conversions);
    sqlite3_bind_int64(s, i++, c->instructions);
    sqlite3_bind_double(s, i++, c->dma_eff);
    sqlite3_bind_int(s, i++, c->rb_exhaustive);
    sqlite3_bind_int(s, i++, c->rb_split);
    sqlite3_bind_int(s, i++, c->rb_greedy);
    sqlite3_bind_double(s, i++, c->mem_mib);
    if (c->layouts)
        sqlite3_bind_text(s, i++, c->layouts, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(s, i++);
    sqlite3_bind_int64(s, i++, c->tune_budget);
    sqlite3_bind_int64(s, i++, c->tune_evaluations);
    sqlite3_bind_int64(s, i++, c->tune_simulations);
    sqlite3_bind_double(s, i++, c->roofline_cycles);
    sqlite3_bind_text(s, i++, c->roofline_by, -1, SQLITE_TRANSIENT);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        sqlite3_bind_double(s, i++, c->busy[e]);
    sqlite3_bind_double(s, i++, c->conv_share);
    sqlite3_bind_double(s, i++, c->solve_seconds);
    sqlite3_bind_double(s, i++, c->wall_seconds);
    if (sqlite3_step(s) != SQLITE_DONE)
        return db_fail(st, err, "insert");
    return 0;
}

int study_db_count(struct study_db *st, const char *model, const char *target,
                      int *count, struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    *count = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT COUNT(*) FROM cells WHERE model = ? AND target = ?",
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "prepare");
    sqlite3_bind_text(s, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, target, -1, SQLITE_TRANSIENT);
    int rc = 0;
    if (sqlite3_step(s) == SQLITE_ROW)
        *count = sqlite3_column_int(s, 0);
    else
        rc = db_fail(st, err, "count");
    sqlite3_finalize(s);
    return rc;
}

static void col_text(sqlite3_stmt *s, int i, char *buf, size_t n)
{
    const unsigned char *t = sqlite3_column_text(s, i);
    snprintf(buf, n, "%s", t ? (const char *)t : "");
}

static int row_cell(sqlite3_stmt *s, struct study_cell *c, struct ls_error *err)
{
    int i = 0;
    study_cell_init(c);
    col_text(s, i++, c->model, sizeof c->model);
    col_text(s, i++, c->target, sizeof c->target);
    col_text(s, i++, c->strategy, sizeof c->strategy);
    col_text(s, i++, c->table, sizeof c->table);
    col_text(s, i++, c->family, sizeof c->family);
    col_text(s, i++, c->group, sizeof c->group);
    col_text(s, i++, c->scale, sizeof c->scale);
    c->model_ix = sqlite3_column_int(s, i++);
    c->target_ix = sqlite3_column_int(s, i++);
    col_text(s, i++, c->variant, sizeof c->variant);
    col_text(s, i++, c->target_hash, sizeof c->target_hash);
    col_text(s, i++, c->table_hash, sizeof c->table_hash);
    c->ops = sqlite3_column_int64(s, i++);
    c->treewidth = sqlite3_column_int(s, i++);
    c->rc = sqlite3_column_int(s, i++);
    col_text(s, i++, c->error, sizeof c->error);
    col_text(s, i++, c->status, sizeof c->status);
    c->predicted = sqlite3_column_int64(s, i++);
    c->bound = sqlite3_column_int64(s, i++);
    c->sim_cycles = sqlite3_column_int64(s, i++);
    c->conversions = sqlite3_column_int64(s, i++);
    c->instructions = sqlite3_column_int64(s, i++);
    c->dma_eff = sqlite3_column_double(s, i++);
    c->rb_exhaustive = sqlite3_column_int(s, i++);
    c->rb_split = sqlite3_column_int(s, i++);
    c->rb_greedy = sqlite3_column_int(s, i++);
    c->mem_mib = sqlite3_column_double(s, i++);
    const unsigned char *l = sqlite3_column_text(s, i++);
    if (l && !(c->layouts = strdup((const char *)l)))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    c->tune_budget = sqlite3_column_int64(s, i++);
    c->tune_evaluations = sqlite3_column_int64(s, i++);
    c->tune_simulations = sqlite3_column_int64(s, i++);
    c->roofline_cycles = sqlite3_column_double(s, i++);
    col_text(s, i++, c->roofline_by, sizeof c->roofline_by);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        c->busy[e] = sqlite3_column_double(s, i++);
    c->conv_share = sqlite3_column_double(s, i++);
    c->solve_seconds = sqlite3_column_double(s, i++);
    c->wall_seconds = sqlite3_column_double(s, i++);
    return 0;
}

#define ORDER " ORDER BY target_ix, target, model_ix, model, strategy, tbl"

int study_db_load(struct study_db *st, struct study_cells *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           st->schema == 1   ? "SELECT " COLS_V1 " FROM cells" ORDER
                           : st->schema == 2 ? "SELECT " COLS_V2 " FROM cells" ORDER
                           : st->schema == 3 ? "SELECT " COLS_V3 " FROM cells" ORDER
                                             : "SELECT " COLS " FROM cells" ORDER,
                           -1, &s, NULL) != SQLITE_OK)
        return db_fail(st, err, "prepare");
    int r, rc = 0;
    while (!rc && (r = sqlite3_step(s)) == SQLITE_ROW) {
        struct study_cell c;
        if ((rc = row_cell(s, &c, err))) {
            study_cell_free(&c);
            break;
        }
        rc = study_cells_push(out, &c, err);
        study_cell_free(&c);
    }
    if (!rc && r != SQLITE_DONE)
        rc = db_fail(st, err, "select");
    sqlite3_finalize(s);
    if (rc)
        study_cells_free(out);
    return rc;
}

int study_db_merge_from(struct study_db *st, const char *path, struct ls_error *err)
{
    struct study_db *src = NULL;
    int rc = study_db_open_readonly(path, &src, err);
    if (rc)
        return rc;
    struct study_cells cs;
    if ((rc = study_db_load(src, &cs, err))) {
        study_db_close(src);
        return rc;
    }
    /* meta keys missing here */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(src->db, "SELECT key, value FROM meta", -1, &s, NULL) != SQLITE_OK)
        rc = db_fail(src, err, "prepare");
    while (!rc && sqlite3_step(s) == SQLITE_ROW) {
        char have[8];
        const char *k = (const char *)sqlite3_column_text(s, 0);
        const char *v = (const char *)sqlite3_column_text(s, 1);
        if ((rc = study_db_meta_get(st, k, have, sizeof have, err)))
            break;
        if (!have[0])
            rc = study_db_meta_set(st, k, v, err);
    }
    sqlite3_finalize(s);
    if (!rc)
        rc = study_db_begin(st, err);
    for (size_t i = 0; !rc && i < cs.len; i++)
        rc = study_db_put(st, &cs.data[i], err);
    if (!rc)
        rc = study_db_commit(st, err);
    study_cells_free(&cs);
    study_db_close(src);
    return rc;
}

int study_db_dump(struct study_db *st, char **out, struct ls_error *err)
{
    *out = NULL;
    struct study_cells cs;
    int rc = study_db_load(st, &cs, err);
    if (rc)
        return rc;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        study_cells_free(&cs);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < cs.len; i++) {
        const struct study_cell *c = &cs.data[i];
        fprintf(f,
                "%s|%s|%s|%s|%s|%s|%s|%d|%d|%s|%s|%s|%lld|%d|%d|%s|%s|%lld|%lld|%lld|%lld|%lld|"
                "%.6f|%d|%d|%d|%s|%lld|%lld|%lld|%.1f|%s|%.6f|%.6f|%.6f|%.6f|%.6f|%.6f\n",
                c->model, c->target, c->strategy, c->table, c->family, c->group, c->scale,
                c->model_ix, c->target_ix, c->variant, c->target_hash, c->table_hash,
                (long long)c->ops, c->treewidth, c->rc, c->error, c->status,
                (long long)c->predicted, (long long)c->bound, (long long)c->sim_cycles,
                (long long)c->conversions, (long long)c->instructions, c->dma_eff,
                c->rb_exhaustive, c->rb_split, c->rb_greedy, c->layouts ? c->layouts : "",
                (long long)c->tune_budget, (long long)c->tune_evaluations,
                (long long)c->tune_simulations, c->roofline_cycles, c->roofline_by,
                c->busy[LS_ENGINE_PE], c->busy[LS_ENGINE_ACT], c->busy[LS_ENGINE_DVE],
                c->busy[LS_ENGINE_POOL], c->busy[LS_ENGINE_DMA], c->conv_share);
    }
    fclose(f);
    study_cells_free(&cs);
    *out = buf;
    return 0;
}
