/* laysim study (and the shared driver of laysim whatif): run the study grid into the
 * results store, then write the report from the store. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/status.h"
#include "cli/targetargs.h"
#include "report/report.h"
#include "util/fileio.h"
#include "study/study.h"
#include "util/vec.h"

const char cmd_study_help[] =
    "usage: laysim study [--quick | --models SET] [--target NAME|FILE] [--set KEY=VALUE]...\n"
    "                    [--out DIR] [--resume | --force] [--shard K/N] [--threads N]\n"
    "                    [--no-calibrate | --calibrate-only | --calibrated-tables DIR]\n"
    "                    [--exact-time-limit S] [--dp-time-limit S] [--dp-mem-limit MIB]\n"
    "                    [--mcts-evaluations N] [--mcts-time-limit S] [--json] [--quiet]\n"
    "Reproduce the shape of the paper's evaluation on the simulated core: per model, the\n"
    "simulated time of local, greedy, rulebased and exact (Table 1) under the datasheet and\n"
    "the calibrated latency table, relative-performance CDFs and transposes (RQ1), the\n"
    "treewidth histogram and dp vs exact runtimes (RQ2), optimality gaps (RQ3), pairwise\n"
    "ranking accuracy and the predicted-vs-simulated heatmap before and after calibration\n"
    "(RQ4); and the autotuner (mcts: Monte-Carlo tree search over layout plans, rewarded\n"
    "by simulated time, started from exact's assignment) against exact under both tables.\n"
    "Writes DIR/report.html (self-contained), report.md, results.json, cells.csv,\n"
    "table1.csv and the results store DIR/results.sqlite (docs/study.md); prints the Table 1\n"
    "analogue and the headline figures.\n"
    "  --quick             the default model set: one model per family, scaled down\n"
    "  --models SET        quick (default), full (every zoo model, published size),\n"
    "                      all-quick (every zoo model, quick scale), or NAME[:quick],...\n"
    CLI_TARGET_HELP
    "  --out DIR           output directory (default out/study)\n"
    "  --resume            keep DIR/results.sqlite and skip (model, target) cells in it\n"
    "  --force             replace the results already in DIR (without --resume or --force,\n"
    "                      a DIR holding results is an error: nothing is overwritten silently)\n"
    "  --shard K/N         run only the K-th of N slices of the grid (merge with laysim merge)\n"
    CLI_HELP(THREADS)
    "  --jobs N            deprecated spelling of --threads (for one release)\n"
    "  --no-calibrate      only the datasheet table\n"
    "  --calibrate-only    only write the calibrated table(s) of the shard's targets into\n"
    "                      --out: no cell runs, no report (a first stage of a sharded run)\n"
    "  --calibrated-tables DIR  read the calibrated tables from DIR (a --calibrate-only run\n"
    "                      of the same grid) instead of fitting them\n"
    "  --exact-time-limit S  per exact solve (default "
    LS_STRINGIFY(STUDY_EXACT_TIME_LIMIT_DEFAULT) ")\n"
    "  --dp-time-limit S   per treewidth-DP solve (default " LS_STRINGIFY(STUDY_DP_TIME_LIMIT_DEFAULT)
    ")\n"
    "  --dp-mem-limit MIB  treewidth-DP table budget (default "
    LS_STRINGIFY(STUDY_DP_MEM_LIMIT_MIB_DEFAULT) ")\n"
    "  --mcts-evaluations N  autotuner budget per model and table: distinct designs\n"
    "                      simulated, the start included (default "
    LS_STRINGIFY(STUDY_MCTS_DEFAULT) " for study, 0 for\n"
    "                      whatif; 0 = no mcts cells)\n"
    "  --mcts-time-limit S wall-clock cap per mcts cell (default "
    LS_STRINGIFY(STUDY_MCTS_TIME_LIMIT_DEFAULT) "; 0 = none); a cell cut\n"
    "                      by it shows fewer evaluations than its budget\n"
    CLI_MODEL_HELP_autocast
    "                      (--resume refuses a DIR run with another mode)\n"
    CLI_STUDY_JSON_HELP
    CLI_HELP(QUIET)
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage (nothing is run).\n";

/* Shared with whatif.c. */
int cli_study_main(int argc, char **argv, int whatif);


