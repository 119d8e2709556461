/* report/report_rq: the sections of the report, in the shape of the paper's evaluation
 * (Table 1, RQ1 with Figure 5, RQ2 with Figure 6, RQ3 / RQ4 with Figure 7). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_doc.h"

#define CELL 48


/* Table 1's roofline columns for model m: Exact's bound (M cycles and the binding limit),
 * the fraction of it Exact reaches, Exact's engine busy shares, how much the strategies
 * differ (spread) and the conversions' share of Exact's instruction time. */
#define ROOF_COLS 5
static void table1_roofline(const struct rp *r, int t, int m, int tb, char b[ROOF_COLS][CELL])
{
    const struct study_cell *ex = rp_cell(r, t, m, 3, tb);
    double bound = rp_roofline(r, t, m, tb);
    char mc[CELL];
    if (isnan(bound))
        snprintf(b[0], CELL, "-");
    else
        snprintf(b[0], CELL, "%s (%s)", rp_fmt_mcycles(bound, mc, CELL), ex->roofline_by);
    double reached = rp_roofline_reached(r, t, m, tb);
    rp_fmt_pct(100 * reached, b[1], CELL);
    rp_fmt_busy(ex, b[2], CELL);
    double spread = rp_spread(r, t, m, tb), conv = rp_conv_share(r, t, m, tb);
    rp_fmt_pct(100 * spread, b[3], CELL);
    rp_fmt_pct(100 * conv, b[4], CELL);
}

/* Table 1: the four strategies, then MCTS (when the store has mcts cells), then the
 * roofline columns. */
static void table1(const struct rp *r, struct doc *d, int t, int tb)
{
    static const char *const hdr[] = {"Type", "Model", "Local", "Greedy", "Rule-Based", "Exact",
                                      "MCTS", "Roofline", "Exact reached",
                                      "Exact busy % PE/ACT/DVE/POOL/DMA", "Spread",
                                      "Exact conversions", "Scale"};
    static const char *const hdr4[] = {"Type", "Model", "Local", "Greedy", "Rule-Based", "Exact",
                                       "Roofline", "Exact reached",
                                       "Exact busy % PE/ACT/DVE/POOL/DMA", "Spread",
                                       "Exact conversions", "Scale"};
    int ns = r->has_mcts ? RP_SIM + 1 : RP_SIM;
    doc_table(d, ns + 3 + ROOF_COLS, r->has_mcts ? hdr : hdr4);
    for (int m = 0; m < r->nm; m++) {
        char b[RP_SIM + 1][CELL], rf[ROOF_COLS][CELL];
        const char *row[3 + RP_SIM + 1 + ROOF_COLS];
        row[0] = strcmp(r->m[m].group, "dense") ? "Vision, Multimodal, MoE"
                                                : "Dense Transformers";
        row[1] = r->m[m].name;
        double best = rp_best(r, t, m, tb), vm = rp_sim(r, t, m, RP_MCTS, tb);
        if (r->has_mcts && !isnan(vm) && (isnan(best) || vm < best))
            best = vm;
        unsigned bold = 0;
        for (int k = 0; k < ns; k++) {
            int s = k < RP_SIM ? k : RP_MCTS;
            double v = rp_sim(r, t, m, s, tb);
            const struct study_cell *c = rp_cell(r, t, m, s, tb);
            if (c && c->rc)
                snprintf(b[k], CELL, "failed");
            else
                rp_fmt_mcycles(v, b[k], CELL);
            row[2 + k] = b[k];
            if (!isnan(v) && v <= best * 1.01)
                bold |= 1u << (2 + k);
        }
        table1_roofline(r, t, m, tb, rf);
        for (int k = 0; k < ROOF_COLS; k++)
            row[2 + ns + k] = rf[k];
        row[2 + ns + ROOF_COLS] = r->m[m].scale[0] ? r->m[m].scale : "published size";
        doc_row(d, row, bold);
    }
    doc_table_end(d);
}

