/* costmodel/fit_group: fit per-entry scales of the latency and throughput terms (and the
 * exposed latency group_ns of "max" tables) to the exposed simulated time of groups. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "sim/isa.h"
#include "sim/sim.h"
#include "util/vec.h"
#include "util/order.h"

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
    free(g->count);
    free(g->dcount);
    free(g->pstart);
    free(g->pkey);
    free(g->gap);
    free(g->conv);
    memset(g, 0, sizeof *g);
}

const char *cm_group_scales_name(enum cm_group_scales s)
{
    return s == CM_SCALES_TIED    ? "tied"
           : s == CM_SCALES_SPLIT ? "split"
           : s == CM_SCALES_AUTO  ? "auto"
                                  : "entry";
}

int cm_group_scales_parse(const char *name)
{
    static const enum cm_group_scales all[] = {CM_SCALES_TIED, CM_SCALES_ENTRY, CM_SCALES_SPLIT,
                                               CM_SCALES_AUTO};
    for (size_t k = 0; k < sizeof all / sizeof all[0]; k++)
        if (strcmp(name, cm_group_scales_name(all[k])) == 0)
            return (int)all[k];
    return -1;
}

void cm_groups_set_form(struct cm_groups *g, struct cm_fit_form form,
                        const struct cm_table *base)
{
    g->tied = form.scales == CM_SCALES_TIED    ? CM_TIE_ALL
              : form.scales == CM_SCALES_ENTRY ? CM_TIE_NONE
                                               : CM_TIE_DMA;  /* split, auto */
    g->totals = form.scales != CM_SCALES_ENTRY;
    g->fit_serial = form.fit_serial;
    g->fit_issue = form.fit_issue;
    g->fit_dep = form.fit_dep;
    cm_groups_set_dep(g, base);
    memset(g->dma_entry, 0, sizeof g->dma_entry);
    for (int k = 0; k < base->n && k < (int)sizeof g->dma_entry; k++)
        g->dma_entry[k] = base->e[k].opcode == SIM_OP_DMA_COPY ||
                          base->e[k].opcode == SIM_OP_DMA_TRANSPOSE;
}

int cm_groups_dep_seen(const struct cm_groups *g)
{
    for (size_t k = 0; k < g->n * NE * 2; k++)
        if (g->dcount[k] != 0)
            return 1;
    return 0;
}

void cm_groups_set_dep(struct cm_groups *g, const struct cm_table *tb)
{
    for (int e = 0; e < NE; e++)
        g->dep0[e] = tb->dep[e];
    g->dep0[NE] = tb->dep_tiny;
}

/* dcount of row i, engine e: [0] dependent, [1] dependent and tiny */
static double *dcount(const struct cm_groups *g, size_t i, int e)
{
    return g->dcount + (i * NE + (size_t)e) * 2;
}

/* The dependency parameters after the scales and the issue latency: one per vector
 * engine, then the tiny extra (struct cm_groups: fit_dep). */
#define NDEP 4
static int dep_slot(int e)
{
    return e == LS_ENGINE_ACT ? 0 : e == LS_ENGINE_DVE ? 1 : e == LS_ENGINE_POOL ? 2 : -1;
}

/* Row i's dependency latency on engine e in base cycles under parameters d (NDEP). */
static double dep_value(const struct cm_groups *g, size_t i, int e, const double *d)
{
    int k = dep_slot(e);
    if (k < 0)
        return 0;
    const double *c = dcount(g, i, e);
    return d[k] * c[0] + d[NDEP - 1] * c[1];
}

/* The parameters of the rows' own table (dep0) in the layout of dep_value. */
static void set_dep_params(const struct cm_groups *g, double *d)
{
    for (int e = 0; e < NE; e++)
        if (dep_slot(e) >= 0)
            d[dep_slot(e)] = g->dep0[e];
    d[NDEP - 1] = g->dep0[NE];
}

/* Columns of the dependency latency in the fit: none without fit_dep; with per-entry
 * scales one per vector engine and the tiny extra (NDEP); with tied or split scales one
 * scale of the base table's latency, ridge towards 1: few programs' totals cannot pin four
 * latencies (measured: a DVE latency of 1600 cycles against the hidden core's 180, the
 * vector scales leaning the other way), as they cannot pin per-entry scales. */
static size_t ndep_cols(const struct cm_groups *g)
{
    return !g->fit_dep ? 0 : g->tied == CM_TIE_NONE ? NDEP : 1;
}

