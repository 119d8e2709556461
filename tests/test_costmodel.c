/* Tests of codegen + costmodel: golden tiling counts, tile limits from the target, one
 * conversion per distinct consumer layout, exact .lsp/program price consistency, and the
 * Figure 1 / Figure 2 properties. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/lg.h"
#include "sim/sim.h"
#include "util/prng.h"

struct cnt {
    int64_t n[SIM_OP_COUNT];
    int64_t evac, count;
};

static int64_t c_emit(void *ctx, const struct sim_instr *in, const int64_t *d, size_t nd,
                      struct ls_error *err)
{
    struct cnt *c = ctx;
    c->n[in->opcode]++;
    if (in->opcode == SIM_OP_ACTIVATION && in->src.mem == LS_MEM_PSUM)
        c->evac++;
    return c->count++;
}

static void lower_mm(const char *set, struct cnt *c)
{
    struct sim_target t;
    struct ls_error err = {0};
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    if (set)
        assert_int_equal(sim_target_set(&t, "pe.rows", set, &err), 0);
    struct graph *g = graph_new("mm");
    int32_t a = graph_input(g, "A", LS_DT_BF16, GRAPH_DIMS(512, 256), NULL);
    int32_t b = graph_weight(g, "B", LS_DT_BF16, GRAPH_DIMS(256, 1024), NULL);
    int32_t cc = graph_matmul(g, "C", a, b);
    graph_output(g, cc);
    assert_int_equal(graph_validate(g, &err), 0);
    memset(c, 0, sizeof *c);
    struct cg_sink s = {.ctx = c, .emit = c_emit, .op_tag = -1, .conv_tag = -1,
                        .sbuf_bytes = cg_step_sbuf_bytes(&t, NULL),
                        .psum_nbanks = cg_step_psum_banks(&t)};
    int8_t pax[3] = {1, 0, 0};  /* K on partitions for both, M on the output partitions */
    assert_int_equal(cg_lower_op(g, &t, NULL, graph_find_op(g, "C"), pax, &s, &err), 0);
    graph_free(g);
}

/* Tiling rule: kt = pe.rows, mt = pe.cols, T = 512, G = psum.banks/4 chunks per group.
 * M=512,K=256,N=1024: nK = 2, nM = 4, nT = 2 (one group): LS = nM*nK = 8,
 * MM = nM*nK*nT = 16, evacuations = nM*nT = 8. */
static void test_golden_matmul(void **st)
{
    (void)st;
    struct cnt c;
    lower_mm(NULL, &c);
    assert_int_equal(c.n[SIM_OP_MATMUL], 16);
    assert_int_equal(c.n[SIM_OP_LOAD_STATIONARY], 8);
    assert_int_equal(c.evac, 8);
    /* pe.rows = 64: nK = 4 */
    lower_mm("64", &c);
    assert_int_equal(c.n[SIM_OP_MATMUL], 32);
    assert_int_equal(c.n[SIM_OP_LOAD_STATIONARY], 16);
    assert_int_equal(c.evac, 8);
}

static struct graph *load(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", LAYSIM_SOURCE_DIR, name);
    struct graph *g = NULL;
    struct ls_error err = {0};
    assert_int_equal(graph_read_file(path, &g, &err), 0);
    return g;
}

struct setup {
    struct sim_target t;
    struct cm_table tb;
    struct cm_model *m;
    struct cm_instance *in;
    const struct lsp_problem *p;   /* in->p */
};

/* The instance of g under the datasheet table aggregated by agg; in_full: every group
 * charged in full (no exposed_share), as the comparisons between aggregations assume. */
static void build_with(struct setup *s, struct graph *g, const int *pins, enum cm_aggregate agg,
                       int in_full)
{
    struct ls_error err = {0};
    assert_int_equal(sim_target_builtin(&s->t, "nc-v2"), 0);
    cm_table_default(&s->t, &s->tb);
    cm_table_set_aggregate(&s->tb, agg, -1);
    if (in_full)
        s->tb.exposed = 0;
    s->m = cm_model_new(g, &s->t, &s->tb, NULL);
    assert_non_null(s->m);
    assert_int_equal(cm_instance_create(s->m, pins, &s->in, &err), 0);
    s->p = s->in->p;
}

static void build_agg(struct setup *s, struct graph *g, const int *pins, enum cm_aggregate agg)
{
    build_with(s, g, pins, agg, 0);
}

static void build(struct setup *s, struct graph *g, const int *pins)
{
    build_agg(s, g, pins, CM_AGG_SUM);
}

static void teardown(struct setup *s)
{
    cm_instance_free(s->in);
    cm_model_free(s->m);
}

