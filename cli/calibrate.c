/* laysim calibrate: fit a latency table from traces and/or microbenchmarks. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/targetargs.h"
#include "costmodel/calib_run.h"
#include "costmodel/calibrate.h"
#include "sim/isa.h"
#include "sim/target.h"
#include "traces/trace.h"
#include "util/fileio.h"
#include "util/progress.h"

const char cmd_calibrate_help[] =
    "usage: laysim calibrate [--traces FILE]... [--microbench] [--table TABLE]\n"
    "                        [--aggregate sum|max|pipe] [--group-scales auto|split|tied|entry]\n"
    "                        [--serial-share] [--issue-latency] [--dma-latency per-dma|per-group]\n"
    "                        [--programs PROG]... [--no-dependency-fit] [--no-model-holdout]\n"
    "                        [--write-microbench TRACE]\n"
    "                        [--report FILE] [--json] [-q] [--target T] [--set K=V]\n"
    "                        [--ignore-mismatch]\n"
    "                        -o table.json\n"
    "\n"
    "Fit a latency table (docs/costmodel.md) from instruction traces: each table entry\n"
    "(opcode, dtype, mem) is fitted from the records it prices, compute entries as\n"
    "cycles = a + max(b, c*N), DMA entries as ns = fixed + D*max(desc_min, chunk/bw), by a\n"
    "knee search with GSL robust (bisquare) least squares on relative residuals.\n"
    "Entries with fewer than 3 samples keep the prior's values.\n"
    "\n"
    "options:\n"
    "  --traces FILE       a .lstrace (simulator, RTL, or imported CSV); repeatable\n"
    "  --microbench        run the built-in microbenchmarks (every opcode, sweeps of its\n"
    "                      cost parameters, each in isolation) and fit them\n"
    "  --write-microbench F  also write the microbenchmark records to trace F\n"
    CLI_HELP(TABLE)
    "                      the prior the fit starts from; --prior is the old spelling\n"
    "                      (deprecated)\n"
    "  --aggregate MODE    aggregation of the output table: sum, max or pipe (pipe:\n"
    "                      the group fit prices each group as a software pipeline, as\n"
    "                      the datasheet table does; default: the prior's)\n"
    "  --no-group-fit      skip the overlap-aware group fit. By default, when the\n"
    "                      traces carry op attribution (laysim's own, or imported\n"
    "                      with an op/hlo_name column), the per-instruction table is\n"
    "                      then scaled so that each op's aggregated price matches its\n"
    "                      exposed time in the traces (aggregation max unless\n"
    "                      --aggregate sum; docs/calibration.md), and every k-th trace\n"
    "                      (k = 1/FRACTION of --holdout) is held out and predicted\n"
    "  --group-scales MODE  what the group fit scales: split: a latency and a throughput\n"
    "                      scale for the DMA entries and another pair for the compute\n"
    "                      entries; tied: one latency and one throughput scale for all\n"
    "                      entries (both fitted to every program's total time and to\n"
    "                      the time differences of programs with the same operators);\n"
    "                      auto (default): with traces of two or more models, the\n"
    "                      models left out choose among the forms listed under\n"
    "                      --no-model-holdout; else split and tied both, the one that\n"
    "                      predicts the held-out traces better kept (split when none is\n"
    "                      held out); entry: a latency and a throughput scale per entry,\n"
    "                      fitted to every op's exposed time (many more scales than a\n"
    "                      few models can pin)\n"
    "  --serial-share      also fit the table's serial_share (max only): the share of\n"
    "                      the other engines' time a group adds to its busiest\n"
    "                      engine's (0: they overlap; 1: they run one after another)\n"
    "  --dma-latency RULE  how the fitted table charges the DMA transfer latency:\n"
    "                      per-dma (every DMA its fixed_ns; the default) or per-group\n"
    "                      (once per op or conversion, table key dma_latency_per_group:\n"
    "                      the simulator's queues overlap an op's transfers)\n"
    "  --issue-latency     also fit one issue latency added to every vector (ACT, DVE,\n"
    "                      POOL) instruction: the wait of a chain of dependent vector\n"
    "                      instructions, which no scale of a table whose vector\n"
    "                      entries have a = 0 can give (docs/calibration.md)\n"
    "  --holdout FRACTION  share of each entry's samples held out of its fit to judge\n"
    "                      it against the prior (default " LS_STRINGIFY(CM_HOLDOUT_DEFAULT)
    "; 0 = none). An entry whose\n"
    "                      fit predicts them worse than the prior keeps the prior\n"
    "                      (verdict 'rejected'); the summary compares the whole table\n"
    "                      with its prior on every held-out sample\n"
    CLI_HELP(OUTPUT)
    "                      the fitted table (required). When the group fit predicts\n"
    "                      the held-out traces worse than the prior table does, FILE\n"
    "                      gets the prior table instead and the summary says so\n"
    "  --keep-worse        write the fitted table even then (for diagnosis)\n"
    "  --no-model-holdout  skip the check on models the fit did not see. By default, when\n"
    "                      the traces come from two or more models (told apart by their\n"
    "                      operators' names), each model's traces are left out in turn:\n"
    "                      the table is fitted on the other models' traces and predicts\n"
    "                      the programs left out; when these tables rank fewer of their\n"
    "                      program pairs as measured than the prior does, or as many\n"
    "                      and predict them worse (mean over the models of the median\n"
    "                      program-time error), FILE gets the prior table. Unless a flag\n"
    "                      of the form is given (--no-group-fit, --dma-latency,\n"
    "                      --group-scales, --serial-share, --issue-latency), calibrate\n"
    "                      fits up to five forms (the group fit with split scales, with\n"
    "                      tied scales, with tied scales and an issue latency; no group\n"
    "                      fit with the DMA latency per group; the prior with its\n"
    "                      exposed share measured, when it has one) and keeps the one\n"
    "                      whose fits rank the models left out best, then predict them\n"
    "                      best\n"
    "  --programs PROG     the program the k-th --traces ran (the k-th --programs;\n"
    "                      repeatable, one per trace): its dependencies tell which\n"
    "                      vector instructions wait on their engine's previous one,\n"
    "                      and the table's dependency latency (one per ACT, DVE,\n"
    "                      POOL and a tiny extra) is then measured from the gaps\n"
    "                      before them (fitted with the scales when too few;\n"
    "                      docs/calibration.md). Without them the table's dependency\n"
    "                      latency is kept as it is\n"
    "  --no-dependency-fit  keep the table's dependency latency even with --programs\n"
    CLI_HELP(QUIET)
    "                      (the bar: one step per trace, then the fit; terminal only)\n"
    "  --report FILE       the fit report as JSON (per entry: samples, R2, max and\n"
    "                      median relative error, residual plot data)\n"
    CLI_HELP(JSON) "                      (the fit report)\n"
    "  --ignore-mismatch   fit traces that laysim simulated (or ran on the RTL) for\n"
    "                      another target than the table's (its `target` key, else\n"
    "                      --target; a --set variant is the same target) with a\n"
    "                      warning instead of refusing them (exit 2)\n"
    CLI_TARGET_HELP;

/* 1 / 0 when the held-out samples say the table beats / does not beat its prior; -1 when
 * nothing was held out. */
