/* laysim sim: run a program (or a built-in microbenchmark) on the simulator. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/targetargs.h"
#include "sim/micro.h"
#include "sim/program.h"
#include "sim/sim.h"
#include "sim/target.h"
#include "traces/trace.h"
#include "util/clock.h"

const char cmd_sim_help[] =
    "usage: laysim sim PROGRAM [--target NAME|FILE] [--set KEY=VALUE]... [--json]\n"
    "                  [--trace OUT.lstrace] [-o OUT] [--ignore-mismatch]\n"
    "       laysim sim --micro SPEC [options]\n"
    "       laysim sim --print-target [--target ...] [--set ...]\n"
    "\n"
    "Simulate an instruction program (.lsprog text or .lsprogz binary, told apart by content;\n"
    "docs/formats.md) on a NeuronCore target and print the total time, per-engine busy time\n"
    "and utilization, per-queue DMA bytes and efficiency, and stall time by cause.\n"
    "\n"
    "options:\n" CLI_TARGET_HELP
    CLI_HELP(JSON)
    "                      one object: cycles (base clock), ns, instructions,\n"
    "                      engines.{pe,act,dve,pool,dma}.{busy_cycles,instructions,...},\n"
    "                      queues, dma_descriptors.{lt512,512_2k,2k_8k,ge8k}.{descriptors,\n"
    "                      bytes} (by contiguous chunk size: <512 B, 512 B-2 KiB, 2-8 KiB,\n"
    "                      >=8 KiB), conversion_share (layout conversions' share of the\n"
    "                      summed instruction time), stalls_ns\n"
    "  --trace FILE        write one trace record per instruction (.lstrace)\n"
    CLI_HELP(OUTPUT)
    "                      (the results, text or --json, instead of stdout)\n"
    "  --micro SPEC        run a built-in microbenchmark instead of a file (keys in\n"
    "                      brackets are optional, the others required):\n"
    "                        gemm:M=512,K=256,N=1024[,dtype=bf16,swap=1]\n"
    "                        dma:bytes_per_partition=256,count=64[,partitions=128,queues=4,\n"
    "                            dir=load|store|sbuf,transpose=1,dtype=bf16]\n"
    "                        dve:op=add,free=2048[,partitions=128,dtype=,count=,dep=1]\n"
    "                        act:free=1,count=64[,dep=1,func=exp,partitions=]\n"
    "                        mix:instructions=1000000[,seed=1]   (the bench/sim.sh program)\n"
    "  --print-target      print the target's key=value lines and hash, then exit (with\n"
    "                      --json: {name, hash, keys: {KEY: VALUE}})\n"
    "  --time              also report the simulator's own speed (simulate_seconds of CPU\n"
    "                      time, simulate_wall_seconds, instructions_per_second = instructions\n"
    "                      / CPU seconds; not deterministic)\n"
    "  --ignore-mismatch   simulate a program compiled for another target (its\n"
    "                      `# target:` line names another; a --set variant of its target\n"
    "                      is the same target) with a warning instead of refusing it\n"
    "                      (exit 2)\n"
    CLI_HELP(HELP)
    CLI_HELP(QUIET)
    "\n"
    "Targets and the timing model: docs/targets.md.\n";

static double cpu_seconds(void)
{
    return (double)ls_cpu_ns() * 1e-9;
}

static json_t *engine_json(const struct sim_target *t, const struct sim_stats *st,
                           enum ls_engine e)
{
    const struct sim_engine_stats *es = &st->engine[e];
    json_t *o = json_object();
    json_object_set_new(o, "instructions", json_integer((json_int_t)es->instructions));
    json_object_set_new(o, "busy_cycles", json_integer((json_int_t)sim_ticks_cycles(t, e, es->busy_ticks)));
    json_object_set_new(o, "busy_ns", json_real(sim_ticks_ns(st, es->busy_ticks)));
    json_object_set_new(o, "clock_mhz", json_integer(sim_engine_mhz(t, e)));
    json_object_set_new(o, "utilization",
                        json_real(st->ticks ? (double)es->busy_ticks / (double)st->ticks : 0.0));
    if (e == LS_ENGINE_PE) {
        uint64_t span = es->instructions ? es->last_end - es->first_start : 0;
        json_object_set_new(o, "span_cycles", json_integer((json_int_t)sim_ticks_cycles(t, e, span)));
    }
    if (e == LS_ENGINE_DMA) {
        json_object_set_new(o, "bytes", json_integer((json_int_t)st->dma_bytes));
        json_object_set_new(o, "efficiency", json_real(sim_dma_efficiency(t, st)));
    }
    return o;
}

/* Descriptors and bytes per chunk-size bucket (sim.h: SIM_DESC_BUCKETS). */
static json_t *desc_hist_json(const struct sim_stats *st)
{
    json_t *o = json_object();
    for (int b = 0; b < SIM_DESC_BUCKETS; b++) {
        json_t *j = json_object();
        json_object_set_new(j, "descriptors", json_integer((json_int_t)st->desc_hist[b].descriptors));
        json_object_set_new(j, "bytes", json_integer((json_int_t)st->desc_hist[b].bytes));
        json_object_set_new(o, sim_desc_bucket_name(b), j);
    }
    return o;
}

