/* solver/tie and solver/answer: the hash headers of .lsp/.sol files (read, written, the
 * problem hash ignoring comments) and external solvers' answers read back through the
 * export numbering, in every accepted form, with located errors for malformed ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solver/answer.h"
#include "solver/export.h"
#include "solver/problem.h"

/* x1 = a:c0, x2 = a:c1, x3 = m:c0, x4 = m:c1, x5 = m:c2, x6 = r:c0; y7, y8 for t0. */
static const char lsp_text[] =
    "# model-hash: 00000000000000aa\n"
    "#target-hash:   00000000000000bb  \n"
    "# note: not a tie key\n"
    "lsp 1\n"
    "tensor t0 2 p:m p:k\n"
    "transpose t0 0 30 30 0\n"
    "op a input 0 t0\n"
    "cfg 10 0\n"
    "cfg 40 1\n"
    "tensor t1 1\n"
    "op m matmul 2 t0 t0 t1\n"
    "cfg 50 1 0 0\n"
    "cfg 52 1 1 0\n"
    "cfg 7 0 0 0\n"
    "op r return 1 t1 -\n"
    "cfg 0 0\n";

static struct lsp_problem *problem(void)
{
    struct lsp_problem *p = NULL;
    struct ls_error err = {0};
    assert_int_equal(lsp_parse("p.lsp", lsp_text, strlen(lsp_text), &p, &err), 0);
    return p;
}

static void test_tie_read_write(void **state)
{
    (void)state;
    struct lsp_problem *p = problem();
    assert_string_equal(p->tie.v[LSP_TIE_MODEL], "00000000000000aa");
    assert_string_equal(p->tie.v[LSP_TIE_TARGET], "00000000000000bb");
    assert_string_equal(p->tie.v[LSP_TIE_TABLE], "");
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(lsp_write_fp(p, fp), 0);
    fclose(fp);
    assert_non_null(strstr(buf, "# target-hash: 00000000000000bb\nlsp 1\n"));
    struct lsp_problem *q = NULL;
    struct ls_error err = {0};
    assert_int_equal(lsp_parse("q.lsp", buf, len, &q, &err), 0);
    /* comments and spacing do not enter the problem hash; content does */
    assert_true(lsp_problem_hash(p) == lsp_problem_hash(q));
    char *edited = strdup(lsp_text);
    strcpy(edited, lsp_text);
    edited[strstr(edited, "cfg 7") - edited + 4] = '8';
    struct lsp_problem *e = NULL;
    assert_int_equal(lsp_parse("e.lsp", edited, strlen(edited), &e, &err), 0);
    assert_true(lsp_problem_hash(e) != lsp_problem_hash(q));
    free(edited);
    free(buf);
    lsp_free(e);
    lsp_free(q);
    lsp_free(p);
}

static void test_tie_diff(void **state)
{
    (void)state;
    struct lsp_tie a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    assert_true(lsp_tie_empty(&a));
    lsp_tie_set_hash(&a, LSP_TIE_TABLE, 1);
    lsp_tie_set_hash(&b, LSP_TIE_TABLE, 2);
    lsp_tie_set(&a, LSP_TIE_CODEGEN, "cg-3");   /* absent on one side: not compared */
    assert_int_equal(lsp_tie_diff(&a, &b), LSP_TIE_TABLE);
    lsp_tie_set_hash(&b, LSP_TIE_TABLE, 1);
    assert_int_equal(lsp_tie_diff(&a, &b), -1);
    assert_string_equal(lsp_tie_what(LSP_TIE_TABLE), "table");
    assert_string_equal(lsp_tie_key_name(LSP_TIE_PROBLEM), "problem-hash");
}

/* The .sol of a problem carries its tie and problem hash; a read .sol gets them back. */
static void test_sol_carries_tie(void **state)
{
    (void)state;
    struct lsp_problem *p = problem();
    struct lsp_solution s, t;
    struct ls_error err = {0};
    lsp_solution_init(&s);
    assert_int_equal(lsp_solution_alloc(&s, p, &err), 0);
    s.status = LSP_FEASIBLE;
    s.cost = lsp_eval(p, s.cfg, NULL, NULL);
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_int_equal(lsp_sol_write_fp(p, &s, fp), 0);
    fclose(fp);
    assert_int_equal(lsp_sol_parse(p, "s.sol", buf, len, &t, &err), 0);
    assert_string_equal(t.tie.v[LSP_TIE_MODEL], "00000000000000aa");
    char want[20];
    snprintf(want, sizeof want, "%016llx", (unsigned long long)lsp_problem_hash(p));
    assert_string_equal(t.tie.v[LSP_TIE_PROBLEM], want);
    free(buf);
    lsp_solution_free(&t);
    lsp_solution_free(&s);
    lsp_free(p);
}

static void test_numbering(void **state)
{
    (void)state;
    struct lsp_problem *p = problem();
    struct lsp_export_vars v;
    assert_int_equal(lsp_export_vars_init(p, &v), 0);
    assert_int_equal(v.nvars, 8);
    assert_int_equal(v.ybase[0], 7);
    int32_t c;
    assert_int_equal(lsp_export_xvar_op(p, 5, &c), 1);
    assert_int_equal(c, 2);
    assert_int_equal(lsp_export_xvar(p, 1, 2), 5);
    assert_int_equal(lsp_export_xvar_op(p, 6, &c), 2);
    assert_int_equal(c, 0);
    lsp_export_vars_free(&v);
    lsp_free(p);
}

struct good {
    int format;
    const char *text;
    int32_t a, m;            /* the cfgs read back (r has one) */
    int status;
    int64_t objective;       /* -1: none claimed */
};

