/* Tests for traces/: summary figures, Perfetto (Chrome trace-event) export parsed back with
 * jansson, CSV export -> import round trip, and CSV import errors with line:column. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/trace_export.h"
#include "traces/import.h"
#include "traces/summary.h"
#include "traces/synth.h"
#include "traces/trace.h"
#include "util/dtype.h"

static const char *const opcodes[] = {"dma_copy", "matmul", "activation", "tensor_tensor"};

static void path_for(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "test_tools_%ld_%s", (long)getpid(), name);
}

static struct trace_record rec(uint64_t id, int engine, uint32_t opcode, uint64_t start,
                               uint64_t end)
{
    struct trace_record r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.engine = (uint8_t)engine;
    r.opcode = opcode;
    r.start = start;
    r.end = end;
    r.queue = TRACE_NO_QUEUE;
    r.op_id = r.conv_id = TRACE_NO_ID;
    r.partitions = 128;
    r.dtype = LS_DT_BF16;
    return r;
}

/* A small hand-made trace: busy PE, ACT, DVE and two DMA queues; POOL idle. 1 tick = 1 ns. */
static void write_small(const char *path)
{
    struct trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = TRACE_PROD_SIM;
    h.target = "nc-v2";
    h.tick_hz = 1000000000ULL;
    h.clock_mhz[LS_ENGINE_PE] = 2000;
    h.nopcodes = 4;
    h.opcodes = opcodes;
    struct trace_writer *w;
    struct ls_error err;
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    int32_t mm, conv;
    assert_int_equal(trace_writer_intern(w, "layer1.\"mm\",x", &mm, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "w:KM->MK", &conv, &err), LS_OK);
    struct trace_record r[6];
    r[0] = rec(0, LS_ENGINE_DMA, 0, 0, 100);
    r[0].queue = 0, r[0].bytes_per_partition = 1024, r[0].conv_id = conv;
    r[0].src_mem = LS_MEM_HBM, r[0].dst_mem = LS_MEM_SBUF;
    r[1] = rec(1, LS_ENGINE_DMA, 0, 10, 60);
    r[1].queue = 3, r[1].bytes_per_partition = 512, r[1].partitions = 64;
    r[2] = rec(2, LS_ENGINE_PE, 1, 100, 300);
    r[2].op_id = mm, r[2].stall = 90, r[2].stall_cause = LS_STALL_DEPENDENCY;
    r[3] = rec(3, LS_ENGINE_PE, 1, 300, 400);
    r[3].op_id = mm;
    r[4] = rec(4, LS_ENGINE_ACT, 2, 400, 450);
    r[4].stall = 5, r[4].stall_cause = LS_STALL_ACCESS_CONFLICT;
    r[5] = rec(5, LS_ENGINE_DVE, 3, 450, 500);
    for (int i = 0; i < 6; i++)
        assert_int_equal(trace_writer_write(w, &r[i], &err), LS_OK);
    assert_int_equal(trace_writer_close(w, &err), LS_OK);
}

static void test_summary(void **state)
{
    (void)state;
    char path[128];
    path_for(path, sizeof path, "sum.lstrace");
    write_small(path);
    struct trace_reader *r;
    struct ls_error err;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    struct trace_summary s;
    assert_int_equal(trace_summarize(r, &s, &err), LS_OK);
    assert_int_equal(s.records, 6);
    assert_int_equal(s.last_end - s.first_start, 500);
    assert_int_equal(s.engine[LS_ENGINE_PE].count, 2);
    assert_int_equal(s.engine[LS_ENGINE_PE].busy, 300);
    assert_int_equal(s.engine[LS_ENGINE_DMA].bytes, 128 * 1024 + 64 * 512);
    assert_int_equal(s.queues_used, 2);
    assert_true(trace_summary_utilization(&s, LS_ENGINE_PE) == 0.6);
    /* DMA: queues 0 and 3 overlap, [0,100) covers [10,60). */
    assert_int_equal(s.engine[LS_ENGINE_DMA].busy, 150);
    assert_int_equal(s.engine[LS_ENGINE_DMA].active, 100);
    assert_true(trace_summary_utilization(&s, LS_ENGINE_DMA) == 0.2);
    assert_int_equal(s.queue[3].active, 50);
    assert_true(trace_ticks_cycles(&s.header, LS_ENGINE_PE, 300) == 600.0);
    assert_int_equal(s.stall[LS_STALL_DEPENDENCY].stall, 90);

    json_t *j = trace_summary_json(&s, r, 5);
    assert_non_null(j);
    json_t *pe = json_object_get(json_object_get(j, "engines"), "pe");
    assert_int_equal(json_integer_value(json_object_get(pe, "instructions")), 2);
    assert_true(json_real_value(json_object_get(pe, "busy_cycles")) == 600.0);
    /* DMA: busy = the union of its instructions (100 ticks), instr = their sum (150) */
    json_t *dma = json_object_get(json_object_get(j, "engines"), "dma");
    assert_int_equal(json_integer_value(json_object_get(dma, "instr_ticks")), 150);
    assert_true(json_real_value(json_object_get(dma, "busy_ns")) ==
                trace_ticks_ns(&s.header, 100));
    json_t *ops = json_object_get(j, "opcodes");
    assert_string_equal(json_string_value(json_object_get(json_array_get(ops, 0), "opcode")), "matmul");
    json_t *st = json_object_get(j, "stalls");
    assert_int_equal(json_array_size(st), 2);
    assert_string_equal(json_string_value(json_object_get(json_array_get(st, 0), "cause")), "dependency");
    json_t *top = json_object_get(j, "top_ops");
    assert_int_equal(json_array_size(top), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(top, 0), "name")),
                        "layer1.\"mm\",x");
    assert_int_equal(json_integer_value(json_object_get(json_array_get(top, 0), "instr_ticks")), 300);
    json_decref(j);
    trace_summary_free(&s);
    trace_reader_close(r);
    unlink(path);
}

