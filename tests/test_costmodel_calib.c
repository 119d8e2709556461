/* Tests of costmodel/calibrate: the fitters recover known coefficients from synthetic
 * trace records (compute knee, DMA knee, robustness to an outlier), the group fit recovers
 * known scales, microbenchmarks run and fit the simulator, and "max" tables round-trip. */
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

#include "costmodel/calib_run.h"
#include "costmodel/calibrate.h"
#include "sim/sim.h"
#include "util/prng.h"

#define TICK_HZ 5600000000ull   /* 5600 ticks per microsecond, as nc-v2 */

static void near(double got, double want, double rel)
{
    if (fabs(got - want) > rel * fabs(want) + 1e-9) {
        fprintf(stderr, "got %.6g, want %.6g (rel %.3g)\n", got, want, rel);
        fail();
    }
}

/* A compute record of `cycles` engine cycles on an engine clocked at mhz. */
static struct trace_record rec_compute(int engine, uint64_t n, double cycles, uint32_t mhz)
{
    struct trace_record r;
    memset(&r, 0, sizeof r);
    r.engine = (uint8_t)engine;
    r.dtype = LS_DT_BF16;
    r.src_mem = LS_MEM_SBUF;
    r.dst_mem = LS_MEM_SBUF;
    r.partitions = 128;
    r.free_size = n;
    r.start = 1000;
    r.end = 1000 + (uint64_t)llround(cycles * (TICK_HZ / 1e6) / mhz);
    return r;
}

static void test_fit_compute(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table prior, out;
    cm_table_default(&t, &prior);
    uint32_t clk[LS_ENGINE_COUNT] = {1400, 1400, 1400, 1400, 1400};
    /* activation: a = 40, b = 96, c = 1.5 (knee at N = 64) */
    const double a = 40, b = 96, c = 1.5;
    struct cm_calib cal;
    cm_calib_init(&cal);
    for (uint64_t n = 1; n <= 8192; n = n * 2 + 1) {
        struct trace_record r = rec_compute(LS_ENGINE_ACT, n, a + fmax(b, c * (double)n), clk[1]);
        assert_int_equal(cm_calib_add_record(&cal, &r, "activation", TICK_HZ, clk, 16), 0);
    }
    /* one wild outlier: robust fitting must not follow it */
    struct trace_record r = rec_compute(LS_ENGINE_ACT, 300, 5000, clk[1]);
    assert_int_equal(cm_calib_add_record(&cal, &r, "activation", TICK_HZ, clk, 16), 0);
    /* unknown opcodes are skipped */
    assert_int_equal(cm_calib_add_record(&cal, &r, "no_such_op", TICK_HZ, clk, 16), 0);
    struct cm_fit_report rep;
    struct ls_error err = {0};
    assert_int_equal(cm_calib_fit(&cal, &prior, &out, &rep, &err), 0);
    int k = cm_table_find(&out, SIM_OP_ACTIVATION, LS_DT_BF16, LS_MEM_SBUF);
    assert_true(k >= 0);
    near(out.e[k].a, a, 0.05);
    near(out.e[k].b, b, 0.05);
    near(out.e[k].c, c, 0.02);
    int found = 0;
    for (int i = 0; i < rep.n; i++)
        if (rep.e[i].entry == k) {
            found = 1;
            assert_true(rep.e[i].fitted);
            assert_int_equal(rep.e[i].samples, (int)cal.n);
            assert_true(rep.e[i].median_rel < 0.01);
            assert_true(rep.e[i].max_rel > 0.5);  /* the outlier is reported */
            assert_true(rep.e[i].nresid > 0);
        }
    assert_true(found);
    /* entries without samples keep the prior */
    int m = cm_table_find(&out, SIM_OP_MATMUL, LS_DT_BF16, LS_MEM_SBUF);
    assert_true(m >= 0);
    assert_true(out.e[m].b == prior.e[m].b && out.e[m].c == prior.e[m].c);
    cm_calib_free(&cal);
}

