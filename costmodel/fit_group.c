/* costmodel/fit_group: fit per-entry scales of the latency and throughput terms (and the
 * exposed latency group_ns of "max" tables) to the exposed simulated time of groups. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "util/vec.h"

#define NE LS_ENGINE_COUNT

void cm_groups_init(struct cm_groups *g, int nent)
{
    memset(g, 0, sizeof *g);
    g->nent = nent;
}

void cm_groups_free(struct cm_groups *g)
{
    free(g->y);
    free(g->x);
    free(g->w);
    memset(g, 0, sizeof *g);
}

static size_t rowlen(const struct cm_groups *g)
{
    return (size_t)NE * 2 * (size_t)g->nent;
}

static double *new_row(struct cm_groups *g)
{
    if (LS_ARRAY_RESERVE(g->y, g->cap, g->n + 1) || LS_ARRAY_RESERVE(g->w, g->capw, g->n + 1) ||
        LS_ARRAY_RESERVE(g->x, g->capx, (g->n + 1) * rowlen(g)))
        return NULL;
    double *r = g->x + g->n * rowlen(g);
    memset(r, 0, rowlen(g) * sizeof *r);
    g->y[g->n] = 0;
    g->w[g->n] = 1;
    g->n++;
    return r;
}

int cm_groups_add_program(struct cm_groups *g, const struct cm_parts *parts,
                          const struct trace_record *rec, const int32_t *tag, size_t n,
                          size_t ntags, uint64_t tick_mhz, uint32_t base_mhz, double weight)
{
    /* row index per tag, created on first use; untagged instructions: own rows */
    long *row = malloc(sizeof *row * (ntags + 1));
    if (!row)
        return LS_ERR_NOMEM;
    for (size_t k = 0; k <= ntags; k++)
        row[k] = -1;
    uint64_t run = 0;
    double cyc = (double)base_mhz / (double)tick_mhz;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        long r;
        int32_t tg = tag[i];
        if (tg >= 0 && (size_t)tg < ntags && row[tg] >= 0) {
            r = row[tg];
        } else {
            if (!new_row(g)) {
                rc = LS_ERR_NOMEM;
                break;
            }
            r = (long)g->n - 1;
            g->w[r] = weight;
            if (tg >= 0 && (size_t)tg < ntags)
                row[tg] = r;
        }
        double exposed = rec[i].end > run ? (double)(rec[i].end - run) : 0;
        if (rec[i].end > run)
            run = rec[i].end;
        g->y[r] += exposed * cyc;
        const struct cm_parts *p = &parts[i];
        if (p->entry >= 0 && p->entry < g->nent && p->engine < NE) {
            double *x = g->x + (size_t)r * rowlen(g) + ((size_t)p->engine * g->nent + p->entry) * 2;
            x[0] += p->fixed;
            x[1] += p->var;
        }
    }
    free(row);
    return rc;
}

/* predicted group value under scales th (2 * nent) and intercept L, and its argmax engine */
static double predict(const struct cm_groups *g, size_t i, const double *th, double L,
                      enum cm_aggregate agg, int *arg)
{
    const double *x = g->x + i * rowlen(g);
    size_t per = 2 * (size_t)g->nent;
    double best = 0, sum = 0;
    *arg = 0;
    for (int e = 0; e < NE; e++) {
        double s = 0;
        for (size_t j = 0; j < per; j++)
            s += th[j] * x[e * per + j];
        sum += s;
        if (s > best) {
            best = s;
            *arg = e;
        }
    }
    return agg == CM_AGG_MAX ? best + (sum > 0 ? L : 0) : sum;
}

