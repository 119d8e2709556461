/* report/report_out: the what-if section, results.json, the CSV files and the terminal
 * summary. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_doc.h"
#include "study/regret.h"
#include "util/fileio.h"

#define CELL 64

void rp_doc_whatif(const struct rp *r, struct doc *d)
{
    int tb = r->has_calib ? 1 : 0;
    doc_h(d, 2, "whatif", "What-if: target variants");
    doc_p(d, "Per variant, the %s table was %s, the problems re-solved, the programs recompiled "
             "and simulated. End-to-end time is Exact's solution under that table; 'decisions "
             "changed' counts the operators whose chosen layouts (partition axis of every "
             "input and the output) differ from Exact's choice on the base target %s.",
          rp_table_label[tb], tb ? "recalibrated on the variant's own programs" : "derived from "
                                                                             "the variant's datasheet numbers",
          r->t[r->base].label);
    static const char *const hdr[] = {"Model",  "Variant", "Exact (M cycles)", "vs base",
                                      "best of 4 (M cycles)", "transposes", "decisions changed"};
    doc_table(d, 7, hdr);
    for (int m = 0; m < r->nm; m++)
        for (int t = 0; t < r->nt; t++) {
            char a[CELL], b[CELL], c[CELL], e[CELL], f[CELL];
            double v = rp_sim(r, t, m, 3, tb), base = rp_sim(r, r->base, m, 3, tb);
            rp_fmt_mcycles(v, a, CELL);
            if (isnan(v) || isnan(base))
                snprintf(b, CELL, "-");
            else
                snprintf(b, CELL, "%.3fx", v / base);
            rp_fmt_mcycles(rp_best(r, t, m, tb), c, CELL);
            const struct study_cell *x = rp_cell(r, t, m, 3, tb);
            if (x && !x->rc)
                snprintf(e, CELL, "%lld", (long long)x->conversions);
            else
                snprintf(e, CELL, "-");
            int ch = rp_changed(r, t, r->base, m, 3, tb);
            if (ch < 0)
                snprintf(f, CELL, "-");
            else
                snprintf(f, CELL, "%d of %lld", ch, r->m[m].ops);
            const char *row[7] = {r->m[m].name, r->t[t].variant[0] ? r->t[t].variant : "(base)",
                                  a, b, c, e, f};
            doc_row(d, row, 0);
        }
    doc_table_end(d);
    static const char *const h2[] = {"Variant", "pairwise accuracy (datasheet)",
                                     "pairwise accuracy (calibrated, in-sample)",
                                     "median rel. error (calibrated, in-sample)"};
    doc_table(d, 4, h2);
    for (int t = 0; t < r->nt; t++) {
        struct rp_fid f0, f1;
        rp_fidelity(r, t, 0, &f0);
        char a[CELL], b[CELL] = "-", c[CELL] = "-";
        snprintf(a, CELL, "%.1f%% of %d", 100 * study_pairwise_accuracy(&f0.pw), f0.pw.pairs);
        if (r->has_calib) {
            rp_fidelity(r, t, 1, &f1);
            snprintf(b, CELL, "%.1f%% of %d", 100 * study_pairwise_accuracy(&f1.pw), f1.pw.pairs);
            snprintf(c, CELL, "%.1f%%", 100 * f1.err_median);
        }
        const char *row[4] = {r->t[t].variant[0] ? r->t[t].variant : "(base)", a, b, c};
        doc_row(d, row, 0);
    }
    doc_table_end(d);
    int nt = r->nt > 10 ? 10 : r->nt;
    double *vals = calloc((size_t)(nt * r->nm) + 1, sizeof *vals);
    const char **cats = calloc((size_t)r->nm + 1, sizeof *cats);
    const char **names = calloc((size_t)nt + 1, sizeof *names);
    if (vals && cats && names) {
        for (int m = 0; m < r->nm; m++)
            cats[m] = r->m[m].name;
        /* the base's series is 1.0 everywhere: not drawn */
        int k = 0;
        for (int t = 0; t < nt; t++) {
            if (t == r->base)
                continue;
            names[k] = r->t[t].variant[0] ? r->t[t].variant : "(base)";
            for (int m = 0; m < r->nm; m++)
                vals[k * r->nm + m] = rp_sim(r, t, m, 3, tb) / rp_sim(r, r->base, m, 3, tb);
            k++;
        }
        char full[160];
        if (doc_fig_begin(d, "") && k)
            rp_svg_grouped(d->f,
                           doc_panel_title(d, "End-to-end time relative to the base target",
                                           full, sizeof full),
                           "Exact's simulated time / base", cats, r->nm, names, rp_palette, k,
                           vals, 1.0);
        doc_fig_end(d, "What-if: simulated time of Exact's solution per variant, relative to "
                       "the base target (lower is faster; the dashed line is the base). The "
                       "base target itself is 1.0 on every model by definition and not drawn.");
    }
    free(vals);
    free(cats);
    free(names);
}