static void test_fit_dma(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table prior, out;
    cm_table_default(&t, &prior);
    const double fixed = 900, dmin = 120, bw = 25; /* knee at 3000 bytes per chunk */
    struct cm_calib cal;
    cm_calib_init(&cal);
    uint32_t clk[LS_ENGINE_COUNT] = {1400, 1400, 1400, 1400, 1400};
    struct ls_rng rng;
    ls_rng_seed(&rng, 7);
    static const uint32_t parts[] = {1, 16, 64, 128};
    static const uint64_t chunk[] = {4, 64, 512, 2048, 4096, 16384, 65536};
    for (size_t p = 0; p < 4; p++)
        for (size_t c = 0; c < 7; c++)
            for (uint32_t per = 1; per <= 8; per *= 2) {
                struct trace_record r;
                memset(&r, 0, sizeof r);
                r.engine = LS_ENGINE_DMA;
                r.dtype = LS_DT_BF16;
                r.src_mem = LS_MEM_HBM;
                r.dst_mem = LS_MEM_SBUF;
                r.partitions = parts[p];
                r.descriptors = parts[p] * per;
                r.chunk_bytes = chunk[c];
                double D = (double)((parts[p] + 15) / 16) * per;
                double ns = fixed + D * fmax(dmin, (double)chunk[c] / bw);
                ns *= 1 + 0.002 * (ls_rng_double(&rng) - 0.5); /* measurement noise */
                r.start = 0;
                r.end = (uint64_t)llround(ns * TICK_HZ / 1e9);
                assert_int_equal(cm_calib_add_record(&cal, &r, "dma_copy", TICK_HZ, clk, 16), 0);
            }
    struct ls_error err = {0};
    assert_int_equal(cm_calib_fit(&cal, &prior, &out, NULL, &err), 0);
    int k = cm_table_find(&out, SIM_OP_DMA_COPY, LS_DT_BF16, LS_MEM_HBM);
    assert_true(k >= 0);
    near(out.e[k].fixed_ns, fixed, 0.03);
    near(out.e[k].desc_min_ns, dmin, 0.02);
    near(out.e[k].bytes_per_ns, bw, 0.02);
    cm_calib_free(&cal);
}

/* The microbenchmarks fit the simulator closely where the table's form matches it. */
static void test_microbench(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table prior, out;
    cm_table_default(&t, &prior);
    struct cm_calib cal;
    cm_calib_init(&cal);
    size_t count = 0;
    struct ls_error err = {0};
    assert_int_equal(cm_microbench_run(&t, &cal, NULL, &count, &err), 0);
    assert_true(count > 100);
    assert_true(cal.n >= count);
    struct cm_fit_report *rp = calloc(1, sizeof *rp);   /* ~150 KB: not on the stack */
    assert_non_null(rp);
    assert_int_equal(cm_calib_fit(&cal, &prior, &out, rp, &err), 0);
    int seen_dma = 0, seen_mm = 0;
    for (int i = 0; i < rp->n; i++) {
        const struct cm_entry *e = &out.e[rp->e[i].entry];
        if (e->opcode == SIM_OP_DMA_COPY) {
            seen_dma = 1;
            assert_true(rp->e[i].median_rel < 0.02);
        }
        if (e->opcode == SIM_OP_MATMUL) {
            seen_mm = 1;
            assert_true(rp->e[i].r2 > 0.99);
        }
    }
    free(rp);
    assert_true(seen_dma && seen_mm);
    /* matmul in isolation: II max(64, N) plus the array's fill/drain latency */
    int k = cm_table_find(&out, SIM_OP_MATMUL, LS_DT_BF16, LS_MEM_SBUF);
    near(out.e[k].c, 1.0, 0.01);
    near(out.e[k].a + out.e[k].b, 64 + t.pe_rows + t.pe_cols - 2, 0.02);
    cm_calib_free(&cal);
}

/* Group fit: groups whose exposed time is 2x the throughput part and 0.5x the latency part
 * of one entry give those scales back. */
