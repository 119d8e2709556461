/* study/loop: the closed calibration loop with a frozen out-of-sample evaluation set per
 * model and leave-one-family-out fits. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "graph/model.h"
#include "study/loop.h"
#include "study/loop_int.h"
#include "util/prng.h"

#define MAXPTS 24

struct mstate {
    const char *spec, *family;
    struct graph *g;
    int32_t nops;
    int npts;
    int32_t *cfg;                 /* npts * nops: the frozen evaluation set */
    char label[MAXPTS][24];
    double sim[MAXPTS];
    struct cm_groups groups;      /* calibration groups from this model's chosen programs */
    int ncal, capcal;
    int32_t *calcfg;              /* assignments of the calibration programs */
    double *calsim;
};

static void points_of(const struct mstate *m, const int32_t *cfgs, const double *sims, int n,
                      const struct lsp_problem *p, struct study_point *pts,
                      char (*labels)[24])
{
    for (int i = 0; i < n; i++) {
        pts[i].label = labels ? labels[i] : "cal";
        pts[i].cfg = cfgs + (size_t)i * m->nops;
        pts[i].ncfg = m->nops;
        pts[i].predicted = (double)lsp_eval(p, pts[i].cfg, NULL, NULL);
        pts[i].simulated = sims[i];
    }
}

