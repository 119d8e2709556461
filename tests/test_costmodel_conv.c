/* Tests of the conv2d lowering (codegen/conv.c): golden instruction counts of the implicit
 * GEMM with output channels on partitions (padded 3x3, strided 1x1 with spread channels,
 * folded patch embedding and stem), every configuration the enumerator offers lowers, the
 * first matmul of each PSUM accumulation covers the whole chunk, and compiled convolutions
 * simulate (every instruction checked) no faster than the roofline; a conv -> relu -> conv
 * chain reads and writes its SBUF-resident middle tensors in place. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "codegen/epi.h"
#include "codegen/memplan.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "costmodel/roofline.h"
#include "sim/sim.h"
#include "util/prng.h"
#include "cg_fixture.h"

struct cnt {
    int64_t n[SIM_OP_COUNT];
    int64_t evac, count, dma_load, dma_store, mm_first;
    uint64_t dma_bytes_w;        /* bytes the weight loads move */
    int32_t wtensor_hint;
};

static int64_t c_emit(void *ctx, const struct sim_instr *in, const int64_t *d, size_t nd,
                      struct ls_error *err)
{
    (void)d;
    (void)nd;
    (void)err;
    struct cnt *c = ctx;
    c->n[in->opcode]++;
    if (in->opcode == SIM_OP_ACTIVATION && in->src.mem == LS_MEM_PSUM)
        c->evac++;
    if (in->opcode == SIM_OP_DMA_COPY) {
        if (in->dst.mem == LS_MEM_HBM)
            c->dma_store++;
        else
            c->dma_load++;
    }
    if (in->opcode == SIM_OP_MATMUL && !(in->flags & SIM_F_ACCUMULATE))
        c->mm_first++;
    return c->count++;
}

/* One conv op: x [1, C, H, W] bf16, w [O, C/groups, K, K] bf16. */
static struct graph *conv_graph(int64_t C, int64_t H, int64_t O, int64_t K, int64_t stride,
                                int64_t pad, int64_t groups)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("conv");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(1, C, H, H), NULL);
    int32_t w = graph_weight(g, "w", LS_DT_BF16, GRAPH_DIMS(O, C / groups, K, K), NULL);
    graph_output(g, graph_conv2d(g, "y", x, w, stride, pad, groups));
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

static int lower(const struct graph *g, const int8_t *pax, struct cnt *c)
{
    struct sim_target t;
    struct ls_error err = {0};
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    memset(c, 0, sizeof *c);
    struct cg_sink s = {.ctx = c, .emit = c_emit, .op_tag = -1, .conv_tag = -1,
                        .sbuf_bytes = cg_step_sbuf_bytes(&t, NULL),
                        .psum_nbanks = cg_step_psum_banks(&t)};
    return cg_lower_op(g, &t, NULL, graph_find_op(g, "y"), pax, &s, &err);
}

static const int8_t STD[3] = {1, 1, 1};   /* channels on partitions: cfg 0 */

/* 64 -> 128 channels, 3x3, stride 1, pad 1, 14x14: one channel tile (64 rows), 9 taps,
 * one m-tile, one chunk of 196 outputs: 9 load_stationary, 9 matmuls (the centre tap first,
 * covering the chunk; the border taps cover a clipped rectangle), 1 evacuation; DMAs: the
 * weights (one run), the whole image (one row of 14x14 per partition), one store. */
static void test_golden_3x3(void **st)
{
    (void)st;
    struct graph *g = conv_graph(64, 14, 128, 3, 1, 1, 1);
    struct cnt c;
    assert_int_equal(lower(g, STD, &c), 0);
    assert_int_equal(c.n[SIM_OP_LOAD_STATIONARY], 9);
    assert_int_equal(c.n[SIM_OP_MATMUL], 9);
    assert_int_equal(c.mm_first, 1);
    assert_int_equal(c.evac, 1);
    assert_int_equal(c.dma_load, 2);
    assert_int_equal(c.dma_store, 1);
    assert_int_equal(c.n[SIM_OP_MEMSET], 0);
    graph_free(g);
}

