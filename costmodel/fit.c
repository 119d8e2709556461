/* costmodel/fit: samples from trace records and the per-instruction (per table entry)
 * fits: knee search + GSL robust (bisquare) least squares on relative residuals. */
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "sim/isa.h"
#include "traces/trace.h"
#include "util/vec.h"
#include "util/order.h"

void cm_calib_init(struct cm_calib *c)
{
    memset(c, 0, sizeof *c);
    c->holdout = CM_HOLDOUT_DEFAULT;
}

const char *cm_verdict_name(enum cm_verdict v)
{
    static const char *const names[] = {"kept-prior", "rejected", "weak", "good"};
    return (unsigned)v < 4 ? names[v] : "?";
}

void cm_calib_free(struct cm_calib *c)
{
    free(c->s);
    memset(c, 0, sizeof *c);
}

int cm_calib_push(struct cm_calib *c, const struct cm_sample *s)
{
    if (LS_ARRAY_RESERVE(c->s, c->cap, c->n + 1))
        return LS_ERR_NOMEM;
    c->s[c->n++] = *s;
    return 0;
}

int cm_record_sample(const struct trace_record *r, const char *opcode, uint64_t tick_hz,
                     const uint32_t *clock_mhz, uint32_t dma_engines, struct cm_sample *s)
{
    enum sim_opcode op;
    if (!opcode || sim_opcode_parse(opcode, strlen(opcode), &op) || r->end <= r->start ||
        tick_hz == 0 || r->engine >= LS_ENGINE_COUNT)
        return 0;
    memset(s, 0, sizeof *s);
    s->opcode = op;
    s->engine = r->engine;
    s->dtype = r->dtype;
    s->mem = r->src_mem != LS_MEM_NONE ? r->src_mem : r->dst_mem;
    double ticks = (double)(r->end - r->start);
    if (r->engine == LS_ENGINE_DMA) {
        uint32_t P = r->partitions ? r->partitions : 1;
        double per_row = (double)r->descriptors / P;
        s->d = sim_dma_engine_descs(P, per_row, dma_engines);
        /* the chunk the simulator priced (the record's chunk_bytes is rounded down) */
        s->chunk = r->bytes_per_partition && r->descriptors
                       ? sim_dma_chunk_bytes(r->bytes_per_partition, per_row)
                       : (double)r->chunk_bytes;
        s->y = ticks * 1e9 / (double)tick_hz;
        return 1;
    }
    uint32_t mhz = clock_mhz ? clock_mhz[r->engine] : 0;
    if (!mhz)
        return 0;
    s->y = ticks * mhz * 1e6 / (double)tick_hz;
    s->n = op == SIM_OP_LOAD_STATIONARY ? r->partitions
           : op == SIM_OP_PE_TRANSPOSE  ? r->stationary
                                        : (double)r->free_size;
    return 1;
}

void cm_instr_sample(const struct sim_target *t, const struct sim_instr *in,
                     struct cm_sample *s)
{
    const struct sim_operand *src = &in->src, *dst = &in->dst;
    memset(s, 0, sizeof *s);
    s->opcode = in->opcode;
    s->engine = in->engine;
    s->dtype = src->mem != LS_MEM_NONE ? src->dtype : dst->dtype;
    s->mem = src->mem != LS_MEM_NONE ? src->mem : dst->mem;
    if (in->opcode == SIM_OP_TENSOR_TENSOR && in->src2.mem == LS_MEM_PSUM)
        s->mem = LS_MEM_PSUM;
    struct sim_features f;
    sim_features(in, &f);
    if (in->engine != LS_ENGINE_DMA) {
        s->n = (double)f.n;
        return;
    }
    s->d = sim_dma_engine_descs(f.partitions, (double)f.chunks_per_partition, t->dma_engines);
    s->chunk = sim_dma_chunk_bytes(f.bytes_per_partition, (double)f.chunks_per_partition);
}

int cm_calib_add_record(struct cm_calib *c, const struct trace_record *r, const char *opcode,
                        uint64_t tick_hz, const uint32_t *clock_mhz, uint32_t dma_engines)
{
    struct cm_sample s;
    if (!cm_record_sample(r, opcode, tick_hz, clock_mhz, dma_engines, &s))
        return 0;
    return cm_calib_push(c, &s);
}

