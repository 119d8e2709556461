/* Malformed .lsp and .sol files: every rule of the format is rejected with an error
 * naming the line and column. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "solver/problem.h"

struct bad {
    const char *text;
    int line, col;
    const char *msg;   /* substring of the message */
};

#define HDR "lsp 1\n"
#define T2 "tensor a 2\ntranspose a 0 1 1 0\n"
#define SRC "op s source 0 a\ncfg 0 0\ncfg 0 1\n"

static const struct bad bad_lsp[] = {
    {"", 1, 1, "empty file"},
    {"# only a comment\n\n", 1, 1, "empty file"},
    {"lsp 2\n", 1, 5, "unsupported .lsp version"},
    {"lps 1\n", 1, 1, "expected 'lsp 1'"},
    {"lsp 1 extra\n", 1, 7, "too many fields"},
    {HDR "tensor a 1\nfoo bar\n", 3, 1, "unknown line"},
    {HDR "tensor a$ 1\n", 2, 8, "invalid tensor name"},
    {HDR "tensor - 1\n", 2, 8, "reserved"},
    {HDR "tensor a 1\ntensor a 1\n", 3, 8, "duplicate tensor name"},
    {HDR "tensor a 0\n", 2, 10, "at least 1"},
    {HDR "tensor a 01\n", 2, 10, "non-negative integer"},
    {HDR "tensor a -1\n", 2, 10, "non-negative integer"},
    {HDR "tensor a\n", 2, 9, "too few fields"},
    {HDR "tensor a 2 x\n", 2, 13, "exactly 2 labels"},
    {HDR "tensor a 2 x y z\n", 2, 16, "exactly 2 labels"},
    {HDR "tensor a 2 x x\n", 2, 14, "duplicate label"},
    {HDR "tensor a 2 x y$\n", 2, 14, "invalid label"},
    {HDR "tensor a 100000\n", 2, 10, "cannot fit"},
    {HDR "transpose b 0 1 1 0\n", 2, 11, "unknown tensor"},
    {HDR "tensor a 1\ntranspose a 0\n", 3, 1, "single layout"},
    {HDR T2 "transpose a 0 1 1 0\n", 4, 1, "second transpose line"},
    {HDR "tensor a 2\ntranspose a 0 1 1\n", 3, 18, "expected 4 matrix entries"},
    {HDR "tensor a 2\ntranspose a 0 1 1 0 5\n", 3, 21, "expected 4 matrix entries"},
    {HDR "tensor a 2\ntranspose a 0 1 1 2\n", 3, 19, "diagonal"},
    {HDR "tensor a 2\ntranspose a 0 -1 1 0\n", 3, 15, "non-negative integer"},
    {HDR "tensor a 2\ntranspose a 0 x 1 0\n", 3, 15, "non-negative integer"},
    {HDR "tensor a 2\nop s source 0 a\n", 3, 15, "needs its transpose line"},
    {HDR T2 SRC "transpose a 0 1 1 0\n", 7, 1, "second transpose line"},
    {HDR "tensor a 2\n" SRC, 3, 15, "needs its transpose line"},
    {HDR "tensor a 2\ntranspose a 0 1 1 0\nop s source 0 a\ncfg 0 0\ntensor b 2\n"
         "op t x 0 b\ncfg 0 0\ntranspose b 0 1 1 0\n", 7, 10, "needs its transpose line"},
    {HDR "op s source\n", 2, 12, "too few fields"},
    {HDR "op s$ source 0 -\n", 2, 4, "invalid op name"},
    {HDR "op s source 0 -\ncfg 0\nop s source 0 -\n", 4, 4, "duplicate op name"},
    {HDR "op s source 1 -\n", 2, 16, "expected 6 fields"},
    {HDR "op s source 0 - x\n", 2, 17, "expected 5 fields"},
    {HDR "op s source x -\n", 2, 13, "input count"},
    {HDR "op s add 1 b -\n", 2, 12, "unknown tensor"},
    {HDR "tensor a 1\nop s add 1 a -\n", 3, 12, "not the output of an earlier op"},
    {HDR "op s source 0 b\n", 2, 15, "unknown output tensor"},
    {HDR "tensor a 1\nop s source 0 a\ncfg 0 0\nop t source 0 a\n", 5, 15,
     "already the output of op s (line 3)"},
    {HDR "cfg 0\n", 2, 1, "cfg line outside an op"},
    {HDR "tensor a 1\nop s source 0 a\ntensor b 1\n", 4, 1, "needs at least one cfg"},
    {HDR "op s source 0 -\n", 2, 1, "has no cfg line"},
    {HDR "tensor a 1\nop s source 0 a\ncfg 0\n", 4, 6, "expected cfg <cost> and 1 layouts"},
    {HDR "tensor a 1\nop s source 0 a\ncfg 0 0 0\n", 4, 9, "expected cfg <cost> and 1 layouts"},
    {HDR "tensor a 1\nop s source 0 a\ncfg 0 1\n", 4, 7, "out of range"},
    {HDR "tensor a 1\nop s source 0 a\ncfg -3 0\n", 4, 5, "non-negative integer"},
    {HDR "tensor a 1\nop s source 0 a\ncfg 1.5 0\n", 4, 5, "non-negative integer"},
    {HDR T2 SRC "op u x 2 a a -\ncfg 0 0 2\n", 8, 9, "out of range"},
    {HDR "tensor a 1\ntensor b 1 # never produced\nop s source 0 a\ncfg 0 0\n", 3, 8,
     "not the output of any op"},
    {HDR "op s source 0 -\ncfg 9007199254740992\n", 3, 5, "not below 2^53"},
    {HDR "op s source 0 -\ncfg 9007199254740991\ncfg 1\n", 4, 5, "sum of all costs"},
    {HDR "op s source 0 -\ncfg 0\n\0", 4, 1, "NUL byte"},
};

