/* Timing tests for sim/: pinned to the published NeuronCore figures (hw-facts.md), to
 * hand-computed cycle counts of tiny programs, and to determinism. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/micro.h"
#include "sim/program.h"
#include "sim/sim.h"
#include "util/vec.h"

/* ---- helpers ---- */

struct recs {
    struct trace_record *r;
    size_t n, cap;
};

static int collect(void *ctx, const struct trace_record *r)
{
    struct recs *c = ctx;
    if (LS_ARRAY_RESERVE(c->r, c->cap, c->n + 1))
        return LS_ERR_NOMEM;
    c->r[c->n++] = *r;
    return 0;
}

/* Record of instruction id (records arrive in settle order, not id order). */
static const struct trace_record *rec(const struct recs *c, uint64_t id)
{
    for (size_t i = 0; i < c->n; i++)
        if (c->r[i].id == id)
            return &c->r[i];
    fail_msg("no record for instruction %llu", (unsigned long long)id);
    return NULL;
}

static void run(const struct sim_target *t, const struct sim_program *p, struct recs *c,
                struct sim_stats *st)
{
    struct ls_error err;
    struct trace_sink sink = {c, collect};
    memset(c, 0, sizeof *c);
    if (sim_run(t, p, &sink, st, &err))
        fail_msg("sim_run: %s", err.msg);
    assert_int_equal(c->n, sim_program_count(p));
}


static uint32_t add(struct sim_program *p, struct sim_instr in, const uint32_t *deps, size_t nd)
{
    struct ls_error err;
    int64_t i = sim_program_add(p, &in, deps, nd, &err);
    if (i < 0)
        fail_msg("add: %s", err.msg);
    return (uint32_t)i;
}

static struct sim_instr ls_instr(enum ls_dtype dt)
{
    struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY);
    in.src = sim_sbuf(0, 128, 0, dt, 128);
    return in;
}

static struct sim_instr mm_instr(enum ls_dtype dt, uint32_t T, uint32_t bank)
{
    struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_MATMUL);
    in.src = sim_sbuf(0, 128, 4096, dt, T);
    in.dst = sim_psum(0, 128, bank * 2048, LS_DT_FP32, T);
    return in;
}

static struct sim_target target(const char *name)
{
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, name), 0);
    return t;
}

/* PE cycles between the starts of two records (nc-v2: 2 ticks per PE cycle). */
static uint64_t pe_cycles(const struct sim_target *t, uint64_t ticks)
{
    return ticks / (sim_target_tick_mhz(t) / t->pe_mhz);
}

/* ---- PE ---- */

/* Back-to-back MMs on one stationary: initiation interval in PE cycles. */
static uint64_t mm_ii(const struct sim_target *t, enum ls_dtype dt, uint32_t T)
{
    struct sim_program *p = sim_program_new();
    add(p, ls_instr(dt), NULL, 0);
    for (uint32_t k = 0; k < 4; k++)
        add(p, mm_instr(dt, T, k), NULL, 0);
    struct recs c;
    struct sim_stats st;
    run(t, p, &c, &st);
    uint64_t ii = pe_cycles(t, rec(&c, 2)->start - rec(&c, 1)->start);
    assert_int_equal(pe_cycles(t, rec(&c, 4)->start - rec(&c, 3)->start), ii);
    free(c.r);
    sim_program_free(p);
    return ii;
}

static void test_mm_initiation_interval(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    /* A1: "roughly max(N, MM_INIT_LATENCY)", 64 TensorE cycles on NC-v2; fp32 4x. */
    assert_int_equal(mm_ii(&t, LS_DT_BF16, 512), 512);
    assert_int_equal(mm_ii(&t, LS_DT_BF16, 32), 64);
    assert_int_equal(mm_ii(&t, LS_DT_BF16, 128), 128);
    assert_int_equal(mm_ii(&t, LS_DT_FP32, 512), 4 * 512);
    assert_int_equal(mm_ii(&t, LS_DT_FP32, 32), 4 * 64);
    struct sim_target v3 = target("nc-v3");
    assert_int_equal(mm_ii(&v3, LS_DT_BF16, 512), 512);
    assert_int_equal(mm_ii(&v3, LS_DT_BF16, 16), 64);
}