int cm_calib_add_trace(struct cm_calib *c, const char *path, uint32_t dma_engines,
                       struct ls_error *err)
{
    struct trace_reader *rd;
    int rc = trace_reader_open(&rd, path, err);
    if (rc)
        return rc;
    const struct trace_header *h = trace_reader_header(rd);
    LS_VEC(struct cm_sample) s = {0};
    LS_VEC(uint64_t) start = {0}, end = {0};
    struct trace_record r;
    struct cm_sample one;
    int k;
    while (!rc && (k = trace_reader_next(rd, &r, err)) == 1)
        if (cm_record_sample(&r, trace_reader_opcode(rd, r.opcode), h->tick_hz, h->clock_mhz,
                             dma_engines, &one) &&
            (LS_VEC_PUSH(&s, one) || LS_VEC_PUSH(&start, r.start) || LS_VEC_PUSH(&end, r.end)))
            rc = LS_ERR_NOMEM;
    double lat[LS_ENGINE_COUNT];
    if (!rc && k >= 0)
        rc = cm_pipe_adjust(s.data, start.data, end.data, s.len, h->tick_hz, h->clock_mhz, lat);
    for (size_t i = 0; !rc && k >= 0 && i < s.len; i++)
        rc = cm_calib_push(c, &s.data[i]);
    for (int e = 0; !rc && k >= 0 && e < LS_ENGINE_COUNT; e++)
        c->pipe_lat[e] = fmax(c->pipe_lat[e], lat[e]);
    LS_VEC_FREE(&s);
    LS_VEC_FREE(&start);
    LS_VEC_FREE(&end);
    trace_reader_close(rd);
    if (rc)
        return ls_error_msg(err, rc, "out of memory");
    return k < 0 ? -k : 0;
}

double cm_entry_eval(const struct cm_entry *e, const struct cm_sample *s)
{
    if (s->engine == LS_ENGINE_DMA) {
        double bw = e->bytes_per_ns > 0 ? e->bytes_per_ns : 1;
        return e->fixed_ns + s->d * fmax(e->desc_min_ns, s->chunk / bw);
    }
    return e->a + fmax(e->b, e->c * s->n);
}

/* ---- robust linear fit on relative residuals ---------------------------------------- */

/* Fit y ~ X beta minimizing relative residuals (rows divided by y); p <= 3 columns.
 * Returns the sum of squared relative residuals, or -1 when the fit failed. */
static double relfit(const double *X, const double *y, size_t n, size_t p, double *beta)
{
    if (n < p)
        return -1;
    gsl_matrix *A = gsl_matrix_alloc(n, p);
    gsl_vector *b = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
    gsl_matrix *cov = gsl_matrix_alloc(p, p);
    if (!A || !b || !c || !cov) {
        gsl_matrix_free(A);
        gsl_vector_free(b);
        gsl_vector_free(c);
        gsl_matrix_free(cov);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        double w = y[i] > 0 ? 1.0 / y[i] : 1.0;
        for (size_t j = 0; j < p; j++)
            gsl_matrix_set(A, i, j, X[i * p + j] * w);
        gsl_vector_set(b, i, y[i] * w);
    }
    int rc = -1;
    if (n > p + 1) {
        gsl_multifit_robust_workspace *ws = gsl_multifit_robust_alloc(gsl_multifit_robust_bisquare, n, p);
        if (ws) {
            rc = gsl_multifit_robust(A, b, c, cov, ws);
            gsl_multifit_robust_free(ws);
        }
    }
    if (rc) {
        gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
        double chi;
        rc = ws ? gsl_multifit_linear(A, b, c, cov, &chi, ws) : -1;
        if (ws)
            gsl_multifit_linear_free(ws);
    }
    double sse = -1;
    if (rc == 0) {
        sse = 0;
        for (size_t j = 0; j < p; j++)
            beta[j] = gsl_vector_get(c, j);
        for (size_t i = 0; i < n; i++) {
            double f = 0;
            for (size_t j = 0; j < p; j++)
                f += X[i * p + j] * beta[j];
            double r = y[i] > 0 ? (f - y[i]) / y[i] : f - y[i];
            sse += r * r;
        }
        if (!isfinite(sse))
            sse = -1;
    }
    gsl_matrix_free(A);
    gsl_vector_free(b);
    gsl_vector_free(c);
    gsl_matrix_free(cov);
    return sse;
}

static size_t distinct(double *v, size_t n)
{
    qsort(v, n, sizeof *v, ls_cmp_double);
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (m == 0 || v[i] != v[m - 1])
            v[m++] = v[i];
    return m;
}

