/* study/pipeline: problem -> solve -> compile -> simulate, per strategy. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/pipeline.h"
#include "traces/trace.h"
#include "util/fileio.h"
#include "util/vec.h"

const char *const study_strategies[STUDY_NSTRATEGIES] = {"local", "greedy", "rulebased", "exact"};

void study_progress_phase(const struct study_progress_cb *cb, const char *fmt, ...)
{
    if (!cb->phase)
        return;
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    cb->phase(cb->ctx, buf);
}

struct study_pipe {
    const struct graph *g;
    struct sim_target t;
    struct cm_table tb, parts_tb;
    struct study_pipe_opts o;
    char *trace_dir, *program_dir, *trace_prefix;  /* copies of the options' strings */
    struct cm_model *m;
    struct cm_instance *in;
    const struct lsp_problem *prob;  /* in->p */
    LS_VEC(struct study_run *) runs;
};

void study_pipe_opts_init(struct study_pipe_opts *o)
{
    memset(o, 0, sizeof *o);
    lsp_opts_init(&o->solve);
    o->simulate = 1;
}

int study_pipe_new(const struct graph *g, const struct sim_target *t, const struct cm_table *tb,
                   const struct study_pipe_opts *o, struct study_pipe **out,
                   struct ls_error *err)
{
    *out = NULL;
    struct study_pipe *p = calloc(1, sizeof *p);
    if (!p)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    p->g = g;
    p->t = *t;
    p->tb = *tb;
    if (o)
        p->o = *o;
    else
        study_pipe_opts_init(&p->o);
    if (p->o.parts_table) {
        p->parts_tb = *p->o.parts_table;
        p->o.parts_table = &p->parts_tb;
    }
    int rc;
    p->trace_prefix = strdup(p->o.trace_prefix ? p->o.trace_prefix : "");
    p->trace_dir = p->o.trace_dir ? strdup(p->o.trace_dir) : NULL;
    p->program_dir = p->o.program_dir ? strdup(p->o.program_dir) : NULL;
    p->o.trace_prefix = p->trace_prefix;
    p->o.trace_dir = p->trace_dir;
    p->o.program_dir = p->program_dir;
    if (!p->trace_prefix || (o && o->trace_dir && !p->trace_dir) ||
        (o && o->program_dir && !p->program_dir)) {
        study_pipe_free(p);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    p->m = cm_model_new(g, &p->t, &p->tb, &p->o.cg);
    if (!p->m) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto fail;
    }
    if ((rc = cm_instance_create(p->m, p->o.pins, &p->in, err)))
        goto fail;
    p->prob = p->in->p;
    *out = p;
    return 0;
fail:
    study_pipe_free(p);
    return rc;
}

static void records_free(struct study_run *r)
{
    free(r->recs);
    free(r->price);
    free(r->parts);
    free(r->tag);
    if (r->tags) {
        for (size_t i = 0; i < r->ntags; i++)
            free((char *)r->tags[i]);
        free((void *)r->tags);
    }
    r->recs = NULL;
    r->price = NULL;
    r->parts = NULL;
    r->tag = NULL;
    r->tags = NULL;
    r->nrecs = r->ntags = 0;
}

static void run_free(struct study_run *r)
{
    if (!r)
        return;
    lsp_solution_free(&r->sol);
    records_free(r);
    free(r);
}

void study_pipe_drop_records(struct study_pipe *p, const struct study_run *r)
{
    for (size_t i = 0; i < p->runs.len; i++)
        if (p->runs.data[i] == r)
            records_free(p->runs.data[i]);
}

void study_pipe_free(struct study_pipe *p)
{
    if (!p)
        return;
    for (size_t i = 0; i < p->runs.len; i++)
        run_free(p->runs.data[i]);
    LS_VEC_FREE(&p->runs);
    cm_instance_free(p->in);
    cm_model_free(p->m);
    free(p->trace_dir);
    free(p->program_dir);
    free(p->trace_prefix);
    free(p);
}

