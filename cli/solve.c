/* laysim solve: run a layout selection solver on a problem. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/layouts.h"
#include "cli/modelcmd.h"
#include "solver/answer.h"
#include "solver/solver.h"
#include "study/study_tune.h"
#include "util/clock.h"

const char cmd_solve_help[] =
    "usage: laysim solve P.lsp|MODEL [--solver NAME] [--time-limit S] [--seed N]\n"
    "                          [--param KEY=VALUE]... [--mem-limit MIB] [-o S.sol] [--json]\n"
    "                          [-q] [--layouts]\n"
    "                          [model options]\n"
    "       laysim solve P.lsp|MODEL --from-external FORMAT=ANSWER [-o S.sol] [--json]\n"
    "       laysim solve --list\n"
    "\n"
    "Solve a layout selection problem and write the solution (.sol). The problem is a\n"
    ".lsp file ('-' = stdin), or a MODEL (zoo:NAME, a .lg file, a config.json, a .onnx, a\n"
    "TF.js model.json or an HLO .hlo) whose problem is built first exactly as `laysim problem` builds it\n"
    "with the same options.\n"
    "\n"
    "options:\n"
    "  --solver NAME       solver to run (default rulebased); --list shows them all\n"
    "  --mem-limit MIB     table budget of exact (exact.mem_limit) or dp (dp.mem_limit),\n"
    "                      or the memory z3's process may take (z3.mem_limit); defaults:\n"
    "                      --list\n"
    CLI_HELP(TIME_LIMIT)
    "                      a MODEL's problem is built within it (exit 1 when it runs out\n"
    "                      there); a solver that hits it returns its best solution so far\n"
    "                      (status feasible); a progress bar shows the time used (stderr,\n"
    "                      terminal only)\n"
    CLI_HELP(QUIET)
    "                      (with -o FILE no summary line: the solution is the result;\n"
    "                      without -o the summary is, and stays)\n"
    CLI_HELP(SEED)
    "                      (of the randomized solvers)\n"
    "  --param KEY=VAL     solver-specific knob, repeatable (docs/solvers.md), e.g.\n"
    "                      rb.exhaustive_max=1e6; --list shows every solver's keys with\n"
    "                      type, default and range; a key the solver does not take exits 2\n"
    "                      and names the valid ones\n"
    CLI_HELP(OUTPUT)
    "                      (the solution, .sol)\n"
    CLI_HELP(JSON)
    "                      one object: solver, status, cost, lower_bound (null when\n"
    "                      unknown), seconds, op_cost, transpose_cost, ops and stats\n"
    "  --from-external FORMAT=ANSWER\n"
    "                      run no solver: read an external solver's ANSWER to\n"
    "                      `laysim export --to FORMAT` of the same problem, check it and\n"
    "                      write it as a .sol. FORMAT: wcnf (a MaxSAT solver's output, `v`\n"
    "                      lines as literals or bit-string), cfn (toulbar2 -w=ANSWER), lp\n"
    "                      (cbc ... solve solu ANSWER). Status optimal only when the answer\n"
    "                      claims it with the recomputed objective (docs/solvers.md).\n"
    "                      The solver options (--solver, --time-limit, --seed, --param)\n"
    "                      do not apply and are refused\n"
    "  --layouts           also list, per tensor, the produced layout (label) and producer,\n"
    "                      each consumer slot's requested layout and the conversions paid\n"
    "                      (stdout; with --json a \"layouts\" array of {tensor, layout,\n"
    "                      producer, producer_cfg, consumers: [{op, slot, layout}],\n"
    "                      conversions: [{to, cost}]})\n"
    "  --list              list the registered solvers and their --param keys (with --json:\n"
    "                      an array of {name, summary, params: [{key, type, default, min,\n"
    "                      max, choices, help}]})\n"
    "\n"
    "--solver mcts is the autotuner (`laysim tune`) with its defaults: Monte-Carlo tree\n"
    "search over layout plans rewarded by simulated cycles, from a start solver's plan, a\n"
    "budget of evaluations (--param tune.evaluations=N, tune.start=SOLVER). It needs a MODEL: a\n"
    "bare .lsp has no program to simulate (exit 2).\n"
    "model options (only with a MODEL):\n"
    CLI_MODELCMD_HELP
    "\n"
    "Without --json a one-line summary goes to stdout. The reported cost is always\n"
    "re-checked against an independent evaluation of the objective. A solve that ends\n"
    "with status unknown (no assignment within its limits) writes and prints it, then\n"
    "exits 1.\n";

static json_t *result_json(const char *name, const struct lsp_problem *p,
                           const struct lsp_result *r)
{
    json_t *o = json_object();
    json_object_set_new(o, "solver", json_string(name));
    json_object_set_new(o, "status", json_string(lsp_status_name(r->sol.status)));
    int has = r->sol.cfg && r->sol.nops == p->nops;
    int64_t opc = 0, trc = 0;
    if (has)
        lsp_eval(p, r->sol.cfg, &opc, &trc);
    json_object_set_new(o, "cost", has ? json_integer(r->sol.cost) : json_null());
    json_object_set_new(o, "lower_bound", r->sol.has_bound ? json_integer(r->sol.bound) : json_null());
    json_object_set_new(o, "seconds", json_real(r->seconds));
    json_object_set_new(o, "op_cost", has ? json_integer(opc) : json_null());
    json_object_set_new(o, "transpose_cost", has ? json_integer(trc) : json_null());
    json_object_set_new(o, "ops", json_integer(p->nops));
    json_t *st = json_object();
    for (int i = 0; i < r->stats.n; i++) {
        double v = r->stats.item[i].value;
        json_object_set_new(st, r->stats.item[i].key,
                            v == (double)(json_int_t)v ? json_integer((json_int_t)v) : json_real(v));
    }
    json_object_set_new(o, "stats", st);
    return o;
}

/* --from-external FORMAT=FILE: the answer read back, checked, as r->sol. */
static int read_external(const char *spec, const struct lsp_problem *p, struct lsp_result *r,
                         struct lsp_answer_claim *claim, struct ls_error *err)
{
    const char *eq = strchr(spec, '=');
    char fmt[16];
    snprintf(fmt, sizeof fmt, "%.*s", eq ? (int)(eq - spec) : 0, spec);
    int f = eq ? lsp_answer_format_parse(fmt) : -1;
    if (f < 0)
        return ls_error_msg(err, LS_ERR_INPUT, "--from-external %s: expected FORMAT=FILE with "
                            "FORMAT wcnf, cfn or lp", spec);
    int rc = lsp_answer_read(p, f, eq + 1, &r->sol, claim, err);
    if (!rc)
        rc = lsp_solution_verify(p, &r->sol, err);
    return rc;
}