/* objective of an lsp assignment == table price of the compiled program */
static void check_consistency(struct graph *g, struct setup *s, const int32_t *lcfg)
{
    struct ls_error err = {0};
    struct sim_program *prog = NULL;
    assert_int_equal(cm_instance_compile(s->in, lcfg, &prog, NULL, &err), 0);
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&s->tb, &s->t, prog, &priced, NULL), 0);
        assert_int_equal(priced, lsp_eval(s->p, lcfg, NULL, NULL));
    }
    sim_program_free(prog);
}

/* the op map is a bijection between same-named ops, and the three encodings of every
 * configuration agree with the .lsp cfg lines and codegen's layout lists */
static void check_instance(struct graph *g, const struct setup *s)
{
    const struct cm_instance *in = s->in;
    struct ls_error err = {0};
    assert_int_equal(in->p->nops, graph_nops(g));
    for (int32_t i = 0; i < in->p->nops; i++) {
        int32_t op = in->gop[i];
        assert_int_equal(in->pop[op], i);
        assert_string_equal(graph_op(g, op)->name, in->p->ops[i].name);
        for (int32_t c = 0; c < in->p->ops[i].ncfg; c++)
            for (int k = 0; k < in->p->ops[i].nslots; k++) {
                int pax;
                int32_t lay;
                assert_int_equal(cm_instance_layout(in, i, c, k, &pax, &lay, &err), 0);
                assert_int_equal(lay, lsp_cfg_layouts(in->p, i, c)[k]);
                const struct graph_op *x = graph_op(g, op);
                int32_t t = k < x->ninputs ? x->inputs[k] : x->output;
                assert_int_equal(cg_layout_index(g, t, pax), lay);
            }
        assert_int_equal(cm_instance_layout(in, i, in->p->ops[i].ncfg, 0, NULL, NULL, &err),
                         LS_ERR_INPUT);
    }
}

static void consistency_on(const char *file, enum cm_aggregate agg)
{
    struct graph *g = load(file);
    struct setup s;
    build_agg(&s, g, NULL, agg);
    check_instance(g, &s);
    int32_t *lcfg = calloc((size_t)s.p->nops, sizeof *lcfg);
    check_consistency(g, &s, lcfg);
    struct ls_rng r;
    ls_rng_seed(&r, 42);
    for (int it = 0; it < 50; it++) {
        for (int32_t i = 0; i < s.p->nops; i++)
            lcfg[i] = (int32_t)ls_rng_below(&r, (uint64_t)s.p->ops[i].ncfg);
        check_consistency(g, &s, lcfg);
    }
    free(lcfg);
    teardown(&s);
    graph_free(g);
}

static void test_consistency(void **st)
{
    (void)st;
    consistency_on("fig1.lg", CM_AGG_SUM);
    consistency_on("fig2.lg", CM_AGG_SUM);
}

/* the overlap-aware aggregation keeps objective == price of the compiled program, and
 * prices every group at most its sum (plus the exposed latency) */
static void test_consistency_max(void **st)
{
    (void)st;
    consistency_on("fig1.lg", CM_AGG_MAX);
    consistency_on("fig2.lg", CM_AGG_MAX);
    struct setup a, b;
    struct graph *g = load("fig2.lg");
    build_with(&a, g, NULL, CM_AGG_SUM, 1);
    build_with(&b, g, NULL, CM_AGG_MAX, 1);
    int64_t L = (int64_t)(b.tb.group_ns * b.t.base_mhz / 1000.0 + 0.5);
    int less = 0;
    for (int64_t k = 0; k < a.p->ncfg; k++) {
        if (a.p->cfg_cost[k] == 0) {
            assert_true(b.p->cfg_cost[k] == 0 || b.p->cfg_cost[k] > L);
            continue;
        }
        assert_true(b.p->cfg_cost[k] <= a.p->cfg_cost[k] + L);
        assert_true(b.p->cfg_cost[k] > L);
        less += b.p->cfg_cost[k] < a.p->cfg_cost[k];
    }
    assert_true(less > 0);  /* overlap is visible somewhere */
    teardown(&a);
    teardown(&b);
    graph_free(g);
}

/* the pipelined aggregation (the datasheet table's) keeps objective == price of the
 * compiled program and prices every configuration between its bottleneck-engine time and
 * its sum: never above "sum", and below it where a lowering has several tiles */
