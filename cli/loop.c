/* laysim loop: the closed calibration loop. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fidelity.h"
#include "cli/status.h"
#include "cli/targetargs.h"
#include "sim/target.h"
#include "study/loop.h"

const char cmd_loop_help[] =
    "usage: laysim loop MODEL... [--iterations N] [--aggregate sum|max|pipe] [--json]\n"
    "                   [-o table.json] [--traces DIR] [--perturb N] [--seed N]\n"
    "                   [--explore N] [--no-lofo] [--no-microbench]\n"
    "                   [--holdout-models M,M..] [--group-scales split|tied|entry]\n"
    "                   [--serial-share] [--no-dependency-fit] [--no-issue-latency]\n"
    "                   [--solver-time-limit S] [--memplan MODE]\n"
    "                   [model scaling] [--target T] [--set K=V]\n"
    "\n"
    "Close the cost-model fidelity loop: start from the datasheet table, fit the\n"
    "per-instruction table from microbenchmarks, then per iteration solve every model with\n"
    "local, greedy, rulebased and exact, compile and simulate the solutions, add their\n"
    "traces to the calibration set and refit (group fit, docs/calibration.md), until the\n"
    "strategies' figures of those models (before their traces join the fit) stop\n"
    "improving or N refits were made; the out-of-sample figures only report.\n"
    "Out of sample = a frozen set per model (the four datasheet solutions + seeded\n"
    "perturbations, never fitted on) and leave-one-family-out fits.\n"
    "\n"
    "options:\n"
    "  --iterations N      refits (default " LS_STRINGIFY(STUDY_LOOP_ITERATIONS_DEFAULT) ")\n"
    "  --aggregate MODE    aggregation of the fitted tables: max (overlap-aware, default),\n"
    "                      sum, or pipe (the datasheet table's software pipeline)\n"
    "  --perturb N         perturbations per model in the frozen set (default "
    LS_STRINGIFY(STUDY_LOOP_PERTURB_DEFAULT) ")\n"
    CLI_HELP(SEED)
    "                      (of the perturbations)\n"
    "  --explore N         per model and iteration, N seeded perturbations of the exact\n"
    "                      solution join the calibration set (default "
    LS_STRINGIFY(STUDY_LOOP_EXPLORE_DEFAULT) "; 0 = only the\n"
    "                      chosen programs); iteration 0: at least one of each\n"
    "                      strategy's solution\n"
    "  --no-lofo           skip the leave-one-family-out fits and the verdict (a refit\n"
    "                      is kept only when, fitted without a family, it predicts that\n"
    "                      family's calibration programs better than every table so far)\n"
    "  --no-microbench     skip the microbenchmark fit\n"
    "  --holdout-models M,M..  models (as spelled among MODEL...) whose programs never\n"
    "                      enter any fit: their strategies are solved under each\n"
    "                      iteration's table and simulated, and reported apart (held_*)\n"
    "  --group-scales MODE  the group fit's scales, as in `laysim calibrate` (the same\n"
    "                      code): tied (default), split or entry\n"
    "  --serial-share      also fit the tables' serial_share (as in `laysim calibrate`)\n"
    "  --no-dependency-fit  keep the datasheet table's dependency latency instead of\n"
    "                      measuring it from the runs (as in `laysim calibrate`)\n"
    "  --no-issue-latency  do not fit the vector issue latency (the loop fits one by\n"
    "                      default: `laysim calibrate --issue-latency`)\n"
    "  --traces DIR        write every chosen program's trace into DIR\n"
    CLI_HELP(OUTPUT)
    "                      (the final table: the last iteration's, the one the verdict\n"
    "                      kept, or the one before when the last refit did not help the\n"
    "                      fitted models' strategies)\n"
    "  --solver-time-limit S  wall-clock limit of each solve (default: none)\n"
    "  --time-limit S      deprecated spelling of --solver-time-limit (it is per solve)\n"
    CLI_HELP(JSON) "                      (one object with an \"iterations\" array)\n"
    CLI_HELP(QUIET)
    CLI_MEMPLAN_HELP CLI_MODEL_HELP CLI_TARGET_HELP;

/* A figure in a column of width w, or "-" when it is undefined (no pairs, no held-out
 * family, no in-sample fit yet). */
static const char *fig(char *buf, size_t n, int w, int prec, double v, int defined)
{
    if (defined && isfinite(v))
        snprintf(buf, n, "%*.*f", w, prec, v);
    else
        snprintf(buf, n, "%*s", w, "-");
    return buf;
}

