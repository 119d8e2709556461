/* Tests of the group fit's forms (costmodel/calibrate.h: struct cm_fit_form): split scales
 * recover a DMA and a compute scale that differ, where one tied pair cannot; the serial
 * share of a "max" table is recovered from groups whose engines partly overlap; the
 * table key serial_share round-trips, prices groups and keeps older tables' hashes. */
#include <math.h>
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
#include "util/prng.h"

static void near(double got, double want, double tol)
{
    if (fabs(got - want) > tol * fabs(want) + 1e-9) {
        fprintf(stderr, "got %.6g, want %.6g (tol %.3g)\n", got, want, tol);
        fail();
    }
}

/* An instruction's parts with only a throughput part (var, base cycles). */
static struct cm_parts var_part(int entry, int engine, double var)
{
    return (struct cm_parts){.entry = (int16_t)entry, .engine = (uint8_t)engine, .var = (float)var};
}

struct two_entries {
    struct sim_target t;
    struct cm_table tb;
    int ka, kd;   /* an ACT entry, a DMA entry */
};

static void two_entries_init(struct two_entries *s)
{
    assert_int_equal(sim_target_builtin(&s->t, "nc-v2"), 0);
    cm_table_default(&s->t, &s->tb);
    s->tb.exposed = 0; /* every group in full: the formulas below */
    s->ka = cm_table_find(&s->tb, SIM_OP_ACTIVATION, LS_DT_BF16, LS_MEM_SBUF);
    s->kd = cm_table_find(&s->tb, SIM_OP_DMA_COPY, LS_DT_BF16, LS_MEM_HBM);
    assert_true(s->ka >= 0 && s->kd >= 0);
}

/* Programs of 8 instructions (4 groups), ACT or DMA at random, whose total time is
 * 0.5 x the DMA throughput parts + 2 x the ACT throughput parts (latency parts 1x). */
static void add_split_programs(struct cm_groups *g, const struct two_entries *s)
{
    struct ls_rng rng;
    ls_rng_seed(&rng, 11);
    for (int prog = 0; prog < 16; prog++) {
        enum { N = 8 };
        struct cm_parts parts[N];
        struct trace_record recs[N];
        int32_t tag[N];
        double total = 0;
        for (int i = 0; i < N; i++) {
            int dma = (int)ls_rng_below(&rng, 2);
            parts[i].entry = (int16_t)(dma ? s->kd : s->ka);
            parts[i].engine = dma ? LS_ENGINE_DMA : LS_ENGINE_ACT;
            parts[i].fixed = (float)(20 + ls_rng_below(&rng, 20));
            parts[i].var = (float)(64 + ls_rng_below(&rng, 4000));
            total += parts[i].fixed + (dma ? 0.5 : 2.0) * parts[i].var;
            memset(&recs[i], 0, sizeof recs[i]);
            tag[i] = i / 2;
        }
        recs[N - 1].end = (uint64_t)llround(total * 4); /* 4 ticks per base cycle */
        assert_int_equal(cm_groups_add_program(g, parts, recs, tag, N, 4, 4, 1,
                                               1.0 / (total * total), -1), 0);
    }
}

static void test_split_scales(void **st)
{
    (void)st;
    struct two_entries s;
    two_entries_init(&s);
    double rel_split, rel_tied;
    struct ls_error err = {0};
    struct cm_table split = s.tb, tied = s.tb;
    struct cm_groups g;
    cm_groups_init(&g, s.tb.n);
    cm_groups_set_form(&g, (struct cm_fit_form){CM_SCALES_SPLIT, 0, 0, 0, 0}, &s.tb);
    assert_int_equal(g.tied, CM_TIE_DMA);
    assert_true(g.dma_entry[s.kd] && !g.dma_entry[s.ka]);
    add_split_programs(&g, &s);
    assert_int_equal(cm_group_fit(&g, CM_AGG_SUM, &s.t, &split, &rel_split, &err), 0);
    near(split.e[s.ka].c, 2.0 * s.tb.e[s.ka].c, 0.03);
    near(split.e[s.kd].desc_min_ns, 0.5 * s.tb.e[s.kd].desc_min_ns, 0.03);
    cm_groups_set_form(&g, (struct cm_fit_form){CM_SCALES_TIED, 0, 0, 0, 0}, &s.tb);
    assert_int_equal(cm_group_fit(&g, CM_AGG_SUM, &s.t, &tied, &rel_tied, &err), 0);
    assert_true(rel_split < 0.01);
    assert_true(rel_tied > 5 * rel_split);   /* one pair of scales cannot fit both */
    cm_groups_free(&g);
}

/* Groups of an ACT and a DVE instruction priced p_act, p_dve whose time is
 * max + 0.4 (sum - max) + 100 base cycles: the fit with fit_serial finds 0.4 (a grid
 * point), scales near 1 and group_ns near 100 cycles; without it the share stays 0 and
 * the in-sample error is larger. */
