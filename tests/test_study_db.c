/* Tests for study/db (the results database: rows, meta, migrations, read-only inputs,
 * tune metrics) and study/study (model sets, what-if products, shards). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study/db.h"
#include "study/study.h"
#include "util/fileio.h"

static void tmpdir(char *buf, size_t n)
{
    snprintf(buf, n, "/tmp/laysim-test-study-XXXXXX");
    assert_non_null(mkdtemp(buf));
}

static void rmrf(const char *dir)
{
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_store_roundtrip(void **state)
{
    (void)state;
    char dir[256], path[512];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/r.sqlite", dir);
    struct ls_error err = {0};
    struct study_db *st;
    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &st, &err), 0);
    struct study_cell c;
    study_cell_init(&c);
    strcpy(c.model, "m1");
    strcpy(c.target, "nc-v2");
    strcpy(c.strategy, "exact");
    strcpy(c.table, "datasheet");
    strcpy(c.group, "dense");
    strcpy(c.status, "optimal");
    c.predicted = 1234567890123LL;
    c.sim_cycles = 42;
    c.conversions = 7;
    c.treewidth = 3;
    c.solve_seconds = 0.25;
    c.layouts = strdup("a=0,1;b=1;");
    assert_int_equal(study_db_put(st, &c, &err), 0);
    /* replacing the same key keeps one row */
    c.sim_cycles = 43;
    assert_int_equal(study_db_put(st, &c, &err), 0);
    strcpy(c.strategy, "local");
    c.rc = LS_ERR_LIMIT;
    strcpy(c.error, "it's \"quoted\"");
    assert_int_equal(study_db_put(st, &c, &err), 0);
    assert_int_equal(study_db_meta_set(st, "kind", "study", &err), 0);
    study_db_close(st);

    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &st, &err), 0);
    struct study_cells cs;
    assert_int_equal(study_db_load(st, &cs, &err), 0);
    assert_int_equal(cs.len, 2);
    /* ordered by strategy within a model: exact before local */
    assert_string_equal(cs.data[0].strategy, "exact");
    assert_int_equal(cs.data[0].sim_cycles, 43);
    assert_int_equal(cs.data[0].predicted, 1234567890123LL);
    assert_int_equal(cs.data[0].treewidth, 3);
    assert_string_equal(cs.data[0].layouts, "a=0,1;b=1;");
    assert_true(cs.data[0].solve_seconds == 0.25);
    assert_int_equal(cs.data[1].rc, LS_ERR_LIMIT);
    assert_string_equal(cs.data[1].error, "it's \"quoted\"");
    int count;
    assert_int_equal(study_db_count(st, "m1", "nc-v2", &count, &err), 0);
    assert_int_equal(count, 2);
    char v[32];
    assert_int_equal(study_db_meta_get(st, "kind", v, sizeof v, &err), 0);
    assert_string_equal(v, "study");
    assert_int_equal(study_db_meta_get(st, "absent", v, sizeof v, &err), 0);
    assert_string_equal(v, "");
    study_cells_free(&cs);
    study_cell_free(&c);
    study_db_close(st);
    rmrf(dir);
}

/* A results database as laysim wrote it at schema version `schema` (1 has no tune_*
 * columns; 1 and 2 no roofline or busy columns), with one exact row. */
static void write_old_db(const char *path, int schema)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    char sql[2048];
    snprintf(sql, sizeof sql,
             "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);"
             "CREATE TABLE cells("
             " model TEXT NOT NULL, target TEXT NOT NULL, strategy TEXT NOT NULL, tbl TEXT NOT NULL,"
             " family TEXT, grp TEXT, scale TEXT, model_ix INTEGER, target_ix INTEGER, variant TEXT,"
             " target_hash TEXT, table_hash TEXT, ops INTEGER, treewidth INTEGER,"
             " rc INTEGER, error TEXT, status TEXT, predicted INTEGER, bound INTEGER,"
             " sim_cycles INTEGER, conversions INTEGER, instructions INTEGER, dma_eff REAL,"
             " rb_exhaustive INTEGER, rb_split INTEGER, rb_greedy INTEGER, mem_mib REAL,"
             " layouts TEXT,%s solve_seconds REAL, wall_seconds REAL,"
             " PRIMARY KEY(model, target, strategy, tbl));"
             "INSERT INTO meta VALUES('schema', '%d');"
             "INSERT INTO meta VALUES('kind', 'whatif');"
             "INSERT INTO cells(model, target, strategy, tbl, rc, status, predicted, sim_cycles,"
             " layouts, solve_seconds) VALUES('m1', 'nc-v2', 'exact', 'datasheet', 0, 'optimal',"
             " 100, 120, 'a=0;', 0.5);",
             schema >= 2 ? " tune_budget INTEGER DEFAULT 0, tune_evaluations INTEGER DEFAULT 0,"
                           " tune_simulations INTEGER DEFAULT 0,"
                         : "",
             schema);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static char *file_bytes(const char *path, size_t *len)
{
    struct ls_error err = {0};
    char *b;
    assert_int_equal(ls_read_file(path, &b, len, &err), 0);
    return b;
}

