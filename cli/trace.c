/* laysim trace: look at, convert and import .lstrace files. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/traceops.h"
#include "traces/trace_export.h"
#include "traces/import.h"
#include "traces/summary.h"
#include "util/fileio.h"
#include "traces/synth.h"
#include "traces/trace.h"
#include "util/clock.h"
#include "util/hash.h"

/* --top N: how many operators `summary` and `ops` list. */
#define TRACE_TOP_DEFAULT 10

const char cmd_trace_help[] =
    "usage: laysim trace FILE summary [--json] [--top N] [-o OUT]\n"
    "       laysim trace FILE perfetto -o OUT.json\n"
    "       laysim trace FILE csv [-o OUT.csv]\n"
    "       laysim trace FILE check\n"
    "       laysim trace FILE ops --problem P.lsp --solution S.sol [--base-mhz F] [--top N]\n"
    "                    [--json | --csv] [-o OUT]\n"
    "       laysim trace import PROFILE -o OUT.lstrace [--format F] [--time-unit ns|us|cycles]\n"
    "                    [--clock-mhz F] [--tick-hz HZ] [--target NAME] [--target-hash HEX]\n"
    "                    [--json]\n"
    "       laysim trace synth N -o OUT.lstrace [--seed S]\n"
    "\n"
    "Traces (.lstrace, docs/formats.md) hold one record per instruction: engine, opcode,\n"
    "start/end in ticks, operand shape, stall time and cause, and the graph op and tensor\n"
    "conversion it belongs to. FILE may be '-' for standard input.\n"
    "\n"
    "actions:\n"
    "  summary    totals per engine, DMA queue and opcode (count, busy time, utilization,\n"
    "             DMA bytes), stall causes, and the top operators and conversions by time.\n"
    "             --json prints one JSON object; --top N lists N operators (default "
    LS_STRINGIFY(TRACE_TOP_DEFAULT) ");\n"
    "             -o OUT writes it to a file instead of stdout.\n"
    "  perfetto   Chrome trace-event JSON for ui.perfetto.dev or chrome://tracing: one track\n"
    "             per engine and per DMA queue, opcode names, operands as args.\n"
    "  csv        one row per record (the layout `trace import` reads; default stdout).\n"
    "  check      read every block and record, verify CRCs, print the record count, a\n"
    "             digest of all records, bytes per record and read speed.\n"
    "  ops        the trace's time per graph op and layout conversion beside the cost\n"
    "             model's prediction: each op's C_op under the solution's configuration,\n"
    "             each charged conversion's C_tr (docs/calibration.md, \"Per-op\n"
    "             attribution\"). Per name: records, busy cycles per engine, span (first\n"
    "             start to last end) and exposed time (records in program order, each adds\n"
    "             the growth of the latest end so far, as calibration measures it), which\n"
    "             sums to the span as predictions sum to the objective. Text: totals per op\n"
    "             kind and the --top N (default " LS_STRINGIFY(TRACE_TOP_DEFAULT)
    ") names the model is furthest off; --json\n"
    "             or --csv: every name.\n"
    "             Times in the problem's base-clock cycles: --base-mhz F gives that clock\n"
    "             (default: the trace's target's, which must then be a built-in one).\n"
    "  import     convert a measured profile into a trace (docs/formats.md). Formats, found\n"
    "             from the content or forced with --format: laysim-csv (laysim's CSV: engine,\n"
    "             opcode, start, end or duration, shape columns), neuron-csv (the CSV export\n"
    "             of a Neuron Explorer Instruction table: start_ts, end_ts, duration_ns,\n"
    "             engine, timeline_track, opcode, hlo_name...), chrome-json (trace-event\n"
    "             JSON: \"X\" slices, engine from the thread name, opcode = slice name,\n"
    "             operands and op from args). Profiler opcodes (MATMUL, ACTIVATE, DMA queue\n"
    "             names...) map to laysim's through one table; others are kept, counted and\n"
    "             listed. Unusable records are counted per reason. Nothing usable: exit 2.\n"
    "             --time-unit: of the timestamps (default: ns for CSV, or the '# laysim\n"
    "             trace:' line; us for JSON); cycles needs --clock-mhz (ticks at the first\n"
    "             engine's). --clock-mhz F or F,F,F,F,F (pe,act,dve,pool,dma): the engine\n"
    "             clocks, required for compute records unless the file gives them.\n"
    "             --tick-hz HZ: integer timestamps at HZ (the older form of --time-unit).\n"
    "             --json: the import summary as JSON on stdout.\n"
    "  synth      write N synthetic records shaped like a tiled matmul pipeline (for tests\n"
    "             and benchmarks); prints the record digest.\n"
    "\n"    "options:\n"
    CLI_HELP(QUIET)
    CLI_HELP(OUTPUT)
    "                      (of an action; summary and csv: stdout when absent)\n"
    CLI_HELP(JSON)
    "                      (the summary, one object)\n"
    "\n"
    "Output files are written atomically. A corrupt, truncated or newer-version trace is\n"
    "reported with its byte offset or block number (exit code 2).\n";