/* 256 -> 512, 1x1, stride 2, 14x14 -> 7x7: two channel tiles of 128 spread channels (one DMA
 * of image rows and one of weight rows for both), four m-tiles of 49 outputs each:
 * LS = MM = 4 * 2, 4 evacuations, and the four m-tiles stored by one DMA (output channels
 * spread over the m-tiles: adjacent in HBM per partition). */
static void test_golden_1x1_strided(void **st)
{
    (void)st;
    struct graph *g = conv_graph(256, 14, 512, 1, 2, 0, 1);
    struct cnt c;
    assert_int_equal(lower(g, STD, &c), 0);
    assert_int_equal(c.n[SIM_OP_LOAD_STATIONARY], 8);
    assert_int_equal(c.n[SIM_OP_MATMUL], 8);
    assert_int_equal(c.mm_first, 4);
    assert_int_equal(c.evac, 4);
    assert_int_equal(c.dma_load, 2);
    assert_int_equal(c.dma_store, 1);
    graph_free(g);
}

/* Patch embedding: 3 -> 96 channels, 16x16 stride 16 on 64x64. Taps folded into the
 * contraction: (channel, kernel row) on 48 partitions, one k-step per kernel column:
 * 16 LS, 16 MM over the 16 patches, 1 evacuation; loads: the weights (one row of 16 x 96
 * per partition) and the image, one DMA per channel (16 kernel rows each). */
static void test_golden_patch(void **st)
{
    (void)st;
    struct graph *g = conv_graph(3, 64, 96, 16, 16, 0, 1);
    struct cnt c;
    assert_int_equal(lower(g, STD, &c), 0);
    assert_int_equal(c.n[SIM_OP_LOAD_STATIONARY], 16);
    assert_int_equal(c.n[SIM_OP_MATMUL], 16);
    assert_int_equal(c.mm_first, 1);
    assert_int_equal(c.evac, 1);
    assert_int_equal(c.dma_load, 1 + 3);
    assert_int_equal(c.dma_store, 1);
    assert_int_equal(c.n[SIM_OP_MEMSET], 0);
    graph_free(g);
}

/* RGB stem 3 -> 64, 7x7 stride 2 pad 3 on 32x32 -> 16x16: (kernel row, channel) on 21
 * partitions, twice (the second copy shifted by one column): 42 rows per k-step. Kernel
 * columns with the same padding columns pair up: {0}, {1,2}, {3,4}, {5,6}: 4 k-steps, one
 * chunk of 256 outputs: 4 LS, 4 MM (the first a column pair that covers the chunk), the
 * padding rows zeroed by a memset at the top and one at the bottom; loads: the weights (one
 * DMA per copy) and one image DMA per kernel row and copy. */
static void test_golden_stem(void **st)
{
    (void)st;
    struct graph *g = conv_graph(3, 32, 64, 7, 2, 3, 1);
    struct cnt c;
    assert_int_equal(lower(g, STD, &c), 0);
    assert_int_equal(c.n[SIM_OP_LOAD_STATIONARY], 4);
    assert_int_equal(c.n[SIM_OP_MATMUL], 4);
    assert_int_equal(c.mm_first, 1);
    assert_int_equal(c.evac, 1);
    assert_int_equal(c.n[SIM_OP_MEMSET], 2);
    assert_int_equal(c.dma_load, 2 + 2 * 7);
    assert_int_equal(c.dma_store, 1);
    graph_free(g);
}

/* The standard and depthwise configurations always lower (swapped ones when the image fits),
 * grouped convolutions too, and each PSUM accumulation starts with a non-accumulating matmul (one per evacuation) or a
 * memset. */