static void test_serial_share_fit(void **st)
{
    (void)st;
    struct two_entries s;
    two_entries_init(&s);
    int kv = cm_table_find(&s.tb, SIM_OP_TENSOR_TENSOR, LS_DT_BF16, LS_MEM_SBUF);
    assert_true(kv >= 0);
    struct cm_groups g;
    cm_groups_init(&g, s.tb.n);
    cm_groups_set_form(&g, (struct cm_fit_form){CM_SCALES_TIED, 1, 0, 0, 0}, &s.tb);
    struct ls_rng rng;
    ls_rng_seed(&rng, 7);
    for (int prog = 0; prog < 12; prog++) {
        enum { N = 12 };
        struct cm_parts parts[N];
        struct trace_record recs[N];
        int32_t tag[N];
        double total = 0;
        for (int i = 0; i < N; i += 2) {
            double pa = 100 + (double)ls_rng_below(&rng, 3000);
            double pv = 100 + (double)ls_rng_below(&rng, 3000);
            parts[i] = var_part(s.ka, LS_ENGINE_ACT, pa);
            parts[i + 1] = var_part(kv, LS_ENGINE_DVE, pv);
            total += fmax(pa, pv) + 0.4 * fmin(pa, pv) + 100;
            memset(&recs[i], 0, 2 * sizeof recs[i]);
            tag[i] = tag[i + 1] = i / 2;
        }
        recs[N - 1].end = (uint64_t)llround(total * 4);
        assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, N, N / 2, 4, 1,
                                               1.0 / (total * total), -1), 0);
    }
    struct ls_error err = {0};
    double rel, rel0;
    struct cm_table out = s.tb, out0 = s.tb;
    assert_int_equal(cm_group_fit(&g, CM_AGG_MAX, &s.t, &out, &rel, &err), 0);
    near(out.serial, 0.4, 1e-9);
    near(out.e[s.ka].c, s.tb.e[s.ka].c, 0.03);
    near(out.group_ns * s.t.base_mhz / 1000.0, 100, 0.1);
    g.fit_serial = 0;
    assert_int_equal(cm_group_fit(&g, CM_AGG_MAX, &s.t, &out0, &rel0, &err), 0);
    assert_true(out0.serial == 0);
    assert_true(rel < 0.01 && rel0 > rel);
    cm_groups_free(&g);
}

static void test_serial_share_table(void **st)
{
    (void)st;
    struct two_entries s;
    two_entries_init(&s);
    cm_table_set_aggregate(&s.tb, CM_AGG_MAX, 0);
    uint64_t h0 = cm_table_hash(&s.tb);
    /* priced groups: max + share x the others (+ group_ns, 0 here) */
    struct cm_agg a;
    memset(&a, 0, sizeof a);
    cm_agg_add(&a, LS_ENGINE_ACT, 1000);
    cm_agg_add(&a, LS_ENGINE_DVE, 300);
    cm_agg_add(&a, LS_ENGINE_DMA, 100);
    assert_int_equal(cm_agg_total(&s.tb, &s.t, &a), 1000);
    s.tb.serial = 0.5;
    assert_int_equal(cm_agg_total(&s.tb, &s.t, &a), 1200);
    assert_true(cm_table_hash(&s.tb) != h0);
    char path[] = "/tmp/laysim_fitform_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct ls_error err = {0};
    struct cm_table back;
    assert_int_equal(cm_table_write(&s.tb, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    near(back.serial, 0.5, 1e-12);
    assert_int_equal(cm_table_hash(&back), cm_table_hash(&s.tb));
    /* a share of 0 is not written: older tables keep their canonical JSON and hash */
    s.tb.serial = 0;
    assert_int_equal(cm_table_hash(&s.tb), h0);
    FILE *f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"aggregate\":\"max\","
          "\"group_ns\":10,\"serial_share\":1.5,\"entries\":[]}", f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "serial_share"));
    unlink(path);
}

/* Groups of dependent DVE instructions whose time is their prices plus 150 DVE cycles
 * each (a chain's issue latency, which no scale of the datasheet's a = 0 can give): with
 * fit_issue the fit adds about 150 cycles to every vector entry's a, and none to PE's. */
