/* Tests of the conversion lowering (codegen/convert.c): golden instruction counts and DMA run
 * lengths of a PE-transpose conversion, and, for every method, shape and layout pair, a
 * program the simulator accepts that moves every element exactly once per side. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codegen/codegen.h"
#include "sim/sim.h"

/* A program sink that also counts opcodes and DMA traffic. */
struct rec {
    struct sim_program *p;
    int64_t n[SIM_OP_COUNT];
    int64_t evac;
    uint64_t load_elems, store_elems, hbm2hbm_elems, dmat_elems, sbuf2sbuf_elems;
    uint64_t min_run_bytes, max_run_bytes; /* per descriptor, over HBM transfers */
    uint64_t descriptors;
};

/* Descriptor size of a DMA, as the simulator counts it (sim_features). */
static uint64_t desc_bytes(const struct sim_instr *in, uint64_t *ndesc)
{
    struct sim_features f;
    sim_features(in, &f);
    *ndesc = f.chunks_per_partition * f.partitions;
    return f.bytes_per_partition / f.chunks_per_partition;
}

static int64_t r_emit(void *ctx, const struct sim_instr *in, const int64_t *d, size_t nd,
                      struct ls_error *err)
{
    struct rec *r = ctx;
    r->n[in->opcode]++;
    if (in->opcode == SIM_OP_ACTIVATION && in->src.mem == LS_MEM_PSUM)
        r->evac++;
    if (in->engine == LS_ENGINE_DMA) {
        uint64_t el = (uint64_t)in->src.nparts * sim_operand_free(&in->src), nd2 = 0;
        if (in->opcode == SIM_OP_DMA_TRANSPOSE)
            r->dmat_elems += el;
        else if (in->src.mem == LS_MEM_HBM && in->dst.mem == LS_MEM_HBM)
            r->hbm2hbm_elems += el;
        else if (in->src.mem == LS_MEM_HBM)
            r->load_elems += el;
        else if (in->dst.mem == LS_MEM_HBM)
            r->store_elems += el;
        else
            r->sbuf2sbuf_elems += el;
        if (in->src.mem == LS_MEM_HBM || in->dst.mem == LS_MEM_HBM) {
            uint64_t b = desc_bytes(in, &nd2);
            r->descriptors += nd2;
            if (!r->min_run_bytes || b < r->min_run_bytes)
                r->min_run_bytes = b;
            if (b > r->max_run_bytes)
                r->max_run_bytes = b;
        }
    }
    uint32_t dd[128];
    assert_true(nd <= 128);
    for (size_t i = 0; i < nd; i++)
        dd[i] = (uint32_t)d[i];
    return sim_program_add(r->p, in, dd, nd, err);
}

static uint64_t r_addr(void *ctx, int32_t t, int pax)
{
    (void)ctx;
    (void)t;
    return (uint64_t)(pax + 1) << 32;
}

/* Lower the conversion of a fresh tensor of the given shape; 0 on success. */
static int lower(const char *target, enum ls_dtype dt, int rank, const int64_t *dims, int from,
                 int to, enum cg_conv_method m, struct rec *r)
{
    struct sim_target t;
    struct ls_error err = {0};
    assert_int_equal(sim_target_builtin(&t, target), 0);
    struct graph *g = graph_new("conv");
    int32_t x = graph_input(g, "X", dt, rank, dims, NULL);
    assert_true(x >= 0);
    memset(r, 0, sizeof *r);
    r->p = sim_program_new();
    assert_non_null(r->p);
    struct cg_sink s = {.ctx = r, .emit = r_emit, .hbm_addr = r_addr, .op_tag = -1,
                        .conv_tag = -1};
    cg_sink_region(&s, &t, NULL, 0);
    int rc = -1;
    if (cg_conv_possible(g, &t, NULL, x, from, to, m)) {
        rc = cg_lower_conversion(g, &t, NULL, x, from, to, m, &s, &err);
        assert_int_equal(rc, 0);
        /* the simulator accepts it (operands, partition starts, PSUM banks) and runs it */
        int ck = sim_check(&t, r->p, &err);
        if (ck)
            fail_msg("sim_check: %s", err.msg);
        struct sim_stats st;
        assert_int_equal(sim_run(&t, r->p, NULL, &st, &err), 0);
    }
    graph_free(g);
    return rc;
}

static void done(struct rec *r)
{
    sim_program_free(r->p);
    r->p = NULL;
}

