/* study/loop_eval: per-model evaluation shared by validate and loop: the four strategies
 * under a table, metrics JSON, and error attribution. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph/model.h"
#include "sim/isa.h"
#include "study/loop.h"
#include "study/loop_int.h"
#include "study/validate.h"

void study_loop_opts_init(struct study_loop_opts *o)
{
    memset(o, 0, sizeof *o);
    zoo_opts_init(&o->zo);
    sim_target_builtin(&o->target, "nc-v2");
    lsp_opts_init(&o->solve);
    o->iterations = 3;
    o->agg = CM_AGG_MAX;
    o->nperturb = 8;
    o->perturb_frac = 0.1;
    o->seed = 1;
    o->lofo = 1;
    o->microbench = 1;
    o->explore = 1;
}

const char *study_model_family(const char *spec)
{
    if (strncmp(spec, "zoo:", 4) == 0)
        for (size_t i = 0; i < zoo_count(); i++) {
            const struct zoo_entry *z = zoo_entry(i);
            if (z && strcmp(z->name, spec + 4) == 0)
                return z->family;
        }
    return spec;
}

json_t *lp_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

json_t *lp_metrics_json(const struct study_point *pts, int n)
{
    json_t *o = json_object();
    struct study_pairwise pw = {0, 0, 0};
    study_pairwise_add(pts, n, &pw);
    double *rel = malloc(sizeof *rel * (size_t)(n ? n : 1));
    if (rel)
        study_rel_errors(pts, n, rel);
    json_object_set_new(o, "pairs", json_integer(pw.pairs));
    json_object_set_new(o, "pairs_correct", json_integer(pw.correct));
    json_object_set_new(o, "pairs_identical", json_integer(pw.identical));
    json_object_set_new(o, "pairwise_accuracy", lp_num(study_pairwise_accuracy(&pw)));
    json_object_set_new(o, "kendall_tau", lp_num(study_kendall_tau_b(pts, n)));
    json_object_set_new(o, "median_rel_error", lp_num(rel ? study_median(rel, n) : NAN));
    json_object_set_new(o, "max_rel_error", lp_num(rel ? study_max(rel, n) : NAN));
    free(rel);
    return o;
}

/* ---- attribution ----------------------------------------------------------------------- */

struct attr {
    const char *name;
    double pred, sim;
};