/* Compute entry: y = a + c max(kappa, N), kappa searched; b = c kappa. */
static int fit_compute(const struct cm_sample *const *S, size_t n, struct cm_entry *e)
{
    double *X = malloc(sizeof *X * 2 * n), *y = malloc(sizeof *y * n), *ks = malloc(sizeof *ks * (n + 1));
    if (!X || !y || !ks) {
        free(X);
        free(y);
        free(ks);
        return LS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        y[i] = S[i]->y;
        ks[i] = S[i]->n;
    }
    ks[n] = 0;
    size_t m = distinct(ks, n + 1);
    double best = -1, ba = e->a, bb = e->b, bc = e->c;
    for (size_t k = 0; k < m; k++) {
        double kap = ks[k], beta[2];
        for (size_t i = 0; i < n; i++) {
            X[2 * i] = 1;
            X[2 * i + 1] = fmax(kap, S[i]->n);
        }
        double sse;
        if (k + 1 == m) { /* every sample on the flat part: a = 0, level = b */
            double lv = 0, w = 0;
            for (size_t i = 0; i < n; i++) {
                lv += 1.0 / y[i];
                w += 1.0 / (y[i] * y[i]);
            }
            beta[0] = 0;
            double level = w > 0 ? lv / w : 0;
            beta[1] = kap > 0 ? level / kap : 0;
            sse = 0;
            for (size_t i = 0; i < n; i++) {
                double r = (level - y[i]) / y[i];
                sse += r * r;
            }
        } else {
            sse = relfit(X, y, n, 2, beta);
            if (sse < 0)
                continue;
            if (beta[0] < 0 || beta[1] < 0) { /* constrain: through the origin / flat */
                if (beta[1] < 0)
                    continue;
                for (size_t i = 0; i < n; i++)
                    X[i] = fmax(kap, S[i]->n);
                beta[0] = 0;
                sse = relfit(X, y, n, 1, &beta[1]);
                if (sse < 0 || beta[1] < 0)
                    continue;
            }
        }
        if (best < 0 || sse < best - 1e-12) {
            best = sse;
            ba = beta[0];
            bc = beta[1];
            bb = beta[1] * kap;
        }
    }
    free(X);
    free(y);
    free(ks);
    if (best >= 0) {
        e->a = ba;
        e->b = bb;
        e->c = bc;
    }
    return 0;
}

static int by_shape_y(const void *a, const void *b)
{
    const struct cm_sample *x = *(const struct cm_sample *const *)a,
                           *y = *(const struct cm_sample *const *)b;
    if (x->d != y->d)
        return x->d < y->d ? -1 : 1;
    if (x->chunk != y->chunk)
        return x->chunk < y->chunk ? -1 : 1;
    return x->y < y->y ? -1 : x->y > y->y;
}

/* One sample per DMA shape (descriptors per engine, chunk bytes): its CM_DMA_FLOOR
 * quantile. A DMA's record runs from its first engine's start to its last engine's end, so
 * on a busy core it also holds the waits for the other engines and for HBM, and more
 * often the larger it is: fitted as they came, the slow hidden core's 11 B/ns and 220 ns
 * per descriptor came out 11.7 and 191 (docs/history.md). The low quantile of each
 * shape is the transfer with the fewest such waits. *out (malloc'd): the samples. */
#define CM_DMA_FLOOR 0.1
static int dma_floors(const struct cm_sample *const *S, size_t n, struct cm_sample **out,
                      size_t *m)
{
    const struct cm_sample **v = malloc(sizeof *v * (n + 1));
    struct cm_sample *r = malloc(sizeof *r * (n + 1));
    if (!v || !r) {
        free(v);
        free(r);
        return LS_ERR_NOMEM;
    }
    memcpy(v, S, sizeof *v * n);
    qsort(v, n, sizeof *v, by_shape_y);
    *m = 0;
    for (size_t i = 0, j; i < n; i = j) {
        for (j = i; j < n && v[j]->d == v[i]->d && v[j]->chunk == v[i]->chunk; j++)
            ;
        r[(*m)++] = *v[i + (size_t)(CM_DMA_FLOOR * (double)(j - i - 1) + 0.5)];
    }
    free(v);
    *out = r;
    return 0;
}

static int fit_dma_on(const struct cm_sample *const *S, size_t n, struct cm_entry *e);

/* DMA entry: y = fixed + desc_min (D [chunk < k]) + (1 / bw)(D chunk [chunk >= k]), on
 * each shape's floor (dma_floors). */
