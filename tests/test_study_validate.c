/* Tests of study/validate on hand-made numbers: the 0.5% equality band, pairwise ranking
 * accuracy with identical assignments excluded, Kendall's tau-b, relative errors, and the
 * criterion for exact solving. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "study/regret.h"
#include "study/validate.h"

static void test_cmp3(void **st)
{
    (void)st;
    assert_int_equal(study_cmp3(100, 100.4), 0);   /* 0.4% < 0.5%: equal */
    assert_int_equal(study_cmp3(100, 100.6), -1);  /* 0.6%: worse/better */
    assert_int_equal(study_cmp3(100.6, 100), 1);
    assert_int_equal(study_cmp3(200, 201), -1); /* |a-b| = 1 is exactly 0.5% of 200: not < */
    assert_int_equal(study_cmp3(0, 0), 0);
}

static const int32_t A[3] = {0, 1, 2}, B[3] = {0, 1, 1}, C[3] = {1, 1, 1}, D[3] = {2, 0, 0};

static void test_pairwise(void **st)
{
    (void)st;
    /* local, greedy, rulebased, exact; greedy and exact share an assignment */
    struct study_point p[4] = {
        {"local", 110, 200, A, 3},
        {"greedy", 100, 150, B, 3},
        {"rulebased", 105, 140, C, 3},  /* predicted worse than greedy, simulated better */
        {"exact", 100, 150, B, 3},
    };
    struct study_pairwise pw = {0, 0, 0};
    study_pairwise_add(p, 4, &pw);
    assert_int_equal(pw.identical, 1);
    assert_int_equal(pw.pairs, 5);
    /* correct: local-greedy, local-rulebased, local-exact; wrong: greedy-rulebased,
     * rulebased-exact */
    assert_int_equal(pw.correct, 3);
    assert_true(fabs(study_pairwise_accuracy(&pw) - 0.6) < 1e-12);
    /* accumulation over models */
    struct study_point q[2] = {{"x", 10, 10, A, 3}, {"y", 10.01, 20, D, 3}};
    study_pairwise_add(q, 2, &pw);           /* predicted equal, simulated not: wrong */
    assert_int_equal(pw.pairs, 6);
    assert_int_equal(pw.correct, 3);
    struct study_pairwise none = {0, 0, 0};
    assert_true(isnan(study_pairwise_accuracy(&none)));
    /* missing assignments are never identical */
    struct study_point r[2] = {{"a", 1, 1, NULL, 0}, {"b", 1, 1, NULL, 0}};
    study_pairwise_add(r, 2, &none);
    assert_int_equal(none.identical, 0);
    assert_int_equal(none.correct, 1);
}

static void test_kendall(void **st)
{
    (void)st;
    struct study_point p[4] = {
        {"a", 1, 10, A, 3}, {"b", 2, 20, B, 3}, {"c", 3, 30, C, 3}, {"d", 4, 40, D, 3}};
    assert_true(fabs(study_kendall_tau_b(p, 4) - 1.0) < 1e-12);
    p[3].simulated = 5; /* d now simulates fastest: 3 discordant pairs of 6 */
    assert_true(fabs(study_kendall_tau_b(p, 4) - 0.0) < 1e-12);
    /* ties: x = (1, 1, 2), y = (1, 2, 3): nc = 2, nd = 0, tx = 1, ty = 0:
     * tau_b = 2 / sqrt(3 * 2) */
    struct study_point t[3] = {{"a", 1, 1, A, 3}, {"b", 1, 2, B, 3}, {"c", 2, 3, C, 3}};
    assert_true(fabs(study_kendall_tau_b(t, 3) - 2.0 / sqrt(6.0)) < 1e-12);
    /* identical assignments count once: duplicate of b dropped */
    struct study_point u[4] = {{"a", 1, 1, A, 3}, {"b", 1, 2, B, 3}, {"b2", 1, 2, B, 3},
                               {"c", 2, 3, C, 3}};
    assert_true(fabs(study_kendall_tau_b(u, 4) - 2.0 / sqrt(6.0)) < 1e-12);
    /* undefined: one point, or all tied on one side */
    assert_true(isnan(study_kendall_tau_b(p, 1)));
    struct study_point v[2] = {{"a", 1, 1, A, 3}, {"b", 1, 2, B, 3}};
    assert_true(isnan(study_kendall_tau_b(v, 2)));
}

static void test_errors(void **st)
{
    (void)st;
    struct study_point p[4] = {
        {"a", 110, 100, A, 3}, {"b", 90, 100, B, 3}, {"c", 100, 100, C, 3}, {"d", 150, 100, D, 3}};
    double rel[4];
    assert_int_equal(study_rel_errors(p, 4, rel), 4);
    assert_true(fabs(rel[0] - 0.1) < 1e-12 && fabs(rel[1] - 0.1) < 1e-12);
    assert_true(fabs(study_median(rel, 4) - 0.1) < 1e-12);
    assert_true(fabs(study_max(rel, 4) - 0.5) < 1e-12);
    assert_true(fabs(study_median(rel, 3) - 0.1) < 1e-12);
    assert_true(isnan(study_median(rel, 0)));
    double x[3] = {1, NAN, 3};
    assert_true(fabs(study_nanmean(x, 3) - 2) < 1e-12);
}

