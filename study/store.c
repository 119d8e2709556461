/* study/store: SQLite results store. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/store.h"

struct study_store {
    sqlite3 *db;
    sqlite3_stmt *put;
    int schema;              /* the file's schema version (1 only when opened read-only) */
    char path[1024];
};

#define COLS                                                                              \
    "model, target, strategy, tbl, family, grp, scale, model_ix, target_ix, variant, "     \
    "target_hash, table_hash, ops, treewidth, rc, error, status, predicted, bound, "       \
    "sim_cycles, conversions, instructions, dma_eff, rb_exhaustive, rb_split, rb_greedy, " \
    "mem_mib, layouts, tune_budget, tune_evaluations, tune_simulations, solve_seconds, "  \
    "wall_seconds"
#define NCOLS 33
/* Schema 1 had no autotuner columns: they read 0. */
#define COLS_V1                                                                            \
    "model, target, strategy, tbl, family, grp, scale, model_ix, target_ix, variant, "     \
    "target_hash, table_hash, ops, treewidth, rc, error, status, predicted, bound, "       \
    "sim_cycles, conversions, instructions, dma_eff, rb_exhaustive, rb_split, rb_greedy, " \
    "mem_mib, layouts, 0, 0, 0, solve_seconds, wall_seconds"

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "CREATE TABLE IF NOT EXISTS cells("
    " model TEXT NOT NULL, target TEXT NOT NULL, strategy TEXT NOT NULL, tbl TEXT NOT NULL,"
    " family TEXT, grp TEXT, scale TEXT, model_ix INTEGER, target_ix INTEGER, variant TEXT,"
    " target_hash TEXT, table_hash TEXT, ops INTEGER, treewidth INTEGER,"
    " rc INTEGER, error TEXT, status TEXT, predicted INTEGER, bound INTEGER,"
    " sim_cycles INTEGER, conversions INTEGER, instructions INTEGER, dma_eff REAL,"
    " rb_exhaustive INTEGER, rb_split INTEGER, rb_greedy INTEGER, mem_mib REAL,"
    " layouts TEXT, tune_budget INTEGER DEFAULT 0, tune_evaluations INTEGER DEFAULT 0,"
    " tune_simulations INTEGER DEFAULT 0, solve_seconds REAL, wall_seconds REAL,"
    " PRIMARY KEY(model, target, strategy, tbl));";

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
    for (size_t i = 0; i < cs->n; i++)
        study_cell_free(&cs->c[i]);
    free(cs->c);
    memset(cs, 0, sizeof *cs);
}

int study_cells_push(struct study_cells *cs, const struct study_cell *c, struct ls_error *err)
{
    if (cs->n == cs->cap) {
        size_t nc = cs->cap ? 2 * cs->cap : 64;
        struct study_cell *n = realloc(cs->c, nc * sizeof *n);
        if (!n)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        cs->c = n;
        cs->cap = nc;
    }
    struct study_cell *d = &cs->c[cs->n];
    *d = *c;
    d->layouts = NULL;
    if (c->layouts && !(d->layouts = strdup(c->layouts)))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    cs->n++;
    return 0;
}

static int dberr(struct study_store *st, struct ls_error *err, const char *what)
{
    return ls_error_set(err, LS_ERR_IO, st->path, 0, 0, "sqlite: %s: %s", what,
                        sqlite3_errmsg(st->db));
}

static int exec(struct study_store *st, const char *sql, struct ls_error *err)
{
    char *msg = NULL;
    if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
        int rc = ls_error_set(err, LS_ERR_IO, st->path, 0, 0, "sqlite: %s",
                              msg ? msg : "error");
        sqlite3_free(msg);
        return rc;
    }
    return 0;
}

static int open_db(const char *path, int flags, struct study_store **out,
                   struct ls_error *err)
{
    *out = NULL;
    struct study_store *st = calloc(1, sizeof *st);
    if (!st)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    snprintf(st->path, sizeof st->path, "%s", path);
    if (sqlite3_open_v2(path, &st->db, flags, NULL) != SQLITE_OK) {
        int rc = ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open the results store: %s",
                              st->db ? sqlite3_errmsg(st->db) : "out of memory");
        study_store_close(st);
        return rc;
    }
    sqlite3_busy_timeout(st->db, 10000);
    *out = st;
    return 0;
}

