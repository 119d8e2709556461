/* study/study_run: running the grid of (model, target) jobs on worker threads. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "costmodel/roofline.h"
#include "graph/model.h"
#include "study/loop.h"
#include "study/pipeline.h"
#include "study/study.h"
#include "study/study_int.h"
#include "util/clock.h"

void study_opts_init(struct study_opts *o)
{
    memset(o, 0, sizeof *o);
    o->calibrate = 1;
    o->shard_k = o->shard_n = 1;
    o->jobs = 1;
    o->exact_time_limit = STUDY_EXACT_TIME_LIMIT_DEFAULT;
    o->dp_time_limit = STUDY_DP_TIME_LIMIT_DEFAULT;
    o->dp_mem_limit = (int64_t)STUDY_DP_MEM_LIMIT_MIB_DEFAULT << 20;
    o->mcts_time_limit = STUDY_MCTS_TIME_LIMIT_DEFAULT;
}

int study_cells_per_job(const struct study_opts *o)
{
    int tables = o->calibrate ? 2 : 1;
    return STUDY_NSTRATEGIES * tables + 1 + (o->mcts_evaluations > 0 ? tables : 0);
}

void study_opts_free(struct study_opts *o)
{
    study_models_free(&o->models);
    study_targets_free(&o->targets);
}

/* The calibration loop's fit (study_loop_calibrate), in sample on the strategy programs
 * of every model of o (each loaded at its own scale; models that fail to load are left to
 * their jobs to report). */
int study_calibrated_table(const struct study_opts *o, const struct sim_target *t,
                           struct cm_table *out, struct ls_error *err)
{
    size_t n = o->models.n;
    struct graph **gs = calloc(n + 1, sizeof *gs);
    if (!gs)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        struct ls_error e2 = {0};
        int r = model_load(o->models.m[i].spec, &o->models.m[i].opts, &gs[i], &e2);
        if (r == LS_ERR_NOMEM)
            rc = ls_error_msg(err, r, "%s", e2.msg);
        else if (r)
            gs[i] = NULL;
    }
    if (!rc) {
        struct study_loop_opts lo;
        study_loop_opts_init(&lo);
        lo.target = *t;
        lo.solve.time_limit = o->exact_time_limit;
        lo.threads = o->jobs;
        lo.progress = o->progress;
        rc = study_loop_calibrate((const struct graph *const *)gs, (int)n, &lo, out, NULL, err);
    }
    for (size_t i = 0; i < n; i++)
        graph_free(gs[i]);
    free(gs);
    return rc;
}

static void hex64(uint64_t h, char *buf, size_t n)
{
    snprintf(buf, n, "%016llx", (unsigned long long)h);
}

/* ---- one job ------------------------------------------------------------------------ */


struct shared {
    const struct study_opts *o;
    struct cm_table *calib;          /* per target (when o->calibrate) */
    struct job *jobs;
    size_t njobs, next, done, pairs_done; /* jobs: pair halves; pairs: their datasheet halves */
    struct study_db *st;
    pthread_mutex_t mu;
    int hard_rc;
    struct ls_error hard_err;
    size_t cells, cells_failed;
};

