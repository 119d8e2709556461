/* api/run: instances (model + target + table -> problem), compiling and simulating. */
#include <stdio.h>
#include <stdlib.h>

#include "api/api_int.h"
#include "costmodel/tie.h"
#include "sim/sim.h"
#include "study/measured.h"
#include "util/fileio.h"


LAYSIM_API int laysim_instance_new(laysim_ctx *cx, const laysim_model *m, const laysim_target *t,
                                   const laysim_table *table, laysim_instance **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, m, API_MAGIC_MODEL, "laysim_instance_new", "model")) ||
        (rc = api_handle(cx, t, API_MAGIC_TARGET, "laysim_instance_new", "target")) ||
        (rc = api_need(cx, out, "laysim_instance_new", "out")) ||
        (table && (rc = api_handle(cx, table, API_MAGIC_TABLE, "laysim_instance_new", "table"))))
        return rc;
    *out = NULL;
    laysim_instance *in = calloc(1, sizeof *in);
    if (!in)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    in->magic = API_MAGIC_INSTANCE;
    in->problem.magic = API_MAGIC_PROBLEM;
    in->model = (laysim_model *)m;
    atomic_fetch_add(&in->model->refs, 1);
    in->t = t->t;
    if (table)
        in->tb = table->tb;
    else
        cm_table_default(&in->t, &in->tb);
    struct cg_options cg = {0};
    cg.max_instructions = CG_MAX_INSTRUCTIONS_DEFAULT;
    in->m = cm_model_new(m->g, &in->t, &in->tb, &cg);
    if (!in->m)
        rc = ls_error_msg(&cx->err, LS_ERR_NOMEM, "out of memory");
    else
        rc = cm_instance_create(in->m, NULL, &in->in, &cx->err);
    if (rc) {
        laysim_instance_free(in);
        return api_done(cx, rc);
    }
    in->problem.p = in->in->p;
    cm_tie_set(&in->problem.p->tie, m->hash, &in->t, &in->tb);
    *out = in;
    return api_done(cx, 0);
}

LAYSIM_API void laysim_instance_free(laysim_instance *in)
{
    if (!api_is(in, API_MAGIC_INSTANCE))
        return;
    in->magic = in->problem.magic = API_MAGIC_DEAD;
    cm_instance_free(in->in);
    cm_model_free(in->m);
    api_model_release(in->model);
    free(in);
}

LAYSIM_API const laysim_problem *laysim_instance_problem(const laysim_instance *in)
{
    return api_is(in, API_MAGIC_INSTANCE) ? &in->problem : NULL;
}

/* Refuse a solution whose headers say it was solved for another problem (as `laysim
 * compile` does), unless the caller said to ignore them. */
static int check_tie(laysim_ctx *cx, const laysim_instance *in, const laysim_solution *s,
                     unsigned flags)
{
    char what[1024];
    if (flags & LAYSIM_IGNORE_MISMATCH ||
        lsp_sol_tie_check(in->in->p, &s->sol, what, sizeof what) != LSP_TIE_MISMATCH)
        return 0;
    return api_fail(cx, LAYSIM_EINPUT, "laysim_compile: the solution was solved for another "
                    "problem: %s (LAYSIM_IGNORE_MISMATCH to compile it anyway)", what);
}

LAYSIM_API int laysim_compile(laysim_ctx *cx, const laysim_instance *in, const laysim_solution *s,
                              laysim_program **out)
{
    return laysim_compile_ex(cx, in, s, 0, out);
}

LAYSIM_API int laysim_compile_ex(laysim_ctx *cx, const laysim_instance *in,
                                 const laysim_solution *s, unsigned flags, laysim_program **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, in, API_MAGIC_INSTANCE, "laysim_compile", "instance")) ||
        (rc = api_need(cx, out, "laysim_compile", "out")) ||
        (s && (rc = api_handle(cx, s, API_MAGIC_SOLUTION, "laysim_compile", "solution"))))
        return rc;
    *out = NULL;
    if (s && (!s->sol.cfg || s->sol.nops != in->in->p->nops ||
              lsp_check_assignment(in->in->p, s->sol.cfg, NULL)))
        return api_fail(cx, LAYSIM_EINPUT, "laysim_compile: the solution has no assignment for "
                        "this instance's %d ops", in->in->p->nops);
    if (s && (rc = check_tie(cx, in, s, flags)))
        return rc;
    laysim_program *pr = calloc(1, sizeof *pr);
    if (!pr)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    pr->magic = API_MAGIC_PROGRAM;
    struct cg_compile_stats st;
    if ((rc = cm_instance_compile(in->in, s ? s->sol.cfg : NULL, &pr->p, &st, &cx->err))) {
        free(pr);
        return api_done(cx, rc);
    }
    cm_tie_program(pr->p, in->problem.p, &in->t);
    *out = pr;
    return api_done(cx, 0);
}

