/* costmodel/calib_run: the whole of `laysim calibrate` as one call (calib_run.h). */
#include "costmodel/calib_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void cm_run_opts_init(struct cm_run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->holdout = CM_HOLDOUT_DEFAULT;
    o->agg = CM_AGG_MAX;
    o->form = CM_FIT_FORM_DEFAULT;
    o->form.scales = CM_SCALES_AUTO;
}

/* The group fit predicts the held-out traces worse than the prior table. */
static int held_worse(const struct cm_trace_fit *gr)
{
    return gr->done && gr->held_traces && gr->held_after > gr->held_prior;
}

int cm_ranks_better(int correct_a, double mean_a, int correct_b, double mean_b)
{
    /* within rounding, as the held-out samples are judged (costmodel/fit.c judge_entry) */
    return correct_a > correct_b ||
           (correct_a == correct_b && mean_b > mean_a * (1 + 1e-3) + 1e-6);
}

int cm_lomo_worse(const struct cm_lomo *lm)
{
    return lm->nmodels >= 2 &&
           cm_ranks_better(lm->prior_correct, lm->prior_mean, lm->fit_correct, lm->fit_mean);
}

static void lomo_free(struct cm_lomo *lm)
{
    free(lm->first);
    free(lm->ntraces);
    free(lm->fit);
    free(lm->prior);
    memset(lm, 0, sizeof *lm);
}

static int lomo_alloc(struct cm_lomo *lm, int n, struct ls_error *err)
{
    size_t k = n > 0 ? (size_t)n : 1;
    lm->first = calloc(k, sizeof *lm->first);
    lm->ntraces = calloc(k, sizeof *lm->ntraces);
    lm->fit = calloc(k, sizeof *lm->fit);
    lm->prior = calloc(k, sizeof *lm->prior);
    if (!lm->first || !lm->ntraces || !lm->fit || !lm->prior)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    return 0;
}

/* The traces and programs of one fit, the form it takes and where its progress goes. */
struct fit_in {
    const char *const *traces, *const *progs;
    int n, micro;
    const char *mbtrace;
    int no_group, dma_group, fit_issue, share_only;
    enum cm_group_scales scales;
    int report;                /* 1: tell o->progress (the whole fits, not those of a fold) */
    uint64_t step, total;
};

static void progress(const struct cm_run_opts *o, const struct fit_in *in, uint64_t done)
{
    if (o->progress && in->report)
        o->progress(o->progress_ctx, done, in->total);
}

/* The least fit: the prior's entries and form, its exposed share measured on the traces
 * (one number: what the programs of this core overlap across op boundaries). */
static int fit_share_only(const struct fit_in *in, const struct sim_target *t,
                          const struct cm_table *prior, struct cm_run *r, struct ls_error *err)
{
    memset(&r->gr, 0, sizeof r->gr);
    r->fit = *prior;
    r->ns = 0;
    int rc = in->n ? cm_trace_share_fit(in->traces, in->progs, in->n, t, &r->fit, err) : 0;
    r->held_worse = 0;
    r->out = &r->fit;
    return rc;
}

