/* The SBUF memory plan (codegen/memplan) and in-place lowering: which tensors stay in
 * SBUF, that their ops neither load nor store them, that the plan does not depend on the
 * layouts (price == objective for random assignments), and that the program still runs
 * no faster than the roofline bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen/memplan.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "costmodel/roofline.h"
#include "solver/solver.h"
#include "sim/sim.h"
#include "util/prng.h"
#include "cm_fixture.h"

/* x[rows,d] @ W1[d,d] -> h -> relu -> r -> bf16 -> @ W2[d,256] -> y (returned) */
static struct graph *mlp_sized(const char *name, int64_t rows, int64_t d)
{
    struct ls_error err = {0};
    struct graph *g = graph_new(name);
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(rows, d), NULL);
    int32_t w1 = graph_weight(g, "w1", LS_DT_BF16, GRAPH_DIMS(d, d), NULL);
    int32_t w2 = graph_weight(g, "w2", LS_DT_BF16, GRAPH_DIMS(d, 256), NULL);
    int32_t h = graph_matmul(g, "h", x, w1);
    int32_t r = graph_unary(g, "r", GRAPH_OP_RELU, h);
    graph_output(g, graph_matmul(g, "y", graph_cast(g, "rb", r, LS_DT_BF16), w2));
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

static struct graph *mlp(void)
{
    return mlp_sized("mlp", 256, 512);
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

static void test_plan_decisions(void **st)
{
    (void)st;
    struct graph *g = mlp();
    struct fixture f;
    open_model(&f, g);
    const struct cg_memplan *p = cm_model_options(f.m)->plan;
    assert_non_null(p);
    assert_true(cg_memplan_resident(p, graph_find_tensor(g, "h")));
    assert_true(cg_memplan_resident(p, graph_find_tensor(g, "r")));
    assert_true(cg_memplan_resident(p, graph_find_tensor(g, "rb")));
    /* graph inputs, weights and the returned tensor live in HBM */
    assert_false(cg_memplan_resident(p, graph_find_tensor(g, "x")));
    assert_false(cg_memplan_resident(p, graph_find_tensor(g, "w1")));
    assert_false(cg_memplan_resident(p, graph_find_tensor(g, "y")));
    assert_true(p->region <= f.t.sbuf_usable_bytes / 2);
    close_model(&f);
    graph_free(g);
}

static void test_in_place(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = mlp();
    struct fixture f, h;
    open_model(&f, g);
    open_model_with(&h, g, 1);
    struct sim_program *pr = NULL, *ph = NULL;
    assert_int_equal(cm_instance_compile(f.in, NULL, &pr, NULL, &err), 0);
    assert_int_equal(cm_instance_compile(h.in, NULL, &ph, NULL, &err), 0);
    /* only the returned tensor y [256 x 256] bf16 and the graph input x [256 x 512] bf16
     * (converted at run time from row-major, cfg 0 wants its K axis on partitions) are
     * stored; without the plan every op stores its output */
    uint64_t bytes = 256 * 256 * 2 + 256 * 512 * 2;
    assert_int_equal(hbm_store_bytes(pr), bytes);
    assert_true(hbm_store_bytes(ph) > bytes);
    struct sim_stats sr, sh;
    assert_int_equal(sim_run(&f.t, pr, NULL, &sr, &err), 0);
    assert_int_equal(sim_run(&h.t, ph, NULL, &sh, &err), 0);
    assert_true(sr.ticks < sh.ticks);
    struct cm_roofline rl;
    cm_roofline(g, &f.t, &rl);
    assert_true(sim_ticks_ns(&sr, sr.ticks) >= rl.bound_ns);
    sim_program_free(pr);
    sim_program_free(ph);
    close_model(&f);
    close_model(&h);
    graph_free(g);
}

/* price of the compiled program == .lsp objective, for random assignments: the plan
 * does not depend on the layouts chosen */
static void test_consistency_random(void **st)
{
    (void)st;
    struct graph *g = mlp();
    struct fixture f;
    open_model(&f, g);
    const struct lsp_problem *p = f.in->p;
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 7);
    for (int it = 0; it < 50; it++) {
        random_assignment(&f, &r, cfg);
        sim_program_free(compile_checked(&f, cfg, 1, 0));
    }
    free(cfg);
    close_model(&f);
    graph_free(g);
}

