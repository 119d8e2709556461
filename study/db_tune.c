/* study/db_tune: the autotuner's metric rows (table tune_metric, study/db.h). */
#include <math.h>
#include <string.h>

#include "study/db_int.h"

int db_tune_prepare(struct study_db *d, struct ls_error *err)
{
    if (sqlite3_prepare_v2(d->db,
                           "SELECT assignment, cycles FROM tune_metric WHERE problem_hash=?1"
                           " AND assignment_hash=?2 AND target_hash=?3 AND table_hash=?4"
                           " AND codegen_version=?5",
                           -1, &d->tget, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(d->db,
                           "INSERT OR REPLACE INTO tune_metric (problem_hash, assignment_hash,"
                           " target_hash, table_hash, codegen_version, assignment, cycles)"
                           " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                           -1, &d->tput, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(d->db, "SELECT COUNT(*) FROM tune_metric", -1, &d->tcount, NULL) !=
            SQLITE_OK)
        return db_fail(d, err, "cannot prepare");
    return 0;
}

static int need_tune(struct study_db *d, struct ls_error *err)
{
    if (d->tget)
        return 0;
    return ls_error_set(err, LS_ERR_INTERNAL, d->path, 0, 0,
                        "database not opened for tune metrics");
}

static void bind_key(sqlite3_stmt *s, const struct study_db_tune_key *k)
{
    sqlite3_bind_int64(s, 1, (sqlite3_int64)k->problem_hash);
    sqlite3_bind_int64(s, 2, (sqlite3_int64)k->assignment_hash);
    sqlite3_bind_int64(s, 3, (sqlite3_int64)k->target_hash);
    sqlite3_bind_int64(s, 4, (sqlite3_int64)k->table_hash);
    sqlite3_bind_text(s, 5, k->codegen_version, -1, SQLITE_STATIC);
}

int study_db_tune_get(struct study_db *d, const struct study_db_tune_key *k,
                      const int32_t *a, int32_t nops, double *cycles, int *found,
                      struct ls_error *err)
{
    *found = 0;
    int rc = need_tune(d, err);
    if (rc)
        return rc;
    sqlite3_reset(d->tget);
    sqlite3_clear_bindings(d->tget);
    bind_key(d->tget, k);
    rc = sqlite3_step(d->tget);
    if (rc == SQLITE_ROW) {
        const void *blob = sqlite3_column_blob(d->tget, 0);
        int n = sqlite3_column_bytes(d->tget, 0);
        /* the same assignment, not merely the same hash */
        if (n == (int)(sizeof *a * (size_t)nops) && (n == 0 || memcmp(blob, a, (size_t)n) == 0)) {
            *found = 1;
            *cycles = sqlite3_column_type(d->tget, 1) == SQLITE_NULL
                          ? HUGE_VAL
                          : sqlite3_column_double(d->tget, 1);
        }
    } else if (rc != SQLITE_DONE) {
        rc = db_fail(d, err, "cannot read");
        sqlite3_reset(d->tget);
        return rc;
    }
    sqlite3_reset(d->tget);
    return 0;
}

int study_db_tune_put(struct study_db *d, const struct study_db_tune_key *k,
                      const int32_t *a, int32_t nops, double cycles, struct ls_error *err)
{
    int rc = need_tune(d, err);
    if (rc)
        return rc;
    sqlite3_reset(d->tput);
    sqlite3_clear_bindings(d->tput);
    bind_key(d->tput, k);
    sqlite3_bind_blob(d->tput, 6, a, (int)(sizeof *a * (size_t)nops), SQLITE_STATIC);
    if (isfinite(cycles))
        sqlite3_bind_double(d->tput, 7, cycles);
    else
        sqlite3_bind_null(d->tput, 7);
    rc = sqlite3_step(d->tput);
    if (rc != SQLITE_DONE)
        rc = db_fail(d, err, "cannot write");
    else
        rc = 0;
    sqlite3_reset(d->tput);
    return rc;
}

int study_db_tune_count(struct study_db *d, int64_t *n, struct ls_error *err)
{
    int rc = need_tune(d, err);
    if (rc)
        return rc;
    sqlite3_reset(d->tcount);
    if (sqlite3_step(d->tcount) != SQLITE_ROW)
        return db_fail(d, err, "cannot count");
    *n = sqlite3_column_int64(d->tcount, 0);
    sqlite3_reset(d->tcount);
    return 0;
}
