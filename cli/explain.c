/* laysim explain: every configuration of one operator, its instruction breakdown and price. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/modelcmd.h"

const char cmd_explain_help[] =
    "usage: laysim explain MODEL --op NAME [--target ...] [--set ...] [--table FILE]\n"
    "                      [--exact-transpose] [--time-limit S] [--json]\n"
    "Print every admissible configuration of operator NAME (layouts of its inputs and\n"
    "output), its price in base-clock cycles (the cost model's C_op, as in the .lsp: engines\n"
    "overlapped, dependency waits included), the instructions its lowering emits per opcode\n"
    "and engine with their own table prices summed, and for each input and output the\n"
    "conversion costs between layouts.\n"
    CLI_MODELCMD_HELP
    "  --op NAME           the operator to explain (required)\n"
    CLI_MODELCMD_TIME_HELP
    CLI_HELP(QUIET)
    CLI_HELP(JSON)
    "                      one JSON object: op, kind, target, cfgs [{index, inputs, output\n"
    "                      ({tensor, layout}), price, instruction_cycles,\n"
    "                      instructions, breakdown [{engine,\n"
    "                      opcode, count, cycles}] or infeasible}], conversions [{tensor,\n"
    "                      from, to, cycles, method}]\n"
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


static json_t *cnt_json(const struct cnt *c)
{
    json_t *a = json_array();
    for (int o = 0; o < SIM_OP_COUNT; o++)
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            if (c->n[o][e])
                json_array_append_new(
                    a, json_pack("{s:s, s:s, s:I, s:I}", "engine",
                                 ls_engine_name((enum ls_engine)e), "opcode",
                                 sim_opcode_name((enum sim_opcode)o), "count",
                                 (json_int_t)c->n[o][e], "cycles", (json_int_t)c->price[o][e]));
    return a;
}

/* What one explain run shares between its configurations; out is NULL for text. */
struct explain {
    struct cli_modelcmd *mc;
    struct cg_options opt;
    int32_t op;
    const struct graph_op *x;
    json_t *out;
};

static json_t *slot_json(const struct graph *g, int32_t t, int pax)
{
    char lab[64];
    cg_layout_label(g, t, pax, lab, sizeof lab);
    return json_pack("{s:s, s:s}", "tensor", graph_tensor(g, t)->name, "layout", lab);
}

/* The layouts of configuration p: " in=L ... -> out=L" as text, or into jc. */
static void explain_layouts(const struct explain *ex, const int8_t *p, json_t *jc)
{
    const struct graph *g = ex->mc->g;
    const struct graph_op *x = ex->x;
    json_t *ins = json_array();
    for (int k = 0; k < x->ninputs; k++)
        json_array_append_new(ins, slot_json(g, x->inputs[k], p[k]));
    json_t *o = x->output >= 0 ? slot_json(g, x->output, p[x->ninputs]) : json_null();
    if (jc) {
        json_object_set_new(jc, "inputs", ins);
        json_object_set_new(jc, "output", o);
        return;
    }
    size_t i;
    json_t *v;
    json_array_foreach(ins, i, v)
        printf(" %s=%s", json_string_value(json_object_get(v, "tensor")),
               json_string_value(json_object_get(v, "layout")));
    if (x->output >= 0)
        printf(" -> %s=%s", json_string_value(json_object_get(o, "tensor")),
               json_string_value(json_object_get(o, "layout")));
    json_decref(ins);
    json_decref(o);
}

/* One configuration; LS_ERR_LIMIT (err filled) when --time-limit ran out in it. */
static int explain_cfg(const struct explain *ex, int i, const int8_t *p, struct ls_error *err)
{
    struct cli_modelcmd *mc = ex->mc;
    json_t *jc = ex->out ? json_pack("{s:i}", "index", i) : NULL;
    if (!jc)
        printf("cfg %d:", i);
    explain_layouts(ex, p, jc);
    struct cnt cn;
    memset(&cn, 0, sizeof cn);
    cn.tb = &mc->tb;
    cn.t = &mc->t;
    struct cg_sink s = {.ctx = &cn, .emit = c_emit, .op_tag = -1, .conv_tag = -1};
    cg_sink_region(&s, &mc->t, &ex->opt, 0);
    struct ls_error e2 = {0};
    int64_t cost = 0;
    int rc = cg_lower_op(mc->g, &mc->t, &ex->opt, ex->op, p, &s, &e2);
    int priced = rc ? rc : cm_op_cost(mc->m, ex->op, p, &cost, &e2);
    if (priced == LS_ERR_LIMIT) {
        json_decref(jc);
        return ls_error_msg(err, LS_ERR_LIMIT, "--time-limit ran out explaining cfg %d of '%s': "
                            "%s", i, ex->x->name, e2.msg);
    }
    if (rc) {
        if (jc)
            json_object_set_new(jc, "infeasible", json_string(e2.msg));
        else
            printf("  infeasible: %s\n", e2.msg);
    } else {
        int64_t summed = 0;
        for (int o = 0; o < SIM_OP_COUNT; o++)
            for (int e = 0; e < LS_ENGINE_COUNT; e++)
                summed += cn.price[o][e];
        /* The price is the cost model's C_op (the .lsp's cfg cost: engines overlapped by
         * the table's aggregation, dependency waits included, a source's load; priced
         * above); the breakdown is each instruction's own table price, summed. */
        if (priced)
            cost = summed;
        if (jc) {
            json_object_set_new(jc, "price", json_integer(cost));
            json_object_set_new(jc, "instruction_cycles", json_integer(summed));
            json_object_set_new(jc, "instructions", json_integer(cn.count));
            json_object_set_new(jc, "breakdown", cnt_json(&cn));
        } else {
            printf("  price %" PRId64 " cycles, %" PRId64 " instructions (%" PRId64
                   " cycles summed one by one)\n", cost, cn.count, summed);
            print_cnt(&cn);
        }
    }
    if (jc)
        json_array_append_new(json_object_get(ex->out, "cfgs"), jc);
    return 0;
}