static void test_all_cfgs_lower(void **st)
{
    (void)st;
    struct {
        int64_t C, H, O, K, s, p, groups;
    } cases[] = {
        {64, 14, 128, 3, 1, 1, 1},  {256, 14, 512, 1, 2, 0, 1}, {3, 64, 96, 16, 16, 0, 1},
        {3, 32, 64, 7, 2, 3, 1},    {32, 8, 32, 3, 1, 1, 32},   {64, 10, 128, 3, 2, 1, 4},
        {130, 9, 70, 3, 1, 2, 1},   {16, 40, 24, 5, 1, 2, 1},   {200, 7, 300, 1, 1, 0, 1},
    };
    struct sim_target t;
    struct ls_error err = {0};
    sim_target_builtin(&t, "nc-v2");
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct graph *g = conv_graph(cases[i].C, cases[i].H, cases[i].O, cases[i].K, cases[i].s,
                                     cases[i].p, cases[i].groups);
        struct cg_cfgs cf;
        int rc = cg_op_cfgs(g, &t, graph_find_op(g, "y"), -2, &cf, &err);
        if (rc)
            print_message("case %zu: %s\n", i, err.msg);
        assert_int_equal(rc, 0);
        assert_true(cf.ncfg >= 1);
        for (int k = 0; k < cf.ncfg; k++) {
            struct cnt c;
            int lrc = lower(g, cf.pax + k * cf.nslots, &c);
            if (lrc)
                print_message("case %zu cfg %d (output p:%d): infeasible\n", i, k,
                              cf.pax[k * cf.nslots + 2]);
            /* the standard and depthwise configurations always lower; a swapped one needs
             * the whole image in SBUF */
            if (cf.pax[k * cf.nslots + 2] == 1)
                assert_int_equal(lrc, 0);
            if (lrc)
                continue;
            if (cf.pax[k * cf.nslots + 1] == 1 && cf.pax[k * cf.nslots + 2] == 1)
                assert_int_equal(c.mm_first + c.n[SIM_OP_MEMSET] > 0, 1);
            if (cf.pax[k * cf.nslots + 2] == 1 && c.n[SIM_OP_MATMUL] > 0)
                assert_true(c.mm_first <= c.evac);
        }
        cg_cfgs_free(&cf);
        graph_free(g);
    }
}

/* A small CNN compiled with cfg 0 simulates (the simulator checks every instruction) and
 * never beats the roofline; the compiled program's table price equals the objective. */
static void test_sim_conv_chain(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("cnn");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(1, 3, 64, 64), NULL);
    int32_t w0 = graph_weight(g, "w0", LS_DT_BF16, GRAPH_DIMS(64, 3, 7, 7), NULL);
    int32_t y = graph_conv2d(g, "c0", x, w0, 2, 3, 1);
    y = graph_cast(g, "c0.bf16", y, LS_DT_BF16);
    int32_t w1 = graph_weight(g, "w1", LS_DT_BF16, GRAPH_DIMS(128, 64, 3, 3), NULL);
    y = graph_conv2d(g, "c1", y, w1, 2, 1, 1);
    y = graph_cast(g, "c1.bf16", y, LS_DT_BF16);
    int32_t w2 = graph_weight(g, "w2", LS_DT_BF16, GRAPH_DIMS(512, 128, 1, 1), NULL);
    graph_output(g, graph_conv2d(g, "c2", y, w2, 1, 0, 1));
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    struct cm_table tb;
    sim_target_builtin(&t, "nc-v2");
    cm_table_default(&t, &tb);
    struct cm_model *m = cm_model_new(g, &t, &tb, NULL);
    assert_non_null(m);
    struct cm_instance *in = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    struct sim_program *prog = NULL;
    struct cg_compile_stats cs;
    assert_int_equal(cm_instance_compile(in, NULL, &prog, &cs, &err), 0);
    struct sim_stats ss;
    assert_int_equal(sim_run(&t, prog, NULL, &ss, &err), 0);
    struct cm_roofline r;
    cm_roofline(g, &t, &r);
    double ns = sim_ticks_ns(&ss, ss.ticks);
    print_message("conv chain: simulated %.0f ns, bound %.0f ns\n", ns, r.bound_ns);
    assert_true(ns >= r.bound_ns);
    sim_program_free(prog);
    cm_instance_free(in);
    cm_model_free(m);
    graph_free(g);
}

