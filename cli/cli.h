/* cli: the `laysim` command. One file per subcommand; each defines
 * `int cmd_NAME(int argc, char **argv)` (argv[0] is the subcommand name) and its help text,
 * and is listed once in commands.def. */
#ifndef LS_CLI_CLI_H
#define LS_CLI_CLI_H

#include <jansson.h>
#include <stddef.h>
#include <stdio.h>

#include "codegen/codegen.h"
#include "graph/inputs.h"
#include "graph/model.h"
#include "graph/zoo.h"
#include "sim/target.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/prng.h"
#include "util/progress.h"

/* Exit codes, documented in `laysim --help`. */
enum { CLI_OK = 0, CLI_FAIL = 1, CLI_USAGE = 2 };

#define CLI_COMMAND(name, summary) \
    int cmd_##name(int argc, char **argv); \
    extern const char cmd_##name##_help[];
#include "cli/commands.def"
#undef CLI_COMMAND

/* Name the running subcommand in error messages (main, before dispatch). */
void cli_set_command(const char *cmd);
/* The program as invoked (main's argv[0]; "laysim" before main set it): the first word of
 * the commands laysim tells the user to run (a resume hint). */
void cli_set_program(const char *argv0);
const char *cli_program(void);
/* "laysim CMD: " (or "laysim: " before a command runs) in buf; returns buf. */
const char *cli_error_lead(char *buf, size_t n);
/* Print "laysim CMD: <location>: <message>" to stderr; return the exit code for err. */
int cli_report(const struct ls_error *err);
/* Put pfx in front of err's message (truncating the end when needed): the flag a library
 * error is about, which only the CLI knows ("--set: ", "--micro "). */
void cli_error_prefix(struct ls_error *err, const char *pfx);
/* Print "laysim CMD: <message>" and a hint to run --help; return CLI_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* 1 when argv holds -h or --help (before any "--"). */
int cli_wants_help(int argc, char **argv);
/* Print the help text of a subcommand; 0 if known. */
int cli_print_help(const char *cmd, FILE *out);
/* Print a JSON value (indented) to stdout followed by a newline and release it. */
int cli_print_json(json_t *v);
/* A finite number as a JSON real, anything else (NaN: not measured) as null. */
json_t *cli_json_num(double v);
/* Parse a non-negative integer / a double option value; on error print and return CLI_USAGE. */
/* After getopt_long returned '?' (opterr is 0: getopt itself prints nothing): print
 * "laysim CMD: unknown option 'X'" or "option 'X' needs a value"; returns CLI_USAGE. */
int cli_bad_option(const char *cmd, char **argv, const char *shortopts);
/* The shared flags of cli/flags.def (-q/--quiet, which every command accepts, --json,
 * -o/--output, --threads, --time-limit, --seed, --table, --target, --set, -h/--help):
 * CLI_LONGOPT(ID) is the getopt_long entry (with its comma), CLI_HELP(ID) the help text
 * and CLI_OPT_ID the code getopt_long returns for it. */
#include "cli/flags.def"
#define CLI_FLAG_INDEX_(id, name, shrt, arg, help) CLI_FLAG_INDEX_##id,
enum { CLI_FLAGS(CLI_FLAG_INDEX_) CLI_FLAG_COUNT };
enum { CLI_OPT_FLAG = 0x300 };
#define CLI_FLAG_CODE_(id, name, shrt, arg, help) \
    CLI_OPT_##id = (shrt) ? (shrt) : CLI_OPT_FLAG + CLI_FLAG_INDEX_##id,
enum { CLI_FLAGS(CLI_FLAG_CODE_) };
#define CLI_LONGOPT_(id, name, shrt, arg, help) {name, arg, NULL, CLI_OPT_##id},
#define CLI_HELP_(id, name, shrt, arg, help) help
#define CLI_LONGOPT(id) CLI_FLAG_##id(CLI_LONGOPT_)
#define CLI_HELP(id) CLI_FLAG_##id(CLI_HELP_)
#define CLI_ARG_(id, name, shrt, arg, help) "--" name
#define CLI_FLAG_ARG(id) CLI_FLAG_##id(CLI_ARG_)
/* -o FILE for commands that print their results: stdout goes to FILE, written atomically
 * (the file appears, complete, only when cli_stdout_end commits with ok = 1). A NULL or
 * "-" path leaves stdout alone. */
struct cli_redirect {
    struct ls_atomic_file af;
    int saved_fd, active;
};
int cli_stdout_begin(struct cli_redirect *r, const char *path, struct ls_error *err);
int cli_stdout_end(struct cli_redirect *r, int ok, struct ls_error *err);
/* A study_progress_cb `done` over a struct ls_progress (util/progress) as its ctx: the
 * progress bar on stderr that long commands draw (only on a terminal, off with --quiet). */
