/* laysim tune: the autotuner — search layout plans, rewarded by simulated time. */
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/modelcmd.h"
#include "solver/solver.h"
#include "study/study_tune.h"
#include "util/fileio.h"
#include "util/progress.h"

/* --evaluations: designs scored by default (a count budget keeps a run deterministic). */
#define TUNE_EVALUATIONS_DEFAULT 200

const char cmd_tune_help[] =
    "usage: laysim tune MODEL [--target ...] [--set ...] [--table FILE] [--start SOLVER]\n"
    "                   [--evaluations N] [--time-limit S] [--seed S] [--explorer NAME]\n"
    "                   [--group N] [--top-k K] [--param KEY=VALUE]... [--db FILE]\n"
    "                   [-o BEST.sol] [--json] [-q]\n"
    "Autotune the layout of MODEL against the simulator: solve the layout problem with a\n"
    "static solver (the start), make each operator (or group of operators) a tuning point\n"
    "whose plans are its no-change plan and its top-K alternatives by static cost, then\n"
    "search designs (one plan per point) with Monte-Carlo tree search, scoring each by\n"
    "compiling the whole program and simulating it. The start is scored first and the best\n"
    "design is kept, so the result is never slower than the start (docs/tune.md).\n"
    "A bare .lsp problem cannot be tuned: it has no program to simulate.\n"
    "\n"
    "options:\n"
    "  --start SOLVER      solver for the start assignment (default rulebased; see\n"
    "                      `laysim solve --list`)\n"
    "  --evaluations N     distinct designs to score, the start included (default "
    LS_STRINGIFY(TUNE_EVALUATIONS_DEFAULT) ";\n"
    "                      0 = no limit: stop at --time-limit or when every design is scored)\n"
    CLI_HELP(TIME_LIMIT)
    "                      (the problem is built within it, the search gets the rest)\n"
    CLI_HELP(SEED)
    "                      (of the search; a count-budgeted run is deterministic)\n"
    "  --explorer NAME     mcts (default), random or sweep\n"
    "  --group N           operators per tuning point, grown over shared tensors (default "
    LS_STRINGIFY(LSP_TUNE_GROUP_DEFAULT) ")\n"
    "  --top-k K           plans per point besides no-change, cheapest by static cost first\n"
    "                      (default " LS_STRINGIFY(LSP_TUNE_TOP_K_DEFAULT) "; 0 = all)\n"
    "  --param KEY=VALUE   mcts knobs: uct_c (0.5), uct_best (0.5), rollout_mutations (1.5),\n"
    "                      score_window (0.05), score_mix (0.5), neighbour_share (0.5);\n"
    "                      node_limit (1e6): search nodes per point when listing its plans\n"
    "  --db FILE           SQLite metric store (table tune_metric): simulated times keyed\n"
    "                      on problem, assignment, target, table and codegen version, reused\n"
    "                      across runs\n"
    CLI_HELP(OUTPUT)
    "                      (the best design as a .sol (cost = the .lsp objective under\n"
    "                      the table; the simulated time in a comment))\n"
    CLI_HELP(JSON)
    "                      (one object with the figures)\n"
    CLI_HELP(QUIET)
    "model options:\n" CLI_MODELCMD_HELP
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage.\n";

enum { OPT_START = 0x500, OPT_EVALS, OPT_EXPLORER, OPT_GROUP, OPT_TOPK,
       OPT_PARAM, OPT_DB };

struct progress_ctx {
    struct ls_progress bar;
    char label[64];
    double base_mhz;
};

static void on_progress(void *ctx, const struct lsp_tune_progress *pr)
{
    struct progress_ctx *pc = ctx;
    double gain = isfinite(pr->start_cycles) && pr->start_cycles > 0
                      ? 100.0 * (pr->best_cycles - pr->start_cycles) / pr->start_cycles
                      : 0;
    snprintf(pc->label, sizeof pc->label, "%.1fus %+.1f%%", pr->best_cycles / pc->base_mhz, gain);
    pc->bar.label = pc->label;
    ls_progress_update(&pc->bar, pr->evaluations);
}