/* ---- results.json ---------------------------------------------------------------------- */

static json_t *num(double v)
{
    return isnan(v) || isinf(v) ? json_null() : json_real(v);
}

static json_t *busy_json(const struct study_cell *c)
{
    json_t *o = json_object();
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        json_object_set_new(o, ls_engine_name((enum ls_engine)e), json_real(c->busy[e]));
    return o;
}

/* Exact's roofline figures of one model and table (null when the store has none). */
static json_t *roofline_json(const struct rp *r, int t, int m, int tb)
{
    double bound = rp_roofline(r, t, m, tb);
    if (isnan(bound))
        return json_null();
    const struct study_cell *ex = rp_cell(r, t, m, 3, tb);
    json_t *x = json_object();
    json_object_set_new(x, "cycles", json_real(bound));
    json_object_set_new(x, "bound_by", json_string(ex->roofline_by));
    json_object_set_new(x, "exact_fraction", num(rp_roofline_reached(r, t, m, tb)));
    json_object_set_new(x, "exact_busy", busy_json(ex));
    json_object_set_new(x, "exact_conversion_share", num(rp_conv_share(r, t, m, tb)));
    json_object_set_new(x, "strategy_spread", num(rp_spread(r, t, m, tb)));
    return x;
}

int rp_write_json(const struct rp *r, const char *path, struct ls_error *err)
{
    json_t *root = json_object();
    json_object_set_new(root, "schema", json_string("laysim-study-results"));
    json_object_set_new(root, "version", json_integer(1));
    json_object_set_new(root, "kind", json_string(r->o && r->o->kind ? r->o->kind : "study"));
    json_object_set_new(root, "seconds", json_real(r->o ? r->o->seconds : 0));
    json_t *targets = json_array();
    for (int t = 0; t < r->nt; t++) {
        json_t *jt = json_object();
        json_object_set_new(jt, "label", json_string(r->t[t].label));
        json_object_set_new(jt, "variant", json_string(r->t[t].variant));
        json_object_set_new(jt, "hash", json_string(r->t[t].hash));
        json_t *models = json_array();
        for (int m = 0; m < r->nm; m++) {
            json_t *jm = json_object();
            json_object_set_new(jm, "model", json_string(r->m[m].name));
            json_object_set_new(jm, "group", json_string(r->m[m].group));
            json_object_set_new(jm, "treewidth", json_integer(r->m[m].tw));
            json_object_set_new(jm, "ops", json_integer(r->m[m].ops));
            json_t *reg = json_object(); /* per table: against every table's and mcts' best */
            for (int tb = 0; tb < (r->has_calib ? RP_NT : 1); tb++)
                json_object_set_new(reg, rp_table[tb], num(rp_regret(r, t, m, tb)));
            json_object_set_new(jm, "exact_regret", reg);
            json_object_set_new(jm, "best_known_cycles", num(rp_best_known(r, t, m)));
            for (int tb = 0; tb < RP_NT; tb++) {
                if (tb == 1 && !r->has_calib)
                    continue;
                json_t *js = json_object();
                for (int s = 0; s < RP_SIM; s++) {
                    json_t *x = json_object();
                    json_object_set_new(x, "sim_cycles", num(rp_sim(r, t, m, s, tb)));
                    json_object_set_new(x, "predicted", num(rp_pred(r, t, m, s, tb)));
                    json_object_set_new(x, "relative_performance", num(rp_relperf(r, t, m, s, tb)));
                    json_object_set_new(x, "optimality_gap_pct", num(rp_gap(r, t, m, s, tb)));
                    const struct study_cell *c = rp_cell(r, t, m, s, tb);
                    json_object_set_new(x, "transposes", c ? json_integer(c->conversions) : json_null());
                    if (t != r->base)
                        json_object_set_new(x, "decisions_changed_vs_base",
                                            json_integer(rp_changed(r, t, r->base, m, s, tb)));
                    json_object_set_new(js, rp_strategy[s], x);
                }
                json_object_set_new(js, "roofline", roofline_json(r, t, m, tb));
                const struct study_cell *mc = rp_cell(r, t, m, RP_MCTS, tb);
                if (mc) {
                    /* the autotuner: not part of relative performance, gaps or fidelity */
                    const struct study_cell *ec = rp_cell(r, t, m, 3, tb);
                    json_t *x = json_object();
                    json_object_set_new(x, "sim_cycles", num(rp_sim(r, t, m, RP_MCTS, tb)));
                    json_object_set_new(x, "predicted", num(rp_pred(r, t, m, RP_MCTS, tb)));
                    json_object_set_new(x, "improvement_over_exact_pct",
                                        num(rp_mcts_gain(r, t, m, tb)));
                    json_object_set_new(x, "transposes", json_integer(mc->conversions));
                    json_object_set_new(x, "budget", json_integer(mc->tune_budget));
                    json_object_set_new(x, "evaluations", json_integer(mc->tune_evaluations));
                    json_object_set_new(x, "simulations", json_integer(mc->tune_simulations));
                    json_object_set_new(x, "tune_seconds", json_real(mc->solve_seconds));
                    json_object_set_new(x, "exact_solve_seconds",
                                        ec ? json_real(ec->solve_seconds) : json_null());
                    json_object_set_new(x, "error", mc->rc ? json_string(mc->error) : json_null());
                    json_object_set_new(js, rp_strategy[RP_MCTS], x);
                }
                json_object_set_new(jm, rp_table[tb], js);
            }
            json_array_append_new(models, jm);
        }
        json_object_set_new(jt, "models", models);
        json_t *fid = json_object();
        for (int tb = 0; tb < (r->has_calib ? 2 : 1); tb++) {
            struct rp_fid f;
            rp_fidelity(r, t, tb, &f);
            json_t *x = json_object();
            json_object_set_new(x, "pairs", json_integer(f.pw.pairs));
            json_object_set_new(x, "correct", json_integer(f.pw.correct));
            json_object_set_new(x, "pairwise_accuracy", num(study_pairwise_accuracy(&f.pw)));
            json_object_set_new(x, "kendall_tau_b_mean", num(f.tau_mean));
            json_object_set_new(x, "rel_error_median", num(f.err_median));
            json_object_set_new(x, "rel_error_max", num(f.err_max));
            json_t *h = json_array();
            for (int a = 0; a < 5; a++) {
                json_t *row = json_array();
                for (int b = 0; b < 5; b++)
                    json_array_append_new(row, json_integer(f.heat[a][b]));
                json_array_append_new(h, row);
            }
            json_object_set_new(x, "heatmap_predicted_x_simulated", h);
            json_object_set_new(fid, rp_table[tb], x);
        }
        json_object_set_new(jt, "fidelity", fid);
        if (r->has_mcts) {
            json_t *au = json_object();
            for (int tb = 0; tb < (r->has_calib ? 2 : 1); tb++) {
                struct rp_tune_sum ts;
                rp_tune_summary(r, t, tb, &ts);
                json_t *x = json_object();
                json_object_set_new(x, "models", json_integer(ts.models));
                json_object_set_new(x, "failed", json_integer(ts.failed));
                json_object_set_new(x, "beat_exact_by_0_5pct", json_integer(ts.beat));
                json_object_set_new(x, "mean_improvement_pct", num(ts.gain_mean));
                json_object_set_new(x, "max_improvement_pct", num(ts.gain_max));
                json_object_set_new(x, "budget_min", json_integer(ts.budget_min));
                json_object_set_new(x, "budget_max", json_integer(ts.budget_max));
                json_object_set_new(x, "tune_seconds", json_real(ts.tune_seconds));
                json_object_set_new(x, "exact_solve_seconds", json_real(ts.exact_seconds));
                json_object_set_new(au, rp_table[tb], x);
            }
            json_object_set_new(jt, "autotuner", au);
        }
        json_array_append_new(targets, jt);
    }
    json_object_set_new(root, "targets", targets);
    json_t *cells = json_array();
    for (size_t i = 0; i < r->cs->len; i++) {
        const struct study_cell *c = &r->cs->data[i];
        json_t *x = json_object();
        json_object_set_new(x, "model", json_string(c->model));
        json_object_set_new(x, "target", json_string(c->target));
        json_object_set_new(x, "strategy", json_string(c->strategy));
        json_object_set_new(x, "table", json_string(c->table));
        json_object_set_new(x, "rc", json_integer(c->rc));
        json_object_set_new(x, "error", json_string(c->error));
        json_object_set_new(x, "status", json_string(c->status));
        json_object_set_new(x, "predicted", c->predicted >= 0 ? json_integer(c->predicted) : json_null());
        json_object_set_new(x, "bound", c->bound >= 0 ? json_integer(c->bound) : json_null());
        json_object_set_new(x, "sim_cycles", c->sim_cycles >= 0 ? json_integer(c->sim_cycles) : json_null());
        json_object_set_new(x, "transposes", json_integer(c->conversions));
        json_object_set_new(x, "instructions", json_integer(c->instructions));
        json_object_set_new(x, "ops", json_integer(c->ops));
        json_object_set_new(x, "treewidth", json_integer(c->treewidth));
        if (c->roofline_by[0]) {
            json_object_set_new(x, "roofline_cycles", json_real(c->roofline_cycles));
            json_object_set_new(x, "roofline_by", json_string(c->roofline_by));
            json_object_set_new(x, "busy", busy_json(c));
        }
        json_object_set_new(x, "solve_seconds", json_real(c->solve_seconds));
        json_object_set_new(x, "wall_seconds", json_real(c->wall_seconds));
        if (!strcmp(c->strategy, rp_strategy[RP_MCTS])) {
            json_object_set_new(x, "budget", json_integer(c->tune_budget));
            json_object_set_new(x, "evaluations", json_integer(c->tune_evaluations));
            json_object_set_new(x, "simulations", json_integer(c->tune_simulations));
        }
        json_array_append_new(cells, x);
    }
    json_object_set_new(root, "cells", cells);
    char *s = json_dumps(root, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(root);
    if (!s)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    /* the text and its final newline */
    size_t n = strlen(s);
    char *t = malloc(n + 2);
    if (!t) {
        free(s);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    memcpy(t, s, n);
    free(s);
    t[n] = '\n';
    t[n + 1] = 0;
    int rc = ls_write_file_atomic(path, t, n + 1, err);
    free(t);
    return rc;
}

/* ---- CSV ------------------------------------------------------------------------------- */

static void csv_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static int csv_file(const char *dir, const char *name, const struct rp *r,
                    void (*body)(const struct rp *, FILE *), struct ls_error *err)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    body(r, af.fp);
    return ls_atomic_commit(&af, err);
}

static void cells_csv(const struct rp *r, FILE *f)
{
    fputs("model,target,strategy,table,family,group,scale,variant,target_hash,table_hash,ops,"
          "treewidth,rc,error,status,predicted,bound,sim_cycles,transposes,instructions,"
          "dma_efficiency,rb_exhaustive,rb_split,rb_greedy,mem_mib,tune_budget,tune_evaluations,"
          "tune_simulations,roofline_cycles,roofline_by,busy_pe,busy_act,busy_dve,busy_pool,"
          "busy_dma,solve_seconds,wall_seconds\n",
          f);
    for (size_t i = 0; i < r->cs->len; i++) {
        const struct study_cell *c = &r->cs->data[i];
        const char *strs[] = {c->model, c->target, c->strategy, c->table, c->family, c->group,
                              c->scale, c->variant, c->target_hash, c->table_hash};
        for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
            csv_str(f, strs[k]);
            fputc(',', f);
        }
        fprintf(f, "%lld,%d,%d,", (long long)c->ops, c->treewidth, c->rc);
        csv_str(f, c->error);
        fputc(',', f);
        csv_str(f, c->status);
        fprintf(f, ",%lld,%lld,%lld,%lld,%lld,%.4f,%d,%d,%d,%.2f,%lld,%lld,%lld,%.0f,%s",
                (long long)c->predicted, (long long)c->bound, (long long)c->sim_cycles,
                (long long)c->conversions, (long long)c->instructions, c->dma_eff,
                c->rb_exhaustive, c->rb_split, c->rb_greedy, c->mem_mib,
                (long long)c->tune_budget, (long long)c->tune_evaluations,
                (long long)c->tune_simulations, c->roofline_cycles, c->roofline_by);
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            fprintf(f, ",%.4f", c->busy[e]);
        fprintf(f, ",%.6f,%.6f\n", c->solve_seconds, c->wall_seconds);
    }
}