/* h (bf16: 64 KiB per partition in either layout, 128 KiB in both) does not fit whole in
 * the resident region. */
static struct graph *wide_mlp(void)
{
    return mlp_sized("wide", 4096, 1024);
}

/* The objective of greedy's solution of f's problem. */
static int64_t greedy_objective(const struct fixture *f)
{
    struct ls_error err = {0};
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    struct lsp_result r;
    assert_int_equal(lsp_solve("greedy", f->in->p, &so, &r, &err), 0);
    int64_t c = r.sol.cost;
    lsp_result_free(&r);
    return c;
}

/* --memplan partial (the default): a tensor whose layouts do not fit together keeps its
 * widest alone (rows on partitions: 4096 > 1024), the other lives in HBM; --memplan whole
 * spills it. The plan chosen is the candidate greedy solves cheapest (no dearer than the
 * whole plan's), it
 * still does not depend on the layouts (price == objective, random assignments), and the
 * programs run no faster than the roofline bound. */
static void test_partial_keeps(void **st)
{
    (void)st;
    struct graph *g = wide_mlp();
    int32_t h = graph_find_tensor(g, "h");
    struct fixture w, f;
    struct cg_options o = {0};
    o.memplan = CG_MEMPLAN_WHOLE;
    open_model_opts(&w, g, &o);
    assert_false(cg_memplan_resident(cm_model_options(w.m)->plan, h));
    open_model(&f, g); /* zeroed options: the default plan, partial */
    assert_int_equal(cm_model_options(f.m)->memplan, CG_MEMPLAN_PARTIAL);
    const struct cg_memplan *p = cm_model_options(f.m)->plan;
    assert_true(cg_memplan_resident(p, h));
    assert_int_equal(cg_memplan_sbuf_mask(p, g, h), 1u << cg_layout_index(g, h, 0));
    assert_true(cg_memplan_in_sbuf(p, g, h, 0));
    assert_false(cg_memplan_in_sbuf(p, g, h, 1));
    assert_true(p->spilled_bytes < cm_model_options(w.m)->plan->spilled_bytes);
    assert_true(greedy_objective(&f) <= greedy_objective(&w));
    struct cm_roofline rl;
    cm_roofline(g, &f.t, &rl);
    int32_t *cfg = calloc((size_t)f.in->p->nops, sizeof *cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 11);
    for (int it = 0; it < 20; it++) {
        random_assignment(&f, &r, cfg);
        sim_program_free(compile_checked(&f, cfg, it < 4, rl.bound_ns));
    }
    free(cfg);
    close_model(&f);
    close_model(&w);
    graph_free(g);
}

/* x[512,1024] @ W -> h -> relu -> r -> reshape [512, 8, 128] -> s -> relu -> y (returned) */
static struct graph *split_heads(void)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("split");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(512, 1024), NULL);
    int32_t w = graph_weight(g, "w", LS_DT_BF16, GRAPH_DIMS(1024, 1024), NULL);
    int32_t r = graph_unary(g, "r", GRAPH_OP_RELU, graph_matmul(g, "h", x, w));
    int64_t dims[3] = {512, 8, 128};
    int32_t s = graph_reshape(g, "s", r, 3, dims, NULL);
    graph_output(g, graph_unary(g, "y", GRAPH_OP_RELU, s));
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* The alias candidates of --memplan partial: a reshape whose resident input is read for
 * the last time there puts its output in the input's bytes (rows keep their order in the
 * default layouts), in one layout; the reshape then emits nothing in that layout pair, and
 * every candidate's programs are priced as the problem says. */
