/* report/report_data: the numbers behind every report section, from the stored cells. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_int.h"
#include "util/fileio.h"

const char *const rp_strategy[RP_NS] = {"local", "greedy", "rulebased", "exact", "dp", "mcts"};
const char *const rp_table[RP_NT] = {"datasheet", "calibrated"};
const char *const rp_table_label[RP_NT] = {"datasheet", "calibrated (in-sample)"};
const char *const rp_color[RP_NS] = {"#d62728", "#9467bd", "#2ca02c", "#1f77b4", "#ff7f0e",
                                     "#8c564b"};
const char *const rp_palette[10] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
const char *const rp_label[RP_NS] = {"Local", "Greedy", "Rule-Based", "Exact", "Treewidth DP",
                                     "MCTS"};

static int sidx(const char *s)
{
    for (int i = 0; i < RP_NS; i++)
        if (!strcmp(rp_strategy[i], s))
            return i;
    return -1;
}

static int tidx(const char *s)
{
    for (int i = 0; i < RP_NT; i++)
        if (!strcmp(rp_table[i], s))
            return i;
    return -1;
}

int rp_build(struct rp *r, const struct study_cells *cs, const struct report_opts *o)
{
    memset(r, 0, sizeof *r);
    r->cs = cs;
    r->o = o;
    r->m = calloc(cs->len + 1, sizeof *r->m);
    r->t = calloc(cs->len + 1, sizeof *r->t);
    int *mi = calloc(cs->len + 1, sizeof *mi), *ti = calloc(cs->len + 1, sizeof *ti);
    if (!r->m || !r->t || !mi || !ti)
        goto nomem;
    /* cells arrive ordered by target_ix, target, model_ix, model: first-seen order */
    for (size_t i = 0; i < cs->len; i++) {
        const struct study_cell *c = &cs->data[i];
        int t = -1, m = -1;
        for (int k = 0; k < r->nt; k++)
            if (!strcmp(r->t[k].label, c->target))
                t = k;
        if (t < 0) {
            t = r->nt++;
            r->t[t].label = c->target;
            r->t[t].variant = c->variant;
            r->t[t].hash = c->target_hash;
        }
        for (int k = 0; k < r->nm; k++)
            if (!strcmp(r->m[k].name, c->model))
                m = k;
        if (m < 0) {
            m = r->nm++;
            r->m[m].name = c->model;
            r->m[m].family = c->family;
            r->m[m].group = c->group;
            r->m[m].scale = c->scale;
            r->m[m].tw = c->treewidth;
            r->m[m].ops = c->ops;
        }
        if (c->ops > r->m[m].ops)
            r->m[m].ops = c->ops;
        mi[i] = m;
        ti[i] = t;
        if (!strcmp(c->table, "calibrated"))
            r->has_calib = 1;
        if (!strcmp(c->strategy, "mcts"))
            r->has_mcts = 1;
    }
    /* models in model_ix order (stable) */
    size_t cells = (size_t)(r->nt ? r->nt : 1) * (size_t)(r->nm ? r->nm : 1) * RP_NS * RP_NT;
    r->idx = malloc(cells * sizeof *r->idx);
    r->scratch = malloc((size_t)RP_SIM * (size_t)(r->nm ? r->nm : 1) * sizeof *r->scratch);
    if (!r->idx || !r->scratch)
        goto nomem;
    for (size_t i = 0; i < cells; i++)
        r->idx[i] = -1;
    for (size_t i = 0; i < cs->len; i++) {
        int s = sidx(cs->data[i].strategy), tb = tidx(cs->data[i].table);
        if (s < 0 || tb < 0)
            continue;
        r->idx[(((size_t)ti[i] * (size_t)r->nm + (size_t)mi[i]) * RP_NS + (size_t)s) * RP_NT +
               (size_t)tb] = (int)i;
    }
    r->base = 0;
    if (o && o->base_hash && o->base_hash[0])
        for (int k = 0; k < r->nt; k++)
            if (!strcmp(r->t[k].hash, o->base_hash)) {
                r->base = k;
                break;
            }
    free(mi);
    free(ti);
    return 0;
nomem:
    free(mi);
    free(ti);
    rp_free(r);
    return LS_ERR_NOMEM;
}

void rp_free(struct rp *r)
{
    free(r->m);
    free(r->t);
    free(r->idx);
    free(r->scratch);
    memset(r, 0, sizeof *r);
}

