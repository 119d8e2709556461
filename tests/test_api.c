/* The public C API (include/laysim/laysim.h) end to end on a small zoo model, linked
 * statically so it also runs under ASan/UBSan: the loop agrees with the layers it wraps
 * (the objective with lsp_eval's, compile + simulate with the mcts reward), files round-trip,
 * every failure returns its code with a message naming the input, and a failed
 * laysim_target_set leaves the target as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "laysim/laysim.h"

struct fixture {
    laysim_ctx *cx;
    laysim_model *m;
    laysim_target *t;
    laysim_instance *in;
    char dir[64];
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    f->cx = laysim_new();
    const char *opts[] = {"layers=1", "image=32", NULL};
    if (!f->cx || laysim_model_load(f->cx, "zoo:cnn", opts, &f->m) ||
        laysim_target_load(f->cx, "nc-v2", &f->t) ||
        laysim_instance_new(f->cx, f->m, f->t, NULL, &f->in))
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/laysim-api-XXXXXX");
    if (!mkdtemp(f->dir))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    if (system(cmd))
        return -1;
    laysim_instance_free(f->in);
    laysim_target_free(f->t);
    laysim_model_free(f->m);
    laysim_free(f->cx);
    free(f);
    return 0;
}

static const char *path(const struct fixture *f, const char *name)
{
    static char buf[128];
    snprintf(buf, sizeof buf, "%s/%s", f->dir, name);
    return buf;
}

static void test_loop(void **state)
{
    struct fixture *f = *state;
    const laysim_problem *p = laysim_instance_problem(f->in);
    int32_t n = laysim_problem_ops(p);
    assert_true(n > 0);
    laysim_solution *s;
    assert_int_equal(laysim_instance_solve(f->cx, f->in, "exact", NULL, &s), 0);
    assert_string_equal(laysim_errmsg(f->cx), "");
    assert_int_equal(laysim_solution_status(s), LAYSIM_OPTIMAL);
    int64_t bound;
    assert_true(laysim_solution_bound(s, &bound));
    assert_int_equal(bound, laysim_solution_cost(s));
    int32_t *cfg = calloc((size_t)n, sizeof *cfg);
    for (int32_t i = 0; i < n; i++)
        cfg[i] = laysim_solution_config(s, i);
    assert_int_equal(laysim_problem_eval(p, cfg), laysim_solution_cost(s));
    cfg[0] = laysim_problem_op_configs(p, 0);     /* one past the last configuration */
    assert_int_equal(laysim_problem_eval(p, cfg), -1);
    free(cfg);
    const char *label = NULL;
    int labelled = 0;
    for (int32_t t = 0; t < laysim_problem_tensors(p); t++) {
        assert_true(laysim_solution_layout(p, s, t, &label) >= 0);
        labelled += label && !strncmp(label, "p:", 2);
    }
    assert_true(labelled > 0);
    laysim_program *pr;
    laysim_sim_result r;
    assert_int_equal(laysim_compile(f->cx, f->in, s, &pr), 0);
    assert_int_equal(laysim_simulate(f->cx, f->t, pr, path(f, "t.lstrace"), &r), 0);
    assert_true(r.cycles > 0 && r.instructions == laysim_program_instructions(pr));
    assert_true(r.engine[0].instructions > 0);
    assert_string_equal(laysim_engine_name(0), "pe");
    assert_null(laysim_engine_name(LAYSIM_ENGINES));
    assert_int_equal(access(path(f, "t.lstrace"), R_OK), 0);
    laysim_program_free(pr);
    laysim_solution_free(s);
}