static void test_reshape_alias(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = split_heads();
    int32_t r = graph_find_tensor(g, "r"), s = graph_find_tensor(g, "s");
    struct fixture f;
    open_model(&f, g);
    struct cg_options o = {0};
    o.memplan = CG_MEMPLAN_PARTIAL;
    int aliased = 0;
    for (int k = 0; k < cg_memplan_nplans(&o); k++) {
        struct cg_memplan p;
        assert_int_equal(cg_memplan_build_plan(g, &f.t, &o, k, &p, &err), 0);
        if (p.res[s].aliased) {
            aliased++;
            assert_true(cg_memplan_resident(&p, r));
            assert_int_equal(cg_memplan_sbuf_mask(&p, g, s), 1u);   /* its default layout */
            assert_true(p.res[s].slot[0] == p.res[r].slot[0]);
        }
        cg_memplan_free(&p);
    }
    assert_true(aliased > 0 && aliased < cg_memplan_nplans(&o));
    close_model(&f);
    /* the chosen plan: price == objective on random assignments, and with r and s in
     * their default layouts the reshape copies nothing when aliased */
    struct fixture h;
    open_model_opts(&h, g, &o);
    const struct cg_memplan *p = cm_model_options(h.m)->plan;
    int32_t *cfg = calloc((size_t)h.in->p->nops, sizeof *cfg);
    struct ls_rng rng;
    ls_rng_seed(&rng, 5);
    for (int it = 0; it < 20; it++) {
        random_assignment(&h, &rng, cfg);
        sim_program_free(compile_checked(&h, cfg, 0, 0));
    }
    if (p->res[s].aliased) {
        memset(cfg, 0, sizeof *cfg * (size_t)h.in->p->nops);
        struct sim_program *prog = compile_checked(&h, cfg, 1, 0);
        int32_t tag = sim_program_tag(prog, "s");
        size_t n = 0;
        for (size_t i = 0; i < sim_program_count(prog); i++) {
            struct sim_instr buf;
            n += sim_program_get(prog, i, &buf)->op_tag == tag;
        }
        assert_int_equal(n, 0);
        sim_program_free(prog);
    }
    free(cfg);
    close_model(&h);
    graph_free(g);
}

/* Bytes of the innermost contiguous run of an operand's free pattern. */
static uint64_t run_bytes(const struct sim_operand *o)
{
    uint64_t run = 1;
    for (int d = o->ndim - 1; d >= 0; d--) {
        if (o->stride[d] != (int32_t)run)
            break;
        run *= o->size[d];
    }
    return run * ls_dtype_size((enum ls_dtype)o->dtype);
}

/* A weight is loaded with long contiguous rows: k-tiled at compile time, a moving weight
 * goes into the constant ring (queues 6/7) in DMAs whose rows reach one minimum descriptor
 * (dma.desc_min_ns x dma.bytes_per_ns = 2,482 B on nc-v2), and all of it is read.
 * x [128 x 768] @ w [768 x 3072] -> relu -> returned, every configuration of the matmul. */
static void test_weight_descriptors(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("ffn");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(128, 768), NULL);
    int32_t w = graph_weight(g, "w", LS_DT_BF16, GRAPH_DIMS(768, 3072), NULL);
    graph_output(g, graph_unary(g, "r", GRAPH_OP_RELU, graph_matmul(g, "h", x, w)));
    assert_int_equal(graph_validate(g, &err), 0);
    struct fixture f;
    open_model(&f, g);
    const struct lsp_problem *p = f.in->p;
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    int32_t h = lsp_find_op(p, "h", 1);
    int ring_cfgs = 0;
    for (cfg[h] = 0; cfg[h] < p->ops[h].ncfg; cfg[h]++) {
        struct sim_program *prog = NULL;
        assert_int_equal(cm_instance_compile(f.in, cfg, &prog, NULL, &err), 0);
        uint64_t bytes = 0;
        for (size_t i = 0; i < sim_program_count(prog); i++) {
            struct sim_instr buf;
            const struct sim_instr *in = sim_program_get(prog, i, &buf);
            if (in->engine != LS_ENGINE_DMA || (in->queue != 6 && in->queue != 7))
                continue;
            assert_true(run_bytes(&in->src) >= 2482);
            bytes += (uint64_t)in->dst.nparts * sim_operand_free(&in->dst) * 2;
        }
        ring_cfgs += bytes > 0;
        assert_true(bytes == 0 || bytes == 768 * 3072 * 2);
        sim_program_free(prog);
    }
    assert_true(ring_cfgs > 0);
    free(cfg);
    close_model(&f);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_decisions),
        cmocka_unit_test(test_in_place),
        cmocka_unit_test(test_consistency_random),
        cmocka_unit_test(test_partial_keeps),
        cmocka_unit_test(test_reshape_alias),
        cmocka_unit_test(test_weight_descriptors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