/* The command line of solve. */
struct solve_cli {
    struct cli_modelcmd mc;
    struct lsp_solve_opts so;
    const char *solver, *out, *external;
    const char *solver_opts;   /* the last solver option given, for --from-external */
    double mem_mib;            /* --mem-limit; 0: the solver's default */
    char mem_param[64];        /* its solver parameter (so keeps a pointer to it) */
    int json, list, quiet, layouts, model_opts;
};

/* One option; CLI_OK or the exit code of a usage error. */
static int solve_opt(struct solve_cli *s, int c, const char *arg, char **argv)
{
    struct ls_error err;
    unsigned long long v;
    int mrc = CLI_OK;
    ls_error_clear(&err);
    switch (c) {
    case 's': s->solver = arg; s->solver_opts = "--solver"; return CLI_OK;
    case CLI_OPT_TIME_LIMIT:
        s->solver_opts = CLI_FLAG_ARG(TIME_LIMIT);
        if (cli_parse_double("solve", CLI_FLAG_ARG(TIME_LIMIT), arg, &s->so.time_limit))
            return CLI_USAGE;
        return s->so.time_limit < 0 ? cli_usage("solve", "--time-limit must be >= 0") : CLI_OK;
    case CLI_OPT_SEED:
        s->solver_opts = CLI_FLAG_ARG(SEED);
        if (cli_parse_u64("solve", CLI_FLAG_ARG(SEED), arg, &v))
            return CLI_USAGE;
        s->so.seed = v;
        return CLI_OK;
    case CLI_OPT_THREADS:    /* kept only to say why it went (docs/cli.md) */
        return cli_usage("solve", "--threads was removed: no solver uses threads (study "
                                  "and calibrate take --threads)");
    case 'P':
        s->solver_opts = "--param";
        return lsp_opts_add_param(&s->so, arg, &err) ? cli_usage("solve", "%s", err.msg) : CLI_OK;
    case 'M':
        s->solver_opts = "--mem-limit";
        if (cli_parse_double("solve", "--mem-limit", arg, &s->mem_mib))
            return CLI_USAGE;
        if (!(s->mem_mib >= 1 && s->mem_mib <= 1 << 30))
            return cli_usage("solve", "--mem-limit must be between 1 and 2^30 MiB");
        return CLI_OK;
    case 'o': s->out = arg; return CLI_OK;
    case CLI_OPT_JSON: s->json = 1; return CLI_OK;
    case 'q': s->quiet = 1; return CLI_OK;
    case 'L': s->list = 1; return CLI_OK;
    case 'X': s->external = arg; return CLI_OK;
    case 'Y': s->layouts = 1; return CLI_OK;
    default:
        if (cli_modelcmd_opt(&s->mc, "solve", c, arg, &mrc)) {
            s->model_opts = 1;
            return mrc;
        }
        return cli_bad_option("solve", argv, "o:q");
    }
}

