/* cli/modelcmd: options and set-up shared by the commands that take a MODEL and price it
 * on a target (problem, compile, explain, solve MODEL): --target/--set, the scaling
 * options, --table, --output-layout pins and --exact-transpose; then target, table,
 * graph, cost model and (optionally) the priced instance — configurations, .lsp problem,
 * op map — in one call. */
#ifndef LS_CLI_MODELCMD_H
#define LS_CLI_MODELCMD_H

#include "cli/cli.h"
#include "cli/targetargs.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/model.h"

#define CLI_MODELCMD_MAX_PINS 64

/* (--table and --time-limit are shared flags: CLI_OPT_TABLE, CLI_OPT_TIME_LIMIT) */
enum { CLI_OPT_PIN = 0x380, CLI_OPT_EXACT_TR, CLI_OPT_MAX_INSTR, CLI_OPT_MEMPLAN };

#define CLI_MODELCMD_LONGOPTS                                                         \
    CLI_TARGET_LONGOPTS CLI_MODEL_LONGOPTS                                          \
        CLI_LONGOPT(TABLE)                                                            \
        {"output-layout", required_argument, NULL, CLI_OPT_PIN},                      \
        {"exact-transpose", no_argument, NULL, CLI_OPT_EXACT_TR},                     \
        {"memplan", required_argument, NULL, CLI_OPT_MEMPLAN},                        \
        {"max-instructions", required_argument, NULL, CLI_OPT_MAX_INSTR}
#define CLI_MODELCMD_HELP                                                             \
    CLI_TARGET_HELP CLI_MODEL_HELP                                                    \
    CLI_HELP(TABLE) "                      (JSON, docs/costmodel.md); problem and compile must agree\n" \
    "  --output-layout T=A pin graph output T to partition axis A (index or role name;\n" \
    "                      repeatable)\n"                                              \
    "  --exact-transpose   never use the PE transpose for fp32 (not bit-exact on nc-v2)\n" \
    CLI_MEMPLAN_HELP "                      (problem and compile must agree)\n"         \
    "  --max-instructions N  stop (exit 2, naming the op) when a compiled program passes\n" \
    "                      N instructions, or one op or conversion N/" LS_STRINGIFY(CG_STEP_SHARE) \
    " (at least\n                      " LS_STRINGIFY(CG_STEP_FLOOR) ", at most N; default " \
    LS_STRINGIFY(CG_MAX_INSTRUCTIONS_DEFAULT) "; 0 = no limit)\n"
/* --time-limit for the commands whose own work is the pricing and lowering (problem,
 * compile); solve has its own. */
#define CLI_MODELCMD_TIME_LONGOPTS CLI_LONGOPT(TIME_LIMIT)
#define CLI_MODELCMD_TIME_HELP                                                        \
    CLI_HELP(TIME_LIMIT) "                      (pricing and lowering: exit 1 when it runs out)\n"

struct cli_modelcmd {
    /* options, filled by cli_modelcmd_opt */
    struct cli_target_args ta;
    struct zoo_opts zo;
    const char *table;
    const char *pin_specs[CLI_MODELCMD_MAX_PINS];
    int npins;
    struct cg_options cg;
    /* resolved by cli_modelcmd_open */
    struct sim_target t;
    struct cm_table tb;
    struct graph *g;
    int *pins;               /* per graph op: pinned partition axis or -2 */
    struct cm_model *m;
    struct cm_instance *in;  /* problem, configurations, op map: only when built */
    double build_seconds;    /* enumerating and pricing every configuration */
};

void cli_modelcmd_init(struct cli_modelcmd *mc);
/* 1 when getopt code c is one of the shared options: taken, or on error printed with
 * *rc set to the exit code. 0 when c is something else. */
int cli_modelcmd_opt(struct cli_modelcmd *mc, const char *cmd, int c, const char *arg, int *rc);
/* Resolve target and table, load the model, apply pins, build the cost model; with
 * build_problem also the instance (every configuration priced, the .lsp problem). */
int cli_modelcmd_open(struct cli_modelcmd *mc, const char *model, int build_problem,
                      struct ls_error *err);
/* cli_modelcmd_open within a command's wall-clock limit *limit_s (seconds, <= 0: none):
 * the building checks the deadline (LS_ERR_LIMIT naming the limit when it runs out), and
 * *limit_s becomes what is left for the rest of the command (a solver, a search). */
int cli_modelcmd_open_within(struct cli_modelcmd *mc, const char *model, int build_problem,
                             double *limit_s, struct ls_error *err);
void cli_modelcmd_close(struct cli_modelcmd *mc);

#endif
