/* cli/fidelity: the JSON of validate and loop (cli/fidelity.h). */
#include <math.h>
#include <stdio.h>

#include "cli/cli.h"
#include "cli/fidelity.h"
#include "solver/problem.h"
#include "study/measured.h"

static json_t *metrics_json(const struct study_metrics *m)
{
    json_t *o = json_object();
    json_object_set_new(o, "pairs", json_integer(m->pw.pairs));
    json_object_set_new(o, "pairs_correct", json_integer(m->pw.correct));
    json_object_set_new(o, "pairs_identical", json_integer(m->pw.identical));
    json_object_set_new(o, "pairwise_accuracy", cli_json_num(m->pairwise_accuracy));
    json_object_set_new(o, "kendall_tau", cli_json_num(m->kendall_tau));
    json_object_set_new(o, "median_rel_error", cli_json_num(m->median_rel_error));
    json_object_set_new(o, "max_rel_error", cli_json_num(m->max_rel_error));
    return o;
}

/* The figures over every model, keys prefixed. */
static void agg_json(json_t *o, const char *prefix, const struct study_metrics *m)
{
    char k[96];
    snprintf(k, sizeof k, "%spairwise_accuracy", prefix);
    json_object_set_new(o, k, cli_json_num(m->pairwise_accuracy));
    snprintf(k, sizeof k, "%spairs", prefix);
    json_object_set_new(o, k, json_integer(m->pw.pairs));
    snprintf(k, sizeof k, "%spairs_identical", prefix);
    json_object_set_new(o, k, json_integer(m->pw.identical));
    snprintf(k, sizeof k, "%skendall_tau", prefix);
    json_object_set_new(o, k, cli_json_num(m->kendall_tau));
    snprintf(k, sizeof k, "%smedian_rel_error", prefix);
    json_object_set_new(o, k, cli_json_num(m->median_rel_error));
    snprintf(k, sizeof k, "%smax_rel_error", prefix);
    json_object_set_new(o, k, cli_json_num(m->max_rel_error));
}

