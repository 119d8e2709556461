/* study/tune_db: the autotuner's metric store in SQLite (study/tune.h). */
#include "study/tune.h"
#include "util/hash.h"

#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct study_tune_db {
    sqlite3 *db;
    sqlite3_stmt *get, *put, *count;
    char path[512];
};

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS tune_metric ("
    " problem_hash INTEGER NOT NULL,"
    " assignment_hash INTEGER NOT NULL,"
    " target_hash INTEGER NOT NULL,"
    " table_hash INTEGER NOT NULL,"
    " codegen_version TEXT NOT NULL,"
    " assignment BLOB NOT NULL,"           /* int32 cfg indices, problem op order */
    " cycles REAL,"                        /* NULL: the target rejected the program */
    " created TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,"
    " PRIMARY KEY (problem_hash, assignment_hash, target_hash, table_hash, codegen_version))";

static int db_fail(struct study_tune_db *d, sqlite3 *db, struct ls_error *err, const char *what)
{
    return ls_error_msg(err, LS_ERR_IO, "%s: %s: %s", d ? d->path : "sqlite", what,
                        db ? sqlite3_errmsg(db) : "out of memory");
}

int study_tune_db_open(const char *path, struct study_tune_db **out, struct ls_error *err)
{
    *out = NULL;
    struct study_tune_db *d = calloc(1, sizeof *d);
    if (!d)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    snprintf(d->path, sizeof d->path, "%s", path);
    int rc = 0;
    if (sqlite3_open_v2(path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) !=
        SQLITE_OK) {
        rc = db_fail(d, d->db, err, "cannot open");
        goto fail;
    }
    sqlite3_busy_timeout(d->db, 10000);
    /* one row per simulation: WAL with synchronous=NORMAL commits without an fsync each
     * (a crash may lose the last rows, never corrupt the file) */
    sqlite3_exec(d->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", NULL, NULL, NULL);
    char *msg = NULL;
    if (sqlite3_exec(d->db, schema, NULL, NULL, &msg) != SQLITE_OK) {
        rc = ls_error_msg(err, LS_ERR_IO, "%s: not a usable results database: %s", path,
                          msg ? msg : "?");
        sqlite3_free(msg);
        goto fail;
    }
    if (sqlite3_prepare_v2(d->db,
                           "SELECT assignment, cycles FROM tune_metric WHERE problem_hash=?1"
                           " AND assignment_hash=?2 AND target_hash=?3 AND table_hash=?4"
                           " AND codegen_version=?5",
                           -1, &d->get, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(d->db,
                           "INSERT OR REPLACE INTO tune_metric (problem_hash, assignment_hash,"
                           " target_hash, table_hash, codegen_version, assignment, cycles)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &d->put, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(d->db, "SELECT COUNT(*) FROM tune_metric", -1, &d->count, NULL) !=
            SQLITE_OK) {
        rc = db_fail(d, d->db, err, "cannot prepare");
        goto fail;
    }
    *out = d;
    return 0;
fail:
    study_tune_db_close(d);
    return rc;
}

void study_tune_db_close(struct study_tune_db *d)
{
    if (!d)
        return;
    sqlite3_finalize(d->get);
    sqlite3_finalize(d->put);
    sqlite3_finalize(d->count);
    sqlite3_close(d->db);
    free(d);
}

int study_tune_db_count(struct study_tune_db *d, int64_t *n, struct ls_error *err)
{
    sqlite3_reset(d->count);
    if (sqlite3_step(d->count) != SQLITE_ROW)
        return db_fail(d, d->db, err, "cannot count");
    *n = sqlite3_column_int64(d->count, 0);
    sqlite3_reset(d->count);
    return 0;
}

static void bind_key(sqlite3_stmt *s, const struct study_tune_store *st, uint64_t hash)
{
    sqlite3_bind_int64(s, 1, (sqlite3_int64)st->problem_hash);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)hash);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)st->target_hash);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)st->table_hash);
    sqlite3_bind_text(s, 5, st->codegen_version, -1, SQLITE_STATIC);
}

static int store_lookup(void *ctx, const int32_t *a, int32_t nops, uint64_t hash,
                        double *cycles, int *found, struct ls_error *err)
{
    struct study_tune_store *st = ctx;
    struct study_tune_db *d = st->db;
    sqlite3_reset(d->get);
    sqlite3_clear_bindings(d->get);
    bind_key(d->get, st, hash);
    *found = 0;
    int rc = sqlite3_step(d->get);
    if (rc == SQLITE_ROW) {
        const void *blob = sqlite3_column_blob(d->get, 0);
        int n = sqlite3_column_bytes(d->get, 0);
        /* the same assignment, not merely the same hash */
        if (n == (int)(sizeof *a * (size_t)nops) && (n == 0 || memcmp(blob, a, (size_t)n) == 0)) {
            *found = 1;
            *cycles = sqlite3_column_type(d->get, 1) == SQLITE_NULL
                          ? HUGE_VAL
                          : sqlite3_column_double(d->get, 1);
            st->hits++;
        }
    } else if (rc != SQLITE_DONE) {
        sqlite3_reset(d->get);
        return db_fail(d, d->db, err, "cannot read");
    }
    sqlite3_reset(d->get);
    return 0;
}

static int store_save(void *ctx, const int32_t *a, int32_t nops, uint64_t hash, double cycles,
                      struct ls_error *err)
{
    struct study_tune_store *st = ctx;
    struct study_tune_db *d = st->db;
    sqlite3_reset(d->put);
    sqlite3_clear_bindings(d->put);
    bind_key(d->put, st, hash);
    sqlite3_bind_blob(d->put, 6, a, (int)(sizeof *a * (size_t)nops), SQLITE_STATIC);
    if (isfinite(cycles))
        sqlite3_bind_double(d->put, 7, cycles);
    else
        sqlite3_bind_null(d->put, 7);
    int rc = sqlite3_step(d->put);
    sqlite3_reset(d->put);
    if (rc != SQLITE_DONE)
        return db_fail(d, d->db, err, "cannot write");
    st->saved++;
    return 0;
}

void study_tune_store_hook(struct study_tune_store *st, struct lsp_tune_store *hook)
{
    hook->ctx = st;
    hook->lookup = store_lookup;
    hook->save = store_save;
}

uint64_t study_tune_problem_hash(const struct lsp_problem *p)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return 0;
    lsp_write_fp(p, f);
    fclose(f);
    uint64_t h = ls_fnv1a64(buf, len);
    free(buf);
    return h;
}
