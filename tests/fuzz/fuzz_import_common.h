/* Shared by the profiler-format import fuzz targets (fuzz_tracejson.c, fuzz_neuroncsv.c):
 * import the input with one reader; a rejection must be a located LS_ERR_INPUT leaving no
 * output, an accepted input must survive export and import again with the same records. */
#ifndef LS_FUZZ_IMPORT_COMMON_H
#define LS_FUZZ_IMPORT_COMMON_H

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "traces/trace_export.h"
#include "traces/import.h"
#include "traces/synth.h"
#include "traces/trace.h"

/* A name for the digest: its bytes when ASCII; a marker otherwise (the JSON export writes
 * bytes >= 0x80 as \u00XX escapes, which read back as other bytes). */
static uint64_t fuzz_name_hash(const char *s)
{
    uint64_t h = 1469598103934665603ULL;
    for (const char *p = s ? s : "(none)"; *p; p++) {
        if ((unsigned char)*p >= 0x80)
            return 42;
        h = (h ^ (unsigned char)*p) * 1099511628211ULL;
    }
    return h;
}

/* Records and digest of all their fields, names by content (ids depend on the order the
 * names were first met, which an import may change). */
static uint64_t fuzz_trace_digest(const char *path, uint64_t *n)
{
    struct trace_reader *r = NULL;
    struct ls_error err;
    if (trace_reader_open(&r, path, &err))
        abort();
    struct trace_record rec;
    uint64_t d = 0x9e3779b97f4a7c15ULL;
    int k;
    *n = 0;
    while ((k = trace_reader_next(r, &rec, &err)) == 1) {
        uint64_t names = fuzz_name_hash(trace_reader_opcode(r, rec.opcode)) * 3 +
                         fuzz_name_hash(trace_reader_string(r, rec.op_id)) * 5 +
                         fuzz_name_hash(trace_reader_string(r, rec.conv_id)) * 7;
        rec.opcode = 0;
        rec.op_id = rec.conv_id = 0;
        d = trace_record_digest(d, &rec) ^ names;
        (*n)++;
    }
    if (k < 0)
        abort();
    trace_reader_close(r);
    return d;
}

/* Import data with format f; on success export with `export` and import that again with
 * format back: same records. */
static void fuzz_import_roundtrip(const uint8_t *data, size_t size, const char *ext,
                                  enum trace_import_format f, enum trace_import_format back,
                                  int (*export)(struct trace_reader *, const char *,
                                                struct ls_error *),
                                  const char *export_ext)
{
    struct fuzz_path inp = fuzz_tmp_write(0, ext, data, size);
    struct fuzz_path outp = fuzz_tmp_path(1, ".lstrace");
    struct fuzz_path midp = fuzz_tmp_path(2, export_ext);
    struct fuzz_path againp = fuzz_tmp_path(3, ".lstrace");
    remove(outp.s);
    struct trace_import_opts o;
    memset(&o, 0, sizeof o);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        o.clock_mhz[e] = 1000;
    o.format = f;
    struct trace_import_stats st;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = trace_import(inp.s, outp.s, &o, &st, &err);
    trace_import_stats_free(&st);
    if (rc) {
        if (rc != LS_ERR_INPUT || err.line < 1 || err.col < 1 || access(outp.s, F_OK) == 0)
            abort();
        return;
    }
    struct trace_reader *r = NULL;
    if (trace_reader_open(&r, outp.s, &err) || export(r, midp.s, &err))
        abort();
    trace_reader_close(r);
    o.format = back;
    if (trace_import(midp.s, againp.s, &o, &st, &err))
        abort();
    trace_import_stats_free(&st);
    uint64_t n1, n2;
    if (fuzz_trace_digest(outp.s, &n1) != fuzz_trace_digest(againp.s, &n2) || n1 != n2)
        abort();
    remove(outp.s);
    remove(midp.s);
    remove(againp.s);
}

#endif
