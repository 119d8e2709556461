/* Tests of study_validate and study_loop (study/loop.h): their C results on the paper's
 * small figures are consistent with themselves (pairs, strategies, criterion, attribution
 * order, iteration figures); JSON is made in cli/ only. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "study/loop.h"

static const char *const figs[] = {LAYSIM_SOURCE_DIR "/examples/fig1.lg",
                                   LAYSIM_SOURCE_DIR "/examples/fig2.lg"};

static void sorted_by_error(const struct study_attr *a, size_t n)
{
    for (size_t i = 1; i < n; i++)
        assert_true(fabs(a[i - 1].predicted - a[i - 1].simulated) >=
                    fabs(a[i].predicted - a[i].simulated));
}

static void test_validate_struct(void **st)
{
    (void)st;
    struct study_loop_opts o;
    study_loop_opts_init(&o);
    struct cm_table tb;
    cm_table_default(&o.target, &tb);
    struct study_validation v;
    struct ls_error err = {0};
    assert_int_equal(study_validate(figs, 2, &o, &tb, &v, &err), 0);
    assert_string_equal(v.table_aggregate, tb.aggregate);
    assert_int_equal(v.models.len, 2);
    int pairs = 0, identical = 0, all_ok = 1;
    for (size_t i = 0; i < v.models.len; i++) {
        const struct study_validate_model *m = &v.models.data[i];
        assert_ptr_equal(m->eval.model, figs[i]);
        /* 4 strategies: 6 pairs, each compared or excluded as identical */
        assert_int_equal(m->eval.metrics.pw.pairs + m->eval.metrics.pw.identical, 6);
        assert_true(m->eval.metrics.pw.correct <= m->eval.metrics.pw.pairs);
        pairs += m->eval.metrics.pw.pairs;
        identical += m->eval.metrics.pw.identical;
        assert_string_equal(m->eval.runs[0].strategy, "local");
        assert_string_equal(m->eval.runs[STUDY_NSTRATEGIES - 1].strategy, "exact");
        for (int s = 0; s < STUDY_NSTRATEGIES; s++) {
            const struct study_strategy_result *r = &m->eval.runs[s];
            assert_true(r->simulated > 0 && r->predicted > 0);
            assert_true(fabs(r->rel_error - fabs((double)(r->predicted - r->simulated)) /
                                                (double)r->simulated) < 1e-12);
            /* exact's predicted cost is the optimum: no heuristic below it */
            assert_true(r->predicted >= m->eval.runs[STUDY_NSTRATEGIES - 1].predicted);
        }
        all_ok &= m->eval.criterion.exact_within_1pct;
        const struct study_attribution *a = &m->attribution_exact;
        assert_true(a->present);
        assert_true(a->classes.len > 0);
        assert_true(a->operators.len <= 10 && a->conversions.len <= 10);
        sorted_by_error(a->classes.data, a->classes.len);
        sorted_by_error(a->operators.data, a->operators.len);
        sorted_by_error(a->conversions.data, a->conversions.len);
    }
    assert_int_equal(v.all.pw.pairs, pairs);
    assert_int_equal(v.all.pw.identical, identical);
    assert_int_equal(v.exact_within_1pct_all, all_ok);
    assert_true(v.all.max_rel_error >= v.all.median_rel_error);
    study_validation_free(&v);
    assert_int_equal(v.models.len, 0);
}

static void test_loop_struct(void **st)
{
    (void)st;
    struct study_loop_opts o;
    study_loop_opts_init(&o);
    o.iterations = 1;
    o.nperturb = 2;
    o.lofo = 0;   /* no verdict: the refit is taken (test_loop_verdict has one) */
    struct study_loop_result r;
    struct cm_table fin;
    struct ls_error err = {0};
    assert_int_equal(study_loop(figs, 2, &o, &r, &fin, &err), 0);
    assert_true(r.microbenchmarks > 0 && r.microbench_samples > 0);
    assert_int_equal(r.iterations.len, 2);
    for (size_t i = 0; i < r.iterations.len; i++) {
        const struct study_loop_iter *it = &r.iterations.data[i];
        assert_int_equal(it->iteration, (int)i);
        assert_false(it->has_lofo);
        assert_int_equal(it->has_fit, i == 0);   /* the last iteration is not refitted */
        assert_int_equal(it->models.len, 2);
        int pairs = 0;
        for (size_t k = 0; k < it->models.len; k++) {
            const struct study_loop_model *m = &it->models.data[k];
            /* frozen set: 4 strategies + 2 perturbations = 15 pairs */
            assert_int_equal(m->frozen.pw.pairs + m->frozen.pw.identical, 15);
            assert_false(m->has_lofo);
            pairs += m->frozen.pw.pairs;
            assert_string_equal(m->strategies.runs[3].strategy, "exact");
        }
        assert_int_equal(it->frozen.pw.pairs, pairs);
    }
    /* the first iteration prices under the datasheet table, the second under the fit */
    assert_true(r.iterations.data[0].table_hash != r.iterations.data[1].table_hash);
    assert_true(r.iterations.data[1].table_hash == cm_table_hash(&fin));
    assert_int_equal(r.final_iteration, 1);
    assert_false(r.iterations.data[0].has_verdict);   /* no leave-one-family-out */
    study_loop_result_free(&r);
}

