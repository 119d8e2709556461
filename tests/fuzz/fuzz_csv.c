// libFuzzer target for the measured-trace CSV import (traces/import.c). Not built by
// default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* The CSV is imported into an .lstrace (the importer reads only from a path, so the input
 * goes through a scratch file). It must be rejected with a located LS_ERR_INPUT and leave no
 * output, or give a trace whose CSV export re-imports and re-exports to the same CSV
 * (docs/formats.md: csv -> import -> csv is the identity). Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "traces/trace_export.h"
#include "traces/import.h"
#include "traces/trace.h"

static char *export_csv(const char *trace, const char *csv, size_t *len)
{
    struct trace_reader *r = NULL;
    struct ls_error err;
    if (trace_reader_open(&r, trace, &err))
        abort();
    if (trace_export_csv(r, csv, &err))
        abort();
    trace_reader_close(r);
    char *text = fuzz_slurp(csv, len);
    if (!text)
        abort();
    return text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_path inp = fuzz_tmp_write(0, ".csv", data, size);
    struct fuzz_path outp = fuzz_tmp_path(1, ".lstrace");
    const char *in = inp.s, *out = outp.s;
    remove(out);
    struct trace_import_opts o;
    memset(&o, 0, sizeof o);
    struct ls_error err;
    ls_error_clear(&err);
    uint64_t n = 0;
    int rc = trace_import_csv(in, out, &o, &n, &err);
    if (rc) {
        if (rc != LS_ERR_INPUT || err.line < 1 || err.col < 1 || access(out, F_OK) == 0)
            abort();
        return 0;
    }
    size_t len1 = 0, len2 = 0;
    struct fuzz_path csv1p = fuzz_tmp_path(2, ".csv"), againp = fuzz_tmp_path(3, ".lstrace");
    const char *csv1 = csv1p.s, *again = againp.s;
    char *t1 = export_csv(out, csv1, &len1);
    uint64_t n2 = 0;
    if (trace_import_csv(csv1, again, &o, &n2, &err) || n2 != n)
        abort();
    char *t2 = export_csv(again, csv1, &len2);
    /* The first line names the producer ("import" both times), so the texts match whole. */
    if (len1 != len2 || memcmp(t1, t2, len1) != 0)
        abort();
    free(t1);
    free(t2);
    remove(out);
    remove(again);
    remove(csv1);
    return 0;
}
