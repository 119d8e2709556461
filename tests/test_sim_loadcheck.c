/* Tests for checking while loading (sim_program_load_checked): for text and binary
 * programs, good and bad, loading checked then simulating gives exactly what loading and
 * simulating (sim_run's own check) gives: the same load errors, the same check errors, the
 * same statistics. A program that passes is marked checked for the target. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sim/program.h"
#include "sim/program_int.h"
#include "sim/sim.h"
#include "sim/target.h"

static const char *const names[] = {
    "pipeline",         "tiny_dma",          "tiny_dve",           "tiny_pe",
    "bad/psum_overflow", "bad/sbuf_overflow", "bad/start_partition", "bad/queue",
    "bad/dma_transpose_v2", "bad/dims",      "bad/label",          "bad/opcode"};

struct outcome {
    int load_rc, run_rc, checked;
    char msg[sizeof ((struct ls_error *)0)->msg];
    struct sim_stats st;
};

static void run(const char *path, const struct sim_target *t, int checked, struct outcome *o)
{
    struct ls_error err;
    ls_error_clear(&err);
    struct sim_program *p = NULL;
    memset(o, 0, sizeof *o);
    o->load_rc = checked ? sim_program_load_checked(&p, path, t, &err) : sim_program_load(&p, path, &err);
    if (o->load_rc) {
        snprintf(o->msg, sizeof o->msg, "%s", err.msg);
        return;
    }
    o->checked = p->checked;
    o->run_rc = sim_run(t, p, NULL, &o->st, &err);
    if (o->run_rc)
        snprintf(o->msg, sizeof o->msg, "%s", err.msg);
    sim_program_free(p);
}

static void same(const char *path, const struct sim_target *t)
{
    struct outcome a, b;
    run(path, t, 0, &a);
    run(path, t, 1, &b);
    assert_int_equal(a.load_rc, b.load_rc);
    assert_int_equal(a.run_rc, b.run_rc);
    assert_string_equal(a.msg, b.msg);
    assert_memory_equal(&a.st, &b.st, sizeof a.st);
    assert_int_equal(a.checked, 0);
    assert_int_equal(b.checked, !b.load_rc && !b.run_rc); /* passed: marked */
}

/* The binary form of the text program at path in a temporary file (NULL when the text
 * does not parse: nothing to convert). */
static char *binary_copy(const char *path, char *tmp, size_t n)
{
    struct ls_error err;
    struct sim_program *p = NULL;
    if (sim_program_load(&p, path, &err))
        return NULL;
    snprintf(tmp, n, "/tmp/laysim-loadcheck-XXXXXX");
    int fd = mkstemp(tmp);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "wb");
    assert_non_null(f);
    assert_int_equal(sim_program_write_binary(p, f), 0);
    fclose(f);
    sim_program_free(p);
    return tmp;
}

static void test_same_as_unchecked(void **state)
{
    (void)state;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        char path[512], tmp[64];
        snprintf(path, sizeof path, "%s/tests/data/prog/%s.lsprog", LAYSIM_SOURCE_DIR, names[k]);
        same(path, &t);
        if (binary_copy(path, tmp, sizeof tmp)) {
            same(tmp, &t);
            unlink(tmp);
        }
    }
}

/* Checked for one target is not checked for another: sim_run checks again. */
static void test_other_target_checks_again(void **state)
{
    (void)state;
    struct sim_target v2, v3;
    assert_int_equal(sim_target_builtin(&v2, "nc-v2"), 0);
    assert_int_equal(sim_target_builtin(&v3, "nc-v3"), 0);
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/prog/pipeline.lsprog", LAYSIM_SOURCE_DIR);
    struct ls_error err;
    struct sim_program *p = NULL;
    assert_int_equal(sim_program_load_checked(&p, path, &v2, &err), 0);
    assert_true(p->checked);
    assert_true(p->checked_hash == sim_target_hash(&v2));
    assert_true(sim_target_hash(&v2) != sim_target_hash(&v3)); /* so sim_run on v3 checks */
    sim_program_free(p);
}

/* An invalid target is not used to check (its zero bank size would divide by zero): the
 * program loads unchecked and sim_run reports the target. */
static void test_invalid_target_loads_unchecked(void **state)
{
    (void)state;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    t.psum_bank_bytes = 0;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/prog/pipeline.lsprog", LAYSIM_SOURCE_DIR);
    struct ls_error err;
    struct sim_program *p = NULL;
    assert_int_equal(sim_program_load_checked(&p, path, &t, &err), 0);
    assert_false(p->checked);
    struct sim_stats st;
    assert_int_not_equal(sim_run(&t, p, NULL, &st, &err), 0);
    sim_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_as_unchecked),
                                       cmocka_unit_test(test_other_target_checks_again),
                                       cmocka_unit_test(test_invalid_target_loads_unchecked)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
