/* Tests for traces/: damaged .lstrace files (empty, wrong magic, newer version, truncated
 * anywhere, any single byte flipped, blocks missing, trailing bytes) are reported with a
 * byte offset or block number and never crash. Corrupt inputs are generated here. */
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

/* Little-endian u32, as docs/formats.md specifies. */
static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static char good_small[128], good_big[128], bad_path[128];

static int setup(void **state)
{
    (void)state;
    struct ls_error err;
    snprintf(good_small, sizeof good_small, "test_corrupt_%ld_small.lstrace", (long)getpid());
    snprintf(good_big, sizeof good_big, "test_corrupt_%ld_big.lstrace", (long)getpid());
    snprintf(bad_path, sizeof bad_path, "test_corrupt_%ld_bad.lstrace", (long)getpid());
    if (trace_synth_write(good_small, 120, 1, NULL, &err) ||
        trace_synth_write(good_big, 80000, 2, NULL, &err))
        return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(good_small);
    unlink(good_big);
    unlink(bad_path);
    return 0;
}

static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    uint8_t *buf = malloc((size_t)len + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)len, fp), (size_t)len);
    fclose(fp);
    *n = (size_t)len;
    return buf;
}

static void spit(const char *path, const uint8_t *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (n)
        assert_int_equal(fwrite(p, 1, n, fp), n);
    fclose(fp);
}

/* Read a whole trace; returns LS_OK or the error code, *nrec the records read. */
static int read_all(const char *path, uint64_t *nrec, struct ls_error *err)
{
    struct trace_reader *r;
    *nrec = 0;
    int rc = trace_reader_open(&r, path, err);
    if (rc)
        return rc;
    struct trace_record rec;
    while ((rc = trace_reader_next(r, &rec, err)) == 1)
        (*nrec)++;
    /* After the end or an error the reader keeps answering the same way. */
    int again = trace_reader_next(r, &rec, NULL);
    assert_int_equal(again, rc);
    trace_reader_close(r);
    return rc < 0 ? -rc : LS_OK;
}

static void assert_located(const struct ls_error *err)
{
    if (!strstr(err->msg, "byte offset") && !strstr(err->msg, "block"))
        fail_msg("error without a location: %s", err->msg);
    assert_string_equal(err->file, bad_path);
}

/* Offsets of the block frames of a trace file (the last one is the end frame). */
static size_t block_offsets(const uint8_t *p, size_t n, size_t *off, size_t max)
{
    size_t pos = 16 + le32(p + 12) + 4, k = 0;
    while (pos + 16 <= n && k < max) {
        off[k++] = pos;
        pos += 16 + le32(p + pos + 8);
    }
    return k;
}

static void test_empty_file(void **state)
{
    (void)state;
    spit(bad_path, NULL, 0);
    struct ls_error err;
    uint64_t n;
    assert_int_equal(read_all(bad_path, &n, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "empty file"));
    assert_non_null(strstr(err.msg, "byte offset 0"));
}

static void test_wrong_magic(void **state)
{
    (void)state;
    size_t n;
    uint8_t *p = slurp(good_small, &n);
    p[3] ^= 0x20;
    spit(bad_path, p, n);
    struct ls_error err;
    uint64_t cnt;
    assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "wrong magic"));
    assert_non_null(strstr(err.msg, "byte offset 3"));
    spit(bad_path, (const uint8_t *)"hello, world\n", 13);
    assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "wrong magic"));
    free(p);
}

static void test_newer_version(void **state)
{
    (void)state;
    size_t n;
    uint8_t *p = slurp(good_small, &n);
    p[8] = TRACE_FORMAT_VERSION + 1;
    spit(bad_path, p, n);
    struct ls_error err;
    uint64_t cnt;
    assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
    char want[64];
    snprintf(want, sizeof want, "version %d is newer", TRACE_FORMAT_VERSION + 1);
    assert_non_null(strstr(err.msg, want));
    assert_located(&err);
    free(p);
}

/* Every proper prefix of a small trace is an error, never a silent short read. */
static void test_truncated_everywhere(void **state)
{
    (void)state;
    size_t n;
    uint8_t *p = slurp(good_small, &n);
    struct ls_error err;
    uint64_t cnt;
    assert_int_equal(read_all(good_small, &cnt, &err), LS_OK);
    assert_int_equal(cnt, 120);
    for (size_t len = 0; len < n; len++) {
        spit(bad_path, p, len);
        assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
        assert_located(&err);
    }
    free(p);
}

