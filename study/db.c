/* study/db: opening, the schema and its migrations, meta and transactions (study/db.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/db_int.h"

/* ---- the schema: every table at its current version ----------------------------------- */

/* The CREATE text is what sqlite keeps in the file: changing it changes the files written,
 * so a new column is a new version with a migration below, never an edit here alone. */
static const struct {
    unsigned part;
    const char *sql;
} tables[] = {
    {STUDY_DB_CELLS,
     "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
     "CREATE TABLE IF NOT EXISTS cells("
     " model TEXT NOT NULL, target TEXT NOT NULL, strategy TEXT NOT NULL, tbl TEXT NOT NULL,"
     " family TEXT, grp TEXT, scale TEXT, model_ix INTEGER, target_ix INTEGER, variant TEXT,"
     " target_hash TEXT, table_hash TEXT, ops INTEGER, treewidth INTEGER,"
     " rc INTEGER, error TEXT, status TEXT, predicted INTEGER, bound INTEGER,"
     " sim_cycles INTEGER, conversions INTEGER, instructions INTEGER, dma_eff REAL,"
     " rb_exhaustive INTEGER, rb_split INTEGER, rb_greedy INTEGER, mem_mib REAL,"
     " layouts TEXT, tune_budget INTEGER DEFAULT 0, tune_evaluations INTEGER DEFAULT 0,"
     " tune_simulations INTEGER DEFAULT 0, roofline_cycles REAL DEFAULT 0,"
     " roofline_by TEXT DEFAULT '', busy_pe REAL DEFAULT 0, busy_act REAL DEFAULT 0,"
     " busy_dve REAL DEFAULT 0, busy_pool REAL DEFAULT 0, busy_dma REAL DEFAULT 0,"
     " conv_share REAL DEFAULT 0,"
     " solve_seconds REAL, wall_seconds REAL,"
     " PRIMARY KEY(model, target, strategy, tbl));"},
    {STUDY_DB_TUNE,
     "CREATE TABLE IF NOT EXISTS tune_metric ("
     " problem_hash INTEGER NOT NULL,"
     " assignment_hash INTEGER NOT NULL,"
     " target_hash INTEGER NOT NULL,"
     " table_hash INTEGER NOT NULL,"
     " codegen_version TEXT NOT NULL,"
     " assignment BLOB NOT NULL,"           /* int32 cfg indices, problem op order */
     " cycles REAL,"                        /* NULL: the target rejected the program */
     " created TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,"
     " PRIMARY KEY (problem_hash, assignment_hash, target_hash, table_hash, codegen_version))"},
};

/* migrations[v - 1] takes the cells tables from version v to v + 1, meta 'schema' included. */
static const char *const migrations[] = {
    /* 1 -> 2: the autotuner columns (schema-1 files have no mcts cells, so 0 is right) */
    "ALTER TABLE cells ADD COLUMN tune_budget INTEGER DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN tune_evaluations INTEGER DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN tune_simulations INTEGER DEFAULT 0;"
    "INSERT OR REPLACE INTO meta(key, value) VALUES('schema', '2');",
    /* 2 -> 3: the roofline and per-engine busy fractions (unknown for old rows: 0, "") */
    "ALTER TABLE cells ADD COLUMN roofline_cycles REAL DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN roofline_by TEXT DEFAULT '';"
    "ALTER TABLE cells ADD COLUMN busy_pe REAL DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN busy_act REAL DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN busy_dve REAL DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN busy_pool REAL DEFAULT 0;"
    "ALTER TABLE cells ADD COLUMN busy_dma REAL DEFAULT 0;"
    "INSERT OR REPLACE INTO meta(key, value) VALUES('schema', '3');",
    /* 3 -> 4: the conversions' share of the instruction time (unknown for old rows: 0) */
    "ALTER TABLE cells ADD COLUMN conv_share REAL DEFAULT 0;"
    "INSERT OR REPLACE INTO meta(key, value) VALUES('schema', '4');",
};
_Static_assert(sizeof migrations / sizeof *migrations == STUDY_DB_SCHEMA - 1,
               "one migration per schema version");