static size_t rowlen(const struct cm_groups *g)
{
    return (size_t)NE * 2 * (size_t)g->nent;
}

/* A new zeroed row; x keeps one spare slot so that a table without entries (rows of
 * length 0) still has an array to point into. */
static double *new_row(struct cm_groups *g)
{
    if (LS_ARRAY_RESERVE(g->y, g->cap, g->n + 1) || LS_ARRAY_RESERVE(g->w, g->capw, g->n + 1) ||
        LS_ARRAY_RESERVE(g->x, g->capx, (g->n + 1) * rowlen(g) + 1) ||
        LS_ARRAY_RESERVE(g->count, g->capc, (g->n + 1) * NE) ||
        LS_ARRAY_RESERVE(g->dcount, g->capd, (g->n + 1) * NE * 2) ||
        LS_ARRAY_RESERVE(g->conv, g->capv, g->n + 1))
        return NULL;
    double *r = g->x + g->n * rowlen(g);
    memset(r, 0, rowlen(g) * sizeof *r);
    memset(g->count + g->n * NE, 0, NE * sizeof *g->count);
    memset(g->dcount + g->n * NE * 2, 0, NE * 2 * sizeof *g->dcount);
    g->y[g->n] = 0;
    g->w[g->n] = 1;
    g->conv[g->n] = 0;
    g->n++;
    return r;
}

static int new_program(struct cm_groups *g, size_t first_row, int32_t key)
{
    if (LS_ARRAY_RESERVE(g->pstart, g->capprog, g->nprog + 1) ||
        LS_ARRAY_RESERVE(g->pkey, g->capkey, g->nprog + 1))
        return LS_ERR_NOMEM;
    g->pstart[g->nprog] = first_row;
    g->pkey[g->nprog] = key;
    g->nprog++;
    return 0;
}

int cm_groups_append(struct cm_groups *dst, const struct cm_groups *src)
{
    size_t rl = rowlen(src), n = dst->n + src->n;
    if (dst->nent != src->nent)
        return LS_ERR_INPUT;
    if (LS_ARRAY_RESERVE(dst->y, dst->cap, n) || LS_ARRAY_RESERVE(dst->w, dst->capw, n) ||
        LS_ARRAY_RESERVE(dst->x, dst->capx, n * rl) ||
        LS_ARRAY_RESERVE(dst->count, dst->capc, n * NE) ||
        LS_ARRAY_RESERVE(dst->dcount, dst->capd, n * NE * 2) ||
        LS_ARRAY_RESERVE(dst->conv, dst->capv, n))
        return LS_ERR_NOMEM;
    for (size_t k = 0; k < src->nprog; k++)
        if (new_program(dst, dst->n + src->pstart[k], src->pkey[k]))
            return LS_ERR_NOMEM;
    if (src->n) { /* (an empty set's arrays are NULL: memcpy from NULL is undefined) */
        memcpy(dst->y + dst->n, src->y, src->n * sizeof *src->y);
        memcpy(dst->w + dst->n, src->w, src->n * sizeof *src->w);
        memcpy(dst->x + dst->n * rl, src->x, src->n * rl * sizeof *src->x);
        memcpy(dst->count + dst->n * NE, src->count, src->n * NE * sizeof *src->count);
        memcpy(dst->dcount + dst->n * NE * 2, src->dcount,
               src->n * NE * 2 * sizeof *src->dcount);
        memcpy(dst->conv + dst->n, src->conv, src->n * sizeof *src->conv);
    }
    dst->n = n;
    if (LS_ARRAY_RESERVE(dst->gap, dst->capgap, dst->ngap + src->ngap + 1))
        return LS_ERR_NOMEM;
    if (src->ngap)   /* (src->gap is NULL when it has none) */
        memcpy(dst->gap + dst->ngap, src->gap, src->ngap * sizeof *src->gap);
    dst->ngap += src->ngap;
    return 0;
}