static int set_param(struct study_tune_args *a, const char *kv)
{
    const char *eq = strchr(kv, '=');
    if (!eq)
        return cli_usage("tune", "--param %s: expected KEY=VALUE", kv);
    char key[32];
    size_t n = (size_t)(eq - kv);
    if (n >= sizeof key)
        return cli_usage("tune", "--param %s: unknown key", kv);
    memcpy(key, kv, n);
    key[n] = '\0';
    double v;
    if (cli_parse_double("tune", "--param", eq + 1, &v))
        return CLI_USAGE;
    if (!strcmp(key, "uct_c"))
        a->tune.uct_c = v;
    else if (!strcmp(key, "uct_best"))
        a->tune.uct_best = v;
    else if (!strcmp(key, "rollout_mutations"))
        a->tune.rollout_mutations = v;
    else if (!strcmp(key, "score_window"))
        a->tune.score_window = v;
    else if (!strcmp(key, "score_mix"))
        a->tune.score_mix = v;
    else if (!strcmp(key, "neighbour_share"))
        a->tune.neighbour_share = v;
    else if (!strcmp(key, "node_limit") && v >= 0 && v < 9e18)
        a->space.node_limit = (int64_t)v;
    else
        return cli_usage("tune", "--param %s: unknown key or bad value (uct_c, uct_best, "
                                 "rollout_mutations, score_window, score_mix, "
                                 "neighbour_share, node_limit)",
                         kv);
    return CLI_OK;
}

static json_t *report_json(const char *model, const struct study_tune_args *a,
                           const struct study_tune_report *rep, double base_mhz)
{
    const struct lsp_tune_result *r = &rep->result;
    json_t *o = json_object();
    json_object_set_new(o, "model", json_string(model));
    json_object_set_new(o, "target", json_string(a->target->name));
    json_object_set_new(o, "explorer", json_string(a->tune.explorer));
    json_object_set_new(o, "seed", json_integer((json_int_t)a->tune.seed));
    json_object_set_new(o, "ops", json_integer(a->in->p->nops));
    json_object_set_new(o, "points", json_integer(rep->npoints));
    json_object_set_new(o, "designs_log10", json_real(rep->log10_designs));
    json_object_set_new(o, "evaluations", json_integer((json_int_t)r->evaluations));
    json_object_set_new(o, "simulations", json_integer((json_int_t)rep->simulations));
    json_object_set_new(o, "rejected", json_integer((json_int_t)rep->rejected));
    json_object_set_new(o, "store_hits", json_integer((json_int_t)r->store_hits));
    json_object_set_new(o, "best_at", json_integer((json_int_t)r->best_at));
    json_object_set_new(o, "exhausted", json_boolean(r->exhausted));
    json_object_set_new(o, "timed_out", json_boolean(r->timed_out));
    json_object_set_new(o, "db_rows", rep->db_rows >= 0 ? json_integer(rep->db_rows) : json_null());
    json_t *s = json_object();
    json_object_set_new(s, "solver", json_string(a->start));
    json_object_set_new(s, "cost", json_integer(rep->start.cost));
    json_object_set_new(s, "cycles", isfinite(r->start_cycles) ? json_real(r->start_cycles) : json_null());
    json_object_set_new(s, "us", isfinite(r->start_cycles) ? json_real(r->start_cycles / base_mhz) : json_null());
    json_object_set_new(s, "seconds", json_real(rep->start_seconds));
    json_object_set_new(o, "start", s);
    json_t *b = json_object();
    json_object_set_new(b, "cost", json_integer(rep->best.cost));
    json_object_set_new(b, "cycles", isfinite(r->best_cycles) ? json_real(r->best_cycles) : json_null());
    json_object_set_new(b, "us", isfinite(r->best_cycles) ? json_real(r->best_cycles / base_mhz) : json_null());
    json_object_set_new(o, "best", b);
    double gain = isfinite(r->start_cycles) && isfinite(r->best_cycles) && r->start_cycles > 0
                      ? (r->start_cycles - r->best_cycles) / r->start_cycles
                      : 0;
    json_object_set_new(o, "improvement", json_real(gain));
    json_object_set_new(o, "sim_seconds", json_real(rep->sim_seconds));
    json_object_set_new(o, "seconds", json_real(r->seconds));
    return o;
}