static void test_files(void **state)
{
    struct fixture *f = *state;
    const laysim_problem *p = laysim_instance_problem(f->in);
    laysim_solution *s, *back;
    laysim_problem *q;
    laysim_program *pr, *pr2;
    assert_int_equal(laysim_instance_solve(f->cx, f->in, "greedy", NULL, &s), 0);
    assert_int_equal(laysim_problem_write(f->cx, p, path(f, "p.lsp")), 0);
    assert_int_equal(laysim_solution_write(f->cx, p, s, path(f, "p.sol")), 0);
    assert_int_equal(laysim_problem_read(f->cx, path(f, "p.lsp"), &q), 0);
    assert_int_equal(laysim_problem_ops(q), laysim_problem_ops(p));
    assert_int_equal(laysim_solution_read(f->cx, q, path(f, "p.sol"), &back), 0);
    assert_int_equal(laysim_solution_cost(back), laysim_solution_cost(s));
    laysim_solution_free(back);
    assert_int_equal(laysim_solve(f->cx, q, "rulebased", NULL, &back), 0);
    assert_true(laysim_solution_has_assignment(back));
    laysim_solution_free(back);
    laysim_problem_free(q);
    laysim_problem_free((laysim_problem *)p);     /* borrowed: a no-op */
    assert_int_equal(laysim_compile(f->cx, f->in, NULL, &pr), 0);
    assert_int_equal(laysim_program_write(f->cx, pr, path(f, "p.prog")), 0);
    assert_int_equal(laysim_program_load(f->cx, path(f, "p.prog"), &pr2), 0);
    assert_int_equal(laysim_program_instructions(pr2), laysim_program_instructions(pr));
    laysim_program_free(pr2);
    laysim_program_free(pr);
    laysim_solution_free(s);
}

/* The two-op problem of docs/design.md's objective, built by hand. */
static void test_build(void **state)
{
    struct fixture *f = *state;
    laysim_problem *p;
    laysim_solution *s;
    int32_t x, src, use;
    const char *labels[] = {"p:a", "p:b"};
    const int64_t tr[] = {0, 5, 7, 0};
    assert_int_equal(laysim_problem_new(f->cx, &p), 0);
    assert_int_equal(laysim_problem_add_tensor(f->cx, p, "x", 2, labels, tr, &x), 0);
    assert_int_equal(laysim_problem_add_op(f->cx, p, "src", "source", 0, NULL, x, &src), 0);
    assert_int_equal(laysim_problem_add_config(f->cx, p, src, 1, (int32_t[]){0}), 0);
    assert_int_equal(laysim_problem_add_config(f->cx, p, src, 3, (int32_t[]){1}), 0);
    assert_int_equal(laysim_problem_add_op(f->cx, p, "use", "matmul", 1, &x, -1, &use), 0);
    assert_int_equal(laysim_problem_add_config(f->cx, p, use, 10, (int32_t[]){1}), 0);
    assert_int_equal(laysim_problem_add_config(f->cx, p, use, 20, (int32_t[]){2}), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "out of range"));
    assert_int_equal(laysim_problem_add_config(f->cx, p, use, 20, (int32_t[]){0}), 0);
    assert_int_equal(laysim_solve(f->cx, p, "exact", NULL, &s), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "finish"));
    assert_int_equal(laysim_problem_finish(f->cx, p), 0);
    assert_int_equal(laysim_solve(f->cx, p, "exact", NULL, &s), 0);
    assert_int_equal(laysim_solution_cost(s), 13);
    const char *label;
    assert_int_equal(laysim_solution_layout(p, s, x, &label), 1);
    assert_string_equal(label, "p:b");
    assert_int_equal(laysim_problem_add_tensor(f->cx, p, "y", 1, NULL, NULL, NULL), LAYSIM_EINPUT);
    laysim_solution_free(s);
    laysim_problem_free(p);
}