int cm_groups_add_program(struct cm_groups *g, const struct cm_parts *parts,
                          const struct trace_record *rec, const int32_t *tag, size_t n,
                          size_t ntags, uint64_t tick_mhz, uint32_t base_mhz, double weight,
                          int32_t key)
{
    if (new_program(g, g->n, key))
        return LS_ERR_NOMEM;
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
            g->conv[r] = rec[i].op_id < 0 && rec[i].conv_id >= 0;
            if (tg >= 0 && (size_t)tg < ntags)
                row[tg] = r;
        }
        double exposed = rec[i].end > run ? (double)(rec[i].end - run) : 0;
        if (rec[i].end > run)
            run = rec[i].end;
        g->y[r] += exposed * cyc;
        const struct cm_parts *p = &parts[i];
        if (p->engine < NE)
            g->count[(size_t)r * NE + p->engine] += 1;
        if (p->engine < NE && (p->dep & CM_DEP)) {
            double *d = dcount(g, (size_t)r, p->engine);
            d[0] += p->cyc;
            d[1] += (p->dep & CM_DEP_TINY) ? p->cyc : 0;
        }
        if (p->entry >= 0 && p->entry < g->nent && p->engine < NE) {
            double *x = g->x + (size_t)r * rowlen(g) + ((size_t)p->engine * g->nent + p->entry) * 2;
            x[0] += p->fixed;
            x[1] += p->var;
        }
    }
    free(row);
    return rc ? rc : cm_groups_add_gaps(g, parts, rec, tag, n, tick_mhz, base_mhz);
}

/* predicted group value under scales th (2 * nent, then the issue latency: struct
 * cm_groups, fit_issue, then the NDEP dependency latencies), intercept L and serial share
 * sr (the share of the other engines' sums charged under "max"), and its argmax engine */
static double predict(const struct cm_groups *g, size_t i, const double *th, double L,
                      double sr, enum cm_aggregate agg, int *arg)
{
    const double *x = g->x + i * rowlen(g);
    size_t per = 2 * (size_t)g->nent;
    double best = 0, sum = 0;
    *arg = 0;
    for (int e = 0; e < NE; e++) {
        double s = th[per] * g->issue_cyc[e] * g->count[i * NE + (size_t)e] +
                   dep_value(g, i, e, th + per + 1);
        for (size_t j = 0; j < per; j++)
            s += th[j] * x[e * per + j];
        sum += s;
        if (s > best) {
            best = s;
            *arg = e;
        }
    }
    if (agg == CM_AGG_PIPE) {
        double tiles = g->count[i * NE + *arg];
        return best + (sum - best) / (tiles > 1 ? tiles : 1);
    }
    return agg == CM_AGG_MAX ? best + sr * (sum - best) + (sum > 0 ? L : 0) : sum;
}

static size_t prog_end(const struct cm_groups *g, size_t k);

void cm_groups_program_time(const struct cm_groups *g, size_t k, enum cm_aggregate agg,
                            double group_cycles, double serial, double share,
                            double *predicted, double *measured, double *conv)
{
    size_t per = 2 * (size_t)g->nent;
    double *ones = malloc(sizeof *ones * (per + 1 + NDEP)), cv = 0;
    *predicted = *measured = 0;
    if (conv)
        *conv = 0;
    if (!ones || k >= g->nprog) {
        free(ones);
        return;
    }
    for (size_t j = 0; j < per; j++)
        ones[j] = 1;
    ones[per] = 0;   /* the table's own entries already hold any issue latency */
    set_dep_params(g, ones + per + 1);   /* the table's own dependency latency */
    for (size_t i = g->pstart[k]; i < prog_end(g, k); i++) {
        int arg;
        double v = predict(g, i, ones, group_cycles, serial, agg, &arg);
        cv += g->conv[i] ? v : 0;
        *predicted += g->conv[i] ? v : share * v;
        *measured += g->y[i];
    }
    if (conv)
        *conv = cv;
    free(ones);
}

double cm_groups_exposed_share(const struct cm_groups *g, enum cm_aggregate agg,
                               double group_cycles, double serial)
{
    double *r = malloc(sizeof *r * (g->nprog + 1));
    size_t n = 0;
    for (size_t k = 0; r && k < g->nprog; k++) {
        double p, y, cv;
        cm_groups_program_time(g, k, agg, group_cycles, serial, 1, &p, &y, &cv);
        if (y > 0 && p - cv > 0)
            r[n++] = (y - cv) / (p - cv);
    }
    double s = n ? ls_median(r, n) : 0;
    free(r);
    return s;
}

/* Scales the fit solves for: one per (entry, part), or two when tied (struct cm_groups);
 * scale_col maps feature j (entry j / 2, part j % 2) to its scale. */
