/* report/report_summary: the findings summary, the report's first section (docs/study.md):
 * computed from the rows alone, per target and table, before the detailed sections. */
#include <math.h>
#include <string.h>

#include "report/report_doc.h"
#include "study/regret.h"

#define CELL 64
#define TIE 1.01           /* "best" = within 1 % of the fastest simulated strategy */
#define STRICT 0.005       /* Exact "strictly fastest" = by more than 0.5 % */

static void paper(struct doc *d)
{
    doc_p(d, "This study reproduces, on a simulated NeuronCore, the evaluation of the paper "
             "\"Tensor Seeks Layout: Formalizing Layout Selection for ML Compilers\" (its "
             "Table 1, RQ1-RQ4 and Figures 5-7); the figures below are this run's, not the "
             "paper's.");
}

/* The fastest simulated time of the strategies Table 1 shows (MCTS included). */
static double shown_best(const struct rp *r, int t, int m, int tb)
{
    double b = rp_best(r, t, m, tb), v = rp_sim(r, t, m, RP_MCTS, tb);
    return !isnan(v) && (isnan(b) || v < b) ? v : b;
}

/* The headline: Exact's regret under each table against the best layout known. */
static void regret(const struct rp *r, struct doc *d, int t, int ntb)
{
    for (int tb = 0; tb < ntb; tb++) {
        double *x = RP_ROW(r, 0);
        int worst = -1;
        for (int m = 0; m < r->nm; m++) {
            x[m] = rp_regret(r, t, m, tb);
            if (!isnan(x[m]) && (worst < 0 || x[m] > x[worst]))
                worst = m;
        }
        double w = worst >= 0 ? x[worst] : NAN;
        int k = 0;
        for (int m = 0; m < r->nm; m++)
            k += !isnan(x[m]) && x[m] <= STUDY_REGRET_OK;
        int n = rp_sorted(x, r->nm, 0);
        if (!n)
            continue;
        doc_p(d, "Regret (%s table): Exact's layout simulates within 1%% of the best layout "
                 "known on %d of %d models (median %.2f%%, worst %.2f%% on %s). The best known "
                 "is the fastest simulated time of any strategy under any table in this run, "
                 "%s included: a table that ranks strategies right while making all of them "
                 "slower shows here, not in the pairwise accuracy.",
              rp_table_label[tb], k, n, 100 * rp_quantile(x, n, 0.5), 100 * w,
              r->m[worst].name, r->has_mcts ? "MCTS" : "the autotuner (not run)");
    }
}

/* Per strategy shown in Table 1 (MCTS too): on how many models it is best or within 1 % of
 * the best of them. */
static void winners(const struct rp *r, struct doc *d, int t, int tb)
{
    char text[512] = "";
    size_t len = 0;
    int n = 0;
    for (int m = 0; m < r->nm; m++)
        n += !isnan(shown_best(r, t, m, tb));
    for (int s = 0; s < RP_NS; s++) {
        if (s == RP_DP || (s == RP_MCTS && !r->has_mcts))
            continue;
        int k = 0;
        for (int m = 0; m < r->nm; m++) {
            double v = rp_sim(r, t, m, s, tb), b = shown_best(r, t, m, tb);
            k += !isnan(v) && v <= b * TIE;
        }
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%s %d", s ? ", " : "",
                                rp_label[s], k);
        if (len >= sizeof text)
            break;
    }
    doc_p(d, "Which strategy wins (%s table): best or within 1%% of the best simulated time on "
             "%s of %d models.",
          rp_table_label[tb], text, n);
}

/* The heuristics' mean optimality gap under the cost model (%), over every model. */
static double heuristic_gap(const struct rp *r, int t, int tb)
{
    double sum = 0;
    int n = 0;
    for (int m = 0; m < r->nm; m++)
        for (int s = 0; s < 3; s++) {
            double g = rp_gap(r, t, m, s, tb);
            if (!isnan(g)) {
                sum += g;
                n++;
            }
        }
    return n ? sum / n : NAN;
}