/* One fit: per instruction, then the group fit (or the dependency latency alone). */
static int fit_once(const struct cm_run_opts *o, const struct fit_in *in,
                    const struct sim_target *t, const struct cm_table *prior,
                    struct cm_run *r, struct ls_error *err)
{
    if (in->share_only)
        return fit_share_only(in, t, prior, r, err);
    struct cm_calib cal;
    cm_calib_init(&cal);
    cal.holdout = o->holdout;
    memset(&r->gr, 0, sizeof r->gr);
    int rc = in->micro ? cm_microbench_run(t, &cal, in->mbtrace, &r->nmb, err) : 0;
    for (int i = 0; i < in->n && !rc; i++) {
        rc = cm_calib_add_trace(&cal, in->traces[i], t->dma_engines, err);
        progress(o, in, in->step + (uint64_t)in->micro + (uint64_t)(i + 1));
    }
    if (!rc)
        rc = cm_calib_fit(&cal, prior, &r->fit, r->rep, err);
    r->ns = cal.n;
    cm_calib_free(&cal);
    struct cm_fit_form form = o->form;
    form.dma_group = in->dma_group;
    form.scales = in->scales;
    form.fit_issue = in->fit_issue;
    if (!rc && in->n && !in->no_group)
        rc = cm_trace_group_fit(in->traces, in->progs, in->n, t, o->holdout, o->agg, form,
                                prior, &r->fit, &r->gr, err);
    if (!rc && in->n && in->progs && in->no_group && o->form.fit_dep) {
        /* the gaps say the dependency latency alone */
        rc = cm_trace_dep_measure(in->traces, in->progs, in->n, t, &r->fit, &r->gr.dep_gaps,
                                  err);
        r->gr.dep_rows = r->gr.dep_gaps > 0;
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            r->gr.dep[e] = r->fit.dep[e];
        r->gr.dep[LS_ENGINE_COUNT] = r->fit.dep_tiny;
    }
    if (!rc && in->dma_group && !r->fit.dma_group) { /* no group fit (or none done): the key */
        r->fit.dma_group = 1;
        r->fit.dma_group_lat = 1;
    }
    /* every fit prices a group's DMA latency once (fit_trace.c once_per_group): a prior's
     * dma_latency_waves would price the fitted table in a form it was not fitted in */
    r->fit.dma_waves = 0;
    r->fit.dma_prefetch = 0; /* nor do they discount loads that run ahead */
    /* without a group fit, the traces say how much of the ops' prices programs expose
     * (with one, the scales were fitted to exposed times: cm_group_fit drops the share) */
    if (!rc && in->n && !r->gr.done)
        rc = cm_trace_share_fit(in->traces, in->progs, in->n, t, &r->fit, err);
    r->held_worse = held_worse(&r->gr);
    r->out = r->held_worse && !o->keep_worse ? prior : &r->fit;
    return rc;
}

/* The model of each trace (key[i], -1: no op attribution) and the models, into lm
 * (nmodels 0 unless two or more). */
static int model_keys(const struct cm_run_opts *o, int32_t *key, struct cm_lomo *lm,
                      struct ls_error *err)
{
    int32_t *mkey = calloc((size_t)o->ntraces, sizeof *mkey);
    int rc = mkey ? lomo_alloc(lm, o->ntraces, err)
                  : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int i = 0; i < o->ntraces && !rc; i++) {
        if ((rc = cm_trace_model_key(o->traces[i], &key[i], err)) || key[i] < 0)
            continue;
        int m = 0;
        while (m < lm->nmodels && mkey[m] != key[i])
            m++;
        if (m == lm->nmodels) {
            mkey[m] = key[i];
            lm->first[m] = i;
            lm->nmodels++;
        }
        lm->ntraces[m]++;
    }
    free(mkey);
    if (lm->nmodels < 2)
        lm->nmodels = 0;
    return rc;
}

/* Each model left out in turn: the fit of the other models' traces and the prior, each
 * predicting the programs left out. */
