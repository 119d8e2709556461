/* Epilogue chains (codegen/epi): which chains are recognised, one layout for their
 * intermediates, the bias and activation folded into the PSUM evacuation (no fp32 matmul
 * output crosses HBM, the biases are still loaded), price == objective for random
 * assignments and never faster than the roofline bound; conv2d -> relu chains, and beside
 * them a graph input's cast as one DMA and a pooling op in place (cg-11). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen/epi.h"
#include "codegen/memplan.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "costmodel/roofline.h"
#include "graph/lg.h"
#include "sim/sim.h"
#include "util/prng.h"
#include "cm_fixture.h"

/* A transformer FFN at whisper-enc's sizes: fc1 + bias + gelu (bf16), fc2 + bias (fp32,
 * returned); the fp32 fc1 output [S, 2048] does not fit on chip. */
static struct graph *ffn(int64_t S)
{
    char txt[1024];
    snprintf(txt, sizeof txt,
             "lg 1\n"
             "input x bf16 [1,%lld,512]\n"
             "weight w1 bf16 [512,2048]\n"
             "weight b1 fp32 [2048]\n"
             "op h.mm fp32 [1,%lld,2048] = matmul x w1 lhs_contract=2 rhs_contract=0\n"
             "op h fp32 [1,%lld,2048] = add h.mm b1\n"
             "op a bf16 [1,%lld,2048] = gelu h\n"
             "weight w2 bf16 [2048,512]\n"
             "weight b2 fp32 [512]\n"
             "op y.mm fp32 [1,%lld,512] = matmul a w2 lhs_contract=2 rhs_contract=0\n"
             "op y fp32 [1,%lld,512] = add b2 y.mm\n"
             "output y\n",
             (long long)S, (long long)S, (long long)S, (long long)S, (long long)S,
             (long long)S);
    return graph_of_text("ffn.lg", txt);
}

/* fc1 is a three-op chain, fc2 (bias as the add's first operand) a two-op one; their
 * intermediates have one layout; only the last op of a chain has a layout choice. */
static void test_chains(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    struct graph *g = ffn(256);
    struct cg_epi c;
    assert_int_equal(cg_epi_find(g, op_of(g, "h.mm"), &c), 0);
    assert_int_equal(c.n, 3);
    assert_int_equal(cg_epi_find(g, op_of(g, "h"), &c), 1);
    assert_int_equal(cg_epi_find(g, op_of(g, "a"), &c), 2);
    assert_int_equal(c.out, graph_find_tensor(g, "a"));
    assert_int_equal(cg_epi_find(g, op_of(g, "y"), &c), 1);
    assert_int_equal(c.n, 2);
    assert_int_equal(c.bias, graph_find_tensor(g, "b2"));
    assert_true(cg_epi_fused(g, graph_find_tensor(g, "h.mm")));
    assert_true(cg_epi_fused(g, graph_find_tensor(g, "h")));
    assert_false(cg_epi_fused(g, graph_find_tensor(g, "a")));
    struct cg_layouts l;
    cg_tensor_layouts(g, graph_find_tensor(g, "h"), &l);
    assert_int_equal(l.n, 1);
    struct cg_cfgs cf;
    assert_int_equal(cg_op_cfgs(g, &t, op_of(g, "h.mm"), -2, &cf, &err), 0);
    assert_int_equal(cf.ncfg, 1);
    cg_cfgs_free(&cf);
    assert_int_equal(cg_op_cfgs(g, &t, op_of(g, "a"), -2, &cf, &err), 0);
    assert_int_equal(cf.ncfg, 2);   /* seq or the 2048 features on partitions */
    cg_cfgs_free(&cf);
    graph_free(g);
}


/* fp32 bytes the ops (not conversions) store to HBM and load from it */
static void fp32_traffic(const struct sim_program *p, uint64_t *stored, uint64_t *loaded)
{
    *stored = *loaded = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        if (in->engine != LS_ENGINE_DMA || in->conv_tag >= 0 || in->dst.dtype != LS_DT_FP32)
            continue;
        uint64_t b = (uint64_t)in->dst.nparts * sim_operand_free(&in->dst) * 4;
        if (in->dst.mem == LS_MEM_HBM)
            *stored += b;
        else if (in->src.mem == LS_MEM_HBM)
            *loaded += b;
    }
}