/* the documented order: more pairs right, or as many and a mean error lower beyond
 * rounding (a relative 1e-3) */
static int judged_better(const struct study_loop_judged *a, const struct study_loop_judged *b)
{
    return a->correct > b->correct ||
           (a->correct == b->correct && b->mean_median > a->mean_median * (1 + 1e-3) + 1e-6);
}

/* With two families, a refit is judged: every candidate on the same calibration programs,
 * the one kept ranks them best (then predicts them best), and a kept table ends the loop
 * with that table final. */
static void test_loop_verdict(void **st)
{
    (void)st;
    struct study_loop_opts o;
    study_loop_opts_init(&o);
    o.iterations = 2;
    o.nperturb = 2;
    struct study_loop_result r;
    struct cm_table fin;
    struct ls_error err = {0};
    assert_int_equal(study_loop(figs, 2, &o, &r, &fin, &err), 0);
    int judged = 0;
    for (size_t i = 0; i < r.iterations.len; i++) {
        const struct study_loop_iter *it = &r.iterations.data[i];
        assert_true(it->has_lofo && it->models.data[0].has_lofo);
        if (!it->has_fit)
            continue;
        assert_true(it->has_verdict);
        judged++;
        const struct study_loop_judged *j = it->judged;
        assert_true(j[0].pairs > 0);   /* iteration 0 explores around every strategy */
        for (int f = 0; f < STUDY_LOOP_NFORMS; f++) {
            assert_int_equal(j[f].pairs, j[0].pairs);
            assert_true(j[f].correct <= j[f].pairs);
            assert_false(judged_better(&j[f], &j[it->form]));
        }
        assert_true(it->share > 0 && it->share <= CM_EXPOSED_SHARE_MAX);
        assert_true(it->kept_from >= 0 && it->kept_from <= it->iteration);
        if (it->form == STUDY_LOOP_KEEP) {   /* the last iteration: its kept table is final */
            assert_int_equal(i + 1, r.iterations.len);
            assert_int_equal(r.final_iteration, it->kept_from);
            assert_true(r.iterations.data[it->kept_from].table_hash == cm_table_hash(&fin));
        } else {
            assert_true(i + 1 < r.iterations.len);
            assert_string_equal(study_loop_form_name(it->form),
                                it->form == STUDY_LOOP_GROUP_FIT ? "group_fit" : "share_only");
        }
    }
    assert_true(judged > 0);
    study_loop_result_free(&r);
}

/* A held-out model is solved and reported apart, never fitted on: its figures are the
 * held_* ones, the strategy_* ones cover the other model only. */
static void test_loop_holdout(void **st)
{
    (void)st;
    struct study_loop_opts o;
    study_loop_opts_init(&o);
    o.iterations = 1;
    o.nperturb = 1;
    o.lofo = 0;
    const char *held[] = {figs[1]};
    o.holdout_models = held;
    o.nholdout = 1;
    struct study_loop_result r;
    struct ls_error err = {0};
    assert_int_equal(study_loop(figs, 2, &o, &r, NULL, &err), 0);
    const struct study_loop_iter *it = &r.iterations.data[r.iterations.len - 1];
    assert_true(it->has_held);
    assert_false(it->models.data[0].held_out);
    assert_true(it->models.data[1].held_out);
    const struct study_loop_model *m1 = &it->models.data[1], *m0 = &it->models.data[0];
    assert_int_equal(it->held_strategy.pw.pairs, m1->strategies.metrics.pw.pairs);
    assert_int_equal(it->strategy.pw.pairs, m0->strategies.metrics.pw.pairs);
    study_loop_result_free(&r);
    /* every model held out, or a name that is not a model: input errors */
    const char *all[] = {figs[0], figs[1]};
    o.holdout_models = all;
    o.nholdout = 2;
    assert_int_equal(study_loop(figs, 2, &o, &r, NULL, &err), LS_ERR_INPUT);
    const char *bad[] = {"zoo:nosuch"};
    o.holdout_models = bad;
    o.nholdout = 1;
    assert_int_equal(study_loop(figs, 2, &o, &r, NULL, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "zoo:nosuch"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_struct),
        cmocka_unit_test(test_loop_struct),
        cmocka_unit_test(test_loop_holdout),
        cmocka_unit_test(test_loop_verdict),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
