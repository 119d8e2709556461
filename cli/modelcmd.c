#include "cli/modelcmd.h"

#include <stdlib.h>
#include <string.h>

#include "costmodel/tie.h"
#include "util/clock.h"
#include "util/fileio.h"
#include "util/hash.h"

void cli_modelcmd_init(struct cli_modelcmd *mc)
{
    memset(mc, 0, sizeof *mc);
    zoo_opts_init(&mc->zo);
    mc->cg.max_instructions = CG_MAX_INSTRUCTIONS_DEFAULT;
}

int cli_modelcmd_opt(struct cli_modelcmd *mc, const char *cmd, int c, const char *arg, int *rc)
{
    *rc = CLI_OK;
    switch (c) {
    case CLI_OPT_TARGET:
    case CLI_OPT_SET:
        if (cli_target_args_take(&mc->ta, c, arg)) {
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
    case CLI_OPT_MEMPLAN:
        *rc = cli_parse_memplan(cmd, arg, &mc->cg.memplan);
        return 1;
    case CLI_OPT_MAX_INSTR: {
        unsigned long long n;
        if ((*rc = cli_parse_u64(cmd, "--max-instructions", arg, &n)) == 0)
            mc->cg.max_instructions = n;
        return 1;
    }
    case CLI_OPT_TIME_LIMIT: {
        double s;
        if ((*rc = cli_parse_double(cmd, CLI_FLAG_ARG(TIME_LIMIT), arg, &s)) == 0 && s <= 0)
            *rc = cli_usage(cmd, "--time-limit must be > 0");
        if (*rc == 0) /* the clock starts now: parsing takes no time worth counting */
            mc->cg.deadline = ls_deadline_in(s);
        return 1;
    }
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

/* --output-layout NAME=AXIS (AXIS: index, or role name with an optional "p:") pins every
 * return op that reads tensor NAME to that partition axis. */
static int parse_pin(const struct graph *g, const char *spec, int *pins, struct ls_error *err)
{
    const char *eq = strrchr(spec, '=');
    if (!eq)
        return ls_error_msg(err, LS_ERR_INPUT, "--output-layout %s: expected NAME=AXIS", spec);
    char name[256];
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    int32_t t = graph_find_tensor(g, name);
    if (t < 0)
        return ls_error_msg(err, LS_ERR_INPUT, "--output-layout: no tensor named '%s'", name);
    const struct graph_tensor *x = graph_tensor(g, t);
    const char *ax = eq + 1;
    if (strncmp(ax, "p:", 2) == 0)
        ax += 2;
    int axis = -1;
    char *end;
    long v = strtol(ax, &end, 10);
    if (*ax && !*end)
        axis = (int)v;
    else
        for (int i = 0; i < x->shape.rank; i++)
            if (x->shape.dims[i].role && strcmp(x->shape.dims[i].role, ax) == 0)
                axis = i;
    if (axis < 0 || axis >= x->shape.rank)
        return ls_error_msg(err, LS_ERR_INPUT, "--output-layout %s: no axis '%s'", spec, ax);
    int any = 0;
    for (size_t u = 0; u < x->nuses; u++)
        if (graph_op(g, x->uses[u].op)->kind == GRAPH_OP_RETURN) {
            pins[x->uses[u].op] = axis;
            any = 1;
        }
    if (!any)
        return ls_error_msg(err, LS_ERR_INPUT, "--output-layout: '%s' is not a graph output", name);
    return 0;
}

/* The tie headers of the problem (costmodel/tie.h, shared with the API). */
static int set_tie(const struct cli_modelcmd *mc, struct lsp_tie *t, struct ls_error *err)
{
    uint64_t mh = 0;
    int rc = cm_model_hash(mc->g, &mc->cg, mc->pins, &mh, err);
    if (!rc)
        cm_tie_set(t, mh, &mc->t, &mc->tb);
    return rc;
}

int cli_modelcmd_open(struct cli_modelcmd *mc, const char *model, int build_problem,
                      struct ls_error *err)
{
    int rc = cli_target_args_resolve(&mc->ta, &mc->t, err);
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
        if ((rc = parse_pin(mc->g, mc->pin_specs[i], mc->pins, err)))
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
    return set_tie(mc, &mc->in->p->tie, err);
}

void cli_modelcmd_close(struct cli_modelcmd *mc)
{
    cm_instance_free(mc->in);
    cm_model_free(mc->m);
    graph_free(mc->g);
    free(mc->pins);
    cli_target_args_free(&mc->ta);
    mc->in = NULL;
    mc->m = NULL;
    mc->g = NULL;
    mc->pins = NULL;
}

int cli_modelcmd_open_within(struct cli_modelcmd *mc, const char *model, int build_problem,
                             double *limit_s, struct ls_error *err)
{
    if (*limit_s <= 0)
        return cli_modelcmd_open(mc, model, build_problem, err);
    uint64_t start = ls_now_ns();
    mc->cg.deadline = ls_deadline_in(*limit_s);
    int rc = cli_modelcmd_open(mc, model, build_problem, err);
    double left = *limit_s - ls_seconds_since(start);
    if (rc == LS_ERR_LIMIT || (!rc && left <= 0)) {
        char why[sizeof err->msg + 2] = "";
        if (rc)
            snprintf(why, sizeof why, ": %s", err->msg);
        return ls_error_msg(err, LS_ERR_LIMIT, "--time-limit %g s ran out building the problem "
                            "of %s%s", *limit_s, model, why);
    }
    if (!rc) {
        *limit_s = left;
        /* the rest of the command (a solver, a search that compiles and simulates) runs
         * under the limit it is given, and ends by it rather than failing on this one */
        mc->cg.deadline = (struct ls_deadline){0};
        if (mc->m)
            cm_model_set_deadline(mc->m, mc->cg.deadline);
    }
    return rc;
}
