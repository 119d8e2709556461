/* The features of an instruction, derived once (sim_features): the simulator's timing
 * inputs (read back from its records), the cost model's sample (cm_instr_sample, what
 * cm_price prices) and calibration's sample of the record (cm_record_sample) agree on
 * random valid instructions, and the prices the cost model and calibration give agree. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "costmodel/calibrate.h"
#include "costmodel/costmodel.h"
#include "sim/sim.h"
#include "util/prng.h"

#define NRANDOM 10000

struct gen {
    struct ls_rng rng;
    const struct sim_target *t;
};

static uint32_t pick(struct gen *g, uint32_t lo, uint32_t hi) /* in [lo, hi] */
{
    return lo + (uint32_t)ls_rng_below(&g->rng, (uint64_t)hi - lo + 1);
}

/* A random ordered split of f into 1..4 dims (outermost first). */
static int split(struct gen *g, uint32_t f, uint32_t *size)
{
    int n = 0, want = (int)pick(g, 1, SIM_AP_MAX_DIMS);
    while (n < want - 1 && f > 1) {
        uint32_t d = pick(g, 1, f);
        while (f % d)
            d--;
        size[n++] = d;
        f /= d;
    }
    size[n++] = f;
    for (int i = 0; i < n / 2; i++) { /* the last factor innermost or outermost alike */
        uint32_t x = size[i];
        size[i] = size[n - 1 - i];
        size[n - 1 - i] = x;
    }
    return n;
}

/* Free pattern of f elements: a random split, each dim dense or with a gap after it. */
static void pattern(struct gen *g, struct sim_operand *o, uint32_t f, int gaps)
{
    uint32_t size[SIM_AP_MAX_DIMS];
    int32_t stride[SIM_AP_MAX_DIMS];
    int n = split(g, f, size);
    int64_t span = 1;
    for (int i = n - 1; i >= 0; i--) {
        int64_t st = span;
        if (gaps && pick(g, 0, 2) == 0)
            st += pick(g, 1, 4);
        stride[i] = (int32_t)st;
        span = st * size[i];
    }
    sim_operand_dims(o, n, size, stride);
}

static const enum ls_dtype dts[] = {LS_DT_BF16, LS_DT_FP16, LS_DT_FP32, LS_DT_INT8, LS_DT_INT32};

static enum ls_dtype dtype(struct gen *g, int wide_only)
{
    return wide_only ? dts[pick(g, 0, 2)] : dts[pick(g, 0, 4)];
}

/* An on-chip operand of np partitions (a start compute engines accept) and f elements. */
static struct sim_operand onchip(struct gen *g, int mem, uint32_t np, uint32_t f,
                                 enum ls_dtype dt, int gaps)
{
    uint32_t p0 = 0;
    if (np <= 32)
        p0 = 32 * pick(g, 0, (128 - np) / 32);
    else if (np <= 64)
        p0 = 64 * pick(g, 0, 1);
    struct sim_operand o = mem == LS_MEM_SBUF ? sim_sbuf(p0, np, 0, dt, f) : sim_psum(p0, np, 0, dt, f);
    pattern(g, &o, f, mem == LS_MEM_SBUF && gaps);
    if (mem == LS_MEM_PSUM)
        o.addr = (uint64_t)g->t->psum_bank_bytes * pick(g, 0, g->t->psum_banks - 1);
    return o;
}

/* Largest free size of a PSUM operand of dtype dt (one bank). */
static uint32_t psum_free(const struct gen *g, enum ls_dtype dt)
{
    return g->t->psum_bank_bytes / (uint32_t)ls_dtype_size(dt);
}