static const struct bad bad_sol[] = {
    {"", 1, 1, "end of file"},
    {"lsp-solution 2\n", 1, 14, "unsupported .sol version"},
    {"solution 1\n", 1, 1, "expected 'lsp-solution 1'"},
    {"lsp-solution 1\nstatus\n", 2, 7, "too few fields"},
    {"lsp-solution 1\nstatus good\n", 2, 8, "unknown status"},
    {"lsp-solution 1\nstatus infeasible\n", 2, 8, "reserved"},
    {"lsp-solution 1\ncost 3\n", 2, 1, "expected 'status"},
    {"lsp-solution 1\nstatus optimal\n", 2, 1, "needs a cost line"},
    {"lsp-solution 1\nstatus feasible\nop s 0\n", 3, 1, "expected 'cost <total>'"},
    {"lsp-solution 1\nstatus feasible\ncost x\n", 3, 6, "non-negative integer"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s 0\n", 5, 1, "no line for op t"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s 0\nop q 0\n", 5, 4, "unknown op"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s 0\nop s 1\n", 5, 4, "second line for op s"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s 2\n", 4, 6, "index 2 out of range"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s\n", 4, 5, "too few fields"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nbound 2\n", 4, 7, "exceeds the cost"},
    {"lsp-solution 1\nstatus optimal\ncost 2\nbound 1\n", 4, 7, "bound == cost"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s 0\nbound 0\n", 5, 1, "expected 'op"},
    {"lsp-solution 1\nstatus feasible\ncost 1\nop s 0 1\n", 4, 8, "too many fields"},
};

static void test_bad_lsp(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_lsp / sizeof bad_lsp[0]; i++) {
        const struct bad *b = &bad_lsp[i];
        size_t len = strlen(b->text);
        if (strstr(b->msg, "NUL"))
            len += 1;   /* include the embedded NUL */
        struct lsp_problem *p = (void *)1;
        struct ls_error err;
        ls_error_clear(&err);
        int rc = lsp_parse("bad.lsp", b->text, len, &p, &err);
        if (rc != LS_ERR_INPUT || err.line != b->line || err.col != b->col ||
            !strstr(err.msg, b->msg) || strcmp(err.file, "bad.lsp"))
            fail_msg("case %zu (%s): rc %d at %d:%d: %s", i, b->msg, rc, err.line, err.col,
                     err.msg);
        assert_null(p);
    }
}