static void test_group_fit(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb;
    cm_table_default(&t, &tb);
    int k = cm_table_find(&tb, SIM_OP_ACTIVATION, LS_DT_BF16, LS_MEM_SBUF);
    struct cm_groups g;
    cm_groups_init(&g, tb.n);
    struct ls_rng rng;
    ls_rng_seed(&rng, 3);
    for (int prog = 0; prog < 20; prog++) {
        enum { N = 6 };
        struct cm_parts parts[N];
        struct trace_record recs[N];
        int32_t tag[N];
        uint64_t now = 0;
        for (int i = 0; i < N; i++) {
            parts[i].entry = (int16_t)k;
            parts[i].engine = LS_ENGINE_ACT;
            parts[i].fixed = (float)(10 + ls_rng_below(&rng, 50));
            parts[i].var = (float)(64 + ls_rng_below(&rng, 4000));
            double y = 0.5 * parts[i].fixed + 2.0 * parts[i].var; /* base cycles */
            memset(&recs[i], 0, sizeof recs[i]);
            recs[i].start = now;
            now += (uint64_t)llround(y * 4); /* 4 ticks per base cycle */
            recs[i].end = now;
            tag[i] = i / 2;                  /* 3 groups of 2 instructions */
        }
        assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, N, 3, 4, 1, 1.0, -1), 0);
    }
    assert_int_equal(g.n, 60);
    struct ls_error err = {0};
    double rel;
    struct cm_table out = tb;
    assert_int_equal(cm_group_fit(&g, CM_AGG_SUM, &t, &out, &rel, &err), 0);
    assert_true(rel < 0.01);
    near(out.e[k].a, 0.5 * tb.e[k].a, 0.05);
    near(out.e[k].c, 2.0 * tb.e[k].c, 0.02);
    assert_string_equal(out.aggregate, "sum");
    cm_groups_free(&g);
}

/* A group priced under a "pipe" prior (the held-out error of the datasheet table): the
 * bottleneck engine's sum plus the others' once per tile of the bottleneck engine. */
static void test_groups_pipe(void **st)
{
    (void)st;
    struct cm_groups g;
    cm_groups_init(&g, 4);
    const struct cm_parts parts[3] = {{.entry = 1, .engine = LS_ENGINE_ACT, .fixed = 10, .var = 90},
                                      {.entry = 1, .engine = LS_ENGINE_ACT, .var = 100},
                                      {.entry = 2, .engine = LS_ENGINE_PE, .fixed = 20, .var = 30}};
    struct trace_record recs[3];
    memset(recs, 0, sizeof recs);
    for (int i = 0; i < 3; i++)
        recs[i].end = 100 * (uint64_t)(i + 1);
    const int32_t tag[3] = {0, 0, 0};
    assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, 3, 1, 1, 1, 1.0, -1), 0);
    double p, y, cv;
    cm_groups_program_time(&g, 0, CM_AGG_PIPE, 0, 0, 1, &p, &y, NULL);
    near(p, 200 + 50 / 2.0, 1e-9);
    near(y, 300, 1e-9);
    cm_groups_program_time(&g, 0, CM_AGG_SUM, 0, 0, 1, &p, &y, NULL);
    near(p, 250, 1e-9);
    cm_groups_program_time(&g, 0, CM_AGG_MAX, 7, 0, 1, &p, &y, NULL);
    near(p, 207, 1e-9);
    /* an exposed share discounts the op's group, never a conversion's */
    cm_groups_program_time(&g, 0, CM_AGG_SUM, 0, 0, 0.5, &p, &y, &cv);
    near(p, 125, 1e-9);
    near(cv, 0, 1e-9);
    /* the share that prices the program as measured: 300 / 250 */
    near(cm_groups_exposed_share(&g, CM_AGG_SUM, 0, 0), 1.2, 1e-9);
    for (int i = 0; i < 3; i++) { /* the same records as one conversion's group */
        recs[i].op_id = -1;
        recs[i].conv_id = 0;
    }
    assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, 3, 1, 1, 1, 1.0, -1), 0);
    cm_groups_program_time(&g, 1, CM_AGG_SUM, 0, 0, 0.5, &p, &y, &cv);
    near(p, 250, 1e-9);
    near(cv, 250, 1e-9);
    /* a program of conversions alone says nothing about the share */
    near(cm_groups_exposed_share(&g, CM_AGG_SUM, 0, 0), 1.2, 1e-9);
    cm_groups_free(&g);
}