static void test_issue_latency_fit(void **st)
{
    (void)st;
    struct two_entries s;
    two_entries_init(&s);
    int kv = cm_table_find(&s.tb, SIM_OP_TENSOR_TENSOR, LS_DT_BF16, LS_MEM_SBUF);
    int kp = cm_table_find(&s.tb, SIM_OP_MATMUL, LS_DT_BF16, LS_MEM_SBUF);
    assert_true(kv >= 0 && kp >= 0 && s.tb.e[kv].a == 0);
    double cyc = (double)s.t.base_mhz / sim_engine_mhz(&s.t, LS_ENGINE_DVE);
    struct cm_groups g;
    cm_groups_init(&g, s.tb.n);
    cm_groups_set_form(&g, (struct cm_fit_form){CM_SCALES_TIED, 0, 1, 0, 0}, &s.tb);
    struct ls_rng rng;
    ls_rng_seed(&rng, 5);
    for (int prog = 0; prog < 12; prog++) {
        enum { NMAX = 24 };
        struct cm_parts parts[NMAX];
        struct trace_record recs[NMAX];
        int32_t tag[NMAX];
        double total = 0;
        int n = 2 + 2 * prog;   /* programs of 2..24 instructions, so the count is a feature */
        for (int i = 0; i < n; i++) {
            double pv = 100 + (double)ls_rng_below(&rng, 3000);
            parts[i] = var_part(kv, LS_ENGINE_DVE, pv);
            total += pv + 150 * cyc;
            memset(&recs[i], 0, sizeof recs[i]);
            tag[i] = i / (1 + prog % 4);   /* 1..4 instructions per group */
        }
        recs[n - 1].end = (uint64_t)llround(total * 4);
        assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, (size_t)n, (size_t)n, 4,
                                               1, 1.0 / (total * total), -1), 0);
    }
    struct ls_error err = {0};
    double rel, rel0;
    struct cm_table out = s.tb, out0 = s.tb;
    assert_int_equal(cm_group_fit(&g, CM_AGG_SUM, &s.t, &out, &rel, &err), 0);
    near(out.e[kv].a, 150, 0.1);   /* 139: the ridge pulls it towards 0, the scale to 1.01 */
    near(out.e[kv].c, s.tb.e[kv].c, 0.03);
    assert_true(out.e[kp].a == 0);   /* PE entries get no issue latency */
    g.fit_issue = 0;
    assert_int_equal(cm_group_fit(&g, CM_AGG_SUM, &s.t, &out0, &rel0, &err), 0);
    assert_true(out0.e[kv].a == 0);
    assert_true(rel < 0.01 && rel0 > rel);
    cm_groups_free(&g);
}

/* A fitted "pipe" table: groups of three ACT and one DVE instruction timed as
 * B + (S - B) / n at twice the prices (n: the bottleneck engine's count); the fit's
 * throughput scale comes out at 2 and the table keeps aggregate "pipe". */
static void test_pipe_fit(void **st)
{
    (void)st;
    struct two_entries s;
    two_entries_init(&s);
    int kv = cm_table_find(&s.tb, SIM_OP_TENSOR_TENSOR, LS_DT_BF16, LS_MEM_SBUF);
    struct cm_groups g;
    cm_groups_init(&g, s.tb.n);
    cm_groups_set_form(&g, (struct cm_fit_form){CM_SCALES_TIED, 0, 0, 0, 0}, &s.tb);
    struct ls_rng rng;
    ls_rng_seed(&rng, 3);
    for (int prog = 0; prog < 12; prog++) {
        enum { N = 16 };
        struct cm_parts parts[N];
        struct trace_record recs[N];
        int32_t tag[N];
        double total = 0;
        for (int i = 0; i < N; i += 4) {
            double act = 0, dve = 100 + (double)ls_rng_below(&rng, 2000);
            for (int j = 0; j < 3; j++) {
                double pa = 100 + (double)ls_rng_below(&rng, 1000);
                parts[i + j] = var_part(s.ka, LS_ENGINE_ACT, pa);
                act += pa;
            }
            parts[i + 3] = var_part(kv, LS_ENGINE_DVE, dve);
            double b = fmax(act, dve), n = act >= dve ? 3 : 1;
            total += 2 * (b + (act + dve - b) / n);
            memset(&recs[i], 0, 4 * sizeof recs[i]);
            tag[i] = tag[i + 1] = tag[i + 2] = tag[i + 3] = i / 4;
        }
        recs[N - 1].end = (uint64_t)llround(total * 4);
        assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, N, N / 4, 4, 1,
                                               1.0 / (total * total), -1), 0);
    }
    struct ls_error err = {0};
    double rel;
    struct cm_table out = s.tb;
    assert_int_equal(cm_group_fit(&g, CM_AGG_PIPE, &s.t, &out, &rel, &err), 0);
    assert_int_equal(out.agg, CM_AGG_PIPE);
    assert_string_equal(out.aggregate, "pipe");
    near(out.e[s.ka].c, 2 * s.tb.e[s.ka].c, 0.03);
    near(out.e[kv].c, 2 * s.tb.e[kv].c, 0.03);
    assert_true(rel < 0.01);
    cm_groups_free(&g);
}

static void test_scales_names(void **st)
{
    (void)st;
    assert_int_equal(cm_group_scales_parse("split"), CM_SCALES_SPLIT);
    assert_int_equal(cm_group_scales_parse("tied"), CM_SCALES_TIED);
    assert_int_equal(cm_group_scales_parse("entry"), CM_SCALES_ENTRY);
    assert_int_equal(cm_group_scales_parse("auto"), CM_SCALES_AUTO);
    assert_int_equal(cm_group_scales_parse("per-entry"), -1);
    assert_string_equal(cm_group_scales_name(CM_FIT_FORM_DEFAULT.scales), "split");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_scales), cmocka_unit_test(test_serial_share_fit),
        cmocka_unit_test(test_serial_share_table), cmocka_unit_test(test_scales_names),
        cmocka_unit_test(test_issue_latency_fit), cmocka_unit_test(test_pipe_fit)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