static int print_json(const struct sim_target *t, const struct sim_stats *st, const char *what,
                      const char *micro, double secs, double wall)
{
    json_t *o = json_object();
    char hash[32];
    snprintf(hash, sizeof hash, "%016" PRIx64, sim_target_hash(t));
    json_object_set_new(o, micro ? "micro" : "program", json_string(micro ? micro : what));
    json_object_set_new(o, "target", json_string(t->name));
    json_object_set_new(o, "target_hash", json_string(hash));
    json_object_set_new(o, "tick_mhz", json_integer((json_int_t)st->tick_mhz));
    json_object_set_new(o, "cycles", json_integer((json_int_t)sim_ticks_base_cycles(t, st->ticks)));
    json_object_set_new(o, "ns", json_real(sim_ticks_ns(st, st->ticks)));
    json_object_set_new(o, "ticks", json_integer((json_int_t)st->ticks));
    json_object_set_new(o, "instructions", json_integer((json_int_t)st->instructions));
    json_t *eng = json_object();
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        json_object_set_new(eng, ls_engine_name((enum ls_engine)e),
                            engine_json(t, st, (enum ls_engine)e));
    json_object_set_new(o, "engines", eng);
    json_t *qs = json_array();
    for (uint32_t q = 0; q < st->nqueues; q++) {
        const struct sim_queue_stats *qq = &st->queue[q];
        if (!qq->instructions)
            continue;
        json_t *j = json_object();
        json_object_set_new(j, "queue", json_integer(q));
        json_object_set_new(j, "instructions", json_integer((json_int_t)qq->instructions));
        json_object_set_new(j, "bytes", json_integer((json_int_t)qq->bytes));
        json_object_set_new(j, "descriptors", json_integer((json_int_t)qq->descriptors));
        json_object_set_new(j, "busy_ns", json_real(sim_ticks_ns(st, qq->busy_ticks)));
        json_object_set_new(j, "efficiency", json_real(sim_queue_efficiency(t, st, q)));
        json_array_append_new(qs, j);
    }
    json_object_set_new(o, "queues", qs);
    json_object_set_new(o, "dma_descriptors", desc_hist_json(st));
    json_object_set_new(o, "conversion_share",
                        json_real(st->instr_ticks ? (double)st->conv_instr_ticks /
                                                        (double)st->instr_ticks : 0.0));
    json_t *stalls = json_object();
    for (int c = 1; c < LS_STALL_COUNT; c++)
        json_object_set_new(stalls, ls_stall_name((enum ls_stall)c),
                            json_real(sim_ticks_ns(st, st->stall_ticks[c])));
    json_object_set_new(o, "stalls_ns", stalls);
    if (secs >= 0) {
        json_object_set_new(o, "simulate_seconds", json_real(secs));
        json_object_set_new(o, "simulate_wall_seconds", json_real(wall));
        json_object_set_new(o, "instructions_per_second",
                            json_real(secs > 0 ? (double)st->instructions / secs : 0.0));
    }
    return cli_print_json(o);
}

