/* laysim compile: the whole-graph instruction program of a model for a layout solution. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/modelcmd.h"
#include "costmodel/roofline.h"
#include "costmodel/tie.h"
#include "util/fileio.h"

const char cmd_compile_help[] =
    "usage: laysim compile MODEL [--layout SOL] [--target ...] [--set ...] [--table FILE]\n"
    "                      [--output-layout TENSOR=AXIS]... [--exact-transpose] [-o OUT.prog]\n"
    "                      [--ignore-mismatch] [--format text|binary] [--json] [-q]\n"
    "Lower every operator of MODEL under the configurations of SOL (a .sol for the problem\n"
    "that `laysim problem` writes with the same options; default: cfg 0 everywhere), insert\n"
    "one conversion per distinct consumer layout, and write the program text (stdout when\n"
    "-o is absent); run it with `laysim sim`. Prints the program's table price to stderr.\n"
    CLI_MODELCMD_HELP
    CLI_MODELCMD_TIME_HELP
    "  --layout FILE.sol   the assignment (default: cfg 0 everywhere). A .sol whose hash\n"
    "                      headers (model, target, table, codegen, problem) differ from\n"
    "                      this command's is refused (exit 2, naming what differs); one\n"
    "                      without hashes is taken with a warning (docs/formats.md)\n"
    "  --ignore-mismatch   take a mismatched .sol anyway (with a warning)\n"
    CLI_HELP(OUTPUT) "                      (the program; default stdout)\n"
    "  --format text|binary  program text (.lsprog, the default) or the compact binary form\n"
    "                      (.lsprogz: zlib blocks, ~10 bytes per instruction, loads ~10x\n"
    "                      faster); default: binary when OUT ends in .lsprogz\n"
    CLI_HELP(JSON)
    "                      (the summary, one object: instructions, ops_lowered,\n"
    "                      conversions, hbm_bytes, memory_plan (resident, spilled and fused\n"
    "                      tensors and bytes), table_price (and the conversions'\n"
    "                      part of it, table_price_conversions), objective, roofline: the\n"
    "                      bound no program of MODEL can beat, docs/costmodel.md); needs -o\n"
    CLI_HELP(QUIET)
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage.\n";

static json_t *roofline_json(const struct graph *g, const struct sim_target *t)
{
    struct cm_roofline r;
    cm_roofline(g, t, &r);
    json_t *o = json_object();
    json_object_set_new(o, "flops", json_real(r.flops));
    json_object_set_new(o, "min_hbm_bytes", json_integer((json_int_t)r.min_hbm_bytes));
    json_object_set_new(o, "pe_ns", json_real(r.pe_ns));
    json_object_set_new(o, "hbm_ns", json_real(r.hbm_ns));
    json_object_set_new(o, "bound_ns", json_real(r.bound_ns));
    json_object_set_new(o, "bound_by", json_string(cm_bound_name(r.bound_by)));
    return o;
}

/* Refuse a .sol solved for another problem unless ignore; warn when it cannot be told. */
static int check_tie(const struct lsp_problem *p, const struct lsp_solution *s,
                     const char *sol, int ignore, struct ls_error *err)
{
    char what[1024];
    int verdict = lsp_sol_tie_check(p, s, what, sizeof what);
    if (verdict == LSP_TIE_UNCHECKED) {
        fprintf(stderr, "laysim compile: warning: %s records no hashes: it cannot be checked "
                        "against this model, target and table\n", sol);
        return 0;
    }
    if (verdict == LSP_TIE_MATCH)
        return 0;
    if (ignore) {
        fprintf(stderr, "laysim compile: warning: %s was solved for another problem: %s "
                        "(--ignore-mismatch)\n", sol, what);
        return 0;
    }
    return ls_error_msg(err, LS_ERR_INPUT, "%s was solved for another problem: %s "
                        "(--ignore-mismatch to compile it anyway)", sol, what);
}

/* Write prog to path ("-" = stdout) atomically, as text or in the binary form. */
static int write_program(const struct sim_program *prog, const char *path, int binary,
                         struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    rc = binary ? sim_program_write_binary(prog, af.fp) : sim_program_write(prog, af.fp);
    if (rc) {
        ls_atomic_abort(&af);
        return ls_error_msg(err, rc, "%s: cannot write the program%s", path,
                            rc == LS_ERR_NOMEM ? ": out of memory" : "");
    }
    return ls_atomic_commit(&af, err);
}