/* <dir>/<prefix><strategy><ext> into buf; an error when it does not fit (no truncation). */
static int run_path(const struct study_pipe *p, const struct study_run *r, const char *dir,
                    const char *ext, char *buf, size_t n, struct ls_error *err)
{
    int k = snprintf(buf, n, "%s/%s%s%s", dir, p->trace_prefix, r->strategy, ext);
    if (k < 0 || (size_t)k >= n) {
        buf[0] = 0;
        return ls_error_msg(err, LS_ERR_INPUT, "%s/%s%s%s: path longer than %zu bytes", dir,
                            p->trace_prefix, r->strategy, ext, n - 1);
    }
    return 0;
}

/* The compiled program, as text, to <program_dir>/<prefix><strategy>.lsprog. */
static int write_program(const struct study_pipe *p, struct study_run *r,
                         const struct sim_program *prog, struct ls_error *err)
{
    int rc = run_path(p, r, p->program_dir, ".lsprog", r->program_path,
                      sizeof r->program_path, err);
    struct ls_atomic_file af;
    if (rc || (rc = ls_atomic_open(&af, r->program_path, err)))
        return rc;
    if ((rc = sim_program_write(prog, af.fp))) {
        ls_atomic_abort(&af);
        return ls_error_msg(err, rc, "%s: cannot write the program", r->program_path);
    }
    return ls_atomic_commit(&af, err);
}

const struct lsp_problem *study_pipe_problem(const struct study_pipe *p)
{
    return p->prob;
}

const struct sim_target *study_pipe_target(const struct study_pipe *p)
{
    return &p->t;
}

const struct cm_instance *study_pipe_instance(const struct study_pipe *p)
{
    return p->in;
}

static struct study_run *new_run(struct study_pipe *p, const char *label)
{
    if (LS_VEC_RESERVE(&p->runs, p->runs.len + 1))
        return NULL;
    struct study_run *r = calloc(1, sizeof *r);
    if (!r)
        return NULL;
    snprintf(r->strategy, sizeof r->strategy, "%s", label);
    lsp_solution_init(&r->sol);
    p->runs.data[p->runs.len++] = r;
    return r;
}

/* ---- simulation with trace file and record collection ---------------------------- */

struct collect {
    struct study_run *r;
    struct trace_sink file;      /* ctx NULL = none */
    const int32_t *map;          /* program tag id -> trace string id */
    const struct trace_sink *extra;
    size_t cap;
    int nomem;
};

static int collect_emit(void *ctx, const struct trace_record *rec)
{
    struct collect *c = ctx;
    if (c->file.ctx) {
        struct trace_record x = *rec;
        if (x.op_id >= 0)
            x.op_id = c->map[x.op_id];
        if (x.conv_id >= 0)
            x.conv_id = c->map[x.conv_id];
        int rc = c->file.emit(c->file.ctx, &x);
        if (rc)
            return rc;
    }
    if (c->extra) {
        int rc = c->extra->emit(c->extra->ctx, rec);
        if (rc)
            return rc;
    }
    if (c->r->recs && rec->id < c->cap)
        c->r->recs[rec->id] = *rec;
    return 0;
}

