/* laysim explain: every configuration of one operator, its instruction breakdown and price. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/modelcmd.h"

const char cmd_explain_help[] =
    "usage: laysim explain MODEL --op NAME [--target ...] [--set ...] [--table FILE]\n"
    "                      [--exact-transpose]\n"
    "Print every admissible configuration of operator NAME (layouts of its inputs and\n"
    "output), the instructions its lowering emits per opcode and engine, and its price in\n"
    "base-clock cycles; for each input and output, the conversion costs between layouts.\n"
    CLI_MODELCMD_HELP
    "  --op NAME           the operator to explain (required)\n"
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage.\n";

struct cnt {
    const struct cm_table *tb;
    const struct sim_target *t;
    int64_t n[SIM_OP_COUNT][LS_ENGINE_COUNT];
    int64_t price[SIM_OP_COUNT][LS_ENGINE_COUNT];
    int64_t count;
};

static int64_t c_emit(void *ctx, const struct sim_instr *in, const int64_t *d, size_t nd,
                      struct ls_error *err)
{
    struct cnt *c = ctx;
    c->n[in->opcode][in->engine]++;
    c->price[in->opcode][in->engine] += cm_price(c->tb, c->t, in);
    return c->count++;
}

static void print_cnt(const struct cnt *c)
{
    for (int o = 0; o < SIM_OP_COUNT; o++)
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            if (c->n[o][e])
                printf("    %-4s %-18s x%-7" PRId64 " %" PRId64 " cycles\n",
                       ls_engine_name((enum ls_engine)e), sim_opcode_name((enum sim_opcode)o),
                       c->n[o][e], c->price[o][e]);
}

int cmd_explain(int argc, char **argv)
{
    static const struct option lo[] = {CLI_MODELCMD_LONGOPTS,
                                       {"op", required_argument, NULL, 'O'},
                                       {NULL, 0, NULL, 0}};
    struct cli_modelcmd mc;
    cli_modelcmd_init(&mc);
    const char *opname = NULL;
    int c, rc = CLI_OK;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
        if (c == 'O')
            opname = optarg;
        else if (!cli_modelcmd_opt(&mc, "explain", c, optarg, &rc))
            rc = cli_bad_option("explain", argv, "");
        if (rc) {
            cli_modelcmd_close(&mc);
            return rc;
        }
    }
    if (optind != argc - 1 || !opname) {
        cli_modelcmd_close(&mc);
        return cli_usage("explain", optind != argc - 1 ? "expected one MODEL argument"
                                                       : "--op NAME is required");
    }
    struct ls_error err = {0};
    if ((rc = cli_modelcmd_open(&mc, argv[optind], 0, &err)))
        goto out;
    struct graph *g = mc.g;
    struct sim_target t = mc.t;
    struct cm_table tb = mc.tb;
    struct cm_model *m = mc.m;
    struct cg_options opt = *cm_model_options(m);
    int32_t op = graph_find_op(g, opname);
    if (op < 0) {
        rc = ls_error_msg(&err, LS_ERR_INPUT, "no op named '%s'", opname);
        goto out;
    }
    const struct graph_op *x = graph_op(g, op);
    struct cg_cfgs cf;
    if ((rc = cg_op_cfgs(g, &t, op, mc.pins[op], &cf, &err)))
        goto out;
    printf("op %s (%s), target %s\n", x->name, graph_op_kind_name(x->kind), t.name);
    for (int i = 0; i < cf.ncfg; i++) {
        const int8_t *p = cf.pax + (size_t)i * cf.nslots;
        char lab[64];
        printf("cfg %d:", i);
        for (int k = 0; k < x->ninputs; k++) {
            cg_layout_label(g, x->inputs[k], p[k], lab, sizeof lab);
            printf(" %s=%s", graph_tensor(g, x->inputs[k])->name, lab);
        }
        if (x->output >= 0) {
            cg_layout_label(g, x->output, p[x->ninputs], lab, sizeof lab);
            printf(" -> %s=%s", graph_tensor(g, x->output)->name, lab);
        }
        struct cnt cn;
        memset(&cn, 0, sizeof cn);
        cn.tb = &tb;
        cn.t = &t;
        struct cg_sink s = {.ctx = &cn, .emit = c_emit, .op_tag = -1, .conv_tag = -1};
        cg_sink_region(&s, &t, &opt, 0);
        struct ls_error e2 = {0};
        int r2 = cg_lower_op(g, &t, &opt, op, p, &s, &e2);
        if (r2) {
            printf("  infeasible: %s\n", e2.msg);
            continue;
        }
        int64_t total = 0, cost = 0;
        for (int o = 0; o < SIM_OP_COUNT; o++)
            for (int e = 0; e < LS_ENGINE_COUNT; e++)
                total += cn.price[o][e];
        if (x->kind == GRAPH_OP_SOURCE)
            cm_op_cost(m, op, p, &cost, NULL);
        else
            cost = total;
        printf("  price %" PRId64 " cycles, %" PRId64 " instructions\n", cost, cn.count);
        print_cnt(&cn);
    }
    /* conversions of the output */
    if (x->output >= 0) {
        struct cg_layouts l;
        cg_tensor_layouts(g, x->output, &l);
        for (int a = 0; a < l.n; a++)
            for (int b = 0; b < l.n; b++) {
                if (a == b)
                    continue;
                int64_t cc;
                enum cg_conv_method meth;
                char la[64], lb[64];
                cg_layout_label(g, x->output, l.pax[a], la, sizeof la);
                cg_layout_label(g, x->output, l.pax[b], lb, sizeof lb);
                if (cm_conv_cost(m, x->output, l.pax[a], l.pax[b], &cc, &meth, NULL) == 0)
                    printf("conversion %s %s -> %s: %" PRId64 " cycles by %s\n",
                           graph_tensor(g, x->output)->name, la, lb, cc,
                           cg_conv_method_name(meth));
            }
    }
    cg_cfgs_free(&cf);
out:
    cli_modelcmd_close(&mc);
    return rc ? cli_report(&err) : CLI_OK;
}