/* ---- helpers ---------------------------------------------------------------------------- */

/* A malformed store is bad input (exit 2): a damaged file, not a database, or tables
 * without the columns laysim writes ("no such column" is SQLITE_ERROR). Everything else
 * (I/O, a full disk, a lock) is an I/O error. */
static int db_status(int sqlite_rc)
{
    switch (sqlite_rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_ERROR:
    case SQLITE_MISMATCH:
    case SQLITE_SCHEMA:
    case SQLITE_FORMAT:
    case SQLITE_RANGE:
        return LS_ERR_INPUT;
    case SQLITE_NOMEM:
        return LS_ERR_NOMEM;
    default:
        return LS_ERR_IO;
    }
}

int db_fail(struct study_db *d, struct ls_error *err, const char *what)
{
    int code = d->db ? db_status(sqlite3_extended_errcode(d->db)) : LS_ERR_NOMEM;
    return ls_error_set(err, code, d->path, 0, 0, "sqlite: %s: %s", what,
                        d->db ? sqlite3_errmsg(d->db) : "out of memory");
}

int db_exec(struct study_db *d, const char *sql, struct ls_error *err)
{
    char *msg = NULL;
    int src = sqlite3_exec(d->db, sql, NULL, NULL, &msg);
    if (src != SQLITE_OK) {
        int rc = ls_error_set(err, db_status(src), d->path, 0, 0, "sqlite: %s",
                              msg ? msg : "error");
        sqlite3_free(msg);
        return rc;
    }
    return 0;
}

static int open_file(const char *path, int flags, struct study_db **out, struct ls_error *err)
{
    *out = NULL;
    struct study_db *d = calloc(1, sizeof *d);
    if (!d)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    snprintf(d->path, sizeof d->path, "%s", path);
    if (sqlite3_open_v2(path, &d->db, flags, NULL) != SQLITE_OK) {
        int rc = ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open the results database: %s",
                              d->db ? sqlite3_errmsg(d->db) : "out of memory");
        study_db_close(d);
        return rc;
    }
    sqlite3_busy_timeout(d->db, 10000);
    *out = d;
    return 0;
}

/* The cells tables' version from meta ("" when the key is absent). */
static int read_schema(struct study_db *d, char *v, size_t n, struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    v[0] = 0;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM meta WHERE key = 'schema'", -1, &s,
                           NULL) != SQLITE_OK)
        return ls_error_set(err, LS_ERR_INPUT, d->path, 0, 0,
                            "not a laysim results database (%s)", sqlite3_errmsg(d->db));
    int st = sqlite3_step(s), rc = 0;
    if (st == SQLITE_ROW && sqlite3_column_text(s, 0))
        snprintf(v, n, "%s", (const char *)sqlite3_column_text(s, 0));
    else if (st != SQLITE_ROW && st != SQLITE_DONE)
        rc = db_fail(d, err, "meta");
    sqlite3_finalize(s);
    return rc;
}

/* Bring the cells tables to STUDY_DB_SCHEMA, each step in one transaction. */
static int migrate(struct study_db *d, struct ls_error *err)
{
    char v[32];
    int rc = read_schema(d, v, sizeof v, err);
    if (rc)
        return rc;
    if (!v[0]) {
        snprintf(v, sizeof v, "%d", STUDY_DB_SCHEMA);
        return study_db_meta_set(d, "schema", v, err);
    }
    int ver = atoi(v);
    if (ver < 1 || ver > STUDY_DB_SCHEMA)
        return ls_error_set(err, LS_ERR_INPUT, d->path, 0, 0,
                            "results database schema %s, this laysim reads schema %d", v,
                            STUDY_DB_SCHEMA);
    for (; ver < STUDY_DB_SCHEMA; ver++) {
        if ((rc = db_exec(d, "BEGIN", err)))
            return rc;
        if ((rc = db_exec(d, migrations[ver - 1], err)) || (rc = db_exec(d, "COMMIT", err))) {
            db_exec(d, "ROLLBACK", NULL);
            return rc;
        }
    }
    d->schema = STUDY_DB_SCHEMA;
    return 0;
}

