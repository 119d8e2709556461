/* study/validate: pairwise ranking accuracy, Kendall tau-b, relative errors, criterion. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/validate.h"
#include "util/order.h"

int study_cmp3(double a, double b)
{
    return cm_cmp3(a, b);
}

int study_same_assignment(const struct study_point *a, const struct study_point *b)
{
    if (!a->cfg || !b->cfg || a->ncfg != b->ncfg)
        return 0;
    return memcmp(a->cfg, b->cfg, sizeof *a->cfg * (size_t)a->ncfg) == 0;
}

void study_pairwise_add(const struct study_point *pts, int n, struct study_pairwise *acc)
{
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (study_same_assignment(&pts[i], &pts[j])) {
                acc->identical++;
                continue;
            }
            acc->pairs++;
            if (study_cmp3(pts[i].predicted, pts[j].predicted) ==
                study_cmp3(pts[i].simulated, pts[j].simulated))
                acc->correct++;
        }
}

double study_pairwise_accuracy(const struct study_pairwise *a)
{
    return a->pairs ? (double)a->correct / a->pairs : NAN;
}

double study_kendall_tau_b(const struct study_point *pts, int n)
{
    long long nc = 0, nd = 0, tx = 0, ty = 0;
    int m = 0;
    for (int i = 0; i < n; i++) {
        int dup = 0;
        for (int k = 0; k < i && !dup; k++)
            dup = study_same_assignment(&pts[k], &pts[i]);
        if (dup)
            continue;
        m++;
        for (int j = i + 1; j < n; j++) {
            int dupj = 0;
            for (int k = 0; k < j && !dupj; k++)
                dupj = study_same_assignment(&pts[k], &pts[j]);
            if (dupj)
                continue;
            int a = study_cmp3(pts[i].predicted, pts[j].predicted);
            int b = study_cmp3(pts[i].simulated, pts[j].simulated);
            if (a == 0 && b == 0)
                continue;          /* tied on both: counted in neither tx nor ty */
            if (a == 0)
                tx++;
            else if (b == 0)
                ty++;
            else if (a == b)
                nc++;
            else
                nd++;
        }
    }
    double den = sqrt((double)(nc + nd + tx) * (double)(nc + nd + ty));
    if (m < 2 || den == 0)
        return NAN;
    return (double)(nc - nd) / den;
}

int study_rel_errors(const struct study_point *pts, int n, double *rel)
{
    for (int i = 0; i < n; i++)
        rel[i] = pts[i].simulated > 0 ? fabs(pts[i].predicted - pts[i].simulated) / pts[i].simulated
                                      : NAN;
    return n;
}

double study_median(const double *x, int n)
{
    if (n <= 0)
        return NAN;
    double *c = malloc(sizeof *c * (size_t)n);
    if (!c)
        return NAN;
    memcpy(c, x, sizeof *c * (size_t)n);
    double m = ls_median(c, (size_t)n);
    free(c);
    return m;
}

double study_max(const double *x, int n)
{
    if (n <= 0)
        return NAN;
    double m = x[0];
    for (int i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    return m;
}

double study_nanmean(const double *x, int n)
{
    double s = 0;
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i])) {
            s += x[i];
            k++;
        }
    return k ? s / k : NAN;
}

int study_criterion(const struct study_point *pts, int n, int exact_index,
                    struct study_criterion *out)
{
    memset(out, 0, sizeof *out);
    if (n < 1 || n > STUDY_CRITERION_MAX || exact_index < 0 || exact_index >= n)
        return LS_ERR_INPUT;
    const struct study_point *ex = &pts[exact_index];
    double rel[STUDY_CRITERION_MAX] = {0};
    study_rel_errors(pts, n, rel);
    out->model_error = study_max(rel, n);
    out->exact_error = rel[exact_index];
    out->best_sim = pts[0].simulated;
    double maxgap = 0;
    for (int i = 0; i < n; i++) {
        out->gap[i] = ex->predicted > 0 ? pts[i].predicted / ex->predicted - 1 : 0;
        if (i != exact_index && out->gap[i] > maxgap)
            maxgap = out->gap[i];
        if (pts[i].simulated < out->best_sim)
            out->best_sim = pts[i].simulated;
    }
    out->exact_vs_best = out->best_sim > 0 ? ex->simulated / out->best_sim - 1 : 0;
    out->exact_within_1pct = out->exact_vs_best <= 0.01;
    out->exact_pays = maxgap > out->model_error;
    return 0;
}
