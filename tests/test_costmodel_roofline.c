/* Tests of costmodel/roofline: the figures of small hand-built graphs, and that the
 * simulator never runs a compiled zoo model faster than the bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "costmodel/roofline.h"
#include "graph/model.h"
#include "graph/zoo.h"
#include "sim/sim.h"

static int near(double a, double b)
{
    double d = a > b ? a - b : b - a;
    return d <= 1e-9 * (a > b ? a : b);
}

/* x[64,256] @ W[256,512]: 2*64*512*256 flops; bytes of x, W and the output. */
static void test_matmul_figures(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("mm");
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(64, 256), NULL);
    int32_t w = graph_weight(g, "W", LS_DT_FP32, GRAPH_DIMS(256, 512), NULL);
    graph_output(g, graph_matmul(g, "y", x, w));
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    struct cm_roofline r;
    cm_roofline(g, &t, &r);
    assert_true(r.flops == 2.0 * 64 * 512 * 256);
    uint64_t out_bytes = 64 * 512 * ls_dtype_size(graph_tensor(g, graph_find_tensor(g, "y"))->dtype);
    assert_int_equal(r.min_hbm_bytes, 64 * 256 * 2 + 256 * 512 * 4 + out_bytes);
    assert_true(near(r.pe_ns, r.flops / (2.0 * 128 * 128 * 2.8)));
    assert_true(near(r.hbm_ns, (double)r.min_hbm_bytes / 410.0));
    assert_true(r.bound_ns == (r.pe_ns > r.hbm_ns ? r.pe_ns : r.hbm_ns));
    assert_string_equal(cm_bound_name(r.bound_by), r.pe_ns >= r.hbm_ns ? "pe" : "hbm");
    graph_free(g);
}

/* An embedding table read only by a gather counts the gathered rows, not the table. */
static void test_gather_rows(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("emb");
    int32_t tab = graph_weight(g, "E", LS_DT_FP32, GRAPH_DIMS(30000, 64), NULL);
    int32_t ids = graph_input(g, "ids", LS_DT_INT32, GRAPH_DIMS(16), NULL);
    graph_output(g, graph_gather(g, "h", tab, ids, 0));
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    struct cm_roofline r;
    cm_roofline(g, &t, &r);
    assert_true(r.flops == 0.0);
    assert_int_equal(r.min_hbm_bytes, 16 * 64 * 4 + 16 * 4 + 16 * 64 * 4);
    assert_int_equal(r.bound_by, CM_BOUND_HBM);
    graph_free(g);
}

struct zoo_case {
    const char *name;
    int64_t layers, seq, image;
};

/* Bytes of the weights that must be read whole (a table read only by gathers is not). */
static uint64_t weight_bytes(const struct graph *g)
{
    uint64_t n = 0;
    for (int32_t t = 0; t < graph_ntensors(g); t++) {
        const struct graph_tensor *x = graph_tensor(g, t);
        int gathered = x->nuses > 0;
        for (size_t u = 0; u < x->nuses; u++)
            gathered &= graph_op(g, x->uses[u].op)->kind == GRAPH_OP_GATHER;
        if (x->role == GRAPH_ROLE_WEIGHT && !gathered)
            n += (uint64_t)graph_shape_numel(&x->shape) * ls_dtype_size(x->dtype);
    }
    return n;
}

/* Bytes the program's DMAs read from HBM. */
static uint64_t hbm_read_bytes(const struct sim_program *p)
{
    uint64_t n = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        if (in->engine == LS_ENGINE_DMA && in->src.mem == LS_MEM_HBM)
            n += (uint64_t)in->src.nparts * sim_operand_free(&in->src) *
                 ls_dtype_size((enum ls_dtype)in->src.dtype);
    }
    return n;
}

/* Load the model as users get it (the graph passes applied), compile with cfg 0
 * everywhere, simulate, compare with the bound; every weight byte is read at least once. */
static void check_not_below(const struct zoo_case *zc)
{
    struct ls_error err = {0};
    struct zoo_opts o;
    zoo_opts_init(&o);
    if (zc->layers)
        o.layers = zc->layers;
    if (zc->seq)
        o.seq = zc->seq;
    if (zc->image)
        o.image = zc->image;
    struct graph *g = NULL;
    char spec[64];
    snprintf(spec, sizeof spec, "zoo:%s", zc->name);
    assert_int_equal(model_load(spec, &o, &g, &err), 0);
    struct sim_target t;
    struct cm_table tb;
    sim_target_builtin(&t, "nc-v2");
    cm_table_default(&t, &tb);
    struct cm_model *m = cm_model_new(g, &t, &tb, NULL);
    struct cm_instance *in = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    struct sim_program *prog = NULL;
    assert_int_equal(cm_instance_compile(in, NULL, &prog, NULL, &err), 0);
    struct sim_stats ss;
    assert_int_equal(sim_run(&t, prog, NULL, &ss, &err), 0);
    struct cm_roofline r;
    cm_roofline(g, &t, &r);
    double ns = sim_ticks_ns(&ss, ss.ticks);
    print_message("%s: simulated %.0f ns, bound %.0f ns (%s), fraction %.3f\n", zc->name, ns,
                  r.bound_ns, cm_bound_name(r.bound_by), r.bound_ns / ns);
    assert_true(r.bound_ns > 0);
    assert_true(ns >= r.bound_ns);
    assert_true(hbm_read_bytes(prog) >= weight_bytes(g));
    sim_program_free(prog);
    cm_instance_free(in);
    cm_model_free(m);
    graph_free(g);
}

static void test_sim_not_below_bound(void **st)
{
    (void)st;
    static const struct zoo_case cases[] = {
        {"bert-base", 2, 64, 0},
        {"resnet50", 0, 0, 64},
        {"vit-b16", 1, 0, 64},
        {"whisper-enc", 1, 64, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_not_below(&cases[i]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_matmul_figures),
        cmocka_unit_test(test_gather_rows),
        cmocka_unit_test(test_sim_not_below_bound),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