static void print_text(const struct sim_target *t, const struct sim_stats *st, const char *what)
{
    printf("%s on %s (hash %016" PRIx64 ")\n", what, t->name, sim_target_hash(t));
    printf("total: %" PRIu64 " cycles at %u MHz (%.1f ns), %" PRIu64 " instructions\n",
           sim_ticks_base_cycles(t, st->ticks), t->base_mhz, sim_ticks_ns(st, st->ticks),
           st->instructions);
    printf("%-5s %12s %14s %12s %7s\n", "engine", "instructions", "busy_cycles", "clock_MHz", "util");
    for (int e = 0; e < LS_ENGINE_COUNT; e++) {
        const struct sim_engine_stats *es = &st->engine[e];
        printf("%-6s %12" PRIu64 " %14" PRIu64 " %12u %6.1f%%\n",
               ls_engine_name((enum ls_engine)e), es->instructions,
               sim_ticks_cycles(t, (enum ls_engine)e, es->busy_ticks),
               sim_engine_mhz(t, (enum ls_engine)e),
               st->ticks ? 100.0 * (double)es->busy_ticks / (double)st->ticks : 0.0);
    }
    for (uint32_t q = 0; q < st->nqueues; q++) {
        const struct sim_queue_stats *qq = &st->queue[q];
        if (qq->instructions)
            printf("dma queue %2u: %" PRIu64 " transfers, %" PRIu64 " bytes, %" PRIu64
                   " descriptors, efficiency %.1f%%\n",
                   q, qq->instructions, qq->bytes, qq->descriptors,
                   100.0 * sim_queue_efficiency(t, st, q));
    }
    if (st->engine[LS_ENGINE_DMA].instructions)
        printf("dma: %" PRIu64 " bytes, efficiency %.1f%% of %u engines x %g B/ns while busy\n",
               st->dma_bytes, 100.0 * sim_dma_efficiency(t, st), t->dma_engines,
               t->dma_bytes_per_ns);
    if (st->engine[LS_ENGINE_DMA].instructions) {
        printf("dma descriptors by chunk size:");
        for (int b = 0; b < SIM_DESC_BUCKETS; b++)
            printf(" %s=%" PRIu64 " (%" PRIu64 " B)", sim_desc_bucket_name(b),
                   st->desc_hist[b].descriptors, st->desc_hist[b].bytes);
        printf("\n");
    }
    printf("stalls (ns):");
    for (int c = 1; c < LS_STALL_COUNT; c++)
        printf(" %s=%.1f", ls_stall_name((enum ls_stall)c),
               sim_ticks_ns(st, st->stall_ticks[c]));
    printf("\n");
}