LAYSIM_API int laysim_program_load(laysim_ctx *cx, const char *path, laysim_program **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need(cx, path, "laysim_program_load", "path")) ||
        (rc = api_need(cx, out, "laysim_program_load", "out")))
        return rc;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    (*out)->magic = API_MAGIC_PROGRAM;
    if ((rc = sim_program_load(&(*out)->p, path, &cx->err))) {
        free(*out);
        *out = NULL;
    }
    return api_done(cx, rc);
}

LAYSIM_API int laysim_program_write(laysim_ctx *cx, const laysim_program *pr, const char *path)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, pr, API_MAGIC_PROGRAM, "laysim_program_write", "program")) ||
        (rc = api_need(cx, path, "laysim_program_write", "path")))
        return rc;
    char *body = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&body, &len);
    if (!mf)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    sim_program_write(pr->p, mf);
    if (fclose(mf)) {
        free(body);
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    }
    rc = ls_write_file_atomic(path, body, len, &cx->err);
    free(body);
    return api_done(cx, rc);
}

LAYSIM_API void laysim_program_free(laysim_program *pr)
{
    if (!api_is(pr, API_MAGIC_PROGRAM))
        return;
    pr->magic = API_MAGIC_DEAD;
    sim_program_free(pr->p);
    free(pr);
}

LAYSIM_API uint64_t laysim_program_instructions(const laysim_program *pr)
{
    return api_is(pr, API_MAGIC_PROGRAM) ? sim_program_count(pr->p) : 0;
}

/* The figures `laysim sim --json` prints, from the simulator's statistics. */
static void fill_result(const struct sim_target *t, const struct sim_stats *st,
                        laysim_sim_result *r)
{
    r->cycles = sim_ticks_base_cycles(t, st->ticks);
    r->ns = sim_ticks_ns(st, st->ticks);
    r->instructions = st->instructions;
    r->dma_bytes = st->dma_bytes;
    r->conversion_share =
        st->instr_ticks ? (double)st->conv_instr_ticks / (double)st->instr_ticks : 0.0;
    for (int e = 0; e < LAYSIM_ENGINES; e++) {
        const struct sim_engine_stats *es = &st->engine[e];
        r->engine[e].instructions = es->instructions;
        r->engine[e].busy_cycles = sim_ticks_cycles(t, (enum ls_engine)e, es->busy_ticks);
        r->engine[e].utilization = st->ticks ? (double)es->busy_ticks / (double)st->ticks : 0.0;
    }
}

LAYSIM_API int laysim_simulate(laysim_ctx *cx, const laysim_target *t, const laysim_program *pr,
                               const char *trace_path, laysim_sim_result *out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, t, API_MAGIC_TARGET, "laysim_simulate", "target")) ||
        (rc = api_handle(cx, pr, API_MAGIC_PROGRAM, "laysim_simulate", "program")) ||
        (rc = api_need(cx, out, "laysim_simulate", "out")))
        return rc;
    struct sim_stats *st = calloc(1, sizeof *st);
    if (!st)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    rc = trace_path ? sim_run_trace(&t->t, pr->p, trace_path, st, &cx->err)
                    : sim_run(&t->t, pr->p, NULL, st, &cx->err);
    if (!rc) {
        *out = (laysim_sim_result){0};
        fill_result(&t->t, st, out);
    }
    free(st);
    return api_done(cx, rc);
}

LAYSIM_API int laysim_validate_measured(laysim_ctx *cx, const char *manifest, double base_mhz,
                                        laysim_fidelity *out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need(cx, manifest, "laysim_validate_measured", "manifest")) ||
        (rc = api_need(cx, out, "laysim_validate_measured", "out")))
        return rc;
    struct study_measured m;
    if ((rc = study_measured_read(manifest, base_mhz > 0 ? base_mhz : 1400, &m, &cx->err)))
        return api_done(cx, rc);
    *out = (laysim_fidelity){(int32_t)m.models.len, m.rows, m.all.pw.pairs, m.all.pw.correct,
                             m.all.pw.identical, m.all.pairwise_accuracy, m.all.kendall_tau,
                             m.all.median_rel_error, m.all.max_rel_error,
                             m.exact_within_1pct_all};
    study_measured_free(&m);
    return api_done(cx, 0);
}