/* Schema 1 is merged from read-only (the input file is not changed by a single byte) and
 * migrated in place when opened for writing; an unknown version is rejected both ways. */
static void test_db_schema1(void **state)
{
    (void)state;
    char dir[256], old[512], path[512];
    tmpdir(dir, sizeof dir);
    snprintf(old, sizeof old, "%s/old.sqlite", dir);
    snprintf(path, sizeof path, "%s/new.sqlite", dir);
    write_old_db(old, 1);
    size_t n0, n1;
    char *b0 = file_bytes(old, &n0);

    struct ls_error err = {0};
    struct study_db *db;
    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &db, &err), 0);
    assert_int_equal(study_db_merge_from(db, old, &err), 0);
    struct study_cells cs;
    assert_int_equal(study_db_load(db, &cs, &err), 0);
    assert_int_equal(cs.len, 1);
    assert_int_equal(cs.data[0].sim_cycles, 120);
    assert_int_equal(cs.data[0].tune_budget, 0);
    assert_string_equal(cs.data[0].layouts, "a=0;");
    study_cells_free(&cs);
    char v[32];
    assert_int_equal(study_db_meta_get(db, "kind", v, sizeof v, &err), 0);
    assert_string_equal(v, "whatif");       /* missing meta keys are copied */
    assert_int_equal(study_db_meta_get(db, "schema", v, sizeof v, &err), 0);
    assert_string_equal(v, "4");            /* the destination's own version stays */
    study_db_close(db);
    char *b1 = file_bytes(old, &n1);
    assert_int_equal(n0, n1);
    assert_memory_equal(b0, b1, n0);
    free(b1);
    /* a read-only handle refuses writes */
    assert_int_equal(study_db_open_readonly(old, &db, &err), 0);
    struct study_cell c;
    study_cell_init(&c);
    assert_int_not_equal(study_db_put(db, &c, &err), 0);
    study_db_close(db);

    /* opened for writing: migrated to 4 in place, the row kept */
    assert_int_equal(study_db_open(old, STUDY_DB_CELLS, &db, &err), 0);
    assert_int_equal(study_db_meta_get(db, "schema", v, sizeof v, &err), 0);
    assert_string_equal(v, "4");
    strcpy(c.model, "m1");
    strcpy(c.target, "nc-v2");
    strcpy(c.strategy, "mcts");
    strcpy(c.table, "datasheet");
    c.tune_budget = 9;
    assert_int_equal(study_db_put(db, &c, &err), 0);
    assert_int_equal(study_db_load(db, &cs, &err), 0);
    assert_int_equal(cs.len, 2);
    assert_string_equal(cs.data[0].strategy, "exact");
    assert_int_equal(cs.data[0].predicted, 100);
    assert_int_equal(cs.data[1].tune_budget, 9);
    study_cells_free(&cs);
    study_db_close(db);

    /* a version from the future */
    char fut[512];
    snprintf(fut, sizeof fut, "%s/future.sqlite", dir);
    write_old_db(fut, 5);
    assert_int_equal(study_db_open(fut, STUDY_DB_CELLS, &db, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "schema 5"));
    assert_int_equal(study_db_open_readonly(fut, &db, &err), LS_ERR_INPUT);
    snprintf(fut, sizeof fut, "%s/absent.sqlite", dir);
    assert_int_equal(study_db_open_readonly(fut, &db, &err), LS_ERR_INPUT);
    assert_int_equal(access(fut, F_OK), -1);   /* not created */
    free(b0);
    rmrf(dir);
}

/* Schema 2 (no roofline or busy columns) reads them as 0 / "" read-only and is migrated
 * to 3 when opened for writing; the new columns round-trip. */