static int fit_dma(const struct cm_sample *const *S, size_t n, struct cm_entry *e)
{
    struct cm_sample *fl;
    size_t m;
    int rc = dma_floors(S, n, &fl, &m);
    if (rc)
        return rc;
    const struct cm_sample **p = malloc(sizeof *p * (m + 1));
    if (!p) {
        free(fl);
        return LS_ERR_NOMEM;
    }
    for (size_t i = 0; i < m; i++)
        p[i] = &fl[i];
    rc = fit_dma_on(p, m, e);
    free(p);
    free(fl);
    return rc;
}

static int fit_dma_on(const struct cm_sample *const *S, size_t n, struct cm_entry *e)
{
    double *X = malloc(sizeof *X * 3 * n), *y = malloc(sizeof *y * n), *ks = malloc(sizeof *ks * (n + 2));
    double *X2 = malloc(sizeof *X2 * 3 * n);
    if (!X || !y || !ks || !X2) {
        free(X);
        free(y);
        free(ks);
        free(X2);
        return LS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        y[i] = S[i]->y;
        ks[i] = S[i]->chunk;
    }
    ks[n] = 0;
    ks[n + 1] = INFINITY;
    size_t m = distinct(ks, n + 2);
    int rc = 0;
    double best = -1, bf = e->fixed_ns, bd = e->desc_min_ns, bi = 1.0 / e->bytes_per_ns;
    for (size_t k = 0; k < m; k++) {
        double kk = ks[k];
        int has_small = 0, has_large = 0;
        for (size_t i = 0; i < n; i++) {
            if (S[i]->chunk < kk)
                has_small = 1;
            else
                has_large = 1;
        }
        /* columns: 1, small, large (absent sides keep the current value, moved to y) */
        size_t p = 1 + (size_t)has_small + (size_t)has_large;
        double *yy = malloc(sizeof *yy * n);
        if (!yy) {
            best = -1;
            rc = LS_ERR_NOMEM;
            break;
        }
        for (size_t i = 0; i < n; i++) {
            double sm = S[i]->chunk < kk ? S[i]->d : 0, lg = S[i]->chunk < kk ? 0 : S[i]->d * S[i]->chunk;
            size_t j = 0;
            X2[i * p + j++] = 1;
            if (has_small)
                X2[i * p + j++] = sm;
            if (has_large)
                X2[i * p + j++] = lg;
            yy[i] = y[i];
        }
        double beta[3] = {0, 0, 0};
        double sse = relfit(X2, yy, n, p, beta);
        free(yy);
        if (sse < 0)
            continue;
        double f = beta[0];
        double d = has_small ? beta[1] : e->desc_min_ns;
        double iv = has_large ? beta[has_small ? 2 : 1] : 1.0 / e->bytes_per_ns;
        if (f < 0 || d < 0 || iv <= 0)
            continue;
        if (best < 0 || sse < best - 1e-12) {
            best = sse;
            bf = f;
            bd = d;
            bi = iv;
        }
    }
    free(X);
    free(X2);
    free(y);
    free(ks);
    if (best >= 0) {
        e->fixed_ns = bf;
        e->desc_min_ns = bd;
        e->bytes_per_ns = 1.0 / bi;
    }
    return rc;
}