/* Tied scales on program totals (the trace fit's default): programs of an ACT and a DMA
 * entry whose time is 0.1 x the latency parts + 1.25 x the throughput parts, but whose
 * exposed time all lands on the last group (as a prefetch moves it), give 0.1 and 1.25
 * back for both entries; the per-group rows could not. */
static void test_group_fit_tied(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb;
    cm_table_default(&t, &tb);
    int ka = cm_table_find(&tb, SIM_OP_ACTIVATION, LS_DT_BF16, LS_MEM_SBUF);
    int kd = cm_table_find(&tb, SIM_OP_DMA_COPY, LS_DT_BF16, LS_MEM_HBM);
    struct cm_groups g;
    cm_groups_init(&g, tb.n);
    g.tied = CM_TIE_ALL;
    g.totals = 1;
    struct ls_rng rng;
    ls_rng_seed(&rng, 5);
    for (int prog = 0; prog < 12; prog++) {
        enum { N = 8 };
        struct cm_parts parts[N];
        struct trace_record recs[N];
        int32_t tag[N];
        double total = 0, lat = 1 + (double)ls_rng_below(&rng, 20); /* latency share varies */
        for (int i = 0; i < N; i++) {
            int dma = (int)ls_rng_below(&rng, 2);
            parts[i].entry = (int16_t)(dma ? kd : ka);
            parts[i].engine = dma ? LS_ENGINE_DMA : LS_ENGINE_ACT;
            parts[i].fixed = (float)(lat * (dma ? 500 + ls_rng_below(&rng, 500) : 10 + ls_rng_below(&rng, 50)));
            parts[i].var = (float)(64 + ls_rng_below(&rng, 4000));
            total += 0.1 * parts[i].fixed + 1.25 * parts[i].var;
            memset(&recs[i], 0, sizeof recs[i]);
            tag[i] = i / 2;
        }
        recs[N - 1].end = (uint64_t)llround(total * 4); /* 4 ticks per base cycle */
        assert_int_equal(cm_groups_add_program(&g, parts, recs, tag, N, 4, 4, 1, 1.0 / (total * total), -1), 0);
    }
    struct ls_error err = {0};
    double rel;
    struct cm_table out = tb;
    assert_int_equal(cm_group_fit(&g, CM_AGG_SUM, &t, &out, &rel, &err), 0);
    assert_true(rel < 0.01);
    near(out.e[ka].c, 1.25 * tb.e[ka].c, 0.02);
    near(out.e[kd].desc_min_ns, 1.25 * tb.e[kd].desc_min_ns, 0.02);
    near(out.e[kd].fixed_ns, 0.1 * tb.e[kd].fixed_ns, 0.15); /* the ridge pulls towards 1 */
    cm_groups_free(&g);
}

/* Samples that follow the prior where held out (every 5th) and three times the prior
 * elsewhere: the fit follows the majority, predicts the held-out samples worse than the
 * prior, and is rejected, keeping the prior; exact samples give a "good" entry. */
/* A fit that predicts the models left out closer in level but ranks fewer of their program
 * pairs as measured is worse than the prior (it would pick slower layouts). */
static void test_lomo_ranking(void **st)
{
    (void)st;
    struct cm_lomo lm = {0};
    lm.nmodels = 2;
    lm.fit_mean = 0.05;
    lm.prior_mean = 0.40;
    lm.pairs = 12;
    lm.fit_correct = lm.prior_correct = 10;
    assert_false(cm_lomo_worse(&lm));
    lm.fit_correct = 9;
    assert_true(cm_lomo_worse(&lm));
    lm.fit_correct = 11; /* ranking first: more pairs right outweighs the level */
    lm.fit_mean = 0.41;
    assert_false(cm_lomo_worse(&lm));
    lm.fit_correct = 10;
    assert_true(cm_lomo_worse(&lm));
    assert_int_equal(cm_cmp3(100, 100.4), 0);
    assert_int_equal(cm_cmp3(100, 100.6), -1);
}

