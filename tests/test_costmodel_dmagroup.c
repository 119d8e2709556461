/* Tests of the per-group DMA latency (table key "dma_latency_per_group", struct cm_table:
 * dma_group): a table without the key charges every DMA its fixed_ns (older tables keep
 * their prices, JSON and hash); with it, the DMAs are priced without it and each group
 * with DMA instructions is charged the latency once (times the key's value); the key
 * round-trips, a bad value is refused with its field, and a group fit drops it. With
 * "dma_latency_waves" the latency is charged once per direction of the group's transfers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "costmodel/calibrate.h"
#include "sim/sim.h"

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* A load of 128 rows of n bf16 elements from HBM into SBUF. */
static struct sim_instr dma_load(uint32_t n, uint64_t addr)
{
    struct sim_instr in;
    memset(&in, 0, sizeof in);
    in.opcode = SIM_OP_DMA_COPY;
    in.engine = LS_ENGINE_DMA;
    in.src = sim_hbm(128, (int32_t)n, addr, LS_DT_BF16, n);
    in.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, n);
    return in;
}

/* Three loads of op "a", one of op "b": a table without the key prices them one by one
 * (fixed_ns each); with "dma_latency_per_group" 1 every DMA loses fixed_ns and each of
 * the two groups gains it once. */
static void test_program_price(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb;
    cm_table_default(&t, &tb);
    tb.exposed = 0; /* every group in full: the formulas below */
    tb.dma_group = 0;
    cm_table_set_aggregate(&tb, CM_AGG_SUM, -1);
    struct sim_program *p = sim_program_new();
    assert_non_null(p);
    int32_t a = sim_program_tag(p, "a"), b = sim_program_tag(p, "b");
    struct sim_instr in[4];
    int64_t plain = 0;
    for (int i = 0; i < 4; i++) {
        in[i] = dma_load(1024, (uint64_t)i << 20);
        in[i].op_tag = i < 3 ? a : b;
        in[i].conv_tag = -1;
        struct ls_error err = {0};
        assert_int_equal(sim_program_add(p, &in[i], NULL, 0, &err), i);
        plain += cm_price(&tb, &t, &in[i]);
    }
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&tb, &t, p, &priced, NULL), 0);
        assert_int_equal(priced, plain);
    }
    assert_int_equal(cm_dma_group_latency(&tb, &t), 0);
    int64_t lat = (int64_t)(t.dma_transfer_latency_ns * t.base_mhz / 1000.0 + 0.5);
    tb.dma_group = 1;
    tb.dma_group_lat = 1;
    assert_int_equal(cm_dma_group_latency(&tb, &t), lat);
    int64_t bare = 0;
    for (int i = 0; i < 4; i++)
        bare += cm_price(&tb, &t, &in[i]);
    assert_true(llabs((plain - bare) - 4 * lat) <= 4); /* one rounding per instruction */
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&tb, &t, p, &priced, NULL), 0);
        assert_int_equal(priced, bare + 2 * lat);
    }
    /* pipe: the latency is DMA engine work, so a DMA-only group costs its sum */
    cm_table_set_aggregate(&tb, CM_AGG_PIPE, -1);
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&tb, &t, p, &priced, NULL), 0);
        assert_int_equal(priced, bare + 2 * lat);
    }
    sim_program_free(p);
}

/* Op "a" loads and stores (two directions), op "b" only loads: with dma_latency_waves
 * "a" pays the latency twice and "b" once; without it, each once. */
static void test_waves(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb;
    cm_table_default(&t, &tb);
    tb.exposed = 0; /* every group in full: the formulas below */
    cm_table_set_aggregate(&tb, CM_AGG_SUM, -1);
    tb.dma_group = 1;
    tb.dma_group_lat = 1;
    struct sim_program *p = sim_program_new();
    assert_non_null(p);
    int32_t a = sim_program_tag(p, "a"), b = sim_program_tag(p, "b");
    struct sim_instr in[4];
    int64_t bare = 0;
    for (int i = 0; i < 4; i++) {
        in[i] = dma_load(1024, (uint64_t)i << 20);
        in[i].op_tag = i < 2 ? a : b;
        in[i].conv_tag = -1;
    }
    struct sim_operand hbm = in[1].src; /* the second of "a" is a store */
    in[1].src = in[1].dst;
    in[1].dst = hbm;
    for (int i = 0; i < 4; i++) {
        struct ls_error err = {0};
        assert_int_equal(sim_program_add(p, &in[i], NULL, 0, &err), i);
        bare += cm_price(&tb, &t, &in[i]);
    }
    int64_t lat = cm_dma_group_latency(&tb, &t);
    assert_true(lat > 0);
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&tb, &t, p, &priced, NULL), 0);
        assert_int_equal(priced, bare + 2 * lat);
    }
    tb.dma_waves = 1;
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&tb, &t, p, &priced, NULL), 0);
        assert_int_equal(priced, bare + 3 * lat);
    }
    struct cm_agg g;
    memset(&g, 0, sizeof g);
    cm_agg_add_instr(&g, &in[0], 10);
    cm_agg_add_instr(&g, &in[1], 10);
    assert_int_equal(g.dma_dirs, CM_DMA_IN | CM_DMA_OUT);
    sim_program_free(p);
}

static void test_json(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb, back;
    cm_table_default(&t, &tb);
    tb.exposed = 0; /* every group in full: the formulas below */
    char path[] = "/tmp/laysim_dmagroup_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct ls_error err = {0};
    tb.dma_group = 1;
    tb.dma_group_lat = 1.5;
    assert_int_equal(cm_table_write(&tb, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_true(back.dma_group == 1 && back.dma_group_lat == 1.5);
    assert_true(cm_table_hash(&back) == cm_table_hash(&tb));
    /* without the key: per-instruction latency, and the hash of a table that never had it */
    struct cm_table none = tb;
    none.dma_group = 0;
    none.dma_group_lat = 0;
    assert_int_equal(cm_table_write(&none, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_int_equal(back.dma_group, 0);
    assert_true(cm_table_hash(&back) == cm_table_hash(&none));
    assert_true(cm_table_hash(&none) != cm_table_hash(&tb));
    /* dma_latency_waves: written only when set, read back, and a boolean */
    uint64_t once = cm_table_hash(&tb);
    tb.dma_waves = 1;
    assert_int_equal(cm_table_write(&tb, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_int_equal(back.dma_waves, 1);
    assert_true(cm_table_hash(&back) != once);
    tb.dma_waves = 0;
    write_text(path, "{\"schema\": \"laysim-latency-table\", \"version\": 1, \"aggregate\": "
                     "\"sum\", \"dma_latency_per_group\": 1, \"dma_latency_waves\": 2, "
                     "\"entries\": []}");
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dma_latency_waves"));
    write_text(path, "{\"schema\": \"laysim-latency-table\", \"version\": 1, \"aggregate\": "
                     "\"sum\", \"dma_latency_per_group\": -1, \"entries\": []}");
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dma_latency_per_group"));
    write_text(path, "{\"schema\": \"laysim-latency-table\", \"version\": 1, \"aggregate\": "
                     "\"sum\", \"dma_latency_per_group\": \"once\", \"entries\": []}");
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dma_latency_per_group"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_program_price),
                                       cmocka_unit_test(test_waves),
                                       cmocka_unit_test(test_json)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