/* Ridge-regularized (towards th = 1) weighted least squares on the current linearization. */
static int solve(const struct cm_groups *g, enum cm_aggregate agg, const int *arg, double *th,
                 double *L)
{
    size_t per = 2 * (size_t)g->nent;
    size_t p = per + (agg == CM_AGG_MAX);
    size_t n = g->n + p;
    gsl_matrix *A = gsl_matrix_calloc(n, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *b = gsl_vector_calloc(n), *c = gsl_vector_alloc(p);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
    int rc = LS_ERR_NOMEM;
    if (!A || !cov || !b || !c || !ws)
        goto out;
    double *norm = calloc(p, sizeof *norm);
    if (!norm)
        goto out;
    for (size_t i = 0; i < g->n; i++) {
        const double *x = g->x + i * rowlen(g);
        double w = sqrt(g->w[i]);
        int any = 0;
        for (int e = 0; e < NE; e++) {
            if (agg == CM_AGG_MAX && e != arg[i])
                continue;
            for (size_t j = 0; j < per; j++) {
                double v = x[e * per + j];
                if (v != 0) {
                    any = 1;
                    gsl_matrix_set(A, i, j, gsl_matrix_get(A, i, j) + v * w);
                }
            }
        }
        if (agg == CM_AGG_MAX && any)
            gsl_matrix_set(A, i, per, w);
        gsl_vector_set(b, i, g->y[i] * w);
        for (size_t j = 0; j < p; j++)
            norm[j] += gsl_matrix_get(A, i, j) * gsl_matrix_get(A, i, j);
    }
    /* ridge rows: lambda * ||column|| * (th_j - prior_j) = 0 */
    const double lambda = 0.05;
    for (size_t j = 0; j < p; j++) {
        double s = lambda * sqrt(norm[j]);
        if (s == 0)
            s = 1;  /* unused column: pinned at its prior */
        double prior = j < per ? 1.0 : *L;
        gsl_matrix_set(A, g->n + j, j, s);
        gsl_vector_set(b, g->n + j, s * prior);
    }
    free(norm);
    double chi;
    if (gsl_multifit_linear(A, b, c, cov, &chi, ws)) {
        rc = LS_ERR_INTERNAL;
        goto out;
    }
    for (size_t j = 0; j < per; j++) {
        double v = gsl_vector_get(c, j);
        th[j] = isfinite(v) ? fmin(fmax(v, 0.02), 50.0) : 1.0;
    }
    if (agg == CM_AGG_MAX) {
        double v = gsl_vector_get(c, per);
        *L = isfinite(v) && v > 0 ? v : 0;
    }
    rc = 0;
out:
    gsl_matrix_free(A);
    gsl_matrix_free(cov);
    gsl_vector_free(b);
    gsl_vector_free(c);
    if (ws)
        gsl_multifit_linear_free(ws);
    return rc;
}

int cm_group_fit(const struct cm_groups *g, enum cm_aggregate agg, const struct sim_target *t,
                 struct cm_table *tb, double *rel, struct ls_error *err)
{
    gsl_set_error_handler_off();
    if (g->n == 0)
        return ls_error_msg(err, LS_ERR_INPUT, "no groups to fit");
    size_t per = 2 * (size_t)g->nent;
    double *th = malloc(sizeof *th * per);
    int *arg = malloc(sizeof *arg * g->n);
    if (!th || !arg) {
        free(th);
        free(arg);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (size_t j = 0; j < per; j++)
        th[j] = 1;
    double L = agg == CM_AGG_MAX ? tb->group_ns * t->base_mhz / 1000.0 : 0;
    int rc = 0;
    for (int it = 0; it < (agg == CM_AGG_MAX ? 6 : 1) && !rc; it++) {
        for (size_t i = 0; i < g->n; i++)
            predict(g, i, th, L, agg, &arg[i]);
        rc = solve(g, agg, arg, th, &L);
    }
    if (rc) {
        free(th);
        free(arg);
        return ls_error_msg(err, rc, "group fit failed");
    }
    if (rel) {
        double num = 0, den = 0;
        for (size_t i = 0; i < g->n; i++) {
            int a;
            num += g->w[i] * fabs(predict(g, i, th, L, agg, &a) - g->y[i]);
            den += g->w[i] * g->y[i];
        }
        *rel = den > 0 ? num / den : 0;
    }
    for (int k = 0; k < tb->n && k < g->nent; k++) {
        struct cm_entry *e = &tb->e[k];
        double sf = th[2 * k], sv = th[2 * k + 1];
        e->a *= sf;
        e->fixed_ns *= sf;
        e->b *= sv;
        e->c *= sv;
        e->desc_min_ns *= sv;
        if (e->bytes_per_ns > 0)
            e->bytes_per_ns /= sv;
    }
    cm_table_set_aggregate(tb, agg, agg == CM_AGG_MAX ? L * 1000.0 / t->base_mhz : -1);
    free(th);
    free(arg);
    return 0;
}
