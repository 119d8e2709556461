/* cli/targetargs: the --target/--set options every command that runs the simulator shares.
 * The library side (sim/target.h) takes parsed values: a built-in name or file, then
 * sim_target_set(key, value); the flag names and their messages live here.
 *
 * In a getopt_long table:   CLI_TARGET_LONGOPTS,
 * in the option switch:     case CLI_OPT_TARGET: case CLI_OPT_SET:
 *                               if (cli_target_args_take(&ta, c, optarg)) ...nomem...
 * then:                     cli_target_args_resolve(&ta, &target, &err)
 * and finally               cli_target_args_free(&ta). */
#ifndef LS_CLI_TARGETARGS_H
#define LS_CLI_TARGETARGS_H

#include <getopt.h>
#include <stddef.h>

#include "sim/target.h"
#include "util/error.h"
#include "util/vec.h"

#define CLI_OPT_TARGET 0x7401
#define CLI_OPT_SET 0x7402
#define CLI_TARGET_LONGOPTS                                       \
    {"target", required_argument, NULL, CLI_OPT_TARGET},         \
    {"set", required_argument, NULL, CLI_OPT_SET}
#define CLI_TARGET_HELP                                                                     \
    "  --target NAME|FILE  hardware target: a built-in (nc-v2, nc-v3; default nc-v2) or an\n" \
    "                      INI file (docs/targets.md)\n"                                     \
    "  --set KEY=VALUE     override one target key, e.g. --set pe.background_load=0\n"      \
    "                      (repeatable; applied after --target)\n"

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
