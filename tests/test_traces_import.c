/* Tests for trace import of profiler formats (traces/import*.c): the Neuron Explorer
 * Instruction-table CSV and Chrome trace-event JSON fixtures (tests/data/traces/), each drop
 * reason, the opcode table, time units and clocks, the exit-2 cases (nothing usable, no
 * clock), format detection, and laysim's own JSON export read back record for record. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/trace_export.h"
#include "traces/import.h"
#include "traces/synth.h"
#include "traces/trace.h"
#include "util/dtype.h"

#define FIXTURE(name) LAYSIM_SOURCE_DIR "/tests/data/traces/" name

static void path_for(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "test_import_%ld_%s", (long)getpid(), name);
}

static struct trace_import_opts clock_opts(double mhz)
{
    struct trace_import_opts o;
    memset(&o, 0, sizeof o);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        o.clock_mhz[e] = mhz;
    return o;
}

/* All records of a trace, with opcode and op names resolved. */
struct rec {
    struct trace_record r;
    char opcode[32], op[32];
};

static size_t read_all(const char *path, struct rec *out, size_t max, uint64_t *tick_hz)
{
    struct trace_reader *rd;
    struct ls_error err;
    assert_int_equal(trace_reader_open(&rd, path, &err), LS_OK);
    if (tick_hz)
        *tick_hz = trace_reader_header(rd)->tick_hz;
    size_t n = 0;
    struct trace_record r;
    while (trace_reader_next(rd, &r, &err) == 1 && n < max) {
        out[n].r = r;
        snprintf(out[n].opcode, sizeof out[n].opcode, "%s", trace_reader_opcode(rd, r.opcode));
        const char *op = trace_reader_string(rd, r.op_id);
        snprintf(out[n].op, sizeof out[n].op, "%s", op ? op : "");
        n++;
    }
    trace_reader_close(rd);
    return n;
}

static void expect_drops(const struct trace_import_stats *st, const uint64_t *want)
{
    for (int d = 0; d < TRACE_DROP_COUNT; d++)
        if (st->dropped[d] != want[d])
            fail_msg("%s: %llu dropped, want %llu", trace_drop_name((enum trace_drop)d),
                     (unsigned long long)st->dropped[d], (unsigned long long)want[d]);
}