static int better_than_prior(const struct cm_fit_report *rep)
{
    if (rep->held_out == 0)
        return -1;
    /* within rounding, as each entry is judged (costmodel/fit.c judge_entry): both are
     * often about 0 on simulator traces */
    return rep->holdout_fit <= rep->holdout_prior * (1 + 1e-3) + 1e-6;
}

static json_t *report_json(const struct cm_table *tb, const struct cm_fit_report *rep)
{
    json_t *arr = json_array();
    for (int i = 0; i < rep->n; i++) {
        const struct cm_fit_entry *f = &rep->e[i];
        const struct cm_entry *e = &tb->e[f->entry];
        json_t *o = json_object();
        json_object_set_new(o, "opcode", json_string(sim_opcode_name((enum sim_opcode)e->opcode)));
        json_object_set_new(o, "dtype", json_string(e->dtype < 0 ? "*" : ls_dtype_name((enum ls_dtype)e->dtype)));
        json_object_set_new(o, "mem", json_string(e->mem < 0 ? "*" : ls_mem_name((enum ls_mem)e->mem)));
        json_object_set_new(o, "samples", json_integer(f->samples));
        json_object_set_new(o, "fitted", json_boolean(f->fitted));
        json_object_set_new(o, "verdict", json_string(cm_verdict_name(f->verdict)));
        json_object_set_new(o, "held_out", json_integer(f->held_out));
        json_object_set_new(o, "holdout_median_rel_error", cli_json_num(f->holdout_fit));
        json_object_set_new(o, "holdout_median_rel_error_prior", cli_json_num(f->holdout_prior));
        json_object_set_new(o, "r2", json_real(f->r2));
        json_object_set_new(o, "max_rel_error", json_real(f->max_rel));
        json_object_set_new(o, "median_rel_error", json_real(f->median_rel));
        json_t *res = json_array();
        for (int k = 0; k < f->nresid; k++) {
            json_t *p = json_array();
            json_array_append_new(p, json_real(f->rx[k]));
            json_array_append_new(p, json_real(f->ry[k]));
            json_array_append_new(p, json_real(f->rp[k]));
            json_array_append_new(res, p);
        }
        json_object_set_new(o, "residuals", res);
        json_array_append_new(arr, o);
    }
    json_t *root = json_object();
    json_object_set_new(root, "entries", arr);
    json_t *v = json_object();
    for (int k = 0; k < 4; k++)
        json_object_set_new(v, cm_verdict_name((enum cm_verdict)k), json_integer(rep->verdicts[k]));
    json_object_set_new(root, "verdicts", v);
    json_object_set_new(root, "held_out", json_integer(rep->held_out));
    json_object_set_new(root, "holdout_median_rel_error", cli_json_num(rep->holdout_fit));
    json_object_set_new(root, "holdout_median_rel_error_prior", cli_json_num(rep->holdout_prior));
    json_object_set_new(root, "better_than_prior", better_than_prior(rep) < 0 ? json_null()
                                                   : json_boolean(better_than_prior(rep)));
    return root;
}