static void test_background_ls_hidden(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    for (uint32_t T = 32; T <= 512; T *= 4) {
        /* LS, MM, LS, MM, ...: every LS after the first runs behind the previous MM. */
        struct sim_program *p = sim_program_new();
        const int n = 8;
        for (int k = 0; k < n; k++) {
            add(p, ls_instr(LS_DT_BF16), NULL, 0);
            add(p, mm_instr(LS_DT_BF16, T, (uint32_t)k % 8), NULL, 0);
        }
        struct recs c;
        struct sim_stats st;
        run(&t, p, &c, &st);
        uint64_t ii = T < 64 ? 64 : T;
        for (int k = 1; k < n; k++)
            assert_int_equal(pe_cycles(&t, rec(&c, 2 * k + 1)->start - rec(&c, 2 * k - 1)->start), ii);
        /* Span = first LS (32) + n MMs issued II apart + the last one's fill/drain. */
        uint64_t span = pe_cycles(&t, st.engine[LS_ENGINE_PE].last_end -
                                          st.engine[LS_ENGINE_PE].first_start);
        assert_int_equal(span, 32 + (n - 1) * ii + ii + 128 + 128 - 2);
        free(c.r);
        sim_program_free(p);
    }
}

static void test_textbook_fold(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    t.pe_background_load = 0;
    const uint64_t R = t.pe_rows, C = t.pe_cols;
    for (uint32_t T = 16; T <= 512; T *= 2) {
        struct sim_program *p = sim_program_new();
        /* two folds back to back: no overlap, each 2R + C + T - 2 */
        for (int k = 0; k < 2; k++) {
            add(p, ls_instr(LS_DT_BF16), NULL, 0);
            add(p, mm_instr(LS_DT_BF16, T, 0), NULL, 0);
        }
        struct recs c;
        struct sim_stats st;
        run(&t, p, &c, &st);
        assert_int_equal(pe_cycles(&t, rec(&c, 1)->end - rec(&c, 0)->start), 2 * R + C + T - 2);
        assert_int_equal(pe_cycles(&t, rec(&c, 3)->end - rec(&c, 2)->start), 2 * R + C + T - 2);
        assert_int_equal(rec(&c, 2)->start, rec(&c, 1)->end);
        assert_int_equal(pe_cycles(&t, st.ticks), 2 * (2 * R + C + T - 2));
        free(c.r);
        sim_program_free(p);
    }
    /* textbook mode models bf16 only */
    struct sim_program *p = sim_program_new();
    add(p, ls_instr(LS_DT_FP32), NULL, 0);
    struct ls_error err;
    struct sim_stats st;
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bf16"));
    sim_program_free(p);
}

/* ---- ACT / DVE / POOL ---- */

static uint64_t dve_add_ticks(const struct sim_target *t, uint32_t parts, uint32_t free)
{
    struct sim_program *p = sim_program_new();
    struct sim_instr in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR);
    in.func = SIM_FN_ADD;
    in.src = sim_sbuf(0, parts, 0, LS_DT_BF16, free);
    in.src2 = sim_sbuf(0, parts, 2 * free, LS_DT_BF16, free);
    in.dst = sim_sbuf(0, parts, 4 * free, LS_DT_BF16, free);
    add(p, in, NULL, 0);
    struct sim_stats st;
    struct ls_error err;
    assert_int_equal(sim_run(t, p, NULL, &st, &err), 0);
    sim_program_free(p);
    return st.ticks;
}

static void test_partition_count_free(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    /* A1: on < 128 lanes the cost "is the same as" on 128. */
    assert_int_equal(dve_add_ticks(&t, 4, 2048), dve_add_ticks(&t, 128, 2048));
    assert_int_equal(dve_add_ticks(&t, 1, 512), dve_add_ticks(&t, 128, 512));
    /* bf16 add, both SBUF, contiguous: N cycles; 2048 DVE cycles = 10240 ticks. */
    assert_int_equal(dve_add_ticks(&t, 128, 2048), 2048 * 5);
    /* MIN_II: tiny instructions cost 64 cycles. */
    assert_int_equal(dve_add_ticks(&t, 128, 8), 64 * 5);
}