const struct study_cell *rp_cell(const struct rp *r, int t, int m, int s, int tb)
{
    int i = r->idx[(((size_t)t * (size_t)r->nm + (size_t)m) * RP_NS + (size_t)s) * RP_NT +
                   (size_t)tb];
    return i < 0 ? NULL : &r->cs->data[i];
}

double rp_sim(const struct rp *r, int t, int m, int s, int tb)
{
    const struct study_cell *c = rp_cell(r, t, m, s, tb);
    return c && !c->rc && c->sim_cycles >= 0 ? (double)c->sim_cycles : NAN;
}

double rp_roofline(const struct rp *r, int t, int m, int tb)
{
    const struct study_cell *c = rp_cell(r, t, m, 3, tb);
    return c && !c->rc && c->roofline_cycles > 0 ? c->roofline_cycles : NAN;
}

double rp_roofline_reached(const struct rp *r, int t, int m, int tb)
{
    return rp_roofline(r, t, m, tb) / rp_sim(r, t, m, 3, tb);
}

const char *rp_fmt_pct(double pct, char *buf, size_t n)
{
    if (isnan(pct))
        snprintf(buf, n, "-");
    else
        snprintf(buf, n, "%.1f%%", pct);
    return buf;
}

double rp_spread(const struct rp *r, int t, int m, int tb)
{
    double lo = NAN, hi = NAN;
    for (int s = 0; s < RP_SIM; s++) {
        double v = rp_sim(r, t, m, s, tb);
        if (isnan(v))
            continue;
        lo = isnan(lo) || v < lo ? v : lo;
        hi = isnan(hi) || v > hi ? v : hi;
    }
    return lo > 0 && hi > lo ? hi / lo - 1 : lo > 0 ? 0 : NAN;
}

double rp_conv_share(const struct rp *r, int t, int m, int tb)
{
    const struct study_cell *c = rp_cell(r, t, m, 3, tb);
    return c && !c->rc && c->roofline_by[0] ? c->conv_share : NAN;
}

const char *rp_fmt_busy(const struct study_cell *c, char *buf, size_t n)
{
    if (!c || c->rc || !c->roofline_by[0]) {
        snprintf(buf, n, "-");
        return buf;
    }
    snprintf(buf, n, "%.0f/%.0f/%.0f/%.0f/%.0f", 100 * c->busy[LS_ENGINE_PE],
             100 * c->busy[LS_ENGINE_ACT], 100 * c->busy[LS_ENGINE_DVE],
             100 * c->busy[LS_ENGINE_POOL], 100 * c->busy[LS_ENGINE_DMA]);
    return buf;
}

double rp_pred(const struct rp *r, int t, int m, int s, int tb)
{
    const struct study_cell *c = rp_cell(r, t, m, s, tb);
    return c && !c->rc && c->predicted >= 0 ? (double)c->predicted : NAN;
}

double rp_best(const struct rp *r, int t, int m, int tb)
{
    double b = NAN;
    for (int s = 0; s < RP_SIM; s++) {
        double v = rp_sim(r, t, m, s, tb);
        if (!isnan(v) && (isnan(b) || v < b))
            b = v;
    }
    return b;
}

double rp_best_known(const struct rp *r, int t, int m)
{
    double b = NAN;
    for (int tb = 0; tb < RP_NT; tb++)
        for (int s = 0; s < RP_NS; s++) {
            double v = rp_sim(r, t, m, s, tb);
            if (!isnan(v) && v > 0 && (isnan(b) || v < b))
                b = v;
        }
    return b;
}

double rp_regret(const struct rp *r, int t, int m, int tb)
{
    double e = rp_sim(r, t, m, 3, tb), b = rp_best_known(r, t, m);
    return isnan(e) || isnan(b) ? NAN : e / b - 1.0;
}

double rp_relperf(const struct rp *r, int t, int m, int s, int tb)
{
    double v = rp_sim(r, t, m, s, tb), b = rp_best(r, t, m, tb);
    return isnan(v) || isnan(b) || v <= 0 ? NAN : 100.0 * b / v;
}

double rp_gap(const struct rp *r, int t, int m, int s, int tb)
{
    double v = rp_pred(r, t, m, s, tb), e = rp_pred(r, t, m, 3, tb);
    return isnan(v) || isnan(e) || e <= 0 ? NAN : 100.0 * (v / e - 1.0);
}

double rp_mcts_gain(const struct rp *r, int t, int m, int tb)
{
    double e = rp_sim(r, t, m, 3, tb), v = rp_sim(r, t, m, RP_MCTS, tb);
    return isnan(v) || isnan(e) || e <= 0 ? NAN : 100.0 * (e - v) / e;
}