static void test_db_schema2(void **state)
{
    (void)state;
    char dir[256], old[512];
    tmpdir(dir, sizeof dir);
    snprintf(old, sizeof old, "%s/old.sqlite", dir);
    write_old_db(old, 2);
    struct ls_error err = {0};
    struct study_db *db;
    struct study_cells cs;
    assert_int_equal(study_db_open_readonly(old, &db, &err), 0);
    assert_int_equal(study_db_load(db, &cs, &err), 0);
    assert_int_equal(cs.len, 1);
    assert_true(cs.data[0].roofline_cycles == 0 && cs.data[0].busy[LS_ENGINE_PE] == 0);
    assert_string_equal(cs.data[0].roofline_by, "");
    study_cells_free(&cs);
    study_db_close(db);
    assert_int_equal(study_db_open(old, STUDY_DB_CELLS, &db, &err), 0);
    char v[32];
    assert_int_equal(study_db_meta_get(db, "schema", v, sizeof v, &err), 0);
    assert_string_equal(v, "4");
    struct study_cell c;
    study_cell_init(&c);
    strcpy(c.model, "m1");
    strcpy(c.target, "nc-v2");
    strcpy(c.strategy, "exact");
    strcpy(c.table, "datasheet");
    c.roofline_cycles = 1234.5;
    strcpy(c.roofline_by, "hbm");
    c.busy[LS_ENGINE_PE] = 0.25;
    c.busy[LS_ENGINE_DMA] = 0.75;
    assert_int_equal(study_db_put(db, &c, &err), 0);
    assert_int_equal(study_db_load(db, &cs, &err), 0);
    assert_int_equal(cs.len, 1);
    assert_true(cs.data[0].roofline_cycles == 1234.5);
    assert_string_equal(cs.data[0].roofline_by, "hbm");
    assert_true(cs.data[0].busy[LS_ENGINE_PE] == 0.25 && cs.data[0].busy[LS_ENGINE_DMA] == 0.75);
    study_cells_free(&cs);
    study_db_close(db);
    rmrf(dir);
}

static int count_tables(const char *path)
{
    sqlite3 *db;
    sqlite3_stmt *s;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = "
                                            "'table'", -1, &s, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(s), SQLITE_ROW);
    int n = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    sqlite3_close(db);
    return n;
}

/* Tune metrics: get what was put (also a rejected program), a colliding hash with another
 * assignment is not found, and a metrics file holds the tune table only. */
static void test_db_tune(void **state)
{
    (void)state;
    char dir[256], path[512];
    tmpdir(dir, sizeof dir);
    snprintf(path, sizeof path, "%s/tune-metrics.sqlite", dir);
    struct ls_error err = {0};
    struct study_db *db;
    assert_int_equal(study_db_open(path, STUDY_DB_TUNE, &db, &err), 0);
    struct study_db_tune_key k = {1, 2, 3, 4, "cg-1"};
    int32_t a[3] = {0, 2, 1}, b[3] = {1, 1, 1};
    double cyc = 0;
    int found = 1;
    assert_int_equal(study_db_tune_get(db, &k, a, 3, &cyc, &found, &err), 0);
    assert_int_equal(found, 0);
    assert_int_equal(study_db_tune_put(db, &k, a, 3, 1234.5, &err), 0);
    assert_int_equal(study_db_tune_get(db, &k, a, 3, &cyc, &found, &err), 0);
    assert_int_equal(found, 1);
    assert_true(cyc == 1234.5);
    assert_int_equal(study_db_tune_get(db, &k, b, 3, &cyc, &found, &err), 0);
    assert_int_equal(found, 0);              /* same hash, other assignment */
    k.assignment_hash = 5;
    assert_int_equal(study_db_tune_put(db, &k, b, 3, HUGE_VAL, &err), 0);
    assert_int_equal(study_db_tune_get(db, &k, b, 3, &cyc, &found, &err), 0);
    assert_int_equal(found, 1);
    assert_true(isinf(cyc));
    int64_t n;
    assert_int_equal(study_db_tune_count(db, &n, &err), 0);
    assert_int_equal(n, 2);
    /* a cells call on a tune-only handle is an error, not a crash */
    struct study_cell c;
    study_cell_init(&c);
    assert_int_not_equal(study_db_put(db, &c, &err), 0);
    study_db_close(db);
    assert_int_equal(count_tables(path), 1);
    /* reopened: rows kept */
    assert_int_equal(study_db_open(path, STUDY_DB_TUNE, &db, &err), 0);
    assert_int_equal(study_db_tune_count(db, &n, &err), 0);
    assert_int_equal(n, 2);
    study_db_close(db);
    rmrf(dir);
}