static void test_perfetto(void **state)
{
    (void)state;
    char path[128], out[128];
    path_for(path, sizeof path, "pf.lstrace");
    path_for(out, sizeof out, "pf.json");
    write_small(path);
    struct trace_reader *r;
    struct ls_error err;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    assert_int_equal(trace_export_perfetto(r, out, &err), LS_OK);
    trace_reader_close(r);

    json_error_t jerr;
    json_t *j = json_load_file(out, 0, &jerr);
    if (!j)
        fail_msg("invalid JSON at line %d: %s", jerr.line, jerr.text);
    json_t *ev = json_object_get(j, "traceEvents");
    assert_true(json_is_array(ev));
    /* One named track per busy engine / DMA queue, and every slice on a named track. */
    const char *want[] = {"pe", "act", "dve", "dma q0", "dma q3"};
    int seen[5] = {0};
    long tid_of[5] = {0};
    size_t i, slices = 0;
    json_t *e;
    json_array_foreach(ev, i, e) {
        const char *ph = json_string_value(json_object_get(e, "ph"));
        const char *name = json_string_value(json_object_get(e, "name"));
        assert_non_null(ph);
        if (!strcmp(ph, "M") && !strcmp(name, "thread_name")) {
            const char *tn = json_string_value(json_object_get(json_object_get(e, "args"), "name"));
            int found = 0;
            for (int k = 0; k < 5; k++)
                if (!strcmp(tn, want[k])) {
                    seen[k]++;
                    tid_of[k] = (long)json_integer_value(json_object_get(e, "tid"));
                    found = 1;
                }
            if (!found)
                fail_msg("unexpected track '%s'", tn);
        } else if (!strcmp(ph, "X")) {
            slices++;
            assert_true(json_is_number(json_object_get(e, "ts")));
            assert_true(json_is_number(json_object_get(e, "dur")));
        }
    }
    for (int k = 0; k < 5; k++)
        assert_int_equal(seen[k], 1);
    assert_int_equal(slices, 6);
    /* The second matmul: on the PE track, 0.1 us long, with its operands as args. */
    json_array_foreach(ev, i, e) {
        json_t *args = json_object_get(e, "args");
        if (json_integer_value(json_object_get(args, "id")) == 3 &&
            json_object_get(e, "dur")) {
            assert_string_equal(json_string_value(json_object_get(e, "name")), "matmul");
            assert_int_equal(json_integer_value(json_object_get(e, "tid")), tid_of[0]);
            assert_true(json_real_value(json_object_get(e, "dur")) == 0.1);
            assert_true(json_real_value(json_object_get(e, "ts")) == 0.3);
            assert_string_equal(json_string_value(json_object_get(args, "op")), "layer1.\"mm\",x");
            assert_int_equal(json_integer_value(json_object_get(args, "partitions")), 128);
        }
    }
    json_decref(j);
    unlink(path);
    unlink(out);
}

static char *slurp_text(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *buf = calloc(1, (size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, fp), (size_t)n);
    fclose(fp);
    return buf;
}