static void test_verdicts(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table prior, out;
    cm_table_default(&t, &prior);
    uint32_t clk[LS_ENGINE_COUNT] = {1400, 1400, 1400, 1400, 1400};
    int ka = cm_table_find(&prior, SIM_OP_ACTIVATION, LS_DT_BF16, LS_MEM_SBUF);
    int kt = cm_table_find(&prior, SIM_OP_TENSOR_SCALAR, LS_DT_BF16, LS_MEM_SBUF);
    assert_true(ka >= 0 && kt >= 0);
    struct cm_calib cal;
    cm_calib_init(&cal);
    for (int i = 0; i < 20; i++) {
        uint64_t n = 256 + 512 * (uint64_t)i;
        struct cm_sample probe = {.engine = LS_ENGINE_ACT, .n = (double)n};
        double y = cm_entry_eval(&prior.e[ka], &probe) * (i % 5 == 4 ? 1.0 : 3.0);
        struct trace_record r = rec_compute(LS_ENGINE_ACT, n, y, clk[1]);
        assert_int_equal(cm_calib_add_record(&cal, &r, "activation", TICK_HZ, clk, 16), 0);
        probe.engine = LS_ENGINE_DVE;
        r = rec_compute(LS_ENGINE_DVE, n, 2.0 * cm_entry_eval(&prior.e[kt], &probe), clk[2]);
        assert_int_equal(cm_calib_add_record(&cal, &r, "tensor_scalar", TICK_HZ, clk, 16), 0);
    }
    struct cm_fit_report rep;
    struct ls_error err = {0};
    assert_int_equal(cm_calib_fit(&cal, &prior, &out, &rep, &err), 0);
    for (int i = 0; i < rep.n; i++) {
        const struct cm_fit_entry *f = &rep.e[i];
        if (f->entry == ka) {
            assert_int_equal(f->verdict, CM_REJECTED);
            assert_false(f->fitted);
            assert_int_equal(f->held_out, 4);
            assert_true(f->holdout_fit > f->holdout_prior);
            assert_true(out.e[ka].c == prior.e[ka].c);
        } else if (f->entry == kt) {
            assert_int_equal(f->verdict, CM_GOOD);
            near(out.e[kt].c, 2.0 * prior.e[kt].c, 0.02);
        }
    }
    assert_int_equal(rep.verdicts[CM_REJECTED], 1);
    assert_int_equal(rep.verdicts[CM_GOOD], 1);
    assert_int_equal(rep.held_out, 8);
    cal.holdout = 0;   /* nothing held out: nothing to reject, the fit is taken */
    assert_int_equal(cm_calib_fit(&cal, &prior, &out, &rep, &err), 0);
    assert_int_equal(rep.held_out, 0);
    assert_true(out.e[ka].c > prior.e[ka].c);
    cm_calib_free(&cal);
}

/* Programs keep their rows and keys through cm_groups_append, and a fit with the
 * difference rows of programs sharing a key still recovers a known scale. */