static int write_sol(const char *path, const char *model, const struct study_tune_args *a,
                     const struct study_tune_report *rep, double base_mhz, struct ls_error *err)
{
    const struct lsp_tune_result *r = &rep->result;
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    fprintf(af.fp, "# laysim tune %s: explorer %s, seed %" PRIu64 ", %" PRIu64
                   " evaluations (%" PRIu64 " simulated)\n",
            model, a->tune.explorer, a->tune.seed, r->evaluations, rep->simulations);
    fprintf(af.fp, "# simulated: %.0f cycles (%.3f us); start (%s, cost %" PRId64
                   "): %.0f cycles (%.3f us)\n",
            r->best_cycles, r->best_cycles / base_mhz, a->start, rep->start.cost,
            r->start_cycles, r->start_cycles / base_mhz);
    lsp_sol_write_fp(a->in->p, &rep->best, af.fp);
    return ls_atomic_commit(&af, err);
}

int cmd_tune(int argc, char **argv)
{
    static const struct option lo[] = {
        CLI_MODELCMD_LONGOPTS,
        {"start", required_argument, NULL, OPT_START},
        {"evaluations", required_argument, NULL, OPT_EVALS},
        CLI_LONGOPT(TIME_LIMIT)
        CLI_LONGOPT(SEED)
        {"explorer", required_argument, NULL, OPT_EXPLORER},
        {"group", required_argument, NULL, OPT_GROUP},
        {"top-k", required_argument, NULL, OPT_TOPK},
        {"param", required_argument, NULL, OPT_PARAM},
        {"db", required_argument, NULL, OPT_DB},
        CLI_LONGOPT(OUTPUT)
        CLI_LONGOPT(JSON)
        CLI_LONGOPT(QUIET)
        {NULL, 0, NULL, 0}};
    struct cli_modelcmd mc;
    cli_modelcmd_init(&mc);
    struct study_tune_args a;
    study_tune_args_init(&a);
    a.tune.max_evaluations = TUNE_EVALUATIONS_DEFAULT;
    const char *out = NULL;
    int json = 0, quiet = 0, c, rc = CLI_OK;
    unsigned long long v;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", lo, NULL)) != -1) {
        switch (c) {
        case OPT_START: a.start = optarg; break;
        case OPT_EVALS:
            if (!(rc = cli_parse_u64("tune", "--evaluations", optarg, &v)))
                a.tune.max_evaluations = v;
            break;
        case CLI_OPT_TIME_LIMIT:
            if (!(rc = cli_parse_double("tune", CLI_FLAG_ARG(TIME_LIMIT), optarg, &a.tune.time_limit)) &&
                a.tune.time_limit < 0)
                rc = cli_usage("tune", "--time-limit must be >= 0");
            break;
        case CLI_OPT_SEED:
            if (!(rc = cli_parse_u64("tune", CLI_FLAG_ARG(SEED), optarg, &v)))
                a.tune.seed = v;
            break;
        case OPT_EXPLORER: a.tune.explorer = optarg; break;
        case OPT_GROUP:
            if (!(rc = cli_parse_u64("tune", "--group", optarg, &v)) && (v < 1 || v > 64))
                rc = cli_usage("tune", "--group must be 1..64");
            a.space.group_max_ops = (int32_t)v;
            break;
        case OPT_TOPK:
            if (!(rc = cli_parse_u64("tune", "--top-k", optarg, &v)) && v > 100000)
                rc = cli_usage("tune", "--top-k must be at most 100000");
            a.space.top_k = (int32_t)v;
            break;
        case OPT_PARAM: rc = set_param(&a, optarg); break;
        case OPT_DB: a.db = optarg; break;
        case 'o': out = optarg; break;
        case CLI_OPT_JSON: json = 1; break;
        case 'q': quiet = 1; break;
        default:
            if (!cli_modelcmd_opt(&mc, "tune", c, optarg, &rc))
                rc = cli_bad_option("tune", argv, "o:q");
        }
        if (rc) {
            cli_modelcmd_close(&mc);
            return rc;
        }
    }
    if (optind != argc - 1) {
        cli_modelcmd_close(&mc);
        return cli_usage("tune", "expected one MODEL argument");
    }
    const char *model = argv[optind];
    size_t mlen = strlen(model);
    if (!strcmp(model, "-") || (mlen > 4 && !strcmp(model + mlen - 4, ".lsp"))) {
        cli_modelcmd_close(&mc);
        return cli_usage("tune", "%s: tuning needs a MODEL (zoo:NAME, .lg, config.json, "
                                 ".onnx, model.json): a bare "
                                 ".lsp problem has no program to simulate",
                         model);
    }
    size_t nexp;
    const struct lsp_tune_explorer_info *ex = lsp_tune_explorers(&nexp);
    size_t k = 0;
    while (k < nexp && strcmp(ex[k].name, a.tune.explorer))
        k++;
    if (k == nexp) {
        cli_modelcmd_close(&mc);
        return cli_usage("tune", "unknown explorer '%s' (mcts, random, sweep)", a.tune.explorer);
    }
    if (!lsp_solver_find(a.start)) {
        cli_modelcmd_close(&mc);
        return cli_usage("tune", "unknown start solver '%s' (see `laysim solve --list`)", a.start);
    }
    struct ls_error err = {0};
    if ((rc = cli_modelcmd_open_within(&mc, model, 1, &a.tune.time_limit, &err))) {
        cli_modelcmd_close(&mc);
        return cli_report(&err);
    }
    a.in = mc.in;
    a.target = &mc.t;
    a.table = &mc.tb;
    double base_mhz = mc.t.base_mhz ? (double)mc.t.base_mhz : 1.0;
    struct progress_ctx pc = {.base_mhz = base_mhz};
    snprintf(pc.label, sizeof pc.label, "tune");
    ls_progress_begin(&pc.bar, pc.label, a.tune.max_evaluations, quiet);
    a.tune.progress = on_progress;
    a.tune.progress_ctx = &pc;
    struct study_tune_report rep;
    rc = study_tune(&a, &rep, &err);
    ls_progress_end(&pc.bar);
    if (!rc && out)
        rc = write_sol(out, model, &a, &rep, base_mhz, &err);
    int ret = CLI_OK;
    if (rc) {
        ret = cli_report(&err);
    } else if (json) {
        ret = cli_print_json(report_json(model, &a, &rep, base_mhz));
    } else if (!out || strcmp(out, "-")) {
        const struct lsp_tune_result *r = &rep.result;
        char start[96];
        if (isfinite(r->start_cycles) && r->start_cycles > 0)
            snprintf(start, sizeof start, "start %.0f cycles (%s), %+.2f%%", r->start_cycles,
                     a.start, 100.0 * (r->best_cycles - r->start_cycles) / r->start_cycles);
        else
            snprintf(start, sizeof start, "start (%s) rejected by the target", a.start);
        printf("tune %s: best %.0f cycles (%.3f us), %s; cost %" PRId64 " (start %" PRId64
               "); %" PRIu64 " evaluations, %" PRIu64 " simulated, %.2f s\n",
               model, r->best_cycles, r->best_cycles / base_mhz, start, rep.best.cost,
               rep.start.cost, r->evaluations, rep.simulations, r->seconds);
    }
    study_tune_report_free(&rep);
    cli_modelcmd_close(&mc);
    return ret;
}