static const struct option long_opts[] = {
    CLI_LONGOPT(JSON)       {"top", required_argument, NULL, 't'},
    CLI_LONGOPT(OUTPUT) {"tick-hz", required_argument, NULL, 'H'},
    CLI_LONGOPT(TARGET) {"target-hash", required_argument, NULL, 'X'},
    CLI_LONGOPT(SEED)  {"format", required_argument, NULL, 'F'},
    {"time-unit", required_argument, NULL, 'U'}, {"clock-mhz", required_argument, NULL, 'C'},
    {"problem", required_argument, NULL, 'P'}, {"solution", required_argument, NULL, 'S'},
    {"base-mhz", required_argument, NULL, 'B'}, {"csv", no_argument, NULL, 'c'},
    CLI_LONGOPT(QUIET) {NULL, 0, NULL, 0}};

struct opts {
    int json;
    unsigned long long top, tick_hz, seed;
    const char *out, *target;
    int set_hash;
    unsigned long long hash;
    enum trace_import_format format;
    enum trace_time_unit unit;
    double clock_mhz[LS_ENGINE_COUNT];
    struct cli_trace_ops_opts ops;   /* the ops action's */
};

/* --clock-mhz F (every engine) or F,F,F,F,F (pe,act,dve,pool,dma, as in the CSV's
 * "# laysim trace:" line). */
static int parse_clocks(const char *arg, double *mhz)
{
    const char *p = arg;
    int n = 0;
    for (;;) {
        char *end;
        double f = strtod(p, &end);
        if (end == p || !(f > 0 && f <= 1e6) || n >= LS_ENGINE_COUNT)
            return -1;
        mhz[n++] = f;
        if (!*end)
            break;
        if (*end != ',')
            return -1;
        p = end + 1;
    }
    if (n == 1)
        for (int e = 1; e < LS_ENGINE_COUNT; e++)
            mhz[e] = mhz[0];
    return n == 1 || n == LS_ENGINE_COUNT ? 0 : -1;
}

static int parse_unit(const char *s, enum trace_time_unit *u)
{
    static const char *const names[] = {"ns", "us", "cycles"};
    for (int i = 0; i < 3; i++)
        if (!strcmp(s, names[i])) {
            *u = (enum trace_time_unit)(TRACE_UNIT_NS + i);
            return 0;
        }
    return -1;
}