static void test_vec_costs(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    struct sim_instr in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR);
    in.func = SIM_FN_ADD;
    in.src = sim_sbuf(0, 128, 0, LS_DT_FP32, 1024);
    in.src2 = sim_sbuf(0, 128, 8192, LS_DT_FP32, 1024);
    in.dst = sim_sbuf(0, 128, 16384, LS_DT_FP32, 1024);
    assert_int_equal(sim_vec_cycles(&t, &in), 2048); /* fp32 two-input: 2N */
    in.src2 = sim_psum(0, 128, 0, LS_DT_FP32, 1024);
    assert_int_equal(sim_vec_cycles(&t, &in), 1024); /* one PSUM + one SBUF input: N */
    struct sim_instr r = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE);
    r.func = SIM_FN_ADD;
    r.src = sim_sbuf(0, 128, 0, LS_DT_BF16, 1024);
    r.dst = sim_sbuf(0, 128, 4096, LS_DT_BF16, 1);
    assert_int_equal(sim_vec_cycles(&t, &r), 512); /* bf16 add reduce: N/2 */
    struct sim_instr s = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_SCALAR);
    s.func = SIM_FN_RECIPROCAL;
    s.src = sim_sbuf(0, 128, 0, LS_DT_FP32, 256);
    s.dst = sim_sbuf(0, 128, 4096, LS_DT_FP32, 256);
    assert_int_equal(sim_vec_cycles(&t, &s), 8 * 256); /* DVE reciprocal: 8N */
    s.func = SIM_FN_MUL;
    assert_int_equal(sim_vec_cycles(&t, &s), 256);
    /* innermost stride over 16 bytes: half bandwidth */
    uint32_t sz[1] = {256};
    int32_t st8[1] = {8};
    sim_operand_dims(&s.src, 1, sz, st8);
    assert_int_equal(sim_vec_cycles(&t, &s), 512);
    /* nc-v3 perf mode: 4x for SBUF + bf16 + contiguous tensor_scalar */
    struct sim_target v3 = target("nc-v3");
    struct sim_instr c = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_COPY);
    c.src = sim_sbuf(0, 128, 0, LS_DT_BF16, 2048);
    c.dst = sim_sbuf(0, 128, 8192, LS_DT_BF16, 2048);
    assert_int_equal(sim_vec_cycles(&v3, &c), 512);
    assert_int_equal(sim_vec_cycles(&t, &c), 2048);
    struct sim_instr a = sim_instr_init(LS_ENGINE_ACT, SIM_OP_ACTIVATION_REDUCE);
    a.src = sim_sbuf(0, 128, 0, LS_DT_BF16, 512);
    a.dst = sim_sbuf(0, 128, 8192, LS_DT_BF16, 1);
    assert_int_equal(sim_vec_cycles(&t, &a), 512 + 64);
    struct sim_instr io = sim_instr_init(LS_ENGINE_POOL, SIM_OP_IOTA);
    io.dst = sim_sbuf(0, 128, 0, LS_DT_INT32, 100);
    assert_int_equal(sim_vec_cycles(&t, &io), 150 + 100);
}