static void test_consistency_pipe(void **st)
{
    (void)st;
    consistency_on("fig1.lg", CM_AGG_PIPE);
    consistency_on("fig2.lg", CM_AGG_PIPE);
    struct setup a, b, c;
    struct graph *g = load("fig2.lg");
    build_with(&a, g, NULL, CM_AGG_SUM, 1);
    build_with(&b, g, NULL, CM_AGG_PIPE, 1);
    build_with(&c, g, NULL, CM_AGG_MAX, 1);
    int64_t L = (int64_t)(c.tb.group_ns * c.t.base_mhz / 1000.0 + 0.5);
    int less = 0;
    for (int64_t k = 0; k < a.p->ncfg; k++) {
        assert_true(b.p->cfg_cost[k] <= a.p->cfg_cost[k]);
        assert_true(b.p->cfg_cost[k] >= c.p->cfg_cost[k] - L);
        less += b.p->cfg_cost[k] < a.p->cfg_cost[k];
    }
    assert_true(less > 0);
    teardown(&a);
    teardown(&b);
    teardown(&c);
    graph_free(g);
}

static int find_cfg(const struct lsp_problem *p, const char *op, int slot, int layout)
{
    int32_t o = lsp_find_op(p, op, strlen(op));
    for (int c = 0; c < p->ops[o].ncfg; c++)
        if (lsp_cfg_layouts(p, o, c)[slot] == layout)
            return c;
    return -1;
}

static void test_fig1(void **st)
{
    (void)st;
    struct graph *g = load("fig1.lg");
    struct setup s;
    build(&s, g, NULL);
    /* reduce D over axis 0 of C: cheaper with C's axis 0 free (C in p:1, layout 1) */
    int32_t d = lsp_find_op(s.p, "D", 1);
    int free0 = find_cfg(s.p, "D", 0, 1), part0 = find_cfg(s.p, "D", 0, 0);
    assert_true(free0 >= 0 && part0 >= 0);
    assert_true(lsp_cfg_cost(s.p, d, free0) < lsp_cfg_cost(s.p, d, part0));
    teardown(&s);
    /* pin R to p:0; R's add then wants D broadcast and... take the assignment with the reduce
     * in its cheap layout and R's add in p:1 (following C/D): R pays a conversion */
    int *pins = malloc(sizeof *pins * (size_t)graph_nops(g));
    for (int32_t i = 0; i < graph_nops(g); i++)
        pins[i] = -2;
    /* what `--output-layout R=0` sets: the return op reading R, pinned to axis 0 */
    const struct graph_tensor *rt = graph_tensor(g, graph_find_tensor(g, "R"));
    int npinned = 0;
    for (size_t u = 0; u < rt->nuses; u++)
        if (graph_op(g, rt->uses[u].op)->kind == GRAPH_OP_RETURN) {
            pins[rt->uses[u].op] = 0;
            npinned++;
        }
    assert_int_equal(npinned, 1);
    build(&s, g, pins);
    int32_t *lcfg = calloc((size_t)s.p->nops, sizeof *lcfg);
    lcfg[lsp_find_op(s.p, "C", 1)] = find_cfg(s.p, "C", 2, 1);
    lcfg[lsp_find_op(s.p, "D", 1)] = find_cfg(s.p, "D", 0, 1);
    lcfg[lsp_find_op(s.p, "R", 1)] = find_cfg(s.p, "R", 2, 1);
    int32_t tr = lsp_find_tensor(s.p, "R", 1), nconv = 0;
    assert_true(lsp_eval_tensor(s.p, lcfg, tr, &nconv) > 0);
    assert_int_equal(nconv, 1);
    check_consistency(g, &s, lcfg);
    free(lcfg);
    free(pins);
    teardown(&s);
    graph_free(g);
}

static void test_fig2(void **st)
{
    (void)st;
    struct graph *g = load("fig2.lg");
    struct setup s;
    build(&s, g, NULL);
    int32_t *lcfg = calloc((size_t)s.p->nops, sizeof *lcfg);
    for (int32_t i = 0; i < s.p->nops; i++) {
        const struct lsp_op *o = &s.p->ops[i];
        if (o->out >= 0 && (strncmp(o->name, "c", 1) == 0 || strncmp(o->name, "b", 1) == 0) &&
            strcmp(o->kind, "source") != 0) {
            int outs[8] = {0}, nl = s.p->tensors[o->out].nlayouts;
            for (int c = 0; c < o->ncfg; c++)
                outs[lsp_cfg_out_layout(s.p, i, c)] = 1;
            assert_true(nl >= 2);
            int cnt = 0;
            for (int l = 0; l < nl; l++)
                cnt += outs[l];
            assert_true(cnt >= 2);   /* both layouts exist */
        }
        int best = 0;
        for (int c = 1; c < o->ncfg; c++)
            if (lsp_cfg_cost(s.p, i, c) < lsp_cfg_cost(s.p, i, best))
                best = c;
        lcfg[i] = best;
    }
    /* one conversion per batchnorm output whose layout differs from what the add wants */
    int expect = 0, got = 0;
    for (int32_t i = 0; i < s.p->nops; i++) {
        const struct lsp_op *o = &s.p->ops[i];
        if (strcmp(o->kind, "batchnorm") != 0)
            continue;
        int prod = lsp_cfg_out_layout(s.p, i, lcfg[i]);
        int32_t t = o->out;
        int wants[8] = {0};
        for (int32_t u = s.p->use_off[t]; u < s.p->use_off[t + 1]; u++) {
            int32_t uo = s.p->use_op[u];
            int l = lsp_cfg_layouts(s.p, uo, lcfg[uo])[s.p->use_slot[u]];
            if (l != prod && !wants[l]) {
                wants[l] = 1;
                expect++;
            }
        }
        int32_t nc = 0;
        lsp_eval_tensor(s.p, lcfg, t, &nc);
        got += nc;
    }
    assert_int_equal(got, expect);
    check_consistency(g, &s, lcfg);
    free(lcfg);
    teardown(&s);
    graph_free(g);
}