/* The held-out models' figures: no program of theirs entered any fit. */
static void print_held(const struct study_loop_result *out)
{
    printf("held-out models (never fitted on; strategy pairs): solved under the iteration's "
           "table, and the frozen set's strategy points:\n");
    printf("iter held_pairwise pairs held_median  frozen_pairwise pairs frozen_median\n");
    for (size_t i = 0; i < out->iterations.len; i++) {
        const struct study_loop_iter *it = &out->iterations.data[i];
        const struct study_metrics *s = &it->held_strategy, *f = &it->held_frozen_strategies;
        char a[32], b[32], c[32], d[32];
        printf("%4zu %s %5lld %s  %s %5lld %s\n", i,
               fig(a, sizeof a, 13, 3, s->pairwise_accuracy, 1), (long long)s->pw.pairs,
               fig(b, sizeof b, 11, 4, s->median_rel_error, 1),
               fig(c, sizeof c, 15, 3, f->pairwise_accuracy, 1), (long long)f->pw.pairs,
               fig(d, sizeof d, 13, 4, f->median_rel_error, 1));
    }
}

/* The command line of loop. */
struct loop_cli {
    struct study_loop_opts o;
    struct cli_target_args ta;
    const char *outp, *held[64];
    char *heldbuf;
    int json, quiet, nheld;
};

/* An integer option of at most max; CLI_OK or a usage error. */
static int bounded(const char *opt, const char *arg, unsigned long long max,
                   unsigned long long *v)
{
    int rc = cli_parse_u64("loop", opt, arg, v);
    if (!rc && *v > max)
        rc = cli_usage("loop", "%s: at most %llu", opt, max);
    return rc;
}

/* --holdout-models M,M..: the names, split in place in a copy of arg. */
static int parse_held(struct loop_cli *l, const char *arg)
{
    free(l->heldbuf);
    if (!(l->heldbuf = strdup(arg)))
        return CLI_FAIL;
    l->nheld = 0;
    for (char *save = NULL, *tok = strtok_r(l->heldbuf, ",", &save); tok;
         tok = strtok_r(NULL, ",", &save)) {
        if (l->nheld == 64)
            return cli_usage("loop", "--holdout-models: at most 64 models");
        l->held[l->nheld++] = tok;
    }
    if (l->nheld == 0)
        return cli_usage("loop", "--holdout-models: expected model names, got '%s'", arg);
    return CLI_OK;
}

/* One option; CLI_OK or the exit code of a usage error. */
static int loop_opt(struct loop_cli *l, int c, const char *arg, char **argv)
{
    struct study_loop_opts *o = &l->o;
    unsigned long long v = 0;
    int rc = CLI_OK, sc;
    if (cli_model_opt(&o->zo, c, arg, &rc))
        return rc;
    switch (c) {
    case 'i': if (!(rc = bounded("--iterations", arg, 50, &v))) o->iterations = (int)v; break;
    case 'p': if (!(rc = bounded("--perturb", arg, 20, &v))) o->nperturb = (int)v; break;
    case 'x': if (!(rc = bounded("--explore", arg, 20, &v))) o->explore = (int)v; break;
    case CLI_OPT_SEED: if (!(rc = cli_parse_u64("loop", CLI_FLAG_ARG(SEED), arg, &v))) o->seed = v; break;
    case 'A':
        if (cm_aggregate_parse(arg, &o->agg))
            rc = cli_usage("loop", "--aggregate: expected sum, max or pipe");
        break;
    case 'H': rc = parse_held(l, arg); break;
    case 'G':
        sc = cm_group_scales_parse(arg);
        if (sc < 0 || sc == CM_SCALES_AUTO)
            rc = cli_usage("loop", "--group-scales: expected split, tied or entry, got '%s'", arg);
        else
            o->form.scales = (enum cm_group_scales)sc;
        break;
    case 'R': o->form.fit_serial = 1; break;
    case 0x101: o->form.fit_dep = 0; break;
    case 0x103: o->form.fit_issue = 0; break;
    case 0x102: rc = cli_parse_memplan("loop", arg, &o->memplan); break;
    case 'L': o->lofo = 0; break;
    case 'M': o->microbench = 0; break;
    case 'D': o->trace_dir = arg; break;
    case 'o': l->outp = arg; break;
    case CLI_OPT_JSON: l->json = 1; break;
    case 'q': l->quiet = 1; break;
    case CLI_OPT_TIME_LIMIT:
        /* --time-limit names a whole command's limit everywhere else (docs/cli.md) */
        fprintf(stderr, "laysim loop: --time-limit is deprecated, say --solver-time-limit\n");
        /* fall through */
    case 's': rc = cli_parse_double("loop", "--solver-time-limit", arg, &o->solve.time_limit); break;
    case CLI_OPT_TARGET:
    case CLI_OPT_SET: rc = cli_target_args_take(&l->ta, c, arg) ? CLI_FAIL : CLI_OK; break;
    default: rc = cli_bad_option("loop", argv, "o:q");
    }
    return rc;
}