/* The series live in r's scratch rows until the next section. */
static void series_relperf(const struct rp *r, int t, int tb, int dense_only,
                           struct rp_series *se)
{
    for (int s = 0; s < RP_SIM; s++) {
        double *ys = RP_ROW(r, s);
        int n = 0;
        for (int m = 0; m < r->nm; m++)
            if (!dense_only || !strcmp(r->m[m].group, "dense"))
                ys[n++] = rp_relperf(r, t, m, s, tb);
        n = rp_sorted(ys, n, 0);
        se[s] = (struct rp_series){rp_label[s], rp_color[s], ys, n, s};
    }
}

/* One CDF figure: series constant over two or more models are not drawn, the caption says
 * so (and when every series is constant the figure is the caption alone); series that
 * coincide are drawn (their markers side by side) and named in the caption. */
static void cdf_figure(struct doc *d, const char *title, const char *ylabel,
                       struct rp_series *se, int ns, int logy, double hline,
                       const char *caption)
{
    char cap[1024];
    size_t len = (size_t)snprintf(cap, sizeof cap, "%s", caption);
    int k = 0, dropped = 0;
    for (int i = 0; i < ns; i++) {
        if (se[i].n < 2 || se[i].y[0] != se[i].y[se[i].n - 1]) {
            se[k++] = se[i];
            continue;
        }
        if (len < sizeof cap)
            len += (size_t)snprintf(cap + len, sizeof cap - len, "%s %s is %.4g on all %d models",
                                    dropped++ ? ";" : " Not drawn, being constant:", se[i].name,
                                    se[i].y[0], se[i].n);
    }
    if (dropped && len < sizeof cap)
        len += (size_t)snprintf(cap + len, sizeof cap - len, ".");
    char note[256], full[160];
    if (rp_coincide_note(se, k, note, sizeof note) && len < sizeof cap)
        snprintf(cap + len, sizeof cap - len, " Lines coincide (the same value on every model): "
                                              "%s.", note);
    if (doc_fig_begin(d, "") && k)
        rp_svg_cdf(d->f, doc_panel_title(d, title, full, sizeof full), ylabel, se, k, logy,
                   hline);
    doc_fig_end(d, cap);
}

