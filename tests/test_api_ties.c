/* The public API's side of `laysim solve --layouts` (the per-tensor listing on a problem
 * whose answer is known), of the .sol hash headers (the same lines as the CLI writes for
 * the same model; compile refuses a solution of another problem unless told to ignore it)
 * and of the imported model formats (ONNX, TF.js) loaded through laysim_model_load;
 * threads > 1 is refused (no solver uses threads). */
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

/* x: produced in p:a (1) or p:b (3), converted a->b for 5, b->a for 7; u1 reads it in
 * p:a, u2 in p:b. Optimum: produce p:a and pay one conversion to p:b (1 + 5 = 6). */
static laysim_problem *two_consumers(laysim_ctx *cx)
{
    laysim_problem *p;
    const char *labels[] = {"p:a", "p:b"};
    const int64_t tr[] = {0, 5, 7, 0};
    int32_t x, src, u1, u2, a = 0, b = 1;
    assert_int_equal(laysim_problem_new(cx, &p), 0);
    assert_int_equal(laysim_problem_add_tensor(cx, p, "x", 2, labels, tr, &x), 0);
    assert_int_equal(laysim_problem_add_op(cx, p, "src", "source", 0, NULL, x, &src), 0);
    assert_int_equal(laysim_problem_add_config(cx, p, src, 1, &a), 0);
    assert_int_equal(laysim_problem_add_config(cx, p, src, 3, &b), 0);
    assert_int_equal(laysim_problem_add_op(cx, p, "u1", "matmul", 1, &x, -1, &u1), 0);
    assert_int_equal(laysim_problem_add_config(cx, p, u1, 0, &a), 0);
    assert_int_equal(laysim_problem_add_op(cx, p, "u2", "matmul", 1, &x, -1, &u2), 0);
    assert_int_equal(laysim_problem_add_config(cx, p, u2, 0, &b), 0);
    assert_int_equal(laysim_problem_finish(cx, p), 0);
    return p;
}

static void test_layout_listing(void **state)
{
    (void)state;
    laysim_ctx *cx = laysim_new();
    laysim_problem *p = two_consumers(cx);
    laysim_solution *s;
    assert_int_equal(laysim_solve(cx, p, "exact", NULL, &s), 0);
    assert_int_equal(laysim_solution_cost(s), 6);
    const char *label;
    int32_t op, slot;
    int64_t cost;
    assert_int_equal(laysim_solution_layout(p, s, 0, &label), 0);
    assert_string_equal(label, "p:a");
    assert_int_equal(laysim_problem_tensor_producer(p, 0), 0);
    assert_int_equal(laysim_problem_tensor_uses(p, 0), 2);
    assert_int_equal(laysim_solution_use_layout(p, s, 0, 0, &op, &slot, &label), 0);
    assert_true(op == 1 && slot == 0 && !strcmp(label, "p:a"));
    assert_int_equal(laysim_solution_use_layout(p, s, 0, 1, &op, &slot, &label), 1);
    assert_true(op == 2 && !strcmp(label, "p:b"));
    assert_int_equal(laysim_solution_use_layout(p, s, 0, 2, &op, &slot, &label), -1);
    assert_int_equal(laysim_solution_conversion(p, s, 0, 0, &label, &cost), 1);
    assert_true(cost == 5 && !strcmp(label, "p:b"));
    assert_int_equal(laysim_solution_conversion(p, s, 0, 1, &label, &cost), -1);
    assert_null(label);
    assert_int_equal(laysim_solution_conversion(p, s, 1, 0, NULL, NULL), -1);
    laysim_solution_free(s);
    laysim_solve_options o;    /* no solver uses threads: more than one is refused */
    laysim_solve_options_init(&o);
    o.threads = 2;
    assert_int_equal(laysim_solve(cx, p, "exact", &o, &s), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(cx), "threads"));
    laysim_problem_free(p);
    laysim_free(cx);
}

/* The `# key: value` lines of a file, concatenated. */
static void header_lines(const char *path, char *out, size_t n)
{
    FILE *fp = fopen(path, "r");
    char line[256];
    out[0] = '\0';
    assert_non_null(fp);
    while (fgets(line, sizeof line, fp))
        if (line[0] == '#' && strlen(out) + strlen(line) < n)
            strcat(out, line);
    fclose(fp);
}

static laysim_instance *instance(laysim_ctx *cx, laysim_model *m, const char *key,
                                 const char *value)
{
    laysim_target *t;
    laysim_instance *in;
    assert_int_equal(laysim_target_load(cx, "nc-v2", &t), 0);
    if (key)
        assert_int_equal(laysim_target_set(cx, t, key, value), 0);
    assert_int_equal(laysim_instance_new(cx, m, t, NULL, &in), 0);
    laysim_target_free(t);
    return in;
}