static int loop_parse(struct loop_cli *l, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"iterations", required_argument, NULL, 'i'}, {"aggregate", required_argument, NULL, 'A'},
        {"perturb", required_argument, NULL, 'p'},    CLI_LONGOPT(SEED)
        {"no-lofo", no_argument, NULL, 'L'},          {"no-microbench", no_argument, NULL, 'M'},
        {"traces", required_argument, NULL, 'D'},     CLI_LONGOPT(OUTPUT)
        CLI_LONGOPT(TIME_LIMIT) CLI_LONGOPT(JSON)
        {"solver-time-limit", required_argument, NULL, 's'},
        {"explore", required_argument, NULL, 'x'},
        {"holdout-models", required_argument, NULL, 'H'},
        {"group-scales", required_argument, NULL, 'G'},
        {"serial-share", no_argument, NULL, 'R'},
        {"no-dependency-fit", no_argument, NULL, 0x101},
        {"no-issue-latency", no_argument, NULL, 0x103},
        {"memplan", required_argument, NULL, 0x102},
        CLI_LONGOPT(QUIET) CLI_MODEL_LONGOPTS CLI_TARGET_LONGOPTS
        {NULL, 0, NULL, 0}};
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = getopt_long(argc, argv, "o:q", longopts, NULL)) != -1)
        rc = loop_opt(l, c, optarg, argv);
    if (rc == CLI_OK && optind >= argc)
        rc = cli_usage("loop", "expected at least one MODEL");
    l->o.holdout_models = l->held;
    l->o.nholdout = l->nheld;
    return rc;
}

/* Each refit's candidates, judged on the calibration programs of the families their tables
 * left out: pairs ranked as simulated and mean median error; the form kept. */
static void print_verdicts(const struct study_loop_result *out)
{
    int any = 0;
    for (size_t i = 0; i < out->iterations.len; i++) {
        const struct study_loop_iter *it = &out->iterations.data[i];
        if (!it->has_verdict)
            continue;
        if (!any++)
            printf("refits judged on the families each left out (calibration programs: "
                   "pairs right / pairs, mean median error; keep: the best table so far):\n"
                   "iter %-22s %-22s %-22s kept\n", "keep", "group_fit", "share_only");
        printf("%4zu", i);
        for (int f = 0; f < STUDY_LOOP_NFORMS; f++) {
            const struct study_loop_judged *j = &it->judged[f];
            char b[64];
            snprintf(b, sizeof b, "%d/%d %.1f%%", j->correct, j->pairs, 100 * j->mean_median);
            if (f == STUDY_LOOP_KEEP)
                snprintf(b + strlen(b), sizeof b - strlen(b), " (it %d)", it->kept_from);
            if (f == STUDY_LOOP_SHARE_ONLY && !isnan(it->share))
                snprintf(b + strlen(b), sizeof b - strlen(b), " (%.3f)", it->share);
            printf(" %-22s", b);
        }
        printf(" %s\n", study_loop_form_name(it->form));
    }
}

