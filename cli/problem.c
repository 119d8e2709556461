/* laysim problem: build the layout selection problem (.lsp) of a model. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/modelcmd.h"
#include "util/fileio.h"

const char cmd_problem_help[] =
    "usage: laysim problem MODEL [--target ...] [--set ...] [--table FILE] [-o OUT.lsp]\n"
    "                      [--output-layout TENSOR=AXIS]... [--exact-transpose]\n"
    "                      [--write-table FILE] [--json]\n"
    "Lower every operator of MODEL (zoo:NAME, a .lg file, a config.json, a .onnx, a TF.js\n"
    "model.json or an HLO .hlo) under every admissible layout configuration, price the instructions with\n"
    "the latency table and write the layout selection problem (.lsp; stdout when -o is\n"
    "absent).\n"
    CLI_MODELCMD_HELP
    CLI_MODELCMD_TIME_HELP
    CLI_HELP(OUTPUT)
    "                      (the problem; default stdout)\n"
    "  --write-table FILE  also write the latency table used\n"
    CLI_HELP(QUIET)
    CLI_HELP(JSON)
    "                      (a summary, one object: ops, tensors,\n"
    "                      configurations, target, table and model hashes, codegen_version,\n"
    "                      build_seconds); needs -o\n"
    "Exit codes: 0 ok, 1 runtime failure, 2 bad input or usage.\n";

int cmd_problem(int argc, char **argv)
{
    static const struct option lo[] = {CLI_MODELCMD_LONGOPTS, CLI_MODELCMD_TIME_LONGOPTS
                                       CLI_LONGOPT(OUTPUT)
                                       {"write-table", required_argument, NULL, 'W'},
                                       CLI_LONGOPT(JSON)
                                       CLI_LONGOPT(QUIET) {NULL, 0, NULL, 0}};
    struct cli_modelcmd mc;
    cli_modelcmd_init(&mc);
    const char *outp = "-", *wtable = NULL;
    int c, rc = CLI_OK, json = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qo:", lo, NULL)) != -1) {
        if (c == 'q')
            continue;      /* problem prints no status lines */
        if (c == 'o')
            outp = optarg;
        else if (c == 'W')
            wtable = optarg;
        else if (c == CLI_OPT_JSON)
            json = 1;
        else if (!cli_modelcmd_opt(&mc, "problem", c, optarg, &rc))
            rc = cli_bad_option("problem", argv, "qo:");
        if (rc) {
            cli_modelcmd_close(&mc);
            return rc;
        }
    }
    if (optind != argc - 1) {
        cli_modelcmd_close(&mc);
        return cli_usage("problem", "expected one MODEL argument");
    }
    if (json && !strcmp(outp, "-")) {
        cli_modelcmd_close(&mc);
        return cli_usage("problem", "--json prints the summary on stdout: give -o FILE for the "
                                    "problem");
    }
    struct ls_error err = {0};
    if ((rc = cli_modelcmd_open(&mc, argv[optind], 1, &err)))
        goto out;
    /* header comments, then the normative body */
    char *body = NULL;
    size_t blen = 0;
    FILE *mf = open_memstream(&body, &blen);
    if (!mf) {
        rc = ls_error_msg(&err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    /* lsp_write_fp adds the model/target/table/codegen hash headers (solver/lsp_tie.h) */
    fprintf(mf, "# laysim problem %s\n# target %s\n# built in %.3f s\n", argv[optind],
            mc.t.name, mc.build_seconds);
    lsp_write_fp(mc.in->p, mf);
    fclose(mf);
    if (strcmp(outp, "-") == 0)
        fwrite(body, 1, blen, stdout);
    else
        rc = ls_write_file_atomic(outp, body, blen, &err);
    free(body);
    if (!rc && wtable)
        rc = cm_table_write(&mc.tb, wtable, &err);
    if (!rc && json) {
        const struct lsp_problem *p = mc.in->p;
        int64_t cfgs = 0;
        for (int32_t i = 0; i < p->nops; i++)
            cfgs += p->ops[i].ncfg;
        char th[20], bh[20];
        snprintf(th, sizeof th, "%016" PRIx64, sim_target_hash(&mc.t));
        snprintf(bh, sizeof bh, "%016" PRIx64, cm_table_hash(&mc.tb));
        json_t *o = json_object();
        json_object_set_new(o, "model", json_string(argv[optind]));
        json_object_set_new(o, "output", json_string(outp));
        json_object_set_new(o, "target", json_string(mc.t.name));
        json_object_set_new(o, "target_hash", json_string(th));
        json_object_set_new(o, "table_hash", json_string(bh));
        json_object_set_new(o, "model_hash", json_string(p->tie.v[LSP_TIE_MODEL]));
        json_object_set_new(o, "codegen_version", json_string(p->tie.v[LSP_TIE_CODEGEN]));
        json_object_set_new(o, "ops", json_integer(p->nops));
        json_object_set_new(o, "tensors", json_integer(p->ntensors));
        json_object_set_new(o, "configurations", json_integer(cfgs));
        json_object_set_new(o, "build_seconds", json_real(mc.build_seconds));
        rc = cli_print_json(o) ? LS_ERR_IO : 0;
    }
out:
    cli_modelcmd_close(&mc);
    return rc ? cli_report(&err) : CLI_OK;
}