/* Conversion costs between every two layouts of the operator's output; LS_ERR_LIMIT when
 * --time-limit ran out. */
static int explain_conversions(const struct explain *ex, struct ls_error *err)
{
    const struct graph *g = ex->mc->g;
    int32_t t = ex->x->output;
    if (t < 0)
        return 0;
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    for (int a = 0; a < l.n; a++)
        for (int b = 0; b < l.n; b++) {
            int64_t cc;
            enum cg_conv_method meth;
            char la[64], lb[64];
            struct ls_error e2 = {0};
            int rc = a == b ? 1 : cm_conv_cost(ex->mc->m, t, l.pax[a], l.pax[b], &cc, &meth, &e2);
            if (rc == LS_ERR_LIMIT)
                return ls_error_msg(err, rc, "--time-limit ran out pricing the conversions of "
                                    "'%s': %s", graph_tensor(g, t)->name, e2.msg);
            if (rc)
                continue;
            cg_layout_label(g, t, l.pax[a], la, sizeof la);
            cg_layout_label(g, t, l.pax[b], lb, sizeof lb);
            const char *name = graph_tensor(g, t)->name, *how = cg_conv_method_name(meth);
            if (ex->out)
                json_array_append_new(json_object_get(ex->out, "conversions"),
                                      json_pack("{s:s, s:s, s:s, s:I, s:s}", "tensor", name,
                                                "from", la, "to", lb, "cycles",
                                                (json_int_t)cc, "method", how));
            else
                printf("conversion %s %s -> %s: %" PRId64 " cycles by %s\n", name, la, lb, cc,
                       how);
        }
    return 0;
}

static int explain_run(struct cli_modelcmd *mc, const char *opname, int json,
                       struct ls_error *err)
{
    struct explain ex = {.mc = mc, .opt = *cm_model_options(mc->m)};
    if ((ex.op = graph_find_op(mc->g, opname)) < 0)
        return ls_error_msg(err, LS_ERR_INPUT, "no op named '%s'", opname);
    ex.x = graph_op(mc->g, ex.op);
    struct cg_cfgs cf;
    int rc = cg_op_cfgs(mc->g, &mc->t, ex.op, mc->pins[ex.op], &cf, err);
    if (rc)
        return rc;
    const char *kind = graph_op_kind_name(ex.x->kind);
    if (json)
        ex.out = json_pack("{s:s, s:s, s:s, s:[], s:[]}", "op", ex.x->name, "kind", kind,
                           "target", mc->t.name, "cfgs", "conversions");
    else
        printf("op %s (%s), target %s\n", ex.x->name, kind, mc->t.name);
    if (json && !ex.out)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    for (int i = 0; !rc && i < cf.ncfg; i++)
        rc = explain_cfg(&ex, i, cf.pax + (size_t)i * cf.nslots, err);
    if (!rc)
        rc = explain_conversions(&ex, err);
    cg_cfgs_free(&cf);
    if (!rc && json && cli_print_json(ex.out))
        rc = ls_error_msg(err, LS_ERR_IO, "cannot write the JSON output");
    else if (rc && json)
        json_decref(ex.out);
    return rc;
}

int cmd_explain(int argc, char **argv)
{
    static const struct option lo[] = {CLI_MODELCMD_LONGOPTS, CLI_MODELCMD_TIME_LONGOPTS
                                       {"op", required_argument, NULL, 'O'},
                                       CLI_LONGOPT(JSON)
                                       CLI_LONGOPT(QUIET) {NULL, 0, NULL, 0}};
    struct cli_modelcmd mc;
    cli_modelcmd_init(&mc);
    const char *opname = NULL;
    int c, rc = CLI_OK, json = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "q", lo, NULL)) != -1) {
        if (c == 'q')
            continue;      /* explain prints no status lines */
        if (c == 'O')
            opname = optarg;
        else if (c == CLI_OPT_JSON)
            json = 1;
        else if (!cli_modelcmd_opt(&mc, "explain", c, optarg, &rc))
            rc = cli_bad_option("explain", argv, "q");
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
    rc = cli_modelcmd_open(&mc, argv[optind], 0, &err);
    if (!rc)
        rc = explain_run(&mc, opname, json, &err);
    cli_modelcmd_close(&mc);
    return rc ? cli_report(&err) : CLI_OK;
}