/* A store to read from (merge inputs): never created, upgraded or written; schema 1 or 2. */
static int open_readonly(const char *path, struct study_store **out, struct ls_error *err)
{
    struct study_store *st;
    int rc = open_db(path, SQLITE_OPEN_READONLY, &st, err);
    if (rc)
        return rc;
    sqlite3_stmt *s = NULL;
    char v[32] = "";
    if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = 'schema'", -1, &s,
                           NULL) != SQLITE_OK) {
        rc = ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "not a laysim results store (%s)",
                          sqlite3_errmsg(st->db));
    } else {
        if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
            snprintf(v, sizeof v, "%s", (const char *)sqlite3_column_text(s, 0));
        st->schema = atoi(v);
        if (st->schema != 1 && st->schema != STUDY_STORE_SCHEMA)
            rc = ls_error_set(err, LS_ERR_INPUT, path, 0, 0,
                              "results store schema %s, this laysim reads schemas 1 and %d",
                              v, STUDY_STORE_SCHEMA);
    }
    sqlite3_finalize(s);
    if (rc) {
        study_store_close(st);
        return rc;
    }
    *out = st;
    return 0;
}

int study_store_open(const char *path, struct study_store **out, struct ls_error *err)
{
    struct study_store *st;
    int rc = open_db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &st, err);
    if (rc)
        return rc;
    *out = NULL;
    st->schema = STUDY_STORE_SCHEMA;
    if ((rc = exec(st, schema, err)))
        goto fail;
    char v[32];
    if ((rc = study_store_meta_get(st, "schema", v, sizeof v, err)))
        goto fail;
    if (!v[0]) {
        snprintf(v, sizeof v, "%d", STUDY_STORE_SCHEMA);
        if ((rc = study_store_meta_set(st, "schema", v, err)))
            goto fail;
    } else if (atoi(v) == 1) {
        /* schema 1 lacks the autotuner columns: add them (its rows have no mcts cells) */
        if ((rc = exec(st,
                       "BEGIN;"
                       "ALTER TABLE cells ADD COLUMN tune_budget INTEGER DEFAULT 0;"
                       "ALTER TABLE cells ADD COLUMN tune_evaluations INTEGER DEFAULT 0;"
                       "ALTER TABLE cells ADD COLUMN tune_simulations INTEGER DEFAULT 0;"
                       "INSERT OR REPLACE INTO meta(key, value) VALUES('schema', '2');"
                       "COMMIT;",
                       err))) {
            exec(st, "ROLLBACK", NULL);
            goto fail;
        }
    } else if (atoi(v) != STUDY_STORE_SCHEMA) {
        rc = ls_error_set(err, LS_ERR_INPUT, path, 0, 0,
                          "results store schema %s, this laysim reads schema %d", v,
                          STUDY_STORE_SCHEMA);
        goto fail;
    }
    if (sqlite3_prepare_v2(st->db,
                           "INSERT OR REPLACE INTO cells(" COLS ") VALUES(?,?,?,?,?,?,?,?,?,?,"
                           "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                           -1, &st->put, NULL) != SQLITE_OK) {
        rc = dberr(st, err, "prepare");
        goto fail;
    }
    *out = st;
    return 0;
fail:
    study_store_close(st);
    return rc;
}

void study_store_close(struct study_store *st)
{
    if (!st)
        return;
    sqlite3_finalize(st->put);
    sqlite3_close(st->db);
    free(st);
}

int study_store_meta_set(struct study_store *st, const char *key, const char *value,
                         struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1,
                           &s, NULL) != SQLITE_OK)
        return dberr(st, err, "prepare");
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : dberr(st, err, "meta");
    sqlite3_finalize(s);
    return rc;
}

int study_store_meta_get(struct study_store *st, const char *key, char *buf, size_t n,
                         struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    buf[0] = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT value FROM meta WHERE key = ?", -1, &s, NULL) !=
        SQLITE_OK)
        return dberr(st, err, "prepare");
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(s), rc = 0;
    if (r == SQLITE_ROW)
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(s, 0));
    else if (r != SQLITE_DONE)
        rc = dberr(st, err, "meta");
    sqlite3_finalize(s);
    return rc;
}

int study_store_begin(struct study_store *st, struct ls_error *err)
{
    return exec(st, "BEGIN", err);
}

int study_store_commit(struct study_store *st, struct ls_error *err)
{
    return exec(st, "COMMIT", err);
}

