/* study/loop_verdict: a refit's candidates judged on the families they left out
 * (docs/calibration.md, "The loop"). The frozen evaluation sets only report, so the
 * judgement reads the calibration programs: each candidate's table fitted without a
 * family predicts that family's programs, as calibrate's models left out do. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calib_run.h"
#include "study/loop_int.h"

const char *study_loop_form_name(enum study_loop_form f)
{
    return f == STUDY_LOOP_KEEP        ? "keep"
           : f == STUDY_LOOP_GROUP_FIT ? "group_fit"
           : f == STUDY_LOOP_SHARE_ONLY ? "share_only"
                                        : "?";
}

int lp_verdict_applies(const struct lp_calset *cs, int n)
{
    const char *first = NULL;
    for (int i = 0; i < n; i++)
        if (cs[i].fitted && cs[i].ncal > 0) {
            if (first && strcmp(first, cs[i].family) != 0)
                return 1;
            first = first ? first : cs[i].family;
        }
    return 0;
}

int lp_judged_better(const struct study_loop_judged *a, const struct study_loop_judged *b)
{
    return cm_ranks_better(a->correct, a->mean_median, b->correct, b->mean_median);
}

int lp_judge(const struct lp_calset *cs, int n, const struct study_loop_opts *o,
             const struct cm_table *tabs, struct study_loop_judged *j, struct ls_error *err)
{
    memset(j, 0, sizeof *j);
    double sum = 0;
    int models = 0, rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        if (!cs[i].fitted || cs[i].ncal < 1)
            continue;
        struct study_point *pts = calloc((size_t)cs[i].ncal, sizeof *pts);
        double *pred = malloc(sizeof *pred * (size_t)cs[i].ncal);
        if (!pts || !pred)
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        if (!rc)
            rc = lp_objectives(cs[i].g, o, &tabs[i], cs[i].cfg, cs[i].nops, cs[i].ncal, pred,
                               err);
        struct study_metrics m;
        for (int k = 0; k < cs[i].ncal && !rc; k++)
            pts[k] = (struct study_point){.label = "cal",
                                          .cfg = cs[i].cfg + (size_t)k * (size_t)cs[i].nops,
                                          .ncfg = cs[i].nops,
                                          .predicted = pred[k],
                                          .simulated = cs[i].sim[k]};
        if (!rc && !(rc = lp_metrics(pts, cs[i].ncal, &m, err))) {
            j->pairs += (int)m.pw.pairs;
            j->correct += (int)m.pw.correct;
            if (!isnan(m.median_rel_error)) {
                sum += m.median_rel_error;
                models++;
            }
        }
        free(pts);
        free(pred);
    }
    j->mean_median = models ? sum / models : NAN;
    return rc;
}

/* Per calibration program of model i: (simulated - conversions) / ops under t0, every
 * group in full. The objective is conversions + share x ops (up to each group's
 * rounding), so two shares give both parts. */
static int share_ratios(const struct lp_calset *c, const struct study_loop_opts *o,
                        const struct cm_table *t0, double *ratio, int *nr,
                        struct ls_error *err)
{
    struct cm_table full = *t0, half = *t0;
    full.exposed = 0;
    full.exposed_share = 1;
    half.exposed = 1;
    half.exposed_share = 0.5;
    double *p1 = malloc(sizeof *p1 * (size_t)c->ncal), *ph = malloc(sizeof *ph * (size_t)c->ncal);
    int rc = !p1 || !ph ? ls_error_msg(err, LS_ERR_NOMEM, "out of memory") : 0;
    if (!rc)
        rc = lp_objectives(c->g, o, &full, c->cfg, c->nops, c->ncal, p1, err);
    if (!rc)
        rc = lp_objectives(c->g, o, &half, c->cfg, c->nops, c->ncal, ph, err);
    for (int k = 0; k < c->ncal && !rc; k++) {
        double ops = (p1[k] - ph[k]) / 0.5, conv = p1[k] - ops;
        if (ops > 0 && c->sim[k] > 0)
            ratio[(*nr)++] = (c->sim[k] - conv) / ops;
    }
    free(p1);
    free(ph);
    return rc;
}

/* t0 with the median of ratios (those of models outside `skip`'s family; NULL: all) as
 * its exposed share, clamped to the key's range; t0 itself when there is none. */
static double share_of(const struct lp_calset *cs, int n, const double *ratio,
                       const int *first, const int *count, const char *skip, double *buf)
{
    int m = 0;
    for (int i = 0; i < n; i++)
        if (!skip || strcmp(cs[i].family, skip) != 0)
            for (int k = 0; k < count[i]; k++)
                buf[m++] = ratio[first[i] + k];
    if (!m)
        return NAN;
    double s = study_median(buf, m);
    return s < 1e-3 ? 1e-3 : s > CM_EXPOSED_SHARE_MAX ? CM_EXPOSED_SHARE_MAX : s;
}

static void with_share(const struct cm_table *t0, double s, struct cm_table *out)
{
    *out = *t0;
    if (!isnan(s)) {
        out->exposed = 1;
        out->exposed_share = s;
    }
}

int lp_share_fit(const struct lp_calset *cs, int n, const struct study_loop_opts *o,
                 const struct cm_table *t0, struct cm_table *whole, struct cm_table *folds,
                 double *share, struct ls_error *err)
{
    size_t total = 1;
    for (int i = 0; i < n; i++)
        total += cs[i].fitted ? (size_t)cs[i].ncal : 0;
    double *ratio = calloc(total, sizeof *ratio), *buf = calloc(total, sizeof *buf);
    int *first = calloc((size_t)n + 1, sizeof *first), *count = calloc((size_t)n + 1, sizeof *count);
    int rc = 0, nr = 0;
    if (!ratio || !buf || !first || !count) {
        free(ratio);
        free(buf);
        free(first);
        free(count);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (int i = 0; i < n && !rc; i++) {
        first[i] = nr;
        if (cs[i].fitted && cs[i].ncal > 0)
            rc = share_ratios(&cs[i], o, t0, ratio, &nr, err);
        count[i] = nr - first[i];
    }
    if (!rc) {
        *share = share_of(cs, n, ratio, first, count, NULL, buf);
        with_share(t0, *share, whole);
        for (int i = 0; i < n; i++)
            with_share(t0, share_of(cs, n, ratio, first, count, cs[i].family, buf), &folds[i]);
    }
    free(ratio);
    free(buf);
    free(first);
    free(count);
    return rc;
}
