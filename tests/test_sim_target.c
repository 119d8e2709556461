/* Tests for sim/target: built-ins, keys, validation, INI files, the stable hash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/target.h"
#include "util/hash.h"

static void test_builtins(void **state)
{
    (void)state;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    assert_string_equal(t.name, "nc-v2");
    assert_int_equal(t.pe_mhz, 2800);
    assert_int_equal(t.dve_mhz, 1120);
    assert_int_equal(t.act_mhz, 1400);
    assert_int_equal(t.base_mhz, 1400);
    assert_int_equal(t.sbuf_usable_bytes, 180224);
    assert_int_equal(t.psum_banks * t.psum_bank_bytes, 16384);
    assert_int_equal(sim_target_tick_mhz(&t), 5600);
    assert_int_equal(t.mem_access_conflicts, 1);
    assert_int_equal(t.dma_transpose, 0);
    assert_int_equal(sim_target_validate(&t, NULL), 0);
    assert_int_equal(sim_target_builtin(&t, "nc-v3"), 0);
    assert_int_equal(sim_target_tick_mhz(&t), 4800);
    assert_int_equal(t.sbuf_usable_bytes, 212984);
    assert_true(t.dma_bytes_per_ns == 23.0);
    assert_int_equal(t.dma_transpose, 1);
    assert_int_equal(t.mem_access_conflicts, 0);
    assert_int_equal(sim_target_validate(&t, NULL), 0);
    assert_int_equal(sim_target_builtin(&t, "nc-v9"), -1);
}

static void test_keys_sorted_and_lines(void **state)
{
    (void)state;
    size_t n = sim_target_key_count();
    assert_true(n >= 27);
    for (size_t i = 1; i < n; i++)
        assert_true(strcmp(sim_target_key_name(i - 1), sim_target_key_name(i)) < 0);
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    char buf[4096];
    size_t len = sim_target_lines(&t, buf, sizeof buf);
    assert_true(len < sizeof buf);
    assert_non_null(strstr(buf, "pe.rows=128\n"));
    assert_non_null(strstr(buf, "clock.pe_mhz=2800\n"));
    assert_non_null(strstr(buf, "dma.bytes_per_ns=17\n"));
    /* The hash is FNV-1a-64 of exactly these lines, and the name is not part of it. */
    assert_true(sim_target_hash(&t) == ls_fnv1a64(buf, len));
    uint64_t h = sim_target_hash(&t);
    snprintf(t.name, sizeof t.name, "renamed");
    assert_true(sim_target_hash(&t) == h);
    /* Every issue-listed key exists. */
    const char *need[] = {"clock.base_mhz", "clock.pe_mhz", "clock.dve_mhz", "clock.act_mhz",
                          "clock.pool_mhz", "pe.rows", "pe.cols", "pe.moving_max",
                          "pe.background_load", "pe.ls_speedup", "pe.mm_min_ii", "pe.fp32_passes",
                          "sbuf.partitions", "sbuf.bytes_per_partition", "psum.banks",
                          "psum.bank_bytes", "dma.engines", "dma.queues", "dma.bytes_per_ns",
                          "dma.desc_min_ns", "dma.transfer_latency_ns", "hbm.bytes_per_ns",
                          "vec.min_ii", "vec.access_overhead", "vec.static_overhead"};
    for (size_t i = 0; i < sizeof need / sizeof need[0]; i++) {
        struct sim_target u;
        sim_target_builtin(&u, "nc-v2");
        char key[64];
        snprintf(key, sizeof key, "%s", need[i]);
        struct ls_error err;
        int rc = sim_target_set(&u, key, "nonsense", &err);
        assert_int_equal(rc, LS_ERR_INPUT);
        assert_non_null(strstr(err.msg, need[i])); /* known key: the message is about the value */
        assert_null(strstr(err.msg, "unknown target key"));
    }
}

/* The built-ins' numbers are pinned by their hashes (docs/targets.md, the fuzz seeds, the
 * .lsp/.sol headers of saved files): nc-v2 comes from the defaults of the key table, nc-v3
 * from nc-v2 and its differences; a changed default must change this test too. */
static void test_builtin_hashes(void **state)
{
    (void)state;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    assert_true(sim_target_hash(&t) == 0xbe37071dd03ddfadull);
    assert_int_equal(sim_target_builtin(&t, "nc-v3"), 0);
    assert_true(sim_target_hash(&t) == 0xc1ab399d09d6fabeull);
}

static void test_hash_changes_with_values(void **state)
{
    (void)state;
    struct sim_target a, b;
    sim_target_builtin(&a, "nc-v2");
    sim_target_builtin(&b, "nc-v3");
    assert_true(sim_target_hash(&a) != sim_target_hash(&b));
    sim_target_builtin(&b, "nc-v2");
    assert_int_equal(sim_target_set(&b, "pe.mm_min_ii", "32", NULL), 0);
    assert_true(sim_target_hash(&a) != sim_target_hash(&b));
    assert_int_equal(sim_target_set(&b, "pe.mm_min_ii", "64", NULL), 0);
    assert_true(sim_target_hash(&a) == sim_target_hash(&b));
}

