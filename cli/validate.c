/* laysim validate: cost-model fidelity of a latency table on models, against the simulator
 * or against times measured elsewhere (a manifest, study/measured.h). */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/fidelity.h"
#include "cli/targetargs.h"
#include "sim/target.h"
#include "study/loop.h"
#include "study/measured.h"
#include "util/csv.h"
#include "util/fileio.h"
#include "util/progress.h"

const char cmd_validate_help[] =
    "usage: laysim validate MODEL... [--table FILE] [--aggregate sum|max|pipe] [--json] [-o OUT]\n"
    "                       [--solver-time-limit S] [--emit DIR [--force]] [--memplan MODE]\n"
    "                       [model scaling] [--target T] [--set K=V]\n"
    "       laysim validate --measured MANIFEST [--json] [-o OUT] [--target T]\n"
    "\n"
    "Solve each model with local, greedy, rulebased and exact under a latency table,\n"
    "compile and simulate each solution, and compare the predicted cost (the .lsp\n"
    "objective) with the simulated time: pairwise ranking accuracy (6 pairs per model,\n"
    "0.5% equality band, identical assignments excluded and counted), Kendall's tau-b,\n"
    "median and max relative error, error attribution of the exact solution (instruction\n"
    "classes, operators, conversions) and the criterion for exact solving. The headline\n"
    "is exact's regret: its simulated time over the best simulated time known for the\n"
    "model (the fastest strategy of this run, or --reference's when lower), minus one.\n"
    "\n"
    "Against times measured elsewhere (hardware, another simulator): --emit DIR writes\n"
    "each strategy's program and DIR/manifest.csv; run the programs, fill the manifest's\n"
    "measured_ns (or a trace column: .lstrace files, e.g. profiles brought in by `laysim\n"
    "trace import`), then --measured DIR/manifest.csv gives the same figures with the\n"
    "measured times in place of the simulated ones (docs/calibration.md, \"Measured\n"
    "references\").\n"
    "\n"
    "options:\n"
    CLI_HELP(TABLE)
    "  --aggregate MODE    override the table's aggregation (sum, max or pipe)\n"
    "  --solver-time-limit S  wall-clock limit of each solve (default: none)\n"
    "  --time-limit S      deprecated spelling of --solver-time-limit (it is per solve)\n"
    "  --emit DIR          also write the programs (<k>-<model>.<strategy>.lsprog) and\n"
    "                      DIR/manifest.csv (created; an existing manifest is an error)\n"
    "  --force             with --emit: replace an existing DIR/manifest.csv\n"
    "  --measured FILE     figures from a manifest's predicted and measured times (no\n"
    "                      MODEL; the base clock of rows without base_mhz: --target's)\n"
    "  --reference FILE    best known simulated times (CSV model,best_cycles[,source]:\n"
    "                      from other tables, mcts, other runs; docs/calibration.md)\n"
    "  --write-reference FILE  write each model's best known time (this run's, or the\n"
    "                      reference's when lower) in that format (atomic)\n"
    CLI_HELP(JSON)
    "                      (the full report)\n"
    CLI_HELP(QUIET)
    CLI_HELP(OUTPUT)
    "                      (the results, text or --json, instead of stdout)\n"
    CLI_MEMPLAN_HELP CLI_MODEL_HELP CLI_TARGET_HELP;

/* an undefined figure prints as 0 in the text summary (as it always has) */
static double or0(double v)
{
    return isfinite(v) ? v : 0;
}

/* the pairwise accuracy, or "n/a" without pairs (the JSON's null) */
static const char *accuracy_text(double v, char buf[16])
{
    if (!isfinite(v))
        return "n/a";
    snprintf(buf, 16, "%.3f", v);
    return buf;
}

/* A fraction as a percentage, or "n/a" when undefined (nothing simulated). */
static const char *pct_text(double v, char buf[16])
{
    if (!isfinite(v))
        return "n/a";
    snprintf(buf, 16, "%.2f%%", 100 * v);
    return buf;
}

struct val_opts {
    struct study_loop_opts lo;
    struct cli_target_args ta;
    const char *table, *aggn, *outp, *emit, *measured, *reference, *write_reference;
    char command[2048];        /* the command line, for the manifest's header */
    int json, quiet, force;
};

