/* cg-8 lowering rule outside attention: a reshape between two HBM tensors is an alias of
 * its input's buffer (no instruction, readers wait for the input's writers); price ==
 * objective for random assignments, never faster than the roofline bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "costmodel/roofline.h"
#include "sim/sim.h"
#include "util/prng.h"
#include "cm_fixture.h"

/* x [256, 512] -> a = exp x -> r = reshape a [256, 8, 64] -> y = exp r (returned) */
static struct graph *split_heads(void)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("split");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(256, 512), NULL);
    int32_t a = graph_unary(g, "a", GRAPH_OP_EXP, x);
    int64_t sz[3] = {256, 8, 64};
    int32_t r = graph_reshape(g, "r", a, 3, sz, NULL);
    graph_output(g, graph_unary(g, "y", GRAPH_OP_EXP, r));
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

static double bound_of(const struct fixture *f, const struct graph *g)
{
    struct cm_roofline rf;
    cm_roofline(g, &f->t, &rf);
    return rf.bound_ns;
}

/* Everything in HBM (no memory plan): the reshape emits nothing, and each load of y's
 * input waits for a store of a (the same bytes). */
static void test_reshape_alias(void **st)
{
    (void)st;
    struct graph *g = split_heads();
    struct fixture f;
    open_model_with(&f, g, 1);
    struct ls_rng rng;
    ls_rng_seed(&rng, 16);
    int32_t *cfg = malloc(sizeof *cfg * (size_t)f.in->p->nops);
    for (int it = 0; it < 20; it++) {
        if (it)
            random_assignment(&f, &rng, cfg);
        else
            memset(cfg, 0, sizeof *cfg * (size_t)f.in->p->nops);
        struct sim_program *pr = compile_checked(&f, cfg, 1, bound_of(&f, g));
        int32_t tr = sim_program_tag(pr, "r"), ta = sim_program_tag(pr, "a"),
                ty = sim_program_tag(pr, "y");
        int loads = 0;
        for (size_t i = 0; i < sim_program_count(pr); i++) {
            struct sim_instr buf;
            const struct sim_instr *in = sim_program_get(pr, i, &buf);
            assert_int_not_equal(in->op_tag, tr);
            /* (conversions between HBM layouts may still copy HBM -> HBM) */
            assert_false(in->conv_tag < 0 && in->src.mem == LS_MEM_HBM &&
                         in->dst.mem == LS_MEM_HBM);
            if (in->op_tag != ty || in->engine != LS_ENGINE_DMA || in->src.mem != LS_MEM_HBM ||
                in->conv_tag >= 0)
                continue;
            size_t nd;
            const uint32_t *d = sim_program_deps(pr, i, &nd);
            int on_a = 0;
            for (size_t k = 0; k < nd; k++) {
                struct sim_instr b2;
                const struct sim_instr *w = sim_program_get(pr, d[k], &b2);
                on_a |= w->engine == LS_ENGINE_DMA && w->dst.mem == LS_MEM_HBM &&
                        (w->op_tag == ta || w->conv_tag >= 0);
            }
            loads += on_a;
        }
        assert_true(loads > 0);
        sim_program_free(pr);
    }
    free(cfg);
    close_model(&f);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reshape_alias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