static struct sim_instr dma(struct gen *g, enum sim_opcode op)
{
    struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, op);
    in.queue = (uint16_t)pick(g, 0, g->t->dma_queues - 1);
    uint32_t np = pick(g, 1, 128), f = pick(g, 1, 2048);
    enum ls_dtype ds = dtype(g, op == SIM_OP_DMA_TRANSPOSE);
    enum ls_dtype dd = op == SIM_OP_DMA_TRANSPOSE ? ds : dtype(g, 0);
    int kind = op == SIM_OP_DMA_TRANSPOSE ? (int)pick(g, 0, 1) * 2 : (int)pick(g, 0, 3);
    /* 0: HBM -> SBUF, 1: SBUF -> HBM, 2: SBUF -> SBUF, 3: HBM -> HBM */
    in.src = kind == 0 || kind == 3 ? sim_hbm(np, (int32_t)(f * 5), 4096 * pick(g, 0, 64), ds, f)
                                    : sim_sbuf(pick(g, 0, 128 - np), np, 0, ds, f);
    in.dst = kind == 1 || kind == 3 ? sim_hbm(np, (int32_t)(f * 5), 1u << 30, dd, f)
                                    : sim_sbuf(pick(g, 0, 128 - np), np, 0, dd, f);
    struct sim_operand *ops[2] = {&in.src, &in.dst};
    for (int k = 0; k < 2; k++) {
        uint32_t fk = f;
        if (ops[k]->mem == LS_MEM_HBM && kind != 3 && pick(g, 0, 3) == 0) {
            fk = np * f; /* the whole transfer as one HBM row */
            ops[k]->nparts = 1;
        }
        pattern(g, ops[k], fk, 1);
    }
    return in;
}

/* A load_stationary [k x m] then, when mm, a matmul of t moving columns. */
static size_t pe(struct gen *g, struct sim_instr *out, int mm)
{
    enum ls_dtype dt = dtype(g, 1);
    uint32_t k = pick(g, 1, g->t->pe_rows), m = pick(g, 1, g->t->pe_cols);
    out[0] = sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY);
    out[0].src = sim_sbuf(0, k, 0, dt, m);
    pattern(g, &out[0].src, m, 1);
    if (!mm)
        return 1;
    uint32_t tmax = psum_free(g, LS_DT_FP32);
    uint32_t T = pick(g, 1, tmax < g->t->pe_moving_max ? tmax : g->t->pe_moving_max);
    out[1] = sim_instr_init(LS_ENGINE_PE, SIM_OP_MATMUL);
    out[1].src = sim_sbuf(0, k, 0, dt, T);
    pattern(g, &out[1].src, T, 1);
    out[1].dst = onchip(g, LS_MEM_PSUM, m, T, LS_DT_FP32, 0);
    return 2;
}

static struct sim_instr pe_transpose(struct gen *g)
{
    enum ls_dtype dt = dtype(g, 1);
    uint32_t p = pick(g, 1, g->t->pe_rows), f = pick(g, 1, g->t->pe_cols);
    if (p > psum_free(g, dt))
        p = psum_free(g, dt);
    struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_PE_TRANSPOSE);
    in.src = onchip(g, LS_MEM_SBUF, p, f, dt, 1);
    in.dst = onchip(g, LS_MEM_PSUM, f, p, dt, 0);
    return in;
}

/* An ACT/DVE/POOL instruction of opcode op on a random engine that runs it. */
static struct sim_instr vec(struct gen *g, enum sim_opcode op)
{
    enum ls_engine e;
    do
        e = (enum ls_engine)pick(g, LS_ENGINE_ACT, LS_ENGINE_POOL);
    while (!sim_opcode_on_engine(op, e));
    struct sim_instr in = sim_instr_init(e, op);
    in.func = (uint8_t)pick(g, 0, SIM_FN_COUNT - 1);
    enum ls_dtype ds = dtype(g, 0), dd = dtype(g, 0);
    int psum_ok = e != LS_ENGINE_POOL;
    int sm = psum_ok && pick(g, 0, 3) == 0 ? LS_MEM_PSUM : LS_MEM_SBUF;
    int dm = psum_ok && sm == LS_MEM_SBUF && pick(g, 0, 3) == 0 ? LS_MEM_PSUM : LS_MEM_SBUF;
    uint32_t np = pick(g, 1, 128), f = pick(g, 1, 4096), fd = f;
    if (op == SIM_OP_DVE_TRANSPOSE) {
        np = pick(g, 1, 32);
        f = fd = pick(g, 1, 32);
    }
    if (sm == LS_MEM_PSUM && f > psum_free(g, ds))
        f = fd = psum_free(g, ds);
    if (dm == LS_MEM_PSUM && f > psum_free(g, dd))
        f = fd = psum_free(g, dd);
    if (op == SIM_OP_TENSOR_REDUCE || op == SIM_OP_ACTIVATION_REDUCE)
        fd = pick(g, 1, f);
    uint32_t nd = op == SIM_OP_PARTITION_REDUCE ? pick(g, 1, 128) : np;
    if (op != SIM_OP_MEMSET && op != SIM_OP_IOTA)
        in.src = onchip(g, sm, np, f, ds, 1);
    in.dst = onchip(g, dm, nd, fd, dd, 1);
    if (op == SIM_OP_TENSOR_TENSOR || op == SIM_OP_GATHER) {
        int m2 = psum_ok && sm == LS_MEM_SBUF && pick(g, 0, 2) == 0 ? LS_MEM_PSUM : LS_MEM_SBUF;
        enum ls_dtype d2 = dtype(g, 0);
        if (f > psum_free(g, d2))
            m2 = LS_MEM_SBUF;
        in.src2 = onchip(g, m2, np, f, d2, 1);
    }
    return in;
}