static int parse_opts(const char *action, int argc, char **argv, struct opts *o)
{
    memset(o, 0, sizeof *o);
    o->seed = LS_SEED_DEFAULT; /* the --seed default (cli/flags.def) */
    o->top = TRACE_TOP_DEFAULT;
    optind = 1;
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":qt:o:H:X:F:U:C:P:S:B:c", long_opts, NULL)) != -1) {
        int rc = 0;
        char *end;
        switch (c) {
        case CLI_OPT_JSON: o->json = 1; break;
        case 'q': break;      /* trace prints no status lines */
        case 't': rc = cli_parse_u64("trace", "--top", optarg, &o->top); break;
        case 'o': o->out = optarg; break;
        case 'P': o->ops.problem = optarg; break;
        case 'S': o->ops.solution = optarg; break;
        case 'c': o->ops.csv = 1; break;
        case 'B':
            rc = cli_parse_double("trace", "--base-mhz", optarg, &o->ops.base_mhz);
            if (!rc && !(o->ops.base_mhz > 0 && o->ops.base_mhz <= 1e6))
                return cli_usage("trace", "--base-mhz: expected 0 < F <= 1e6, got '%s'", optarg);
            break;
        case 'H': rc = cli_parse_u64("trace", "--tick-hz", optarg, &o->tick_hz); break;
        case CLI_OPT_TARGET: o->target = optarg; break;
        case CLI_OPT_SEED: rc = cli_parse_u64("trace", CLI_FLAG_ARG(SEED), optarg, &o->seed); break;
        case 'F':
            if (trace_import_format_parse(optarg, &o->format))
                return cli_usage("trace", "--format: expected auto, laysim-csv, neuron-csv or "
                                 "chrome-json, got '%s'", optarg);
            break;
        case 'U':
            if (parse_unit(optarg, &o->unit))
                return cli_usage("trace", "--time-unit: expected ns, us or cycles, got '%s'", optarg);
            break;
        case 'C':
            if (parse_clocks(optarg, o->clock_mhz))
                return cli_usage("trace", "--clock-mhz: expected F or F,F,F,F,F (pe,act,dve,"
                                 "pool,dma; 0 < F <= 1e6), got '%s'", optarg);
            break;
        case 'X':
            o->hash = strtoull(optarg, &end, 16);
            if (!*optarg || *end)
                return cli_usage("trace", "--target-hash: expected hex digits, got '%s'", optarg);
            o->set_hash = 1;
            break;
        case ':': return cli_usage("trace", "%s: option %s needs a value", action, argv[optind - 1]);
        default: return cli_usage("trace", "%s: unknown option %s", action, argv[optind - 1]);
        }
        if (rc)
            return rc;
    }
    if (o->top > 100000)
        o->top = 100000;
    return CLI_OK;
}

static void print_stat_rows(FILE *f, json_t *arr, const char *key1, const char *key2)
{
    size_t i;
    json_t *x;
    json_array_foreach(arr, i, x) {
        char name[96];
        const char *a = json_string_value(json_object_get(x, key1));
        const char *b = key2 ? json_string_value(json_object_get(x, key2)) : NULL;
        snprintf(name, sizeof name, "%s%s%s", a ? a : "?", b ? " " : "", b ? b : "");
        fprintf(f, "  %-32s %10lld %14.1f %14.1f %14lld\n", name,
               (long long)json_integer_value(json_object_get(x, "instructions")),
               json_real_value(json_object_get(x, "instr_ns")),
               json_real_value(json_object_get(x, "stall_ns")),
               (long long)json_integer_value(json_object_get(x, "bytes")));
    }
}