void rp_tune_summary(const struct rp *r, int t, int tb, struct rp_tune_sum *s)
{
    memset(s, 0, sizeof *s);
    s->budget_min = -1;
    for (int m = 0; m < r->nm; m++) {
        const struct study_cell *c = rp_cell(r, t, m, RP_MCTS, tb), *e = rp_cell(r, t, m, 3, tb);
        if (!c)
            continue;
        if (s->budget_min < 0 || c->tune_budget < s->budget_min)
            s->budget_min = c->tune_budget;
        if (c->tune_budget > s->budget_max)
            s->budget_max = c->tune_budget;
        s->failed += c->rc != 0;
        double g = rp_mcts_gain(r, t, m, tb);
        if (isnan(g))
            continue;
        s->models++;
        s->beat += g > 0.5;
        s->gain_mean += g;
        if (s->models == 1 || g > s->gain_max)
            s->gain_max = g;
        s->tune_seconds += c->solve_seconds;
        s->exact_seconds += e ? e->solve_seconds : 0;
    }
    if (s->models)
        s->gain_mean /= s->models;
    else
        s->gain_mean = s->gain_max = NAN;
    if (s->budget_min < 0)
        s->budget_min = 0;
}

static int layouts_same(const struct study_cell *a, const struct study_cell *b)
{
    return a && b && a->layouts && b->layouts && !strcmp(a->layouts, b->layouts);
}

/* The (predicted, simulated) points of model m under (t, tb), one per strategy with both,
 * each with an id shared by the strategies of one assignment (the first one's index); the
 * count. pts' labels are the strategies. */
static int model_points(const struct rp *r, int t, int m, int tb, struct study_point *pts,
                        int32_t *ids)
{
    int n = 0;
    for (int s = 0; s < RP_SIM; s++) {
        double p = rp_pred(r, t, m, s, tb), v = rp_sim(r, t, m, s, tb);
        if (isnan(p) || isnan(v))
            continue;
        /* assignments compared by their layouts: an id per distinct layout string */
        int id = n;
        for (int q = 0; q < n; q++)
            if (layouts_same(rp_cell(r, t, m, s, tb), rp_cell(r, t, m, sidx(pts[q].label), tb)))
                id = ids[q];
        ids[n] = id;
        pts[n] = (struct study_point){rp_strategy[s], p, v, &ids[n], 1};
        n++;
    }
    return n;
}

int rp_fid_points(const struct rp *r, int t, int tb, struct rp_point *p, char (*lab)[CELL_LABEL])
{
    int np = 0;
    for (int m = 0; m < r->nm; m++) {
        struct study_point pts[RP_SIM];
        int32_t ids[RP_SIM];
        int n = model_points(r, t, m, tb, pts, ids);
        for (int q = 0; q < n; q++) {
            if (ids[q] != q || !(pts[q].predicted > 0 && pts[q].simulated > 0))
                continue;   /* one point per assignment; log axes show positive values only */
            snprintf(lab[np], CELL_LABEL, "%s %s", r->m[m].name, pts[q].label);
            p[np] = (struct rp_point){pts[q].predicted, pts[q].simulated, m, lab[np]};
            np++;
        }
    }
    return np;
}

void rp_fidelity(const struct rp *r, int t, int tb, struct rp_fid *f)
{
    memset(f, 0, sizeof *f);
    double taus = 0, *errs = malloc(sizeof *errs * (size_t)(r->nm * RP_SIM + 1));
    int ntau = 0, nerr = 0;
    for (int m = 0; m < r->nm; m++) {
        struct study_point pts[RP_SIM];
        int32_t ids[RP_SIM];
        int n = model_points(r, t, m, tb, pts, ids);
        for (int q = 0; q < n && errs; q++)
            errs[nerr++] = fabs(pts[q].predicted - pts[q].simulated) / pts[q].simulated;
        int distinct = 0;
        for (int q = 0; q < n; q++)
            distinct += ids[q] == q;
        if (distinct < 2) {
            f->models_single++;
            continue;
        }
        study_pairwise_add(pts, n, &f->pw);
        double tau = study_kendall_tau_b(pts, n);
        if (!isnan(tau)) {
            taus += tau;
            ntau++;
        }
        double pmin = INFINITY, pmax = -INFINITY, smin = INFINITY, smax = -INFINITY;
        for (int q = 0; q < n; q++) {
            pmin = fmin(pmin, pts[q].predicted);
            pmax = fmax(pmax, pts[q].predicted);
            smin = fmin(smin, pts[q].simulated);
            smax = fmax(smax, pts[q].simulated);
        }
        f->heat_models++;
        for (int q = 0; q < n; q++) {
            if (ids[q] != q)
                continue;   /* one point per distinct assignment */
            double x = pmax > pmin ? (pts[q].predicted - pmin) / (pmax - pmin) : 0;
            double y = smax > smin ? (pts[q].simulated - smin) / (smax - smin) : 0;
            int bx = (int)(x * 5), by = (int)(y * 5);
            f->heat[bx > 4 ? 4 : bx][by > 4 ? 4 : by]++;
        }
    }
    f->tau_mean = ntau ? taus / ntau : NAN;
    f->err_median = errs ? study_median(errs, nerr) : NAN;
    f->err_max = errs ? study_max(errs, nerr) : NAN;
    free(errs);
}

