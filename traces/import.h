/* traces/import: turn a measured-profile CSV (one row per instruction; docs/formats.md)
 * into an .lstrace. The CSV is read whole (two passes: opcode table, then records). */
#ifndef LS_TRACES_IMPORT_H
#define LS_TRACES_IMPORT_H

#include <stdint.h>

#include "traces/trace.h"

struct trace_import_opts {
    uint64_t tick_hz;      /* time unit of start/end; 0 = the file's "# laysim trace:" line,
                              else 1e9 (nanoseconds) */
    const char *target;    /* NULL = the file's line, else "" */
    int set_target_hash;   /* use target_hash instead of the file's value */
    uint64_t target_hash;
};

/* Errors in the CSV name file:line:column (LS_ERR_INPUT); no output is left behind. */
int trace_import_csv(const char *csv_path, const char *out_path,
                     const struct trace_import_opts *o, uint64_t *nrecords,
                     struct ls_error *err);

/* Engine from a name: "pe", "act", "dve", "pool", "dma" or a profiler alias (tensor,
 * tensormatrix, scalar, vector, gpsimd; names starting with "dma" or "q" are DMA),
 * case-insensitive. -1 when unknown. */
int trace_engine_parse(const char *s, size_t n);

#endif
