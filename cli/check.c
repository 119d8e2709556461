/* laysim check: verify a solution against its problem and recompute the objective. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/layouts.h"
#include "solver/problem.h"

const char cmd_check_help[] =
    "usage: laysim check P.lsp S.sol [--json]\n"
    "\n"
    "Verify a solution: every op of the problem has exactly one line with a valid\n"
    "configuration index, names match, and the claimed cost (and bound) agree with the\n"
    "objective recomputed from scratch, independently of any solver. Prints the cost and\n"
    "its split: operator part, transpose part, and the conversions charged per tensor\n"
    "(producer layout -> each distinct requested layout, with its cost).\n"
    "\n"
    "options:\n"
    CLI_HELP(QUIET)
    CLI_HELP(JSON)
    "                      one object: valid, status, cost, claimed_cost, bound, op_cost,\n"
    "                      transpose_cost, transposes (list of {tensor, from, to, cost})\n"
    "\n"
    "A .sol whose problem-hash header differs from the problem's gets a warning on stderr\n"
    "(docs/formats.md); it is still judged on its content.\n"
    "\n"
    "Exit status 0 when the solution is valid, 2 when it is malformed or its cost is wrong.\n";

static const char *layout_name(const struct lsp_problem *p, int32_t t, int32_t l, char *buf,
                               size_t n)
{
    if (p->tensors[t].labels)
        return p->tensors[t].labels[l];
    snprintf(buf, n, "%d", l);
    return buf;
}

int cmd_check(int argc, char **argv)
{
    static const struct option longopts[] = {CLI_LONGOPT(JSON) CLI_LONGOPT(QUIET) {NULL, 0, NULL, 0}};
    int json = 0, c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "q", longopts, NULL)) != -1) {
        if (c == CLI_OPT_JSON)
            json = 1;
        else if (c != 'q')   /* check prints no status lines */
            return cli_bad_option("check", argv, "q");
    }
    if (optind + 2 != argc)
        return cli_usage("check", "expected a problem and a solution file");
    struct ls_error err;
    ls_error_clear(&err);
    struct lsp_problem *p;
    int rc = lsp_read(argv[optind], &p, &err);
    if (rc)
        return cli_report(&err);
    struct lsp_solution s;
    rc = lsp_sol_read(p, argv[optind + 1], &s, &err);
    if (rc) {
        lsp_free(p);
        return cli_report(&err);
    }
    /* a .sol solved for another problem can still be a valid assignment of this one:
     * say so, but judge it on its content as always */
    char here[20];
    snprintf(here, sizeof here, "%016" PRIx64, lsp_problem_hash(p));
    const char *rec = s.tie.v[LSP_TIE_PROBLEM];
    if (rec[0] && strcmp(rec, here))
        fprintf(stderr, "laysim check: warning: %s records problem-hash %s, %s has %s\n",
                argv[optind + 1], rec, argv[optind], here);
    int has = s.cfg && s.nops == p->nops && p->nops > 0;
    int64_t opc = 0, trc = 0, cost = 0;
    if (has)
        cost = lsp_eval(p, s.cfg, &opc, &trc);
    struct ls_error verr;
    ls_error_clear(&verr);
    int bad = lsp_solution_verify(p, &s, &verr);
    char b1[32], b2[32];
    json_t *list = json ? json_array() : NULL;
    if (has && !json)
        printf("cost %" PRId64 "%s (operator %" PRId64 ", transpose %" PRId64 ")\n", cost,
               cli_cost_unit(p), opc, trc);
    else if (!json)
        printf("no assignment (status %s)\n", lsp_status_name(s.status));
    int printed = 0;
    for (int32_t t = 0; has && t < p->ntensors; t++) {
        const struct lsp_tensor *x = &p->tensors[t];
        if (x->nlayouts < 2 || lsp_eval_tensor(p, s.cfg, t, NULL) == 0)
            continue;
        int32_t src = lsp_cfg_out_layout(p, x->producer, s.cfg[x->producer]);
        /* each distinct requested layout != src once, in layout order */
        for (int32_t l = 0; l < x->nlayouts; l++) {
            if (l == src)
                continue;
            if (!lsp_tensor_requests(p, s.cfg, t, l))
                continue;
            int64_t tc = lsp_tr_cost(p, t, src, l);
            if (json) {
                json_t *e = json_object();
                json_object_set_new(e, "tensor", json_string(x->name));
                json_object_set_new(e, "from", json_string(layout_name(p, t, src, b1, sizeof b1)));
                json_object_set_new(e, "to", json_string(layout_name(p, t, l, b2, sizeof b2)));
                json_object_set_new(e, "cost", json_integer(tc));
                json_array_append_new(list, e);
            } else {
                if (!printed++)
                    printf("transposes by tensor:\n");
                printf("  %s %s -> %s cost %" PRId64 "\n", x->name,
                       layout_name(p, t, src, b1, sizeof b1), layout_name(p, t, l, b2, sizeof b2),
                       tc);
            }
        }
    }
    int ret = CLI_OK;
    if (json) {
        json_t *o = json_object();
        json_object_set_new(o, "valid", json_boolean(!bad));
        json_object_set_new(o, "status", json_string(lsp_status_name(s.status)));
        json_object_set_new(o, "cost", has || p->nops == 0 ? json_integer(cost) : json_null());
        json_object_set_new(o, "claimed_cost", s.cfg ? json_integer(s.cost) : json_null());
        json_object_set_new(o, "bound", s.has_bound ? json_integer(s.bound) : json_null());
        json_object_set_new(o, "op_cost", json_integer(opc));
        json_object_set_new(o, "transpose_cost", json_integer(trc));
        json_object_set_new(o, "transposes", list);
        if (bad)
            json_object_set_new(o, "error", json_string(verr.msg));
        ret = cli_print_json(o);
    }
    if (bad) {
        snprintf(verr.file, sizeof verr.file, "%s", argv[optind + 1]);
        cli_report(&verr);
        ret = CLI_USAGE;
    }
    lsp_solution_free(&s);
    lsp_free(p);
    return ret;
}