static int cmp_rx(const void *a, const void *b)
{
    const double *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

static int report_entry(const struct cm_entry *e, const struct cm_sample *const *S, size_t n,
                        struct cm_fit_entry *r)
{
    double mean = 0, sst = 0, sse = 0;
    double *rel = malloc(sizeof *rel * (n ? n : 1));
    double (*pts)[3] = malloc(sizeof *pts * (n ? n : 1));
    if (!rel || !pts) {
        free(rel);
        free(pts);
        return LS_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++)
        mean += S[i]->y;
    mean = n ? mean / n : 0;
    r->max_rel = 0;
    for (size_t i = 0; i < n; i++) {
        double f = cm_entry_eval(e, S[i]);
        sst += (S[i]->y - mean) * (S[i]->y - mean);
        sse += (S[i]->y - f) * (S[i]->y - f);
        double q = S[i]->y > 0 ? fabs(f - S[i]->y) / S[i]->y : 0;
        if (rel)
            rel[i] = q;
        if (q > r->max_rel)
            r->max_rel = q;
        if (pts) {
            pts[i][0] = S[i]->engine == LS_ENGINE_DMA ? S[i]->d * S[i]->chunk : S[i]->n;
            pts[i][1] = S[i]->y;
            pts[i][2] = f;
        }
    }
    /* constant samples (sst = 0): R2 1 when the entry reproduces them to rounding */
    r->r2 = sst > 1e-12 * mean * mean * (double)n ? 1 - sse / sst
                                                  : (sse <= 1e-9 * mean * mean * (double)n ? 1 : 0);
    if (rel && n) {
        r->median_rel = ls_median(rel, n);
    }
    if (pts && n) {
        qsort(pts, n, sizeof *pts, cmp_rx);
        size_t step = n > CM_RESID_MAX ? (n + CM_RESID_MAX - 1) / CM_RESID_MAX : 1;
        r->nresid = 0;
        for (size_t i = 0; i < n && r->nresid < CM_RESID_MAX; i += step) {
            r->rx[r->nresid] = pts[i][0];
            r->ry[r->nresid] = pts[i][1];
            r->rp[r->nresid] = pts[i][2];
            r->nresid++;
        }
    }
    free(rel);
    free(pts);
    return 0;
}

/* The median relative error of e over S[0..n) into *out (NAN when n is 0). */
static int median_rel(const struct cm_entry *e, const struct cm_sample *const *S, size_t n,
                      double *out)
{
    *out = NAN;
    if (n == 0)
        return 0;
    double *rel = malloc(sizeof *rel * n);
    if (!rel)
        return LS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        double f = cm_entry_eval(e, S[i]);
        rel[i] = S[i]->y > 0 ? fabs(f - S[i]->y) / S[i]->y : 0;
    }
    *out = ls_median(rel, n);
    free(rel);
    return 0;
}

/* An entry's fit runs a robust regression over its samples per knee candidate (one per
 * distinct size), whose cost grows with both: a full-size trace's matmul entry has ~70 k
 * samples and calibrate took 35 s on twelve traces, 30% of it sorting residuals. Above
 * CM_FIT_CAP samples an entry is fitted on every k-th (trace order interleaves the
 * shapes, so each keeps its share); judging and reporting still read every sample. */
#define CM_FIT_CAP 4096

static int fit_entry(const struct cm_sample **S, size_t n, struct cm_entry *e)
{
    int isdma = e->opcode == SIM_OP_DMA_COPY || e->opcode == SIM_OP_DMA_TRANSPOSE;
    const struct cm_sample **sub = NULL;
    if (n > CM_FIT_CAP) {
        size_t k = (n + CM_FIT_CAP - 1) / CM_FIT_CAP, m = 0;
        if (!(sub = malloc(sizeof *sub * (n / k + 1))))
            return LS_ERR_NOMEM;
        for (size_t i = 0; i < n; i += k)
            sub[m++] = S[i];
        S = sub;
        n = m;
    }
    int rc = isdma ? fit_dma(S, n, e) : fit_compute(S, n, e);
    free(sub);
    return rc;
}

/* Every k-th sample of an entry is held out (k = 1 / share, at least 2), when that leaves
 * at least CM_FIT_MIN_SAMPLES to fit and holds out at least 2. The held-out samples move
 * to the end of S; returns how many there are. */
static size_t hold_out(const struct cm_sample **S, size_t n, double share, const struct cm_sample **tmp)
{
    if (!(share > 0))
        return 0;
    size_t k = share >= 0.5 ? 2 : (size_t)llround(1.0 / share);
    size_t nh = n / k;
    if (nh < 2 || n - nh < CM_FIT_MIN_SAMPLES)
        return 0;
    size_t a = 0, b = 0;
    for (size_t i = 0; i < n; i++) {
        if (i % k == k - 1 && b < nh)
            tmp[b++] = S[i];
        else
            S[a++] = S[i];
    }
    memcpy(S + a, tmp, b * sizeof *tmp);
    return b;
}

