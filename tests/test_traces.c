/* Tests for traces/: the .lstrace writer and reader round trip (N = 0, 1, ~100k synthetic
 * records, random records with extreme values and strings interned mid-stream), writer
 * validation, sink errors and abort. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/synth.h"
#include "traces/trace.h"
#include "util/dtype.h"
#include "util/prng.h"

static const char *const opcodes[] = {"dma_copy", "matmul", "act", "op with, comma"};

static void make_header(struct trace_header *h)
{
    memset(h, 0, sizeof *h);
    h->producer = TRACE_PROD_RTL;
    h->target = "nc-test";
    h->target_hash = 0x0123456789abcdefULL;
    h->tick_hz = 4800000000ULL;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        h->clock_mhz[e] = 1000 + (uint32_t)e;
    h->nopcodes = 4;
    h->opcodes = opcodes;
}

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "test_traces_%ld_%s.lstrace", (long)getpid(), name);
}

static void assert_rec_equal(const struct trace_record *a, const struct trace_record *b)
{
    assert_int_equal(a->id, b->id);
    assert_int_equal(a->start, b->start);
    assert_int_equal(a->end, b->end);
    assert_int_equal(a->stall, b->stall);
    assert_int_equal(a->opcode, b->opcode);
    assert_int_equal(a->engine, b->engine);
    assert_int_equal(a->stall_cause, b->stall_cause);
    assert_int_equal(a->dtype, b->dtype);
    assert_int_equal(a->src_mem, b->src_mem);
    assert_int_equal(a->dst_mem, b->dst_mem);
    assert_int_equal(a->queue, b->queue);
    assert_int_equal(a->partitions, b->partitions);
    assert_int_equal(a->free_size, b->free_size);
    assert_int_equal(a->stationary, b->stationary);
    assert_int_equal(a->descriptors, b->descriptors);
    assert_int_equal(a->bytes_per_partition, b->bytes_per_partition);
    assert_int_equal(a->chunk_bytes, b->chunk_bytes);
    assert_int_equal(a->op_id, b->op_id);
    assert_int_equal(a->conv_id, b->conv_id);
}

static void test_roundtrip_empty(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "empty");
    struct trace_header h;
    make_header(&h);
    struct trace_writer *w;
    struct ls_error err;
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    assert_int_equal(trace_writer_close(w, &err), LS_OK);

    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    const struct trace_header *g = trace_reader_header(r);
    assert_int_equal(g->version, TRACE_FORMAT_VERSION);
    assert_int_equal(g->producer, TRACE_PROD_RTL);
    assert_string_equal(g->target, "nc-test");
    assert_int_equal(g->target_hash, 0x0123456789abcdefULL);
    assert_int_equal(g->tick_hz, 4800000000ULL);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        assert_int_equal(g->clock_mhz[e], 1000 + e);
    assert_int_equal(g->nopcodes, 4);
    assert_string_equal(g->opcodes[3], "op with, comma");
    assert_string_equal(trace_reader_opcode(r, 9), "?");
    struct trace_record rec;
    assert_int_equal(trace_reader_next(r, &rec, &err), 0);
    assert_int_equal(trace_reader_next(r, &rec, &err), 0); /* stays at the end */
    assert_int_equal(trace_reader_nstrings(r), 0);
    trace_reader_close(r);
    unlink(path);
}