/* Write the fitted table (and the report), then print the summary. */
static json_t *group_json(const struct cm_trace_fit *gr)
{
    json_t *o = json_object();
    json_object_set_new(o, "done", json_boolean(gr->done));
    json_object_set_new(o, "base", json_string(gr->from_prior ? "prior" : "per-instruction"));
    json_object_set_new(o, "scales", json_string(cm_group_scales_name(gr->form.scales)));
    json_object_set_new(o, "scales_chosen", json_boolean(gr->auto_form));
    json_object_set_new(o, "serial_share_fitted", json_boolean(gr->form.fit_serial));
    json_object_set_new(o, "issue_latency_fitted", json_boolean(gr->form.fit_issue));
    json_object_set_new(o, "dependency_fitted", json_boolean(gr->form.fit_dep && gr->dep_rows));
    json_object_set_new(o, "dependency_gaps", json_integer((json_int_t)gr->dep_gaps));
    json_t *d = json_object();
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        if (cm_dep_engine(e))
            json_object_set_new(d, ls_engine_name((enum ls_engine)e), json_real(gr->dep[e]));
    json_object_set_new(d, "tiny", json_real(gr->dep[LS_ENGINE_COUNT]));
    json_object_set_new(o, "dependency", d);
    json_object_set_new(o, "fitted_traces", json_integer(gr->fitted_traces));
    json_object_set_new(o, "held_out_traces", json_integer(gr->held_traces));
    json_object_set_new(o, "groups", json_integer((json_int_t)gr->groups));
    json_object_set_new(o, "attributed_records", json_integer((json_int_t)gr->attributed));
    json_object_set_new(o, "in_sample_rel_error", cli_json_num(gr->rel_in));
    json_object_set_new(o, "held_out_median_rel_error_prior", cli_json_num(gr->held_prior));
    json_object_set_new(o, "held_out_median_rel_error_before", cli_json_num(gr->held_before));
    json_object_set_new(o, "held_out_median_rel_error_after", cli_json_num(gr->held_after));
    return o;
}

/* The pipeline latency the traces showed (costmodel/fit_pipe.c), when any engine has one. */
static void pipe_print(const struct cm_fit_report *rep)
{
    int any = 0;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        any |= rep->pipe_lat[e] > 0;
    if (!any)
        return;
    printf("pipelined instructions sampled by occupancy (the growth of their engine's end; "
           "costmodel/fit_pipe.c), largest overlap in engine cycles:");
    for (int e = 0, first = 1; e < LS_ENGINE_COUNT; e++)
        if (rep->pipe_lat[e] > 0) {
            printf("%s %s %.1f", first ? "" : ",", ls_engine_name((enum ls_engine)e),
                   rep->pipe_lat[e]);
            first = 0;
        }
    printf("\n");
}

static void dep_print(const struct cm_trace_fit *gr)
{
    printf("dependency latency measured (engine cycles; the floor of %zu gaps before "
           "dependent instructions): act %.1f, dve %.1f, pool %.1f, tiny extra %.1f\n",
           gr->dep_gaps, gr->dep[LS_ENGINE_ACT], gr->dep[LS_ENGINE_DVE],
           gr->dep[LS_ENGINE_POOL], gr->dep[LS_ENGINE_COUNT]);
}