static int leave_models_out(const struct cm_run_opts *o, struct fit_in in,
                            const struct sim_target *t, const struct cm_table *prior,
                            const int32_t *key, struct cm_lomo *lm, struct ls_error *err)
{
    size_t n = (size_t)o->ntraces;
    const char **sub = calloc(n, sizeof *sub), **subp = calloc(n, sizeof *subp);
    unsigned char *mask = calloc(n, 1);
    struct cm_run ff = {0};
    ff.rep = calloc(1, sizeof *ff.rep);
    int rc = sub && subp && mask && ff.rep ? 0 : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    lm->fit_mean = lm->prior_mean = 0;
    lm->pairs = lm->fit_correct = lm->prior_correct = 0;
    in.mbtrace = NULL;
    for (int m = 0; m < lm->nmodels && !rc; m++) {
        int32_t mk = key[lm->first[m]];
        in.n = 0;
        for (int i = 0; i < o->ntraces; i++)
            if (!(mask[i] = key[i] == mk)) {
                subp[in.n] = o->progs ? o->progs[i] : NULL;
                sub[in.n++] = o->traces[i];
            }
        in.traces = sub;
        in.progs = o->progs ? subp : NULL;
        in.report = 0;
        rc = fit_once(o, &in, t, prior, &ff, err);
        in.report = 1;
        struct cm_held hf = {NAN, 0, 0}, hp = {NAN, 0, 0};
        if (!rc)
            rc = cm_trace_programs_judge(o->traces, o->progs, o->ntraces, mask, ff.out, t, &hf,
                                         err);
        if (!rc)
            rc = cm_trace_programs_judge(o->traces, o->progs, o->ntraces, mask, prior, t, &hp,
                                         err);
        lm->fit[m] = hf.median;
        lm->prior[m] = hp.median;
        lm->pairs += hf.pairs;
        lm->fit_correct += hf.correct;
        lm->prior_correct += hp.correct;
        lm->fit_mean += lm->fit[m] / lm->nmodels;
        lm->prior_mean += lm->prior[m] / lm->nmodels;
        progress(o, &in, in.step + (uint64_t)m + 1);
    }
    free(sub);
    free(subp);
    free(mask);
    free(ff.rep);
    return rc;
}

/* Fit all traces in one form, then leave each model out in turn. */
static int fit_form(const struct cm_run_opts *o, struct fit_in in, const struct sim_target *t,
                    const struct cm_table *prior, const int32_t *key, struct cm_run *r,
                    struct ls_error *err)
{
    int rc = fit_once(o, &in, t, prior, r, err);
    r->no_group = in.no_group;
    r->dma_group = in.dma_group;
    r->share_only = in.share_only;
    in.step += (uint64_t)(in.micro + in.n + 1);
    progress(o, &in, in.step);
    if (!rc && r->lomo.nmodels)
        rc = leave_models_out(o, in, t, prior, key, &r->lomo, err);
    return rc;
}

/* Copy lm's per-model arrays' contents into a fresh allocation (another form's). */
static int lomo_copy(struct cm_lomo *dst, const struct cm_lomo *src, int n, struct ls_error *err)
{
    int rc = lomo_alloc(dst, n, err);
    if (rc)
        return rc;
    dst->nmodels = src->nmodels;
    memcpy(dst->first, src->first, (size_t)n * sizeof *dst->first);
    memcpy(dst->ntraces, src->ntraces, (size_t)n * sizeof *dst->ntraces);
    return 0;
}

/* The forms to fit: o's own when it is fixed or no model can be left out; else, for
 * automatic scales, the group fit with split and with tied scales, tied scales with a
 * vector issue latency (chosen among on the models left out, not on the held-out traces:
 * those are other layouts of models in the fit, docs/calibration.md), no group fit
 * with the DMA latency per group and, when the prior has an exposed share, the prior with
 * that share alone measured on the traces. */
static int candidate_forms(const struct cm_run_opts *o, int lomo, const struct cm_table *prior,
                           struct cm_form_cand *c)
{
    int n = 0, fi = o->form.fit_issue;
    if (!lomo || o->fixed_form) {
        c[n++] = (struct cm_form_cand){o->no_group, o->form.dma_group, 0, fi, o->form.scales,
                                       NAN, 0};
        return n;
    }
    if (o->form.scales == CM_SCALES_AUTO) {
        c[n++] = (struct cm_form_cand){0, 0, 0, fi, CM_SCALES_SPLIT, NAN, 0};
        c[n++] = (struct cm_form_cand){0, 0, 0, fi, CM_SCALES_TIED, NAN, 0};
        if (!fi)
            c[n++] = (struct cm_form_cand){0, 0, 0, 1, CM_SCALES_TIED, NAN, 0};
    } else {
        c[n++] = (struct cm_form_cand){0, 0, 0, fi, o->form.scales, NAN, 0};
    }
    c[n++] = (struct cm_form_cand){1, 1, 0, fi, o->form.scales, NAN, 0};
    if (prior->exposed)   /* a prior with a share: the share alone, measured */
        c[n++] = (struct cm_form_cand){1, prior->dma_group, 1, fi, o->form.scales, NAN, 0};
    return n;
}