static int simulate(struct study_pipe *p, struct study_run *r, const struct sim_program *prog,
                    struct ls_error *err)
{
    size_t n = sim_program_count(prog);
    const struct ls_intern *strs = sim_program_strings(prog);
    struct collect c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.extra = p->o.sink;
    c.cap = n;
    int rc = 0;
    int32_t *map = NULL;
    struct trace_writer *w = NULL;
    if (p->o.keep_records) {
        r->recs = calloc(n + 1, sizeof *r->recs);
        r->price = malloc((n + 1) * sizeof *r->price);
        r->parts = malloc((n + 1) * sizeof *r->parts);
        r->tag = malloc((n + 1) * sizeof *r->tag);
        r->tags = calloc(strs->count + 1, sizeof *r->tags);
        if (!r->recs || !r->price || !r->tags || !r->parts || !r->tag)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        r->nrecs = n;
        r->ntags = strs->count;
        for (size_t i = 0; i < strs->count; i++)
            if (!(((const char **)r->tags)[i] = strdup(strs->strs[i])))
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        const struct cm_table *pt = p->o.parts_table ? p->o.parts_table : &p->tb;
        struct sim_instr buf;
        uint8_t *dep = malloc(n + 1);
        if (!dep || cm_program_dep_flags(prog, dep) ||
            cm_program_reload_flags(&p->tb, &p->t, prog, dep)) {
            free(dep);
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < n; i++) {
            const struct sim_instr *in = sim_program_get(prog, i, &buf);
            r->price[i] = cm_price_dep(&p->tb, &p->t, in, dep[i]);
            cm_price_parts(pt, &p->t, in, dep[i], &r->parts[i]);
            r->tag[i] = in->op_tag >= 0 ? in->op_tag : in->conv_tag;
        }
        free(dep);
    }
    if (p->o.trace_dir) {
        if ((rc = run_path(p, r, p->trace_dir, ".lstrace", r->trace_path,
                           sizeof r->trace_path, err)))
            return rc;
        size_t nop;
        const char *const *names = sim_opcode_names(&nop);
        struct trace_header h;
        memset(&h, 0, sizeof h);
        h.producer = TRACE_PROD_SIM;
        h.target = p->t.name;
        h.target_hash = sim_target_hash(&p->t);
        h.tick_hz = sim_target_tick_mhz(&p->t) * 1000000ull;
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            h.clock_mhz[e] = sim_engine_mhz(&p->t, (enum ls_engine)e);
        h.nopcodes = (uint32_t)nop;
        h.opcodes = names;
        if ((rc = trace_writer_open(&w, r->trace_path, &h, err)))
            return rc;
        map = malloc((strs->count + 1) * sizeof *map);
        if (!map) {
            trace_writer_abort(w);
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        }
        for (size_t i = 0; i < strs->count && !rc; i++)
            rc = trace_writer_intern(w, strs->strs[i], &map[i], err);
        if (rc) {
            free(map);
            trace_writer_abort(w);
            return rc;
        }
        c.file = trace_writer_sink(w);
        c.map = map;
    }
    struct trace_sink sink = {&c, collect_emit};
    struct sim_stats st;
    int need_sink = w || c.extra || r->recs;
    rc = sim_run(&p->t, prog, need_sink ? &sink : NULL, &st, err);
    free(map);
    if (w) {
        if (rc) {
            const struct ls_error *we = trace_writer_error(w);
            if (we && we->code && err)
                *err = *we;
            trace_writer_abort(w);
            r->trace_path[0] = 0;
        } else if ((rc = trace_writer_close(w, err))) {
            r->trace_path[0] = 0;
        }
    }
    if (rc)
        return rc;
    r->sim_ticks = st.ticks;
    r->sim_cycles = sim_ticks_base_cycles(&p->t, st.ticks);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        r->busy_cycles[e] = sim_ticks_base_cycles(&p->t, st.engine[e].busy_ticks);
    r->dma_efficiency = sim_dma_efficiency(&p->t, &st);
    r->conv_share = st.instr_ticks ? (double)st.conv_instr_ticks / (double)st.instr_ticks : 0;
    return 0;
}