static void test_act_dependent_chain(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    struct sim_program *p = sim_program_new();
    uint32_t prev = 0;
    const int n = 20;
    for (int k = 0; k < n; k++) {
        struct sim_instr in = sim_instr_init(LS_ENGINE_ACT, SIM_OP_ACTIVATION);
        in.func = SIM_FN_EXP;
        in.src = sim_sbuf(0, 128, 0, LS_DT_FP32, 1);
        in.dst = sim_sbuf(0, 128, 64, LS_DT_FP32, 1);
        prev = add(p, in, &prev, k ? 1 : 0);
    }
    struct recs c;
    struct sim_stats st;
    run(&t, p, &c, &st);
    uint64_t tpc = sim_target_tick_mhz(&t) / t.act_mhz;
    for (int k = 1; k < n; k++) {
        double ii = (double)(rec(&c, k)->start - rec(&c, k - 1)->start) / (double)tpc;
        /* PG: "189 ns (264 ScalarE cycles on NC-v2)" between dependent 1-element instructions */
        if (fabs(ii - 264.0) > 0.15 * 264.0)
            fail_msg("dependent ACT II %.1f cycles, expected 264 +- 15%%", ii);
        assert_int_equal(rec(&c, k)->stall_cause, LS_STALL_DEPENDENCY);
    }
    /* without the dependency the same instructions issue every MIN_II = 64 cycles */
    struct sim_program *q = sim_program_new();
    struct sim_instr buf;
    for (int k = 0; k < n; k++)
        add(q, *sim_program_get(p, (size_t)k, &buf), NULL, 0);
    free(c.r);
    run(&t, q, &c, &st);
    assert_int_equal(rec(&c, 5)->start - rec(&c, 4)->start, 64 * tpc);
    free(c.r);
    sim_program_free(p);
    sim_program_free(q);
}

static void test_access_conflicts(void **state)
{
    (void)state;
    /* DVE and POOL both on SBUF: serialized on nc-v2, parallel on nc-v3. */
    struct sim_program *p = sim_program_new();
    struct sim_instr d = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_COPY);
    d.src = sim_sbuf(0, 128, 0, LS_DT_FP32, 1024);
    d.dst = sim_sbuf(0, 128, 8192, LS_DT_FP32, 1024);
    add(p, d, NULL, 0);
    struct sim_instr io = sim_instr_init(LS_ENGINE_POOL, SIM_OP_IOTA);
    io.dst = sim_sbuf(0, 128, 16384, LS_DT_INT32, 64);
    add(p, io, NULL, 0);
    /* ACT reading PSUM while DVE reads PSUM */
    struct sim_instr a = sim_instr_init(LS_ENGINE_ACT, SIM_OP_ACTIVATION);
    a.src = sim_psum(0, 128, 0, LS_DT_FP32, 256);
    a.dst = sim_sbuf(0, 128, 32768, LS_DT_FP32, 256);
    struct sim_instr dv = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_COPY);
    dv.src = sim_psum(0, 128, 0, LS_DT_FP32, 256);
    dv.dst = sim_sbuf(0, 128, 40960, LS_DT_FP32, 256);
    struct sim_program *q = sim_program_new();
    add(q, a, NULL, 0);
    add(q, dv, NULL, 0);
    struct recs c;
    struct sim_stats st;
    struct sim_target v2 = target("nc-v2"), v3 = target("nc-v3");
    run(&v2, p, &c, &st);
    assert_int_equal(rec(&c, 1)->start, rec(&c, 0)->end);
    assert_int_equal(rec(&c, 1)->stall_cause, LS_STALL_ACCESS_CONFLICT);
    assert_true(st.stall_ticks[LS_STALL_ACCESS_CONFLICT] > 0);
    free(c.r);
    run(&v3, p, &c, &st);
    assert_int_equal(rec(&c, 1)->start, 0);
    free(c.r);
    run(&v2, q, &c, &st);
    assert_int_equal(rec(&c, 1)->start, rec(&c, 0)->end);
    free(c.r);
    /* nc-v3: same PSUM bank collides (stall "psum"), different banks do not */
    run(&v3, q, &c, &st);
    assert_int_equal(rec(&c, 1)->start, rec(&c, 0)->end);
    assert_int_equal(rec(&c, 1)->stall_cause, LS_STALL_PSUM);
    free(c.r);
    sim_program_free(q);
    q = sim_program_new();
    add(q, a, NULL, 0);
    dv.src.addr = 4096;
    add(q, dv, NULL, 0);
    run(&v3, q, &c, &st);
    assert_int_equal(rec(&c, 1)->start, 0);
    free(c.r);
    sim_program_free(p);
    sim_program_free(q);
}

/* ---- DMA ---- */