static void test_calibrate(void **state)
{
    struct fixture *f = *state;
    laysim_program *pr;
    laysim_sim_result r;
    laysim_table *tb, *back;
    assert_int_equal(laysim_compile(f->cx, f->in, NULL, &pr), 0);
    assert_int_equal(laysim_simulate(f->cx, f->t, pr, path(f, "c.lstrace"), &r), 0);
    const char *traces[] = {path(f, "c.lstrace"), NULL};
    char trace[128];
    snprintf(trace, sizeof trace, "%s", traces[0]);
    traces[0] = trace;
    assert_int_equal(laysim_calibrate(f->cx, f->t, NULL, traces, 0, &tb), 0);
    assert_int_equal(laysim_table_write(f->cx, tb, path(f, "fit.json")), 0);
    assert_int_equal(laysim_table_load(f->cx, path(f, "fit.json"), &back), 0);
    laysim_instance *in2;
    assert_int_equal(laysim_instance_new(f->cx, f->m, f->t, back, &in2), 0);
    laysim_instance_free(in2);
    laysim_table_free(back);
    laysim_table_free(tb);
    assert_int_equal(laysim_calibrate(f->cx, f->t, NULL, NULL, 0, &tb), LAYSIM_EINPUT);
    assert_null(tb);
    /* the command line's path: with its program, and one program per trace or none */
    assert_int_equal(laysim_program_write(f->cx, pr, path(f, "c.lsprog")), 0);
    char prog[128];
    snprintf(prog, sizeof prog, "%s", path(f, "c.lsprog"));
    const char *progs[] = {prog, NULL}, *two[] = {prog, prog, NULL};
    int is_prior = -1;
    assert_int_equal(laysim_calibrate_ex(f->cx, f->t, NULL, traces, progs, 0, 0, &tb, &is_prior),
                     0);
    assert_true(is_prior == 0 || is_prior == 1);
    laysim_table_free(tb);
    assert_int_equal(laysim_calibrate_ex(f->cx, f->t, NULL, traces, two, 0, 0, &tb, NULL),
                     LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "2 programs for 1 traces"));
    assert_null(tb);
    /* fidelity against measured times: a manifest by hand, one pair ranked wrong */
    FILE *mf = fopen(path(f, "m.csv"), "w");
    assert_non_null(mf);
    fputs("# by hand\nmodel,strategy,assignment,predicted_cycles,base_mhz,measured_ns\n"
          "m,local,01,1400,1400,900\nm,greedy,02,1300,1400,1000\n"
          "m,exact,02,1300,1400,1000\n", mf);
    fclose(mf);
    laysim_fidelity fid;
    assert_int_equal(laysim_validate_measured(f->cx, path(f, "m.csv"), 0, &fid), 0);
    assert_int_equal(fid.models, 1);
    assert_int_equal(fid.rows, 3);
    assert_int_equal(fid.pairs, 2);           /* greedy == exact: identical, not compared */
    assert_int_equal(fid.pairs_identical, 1);
    assert_int_equal(fid.pairs_correct, 0);   /* local measured faster, predicted slower */
    assert_int_equal(fid.exact_within_1pct_all, 0);
    assert_true(fid.median_rel_error > 0.07 && fid.median_rel_error < 0.08); /* 1300/1400 */
    mf = fopen(path(f, "m.csv"), "w");
    assert_non_null(mf);
    fputs("model,strategy,predicted_cycles\nm,local,5\n", mf);
    fclose(mf);
    assert_int_equal(laysim_validate_measured(f->cx, path(f, "m.csv"), 0, &fid), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "names no measurement"));
    laysim_program_free(pr);
}

struct counter {
    int calls;
    int32_t nops;
};

static int count_reward(void *user, const int32_t *cfg, int32_t nops, double *reward)
{
    struct counter *c = user;
    c->calls++;
    c->nops = nops;
    *reward = (double)cfg[0];
    return 0;
}

static void test_reward(void **state)
{
    struct fixture *f = *state;
    struct counter c = {0, 0};
    const char *params[] = {"tune.evaluations=5", NULL};
    laysim_solve_options o;
    laysim_solve_options_init(&o);
    o.params = params;
    o.reward = count_reward;
    o.reward_user = &c;
    laysim_solution *s;
    assert_int_equal(laysim_instance_solve(f->cx, f->in, "mcts", &o, &s), 0);
    assert_true(c.calls > 0);
    assert_int_equal(c.nops, laysim_problem_ops(laysim_instance_problem(f->in)));
    laysim_solution_free(s);
    /* a bare problem has no simulator behind it: mcts needs the caller's reward */
    o.reward = NULL;
    assert_int_equal(laysim_solve(f->cx, laysim_instance_problem(f->in), "mcts", &o, &s),
                     LAYSIM_EINPUT);
    assert_int_equal(laysim_instance_solve(f->cx, f->in, "mcts", &o, &s), 0);
    laysim_solution_free(s);
}