/* predicted cost, compile, simulate an assignment already stored in r->sol */
static int finish_run(struct study_pipe *p, struct study_run *r, struct ls_error *err)
{
    const struct lsp_problem *pr = p->prob;
    r->predicted = lsp_eval(pr, r->sol.cfg, NULL, NULL);
    struct sim_program *prog = NULL;
    struct cg_compile_stats cs;
    int rc = cm_instance_compile(p->in, r->sol.cfg, &prog, &cs, err);
    if (rc)
        return rc;
    r->conversions = cs.conversions;
    r->instructions = cs.instructions;
    r->hbm_bytes = cs.hbm_bytes;
    int64_t priced;
    if ((rc = cm_price_program(&p->tb, &p->t, prog, &priced, err))) {
        sim_program_free(prog);
        char why[sizeof err->msg];
        snprintf(why, sizeof why, "%s", err->msg);
        return ls_error_msg(err, rc, "%s: %s", r->strategy, why);
    }
    if (priced != r->predicted) {
        sim_program_free(prog);
        return ls_error_msg(err, LS_ERR_INTERNAL,
                            "%s: price of the compiled program %lld != objective %lld",
                            r->strategy, (long long)priced, (long long)r->predicted);
    }
    if (p->o.program_dir)
        rc = write_program(p, r, prog, err);
    if (!rc && p->o.simulate)
        rc = simulate(p, r, prog, err);
    sim_program_free(prog);
    return rc;
}

static int fail_run(struct study_run *r, int rc, const struct ls_error *err)
{
    r->rc = rc;
    if (err)
        r->err = *err;
    return rc;
}

int study_pipe_run(struct study_pipe *p, const char *strategy, const struct study_run **out,
                   struct ls_error *err)
{
    struct study_run *r = new_run(p, strategy);
    if (!r)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    *out = r;
    struct lsp_result res;
    int rc = lsp_solve(strategy, p->prob, &p->o.solve, &res, err);
    r->solve_seconds = res.seconds;
    r->stats = res.stats;
    r->status = res.sol.status;
    r->has_bound = res.sol.has_bound;
    r->bound = res.sol.bound;
    if (rc) {
        lsp_result_free(&res);
        return fail_run(r, rc, err);
    }
    if (res.sol.status == LSP_UNKNOWN || !res.sol.cfg) {
        lsp_result_free(&res);
        rc = ls_error_msg(err, LS_ERR_LIMIT, "%s found no assignment", strategy);
        return fail_run(r, rc, err);
    }
    r->sol = res.sol;                 /* take ownership of the assignment */
    lsp_solution_init(&res.sol);
    lsp_result_free(&res);
    if (p->o.skip && p->o.skip(p->o.skip_ctx, r->sol.cfg, p->prob->nops)) {
        r->skipped = 1;
        r->predicted = lsp_eval(p->prob, r->sol.cfg, NULL, NULL);
        return 0;
    }
    if ((rc = finish_run(p, r, err)))
        return fail_run(r, rc, err);
    return 0;
}

int study_pipe_eval(struct study_pipe *p, const char *label, const int32_t *cfg,
                    const struct study_run **out, struct ls_error *err)
{
    struct study_run *r = new_run(p, label);
    if (!r)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    *out = r;
    int rc = lsp_check_assignment(p->prob, cfg, err);
    if (!rc)
        rc = lsp_solution_alloc(&r->sol, p->prob, err);
    if (rc)
        return fail_run(r, rc, err);
    memcpy(r->sol.cfg, cfg, sizeof *cfg * (size_t)p->prob->nops);
    r->sol.status = LSP_FEASIBLE;
    r->status = LSP_FEASIBLE;
    r->sol.cost = lsp_eval(p->prob, cfg, NULL, NULL);
    if ((rc = finish_run(p, r, err)))
        return fail_run(r, rc, err);
    return 0;
}

int study_pipe_run_all(struct study_pipe *p, const char *const *names, int n,
                       const struct study_run **out, struct ls_error *err)
{
    for (int i = 0; i < n; i++) {
        struct ls_error e2 = {0};
        int rc = study_pipe_run(p, names[i], &out[i], &e2);
        if (rc == LS_ERR_NOMEM || rc == LS_ERR_IO || rc == LS_ERR_INTERNAL) {
            if (err)
                *err = e2;
            return rc;
        }
    }
    return 0;
}