static json_t *runs_json(const struct study_model_eval *e)
{
    json_t *arr = json_array();
    for (int s = 0; s < STUDY_NSTRATEGIES; s++) {
        const struct study_strategy_result *r = &e->runs[s];
        json_t *o = json_object();
        json_object_set_new(o, "strategy", json_string(r->strategy));
        json_object_set_new(o, "predicted", json_integer(r->predicted));
        json_object_set_new(o, "simulated", json_integer(r->simulated));
        json_object_set_new(o, "rel_error", cli_json_num(r->rel_error));
        json_object_set_new(o, "status", json_string(lsp_status_name(r->status)));
        json_object_set_new(o, "solve_seconds", json_real(r->solve_seconds));
        json_object_set_new(o, "conversions", json_integer(r->conversions));
        json_object_set_new(o, "instructions", json_integer(r->instructions));
        char hex[17];
        snprintf(hex, sizeof hex, "%016llx", (unsigned long long)r->assignment);
        json_object_set_new(o, "assignment", json_string(hex));
        if (r->program[0])
            json_object_set_new(o, "program", json_string(r->program));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* The criterion for exact solving; exact is the last strategy. */
static json_t *criterion_json(const struct study_model_eval *e)
{
    const struct study_criterion *c = &e->criterion;
    json_t *o = json_object(), *gap = json_object();
    for (int i = 0; i < STUDY_NSTRATEGIES - 1; i++)
        json_object_set_new(gap, e->runs[i].strategy, json_real(c->gap[i]));
    json_object_set_new(o, "optimality_gap", gap);
    json_object_set_new(o, "model_error", cli_json_num(c->model_error));
    json_object_set_new(o, "exact_error", cli_json_num(c->exact_error));
    json_object_set_new(o, "exact_vs_best_simulated", cli_json_num(c->exact_vs_best));
    json_object_set_new(o, "exact_within_1pct", json_boolean(c->exact_within_1pct));
    json_object_set_new(o, "exact_pays", json_boolean(c->exact_pays));
    return o;
}

static json_t *attrs_json(const struct study_attr *a, size_t n)
{
    json_t *arr = json_array();
    for (size_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(a[i].name));
        json_object_set_new(o, "predicted", json_real(a[i].predicted));
        json_object_set_new(o, "simulated", json_real(a[i].simulated));
        json_object_set_new(o, "error", json_real(a[i].predicted - a[i].simulated));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *attribution_json(const struct study_attribution *a)
{
    if (!a->present)
        return json_null();
    json_t *o = json_object();
    json_object_set_new(o, "instruction_classes", attrs_json(a->classes.data, a->classes.len));
    json_object_set_new(o, "operators", attrs_json(a->operators.data, a->operators.len));
    json_object_set_new(o, "conversions", attrs_json(a->conversions.data, a->conversions.len));
    json_object_set_new(o, "conversions_total_predicted", json_real(a->conversions_predicted));
    json_object_set_new(o, "conversions_total_simulated", json_real(a->conversions_simulated));
    return o;
}

/* The figures over every model, after the models (metrics_json's keys, then whether exact
 * was within 1% of the best on every model). */
static void totals_json(json_t *root, const struct study_metrics *all, int exact_all)
{
    json_t *m = metrics_json(all);
    json_object_update(root, m);
    json_decref(m);
    json_object_set_new(root, "exact_within_1pct_all", json_boolean(exact_all));
}

json_t *cli_regret_json(const struct study_regret *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "models", json_integer(r->models));
    json_object_set_new(o, "within_1pct", json_integer(r->within));
    json_object_set_new(o, "max", cli_json_num(r->max));
    json_object_set_new(o, "median", cli_json_num(r->median));
    return o;
}

json_t *cli_validation_json(const struct study_validation *v)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "table_aggregate", json_string(v->table_aggregate));
    json_object_set_new(root, "models", arr);
    for (size_t i = 0; i < v->models.len; i++) {
        const struct study_validate_model *m = &v->models.data[i];
        json_t *mo = metrics_json(&m->eval.metrics);
        json_object_set_new(mo, "model", json_string(m->eval.model));
        json_object_set_new(mo, "family", json_string(m->eval.family));
        json_object_set_new(mo, "strategies", runs_json(&m->eval));
        json_object_set_new(mo, "criterion", criterion_json(&m->eval));
        json_object_set_new(mo, "attribution_exact", attribution_json(&m->attribution_exact));
        json_object_set_new(mo, "best_known_cycles", cli_json_num(m->best_known));
        json_object_set_new(mo, "best_known_source", json_string(m->best_source));
        json_object_set_new(mo, "regret", cli_json_num(m->regret));
        json_array_append_new(arr, mo);
    }
    totals_json(root, &v->all, v->exact_within_1pct_all);
    json_object_set_new(root, "regret", cli_regret_json(&v->regret));
    json_object_set_new(root, "reference_used", json_integer(v->reference_used));
    return root;
}

static json_t *loop_model_json(const struct study_loop_model *m)
{
    json_t *mo = json_object();
    json_object_set_new(mo, "model", json_string(m->model));
    json_object_set_new(mo, "family", json_string(m->family));
    json_object_set_new(mo, "held_out", json_boolean(m->held_out));
    json_object_set_new(mo, "best_known_cycles", cli_json_num(m->best_known));
    json_object_set_new(mo, "regret", cli_json_num(m->regret));
    json_object_set_new(mo, "frozen", metrics_json(&m->frozen));
    if (m->has_lofo)
        json_object_set_new(mo, "lofo", metrics_json(&m->lofo));
    json_t *so = metrics_json(&m->strategies.metrics);
    json_object_set_new(so, "runs", runs_json(&m->strategies));
    json_object_set_new(so, "criterion", criterion_json(&m->strategies));
    json_object_set_new(mo, "strategies", so);
    return mo;
}

/* The refit's candidates judged on the families their tables left out, and the one kept. */
static json_t *loop_verdict_json(const struct study_loop_iter *it)
{
    json_t *v = json_object(), *c = json_object();
    json_object_set_new(v, "form", json_string(study_loop_form_name(it->form)));
    json_object_set_new(v, "keep_iteration", json_integer(it->kept_from));
    json_object_set_new(v, "share_only_exposed_share", cli_json_num(it->share));
    for (int f = 0; f < STUDY_LOOP_NFORMS; f++) {
        const struct study_loop_judged *j = &it->judged[f];
        json_t *o = json_object();
        json_object_set_new(o, "pairs", json_integer(j->pairs));
        json_object_set_new(o, "pairs_correct", json_integer(j->correct));
        json_object_set_new(o, "mean_median_rel_error", cli_json_num(j->mean_median));
        json_object_set_new(c, study_loop_form_name((enum study_loop_form)f), o);
    }
    json_object_set_new(v, "candidates", c);
    return v;
}