static void read_records(const char *path, struct trace_record *out, size_t max, size_t *n)
{
    struct trace_reader *r;
    struct ls_error err;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    *n = 0;
    int rc;
    while ((rc = trace_reader_next(r, &out[*n], &err)) == 1) {
        assert_true(*n < max);
        (*n)++;
    }
    assert_int_equal(rc, 0);
    trace_reader_close(r);
}

/* Trace -> CSV -> import -> CSV: the records and the CSV text are unchanged. */
static void test_csv_roundtrip(void **state)
{
    (void)state;
    char tr[128], csv1[128], tr2[128], csv2[128];
    path_for(tr, sizeof tr, "rt.lstrace");
    path_for(csv1, sizeof csv1, "rt1.csv");
    path_for(tr2, sizeof tr2, "rt2.lstrace");
    path_for(csv2, sizeof csv2, "rt2.csv");
    struct ls_error err;
    assert_int_equal(trace_synth_write(tr, 2000, 9, NULL, &err), LS_OK);
    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, tr, &err), LS_OK);
    assert_int_equal(trace_export_csv(r, csv1, &err), LS_OK);
    trace_reader_close(r);
    uint64_t n = 0;
    struct trace_import_opts o = {0};
    if (trace_import_csv(csv1, tr2, &o, &n, &err))
        fail_msg("import: %s:%d:%d: %s", err.file, err.line, err.col, err.msg);
    assert_int_equal(n, 2000);
    struct trace_record *a = calloc(2100, sizeof *a), *b = calloc(2100, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    size_t na, nb;
    read_records(tr, a, 2100, &na);
    read_records(tr2, b, 2100, &nb);
    assert_int_equal(na, nb);
    assert_int_equal(na, 2000);
    struct trace_reader *r1, *r2;
    assert_int_equal(trace_reader_open(&r1, tr, &err), LS_OK);
    assert_int_equal(trace_reader_open(&r2, tr2, &err), LS_OK);
    const struct trace_header *h1 = trace_reader_header(r1), *h2 = trace_reader_header(r2);
    assert_int_equal(h2->producer, TRACE_PROD_IMPORT);
    assert_int_equal(h1->tick_hz, h2->tick_hz);
    assert_int_equal(h1->target_hash, h2->target_hash);
    assert_string_equal(h1->target, h2->target);
    assert_memory_equal(h1->clock_mhz, h2->clock_mhz, sizeof h1->clock_mhz);
    struct trace_record x;
    while (trace_reader_next(r1, &x, &err) == 1) {} /* load all strings */
    while (trace_reader_next(r2, &x, &err) == 1) {}
    for (size_t i = 0; i < na; i++) {
        assert_int_equal(a[i].id, b[i].id);
        assert_int_equal(a[i].start, b[i].start);
        assert_int_equal(a[i].end, b[i].end);
        assert_int_equal(a[i].stall, b[i].stall);
        assert_int_equal(a[i].engine, b[i].engine);
        assert_int_equal(a[i].stall_cause, b[i].stall_cause);
        assert_int_equal(a[i].queue, b[i].queue);
        assert_int_equal(a[i].descriptors, b[i].descriptors);
        assert_int_equal(a[i].chunk_bytes, b[i].chunk_bytes);
        assert_int_equal(a[i].dtype, b[i].dtype);
        assert_string_equal(trace_reader_opcode(r1, a[i].opcode), trace_reader_opcode(r2, b[i].opcode));
        const char *o1 = trace_reader_string(r1, a[i].op_id), *o2 = trace_reader_string(r2, b[i].op_id);
        assert_true((o1 == NULL) == (o2 == NULL));
        if (o1)
            assert_string_equal(o1, o2);
        o1 = trace_reader_string(r1, a[i].conv_id), o2 = trace_reader_string(r2, b[i].conv_id);
        assert_true((o1 == NULL) == (o2 == NULL));
        if (o1)
            assert_string_equal(o1, o2);
    }
    free(a);
    free(b);
    trace_reader_close(r1);
    /* Export the imported trace again: identical CSV except the producer. */
    trace_reader_close(r2);
    assert_int_equal(trace_reader_open(&r2, tr2, &err), LS_OK);
    assert_int_equal(trace_export_csv(r2, csv2, &err), LS_OK);
    trace_reader_close(r2);
    char *t1 = slurp_text(csv1), *t2 = slurp_text(csv2);
    const char *p1 = strstr(t1, "producer=sim "), *p2 = strstr(t2, "producer=import ");
    assert_non_null(p1);
    assert_non_null(p2);
    assert_string_equal(p1 + strlen("producer=sim "), p2 + strlen("producer=import "));
    free(t1);
    free(t2);
    unlink(tr);
    unlink(tr2);
    unlink(csv1);
    unlink(csv2);
}