/* Table 1's roofline columns: Exact's bound, the fraction reached and the engine shares
 * (empty when the store has none). */
#define ROOF_CSV                                                                           \
    "roofline_cycles,roofline_by,exact_roofline_fraction,exact_busy_pe,exact_busy_act,"    \
    "exact_busy_dve,exact_busy_pool,exact_busy_dma,exact_conversion_share,strategy_spread\n"

static void roofline_csv(const struct rp *r, int t, int m, int tb, FILE *f)
{
    double bound = rp_roofline(r, t, m, tb);
    if (isnan(bound)) {
        fputs(",,,,,,,,,", f);
        return;
    }
    const struct study_cell *ex = rp_cell(r, t, m, 3, tb);
    fprintf(f, ",%.0f,%s,%.4f", bound, ex->roofline_by, rp_roofline_reached(r, t, m, tb));
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        fprintf(f, ",%.4f", ex->busy[e]);
    fprintf(f, ",%.4f,%.4f", rp_conv_share(r, t, m, tb), rp_spread(r, t, m, tb));
}

static void table1_csv(const struct rp *r, FILE *f)
{
    fputs(r->has_mcts ? "target,model,group,table,local,greedy,rulebased,exact,mcts," ROOF_CSV
                      : "target,model,group,table,local,greedy,rulebased,exact," ROOF_CSV,
          f);
    for (int t = 0; t < r->nt; t++)
        for (int tb = 0; tb < (r->has_calib ? 2 : 1); tb++)
            for (int m = 0; m < r->nm; m++) {
                csv_str(f, r->t[t].label);
                fprintf(f, ",%s,%s,%s", r->m[m].name, r->m[m].group, rp_table[tb]);
                for (int k = 0; k < RP_SIM + (r->has_mcts ? 1 : 0); k++) {
                    double v = rp_sim(r, t, m, k < RP_SIM ? k : RP_MCTS, tb);
                    if (isnan(v))
                        fputs(",", f);
                    else
                        fprintf(f, ",%.0f", v);
                }
                roofline_csv(r, t, m, tb, f);
                fputc('\n', f);
            }
}