static double dma_eff(const struct sim_target *t, const char *spec)
{
    struct sim_program *p;
    struct ls_error err;
    if (sim_micro_build(spec, t, &p, &err))
        fail_msg("%s: %s", spec, err.msg);
    struct sim_stats st;
    assert_int_equal(sim_run(t, p, NULL, &st, &err), 0);
    sim_program_free(p);
    /* steady state: bytes over the whole run, against 16 engines at full speed */
    double ns = sim_ticks_ns(&st, st.ticks);
    return (double)st.dma_bytes / (ns * t->dma_engines * t->dma_bytes_per_ns);
}

static void test_dma_efficiency_curve(void **state)
{
    (void)state;
    const char *names[2] = {"nc-v2", "nc-v3"};
    for (int k = 0; k < 2; k++) {
        struct sim_target t = target(names[k]);
        /* D1's measured curve (P = 128): 10.5% at 256 B, 81.5% at 2 KiB, 96.5% at 4 KiB. */
        double e256 = dma_eff(&t, "dma:bytes_per_partition=256,partitions=128,count=256,queues=4");
        double e2k = dma_eff(&t, "dma:bytes_per_partition=2048,partitions=128,count=256,queues=4");
        double e4k = dma_eff(&t, "dma:bytes_per_partition=4096,partitions=128,count=256,queues=4");
        double e32k = dma_eff(&t, "dma:bytes_per_partition=32768,partitions=128,count=64,queues=4");
        if (fabs(e256 - 0.105) > 0.015 || fabs(e2k - 0.81) > 0.03 || e4k < 0.95 || e32k < 0.97)
            fail_msg("%s: efficiency 256B %.3f 2KiB %.3f 4KiB %.3f 32KiB %.3f", names[k], e256, e2k,
                     e4k, e32k);
        /* Twice the DMA bandwidth keeps the descriptor minimum in bytes: the same curve. */
        struct ls_error err;
        assert_int_equal(sim_target_set(&t, "dma.bytes_per_ns", k ? "46" : "34", &err), 0);
        double f256 = dma_eff(&t, "dma:bytes_per_partition=256,partitions=128,count=256,queues=4");
        if (fabs(f256 - e256) > 0.01)
            fail_msg("%s at twice the bandwidth: 256 B efficiency %.3f, was %.3f", names[k],
                     f256, e256);
    }
}

static void test_dma_hand_computed(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    struct sim_program *p = sim_program_new();
    struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
    in.src = sim_hbm(128, 1024, 0, LS_DT_BF16, 1024);
    in.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, 1024);
    add(p, in, NULL, 0);
    /* 8 partitions per engine; 2 KiB contiguous per partition both sides = 1 descriptor */
    struct recs c;
    struct sim_stats st;
    run(&t, p, &c, &st);
    /* 700 ns latency + 8 x max(2048/17, 146) ns: ceil(3920) + ceil(6540.8) ticks */
    assert_int_equal(rec(&c, 0)->end, 3920 + 6541);
    assert_int_equal(rec(&c, 0)->descriptors, 128);
    assert_int_equal(rec(&c, 0)->chunk_bytes, 2048);
    /* 2048 B chunks fall in the 2-8 KiB bucket of the descriptor histogram */
    assert_int_equal(st.desc_hist[2].descriptors, 128);
    assert_int_equal(st.desc_hist[2].bytes, 128 * 2048);
    assert_int_equal(st.desc_hist[1].descriptors + st.desc_hist[0].descriptors, 0);
    free(c.r);
    /* strided HBM side: 4 chunks of 512 B per partition */
    uint32_t sz[2] = {4, 256};
    int32_t stv[2] = {1024, 1};
    sim_operand_dims(&in.src, 2, sz, stv);
    in.src.pstride = 4096;
    struct sim_program *q = sim_program_new();
    add(q, in, NULL, 0);
    run(&t, q, &c, &st);
    assert_int_equal(rec(&c, 0)->descriptors, 4 * 128);
    assert_int_equal(rec(&c, 0)->chunk_bytes, 512);
    /* 32 descriptors per engine x 146 ns */
    assert_int_equal(rec(&c, 0)->end, 3920 + (uint64_t)ceil(32 * 146 * 5.6 - 1e-9));
    assert_int_equal(st.queue[0].descriptors, 512);
    assert_int_equal(st.desc_hist[1].descriptors, 512); /* 512 B: the 512 B-2 KiB bucket */
    assert_int_equal(st.desc_hist[1].bytes, st.dma_bytes);
    assert_int_equal(sim_desc_bucket(511), 0);
    assert_int_equal(sim_desc_bucket(2047), 1);
    assert_int_equal(sim_desc_bucket(8191), 2);
    assert_int_equal(sim_desc_bucket(8192), 3);
    assert_string_equal(sim_desc_bucket_name(3), "ge8k");
    free(c.r);
    /* 8 partitions only: 8 engines with one partition each */
    struct sim_program *r = sim_program_new();
    in.src = sim_hbm(8, 1024, 0, LS_DT_BF16, 1024);
    in.dst = sim_sbuf(0, 8, 0, LS_DT_BF16, 1024);
    add(r, in, NULL, 0);
    run(&t, r, &c, &st);
    assert_int_equal(rec(&c, 0)->end, 3920 + (uint64_t)ceil(146 * 5.6 - 1e-9));
    free(c.r);
    sim_program_free(p);
    sim_program_free(q);
    sim_program_free(r);
}

