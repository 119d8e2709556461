/* laysim cosim: co-simulate the tensor-engine RTL (hw/, run by Verilator) against the C
 * simulator. The sweep itself lives in hw/harness/rtl_cosim.c; without the RTL build
 * (LAYSIM_RTL=OFF or no Verilator) the command says so and fails. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "util/progress.h"

#ifdef LAYSIM_HAVE_RTL
#include "harness/rtl_cosim.h"
#endif

/* --rows/--cols: the array size the default build verilates. */
#define COSIM_ARRAY_DEFAULT 32

const char cmd_cosim_help[] =
    "usage: laysim cosim [--rows R --cols C] [--json] [--trace OUT.lstrace] [-q]\n"
    "\n"
    "Run the co-simulation sweep: single tiles (K x M x T grid, T from 1 to 512), back-to-back\n"
    "load/matmul sequences with and without background loading, PE transposes, DVE 32x32\n"
    "transposes and DMA transfers of several chunk sizes, each on the RTL tensor engine and\n"
    "on the simulator configured with the same numbers (one DMA engine and queue at the RTL's\n"
    "rates, no HBM contention). Prints per case the RTL cycles, simulator cycles, their\n"
    "difference and whether the numeric result matched. PE, transpose and DVE cases must agree\n"
    "to the cycle on every instruction; DMA cases within the stated tolerance (docs/rtl.md).\n"
    "\n"
    "options:\n"
    "  --rows R, --cols C  array size (default " LS_STRINGIFY(COSIM_ARRAY_DEFAULT) " x "
    LS_STRINGIFY(COSIM_ARRAY_DEFAULT) "; must be a size the build verilated)\n"
    CLI_HELP(JSON)
    "                      {\"rows\", \"cols\", \"target_hash\", \"cases\": [{name, kind,\n"
    "                      rtl_cycles, sim_cycles, diff, tolerance, timing_ok, result_ok}],\n"
    "                      \"passed\", \"failed\", \"rtl_cycles_per_second\",\n"
    "                      \"rtl_cpu_seconds\", \"rtl_cycles_per_cpu_second\"}\n"
    "  --trace OUT         write the RTL retire events as a trace (producer rtl)\n"
    CLI_HELP(QUIET)
    "\n"
    "exit: 0 all cases agree, 1 a case disagrees or the RTL was not built, 2 bad usage.\n";

#ifdef LAYSIM_HAVE_RTL
/* rtl_cosim's progress callback: the bar of cli/common.c (the harness knows no terminal) */
static void cosim_progress(void *ctx, size_t done, size_t total)
{
    struct ls_progress *p = ctx;
    p->total = total;
    ls_progress_update(p, done);
}
#endif

