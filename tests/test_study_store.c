/* Tests for study/store, study/study (model sets, what-if products, shards) and
 * study/report (valid JSON / HTML). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "study/report.h"
#include "study/store.h"
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
    struct study_store *st;
    assert_int_equal(study_store_open(path, &st, &err), 0);
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
    assert_int_equal(study_store_put(st, &c, &err), 0);
    /* replacing the same key keeps one row */
    c.sim_cycles = 43;
    assert_int_equal(study_store_put(st, &c, &err), 0);
    strcpy(c.strategy, "local");
    c.rc = LS_ERR_LIMIT;
    strcpy(c.error, "it's \"quoted\"");
    assert_int_equal(study_store_put(st, &c, &err), 0);
    assert_int_equal(study_store_meta_set(st, "kind", "study", &err), 0);
    study_store_close(st);

    assert_int_equal(study_store_open(path, &st, &err), 0);
    struct study_cells cs;
    assert_int_equal(study_store_load(st, &cs, &err), 0);
    assert_int_equal(cs.n, 2);
    /* ordered by strategy within a model: exact before local */
    assert_string_equal(cs.c[0].strategy, "exact");
    assert_int_equal(cs.c[0].sim_cycles, 43);
    assert_int_equal(cs.c[0].predicted, 1234567890123LL);
    assert_int_equal(cs.c[0].treewidth, 3);
    assert_string_equal(cs.c[0].layouts, "a=0,1;b=1;");
    assert_true(cs.c[0].solve_seconds == 0.25);
    assert_int_equal(cs.c[1].rc, LS_ERR_LIMIT);
    assert_string_equal(cs.c[1].error, "it's \"quoted\"");
    int count;
    assert_int_equal(study_store_count(st, "m1", "nc-v2", &count, &err), 0);
    assert_int_equal(count, 2);
    char v[32];
    assert_int_equal(study_store_meta_get(st, "kind", v, sizeof v, &err), 0);
    assert_string_equal(v, "study");
    assert_int_equal(study_store_meta_get(st, "absent", v, sizeof v, &err), 0);
    assert_string_equal(v, "");
    study_cells_free(&cs);
    study_cell_free(&c);
    study_store_close(st);
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

    int k, n;
    assert_int_equal(study_parse_shard("2/3", &k, &n, &err), 0);
    assert_int_equal(k, 2);
    assert_int_equal(n, 3);
    assert_int_equal(study_parse_shard("0/3", &k, &n, &err), LS_ERR_INPUT);
    assert_int_equal(study_parse_shard("4/3", &k, &n, &err), LS_ERR_INPUT);
    assert_int_equal(study_parse_shard("1-3", &k, &n, &err), LS_ERR_INPUT);
}