static void test_group_programs(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb;
    cm_table_default(&t, &tb);
    int k = cm_table_find(&tb, SIM_OP_ACTIVATION, LS_DT_BF16, LS_MEM_SBUF);
    struct cm_groups a, all;
    cm_groups_init(&a, tb.n);
    cm_groups_init(&all, tb.n);
    for (int prog = 0; prog < 3; prog++) {
        enum { N = 4 };
        struct cm_parts parts[N];
        struct trace_record recs[N];
        int32_t tag[N];
        uint64_t now = 0;
        for (int i = 0; i < N; i++) {
            parts[i].entry = (int16_t)k;
            parts[i].engine = LS_ENGINE_ACT;
            parts[i].fixed = 0;
            parts[i].var = (float)(100 * (prog + 1) + 10 * i);
            memset(&recs[i], 0, sizeof recs[i]);
            recs[i].start = now;
            now += (uint64_t)llround(1.5 * parts[i].var * 4);
            recs[i].end = now;
            tag[i] = i;
        }
        assert_int_equal(cm_groups_add_program(&a, parts, recs, tag, N, N, 4, 1, 1e-6, 7), 0);
    }
    assert_int_equal(a.nprog, 3);
    assert_int_equal(cm_groups_append(&all, &a), 0);
    assert_int_equal(cm_groups_append(&all, &a), 0);
    assert_int_equal(all.nprog, 6);
    assert_int_equal(all.n, 2 * a.n);
    assert_int_equal(all.pstart[3], a.n);
    assert_int_equal(all.pkey[4], 7);
    struct ls_error err = {0};
    struct cm_table out = tb;
    double rel;
    assert_int_equal(cm_group_fit(&all, CM_AGG_SUM, &t, &out, &rel, &err), 0);
    assert_true(rel < 0.01);
    near(out.e[k].c, 1.5 * tb.e[k].c, 0.02);
    cm_groups_free(&a);
    cm_groups_free(&all);
}

static void test_table_max_roundtrip(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb, back;
    cm_table_default(&t, &tb);
    tb.exposed = 0; /* every group in full: the formulas below */
    char path[] = "/tmp/laysim_calib_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    struct ls_error err = {0};
    /* the datasheet table is "pipe" and round-trips without group_ns */
    assert_int_equal(tb.agg, CM_AGG_PIPE);
    assert_int_equal(cm_table_write(&tb, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_int_equal(back.agg, CM_AGG_PIPE);
    assert_int_equal(cm_table_hash(&back), cm_table_hash(&tb));
    cm_table_set_aggregate(&tb, CM_AGG_SUM, -1);
    uint64_t h_sum = cm_table_hash(&tb);
    cm_table_set_aggregate(&tb, CM_AGG_MAX, 1234.5);
    assert_true(cm_table_hash(&tb) != h_sum);
    assert_int_equal(cm_table_write(&tb, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_int_equal(back.agg, CM_AGG_MAX);
    assert_string_equal(back.aggregate, "max");
    near(back.group_ns, 1234.5, 1e-12);
    assert_int_equal(cm_table_hash(&back), cm_table_hash(&tb));
    /* max without group_ns, and unknown modes, are input errors naming the key */
    FILE *f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"aggregate\":\"max\",\"entries\":[]}", f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "group_ns"));
    f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"aggregate\":\"avg\",\"entries\":[]}", f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    /* an old sum table (no group_ns) still loads */
    f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"aggregate\":\"sum\",\"entries\":[]}", f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_int_equal(back.agg, CM_AGG_SUM);
    /* coefficients that would overflow a price are refused, naming the field's line:col */
    f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"entries\":[\n"
          " {\"opcode\":\"dma_copy\",\"fixed_ns\":1,\"desc_min_ns\":1,\"bytes_per_ns\":1},\n"
          " {\"opcode\":\"dma_copy\",\"fixed_ns\":1,\"desc_min_ns\":1e19,\"bytes_per_ns\":1}]}",
          f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "entries[1].desc_min_ns: 1e+19 is out of range"));
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 36);
    f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"entries\":[\n"
          " {\"opcode\":\"dma_copy\",\"fixed_ns\":1,\"desc_min_ns\":1,\"bytes_per_ns\":1e-320}]}",
          f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bytes_per_ns"));
    unlink(path);
    /* cm_agg_total */
    struct cm_agg a;
    memset(&a, 0, sizeof a);
    assert_int_equal(cm_agg_total(&tb, &t, &a), 0);
    cm_agg_add(&a, LS_ENGINE_PE, 100);
    cm_agg_add(&a, LS_ENGINE_DMA, 300);
    cm_agg_add(&a, LS_ENGINE_DMA, 50);
    int64_t L = (int64_t)floor(1234.5 * t.base_mhz / 1000.0 + 0.5);
    assert_int_equal(cm_agg_total(&tb, &t, &a), 350 + L);
    cm_table_set_aggregate(&tb, CM_AGG_SUM, -1);
    assert_int_equal(cm_agg_total(&tb, &t, &a), 450);
    /* pipe: bottleneck DMA 350 over 2 instructions, the other 100 once per tile: 350 + 50 */
    cm_table_set_aggregate(&tb, CM_AGG_PIPE, -1);
    assert_string_equal(tb.aggregate, "pipe");
    assert_int_equal(cm_agg_total(&tb, &t, &a), 400);
    cm_agg_add(&a, LS_ENGINE_DMA, 40);   /* 3 tiles: 390 + (490 - 390) / 3, half up */
    assert_int_equal(cm_agg_total(&tb, &t, &a), 423);
    struct cm_agg one;
    memset(&one, 0, sizeof one);
    cm_agg_add(&one, LS_ENGINE_ACT, 70);
    cm_agg_add(&one, LS_ENGINE_PE, 30);  /* one tile each: the sum */
    assert_int_equal(cm_agg_total(&tb, &t, &one), 100);
    enum cm_aggregate ag;
    assert_int_equal(cm_aggregate_parse("pipe", &ag), 0);
    assert_int_equal(ag, CM_AGG_PIPE);
    assert_int_equal(cm_aggregate_parse("mean", &ag), -1);
    assert_int_equal(cm_aggregate_parse("sum", &ag), 0);
    assert_int_equal(ag, CM_AGG_SUM);
}