int cmd_cosim(int argc, char **argv)
{
    static const struct option opts[] = {
        {"rows", required_argument, NULL, 'r'},
        {"cols", required_argument, NULL, 'c'},
        CLI_LONGOPT(JSON)
        {"trace", required_argument, NULL, 't'},
        CLI_LONGOPT(QUIET)
        {NULL, 0, NULL, 0},
    };
    unsigned long long rows = COSIM_ARRAY_DEFAULT, cols = COSIM_ARRAY_DEFAULT;
    int json = 0, quiet = 0, ch;
    const char *trace = NULL;
    optind = 1;
    while ((ch = getopt_long(argc, argv, "q", opts, NULL)) != -1) {
        switch (ch) {
        case 'r':
            if (cli_parse_u64("cosim", "--rows", optarg, &rows))
                return CLI_USAGE;
            break;
        case 'c':
            if (cli_parse_u64("cosim", "--cols", optarg, &cols))
                return CLI_USAGE;
            break;
        case CLI_OPT_JSON: json = 1; break;
        case 't': trace = optarg; break;
        case 'q': quiet = 1; break;
        default: return cli_bad_option("cosim", argv, "q");
        }
    }
    if (optind < argc)
        return cli_usage("cosim", "unexpected argument '%s'", argv[optind]);
    if (rows == 0 || cols == 0 || rows > 4096 || cols > 4096)
        return cli_usage("cosim", "--rows and --cols must be 1..4096");
#ifndef LAYSIM_HAVE_RTL
    (void)json;
    (void)trace;
    (void)quiet;
    fprintf(stderr, "laysim cosim: this laysim was built without the RTL (Verilator not found or "
                    "-DLAYSIM_RTL=OFF); install verilator and rebuild\n");
    return CLI_FAIL;
#else
    struct ls_progress pb;
    ls_progress_begin(&pb, "cosim", 0, quiet);
    struct rtl_cosim_opts o = {(uint32_t)rows, (uint32_t)cols, trace, cosim_progress, &pb};
    struct rtl_cosim_report rep;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = rtl_cosim_run(&o, &rep, &err);
    ls_progress_end(&pb);
    if (rc) {
        rtl_cosim_report_free(&rep);
        return cli_report(&err);
    }
    size_t failed = 0;
    for (size_t i = 0; i < rep.n; i++)
        failed += !(rep.cases[i].timing_ok && rep.cases[i].result_ok);
    double cps = rep.rtl_seconds > 0 ? (double)rep.rtl_cycles_simulated / rep.rtl_seconds : 0;
    double cpu_cps =
        rep.rtl_cpu_seconds > 0 ? (double)rep.rtl_cycles_simulated / rep.rtl_cpu_seconds : 0;
    if (json) {
        json_t *root = json_object(), *arr = json_array();
        json_object_set_new(root, "rows", json_integer((json_int_t)rows));
        json_object_set_new(root, "cols", json_integer((json_int_t)cols));
        char h[32];
        snprintf(h, sizeof h, "%016llx", (unsigned long long)rep.target_hash);
        json_object_set_new(root, "target_hash", json_string(h));
        for (size_t i = 0; i < rep.n; i++) {
            const struct rtl_cosim_case *k = &rep.cases[i];
            json_t *o2 = json_object();
            json_object_set_new(o2, "name", json_string(k->name));
            json_object_set_new(o2, "kind", json_string(k->kind));
            json_object_set_new(o2, "instructions", json_integer(k->instructions));
            json_object_set_new(o2, "rtl_cycles", json_integer((json_int_t)k->rtl_cycles));
            json_object_set_new(o2, "sim_cycles", json_integer((json_int_t)k->sim_cycles));
            json_object_set_new(o2, "diff", json_integer((json_int_t)k->diff));
            json_object_set_new(o2, "tolerance", json_integer((json_int_t)k->tolerance));
            json_object_set_new(o2, "timing_mismatches", json_integer(k->timing_mismatches));
            json_object_set_new(o2, "timing_ok", json_boolean(k->timing_ok));
            json_object_set_new(o2, "result_ok", json_boolean(k->result_ok));
            json_array_append_new(arr, o2);
        }
        json_object_set_new(root, "cases", arr);
        json_object_set_new(root, "passed", json_integer((json_int_t)(rep.n - failed)));
        json_object_set_new(root, "failed", json_integer((json_int_t)failed));
        json_object_set_new(root, "rtl_cycles", json_integer((json_int_t)rep.rtl_cycles_simulated));
        json_object_set_new(root, "rtl_seconds", json_real(rep.rtl_seconds));
        json_object_set_new(root, "rtl_cycles_per_second", json_real(cps));
        json_object_set_new(root, "rtl_cpu_seconds", json_real(rep.rtl_cpu_seconds));
        json_object_set_new(root, "rtl_cycles_per_cpu_second", json_real(cpu_cps));
        cli_print_json(root);
    } else {
        printf("%-40s %-13s %10s %10s %6s %4s %-6s %-6s\n", "case", "kind", "rtl", "sim", "diff",
               "tol", "timing", "result");
        for (size_t i = 0; i < rep.n; i++) {
            const struct rtl_cosim_case *k = &rep.cases[i];
            printf("%-40s %-13s %10llu %10llu %6lld %4llu %-6s %-6s\n", k->name, k->kind,
                   (unsigned long long)k->rtl_cycles, (unsigned long long)k->sim_cycles,
                   (long long)k->diff, (unsigned long long)k->tolerance,
                   k->timing_ok ? "ok" : "FAIL", k->result_ok ? "ok" : "FAIL");
        }
        printf("%zu cases, %zu passed, %zu failed; %llu RTL cycles in %.3f s (%.0f cycles/s; "
               "%.3f CPU s, %.0f cycles per CPU second)\n",
               rep.n, rep.n - failed, failed, (unsigned long long)rep.rtl_cycles_simulated,
               rep.rtl_seconds, cps, rep.rtl_cpu_seconds, cpu_cps);
    }
    rtl_cosim_report_free(&rep);
    return failed ? CLI_FAIL : CLI_OK;
#endif
}