/* Does exactness pay off: Exact against the fastest of the three heuristics. */
static void exactness(const struct rp *r, struct doc *d, int t, int tb)
{
    int n = 0, strict = 0, behind = 0;
    double gain = 0;
    for (int m = 0; m < r->nm; m++) {
        double e = rp_sim(r, t, m, 3, tb), h = NAN;
        for (int s = 0; s < 3; s++) {
            double v = rp_sim(r, t, m, s, tb);
            if (!isnan(v) && (isnan(h) || v < h))
                h = v;
        }
        if (isnan(e) || isnan(h) || h <= 0)
            continue;
        n++;
        gain += 100 * (h - e) / h;
        strict += e < h * (1 - STRICT);
        behind += e > h * (1 + STRICT);
    }
    if (!n)
        return;
    struct rp_fid f;
    rp_fidelity(r, t, tb, &f);
    doc_p(d, "Does exactness pay off on simulated time (%s table)? %s. Exact is strictly fastest "
             "(by more than 0.5%% over the best heuristic) on %d of %d models and more than 0.5%% "
             "slower on %d; its mean gain over the best heuristic is %.2f%%. Why: Exact is "
             "optimal only under the cost model; the heuristics' optimality gap under that model "
             "averages %.2f%% while the model's median error against the simulator is %.1f%%, "
             "and exact solving pays off only where the gap exceeds the error (the paper's "
             "Section 4.3 criterion).",
          rp_table_label[tb], strict ? "On some models" : "No", strict, n, behind, gain / n,
          heuristic_gap(r, t, tb),
          100 * f.err_median);
}

/* What calibration did to the pairwise ranking accuracy and the median error. */
static void calibration(const struct rp *r, struct doc *d, int t)
{
    if (!r->has_calib) {
        doc_p(d, "Calibration was not run (--no-calibrate): only the datasheet table is "
                 "reported.");
        return;
    }
    struct rp_fid f0, f1;
    rp_fidelity(r, t, 0, &f0);
    rp_fidelity(r, t, 1, &f1);
    double a0 = 100 * study_pairwise_accuracy(&f0.pw);
    double a1 = 100 * study_pairwise_accuracy(&f1.pw);
    const char *verdict = isnan(a0) || isnan(a1) ? "could not be compared (no pairs)"
                          : a1 < a0              ? "made the ranking worse"
                          : a1 > a0              ? "improved the ranking"
                                                 : "left the ranking accuracy unchanged";
    struct study_regret g[2];
    for (int tb = 0; tb < 2; tb++) {
        double *x = RP_ROW(r, 0);
        for (int m = 0; m < r->nm; m++)
            x[m] = rp_regret(r, t, m, tb);
        study_regret_summary(x, r->nm, &g[tb]);
    }
    const char *rv = g[1].within < g[0].within || (g[1].within == g[0].within && g[1].max > g[0].max)
                         ? "worse (its exact layouts simulate slower)"
                     : g[1].within > g[0].within || g[1].max < g[0].max ? "better"
                                                                       : "unchanged";
    doc_p(d, "Calibration (in sample) %s: pairwise ranking accuracy %.1f%% (datasheet, %d pairs) "
             "-> %.1f%% (calibrated, %d pairs); median relative error %.1f%% -> %.1f%%. Exact's "
             "regret is %s: within 1%% of the best known on %d -> %d of %d models, worst "
             "%.2f%% -> %.2f%%.",
          verdict, a0, f0.pw.pairs, a1, f1.pw.pairs, 100 * f0.err_median, 100 * f1.err_median,
          rv, g[0].within, g[1].within, g[1].models, 100 * g[0].max, 100 * g[1].max);
}

/* min / median / max of the roofline fraction Exact reaches. */
static void roofline(const struct rp *r, struct doc *d, int t, int tb)
{
    double *x = RP_ROW(r, 0);
    for (int m = 0; m < r->nm; m++)
        x[m] = 100 * rp_roofline_reached(r, t, m, tb);
    int n = rp_sorted(x, r->nm, 0);
    if (!n)
        return;
    doc_p(d, "Roofline (%s table): Exact's simulated time reaches %.1f%% / %.1f%% / %.1f%% "
             "(min / median / max over %d models) of the bound no program can beat.",
          rp_table_label[tb], x[0], rp_quantile(x, n, 0.5), x[n - 1], n);
}

/* The model with the smallest and the largest value of f (NaN skipped); 0 when none. */
static int extremes(const struct rp *r, int t, int tb,
                    double (*f)(const struct rp *, int, int, int), int *lo, int *hi)
{
    *lo = *hi = -1;
    for (int m = 0; m < r->nm; m++) {
        double v = f(r, t, m, tb);
        if (isnan(v))
            continue;
        if (*lo < 0 || v < f(r, t, *lo, tb))
            *lo = m;
        if (*hi < 0 || v > f(r, t, *hi, tb))
            *hi = m;
    }
    return *lo >= 0;
}