static void group_print(const struct cm_trace_fit *gr, int ntraces, int fit_written, int none,
                        int worse)
{
    if (ntraces == 0)
        return;
    if (!gr->done && none) {
        printf("group fit: skipped (--no-group-fit, or the form chosen on the models left out)\n");
        if (gr->dep_gaps)
            dep_print(gr);
        return;
    }
    if (!gr->done) {
        printf("group fit: skipped (no trace carries op attribution): the "
               "per-instruction fit ignores engine overlap, so whole-program predictions may be "
               "far off\n");
        if (gr->dep_gaps)
            dep_print(gr);
        return;
    }
    int tied = gr->form.scales != CM_SCALES_ENTRY;
    printf("group fit (overlap-aware, %s scales%s%s%s, scaling the %s table): %zu groups from "
           "%d traces, in-sample error %.4f (%s)",
           tied ? cm_group_scales_name(gr->form.scales) : "per-entry",
           gr->form.fit_serial ? " and serial share" : "",
           gr->form.fit_issue ? " and issue latency" : "",
           gr->auto_form ? " (chosen on the held-out traces)" : "",
           gr->from_prior ? "prior" : "per-instruction", gr->groups, gr->fitted_traces,
           gr->rel_in, tied ? "program totals" : "groups");
    if (gr->held_traces)
        printf("; %d held-out traces: median program-time error %.4f (the prior table), "
               "%.4f (per-instruction fit), %.4f (group fit)", gr->held_traces, gr->held_prior,
               gr->held_before, gr->held_after);
    printf("\n");
    if (gr->dep_gaps)
        dep_print(gr);
    else if (gr->form.fit_dep && gr->dep_rows)
        printf("dependency latency fitted (engine cycles): act %.1f, dve %.1f, pool %.1f, "
               "tiny extra %.1f\n", gr->dep[LS_ENGINE_ACT], gr->dep[LS_ENGINE_DVE],
               gr->dep[LS_ENGINE_POOL], gr->dep[LS_ENGINE_COUNT]);
    if (worse) /* a calibration that makes predictions worse must not ship */
        printf("WARNING: the fitted table predicts the held-out programs WORSE than its prior "
               "(%.4f against %.4f): %s\n", gr->held_after, gr->held_prior,
               fit_written ? "written anyway (--keep-worse); do not use it in place of the prior"
                          : "the prior table is written instead (--keep-worse writes the fit)");
}

/* The command line of calibrate. */
struct cal_opts {
    const char **traces, **progs;   /* --traces, --programs in order (malloc'd) */
    int ntr, nprog, captr, capprog;
    const char *prior, *aggn, *scalesn, *mbtrace, *report, *outp;
    int micro, json, quiet, no_group, serial, issue, keep_worse, no_dep, dma_group, no_lomo;
    int ignore_mismatch;
    int explicit_form;         /* a flag of the fit's form given: no choice of it */
    int scales;
    double holdout;
    enum cm_aggregate agg;
    struct cli_target_args ta;
};

static int parse_list(const char ***list, int *n, int *cap, const char *arg)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        const char **l = realloc(*list, (size_t)c * sizeof *l);
        if (!l) {
            fprintf(stderr, "laysim calibrate: out of memory\n");
            return CLI_FAIL;
        }
        *list = l;
        *cap = c;
    }
    (*list)[(*n)++] = arg;
    return CLI_OK;
}

/* One option; CLI_OK or the exit code of a usage error. */
static int parse_opt(struct cal_opts *o, int c, const char *arg, char **argv)
{
    switch (c) {
    case 'r': return parse_list(&o->traces, &o->ntr, &o->captr, arg);
    case 'G': return parse_list(&o->progs, &o->nprog, &o->capprog, arg);
    case 'm': o->micro = 1; break;
    case 'Y': o->ignore_mismatch = 1; break;
    case CLI_OPT_TABLE: o->prior = arg; break;
    case 'P':
        fprintf(stderr, "laysim calibrate: --prior is deprecated, say --table\n");
        o->prior = arg;
        break;
    case 'A': o->aggn = arg; break;
    case 'w': o->mbtrace = arg; o->micro = 1; break;
    case 'R': o->report = arg; break;
    case 'o': o->outp = arg; break;
    case CLI_OPT_JSON: o->json = 1; break;
    case 'N': o->no_group = 1; o->explicit_form = 1; break;
    case 'S': o->scalesn = arg; o->explicit_form = 1; break;
    case 's': o->serial = 1; o->explicit_form = 1; break;
    case 'I': o->issue = 1; o->explicit_form = 1; break;
    case 'M': o->no_lomo = 1; break;
    case 'L':
        if (strcmp(arg, "per-dma") != 0 && strcmp(arg, "per-group") != 0)
            return cli_usage("calibrate", "--dma-latency: expected per-dma or per-group, got '%s'",
                             arg);
        o->dma_group = strcmp(arg, "per-group") == 0;
        o->explicit_form = 1;
        break;
    case 'K': o->keep_worse = 1; break;
    case 'D': o->no_dep = 1; break;
    case 'H':
        if (cli_parse_double("calibrate", "--holdout", arg, &o->holdout))
            return CLI_USAGE;
        if (o->holdout < 0 || o->holdout > 0.5)
            return cli_usage("calibrate", "--holdout: expected a fraction in 0..0.5, got '%s'", arg);
        break;
    case 'q': o->quiet = 1; break;
    case CLI_OPT_TARGET:
    case CLI_OPT_SET: return cli_target_args_take(&o->ta, c, arg) ? CLI_FAIL : CLI_OK;
    default: return cli_bad_option("calibrate", argv, "o:q");
    }
    return CLI_OK;
}