/* Compile a conv chain with every conv in the configuration whose output partition axis is
 * `want` (1 standard, 2/3 swapped) and simulate it: the simulator checks every instruction
 * (operand shapes, PSUM banks, partition starts). */
static void sim_with_output_axis(int want)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("cnn");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(1, 64, 14, 14), NULL);
    int32_t w0 = graph_weight(g, "w0", LS_DT_BF16, GRAPH_DIMS(128, 64, 3, 3), NULL);
    int32_t y = graph_conv2d(g, "c0", x, w0, 1, 1, 1);
    y = graph_cast(g, "c0.bf16", y, LS_DT_BF16);
    int32_t w1 = graph_weight(g, "w1", LS_DT_BF16, GRAPH_DIMS(256, 128, 1, 1), NULL);
    y = graph_conv2d(g, "c1", y, w1, 2, 0, 1);
    y = graph_cast(g, "c1.bf16", y, LS_DT_BF16);
    int32_t w2 = graph_weight(g, "w2", LS_DT_BF16, GRAPH_DIMS(300, 256, 3, 3), NULL);
    graph_output(g, graph_conv2d(g, "c2", y, w2, 2, 1, 1));
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    int32_t nops = graph_nops(g);
    struct cg_cfgs *cf = calloc((size_t)nops, sizeof *cf);
    const int8_t **opp = calloc((size_t)nops, sizeof *opp);
    assert_non_null(cf);
    assert_non_null(opp);
    int nswapped = 0;
    for (int32_t op = 0; op < nops; op++) {
        assert_int_equal(cg_op_cfgs(g, &t, op, -2, &cf[op], &err), 0);
        opp[op] = cf[op].pax;
        if (graph_op(g, op)->kind != GRAPH_OP_CONV2D)
            continue;
        for (int k = 0; k < cf[op].ncfg; k++)
            if (cf[op].pax[k * cf[op].nslots + 2] == want) {
                opp[op] = cf[op].pax + k * cf[op].nslots;
                nswapped++;
            }
    }
    assert_int_equal(nswapped, 3);
    struct sim_program *prog = NULL;
    struct cg_compile_stats cs;
    static const struct cg_options o = {0};
    assert_int_equal(cg_compile(g, &t, &o, opp, choose_strided, NULL, &prog, &cs, &err), 0);
    struct sim_stats ss;
    int rc = sim_run(&t, prog, NULL, &ss, &err);
    if (rc)
        print_message("%s\n", err.msg);
    assert_int_equal(rc, 0);
    struct cm_roofline r;
    cm_roofline(g, &t, &r);
    double ns = sim_ticks_ns(&ss, ss.ticks);
    print_message("output axis %d: simulated %.0f ns, bound %.0f ns\n", want, ns, r.bound_ns);
    assert_true(ns >= r.bound_ns);
    sim_program_free(prog);
    for (int32_t op = 0; op < nops; op++)
        cg_cfgs_free(&cf[op]);
    free(cf);
    free(opp);
    graph_free(g);
}

/* Output rows wider than a PSUM bank (chunks of columns), dilation-free odd shapes, and a
 * batch of 2: compiled with cfg 0 and simulated. */
static void test_sim_wide_and_batched(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("wide");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(2, 24, 5, 700), NULL);
    int32_t w0 = graph_weight(g, "w0", LS_DT_BF16, GRAPH_DIMS(40, 24, 3, 3), NULL);
    int32_t y = graph_conv2d(g, "c0", x, w0, 1, 1, 1);
    y = graph_cast(g, "c0.bf16", y, LS_DT_BF16);
    int32_t w1 = graph_weight(g, "w1", LS_DT_BF16, GRAPH_DIMS(8, 40, 5, 5), NULL);
    graph_output(g, graph_conv2d(g, "c1", y, w1, 2, 2, 1));
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    struct cm_table tb;
    sim_target_builtin(&t, "nc-v2");
    cm_table_default(&t, &tb);
    struct cm_model *m = cm_model_new(g, &t, &tb, NULL);
    assert_non_null(m);
    struct cm_instance *in = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    struct sim_program *prog = NULL;
    assert_int_equal(cm_instance_compile(in, NULL, &prog, NULL, &err), 0);
    struct sim_stats ss;
    int rc = sim_run(&t, prog, NULL, &ss, &err);
    if (rc)
        print_message("%s\n", err.msg);
    assert_int_equal(rc, 0);
    sim_program_free(prog);
    cm_instance_free(in);
    cm_model_free(m);
    graph_free(g);
}

