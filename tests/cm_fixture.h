/* tests/cm_fixture.h: a cost model and its .lsp instance of one graph on nc-v2 under the
 * datasheet table, for the cost-model tests that compile assignments of it. */
#ifndef LS_TESTS_CM_FIXTURE_H
#define LS_TESTS_CM_FIXTURE_H

#include <string.h>

#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/lg.h"
#include "sim/sim.h"
#include "sim/target.h"
#include "util/prng.h"

/* The validated graph of the .lg text txt (named name in messages). */
static inline struct graph *graph_of_text(const char *name, const char *txt)
{
    struct ls_error err = {0};
    struct graph *g = NULL;
    assert_int_equal(graph_read(name, txt, strlen(txt), &g, &err), 0);
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* The op producing tensor. */
static inline int32_t op_of(const struct graph *g, const char *tensor)
{
    return graph_tensor(g, graph_find_tensor(g, tensor))->producer;
}

struct fixture {
    struct sim_target t;
    struct cm_table tb;
    struct cm_model *m;
    struct cm_instance *in;
};

/* With codegen options o. */
static inline void open_model_opts(struct fixture *f, struct graph *g, const struct cg_options *o)
{
    struct ls_error err = {0};
    assert_int_equal(sim_target_builtin(&f->t, "nc-v2"), 0);
    cm_table_default(&f->t, &f->tb);
    f->m = cm_model_new(g, &f->t, &f->tb, o);
    assert_non_null(f->m);
    assert_int_equal(cm_instance_create(f->m, NULL, &f->in, &err), 0);
}

/* no_residency: the memory plan's switch (cg_options.no_residency) */
static inline void open_model_with(struct fixture *f, struct graph *g, int no_residency)
{
    struct cg_options o = {0};
    o.no_residency = no_residency;
    open_model_opts(f, g, &o);
}

static inline void open_model(struct fixture *f, struct graph *g)
{
    open_model_with(f, g, 0);
}

static inline void close_model(struct fixture *f)
{
    cm_instance_free(f->in);
    cm_model_free(f->m);
}

/* A random configuration per op of f's problem into cfg. */
static inline void random_assignment(const struct fixture *f, struct ls_rng *r, int32_t *cfg)
{
    const struct lsp_problem *p = f->in->p;
    for (int32_t i = 0; i < p->nops; i++)
        cfg[i] = (int32_t)ls_rng_below(r, (uint64_t)p->ops[i].ncfg);
}

/* The program of assignment cfg, whose table price must equal the .lsp objective; with
 * sim set it is simulated too, never below bound_ns. The caller frees it. */
static inline struct sim_program *compile_checked(struct fixture *f, const int32_t *cfg,
                                                  int sim, double bound_ns)
{
    struct ls_error err = {0};
    struct sim_program *prog = NULL;
    assert_int_equal(cm_instance_compile(f->in, cfg, &prog, NULL, &err), 0);
    int64_t priced;
    assert_int_equal(cm_price_program(&f->tb, &f->t, prog, &priced, &err), 0);
    assert_int_equal(priced, lsp_eval(f->in->p, cfg, NULL, NULL));
    if (sim) {
        struct sim_stats ss;
        assert_int_equal(sim_run(&f->t, prog, NULL, &ss, &err), 0);
        assert_true(sim_ticks_ns(&ss, ss.ticks) >= bound_ns);
    }
    return prog;
}

#endif