static void rq1(const struct rp *r, struct doc *d, int t)
{
    char id[32];
    snprintf(id, sizeof id, "rq1-%d", t);
    doc_h(d, 3, id, "RQ1: practical impact of layout selection");
    struct rp_series se[RP_SIM];
    series_relperf(r, t, 0, 0, se);
    char b1[CELL], b2[CELL];
    for (int s = 0; s < RP_SIM; s++) {
        double mean = 0;
        for (int i = 0; i < se[s].n; i++)
            mean += se[s].y[i];
        mean = se[s].n ? mean / se[s].n : NAN;
        doc_p(d, "%s: %s of the best known simulated time on average, %s at the worst decile "
                 "(%d models).",
              rp_label[s], rp_fmt_pct(mean, b1, CELL),
              rp_fmt_pct(rp_quantile(se[s].y, se[s].n, 0.1), b2, CELL), se[s].n);
    }
    doc_figs_row_begin(d);
    cdf_figure(d, "All models", "% of best known result", se, RP_SIM, 0, 100,
               "Like the paper's Figure 5(a): relative performance (best simulated time / the "
               "strategy's simulated time), models sorted from worst to best, datasheet table.");
    series_relperf(r, t, 0, 1, se);
    cdf_figure(d, "Dense transformers", "% of best known result", se, RP_SIM, 0, 100,
               "Like the paper's Figure 5(b): the same over the dense transformers only.");
    doc_figs_row_end(d);

    /* transposes inserted */
    static const char *const hdr[] = {"Model", "Local", "Greedy", "Rule-Based", "Exact"};
    doc_p(d, "Transposes (layout conversions) inserted by the compiled program, datasheet table:");
    doc_table(d, 5, hdr);
    double *ratio[RP_SIM];
    for (int s = 0; s < RP_SIM; s++)
        ratio[s] = RP_ROW(r, s);
    int nr = 0;
    for (int m = 0; m < r->nm; m++) {
        char b[RP_SIM][CELL];
        const char *row[5] = {r->m[m].name};
        const struct study_cell *rb = rp_cell(r, t, m, 2, 0);
        for (int s = 0; s < RP_SIM; s++) {
            const struct study_cell *c = rp_cell(r, t, m, s, 0);
            if (c && !c->rc)
                snprintf(b[s], CELL, "%lld", (long long)c->conversions);
            else
                snprintf(b[s], CELL, "-");
            row[1 + s] = b[s];
            ratio[s][nr] = c && rb && !c->rc && !rb->rc && rb->conversions > 0
                               ? (double)c->conversions / (double)rb->conversions
                               : NAN;
        }
        nr++;
        doc_row(d, row, 0);
    }
    doc_table_end(d);
    for (int s = 0; s < RP_SIM; s++) {
        if (s == 2)
            continue;
        int n = rp_sorted(ratio[s], nr, 0);
        double mean = 0;
        for (int i = 0; i < n; i++)
            mean += ratio[s][i];
        if (n)
            doc_p(d, "%s inserts %.2fx the transposes of Rule-Based on average (p90 %.2fx).",
                  rp_label[s], mean / n, rp_quantile(ratio[s], n, 0.9));
    }

    /* rulebased fallbacks */
    static const char *const h2[] = {"Model", "components exhaustive", "divide-and-conquer",
                                     "greedy", "objective = exact's"};
    doc_p(d, "How Rule-Based searched each model (its components by method). Rule-Based sees "
             "only the cost model: where every component was searched exhaustively it reaches "
             "the exact optimum of the objective, so it ties with Exact there by construction.");
    doc_table(d, 5, h2);
    int exh_all = 0, tie = 0;
    for (int m = 0; m < r->nm; m++) {
        const struct study_cell *c = rp_cell(r, t, m, 2, 0);
        if (!c)
            continue;
        char a[CELL], b[CELL], g[CELL];
        snprintf(a, CELL, "%d", c->rb_exhaustive);
        snprintf(b, CELL, "%d", c->rb_split);
        snprintf(g, CELL, "%d", c->rb_greedy);
        double pe = rp_pred(r, t, m, 3, 0), pr = rp_pred(r, t, m, 2, 0);
        int same = !isnan(pe) && pe == pr;
        exh_all += c->rb_split == 0 && c->rb_greedy == 0;
        tie += same;
        const char *row[5] = {r->m[m].name, a, b, g, isnan(pe) ? "-" : same ? "yes" : "no"};
        doc_row(d, row, 0);
    }
    doc_table_end(d);
    doc_p(d, "Rule-Based searched every component exhaustively on %d of %d models and matches "
             "the exact objective on %d.",
          exh_all, r->nm, tie);
}

