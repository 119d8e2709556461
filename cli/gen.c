/* laysim gen: generate layout selection problems. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "solver/gen.h"

const char cmd_gen_help[] =
    "usage: laysim gen --shape SHAPE --ops N [--seed S] [-o P.lsp]\n"
    "       laysim gen --shape random --ops N [--window W [--fanin K] [--fanout F]]\n"
    "                  [--layouts L] [--cfgs C] [--seed S] [-o P.lsp]\n"
    "       laysim gen --shape sat --cnf FORMULA.cnf [-o P.lsp]\n"
    "       laysim gen --shape oct --graph EDGES.txt [-o P.lsp]\n"
    "\n"
    "Generate a layout selection problem (.lsp) for tests and benchmarks.\n"
    "\n"
    "shapes:\n"
    "  transformer  decoder layers: layernorm, q/k/v/o and MLP matmuls, softmax, residual adds,\n"
    "               weight loads; 2 layouts per tensor (which axis is on partitions)\n"
    "  cnn          ResNet-like blocks: conv, batchnorm, relu, residual add, pooling;\n"
    "               3 layouts per activation (c, h or w on partitions)\n"
    "  random       a uniform random DAG: 1-3 layouts per tensor, 1-6 cfgs per op, each\n"
    "               op reads 0-3 earlier tensors; with --window W, a windowed DAG whose\n"
    "               op graph keeps a width bound near W at any size\n"
    "  sat          the paper's 3-SAT gadget: one source per variable, one op per clause\n"
    "               (cost 0 iff the clause's input layouts satisfy it), transposes cost 1;\n"
    "               without --cnf, a random 3-SAT formula with a planted satisfying\n"
    "               assignment (so the optimum is 0), N/5 variables and the rest clauses\n"
    "  oct          the paper's odd-cycle-transversal gadget: one source per vertex, one\n"
    "               matmul per edge needing different input layouts; optimum = minimum odd\n"
    "               cycle transversal; without --graph, a random graph (N/3 vertices)\n"
    "\n"
    "options:\n"
    CLI_HELP(QUIET)
    "  --shape SHAPE       one of the shapes above (required)\n"
    "  --ops N             number of operators, exact (required unless --cnf/--graph)\n"
    CLI_HELP(SEED)
    "random shape only:\n"
    "  --window W          each op after the first reads 1..K distinct tensors among\n"
    "                      the last W tensors produced (default 0: any earlier tensor,\n"
    "                      0..K of them, repeats allowed; the width bound then grows\n"
    "                      with N)\n"
    "  --fanin K           most inputs per op (default " LS_STRINGIFY(LSP_GEN_DEFAULT_FANIN) ")\n"
    "  --fanout F          with --window: a tensor leaves the window once F ops read it\n"
    "                      (default 0: no cap)\n"
    "  --layouts L         layouts per tensor drawn from 1..L (default "
    LS_STRINGIFY(LSP_GEN_DEFAULT_LAYOUTS) ")\n"
    "  --cfgs C            configurations per op drawn from 1..C (default "
    LS_STRINGIFY(LSP_GEN_DEFAULT_CFGS) ")\n"
    "  --cnf FILE          DIMACS CNF formula for --shape sat ('p cnf V C', clauses\n"
    "                      ending in 0)\n"
    "  --graph FILE        for --shape oct: first line the vertex count, then one edge\n"
    "                      'u v' per line (vertices 0..n-1); '#' comments\n"
    CLI_HELP(OUTPUT)
    "                      (default: stdout)\n";


int cmd_gen(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"shape", required_argument, NULL, 's'}, {"ops", required_argument, NULL, 'n'},
        CLI_LONGOPT(SEED)  {"cnf", required_argument, NULL, 'c'},
        {"graph", required_argument, NULL, 'g'}, CLI_LONGOPT(OUTPUT)
        {"window", required_argument, NULL, 'w'}, {"fanin", required_argument, NULL, 'i'},
        {"fanout", required_argument, NULL, 'f'}, {"layouts", required_argument, NULL, 'l'},
        {"cfgs", required_argument, NULL, 'C'},   CLI_LONGOPT(QUIET) {NULL, 0, NULL, 0}};
    struct lsp_gen_opts go;
    lsp_gen_opts_init(&go);
    const char *shape = NULL, *cnf = NULL, *graph = NULL, *out = "-";
    unsigned long long v;
    int have_ops = 0, random_only = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "qo:", longopts, NULL)) != -1) {
        switch (c) {
        case 'q': break;      /* gen prints no status lines */
        case 's': shape = optarg; break;
        case 'n':
            if (cli_parse_u64("gen", "--ops", optarg, &v))
                return CLI_USAGE;
            if (v < 1 || v > 100000000)
                return cli_usage("gen", "--ops must be 1..100000000");
            go.ops = (int32_t)v;
            have_ops = 1;
            break;
        case CLI_OPT_SEED:
            if (cli_parse_u64("gen", CLI_FLAG_ARG(SEED), optarg, &v))
                return CLI_USAGE;
            go.seed = v;
            break;
        case 'w': case 'i': case 'f': case 'l': case 'C': {
            static const char *const names[] = {"--window", "--fanin", "--fanout",
                                                "--layouts", "--cfgs"};
            static const char keys[] = "wiflC";
            static const unsigned long long lo[] = {0, 1, 0, 1, 1};
            static const unsigned long long hi[] = {1000000, 20, 1000000, 8, 64};
            int k = (int)(strchr(keys, c) - keys);
            if (cli_parse_u64("gen", names[k], optarg, &v))
                return CLI_USAGE;
            if (v < lo[k] || v > hi[k])
                return cli_usage("gen", "%s must be %llu..%llu", names[k], lo[k], hi[k]);
            int32_t *dst[] = {&go.window, &go.max_inputs, &go.max_fanout, &go.max_layouts,
                              &go.max_cfg};
            *dst[k] = (int32_t)v;
            random_only = 1;
            break;
        }
        case 'c': cnf = optarg; break;
        case 'g': graph = optarg; break;
        case 'o': out = optarg; break;
        default: return cli_bad_option("gen", argv, "qo:");
        }
    }
    if (optind < argc)
        return cli_usage("gen", "unexpected argument '%s'", argv[optind]);
    if (!shape)
        return cli_usage("gen", "--shape is required");
    go.shape = lsp_gen_shape_parse(shape);
    if (go.shape < 0)
        return cli_usage("gen", "unknown shape '%s' (transformer, cnn, random, sat, oct)", shape);
    if (random_only && go.shape != LSP_GEN_RANDOM)
        return cli_usage("gen", "--window, --fanin, --fanout, --layouts and --cfgs go with "
                                "--shape random");
    if (go.max_fanout > 0 && go.window == 0)
        return cli_usage("gen", "--fanout needs --window");
    if (cnf && go.shape != LSP_GEN_SAT)
        return cli_usage("gen", "--cnf goes with --shape sat");
    if (graph && go.shape != LSP_GEN_OCT)
        return cli_usage("gen", "--graph goes with --shape oct");
    if (!have_ops && !cnf && !graph)
        return cli_usage("gen", "--ops is required");
    struct ls_error err;
    ls_error_clear(&err);
    struct lsp_problem *p = NULL;
    int rc = cnf ? lsp_gen_sat_file(cnf, &p, &err) : graph ? lsp_gen_oct_file(graph, &p, &err) : lsp_gen(&go, &p, &err);
    if (!rc)
        rc = lsp_write(p, out, &err);
    lsp_free(p);
    return rc ? cli_report(&err) : CLI_OK;
}
