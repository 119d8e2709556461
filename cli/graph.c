/* laysim graph: read a .lg graph file, validate it, print statistics, JSON or DOT. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "cli/cli.h"
#include "graph/graph.h"
#include "graph/lg.h"
#include "graph/model.h"
#include "solver/fence.h"
#include "util/clock.h"

const char cmd_graph_help[] =
    "usage: laysim graph MODEL [--stats] [--json] [--dot] [-o OUT.lg] [--time-limit S]\n"
    "                    [scaling options]\n"
    "\n"
    "Read a model (a graph file .lg, see docs/formats.md, or '-' for stdin; zoo:NAME from\n"
    "`laysim zoo`; a HuggingFace config.json; an ONNX .onnx; a TensorFlow.js graph model\n"
    "model.json; an XLA HLO text module .hlo, docs/import.md), check it (syntax, shapes against shape inference, one\n"
    "producer per tensor, no cycles, attributes in range) and print:\n"
    "  (no option)   a one-line summary\n"
    "  --stats             statistics: ops (sources and returns included), compute_ops,\n"
    "                      tensors, edges (producer->consumer uses), max_fanout, treewidth_ub\n"
    "                      (min-fill/min-degree bound of the undirected op graph), flops, ...\n"
    CLI_HELP(JSON)
    "                      (with --stats one object of statistics, else the whole graph)\n"
    "  --dot               Graphviz DOT of the op graph (not with --json or --stats)\n"
    CLI_HELP(OUTPUT)
    "                      (the graph in canonical .lg form, besides what is printed)\n"
    CLI_HELP(TIME_LIMIT)
    "                      (exit 1: the command runs in a child process killed at the\n"
    "                      limit, import and statistics included)\n"
    CLI_HELP(QUIET)
    CLI_MODEL_HELP
    "\n"
    "exit codes: 0 ok, 1 runtime failure (I/O, memory), 2 bad input or usage\n"
    "(errors name FILE:LINE:COLUMN and what was expected)\n";

struct graph_args {
    const char *path, *outpath;
    int stats, json, dot;
    struct zoo_opts zo;
};

/* The command's work once its options are checked: its exit code. */
static int graph_run(const struct graph_args *a)
{
    const char *path = a->path, *outpath = a->outpath;
    int stats = a->stats, json = a->json, dot = a->dot;
    struct ls_error err;
    ls_error_clear(&err);
    struct graph *g = NULL;
    if (model_load(path, &a->zo, &g, &err))
        return cli_report(&err);
    int rc = CLI_OK;
    struct graph_stats st;
    if (graph_stats(g, &st, &err)) {
        rc = cli_report(&err);
        goto out;
    }
    if (outpath && graph_write_file(g, outpath, &err)) {
        rc = cli_report(&err);
        goto out;
    }
    if (outpath && !strcmp(outpath, "-"))
        goto out;
    if (dot) {
        if (graph_write_dot(g, stdout, &err))
            rc = cli_report(&err);
    } else if (json) {
        rc = cli_print_json(stats ? graph_stats_to_json(&st) : graph_to_json(g));
    } else if (stats) {
        printf("graph         %s\n", graph_name(g)[0] ? graph_name(g) : "(unnamed)");
        printf("ops           %d\n", (int)st.ops);
        printf("compute_ops   %d\n", (int)st.compute_ops);
        printf("sources       %d\n", (int)st.sources);
        printf("returns       %d\n", (int)st.returns);
        printf("tensors       %d\n", (int)st.tensors);
        printf("edges         %lld\n", (long long)st.edges);
        printf("max_fanout    %d\n", (int)st.max_fanout);
        printf("treewidth_ub  %d\n", (int)st.treewidth_ub);
        printf("weight_elems  %lld\n", (long long)st.weight_elems);
        printf("tensor_bytes  %lld\n", (long long)st.tensor_bytes);
        printf("flops         %.6g\n", st.flops);
    } else {
        printf("%s: ok: graph '%s', %d ops (%d compute), %d tensors, %lld edges, "
               "treewidth <= %d\n",
               path, graph_name(g), (int)st.ops, (int)st.compute_ops, (int)st.tensors, (long long)st.edges,
               (int)st.treewidth_ub);
    }
out:
    graph_free(g);
    return rc;
}

/* graph_run in a child process (solver/fence: its import and the treewidth heuristic
 * cannot be stopped from inside), killed when --time-limit runs out. */
static int graph_body(void *ctx, int fd)
{
    (void)fd;
    int rc = graph_run(ctx);
    fflush(NULL);
    return rc;
}

static int graph_within(const struct graph_args *a, double limit)
{
    size_t got;
    int st;
    uint64_t until = ls_now_ns() + (uint64_t)(limit * 1e9);
    enum lsp_fence_end e = lsp_fence_run(graph_body, (void *)a, until, NULL, 0, &got, &st);
    if (e == LSP_FENCE_DONE)
        return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
    struct ls_error err;
    if (e == LSP_FENCE_CUT)
        ls_error_msg(&err, LS_ERR_LIMIT, "--time-limit %g s ran out reading %s", limit, a->path);
    else
        ls_error_msg(&err, LS_ERR_NOMEM, "cannot start the process of --time-limit");
    return cli_report(&err);
}

int cmd_graph(int argc, char **argv)
{
    static const struct option opts[] = {
        {"stats", no_argument, NULL, 's'},   CLI_LONGOPT(JSON)
        {"dot", no_argument, NULL, 'd'},     CLI_LONGOPT(OUTPUT)
        CLI_LONGOPT(HELP)    CLI_LONGOPT(TIME_LIMIT)
        CLI_MODEL_LONGOPTS                   CLI_LONGOPT(QUIET)
        {NULL, 0, NULL, 0},
    };
    struct graph_args a = {0};
    int c, mrc;
    double time_limit = 0;
    zoo_opts_init(&a.zo);
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":o:hq", opts, NULL)) != -1) {
        switch (c) {
        case 's': a.stats = 1; break;
        case CLI_OPT_JSON: a.json = 1; break;
        case 'd': a.dot = 1; break;
        case 'o': a.outpath = optarg; break;
        case 'q': break;      /* graph prints no status lines */
        case 'h': fputs(cmd_graph_help, stdout); return CLI_OK;
        case CLI_OPT_TIME_LIMIT:
            if ((mrc = cli_parse_double("graph", CLI_FLAG_ARG(TIME_LIMIT), optarg, &time_limit)))
                return mrc;
            if (!(time_limit > 0))
                return cli_usage("graph", "--time-limit must be > 0");
            break;
        case ':': return cli_usage("graph", "option %s needs a value", argv[optind - 1]);
        default:
            if (cli_model_opt(&a.zo, c, optarg, &mrc)) {
                if (mrc)
                    return mrc;
                break;
            }
            return cli_usage("graph", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return cli_usage("graph", optind >= argc ? "expected a graph file"
                                                 : "expected exactly one graph file");
    if (a.dot && (a.json || a.stats))
        return cli_usage("graph", "--dot cannot be combined with --json or --stats");
    if (a.outpath && !strcmp(a.outpath, "-") && (a.dot || a.json || a.stats))
        return cli_usage("graph", "-o - writes to stdout: do not combine with other output");
    a.path = argv[optind];
    return time_limit > 0 ? graph_within(&a, time_limit) : graph_run(&a);
}
