/* Tests for the .lsprogz binary program form (sim/program_bin.c): text -> binary -> text is
 * the identity, the binary form carries the same instructions and timing, and every
 * truncation or corrupted byte is an LS_ERR_INPUT naming a byte offset, never a crash. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/micro.h"
#include "sim/program.h"
#include "sim/sim.h"
#include "sim/target.h"
#include "traces/block.h"
#include "traces/codec.h"

static const char *const files[] = {"pipeline", "tiny_dma", "tiny_dve", "tiny_pe"};

static char *write_mem(const struct sim_program *p, int binary, size_t *len)
{
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    assert_non_null(f);
    assert_int_equal(binary ? sim_program_write_binary(p, f) : sim_program_write(p, f), 0);
    fclose(f);
    return buf;
}

static struct sim_program *load(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/prog/%s.lsprog", LAYSIM_SOURCE_DIR, name);
    struct ls_error err;
    struct sim_program *p = NULL;
    assert_int_equal(sim_program_load(&p, path, &err), 0);
    return p;
}

static uint64_t cycles(const struct sim_program *p)
{
    struct sim_target t;
    struct ls_error err;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct sim_stats st;
    assert_int_equal(sim_run(&t, p, NULL, &st, &err), 0);
    return st.ticks;
}

/* p written in the binary form reads back (through the format-detecting parser) as the
 * same text and the same timing; the binary form takes at most max_bytes (0: any). */
static void assert_round_trip(struct sim_program *p, size_t max_bytes)
{
    struct sim_program *q = NULL;
    struct ls_error err;
    size_t tlen, blen, t2len;
    char *text = write_mem(p, 0, &tlen), *bin = write_mem(p, 1, &blen);
    assert_true(sim_program_is_binary(bin, blen));
    if (max_bytes)
        assert_true(blen <= max_bytes);
    assert_int_equal(sim_program_parse(&q, "x.lsprogz", bin, blen, &err), 0);
    assert_int_equal(sim_program_count(q), sim_program_count(p));
    char *text2 = write_mem(q, 0, &t2len);
    assert_int_equal(t2len, tlen);
    assert_memory_equal(text, text2, tlen);
    assert_int_equal(cycles(p), cycles(q));
    free(text), free(text2), free(bin);
    sim_program_free(q);
}

static void test_round_trip(void **state)
{
    (void)state;
    for (size_t f = 0; f < sizeof files / sizeof *files; f++) {
        struct sim_program *p = load(files[f]);
        assert_round_trip(p, 0);
        sim_program_free(p);
    }
}

/* Enough instructions for several blocks: version 2 codes operands against the stream's
 * previous instruction and restarts at each block, so block edges must round-trip too. */
static void test_round_trip_blocks(void **state)
{
    (void)state;
    struct sim_target t;
    struct ls_error err;
    struct sim_program *p = NULL;
    assert_int_equal(sim_target_builtin(&t, "nc-v3"), 0);
    assert_int_equal(sim_micro_build("mix:instructions=60000", &t, &p, &err), 0);
    assert_round_trip(p, 4 * sim_program_count(p) - 1); /* a few bytes per instruction */
    sim_program_free(p);
}

/* A version-1 file (every field written out; laysim before the per-stream coding) and a
 * version-2 file (field masks per operand; laysim before the kind tables) still read as the
 * program they were written from. */
static void reads_old(const char *file)
{
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/prog/%s", LAYSIM_SOURCE_DIR, file);
    struct ls_error err;
    struct sim_program *p = load("pipeline"), *q = NULL;
    assert_int_equal(sim_program_load(&q, path, &err), 0);
    size_t tlen, t2len;
    char *text = write_mem(p, 0, &tlen), *text2 = write_mem(q, 0, &t2len);
    assert_int_equal(t2len, tlen);
    assert_memory_equal(text, text2, tlen);
    free(text), free(text2);
    sim_program_free(p), sim_program_free(q);
}

static void test_reads_versions_1_and_2(void **state)
{
    (void)state;
    reads_old("pipeline_v1.lsprogz");
    reads_old("pipeline_v2.lsprogz");
}

/* One DVE stream cycling through 20 kinds (more than the 15 slots of a stream's kind table,
 * so kinds are evicted and defined again) and one DMA queue alternating two kinds: the
 * binary form reads back as the same text and the same timing. */