/* The checks across options, after parsing. */
static int solve_check(struct solve_cli *s, int argc)
{
    struct ls_error err;
    ls_error_clear(&err);
    if (optind + 1 != argc)
        return cli_usage("solve", "expected exactly one problem file or MODEL");
    if (s->external && s->solver_opts)
        return cli_usage("solve", "%s does not apply to --from-external, which runs no solver",
                         s->solver_opts);
    if (!lsp_solver_find(s->solver))
        return cli_usage("solve", "unknown solver '%s' (see --list)", s->solver);
    if (s->mem_mib > 0) {   /* the memory-bounded solvers' own knob */
        if (strcmp(s->solver, "exact") && strcmp(s->solver, "dp") && strcmp(s->solver, "z3"))
            return cli_usage("solve", "--mem-limit applies to the exact, dp and z3 solvers only");
        snprintf(s->mem_param, sizeof s->mem_param, "%s.mem_limit=%.0f", s->solver,
                 s->mem_mib * 1048576.0);
        if (lsp_opts_add_param(&s->so, s->mem_param, &err))
            return cli_usage("solve", "%s", err.msg);
    }
    return CLI_OK;
}

static int solve_parse(struct solve_cli *s, int argc, char **argv)
{
    static const struct option longopts[] = {
        {"solver", required_argument, NULL, 's'}, CLI_LONGOPT(TIME_LIMIT)
        CLI_LONGOPT(SEED)   CLI_LONGOPT(THREADS)
        {"param", required_argument, NULL, 'P'},  CLI_LONGOPT(OUTPUT)
        CLI_LONGOPT(JSON)         {"list", no_argument, NULL, 'L'},
        CLI_LONGOPT(QUIET)        {"from-external", required_argument, NULL, 'X'},
        {"layouts", no_argument, NULL, 'Y'},     {"mem-limit", required_argument, NULL, 'M'},
        CLI_MODELCMD_LONGOPTS,                    {NULL, 0, NULL, 0}};
    int c, rc = CLI_OK;
    optind = 1;
    while (rc == CLI_OK && (c = getopt_long(argc, argv, "o:q", longopts, NULL)) != -1)
        rc = solve_opt(s, c, optarg, argv);
    return rc;
}