/* Frozen set: the four strategies under the datasheet table + perturbations. */
static int build_frozen(struct mstate *m, const struct study_loop_opts *o,
                        const struct cm_table *t0, struct ls_error *err)
{
    struct study_pipe_opts po;
    study_pipe_opts_init(&po);
    po.solve = o->solve;
    struct study_pipe *p;
    int rc = study_pipe_new(m->g, &o->target, t0, &po, &p, err);
    if (rc)
        return rc;
    const struct lsp_problem *pr = study_pipe_problem(p);
    m->nops = pr->nops;
    int np = STUDY_NSTRATEGIES + o->nperturb;
    if (np > MAXPTS)
        np = MAXPTS;
    m->cfg = malloc(sizeof *m->cfg * (size_t)np * (size_t)m->nops + 1);
    if (!m->cfg) {
        study_pipe_free(p);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    struct ls_rng rng;
    ls_rng_seed(&rng, o->seed);
    for (int i = 0; i < np && !rc; i++) {
        const struct study_run *r;
        int32_t *cfg = m->cfg + (size_t)i * m->nops;
        if (i < STUDY_NSTRATEGIES) {
            rc = study_pipe_run(p, study_strategies[i], &r, err);
            if (rc)
                break;
            memcpy(cfg, r->sol.cfg, sizeof *cfg * (size_t)m->nops);
            snprintf(m->label[i], sizeof m->label[i], "%s", study_strategies[i]);
        } else {
            memcpy(cfg, m->cfg + (size_t)(i % STUDY_NSTRATEGIES) * m->nops,
                   sizeof *cfg * (size_t)m->nops);
            for (int32_t k = 0; k < m->nops; k++)
                if (pr->ops[k].ncfg > 1 && ls_rng_double(&rng) < o->perturb_frac)
                    cfg[k] = (int32_t)ls_rng_below(&rng, (uint64_t)pr->ops[k].ncfg);
            snprintf(m->label[i], sizeof m->label[i], "perturb%d", i - STUDY_NSTRATEGIES);
            rc = study_pipe_eval(p, m->label[i], cfg, &r, err);
            if (rc)
                break;
        }
        m->sim[i] = (double)r->sim_cycles;
        m->npts = i + 1;
    }
    study_pipe_free(p);
    return rc;
}

/* One simulated program's groups, weighted by 1 / simulated time squared (relative error). */
static int add_groups(struct cm_groups *g, const struct study_run *r, const struct sim_target *t)
{
    double w = r->sim_cycles ? 1.0 / (double)r->sim_cycles : 1.0;
    return cm_groups_add_program(g, r->parts, r->recs, r->tag, r->nrecs, r->ntags,
                                 sim_target_tick_mhz(t), t->base_mhz, w * w);
}

static int add_cal(struct mstate *m, const struct study_run *r, const struct sim_target *t)
{
    for (int i = 0; i < m->npts; i++)  /* the frozen set stays out of sample */
        if (memcmp(m->cfg + (size_t)i * m->nops, r->sol.cfg, sizeof(int32_t) * (size_t)m->nops) == 0)
            return 0;
    for (int i = 0; i < m->ncal; i++)
        if (memcmp(m->calcfg + (size_t)i * m->nops, r->sol.cfg, sizeof(int32_t) * (size_t)m->nops) == 0)
            return 0;       /* already in the calibration set */
    if (m->ncal == m->capcal) {
        int nc = m->capcal ? 2 * m->capcal : 8;
        int32_t *c = realloc(m->calcfg, sizeof *c * (size_t)nc * (size_t)m->nops + 1);
        if (!c)
            return LS_ERR_NOMEM;
        m->calcfg = c;
        double *s = realloc(m->calsim, sizeof *s * (size_t)nc);
        if (!s)
            return LS_ERR_NOMEM;
        m->calsim = s;
        m->capcal = nc;
    }
    memcpy(m->calcfg + (size_t)m->ncal * m->nops, r->sol.cfg, sizeof(int32_t) * (size_t)m->nops);
    m->calsim[m->ncal++] = (double)r->sim_cycles;
    return add_groups(&m->groups, r, t);
}

/* The group fit of g over base into out (no groups: base with aggregation agg). */
static int fit_groups(const struct cm_groups *g, const struct cm_table *base,
                      const struct study_loop_opts *o, struct cm_table *out, double *rel,
                      struct ls_error *err)
{
    *out = *base;
    if (rel)
        *rel = NAN;
    if (g->n > 0)
        return cm_group_fit(g, o->agg, &o->target, out, rel, err);
    cm_table_set_aggregate(out, o->agg, -1);
    return 0;
}

/* Merge the groups of every model whose family differs from skip (NULL: all). */
static int merged_fit(struct mstate *ms, int n, const char *skip, const struct cm_table *base,
                      const struct study_loop_opts *o, struct cm_table *out, double *rel,
                      struct ls_error *err)
{
    struct cm_groups all;
    cm_groups_init(&all, base->n);
    size_t rl = (size_t)LS_ENGINE_COUNT * 2 * (size_t)base->n;
    for (int i = 0; i < n; i++) {
        if (skip && strcmp(ms[i].family, skip) == 0)
            continue;
        const struct cm_groups *g = &ms[i].groups;
        if (all.n + g->n > all.cap) {
            size_t nc = all.n + g->n + 1;
            double *y = realloc(all.y, nc * sizeof *y), *w = y ? realloc(all.w, nc * sizeof *w) : NULL;
            if (y)
                all.y = y;
            if (w)
                all.w = w;
            double *x = w ? realloc(all.x, nc * rl * sizeof *x) : NULL;
            if (!x) {
                cm_groups_free(&all);
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            }
            all.x = x;
            all.cap = nc;
        }
        memcpy(all.y + all.n, g->y, g->n * sizeof *g->y);
        memcpy(all.w + all.n, g->w, g->n * sizeof *g->w);
        memcpy(all.x + all.n * rl, g->x, g->n * rl * sizeof *g->x);
        all.n += g->n;
    }
    int rc = fit_groups(&all, base, o, out, rel, err);
    cm_groups_free(&all);
    return rc;
}

/* Predicted costs of a set of assignments under table tb. */
static int eval_under(struct mstate *m, const struct study_loop_opts *o, const struct cm_table *tb,
                      const int32_t *cfgs, const double *sims, int n, struct study_point *pts,
                      char (*labels)[24], struct ls_error *err)
{
    struct study_pipe_opts po;
    study_pipe_opts_init(&po);
    po.simulate = 0;
    struct study_pipe *p;
    int rc = study_pipe_new(m->g, &o->target, tb, &po, &p, err);
    if (rc)
        return rc;
    points_of(m, cfgs, sims, n, study_pipe_problem(p), pts, labels);
    study_pipe_free(p);
    return 0;
}

struct agg_metrics {
    struct study_pairwise pw;
    double tau[64];
    double rel[64 * MAXPTS];
    int ntau, nrel;
};

static void agg_add(struct agg_metrics *a, const struct study_point *pts, int n)
{
    study_pairwise_add(pts, n, &a->pw);
    if (a->ntau < 64)
        a->tau[a->ntau++] = study_kendall_tau_b(pts, n);
    for (int i = 0; i < n && a->nrel < 64 * MAXPTS; i++)
        a->rel[a->nrel++] = pts[i].simulated > 0 ? fabs(pts[i].predicted - pts[i].simulated) / pts[i].simulated : NAN;
}

static void agg_json(json_t *o, const char *prefix, const struct agg_metrics *a)
{
    char k[96];
    snprintf(k, sizeof k, "%spairwise_accuracy", prefix);
    json_object_set_new(o, k, lp_num(study_pairwise_accuracy(&a->pw)));
    snprintf(k, sizeof k, "%spairs", prefix);
    json_object_set_new(o, k, json_integer(a->pw.pairs));
    snprintf(k, sizeof k, "%spairs_identical", prefix);
    json_object_set_new(o, k, json_integer(a->pw.identical));
    snprintf(k, sizeof k, "%skendall_tau", prefix);
    json_object_set_new(o, k, lp_num(study_nanmean(a->tau, a->ntau)));
    snprintf(k, sizeof k, "%smedian_rel_error", prefix);
    json_object_set_new(o, k, lp_num(study_median(a->rel, a->nrel)));
    snprintf(k, sizeof k, "%smax_rel_error", prefix);
    json_object_set_new(o, k, lp_num(study_max(a->rel, a->nrel)));
}

/* The per-instruction fit over t0 from microbenchmarks (o->microbench) and extra traces. */
static int micro_fit(const struct study_loop_opts *o, const struct cm_table *t0,
                     struct cm_table *out, size_t *nmicro, size_t *nsamples, struct ls_error *err)
{
    *out = *t0;
    struct cm_calib cal;
    cm_calib_init(&cal);
    int rc = 0;
    if (o->microbench)
        rc = cm_microbench_run(&o->target, &cal, NULL, nmicro, err);
    for (int i = 0; i < o->nextra && !rc; i++)
        rc = cm_calib_add_trace(&cal, o->extra_traces[i], o->target.dma_engines, err);
    if (!rc && cal.n)
        rc = cm_calib_fit(&cal, t0, out, NULL, err);
    *nsamples = cal.n;
    cm_calib_free(&cal);
    return rc;
}

int study_loop_calibrate(const struct graph *const *gs, int n, const struct study_loop_opts *o,
                         struct cm_table *out, int *programs, struct ls_error *err)
{
    struct cm_table t0, tmicro;
    cm_table_default(&o->target, &t0);
    size_t nmicro = 0, nsamples = 0;
    int rc = micro_fit(o, &t0, &tmicro, &nmicro, &nsamples, err), used = 0;
    if (rc)
        return rc;
    struct cm_groups all;
    cm_groups_init(&all, tmicro.n);
    for (int i = 0; i < n && !rc; i++) {
        if (!gs[i])
            continue;
        struct study_pipe *p = NULL;
        const struct study_run *runs[STUDY_NSTRATEGIES];
        struct ls_error e2 = {0};
        int r = lp_run_strategies(gs[i], o, &t0, &tmicro, NULL, &p, runs, &e2);
        if (r == LS_ERR_NOMEM || r == LS_ERR_INTERNAL || r == LS_ERR_IO) {
            rc = ls_error_msg(err, r, "%s", e2.msg);
        } else if (!r) {
            /* every distinct program once (strategies often agree) */
            for (int s = 0; s < STUDY_NSTRATEGIES && !rc; s++) {
                int dup = 0;
                for (int q = 0; q < s && !dup; q++)
                    dup = !memcmp(runs[q]->sol.cfg, runs[s]->sol.cfg,
                                  sizeof(int32_t) * (size_t)runs[s]->sol.nops);
                if (dup)
                    continue;
                if (add_groups(&all, runs[s], &o->target))
                    rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                else
                    used++;
            }
        }
        study_pipe_free(p);
    }
    if (!rc)
        rc = fit_groups(&all, &tmicro, o, out, NULL, err);
    cm_groups_free(&all);
    if (programs)
        *programs = used;
    return rc;
}

int study_loop(const char *const *models, int n, const struct study_loop_opts *o,
               json_t **out, struct cm_table *final, struct ls_error *err)
{
    *out = NULL;
    if (n > 64)
        return ls_error_msg(err, LS_ERR_INPUT, "at most 64 models");
    struct mstate *ms = calloc((size_t)n + 1, sizeof *ms);
    struct cm_table *lofo = calloc((size_t)n + 1, sizeof *lofo);
    struct agg_metrics *A = calloc(4, sizeof *A);
    json_t *root = json_object(), *iters = json_array();
    json_object_set_new(root, "iterations", iters);
    int rc = 0;
    if (!ms || !lofo || !A) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    struct cm_table t0, tmicro, cur;
    cm_table_default(&o->target, &t0);
    size_t nmicro = 0, nsamples = 0;
    rc = micro_fit(o, &t0, &tmicro, &nmicro, &nsamples, err);
    json_object_set_new(root, "microbenchmarks", json_integer((json_int_t)nmicro));
    json_object_set_new(root, "microbench_samples", json_integer((json_int_t)nsamples));
    if (rc)
        goto done;
    for (int i = 0; i < n && !rc; i++) {
        ms[i].spec = models[i];
        ms[i].family = study_model_family(models[i]);
        cm_groups_init(&ms[i].groups, tmicro.n);
        if (!(rc = model_load(models[i], &o->zo, &ms[i].g, err)))
            rc = build_frozen(&ms[i], o, &t0, err);
    }
    if (rc)
        goto done;
    cur = t0;
    for (int i = 0; i < n; i++)
        lofo[i] = t0;
    double prev_acc = -1, prev_med = INFINITY;
    for (int it = 0; it <= o->iterations && !rc; it++) {
        memset(A, 0, 4 * sizeof *A);    /* 0 frozen, 1 lofo, 2 strategies, 3 in-sample */
        json_t *ij = json_object(), *mj = json_array();
        int exact_ok = 1;
        for (int i = 0; i < n && !rc; i++) {
            struct mstate *m = &ms[i];
            json_t *mo = json_object();
            json_object_set_new(mo, "model", json_string(m->spec));
            json_object_set_new(mo, "family", json_string(m->family));
            struct study_point pts[MAXPTS];
            /* out of sample: frozen set under the current table */
            if ((rc = eval_under(m, o, &cur, m->cfg, m->sim, m->npts, pts, m->label, err)))
                break;
            agg_add(&A[0], pts, m->npts);
            json_object_set_new(mo, "frozen", lp_metrics_json(pts, m->npts));
            if (o->lofo && n > 1) {
                if ((rc = eval_under(m, o, &lofo[i], m->cfg, m->sim, m->npts, pts, m->label, err)))
                    break;
                agg_add(&A[1], pts, m->npts);
                json_object_set_new(mo, "lofo", lp_metrics_json(pts, m->npts));
            }
            /* in sample: the calibration programs under the current table */
            if (m->ncal > 0) {
                struct study_point *cp = malloc(sizeof *cp * (size_t)m->ncal);
                if (!cp) {
                    rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                    break;
                }
                if (!(rc = eval_under(m, o, &cur, m->calcfg, m->calsim, m->ncal, cp, NULL, err)))
                    agg_add(&A[3], cp, m->ncal);
                free(cp);
                if (rc)
                    break;
            }
            /* the four strategies under the current table: solve, compile, simulate */
            struct study_pipe *p = NULL;
            const struct study_run *runs[STUDY_NSTRATEGIES];
            char prefix[160];
            snprintf(prefix, sizeof prefix, "it%d-%d-", it, i);
            rc = lp_run_strategies(m->g, o, &cur, &tmicro, prefix, &p, runs, err);
            if (!rc) {
                struct study_point sp[STUDY_NSTRATEGIES];
                lp_points(runs, STUDY_NSTRATEGIES, sp);
                agg_add(&A[2], sp, STUDY_NSTRATEGIES);
                json_t *so = lp_metrics_json(sp, STUDY_NSTRATEGIES);
                json_object_set_new(so, "runs", lp_strategies_json(runs, STUDY_NSTRATEGIES));
                json_t *cr = lp_criterion_json(sp, STUDY_NSTRATEGIES, STUDY_NSTRATEGIES - 1);
                if (!json_is_true(json_object_get(cr, "exact_within_1pct")))
                    exact_ok = 0;
                json_object_set_new(so, "criterion", cr);
                json_object_set_new(mo, "strategies", so);
                for (int s = 0; s < STUDY_NSTRATEGIES && !rc; s++)
                    if (add_cal(m, runs[s], &o->target))
                        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                /* exploration: seeded perturbations of the exact solution (a seed stream
                 * apart from the frozen set's) join the calibration set too */
                const struct lsp_problem *pr = study_pipe_problem(p);
                int32_t *ex = malloc(sizeof *ex * ((size_t)m->nops + 1));
                struct ls_rng rng;
                ls_rng_seed(&rng, o->seed * 1000003u + 7919u * (uint64_t)(it + 1) + (uint64_t)i);
                for (int e = 0; e < o->explore && !rc; e++) {
                    if (!ex) {
                        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                        break;
                    }
                    memcpy(ex, runs[STUDY_NSTRATEGIES - 1]->sol.cfg, sizeof *ex * (size_t)m->nops);
                    for (int32_t k = 0; k < m->nops; k++)
                        if (pr->ops[k].ncfg > 1 && ls_rng_double(&rng) < o->perturb_frac)
                            ex[k] = (int32_t)ls_rng_below(&rng, (uint64_t)pr->ops[k].ncfg);
                    const struct study_run *er;
                    char lab[32];
                    snprintf(lab, sizeof lab, "explore%d", e);
                    if (!(rc = study_pipe_eval(p, lab, ex, &er, err)) && add_cal(m, er, &o->target))
                        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                }
                free(ex);
            }
            study_pipe_free(p);
            json_array_append_new(mj, mo);
        }
        if (rc) {
            json_decref(ij);
            json_decref(mj);
            break;
        }
        json_object_set_new(ij, "iteration", json_integer(it));
        json_object_set_new(ij, "aggregate", json_string(cur.aggregate));
        char hb[32];
        snprintf(hb, sizeof hb, "%016llx", (unsigned long long)cm_table_hash(&cur));
        json_object_set_new(ij, "table_hash", json_string(hb));
        agg_json(ij, "", &A[0]);
        if (o->lofo && n > 1)
            agg_json(ij, "lofo_", &A[1]);
        agg_json(ij, "strategy_", &A[2]);
        agg_json(ij, "in_sample_", &A[3]);
        json_object_set_new(ij, "exact_within_1pct_all", json_boolean(exact_ok));
        json_object_set_new(ij, "models", mj);
        json_array_append_new(iters, ij);
        /* stop when the out-of-sample figures stop improving */
        double acc = study_pairwise_accuracy(&A[0].pw), med = study_median(A[0].rel, A[0].nrel);
        if (it > 1 && !(acc > prev_acc + 1e-9) && !(med < prev_med - 1e-4))
            break;
        prev_acc = acc;
        prev_med = med;
        if (it == o->iterations)
            break;
        /* refit from every calibration program so far */
        double rel;
        if ((rc = merged_fit(ms, n, NULL, &tmicro, o, &cur, &rel, err)))
            break;
        json_object_set_new(ij, "fit_in_sample_rel_error", lp_num(rel));
        for (int i = 0; i < n && o->lofo && !rc; i++)
            rc = merged_fit(ms, n, ms[i].family, &tmicro, o, &lofo[i], NULL, err);
    }
    if (!rc && final)
        *final = cur;
done:
    if (ms)
        for (int i = 0; i < n; i++) {
            graph_free(ms[i].g);
            free(ms[i].cfg);
            free(ms[i].calcfg);
            free(ms[i].calsim);
            cm_groups_free(&ms[i].groups);
        }
    free(ms);
    free(lofo);
    free(A);
    if (rc) {
        json_decref(root);
        return rc;
    }
    *out = root;
    return 0;
}