static void test_round_trip_many_kinds(void **state)
{
    (void)state;
    struct sim_program *p = sim_program_new();
    struct ls_error err;
    uint32_t dep = 0;
    for (uint32_t i = 0; i < 400; i++) {
        uint32_t free = 16 + 16 * (i % 20);
        struct sim_instr in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_COPY);
        in.dst = sim_sbuf(0, 128, 8192 + 64 * (i % 7), LS_DT_BF16, free);
        in.src = sim_sbuf(0, 128, 64 * (i % 5), LS_DT_BF16, free);
        in.op_tag = sim_program_tag(p, i % 3 ? "a" : "b");
        assert_true(sim_program_add(p, &in, &dep, i > 0, &err) >= 0);
        struct sim_instr d = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
        d.queue = 3;
        d.dst = sim_sbuf(0, 128, 32768 + 512 * (i % 2), LS_DT_BF16, 64 << (i % 2));
        d.src = sim_hbm(128, 64 << (i % 2), (uint64_t)i << 20, LS_DT_BF16, 64 << (i % 2));
        int64_t k = sim_program_add(p, &d, NULL, 0, &err);
        assert_true(k >= 0);
        dep = (uint32_t)k;
    }
    assert_round_trip(p, 0);
    sim_program_free(p);
}

/* The reader takes an instruction's varints unchecked only when the block has room for the
 * longest encoding of one with at most four dependencies: instructions with 0 to 9
 * dependencies and addresses that jump by up to 2^62 (ten-byte varints), up to the end of
 * the block where the checked reads take over, round-trip all the same. */
static void test_round_trip_dep_counts(void **state)
{
    (void)state;
    struct sim_program *p = sim_program_new();
    struct ls_error err;
    uint32_t deps[9];
    for (uint32_t i = 0; i < 3000; i++) {
        uint32_t nd = i < 9 ? i : i % 10;
        for (uint32_t d = 0; d < nd; d++)
            deps[d] = i - 1 - d * (i % 7 + 1) % i;
        struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
        in.queue = i % 3;
        in.dst = sim_sbuf(0, 128, 64 * (i % 5), LS_DT_BF16, 32);
        in.src = sim_hbm(128, 32, (uint64_t)(i * 2654435761u % 4096) << (i % 3 ? 50 : 8),
                         LS_DT_BF16, 32);
        assert_true(sim_program_add(p, &in, deps, nd, &err) >= 0);
    }
    assert_round_trip(p, 0);
    sim_program_free(p);
}

static void test_corrupt(void **state)
{
    (void)state;
    struct sim_program *p = load("pipeline"), *q = NULL;
    size_t blen;
    char *bin = write_mem(p, 1, &blen);
    struct ls_error err;
    for (size_t n = 0; n < blen; n++) { /* every truncation */
        ls_error_clear(&err);
        int rc = sim_program_parse_binary(&q, "t.lsprogz", bin, n, &err);
        assert_int_equal(rc, LS_ERR_INPUT);
        assert_null(q);
        assert_non_null(strstr(err.msg, "byte offset"));
    }
    for (size_t i = 0; i < blen; i++) { /* every byte flipped: caught by magic, CRC or checks */
        bin[i] ^= 0x5a;
        int rc = sim_program_parse(&q, "t.lsprogz", bin, blen, &err);
        bin[i] ^= 0x5a;
        if (i >= 8) {
            assert_int_equal(rc, LS_ERR_INPUT);
            assert_non_null(strstr(err.msg, "byte offset"));
        } else {
            assert_int_not_equal(rc, 0); /* no longer binary: read as (bad) text */
        }
        assert_null(q);
    }
    free(bin);
    sim_program_free(p);
}

/* Payload bytes changed under a valid CRC (as a writer with a bug would make them): the
 * reader decodes or rejects them, and a program it accepts passes or fails the checks,
 * never a crash (the sanitizer build runs this too). */