static void spread_conv(const struct rp *r, struct doc *d, int t, int tb)
{
    int lo, hi, clo, chi;
    if (!extremes(r, t, tb, rp_spread, &lo, &hi))
        return;
    char conv[256] = "";
    if (extremes(r, t, tb, rp_conv_share, &clo, &chi))
        snprintf(conv, sizeof conv,
                 " Layout conversions take %.1f%% of Exact's instruction time on %s and %.1f%% "
                 "on %s.",
                 100 * rp_conv_share(r, t, clo, tb), r->m[clo].name,
                 100 * rp_conv_share(r, t, chi, tb), r->m[chi].name);
    doc_p(d, "How much the layout choice matters: the slowest strategy is %.1f%% slower than "
             "the fastest on %s and %.1f%% on %s.%s",
          100 * rp_spread(r, t, lo, tb), r->m[lo].name, 100 * rp_spread(r, t, hi, tb),
          r->m[hi].name, conv);
}

/* What-if: per variant, Exact's simulated time relative to the base (min .. max, mean). */
static void whatif(const struct rp *r, struct doc *d)
{
    int tb = r->has_calib ? 1 : 0;
    for (int t = 0; t < r->nt; t++) {
        if (t == r->base)
            continue;
        double lo = NAN, hi = NAN, sum = 0;
        int n = 0, changed = 0;
        for (int m = 0; m < r->nm; m++) {
            double v = rp_sim(r, t, m, 3, tb) / rp_sim(r, r->base, m, 3, tb);
            int ch = rp_changed(r, t, r->base, m, 3, tb);
            changed += ch > 0 ? ch : 0;
            if (isnan(v))
                continue;
            lo = n && lo < v ? lo : v;
            hi = n && hi > v ? hi : v;
            sum += v;
            n++;
        }
        if (n)
            doc_p(d, "What-if %s: Exact's simulated time is %.3fx the base's on average "
                     "(%.3fx .. %.3fx over %d models); %d operator decisions changed.",
                  r->t[t].variant[0] ? r->t[t].variant : "(base)", sum / n, lo, hi, n,
                  changed);
    }
}

/* A dp cell over its memory limit is an expected limit, reported as skipped (the same rule
 * as the command line's summary, cli_cell_skipped). */
static int cell_skipped(const struct study_cell *c)
{
    return c->rc == LS_ERR_LIMIT && !strcmp(c->strategy, "dp") && strstr(c->error, "dp.mem_limit");
}

/* The failed cells (skipped = 0) or the skipped ones (1) as a table with their reasons. */
static void cell_table(const struct rp *r, struct doc *d, int skipped)
{
    static const char *const hdr[] = {"Model", "Strategy", "Table", "Target", "Error"};
    doc_table(d, 5, hdr);
    for (size_t i = 0; i < r->cs->len; i++) {
        const struct study_cell *c = &r->cs->data[i];
        if (!c->rc || cell_skipped(c) != skipped)
            continue;
        const char *row[5] = {c->model, c->strategy, c->table,
                              c->variant[0] ? c->variant : c->target, c->error};
        doc_row(d, row, 0);
    }
    doc_table_end(d);
}

/* Every failed and every skipped cell with its reason. */
static void failures(const struct rp *r, struct doc *d)
{
    int failed = 0, skipped = 0;
    for (size_t i = 0; i < r->cs->len; i++) {
        const struct study_cell *c = &r->cs->data[i];
        skipped += c->rc && cell_skipped(c);
        failed += c->rc && !cell_skipped(c);
    }
    if (failed) {
        doc_p(d, "Failed cells (%d), with the reason each gave:", failed);
        cell_table(r, d, 0);
    } else {
        doc_p(d, "Failed cells: none.");
    }
    if (skipped) {
        doc_p(d, "Skipped cells (%d): dp over its memory limit, an expected limit of the "
                 "treewidth DP (its tables would not fit), not a failure:", skipped);
        cell_table(r, d, 1);
    }
}

void rp_doc_summary(const struct rp *r, struct doc *d)
{
    doc_h(d, 2, "summary", "Findings summary");
    paper(d);
    int ntb = r->has_calib ? 2 : 1;
    for (int t = 0; t < r->nt; t++) {
        if (r->nt > 1) {
            char title[256];
            snprintf(title, sizeof title, "Target %s", r->t[t].label);
            doc_p(d, "%s:", title);
        }
        regret(r, d, t, ntb);
        for (int tb = 0; tb < ntb; tb++)
            winners(r, d, t, tb);
        for (int tb = 0; tb < ntb; tb++)
            exactness(r, d, t, tb);
        calibration(r, d, t);
        roofline(r, d, t, 0);
        spread_conv(r, d, t, 0);
    }
    if (r->nt > 1)
        whatif(r, d);
    failures(r, d);
}