static int print_summary_text(FILE *f, const char *path, json_t *o)
{
    fprintf(f, "trace %s: producer %s, target %s (hash %s), %lld ticks/s\n", path,
           json_string_value(json_object_get(o, "producer")),
           json_string_value(json_object_get(o, "target")),
           json_string_value(json_object_get(o, "target_hash")),
           (long long)json_integer_value(json_object_get(o, "tick_hz")));
    fprintf(f, "records %lld, span %.1f ns\n\n",
           (long long)json_integer_value(json_object_get(o, "records")),
           json_real_value(json_object_get(o, "span_ns")));
    fprintf(f, "  %-6s %10s %14s %14s %8s %14s %14s\n", "engine", "instr", "busy_ns", "busy_cycles",
           "util", "stall_ns", "dma_bytes");
    const char *k;
    json_t *e;
    json_object_foreach(json_object_get(o, "engines"), k, e) {
        fprintf(f, "  %-6s %10lld %14.1f %14.0f %7.1f%% %14.1f %14lld\n", k,
               (long long)json_integer_value(json_object_get(e, "instructions")),
               json_real_value(json_object_get(e, "busy_ns")),
               json_real_value(json_object_get(e, "busy_cycles")),
               100.0 * json_real_value(json_object_get(e, "utilization")),
               json_real_value(json_object_get(e, "stall_ns")),
               (long long)json_integer_value(json_object_get(e, "bytes")));
    }
    size_t i;
    json_t *x;
    json_t *qs = json_object_get(o, "dma_queues");
    if (json_array_size(qs)) {
        fprintf(f, "\n  %-6s %10s %14s %8s %14s\n", "queue", "instr", "busy_ns", "util", "bytes");
        json_array_foreach(qs, i, x) {
            json_t *q = json_object_get(x, "queue");
            char qn[16];
            if (json_is_integer(q))
                snprintf(qn, sizeof qn, "%lld", (long long)json_integer_value(q));
            else
                snprintf(qn, sizeof qn, "%s", json_string_value(q));
            fprintf(f, "  %-6s %10lld %14.1f %7.1f%% %14lld\n", qn,
                   (long long)json_integer_value(json_object_get(x, "instructions")),
                   json_real_value(json_object_get(x, "busy_ns")),
                   100.0 * json_real_value(json_object_get(x, "utilization")),
                   (long long)json_integer_value(json_object_get(x, "bytes")));
        }
    }
    const char *hdr = "  %-32s %10s %14s %14s %14s\n";
    fprintf(f, "\nopcodes by instruction time:\n");
    fprintf(f, hdr, "engine opcode", "instr", "instr_ns", "stall_ns", "dma_bytes");
    print_stat_rows(f, json_object_get(o, "opcodes"), "engine", "opcode");
    fprintf(f, "\nstall causes:\n  %-32s %10s %14s\n", "cause", "instr", "stall_ns");
    json_array_foreach(json_object_get(o, "stalls"), i, x)
        fprintf(f, "  %-32s %10lld %14.1f\n", json_string_value(json_object_get(x, "cause")),
               (long long)json_integer_value(json_object_get(x, "instructions")),
               json_real_value(json_object_get(x, "stall_ns")));
    fprintf(f, "\ntop operators by instruction time:\n");
    fprintf(f, hdr, "op", "instr", "instr_ns", "stall_ns", "bytes");
    print_stat_rows(f, json_object_get(o, "top_ops"), "name", NULL);
    fprintf(f, "\ntop tensor conversions by instruction time:\n");
    fprintf(f, hdr, "conversion", "instr", "instr_ns", "stall_ns", "bytes");
    print_stat_rows(f, json_object_get(o, "top_conversions"), "name", NULL);
    return CLI_OK;
}

static int do_summary(const char *path, struct trace_reader *r, const struct opts *o)
{
    struct trace_summary s;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = trace_summarize(r, &s, &err);
    if (rc) {
        trace_summary_free(&s);
        return cli_report(&err);
    }
    json_t *j = trace_summary_json(&s, r, (unsigned)o->top);
    trace_summary_free(&s);
    if (!j)
        return CLI_FAIL;
    /* -o FILE: the same text (or JSON) into a file, written atomically */
    struct ls_atomic_file af;
    if ((rc = ls_atomic_open(&af, o->out ? o->out : "-", &err))) {
        json_decref(j);
        return cli_report(&err);
    }
    if (o->json)
        rc = json_dumpf(j, af.fp, JSON_INDENT(1)) || fputc('\n', af.fp) == EOF ? CLI_FAIL : CLI_OK;
    else
        rc = print_summary_text(af.fp, path, j);
    json_decref(j);
    if (rc) {
        ls_atomic_abort(&af);
        return rc;
    }
    return ls_atomic_commit(&af, &err) ? cli_report(&err) : CLI_OK;
}

static int do_check(const char *path, struct trace_reader *r)
{
    struct ls_error err;
    struct trace_record rec;
    uint64_t n = 0, d = LS_FNV64_INIT, t0 = ls_now_ns();
    int rc;
    while ((rc = trace_reader_next(r, &rec, &err)) == 1) {
        d = trace_record_digest(d, &rec);
        n++;
    }
    if (rc < 0)
        return cli_report(&err);
    double secs = (double)(ls_now_ns() - t0) / 1e9;
    uint64_t bytes = trace_reader_offset(r);
    printf("{\"file\": \"%s\", \"records\": %llu, \"bytes\": %llu, \"bytes_per_record\": %.3f, "
           "\"digest\": \"%016llx\", \"read_seconds\": %.3f, \"records_per_second\": %.0f}\n",
           path, (unsigned long long)n, (unsigned long long)bytes,
           n ? (double)bytes / (double)n : 0.0, (unsigned long long)d, secs,
           secs > 0 ? (double)n / secs : 0.0);
    return CLI_OK;
}