static void test_bad_sol(void **state)
{
    (void)state;
    const char *txt = HDR "tensor a 1\nop s source 0 a\ncfg 1 0\ncfg 2 0\n"
                          "op t sink 1 a -\ncfg 0 0\n";
    struct lsp_problem *p;
    struct ls_error err;
    assert_int_equal(lsp_parse("p.lsp", txt, strlen(txt), &p, &err), 0);
    for (size_t i = 0; i < sizeof bad_sol / sizeof bad_sol[0]; i++) {
        const struct bad *b = &bad_sol[i];
        struct lsp_solution s;
        ls_error_clear(&err);
        int rc = lsp_sol_parse(p, "bad.sol", b->text, strlen(b->text), &s, &err);
        if (rc != LS_ERR_INPUT || err.line != b->line || err.col != b->col ||
            !strstr(err.msg, b->msg))
            fail_msg("sol case %zu (%s): rc %d at %d:%d: %s", i, b->msg, rc, err.line, err.col,
                     err.msg);
        assert_null(s.cfg);
    }
    /* well-formed but with a wrong cost: parses, and verification catches it */
    const char *wrong = "lsp-solution 1\nstatus feasible\ncost 5\nop t 0\nop s 1\n";
    struct lsp_solution s;
    assert_int_equal(lsp_sol_parse(p, "w.sol", wrong, strlen(wrong), &s, &err), 0);
    assert_int_equal(s.cfg[0], 1);
    assert_int_equal(lsp_solution_verify(p, &s, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "objective of the assignment is 2"));
    s.cost = 2;
    assert_int_equal(lsp_solution_verify(p, &s, &err), 0);
    lsp_solution_free(&s);
    lsp_free(p);
}

/* Accepted corner cases of the spec. */
static void test_good_corners(void **state)
{
    (void)state;
    const char *txt =
        "# leading comment\n"
        "\n"
        "lsp 1   # header\n"
        "tensor a 2 p:x p:y\n"
        "tensor b 1\n"
        "op s source 0 b\n"
        "cfg 0 0\n"
        "transpose a 0 3 4 0\n"          /* any time before a's producer */
        "op m\tmul 2 b b a\n"            /* tabs; the same tensor twice */
        "cfg 2 0 0 1\n"
        "cfg 2 0 0 1\n"                  /* duplicate tuples are distinct cfgs */
        "op r return 3 a a a -\n"
        "cfg 0 0 1 1\r\n";               /* CR LF */
    struct lsp_problem *p;
    struct ls_error err;
    if (lsp_parse("ok.lsp", txt, strlen(txt), &p, &err))
        fail_msg("%d:%d %s", err.line, err.col, err.msg);
    assert_int_equal(p->nops, 3);
    assert_int_equal(p->ops[1].ncfg, 2);
    assert_string_equal(p->tensors[0].labels[1], "p:y");
    /* a produced in 1, read in 0 (cost 4) and 1 */
    assert_int_equal(lsp_eval(p, (int32_t[]){0, 1, 0}, NULL, NULL), 2 + 4);
    lsp_free(p);
    /* zero ops is a valid (empty) problem */
    assert_int_equal(lsp_parse("e.lsp", "lsp 1\n", 6, &p, &err), 0);
    assert_int_equal(p->nops, 0);
    lsp_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_lsp),
        cmocka_unit_test(test_bad_sol),
        cmocka_unit_test(test_good_corners),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