static const char *const param_types[] = {"int", "real", "word"};

/* The --param rows of solver (solver/params.def) as JSON, or printed under its line. */
static json_t *solver_params(const char *solver, int json)
{
    size_t n;
    const struct lsp_param_def *d = lsp_param_defs(&n);
    json_t *a = json ? json_array() : NULL;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(d[i].solver, solver))
            continue;
        const char *def = d[i].def[0] ? d[i].def : "computed";
        if (json) {
            json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "key", d[i].key, "type",
                                  param_types[d[i].type], "default", def, "choices",
                                  d[i].choices, "help", d[i].help);
            if (d[i].type != LSP_PARAM_WORD) {
                json_object_set_new(o, "min", json_real(d[i].min));
                json_object_set_new(o, "max", isinf(d[i].max) ? json_null() : json_real(d[i].max));
            }
            json_array_append_new(a, o);
        } else if (d[i].type == LSP_PARAM_WORD) {
            printf("    %s=%s  (%s)  %s\n", d[i].key, def, d[i].choices[0] ? d[i].choices : "text",
                   d[i].help);
        } else if (isinf(d[i].max)) {
            printf("    %s=%s  (%s >= %g)  %s\n", d[i].key, def, param_types[d[i].type], d[i].min,
                   d[i].help);
        } else {
            printf("    %s=%s  (%s in [%g, %g])  %s\n", d[i].key, def, param_types[d[i].type],
                   d[i].min, d[i].max, d[i].help);
        }
    }
    return a;
}

/* --list: the solvers and their parameters, as text or JSON. */
static int solve_list(int json)
{
    size_t n;
    const struct lsp_solver *s = lsp_solvers(&n);
    if (json) {
        json_t *a = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(a, json_pack("{s:s, s:s, s:o}", "name", s[i].name, "summary",
                                               s[i].summary, "params", solver_params(s[i].name, 1)));
        return cli_print_json(a);
    }
    for (size_t i = 0; i < n; i++) {
        printf("%-10s %s\n", s[i].name, s[i].summary);
        solver_params(s[i].name, 0);
    }
    return CLI_OK;
}

/* The result: JSON, or one summary line (unless the .sol goes to stdout), and the layouts. */
static int solve_print(const struct solve_cli *s, const struct lsp_problem *p,
                       struct lsp_result *r, const struct lsp_answer_claim *claim)
{
    int ret = CLI_OK, has_assignment = r->sol.cfg && r->sol.nops == p->nops;
    if (s->json) {
        json_t *o = result_json(s->solver, p, r);
        if (s->layouts && has_assignment)
            json_object_set_new(o, "layouts", cli_layouts_json(p, r->sol.cfg));
        if (s->external)
            json_object_set_new(o, "answer_objective",
                                claim->has_objective ? json_integer(claim->objective) : json_null());
        return cli_print_json(o);
    }
    int to_file = s->out && strcmp(s->out, "-");
    if (!s->out || (to_file && !s->quiet)) {
        printf("%s: %s", s->solver, lsp_status_name(r->sol.status));
        if (has_assignment)
            printf(" cost %lld%s", (long long)r->sol.cost, cli_cost_unit(p));
        if (r->sol.has_bound)
            printf(" bound %lld%s", (long long)r->sol.bound, cli_cost_unit(p));
        if (s->external && claim->has_objective)
            printf(" (%d ops; the answer's objective %lld)\n", p->nops,
                   (long long)claim->objective);
        else
            printf(" (%d ops, %.3f s)\n", p->nops, r->seconds);
    }
    if (s->layouts && has_assignment)   /* stdout holding the .sol: the listing apart */
        cli_layouts_print(p, r->sol.cfg, s->out && !strcmp(s->out, "-") ? stderr : stdout);
    return ret;
}