static void test_models_and_targets(void **state)
{
    (void)state;
    struct ls_error err = {0};
    struct study_models ms;
    assert_int_equal(study_models_select("quick", &ms, &err), 0);
    assert_true(ms.n >= 10);
    int dense = 0;
    for (size_t i = 0; i < ms.n; i++)
        dense += !strcmp(ms.m[i].group, "dense");
    assert_true(dense > 0 && (size_t)dense < ms.n);
    study_models_free(&ms);
    assert_int_equal(study_models_select("cnn,bert-base:quick", &ms, &err), 0);
    assert_int_equal(ms.n, 2);
    assert_string_equal(ms.m[0].scale, "");
    assert_string_equal(ms.m[1].scale, "--layers 2 --seq 128 --hidden 256");
    study_models_free(&ms);
    assert_int_equal(study_models_select("no-such-model", &ms, &err), LS_ERR_INPUT);
    assert_int_equal(study_models_select("cnn,cnn", &ms, &err), LS_ERR_INPUT);

    struct sim_target base;
    assert_int_equal(sim_target_builtin(&base, "nc-v2"), 0);
    struct study_targets ts;
    const char *sets[] = {"pe.rows=64,128", "dma.bytes_per_ns=8,17"};
    assert_int_equal(study_targets_product(&base, sets, 2, 1, &ts, &err), 0);
    /* pe.rows=128 dma.bytes_per_ns=17 is nc-v2 itself: no extra base row */
    assert_int_equal(ts.n, 4);
    assert_string_equal(ts.t[0].variant, "pe.rows=64 dma.bytes_per_ns=8");
    assert_string_equal(ts.t[3].variant, "pe.rows=128 dma.bytes_per_ns=17");
    assert_true(sim_target_hash(&ts.t[3].t) == sim_target_hash(&base));
    study_targets_free(&ts);
    const char *one[] = {"pe.rows=64"};
    assert_int_equal(study_targets_product(&base, one, 1, 1, &ts, &err), 0);
    assert_int_equal(ts.n, 2);
    assert_string_equal(ts.t[0].variant, "");
    study_targets_free(&ts);
    const char *bad1[] = {"pe.nosuchkey=1,2"};
    assert_int_equal(study_targets_product(&base, bad1, 1, 1, &ts, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "pe.nosuchkey"));
    const char *bad2[] = {"pe.rows=64,banana"};
    assert_int_equal(study_targets_product(&base, bad2, 1, 1, &ts, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "banana"));
    const char *bad3[] = {"pe.rows=64,,128"};
    assert_int_equal(study_targets_product(&base, bad3, 1, 1, &ts, &err), LS_ERR_INPUT);
    const char *bad4[] = {"pe.rows"};
    assert_int_equal(study_targets_product(&base, bad4, 1, 1, &ts, &err), LS_ERR_INPUT);
    /* a variant too long for the row key is an error, not a cut label */
    const char *longv[] = {"dma.transfer_latency_ns=100.00000000000000000000000",
                           "dma.transpose_hbm_eff=0.500000000000000000000000",
                           "dma.transpose_sbuf_eff=0.50000000000000000000000",
                           "sbuf.bytes_per_partition=196608"};
    assert_int_equal(study_targets_product(&base, longv, 2, 1, &ts, &err), 0);
    /* a 100-character variant is kept whole in the label (it was cut at 95) */
    assert_non_null(strstr(ts.t[ts.n - 1].label, "dma.transpose_hbm_eff=0.500000000000000000000000"));
    study_targets_free(&ts);
    assert_int_equal(study_targets_product(&base, longv, 3, 1, &ts, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "longer than"));

    int k, n;
    assert_int_equal(study_parse_shard("2/3", &k, &n, &err), 0);
    assert_int_equal(k, 2);
    assert_int_equal(n, 3);
    assert_int_equal(study_parse_shard("0/3", &k, &n, &err), LS_ERR_INPUT);
    assert_int_equal(study_parse_shard("4/3", &k, &n, &err), LS_ERR_INPUT);
    assert_int_equal(study_parse_shard("1-3", &k, &n, &err), LS_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_roundtrip),
        cmocka_unit_test(test_db_schema1),
        cmocka_unit_test(test_db_schema2),
        cmocka_unit_test(test_db_tune),
        cmocka_unit_test(test_models_and_targets),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