static void rq2(const struct rp *r, struct doc *d, int t)
{
    char id[32];
    snprintf(id, sizeof id, "rq2-%d", t);
    doc_h(d, 3, id, "RQ2: exact solvers in practice");
    int twmax = 0;
    for (int m = 0; m < r->nm; m++)
        if (r->m[m].tw > twmax)
            twmax = r->m[m].tw;
    /* one bar per width up to 30; wider graphs share the last bar, labelled "30+" */
    int wide = twmax > 30;
    if (wide)
        twmax = 30;
    char labels[32][8];
    const char *cats[32];
    double pct[32];
    for (int w = 0; w <= twmax; w++) {
        int n = 0;
        for (int m = 0; m < r->nm; m++)
            n += r->m[m].tw == w || (w == twmax && r->m[m].tw > twmax);
        snprintf(labels[w], sizeof labels[w], wide && w == twmax ? "%d+" : "%d", w);
        cats[w] = labels[w];
        pct[w] = r->nm ? 100.0 * n / r->nm : 0;
    }
    double *dp = RP_ROW(r, 0), *ex = RP_ROW(r, 1), ymax = 1e-3;
    int ndp = 0, nex = 0, dpfail = 0;
    for (int m = 0; m < r->nm; m++) {
        const struct study_cell *a = rp_cell(r, t, m, RP_DP, 0), *b = rp_cell(r, t, m, 3, 0);
        if (a && a->solve_seconds > ymax)
            ymax = a->solve_seconds;
        if (b && b->solve_seconds > ymax)
            ymax = b->solve_seconds;
    }
    ymax = pow(10, ceil(log10(ymax * 1.01)));
    for (int m = 0; m < r->nm; m++) {
        const struct study_cell *a = rp_cell(r, t, m, RP_DP, 0), *b = rp_cell(r, t, m, 3, 0);
        if (a) {
            dp[ndp++] = a->rc ? ymax : fmax(a->solve_seconds, 1e-4);
            dpfail += a->rc != 0;
        }
        if (b)
            ex[nex++] = b->rc || strcmp(b->status, "optimal") ? ymax
                                                               : fmax(b->solve_seconds, 1e-4);
    }
    rp_sorted(dp, ndp, 0);
    rp_sorted(ex, nex, 0);
    int low = 0;
    for (int m = 0; m < r->nm; m++)
        low += r->m[m].tw >= 0 && r->m[m].tw <= 4;
    doc_p(d, "%d of %d models have a treewidth bound of at most 4. The treewidth DP solved %d of "
             "%d within its time and memory limit; exact (bucket elimination with a mini-bucket "
             "fallback) proved optimality on the others it reached (failures are drawn at the "
             "top of the runtime plot).",
          low, r->nm, ndp - dpfail, ndp);
    doc_figs_row_begin(d);
    char full[160];
    if (doc_fig_begin(d, ""))
        rp_svg_bars(d->f,
                    doc_panel_title(d, "Treewidth bound of the dataflow graphs", full,
                                    sizeof full),
                    "treewidth bound", "% of models", cats, pct, twmax + 1, "#1f77b4", 1);
    doc_fig_end(d, "Like the paper's Figure 6(a): treewidth bound (util/treedec, min-fill / "
                   "min-degree) of each model's operator graph.");
    struct rp_series se[2] = {{"Treewidth DP", rp_color[4], dp, ndp, 4},
                              {"Exact", rp_color[3], ex, nex, 3}};
    cdf_figure(d, "Runtime of the exact solvers", "seconds (log)", se, 2, 1, NAN,
               "Like the paper's Figure 6(b): solver runtime sorted over the models; a run that "
               "hit its time or memory limit is drawn at the top (one under 0.1 ms at 0.1 ms).");
    doc_figs_row_end(d);
    static const char *const hdr[] = {"Model", "ops", "treewidth", "dp", "dp s", "dp MiB",
                                      "exact", "exact s"};
    doc_table(d, 8, hdr);
    for (int m = 0; m < r->nm; m++) {
        const struct study_cell *a = rp_cell(r, t, m, RP_DP, 0), *b = rp_cell(r, t, m, 3, 0);
        char o[CELL], w[CELL], ds[CELL], dm[CELL], es[CELL];
        snprintf(o, CELL, "%lld", r->m[m].ops);
        snprintf(w, CELL, "%d", r->m[m].tw);
        snprintf(ds, CELL, "%.3f", a ? a->solve_seconds : 0);
        snprintf(dm, CELL, "%.1f", a ? a->mem_mib : 0);
        snprintf(es, CELL, "%.3f", b ? b->solve_seconds : 0);
        const char *row[8] = {r->m[m].name, o, w,
                              a ? (a->rc ? "limit" : a->status) : "-", ds, dm,
                              b ? (b->rc ? "failed" : b->status) : "-", es};
        doc_row(d, row, 0);
    }
    doc_table_end(d);
}

static void rq3(const struct rp *r, struct doc *d, int t)
{
    char id[32];
    snprintf(id, sizeof id, "rq3-%d", t);
    doc_h(d, 3, id, "RQ3: algorithm comparison under the cost model");
    double *gaps[RP_SIM];
    struct rp_series se[RP_SIM];
    for (int s = 0; s < RP_SIM; s++) {
        int n = 0;
        gaps[s] = RP_ROW(r, s);
        for (int m = 0; m < r->nm; m++)
            gaps[s][n++] = rp_gap(r, t, m, s, 0);
        n = rp_sorted(gaps[s], n, 1);
        se[s] = (struct rp_series){rp_label[s], rp_color[s], gaps[s], n, s};
        double mean = 0;
        for (int i = 0; i < n; i++)
            mean += gaps[s][i];
        if (s < 3 && n)
            doc_p(d, "%s: optimality gap %.2f%% on average, %.2f%% at p90, %.2f%% at worst.",
                  rp_label[s], mean / n, rp_quantile(gaps[s] + 0, n, 0.1), gaps[s][0]);
    }
    int exact_best = 0, n = 0;
    double spread = 1;
    for (int m = 0; m < r->nm; m++) {
        double b = rp_best(r, t, m, 0), e = rp_sim(r, t, m, 3, 0), worst = 0;
        if (isnan(b))
            continue;
        n++;
        exact_best += !isnan(e) && e <= b * 1.01;
        for (int s = 0; s < RP_SIM; s++) {
            double v = rp_sim(r, t, m, s, 0);
            if (!isnan(v) && v > worst)
                worst = v;
        }
        if (worst / b > spread)
            spread = worst / b;
    }
    doc_p(d, "On the simulated core, Exact is the best of the four strategies (within 1%%) on "
             "%d of %d models; their simulated times differ by up to %.2fx on one model.%s",
          exact_best, n, spread,
          r->has_mcts ? " MCTS, which searches on the simulator itself, is left out here; the "
                        "findings summary and the Autotuner section compare it."
                      : "");
    cdf_figure(d, "Optimality gap under the cost model", "gap over exact (%)", se, RP_SIM,
               0, 0,
               "Like the paper's Figure 7(a): predicted cost over the exact optimum, datasheet "
               "table, models sorted from the largest gap.");
}

