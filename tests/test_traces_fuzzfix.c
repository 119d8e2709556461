/* Regression tests for bugs the fuzz targets (tests/fuzz/fuzz_csv.c, fuzz_lstrace.c) found
 * in traces/. Each test feeds the minimized input that triggered the bug. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "traces/import.h"
#include "traces/trace.h"

static void tmp_path(char *buf, size_t n, const char *name)
{
    const char *dir = getenv("TMPDIR");
    snprintf(buf, n, "%s/laysim-fuzzfix-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(),
             name);
}

/* Import len bytes of CSV; returns the status, err filled. No output may be left on error. */
static int import_bytes(const char *data, size_t len, struct ls_error *err)
{
    char csv[256], out[256];
    tmp_path(csv, sizeof csv, "in.csv");
    tmp_path(out, sizeof out, "out.lstrace");
    FILE *fp = fopen(csv, "wb");
    assert_non_null(fp);
    assert_int_equal(fwrite(data, 1, len, fp), len);
    assert_int_equal(fclose(fp), 0);
    struct trace_import_opts o;
    memset(&o, 0, sizeof o);
    uint64_t n = 0;
    ls_error_clear(err);
    int rc = trace_import_csv(csv, out, &o, &n, err);
    unlink(csv);
    if (rc)
        assert_int_equal(access(out, F_OK), -1);
    unlink(out);
    return rc;
}

/* fuzz_csv: a NUL byte inside a field was reported at column 0 (no column). The error must
 * name the NUL's own column. Input: tests/data/fuzz/csv/nul_in_field.csv. */
static void test_csv_nul_column(void **state)
{
    (void)state;
    static const char in[] = "engine,opcode,start,end\npe,mat\0" "4l,0,10\ndma,copy,5,9\n";
    struct ls_error err;
    assert_int_equal(import_bytes(in, sizeof in - 1, &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.col, 7);
    assert_non_null(strstr(err.msg, "NUL"));
    /* A NUL as the first byte of a row is column 1. */
    static const char first[] = "engine,opcode,start,end\n\0pe,x,0,1\n";
    assert_int_equal(import_bytes(first, sizeof first - 1, &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.col, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_nul_column),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
