/* laysim export: a problem as WCNF, CFN or CPLEX LP. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "solver/export.h"

const char cmd_export_help[] =
    "usage: laysim export P.lsp --to wcnf|wcnf-old|cfn|lp [-o FILE]\n"
    "\n"
    "Write a layout selection problem in a standard solver format; the optimum of every\n"
    "encoding equals the optimum of the problem (encodings: docs/solvers.md).\n"
    "\n"
    "formats:\n"
    "  wcnf      weighted MaxSAT, current format (hard clauses 'h ... 0', soft '<w> ... 0')\n"
    "  wcnf-old  weighted MaxSAT with the 'p wcnf <vars> <clauses> <top>' header, top = 1 +\n"
    "            the sum of the soft weights (for solvers such as Debian's z3 4.8:\n"
    "            `z3 -wcnf -model f.wcnf`)\n"
    "  cfn       cost function network (JSON) for toulbar2: `toulbar2 f.cfn`\n"
    "  lp        0-1 integer program in CPLEX LP format: `cbc f.lp solve solu out.txt`\n"
    "\n"
    "Variables: x<k> is configuration k over all ops in file order (1-based; op o's cfg c\n"
    "is 1 + c + the number of cfgs of the ops before o); the rest are auxiliary.\n"
    "\n"
    "options:\n"
    CLI_HELP(QUIET)
    "  --to FORMAT         output format (required)\n"
    CLI_HELP(OUTPUT)
    "                      (default: stdout)\n";

int cmd_export(int argc, char **argv)
{
    static const struct option longopts[] = {{"to", required_argument, NULL, 't'},
                                             CLI_LONGOPT(OUTPUT)
                                             CLI_LONGOPT(QUIET) {NULL, 0, NULL, 0}};
    const char *to = NULL, *out = "-";
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qo:", longopts, NULL)) != -1) {
        switch (c) {
        case 't': to = optarg; break;
        case 'o': out = optarg; break;
        case 'q': break;      /* export prints no status lines */
        default: return cli_bad_option("export", argv, "qo:");
        }
    }
    if (optind + 1 != argc)
        return cli_usage("export", "expected exactly one problem file");
    if (!to)
        return cli_usage("export", "--to is required");
    int fmt = lsp_export_format_parse(to);
    if (fmt < 0)
        return cli_usage("export", "unknown format '%s' (wcnf, wcnf-old, cfn, lp)", to);
    struct ls_error err;
    ls_error_clear(&err);
    struct lsp_problem *p;
    int rc = lsp_read(argv[optind], &p, &err);
    if (!rc)
        rc = lsp_export(p, fmt, out, &err);
    lsp_free(p);
    return rc ? cli_report(&err) : CLI_OK;
}