/* RQ4's panel of table tb: predicted against simulated cycles, one point per distinct
 * assignment, on log axes; the caption counts the points within 10 % and 25 %. */
static void fid_scatter(const struct rp *r, struct doc *d, int t, int tb)
{
    size_t cap_n = (size_t)r->nm * RP_SIM + 1;
    struct rp_point *p = malloc(sizeof *p * cap_n);
    char(*lab)[CELL_LABEL] = malloc(sizeof *lab * cap_n);
    const char **names = malloc(sizeof *names * (size_t)(r->nm + 1));
    char title[96], full[160], cap[400];
    if (!p || !lab || !names) {
        doc_fig_begin(d, "");
        doc_fig_end(d, "Predicted vs simulated: not drawn (out of memory).");
        free(p);
        free(lab);
        free(names);
        return;
    }
    int n = rp_fid_points(r, t, tb, p, lab), in10 = 0, in25 = 0;
    for (int i = 0; i < n; i++) {
        double e = fabs(p[i].x - p[i].y) / p[i].y;
        in10 += e <= 0.10;
        in25 += e <= 0.25;
    }
    for (int m = 0; m < r->nm; m++)
        names[m] = r->m[m].name;
    snprintf(title, sizeof title, "Predicted vs simulated, %s table", rp_table_label[tb]);
    snprintf(cap, sizeof cap,
             "Like the paper's Figure 7(b), %s table: predicted cost against simulated time "
             "(cycles, log axes), one point per distinct assignment of each model (its marker); "
             "the line is y = x, the bands a relative error within 10%% and 25%%. %d of %d "
             "points lie within 10%%, %d within 25%%.",
             rp_table_label[tb], in10, n, in25);
    if (doc_fig_begin(d, "") && n)
        rp_svg_scatter(d->f, doc_panel_title(d, title, full, sizeof full),
                       "predicted cost (cycles)", "simulated time (cycles)", p, n, names, r->nm);
    doc_fig_end(d, cap);
    free(p);
    free(lab);
    free(names);
}