int cmd_compile(int argc, char **argv)
{
    static const struct option lo[] = {CLI_MODELCMD_LONGOPTS, CLI_MODELCMD_TIME_LONGOPTS
                                       {"layout", required_argument, NULL, 'L'},
                                       CLI_LONGOPT(OUTPUT) CLI_LONGOPT(JSON)
                                       {"ignore-mismatch", no_argument, NULL, 'I'},
                                       {"format", required_argument, NULL, 'F'},
                                       CLI_LONGOPT(QUIET)
                                       {NULL, 0, NULL, 0}};
    struct cli_modelcmd mc;
    cli_modelcmd_init(&mc);
    const char *outp = "-", *sol = NULL, *format = NULL;
    int c, rc = CLI_OK, json = 0, ignore = 0, quiet = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "o:q", lo, NULL)) != -1) {
        if (c == 'o')
            outp = optarg;
        else if (c == 'q')
            quiet = 1;
        else if (c == 'L')
            sol = optarg;
        else if (c == CLI_OPT_JSON)
            json = 1;
        else if (c == 'I')
            ignore = 1;
        else if (c == 'F')
            format = optarg;
        else if (!cli_modelcmd_opt(&mc, "compile", c, optarg, &rc))
            rc = cli_bad_option("compile", argv, "o:q");
        if (rc) {
            cli_modelcmd_close(&mc);
            return rc;
        }
    }
    if (optind != argc - 1) {
        cli_modelcmd_close(&mc);
        return cli_usage("compile", "expected one MODEL argument");
    }
    if (json && !strcmp(outp, "-")) {
        cli_modelcmd_close(&mc);
        return cli_usage("compile", "--json prints the summary on stdout: give -o FILE for the "
                                    "program");
    }
    int binary = 0;
    if (format && strcmp(format, "text") && strcmp(format, "binary")) {
        cli_modelcmd_close(&mc);
        return cli_usage("compile", "--format: expected text or binary");
    }
    if (format)
        binary = !strcmp(format, "binary");
    else
        binary = strlen(outp) > 8 && !strcmp(outp + strlen(outp) - 8, ".lsprogz");
    struct ls_error err = {0};
    struct lsp_solution s;
    struct sim_program *prog = NULL;
    const int32_t *cfg = NULL;    /* per problem op; NULL = cfg 0 everywhere */
    lsp_solution_init(&s);
    if ((rc = cli_modelcmd_open(&mc, argv[optind], 1, &err)))
        goto out;
    struct lsp_problem *p = mc.in->p;
    int64_t objective = 0;
    if (sol) {
        if ((rc = lsp_sol_read(p, sol, &s, &err)))
            goto out;
        if (!s.cfg) {
            rc = ls_error_msg(&err, LS_ERR_INPUT, "%s: the solution has no assignment", sol);
            goto out;
        }
        if ((rc = check_tie(p, &s, sol, ignore, &err)))
            goto out;
        cfg = s.cfg;
        objective = lsp_eval(p, cfg, NULL, NULL);
    } else {
        int32_t *z = calloc((size_t)p->nops + 1, sizeof *z);
        if (!z) {
            rc = ls_error_msg(&err, LS_ERR_NOMEM, "out of memory");
            goto out;
        }
        objective = lsp_eval(p, z, NULL, NULL);
        free(z);
    }
    struct cg_compile_stats st;
    if ((rc = cm_instance_compile(mc.in, cfg, &prog, &st, &err)))
        goto out;
    cm_tie_program(prog, mc.in->p, &mc.t);
    /* priced before it is written: a command that fails leaves no output */
    int64_t price = 0, price_conv = 0;
    rc = cm_price_program_parts(&mc.tb, &mc.t, prog, &price, &price_conv, &err);
    if (!rc)
        rc = write_program(prog, outp, binary, &err);
    if (!rc && json) {
        json_t *o = json_object();
        json_object_set_new(o, "model", json_string(argv[optind]));
        json_object_set_new(o, "output", json_string(outp));
        json_object_set_new(o, "instructions", json_integer(st.instructions));
        json_object_set_new(o, "ops_lowered", json_integer(st.ops_lowered));
        json_object_set_new(o, "conversions", json_integer(st.conversions));
        json_object_set_new(o, "hbm_bytes", json_integer((json_int_t)st.hbm_bytes));
        json_t *mp = json_object();
        json_object_set_new(mp, "resident_tensors", json_integer(st.resident_tensors));
        json_object_set_new(mp, "spilled_tensors", json_integer(st.spilled_tensors));
        json_object_set_new(mp, "resident_bytes", json_integer((json_int_t)st.resident_bytes));
        json_object_set_new(mp, "spilled_bytes", json_integer((json_int_t)st.spilled_bytes));
        json_object_set_new(mp, "fused_tensors", json_integer(st.fused_tensors));
        json_object_set_new(mp, "fused_bytes", json_integer((json_int_t)st.fused_bytes));
        json_object_set_new(mp, "sbuf_region_bytes_per_partition",
                            json_integer((json_int_t)st.resident_region));
        json_object_set_new(mp, "partial_tensors", json_integer(st.partial_tensors));
        json_object_set_new(mp, "aliased_tensors", json_integer(st.aliased_tensors));
        json_object_set_new(mp, "candidate", st.memplan_candidate ? json_string(st.memplan_candidate)
                                                                  : json_null());
        json_object_set_new(o, "memory_plan", mp);
        json_object_set_new(o, "table_price", json_integer(price));
        json_object_set_new(o, "table_price_conversions", json_integer(price_conv));
        json_object_set_new(o, "objective", json_integer(objective));
        json_object_set_new(o, "roofline", roofline_json(mc.in->g, &mc.t));
        rc = cli_print_json(o) ? LS_ERR_IO : 0;
    } else if (!rc && !quiet) {
        fprintf(stderr,
                "laysim compile: %" PRId64 " instructions, %" PRId64 " ops, %" PRId64
                " conversions, table price %" PRId64 " (problem objective %" PRId64 "), in cycles\n",
                st.instructions, st.ops_lowered, st.conversions, price, objective);
    }
out:
    sim_program_free(prog);
    lsp_solution_free(&s);
    cli_modelcmd_close(&mc);
    return rc ? cli_report(&err) : CLI_OK;
}