/* The key=value lines of sim_target_lines as one object (values stay strings, as written). */
static int print_target_json(const struct sim_target *t, char *lines)
{
    char h[24];
    snprintf(h, sizeof h, "%016" PRIx64, sim_target_hash(t));
    json_t *keys = json_object();
    char *save = NULL;
    for (char *line = strtok_r(lines, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *eq = strchr(line, '=');
        if (eq) {
            *eq = '\0';
            json_object_set_new(keys, line, json_string(eq + 1));
        }
    }
    return cli_print_json(json_pack("{s:s, s:s, s:o}", "name", t->name, "hash", h, "keys", keys));
}

static int print_target(const struct sim_target *t, int json)
{
    size_t n = sim_target_lines(t, NULL, 0);
    char *buf = malloc(n + 1);
    if (!buf)
        return CLI_FAIL;
    sim_target_lines(t, buf, n + 1);
    if (json) {
        int rc = print_target_json(t, buf);
        free(buf);
        return rc;
    }
    printf("# target %s\n%shash=%016" PRIx64 "\n", t->name, buf, sim_target_hash(t));
    free(buf);
    return CLI_OK;
}

/* A program compiled for another target: refused (1), or simulated with a warning. */
static int check_tie(const struct sim_program *p, const struct sim_target *t, const char *file,
                     int ignore)
{
    char what[512];
    if (!sim_program_tie_check(p, t, what, sizeof what))
        return 0;
    fprintf(stderr, "laysim sim: %s%s: %s%s\n", ignore ? "warning: " : "", file, what,
            ignore ? " (--ignore-mismatch)" : " (--ignore-mismatch to simulate it anyway)");
    return !ignore;
}

int cmd_sim(int argc, char **argv)
{
    static const struct option longopts[] = {
        CLI_TARGET_LONGOPTS
        CLI_LONGOPT(JSON)
        {"trace", required_argument, NULL, 't'},
        {"micro", required_argument, NULL, 'm'},
        {"print-target", no_argument, NULL, 'p'},
        {"time", no_argument, NULL, 'T'},
        CLI_LONGOPT(HELP)
        CLI_LONGOPT(OUTPUT)
        CLI_LONGOPT(QUIET)
        {"ignore-mismatch", no_argument, NULL, 'I'},
        {NULL, 0, NULL, 0},
    };
    struct cli_target_args ta = {0};
    const char *micro = NULL, *trace = NULL, *outp = NULL;
    int json = 0, ptarget = 0, timed = 0, ignore = 0, c, rc = CLI_OK;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "hqo:", longopts, NULL)) != -1) {
        switch (c) {
        case CLI_OPT_TARGET:
        case CLI_OPT_SET:
            if (cli_target_args_take(&ta, c, optarg)) {
                cli_target_args_free(&ta);
                fprintf(stderr, "laysim sim: out of memory\n");
                return CLI_FAIL;
            }
            break;
        case CLI_OPT_JSON: json = 1; break;
        case 't': trace = optarg; break;
        case 'm': micro = optarg; break;
        case 'p': ptarget = 1; break;
        case 'T': timed = 1; break;
        case 'o': outp = optarg; break;
        case 'q': break;      /* sim prints no status lines */
        case 'I': ignore = 1; break;
        case 'h':
            cli_target_args_free(&ta);
            fputs(cmd_sim_help, stdout);
            return CLI_OK;
        default:
            cli_target_args_free(&ta);
            return cli_bad_option("sim", argv, "hqo:");
        }
    }
    int npos = argc - optind;
    struct ls_error err;
    ls_error_clear(&err);
    struct sim_target t;
    if (cli_target_args_resolve(&ta, &t, &err)) {
        cli_target_args_free(&ta);
        return cli_report(&err);
    }
    cli_target_args_free(&ta);
    if (ptarget) {
        if (npos || micro)
            return cli_usage("sim", "--print-target takes no program");
        return print_target(&t, json);
    }
    if ((micro && npos) || (!micro && npos != 1))
        return cli_usage("sim", micro ? "--micro takes no program file"
                                      : "expected exactly one PROGRAM (or --micro SPEC)");
    const char *what = micro ? micro : argv[optind];
    struct sim_program *p = NULL;
    /* a file is checked against the target as it loads: sim_run then skips its own pass */
    if (micro ? sim_micro_build(micro, &t, &p, &err)
              : sim_program_load_checked(&p, what, &t, &err)) {
        if (micro && err.code == LS_ERR_INPUT)
            cli_error_prefix(&err, "--micro ");
        return cli_report(&err);
    }
    if (!micro && check_tie(p, &t, what, ignore)) {
        sim_program_free(p);
        return CLI_USAGE;
    }
    struct sim_stats st;
    uint64_t t0 = ls_now_ns();
    double c0 = cpu_seconds();
    if (trace)
        rc = sim_run_trace(&t, p, trace, &st, &err);
    else
        rc = sim_run(&t, p, NULL, &st, &err);
    double wall = ls_seconds_since(t0), secs = timed ? cpu_seconds() - c0 : -1.0;
    sim_program_free(p);
    if (rc)
        return cli_report(&err);
    struct cli_redirect out;
    if (cli_stdout_begin(&out, outp, &err))
        return cli_report(&err);
    if (json) {
        rc = print_json(&t, &st, what, micro, secs, wall);
    } else {
        print_text(&t, &st, what);
        if (secs >= 0)
            printf("simulated %" PRIu64 " instructions in %.3f s of CPU time, %.3f s wall "
                   "(%.0f instructions/s)\n",
                   st.instructions, secs, wall,
                   secs > 0 ? (double)st.instructions / secs : 0.0);
    }
    if (cli_stdout_end(&out, rc == CLI_OK, &err))
        return cli_report(&err);
    return rc;
}
