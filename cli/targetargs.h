/* cli/targetargs: the --target/--set options every command that runs the simulator shares.
 * The library side (sim/target.h) takes parsed values: a built-in name or file, then
 * sim_target_set(key, value); the flag names and their messages live here.
 *
 * In a getopt_long table:   CLI_TARGET_LONGOPTS
 * in the option switch:     case CLI_OPT_TARGET: case CLI_OPT_SET:
 *                               if (cli_target_args_take(&ta, c, optarg)) ...nomem...
 * then:                     cli_target_args_resolve(&ta, &target, &err)
 * and finally               cli_target_args_free(&ta). */
#ifndef LS_CLI_TARGETARGS_H
#define LS_CLI_TARGETARGS_H

#include <getopt.h>
#include <stddef.h>

#include "cli/cli.h"
#include "sim/target.h"
#include "util/error.h"
#include "util/vec.h"

/* --target and --set, from the shared flag table (cli/flags.def): codes CLI_OPT_TARGET
 * and CLI_OPT_SET. */
#define CLI_TARGET_LONGOPTS CLI_LONGOPT(TARGET) CLI_LONGOPT(SET)
#define CLI_TARGET_HELP CLI_HELP(TARGET) CLI_HELP(SET)

struct cli_target_args {
    const char *target;  /* NULL = nc-v2 */
    LS_VEC(const char *) sets; /* --set KEY=VALUE, in order */
};

/* Record one --target / --set option; returns 0, or LS_ERR_NOMEM. */
int cli_target_args_take(struct cli_target_args *a, int opt, const char *arg);
/* Build the target: built-in or file, then every --set in order, then validate.
 * A name that is neither a built-in nor a readable file is an input error. */
int cli_target_args_resolve(const struct cli_target_args *a, struct sim_target *t,
                            struct ls_error *err);
void cli_target_args_free(struct cli_target_args *a);

#endif