static size_t nscales(const struct cm_groups *g)
{
    return g->tied == CM_TIE_ALL ? 2 : g->tied == CM_TIE_DMA ? 4 : 2 * (size_t)g->nent;
}

static size_t scale_col(const struct cm_groups *g, size_t j)
{
    if (g->tied == CM_TIE_ALL)
        return j % 2;
    if (g->tied == CM_TIE_DMA)
        return j % 2 + 2 * (j / 2 < sizeof g->dma_entry && g->dma_entry[j / 2]);
    return j;
}

/* Row i of the linearized design (unweighted): for "max" the argmax engine's features
 * plus sr times the other engines' (the serial share), plus the intercept column, then
 * (fit_issue) the issue-latency column, then (fit_dep) the NDEP dependency columns; without
 * fit_dep the rows' own dependency latency is a fixed part of the prediction (*off,
 * base cycles), which the caller takes off the target.
 * Returns 1 when the row has any feature. */
static int lin_row(const struct cm_groups *g, size_t i, enum cm_aggregate agg, int arg,
                   double sr, double *out, size_t p, double *off)
{
    const double *x = g->x + i * rowlen(g);
    size_t per = 2 * (size_t)g->nent;
    int any = 0;
    double d0[NDEP];
    set_dep_params(g, d0);
    memset(out, 0, p * sizeof *out);
    *off = 0;
    /* "pipe": the bottleneck engine's features plus the others' over its tile count */
    double tiles = g->count[i * NE + (size_t)arg];
    double rest = agg == CM_AGG_PIPE ? 1.0 / (tiles > 1 ? tiles : 1) : agg == CM_AGG_MAX ? sr : 1.0;
    size_t issue = nscales(g) + (agg == CM_AGG_MAX);
    for (int e = 0; e < NE; e++) {
        double f = e == arg ? 1.0 : rest;
        if (f == 0)
            continue;
        for (size_t j = 0; j < per; j++)
            if (x[e * per + j] != 0) {
                any = 1;
                out[scale_col(g, j)] += f * x[e * per + j];
            }
        if (g->fit_issue)
            out[issue] += f * g->issue_cyc[e] * g->count[i * NE + (size_t)e];
        int k = dep_slot(e);
        size_t d = issue + (g->fit_issue != 0);
        if (k >= 0 && ndep_cols(g) == NDEP) {
            const double *c = dcount(g, i, e);
            out[d + (size_t)k] += f * c[0];
            out[d + NDEP - 1] += f * c[1];
            any |= c[0] != 0;
        } else if (k >= 0 && g->fit_dep) {
            out[d] += f * dep_value(g, i, e, d0);
            any |= dcount(g, i, e)[0] != 0;
        } else if (k >= 0) {
            *off += f * dep_value(g, i, e, d0);
        }
    }
    if (agg == CM_AGG_MAX && any)
        out[nscales(g)] = 1;
    return any;
}

/* Weight of a difference row relative to one group row of the same program: the pairs of
 * a model are few (at most 6 for four strategies) against hundreds of groups, and a
 * ranking is lost by an error of 0.5% of the program time in their difference. */
#define CM_DIFF_WEIGHT 64.0

static size_t prog_end(const struct cm_groups *g, size_t k)
{
    return k + 1 < g->nprog ? g->pstart[k + 1] : g->n;
}

static size_t count_diffs(const struct cm_groups *g)
{
    size_t nd = 0;
    for (size_t k = 0; k < g->nprog; k++)
        for (size_t l = k + 1; l < g->nprog; l++)
            nd += g->pkey[k] >= 0 && g->pkey[k] == g->pkey[l];
    return nd;
}

/* Per program: the sum of its linearized rows (S, nprog * p) and of its exposed times (Y). */
static int program_sums(const struct cm_groups *g, enum cm_aggregate agg, const int *arg,
                        double sr, size_t p, double *S, double *Y)
{
    double *row = malloc(p * sizeof *row);
    if (!row)
        return LS_ERR_NOMEM;
    for (size_t k = 0; k < g->nprog; k++) {
        double *s = S + k * p;
        memset(s, 0, p * sizeof *s);
        Y[k] = 0;
        for (size_t i = g->pstart[k]; i < prog_end(g, k); i++) {
            double off;
            lin_row(g, i, agg, arg[i], sr, row, p, &off);
            for (size_t j = 0; j < p; j++)
                s[j] += row[j];
            Y[k] += g->y[i] - off;
        }
    }
    free(row);
    return 0;
}