/* Up to two random valid instructions into out (a matmul comes after its load). */
static size_t random_instr(struct gen *g, struct sim_instr *out)
{
    enum sim_opcode op = (enum sim_opcode)pick(g, 0, SIM_OP_COUNT - 1);
    switch (op) {
    case SIM_OP_LOAD_STATIONARY: return pe(g, out, 0);
    case SIM_OP_MATMUL: return pe(g, out, 1);
    case SIM_OP_PE_TRANSPOSE: out[0] = pe_transpose(g); return 1;
    case SIM_OP_DMA_COPY:
    case SIM_OP_DMA_TRANSPOSE: out[0] = dma(g, op); return 1;
    default: out[0] = vec(g, op); return 1;
    }
}

struct sink_ctx {
    struct trace_record *rec;
    size_t n;
};

static int keep(void *ctx, const struct trace_record *r)
{
    struct sink_ctx *c = ctx;
    if (r->id < c->n)
        c->rec[r->id] = *r;
    return 0;
}

/* The simulator's record of in shows the timing inputs sim_features gives. */
static void check_record(const struct sim_instr *in, const struct trace_record *r)
{
    struct sim_features f;
    sim_features(in, &f);
    if (in->engine == LS_ENGINE_DMA) {
        assert_int_equal(r->partitions, f.partitions);
        assert_int_equal(r->descriptors, f.chunks_per_partition * f.partitions);
        assert_int_equal(r->bytes_per_partition, f.bytes_per_partition);
        return;
    }
    switch ((enum sim_opcode)in->opcode) {
    case SIM_OP_LOAD_STATIONARY: assert_int_equal(r->partitions, f.n); break;
    case SIM_OP_PE_TRANSPOSE: assert_int_equal(r->stationary, f.n); break;
    default: assert_int_equal(r->free_size, f.n); break;
    }
}

/* 1 when the table key of in cannot be read back from a record: records carry no second
 * source, so a tensor_tensor whose only PSUM source is src2 (cm_instr_sample). */
static int key_unrecorded(const struct sim_instr *in)
{
    return in->opcode == SIM_OP_TENSOR_TENSOR && in->src2.mem == LS_MEM_PSUM &&
           in->src.mem != LS_MEM_PSUM;
}