/* cm_agg_floor bounds from below the total of every group that extends the one it saw,
 * under each aggregation, with and without the per-group DMA latency: conversion pricing
 * stops a method at a cheaper method's price on that promise (costmodel/model.c). */
static void test_agg_floor(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb;
    cm_table_default(&t, &tb);
    uint64_t x = 88172645463325252ull; /* xorshift64: the same groups every run */
    for (int run = 0; run < 600; run++) {
        cm_table_set_aggregate(&tb, (enum cm_aggregate)(run % 3), -1);
        tb.serial = run % 2 ? 0.25 * (run % 5) : 0;
        tb.dma_group = run % 7 < 4;
        tb.dma_group_lat = 0.5 * (run % 4);
        tb.dma_waves = run % 5 < 2;
        struct cm_agg a;
        memset(&a, 0, sizeof a);
        int64_t last = 0;
        for (int k = 0; k < 40; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            struct sim_instr in = {.engine = (uint8_t)(x % LS_ENGINE_COUNT)};
            in.src.mem = (x >> 8) & 1 ? LS_MEM_HBM : LS_MEM_SBUF;
            in.dst.mem = LS_MEM_SBUF;
            cm_agg_add_instr(&a, &in, (int64_t)((x >> 16) % 500));
            int64_t f = cm_agg_floor(&tb, &t, &a);
            assert_true(f >= last); /* it never decreases */
            assert_true(f <= cm_agg_total(&tb, &t, &a));
            last = f;
        }
    }
}

/* dma_prefetch_share: loads on the queues of constants and of the constant ring are
 * charged that share; other loads, and every load on a target whose queues the classes
 * share, are not. The key is read, range-checked and written back. */