/* The checks across options, after parsing. */
static int check_opts(struct cal_opts *o, int argc, char **argv)
{
    if (optind < argc)
        return cli_usage("calibrate", "unexpected argument '%s'", argv[optind]);
    if (!o->outp)
        return cli_usage("calibrate", "-o FILE is required");
    if (o->nprog && o->nprog != o->ntr)
        return cli_usage("calibrate", "%d --programs for %d --traces: give one program per "
                         "trace, in the same order", o->nprog, o->ntr);
    if (!o->micro && o->ntr == 0)
        return cli_usage("calibrate", "nothing to fit: give --traces FILE or --microbench");
    o->agg = CM_AGG_MAX;
    if (o->aggn && cm_aggregate_parse(o->aggn, &o->agg))
        return cli_usage("calibrate", "--aggregate: expected sum, max or pipe");
    o->scales = cm_group_scales_parse(o->scalesn);
    if (o->scales < 0)
        return cli_usage("calibrate", "--group-scales: expected auto, split, tied or entry, got '%s'",
                         o->scalesn);
    if (o->serial && o->agg != CM_AGG_MAX)
        return cli_usage("calibrate", "--serial-share needs --aggregate max (a sum table has "
                         "no serial share)");
    return CLI_OK;
}

static int parse_opts(struct cal_opts *o, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"traces", required_argument, NULL, 'r'},   {"microbench", no_argument, NULL, 'm'},
        CLI_LONGOPT(TABLE)                          {"prior", required_argument, NULL, 'P'},
        {"aggregate", required_argument, NULL, 'A'},
        {"write-microbench", required_argument, NULL, 'w'},
        {"report", required_argument, NULL, 'R'},   CLI_LONGOPT(OUTPUT)
        CLI_LONGOPT(JSON)                           CLI_LONGOPT(QUIET)
        {"holdout", required_argument, NULL, 'H'},
        {"no-group-fit", no_argument, NULL, 'N'},   {"group-scales", required_argument, NULL, 'S'},
        {"serial-share", no_argument, NULL, 's'},  {"issue-latency", no_argument, NULL, 'I'},
        {"dma-latency", required_argument, NULL, 'L'},
        {"keep-worse", no_argument, NULL, 'K'},     {"no-model-holdout", no_argument, NULL, 'M'},
        {"programs", required_argument, NULL, 'G'}, {"no-dependency-fit", no_argument, NULL, 'D'},
        {"ignore-mismatch", no_argument, NULL, 'Y'},
        CLI_TARGET_LONGOPTS                        {NULL, 0, NULL, 0}};
    memset(o, 0, sizeof *o);
    o->scalesn = "auto";
    o->holdout = CM_HOLDOUT_DEFAULT;
    optind = 1;
    int c, rc = CLI_OK;
    while (rc == CLI_OK && (c = getopt_long(argc, argv, "o:q", longopts, NULL)) != -1)
        rc = parse_opt(o, c, optarg, argv);
    if (rc == CLI_OK)
        rc = check_opts(o, argc, argv);
    return rc;
}

static json_t *lomo_json(const struct cm_lomo *lm, const struct cal_opts *o)
{
    json_t *root = json_object(), *arr = json_array();
    for (int m = 0; m < lm->nmodels; m++) {
        json_t *x = json_object();
        json_object_set_new(x, "trace", json_string(o->traces[lm->first[m]]));
        json_object_set_new(x, "traces", json_integer(lm->ntraces[m]));
        json_object_set_new(x, "median_rel_error", cli_json_num(lm->fit[m]));
        json_object_set_new(x, "median_rel_error_prior", cli_json_num(lm->prior[m]));
        json_array_append_new(arr, x);
    }
    json_object_set_new(root, "models", arr);
    json_object_set_new(root, "mean_median_rel_error", cli_json_num(lm->fit_mean));
    json_object_set_new(root, "mean_median_rel_error_prior", cli_json_num(lm->prior_mean));
    json_object_set_new(root, "pairs", json_integer(lm->pairs));
    json_object_set_new(root, "pairs_correct", json_integer(lm->fit_correct));
    json_object_set_new(root, "pairs_correct_prior", json_integer(lm->prior_correct));
    json_object_set_new(root, "better_than_prior", json_boolean(!cm_lomo_worse(lm)));
    return root;
}