/* The text report: every iteration's figures, then the strategy pairs (the headline). */
static void loop_print(const struct study_loop_result *out, int nheld, const char *outp,
                       const char *scales, int issue)
{
    printf("iter aggregate pairwise  tau     median_rel  lofo_pairwise lofo_median  in_sample_median exact_1pct\n");
    for (size_t i = 0; i < out->iterations.len; i++) {
        const struct study_loop_iter *it = &out->iterations.data[i];
        char a[32], b[32], c[32], d[32], e[32], f[32];
        printf("%4zu %-9s %s %s %s %s %s %s %s\n", i, it->aggregate,
               fig(a, sizeof a, 8, 3, it->frozen.pairwise_accuracy, 1),
               fig(b, sizeof b, 7, 3, it->frozen.kendall_tau, 1),
               fig(c, sizeof c, 10, 4, it->frozen.median_rel_error, 1),
               fig(d, sizeof d, 13, 3, it->lofo.pairwise_accuracy, it->has_lofo),
               fig(e, sizeof e, 12, 4, it->lofo.median_rel_error, it->has_lofo),
               fig(f, sizeof f, 16, 4, it->in_sample.median_rel_error, 1),
               it->exact_within_1pct_all ? "yes" : "no");
    }
    /* the headline: the paper's metric (strategy pairs, 0.5% tie rule) on the frozen sets,
     * under tables no program of the model's family entered (leave-one-family-out) */
    printf("strategy pairs only (the paper's metric; the frozen pairwise above also counts "
           "perturbation pairs):\n");
    printf("iter lofo_pairwise pairs lofo_median  pairwise pairs median_rel\n");
    for (size_t i = 0; i < out->iterations.len; i++) {
        const struct study_loop_iter *it = &out->iterations.data[i];
        const struct study_metrics *lf = &it->lofo_strategies, *fr = &it->frozen_strategies;
        char a[32], b[32], c[32], d[32];
        printf("%4zu %s %5lld %s  %s %5lld %s\n", i,
               fig(a, sizeof a, 13, 3, lf->pairwise_accuracy, it->has_lofo),
               it->has_lofo ? (long long)lf->pw.pairs : 0LL,
               fig(b, sizeof b, 11, 4, lf->median_rel_error, it->has_lofo),
               fig(c, sizeof c, 8, 3, fr->pairwise_accuracy, 1), (long long)fr->pw.pairs,
               fig(d, sizeof d, 10, 4, fr->median_rel_error, 1));
    }
    printf("exact's regret against the best time known for each model (its frozen set, "
           "calibration programs and every iteration's strategies):\n");
    printf("iter within_1pct max_regret%s\n", nheld ? "  held: within_1pct max_regret" : "");
    for (size_t i = 0; i < out->iterations.len; i++) {
        const struct study_loop_iter *it = &out->iterations.data[i];
        printf("%4zu %7d/%-3d %9.2f%%", i, it->regret.within, it->regret.models,
               100 * (isnan(it->regret.max) ? 0 : it->regret.max));
        if (nheld)
            printf("        %5d/%-3d %9.2f%%", it->held_regret.within, it->held_regret.models,
                   100 * (isnan(it->held_regret.max) ? 0 : it->held_regret.max));
        printf("\n");
    }
    if (nheld)
        print_held(out);
    print_verdicts(out);
    printf("final table: iteration %d's (the verdict and the stop rule above); "
           "the group fit's scales: %s%s\n",
           out->final_iteration, scales, issue ? ", with a vector issue latency" : "");
    if (out->final_iteration == 0 && out->iterations.len && out->iterations.data[0].has_verdict)
        printf("WARNING: no refit predicted the families it left out better than the datasheet "
               "table: the final table is the datasheet's\n");
    if (!outp)
        printf("(the fitted table is not kept: -o FILE writes it)\n");
}

/* What an interrupted loop kept: the traces written so far; it has no --resume. */
static void loop_hint(void *ctx, FILE *out, size_t done, size_t total)
{
    const struct loop_cli *l = ctx;
    if (total)
        fprintf(out, "laysim loop: interrupted after %zu of at most %zu (iteration, model) "
                "steps", done, total);
    else
        fprintf(out, "laysim loop: interrupted before its first iteration");
    fprintf(out, ": no table is kept (-o is written at the end; the loop has no --resume)\n");
    if (l->o.trace_dir)
        fprintf(out, "the traces written so far are in %s\n", l->o.trace_dir);
}

/* Run the loop; write the final table (-o) and the report. */
static int loop_run(struct loop_cli *l, const char *const *models, int nmodels)
{
    struct ls_error err;
    ls_error_clear(&err);
    struct study_loop_result out;
    struct cm_table fin;
    struct cli_status st;
    cli_status_start(&st, "loop", "steps", l->quiet, loop_hint, l);
    l->o.progress = cli_status_cb(&st);
    int rc = study_loop(models, nmodels, &l->o, &out, &fin, &err);
    const char *scales = cm_group_scales_name(l->o.form.scales);
    cli_status_stop(&st);
    if (rc)
        return cli_report(&err);
    if (l->outp && (rc = cm_table_write(&fin, l->outp, &err)))
        rc = cli_report(&err);
    else if (l->json) {
        json_t *j = cli_loop_json(&out);
        if (j) {
            json_object_set_new(j, "group_scales", json_string(scales));
            json_object_set_new(j, "issue_latency", json_boolean(l->o.form.fit_issue));
        }
        rc = cli_print_json(j) ? CLI_FAIL : CLI_OK;
    } else
        loop_print(&out, l->nheld, l->outp, scales, l->o.form.fit_issue);
    study_loop_result_free(&out);
    return rc;
}

int cmd_loop(int argc, char **argv)
{
    struct loop_cli l;
    memset(&l, 0, sizeof l);
    study_loop_opts_init(&l.o);
    int rc = loop_parse(&l, argc, argv);
    if (rc == CLI_OK) {
        struct ls_error err;
        ls_error_clear(&err);
        rc = cli_target_args_resolve(&l.ta, &l.o.target, &err);
        if (rc)
            rc = cli_report(&err);
    }
    cli_target_args_free(&l.ta);
    if (rc == CLI_OK)
        rc = loop_run(&l, (const char *const *)argv + optind, argc - optind);
    free(l.heldbuf);
    return rc;
}