static int import_text(const char *text, struct ls_error *err, const char *out)
{
    char csv[128];
    path_for(csv, sizeof csv, "in.csv");
    FILE *fp = fopen(csv, "w");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    struct trace_import_opts o = {0};
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        o.clock_mhz[e] = 1400; /* compute records need a clock to be usable */
    uint64_t n;
    int rc = trace_import_csv(csv, out, &o, &n, err);
    unlink(csv);
    return rc;
}

static void expect_error(const char *text, int line, int col, const char *needle)
{
    char out[128];
    path_for(out, sizeof out, "bad.lstrace");
    struct ls_error err;
    int rc = import_text(text, &err, out);
    if (rc != LS_ERR_INPUT)
        fail_msg("accepted: %s", text);
    if (err.line != line || err.col != col || !strstr(err.msg, needle))
        fail_msg("got %d:%d '%s', want %d:%d '%s'", err.line, err.col, err.msg, line, col, needle);
    assert_int_equal(access(out, F_OK), -1); /* no output left */
}

static void test_import(void **state)
{
    (void)state;
    char out[128];
    path_for(out, sizeof out, "imp.lstrace");
    struct ls_error err;
    /* Profiler-style engine names, a duration column, quoted names, comments, CRLF. */
    const char *ok = "# measured on trn1\r\n"
                     "engine,opcode,start,duration,partitions,dtype,op\r\n"
                     "TensorMatrix,MATMUL,100,64,128,bf16,\"a,\"\"b\"\"\"\r\n"
                     "\r\n"
                     "Vector,TENSOR_TENSOR,200,30,,,\r\n"
                     "qSyncIO,DMA,0,500,16,fp32,a\r\n";
    assert_int_equal(import_text(ok, &err, out), LS_OK);
    struct trace_record r[4];
    size_t n;
    read_records(out, r, 4, &n);
    assert_int_equal(n, 3);
    assert_int_equal(r[0].engine, LS_ENGINE_PE);
    assert_int_equal(r[0].end, 164);
    assert_int_equal(r[1].engine, LS_ENGINE_DVE);
    assert_int_equal(r[1].partitions, 0);
    assert_int_equal(r[1].op_id, TRACE_NO_ID);
    assert_int_equal(r[2].engine, LS_ENGINE_DMA);
    assert_int_equal(r[2].id, 2);
    assert_int_equal(r[2].dtype, LS_DT_FP32);
    struct trace_reader *rd;
    assert_int_equal(trace_reader_open(&rd, out, &err), LS_OK);
    assert_int_equal(trace_reader_header(rd)->tick_hz, 1000000000ULL);
    assert_int_equal(trace_reader_header(rd)->producer, TRACE_PROD_IMPORT);
    struct trace_record x;
    assert_int_equal(trace_reader_next(rd, &x, &err), 1);
    assert_string_equal(trace_reader_string(rd, x.op_id), "a,\"b\"");
    assert_string_equal(trace_reader_opcode(rd, x.opcode), "matmul"); /* profmap.c */
    trace_reader_close(rd);
    unlink(out);

    expect_error("", 1, 1, "no header row");
    expect_error("engine,opcode,start\n", 1, 1, "missing the required column 'end (or duration)'");
    expect_error("engine,opcode,start,end,colour\n", 1, 25, "header");
    expect_error("engine,opcode,start,end\npe,mm,5,x\n", 2, 9, "end: expected a non-negative integer");
    expect_error("engine,opcode,start,end\npe,mm,5,6\nwarp,mm,1,2\n", 3, 1, "engine");
    expect_error("engine,opcode,start,end\npe,mm,50,6\n", 2, 10, "before start");
    expect_error("engine,opcode,start,end\npe,mm,5\n", 2, 7, "expected 4 fields, got 3");
    expect_error("engine,opcode,start,end,op\npe,mm,5,6,\"abc\n", 2, 11, "unterminated");
    expect_error("engine,opcode,start,end,dtype\npe,mm,5,6,fp64\n", 2, 11, "dtype");
    expect_error("engine,opcode,start,end,queue\ndma,dma,5,6,70000\n", 2, 13, "queue");
    expect_error("engine,opcode,start,end\npe,,5,6\n", 2, 4, "opcode");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_summary),       cmocka_unit_test(test_perfetto),
        cmocka_unit_test(test_csv_roundtrip), cmocka_unit_test(test_import),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