int study_store_put(struct study_store *st, const struct study_cell *c, struct ls_error *err)
{
    sqlite3_stmt *s = st->put;
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
    sqlite3_bind_double(s, i++, c->solve_seconds);
    sqlite3_bind_double(s, i++, c->wall_seconds);
    if (sqlite3_step(s) != SQLITE_DONE)
        return dberr(st, err, "insert");
    return 0;
}

int study_store_count(struct study_store *st, const char *model, const char *target,
                      int *count, struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    *count = 0;
    if (sqlite3_prepare_v2(st->db, "SELECT COUNT(*) FROM cells WHERE model = ? AND target = ?",
                           -1, &s, NULL) != SQLITE_OK)
        return dberr(st, err, "prepare");
    sqlite3_bind_text(s, 1, model, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, target, -1, SQLITE_TRANSIENT);
    int rc = 0;
    if (sqlite3_step(s) == SQLITE_ROW)
        *count = sqlite3_column_int(s, 0);
    else
        rc = dberr(st, err, "count");
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
    c->solve_seconds = sqlite3_column_double(s, i++);
    c->wall_seconds = sqlite3_column_double(s, i++);
    return 0;
}

int study_store_load(struct study_store *st, struct study_cells *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(st->db,
                           st->schema == 1
                               ? "SELECT " COLS_V1 " FROM cells ORDER BY target_ix, target, "
                                 "model_ix, model, strategy, tbl"
                               : "SELECT " COLS " FROM cells ORDER BY target_ix, target, "
                                 "model_ix, model, strategy, tbl",
                           -1, &s, NULL) != SQLITE_OK)
        return dberr(st, err, "prepare");
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
        rc = dberr(st, err, "select");
    sqlite3_finalize(s);
    if (rc)
        study_cells_free(out);
    return rc;
}

int study_store_merge_from(struct study_store *st, const char *path, struct ls_error *err)
{
    struct study_store *src = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "no such results store");
    fclose(f);
    int rc = open_readonly(path, &src, err);
    if (rc)
        return rc;
    struct study_cells cs;
    if ((rc = study_store_load(src, &cs, err))) {
        study_store_close(src);
        return rc;
    }
    /* meta keys missing here */
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(src->db, "SELECT key, value FROM meta", -1, &s, NULL) != SQLITE_OK)
        rc = dberr(src, err, "prepare");
    while (!rc && sqlite3_step(s) == SQLITE_ROW) {
        char have[8];
        const char *k = (const char *)sqlite3_column_text(s, 0);
        const char *v = (const char *)sqlite3_column_text(s, 1);
        if ((rc = study_store_meta_get(st, k, have, sizeof have, err)))
            break;
        if (!have[0])
            rc = study_store_meta_set(st, k, v, err);
    }
    sqlite3_finalize(s);
    if (!rc)
        rc = study_store_begin(st, err);
    for (size_t i = 0; !rc && i < cs.n; i++)
        rc = study_store_put(st, &cs.c[i], err);
    if (!rc)
        rc = study_store_commit(st, err);
    study_cells_free(&cs);
    study_store_close(src);
    return rc;
}

int study_store_dump(struct study_store *st, char **out, struct ls_error *err)
{
    *out = NULL;
    struct study_cells cs;
    int rc = study_store_load(st, &cs, err);
    if (rc)
        return rc;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) {
        study_cells_free(&cs);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < cs.n; i++) {
        const struct study_cell *c = &cs.c[i];
        fprintf(f,
                "%s|%s|%s|%s|%s|%s|%s|%d|%d|%s|%s|%s|%lld|%d|%d|%s|%s|%lld|%lld|%lld|%lld|%lld|"
                "%.6f|%d|%d|%d|%s|%lld|%lld|%lld\n",
                c->model, c->target, c->strategy, c->table, c->family, c->group, c->scale,
                c->model_ix, c->target_ix, c->variant, c->target_hash, c->table_hash,
                (long long)c->ops, c->treewidth, c->rc, c->error, c->status,
                (long long)c->predicted, (long long)c->bound, (long long)c->sim_cycles,
                (long long)c->conversions, (long long)c->instructions, c->dma_eff,
                c->rb_exhaustive, c->rb_split, c->rb_greedy, c->layouts ? c->layouts : "",
                (long long)c->tune_budget, (long long)c->tune_evaluations,
                (long long)c->tune_simulations);
    }
    fclose(f);
    study_cells_free(&cs);
    *out = buf;
    return 0;
}