/* Which cells failed or were skipped at an expected limit, and why: the summary's count
 * alone tells nothing. */
static void print_failed(const struct study_cells *cells)
{
    for (size_t i = 0; i < cells->len; i++) {
        const struct study_cell *c = &cells->data[i];
        if (c->rc)
            printf("  %s: %s / %s / %s table%s%s: %s\n",
                   cli_cell_skipped(c) ? "skipped: " CLI_CELL_SKIPPED : "failed", c->model,
                   c->strategy, c->table, c->variant[0] ? " / " : "", c->variant, c->error);
    }
}

static int print_summary_json(const char *cmd, const char *out,
                              const struct study_cells *cells, const struct study_summary *sum,
                              struct ls_error *err)
{
    json_t *counts = json_pack("{s:I, s:I, s:I, s:f}", "jobs", (json_int_t)sum->jobs,
                               "jobs_run", (json_int_t)sum->jobs_run, "jobs_skipped",
                               (json_int_t)sum->jobs_skipped, "seconds", sum->seconds);
    if (cli_print_json(cli_study_json(cmd, out, cells, counts)))
        return ls_error_msg(err, LS_ERR_IO, "cannot write the JSON summary");
    return 0;
}

static int mkdirs(const char *dir, struct ls_error *err)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1;; p++) {
        if (*p == '/' || !*p) {
            char c = *p;
            *p = 0;
            if (mkdir(buf, 0777) && errno != EEXIST)
                return ls_error_set(err, LS_ERR_IO, buf, 0, 0, "cannot create directory: %s",
                                    strerror(errno));
            *p = c;
            if (!c)
                break;
        }
    }
    return 0;
}

/* The cells a resumed run keeps must come from models with the same dtype pass: a run
 * recorded before the pass existed (meta without "autocast") ran with none. Records ours. */
static int same_autocast(struct study_db *st, const char *dir, enum graph_autocast mode,
                         struct ls_error *err)
{
    char have[32], ran[32];
    int rc = study_db_meta_get(st, "autocast", have, sizeof have, err);
    if (!rc && !have[0])
        rc = study_db_meta_get(st, "command", ran, sizeof ran, err);
    if (rc)
        return rc;
    const char *prev = have[0] ? have : ran[0] ? "none" : NULL;
    const char *now = graph_autocast_name(mode);
    if (prev && strcmp(prev, now))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "%s holds results of models run with --autocast %s, not %s: resume "
                            "with --autocast %s, or --force to replace them", dir, prev, now,
                            prev);
    return study_db_meta_set(st, "autocast", now, err);
}

/* What an interrupted study kept and the command that resumes it (cli/status). */
struct resume_hint {
    const char *cmd, *store;
    char again[2048];
};

static void resume_init(struct resume_hint *h, const char *cmd, const char *store, int argc,
                        char **argv)
{
    h->cmd = cmd;
    h->store = store;
    size_t len = 0;
    int resume = 0;
    h->again[0] = 0;
    cli_shell_append(h->again, sizeof h->again, &len, cli_program());
    cli_shell_append(h->again, sizeof h->again, &len, cmd);
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--force"))
            continue;  /* the resumed run keeps what this one wrote */
        resume |= !strcmp(argv[i], "--resume");
        cli_shell_append(h->again, sizeof h->again, &len, argv[i]);
    }
    if (!resume)
        cli_shell_append(h->again, sizeof h->again, &len, "--resume");
}

static void resume_print(void *ctx, FILE *out, size_t done, size_t total)
{
    const struct resume_hint *h = ctx;
    if (done)
        fprintf(out, "laysim %s: interrupted: the cells of %zu of %zu jobs of this run are kept "
                "in %s\n", h->cmd, done, total, h->store);
    else
        fprintf(out, "laysim %s: interrupted before a job of this run ended: %s keeps what "
                "earlier runs stored\n", h->cmd, h->store);
    fprintf(out, "resume with: %s\n", h->again);
}