static void test_errors(void **state)
{
    struct fixture *f = *state;
    laysim_model *m = (laysim_model *)1;
    assert_int_equal(laysim_model_load(f->cx, "zoo:nope", NULL, &m), LAYSIM_EINPUT);
    assert_null(m);
    assert_non_null(strstr(laysim_errmsg(f->cx), "nope"));
    assert_int_equal(laysim_errcode(f->cx), LAYSIM_EINPUT);
    const char *bad[] = {"layers", NULL};
    assert_int_equal(laysim_model_load(f->cx, "zoo:cnn", bad, &m), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "KEY=VALUE"));
    laysim_target *t;
    assert_int_equal(laysim_target_load(f->cx, "nc-v9", &t), LAYSIM_EINPUT);
    assert_int_equal(laysim_target_load(f->cx, "nc-v2", &t), 0);
    uint64_t h = laysim_target_hash(t);
    assert_int_equal(laysim_target_set(f->cx, t, "pe.rows", "banana"), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "pe.rows"));
    assert_true(laysim_target_hash(t) == h);
    assert_int_equal(laysim_target_set(f->cx, t, "pe.rows", "64"), 0);
    assert_true(laysim_target_hash(t) != h);
    laysim_target_free(t);
    laysim_solution *s;
    assert_int_equal(laysim_instance_solve(f->cx, f->in, "nope", NULL, &s), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "nope"));
    laysim_problem *q;
    assert_int_equal(laysim_problem_read(f->cx, path(f, "missing.lsp"), &q), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "missing.lsp"));
    assert_int_equal(laysim_compile(f->cx, NULL, NULL, NULL), LAYSIM_EINPUT);
    assert_int_equal(laysim_model_load(NULL, "zoo:cnn", NULL, &m), LAYSIM_EINPUT);
    assert_non_null(laysim_errmsg(NULL));
    assert_true(laysim_zoo_count() > 5 && laysim_zoo_name(laysim_zoo_count()) == NULL);
    assert_true(laysim_solver_count() > 3 && laysim_solver_name(-1) == NULL);
}

/* Handles: an instance outlives its model (it holds a reference), a handle of another kind
 * is refused by name, and the _n builders check the arrays' lengths before reading them. */
static void test_handles(void **state)
{
    struct fixture *f = *state;
    laysim_model *m;
    laysim_instance *in;
    const char *opts[] = {"layers=1", "image=32", NULL};
    assert_int_equal(laysim_model_load(f->cx, "zoo:cnn", opts, &m), 0);
    assert_int_equal(laysim_instance_new(f->cx, m, f->t, NULL, &in), 0);
    laysim_model_free(m);                        /* the instance keeps it */
    laysim_program *pr;
    assert_int_equal(laysim_compile(f->cx, in, NULL, &pr), 0);
    laysim_instance_free(in);                    /* the model goes now */
    laysim_sim_result r;
    assert_int_equal(laysim_simulate(f->cx, (const laysim_target *)pr, pr, NULL, &r),
                     LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "target is not a live laysim_target"));
    laysim_program *none = NULL;
    assert_int_equal(laysim_compile(f->cx, (const laysim_instance *)f->t, NULL, &none),
                     LAYSIM_EINPUT);
    laysim_program_free(pr);
    assert_int_equal(laysim_model_ops((const laysim_model *)f->t), 0);
    laysim_model_free((laysim_model *)f->t);     /* not a model: ignored */
    assert_non_null(laysim_target_name(f->t));
    laysim_problem *p;
    int32_t x, src;
    const int64_t tr[] = {0, 5, 7, 0};
    assert_int_equal(laysim_problem_new(f->cx, &p), 0);
    assert_int_equal(laysim_problem_add_tensor_n(f->cx, p, "x", 2, NULL, 2, tr, &x),
                     LAYSIM_EINPUT);
    assert_int_equal(laysim_problem_add_tensor_n(f->cx, p, "x", 2, NULL, 4, tr, &x), 0);
    assert_int_equal(laysim_problem_add_op(f->cx, p, "src", "source", 0, NULL, x, &src), 0);
    assert_int_equal(laysim_problem_add_config_n(f->cx, p, src, 1, 0, (int32_t[]){0}),
                     LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(f->cx), "0 layouts"));
    assert_int_equal(laysim_problem_add_config_n(f->cx, p, src, 1, 1, (int32_t[]){0}), 0);
    laysim_problem_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_loop),     cmocka_unit_test(test_files),
        cmocka_unit_test(test_build),
        cmocka_unit_test(test_calibrate), cmocka_unit_test(test_reward),
        cmocka_unit_test(test_errors),   cmocka_unit_test(test_handles),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