/* y has two consumers that both want p:1 while y is produced in p:0: one conversion */
static void test_shared_conversion(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("share");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(64, 128), NULL);
    int32_t y = graph_unary(g, "y", GRAPH_OP_RELU, x);
    int32_t a = graph_unary(g, "a", GRAPH_OP_EXP, y);
    int32_t b = graph_unary(g, "b", GRAPH_OP_TANH, y);
    graph_output(g, graph_binary(g, "r", GRAPH_OP_ADD, a, b));
    assert_int_equal(graph_validate(g, &err), 0);
    struct setup s;
    build(&s, g, NULL);
    int32_t *lcfg = calloc((size_t)s.p->nops, sizeof *lcfg);
    lcfg[lsp_find_op(s.p, "a", 1)] = find_cfg(s.p, "a", 0, 1);
    lcfg[lsp_find_op(s.p, "b", 1)] = find_cfg(s.p, "b", 0, 1);
    lcfg[lsp_find_op(s.p, "r", 1)] = find_cfg(s.p, "r", 0, 1);
    lcfg[lsp_find_op(s.p, "return:r", 8)] = find_cfg(s.p, "return:r", 0, 1);
    int32_t nc = 0;
    lsp_eval_tensor(s.p, lcfg, lsp_find_tensor(s.p, "y", 1), &nc);
    assert_int_equal(nc, 1);
    struct sim_program *prog = NULL;
    struct cg_compile_stats cs;
    assert_int_equal(cm_instance_compile(s.in, lcfg, &prog, &cs, &err), 0);
    assert_int_equal(cs.conversions, 1);
    {
        int64_t priced;
        assert_int_equal(cm_price_program(&s.tb, &s.t, prog, &priced, NULL), 0);
        assert_int_equal(priced, lsp_eval(s.p, lcfg, NULL, NULL));
    }
    sim_program_free(prog);
    free(lcfg);
    teardown(&s);
    graph_free(g);
}

/* A large matmul overlaps DMA and compute: simulated time < 0.8 x the sum of busy times. */
static void test_overlap(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = graph_new("bigmm");
    int32_t a = graph_input(g, "A", LS_DT_BF16, GRAPH_DIMS(2048, 2048), NULL);
    int32_t b = graph_weight(g, "B", LS_DT_BF16, GRAPH_DIMS(2048, 2048), NULL);
    graph_output(g, graph_matmul_axes(g, "C", a, b, 0, 0));
    assert_int_equal(graph_validate(g, &err), 0);
    struct setup s;
    build(&s, g, NULL);
    struct sim_program *prog = NULL;
    assert_int_equal(cm_instance_compile(s.in, NULL, &prog, NULL, &err), 0);
    struct sim_stats ss;
    assert_int_equal(sim_run(&s.t, prog, NULL, &ss, &err), 0);
    uint64_t busy = 0;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        busy += ss.engine[e].busy_ticks;
    print_message("overlap: %llu ticks, busy %llu (pe %llu dma %llu)\n", (unsigned long long)ss.ticks,
                  (unsigned long long)busy, (unsigned long long)ss.engine[LS_ENGINE_PE].busy_ticks,
                  (unsigned long long)ss.engine[LS_ENGINE_DMA].busy_ticks);
    assert_true((double)ss.ticks < 0.8 * (double)busy);
    sim_program_free(prog);
    teardown(&s);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden_matmul),     cmocka_unit_test(test_consistency),
        cmocka_unit_test(test_consistency_max),
        cmocka_unit_test(test_consistency_pipe),
        cmocka_unit_test(test_fig1),              cmocka_unit_test(test_fig2),
        cmocka_unit_test(test_shared_conversion), cmocka_unit_test(test_overlap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