static void test_set_errors_name_key(void **state)
{
    (void)state;
    struct sim_target t;
    struct ls_error err;
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "pe.rowz", "3", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "pe.rowz"));
    assert_non_null(strstr(err.msg, "valid pe keys: pe.background_load, pe.cols,"));   /* the list */
    assert_non_null(strstr(err.msg, "pe.rows)"));
    assert_int_equal(sim_target_set(&t, "pq.rows", "3", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "sections: clock, dma, hbm, mem, pe, pool, psum, sbuf, vec,"));
    assert_non_null(strstr(err.msg, "unknown"));
    assert_int_equal(sim_target_set(&t, "pe.rows", "0", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "pe.rows"));
    assert_int_equal(sim_target_set(&t, "pe.rows", "1.5", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "integer"));
    assert_int_equal(sim_target_set(&t, "dma.bytes_per_ns", "0", &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dma.bytes_per_ns"));
    assert_int_equal(sim_target_set(&t, "dma.bytes_per_ns", "12.5", &err), 0);
    assert_true(t.dma_bytes_per_ns == 12.5);
    /* a new bandwidth keeps the minimum descriptor bytes, unless desc_min_ns is given */
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "dma.bytes_per_ns", "34", NULL), 0);
    assert_true(t.dma_desc_min_ns == 73.0);
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "dma.desc_min_ns", "200", NULL), 0);
    assert_int_equal(sim_target_set(&t, "dma.bytes_per_ns", "34", NULL), 0);
    assert_true(t.dma_desc_min_ns == 200.0);
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "dma.bytes_per_ns", "34", NULL), 0);
    assert_int_equal(sim_target_set(&t, "dma.desc_min_ns", "200", NULL), 0);
    assert_true(t.dma_desc_min_ns == 200.0);
    /* inconsistent combinations name the key */
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "pe.rows", "256", NULL), 0);
    assert_int_equal(sim_target_validate(&t, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "pe.rows"));
    assert_non_null(strstr(err.msg, "sbuf.partitions"));
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "clock.pe_mhz", "2801", NULL), 0);
    assert_int_equal(sim_target_validate(&t, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "clock.pe_mhz"));
    assert_non_null(strstr(err.msg, "LCM") ? strstr(err.msg, "LCM") : strstr(err.msg, "least common"));
    sim_target_builtin(&t, "nc-v2");
    assert_int_equal(sim_target_set(&t, "sbuf.usable_bytes", "300000", NULL), 0);
    assert_int_equal(sim_target_validate(&t, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "sbuf.usable_bytes"));
}

static void test_ini(void **state)
{
    (void)state;
    struct sim_target t;
    struct ls_error err;
    const char *ok = "; a v3-like core with a slower DMA\n"
                     "[target]\nbase = nc-v3\nname = slow-dma\n"
                     "[dma]\nbytes_per_ns = 11.5\n[pe]\nbackground_load = 0\n";
    assert_int_equal(sim_target_load_string(&t, "slow.ini", ok, &err), 0);
    assert_string_equal(t.name, "slow-dma");
    assert_int_equal(t.pe_mhz, 2400);
    assert_true(t.dma_bytes_per_ns == 11.5);
    assert_int_equal(t.pe_background_load, 0);
    /* no base: nc-v2; the name defaults to the file name */
    assert_int_equal(sim_target_load_string(&t, "dir/mine.ini", "[pe]\nrows = 64\n", &err), 0);
    assert_string_equal(t.name, "mine");
    assert_int_equal(t.pe_mhz, 2800);
    assert_int_equal(t.pe_rows, 64);
    /* errors name file, line and key */
    assert_int_equal(sim_target_load_string(&t, "bad.ini", "[pe]\nrows = 64\ncolz = 3\n", &err),
                     LS_ERR_INPUT);
    assert_string_equal(err.file, "bad.ini");
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.msg, "pe.colz"));
    assert_int_equal(sim_target_load_string(&t, "bad.ini", "[pe]\nrows = 999\n", &err),
                     LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "pe.rows"));
    assert_int_equal(sim_target_load_string(&t, "bad.ini", "[pe]\nrows 64\n", &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 2);
    assert_int_equal(sim_target_load_string(&t, "b.ini", "[pe]\nrows=8\n[target]\nbase=nc-v3\n", &err),
                     LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "target.base"));
    assert_int_equal(sim_target_load_string(&t, "b.ini", "[sbuf]\npartitions = 64\n", &err),
                     LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "pe.rows"));
    /* a file with nc-v2's numbers hashes like nc-v2 */
    struct sim_target v2;
    sim_target_builtin(&v2, "nc-v2");
    assert_int_equal(sim_target_load_string(&t, "same.ini", "[pe]\nrows = 128\n", &err), 0);
    assert_true(sim_target_hash(&t) == sim_target_hash(&v2));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtins),
        cmocka_unit_test(test_keys_sorted_and_lines),
        cmocka_unit_test(test_builtin_hashes),
        cmocka_unit_test(test_hash_changes_with_values),
        cmocka_unit_test(test_set_errors_name_key),
        cmocka_unit_test(test_ini),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