static void test_roundtrip_one(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "one");
    struct trace_header h;
    make_header(&h);
    h.target = NULL; /* written as "" */
    struct trace_writer *w;
    struct ls_error err;
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    int32_t op, conv, again;
    assert_int_equal(trace_writer_intern(w, "layer0.matmul", &op, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "x:NCHW->NHWC", &conv, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "layer0.matmul", &again, &err), LS_OK);
    assert_int_equal(op, 0);
    assert_int_equal(conv, 1);
    assert_int_equal(again, 0);
    struct trace_record in;
    memset(&in, 0, sizeof in);
    in.id = 77;
    in.start = 1000;
    in.end = 3048;
    in.stall = 12;
    in.stall_cause = LS_STALL_HBM_BANDWIDTH;
    in.opcode = 0;
    in.engine = LS_ENGINE_DMA;
    in.dtype = LS_DT_BF16;
    in.src_mem = LS_MEM_HBM;
    in.dst_mem = LS_MEM_SBUF;
    in.queue = 5;
    in.partitions = 128;
    in.free_size = 1024;
    in.descriptors = 128;
    in.bytes_per_partition = 2048;
    in.chunk_bytes = 2048;
    in.op_id = op;
    in.conv_id = conv;
    struct trace_sink sink = trace_writer_sink(w);
    assert_int_equal(sink.emit(sink.ctx, &in), 0);
    assert_null(trace_writer_error(w));
    assert_int_equal(trace_writer_count(w), 1);
    assert_int_equal(trace_writer_close(w, &err), LS_OK);

    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    assert_string_equal(trace_reader_header(r)->target, "");
    struct trace_record out;
    assert_int_equal(trace_reader_next(r, &out, &err), 1);
    assert_rec_equal(&in, &out);
    assert_string_equal(trace_reader_string(r, out.op_id), "layer0.matmul");
    assert_string_equal(trace_reader_string(r, out.conv_id), "x:NCHW->NHWC");
    assert_null(trace_reader_string(r, TRACE_NO_ID));
    assert_null(trace_reader_string(r, 2));
    assert_int_equal(trace_reader_next(r, &out, &err), 0);
    trace_reader_close(r);
    unlink(path);
}

/* ~100k records of the synthetic pipeline, compared record by record. */
static void test_roundtrip_large(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "large");
    const uint64_t n = 100003;
    struct ls_error err;
    uint64_t digest;
    assert_int_equal(trace_synth_write(path, n, 42, &digest, &err), LS_OK);
    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    struct trace_synth s;
    trace_synth_init(&s, 42);
    struct trace_record want, got;
    for (uint64_t i = 0; i < n; i++) {
        trace_synth_next(&s, &want);
        assert_int_equal(trace_reader_next(r, &got, &err), 1);
        assert_rec_equal(&want, &got);
    }
    assert_int_equal(trace_reader_next(r, &got, &err), 0);
    assert_int_equal(trace_reader_nstrings(r), TRACE_SYNTH_OPS + TRACE_SYNTH_CONVS);
    char name[32];
    trace_synth_string(TRACE_SYNTH_OPS, name, sizeof name);
    assert_string_equal(trace_reader_string(r, TRACE_SYNTH_OPS), name);
    /* The synthetic pipeline is the compactness check the unit tests can make. */
    uint64_t bytes = trace_reader_offset(r);
    assert_true(bytes < 8 * n);
    trace_reader_close(r);
    unlink(path);
}

static uint64_t pick(struct ls_rng *g)
{
    switch (ls_rng_below(g, 4)) {
    case 0: return ls_rng_below(g, 4);
    case 1: return ls_rng_below(g, 100000);
    case 2: return ls_rng_next(g);
    default: return UINT64_MAX - ls_rng_below(g, 3);
    }
}

/* Random records with extreme values, out-of-order ids and starts, strings interned while
 * streaming (spread over many blocks), all engines and queues. */