/* One option; CLI_OK or the exit code of a usage error. */
static int parse_opt(struct val_opts *v, int c, const char *arg, char **argv)
{
    int rc;
    if (cli_model_opt(&v->lo.zo, c, arg, &rc))
        return rc;
    switch (c) {
    case CLI_OPT_TABLE: v->table = arg; break;
    case 'A': v->aggn = arg; break;
    case CLI_OPT_JSON: v->json = 1; break;
    case 'q': v->quiet = 1; break;
    case 'o': v->outp = arg; break;
    case 'E': v->emit = arg; break;
    case 'F': v->force = 1; break;
    case 'M': v->measured = arg; break;
    case 0x103: v->reference = arg; break;
    case 0x104: v->write_reference = arg; break;
    case 0x102: return cli_parse_memplan("validate", arg, &v->lo.memplan);
    case CLI_OPT_TIME_LIMIT:
        /* --time-limit names a whole command's limit everywhere else (docs/cli.md) */
        fprintf(stderr, "laysim validate: --time-limit is deprecated, say --solver-time-limit\n");
        /* fall through */
    case 's':
        return cli_parse_double("validate", "--solver-time-limit", arg, &v->lo.solve.time_limit);
    case CLI_OPT_TARGET:
    case CLI_OPT_SET: return cli_target_args_take(&v->ta, c, arg) ? CLI_FAIL : CLI_OK;
    default: return cli_bad_option("validate", argv, "qo:");
    }
    return CLI_OK;
}

static int parse_opts(struct val_opts *v, int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_LONGOPT(TABLE)  {"aggregate", required_argument, NULL, 'A'},
        CLI_LONGOPT(TIME_LIMIT) CLI_LONGOPT(JSON)
        {"solver-time-limit", required_argument, NULL, 's'},
        CLI_LONGOPT(QUIET) CLI_LONGOPT(OUTPUT)
        {"emit", required_argument, NULL, 'E'}, {"force", no_argument, NULL, 'F'},
        {"measured", required_argument, NULL, 'M'},
        {"memplan", required_argument, NULL, 0x102},
        {"reference", required_argument, NULL, 0x103},
        {"write-reference", required_argument, NULL, 0x104},
        CLI_MODEL_LONGOPTS CLI_TARGET_LONGOPTS
        {NULL, 0, NULL, 0}};
    memset(v, 0, sizeof *v);
    study_loop_opts_init(&v->lo);
    size_t used = 0;   /* the command line, cut (with "...") when longer than the buffer */
    for (int i = 0; i < argc && used + 4 < sizeof v->command; i++) {
        int k = snprintf(v->command + used, sizeof v->command - used, "%s%s",
                         i ? " " : "laysim ", argv[i]);
        used += k > 0 ? (size_t)k : 0;
    }
    if (used >= sizeof v->command - 4)
        memcpy(v->command + sizeof v->command - 4, "...", 4);
    optind = 1;
    int c, rc = CLI_OK;
    while (rc == CLI_OK && (c = getopt_long(argc, argv, "qo:", longopts, NULL)) != -1)
        rc = parse_opt(v, c, optarg, argv);
    if (rc != CLI_OK)
        return rc;
    if (v->measured && optind < argc)
        return cli_usage("validate", "--measured takes the models from the manifest: no MODEL "
                         "('%s')", argv[optind]);
    if (v->measured && (v->table || v->aggn || v->emit || v->reference || v->write_reference))
        return cli_usage("validate", "--measured takes the predictions from the manifest: "
                         "--table, --aggregate, --emit and --reference do not apply");
    if (!v->measured && optind >= argc)
        return cli_usage("validate", "expected at least one MODEL (or --measured MANIFEST)");
    if (v->force && !v->emit)
        return cli_usage("validate", "--force goes with --emit");
    return CLI_OK;
}

/* --emit DIR: the directory (made when missing) and its manifest's path, which must not
 * exist unless --force. */
static int emit_dir(const struct val_opts *v, char *manifest, size_t n, struct ls_error *err)
{
    if (mkdir(v->emit, 0777) && errno != EEXIST)
        return ls_error_msg(err, LS_ERR_IO, "%s: cannot create the directory: %s", v->emit,
                            strerror(errno));
    int k = snprintf(manifest, n, "%s/manifest.csv", v->emit);
    if (k < 0 || (size_t)k >= n)
        return ls_error_msg(err, LS_ERR_INPUT, "%s: path too long", v->emit);
    if (!v->force && access(manifest, F_OK) == 0)
        return ls_error_msg(err, LS_ERR_INPUT, "%s exists (--force replaces it and the "
                            "programs beside it)", manifest);
    return 0;
}