/* [2, 512, 512] fp32 from p:1 to p:2 with pe_transpose on nc-v2: the whole tensor is one
 * tile (4 a-blocks x 4 b-blocks x both indices of axis 0). One load per a-block: 128 rows of
 * [2 x 512] (contiguous, 4 KiB), 2 x 4 PE transposes each, 4 transposes per PSUM bank and so
 * one evacuation per (a-block, index of axis 0); one store per b-block: 128 rows of
 * [2 x 512] (contiguous, 4 KiB). */
static void test_golden_pe(void **st)
{
    (void)st;
    struct rec r;
    int64_t dims[3] = {2, 512, 512};
    assert_int_equal(lower("nc-v2", LS_DT_FP32, 3, dims, 1, 2, CG_CONV_PE, &r), 0);
    assert_int_equal(r.n[SIM_OP_DMA_COPY], 8);
    assert_int_equal(r.n[SIM_OP_PE_TRANSPOSE], 32);
    assert_int_equal(r.evac, 8);
    assert_int_equal(r.n[SIM_OP_ACTIVATION], 8);
    assert_int_equal(r.n[SIM_OP_DVE_TRANSPOSE] + r.n[SIM_OP_DMA_TRANSPOSE], 0);
    assert_int_equal(r.load_elems, 2 * 512 * 512);
    assert_int_equal(r.store_elems, 2 * 512 * 512);
    /* every descriptor is one whole partition row of 2 x 512 fp32 */
    assert_int_equal(r.min_run_bytes, 4096);
    assert_int_equal(r.max_run_bytes, 4096);
    assert_int_equal(r.descriptors, 8 * 128);
    done(&r);
}

/* Every method, several shapes and every layout pair: the elements of the tensor cross each
 * HBM side exactly once and the simulator accepts the program. */
static void test_all_methods(void **st)
{
    (void)st;
    static const struct {
        enum ls_dtype dt;
        int rank;
        int64_t dims[4];
    } shapes[] = {
        {LS_DT_FP32, 3, {2, 512, 512}}, {LS_DT_BF16, 3, {3, 200, 300}},
        {LS_DT_FP32, 2, {64, 96}},      {LS_DT_BF16, 4, {4, 33, 70, 5}},
        {LS_DT_BF16, 3, {2, 1500, 160}}, {LS_DT_FP32, 2, {32, 32}},
    };
    const char *targets[] = {"nc-v2", "nc-v3"};
    int lowered = 0;
    for (size_t ti = 0; ti < 2; ti++)
        for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
            for (int from = 0; from < shapes[k].rank; from++)
                for (int to = 0; to < shapes[k].rank; to++) {
                    if (from == to || shapes[k].dims[from] == 1 || shapes[k].dims[to] == 1)
                        continue;
                    uint64_t n = 1;
                    for (int i = 0; i < shapes[k].rank; i++)
                        n *= (uint64_t)shapes[k].dims[i];
                    for (int m = 0; m < CG_CONV_COUNT; m++) {
                        struct rec r;
                        if (lower(targets[ti], shapes[k].dt, shapes[k].rank, shapes[k].dims,
                                  from, to, (enum cg_conv_method)m, &r)) {
                            done(&r);
                            continue;
                        }
                        lowered++;
                        switch (m) {
                        case CG_CONV_PE:
                        case CG_CONV_DVE:
                            assert_int_equal(r.load_elems, n);
                            assert_int_equal(r.store_elems, n);
                            break;
                        case CG_CONV_DMA_T:
                            assert_int_equal(r.dmat_elems, n);
                            assert_int_equal(r.store_elems, n);
                            break;
                        default:
                            assert_int_equal(r.hbm2hbm_elems, n);
                            break;
                        }
                        if (m == CG_CONV_PE) {
                            /* each element is transposed once */
                            assert_true(r.n[SIM_OP_PE_TRANSPOSE] > 0);
                            assert_true(r.evac > 0 && r.evac <= r.n[SIM_OP_PE_TRANSPOSE]);
                        }
                        done(&r);
                    }
                }
    assert_true(lowered > 100);
}

/* The attention-probability shape of whisper-enc ([heads, 1500, 1500] bf16, q -> k on
 * partitions): HBM runs of at least 1 KiB on both sides (they were 256 B). */
static void test_long_runs(void **st)
{
    (void)st;
    struct rec r;
    int64_t dims[3] = {2, 1500, 1500};
    assert_int_equal(lower("nc-v2", LS_DT_BF16, 3, dims, 1, 2, CG_CONV_PE, &r), 0);
    assert_int_equal(r.load_elems, 2 * 1500 * 1500);
    assert_int_equal(r.store_elems, 2 * 1500 * 1500);
    assert_true(r.min_run_bytes >= 1024);
    done(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_pe),
        cmocka_unit_test(test_all_methods),
        cmocka_unit_test(test_long_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