static void test_dma_transpose(void **state)
{
    (void)state;
    struct sim_target v2 = target("nc-v2"), v3 = target("nc-v3");
    struct sim_program *p;
    struct ls_error err;
    struct sim_stats st;
    assert_int_equal(sim_micro_build("dma:bytes_per_partition=4096,count=8,transpose=1", &v3, &p, &err), 0);
    assert_int_equal(sim_run(&v2, p, NULL, &st, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "dma.transpose"));
    assert_int_equal(sim_run(&v3, p, NULL, &st, &err), 0);
    uint64_t tr = st.ticks;
    sim_program_free(p);
    assert_int_equal(sim_micro_build("dma:bytes_per_partition=4096,count=8", &v3, &p, &err), 0);
    assert_int_equal(sim_run(&v3, p, NULL, &st, &err), 0);
    assert_true(tr > st.ticks); /* 90% of copy throughput from HBM */
    sim_program_free(p);
}

/* ---- whole programs ---- */

static void test_tiny_programs(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    static const struct {
        const char *file;
        uint64_t ticks;
    } cases[] = {
        {"tiny_dve.lsprog", 2048 * 5},       /* 2048 DVE cycles */
        {"tiny_pe.lsprog", (32 + 766) * 2},  /* LS 32 + MM II 512 + 128 + 128 - 2 */
        {"tiny_dma.lsprog", 3920 + 6541},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/tests/data/prog/%s", LAYSIM_SOURCE_DIR, cases[i].file);
        struct sim_program *p;
        struct ls_error err;
        if (sim_program_load(&p, path, &err))
            fail_msg("%s: %s", path, err.msg);
        struct sim_stats st;
        assert_int_equal(sim_run(&t, p, NULL, &st, &err), 0);
        assert_int_equal(st.ticks, cases[i].ticks);
        sim_program_free(p);
    }
}

static void test_psum_overflow_names_instruction(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    struct sim_program *p = sim_program_new();
    add(p, ls_instr(LS_DT_BF16), NULL, 0);
    struct sim_instr mm = mm_instr(LS_DT_BF16, 512, 0);
    mm.dst.addr = 1024; /* 512 fp32 from byte 1024 cross into the next bank */
    add(p, mm, NULL, 0);
    struct ls_error err;
    assert_int_equal(sim_program_label(p, 1, "mm_out", &err), 0);
    struct sim_stats st;
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "instruction 1 'mm_out'"));
    assert_non_null(strstr(err.msg, "PSUM overflow"));
    sim_program_free(p);
}

/* A check remembered by sim_program_check covers that target and those instructions only:
 * an instruction added later, or another target, is checked again by sim_run. */