static void test_sim_standard_and_swapped(void **st)
{
    (void)st;
    sim_with_output_axis(1);
    sim_with_output_axis(2);
    sim_with_output_axis(3);
}

/* bytes that DMA instructions write to HBM */
static uint64_t hbm_store_bytes(const struct sim_program *p)
{
    uint64_t n = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        if (in->engine == LS_ENGINE_DMA && in->dst.mem == LS_MEM_HBM)
            n += (uint64_t)in->dst.nparts * sim_operand_free(&in->dst) *
                 ls_dtype_size((enum ls_dtype)in->dst.dtype);
    }
    return n;
}

/* conv -> relu -> cast -> conv (3x3, padded) -> relu -> cast -> conv (1x1) on 16 x 32 images
 * (the swapped lowering applies with width on partitions; the 64-channel tensors also keep
 * that layout on chip): each conv and its relu are one epilogue chain (the conv's output
 * never exists), the middle tensors stay in SBUF (memplan), the convs read and write them
 * in place (no HBM store of them), and for every configuration of the ops that choose a
 * conv's lowering (the chains' relus, the last conv) the compiled price equals the
 * objective and the program simulates no faster than the roofline. */
static void test_resident_chain(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("rchain");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(1, 64, 16, 32), NULL);
    int32_t w0 = graph_weight(g, "w0", LS_DT_BF16, GRAPH_DIMS(256, 64, 3, 3), NULL);
    int32_t y = graph_conv2d(g, "c0", x, w0, 1, 1, 1);
    y = graph_unary(g, "r", GRAPH_OP_RELU, y);
    y = graph_cast(g, "rb", y, LS_DT_BF16);
    int32_t w1 = graph_weight(g, "w1", LS_DT_BF16, GRAPH_DIMS(64, 256, 3, 3), NULL);
    y = graph_conv2d(g, "c1", y, w1, 1, 1, 1);
    y = graph_unary(g, "r1", GRAPH_OP_RELU, y);
    y = graph_cast(g, "rb1", y, LS_DT_BF16);
    int32_t w2 = graph_weight(g, "w2", LS_DT_BF16, GRAPH_DIMS(128, 64, 1, 1), NULL);
    int32_t out = graph_conv2d(g, "c2", y, w2, 1, 0, 1); /* 1x1, no padding */
    graph_output(g, out);
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    struct cm_table tb;
    sim_target_builtin(&t, "nc-v2");
    cm_table_default(&t, &tb);
    struct cg_options o = {0}, oh = {0};
    oh.no_residency = 1;
    struct cm_model *m = cm_model_new(g, &t, &tb, &o), *mh = cm_model_new(g, &t, &tb, &oh);
    assert_non_null(m);
    assert_non_null(mh);
    const struct cg_memplan *p = cm_model_options(m)->plan;
    assert_non_null(p);
    assert_true(cg_epi_fused(g, graph_find_tensor(g, "c0")));
    assert_true(cg_epi_fused(g, graph_find_tensor(g, "c1")));
    assert_false(cg_memplan_resident(p, graph_find_tensor(g, "c0")));
    assert_true(cg_memplan_resident(p, graph_find_tensor(g, "r")));
    assert_true(cg_memplan_resident(p, graph_find_tensor(g, "rb")));
    assert_true(cg_memplan_resident(p, graph_find_tensor(g, "rb1")));
    assert_false(cg_memplan_resident(p, out));
    struct cm_instance *in = NULL, *inh = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    assert_int_equal(cm_instance_create(mh, NULL, &inh, &err), 0);
    struct cm_roofline rl;
    cm_roofline(g, &t, &rl);
    /* cfg 0: only the returned output (and at most a conversion of the input) goes to HBM */
    uint64_t obytes = 128 * 16 * 32 * ls_dtype_size(graph_tensor(g, out)->dtype);
    uint64_t xbytes = 64 * 16 * 32 * 2, mid = 0;
    const char *mids[2] = {"r", "rb"};
    for (int i = 0; i < 2; i++)
        mid += 256 * 16 * 32 * ls_dtype_size(graph_tensor(g, graph_find_tensor(g, mids[i]))->dtype);
    struct sim_program *pr = NULL, *ph = NULL;
    assert_int_equal(cm_instance_compile(in, NULL, &pr, NULL, &err), 0);
    assert_int_equal(cm_instance_compile(inh, NULL, &ph, NULL, &err), 0);
    uint64_t br = hbm_store_bytes(pr), bh = hbm_store_bytes(ph);
    print_message("resident chain: HBM stores %llu bytes (without the plan %llu)\n",
                  (unsigned long long)br, (unsigned long long)bh);
    assert_true(br >= obytes && br <= obytes + xbytes); /* none of r, rb */
    assert_true(bh >= br + mid);
    sim_program_free(pr);
    sim_program_free(ph);
    /* every combination of the convs' configurations, the other ops at cfg 0 or random */
    const struct lsp_problem *lp = in->p;
    int32_t *cfg = calloc((size_t)lp->nops, sizeof *cfg), conv[4], nconv = 0;
    assert_non_null(cfg);
    for (int32_t i = 0; i < lp->nops; i++)
        if ((!strcmp(lp->ops[i].kind, "conv2d") || !strcmp(lp->ops[i].kind, "relu")) &&
            lp->ops[i].ncfg > 1 && nconv < 4)
            conv[nconv++] = i;
    assert_int_equal(nconv, 3);
    int32_t cc[4] = {0};
    int64_t combos = 0;
    struct ls_rng rng;
    ls_rng_seed(&rng, 11);
    for (;;) {
        for (int rep = 0; rep < 3; rep++) {
            for (int32_t i = 0; i < lp->nops; i++)
                cfg[i] = rep ? (int32_t)ls_rng_below(&rng, (uint64_t)lp->ops[i].ncfg) : 0;
            for (int32_t k = 0; k < nconv; k++)
                cfg[conv[k]] = cc[k];
            struct sim_program *prog = NULL;
            assert_int_equal(cm_instance_compile(in, cfg, &prog, NULL, &err), 0);
            {
                int64_t priced;
                assert_int_equal(cm_price_program(&tb, &t, prog, &priced, NULL), 0);
                assert_int_equal(priced, lsp_eval(lp, cfg, NULL, NULL));
            }
            struct sim_stats ss;
            assert_int_equal(sim_run(&t, prog, NULL, &ss, &err), 0);
            assert_true(sim_ticks_ns(&ss, ss.ticks) >= rl.bound_ns);
            sim_program_free(prog);
        }
        combos++;
        int32_t k = 0;
        for (; k < nconv; k++) {
            if (++cc[k] < lp->ops[conv[k]].ncfg)
                break;
            cc[k] = 0;
        }
        if (k == nconv)
            break;
    }
    print_message("resident chain: %lld conv configurations\n", (long long)combos);
    assert_true(combos >= 4);
    free(cfg);
    cm_instance_free(in);
    cm_instance_free(inh);
    cm_model_free(m);
    cm_model_free(mh);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_3x3),         cmocka_unit_test(test_golden_1x1_strided),
        cmocka_unit_test(test_golden_patch),       cmocka_unit_test(test_golden_stem),
        cmocka_unit_test(test_all_cfgs_lower),     cmocka_unit_test(test_sim_conv_chain),
        cmocka_unit_test(test_sim_standard_and_swapped), cmocka_unit_test(test_sim_wide_and_batched),
        cmocka_unit_test(test_resident_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