static void test_prefetch_share(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct cm_table tb, back;
    cm_table_default(&t, &tb);
    struct sim_instr in = {.engine = LS_ENGINE_DMA, .opcode = SIM_OP_DMA_COPY, .queue = 6};
    in.src = sim_hbm(128, 1024, 0, LS_DT_BF16, 1024);
    in.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, 1024);
    int64_t full = cm_price(&tb, &t, &in);
    assert_true(full > 100);
    tb.dma_prefetch = 1;
    tb.dma_prefetch_share = 0.5;
    assert_true(llabs(cm_price(&tb, &t, &in) - full / 2) <= 1);
    in.queue = 0; /* an activation load: its producer must finish first */
    assert_int_equal(cm_price(&tb, &t, &in), full);
    t.dma_queues = 4; /* ring loads go to queue 6 % 4 = 2, which stores share */
    in.queue = 2;
    struct cm_table plain = tb;
    plain.dma_prefetch = 0;
    assert_int_equal(cm_price(&tb, &t, &in), cm_price(&plain, &t, &in));
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    char path[] = "/tmp/laysim_prefetch_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    struct ls_error err;
    assert_int_equal(cm_table_write(&tb, path, &err), 0);
    assert_int_equal(cm_table_load(path, &back, &err), 0);
    assert_int_equal(back.dma_prefetch, 1);
    assert_true(back.dma_prefetch_share == 0.5);
    assert_int_equal(cm_table_hash(&back), cm_table_hash(&tb));
    FILE *f = fopen(path, "w");
    fputs("{\"schema\":\"laysim-latency-table\",\"version\":1,\"dma_prefetch_share\":1.5,"
          "\"entries\":[]}", f);
    fclose(f);
    assert_int_equal(cm_table_load(path, &back, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dma_prefetch_share"));
    unlink(path);
}

/* Pipelined instructions are sampled by occupancy (costmodel/fit_pipe.c): a matmul that
 * overlaps the previous matmul of its dtype on PE is sampled as the growth of PE's end;
 * the first of the chain, one of another dtype or one that overlaps nothing keeps its
 * duration, and DMA samples are not touched. */
static void test_pipe_occupancy(void **st)
{
    (void)st;
    /* ticks: start, end (engine clock = tick clock: 1 MHz ticks at 1 MHz) */
    const uint64_t start[] = {0, 64, 128, 200, 1000, 0};
    const uint64_t end[] = {318, 382, 446, 600, 1318, 9000};
    const int engine[] = {LS_ENGINE_PE, LS_ENGINE_PE, LS_ENGINE_PE, LS_ENGINE_PE,
                          LS_ENGINE_PE, LS_ENGINE_DMA};
    const int dtype[] = {LS_DT_BF16, LS_DT_BF16, LS_DT_BF16, LS_DT_FP32, LS_DT_BF16,
                         LS_DT_BF16};
    struct cm_sample s[6];
    for (int i = 0; i < 6; i++) {
        memset(&s[i], 0, sizeof s[i]);
        s[i].engine = engine[i];
        s[i].opcode = SIM_OP_MATMUL;
        s[i].dtype = dtype[i];
        s[i].y = (double)(end[i] - start[i]);
    }
    uint32_t clk[LS_ENGINE_COUNT];
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        clk[e] = 1;
    double lat[LS_ENGINE_COUNT];
    assert_int_equal(cm_pipe_adjust(s, start, end, 6, 1000000, clk, lat), 0);
    near(s[0].y, 318, 0);   /* the first of the chain: its whole duration */
    near(s[1].y, 64, 0);    /* 382 - 318 */
    near(s[2].y, 64, 0);    /* 446 - 382 */
    near(s[3].y, 400, 0);   /* fp32 after bf16: another pipeline */
    near(s[4].y, 318, 0);   /* overlaps nothing */
    near(s[5].y, 9000, 0);  /* DMA */
    near(lat[LS_ENGINE_PE], 254, 0);
    near(lat[LS_ENGINE_DMA], 0, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_compute), cmocka_unit_test(test_fit_dma),
        cmocka_unit_test(test_microbench),  cmocka_unit_test(test_group_fit),
        cmocka_unit_test(test_group_fit_tied),
        cmocka_unit_test(test_groups_pipe),
        cmocka_unit_test(test_table_max_roundtrip), cmocka_unit_test(test_verdicts),
        cmocka_unit_test(test_lomo_ranking), cmocka_unit_test(test_agg_floor),
        cmocka_unit_test(test_prefetch_share),
        cmocka_unit_test(test_group_programs), cmocka_unit_test(test_pipe_occupancy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