static void print_text(const struct study_validation *out)
{
    for (size_t i = 0; i < out->models.len; i++) {
        const struct study_model_eval *m = &out->models.data[i].eval;
        printf("%s:", m->model);
        for (int k = 0; k < STUDY_NSTRATEGIES; k++)
            printf(" %s pred=%lld sim=%lld", m->runs[k].strategy, (long long)m->runs[k].predicted,
                   (long long)m->runs[k].simulated);
        const struct study_validate_model *vm = &out->models.data[i];
        char reg[16];
        printf("\n  pairs=%lld correct=%lld identical=%lld tau=%.3f median_rel=%.4f exact_within_1pct=%s"
               " regret=%s (best known %.0f cycles: %s)\n",
               (long long)m->metrics.pw.pairs, (long long)m->metrics.pw.correct,
               (long long)m->metrics.pw.identical,
               isfinite(m->metrics.kendall_tau) ? m->metrics.kendall_tau : NAN,
               or0(m->metrics.median_rel_error), m->criterion.exact_within_1pct ? "yes" : "no",
               pct_text(vm->regret, reg), or0(vm->best_known), vm->best_source);
    }
    char acc[16], reg[16];
    printf("all: pairwise_accuracy=%s median_rel_error=%.4f exact_regret_within_1pct=%d/%d "
           "max_regret=%s\n", accuracy_text(out->all.pairwise_accuracy, acc),
           or0(out->all.median_rel_error), out->regret.within, out->regret.models,
           pct_text(out->regret.max, reg));
}

static void print_measured(const struct study_measured *out, const char *path)
{
    for (size_t i = 0; i < out->models.len; i++) {
        const struct study_measured_model *m = &out->models.data[i];
        printf("%s:", m->model);
        for (int k = 0; k < m->n; k++)
            printf(" %s pred=%.0f measured=%.0f", m->pt[k].strategy, m->pt[k].predicted,
                   m->pt[k].measured);
        printf("\n  pairs=%d correct=%d identical=%d tau=%.3f median_rel=%.4f exact_within_1pct=%s\n",
               m->metrics.pw.pairs, m->metrics.pw.correct, m->metrics.pw.identical,
               isfinite(m->metrics.kendall_tau) ? m->metrics.kendall_tau : NAN,
               or0(m->metrics.median_rel_error),
               m->exact < 0 ? "n/a" : m->criterion.exact_within_1pct ? "yes" : "no");
    }
    char acc[16];
    printf("all (%d rows of %s, measured times): pairwise_accuracy=%s median_rel_error=%.4f\n",
           out->rows, path, accuracy_text(out->all.pairwise_accuracy, acc),
           or0(out->all.median_rel_error));
}

/* Print (text or JSON) into -o or stdout; json: the report (consumed), else text(arg). */
static int print_report(const struct val_opts *v, json_t *json, void (*text)(const void *),
                        const void *arg)
{
    struct ls_error err = {0};
    struct cli_redirect red;
    if (cli_stdout_begin(&red, v->outp, &err)) {
        json_decref(json);
        return cli_report(&err);
    }
    int rc = CLI_OK;
    if (v->json)
        rc = cli_print_json(json) ? CLI_FAIL : CLI_OK;
    else
        text(arg);
    if (!v->json)
        json_decref(json);
    if (cli_stdout_end(&red, rc == CLI_OK, &err))
        return cli_report(&err);
    return rc;
}

struct measured_print {
    const struct study_measured *m;
    const char *path;
};
static void text_measured(const void *arg)
{
    const struct measured_print *p = arg;
    print_measured(p->m, p->path);
}
static void text_validation(const void *arg)
{
    print_text(arg);
}

static int run_measured(struct val_opts *v)
{
    struct study_measured out;
    struct ls_error err = {0};
    if (study_measured_read(v->measured, (double)v->lo.target.base_mhz, &out, &err))
        return cli_report(&err);
    struct measured_print p = {&out, v->measured};
    int rc = print_report(v, cli_measured_json(&out, v->measured), text_measured, &p);
    study_measured_free(&out);
    return rc;
}

