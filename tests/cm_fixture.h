/* tests/cm_fixture.h: a cost model and its .lsp instance of one graph on nc-v2 under the
 * datasheet table, for the cost-model tests that compile assignments of it. */
#ifndef LS_TESTS_CM_FIXTURE_H
#define LS_TESTS_CM_FIXTURE_H

#include "costmodel/costmodel.h"
#include "sim/target.h"

struct fixture {
    struct sim_target t;
    struct cm_table tb;
    struct cm_model *m;
    struct cm_instance *in;
};

/* no_residency: the memory plan's switch (cg_options.no_residency) */
static inline void open_model_with(struct fixture *f, struct graph *g, int no_residency)
{
    struct ls_error err = {0};
    assert_int_equal(sim_target_builtin(&f->t, "nc-v2"), 0);
    cm_table_default(&f->t, &f->tb);
    struct cg_options o = {0};
    o.no_residency = no_residency;
    f->m = cm_model_new(g, &f->t, &f->tb, &o);
    assert_non_null(f->m);
    assert_int_equal(cm_instance_create(f->m, NULL, &f->in, &err), 0);
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

#endif