/* a:c1 (40) + m:c2 (7) + conversion of t0 from layout 1 to 0 (30) = 77 */
static const struct good good[] = {
    {LSP_ANSWER_WCNF, "c hi\ns OPTIMUM FOUND\no 77\nv -1 2 -3\nv -4 5 6 -7 8 0\n", 1, 2,
     LSP_OPTIMAL, 77},
    {LSP_ANSWER_WCNF, "s OPTIMUM FOUND\no 78\nv 01001101\n", 1, 2, LSP_FEASIBLE, 78},
    {LSP_ANSWER_WCNF, "s SATISFIABLE\nv 10100101\n", 0, 0, LSP_FEASIBLE, -1},
    {LSP_ANSWER_CFN, "1 2 0 0 1\n", 1, 2, LSP_FEASIBLE, -1},
    {LSP_ANSWER_CFN, "0 0 0 0 0\nc1 c2 c0 n y\n", 1, 2, LSP_FEASIBLE, -1},
    {LSP_ANSWER_CFN, "o2=0 y0_1=y o1=c2 o0=1\n", 1, 2, LSP_FEASIBLE, -1},
    {LSP_ANSWER_LP, "Optimal - objective value 77.00000000\n      1 x2  1  40\n"
                    "      4 x5 1 7\n ** 5 x6 0.9999999 0\n  6 y8 1 0\n 7 z0_1_0 1 30\n",
     1, 2, LSP_OPTIMAL, 77},
    {LSP_ANSWER_LP, "Stopped on time - objective value 77\n1 x2 1 0\n4 x5 1 0\n5 x6 1 0\n",
     1, 2, LSP_FEASIBLE, 77},
};

static void test_good_answers(void **state)
{
    (void)state;
    struct lsp_problem *p = problem();
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        struct lsp_solution s;
        struct lsp_answer_claim cl;
        struct ls_error err = {0};
        int rc = lsp_answer_parse(p, good[i].format, "a.txt", good[i].text,
                                  strlen(good[i].text), &s, &cl, &err);
        if (rc)
            fail_msg("answer %zu: %s", i, err.msg);
        assert_int_equal(s.cfg[0], good[i].a);
        assert_int_equal(s.cfg[1], good[i].m);
        assert_int_equal(s.status, good[i].status);
        assert_int_equal(s.cost, lsp_eval(p, s.cfg, NULL, NULL));
        assert_int_equal(cl.has_objective ? cl.objective : -1, good[i].objective);
        assert_int_equal(lsp_solution_verify(p, &s, &err), 0);
        lsp_solution_free(&s);
    }
    lsp_free(p);
}

struct bad {
    int format;
    const char *text;
    int line, col;
    const char *msg;
};

static const struct bad bad[] = {
    {LSP_ANSWER_WCNF, "", 1, 1, "no 'v' line"},
    {LSP_ANSWER_WCNF, "c ok\nx 1\n", 2, 1, "starting with c, s, o or v"},
    {LSP_ANSWER_WCNF, "v 1 9 0\n", 1, 5, "variable 9 out of range"},
    {LSP_ANSWER_WCNF, "v 1 -9 0\n", 1, 5, "variable 9 out of range"},
    {LSP_ANSWER_WCNF, "v 1 3\nv 4 6\n", 2, 3, "second configuration for op m"},
    {LSP_ANSWER_WCNF, "v 1 6\n", 2, 1, "no configuration of op m (x3..x5 all false)"},
    {LSP_ANSWER_WCNF, "o many\n", 1, 3, "cost"},
    {LSP_ANSWER_WCNF, "s UNSATISFIABLE\n", 1, 3, "UNSATISFIABLE"},
    {LSP_ANSWER_CFN, "", 1, 1, "empty"},
    {LSP_ANSWER_CFN, "1 2 0\n", 1, 6, "3 values, but the CFN export has 5"},
    {LSP_ANSWER_CFN, "1 3 0 0 0\n", 1, 3, "'3' is not one of its 3"},
    {LSP_ANSWER_CFN, "o9=1\n", 1, 1, "'o9' is not a variable"},
    {LSP_ANSWER_CFN, "o1=1 o1=2\n", 1, 6, "second configuration"},
    {LSP_ANSWER_LP, "", 1, 1, "status line"},
    {LSP_ANSWER_LP, "1 x2 1 0\n", 1, 1, "status line"},
    {LSP_ANSWER_LP, "Infeasible - objective value 0\n", 1, 1, "no solution"},
    {LSP_ANSWER_LP, "Optimal - objective value 7\n1 x2\n", 2, 5, "too few fields"},
    {LSP_ANSWER_LP, "Optimal - objective value 7\n1 x7 1 0\n", 2, 3, "x7 out of range"},
    {LSP_ANSWER_LP, "Optimal - objective value 7\nq x2 1 0\n", 2, 1, "column index"},
};

static void test_bad_answers(void **state)
{
    (void)state;
    struct lsp_problem *p = problem();
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct lsp_solution s;
        struct lsp_answer_claim cl;
        struct ls_error err = {0};
        int rc = lsp_answer_parse(p, bad[i].format, "a.txt", bad[i].text, strlen(bad[i].text),
                                  &s, &cl, &err);
        if (rc != LS_ERR_INPUT || !strstr(err.msg, bad[i].msg) || err.line != bad[i].line ||
            err.col != bad[i].col)
            fail_msg("bad answer %zu: rc %d at %d:%d '%s', want %d:%d '%s'", i, rc, err.line,
                     err.col, err.msg, bad[i].line, bad[i].col, bad[i].msg);
        assert_null(s.cfg);
    }
    lsp_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tie_read_write), cmocka_unit_test(test_tie_diff),
        cmocka_unit_test(test_sol_carries_tie), cmocka_unit_test(test_numbering),
        cmocka_unit_test(test_good_answers),    cmocka_unit_test(test_bad_answers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