/* count differing "name=pax;" items (both strings list the same ops in the same order
 * when the model is the same; otherwise items are matched by name) */
int rp_changed(const struct rp *r, int t, int t2, int m, int s, int tb)
{
    const struct study_cell *a = rp_cell(r, t, m, s, tb), *b = rp_cell(r, t2, m, s, tb);
    if (!a || !b || !a->layouts || !b->layouts || a->rc || b->rc)
        return -1;
    int changed = 0;
    const char *p = a->layouts, *q = b->layouts;
    while (*p) {
        const char *pe = strchr(p, ';');
        if (!pe)
            break;
        size_t plen = (size_t)(pe - p);
        const char *eq = memchr(p, '=', plen);
        size_t nlen = eq ? (size_t)(eq - p) + 1 : plen;
        /* find the same op in b, starting at q (usually the next item) */
        const char *found = NULL, *scan = q;
        for (int pass = 0; pass < 2 && !found; pass++) {
            while (*scan) {
                const char *se = strchr(scan, ';');
                if (!se)
                    break;
                if (!strncmp(scan, p, nlen)) {
                    found = scan;
                    break;
                }
                scan = se + 1;
            }
            scan = b->layouts;
        }
        if (!found) {
            changed++;
        } else {
            const char *fe = strchr(found, ';');
            if ((size_t)(fe - found) != plen || strncmp(found, p, plen))
                changed++;
            q = fe + 1;
        }
        p = pe + 1;
    }
    return changed;
}

static int cmp_up(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static int cmp_down(const void *a, const void *b)
{
    return cmp_up(b, a);
}

int rp_sorted(double *x, int n, int descending)
{
    int k = 0;
    for (int i = 0; i < n; i++)
        if (!isnan(x[i]))
            x[k++] = x[i];
    qsort(x, (size_t)k, sizeof *x, descending ? cmp_down : cmp_up);
    return k;
}

double rp_quantile(const double *s, int n, double q)
{
    if (n <= 0)
        return NAN;
    double pos = q * (n - 1);
    int i = (int)pos;
    if (i >= n - 1)
        return s[n - 1];
    return s[i] + (s[i + 1] - s[i]) * (pos - i);
}

void rp_html_escape(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        default: fputc(*s, f);
        }
    }
}

const char *rp_fmt_mcycles(double c, char *buf, size_t n)
{
    if (isnan(c))
        snprintf(buf, n, "-");
    else if (c >= 1e8)
        snprintf(buf, n, "%.0f", c / 1e6);
    else if (c >= 1e7)
        snprintf(buf, n, "%.1f", c / 1e6);
    else if (c >= 1e6)
        snprintf(buf, n, "%.2f", c / 1e6);
    else
        snprintf(buf, n, "%.3f", c / 1e6);
    return buf;
}

int report_write(const struct study_cells *cells, const struct report_opts *o,
                       const char *dir, struct ls_error *err)
{
    struct rp r;
    if (rp_build(&r, cells, o))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    char path[1200];
    int rc;
    snprintf(path, sizeof path, "%s/report.html", dir);
    rc = rp_write_html(&r, path, err);
    if (!rc) {
        snprintf(path, sizeof path, "%s/report.md", dir);
        rc = rp_write_md(&r, path, err);
    }
    if (!rc) {
        snprintf(path, sizeof path, "%s/results.json", dir);
        rc = rp_write_json(&r, path, err);
    }
    if (!rc)
        rc = rp_write_csv(&r, dir, err);
    rp_free(&r);
    return rc;
}

void report_terminal(const struct study_cells *cells, const struct report_opts *o,
                           FILE *out)
{
    struct rp r;
    if (rp_build(&r, cells, o))
        return;
    rp_terminal(&r, out);
    rp_free(&r);
}