/* The cost model's sample and price of in and calibration's of its record agree. */
static void check_samples(const struct sim_target *t, const struct cm_table *tb,
                          const struct sim_instr *in, const struct trace_record *r,
                          uint64_t tick_hz, const uint32_t *mhz)
{
    struct cm_sample a, b;
    cm_instr_sample(t, in, &a);
    assert_int_equal(cm_record_sample(r, sim_opcode_name((enum sim_opcode)r->opcode), tick_hz,
                                      mhz, t->dma_engines, &b),
                     1);
    assert_int_equal(a.opcode, b.opcode);
    assert_int_equal(a.engine, b.engine);
    assert_int_equal(a.dtype, b.dtype);
    assert_true(a.n == b.n);
    assert_true(a.d == b.d);
    assert_true(a.chunk == b.chunk);
    if (key_unrecorded(in))
        return;
    assert_int_equal(a.mem, b.mem);
    struct cm_parts p;
    cm_price_parts(tb, t, in, 0, &p);
    int k = cm_table_find(tb, b.opcode, b.dtype, b.mem);
    assert_int_equal(p.entry, k);
    double to_base = in->engine == LS_ENGINE_DMA
                         ? t->base_mhz / 1000.0
                         : t->base_mhz / (double)sim_engine_mhz(t, (enum ls_engine)in->engine);
    double calib = cm_entry_eval(&tb->e[k], &b) * to_base, model = (double)p.fixed + p.var;
    assert_true(fabs(calib - model) <= 1e-5 * (calib > 1 ? calib : 1));
}

/* Simulate n instructions as one program (no dependencies) and check each of them. */
static void run_and_check(const struct sim_target *t, const struct sim_instr *ins, size_t n)
{
    struct sim_program *p = sim_program_new();
    assert_non_null(p);
    struct ls_error err = {0};
    for (size_t i = 0; i < n; i++)
        assert_true(sim_program_add(p, &ins[i], NULL, 0, &err) == (int64_t)i);
    struct sink_ctx c = {calloc(n, sizeof *c.rec), n};
    assert_non_null(c.rec);
    struct trace_sink sink = {&c, keep};
    struct sim_stats st;
    int rc = sim_run(t, p, &sink, &st, &err);
    if (rc)
        print_message("%s\n", err.msg);
    assert_int_equal(rc, 0);
    struct cm_table tb;
    cm_table_default(t, &tb);
    uint32_t mhz[LS_ENGINE_COUNT];
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        mhz[e] = sim_engine_mhz(t, (enum ls_engine)e);
    for (size_t i = 0; i < n; i++) {
        check_record(&ins[i], &c.rec[i]);
        check_samples(t, &tb, &ins[i], &c.rec[i], sim_target_tick_mhz(t) * 1000000ull, mhz);
    }
    free(c.rec);
    sim_program_free(p);
}

/* 12 elements per partition in runs of 4 (src) and 6 (dst): chunks end at 4, 6, 8 and 12. */
static void test_twelve(void **state)
{
    (void)state;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
    in.src = sim_hbm(128, 15, 0, LS_DT_BF16, 12);
    in.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, 12);
    sim_operand_dims(&in.src, 2, (uint32_t[]){3, 4}, (int32_t[]){5, 1});
    sim_operand_dims(&in.dst, 2, (uint32_t[]){2, 6}, (int32_t[]){8, 1});
    struct sim_features f;
    sim_features(&in, &f);
    assert_int_equal(f.chunks_per_partition, 4);
    struct cm_sample s;
    cm_instr_sample(&t, &in, &s);
    assert_true(s.d == 4.0 * (128 / t.dma_engines));
    assert_true(s.chunk == 24.0 / 4);
    run_and_check(&t, &in, 1);
}

static void test_random(void **state)
{
    (void)state;
    static const char *const targets[] = {"nc-v2", "nc-v3"};
    for (int k = 0; k < 2; k++) {
        struct sim_target t;
        assert_int_equal(sim_target_builtin(&t, targets[k]), 0);
        struct gen g = {.t = &t};
        ls_rng_seed(&g.rng, 44 + (uint64_t)k);
        struct sim_instr *ins = malloc(sizeof *ins * (NRANDOM / 2 + 1));
        assert_non_null(ins);
        size_t n = 0;
        while (n < NRANDOM / 2) {
            struct sim_instr two[2];
            size_t m = random_instr(&g, two);
            if (two[0].opcode == SIM_OP_DMA_TRANSPOSE && !t.dma_transpose)
                continue;
            for (size_t j = 0; j < m && n < NRANDOM / 2; j++)
                ins[n++] = two[j];
        }
        run_and_check(&t, ins, n);
        free(ins);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_twelve),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