/* fp32 loads from HBM of the chain whose step is tagged with op `name`: its bias only */
static int bias_loads(struct sim_program *p, const char *name)
{
    int32_t tag = sim_program_tag(p, name);
    int n = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        n += in->engine == LS_ENGINE_DMA && in->op_tag == tag && in->src.mem == LS_MEM_HBM &&
             in->dst.dtype == LS_DT_FP32;
    }
    return n;
}

/* Price of the compiled program == .lsp objective for random assignments; whatever the
 * layouts, the only fp32 tensor stored is the returned y (once), the fp32 biases are
 * loaded, each in one DMA (16 and 4 m-tiles of columns when the weight is stationary:
 * stored m-tile-major), and the simulated time is never below the roofline bound. */
static void test_fused_random(void **st)
{
    (void)st;
    const int64_t S = 2048;
    struct graph *g = ffn(S);
    struct fixture f;
    open_model(&f, g);
    const struct lsp_problem *p = f.in->p;
    struct cm_roofline rl;
    cm_roofline(g, &f.t, &rl);
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 5);
    for (int it = 0; it < 50; it++) {
        if (it)   /* the first: configuration 0 everywhere */
            random_assignment(&f, &r, cfg);
        struct sim_program *prog = compile_checked(&f, cfg, it % 10 == 0, rl.bound_ns);
        uint64_t stored, loaded;
        fp32_traffic(prog, &stored, &loaded);
        assert_int_equal(stored, (uint64_t)S * 512 * 4);
        assert_true(loaded >= (2048 + 512) * 4);
        assert_int_equal(bias_loads(prog, "a"), 1);
        assert_int_equal(bias_loads(prog, "y"), 1);
        sim_program_free(prog);
    }
    free(cfg);
    close_model(&f);
    graph_free(g);
}

/* fc2 with the tokens on partitions (configuration 0) evacuates one 512-column chunk per
 * m-tile and stores it: consecutive stores read alternating output buffers, so that an
 * m-tile's evacuation does not wait for the previous m-tile's store. */
static void test_out_buffers(void **st)
{
    (void)st;
    struct graph *g = ffn(1500);
    struct fixture f;
    open_model(&f, g);
    int32_t *cfg = calloc((size_t)f.in->p->nops, sizeof *cfg);
    struct sim_program *prog = compile_checked(&f, cfg, 0, 0);
    int32_t tag = sim_program_tag(prog, "y");
    uint64_t prev = UINT64_MAX;
    int stores = 0;
    for (size_t i = 0; i < sim_program_count(prog); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(prog, i, &buf);
        if (in->engine != LS_ENGINE_DMA || in->op_tag != tag || in->dst.mem != LS_MEM_HBM)
            continue;
        assert_true(in->src.addr != prev);
        prev = in->src.addr;
        stores++;
    }
    assert_int_equal(stores, 12);   /* one per m-tile of 128 tokens */
    sim_program_free(prog);
    free(cfg);
    close_model(&f);
    graph_free(g);
}

/* image (fp32 input, 16 x 16) -> cast -> conv 3x3 (64 channels) -> relu -> max pool 2x2 ->
 * conv 1x1 -> relu, returned; the 64-channel tensors keep only channels on partitions on
 * chip (half the widest layout's rows, docs/costmodel.md) */
static struct graph *conv_net(void)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("convnet");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(1, 3, 16, 16), NULL);
    int32_t y = graph_cast(g, "x.bf16", x, LS_DT_BF16);
    int32_t w0 = graph_weight(g, "w0", LS_DT_BF16, GRAPH_DIMS(64, 3, 3, 3), NULL);
    y = graph_conv2d(g, "c0", y, w0, 1, 1, 1);
    y = graph_unary(g, "r0", GRAPH_OP_RELU, y);
    y = graph_pool(g, "p", GRAPH_OP_POOL_MAX, y, 2, 2, 0);
    int32_t w1 = graph_weight(g, "w1", LS_DT_BF16, GRAPH_DIMS(8, 64, 1, 1), NULL);
    y = graph_conv2d(g, "c1", y, w1, 1, 0, 1);
    y = graph_unary(g, "r1", GRAPH_OP_RELU, y);
    graph_output(g, y);
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* Instructions of prog tagged with op `name` (n) and, of them, ACT activations reading
 * PSUM with function fn (*evac). */
