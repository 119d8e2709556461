/* Tests for the command-line helpers behind the libraries' parsed-value APIs: --target/--set
 * (cli/targetargs) and the model scaling options (cli/common). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "graph/model.h"
#include "cli/targetargs.h"

static void test_target_args(void **state)
{
    (void)state;
    struct cli_target_args a = {0};
    struct sim_target t;
    struct ls_error err;
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), 0);
    assert_string_equal(t.name, "nc-v2");
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_TARGET, "nc-v3"), 0);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_SET, "pe.mm_min_ii=32"), 0);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_SET, "vec.min_ii=16"), 0);
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), 0);
    assert_int_equal(t.pe_mhz, 2400);
    assert_int_equal(t.pe_mm_min_ii, 32);
    assert_int_equal(t.vec_min_ii, 16);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_SET, "pe.bogus=1"), 0);
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--set"));
    assert_non_null(strstr(err.msg, "pe.bogus"));
    cli_target_args_free(&a);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_TARGET, "nc-v7"), 0);
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "nc-v7"));
    cli_target_args_free(&a);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_TARGET, "/nonexistent/x.ini"), 0);
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), LS_ERR_INPUT);
    cli_target_args_free(&a);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_SET, "pe.rows"), 0);
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "KEY=VALUE"));
    cli_target_args_free(&a);
    /* a real file */
    char path[] = "/tmp/laysim_target_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    const char *txt = "[target]\nbase = nc-v3\n[vec]\nmin_ii = 32\n";
    assert_int_equal(write(fd, txt, strlen(txt)), (ssize_t)strlen(txt));
    close(fd);
    assert_int_equal(cli_target_args_take(&a, CLI_OPT_TARGET, path), 0);
    assert_int_equal(cli_target_args_resolve(&a, &t, &err), 0);
    assert_int_equal(t.vec_min_ii, 32);
    assert_int_equal(t.dve_mhz, 960);
    cli_target_args_free(&a);
    unlink(path);
}

static void test_model_opt_set(void **state)
{
    (void)state;
    struct zoo_opts o;
    struct ls_error err;
    zoo_opts_init(&o);
    assert_int_equal(cli_model_opt_set(&o, "seq", "12", &err), 0);
    assert_int_equal(o.seq, 12);
    assert_int_equal(cli_model_opt_set(&o, "dtype", "fp16", &err), 0);
    assert_int_equal(o.dtype, LS_DT_FP16);
    assert_int_equal(cli_model_opt_set(&o, "seq", "0", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--seq"));
    assert_int_equal(cli_model_opt_set(&o, "seq", "12x", &err), LS_ERR_INPUT);
    assert_int_equal(cli_model_opt_set(&o, "dtype", "int8", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--dtype"));
    assert_int_equal(cli_model_opt_set(&o, "depth", "3", &err), LS_ERR_INPUT);
    /* --autocast: default matmul, not a scaling option */
    zoo_opts_init(&o);
    assert_int_equal(o.autocast, GRAPH_AUTOCAST_MATMUL);
    assert_int_equal(cli_model_opt_set(&o, "autocast", "none", &err), 0);
    assert_int_equal(o.autocast, GRAPH_AUTOCAST_NONE);
    assert_false(model_opts_any(&o));
    assert_int_equal(cli_model_opt_set(&o, "autocast", "fp32", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--autocast: expected none or matmul"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_target_args),
        cmocka_unit_test(test_model_opt_set),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
