/* laysim validate: cost-model fidelity of a latency table on models. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/fidelity.h"
#include "cli/targetargs.h"
#include "sim/target.h"
#include "study/loop.h"
#include "util/progress.h"

const char cmd_validate_help[] =
    "usage: laysim validate MODEL... [--table FILE] [--aggregate sum|max|pipe] [--json] [-o OUT]\n"
    "                       [--solver-time-limit S] [model scaling] [--target T] [--set K=V]\n"
    "\n"
    "Solve each model with local, greedy, rulebased and exact under a latency table,\n"
    "compile and simulate each solution, and compare the predicted cost (the .lsp\n"
    "objective) with the simulated time: pairwise ranking accuracy (6 pairs per model,\n"
    "0.5% equality band, identical assignments excluded and counted), Kendall's tau-b,\n"
    "median and max relative error, error attribution of the exact solution (instruction\n"
    "classes, operators, conversions) and the criterion for exact solving.\n"
    "\n"
    "options:\n"
    "  --table FILE        latency table (default: the target's datasheet table)\n"
    "  --aggregate MODE    override the table's aggregation (sum, max or pipe)\n"
    "  --solver-time-limit S  wall-clock limit of each solve (default: none)\n"
    "  --time-limit S      deprecated spelling of --solver-time-limit (it is per solve)\n"
    "  --json              print the full JSON report\n"
    "  -q, --quiet         no progress bar (drawn on stderr only when it is a terminal)\n"
    "  -o, --output FILE   write the results (text or --json) to FILE instead of stdout\n"
    CLI_MODEL_HELP CLI_TARGET_HELP;

/* an undefined figure prints as 0 in the text summary (as it always has) */
static double or0(double v)
{
    return isfinite(v) ? v : 0;
}

int cmd_validate(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"table", required_argument, NULL, 'T'},  {"aggregate", required_argument, NULL, 'A'},
        {"time-limit", required_argument, NULL, 't'}, {"json", no_argument, NULL, 'J'},
        {"solver-time-limit", required_argument, NULL, 's'},
        {"quiet", no_argument, NULL, 'q'}, {"output", required_argument, NULL, 'o'},
        CLI_MODEL_LONGOPTS, CLI_TARGET_LONGOPTS,
        {NULL, 0, NULL, 0}};
    struct study_loop_opts o;
    study_loop_opts_init(&o);
    struct cli_target_args ta = {0};
    const char *table = NULL, *aggn = NULL, *outp = NULL;
    int json = 0, quiet = 0, c, rc;
    struct ls_error err;
    ls_error_clear(&err);
    optind = 1;
    while ((c = getopt_long(argc, argv, "qo:", longopts, NULL)) != -1) {
        if (cli_model_opt(&o.zo, c, optarg, &rc)) {
            if (rc) {
                cli_target_args_free(&ta);
                return rc;
            }
            continue;
        }
        switch (c) {
        case 'T': table = optarg; break;
        case 'A': aggn = optarg; break;
        case 'J': json = 1; break;
        case 'q': quiet = 1; break;
        case 'o': outp = optarg; break;
        case 't':
            /* --time-limit names a whole command's limit everywhere else (docs/cli.md) */
            fprintf(stderr, "laysim validate: --time-limit is deprecated, say "
                            "--solver-time-limit\n");
            /* fall through */
        case 's':
            if ((rc = cli_parse_double("validate", "--solver-time-limit", optarg,
                                       &o.solve.time_limit))) {
                cli_target_args_free(&ta);
                return rc;
            }
            break;
        case CLI_OPT_TARGET:
        case CLI_OPT_SET:
            if (cli_target_args_take(&ta, c, optarg)) {
                cli_target_args_free(&ta);
                return CLI_FAIL;
            }
            break;
        default: cli_target_args_free(&ta); return cli_bad_option("validate", argv, "qo:");
        }
    }
    if (optind >= argc) {
        cli_target_args_free(&ta);
        return cli_usage("validate", "expected at least one MODEL");
    }
    rc = cli_target_args_resolve(&ta, &o.target, &err);
    cli_target_args_free(&ta);
    if (rc)
        return cli_report(&err);
    struct cm_table tb;
    if (table) {
        if ((rc = cm_table_load(table, &tb, &err)))
            return cli_report(&err);
    } else {
        cm_table_default(&o.target, &tb);
    }
    if (aggn) {
        enum cm_aggregate agg;
        if (cm_aggregate_parse(aggn, &agg))
            return cli_usage("validate", "--aggregate: expected sum, max or pipe");
        cm_table_set_aggregate(&tb, agg, -1);
    }
    struct study_validation out;
    struct ls_progress pb;
    ls_progress_begin(&pb, "validate", 1, quiet);
    o.progress.ctx = &pb;
    o.progress.done = cli_progress_done;
    rc = study_validate((const char *const *)argv + optind, argc - optind, &o, &tb, &out, &err);
    ls_progress_end(&pb);
    if (rc)
        return cli_report(&err);
    struct cli_redirect red;
    if (cli_stdout_begin(&red, outp, &err)) {
        study_validation_free(&out);
        return cli_report(&err);
    }
    if (json) {
        rc = cli_print_json(cli_validation_json(&out)) ? CLI_FAIL : CLI_OK;
        study_validation_free(&out);
        if (cli_stdout_end(&red, rc == CLI_OK, &err))
            return cli_report(&err);
        return rc;
    }
    for (size_t i = 0; i < out.models.len; i++) {
        const struct study_model_eval *m = &out.models.data[i].eval;
        printf("%s:", m->model);
        for (int k = 0; k < STUDY_NSTRATEGIES; k++)
            printf(" %s pred=%lld sim=%lld", m->runs[k].strategy, (long long)m->runs[k].predicted,
                   (long long)m->runs[k].simulated);
        printf("\n  pairs=%lld correct=%lld identical=%lld tau=%.3f median_rel=%.4f exact_within_1pct=%s\n",
               (long long)m->metrics.pw.pairs, (long long)m->metrics.pw.correct,
               (long long)m->metrics.pw.identical,
               isfinite(m->metrics.kendall_tau) ? m->metrics.kendall_tau : NAN,
               or0(m->metrics.median_rel_error), m->criterion.exact_within_1pct ? "yes" : "no");
    }
    printf("all: pairwise_accuracy=%.3f median_rel_error=%.4f\n", or0(out.all.pairwise_accuracy),
           or0(out.all.median_rel_error));
    study_validation_free(&out);
    return cli_stdout_end(&red, 1, &err) ? cli_report(&err) : CLI_OK;
}
