/* Tests for report/report: a sharded study merged into one results database gives the
 * same rows as one run, and its report is valid JSON and a complete HTML document. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/report.h"
#include "report/report_int.h"
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
    struct study_db *st;
    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &st, &err), 0);
    int rc = study_run(&o, st, sum, &err);
    if (rc)
        fprintf(stderr, "%s\n", err.msg);
    assert_int_equal(rc, 0);
    study_db_close(st);
    study_opts_free(&o);
}

static char *dump_of(const char *path)
{
    struct ls_error err = {0};
    struct study_db *st;
    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &st, &err), 0);
    char *d;
    assert_int_equal(study_db_dump(st, &d, &err), 0);
    study_db_close(st);
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
    struct study_db *st;
    snprintf(path, sizeof path, "%s/results.sqlite", merged);
    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &st, &err), 0);
    char in[512];
    snprintf(in, sizeof in, "%s/results.sqlite", s1);
    assert_int_equal(study_db_merge_from(st, in, &err), 0);
    snprintf(in, sizeof in, "%s/results.sqlite", s2);
    assert_int_equal(study_db_merge_from(st, in, &err), 0);
    snprintf(in, sizeof in, "%s/nothing.sqlite", s2);
    assert_int_equal(study_db_merge_from(st, in, &err), LS_ERR_INPUT);
    study_db_close(st);

    snprintf(in, sizeof in, "%s/results.sqlite", one);
    char *a = dump_of(in), *b = dump_of(path);
    assert_true(strlen(a) > 100);
    assert_string_equal(a, b);
    free(a);
    free(b);

    /* the report of the merged store: valid JSON and a complete HTML document */
    assert_int_equal(study_db_open(path, STUDY_DB_CELLS, &st, &err), 0);
    struct study_cells cs;
    assert_int_equal(study_db_load(st, &cs, &err), 0);
    study_db_close(st);
    struct report_opts ro = {"whatif", "test", 1.0, 1, ""};
    assert_int_equal(report_write(&cs, &ro, merged, &err), 0);
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

/* A report of 300 models (more than any fixed buffer the renderers once had): every model
 * is counted in the RQ1 figures. */
static void test_report_many_models(void **state)
{
    (void)state;
    enum { NM = 300 };
    static const char *const strat[] = {"local", "greedy", "rulebased", "exact"};
    struct study_cells cs = {0};
    struct ls_error err = {0};
    for (int m = 0; m < NM; m++)
        for (int s = 0; s < 4; s++) {
            struct study_cell c;
            study_cell_init(&c);
            snprintf(c.model, sizeof c.model, "m%03d", m);
            snprintf(c.target, sizeof c.target, "nc-v2");
            snprintf(c.strategy, sizeof c.strategy, "%s", strat[s]);
            snprintf(c.table, sizeof c.table, "datasheet");
            snprintf(c.family, sizeof c.family, "synthetic");
            snprintf(c.group, sizeof c.group, "dense");
            snprintf(c.status, sizeof c.status, "optimal");
            c.model_ix = m;
            c.ops = 10;
            c.treewidth = 2;
            c.predicted = 1000 + 10 * (3 - s);
            c.sim_cycles = 2000 + 20 * (3 - s) + m;
            assert_int_equal(study_cells_push(&cs, &c, &err), 0);
        }
    char dir[256], path[512];
    tmpdir(dir, sizeof dir);
    struct report_opts ro = {"study", "test", 1.0, 0, ""};
    assert_int_equal(report_write(&cs, &ro, dir, &err), 0);
    study_cells_free(&cs);
    snprintf(path, sizeof path, "%s/report.md", dir);
    char *md;
    size_t len;
    assert_int_equal(ls_read_file(path, &md, &len, &err), 0);
    assert_non_null(strstr(md, "(300 models)"));
    assert_null(strstr(md, "(256 models)"));
    free(md);
    rmrf(dir);
}

/* A log axis whose data lie between two of its 1-2-5 ticks (3.1 .. 4.5) still has tick
 * labels: round values in linear steps (the exact solvers' runtimes under ASan once fell
 * there and the plot had none). */
static void test_log_axis_between_ticks(void **state)
{
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    double y[] = {3.1, 3.7, 4.5};
    struct rp_series s = {"exact", "#000", y, 3, 0};
    rp_svg_cdf(f, "runtimes", "seconds", &s, 1, 1, NAN);
    fclose(f);
    assert_non_null(strstr(buf, "class=\"ytick\""));
    free(buf);
}

/* Occurrences of needle in hay. */
static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p++)
        n++;
    return n;
}

/* The predicted-vs-simulated scatter: every point drawn, ticks on both axes, finite
 * coordinates even when every point is the same value, and a legend of 40 models capped at
 * two columns with a note naming how many it leaves out. */