static void test_roundtrip_random(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "random");
    struct trace_header h;
    make_header(&h);
    struct trace_writer *w;
    struct ls_error err;
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    enum { N = 60000 };
    struct trace_record *in = calloc(N, sizeof *in);
    assert_non_null(in);
    struct ls_rng g;
    ls_rng_seed(&g, 7);
    int32_t nstr = 0;
    for (int i = 0; i < N; i++) {
        if (ls_rng_below(&g, 50) == 0) {
            char name[64];
            int32_t id;
            snprintf(name, sizeof name, "name-%d-%llu", i, (unsigned long long)ls_rng_below(&g, 1000000));
            assert_int_equal(trace_writer_intern(w, name, &id, &err), LS_OK);
            assert_int_equal(id, nstr);
            nstr++;
        }
        struct trace_record *x = &in[i];
        x->id = ls_rng_below(&g, 3) ? (uint64_t)i : pick(&g);
        x->start = pick(&g);
        uint64_t room = UINT64_MAX - x->start, d = ls_rng_below(&g, 3) ? pick(&g) : 0;
        x->end = x->start + (room ? d % room : 0);
        x->stall = pick(&g);
        x->opcode = (uint32_t)ls_rng_below(&g, 4);
        x->engine = (uint8_t)ls_rng_below(&g, LS_ENGINE_COUNT);
        x->stall_cause = (uint8_t)ls_rng_below(&g, LS_STALL_COUNT);
        x->dtype = (uint8_t)ls_rng_below(&g, LS_DT_COUNT);
        x->src_mem = (uint8_t)ls_rng_below(&g, LS_MEM_COUNT);
        x->dst_mem = (uint8_t)ls_rng_below(&g, LS_MEM_COUNT);
        x->queue = ls_rng_below(&g, 4) ? (uint16_t)ls_rng_below(&g, 200) : TRACE_NO_QUEUE;
        x->partitions = (uint32_t)pick(&g);
        x->free_size = pick(&g);
        x->stationary = (uint32_t)pick(&g);
        x->descriptors = (uint32_t)pick(&g);
        x->bytes_per_partition = pick(&g);
        x->chunk_bytes = pick(&g);
        x->op_id = nstr && ls_rng_below(&g, 2) ? (int32_t)ls_rng_below(&g, (uint64_t)nstr) : TRACE_NO_ID;
        x->conv_id = nstr && ls_rng_below(&g, 4) == 0 ? nstr - 1 : TRACE_NO_ID;
        assert_int_equal(trace_writer_write(w, x, &err), LS_OK);
    }
    assert_int_equal(trace_writer_close(w, &err), LS_OK);
    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, path, &err), LS_OK);
    struct trace_record out;
    for (int i = 0; i < N; i++) {
        assert_int_equal(trace_reader_next(r, &out, &err), 1);
        assert_rec_equal(&in[i], &out);
    }
    assert_int_equal(trace_reader_next(r, &out, &err), 0);
    assert_int_equal(trace_reader_nstrings(r), nstr);
    trace_reader_close(r);
    free(in);
    unlink(path);
}

static void test_writer_validation(void **state)
{
    (void)state;
    char path[128];
    tmp_path(path, sizeof path, "invalid");
    struct trace_header h;
    make_header(&h);
    struct trace_writer *w;
    struct ls_error err;
    h.tick_hz = 0;
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_ERR_INPUT);
    make_header(&h);
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    struct trace_record x;
    memset(&x, 0, sizeof x);
    x.queue = TRACE_NO_QUEUE;
    x.op_id = x.conv_id = TRACE_NO_ID;
    struct trace_record bad = x;
    bad.engine = LS_ENGINE_COUNT;
    assert_int_equal(trace_writer_write(w, &bad, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "engine"));
    bad = x;
    bad.opcode = 4;
    assert_int_equal(trace_writer_write(w, &bad, &err), LS_ERR_INPUT);
    bad = x;
    bad.op_id = 0; /* no string interned yet */
    assert_int_equal(trace_writer_write(w, &bad, &err), LS_ERR_INPUT);
    bad = x;
    bad.start = 10, bad.end = 9;
    assert_int_equal(trace_writer_write(w, &bad, &err), LS_ERR_INPUT);
    bad = x;
    bad.src_mem = LS_MEM_COUNT;
    assert_int_equal(trace_writer_write(w, &bad, &err), LS_ERR_INPUT);
    /* Through the sink: the first error is kept and close returns it, leaving no file. */
    struct trace_sink sink = trace_writer_sink(w);
    assert_int_equal(sink.emit(sink.ctx, &x), 0);
    bad = x;
    bad.stall_cause = LS_STALL_COUNT;
    assert_int_equal(sink.emit(sink.ctx, &bad), LS_ERR_INPUT);
    assert_int_equal(sink.emit(sink.ctx, &x), LS_ERR_INPUT); /* sticky */
    assert_non_null(trace_writer_error(w));
    assert_non_null(strstr(trace_writer_error(w)->msg, "stall cause"));
    assert_int_equal(trace_writer_close(w, &err), LS_ERR_INPUT);
    assert_int_equal(access(path, F_OK), -1);

    /* abort leaves nothing behind either. */
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    assert_int_equal(trace_writer_write(w, &x, &err), LS_OK);
    trace_writer_abort(w);
    assert_int_equal(access(path, F_OK), -1);
    trace_writer_abort(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_roundtrip_empty),  cmocka_unit_test(test_roundtrip_one),
        cmocka_unit_test(test_roundtrip_large),  cmocka_unit_test(test_roundtrip_random),
        cmocka_unit_test(test_writer_validation),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