/* Fit entry e from its n samples S (reordered), judging the fit on held-out samples. */
static int judge_entry(const struct cm_calib *c, const struct cm_sample **S, size_t n,
                       const struct cm_sample **tmp, struct cm_entry *e, struct cm_fit_entry *r)
{
    struct cm_entry prior = *e;
    r->holdout_fit = r->holdout_prior = NAN;
    if (n < CM_FIT_MIN_SAMPLES) {
        r->verdict = CM_KEPT_PRIOR;
        return 0;
    }
    size_t nh = hold_out(S, n, c->holdout, tmp);
    int rc;
    if (nh) {
        if ((rc = fit_entry(S, n - nh, e)))
            return rc;
        r->held_out = (int)nh;
        if ((rc = median_rel(e, S + n - nh, nh, &r->holdout_fit)) ||
            (rc = median_rel(&prior, S + n - nh, nh, &r->holdout_prior)))
            return rc;
        *e = prior;
        /* worse by more than rounding: both are often exact (0) on simulator traces */
        if (r->holdout_fit > r->holdout_prior * (1 + 1e-3) + 1e-6) {
            r->verdict = CM_REJECTED;
            return 0;
        }
    }
    if ((rc = fit_entry(S, n, e)))
        return rc;
    r->fitted = 1;
    if ((rc = report_entry(e, S, n, r)))
        return rc;
    r->verdict = r->r2 >= 0.9 && r->median_rel <= 0.1 ? CM_GOOD : CM_WEAK;
    return 0;
}

/* The report's totals: verdict counts and the held-out median error of table and prior. */
static int report_totals(const struct cm_calib *c, const struct cm_table *prior,
                         const struct cm_table *tb, struct cm_fit_report *rep)
{
    LS_VEC(double) fit = {0}, pri = {0};
    int rc = 0;
    for (int i = 0; i < rep->n; i++)
        rep->verdicts[rep->e[i].verdict]++;
    /* the same every-k-th choice hold_out made, per entry, over the table's entries */
    for (int k = 0; k < tb->n && !rc; k++) {
        const struct cm_fit_entry *r = NULL;
        for (int i = 0; i < rep->n; i++)
            if (rep->e[i].entry == k)
                r = &rep->e[i];
        if (!r || r->held_out == 0)
            continue;
        size_t step = c->holdout >= 0.5 ? 2 : (size_t)llround(1.0 / c->holdout), j = 0;
        int taken = 0;
        for (size_t i = 0; i < c->n && !rc && taken < r->held_out; i++) {
            const struct cm_sample *s = &c->s[i];
            if (cm_table_find(prior, s->opcode, s->dtype, s->mem) != k)
                continue;
            if (j++ % step != step - 1)
                continue;
            taken++;
            double y = s->y > 0 ? s->y : 1;
            if (LS_VEC_PUSH(&fit, fabs(cm_entry_eval(&tb->e[k], s) - s->y) / y) ||
                LS_VEC_PUSH(&pri, fabs(cm_entry_eval(&prior->e[k], s) - s->y) / y))
                rc = LS_ERR_NOMEM;
        }
    }
    rep->held_out = (int)fit.len;
    rep->holdout_fit = fit.len ? ls_median(fit.data, fit.len) : NAN;
    rep->holdout_prior = pri.len ? ls_median(pri.data, pri.len) : NAN;
    LS_VEC_FREE(&fit);
    LS_VEC_FREE(&pri);
    return rc;
}

int cm_calib_fit(const struct cm_calib *c, const struct cm_table *prior, struct cm_table *out,
                 struct cm_fit_report *rep, struct ls_error *err)
{
    gsl_set_error_handler_off(); /* GSL must report, never abort the process */
    struct cm_table tb = *prior;
    const struct cm_sample **S = malloc(sizeof *S * (c->n + 1));
    const struct cm_sample **tmp = malloc(sizeof *tmp * (c->n + 1));
    int rc = 0;
    if (!S || !tmp) {
        free(S);
        free(tmp);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    if (rep) {
        memset(rep, 0, sizeof *rep);
        memcpy(rep->pipe_lat, c->pipe_lat, sizeof rep->pipe_lat);
    }
    for (int k = 0; k < tb.n && !rc; k++) {
        size_t n = 0;
        for (size_t i = 0; i < c->n; i++)
            if (cm_table_find(prior, c->s[i].opcode, c->s[i].dtype, c->s[i].mem) == k)
                S[n++] = &c->s[i];
        if (n == 0)
            continue;
        struct cm_fit_entry r;
        memset(&r, 0, sizeof r);
        r.entry = k;
        r.samples = (int)n;
        rc = judge_entry(c, S, n, tmp, &tb.e[k], &r);
        if (!r.fitted)
            report_entry(&tb.e[k], S, n, &r);
        if (rep && rep->n < (int)(sizeof rep->e / sizeof rep->e[0]))
            rep->e[rep->n++] = r;
    }
    free(S);
    free(tmp);
    if (!rc && rep)
        rc = report_totals(c, prior, &tb, rep);
    if (rc)
        return ls_error_msg(err, rc, "out of memory");
    *out = tb;
    return 0;
}