static void test_criterion(void **st)
{
    (void)st;
    /* heuristics 2%, 5%, 0% above exact under the model; the model errs by up to 10% */
    struct study_point p[4] = {
        {"local", 102, 95, A, 3}, {"greedy", 105, 110, B, 3}, {"rulebased", 100, 100, C, 3},
        {"exact", 100, 100.5, D, 3}};
    struct study_criterion c;
    assert_int_equal(study_criterion(p, 4, 3, &c), 0);
    assert_true(fabs(c.gap[0] - 0.02) < 1e-12 && fabs(c.gap[1] - 0.05) < 1e-12);
    assert_true(fabs(c.model_error - (7.0 / 95.0)) < 1e-12);
    assert_true(fabs(c.best_sim - 95) < 1e-12);
    assert_false(c.exact_within_1pct);          /* 100.5 vs 95: 5.8% slower */
    assert_false(c.exact_pays);                 /* max gap 5% < model error 7.4% */
    p[0].simulated = 100.2;
    p[1].predicted = 120;
    assert_int_equal(study_criterion(p, 4, 3, &c), 0);
    assert_true(c.exact_within_1pct);
    assert_true(c.exact_pays);                  /* gap 20% > error */
    /* more points than the criterion holds, or no exact among them: an error, not a cut */
    struct study_point many[STUDY_CRITERION_MAX + 1];
    for (int i = 0; i <= STUDY_CRITERION_MAX; i++)
        many[i] = p[i % 4];
    assert_int_equal(study_criterion(many, STUDY_CRITERION_MAX + 1, 3, &c), LS_ERR_INPUT);
    assert_int_equal(study_criterion(many, STUDY_CRITERION_MAX, 3, &c), 0);
    assert_int_equal(study_criterion(p, 4, 4, &c), LS_ERR_INPUT);
}

/* Regret summary: NaN skipped, 1% inclusive. */
static void test_regret_summary(void **st)
{
    (void)st;
    double r[] = {0.0, 0.01, NAN, 0.05, 0.002};
    struct study_regret g;
    study_regret_summary(r, 5, &g);
    assert_int_equal(g.models, 4);
    assert_int_equal(g.within, 3);
    assert_true(fabs(g.max - 0.05) < 1e-12);
    assert_true(fabs(g.median - 0.006) < 1e-12);
    study_regret_summary(r, 0, &g);
    assert_int_equal(g.models, 0);
    assert_true(isnan(g.max) && isnan(g.median));
}

static int read_ref(const char *text, struct study_reference *ref, struct ls_error *err)
{
    char path[] = "/tmp/laysim_ref_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_true(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    int rc = study_reference_read(path, ref, err);
    unlink(path);
    return rc;
}

/* Reference files: rows found by model, sources kept; bad numbers, a duplicate model, a
 * wrong header and an empty file are refused with their line. */
static void test_reference(void **st)
{
    (void)st;
    struct study_reference ref;
    struct ls_error err = {0};
    assert_int_equal(read_ref("# best\nmodel,best_cycles,source\n\nzoo:a,100,mcts\n"
                              "\"zoo:b,x\",2.5e3\r\n", &ref, &err), 0);
    assert_int_equal(ref.n, 2);
    const struct study_reference_row *a = study_reference_find(&ref, "zoo:a");
    assert_non_null(a);
    assert_true(a->best_cycles == 100 && strcmp(a->source, "mcts") == 0 && a->line == 4);
    assert_true(study_reference_find(&ref, "zoo:b,x")->best_cycles == 2500);
    assert_null(study_reference_find(&ref, "zoo:c"));
    study_reference_free(&ref);
    static const struct {
        const char *text, *what;
        int line;
    } bad[] = {{"model,best_cycles\nm,0\n", "best_cycles", 2},
               {"model,best_cycles\nm,12x\n", "best_cycles", 2},
               {"model,best_cycles\nm,5\nm,6\n", "twice", 3},
               {"model,cycles\nm,5\n", "header", 1},
               {"# only a comment\n", "empty", 0},
               {"model,best_cycles\nm\n", "fields", 2}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(read_ref(bad[i].text, &ref, &err), LS_ERR_INPUT);
        assert_non_null(strstr(err.msg, bad[i].what));
        assert_int_equal(err.line, bad[i].line);
        assert_int_equal(ref.n, 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cmp3),   cmocka_unit_test(test_pairwise),
        cmocka_unit_test(test_kendall), cmocka_unit_test(test_errors),
        cmocka_unit_test(test_criterion),
        cmocka_unit_test(test_regret_summary), cmocka_unit_test(test_reference),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