static void test_corrupt_payload(void **state)
{
    (void)state;
    struct sim_program *p = load("pipeline"), *q = NULL;
    size_t blen;
    uint8_t *bin = (uint8_t *)write_mem(p, 1, &blen);
    const uint8_t *f = bin + 16;
    uint32_t count = trace_get_u32le(f), raw_len = trace_get_u32le(f + 4);
    uint32_t comp_len = trace_get_u32le(f + 8);
    assert_int_equal(16 + TRACE_FRAME_LEN + comp_len + TRACE_END_LEN, blen); /* one block */
    uint8_t *raw = malloc(raw_len), *packed = NULL, *file = malloc(blen + 4096);
    uLongf dlen = raw_len;
    assert_int_equal(uncompress(raw, &dlen, f + TRACE_FRAME_LEN, comp_len), Z_OK);
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    assert_int_equal(deflateInit(&zs, 1), Z_OK);
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    size_t cap = 0, plen;
    static const uint8_t flips[] = {0x01, 0x80, 0xff};
    for (size_t i = 0; i < raw_len; i++)
        for (size_t k = 0; k < sizeof flips; k++) {
            raw[i] ^= flips[k];
            struct trace_block_part part = {raw, raw_len};
            assert_int_equal(trace_block_pack(&zs, count, &part, 1, &packed, &cap, &plen), 0);
            raw[i] ^= flips[k];
            memcpy(file, bin, 16);
            memcpy(file + 16, packed, plen);
            memcpy(file + 16 + plen, bin + blen - TRACE_END_LEN, TRACE_END_LEN);
            struct ls_error err;
            size_t flen = 16 + plen + TRACE_END_LEN;
            int rc = sim_program_parse(&q, "t.lsprogz", (const char *)file, flen, &err);
            assert_true(rc == 0 || rc == LS_ERR_INPUT);
            if (rc == 0) {
                struct sim_stats st;
                rc = sim_run(&t, q, NULL, &st, &err);
                assert_true(rc == 0 || rc == LS_ERR_INPUT);
                sim_program_free(q);
            }
        }
    deflateEnd(&zs);
    free(raw), free(packed), free(file), free(bin);
    sim_program_free(p);
}

/* The tie (target, hashes) survives both forms; a program without one writes the header of
 * before (offset 12 zero, no tie lines) and checks against any target; a program of nc-v2
 * is refused on nc-v3 (both named) and taken on a --set variant of nc-v2. */
static void test_tie(void **state)
{
    (void)state;
    struct sim_program *p = load("tiny_pe"), *q = NULL;
    struct sim_target v2, v3;
    struct ls_error err;
    char msg[512];
    assert_int_equal(sim_target_builtin(&v2, "nc-v2"), 0);
    assert_int_equal(sim_target_builtin(&v3, "nc-v3"), 0);
    size_t len;
    char *bin = write_mem(p, 1, &len), *text = write_mem(p, 0, &len);
    assert_int_equal(bin[12] | bin[13] | bin[14] | bin[15], 0);
    assert_null(strstr(text, "# target"));
    assert_int_equal(sim_program_tie_check(p, &v3, msg, sizeof msg), 0);
    free(bin);
    free(text);
    struct sim_program_tie t;
    memset(&t, 0, sizeof t);
    sim_tie_set_target(&t, &v2);
    sim_tie_set(&t, SIM_TIE_MODEL, "00000000000000aa");
    sim_program_set_tie(p, &t);
    for (int binary = 0; binary < 2; binary++) {
        char *buf = write_mem(p, binary, &len);
        assert_int_equal(sim_program_parse(&q, "t", buf, len, &err), 0);
        assert_memory_equal(sim_program_tie(q), &t, sizeof t);
        assert_int_equal(sim_program_tie_check(q, &v2, msg, sizeof msg), 0);
        assert_int_equal(sim_program_tie_check(q, &v3, msg, sizeof msg), 1);
        assert_non_null(strstr(msg, "built for target nc-v2 (target-hash "));
        assert_non_null(strstr(msg, "simulated on target nc-v3"));
        sim_program_free(q);
        free(buf);
    }
    assert_int_equal(sim_target_set(&v2, "dma.bytes_per_ns", "12", &err), 0);
    assert_int_equal(sim_program_tie_check(p, &v2, msg, sizeof msg), 0);
    sim_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip), cmocka_unit_test(test_round_trip_blocks),
        cmocka_unit_test(test_reads_versions_1_and_2), cmocka_unit_test(test_round_trip_many_kinds),
        cmocka_unit_test(test_round_trip_dep_counts),
        cmocka_unit_test(test_corrupt),
        cmocka_unit_test(test_corrupt_payload), cmocka_unit_test(test_tie)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
