/* Tests of the status line's text (cli/status): durations, the ETA from the pace of the
 * units done since the total was announced, and the shell quoting of the resume hint. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "cli/status.h"

static void test_duration(void **state)
{
    (void)state;
    char b[32];
    static const struct { double s; const char *want; } cases[] = {
        {0, "0s"}, {59.4, "59s"}, {65, "1m05s"}, {3599, "59m59s"}, {3725, "1h02m"}, {-1, "0s"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cli_duration(cases[i].s, b, sizeof b);
        assert_string_equal(b, cases[i].want);
    }
}

static void test_format(void **state)
{
    (void)state;
    struct cli_status s;
    memset(&s, 0, sizeof s);
    s.label = "study";
    s.unit = "jobs";
    snprintf(s.what, sizeof s.what, "calibrating nc-v2");
    char line[256];
    cli_status_format(&s, 2000000000ULL, line, sizeof line);   /* no unit done: no ETA */
    assert_string_equal(line, "study [..........]   0% 0/0 jobs 2s | calibrating nc-v2");
    /* 3 of 9 done 60 s after the total came, 70 s after the start: 20 s each, 6 left */
    s.units_ns = 10000000000ULL;
    s.done = 3;
    s.total = 9;
    snprintf(s.what, sizeof s.what, "bert-base @ nc-v2 (datasheet): exact");
    cli_status_format(&s, 70000000000ULL, line, sizeof line);
    assert_string_equal(line, "study [###.......]  33% 3/9 jobs 1m10s, ETA 2m00s | "
                              "bert-base @ nc-v2 (datasheet): exact");
    s.done = 9;                                                  /* all done: no ETA */
    cli_status_format(&s, 70000000000ULL, line, sizeof line);
    assert_non_null(strstr(line, "[##########] 100% 9/9 jobs 1m10s |"));
}

static void test_shell_quoting(void **state)
{
    (void)state;
    char b[128];
    size_t len = 0;
    b[0] = 0;
    const char *args[] = {"laysim", "--models", "cnn,bert-base:quick", "--out", "a b'c", ""};
    for (size_t i = 0; i < sizeof args / sizeof args[0]; i++)
        cli_shell_append(b, sizeof b, &len, args[i]);
    assert_string_equal(b, "laysim --models cnn,bert-base:quick --out 'a b'\\''c' ''");
    assert_int_equal(len, strlen(b));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_format),
        cmocka_unit_test(test_shell_quoting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