/* The candidate whose fits rank the most program pairs of the models left out as
 * measured, of those the one that predicts them best (the first of equals): the order of
 * cm_lomo_worse. */
static int best_form(const struct cm_form_cand *c, int n)
{
    int b = 0;
    for (int k = 1; k < n; k++)
        if (c[k].lomo_correct > c[b].lomo_correct ||
            (c[k].lomo_correct == c[b].lomo_correct && c[k].lomo_mean < c[b].lomo_mean))
            b = k;
    return b;
}

int cm_calibrate(const struct cm_run_opts *o, const struct sim_target *t,
                 const struct cm_table *prior, struct cm_run *r, struct ls_error *err)
{
    memset(r, 0, sizeof *r);
    struct cm_run alt[CM_MAX_FORMS - 1];
    memset(alt, 0, sizeof alt);
    struct cm_run *run[CM_MAX_FORMS] = {r, &alt[0], &alt[1], &alt[2], &alt[3]};
    int32_t *key = calloc(o->ntraces > 0 ? (size_t)o->ntraces : 1, sizeof *key);
    r->rep = calloc(1, sizeof *r->rep);  /* ~150 KB each: not on the stack */
    int rc = key && r->rep ? 0 : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!rc && !o->no_model_holdout && o->ntraces >= 2)
        rc = model_keys(o, key, &r->lomo, err);
    struct cm_form_cand cand[CM_MAX_FORMS];
    int nform = candidate_forms(o, r->lomo.nmodels > 0, prior, cand);
    for (int k = 1; k < nform && !rc; k++) {
        run[k]->rep = calloc(1, sizeof *run[k]->rep);
        rc = run[k]->rep ? lomo_copy(&run[k]->lomo, &r->lomo, o->ntraces, err)
                         : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    /* per form: microbenchmarks, the traces, the fit, the models left out */
    uint64_t per = (uint64_t)(o->micro + o->ntraces + 1 + r->lomo.nmodels);
    struct fit_in in = {o->traces, o->progs, o->ntraces, o->micro, o->mbtrace, 0, 0, 0, 0,
                        CM_SCALES_AUTO, 1, 0, per * (uint64_t)nform};
    for (int k = 0; k < nform && !rc; k++) {
        in.no_group = cand[k].no_group;
        in.dma_group = cand[k].dma_group;
        in.share_only = cand[k].share_only;
        in.fit_issue = cand[k].fit_issue;
        in.scales = cand[k].scales;
        in.step = per * (uint64_t)k;
        rc = fit_form(o, in, t, prior, key, run[k], err);
        cand[k].lomo_mean = run[k]->lomo.nmodels ? run[k]->lomo.fit_mean : NAN;
        cand[k].lomo_correct = run[k]->lomo.fit_correct;
    }
    int b = !rc && nform > 1 ? best_form(cand, nform) : 0;
    if (b > 0) {   /* the kept form's run into r */
        struct cm_run tmp = *r;
        *r = *run[b];
        *run[b] = tmp;
        if (r->out != prior)   /* the swap moved the fit: point at r's own copy */
            r->out = &r->fit;
    }
    memcpy(r->cand, cand, sizeof cand);
    r->ncand = nform;
    r->chosen = b;
    r->form_chosen = !rc && nform > 1;
    r->other_mean = INFINITY;
    for (int k = 0; k < nform; k++)
        if (k != b && cand[k].lomo_mean < r->other_mean)
            r->other_mean = cand[k].lomo_mean;
    if (!rc && cm_lomo_worse(&r->lomo) && !o->keep_worse)
        r->out = prior;
    free(key);
    for (int k = 1; k < nform; k++)
        cm_run_free(run[k]);
    return rc;
}

void cm_run_free(struct cm_run *r)
{
    free(r->rep);
    r->rep = NULL;
    lomo_free(&r->lomo);
}