static void rq4(const struct rp *r, struct doc *d, int t)
{
    char id[32];
    snprintf(id, sizeof id, "rq4-%d", t);
    doc_h(d, 3, id, "RQ4: cost model fidelity, before and after calibration");
    struct rp_fid f[RP_NT];
    int ntb = r->has_calib ? 2 : 1;
    static const char *const hdr[] = {"Table", "pairs", "pairwise accuracy", "Kendall tau-b",
                                      "median rel. error", "max rel. error",
                                      "models with one assignment"};
    doc_table(d, 7, hdr);
    for (int tb = 0; tb < ntb; tb++) {
        rp_fidelity(r, t, tb, &f[tb]);
        char p[CELL], a[CELL], k[CELL], e1[CELL], e2[CELL], s1[CELL];
        snprintf(p, CELL, "%d", f[tb].pw.pairs);
        rp_fmt_pct(100 * study_pairwise_accuracy(&f[tb].pw), a, CELL);
        snprintf(k, CELL, "%.2f", f[tb].tau_mean);
        rp_fmt_pct(100 * f[tb].err_median, e1, CELL);
        rp_fmt_pct(100 * f[tb].err_max, e2, CELL);
        snprintf(s1, CELL, "%d", f[tb].models_single);
        const char *row[7] = {rp_table_label[tb], p, a, k, e1, e2, s1};
        doc_row(d, row, 0);
    }
    doc_table_end(d);
    doc_p(d, "Pairwise ranking accuracy: for each model and each pair of strategies with "
             "different assignments, whether the lower predicted cost also simulates faster "
             "(equal within 0.5%%). A random predictor scores 33%%. Models whose four strategies "
             "chose one assignment have no pairs and are left out of the accuracy.");
    if (ntb > 1)
        doc_figs_row_begin(d);
    for (int tb = 0; tb < ntb; tb++)
        fid_scatter(r, d, t, tb);
    if (ntb > 1)
        doc_figs_row_end(d);
    /* the paper's criterion for exact solving */
    static const char *const h2[] = {"Model", "largest heuristic gap", "cost-model error of exact",
                                     "exact vs best simulated", "exact pays off"};
    doc_p(d, "When does exact solving pay off (Section 4.3)? Only while the heuristics' "
             "optimality gap exceeds the cost model's error on the model (datasheet table):");
    doc_table(d, 5, h2);
    for (int m = 0; m < r->nm; m++) {
        struct study_point pts[RP_SIM];
        int n = 0, ex = -1;
        for (int s = 0; s < RP_SIM; s++) {
            double p = rp_pred(r, t, m, s, 0), v = rp_sim(r, t, m, s, 0);
            if (isnan(p) || isnan(v))
                continue;
            if (s == 3)
                ex = n;
            pts[n++] = (struct study_point){rp_strategy[s], p, v, NULL, 0};
        }
        if (ex < 0)
            continue;
        struct study_criterion c;
        _Static_assert(RP_SIM <= STUDY_CRITERION_MAX, "criterion points");
        study_criterion(pts, n, ex, &c);
        double g = 0;
        for (int i = 0; i < n; i++)
            if (i != ex && c.gap[i] > g)
                g = c.gap[i];
        char a[CELL], b[CELL], e[CELL];
        rp_fmt_pct(100 * g, a, CELL);
        rp_fmt_pct(100 * c.exact_error, b, CELL);
        rp_fmt_pct(100 * c.exact_vs_best, e, CELL);
        const char *row[5] = {r->m[m].name, a, b, e, c.exact_pays ? "yes" : "no"};
        doc_row(d, row, 0);
    }
    doc_table_end(d);
}

void rp_doc_target(const struct rp *r, struct doc *d, int t)
{
    char title[256], id[32];
    snprintf(title, sizeof title, "Target %s", r->t[t].label);
    snprintf(id, sizeof id, "target-%d", t);
    doc_h(d, 2, id, title);
    doc_p(d, "Table 1 analogue: simulated execution time (millions of cycles), datasheet "
             "table. Lower is better; the best result per model and every result within 1%% of "
             "it is bold. Roofline: the bound no program of the model can beat on this target "
             "(millions of cycles; pe = the PE array's peak binds, hbm = the HBM traffic of "
             "weights, inputs and outputs; docs/costmodel.md), and the fraction of it Exact's "
             "simulated time reaches; then the share of Exact's simulated time each engine was "
             "busy, the spread (the slowest strategy's time over the fastest's, minus 1: how "
             "much the layout choice matters) and the layout conversions' share of Exact's "
             "summed instruction time.%s",
          r->has_mcts ? " MCTS is the autotuner (started from Exact's assignment, rewarded by "
                        "simulated time; see the Autotuner section): it is shown beside the "
                        "paper's four strategies but left out of RQ1, RQ3 and RQ4."
                      : "");
    table1(r, d, t, 0);
    if (r->has_calib) {
        doc_p(d, "The same with the calibrated table, fitted in sample on these programs "
                 "(problems re-priced and re-solved):");
        table1(r, d, t, 1);
    }
    rq1(r, d, t);
    rq2(r, d, t);
    rq3(r, d, t);
    rq4(r, d, t);
    if (r->has_mcts)
        rp_doc_tune(r, d, t);
}