/* Truncation at each block boundary of a multi-block trace: the records before are read,
 * then the error names the missing end frame. */
static void test_truncated_at_blocks(void **state)
{
    (void)state;
    size_t n, off[64];
    uint8_t *p = slurp(good_big, &n);
    size_t k = block_offsets(p, n, off, 64);
    assert_true(k >= 4); /* at least three data blocks and the end frame */
    assert_int_equal(off[k - 1] + 24, n);
    struct ls_error err;
    uint64_t cnt, prev = 0;
    for (size_t b = 1; b < k; b++) {
        spit(bad_path, p, off[b]);
        assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
        assert_non_null(strstr(err.msg, "end frame is missing"));
        char want[64];
        snprintf(want, sizeof want, "byte offset %zu", off[b]);
        assert_non_null(strstr(err.msg, want));
        assert_true(cnt > prev);
        prev = cnt;
    }
    free(p);
}

/* Any single flipped byte anywhere in a small trace is detected. */
static void test_flip_every_byte(void **state)
{
    (void)state;
    size_t n;
    uint8_t *p = slurp(good_small, &n);
    struct ls_error err;
    uint64_t cnt;
    for (size_t i = 0; i < n; i++) {
        for (int m = 0; m < 2; m++) {
            uint8_t mask = m ? 0xff : (uint8_t)(1u << (i % 8));
            p[i] ^= mask;
            spit(bad_path, p, n);
            p[i] ^= mask;
            int rc = read_all(bad_path, &cnt, &err);
            if (rc != LS_ERR_INPUT)
                fail_msg("flip 0x%02x at byte %zu not detected (rc %d)", mask, i, rc);
            assert_located(&err);
        }
    }
    free(p);
}

/* A flipped byte inside block 2 of a big trace: blocks 0 and 1 read, then an error naming
 * block 2 and its offset. */
static void test_flip_in_block(void **state)
{
    (void)state;
    size_t n, off[64];
    uint8_t *p = slurp(good_big, &n);
    size_t k = block_offsets(p, n, off, 64);
    assert_true(k >= 4);
    p[off[2] + 16 + (off[3] - off[2] - 16) / 2] ^= 0x10;
    spit(bad_path, p, n);
    struct ls_error err;
    uint64_t cnt;
    assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
    char want[96];
    snprintf(want, sizeof want, "block 2 (byte offset %zu): CRC-32 mismatch", off[2]);
    assert_non_null(strstr(err.msg, want));
    uint64_t nrec0 = le32(p + off[0]), nrec1 = le32(p + off[1]);
    assert_int_equal(cnt, nrec0 + nrec1);
    free(p);
}

static void test_missing_block_and_trailing(void **state)
{
    (void)state;
    size_t n, off[64];
    uint8_t *p = slurp(good_big, &n);
    size_t k = block_offsets(p, n, off, 64);
    assert_true(k >= 4);
    /* Cut block 1 out: every remaining block is intact, the end frame notices. */
    uint8_t *q = malloc(n);
    assert_non_null(q);
    memcpy(q, p, off[1]);
    memcpy(q + off[1], p + off[2], n - off[2]);
    spit(bad_path, q, n - (off[2] - off[1]));
    struct ls_error err;
    uint64_t cnt;
    assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "blocks missing"));
    assert_located(&err);
    /* Bytes after the end frame. */
    uint8_t *t = malloc(n + 3);
    assert_non_null(t);
    memcpy(t, p, n);
    memcpy(t + n, "xyz", 3);
    spit(bad_path, t, n + 3);
    assert_int_equal(read_all(bad_path, &cnt, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "trailing bytes"));
    free(t);
    free(q);
    free(p);
}

static void test_missing_file(void **state)
{
    (void)state;
    struct ls_error err;
    uint64_t cnt;
    assert_int_equal(read_all("no/such/dir/x.lstrace", &cnt, &err), LS_ERR_INPUT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty_file),           cmocka_unit_test(test_wrong_magic),
        cmocka_unit_test(test_newer_version),        cmocka_unit_test(test_truncated_everywhere),
        cmocka_unit_test(test_truncated_at_blocks),  cmocka_unit_test(test_flip_every_byte),
        cmocka_unit_test(test_flip_in_block),        cmocka_unit_test(test_missing_block_and_trailing),
        cmocka_unit_test(test_missing_file),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