/* ---- open / close ----------------------------------------------------------------------- */

int study_db_open(const char *path, unsigned parts, struct study_db **out,
                  struct ls_error *err)
{
    struct study_db *d;
    int rc = open_file(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, &d, err);
    if (rc)
        return rc;
    d->parts = parts;
    d->schema = STUDY_DB_SCHEMA;
    /* tune metrics are written one row per simulation: WAL with synchronous=NORMAL commits
     * without an fsync each (a crash may lose the last rows, never corrupt the file) */
    if (parts & STUDY_DB_TUNE)
        sqlite3_exec(d->db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL", NULL, NULL,
                     NULL);
    for (size_t i = 0; i < sizeof tables / sizeof *tables && !rc; i++)
        if (parts & tables[i].part)
            rc = db_exec(d, tables[i].sql, err);
    if (!rc && (parts & STUDY_DB_CELLS))
        rc = migrate(d, err);
    if (!rc && (parts & STUDY_DB_CELLS))
        rc = db_cells_prepare(d, err);
    if (!rc && (parts & STUDY_DB_TUNE))
        rc = db_tune_prepare(d, err);
    if (rc) {
        study_db_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

int study_db_open_readonly(const char *path, struct study_db **out, struct ls_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "no such results database");
    fclose(f);
    struct study_db *d;
    int rc = open_file(path, SQLITE_OPEN_READONLY, &d, err);
    if (rc)
        return rc;
    d->parts = STUDY_DB_CELLS;
    d->readonly = 1;
    char v[32];
    if (!(rc = read_schema(d, v, sizeof v, err))) {
        d->schema = atoi(v);
        if (d->schema < 1 || d->schema > STUDY_DB_SCHEMA)
            rc = ls_error_set(err, LS_ERR_INPUT, path, 0, 0,
                              "results database schema %s, this laysim reads schemas 1 to %d",
                              v, STUDY_DB_SCHEMA);
    }
    if (rc) {
        study_db_close(d);
        return rc;
    }
    *out = d;
    return 0;
}

void study_db_close(struct study_db *d)
{
    if (!d)
        return;
    sqlite3_finalize(d->put);
    sqlite3_finalize(d->tget);
    sqlite3_finalize(d->tput);
    sqlite3_finalize(d->tcount);
    sqlite3_close(d->db);
    free(d);
}

/* ---- meta and transactions -------------------------------------------------------------- */

int study_db_meta_set(struct study_db *d, const char *key, const char *value,
                      struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(d->db, "INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)", -1,
                           &s, NULL) != SQLITE_OK)
        return db_fail(d, err, "prepare");
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(s, 2, value, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : db_fail(d, err, "meta");
    sqlite3_finalize(s);
    return rc;
}

int study_db_meta_get(struct study_db *d, const char *key, char *buf, size_t n,
                      struct ls_error *err)
{
    sqlite3_stmt *s = NULL;
    buf[0] = 0;
    if (sqlite3_prepare_v2(d->db, "SELECT value FROM meta WHERE key = ?", -1, &s, NULL) !=
        SQLITE_OK)
        return db_fail(d, err, "prepare");
    sqlite3_bind_text(s, 1, key, -1, SQLITE_TRANSIENT);
    int r = sqlite3_step(s), rc = 0;
    if (r == SQLITE_ROW)
        snprintf(buf, n, "%s", (const char *)sqlite3_column_text(s, 0));
    else if (r != SQLITE_DONE)
        rc = db_fail(d, err, "meta");
    sqlite3_finalize(s);
    return rc;
}

int study_db_begin(struct study_db *d, struct ls_error *err)
{
    return db_exec(d, "BEGIN", err);
}

int study_db_commit(struct study_db *d, struct ls_error *err)
{
    return db_exec(d, "COMMIT", err);
}