json_t *cli_loop_json(const struct study_loop_result *r)
{
    json_t *root = json_object(), *iters = json_array();
    json_object_set_new(root, "iterations", iters);
    json_object_set_new(root, "microbenchmarks", json_integer((json_int_t)r->microbenchmarks));
    json_object_set_new(root, "microbench_samples",
                        json_integer((json_int_t)r->microbench_samples));
    json_object_set_new(root, "final_iteration", json_integer(r->final_iteration));
    for (size_t i = 0; i < r->iterations.len; i++) {
        const struct study_loop_iter *it = &r->iterations.data[i];
        json_t *ij = json_object(), *mj = json_array();
        json_object_set_new(ij, "iteration", json_integer(it->iteration));
        json_object_set_new(ij, "aggregate", json_string(it->aggregate));
        char hb[32];
        snprintf(hb, sizeof hb, "%016llx", (unsigned long long)it->table_hash);
        json_object_set_new(ij, "table_hash", json_string(hb));
        agg_json(ij, "", &it->frozen);
        agg_json(ij, "frozen_strategies_", &it->frozen_strategies);
        if (it->has_lofo) {
            agg_json(ij, "lofo_", &it->lofo);
            agg_json(ij, "lofo_strategies_", &it->lofo_strategies);
        }
        agg_json(ij, "strategy_", &it->strategy);
        if (it->has_held) {
            agg_json(ij, "held_strategy_", &it->held_strategy);
            agg_json(ij, "held_frozen_strategies_", &it->held_frozen_strategies);
        }
        agg_json(ij, "in_sample_", &it->in_sample);
        json_object_set_new(ij, "exact_within_1pct_all", json_boolean(it->exact_within_1pct_all));
        json_object_set_new(ij, "regret", cli_regret_json(&it->regret));
        if (it->has_held)
            json_object_set_new(ij, "held_regret", cli_regret_json(&it->held_regret));
        for (size_t k = 0; k < it->models.len; k++)
            json_array_append_new(mj, loop_model_json(&it->models.data[k]));
        json_object_set_new(ij, "models", mj);
        if (it->has_fit)
            json_object_set_new(ij, "fit_in_sample_rel_error", cli_json_num(it->fit_rel_error));
        if (it->has_verdict)
            json_object_set_new(ij, "verdict", loop_verdict_json(it));
        json_array_append_new(iters, ij);
    }
    return root;
}

json_t *cli_measured_json(const struct study_measured *m, const char *path)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "reference", json_string("measured"));
    json_object_set_new(root, "manifest", json_string(path));
    json_object_set_new(root, "rows", json_integer(m->rows));
    json_object_set_new(root, "models", arr);
    for (size_t i = 0; i < m->models.len; i++) {
        const struct study_measured_model *x = &m->models.data[i];
        json_t *mo = metrics_json(&x->metrics), *pts = json_array();
        json_object_set_new(mo, "model", json_string(x->model));
        for (int k = 0; k < x->n; k++) {
            const struct study_measured_point *p = &x->pt[k];
            json_t *o = json_object();
            json_object_set_new(o, "strategy", json_string(p->strategy));
            json_object_set_new(o, "line", json_integer(p->line));
            json_object_set_new(o, "predicted", json_real(p->predicted));
            json_object_set_new(o, "measured", json_real(p->measured));
            json_object_set_new(o, "rel_error", cli_json_num(p->measured > 0
                ? fabs(p->predicted - p->measured) / p->measured : NAN));
            json_array_append_new(pts, o);
        }
        json_object_set_new(mo, "strategies", pts);
        json_object_set_new(mo, "exact_within_1pct",
                            x->exact < 0 ? json_null() : json_boolean(x->criterion.exact_within_1pct));
        json_array_append_new(arr, mo);
    }
    totals_json(root, &m->all, m->exact_within_1pct_all);
    return root;
}