static void whatif_csv(const struct rp *r, FILE *f)
{
    int tb = r->has_calib ? 1 : 0;
    fputs("model,target,variant,table,exact_sim_cycles,vs_base,best_sim_cycles,transposes,"
          "decisions_changed,ops\n",
          f);
    for (int m = 0; m < r->nm; m++)
        for (int t = 0; t < r->nt; t++) {
            const struct study_cell *x = rp_cell(r, t, m, 3, tb);
            double v = rp_sim(r, t, m, 3, tb), b = rp_sim(r, r->base, m, 3, tb);
            fprintf(f, "%s,", r->m[m].name);
            csv_str(f, r->t[t].label);
            fputc(',', f);
            csv_str(f, r->t[t].variant);
            fprintf(f, ",%s,%.0f,%.4f,%.0f,%lld,%d,%lld\n", rp_table[tb], v, v / b,
                    rp_best(r, t, m, tb), x ? (long long)x->conversions : -1LL,
                    rp_changed(r, t, r->base, m, 3, tb), r->m[m].ops);
        }
}

int rp_write_csv(const struct rp *r, const char *dir, struct ls_error *err)
{
    int rc = csv_file(dir, "cells.csv", r, cells_csv, err);
    if (!rc)
        rc = csv_file(dir, "table1.csv", r, table1_csv, err);
    if (!rc && r->nt > 1)
        rc = csv_file(dir, "whatif.csv", r, whatif_csv, err);
    return rc;
}