static void test_neuron_csv(void **state)
{
    (void)state;
    char out[128];
    path_for(out, sizeof out, "neuron.lstrace");
    struct trace_import_opts o = clock_opts(1400);
    struct trace_import_stats st;
    struct ls_error err;
    if (trace_import(FIXTURE("neuron_instructions.csv"), out, &o, &st, &err))
        fail_msg("%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    assert_int_equal(st.format, TRACE_FMT_NEURON_CSV);
    assert_int_equal(st.events, 16);
    assert_int_equal(st.kept, 10);
    assert_int_equal(st.mapped, 8);
    assert_int_equal(st.nunmapped, 2);
    assert_string_equal(st.unmapped[0], "DRAIN");
    assert_string_equal(st.unmapped[1], "NOP");
    /* one row per reason, in the order the fixture has them (not_a_slice is JSON's) */
    const uint64_t want[TRACE_DROP_COUNT] = {1, 1, 1, 1, 1, 1, 0};
    expect_drops(&st, want);
    assert_int_equal(st.drop_line[TRACE_DROP_END_BEFORE_START], 12);
    trace_import_stats_free(&st);
    struct rec r[16];
    uint64_t hz;
    size_t n = read_all(out, r, 16, &hz);
    assert_int_equal(n, 10);
    assert_int_equal(hz, 1000000000ULL);
    assert_string_equal(r[0].opcode, "load_stationary");
    assert_string_equal(r[1].opcode, "matmul");
    assert_int_equal(r[1].r.engine, LS_ENGINE_PE);
    assert_int_equal(r[1].r.start, 1100);
    assert_int_equal(r[1].r.end, 1460);
    assert_int_equal(r[1].r.stall, 4);        /* evt_wait_time_ns */
    assert_int_equal(r[1].r.id, 2);
    assert_string_equal(r[1].op, "dot.1");    /* hlo_name */
    assert_string_equal(r[3].opcode, "activation");
    assert_int_equal(r[3].r.engine, LS_ENGINE_ACT);
    assert_string_equal(r[5].opcode, "tensor_scalar");
    assert_string_equal(r[6].opcode, "iota");
    assert_int_equal(r[6].r.engine, LS_ENGINE_POOL);
    assert_string_equal(r[6].op, "iota.5");
    assert_string_equal(r[7].opcode, "DRAIN"); /* kept under its own name */
    assert_string_equal(r[9].opcode, "dma_copy");
    assert_int_equal(r[9].r.engine, LS_ENGINE_DMA);
    unlink(out);
}

/* The Instruction table's size columns (hbm/sbuf/psum bytes, tensor_elements, raw and
 * adjusted FLOPs) give each record its memories, dtype, free size or DMA bytes. */
static void test_neuron_sizes(void **state)
{
    (void)state;
    char out[128];
    path_for(out, sizeof out, "neuron_sizes.lstrace");
    struct trace_import_opts o = clock_opts(1400);
    struct trace_import_stats st;
    struct ls_error err;
    if (trace_import(FIXTURE("neuron_sizes.csv"), out, &o, &st, &err))
        fail_msg("%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    assert_int_equal(st.kept, 6);
    assert_int_equal(st.dropped[TRACE_DROP_BAD_FIELD], 1);   /* sbuf_read_bytes "12kB" */
    assert_int_equal(st.drop_line[TRACE_DROP_BAD_FIELD], 8);
    trace_import_stats_free(&st);
    struct rec r[8];
    assert_int_equal(read_all(out, r, 8, NULL), 6);
    assert_string_equal(r[0].opcode, "load_stationary");     /* 16384 elements / 128 */
    assert_int_equal(r[0].r.partitions, 128);
    assert_int_equal(r[0].r.src_mem, LS_MEM_SBUF);
    assert_int_equal(r[1].r.free_size, 512);                 /* moving 128 x 512 */
    assert_int_equal(r[1].r.dtype, LS_DT_BF16);              /* adjusted = raw FLOPs */
    assert_int_equal(r[1].r.src_mem, LS_MEM_SBUF);
    assert_int_equal(r[1].r.dst_mem, LS_MEM_PSUM);
    assert_int_equal(r[2].r.dtype, LS_DT_FP32);              /* adjusted = 4 x raw */
    assert_int_equal(r[2].r.free_size, 256);
    assert_string_equal(r[3].opcode, "activation");
    assert_int_equal(r[3].r.dtype, LS_DT_BF16);              /* 2 bytes written / element */
    assert_int_equal(r[3].r.src_mem, LS_MEM_PSUM);
    assert_int_equal(r[3].r.dst_mem, LS_MEM_SBUF);
    assert_int_equal(r[3].r.free_size, 512);
    assert_int_equal(r[4].r.dtype, LS_DT_FP32);              /* a reduction: 4 bytes read */
    assert_string_equal(r[5].opcode, "dma_copy");
    assert_int_equal(r[5].r.partitions, 1);
    assert_int_equal(r[5].r.descriptors, 1);
    assert_int_equal(r[5].r.bytes_per_partition, 65536);
    assert_int_equal(r[5].r.chunk_bytes, 65536);
    assert_int_equal(r[5].r.src_mem, LS_MEM_HBM);
    assert_int_equal(r[5].r.dst_mem, LS_MEM_SBUF);
    unlink(out);
}

static void test_chrome_json(void **state)
{
    (void)state;
    char out[128];
    path_for(out, sizeof out, "chrome.lstrace");
    struct trace_import_opts o = clock_opts(1400);
    struct trace_import_stats st;
    struct ls_error err;
    if (trace_import(FIXTURE("perfetto_trace.json"), out, &o, &st, &err))
        fail_msg("%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    assert_int_equal(st.format, TRACE_FMT_CHROME_JSON);
    assert_int_equal(st.events, 13);
    assert_int_equal(st.kept, 6);
    assert_int_equal(st.mapped, 5);
    assert_int_equal(st.nunmapped, 1);
    assert_string_equal(st.unmapped[0], "DRAIN");
    const uint64_t want[TRACE_DROP_COUNT] = {1, 0, 1, 1, 1, 1, 2};
    expect_drops(&st, want);
    trace_import_stats_free(&st);
    struct rec r[8];
    uint64_t hz;
    size_t n = read_all(out, r, 8, &hz);
    assert_int_equal(n, 6);
    assert_int_equal(hz, 1000000000ULL);      /* us in, ns ticks out */
    assert_string_equal(r[1].opcode, "matmul");
    assert_int_equal(r[1].r.start, 1100);
    assert_int_equal(r[1].r.end, 1460);
    assert_int_equal(r[1].r.free_size, 512);
    assert_int_equal(r[1].r.dtype, LS_DT_BF16);
    assert_string_equal(r[1].op, "dot.1");
    assert_string_equal(r[2].op, "tanh.2");  /* from args.label */
    /* tid 3's thread name comes after its slices: still the vector engine */
    assert_string_equal(r[3].opcode, "tensor_tensor");
    assert_int_equal(r[3].r.engine, LS_ENGINE_DVE);
    assert_string_equal(r[4].opcode, "dma_copy");
    assert_int_equal(r[4].r.engine, LS_ENGINE_DMA);
    assert_int_equal(r[4].r.descriptors, 128);
    unlink(out);
}

static int import_text(const char *text, const struct trace_import_opts *o,
                       struct trace_import_stats *st, struct ls_error *err, const char *out)
{
    char in[128];
    path_for(in, sizeof in, "in.txt");
    FILE *fp = fopen(in, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    int rc = trace_import(in, out, o, st, err);
    unlink(in);
    return rc;
}

/* Nothing usable: exit 2 (LS_ERR_INPUT) with the counts, and no output left. */
static void test_nothing_usable(void **state)
{
    (void)state;
    char out[128];
    path_for(out, sizeof out, "none.lstrace");
    struct trace_import_opts o = clock_opts(1000);
    struct trace_import_stats st;
    struct ls_error err;
    const char *all_bad = "start_ts,end_ts,engine,opcode\n5,4,tensor,MATMUL\n,9,tensor,MATMUL\n";
    assert_int_equal(import_text(all_bad, &o, &st, &err, out), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "no record kept"));
    assert_int_equal(st.dropped[TRACE_DROP_END_BEFORE_START], 1);
    assert_int_equal(st.dropped[TRACE_DROP_BAD_TIME], 1);
    assert_int_equal(access(out, F_OK), -1);
    trace_import_stats_free(&st);
    /* only opcodes the table does not know */
    assert_int_equal(import_text("engine,opcode,start,end\npe,FROB,1,2\n", &o, &st, &err, out),
                     LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "none of the 1 records"));
    assert_int_equal(st.nunmapped, 1);
    assert_int_equal(access(out, F_OK), -1);
    trace_import_stats_free(&st);
    /* a profiler CSV without laysim's header line: compute records need a clock */
    memset(&o, 0, sizeof o);
    assert_int_equal(import_text("engine,opcode,start,end\nTensor,MATMUL,1,2\n", &o, &st, &err, out),
                     LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--clock-mhz"));
    assert_int_equal(err.line, 2);
    assert_int_equal(access(out, F_OK), -1);
    trace_import_stats_free(&st);
    /* an empty JSON trace */
    o = clock_opts(1000);
    assert_int_equal(import_text("{\"traceEvents\": []}", &o, &st, &err, out), LS_ERR_INPUT);
    trace_import_stats_free(&st);
    /* JSON syntax errors name line and column */
    assert_int_equal(import_text("{\"traceEvents\": [\n {\"ph\": \"X\" \"ts\": 1}]}", &o, &st, &err, out),
                     LS_ERR_INPUT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.col, 13); /* the second member's quote */
    trace_import_stats_free(&st);
}

static uint64_t one_record(const char *text, struct trace_import_opts *o, uint64_t *tick_hz,
                           uint64_t *end)
{
    char out[128];
    path_for(out, sizeof out, "unit.lstrace");
    struct trace_import_stats st;
    struct ls_error err;
    if (import_text(text, o, &st, &err, out))
        fail_msg("%s: %s:%d:%d: %s", text, err.file, err.line, err.col, err.msg);
    trace_import_stats_free(&st);
    struct rec r[2];
    assert_int_equal(read_all(out, r, 2, tick_hz), 1);
    unlink(out);
    *end = r[0].r.end;
    return r[0].r.start;
}

static void test_time_units(void **state)
{
    (void)state;
    struct trace_import_opts o = clock_opts(1400);
    uint64_t hz, end;
    const char *csv = "engine,opcode,start,end\npe,matmul,2.5,4.25\n";
    o.time_unit = TRACE_UNIT_US; /* decimals in us -> ns ticks */
    assert_int_equal(one_record(csv, &o, &hz, &end), 2500);
    assert_int_equal(end, 4250);
    assert_int_equal(hz, 1000000000ULL);
    o.time_unit = TRACE_UNIT_CYCLES; /* cycles at 1400 MHz: ticks are cycles */
    const char *cyc = "engine,opcode,start,end\npe,matmul,100,228\n";
    assert_int_equal(one_record(cyc, &o, &hz, &end), 100);
    assert_int_equal(hz, 1400000000ULL);
    o.time_unit = TRACE_UNIT_DEFAULT; /* the older --tick-hz */
    o.tick_hz = 2000000000ULL;
    assert_int_equal(one_record(cyc, &o, &hz, &end), 100);
    assert_int_equal(hz, 2000000000ULL);
    o.tick_hz = 0;
    o.time_unit = TRACE_UNIT_NS; /* JSON timestamps read as ns, rounded */
    const char *js = "[{\"ph\":\"X\",\"tid\":\"pe\",\"ts\":7.6,\"dur\":3e1,\"name\":\"MATMUL\"}]";
    assert_int_equal(one_record(js, &o, &hz, &end), 8);
    assert_int_equal(end, 38);
    o.time_unit = TRACE_UNIT_DEFAULT; /* JSON: us by default */
    assert_int_equal(one_record(js, &o, &hz, &end), 7600);
    /* cycles without a clock is refused */
    memset(&o, 0, sizeof o);
    o.time_unit = TRACE_UNIT_CYCLES;
    char out[128];
    path_for(out, sizeof out, "nc.lstrace");
    struct trace_import_stats st;
    struct ls_error err;
    assert_int_equal(import_text(cyc, &o, &st, &err, out), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "--clock-mhz"));
    trace_import_stats_free(&st);
}

/* A UTF-8 byte-order mark (spreadsheet and UI exports) is skipped in every format, also
 * with --format forced; a lone first byte of one is a syntax error, located. */
static void test_byte_order_mark(void **state)
{
    (void)state;
    struct trace_import_opts o = clock_opts(1400);
    uint64_t hz, end;
    const char *csv = "\xef\xbb\xbfstart_ts,end_ts,engine,opcode\n3,10,tensor,MATMUL\n";
    assert_int_equal(one_record(csv, &o, &hz, &end), 3);
    const char *js = "\xef\xbb\xbf[{\"ph\":\"X\",\"tid\":\"pe\",\"ts\":1,\"dur\":2,"
                     "\"name\":\"MATMUL\"}]";
    assert_int_equal(one_record(js, &o, &hz, &end), 1000);
    o.format = TRACE_FMT_CHROME_JSON;
    assert_int_equal(one_record(js, &o, &hz, &end), 1000);
    char out[128];
    path_for(out, sizeof out, "bom.lstrace");
    struct trace_import_stats st;
    struct ls_error err;
    assert_int_equal(import_text("\xef@", &o, &st, &err, out), LS_ERR_INPUT);
    assert_int_equal(err.line, 1);
    assert_true(err.col >= 1);
    trace_import_stats_free(&st);
}

/* --format forces a reader; detection looks at the content, not the file name. */
static void test_format(void **state)
{
    (void)state;
    struct trace_import_opts o = clock_opts(1400);
    char out[128];
    path_for(out, sizeof out, "fmt.lstrace");
    struct trace_import_stats st;
    struct ls_error err;
    o.format = TRACE_FMT_LAYSIM_CSV; /* laysim's strict reader rejects Neuron's columns */
    assert_int_equal(trace_import(FIXTURE("neuron_instructions.csv"), out, &o, &st, &err),
                     LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "header"));
    trace_import_stats_free(&st);
    o.format = TRACE_FMT_CHROME_JSON;
    assert_int_equal(trace_import(FIXTURE("neuron_instructions.csv"), out, &o, &st, &err),
                     LS_ERR_INPUT);
    trace_import_stats_free(&st);
    enum trace_import_format f;
    assert_int_equal(trace_import_format_parse("neuron-csv", &f), 0);
    assert_int_equal(f, TRACE_FMT_NEURON_CSV);
    assert_int_equal(trace_import_format_parse("xml", &f), -1);
}

/* laysim's Perfetto export imports back to the same records, header and names. */
static void test_json_roundtrip(void **state)
{
    (void)state;
    char tr[128], js[128], tr2[128], c1[128], c2[128];
    path_for(tr, sizeof tr, "rt.lstrace");
    path_for(js, sizeof js, "rt.json");
    path_for(tr2, sizeof tr2, "rt2.lstrace");
    path_for(c1, sizeof c1, "rt1.csv");
    path_for(c2, sizeof c2, "rt2.csv");
    struct ls_error err;
    assert_int_equal(trace_synth_write(tr, 3000, 5, NULL, &err), LS_OK);
    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, tr, &err), LS_OK);
    assert_int_equal(trace_export_perfetto(r, js, &err), LS_OK);
    trace_reader_close(r);
    struct trace_import_stats st;
    if (trace_import(js, tr2, NULL, &st, &err))
        fail_msg("%s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    assert_int_equal(st.kept, 3000);
    trace_import_stats_free(&st);
    const char *paths[2][2] = {{tr, c1}, {tr2, c2}};
    for (int i = 0; i < 2; i++) {
        assert_int_equal(trace_reader_open(&r, paths[i][0], &err), LS_OK);
        assert_int_equal(trace_export_csv(r, paths[i][1], &err), LS_OK);
        trace_reader_close(r);
    }
    FILE *a = fopen(c1, "r"), *b = fopen(c2, "r");
    assert_non_null(a);
    assert_non_null(b);
    char la[4096], lb[4096];
    int line = 0;
    while (fgets(la, sizeof la, a)) {
        assert_non_null(fgets(lb, sizeof lb, b));
        if (line++ == 0) /* producer differs: sim vs import */
            assert_non_null(strstr(lb, "tick_hz=5600000000 target_hash=5eed5eed5eed5eed"));
        else if (strcmp(la, lb))
            fail_msg("line %d: %s vs %s", line, la, lb);
    }
    assert_null(fgets(lb, sizeof lb, b));
    fclose(a);
    fclose(b);
    unlink(tr);
    unlink(js);
    unlink(tr2);
    unlink(c1);
    unlink(c2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_neuron_csv),     cmocka_unit_test(test_neuron_sizes),     cmocka_unit_test(test_chrome_json),
        cmocka_unit_test(test_nothing_usable), cmocka_unit_test(test_time_units),
        cmocka_unit_test(test_format),         cmocka_unit_test(test_json_roundtrip),
        cmocka_unit_test(test_byte_order_mark),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
