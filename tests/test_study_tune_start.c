/* study_tune with a caller-given start assignment (study_tune_args.start_cfg), as the study's
 * mcts cell uses it: no start solver runs, the report's start is that assignment priced by
 * the .lsp objective, the tuner scores it first and never returns a slower design; an
 * out-of-range start configuration is an input error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "costmodel/costmodel.h"
#include "graph/model.h"
#include "sim/target.h"
#include "solver/solver.h"
#include "study/pipeline.h"
#include "study/study_tune.h"

struct fixture {
    struct graph *g;
    struct sim_target t;
    struct cm_table tb;
    struct study_pipe *pipe;
    const struct lsp_problem *p;
};

static void open_cnn(struct fixture *f)
{
    memset(f, 0, sizeof *f);
    struct ls_error err = {0};
    struct zoo_opts zo;
    zoo_opts_init(&zo);
    zo.layers = 1;
    zo.image = 32;
    assert_int_equal(model_load("zoo:cnn", &zo, &f->g, &err), 0);
    assert_int_equal(sim_target_builtin(&f->t, "nc-v2"), 0);
    cm_table_default(&f->t, &f->tb);
    struct study_pipe_opts po;
    study_pipe_opts_init(&po);
    assert_int_equal(study_pipe_new(f->g, &f->t, &f->tb, &po, &f->pipe, &err), 0);
    f->p = study_pipe_problem(f->pipe);
}

static void close_cnn(struct fixture *f)
{
    study_pipe_free(f->pipe);
    graph_free(f->g);
}

static void args_for(struct fixture *f, struct study_tune_args *a)
{
    study_tune_args_init(a);
    a->in = study_pipe_instance(f->pipe);
    a->target = &f->t;
    a->table = &f->tb;
    a->tune.seed = 1;
    a->tune.max_evaluations = 12;
}

static void test_given_start(void **state)
{
    (void)state;
    struct fixture f;
    open_cnn(&f);
    struct ls_error err = {0};
    /* the local solver's answer: slower on the simulator than the best assignment */
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    struct lsp_result r;
    assert_int_equal(lsp_solve("local", f.p, &so, &r, &err), 0);
    const struct study_run *run;
    assert_int_equal(study_pipe_eval(f.pipe, "local", r.sol.cfg, &run, &err), 0);

    struct study_tune_args a;
    args_for(&f, &a);
    a.start = "no-such-solver";    /* ignored when start_cfg is given */
    a.start_cfg = r.sol.cfg;
    struct study_tune_report rep;
    assert_int_equal(study_tune(&a, &rep, &err), 0);
    assert_non_null(rep.start.cfg);
    assert_memory_equal(rep.start.cfg, r.sol.cfg, sizeof *r.sol.cfg * (size_t)f.p->nops);
    assert_int_equal(rep.start.status, LSP_FEASIBLE);
    assert_int_equal(rep.start.cost, lsp_eval(f.p, r.sol.cfg, NULL, NULL));
    assert_true(rep.start_seconds == 0);
    /* the start is scored first: its reward is the pipeline's simulated time */
    assert_true(rep.result.start_cycles == (double)run->sim_cycles);
    assert_true(rep.result.best_cycles <= rep.result.start_cycles);
    assert_int_equal(rep.result.evaluations, 12);
    assert_non_null(rep.best.cfg);
    assert_int_equal(rep.best.cost, lsp_eval(f.p, rep.best.cfg, NULL, NULL));
    /* the best design re-simulates to the reported time */
    const struct study_run *best;
    assert_int_equal(study_pipe_eval(f.pipe, "best", rep.best.cfg, &best, &err), 0);
    assert_true((double)best->sim_cycles == rep.result.best_cycles);
    study_tune_report_free(&rep);

    /* same seed, same budget: the same design */
    struct study_tune_report rep2;
    assert_int_equal(study_tune(&a, &rep2, &err), 0);
    assert_true(rep2.result.best_cycles == best->sim_cycles);
    study_tune_report_free(&rep2);

    /* a configuration out of range is bad input, not a crash */
    int32_t *bad = malloc(sizeof *bad * (size_t)f.p->nops);
    assert_non_null(bad);
    memcpy(bad, r.sol.cfg, sizeof *bad * (size_t)f.p->nops);
    bad[f.p->nops - 1] = f.p->ops[f.p->nops - 1].ncfg;
    a.start_cfg = bad;
    assert_int_equal(study_tune(&a, &rep, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "out of range"));
    study_tune_report_free(&rep);
    free(bad);

    /* without start_cfg the named start solver still runs (and an unknown one is bad input) */
    a.start_cfg = NULL;
    assert_int_equal(study_tune(&a, &rep, &err), LS_ERR_INPUT);
    study_tune_report_free(&rep);
    a.start = "local";
    assert_int_equal(study_tune(&a, &rep, &err), 0);
    assert_memory_equal(rep.start.cfg, r.sol.cfg, sizeof *r.sol.cfg * (size_t)f.p->nops);
    study_tune_report_free(&rep);

    lsp_result_free(&r);
    close_cnn(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_given_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
