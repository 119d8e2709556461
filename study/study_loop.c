/* study/loop: the closed calibration loop with a frozen out-of-sample evaluation set per
 * model and leave-one-family-out fits. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "graph/model.h"
#include "study/loop.h"
#include "study/loop_int.h"
#include "util/prng.h"
#include "util/vec.h"

struct mstate {
    const char *spec, *family;
    int32_t key;                  /* index among the loop's models: ranks its programs */
    int held;                     /* in o->holdout_models: its programs never enter a fit */
    struct graph *g;
    int32_t nops;
    int npts;
    int32_t *cfg;                 /* npts * nops: the frozen evaluation set */
    char (*label)[24];            /* npts labels */
    double *sim;                  /* npts simulated times */
    struct cm_groups groups;      /* calibration groups from this model's chosen programs */
    int ncal;
    LS_VEC(int32_t) calcfg;       /* ncal * nops: assignments of the calibration programs */
    LS_VEC(double) calsim;        /* ncal */
};

/* assignments of one model, nops entries each */
struct cfg_list {
    int32_t *data;
    size_t len, cap;
};

/* Points of n assignments of m (frozen or calibration) with their simulated times. */
static void points_of(const struct mstate *m, const int32_t *cfgs, const double *sims, int n,
                      const double *pred, struct study_point *pts, char (*labels)[24])
{
    for (int i = 0; i < n; i++) {
        pts[i].label = labels ? labels[i] : "cal";
        pts[i].cfg = cfgs + (size_t)i * m->nops;
        pts[i].ncfg = m->nops;
        pts[i].predicted = pred[i];
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
    po.cg.memplan = o->memplan;
    struct study_pipe *p;
    int rc = study_pipe_new(m->g, &o->target, t0, &po, &p, err);
    if (rc)
        return rc;
    const struct lsp_problem *pr = study_pipe_problem(p);
    m->nops = pr->nops;
    int np = STUDY_NSTRATEGIES + (o->nperturb > 0 ? o->nperturb : 0);
    m->cfg = malloc(sizeof *m->cfg * (size_t)np * (size_t)m->nops + 1);
    m->label = malloc(sizeof *m->label * (size_t)np);
    m->sim = malloc(sizeof *m->sim * (size_t)np);
    if (!m->cfg || !m->label || !m->sim) {
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
static int add_groups(struct cm_groups *g, const struct study_run *r, const struct sim_target *t,
                      int32_t key)
{
    double w = r->sim_cycles ? 1.0 / (double)r->sim_cycles : 1.0;
    return cm_groups_add_program(g, r->parts, r->recs, r->tag, r->nrecs, r->ntags,
                                 sim_target_tick_mhz(t), t->base_mhz, w * w, key);
}

static int add_cal(struct mstate *m, const struct study_run *r, const struct sim_target *t)
{
    for (int i = 0; i < m->npts; i++)  /* the frozen set stays out of sample */
        if (memcmp(m->cfg + (size_t)i * m->nops, r->sol.cfg, sizeof(int32_t) * (size_t)m->nops) == 0)
            return 0;
    for (int i = 0; i < m->ncal; i++)
        if (memcmp(m->calcfg.data + (size_t)i * m->nops, r->sol.cfg,
                   sizeof(int32_t) * (size_t)m->nops) == 0)
            return 0;       /* already in the calibration set */
    size_t at = (size_t)m->ncal * (size_t)m->nops;
    if (LS_VEC_RESERVE(&m->calcfg, at + (size_t)m->nops + 1) ||
        LS_VEC_PUSH(&m->calsim, (double)r->sim_cycles))
        return LS_ERR_NOMEM;
    memcpy(m->calcfg.data + at, r->sol.cfg, sizeof(int32_t) * (size_t)m->nops);
    m->calcfg.len = at + (size_t)m->nops;
    m->ncal++;
    return add_groups(&m->groups, r, t, m->key);
}

/* The group fit of g over base into out (no groups: base with aggregation agg), in the
 * form calibrate --traces fits (o->form: the same cm_groups_set_form and cm_group_fit). */
static int fit_groups(struct cm_groups *g, const struct cm_table *base,
                      const struct study_loop_opts *o, struct cm_table *out, double *rel,
                      struct ls_error *err)
{
    *out = *base;
    if (rel)
        *rel = NAN;
    cm_groups_set_form(g, o->form, base);
    if (g->n > 0)
        return cm_group_fit(g, o->agg, &o->target, out, rel, err);
    cm_table_set_aggregate(out, o->agg, -1);
    return 0;
}

/* Merge the groups of every model whose family differs from skip (NULL: all), held-out
 * models left out. */
static int merged_fit(struct mstate *ms, int n, const char *skip, const struct cm_table *base,
                      const struct study_loop_opts *o, struct cm_table *out, double *rel,
                      struct ls_error *err)
{
    struct cm_groups all;
    cm_groups_init(&all, base->n);
    for (int i = 0; i < n; i++)
        if (!ms[i].held && (!skip || strcmp(ms[i].family, skip) != 0) &&
            cm_groups_append(&all, &ms[i].groups)) {
            cm_groups_free(&all);
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        }
    int rc = fit_groups(&all, base, o, out, rel, err);
    cm_groups_free(&all);
    return rc;
}

/* The calibration programs of the loop's models, as the verdict reads them. */
static struct lp_calset *calsets(const struct mstate *ms, int n)
{
    struct lp_calset *cs = calloc((size_t)n + 1, sizeof *cs);
    for (int i = 0; cs && i < n; i++)
        cs[i] = (struct lp_calset){.g = ms[i].g, .family = ms[i].family, .fitted = !ms[i].held,
                                   .nops = ms[i].nops, .ncal = ms[i].ncal,
                                   .cfg = ms[i].calcfg.data, .sim = ms[i].calsim.data};
    return cs;
}

/* The verdict of the refit after iteration ij: the best of the tables of iterations
 * 0..ij (folds: n leave-one-family-out tables per iteration; ties keep the latest), then
 * the group fit's and the share-only candidate's folds, each of which must beat it. */
static int verdict(const struct lp_calset *cs, int n, const struct study_loop_opts *o,
                   const struct cm_table *folds, const struct cm_table *fold,
                   const struct cm_table *sfold, struct study_loop_iter *ij,
                   struct ls_error *err)
{
    int rc = 0;
    ij->form = STUDY_LOOP_KEEP;
    for (int k = ij->iteration; k >= 0 && !rc; k--) {
        struct study_loop_judged j;
        if (!(rc = lp_judge(cs, n, o, folds + (size_t)k * (size_t)n, &j, err)) &&
            (ij->kept_from < 0 || lp_judged_better(&j, &ij->judged[STUDY_LOOP_KEEP]))) {
            ij->judged[STUDY_LOOP_KEEP] = j;
            ij->kept_from = k;
        }
    }
    const struct cm_table *cand[STUDY_LOOP_NFORMS] = {NULL, fold, sfold};
    for (int f = STUDY_LOOP_GROUP_FIT; f < STUDY_LOOP_NFORMS && !rc; f++)
        if (!(rc = lp_judge(cs, n, o, cand[f], &ij->judged[f], err)) &&
            lp_judged_better(&ij->judged[f], &ij->judged[ij->form]))
            ij->form = (enum study_loop_form)f;
    return rc;
}

/* The refit after iteration ij: the group fit of every calibration program and, per
 * model, without its family (the leave-one-family-out tables). With a verdict
 * (lp_verdict_applies), the group fit, the datasheet's entries with the exposed share
 * measured, and the tables of iterations 0..ij (folds: each one's leave-one-family-out
 * tables, n per iteration) compete on the families each candidate's tables left out; the
 * best earlier table goes first, a new candidate must beat it. *keep: the iteration whose
 * table won (cur and lofo unchanged), else -1 (cur and lofo: the new candidate's). */
static int refit(struct mstate *ms, int n, const struct study_loop_opts *o,
                 const struct cm_table *t0, const struct cm_table *tmicro,
                 const struct cm_table *folds, struct cm_table *cur, struct cm_table *lofo,
                 struct study_loop_iter *ij, int *keep, struct ls_error *err)
{
    struct cm_table fit, share;
    struct cm_table *fold = calloc((size_t)n + 1, sizeof *fold),
                    *sfold = calloc((size_t)n + 1, sizeof *sfold);
    struct lp_calset *cs = calsets(ms, n);
    int rc = !fold || !sfold || !cs ? ls_error_msg(err, LS_ERR_NOMEM, "out of memory") : 0;
    double rel = NAN;
    if (!rc)
        rc = merged_fit(ms, n, NULL, tmicro, o, &fit, &rel, err);
    ij->has_fit = !rc;
    ij->fit_rel_error = rel;
    for (int i = 0; i < n && o->lofo && !rc; i++)
        rc = merged_fit(ms, n, ms[i].family, tmicro, o, &fold[i], NULL, err);
    ij->form = STUDY_LOOP_GROUP_FIT;
    ij->share = NAN;
    ij->kept_from = -1;
    ij->has_verdict = !rc && o->lofo && lp_verdict_applies(cs, n);
    if (ij->has_verdict) {
        study_progress_phase(&o->progress, "iteration %d: judging the refit", ij->iteration);
        rc = lp_share_fit(cs, n, o, t0, &share, sfold, &ij->share, err);
        if (!rc)
            rc = verdict(cs, n, o, folds, fold, sfold, ij, err);
    }
    if (!rc && ij->form != STUDY_LOOP_KEEP) {
        int sh = ij->form == STUDY_LOOP_SHARE_ONLY;
        *cur = sh ? share : fit;
        if (o->lofo)
            memcpy(lofo, sh ? sfold : fold, sizeof *lofo * (size_t)n);
    }
    *keep = !rc && ij->form == STUDY_LOOP_KEEP ? ij->kept_from : -1;
    free(fold);
    free(sfold);
    free(cs);
    return rc;
}

/* Predicted costs of a set of assignments under table tb. */
static int eval_under(struct mstate *m, const struct study_loop_opts *o, const struct cm_table *tb,
                      const int32_t *cfgs, const double *sims, int n, struct study_point *pts,
                      char (*labels)[24], struct ls_error *err)
{
    double *pred = malloc(sizeof *pred * (size_t)(n > 0 ? n : 1));
    if (!pred)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = lp_objectives(m->g, o, tb, cfgs, m->nops, n, pred, err);
    if (!rc)
        points_of(m, cfgs, sims, n, pred, pts, labels);
    free(pred);
    return rc;
}

/* Figures over every model of one iteration: pairs summed, tau averaged over models,
 * relative errors over every point. */
#define LOOP_NAGG 8   /* aggregates per iteration (see iterate) */

struct agg_metrics {
    struct study_pairwise pw;
    LS_VEC(double) tau;
    LS_VEC(double) rel;
};

static int agg_add(struct agg_metrics *a, const struct study_point *pts, int n)
{
    study_pairwise_add(pts, n, &a->pw);
    if (LS_VEC_PUSH(&a->tau, study_kendall_tau_b(pts, n)))
        return LS_ERR_NOMEM;
    for (int i = 0; i < n; i++)
        if (LS_VEC_PUSH(&a->rel, pts[i].simulated > 0 ? fabs(pts[i].predicted - pts[i].simulated) /
                                                            pts[i].simulated
                                                      : NAN))
            return LS_ERR_NOMEM;
    return 0;
}

static void agg_reset(struct agg_metrics *a)
{
    memset(&a->pw, 0, sizeof a->pw);
    a->tau.len = a->rel.len = 0;
}

static void agg_free(struct agg_metrics *a)
{
    LS_VEC_FREE(&a->tau);
    LS_VEC_FREE(&a->rel);
}

static void agg_metrics_of(const struct agg_metrics *a, struct study_metrics *m)
{
    m->pw = a->pw;
    m->pairwise_accuracy = study_pairwise_accuracy(&a->pw);
    m->kendall_tau = study_nanmean(a->tau.data, (int)a->tau.len);
    m->median_rel_error = study_median(a->rel.data, (int)a->rel.len);
    m->max_rel_error = study_max(a->rel.data, (int)a->rel.len);
}

/* The per-instruction fit over t0 from microbenchmarks (o->microbench) and extra traces. */
static int micro_fit(const struct study_loop_opts *o, const struct cm_table *t0,
                     struct cm_table *out, size_t *nmicro, size_t *nsamples, struct ls_error *err)
{
    *out = *t0;
    struct cm_calib cal;
    cm_calib_init(&cal);
    int rc = 0;
    study_progress_phase(&o->progress, "the per-instruction fit (microbenchmarks)");
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

/* One model's strategies, run on a worker thread of a calibration round. */
struct cal_model {
    const struct graph *g;
    const struct study_loop_opts *o;
    const struct cm_table *tb, *tmicro;
    int32_t key;                     /* the model's index: its programs' key in the fit */
    struct cfg_list *seen;           /* its assignments fitted so far (only its worker
                                        touches it during a round) */
    struct cm_groups groups;         /* this round's new programs, in strategy order */
    int used;                        /* their number */
    int rc;
    struct ls_error err;
};

static int cfg_listed(const struct cfg_list *seen, const int32_t *cfg, int32_t nops)
{
    for (size_t at = 0; at + (size_t)nops <= seen->len; at += (size_t)nops)
        if (!memcmp(seen->data + at, cfg, sizeof *cfg * (size_t)nops))
            return 1;
    return 0;
}

/* study_pipe_opts.skip: a program fitted before (in an earlier round, or an earlier
 * strategy's this round) is neither compiled nor simulated: the fit would not add it. */
static int cal_known(void *ctx, const int32_t *cfg, int32_t nops)
{
    const struct cal_model *c = ctx;
    return cfg_listed(c->seen, cfg, nops);
}

/* The four strategies under c->tb, one after the other: a new program's groups are added
 * to c->groups as soon as it is simulated and its records freed, so one program's records
 * at a time are alive per model (they are most of the calibration's memory). */
static int cal_strategies(struct cal_model *c)
{
    struct study_pipe_opts po;
    lp_pipe_opts(c->o, c->tmicro, NULL, &po);
    po.skip = cal_known;
    po.skip_ctx = c;
    struct study_pipe *p = NULL;
    int rc = study_pipe_new(c->g, &c->o->target, c->tb, &po, &p, &c->err);
    for (int s = 0; s < STUDY_NSTRATEGIES && !rc; s++) {
        const struct study_run *r = NULL;
        if ((rc = study_pipe_run(p, study_strategies[s], &r, &c->err)) || r->skipped)
            continue;
        if (LS_VEC_APPEND(c->seen, r->sol.cfg, (size_t)r->sol.nops) ||
            add_groups(&c->groups, r, &c->o->target, c->key))
            rc = ls_error_msg(&c->err, LS_ERR_NOMEM, "out of memory");
        else
            c->used++;
        study_pipe_drop_records(p, r);
    }
    study_pipe_free(p);
    return rc;
}

static void *cal_model_run(void *arg)
{
    struct cal_model *c = arg;
    size_t seen0 = c->seen->len;
    cm_groups_init(&c->groups, c->tmicro->n);
    c->used = 0;
    c->rc = cal_strategies(c);
    if (c->rc)
        c->seen->len = seen0;  /* the model sits the round out: nothing of it was fitted */
    return NULL;
}

/* Add model c's new programs to the calibration set (in model order, so that the fit
 * does not depend on the number of threads); a model a strategy failed on is left out of
 * the round (its error only when it is a hard one). */
static int cal_model_add(struct cal_model *c, struct cm_groups *all, int *used,
                         struct ls_error *err)
{
    int r = c->rc, rc = 0;
    if (r == LS_ERR_NOMEM || r == LS_ERR_INTERNAL || r == LS_ERR_IO)
        rc = ls_error_msg(err, r, "%s", c->err.msg);
    else if (!r && cm_groups_append(all, &c->groups))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    else if (!r)
        *used += c->used;
    cm_groups_free(&c->groups);
    return rc;
}

/* Models [i0, i1) in parallel (one thread each; this thread runs the first). */
static void cal_batch(struct cal_model *cm, int i0, int i1)
{
    pthread_t th[64];
    int started[64] = {0};
    for (int i = i0 + 1; i < i1; i++)
        started[i - i0] = cm[i].g && !pthread_create(&th[i - i0], NULL, cal_model_run, &cm[i]);
    for (int i = i0; i < i1; i++) /* the first, and any whose thread did not start */
        if (cm[i].g && !started[i - i0])
            cal_model_run(&cm[i]);
    for (int i = i0 + 1; i < i1; i++)
        if (started[i - i0])
            pthread_join(th[i - i0], NULL);
}

/* One calibration round: every model's four strategies solved under tb (nth models at a
 * time); their programs not fitted before join all. */
static int calib_round(struct cal_model *cm, int n, int nth, int round,
                       const struct cm_table *tb, struct cm_groups *all, int *used,
                       struct ls_error *err)
{
    int rc = 0;
    for (int i = 0; i < n; i++)
        cm[i].tb = tb;
    for (int b = 0; b < n && !rc; b += nth) { /* at most nth pipelines alive at a time */
        int e = b + nth < n ? b + nth : n;
        char which[48];
        if (e - b > 1)
            snprintf(which, sizeof which, "models %d-%d", b + 1, e);
        else
            snprintf(which, sizeof which, "model %d", b + 1);
        study_progress_phase(&cm[0].o->progress, "round %d, %s of %d", round + 1, which, n);
        cal_batch(cm, b, e);
        for (int i = b; i < e; i++)
            if (cm[i].g && !rc)
                rc = cal_model_add(&cm[i], all, used, err);
            else if (cm[i].g)
                cm_groups_free(&cm[i].groups);
    }
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
    struct cal_model *cm = calloc((size_t)n + 1, sizeof *cm);
    struct cfg_list *seen = calloc((size_t)n + 1, sizeof *seen);
    if (!cm || !seen) {
        free(cm);
        free(seen);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n; i++)
        cm[i] = (struct cal_model){.g = gs[i], .o = o, .tb = &t0, .tmicro = &tmicro,
                                   .key = i, .seen = &seen[i]};
    int nth = o->threads < 1 ? 1 : o->threads > 64 ? 64 : o->threads;
    struct cm_groups all;
    cm_groups_init(&all, tmicro.n);
    /* Round 0 fits the datasheet table's choices; each later round adds the programs the
     * table fitted so far chooses, so the fit also sees (and corrects) the assignments it
     * makes look cheap: a one-shot fit ranks its own choices worst. */
    int rounds = o->iterations > 0 ? o->iterations : 1;
    for (int round = 0; round < rounds && !rc; round++) {
        int before = used;
        rc = calib_round(cm, n, nth, round, round ? out : &t0, &all, &used, err);
        if (!rc && (round == 0 || used > before)) {
            study_progress_phase(&o->progress, "round %d, fitting", round + 1);
            rc = fit_groups(&all, &tmicro, o, out, NULL, err);
        }
        if (!rc && round > 0 && used == before)
            break;     /* the fit chose nothing new: it is final */
    }
    cm_groups_free(&all);
    for (int i = 0; i < n; i++)
        LS_VEC_FREE(&seen[i]);
    free(seen);
    free(cm);
    if (programs)
        *programs = used;
    return rc;
}

static void iter_free(struct study_loop_iter *it)
{
    LS_VEC_FREE(&it->models);
}

void study_loop_result_free(struct study_loop_result *r)
{
    for (size_t i = 0; i < r->iterations.len; i++)
        iter_free(&r->iterations.data[i]);
    LS_VEC_FREE(&r->iterations);
    memset(r, 0, sizeof *r);
}

/* The four strategies of model m under the current table: their figures into lm, their
 * programs (and o->explore perturbations of exact's) into m's calibration set. */
static int run_model(struct mstate *m, int i, int it, const struct study_loop_opts *o,
                     const struct cm_table *cur, const struct cm_table *tmicro,
                     struct agg_metrics *A, struct study_loop_model *lm, struct ls_error *err)
{
    struct study_pipe *p = NULL;
    const struct study_run *runs[STUDY_NSTRATEGIES];
    char prefix[160];
    snprintf(prefix, sizeof prefix, "it%d-%d-", it, i);
    int rc = lp_run_strategies(m->g, o, cur, tmicro, prefix, &p, runs, err);
    if (!rc) {
        struct study_point sp[STUDY_NSTRATEGIES];
        lp_points(runs, STUDY_NSTRATEGIES, sp);
        if (agg_add(A, sp, STUDY_NSTRATEGIES))
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = lp_model_eval(runs, sp, &lm->strategies, err);
        for (int s = 0; s < STUDY_NSTRATEGIES && !rc && !m->held; s++)
            if (add_cal(m, runs[s], &o->target))
                rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        /* exploration: seeded perturbations of the exact solution (a seed stream apart from
         * the frozen set's) join the calibration set too */
        const struct lsp_problem *pr = study_pipe_problem(p);
        int32_t *ex = malloc(sizeof *ex * ((size_t)m->nops + 1));
        struct ls_rng rng;
        ls_rng_seed(&rng, o->seed * 1000003u + 7919u * (uint64_t)(it + 1) + (uint64_t)i);
        /* iteration 0's strategies are the frozen set's and join no fit: there, one
         * perturbation of each strategy's solution, so that the first refit's verdict has
         * program pairs to rank */
        int nex = it == 0 && o->explore > 0 && o->explore < STUDY_NSTRATEGIES ? STUDY_NSTRATEGIES
                                                                              : o->explore;
        for (int e = 0; e < nex && !rc && !m->held; e++) {
            if (!ex) {
                rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                break;
            }
            int from = it == 0 ? STUDY_NSTRATEGIES - 1 - e % STUDY_NSTRATEGIES
                               : STUDY_NSTRATEGIES - 1;
            memcpy(ex, runs[from]->sol.cfg, sizeof *ex * (size_t)m->nops);
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
    return rc;
}

/* The fastest simulated time known for model i after iterations [0..upto]: its frozen
 * set, its calibration programs and every iteration's strategies. */
static double best_known(const struct mstate *m, const struct study_loop_result *out, int i,
                         int upto)
{
    double b = INFINITY;
    for (int k = 0; k < m->npts; k++)
        b = m->sim[k] > 0 && m->sim[k] < b ? m->sim[k] : b;
    for (size_t k = 0; k < m->calsim.len; k++)
        b = m->calsim.data[k] > 0 && m->calsim.data[k] < b ? m->calsim.data[k] : b;
    for (int it = 0; it <= upto && (size_t)it < out->iterations.len; it++) {
        const struct study_loop_model *lm = &out->iterations.data[it].models.data[i];
        for (int k = 0; k < STUDY_NSTRATEGIES; k++) {
            double v = (double)lm->strategies.runs[k].simulated;
            b = v > 0 && v < b ? v : b;
        }
    }
    return isfinite(b) ? b : NAN;
}

/* Exact's regret of iteration `it` against the best known after iteration `upto` (each
 * model's best_known and regret, and the iteration's summaries). */
static void iter_regret(const struct mstate *ms, int n, struct study_loop_result *out, int it,
                        int upto)
{
    struct study_loop_iter *ij = &out->iterations.data[it];
    size_t cap = (size_t)(n ? n : 1);
    double *tr = malloc(sizeof *tr * cap), *he = malloc(sizeof *he * cap);
    int nt = 0, nh = 0;
    for (int i = 0; i < n && (size_t)i < ij->models.len; i++) {
        struct study_loop_model *lm = &ij->models.data[i];
        lm->best_known = best_known(&ms[i], out, i, upto);
        double ex = (double)lm->strategies.runs[STUDY_NSTRATEGIES - 1].simulated;
        lm->regret = ex > 0 && lm->best_known > 0 ? ex / lm->best_known - 1 : NAN;
        if (tr && he && ms[i].held)
            he[nh++] = lm->regret;
        else if (tr && he)
            tr[nt++] = lm->regret;
    }
    study_regret_summary(tr, tr && he ? nt : 0, &ij->regret);
    study_regret_summary(he, tr && he ? nh : 0, &ij->held_regret);
    free(tr);
    free(he);
}

/* Mean of the calibration models' regrets (NaN skipped; 0 when none). */
static double regret_mean(const struct study_loop_iter *ij)
{
    double s = 0;
    int k = 0;
    for (size_t i = 0; i < ij->models.len; i++)
        if (!ij->models.data[i].held_out && !isnan(ij->models.data[i].regret)) {
            s += ij->models.data[i].regret;
            k++;
        }
    return k ? s / k : 0;
}

/* One iteration over every model under cur (lofo[i]: model i's leave-one-family-out
 * table) into ij; A[0..4) are scratch. */
static int iterate(struct mstate *ms, int n, int it, const struct study_loop_opts *o,
                   const struct cm_table *cur, const struct cm_table *lofo,
                   const struct cm_table *tmicro, struct agg_metrics *A,
                   struct study_point *pts, struct study_loop_iter *ij, struct ls_error *err)
{
    int rc = 0;
    for (int k = 0; k < LOOP_NAGG; k++)
        agg_reset(&A[k]);      /* 0 frozen, 1 lofo, 2 strategies, 3 in-sample, 4 and 5: 0
                                  and 1 over the strategy points only; the held-out
                                  models: 6 frozen strategy points, 7 strategies */
    ij->exact_within_1pct_all = 1;
    if (LS_VEC_RESERVE(&ij->models, (size_t)n))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < n && !rc; i++) {
        struct mstate *m = &ms[i];
        if (o->progress.done) /* units: (iteration, model) pairs, at most iterations + 1 */
            o->progress.done(o->progress.ctx, (size_t)it * (size_t)n + (size_t)i,
                             ((size_t)o->iterations + 1) * (size_t)n, m->spec);
        study_progress_phase(&o->progress, "iteration %d: %s", it, m->spec);
        struct study_loop_model *lm = &ij->models.data[ij->models.len++];
        memset(lm, 0, sizeof *lm);
        lm->model = m->spec;
        lm->family = m->family;
        lm->held_out = m->held;
        lm->strategies.model = m->spec;
        lm->strategies.family = m->family;
        /* out of sample: frozen set under the current table */
        if ((rc = eval_under(m, o, cur, m->cfg, m->sim, m->npts, pts, m->label, err)))
            break;
        int nstrat = m->npts < STUDY_NSTRATEGIES ? m->npts : STUDY_NSTRATEGIES;
        if (agg_add(&A[0], pts, m->npts) || agg_add(&A[4], pts, nstrat) ||
            (m->held && agg_add(&A[6], pts, nstrat)) ||
            (rc = lp_metrics(pts, m->npts, &lm->frozen, err))) {
            rc = rc ? rc : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            break;
        }
        if (o->lofo && n > 1) {
            if ((rc = eval_under(m, o, &lofo[i], m->cfg, m->sim, m->npts, pts, m->label, err)))
                break;
            lm->has_lofo = 1;
            if (agg_add(&A[1], pts, m->npts) || agg_add(&A[5], pts, nstrat) ||
                (rc = lp_metrics(pts, m->npts, &lm->lofo, err))) {
                rc = rc ? rc : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                break;
            }
        }
        /* in sample: the calibration programs under the current table */
        if (m->ncal > 0 && !m->held) {
            struct study_point *cp = malloc(sizeof *cp * (size_t)m->ncal);
            if (!cp) {
                rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                break;
            }
            if (!(rc = eval_under(m, o, cur, m->calcfg.data, m->calsim.data, m->ncal, cp, NULL,
                                  err)) &&
                agg_add(&A[3], cp, m->ncal))
                rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            free(cp);
            if (rc)
                break;
        }
        /* the four strategies under the current table: solve, compile, simulate */
        rc = run_model(m, i, it, o, cur, tmicro, &A[m->held ? 7 : 2], lm, err);
        if (!rc && !lm->strategies.criterion.exact_within_1pct)
            ij->exact_within_1pct_all = 0;
    }
    if (rc)
        return rc;
    ij->iteration = it;
    snprintf(ij->aggregate, sizeof ij->aggregate, "%s", cur->aggregate);
    ij->table_hash = cm_table_hash(cur);
    agg_metrics_of(&A[0], &ij->frozen);
    agg_metrics_of(&A[4], &ij->frozen_strategies);
    ij->has_lofo = o->lofo && n > 1;
    if (ij->has_lofo) {
        agg_metrics_of(&A[1], &ij->lofo);
        agg_metrics_of(&A[5], &ij->lofo_strategies);
    }
    agg_metrics_of(&A[2], &ij->strategy);
    ij->has_held = o->nholdout > 0;
    if (ij->has_held) {
        agg_metrics_of(&A[6], &ij->held_frozen_strategies);
        agg_metrics_of(&A[7], &ij->held_strategy);
    }
    agg_metrics_of(&A[3], &ij->in_sample);
    ij->fit_rel_error = NAN;
    return 0;
}

/* Name the models and mark the held-out ones: every held-out spec must be one of the
 * models, and one model at least must remain to fit on. */
static int mark_held(struct mstate *ms, const char *const *models, int n,
                     const struct study_loop_opts *o, struct ls_error *err)
{
    int fitted = n;
    for (int i = 0; i < n; i++)
        ms[i].spec = models[i];
    for (int h = 0; h < o->nholdout; h++) {
        int found = 0;
        for (int i = 0; i < n; i++)
            if (strcmp(models[i], o->holdout_models[h]) == 0) {
                found = 1;
                fitted -= !ms[i].held;
                ms[i].held = 1;
            }
        if (!found)
            return ls_error_msg(err, LS_ERR_INPUT, "held-out model '%s' is not one of the "
                                "loop's models", o->holdout_models[h]);
    }
    if (fitted < 1)
        return ls_error_msg(err, LS_ERR_INPUT, "every model is held out: none is left to fit on");
    return 0;
}

int study_loop(const char *const *models, int n, const struct study_loop_opts *o,
               struct study_loop_result *out, struct cm_table *final, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    struct mstate *ms = calloc((size_t)n + 1, sizeof *ms);
    struct cm_table *lofo = calloc((size_t)n + 1, sizeof *lofo);
    /* each iteration's table and its leave-one-family-out tables, for the verdict */
    size_t niter = (size_t)(o->iterations > 0 ? o->iterations : 0) + 1;
    struct cm_table *histcur = calloc(niter, sizeof *histcur),
                    *hist = calloc(niter * (size_t)n + 1, sizeof *hist);
    struct agg_metrics A[LOOP_NAGG] = {0};
    struct study_point *pts = NULL;
    int rc = 0;
    if (!ms || !lofo || !histcur || !hist) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    struct cm_table t0, tmicro, cur;
    cm_table_default(&o->target, &t0);
    size_t nmicro = 0, nsamples = 0;
    rc = micro_fit(o, &t0, &tmicro, &nmicro, &nsamples, err);
    out->microbenchmarks = nmicro;
    out->microbench_samples = nsamples;
    if (rc)
        goto done;
    if ((rc = mark_held(ms, models, n, o, err)))
        goto done;
    int maxpts = 1;
    for (int i = 0; i < n && !rc; i++) {
        ms[i].key = i;
        ms[i].family = study_model_family(models[i]);
        cm_groups_init(&ms[i].groups, tmicro.n);
        study_progress_phase(&o->progress, "frozen set of %s (model %d of %d)", models[i],
                             i + 1, n);
        if (!(rc = model_load(models[i], &o->zo, &ms[i].g, err)))
            rc = build_frozen(&ms[i], o, &t0, err);
        if (ms[i].npts > maxpts)
            maxpts = ms[i].npts;
    }
    if (rc)
        goto done;
    if (!(pts = malloc(sizeof *pts * (size_t)maxpts))) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    cur = t0;
    for (int i = 0; i < n; i++)
        lofo[i] = t0;
    double prev_acc = -1, prev_med = INFINITY;
    struct cm_table prev_tab = cur;   /* the table of the iteration before */
    for (int it = 0; it <= o->iterations && !rc; it++) {
        if (LS_VEC_RESERVE(&out->iterations, out->iterations.len + 1)) {
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            break;
        }
        struct study_loop_iter *ij = &out->iterations.data[out->iterations.len++];
        memset(ij, 0, sizeof *ij);
        if ((rc = iterate(ms, n, it, o, &cur, lofo, &tmicro, A, pts, ij, err)))
            break;
        /* stop when the training side stops improving: the four strategies' programs of
         * the calibration models, chosen under this table and simulated before they join
         * the fit. The frozen evaluation set only reports (choosing the iteration count on
         * it would make its figures in-sample; issue 18). */
        double acc = ij->strategy.pairwise_accuracy, med = ij->strategy.median_rel_error;
        /* and exact's regret on them, this iteration's against the one before under the
         * same best known times (a faster layout found now raises both) */
        double reg = NAN, prev_reg = NAN;
        if (it > 0) {
            iter_regret(ms, n, out, it - 1, it);
            prev_reg = regret_mean(&out->iterations.data[it - 1]);
            ij = &out->iterations.data[it];
        }
        iter_regret(ms, n, out, it, it);
        reg = regret_mean(ij);
        if (it > 1 && !(acc > prev_acc + 1e-9) && !(med < prev_med - 1e-4) &&
            !(reg < prev_reg - 1e-4)) {
            cur = prev_tab;   /* this refit did not help the training side: keep the one before */
            out->final_iteration = it - 1;
            break;
        }
        prev_acc = acc;
        prev_med = med;
        prev_tab = cur;
        out->final_iteration = it;
        if (it == o->iterations)
            break;
        /* refit from every calibration program so far */
        study_progress_phase(&o->progress, "iteration %d: refitting the table", it);
        memcpy(hist + (size_t)it * (size_t)n, lofo, sizeof *lofo * (size_t)n);
        histcur[it] = cur;
        int keep = -1;
        if ((rc = refit(ms, n, o, &t0, &tmicro, hist, &cur, lofo, ij, &keep, err)))
            break;
        if (keep >= 0) {   /* the verdict kept the table of iteration `keep`: it is final */
            cur = histcur[keep];
            out->final_iteration = keep;
            break;
        }
    }
    for (size_t it = 0; !rc && it < out->iterations.len; it++) /* the loop's best known */
        iter_regret(ms, n, out, (int)it, (int)out->iterations.len - 1);
    if (!rc && final)
        *final = cur;
done:
    if (ms)
        for (int i = 0; i < n; i++) {
            graph_free(ms[i].g);
            free(ms[i].cfg);
            free(ms[i].label);
            free(ms[i].sim);
            LS_VEC_FREE(&ms[i].calcfg);
            LS_VEC_FREE(&ms[i].calsim);
            cm_groups_free(&ms[i].groups);
        }
    free(ms);
    free(lofo);
    free(histcur);
    free(hist);
    free(pts);
    for (int k = 0; k < LOOP_NAGG; k++)
        agg_free(&A[k]);
    if (rc)
        study_loop_result_free(out);
    return rc;
}