static void lomo_print(const struct cm_lomo *lm, const struct cal_opts *o, int fit_written)
{
    printf("models left out in turn (%d, told apart by their operators): median program-time "
           "error of the table fitted on the other models' traces / of the prior:\n",
           lm->nmodels);
    for (int m = 0; m < lm->nmodels; m++)
        printf("  the model of %s (%d traces): %.4f / %.4f\n", o->traces[lm->first[m]],
               lm->ntraces[m], lm->fit[m], lm->prior[m]);
    printf("  mean %.4f / %.4f; program pairs ranked as measured %d / %d of %d: ", lm->fit_mean,
           lm->prior_mean, lm->fit_correct, lm->prior_correct, lm->pairs);
    if (lm->fit_mean < 5e-5 && lm->prior_mean < 5e-5)   /* both print as 0 */
        printf("both predict the models left out exactly: nothing tells them apart\n");
    else if (!cm_lomo_worse(lm))
        printf("better than the prior on models the fit did not see\n");
    else
        printf("WORSE than the prior on models the fit did not see: %s\n",
               fit_written ? "written anyway (--keep-worse); do not use it in place of the prior"
                           : "the prior table is written instead (--keep-worse writes the fit)");
}

/* The name of a form calibrate chooses among on the models left out, unless a flag of the
 * form is given (docs/calibration.md, "Models the fit did not see"). */
static const char *form_name(const struct cm_form_cand *c, char *buf, size_t n)
{
    if (c->share_only)
        snprintf(buf, n, "the prior, its exposed share measured");
    else if (c->no_group)
        snprintf(buf, n, "no group fit, DMA latency per group");
    else
        snprintf(buf, n, "group fit (%s scales%s), DMA latency per DMA",
                 cm_group_scales_name(c->scales), c->fit_issue ? ", issue latency" : "");
    return buf;
}

/* The form of the fit kept, and whether it was chosen on the models left out. */
static json_t *form_json(const struct cm_run *r)
{
    json_t *x = json_object();
    json_object_set_new(x, "group_fit", json_boolean(!r->no_group));
    json_object_set_new(x, "share_only", json_boolean(r->share_only));
    if (!r->no_group && r->gr.done) {
        json_object_set_new(x, "scales", json_string(cm_group_scales_name(r->gr.form.scales)));
        json_object_set_new(x, "issue_latency", json_boolean(r->gr.form.fit_issue));
    }
    json_object_set_new(x, "dma_latency", json_string(r->dma_group ? "per-group" : "per-dma"));
    json_object_set_new(x, "chosen_on_models_left_out", json_boolean(r->form_chosen));
    if (r->form_chosen) {
        json_object_set_new(x, "mean_median_rel_error", cli_json_num(r->lomo.fit_mean));
        json_object_set_new(x, "other_mean_median_rel_error", cli_json_num(r->other_mean));
        json_t *cand = json_array();
        for (int k = 0; k < r->ncand; k++) {
            char nm[96];
            json_t *c = json_object();
            json_object_set_new(c, "form", json_string(form_name(&r->cand[k], nm, sizeof nm)));
            json_object_set_new(c, "mean_median_rel_error", cli_json_num(r->cand[k].lomo_mean));
            json_object_set_new(c, "pairs_correct", json_integer(r->cand[k].lomo_correct));
            json_object_set_new(c, "kept", json_boolean(k == r->chosen));
            json_array_append_new(cand, c);
        }
        json_object_set_new(x, "candidates", cand);
    }
    return x;
}

/* The report of the fit as JSON (written with --report, printed with --json). */
static json_t *run_json(struct cm_run *r, const struct cal_opts *o)
{
    const struct cm_fit_report *rep = r->rep;
    json_t *rj = report_json(&r->fit, rep);
    json_object_set_new(rj, "microbenchmarks", json_integer((json_int_t)r->nmb));
    json_object_set_new(rj, "samples", json_integer((json_int_t)r->ns));
    json_t *pl = json_object();
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        json_object_set_new(pl, ls_engine_name((enum ls_engine)e), json_real(rep->pipe_lat[e]));
    json_object_set_new(rj, "pipeline_latency", pl);
    if (o->ntr)
        json_object_set_new(rj, "group_fit", group_json(&r->gr));
    if (r->lomo.nmodels)
        json_object_set_new(rj, "model_holdout", lomo_json(&r->lomo, o));
    json_object_set_new(rj, "form", form_json(r));
    json_object_set_new(rj, "written", json_string(r->out == &r->fit ? "fit" : "prior"));
    return rj;
}