void cli_progress_done(void *ctx, size_t done, size_t total, const char *what);
/* A progress bar over wall-clock time for a command bounded by a time limit (elapsed of
 * `seconds`), redrawn by a thread until cli_ticker_stop; drawn like the others (terminal
 * only, off with quiet). */
struct cli_ticker {
    struct ls_progress bar;
    unsigned long thread;        /* pthread_t */
    volatile int stop, running;
};
void cli_ticker_start(struct cli_ticker *t, const char *label, double seconds, int quiet);
void cli_ticker_stop(struct cli_ticker *t);
/* The --json run summary of study, whatif and merge after the report was written to dir:
 * kind, out, the members of counts (taken over: jobs, seconds, stores...), cells,
 * cells_failed, failed [{model, strategy, table, variant, error}], outputs (the report
 * files in dir) and headline (per target: relative performance and optimality gap per
 * table and strategy, fidelity, autotuner). NULL when out of memory. */
#define CLI_STUDY_JSON_HELP                                                              \
    CLI_HELP(JSON)                                                                       \
    "                      (the run summary, one object: jobs, cells, failed cells with\n" \
    "                      their reasons, output paths and the headline figures per\n"   \
    "                      target; docs/cli.md)\n"
struct study_cells;
json_t *cli_study_json(const char *kind, const char *dir, const struct study_cells *cells,
                       json_t *counts);
/* A cell that reached an expected limit rather than failing: the treewidth DP over its
 * memory limit ("skipped: dp over its memory limit" in the summaries, not "failed"). */
struct study_cell;
#define CLI_CELL_SKIPPED "dp over its memory limit"
int cli_cell_skipped(const struct study_cell *c);
int cli_parse_u64(const char *cmd, const char *opt, const char *s, unsigned long long *out);
int cli_parse_double(const char *cmd, const char *opt, const char *s, double *out);
/* --memplan whole|partial into *out, or a usage error naming the value. */
int cli_parse_memplan(const char *cmd, const char *s, enum cg_memplan_mode *out);
#define CLI_MEMPLAN_HELP                                                                  \
    "  --memplan MODE      partial (default): a tensor whose layouts do not fit in SBUF\n"   \
    "                      together keeps its widest layout alone; whole: it is spilled\n" \
    "                      (docs/costmodel.md \"Partial keeps\")\n"

/* Scaling options of every command that takes a MODEL (zoo:NAME, .lg, config.json, .onnx,
 * a TF.js model.json). */
/* The getopt codes CLI_OPT_MODEL + MODEL_OPT_<name>, one per graph/model.h MODEL_OPTIONS
 * entry (the list the API's "NAME=VALUE" options are spelled from too). */
enum { CLI_OPT_MODEL = 0x200 };
#define CLI_MODEL_LONGOPT_(n) {#n, required_argument, NULL, CLI_OPT_MODEL + MODEL_OPT_##n},
/* The entries, each with its comma: write `CLI_MODEL_LONGOPTS {next}` in a list, or
 * CLI_MODEL_LONGOPT(name) for one of them. */
#define CLI_MODEL_LONGOPTS MODEL_OPTIONS(CLI_MODEL_LONGOPT_)
#define CLI_MODEL_LONGOPT(n) CLI_MODEL_LONGOPT_(n)
/* Every model option's help line(s) (cli/model_flags.def), in MODEL_OPTIONS order. */
#include "cli/model_flags.def"
#define CLI_MODEL_HELP_ONE_(n) CLI_MODEL_HELP_##n
#define CLI_MODEL_HELP MODEL_OPTIONS(CLI_MODEL_HELP_ONE_)
/* Set one model option from its command-line spelling: name is "layers", "seq", "batch",
 * "hidden", "image", "decode" (positive integers), "dtype" (fp32, bf16, fp16, fp8),
 * "autocast" (none, matmul; not a scaling option) or "input" (NAME=1x3x224x224, appended
 * to zo->inputs with ';'; the joined text lives until the process exits). LS_ERR_INPUT
 * with a message naming --NAME when the value is bad or the name unknown. */
int cli_model_opt_set(struct zoo_opts *zo, const char *name, const char *value,
                      struct ls_error *err);
/* 1 when getopt code c is a model option: applied to zo, or on a bad value the error is
 * printed and *rc set to the exit code. 0 when c is something else. */
int cli_model_opt(struct zoo_opts *zo, int c, const char *arg, int *rc);

#endif