static json_t *import_json(const struct trace_import_stats *st, const char *out,
                           const struct ls_error *err)
{
    json_t *j = json_object(), *drops = json_object(), *un = json_array();
    json_object_set_new(j, "format", json_string(trace_import_format_name(st->format)));
    json_object_set_new(j, "output", err ? json_null() : json_string(out));
    json_object_set_new(j, "tick_hz", json_integer((json_int_t)st->tick_hz));
    json_object_set_new(j, "events", json_integer((json_int_t)st->events));
    json_object_set_new(j, "kept", json_integer((json_int_t)st->kept));
    json_object_set_new(j, "mapped", json_integer((json_int_t)st->mapped));
    json_object_set_new(j, "unmapped", json_integer((json_int_t)(st->kept - st->mapped)));
    for (int d = 0; d < TRACE_DROP_COUNT; d++)
        json_object_set_new(drops, trace_drop_name((enum trace_drop)d),
                            json_integer((json_int_t)st->dropped[d]));
    json_object_set_new(j, "dropped", drops);
    for (size_t i = 0; i < st->nunmapped; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "opcode", json_string(st->unmapped[i]));
        json_object_set_new(x, "records", json_integer((json_int_t)st->unmapped_count[i]));
        json_array_append_new(un, x);
    }
    json_object_set_new(j, "unmapped_opcodes", un);
    json_object_set_new(j, "error", err ? json_string(err->msg) : json_null());
    return j;
}

/* The import summary: what was kept, what was left out and why, which opcodes the
 * table did not know. On stderr, so stdout stays clean for pipes. */
static void import_text(const struct trace_import_stats *st, const char *out, int ok)
{
    fprintf(stderr, "laysim trace: %s %llu of %llu records%s%s (format %s)\n",
            ok ? "imported" : "read", (unsigned long long)st->kept,
            (unsigned long long)st->events, ok ? " into " : "", ok ? out : "",
            trace_import_format_name(st->format));
    fprintf(stderr, "  laysim opcodes: %llu records", (unsigned long long)st->mapped);
    if (st->nunmapped) {
        fprintf(stderr, "; unmapped opcodes (kept, not fitted): %llu records:",
                (unsigned long long)(st->kept - st->mapped));
        for (size_t i = 0; i < st->nunmapped && i < 20; i++)
            fprintf(stderr, " %s %llu", st->unmapped[i], (unsigned long long)st->unmapped_count[i]);
        if (st->nunmapped > 20)
            fprintf(stderr, " ... (%zu names, --json lists all)", st->nunmapped);
    }
    fputc('\n', stderr);
    for (int d = 0; d < TRACE_DROP_COUNT; d++)
        if (st->dropped[d])
            fprintf(stderr, "  dropped %llu: %s (first at line %d)\n",
                    (unsigned long long)st->dropped[d], trace_drop_name((enum trace_drop)d),
                    st->drop_line[d]);
}

static int do_import(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("trace", "import: expected a profile file");
    struct opts o;
    int rc = parse_opts("import", argc - 1, argv + 1, &o);
    if (rc)
        return rc;
    if (optind != argc - 1)
        return cli_usage("trace", "import: unexpected argument '%s'", argv[1 + optind]);
    if (!o.out)
        return cli_usage("trace", "import: -o OUT.lstrace is required");
    if (o.tick_hz && o.unit != TRACE_UNIT_DEFAULT)
        return cli_usage("trace", "import: give --tick-hz or --time-unit, not both");
    struct trace_import_opts io = {o.tick_hz, o.target, o.set_hash, o.hash, o.format, o.unit,
                                   {0}};
    memcpy(io.clock_mhz, o.clock_mhz, sizeof io.clock_mhz);
    struct ls_error err;
    ls_error_clear(&err);
    struct trace_import_stats st;
    rc = trace_import(argv[1], o.out, &io, &st, &err);
    int out = CLI_OK;
    if (o.json) /* cli_print_json takes the reference (and reports a NULL as out of memory) */
        out = cli_print_json(import_json(&st, o.out, rc ? &err : NULL));
    else if (!rc || st.events)
        import_text(&st, o.out, !rc);
    trace_import_stats_free(&st);
    return rc ? cli_report(&err) : out;
}

