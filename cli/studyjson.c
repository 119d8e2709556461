/* The --json run summary of study, whatif and merge: what ran, what failed and why, where
 * the outputs are, and the headline figures (taken from DIR/results.json, which the report
 * has just written, so the summary and the report cannot disagree). */
#include <glob.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "study/db.h"

int cli_cell_skipped(const struct study_cell *c)
{
    return c->rc == LS_ERR_LIMIT && !strcmp(c->strategy, "dp") && strstr(c->error, "dp.mem_limit");
}

/* The failed cells (skipped = 0) or the skipped ones (1), with their reasons. */
static json_t *failed_cells(const struct study_cells *cells, int skipped)
{
    json_t *a = json_array();
    for (size_t i = 0; i < cells->len; i++) {
        const struct study_cell *c = &cells->data[i];
        if (c->rc && cli_cell_skipped(c) == skipped)
            json_array_append_new(
                a, json_pack("{s:s, s:s, s:s, s:s, s:s}", "model", c->model, "strategy",
                             c->strategy, "table", c->table, "variant", c->variant, "error",
                             c->error));
    }
    return a;
}

/* The files of the report in dir that exist (names depend on study / whatif). */
static json_t *output_paths(const char *dir)
{
    static const char *const pats[] = {"report.html", "report.md", "results.json",
                                       "results.sqlite", "*.csv", "calibrated-table*.json"};
    json_t *a = json_array();
    for (size_t i = 0; i < sizeof pats / sizeof pats[0]; i++) {
        char pat[1300];
        glob_t g;
        snprintf(pat, sizeof pat, "%s/%s", dir, pats[i]);
        if (glob(pat, 0, NULL, &g) == 0)
            for (size_t k = 0; k < g.gl_pathc; k++)
                if (!strstr(g.gl_pathv[k], ".tmp."))   /* a half-written file of a killed run */
                    json_array_append_new(a, json_string(g.gl_pathv[k]));
        globfree(&g);
    }
    return a;
}

/* Mean and worst relative performance and mean optimality gap of one strategy over the
 * models of one target and table: the lines of the terminal summary. */
static json_t *strategy_figures(json_t *models, const char *table, const char *strategy)
{
    double rp_sum = 0, rp_min = 0, gap_sum = 0;
    int n_rp = 0, n_gap = 0;
    size_t i;
    json_t *m;
    json_array_foreach(models, i, m) {
        json_t *x = json_object_get(json_object_get(m, table), strategy);
        json_t *rp = json_object_get(x, "relative_performance");
        json_t *gap = json_object_get(x, "optimality_gap_pct");
        if (json_is_number(rp)) {
            double v = json_number_value(rp);
            rp_min = n_rp++ ? (v < rp_min ? v : rp_min) : v;
            rp_sum += v;
        }
        if (json_is_number(gap)) {
            gap_sum += json_number_value(gap);
            n_gap++;
        }
    }
    if (!n_rp && !n_gap)
        return NULL;
    return json_pack("{s:o, s:o, s:o}", "relative_performance_mean",
                     n_rp ? json_real(rp_sum / n_rp) : json_null(),
                     "relative_performance_worst", n_rp ? json_real(rp_min) : json_null(),
                     "optimality_gap_pct_mean", n_gap ? json_real(gap_sum / n_gap) : json_null());
}

static json_t *target_headline(json_t *t)
{
    static const char *const tables[] = {"datasheet", "calibrated"};
    static const char *const strategies[] = {"local", "greedy", "rulebased", "exact", "mcts"};
    json_t *h = json_pack("{s:O, s:O, s:O}", "label", json_object_get(t, "label"), "variant",
                          json_object_get(t, "variant"), "hash", json_object_get(t, "hash"));
    json_t *models = json_object_get(t, "models"), *st = json_object();
    for (size_t k = 0; k < 2; k++) {
        json_t *per = json_object();
        for (size_t s = 0; s < sizeof strategies / sizeof strategies[0]; s++) {
            json_t *f = strategy_figures(models, tables[k], strategies[s]);
            if (f)
                json_object_set_new(per, strategies[s], f);
        }
        if (json_object_size(per))
            json_object_set_new(st, tables[k], per);
        else
            json_decref(per);
    }
    json_object_set_new(h, "strategies", st);
    json_object_set(h, "fidelity", json_object_get(t, "fidelity"));
    if (json_object_get(t, "autotuner"))
        json_object_set(h, "autotuner", json_object_get(t, "autotuner"));
    return h;
}

static json_t *headline(const char *dir)
{
    char path[1300];
    snprintf(path, sizeof path, "%s/results.json", dir);
    json_t *r = json_load_file(path, 0, NULL), *a = json_array(), *t;
    size_t i;
    json_array_foreach(json_object_get(r, "targets"), i, t)
        json_array_append_new(a, target_headline(t));
    json_decref(r);
    return a;
}

json_t *cli_study_json(const char *kind, const char *dir, const struct study_cells *cells,
                       json_t *counts)
{
    json_t *o = json_pack("{s:s, s:s}", "kind", kind, "out", dir);
    if (!o) {
        json_decref(counts);
        return NULL;
    }
    json_object_update(o, counts);
    json_decref(counts);
    size_t nfailed = 0, nskipped = 0;
    for (size_t i = 0; i < cells->len; i++) {
        nskipped += cli_cell_skipped(&cells->data[i]);
        nfailed += cells->data[i].rc != 0 && !cli_cell_skipped(&cells->data[i]);
    }
    json_object_set_new(o, "cells", json_integer((json_int_t)cells->len));
    json_object_set_new(o, "cells_failed", json_integer((json_int_t)nfailed));
    json_object_set_new(o, "cells_skipped", json_integer((json_int_t)nskipped));
    json_object_set_new(o, "failed", failed_cells(cells, 0));
    json_object_set_new(o, "skipped", failed_cells(cells, 1));
    json_object_set_new(o, "outputs", output_paths(dir));
    json_object_set_new(o, "headline", headline(dir));
    return o;
}