/* The per-entry table of the summary. */
static void entries_print(const struct cm_table *fit, const struct cm_fit_report *rep)
{
    int better = better_than_prior(rep);
    if (better < 0)
        printf("held out: no samples (too few per entry, or --holdout 0): the table is not "
               "checked against its prior\n");
    else if (rep->holdout_fit < 5e-7 && rep->holdout_prior < 5e-7)   /* both print as 0 */
        printf("held out: %d samples, predicted exactly by the fit and by the prior alike: "
               "nothing tells them apart\n", rep->held_out);
    else
        printf("held out: %d samples, median relative error %.6f against the prior's %.6f: %s\n",
               rep->held_out, rep->holdout_fit, rep->holdout_prior,
               better ? "better than the prior" : "WORSE than the prior");
    printf("  %-18s %-5s %-5s %5s %-10s %7s %10s %9s %9s\n", "opcode", "dtype", "mem", "n",
           "verdict", "R2", "median_rel", "max_rel", "held_out");
    for (int i = 0; i < rep->n; i++) {
        const struct cm_fit_entry *f = &rep->e[i];
        const struct cm_entry *e = &fit->e[f->entry];
        char ho[48] = "-";
        if (f->held_out)
            snprintf(ho, sizeof ho, "%.4f/%.4f", f->holdout_fit, f->holdout_prior);
        printf("  %-18s %-5s %-5s %5d %-10s %7.4f %10.4f %9.4f %s\n",
               sim_opcode_name((enum sim_opcode)e->opcode),
               e->dtype < 0 ? "*" : ls_dtype_name((enum ls_dtype)e->dtype),
               e->mem < 0 ? "*" : ls_mem_name((enum ls_mem)e->mem), f->samples,
               cm_verdict_name(f->verdict), f->r2, f->median_rel, f->max_rel, ho);
    }
    printf("  (held_out: median relative error of the held-out samples, fit/prior; a fit "
           "worse than its prior there is rejected)\n");
}

/* Write the table calibrate chose (r->out: the fit or the prior) and the report, then print
 * the summary. */
static int report_fit(struct cm_run *r, const struct cal_opts *o)
{
    struct ls_error err = {0};
    const struct cm_fit_report *rep = r->rep;
    int rc, wrote_fit = r->out == &r->fit;
    if (o->aggn && wrote_fit) /* the prior, when it is written, is written as it was judged */
        cm_table_set_aggregate(&r->fit, o->agg, -1);
    if ((rc = cm_table_write(r->out, o->outp, &err)))
        return cli_report(&err);
    json_t *rj = run_json(r, o);
    if (o->report) {
        char *s = json_dumps(rj, JSON_INDENT(2));
        rc = s ? ls_write_file_atomic(o->report, s, strlen(s), &err) : LS_ERR_NOMEM;
        free(s);
        if (rc) {
            json_decref(rj);
            return rc == LS_ERR_NOMEM ? CLI_FAIL : cli_report(&err);
        }
    }
    if (o->json)
        return cli_print_json(rj) ? CLI_FAIL : CLI_OK;
    json_decref(rj);
    if (r->share_only)
        printf("the prior's entries, its exposed share measured on %d traces: %.4f -> %s\n",
               o->ntr, r->fit.exposed_share, o->outp);
    else
        printf("%d of %d entries with samples fitted (%d good, %d weak; %d rejected, %d kept "
               "the prior) from %zu samples (%zu microbenchmarks) -> %s\n",
               rep->verdicts[CM_GOOD] + rep->verdicts[CM_WEAK], rep->n, rep->verdicts[CM_GOOD],
               rep->verdicts[CM_WEAK], rep->verdicts[CM_REJECTED], rep->verdicts[CM_KEPT_PRIOR],
               r->ns, r->nmb, o->outp);
    pipe_print(rep);
    group_print(&r->gr, o->ntr, wrote_fit, r->no_group, r->held_worse);
    if (r->lomo.nmodels)
        lomo_print(&r->lomo, o, wrote_fit);
    if (r->form_chosen) {
        char nm[96];
        printf("form chosen on the models left out: %s; pairs ranked as measured of %d and "
               "mean median error per form:",
               form_name(&r->cand[r->chosen], nm, sizeof nm), r->lomo.pairs);
        for (int k = 0; k < r->ncand; k++)
            printf("%s %s %d, %.4f", k ? ";" : "", form_name(&r->cand[k], nm, sizeof nm),
                   r->cand[k].lomo_correct, r->cand[k].lomo_mean);
        printf("\n");
    }
    entries_print(&r->fit, rep);
    return CLI_OK;
}

