/* The ALWAYS/NEVER contracts between layers (util/invariant.h), each broken on purpose: a
 * memory plan with a slot outside its region or two live tensors in the same bytes
 * (codegen/memplan), a problem not finished handed to a solver (solver/solver.c), an
 * instance whose problem and graph op maps disagree, the configurations of another model
 * handed to cm_compile, and a program whose stream counts
 * do not add up handed to sim_run. Each must end in LS_ERR_INTERNAL, which is what a
 * release build returns; a debug build runs the same path because the test installs an
 * action that counts instead of aborting, and checks that it was called. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen/memplan.h"
#include "sim/micro.h"
#include "sim/program_int.h"
#include "solver/solver.h"
#include "util/invariant.h"
#include "cm_fixture.h"

static int broken;

static void count(const char *expr, const char *file, int line)
{
    (void)expr, (void)file, (void)line;
    broken++;
}

/* rc is the internal error, and a debug build saw the contract break. */
static void expect_internal(int rc, const struct ls_error *err)
{
    assert_int_equal(rc, LS_ERR_INTERNAL);
    assert_non_null(strstr(err->msg, "internal error") ? err->msg : strstr(err->msg, "solver"));
#ifdef NDEBUG
    assert_int_equal(broken, 0);
#else
    assert_true(broken > 0);
#endif
    broken = 0;
}

static int setup(void **st)
{
    (void)st;
    ls_invariant_set_action(count);
    broken = 0;
    return 0;
}

static void test_macros(void **st)
{
    (void)st;
    assert_int_equal(ALWAYS(2 > 1), 1);
    assert_int_equal(NEVER(2 < 1), 0);
    assert_int_equal(broken, 0);
    assert_int_equal(NEVER(2 > 1), 1);
    assert_int_equal(ALWAYS(2 < 1), 0);
#ifdef NDEBUG
    assert_int_equal(broken, 0);
#else
    assert_int_equal(broken, 2);
#endif
    broken = 0;
    struct ls_error err = {0};
    assert_int_equal(LS_INTERNAL(&err, "a contract"), LS_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "internal error: a contract ("));
}

/* x[256,512] @ W1 -> h -> relu -> r -> @ W2 -> y */
static struct graph *mlp(void)
{
    return graph_of_text("mlp.lg", "lg 1\n"
                                   "input x bf16 [256,512]\n"
                                   "weight w1 bf16 [512,512]\n"
                                   "weight w2 bf16 [512,256]\n"
                                   "op h bf16 [256,512] = matmul x w1\n"
                                   "op r bf16 [256,512] = relu h\n"
                                   "op y bf16 [256,256] = matmul r w2\n"
                                   "output y\n");
}

static void test_memplan(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct graph *g = mlp();
    struct cg_options o = {0};
    struct cg_memplan p;
    assert_int_equal(cg_memplan_build(g, &t, &o, &p, &err), 0);
    assert_int_equal(cg_memplan_check(g, &t, &p, &err), 0);
    assert_int_equal(broken, 0);
    int32_t h = graph_find_tensor(g, "h"), r = graph_find_tensor(g, "r");
    assert_true(cg_memplan_resident(&p, h) && cg_memplan_resident(&p, r));
    assert_true(p.res[h].last >= p.res[r].first); /* live together where relu runs */
    uint64_t slot = p.res[r].slot[0], first = (uint64_t)p.res[r].first;
    p.res[r].slot[0] = p.res[h].slot[0];         /* r in h's bytes */
    expect_internal(cg_memplan_check(g, &t, &p, &err), &err);
    p.res[r].slot[0] = p.region;                 /* past the region */
    expect_internal(cg_memplan_check(g, &t, &p, &err), &err);
    p.res[r].slot[0] = slot;
    p.res[r].first = p.res[r].last + 1;          /* a live range backwards */
    expect_internal(cg_memplan_check(g, &t, &p, &err), &err);
    p.res[r].first = (int32_t)first;
    assert_int_equal(cg_memplan_check(g, &t, &p, &err), 0);
    cg_memplan_free(&p);
    graph_free(g);
}

static void test_solve_and_compile(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = mlp();
    struct fixture f;
    open_model(&f, g);
    struct lsp_problem q = *f.in->p;             /* a problem its builder did not finish */
    q.finished = 0;
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    struct lsp_result res;
    expect_internal(lsp_solve("greedy", &q, &so, &res, &err), &err);
    lsp_result_free(&res);
    assert_int_equal(lsp_solve("greedy", f.in->p, &so, &res, &err), 0);
    lsp_result_free(&res);
    int32_t *pop = f.in->pop, g0 = f.in->gop[0], g1 = f.in->gop[1];
    pop[g0] = 1, pop[g1] = 0;                    /* the problem/graph maps disagree */
    struct sim_program *prog = NULL;
    expect_internal(cm_instance_compile(f.in, NULL, &prog, NULL, &err), &err);
    pop[g0] = 0, pop[g1] = 1;
    assert_int_equal(cm_instance_check(f.in, &err), 0);
    struct cm_cfgs other = f.in->cf;             /* the configurations of a larger model */
    other.nops++;
    expect_internal(cm_compile(f.m, &other, NULL, &prog, NULL, &err), &err);
    assert_null(prog);
    close_model(&f);
    graph_free(g);
}

static void test_sim_streams(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct sim_program *p = NULL;
    assert_int_equal(sim_micro_build("mix:instructions=200", &t, &p, &err), 0);
    struct sim_stats s;
    assert_int_equal(sim_run(&t, p, NULL, &s, &err), 0);
    size_t k = 0;
    while (!p->stream_n[k])
        k++;
    p->stream_n[k]--;                            /* its bookkeeping loses an instruction */
    expect_internal(sim_run(&t, p, NULL, &s, &err), &err);
    sim_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_macros, setup),
        cmocka_unit_test_setup(test_memplan, setup),
        cmocka_unit_test_setup(test_solve_and_compile, setup),
        cmocka_unit_test_setup(test_sim_streams, setup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