static int by_abs_err(const void *a, const void *b)
{
    const struct attr *x = a, *y = b;
    double ex = fabs(x->pred - x->sim), ey = fabs(y->pred - y->sim);
    return ex < ey ? 1 : ex > ey ? -1 : strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static json_t *attr_json(struct attr *a, size_t n, size_t top)
{
    qsort(a, n, sizeof *a, by_abs_err);
    json_t *arr = json_array();
    for (size_t i = 0; i < n && i < top; i++) {
        if (a[i].pred == 0 && a[i].sim == 0)
            continue;
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(a[i].name ? a[i].name : "?"));
        json_object_set_new(o, "predicted", json_real(a[i].pred));
        json_object_set_new(o, "simulated", json_real(a[i].sim));
        json_object_set_new(o, "error", json_real(a[i].pred - a[i].sim));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* Predicted price vs exposed simulated time (growth of the running max end, in program
 * order), by instruction class, by operator and by conversion, for one run. */
json_t *lp_attribution(const struct study_run *r, const struct sim_target *t,
                       const struct cm_table *tb)
{
    if (!r->recs)
        return json_null();
    double cyc = (double)t->base_mhz / (double)sim_target_tick_mhz(t);
    struct attr cls[SIM_OP_COUNT];
    for (int k = 0; k < SIM_OP_COUNT; k++)
        cls[k] = (struct attr){sim_opcode_name((enum sim_opcode)k), 0, 0};
    struct attr *grp = calloc(r->ntags + 1, sizeof *grp);
    struct cm_agg *agg = calloc(r->ntags + 1, sizeof *agg);
    if (!grp || !agg) {
        free(grp);
        free(agg);
        return json_null();
    }
    uint64_t run = 0;
    for (size_t i = 0; i < r->nrecs; i++) {
        const struct trace_record *rc = &r->recs[i];
        double ex = rc->end > run ? (double)(rc->end - run) * cyc : 0;
        if (rc->end > run)
            run = rc->end;
        if (rc->opcode < SIM_OP_COUNT) {
            cls[rc->opcode].pred += (double)r->price[i];
            cls[rc->opcode].sim += ex;
        }
        int32_t tg = r->tag[i];
        if (tg >= 0 && (size_t)tg < r->ntags) {
            grp[tg].name = r->tags[tg];
            grp[tg].sim += ex;
            cm_agg_add(&agg[tg], rc->engine, r->price[i]);
        }
    }
    size_t nop = 0, nconv = 0;
    struct attr *ops = calloc(r->ntags + 1, sizeof *ops), *cv = calloc(r->ntags + 1, sizeof *cv);
    json_t *o = json_object();
    if (ops && cv) {
        for (size_t k = 0; k < r->ntags; k++) {
            if (!grp[k].name)
                continue;
            grp[k].pred = (double)cm_agg_total(tb, t, &agg[k]);
            if (strstr(grp[k].name, "->"))
                cv[nconv++] = grp[k];
            else
                ops[nop++] = grp[k];
        }
        double cp = 0, cs = 0;
        for (size_t k = 0; k < nconv; k++) {
            cp += cv[k].pred;
            cs += cv[k].sim;
        }
        json_object_set_new(o, "instruction_classes", attr_json(cls, SIM_OP_COUNT, SIM_OP_COUNT));
        json_object_set_new(o, "operators", attr_json(ops, nop, 10));
        json_object_set_new(o, "conversions", attr_json(cv, nconv, 10));
        json_object_set_new(o, "conversions_total_predicted", json_real(cp));
        json_object_set_new(o, "conversions_total_simulated", json_real(cs));
    }
    free(ops);
    free(cv);
    free(grp);
    free(agg);
    return o;
}

/* ---- the four strategies on one model ------------------------------------------------ */

int lp_run_strategies(const struct graph *g, const struct study_loop_opts *o,
                      const struct cm_table *tb, const struct cm_table *parts_tb,
                      const char *trace_prefix, struct study_pipe **pipe,
                      const struct study_run **runs, struct ls_error *err)
{
    struct study_pipe_opts po;
    study_pipe_opts_init(&po);
    po.solve = o->solve;
    po.keep_records = 1;
    po.parts_table = parts_tb;
    po.trace_dir = o->trace_dir;
    po.trace_prefix = trace_prefix;
    int rc = study_pipe_new(g, &o->target, tb, &po, pipe, err);
    if (rc)
        return rc;
    rc = study_pipe_run_all(*pipe, study_strategies, STUDY_NSTRATEGIES, runs, err);
    for (int s = 0; s < STUDY_NSTRATEGIES && !rc; s++)
        if (runs[s]->rc) {
            if (err)
                *err = runs[s]->err;
            rc = runs[s]->rc;
        }
    return rc;
}

void lp_points(const struct study_run *const *runs, int n, struct study_point *pts)
{
    for (int s = 0; s < n; s++) {
        pts[s].label = runs[s]->strategy;
        pts[s].predicted = (double)runs[s]->predicted;
        pts[s].simulated = (double)runs[s]->sim_cycles;
        pts[s].cfg = runs[s]->sol.cfg;
        pts[s].ncfg = runs[s]->sol.nops;
    }
}

json_t *lp_strategies_json(const struct study_run *const *runs, int n)
{
    json_t *arr = json_array();
    for (int s = 0; s < n; s++) {
        const struct study_run *r = runs[s];
        json_t *o = json_object();
        json_object_set_new(o, "strategy", json_string(r->strategy));
        json_object_set_new(o, "predicted", json_integer(r->predicted));
        json_object_set_new(o, "simulated", json_integer((json_int_t)r->sim_cycles));
        json_object_set_new(o, "rel_error",
                            lp_num(r->sim_cycles ? fabs((double)r->predicted - (double)r->sim_cycles) /
                                                       (double)r->sim_cycles
                                                 : NAN));
        json_object_set_new(o, "status", json_string(lsp_status_name(r->status)));
        json_object_set_new(o, "solve_seconds", json_real(r->solve_seconds));
        json_object_set_new(o, "conversions", json_integer(r->conversions));
        json_object_set_new(o, "instructions", json_integer(r->instructions));
        json_array_append_new(arr, o);
    }
    return arr;
}

json_t *lp_criterion_json(const struct study_point *pts, int n, int exact_index)
{
    struct study_criterion c;
    study_criterion(pts, n, exact_index, &c);
    json_t *o = json_object(), *gap = json_object();
    for (int i = 0; i < n && i < 8; i++)
        if (i != exact_index)
            json_object_set_new(gap, pts[i].label, json_real(c.gap[i]));
    json_object_set_new(o, "optimality_gap", gap);
    json_object_set_new(o, "model_error", lp_num(c.model_error));
    json_object_set_new(o, "exact_error", lp_num(c.exact_error));
    json_object_set_new(o, "exact_vs_best_simulated", lp_num(c.exact_vs_best));
    json_object_set_new(o, "exact_within_1pct", json_boolean(c.exact_within_1pct));
    json_object_set_new(o, "exact_pays", json_boolean(c.exact_pays));
    return o;
}

int study_validate(const char *const *models, int n, const struct study_loop_opts *o,
                   const struct cm_table *tb, json_t **out, struct ls_error *err)
{
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "table_aggregate", json_string(tb->aggregate));
    json_object_set_new(root, "models", arr);
    struct study_pairwise all = {0, 0, 0};
    double *taus = malloc(sizeof *taus * (size_t)(n ? n : 1));
    double *rels = malloc(sizeof *rels * (size_t)(n ? n : 1) * STUDY_NSTRATEGIES);
    int nrel = 0, ok_exact = 1, rc = 0;
    if (!taus || !rels) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (int m = 0; m < n && !rc; m++) {
        struct graph *g = NULL;
        if ((rc = model_load(models[m], &o->zo, &g, err)))
            break;
        struct study_pipe *p = NULL;
        const struct study_run *runs[STUDY_NSTRATEGIES];
        rc = lp_run_strategies(g, o, tb, NULL, NULL, &p, runs, err);
        if (!rc) {
            struct study_point pts[STUDY_NSTRATEGIES];
            lp_points(runs, STUDY_NSTRATEGIES, pts);
            study_pairwise_add(pts, STUDY_NSTRATEGIES, &all);
            taus[m] = study_kendall_tau_b(pts, STUDY_NSTRATEGIES);
            nrel += study_rel_errors(pts, STUDY_NSTRATEGIES, rels + nrel);
            json_t *mo = lp_metrics_json(pts, STUDY_NSTRATEGIES);
            json_object_set_new(mo, "model", json_string(models[m]));
            json_object_set_new(mo, "family", json_string(study_model_family(models[m])));
            json_object_set_new(mo, "strategies", lp_strategies_json(runs, STUDY_NSTRATEGIES));
            json_t *cr = lp_criterion_json(pts, STUDY_NSTRATEGIES, STUDY_NSTRATEGIES - 1);
            if (!json_is_true(json_object_get(cr, "exact_within_1pct")))
                ok_exact = 0;
            json_object_set_new(mo, "criterion", cr);
            json_object_set_new(mo, "attribution_exact",
                                lp_attribution(runs[STUDY_NSTRATEGIES - 1], &o->target, tb));
            json_array_append_new(arr, mo);
        }
        study_pipe_free(p);
        graph_free(g);
    }
    if (!rc) {
        json_object_set_new(root, "pairs", json_integer(all.pairs));
        json_object_set_new(root, "pairs_identical", json_integer(all.identical));
        json_object_set_new(root, "pairwise_accuracy", lp_num(study_pairwise_accuracy(&all)));
        json_object_set_new(root, "kendall_tau", lp_num(study_nanmean(taus, n)));
        json_object_set_new(root, "median_rel_error", lp_num(study_median(rels, nrel)));
        json_object_set_new(root, "max_rel_error", lp_num(study_max(rels, nrel)));
        json_object_set_new(root, "exact_within_1pct_all", json_boolean(ok_exact));
    }
done:
    free(taus);
    free(rels);
    if (rc) {
        json_decref(root);
        *out = NULL;
        return rc;
    }
    *out = root;
    return 0;
}