/* "op=pax,pax;" per problem op: the partition axes of the chosen configuration. */
char *study_layouts_of(struct study_pipe *pp, const int32_t *cfg)
{
    const struct cm_instance *in = study_pipe_instance(pp);
    const struct lsp_problem *p = in->p;
    char *buf = NULL;
    size_t len = 0;
    /* a memory stream: as long as the names and slots need, never cut */
    FILE *f = open_memstream(&buf, &len);
    if (!f)
        return NULL;
    for (int32_t i = 0; i < p->nops; i++) {
        fprintf(f, "%s=", p->ops[i].name);
        for (int s = 0; s < p->ops[i].nslots; s++) {
            int pax = 0;
            if (cm_instance_layout(in, i, cfg[i], s, &pax, NULL, NULL)) {
                fclose(f);
                free(buf);
                return NULL;
            }
            fprintf(f, "%s%d", s ? "," : "", pax);
        }
        fputc(';', f);
    }
    if (fclose(f) || !buf) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* The model's roofline in base-clock cycles (the unit of sim_cycles) and the share of
 * the simulated time each engine was busy: how far the program is from the bound, and
 * which engine it spends its time on. */
static void cell_roofline(struct study_cell *c, const struct study_pipe *pp,
                          const struct study_run *run)
{
    const struct sim_target *t = study_pipe_target(pp);
    struct cm_roofline rf;
    cm_roofline(study_pipe_instance(pp)->g, t, &rf);
    c->roofline_cycles = rf.bound_ns * t->base_mhz * 1e-3;
    snprintf(c->roofline_by, sizeof c->roofline_by, "%s", cm_bound_name(rf.bound_by));
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        c->busy[e] = (double)run->busy_cycles[e] / (double)run->sim_cycles;
    c->conv_share = run->conv_share;
}

int study_cell_fill(struct study_cell *c, struct study_pipe *pp, const struct study_run *run,
                    struct ls_error *err)
{
    c->predicted = run->predicted;
    c->sim_cycles = (int64_t)run->sim_cycles;
    c->conversions = run->conversions;
    c->instructions = run->instructions;
    c->dma_eff = run->dma_efficiency;
    if (run->sim_cycles)
        cell_roofline(c, pp, run);
    c->layouts = study_layouts_of(pp, run->sol.cfg);
    return c->layouts ? 0 : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
}

void study_cell_base(struct study_cell *c, const struct study_model *m, size_t mi,
                      const struct study_target *t, size_t ti, const char *strategy,
                      const char *table, const struct cm_table *tb, int64_t ops, int tw)
{
    study_cell_init(c);
    snprintf(c->model, sizeof c->model, "%s", m->name);
    snprintf(c->target, sizeof c->target, "%s", t->label);
    snprintf(c->strategy, sizeof c->strategy, "%s", strategy);
    snprintf(c->table, sizeof c->table, "%s", table);
    snprintf(c->family, sizeof c->family, "%s", m->family);
    snprintf(c->group, sizeof c->group, "%s", m->group);
    snprintf(c->scale, sizeof c->scale, "%s", m->scale);
    snprintf(c->variant, sizeof c->variant, "%s", t->variant);
    c->model_ix = (int)mi;
    c->target_ix = (int)ti;
    hex64(sim_target_hash(&t->t), c->target_hash, sizeof c->target_hash);
    hex64(cm_table_hash(tb), c->table_hash, sizeof c->table_hash);
    c->ops = ops;
    c->treewidth = tw;
}

void study_cell_error(struct study_cell *c, int rc, const struct ls_error *e)
{
    c->rc = rc;
    snprintf(c->error, sizeof c->error, "%.255s", e->msg);
}

static int same_cfg(const int32_t *a, const int32_t *b, int32_t n)
{
    return a && b && !memcmp(a, b, sizeof *a * (size_t)n);
}

/* Run the four strategies (dp under the datasheet table, mcts when asked) under one table. */
static int run_table(const struct study_opts *o, struct job *j, const struct graph *g,
                     const struct cm_table *tb, const char *tname, int tw,
                     struct ls_error *err)
{
    const struct study_model *m = &o->models.m[j->model];
    const struct study_target *t = &o->targets.t[j->target];
    struct study_pipe_opts po;
    study_pipe_opts_init(&po);
    struct study_pipe *pp = NULL;
    struct ls_error e2 = {0};
    uint64_t t0 = ls_now_ns();
    study_progress_phase(&o->progress, "%s @ %s (%s): building the problem", m->name,
                         t->label, tname);
    int rc = study_pipe_new(g, &t->t, tb, &po, &pp, &e2);
    if (rc == LS_ERR_NOMEM)
        return ls_error_msg(err, rc, "%s", e2.msg);
    if (rc) {
        /* the model does not fit this target: every cell records it */
        for (int s = 0; s < STUDY_NSTRATEGIES + 2; s++) {
            if (s == STUDY_NSTRATEGIES && strcmp(tname, STUDY_TABLE_DATASHEET))
                continue;
            if (s == STUDY_NSTRATEGIES + 1 && !o->mcts_evaluations)
                continue;
            struct study_cell c;
            study_cell_base(&c, m, j->model, t, j->target,
                      s < STUDY_NSTRATEGIES    ? study_strategies[s]
                      : s == STUDY_NSTRATEGIES ? STUDY_DP
                                               : STUDY_MCTS,
                      tname, tb, 0, tw);
            if (s == STUDY_NSTRATEGIES + 1)
                c.tune_budget = (int64_t)o->mcts_evaluations;
            study_cell_error(&c, rc, &e2);
            int r2 = study_cells_push(&j->out, &c, err);
            study_cell_free(&c);
            if (r2)
                return r2;
        }
        return 0;
    }
    double build_s = ls_seconds_since(t0);
    const struct lsp_problem *p = study_pipe_problem(pp);
    const int32_t *prev_cfg[STUDY_NSTRATEGIES] = {0};
    const struct study_run *prev_run[STUDY_NSTRATEGIES] = {0};
    int exact_rc = 0;
    char exact_msg[256] = "";
    for (int s = 0; s < STUDY_NSTRATEGIES && !rc; s++) {
        const char *name = study_strategies[s];
        study_progress_phase(&o->progress, "%s @ %s (%s): %s", m->name, t->label, tname,
                             name);
        struct study_cell c;
        study_cell_base(&c, m, j->model, t, j->target, name, tname, tb, p->nops, tw);
        uint64_t c0 = ls_now_ns();
        struct lsp_solve_opts so;
        lsp_opts_init(&so);
        if (!strcmp(name, "exact"))
            so.time_limit = o->exact_time_limit;
        struct lsp_result res;
        e2 = (struct ls_error){0};
        int r = lsp_solve(name, p, &so, &res, &e2);
        c.solve_seconds = res.seconds;
        snprintf(c.status, sizeof c.status, "%s", lsp_status_name(res.sol.status));
        if (res.sol.has_bound)
            c.bound = res.sol.bound;
        const double *v;
        if ((v = lsp_stats_get(&res.stats, "components_exhaustive")))
            c.rb_exhaustive = (int)*v;
        if ((v = lsp_stats_get(&res.stats, "components_split")))
            c.rb_split = (int)*v;
        if ((v = lsp_stats_get(&res.stats, "components_greedy")))
            c.rb_greedy = (int)*v;
        if (!r && (res.sol.status == LSP_UNKNOWN || !res.sol.cfg))
            r = ls_error_msg(&e2, LS_ERR_LIMIT, "%s found no assignment", name);
        if (r == LS_ERR_NOMEM) {
            lsp_result_free(&res);
            study_cell_free(&c);
            rc = ls_error_msg(err, r, "%s", e2.msg);
            break;
        }
        if (r) {
            study_cell_error(&c, r, &e2);
        } else {
            /* the simulator is deterministic: an assignment already simulated is reused */
            const struct study_run *run = NULL;
            for (int q = 0; q < s && !run; q++)
                if (prev_run[q] && same_cfg(prev_cfg[q], res.sol.cfg, p->nops))
                    run = prev_run[q];
            if (!run) {
                r = study_pipe_eval(pp, name, res.sol.cfg, &run, &e2);
                if (r == LS_ERR_NOMEM || r == LS_ERR_INTERNAL) {
                    lsp_result_free(&res);
                    study_cell_free(&c);
                    rc = ls_error_msg(err, r, "%s: %s: %s", m->name, name, e2.msg);
                    break;
                }
            }
            if (r) {
                study_cell_error(&c, r, &e2);
            } else {
                prev_run[s] = run;
                prev_cfg[s] = run->sol.cfg;
                rc = study_cell_fill(&c, pp, run, err);
            }
        }
        lsp_result_free(&res);
        c.wall_seconds = ls_seconds_since(c0) + (s == 0 ? build_s : 0);
        if (!strcmp(name, "exact")) {
            exact_rc = c.rc;
            snprintf(exact_msg, sizeof exact_msg, "%s", c.error);
        }
        if (!rc)
            rc = study_cells_push(&j->out, &c, err);
        study_cell_free(&c);
    }
    if (!rc && !strcmp(tname, STUDY_TABLE_DATASHEET)) {
        /* RQ2: the treewidth DP, solve only, under a time and memory limit */
        study_progress_phase(&o->progress, "%s @ %s (%s): dp", m->name, t->label, tname);
        struct study_cell c;
        study_cell_base(&c, m, j->model, t, j->target, STUDY_DP, tname, tb, p->nops, tw);
        struct lsp_solve_opts so;
        lsp_opts_init(&so);
        so.time_limit = o->dp_time_limit;
        char memkv[64];
        snprintf(memkv, sizeof memkv, "dp.mem_limit=%lld", (long long)o->dp_mem_limit);
        e2 = (struct ls_error){0};
        struct lsp_result res;
        int r = lsp_opts_add_param(&so, memkv, &e2);
        if (!r)
            r = lsp_solve(STUDY_DP, p, &so, &res, &e2);
        else
            lsp_result_init(&res);
        c.solve_seconds = c.wall_seconds = res.seconds;
        snprintf(c.status, sizeof c.status, "%s", lsp_status_name(res.sol.status));
        const double *v = lsp_stats_get(&res.stats, "peak_mib");
        if (!v)
            v = lsp_stats_get(&res.stats, "estimate_mib");
        if (v)
            c.mem_mib = *v;
        if (r == LS_ERR_NOMEM) {
            rc = ls_error_msg(err, r, "%s", e2.msg);
        } else if (r) {
            study_cell_error(&c, r, &e2);
        } else if (res.sol.cfg) {
            c.predicted = res.sol.cost;
            if (res.sol.has_bound)
                c.bound = res.sol.bound;
        }
        lsp_result_free(&res);
        if (!rc)
            rc = study_cells_push(&j->out, &c, err);
        study_cell_free(&c);
    }
    if (!rc && o->mcts_evaluations > 0)
        rc = study_run_mcts(o, j, pp, tb, tname, tw, prev_cfg[STUDY_NSTRATEGIES - 1], exact_rc,
                      exact_msg, err);
    study_pipe_free(pp);
    return rc;
}

static int run_job(struct shared *sh, struct job *j)
{
    const struct study_opts *o = sh->o;
    const struct study_model *m = &o->models.m[j->model];
    struct graph *g = NULL;
    struct ls_error e2 = {0};
    study_progress_phase(&o->progress, "%s @ %s: loading the model", m->name,
                         o->targets.t[j->target].label);
    int rc = model_load(m->spec, &m->opts, &g, &e2);
    if (rc == LS_ERR_NOMEM)
        return ls_error_msg(&j->err, rc, "%s", e2.msg);
    if (rc)
        return ls_error_msg(&j->err, rc, "model %s%s%s: %s", m->spec, m->scale[0] ? " " : "",
                            m->scale, e2.msg);
    struct graph_stats gs;
    int tw = -1;
    if (!graph_stats(g, &gs, NULL))
        tw = gs.treewidth_ub;
    if (j->calibrated) {
        rc = run_table(o, j, g, &sh->calib[j->target], STUDY_TABLE_CALIBRATED, tw, &j->err);
    } else {
        struct cm_table tb;
        cm_table_default(&o->targets.t[j->target].t, &tb);
        rc = run_table(o, j, g, &tb, STUDY_TABLE_DATASHEET, tw, &j->err);
    }
    graph_free(g);
    return rc;
}

static void *worker(void *arg)
{
    struct shared *sh = arg;
    for (;;) {
        pthread_mutex_lock(&sh->mu);
        if (sh->next >= sh->njobs || sh->hard_rc) {
            pthread_mutex_unlock(&sh->mu);
            return NULL;
        }
        struct job *j = &sh->jobs[sh->next++];
        pthread_mutex_unlock(&sh->mu);
        j->rc = run_job(sh, j);
        pthread_mutex_lock(&sh->mu);
        struct ls_error e2 = {0};
        int rc = j->rc;
        if (rc) {
            e2 = j->err;
        } else if (!(rc = study_db_begin(sh->st, &e2))) {
            for (size_t i = 0; i < j->out.len && !rc; i++) {
                rc = study_db_put(sh->st, &j->out.data[i], &e2);
                sh->cells++;
                if (j->out.data[i].rc)
                    sh->cells_failed++;
            }
            if (!rc)
                rc = study_db_commit(sh->st, &e2);
        }
        if (rc && !sh->hard_rc) {
            sh->hard_rc = rc;
            sh->hard_err = e2;
        }
        study_cells_free(&j->out);
        sh->done++;
        sh->pairs_done += !j->calibrated;
        if (sh->o->progress.done) {
            char what[256];
            snprintf(what, sizeof what, "%s @ %s%s", sh->o->models.m[j->model].name,
                     sh->o->targets.t[j->target].label, j->calibrated ? " (calibrated)" : "");
            sh->o->progress.done(sh->o->progress.ctx, sh->done, sh->njobs, what);
        }
        pthread_mutex_unlock(&sh->mu);
    }
}

struct calib_job {
    const struct study_opts *o;
    const struct study_target *t;
    struct cm_table *out;
    int rc;
    struct ls_error err;
};

/* The calibration loop's phases, named after the target they calibrate. */
static void calib_phase(void *ctx, const char *what)
{
    const struct calib_job *c = ctx;
    study_progress_phase(&c->o->progress, "calibrating %s: %s", c->t->label,
                         what);
}

static void *calib_worker(void *arg)
{
    struct calib_job *c = arg;
    struct study_opts o = *c->o;
    o.progress = (struct study_progress_cb){.ctx = c};
    if (c->o->progress.phase)
        o.progress.phase = calib_phase;
    study_progress_phase(&o.progress, "loading the models");
    c->rc = study_calibrated_table(&o, &c->t->t, c->out, &c->err);
    return NULL;
}

static int run_threads(int n, void *(*fn)(void *), void *args, size_t argsize, size_t count,
                       struct ls_error *err)
{
    /* count independent calls of fn, at most n at a time */
    if (n < 1)
        n = 1;
    pthread_t *th = malloc(sizeof *th * (size_t)n);
    if (!th)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (size_t b = 0; b < count; b += (size_t)n) {
        size_t k = count - b < (size_t)n ? count - b : (size_t)n, started = 0;
        for (size_t i = 0; i < k; i++, started++)
            if (pthread_create(&th[i], NULL, fn, (char *)args + (b + i) * argsize)) {
                for (size_t q = 0; q < started; q++)
                    pthread_join(th[q], NULL);
                free(th);
                return ls_error_msg(err, LS_ERR_NOMEM, "cannot start a thread");
            }
        for (size_t i = 0; i < k; i++)
            pthread_join(th[i], NULL);
    }
    free(th);
    return 0;
}

/* calibrated-table.json (one target) or calibrated-table-K.json (target K, from 1) */
static void table_path(const struct study_opts *o, const char *dir, size_t ti, char *buf,
                       size_t n)
{
    if (o->targets.n == 1)
        snprintf(buf, n, "%s/calibrated-table.json", dir);
    else
        snprintf(buf, n, "%s/calibrated-table-%zu.json", dir, ti + 1);
}

/* The calibrated table of every target ti with need[ti]: read from o->table_in, or fitted
 * (o->jobs at a time); each also written into o->table_dir. */
static int calibrate_targets(const struct study_opts *o, const int *need, struct cm_table *tabs,
                             struct ls_error *err)
{
    struct calib_job *cj = calloc(o->targets.n + 1, sizeof *cj);
    if (!cj)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    char path[1200];
    size_t ncal = 0;
    int rc = 0;
    for (size_t ti = 0; ti < o->targets.n && !rc; ti++) {
        if (!need[ti])
            continue;
        if (o->table_in) {
            table_path(o, o->table_in, ti, path, sizeof path);
            rc = cm_table_load(path, &tabs[ti], err);
            continue;
        }
        cj[ncal].o = o;
        cj[ncal].t = &o->targets.t[ti];
        cj[ncal].out = &tabs[ti];
        ncal++;
    }
    if (!rc)
        rc = run_threads(o->jobs, calib_worker, cj, sizeof *cj, ncal, err);
    for (size_t i = 0; i < ncal && !rc; i++)
        if (cj[i].rc) {
            rc = cj[i].rc;
            *err = cj[i].err;
        }
    for (size_t ti = 0; ti < o->targets.n && !rc && o->table_dir; ti++)
        if (need[ti]) {
            table_path(o, o->table_dir, ti, path, sizeof path);
            rc = cm_table_write(&tabs[ti], path, err);
        }
    free(cj);
    return rc;
}

int study_run(const struct study_opts *o, struct study_db *st, struct study_summary *sum,
              struct ls_error *err)
{
    memset(sum, 0, sizeof *sum);
    uint64_t t0 = ls_now_ns();
    int per_job = study_cells_per_job(o);
    struct shared sh;
    memset(&sh, 0, sizeof sh);
    sh.o = o;
    sh.st = st;
    size_t total = o->models.n * o->targets.n;
    sh.jobs = calloc(2 * total + 1, sizeof *sh.jobs); /* datasheet and calibrated halves */
    sh.calib = calloc(o->targets.n + 1, sizeof *sh.calib);
    int rc = 0;
    if (!sh.jobs || !sh.calib) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    int *need_cal = calloc(o->targets.n + 1, sizeof *need_cal);
    if (!need_cal) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* jobs run target-major; a shard takes the (target, model) pairs whose model-major
     * number is K - 1 mod N: when N is a multiple or a divisor of the target count, a shard
     * holds one target's (or whole targets') jobs and calibrates only those targets */
    for (size_t ti = 0; ti < o->targets.n && !rc; ti++)
        for (size_t mi = 0; mi < o->models.n && !rc; mi++) {
            size_t idx = mi * o->targets.n + ti;
            if ((int)(idx % (size_t)o->shard_n) != o->shard_k - 1)
                continue;
            sum->jobs++;
            if (o->calibrate_only) {
                need_cal[ti] = 1;
                continue;
            }
            if (o->resume) {
                int have = 0;
                if ((rc = study_db_count(st, o->models.m[mi].name, o->targets.t[ti].label,
                                            &have, err)))
                    break;
                if (have >= per_job) {
                    sum->jobs_skipped++;
                    continue;
                }
            }
            for (int half = 0; half <= (o->calibrate ? 1 : 0); half++) {
                sh.jobs[sh.njobs].model = mi;
                sh.jobs[sh.njobs].target = ti;
                sh.jobs[sh.njobs].calibrated = half;
                sh.njobs++;
            }
            need_cal[ti] = 1;
        }
    if (!rc && o->calibrate) {
        rc = calibrate_targets(o, need_cal, sh.calib, err);
        sum->calibration_api = 1;
    }
    free(need_cal);
    if (rc)
        goto out;
    if (o->progress.done)
        o->progress.done(o->progress.ctx, 0, sh.njobs, "");
    pthread_mutex_init(&sh.mu, NULL);
    int nth = o->jobs < 1 ? 1 : o->jobs;
    if ((size_t)nth > sh.njobs)
        nth = sh.njobs ? (int)sh.njobs : 1;
    {
        /* as many threads as asked for (when none starts, this thread does the work) */
        pthread_t *th = malloc(sizeof *th * (size_t)nth);
        int started = 0;
        for (int i = 0; th && i < nth; i++, started++)
            if (pthread_create(&th[i], NULL, worker, &sh))
                break;
        if (started == 0)
            worker(&sh);
        for (int i = 0; i < started; i++)
            pthread_join(th[i], NULL);
        free(th);
    }
    pthread_mutex_destroy(&sh.mu);
    if (sh.hard_rc) {
        rc = sh.hard_rc;
        *err = sh.hard_err;
    }
    sum->jobs_run = sh.pairs_done;
    sum->cells = sh.cells;
    sum->cells_failed = sh.cells_failed;
out:
    sum->seconds = ls_seconds_since(t0);
    free(sh.jobs);
    free(sh.calib);
    return rc;
}