/* lsp_read within the command's limit *limit_s (<= 0: none), which becomes what is left. */
static int read_lsp_within(const char *path, struct lsp_problem **p, double *limit_s,
                           struct ls_error *err)
{
    uint64_t start = ls_now_ns();
    int rc = lsp_read(path, p, err);
    if (rc || *limit_s <= 0)
        return rc;
    double left = *limit_s - ls_seconds_since(start);
    if (left <= 0)
        return ls_error_msg(err, LS_ERR_LIMIT, "--time-limit %g s ran out reading %s",
                            *limit_s, path);
    *limit_s = left;
    return 0;
}

/* Read the problem (a .lsp, or a MODEL's), solve it (or read the external answer), write
 * the .sol and print the result. */
static int solve_run(struct solve_cli *s, const char *arg)
{
    struct ls_error err;
    ls_error_clear(&err);
    size_t alen = strlen(arg);
    int is_lsp = !strcmp(arg, "-") || (alen > 4 && !strcmp(arg + alen - 4, ".lsp"));
    if (is_lsp && s->model_opts)
        return cli_usage("solve", "model options apply to a MODEL, not to a .lsp file");
    struct lsp_problem *owned = NULL;    /* a .lsp read here; a MODEL's is mc's */
    const struct lsp_problem *p = NULL;
    struct lsp_result r;
    lsp_result_init(&r);
    struct study_tune_sim sim;      /* a MODEL's reward: its simulated time (mcts uses it) */
    /* --time-limit bounds the whole command: the solver gets what the building left */
    double limit_s = s->so.time_limit;
    int rc = is_lsp ? read_lsp_within(arg, &owned, &s->so.time_limit, &err)
                    : cli_modelcmd_open_within(&s->mc, arg, 1, &s->so.time_limit, &err);
    if (!rc && is_lsp) {
        p = owned;
    } else if (!rc) {
        p = s->mc.in->p;
        study_tune_reward(&sim, s->mc.in, &s->mc.t, &s->so);
    }
    struct lsp_answer_claim claim = {0};
    if (!rc && s->external) {
        rc = read_external(s->external, p, &r, &claim, &err);
        s->solver = "external";
    } else if (!rc) {
        struct cli_ticker tk;
        if (s->so.time_limit > 0)
            cli_ticker_start(&tk, "solve", s->so.time_limit, s->quiet);
        rc = lsp_solve(s->solver, p, &s->so, &r, &err);
        if (s->so.time_limit > 0)
            cli_ticker_stop(&tk);
        if (rc == LS_ERR_INPUT && !err.file[0])   /* about the problem: name it */
            snprintf(err.file, sizeof err.file, "%s", arg);
    }
    if (!rc && s->out)
        rc = lsp_sol_write(p, &r.sol, s->out, &err);
    int ret = rc ? cli_report(&err) : solve_print(s, p, &r, &claim);
    if (!rc && ret == CLI_OK && r.sol.status == LSP_UNKNOWN) {
        /* cut by its limit before any assignment: exit 1, as every command so cut */
        char which[64] = "";
        if (limit_s > 0)
            snprintf(which, sizeof which, " (--time-limit %g s)", limit_s);
        ls_error_msg(&err, LS_ERR_LIMIT, "%s ended with status unknown: no solution within its "
                     "limits%s", s->solver, which);
        ret = cli_report(&err);
    }
    lsp_result_free(&r);
    lsp_free(owned);
    return ret;
}

int cmd_solve(int argc, char **argv)
{
    struct solve_cli s;
    memset(&s, 0, sizeof s);
    cli_modelcmd_init(&s.mc);
    lsp_opts_init(&s.so);
    s.solver = "rulebased";
    int rc = solve_parse(&s, argc, argv);
    if (rc == CLI_OK && s.list)
        rc = solve_list(s.json);
    else if (rc == CLI_OK && (rc = solve_check(&s, argc)) == CLI_OK)
        rc = solve_run(&s, argv[optind]);
    cli_modelcmd_close(&s.mc);
    return rc;
}
