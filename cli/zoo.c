/* laysim zoo: list the built-in model zoo with sizes and treewidth bounds. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "graph/model.h"
#include "graph/zoo.h"

const char cmd_zoo_help[] =
    "usage: laysim zoo [--json] [--layers N] [--seq N] [--batch N] [--hidden N]\n"
    "                  [--image N] [--dtype T] [--decode N] [NAME...]\n"
    "\n"
    "Build every model of the built-in zoo (or the NAMEs given) and list its family,\n"
    "operator count (sources and returns included), compute operators, tensors and the\n"
    "treewidth upper bound of its op graph (min-fill/min-degree, util/treedec).\n"
    "Zoo models are named zoo:NAME wherever a graph file is accepted; docs/zoo.md lists\n"
    "where each model's hyperparameters come from.\n"
    "\n"
    CLI_HELP(JSON)
    "                      (an array of objects {name, family, source, ops, compute_ops,\n"
    "                      tensors, edges, treewidth_ub, flops, weight_elems})\n"
    CLI_MODEL_HELP_layers CLI_MODEL_HELP_seq CLI_MODEL_HELP_batch CLI_MODEL_HELP_hidden
    CLI_MODEL_HELP_image CLI_MODEL_HELP_dtype
    CLI_HELP(QUIET)
    CLI_MODEL_HELP_decode
    "                      (other models are skipped or, when named, rejected)\n"
    "\n"
    "Without NAMEs, a model that cannot take an option (--layers 1 for ResNet) is\n"
    "skipped with a note on stderr.\n"
    "\n"
    "exit codes: 0 ok, 1 runtime failure, 2 bad usage or an option a named model cannot take\n";

static json_t *row_json(const char *name, const char *family, const char *source,
                        const struct graph_stats *st)
{
    return json_pack("{s:s, s:s, s:s, s:i, s:i, s:i, s:I, s:i, s:f, s:I}", "name", name,
                     "family", family, "source", source, "ops", (int)st->ops, "compute_ops",
                     (int)st->compute_ops, "tensors", (int)st->tensors, "edges",
                     (json_int_t)st->edges, "treewidth_ub", (int)st->treewidth_ub, "flops",
                     st->flops, "weight_elems", (json_int_t)st->weight_elems);
}

int cmd_zoo(int argc, char **argv)
{
    static const struct option opts[] = {
        CLI_LONGOPT(JSON)            CLI_MODEL_LONGOPT(layers) CLI_MODEL_LONGOPT(seq)
        CLI_MODEL_LONGOPT(batch)     CLI_MODEL_LONGOPT(hidden) CLI_MODEL_LONGOPT(image)
        CLI_MODEL_LONGOPT(dtype)     CLI_MODEL_LONGOPT(decode)
        CLI_LONGOPT(HELP)            CLI_LONGOPT(QUIET)
        {NULL, 0, NULL, 0},
    };
    int json = 0, c, idx = 0;
    struct zoo_opts zo;
    struct ls_error err;
    zoo_opts_init(&zo);
    ls_error_clear(&err);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":hq", opts, &idx)) != -1) {
        switch (c) {
        case CLI_OPT_JSON: json = 1; break;
        case 'q': break;      /* zoo prints no status lines */
        case 'h': fputs(cmd_zoo_help, stdout); return CLI_OK;
        case ':': return cli_usage("zoo", "option %s needs a value", argv[optind - 1]);
        default:
            if (c < CLI_OPT_MODEL || c >= CLI_OPT_MODEL + MODEL_NOPTS)
                return cli_usage("zoo", "unknown option '%s'", argv[optind - 1]);
            if (cli_model_opt_set(&zo, opts[idx].name, optarg, &err))
                return cli_usage("zoo", "%s", err.msg);
            break;
        }
    }
    for (int i = optind; i < argc; i++) {
        struct zoo_arch a;
        const char *n = strncmp(argv[i], "zoo:", 4) ? argv[i] : argv[i] + 4;
        if (zoo_arch_get(n, &a, &err))
            return cli_report(&err);
    }
    json_t *arr = json ? json_array() : NULL;
    if (json && !arr)
        return cli_print_json(NULL);
    if (!json)
        printf("%-14s %-16s %7s %8s %8s %6s\n", "name", "family", "ops", "compute", "tensors",
               "tw_ub");
    int rc = CLI_OK;
    size_t count = optind < argc ? (size_t)(argc - optind) : zoo_count();
    for (size_t i = 0; i < count && rc == CLI_OK; i++) {
        const struct zoo_entry *e = NULL;
        if (optind < argc) {
            const char *n = strncmp(argv[optind + i], "zoo:", 4) ? argv[optind + i]
                                                                 : argv[optind + i] + 4;
            for (size_t k = 0; k < zoo_count(); k++)
                if (!strcmp(zoo_entry(k)->name, n))
                    e = zoo_entry(k);
        } else {
            e = zoo_entry(i);
        }
        struct graph *g = NULL;
        struct graph_stats st;
        if (zoo_build(e->name, &zo, &g, &err) || graph_stats(g, &st, &err)) {
            if (optind >= argc && err.code == LS_ERR_INPUT) {
                /* listing everything: a model that cannot take an option is skipped */
                fprintf(stderr, "laysim zoo: %s skipped: %s\n", e->name, err.msg);
                graph_free(g);
                continue;
            }
            rc = cli_report(&err);
            graph_free(g);
            break;
        }
        graph_free(g);
        if (json) {
            json_t *row = row_json(e->name, e->family, e->source, &st);
            if (!row || json_array_append_new(arr, row)) {
                json_decref(arr);
                return cli_print_json(NULL);
            }
        } else {
            printf("%-14s %-16s %7d %8d %8d %6d\n", e->name, e->family, (int)st.ops,
                   (int)st.compute_ops, (int)st.tensors, (int)st.treewidth_ub);
        }
    }
    if (json) {
        if (rc != CLI_OK) {
            json_decref(arr);
            return rc;
        }
        return cli_print_json(arr);
    }
    return rc;
}
