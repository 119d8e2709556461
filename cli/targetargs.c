/* cli/targetargs: --target NAME|FILE and --set KEY=VALUE into a validated sim_target. */
#include "cli/targetargs.h"

#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int cli_target_args_take(struct cli_target_args *a, int opt, const char *arg)
{
    if (opt == CLI_OPT_TARGET) {
        a->target = arg;
        return 0;
    }
    if (LS_VEC_PUSH(&a->sets, arg))
        return LS_ERR_NOMEM;
    return 0;
}

int cli_target_args_resolve(const struct cli_target_args *a, struct sim_target *t,
                            struct ls_error *err)
{
    const char *name = a->target ? a->target : SIM_TARGET_DEFAULT;
    if (sim_target_builtin(t, name)) {
        if (!strchr(name, '/') && !strchr(name, '.'))
            return ls_error_msg(err, LS_ERR_INPUT,
                                "--target %s: not a built-in target (nc-v2, nc-v3) nor a file path",
                                name);
        int rc = sim_target_load_file(t, name, err);
        if (rc == LS_ERR_IO)
            err->code = rc = LS_ERR_INPUT; /* a missing target file is a usage error */
        if (rc)
            return rc;
    }
    for (size_t i = 0; i < a->sets.len; i++) {
        const char *s = a->sets.data[i];
        const char *eq = strchr(s, '=');
        if (!eq || eq == s)
            return ls_error_msg(err, LS_ERR_INPUT, "--set %s: expected KEY=VALUE", s);
        char key[128];
        size_t kl = (size_t)(eq - s);
        if (kl >= sizeof key)
            return ls_error_msg(err, LS_ERR_INPUT, "--set %s: key too long", s);
        memcpy(key, s, kl);
        key[kl] = '\0';
        int rc = sim_target_set(t, key, eq + 1, err);
        if (rc) {
            cli_error_prefix(err, "--set: ");
            return rc;
        }
    }
    int rc = sim_target_validate(t, err);
    if (rc && a->sets.len)
        cli_error_prefix(err, "target after --set: ");
    return rc;
}

void cli_target_args_free(struct cli_target_args *a)
{
    LS_VEC_FREE(&a->sets);
    a->target = NULL;
}