static void test_scatter(void **state)
{
    (void)state;
    enum { NG = 40 };
    struct rp_point p[NG];
    const char *names[NG];
    char nb[NG][16];
    for (int g = 0; g < NG; g++) {
        snprintf(nb[g], sizeof nb[g], "m%d", g);
        names[g] = nb[g];
        p[g] = (struct rp_point){1e4 * (g + 1), 1.2e4 * (g + 1), g, nb[g]};
    }
    for (int same = 0; same < 2; same++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        assert_non_null(f);
        for (int g = 0; same && g < NG; g++)
            p[g].x = p[g].y = 5e5;
        rp_svg_scatter(f, "fidelity", "predicted", "simulated", p, NG, names, NG);
        fclose(f);
        assert_int_equal(count(buf, "<path class=\"data\""), NG);
        assert_true(count(buf, "class=\"xtick\"") >= 1);
        assert_true(count(buf, "class=\"ytick\"") >= 1);
        assert_int_equal(count(buf, "class=\"key\""), 27);
        assert_non_null(strstr(buf, "+13 more"));
        assert_null(strstr(buf, "nan"));
        assert_null(strstr(buf, "inf"));
        free(buf);
    }
}

/* Series with the same values are named together: "A = B = C; D = E". */
static void test_coincide_note(void **state)
{
    (void)state;
    double a[] = {1, 2, 3}, b[] = {1, 2, 3}, c[] = {1, 2, 4}, e[] = {1, 2, 4};
    struct rp_series s[] = {{"A", "#000", a, 3, 0}, {"B", "#000", b, 3, 1},
                            {"C", "#000", c, 3, 2}, {"D", "#000", a, 3, 3},
                            {"E", "#000", e, 3, 4}, {"F", "#000", a, 2, 5}};
    char note[128];
    assert_int_equal(rp_coincide_note(s, 6, note, sizeof note), 2);
    assert_string_equal(note, "A = B = D; C = E");
    assert_int_equal(rp_coincide_note(s, 3, note, sizeof note), 1);
    assert_string_equal(note, "A = B");
    assert_int_equal(rp_coincide_note(s + 1, 2, note, sizeof note), 0);
    assert_string_equal(note, "");
    struct rp_series empty[] = {{"G", "#000", NULL, 0, 0}, {"H", "#000", NULL, 0, 1}};
    assert_int_equal(rp_coincide_note(empty, 2, note, sizeof note), 0);
}

/* Whether a tick value reads as round on an axis spanning `span`: a multiple of a 1, 2 or
 * 5 x 10^k step no finer than a twentieth of the span (no more digits than the span needs). */
static int round_tick(double v, double span)
{
    for (int i = 0; i < 3; i++) {
        double base = (double[]){1, 2, 5}[i];
        double step = base * pow(10, ceil(log10(span / 20 / base)));
        if (fabs(v / step - round(v / step)) < 1e-6)
            return 1;
    }
    return 0;
}

/* Every log axis, wherever its data fall between the 1-2-5 ticks and at any scale, labels
 * at least one tick and only round ones (CI's ASan timings once gave 0.0065 .. 0.0069). */
static void test_log_axis_ticks_round(void **state)
{
    (void)state;
    for (int scale = -6; scale <= 6; scale += 3)
        for (double lo = 1.05; lo < 9.5; lo += 0.37)
            for (double width = 0.01; width < 3; width *= 1.9) {
                double p = pow(10, scale), y[] = {lo * p, (lo + width) * p};
                char *buf = NULL;
                size_t len = 0;
                FILE *f = open_memstream(&buf, &len);
                assert_non_null(f);
                struct rp_series s = {"exact", "#000", y, 2, 0};
                rp_svg_cdf(f, "runtimes", "seconds", &s, 1, 1, NAN);
                fclose(f);
                const char *d = strstr(buf, "data-axis-lo=\"");
                assert_non_null(d);
                double alo = strtod(d + strlen("data-axis-lo=\""), NULL);
                d = strstr(buf, "data-axis-hi=\"");
                assert_non_null(d);
                double span = pow(10, strtod(d + strlen("data-axis-hi=\""), NULL)) - pow(10, alo);
                int n = 0;
                for (const char *c = buf; (c = strstr(c, "class=\"ytick\" data-v=\"")); n++) {
                    c += strlen("class=\"ytick\" data-v=\"");
                    double v = strtod(c, NULL);
                    if (!round_tick(v, span))
                        fail_msg("data %g..%g: tick %.9g is not round", y[0], y[1], v);
                }
                if (n == 0)
                    fail_msg("data %g..%g: no tick", y[0], y[1]);
                free(buf);
            }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shard_merge_equals_one_run),
        cmocka_unit_test(test_report_many_models),
        cmocka_unit_test(test_log_axis_between_ticks),
        cmocka_unit_test(test_scatter),
        cmocka_unit_test(test_coincide_note),
        cmocka_unit_test(test_log_axis_ticks_round),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