/* Accumulate one data row (unweighted features x, target y, weight w) into G = A'A, h = A'b. */
static void add_row(gsl_matrix *G, gsl_vector *h, const double *x, size_t p, double y, double w)
{
    for (size_t j = 0; j < p; j++) {
        if (x[j] == 0)
            continue;
        *gsl_vector_ptr(h, j) += w * x[j] * y;
        for (size_t k = 0; k < p; k++)
            if (x[k] != 0)
                *gsl_matrix_ptr(G, j, k) += w * x[j] * x[k];
    }
}

/* The difference rows (see struct cm_groups), accumulated into G and h. */
static int add_diff_rows(const struct cm_groups *g, const double *S, const double *Y, size_t p,
                         gsl_matrix *G, gsl_vector *h)
{
    double *d = malloc(p * sizeof *d);
    if (!d)
        return LS_ERR_NOMEM;
    for (size_t k = 0; k < g->nprog; k++)
        for (size_t l = k + 1; l < g->nprog; l++) {
            if (g->pkey[k] < 0 || g->pkey[k] != g->pkey[l])
                continue;
            size_t ik = g->pstart[k], il = g->pstart[l];
            double wk = ik < prog_end(g, k) ? g->w[ik] : 0, wl = il < prog_end(g, l) ? g->w[il] : 0;
            for (size_t j = 0; j < p; j++)
                d[j] = S[k * p + j] - S[l * p + j];
            add_row(G, h, d, p, Y[k] - Y[l], CM_DIFF_WEIGHT * 0.5 * (wk + wl));
        }
    free(d);
    return 0;
}

/* Bounds of a fitted scale: a scale far from 1 says the prior's form is wrong, and an
 * entry fitted to almost nothing (because overlap hides it in the programs seen) makes
 * layouts that lean on it look free to the solvers. */
#define CM_SCALE_MIN 0.02
#define CM_SCALE_MAX 50.0
/* see solve(): a scale column's ridge as if its norm^2 were at least this share of the
 * largest one's */
#define CM_RIDGE_FLOOR 1e-2

/* Least squares with the scales (th_j, j < per) kept in bounds, on the normal equations
 * (G = A'A and h = A'b of the data rows, p x p: the active set below re-solves this small
 * system, not the data): ridge rows add ridge_j^2 (th_j - prior_j)^2 (prior: 1 for a
 * scale, target[j - per] for the columns after them); a scale that leaves
 * its bounds is pinned at the bound it crossed (a ridge that dwarfs its column) and the
 * rest re-solved, until none leaves. */
static int bounded_solve(const gsl_matrix *G, const gsl_vector *h, const double *ridge,
                         size_t per, size_t p, const double *target, double *th)
{
    const double lo = CM_SCALE_MIN, hi = CM_SCALE_MAX;
    gsl_matrix *M = gsl_matrix_alloc(p, p);
    gsl_vector *r = gsl_vector_alloc(p), *x = gsl_vector_alloc(p);
    double *pin = malloc(sizeof *pin * p);
    int rc = LS_ERR_NOMEM;
    if (!M || !r || !x || !pin)
        goto out;
    for (size_t j = 0; j < p; j++)
        pin[j] = NAN;
    for (size_t round = 0; round <= per; round++) {
        gsl_matrix_memcpy(M, G);
        gsl_vector_memcpy(r, h);
        for (size_t j = 0; j < p; j++) {
            double w = isnan(pin[j]) ? ridge[j] : 1e4 * ridge[j];
            double to = !isnan(pin[j]) ? pin[j] : j < per ? 1.0 : target[j - per];
            *gsl_matrix_ptr(M, j, j) += w * w;
            *gsl_vector_ptr(r, j) += w * w * to;
        }
        if (gsl_linalg_cholesky_decomp1(M) || gsl_linalg_cholesky_solve(M, r, x)) {
            rc = LS_ERR_INTERNAL;
            goto out;
        }
        int moved = 0;
        for (size_t j = 0; j < per; j++) {
            double v = gsl_vector_get(x, j);
            if (!isnan(pin[j]))
                continue;
            double bound = !isfinite(v) ? 1.0 : v < lo * (1 - 1e-9) ? lo : v > hi * (1 + 1e-9) ? hi : NAN;
            if (!isnan(bound)) {
                pin[j] = bound;
                moved = 1;
            }
        }
        if (!moved)
            break;
    }
    for (size_t j = 0; j < p; j++) {
        double v = gsl_vector_get(x, j);
        th[j] = j >= per ? v : isfinite(v) ? fmin(fmax(v, lo), hi) : 1.0;
    }
    rc = 0;
out:
    gsl_matrix_free(M);
    gsl_vector_free(r);
    gsl_vector_free(x);
    free(pin);
    return rc;
}