/* ---- terminal -------------------------------------------------------------------------- */

void rp_terminal(const struct rp *r, FILE *out)
{
    char b[RP_SIM + 1][CELL];
    for (int t = 0; t < r->nt; t++) {
        int tb = 0;
        fprintf(out, "\nTarget %s: simulated time, millions of cycles (datasheet table; "
                     "* = best or within 1%%; roofline = the bound no program beats, reached = "
                     "its fraction Exact reaches; spread = worst strategy / best - 1; conv = "
                     "conversions' share of Exact's instruction time)\n",
                r->t[t].label);
        fprintf(out, "  %-14s %-8s %10s %10s %11s %10s", "model", "group", "local", "greedy",
                "rulebased", "exact");
        if (r->has_mcts)
            fprintf(out, " %10s", "mcts");
        fprintf(out, " %6s %9s %8s %7s %6s\n", "tw", "roofline", "reached", "spread", "conv");
        for (int m = 0; m < r->nm; m++) {
            double best = rp_best(r, t, m, tb), vm = rp_sim(r, t, m, RP_MCTS, tb);
            if (r->has_mcts && !isnan(vm) && (isnan(best) || vm < best))
                best = vm;
            fprintf(out, "  %-14s %-8s", r->m[m].name, r->m[m].group);
            for (int k = 0; k < RP_SIM + (r->has_mcts ? 1 : 0); k++) {
                double v = rp_sim(r, t, m, k < RP_SIM ? k : RP_MCTS, tb);
                rp_fmt_mcycles(v, b[k], CELL);
                fprintf(out, " %*s%s", k == 2 ? 10 : 9, b[k],
                        !isnan(v) && v <= best * 1.01 ? "*" : " ");
            }
            double reached = rp_roofline_reached(r, t, m, tb);
            fprintf(out, " %6d %9s", r->m[m].tw, rp_fmt_mcycles(rp_roofline(r, t, m, tb), b[0], CELL));
            double spread = rp_spread(r, t, m, tb), conv = rp_conv_share(r, t, m, tb);
            fprintf(out, " %8s %7s %6s\n", rp_fmt_pct(100 * reached, b[1], CELL),
                    rp_fmt_pct(100 * spread, b[2], CELL), rp_fmt_pct(100 * conv, b[3], CELL));
        }
        for (int s = 0; s < RP_SIM; s++) {
            double *y = RP_ROW(r, 0);
            int n = 0;
            for (int m = 0; m < r->nm; m++)
                y[n++] = rp_relperf(r, t, m, s, 0);
            n = rp_sorted(y, n, 0);
            double mean = 0, gm = 0;
            int ng = 0;
            for (int i = 0; i < n; i++)
                mean += y[i];
            for (int m = 0; m < r->nm; m++) {
                double g = rp_gap(r, t, m, s, 0);
                if (!isnan(g)) {
                    gm += g;
                    ng++;
                }
            }
            fprintf(out, "  %-10s relative performance mean %5.1f%%, worst %5.1f%%; "
                         "optimality gap mean %.2f%%\n",
                    rp_strategy[s], n ? mean / n : NAN, n ? y[0] : NAN, ng ? gm / ng : NAN);
        }
        for (int k = 0; k < (r->has_calib ? 2 : 1); k++) {
            struct rp_fid f;
            rp_fidelity(r, t, k, &f);
            double *y = RP_ROW(r, 0);
            for (int m = 0; m < r->nm; m++)
                y[m] = rp_regret(r, t, m, k);
            struct study_regret rg;
            study_regret_summary(y, r->nm, &rg);
            fprintf(out, "  %s table%s: exact's regret <= 1%% on %d of %d models (max %.2f%%; "
                         "best known: every strategy, table and mcts of the run); pairwise "
                         "ranking accuracy %.1f%% of %d pairs, median relative error %.1f%%\n",
                    rp_table[k], k ? " (in-sample)" : "", rg.within, rg.models, 100 * rg.max,
                    100 * study_pairwise_accuracy(&f.pw), f.pw.pairs, 100 * f.err_median);
        }
        int dpok = 0, n = 0;
        for (int m = 0; m < r->nm; m++) {
            const struct study_cell *c = rp_cell(r, t, m, RP_DP, 0);
            if (c) {
                n++;
                dpok += !c->rc;
            }
        }
        fprintf(out, "  treewidth DP solved %d of %d models within its limits\n", dpok, n);
        for (int k = 0; r->has_mcts && k < (r->has_calib ? 2 : 1); k++) {
            struct rp_tune_sum ts;
            rp_tune_summary(r, t, k, &ts);
            fprintf(out, "  mcts vs exact (%s table%s, %lld evaluations): faster by > 0.5%% on "
                         "%d of %d models, mean improvement %.2f%% (max %.2f%%); %.1f s tuning\n",
                    rp_table[k], k ? ", in-sample" : "", ts.budget_max, ts.beat, ts.models,
                    isnan(ts.gain_mean) ? 0.0 : ts.gain_mean,
                    isnan(ts.gain_max) ? 0.0 : ts.gain_max, ts.tune_seconds);
        }
    }
    if (r->nt > 1) {
        int tb = r->has_calib ? 1 : 0;
        fprintf(out, "\nWhat-if (Exact, %s table) vs base %s:\n", rp_table_label[tb],
                r->t[r->base].label);
        fprintf(out, "  %-14s %-28s %10s %8s %10s %9s\n", "model", "variant", "Mcycles",
                "vs base", "transposes", "changed");
        for (int m = 0; m < r->nm; m++)
            for (int t = 0; t < r->nt; t++) {
                const struct study_cell *x = rp_cell(r, t, m, 3, tb);
                double v = rp_sim(r, t, m, 3, tb), base = rp_sim(r, r->base, m, 3, tb);
                rp_fmt_mcycles(v, b[0], CELL);
                fprintf(out, "  %-14s %-28s %10s %7.3fx %10lld %9d\n", r->m[m].name,
                        r->t[t].variant[0] ? r->t[t].variant : "(base)", b[0], v / base,
                        x ? (long long)x->conversions : -1LL, rp_changed(r, t, r->base, m, 3, tb));
            }
    }
}