/* "laysim ARGS..." (malloc'd, as long as the arguments; NULL when out of memory). */
static char *command_line(int argc, char **argv)
{
    LS_VEC(char) b = {0};
    int bad = LS_VEC_APPEND(&b, "laysim", 6);
    for (int i = 0; i < argc && !bad; i++)
        bad = LS_VEC_PUSH(&b, ' ') || LS_VEC_APPEND(&b, argv[i], strlen(argv[i]));
    if (bad || LS_VEC_PUSH(&b, '\0')) {
        free(b.data);
        return NULL;
    }
    return b.data;
}

int cli_study_main(int argc, char **argv, int whatif)
{
    enum { O_MODELS = 0x500, O_QUICK, O_OUT, O_RESUME, O_SHARD, O_JOBS, O_NOCAL, O_EXTL,
           O_DPTL, O_DPML, O_MCTS, O_MCTL, O_FORCE,
           O_CALONLY, O_CALIN };
    static const struct option lo[] = {CLI_TARGET_LONGOPTS
                                       {"models", required_argument, NULL, O_MODELS},
                                       {"quick", no_argument, NULL, O_QUICK},
                                       {"out", required_argument, NULL, O_OUT},
                                       {"resume", no_argument, NULL, O_RESUME},
                                       {"force", no_argument, NULL, O_FORCE},
                                       {"shard", required_argument, NULL, O_SHARD},
                                       CLI_LONGOPT(THREADS)
                                       {"jobs", required_argument, NULL, O_JOBS},
                                       {"no-calibrate", no_argument, NULL, O_NOCAL},
                                       {"calibrate-only", no_argument, NULL, O_CALONLY},
                                       {"calibrated-tables", required_argument, NULL, O_CALIN},
                                       {"exact-time-limit", required_argument, NULL, O_EXTL},
                                       {"dp-time-limit", required_argument, NULL, O_DPTL},
                                       {"dp-mem-limit", required_argument, NULL, O_DPML},
                                       {"mcts-evaluations", required_argument, NULL, O_MCTS},
                                       {"mcts-time-limit", required_argument, NULL, O_MCTL},
                                       CLI_LONGOPT(QUIET)
                                       CLI_LONGOPT(JSON)
                                       CLI_MODEL_LONGOPT(autocast)
                                       {NULL, 0, NULL, 0}};
    const char *cmd = whatif ? "whatif" : "study";
    struct study_opts o;
    study_opts_init(&o);
    long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    o.jobs = nproc > 0 ? (int)(nproc > 64 ? 64 : nproc) : 1;
    o.mcts_evaluations = whatif ? 0 : STUDY_MCTS_DEFAULT;
    const char *models = "quick", *out = whatif ? "out/whatif" : "out/study";
    const char *target = NULL;
    const char *sets[16];
    size_t nsets = 0;
    int quiet = 0, force = 0, json = 0, c;
    enum graph_autocast autocast = GRAPH_AUTOCAST_MATMUL;
    struct ls_error err = {0};
    unsigned long long u;
    double dv;
    optind = 1;
    while ((c = getopt_long(argc, argv, "q", lo, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_TARGET: target = optarg; break;
        case CLI_OPT_SET:
            if (nsets == 16)
                return cli_usage(cmd, "at most 16 --set options");
            sets[nsets++] = optarg;
            break;
        case O_MODELS: models = optarg; break;
        case O_QUICK: models = "quick"; break;
        case O_OUT: out = optarg; break;
        case O_RESUME: o.resume = 1; break;
        case O_FORCE: force = 1; break;
        case O_SHARD:
            if (study_parse_shard(optarg, &o.shard_k, &o.shard_n, &err))
                return cli_usage(cmd, "%s", err.msg);
            break;
        case O_JOBS:
            fprintf(stderr, "laysim %s: --jobs is deprecated, say --threads\n", cmd);
            /* fall through */
        case CLI_OPT_THREADS:
            if (cli_parse_u64(cmd, CLI_FLAG_ARG(THREADS), optarg, &u))
                return CLI_USAGE;
            if (u < 1 || u > 64)
                return cli_usage(cmd, "--threads must be 1..64");
            o.jobs = (int)u;
            break;
        case O_NOCAL: o.calibrate = 0; break;
        case O_CALONLY: o.calibrate_only = 1; break;
        case O_CALIN: o.table_in = optarg; break;
        case O_EXTL:
            if (cli_parse_double(cmd, "--exact-time-limit", optarg, &o.exact_time_limit))
                return CLI_USAGE;
            break;
        case O_DPTL:
            if (cli_parse_double(cmd, "--dp-time-limit", optarg, &o.dp_time_limit))
                return CLI_USAGE;
            break;
        case O_DPML:
            if (cli_parse_double(cmd, "--dp-mem-limit", optarg, &dv))
                return CLI_USAGE;
            if (dv < 1)
                return cli_usage(cmd, "--dp-mem-limit must be at least 1 MiB");
            o.dp_mem_limit = (int64_t)(dv * 1048576.0);
            break;
        case O_MCTS:
            if (cli_parse_u64(cmd, "--mcts-evaluations", optarg, &u))
                return CLI_USAGE;
            if (u > 1000000)
                return cli_usage(cmd, "--mcts-evaluations must be 0..1000000");
            o.mcts_evaluations = u;
            break;
        case O_MCTL:
            if (cli_parse_double(cmd, "--mcts-time-limit", optarg, &o.mcts_time_limit))
                return CLI_USAGE;
            if (!(o.mcts_time_limit >= 0))
                return cli_usage(cmd, "--mcts-time-limit must be >= 0");
            break;
        case CLI_OPT_QUIET: quiet = 1; break;
        case CLI_OPT_JSON: json = 1; break;
        case CLI_OPT_MODEL + MODEL_OPT_autocast:
            if (graph_autocast_parse(optarg, &autocast))
                return cli_usage(cmd, "--autocast: expected none or matmul, got '%s'", optarg);
            break;
        default: return cli_bad_option(cmd, argv, "q");
        }
    }
    if (optind != argc)
        return cli_usage(cmd, "unexpected argument '%s'", argv[optind]);
    if (!o.calibrate + o.calibrate_only + !!o.table_in > 1)
        return cli_usage(cmd, "--no-calibrate, --calibrate-only and --calibrated-tables "
                         "exclude each other");
    if (whatif && nsets == 0)
        return cli_usage(cmd, "give at least one --set KEY=V1,V2,...");

    /* everything is validated before anything runs */
    struct sim_target base;
    struct cli_target_args ta = {0};
    int rc = 0;
    if (target && cli_target_args_take(&ta, CLI_OPT_TARGET, target))
        return CLI_FAIL;
    for (size_t i = 0; !whatif && i < nsets; i++)
        if (cli_target_args_take(&ta, CLI_OPT_SET, sets[i])) {
            cli_target_args_free(&ta);
            return CLI_FAIL;
        }
    rc = cli_target_args_resolve(&ta, &base, &err);
    cli_target_args_free(&ta);
    if (rc)
        return cli_report(&err);
    if ((rc = study_models_select(models, &o.models, &err)) ||
        (rc = study_targets_product(&base, whatif ? sets : NULL, whatif ? nsets : 0, 1,
                                    &o.targets, &err))) {
        study_opts_free(&o);
        return cli_report(&err);
    }
    for (size_t i = 0; i < o.models.n; i++)
        o.models.m[i].opts.autocast = (int)autocast;

    char path[1200];
    struct resume_hint hint;
    struct cli_status status;
    int lock = -1, status_on = 0;
    struct study_db *st = NULL;
    char *cmdline = NULL;
    if (strlen(out) > 1000) {   /* the file names below are built in fixed buffers */
        rc = ls_error_msg(&err, LS_ERR_INPUT, "--out: a directory name of at most 1000 bytes");
        goto done;
    }
    /* one run per directory: before anything there is read, replaced or swept */
    if ((rc = mkdirs(out, &err)) || (rc = ls_dir_lock(out, &lock, &err)))
        goto done;
    snprintf(path, sizeof path, "%s/results.sqlite", out);
    /* from here on a run is under way: say what it does, and how to resume it on SIGINT */
    resume_init(&hint, cmd, path, argc, argv);
    cli_status_start(&status, cmd, "jobs", quiet, resume_print, &hint);
    status_on = 1;
    o.progress = cli_status_cb(&status);
    study_progress_phase(&o.progress, "opening the results store");
    char tune_db[1200];
    snprintf(tune_db, sizeof tune_db, "%s/tune-metrics.sqlite", out);
    if (!o.resume && !force && access(path, F_OK) == 0) {
        rc = ls_error_msg(&err, LS_ERR_INPUT,
                          "%s already holds results: --resume continues that %s, --force "
                          "replaces it", out, whatif ? "what-if" : "study");
        goto done;
    }
    if (!o.resume) {
        /* a fresh study: no results and no simulated times from an earlier run */
        static const char *const files[] = {"results.sqlite", "results.sqlite-journal",
                                            "tune-metrics.sqlite", "tune-metrics.sqlite-wal",
                                            "tune-metrics.sqlite-shm"};
        for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
            char f[1300];
            snprintf(f, sizeof f, "%s/%s", out, files[i]);
            unlink(f);
        }
    }
    /* what a killed run of ours left half-written (the outputs themselves are replaced
     * atomically at the end) */
    static const char *const outputs[] = {"results.json", "report.html", "report.md", "*.csv",
                                          "calibrated-table*.json"};
    ls_remove_stale_temps(out, outputs, sizeof outputs / sizeof outputs[0]);
    if ((rc = study_db_open(path, STUDY_DB_CELLS, &st, &err)))
        goto done;
    o.table_dir = out;
    o.tune_db = tune_db;
    char hash[24];
    if (!(cmdline = command_line(argc, argv))) {
        rc = ls_error_msg(&err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)sim_target_hash(&base));
    if ((rc = same_autocast(st, out, autocast, &err)))
        goto done;
    if ((rc = study_db_meta_set(st, "kind", whatif ? "whatif" : "study", &err)) ||
        (rc = study_db_meta_set(st, "base_hash", hash, &err)) ||
        (rc = study_db_meta_set(st, "laysim_version", LAYSIM_VERSION, &err)) ||
        (rc = study_db_meta_set(st, "command", cmdline, &err)))
        goto done;
    struct study_summary sum;
    rc = study_run(&o, st, &sum, &err);
    if (rc || o.calibrate_only)
        goto done;
    struct study_cells cells;
    study_progress_phase(&o.progress, "writing the report");
    if ((rc = study_db_load(st, &cells, &err)))
        goto done;
    struct report_opts ro = {whatif ? "whatif" : "study", cmdline, sum.seconds,
                                   sum.calibration_api, hash};
    rc = report_write(&cells, &ro, out, &err);
    cli_status_stop(&status);
    status_on = 0;
    if (!rc && json)
        rc = print_summary_json(cmd, out, &cells, &sum, &err);
    else if (!rc && !quiet) {
        report_terminal(&cells, &ro, stdout);
        size_t skipped = 0;   /* dp over its memory limit: expected, not a failure */
        for (size_t i = 0; i < cells.len; i++)
            skipped += cli_cell_skipped(&cells.data[i]);
        size_t failed = sum.cells_failed > skipped ? sum.cells_failed - skipped : 0;
        printf("\n%zu jobs (%zu run, %zu already in the store), %zu cells (%zu failed", sum.jobs,
               sum.jobs_run, sum.jobs_skipped, sum.cells, failed);
        if (skipped)
            printf(", %zu skipped: " CLI_CELL_SKIPPED, skipped);
        printf(") in %.1f s; report: %s/report.html\n", sum.seconds, out);
        print_failed(&cells);
    }
    study_cells_free(&cells);
done:
    if (status_on)
        cli_status_stop(&status);
    free(cmdline);
    study_db_close(st);
    ls_dir_unlock(lock);
    study_opts_free(&o);
    return rc ? cli_report(&err) : CLI_OK;
}

int cmd_study(int argc, char **argv)
{
    return cli_study_main(argc, argv, 0);
}