/* Ridge-regularized (towards th = 1) weighted least squares on the current linearization:
 * the group rows and the difference rows, accumulated into the normal equations, then one
 * ridge term per parameter. */
static int solve(const struct cm_groups *g, enum cm_aggregate agg, const int *arg, double sr,
                 double *th, double *L)
{
    size_t per = 2 * (size_t)g->nent, ns = nscales(g);
    size_t nextra = (agg == CM_AGG_MAX) + (g->fit_issue != 0), p = ns + nextra + ndep_cols(g);
    size_t nd = count_diffs(g);
    gsl_matrix *G = gsl_matrix_calloc(p, p);
    gsl_vector *h = gsl_vector_calloc(p);
    double *row = malloc(p * sizeof *row), *sol = malloc(p * sizeof *sol);
    double *S = malloc((g->nprog * p + 1) * sizeof *S), *Y = malloc((g->nprog + 1) * sizeof *Y);
    int rc = LS_ERR_NOMEM;
    if (!G || !h || !row || !sol || !S || !Y)
        goto out;
    if (g->totals || nd) {
        if ((rc = program_sums(g, agg, arg, sr, p, S, Y)))
            goto out;
    }
    for (size_t i = 0; i < g->n && !g->totals; i++) {
        double off;
        lin_row(g, i, agg, arg[i], sr, row, p, &off);
        add_row(G, h, row, p, g->y[i] - off, g->w[i]);
    }
    for (size_t k = 0; k < g->nprog && g->totals; k++)
        if (g->pstart[k] < prog_end(g, k))
            add_row(G, h, S + k * p, p, Y[k], g->w[g->pstart[k]]);
    if (nd && (rc = add_diff_rows(g, S, Y, p, G, h)))
        goto out;
    /* ridge: lambda * ||column|| (an unused column: weight 1, pinned at its prior); a
     * scale's column at least a share of the largest scale column's norm, so that a
     * scale the rows barely see (a latency few of their instructions have) stays near its
     * prior instead of taking whatever value fits them: a fold of the loop without the
     * vision models fitted the compute latency scale at 24, and priced them 4-8x over */
    const double lambda = 0.05;
    double gmax = 0;
    for (size_t j = 0; j < ns; j++)
        gmax = fmax(gmax, gsl_matrix_get(G, j, j));
    for (size_t j = 0; j < p; j++) {
        double gj = gsl_matrix_get(G, j, j);
        double s = lambda * sqrt(j < ns && gj > 0 ? fmax(gj, CM_RIDGE_FLOOR * gmax) : gj);
        row[j] = s == 0 ? 1 : s;
    }
    /* ridge targets after the scales: group_ns at its start, no issue latency, the
     * dependency latency of the base table */
    double target[2 + NDEP];
    size_t nt = 0;
    if (agg == CM_AGG_MAX)
        target[nt++] = *L;
    if (g->fit_issue)
        target[nt++] = 0;
    if (ndep_cols(g) == NDEP)
        set_dep_params(g, target + nt);
    else if (g->fit_dep)
        target[nt] = 1;   /* a scale of the base table's latency */
    if ((rc = bounded_solve(G, h, row, ns, p, target, sol)))
        goto out;
    for (size_t j = 0; j < per; j++)
        th[j] = sol[scale_col(g, j)];
    if (agg == CM_AGG_MAX)
        *L = isfinite(sol[ns]) && sol[ns] > 0 ? sol[ns] : 0;
    if (g->fit_issue) {
        double a = sol[ns + nextra - 1];
        th[per] = isfinite(a) && a > 0 ? a : 0;
    }
    double d0[NDEP], sd = g->fit_dep ? sol[ns + nextra] : 1;
    set_dep_params(g, d0);
    for (size_t k = 0; g->fit_dep && k < NDEP; k++) { /* a latency: never negative */
        double d = ndep_cols(g) == NDEP ? sol[ns + nextra + k] : sd * d0[k];
        th[per + 1 + k] = isfinite(d) && d > 0 ? d : 0;
    }
    rc = 0;
out:
    free(row);
    free(sol);
    free(S);
    free(Y);
    gsl_matrix_free(G);
    gsl_vector_free(h);
    return rc;
}