static void test_ties(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim-api-ties-XXXXXX", api[96], cli[96], cmd[512];
    char hapi[1024], hcli[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(api, sizeof api, "%s/api.sol", dir);
    snprintf(cli, sizeof cli, "%s/cli.sol", dir);
    laysim_ctx *cx = laysim_new();
    laysim_model *m;
    const char *opts[] = {"layers=1", "image=32", NULL};
    assert_int_equal(laysim_model_load(cx, "zoo:cnn", opts, &m), 0);
    laysim_instance *in = instance(cx, m, NULL, NULL);
    laysim_instance *other = instance(cx, m, "dma.transpose", "1");
    const laysim_problem *p = laysim_instance_problem(in);
    laysim_solution *s, *back;
    laysim_program *pr = NULL;
    assert_int_equal(laysim_instance_solve(cx, in, "greedy", NULL, &s), 0);
    assert_int_equal(laysim_solution_write(cx, p, s, api), 0);
    snprintf(cmd, sizeof cmd, "'%s' solve zoo:cnn --layers 1 --image 32 --solver greedy -o '%s' "
             ">/dev/null", LAYSIM_BINARY, cli);
    assert_int_equal(system(cmd), 0);
    header_lines(api, hapi, sizeof hapi);
    header_lines(cli, hcli, sizeof hcli);
    assert_non_null(strstr(hapi, "# model-hash: "));
    assert_non_null(strstr(hapi, "# problem-hash: "));
    assert_string_equal(hapi, hcli);
    /* the CLI's .sol compiles through the API; on another target it is refused */
    assert_int_equal(laysim_solution_read(cx, p, cli, &back), 0);
    assert_int_equal(laysim_compile(cx, in, back, &pr), 0);
    /* the program carries the tie `laysim compile` writes for the same .sol */
    snprintf(api, sizeof api, "%s/api.lsprog", dir);
    assert_int_equal(laysim_program_write(cx, pr, api), 0);
    snprintf(cmd, sizeof cmd, "'%s' compile zoo:cnn --layers 1 --image 32 --layout '%s' -o "
             "'%s/cli.lsprog' 2>/dev/null", LAYSIM_BINARY, cli, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cli, sizeof cli, "%s/cli.lsprog", dir);
    header_lines(api, hapi, sizeof hapi);
    header_lines(cli, hcli, sizeof hcli);
    assert_non_null(strstr(hapi, "# target: nc-v2\n# target-hash: "));
    assert_string_equal(hapi, hcli);
    laysim_program_free(pr);
    assert_int_equal(laysim_compile(cx, other, back, &pr), LAYSIM_EINPUT);
    assert_null(pr);
    assert_non_null(strstr(laysim_errmsg(cx), "target differs"));
    assert_int_equal(laysim_compile(cx, other, s, &pr), LAYSIM_EINPUT);
    assert_int_equal(laysim_compile_ex(cx, other, back, LAYSIM_IGNORE_MISMATCH, &pr), 0);
    laysim_program_free(pr);
    laysim_solution_free(back);
    laysim_solution_free(s);
    laysim_instance_free(other);
    laysim_instance_free(in);
    laysim_model_free(m);
    laysim_free(cx);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* Load, price, solve, compile and simulate one imported model file. */
static void run_file(laysim_ctx *cx, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", LAYSIM_SOURCE_DIR, rel);
    laysim_model *m;
    laysim_target *t;
    laysim_instance *in;
    laysim_solution *s;
    laysim_program *pr;
    laysim_sim_result r;
    assert_int_equal(laysim_model_load(cx, path, NULL, &m), 0);
    assert_true(laysim_model_ops(m) > 0);
    assert_int_equal(laysim_target_load(cx, "nc-v2", &t), 0);
    assert_int_equal(laysim_instance_new(cx, m, t, NULL, &in), 0);
    assert_int_equal(laysim_instance_solve(cx, in, "rulebased", NULL, &s), 0);
    assert_int_equal(laysim_compile(cx, in, s, &pr), 0);
    assert_int_equal(laysim_simulate(cx, t, pr, NULL, &r), 0);
    assert_true(r.cycles > 0);
    laysim_program_free(pr);
    laysim_solution_free(s);
    laysim_instance_free(in);
    laysim_target_free(t);
    laysim_model_free(m);
}

static void test_imported_models(void **state)
{
    (void)state;
    laysim_ctx *cx = laysim_new();
    run_file(cx, "tests/data/onnx/tiny_cnn.onnx");
    run_file(cx, "tests/data/onnx/tiny_attn.onnx");
    run_file(cx, "tests/data/tfjs/cnn.json");
    laysim_model *m = NULL;
    char bad[512];
    snprintf(bad, sizeof bad, "%s/tests/data/onnx/bad/truncated.onnx", LAYSIM_SOURCE_DIR);
    assert_int_equal(laysim_model_load(cx, bad, NULL, &m), LAYSIM_EINPUT);
    assert_null(m);
    assert_non_null(strstr(laysim_errmsg(cx), "truncated.onnx"));
    snprintf(bad, sizeof bad, "%s/tests/data/tfjs/bad_cycle.json", LAYSIM_SOURCE_DIR);
    assert_int_equal(laysim_model_load(cx, bad, NULL, &m), LAYSIM_EINPUT);
    assert_non_null(strstr(laysim_errmsg(cx), "bad_cycle.json"));
    laysim_free(cx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_layout_listing),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_imported_models),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