static int do_synth(int argc, char **argv)
{
    unsigned long long n;
    if (argc < 2)
        return cli_usage("trace", "synth: expected a record count");
    int rc = cli_parse_u64("trace", "synth N", argv[1], &n);
    if (rc)
        return rc;
    struct opts o;
    if ((rc = parse_opts("synth", argc - 1, argv + 1, &o)))
        return rc;
    if (optind != argc - 1)
        return cli_usage("trace", "synth: unexpected argument '%s'", argv[1 + optind]);
    if (!o.out)
        return cli_usage("trace", "synth: -o OUT.lstrace is required");
    struct ls_error err;
    ls_error_clear(&err);
    uint64_t d = 0, t0 = ls_now_ns();
    if ((rc = trace_synth_write(o.out, n, o.seed, &d, &err)))
        return cli_report(&err);
    double secs = (double)(ls_now_ns() - t0) / 1e9;
    struct stat st;
    long long size = strcmp(o.out, "-") && stat(o.out, &st) == 0 ? (long long)st.st_size : -1;
    fprintf(strcmp(o.out, "-") ? stdout : stderr,
            "{\"records\": %llu, \"bytes\": %lld, \"bytes_per_record\": %.3f, "
            "\"digest\": \"%016llx\", \"write_seconds\": %.3f, \"records_per_second\": %.0f}\n",
            n, size, n && size > 0 ? (double)size / (double)n : 0.0, (unsigned long long)d, secs,
            secs > 0 ? (double)n / secs : 0.0);
    return CLI_OK;
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2)
        return cli_usage("trace", "expected FILE ACTION, `import CSV` or `synth N`");
    /* an option where FILE belongs ('-' is stdin) is a usage error, not a file name */
    if (argv[1][0] == '-' && argv[1][1])
        return cli_usage("trace", "unknown option '%s' (options follow FILE ACTION)", argv[1]);
    if (!strcmp(argv[1], "import"))
        return do_import(argc - 1, argv + 1);
    if (!strcmp(argv[1], "synth"))
        return do_synth(argc - 1, argv + 1);
    if (argc < 3)
        return cli_usage("trace", "expected an action after %s: summary, perfetto, csv, check or ops",
                         argv[1]);
    const char *path = argv[1], *action = argv[2];
    struct opts o;
    int rc = parse_opts(action, argc - 2, argv + 2, &o);
    if (rc)
        return rc;
    if (optind != argc - 2)
        return cli_usage("trace", "%s: unexpected argument '%s'", action, argv[2 + optind]);
    int is_summary = !strcmp(action, "summary"), is_perfetto = !strcmp(action, "perfetto"),
        is_csv = !strcmp(action, "csv"), is_check = !strcmp(action, "check"),
        is_ops = !strcmp(action, "ops");
    if (!is_summary && !is_perfetto && !is_csv && !is_check && !is_ops)
        return cli_usage("trace", "unknown action '%s' (summary, perfetto, csv, check, ops)",
                         action);
    if (!is_ops && (o.ops.problem || o.ops.solution || o.ops.base_mhz > 0 || o.ops.csv))
        return cli_usage("trace", "%s: --problem, --solution, --base-mhz and --csv belong to "
                         "the ops action", action);
    if (is_perfetto && !o.out)
        return cli_usage("trace", "perfetto: -o OUT.json is required");
    if (is_check && o.out)
        return cli_usage("trace", "check: writes nothing, -o is not used");
    struct ls_error err;
    ls_error_clear(&err);
    struct trace_reader *r;
    if ((rc = trace_reader_open(&r, path, &err)))
        return cli_report(&err);
    if (is_summary)
        rc = do_summary(path, r, &o);
    else if (is_ops) {
        o.ops.top = o.top;
        o.ops.json = o.json;
        o.ops.out = o.out;
        rc = cli_trace_ops(path, r, &o.ops);
    }
    else if (is_check)
        rc = do_check(path, r);
    else {
        int st = is_perfetto ? trace_export_perfetto(r, o.out, &err)
                             : trace_export_csv(r, o.out ? o.out : "-", &err);
        rc = st ? cli_report(&err) : CLI_OK;
    }
    trace_reader_close(r);
    return rc;
}