/* Per program under (th, L, sr): predicted (P) and measured (Y) time; for group rows
 * also the weighted squared error of the groups (*sse_groups). */
static void program_totals(const struct cm_groups *g, enum cm_aggregate agg, const double *th,
                           double L, double sr, double *P, double *Y, double *sse_groups)
{
    *sse_groups = 0;
    for (size_t k = 0; k < g->nprog; k++) {
        P[k] = Y[k] = 0;
        for (size_t i = g->pstart[k]; i < prog_end(g, k); i++) {
            int a;
            double v = predict(g, i, th, L, sr, agg, &a);
            *sse_groups += g->w[i] * (v - g->y[i]) * (v - g->y[i]);
            P[k] += v;
            Y[k] += g->y[i];
        }
    }
}

static double prog_weight(const struct cm_groups *g, size_t k)
{
    return g->pstart[k] < prog_end(g, k) ? g->w[g->pstart[k]] : 0;
}

/* The least-squares objective of the data rows (groups or program totals, and the
 * difference rows) under (th, L, sr), and the weighted relative error of the fitted rows
 * (*rel). P, Y: room for nprog values each. */
static double objective(const struct cm_groups *g, enum cm_aggregate agg, const double *th,
                        double L, double sr, double *P, double *Y, double *rel)
{
    double sse, num = 0, den = 0;
    program_totals(g, agg, th, L, sr, P, Y, &sse);
    if (g->totals)
        sse = 0;
    for (size_t k = 0; k < g->nprog; k++) {
        double w = prog_weight(g, k);
        if (g->totals)
            sse += w * (P[k] - Y[k]) * (P[k] - Y[k]);
        for (size_t l = k + 1; l < g->nprog; l++)
            if (g->pkey[k] >= 0 && g->pkey[k] == g->pkey[l]) {
                double d = (P[k] - P[l]) - (Y[k] - Y[l]);
                sse += CM_DIFF_WEIGHT * 0.5 * (w + prog_weight(g, l)) * d * d;
            }
        if (g->totals) {
            num += w * fabs(P[k] - Y[k]);
            den += w * Y[k];
        }
    }
    for (size_t i = 0; i < g->n && !g->totals; i++) {
        int a;
        double v = predict(g, i, th, L, sr, agg, &a);
        num += g->w[i] * fabs(v - g->y[i]);
        den += g->w[i] * g->y[i];
    }
    *rel = den > 0 ? num / den : 0;
    return sse;
}

/* The scales (th) and intercept (*L, in: its start) at serial share sr: for "max" the
 * argmax engine of each group is re-linearized a few times. */
static int fit_at(const struct cm_groups *g, enum cm_aggregate agg, double sr, int *arg,
                  double *th, double *L)
{
    size_t per = 2 * (size_t)g->nent;
    int rc = 0;
    for (size_t j = 0; j < per; j++)
        th[j] = 1;
    th[per] = 0;
    set_dep_params(g, th + per + 1);
    for (int it = 0; it < (agg == CM_AGG_SUM ? 1 : 6) && !rc; it++) {
        for (size_t i = 0; i < g->n; i++)
            predict(g, i, th, *L, sr, agg, &arg[i]);
        rc = solve(g, agg, arg, sr, th, L);
    }
    return rc;
}

/* Serial shares tried for "max" when g->fit_serial: the share enters the prediction
 * through the argmax engine, so it is not a linear parameter; a grid of 11 is finer than
 * the programs can tell apart. */
#define CM_SERIAL_STEPS 10

/* An entry of an opcode the vector engines run (not PE's, not DMA's). */
static int is_vector_entry(const struct cm_entry *e)
{
    enum sim_opcode op = (enum sim_opcode)e->opcode;
    return !sim_opcode_on_engine(op, LS_ENGINE_PE) && !sim_opcode_on_engine(op, LS_ENGINE_DMA);
}

static void apply_scales(struct cm_table *tb, const struct cm_groups *g, const double *th)
{
    size_t per = 2 * (size_t)g->nent;
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
        if (is_vector_entry(e))
            e->a += th[per];
    }
    if (g->fit_dep) {
        for (int e = 0; e < NE; e++)
            if (dep_slot(e) >= 0)
                tb->dep[e] = th[per + 1 + (size_t)dep_slot(e)];
        tb->dep_tiny = th[per + NDEP];
    }
}