/* one study run of a small grid into dir/results.sqlite */
static void run_grid(const char *dir, int k, int n, int resume, struct study_summary *sum)
{
    struct ls_error err = {0};
    struct study_opts o;
    study_opts_init(&o);
    o.jobs = 2;
    o.shard_k = k;
    o.shard_n = n;
    o.resume = resume;
    assert_int_equal(study_models_select("cnn,whisper-enc:quick", &o.models, &err), 0);
    struct sim_target base;
    assert_int_equal(sim_target_builtin(&base, "nc-v2"), 0);
    const char *sets[] = {"pe.rows=64,128"};
    assert_int_equal(study_targets_product(&base, sets, 1, 1, &o.targets, &err), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/results.sqlite", dir);
    struct study_store *st;
    assert_int_equal(study_store_open(path, &st, &err), 0);
    int rc = study_run(&o, st, sum, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    study_store_close(st);
    study_opts_free(&o);
}

static char *dump_of(const char *path)
{
    struct ls_error err = {0};
    struct study_store *st;
    assert_int_equal(study_store_open(path, &st, &err), 0);
    char *d;
    assert_int_equal(study_store_dump(st, &d, &err), 0);
    study_store_close(st);
    return d;
}

static void test_shard_merge_equals_one_run(void **state)
{
    (void)state;
    char one[256], s1[256], s2[256], merged[256], path[512];
    tmpdir(one, sizeof one);
    tmpdir(s1, sizeof s1);
    tmpdir(s2, sizeof s2);
    tmpdir(merged, sizeof merged);
    struct study_summary sum;
    run_grid(one, 1, 1, 0, &sum);
    assert_int_equal(sum.jobs, 4);
    assert_int_equal(sum.cells, 4 * 9);
    run_grid(s1, 1, 2, 0, &sum);
    assert_int_equal(sum.jobs, 2);
    run_grid(s2, 2, 2, 0, &sum);
    assert_int_equal(sum.jobs, 2);
    /* resuming a complete store runs nothing */
    run_grid(s2, 2, 2, 1, &sum);
    assert_int_equal(sum.jobs_skipped, 2);
    assert_int_equal(sum.jobs_run, 0);

    struct ls_error err = {0};
    struct study_store *st;
    snprintf(path, sizeof path, "%s/results.sqlite", merged);
    assert_int_equal(study_store_open(path, &st, &err), 0);
    char in[512];
    snprintf(in, sizeof in, "%s/results.sqlite", s1);
    assert_int_equal(study_store_merge_from(st, in, &err), 0);
    snprintf(in, sizeof in, "%s/results.sqlite", s2);
    assert_int_equal(study_store_merge_from(st, in, &err), 0);
    snprintf(in, sizeof in, "%s/nothing.sqlite", s2);
    assert_int_equal(study_store_merge_from(st, in, &err), LS_ERR_INPUT);
    study_store_close(st);

    snprintf(in, sizeof in, "%s/results.sqlite", one);
    char *a = dump_of(in), *b = dump_of(path);
    assert_true(strlen(a) > 100);
    assert_string_equal(a, b);
    free(a);
    free(b);

    /* the report of the merged store: valid JSON and a complete HTML document */
    assert_int_equal(study_store_open(path, &st, &err), 0);
    struct study_cells cs;
    assert_int_equal(study_store_load(st, &cs, &err), 0);
    study_store_close(st);
    struct study_report_opts ro = {"whatif", "test", 1.0, 1, ""};
    assert_int_equal(study_report_write(&cs, &ro, merged, &err), 0);
    study_cells_free(&cs);
    snprintf(in, sizeof in, "%s/results.json", merged);
    json_error_t je;
    json_t *j = json_load_file(in, 0, &je);
    assert_non_null(j);
    assert_string_equal(json_string_value(json_object_get(j, "kind")), "whatif");
    json_t *targets = json_object_get(j, "targets");
    assert_int_equal(json_array_size(targets), 2);
    assert_int_equal(json_array_size(json_object_get(j, "cells")), 4 * 9);
    json_t *m0 = json_array_get(json_object_get(json_array_get(targets, 0), "models"), 0);
    assert_string_equal(json_string_value(json_object_get(m0, "model")), "cnn");
    json_t *ex = json_object_get(json_object_get(m0, "datasheet"), "exact");
    assert_true(json_is_integer(json_object_get(ex, "transposes")));
    assert_true(json_real_value(json_object_get(ex, "sim_cycles")) > 0);
    json_decref(j);
    snprintf(in, sizeof in, "%s/report.html", merged);
    char *html;
    size_t len;
    assert_int_equal(ls_read_file(in, &html, &len, &err), 0);
    assert_non_null(strstr(html, "<!DOCTYPE html>"));
    assert_non_null(strstr(html, "</html>"));
    assert_null(strstr(html, "<script src"));
    assert_null(strstr(html, "<img src=\"http"));
    assert_null(strstr(html, "<link"));
    /* every plot: Figure 5a, 5b, 6a, 6b, 7a, two heatmaps per target + the what-if bars */
    int svgs = 0, open_tags = 0;
    for (const char *p = html; (p = strstr(p, "<svg")); p++)
        svgs++;
    for (const char *p = html; (p = strstr(p, "</svg>")); p++)
        open_tags++;
    assert_int_equal(svgs, open_tags);
    assert_int_equal(svgs, 2 * 7 + 1);
    assert_non_null(strstr(html, "decisions changed"));
    free(html);
    snprintf(in, sizeof in, "%s/report.md", merged);
    assert_int_equal(access(in, R_OK), 0);
    snprintf(in, sizeof in, "%s/whatif.csv", merged);
    assert_int_equal(access(in, R_OK), 0);
    rmrf(one);
    rmrf(s1);
    rmrf(s2);
    rmrf(merged);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_store_roundtrip),
        cmocka_unit_test(test_models_and_targets),
        cmocka_unit_test(test_shard_merge_equals_one_run),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