/* --write-reference: each model's best known time, in study/regret.h's format. */
static int write_reference(const char *path, const struct study_validation *out,
                           struct ls_error *err)
{
    struct ls_atomic_file af;
    if (ls_atomic_open(&af, path, err))
        return -1;
    fprintf(af.fp, "# best known simulated times (laysim validate --write-reference)\n"
            "model,best_cycles,source\n");
    for (size_t i = 0; i < out->models.len; i++) {
        const struct study_validate_model *m = &out->models.data[i];
        if (!(m->best_known > 0))
            continue;              /* nothing simulated: no best time to pass on */
        ls_csv_put(af.fp, m->eval.model);
        fprintf(af.fp, ",%.0f,", m->best_known);
        const char *src = m->best_source; /* a reference's own source, not a chain of them */
        ls_csv_put(af.fp, strncmp(src, "reference:", 10) == 0 ? src + 10 : src);
        fputc('\n', af.fp);
    }
    return ls_atomic_commit(&af, err);
}

static int run_models(struct val_opts *v, const char *const *models, int n)
{
    struct ls_error err = {0};
    struct cm_table tb;
    char manifest[4096];
    if (v->table ? cm_table_load(v->table, &tb, &err) : (cm_table_default(&v->lo.target, &tb), 0))
        return cli_report(&err);
    if (v->aggn) {
        enum cm_aggregate agg;
        if (cm_aggregate_parse(v->aggn, &agg))
            return cli_usage("validate", "--aggregate: expected sum, max or pipe");
        cm_table_set_aggregate(&tb, agg, -1);
    }
    if (v->emit && emit_dir(v, manifest, sizeof manifest, &err))
        return cli_report(&err);
    v->lo.program_dir = v->emit;
    struct study_validation out;
    struct ls_progress pb;
    ls_progress_begin(&pb, "validate", 1, v->quiet);
    v->lo.progress.ctx = &pb;
    v->lo.progress.done = cli_progress_done;
    struct study_reference ref = {0};
    if (v->reference && study_reference_read(v->reference, &ref, &err)) {
        ls_progress_end(&pb);
        return cli_report(&err);
    }
    int rc = study_validate(models, n, &v->lo, &tb, &out, &err);
    ls_progress_end(&pb);
    if (!rc && v->reference) {
        study_validation_reference(&out, &ref);
        size_t unused = 0;      /* rows naming no model of this run: said, not dropped silently */
        for (size_t i = 0; i < ref.n; i++) {
            size_t k = 0;
            while (k < out.models.len && strcmp(out.models.data[k].eval.model, ref.rows[i].model))
                k++;
            unused += k == out.models.len;
        }
        if (unused)
            fprintf(stderr, "laysim validate: %zu of %zu rows of %s name no model of this run "
                    "(MODEL as given on the command line); their times are not used\n", unused,
                    ref.n, v->reference);
    }
    study_reference_free(&ref);
    if (!rc && v->write_reference && write_reference(v->write_reference, &out, &err)) {
        study_validation_free(&out);
        rc = 1;
    }
    if (rc)
        return cli_report(&err);   /* out is empty */
    if (v->emit && study_measured_write(&out, manifest, (double)v->lo.target.base_mhz,
                                        v->command, &err)) {
        study_validation_free(&out);
        return cli_report(&err);
    }
    if (v->emit)
        fprintf(stderr, "laysim validate: %zu programs and %s written: run them, fill "
                "measured_ns or trace, then `laysim validate --measured %s`\n",
                out.models.len * STUDY_NSTRATEGIES, manifest, manifest);
    rc = print_report(v, cli_validation_json(&out), text_validation, &out);
    study_validation_free(&out);
    return rc;
}

int cmd_validate(int argc, char **argv)
{
    struct val_opts v;
    int rc = parse_opts(&v, argc, argv);
    struct ls_error err = {0};
    if (rc == CLI_OK && cli_target_args_resolve(&v.ta, &v.lo.target, &err))
        rc = cli_report(&err);
    cli_target_args_free(&v.ta);
    if (rc != CLI_OK)
        return rc;
    if (v.measured)
        return run_measured(&v);
    return run_models(&v, (const char *const *)argv + optind, argc - optind);
}