/* The options of one run of costmodel/calib_run from the command line. */
static void run_opts(const struct cal_opts *o, struct cm_run_opts *ro)
{
    cm_run_opts_init(ro);
    ro->traces = o->traces;
    ro->progs = o->nprog ? o->progs : NULL;
    ro->ntraces = o->ntr;
    ro->micro = o->micro;
    ro->mbtrace = o->mbtrace;
    ro->holdout = o->holdout;
    ro->agg = o->agg;
    ro->form = (struct cm_fit_form){(enum cm_group_scales)o->scales, o->serial, o->issue,
                                    !o->no_dep, o->dma_group};
    ro->no_group = o->no_group;
    ro->fixed_form = o->explicit_form;
    ro->no_model_holdout = o->no_lomo;
    ro->keep_worse = o->keep_worse;
}

/* calibrate's progress bar (util/progress), begun when costmodel/calib_run knows its total */
struct cal_bar {
    struct ls_progress pb;
    int begun, quiet;
};
static void cal_progress(void *ctx, uint64_t done, uint64_t total)
{
    struct cal_bar *b = ctx;
    if (!b->begun)
        ls_progress_begin(&b->pb, "calibrate", total, b->quiet);
    b->begun = 1;
    ls_progress_update(&b->pb, done);
}

/* 1 when trace header h, of laysim's simulator or RTL, names a target other than the
 * table's. A --set variant of the table's target keeps its name: fitting the table to a
 * modified core is what calibration is for. */
static int other_target(const struct trace_header *h, const char *name)
{
    if (h->producer == TRACE_PROD_IMPORT || !h->target || !h->target[0])
        return 0;   /* an imported profile names its hardware its own way */
    return strcmp(h->target, name) != 0;
}

/* Refuse (exit 2) traces of another target than the prior table's, or warn with
 * --ignore-mismatch. */
static int check_traces(const struct cal_opts *o, const struct cm_table *prior,
                        const struct sim_target *t)
{
    const char *name = prior->target[0] ? prior->target : t->name;
    uint64_t hash = strcmp(name, t->name) ? 0 : sim_target_hash(t);
    for (int i = 0; i < o->ntr; i++) {
        struct trace_reader *r;
        struct ls_error err;
        if (trace_reader_open(&r, o->traces[i], &err))
            continue;   /* the fit reports it */
        const struct trace_header *h = trace_reader_header(r);
        int other = other_target(h, name);
        if (other)
            fprintf(stderr, "laysim calibrate: %s%s: a trace of target %s (target-hash %016" PRIx64
                            ") for a table of target %s (target-hash %016" PRIx64 ")%s\n",
                    o->ignore_mismatch ? "warning: " : "", o->traces[i], h->target, h->target_hash,
                    name, hash, o->ignore_mismatch ? " (--ignore-mismatch)"
                                                   : " (--ignore-mismatch to fit it anyway)");
        trace_reader_close(r);
        if (other && !o->ignore_mismatch)
            return CLI_USAGE;
    }
    return CLI_OK;
}

int cmd_calibrate(int argc, char **argv)
{
    struct cal_opts o;
    int rc = parse_opts(&o, argc, argv);
    struct sim_target t;
    struct ls_error err;
    ls_error_clear(&err);
    if (rc == CLI_OK && (rc = cli_target_args_resolve(&o.ta, &t, &err)))
        rc = cli_report(&err);
    cli_target_args_free(&o.ta);
    struct cm_table prior;
    if (rc == CLI_OK && o.prior && (rc = cm_table_load(o.prior, &prior, &err)))
        rc = cli_report(&err);
    else if (rc == CLI_OK && !o.prior)
        cm_table_default(&t, &prior);
    if (rc == CLI_OK)
        rc = check_traces(&o, &prior, &t);
    if (rc == CLI_OK) {
        struct cm_run_opts ro;
        struct cm_run r;
        struct cal_bar bar = {.quiet = o.quiet};
        run_opts(&o, &ro);
        ro.progress = cal_progress;
        ro.progress_ctx = &bar;
        int fail = cm_calibrate(&ro, &t, &prior, &r, &err);
        if (bar.begun)
            ls_progress_end(&bar.pb);
        rc = fail ? cli_report(&err) : report_fit(&r, &o);
        cm_run_free(&r);
    }
    free(o.traces);
    free(o.progs);
    return rc;
}