/* Base-clock cycles per engine cycle of the engines an issue latency applies to (the
 * vector engines), 0 elsewhere (struct cm_groups: fit_issue). */
static void set_issue_cycles(struct cm_groups *g, const struct sim_target *t)
{
    for (int e = 0; e < NE; e++) {
        uint32_t mhz = sim_engine_mhz(t, (enum ls_engine)e);
        int vec = e == LS_ENGINE_ACT || e == LS_ENGINE_DVE || e == LS_ENGINE_POOL;
        g->issue_cyc[e] = g->fit_issue && vec ? (double)t->base_mhz / (mhz ? mhz : t->base_mhz) : 0;
    }
}

int cm_group_fit(const struct cm_groups *g0, enum cm_aggregate agg, const struct sim_target *t,
                 struct cm_table *tb, double *rel, struct ls_error *err)
{
    gsl_set_error_handler_off();
    if (g0->n == 0)
        return ls_error_msg(err, LS_ERR_INPUT, "no groups to fit");
    struct cm_groups gc = *g0;   /* shares g0's rows; only the issue clocks are its own */
    const struct cm_groups *g = &gc;
    set_issue_cycles(&gc, t);
    gc.fit_dep = g0->fit_dep && cm_groups_dep_seen(g0); /* else nothing to fit it to */
    /* measured where the rows carry the gaps (fit_dep.c): then a fixed part of the rows */
    int measured = gc.fit_dep && cm_groups_dep_measure(&gc, gc.dep0) > 0;
    if (measured)
        gc.fit_dep = 0;
    size_t per = 2 * (size_t)g->nent;
    double *th = malloc(sizeof *th * (per + 1 + NDEP));
    double *best = malloc(sizeof *best * (per + 1 + NDEP));
    double *P = malloc(sizeof *P * (g->nprog + 1)), *Y = malloc(sizeof *Y * (g->nprog + 1));
    int *arg = malloc(sizeof *arg * g->n);
    int rc = th && best && P && Y && arg ? 0 : LS_ERR_NOMEM;
    double L0 = agg == CM_AGG_MAX ? tb->group_ns * t->base_mhz / 1000.0 : 0;
    double best_obj = INFINITY, best_L = L0, best_sr = 0, best_rel = 0;
    int steps = agg == CM_AGG_MAX && g->fit_serial ? CM_SERIAL_STEPS : 0;
    for (int k = 0; k <= steps && !rc; k++) {
        double sr = steps ? (double)k / steps : agg == CM_AGG_MAX ? tb->serial : 0, L = L0, r;
        if ((rc = fit_at(g, agg, sr, arg, th, &L)))
            break;
        double obj = objective(g, agg, th, L, sr, P, Y, &r);
        if (obj < best_obj) {
            best_obj = obj;
            best_L = L;
            best_sr = sr;
            best_rel = r;
            memcpy(best, th, sizeof *th * (per + 1 + NDEP));
        }
    }
    if (!rc) {
        if (rel)
            *rel = best_rel;
        apply_scales(tb, g, best);
        for (int e = 0; measured && e < NE; e++)
            tb->dep[e] = gc.dep0[e];
        if (measured)
            tb->dep_tiny = gc.dep0[NE];
        cm_table_set_aggregate(tb, agg, agg == CM_AGG_MAX ? best_L * 1000.0 / t->base_mhz : -1);
        if (agg == CM_AGG_MAX)
            tb->serial = best_sr;
        /* the table prices the DMA latency as the rows did (struct cm_groups: dma_once) */
        if (!g->dma_once) {
            tb->dma_group = 0;
            tb->dma_group_lat = 0;
        }
        /* the scales were fitted to exposed times: nothing is left to take a share of */
        tb->exposed = 0;
        tb->exposed_share = 0;
        /* and to parts that charge every load in full (cm_price_parts): a base table's
         * discount of loads that run ahead would price them below what was fitted */
        tb->dma_prefetch = 0;
        tb->dma_prefetch_share = 0;
    }
    free(th);
    free(best);
    free(P);
    free(Y);
    free(arg);
    if (rc)
        return ls_error_msg(err, rc, rc == LS_ERR_NOMEM ? "out of memory" : "group fit failed");
    return 0;
}