static int tagged(struct sim_program *prog, const char *name, enum sim_func fn,
                  int *evac)
{
    int32_t tag = sim_program_tag(prog, name);
    int n = 0;
    *evac = 0;
    for (size_t i = 0; i < sim_program_count(prog) && tag >= 0; i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(prog, i, &buf);
        if (in->op_tag != tag)
            continue;
        n++;
        *evac += in->engine == LS_ENGINE_ACT && in->src.mem == LS_MEM_PSUM && in->func == fn;
    }
    return n;
}

/* Each conv and its relu are one chain: the conv's output has one layout and is never
 * materialized, the conv one configuration that emits nothing, the relu the layout choice
 * and the conv's instructions, whose PSUM evacuations apply the relu. The input's cast is
 * one DMA from HBM to HBM over 128 rows; the pooling op reads its resident input and
 * writes its resident output in place (no DMA). Price == objective for random
 * assignments, never below the roofline. */
static void test_conv_chains(void **st)
{
    (void)st;
    struct graph *g = conv_net();
    struct sim_target t;
    struct ls_error err = {0};
    sim_target_builtin(&t, "nc-v2");
    struct cg_epi c;
    assert_int_equal(cg_epi_find(g, op_of(g, "c0"), &c), 0);
    assert_true(c.conv && c.n == 2 && c.bias < 0 && c.act == GRAPH_OP_RELU);
    assert_int_equal(c.out, graph_find_tensor(g, "r0"));
    assert_int_equal(cg_epi_find(g, op_of(g, "r1"), &c), 1);
    assert_true(cg_epi_fused(g, graph_find_tensor(g, "c0")));
    assert_false(cg_epi_fused(g, graph_find_tensor(g, "r0")));
    struct cg_cfgs cf;
    assert_int_equal(cg_op_cfgs(g, &t, op_of(g, "c0"), -2, &cf, &err), 0);
    assert_int_equal(cf.ncfg, 1);
    cg_cfgs_free(&cf);
    assert_int_equal(cg_op_cfgs(g, &t, op_of(g, "r0"), -2, &cf, &err), 0);
    assert_int_equal(cf.ncfg, 3);   /* channels, height or width on partitions */
    cg_cfgs_free(&cf);
    struct fixture f;
    open_model(&f, g);
    const struct cg_memplan *plan = cm_model_options(f.m)->plan;
    assert_true(cg_memplan_resident(plan, graph_find_tensor(g, "r0")));
    assert_true(cg_memplan_resident(plan, graph_find_tensor(g, "p")));
    struct cm_roofline rl;
    cm_roofline(g, &f.t, &rl);
    int32_t *cfg = calloc((size_t)f.in->p->nops, sizeof *cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 7);
    for (int it = 0; it < 20; it++) {
        if (it)
            random_assignment(&f, &r, cfg);
        struct sim_program *prog = compile_checked(&f, cfg, 1, rl.bound_ns);
        int evac;
        assert_int_equal(tagged(prog, "c0", SIM_FN_RELU, &evac), 0);
        assert_true(tagged(prog, "r0", SIM_FN_RELU, &evac) > 0 && evac > 0);
        assert_true(tagged(prog, "r1", SIM_FN_RELU, &evac) > 0 && evac > 0);
        if (it == 0) {   /* every op in its default layout */
            int32_t tag = sim_program_tag(prog, "x.bf16"), ncast = 0;
            for (size_t i = 0; i < sim_program_count(prog); i++) {
                struct sim_instr buf;
                const struct sim_instr *in = sim_program_get(prog, i, &buf);
                if (in->op_tag == tag) {
                    ncast++;
                    assert_int_equal(in->engine, LS_ENGINE_DMA);
                    assert_true(in->src.mem == LS_MEM_HBM && in->src.dtype == LS_DT_FP32);
                    assert_true(in->dst.mem == LS_MEM_HBM && in->dst.dtype == LS_DT_BF16);
                    assert_int_equal(in->dst.nparts, 128);   /* 768 elements: 128 x 6 */
                }
                assert_false(in->op_tag == sim_program_tag(prog, "p") &&
                             in->engine == LS_ENGINE_DMA);
            }
            assert_int_equal(ncast, 1);
        }
        sim_program_free(prog);
    }
    free(cfg);
    close_model(&f);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chains),
        cmocka_unit_test(test_fused_random),
        cmocka_unit_test(test_out_buffers),
        cmocka_unit_test(test_conv_chains),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
