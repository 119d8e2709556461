/* report/report_tune: the report's autotuner section — MCTS (rewarded by simulated time,
 * started from Exact's assignment) against Exact, per model and latency table. */
#include <math.h>
#include <stdio.h>

#include "report/report_doc.h"

#define CELL 48

static const char *fmt_cycles(double v, char *b, size_t n)
{
    if (isnan(v))
        snprintf(b, n, "-");
    else
        snprintf(b, n, "%.0f", v);
    return b;
}

void rp_doc_tune(const struct rp *r, struct doc *d, int t)
{
    char id[32];
    snprintf(id, sizeof id, "mcts-%d", t);
    doc_h(d, 3, id, "Autotuner (mcts)");
    doc_p(d, "MCTS over layout plans (docs/tune.md): one tuning point per operator, its "
             "no-change plan plus the 16 cheapest alternatives by static cost, seed 1. It "
             "starts from Exact's assignment under the same table and scores every design by "
             "compiling and simulating it, so it optimizes the simulated time directly and "
             "never returns a slower design than Exact's. Improvement = share of Exact's "
             "simulated time saved. Tuning seconds are the search's wall time (one simulation "
             "per evaluation); Exact's are its solve time.");
    static const char *const hdr[] = {"Model",       "Table",           "Exact (cycles)",
                                      "MCTS (cycles)", "improvement",   "evaluations / budget",
                                      "tuning s",    "Exact solve s"};
    doc_table(d, 8, hdr);
    int ntb = r->has_calib ? 2 : 1;
    for (int tb = 0; tb < ntb; tb++)
        for (int m = 0; m < r->nm; m++) {
            const struct study_cell *c = rp_cell(r, t, m, RP_MCTS, tb),
                                    *e = rp_cell(r, t, m, 3, tb);
            if (!c)
                continue;
            char a[CELL], b[CELL], g[CELL], ev[CELL], ts[CELL], es[CELL];
            fmt_cycles(rp_sim(r, t, m, 3, tb), a, CELL);
            if (c->rc)
                snprintf(b, CELL, "failed");
            else
                fmt_cycles(rp_sim(r, t, m, RP_MCTS, tb), b, CELL);
            double gain = rp_mcts_gain(r, t, m, tb);
            if (isnan(gain))
                snprintf(g, CELL, "-");
            else
                snprintf(g, CELL, "%.2f%%", gain);
            snprintf(ev, CELL, "%lld / %lld", (long long)c->tune_evaluations,
                     (long long)c->tune_budget);
            snprintf(ts, CELL, "%.2f", c->solve_seconds);
            snprintf(es, CELL, "%.4f", e ? e->solve_seconds : 0);
            const char *row[8] = {r->m[m].name, rp_table_label[tb], a, b, g, ev, ts, es};
            doc_row(d, row, !isnan(gain) && gain > 0.5 ? 1u << 3 : 0);
        }
    doc_table_end(d);
    for (int tb = 0; tb < ntb; tb++) {
        struct rp_tune_sum s;
        rp_tune_summary(r, t, tb, &s);
        char budget[64], failed[64] = "";
        if (s.failed)
            snprintf(failed, sizeof failed, "; %d mcts cell%s failed", s.failed,
                     s.failed == 1 ? "" : "s");
        if (s.budget_min == s.budget_max)
            snprintf(budget, sizeof budget, "%lld", s.budget_max);
        else
            snprintf(budget, sizeof budget, "%lld-%lld", s.budget_min, s.budget_max);
        doc_p(d, "%s table: MCTS beat Exact by more than 0.5%% on %d of %d models "
                 "(mean improvement %.2f%%, largest %.2f%%%s); budget %s evaluations per "
                 "model; tuning took %.1f s in total against %.2f s for Exact's solves.",
              rp_table_label[tb], s.beat, s.models, isnan(s.gain_mean) ? 0.0 : s.gain_mean,
              isnan(s.gain_max) ? 0.0 : s.gain_max,
              failed, budget, s.tune_seconds,
              s.exact_seconds);
    }
}
