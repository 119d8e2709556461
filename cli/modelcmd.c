#include "cli/modelcmd.h"

#include <stdlib.h>
#include <string.h>

#include "util/clock.h"

void cli_modelcmd_init(struct cli_modelcmd *mc)
{
    memset(mc, 0, sizeof *mc);
    zoo_opts_init(&mc->zo);
}

int cli_modelcmd_opt(struct cli_modelcmd *mc, const char *cmd, int c, const char *arg, int *rc)
{
    *rc = CLI_OK;
    switch (c) {
    case SIM_OPT_TARGET:
    case SIM_OPT_SET:
        if (sim_target_args_take(&mc->ta, c, arg)) {
            fprintf(stderr, "laysim %s: out of memory\n", cmd);
            *rc = CLI_FAIL;
        }
        return 1;
    case CLI_OPT_TABLE:
        mc->table = arg;
        return 1;
    case CLI_OPT_EXACT_TR:
        mc->cg.exact_transpose = 1;
        return 1;
    case CLI_OPT_PIN:
        if (mc->npins == CLI_MODELCMD_MAX_PINS)
            *rc = cli_usage(cmd, "at most %d --output-layout options", CLI_MODELCMD_MAX_PINS);
        else
            mc->pin_specs[mc->npins++] = arg;
        return 1;
    default:
        return cli_model_opt(&mc->zo, c, arg, rc);
    }
}

int cli_modelcmd_open(struct cli_modelcmd *mc, const char *model, int build_problem,
                      struct ls_error *err)
{
    int rc = sim_target_args_resolve(&mc->ta, &mc->t, err);
    if (rc)
        return rc;
    if (mc->table) {
        if ((rc = cm_table_load(mc->table, &mc->tb, err)))
            return rc;
    } else {
        cm_table_default(&mc->t, &mc->tb);
    }
    if ((rc = model_load(model, &mc->zo, &mc->g, err)))
        return rc;
    int32_t n = graph_nops(mc->g);
    mc->pins = malloc(sizeof *mc->pins * ((size_t)n + 1));
    if (!mc->pins)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int32_t i = 0; i < n; i++)
        mc->pins[i] = -2;
    for (int i = 0; i < mc->npins; i++)
        if ((rc = cm_parse_pin(mc->g, mc->pin_specs[i], mc->pins, err)))
            return rc;
    mc->m = cm_model_new(mc->g, &mc->t, &mc->tb, &mc->cg);
    if (!mc->m)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!build_problem)
        return LS_OK;
    uint64_t t0 = ls_now_ns();
    if ((rc = cm_instance_create(mc->m, mc->pins, &mc->in, err)))
        return rc;
    mc->build_seconds = ls_seconds_since(t0);
    return LS_OK;
}

void cli_modelcmd_close(struct cli_modelcmd *mc)
{
    cm_instance_free(mc->in);
    cm_model_free(mc->m);
    graph_free(mc->g);
    free(mc->pins);
    sim_target_args_free(&mc->ta);
    mc->in = NULL;
    mc->m = NULL;
    mc->g = NULL;
    mc->pins = NULL;
}