static void test_remembered_check(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2"), small = target("nc-v2");
    small.psum_banks = 1;
    struct sim_program *p = sim_program_new();
    struct ls_error err;
    struct sim_stats st;
    add(p, ls_instr(LS_DT_BF16), NULL, 0);
    add(p, mm_instr(LS_DT_BF16, 128, 1), NULL, 0);
    assert_int_equal(sim_program_check(&t, p, &err), 0);
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), 0);
    assert_int_equal(sim_run(&small, p, NULL, &st, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "PSUM overflow"));
    struct sim_instr bad = mm_instr(LS_DT_BF16, 512, 0);
    bad.dst.addr = 1024;
    add(p, bad, NULL, 0);
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "instruction 2"));
    assert_int_equal(sim_program_check(&t, p, &err), LS_ERR_INPUT);
    sim_program_free(p);
}

static void test_deterministic(void **state)
{
    (void)state;
    const char *names[2] = {"nc-v2", "nc-v3"};
    for (int k = 0; k < 2; k++) {
        struct sim_target t = target(names[k]);
        struct sim_program *p;
        struct ls_error err;
        assert_int_equal(sim_micro_build("mix:instructions=20000", &t, &p, &err), 0);
        struct recs a, b;
        struct sim_stats sa, sb;
        run(&t, p, &a, &sa);
        run(&t, p, &b, &sb);
        assert_int_equal(a.n, b.n);
        assert_memory_equal(a.r, b.r, a.n * sizeof *a.r);
        assert_memory_equal(&sa, &sb, sizeof sa);
        /* every engine and several stall causes show up in this program */
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            assert_true(sa.engine[e].instructions > 0);
        assert_true(sa.stall_ticks[LS_STALL_DEPENDENCY] > 0);
        /* ends are exclusive and after starts; totals are the last end */
        uint64_t mx = 0;
        for (size_t i = 0; i < a.n; i++) {
            assert_true(a.r[i].end > a.r[i].start);
            if (a.r[i].end > mx)
                mx = a.r[i].end;
        }
        assert_int_equal(mx, sa.ticks);
        free(a.r);
        free(b.r);
        sim_program_free(p);
    }
}

static void test_gemm_micro(void **state)
{
    (void)state;
    struct sim_target t = target("nc-v2");
    struct sim_program *p;
    struct ls_error err;
    assert_int_equal(sim_micro_build("gemm:M=512,K=256,N=1024,dtype=bf16", &t, &p, &err), 0);
    struct sim_stats st;
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), 0);
    /* 4 m-tiles x 2 n-chunks x 2 k-tiles matmuls, each with its own load_stationary */
    assert_int_equal(st.engine[LS_ENGINE_PE].instructions, 2 * 4 * 2 * 2);
    /* PE busy at least the 16 MMs x 512 cycles */
    assert_true(sim_ticks_cycles(&t, LS_ENGINE_PE, st.engine[LS_ENGINE_PE].busy_ticks) >= 16 * 512);
    sim_program_free(p);
    assert_int_equal(sim_micro_build("gemm:M=512,K=256,N=1024,swap=1", &t, &p, &err), 0);
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), 0);
    /* swapped: 8 m-tiles of the old N x 1 chunk of 512 x 2 k-tiles */
    assert_int_equal(st.engine[LS_ENGINE_PE].instructions, 2 * 8 * 1 * 2);
    sim_program_free(p);
    assert_int_equal(sim_micro_build("gemm:M=512,K=256,N=1024,bogus=1", &t, &p, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "bogus"));
    assert_int_equal(sim_micro_build("warp:x=1", &t, &p, &err), LS_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mm_initiation_interval),
        cmocka_unit_test(test_background_ls_hidden),
        cmocka_unit_test(test_textbook_fold),
        cmocka_unit_test(test_partition_count_free),
        cmocka_unit_test(test_vec_costs),
        cmocka_unit_test(test_act_dependent_chain),
        cmocka_unit_test(test_access_conflicts),
        cmocka_unit_test(test_dma_efficiency_curve),
        cmocka_unit_test(test_dma_hand_computed),
        cmocka_unit_test(test_dma_transpose),
        cmocka_unit_test(test_tiny_programs),
        cmocka_unit_test(test_psum_overflow_names_instruction),
        cmocka_unit_test(test_remembered_check),
        cmocka_unit_test(test_deterministic),
        cmocka_unit_test(test_gemm_micro),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
