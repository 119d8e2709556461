/* traces/import: turn a measured profile into an .lstrace. Formats (docs/formats.md),
 * detected by content or forced:
 * - laysim's CSV (one row per instruction, the layout `laysim trace FILE csv` writes);
 * - the CSV export of a Neuron Explorer device profile's Instruction table (start_ts,
 *   end_ts, duration_ns, engine, timeline_track, opcode, hlo_name, ...);
 * - Chrome/Perfetto trace-event JSON (`traceEvents`, complete "X" slices, thread names).
 * Profiler opcode names go through one table (traces/profmap.h); a name it does not know is
 * kept under its own name and counted. The input is streamed twice (the opcode table comes
 * first in an .lstrace), so memory does not grow with the number of records. */
#ifndef LS_TRACES_IMPORT_H
#define LS_TRACES_IMPORT_H

#include <stddef.h>
#include <stdint.h>

#include "traces/trace.h"

enum trace_import_format {
    TRACE_FMT_AUTO,
    TRACE_FMT_LAYSIM_CSV,
    TRACE_FMT_NEURON_CSV,
    TRACE_FMT_CHROME_JSON,
    TRACE_FMT_COUNT
};

/* The time unit of the input's timestamps. DEFAULT = the format's own: laysim CSV: its
 * "# laysim trace:" tick_hz, else ns; Neuron CSV: ns; trace-event JSON: us. */
enum trace_time_unit { TRACE_UNIT_DEFAULT, TRACE_UNIT_NS, TRACE_UNIT_US, TRACE_UNIT_CYCLES };

/* Why a record of a profiler format was left out (laysim's CSV is strict: any bad field is
 * an error instead). */
enum trace_drop {
    TRACE_DROP_BAD_TIME,        /* start/end/duration missing, negative or not a number */
    TRACE_DROP_END_BEFORE_START,
    TRACE_DROP_ZERO_DURATION,   /* nothing a fit can use */
    TRACE_DROP_UNKNOWN_ENGINE,  /* engine / track / thread name not a known engine */
    TRACE_DROP_NO_OPCODE,
    TRACE_DROP_BAD_FIELD,       /* an operand column that is not a number / known name */
    TRACE_DROP_NOT_A_SLICE,     /* JSON: an event other than "X" or metadata ("B", "i"...) */
    TRACE_DROP_COUNT
};

struct trace_import_opts {
    uint64_t tick_hz;      /* raw integer ticks at this rate (the old flag); 0 = time_unit */
    const char *target;    /* NULL = the file's line, else "" */
    int set_target_hash;   /* use target_hash instead of the file's value */
    uint64_t target_hash;
    enum trace_import_format format;  /* AUTO = detect from the content */
    enum trace_time_unit time_unit;
    double clock_mhz[LS_ENGINE_COUNT]; /* each engine's clock (enum ls_engine order); all 0 =
                                          the file's, if it gives them */
};

struct trace_import_stats {
    enum trace_import_format format;
    uint64_t tick_hz;                   /* of the written trace */
    uint64_t events;                    /* rows / events read that could be records */
    uint64_t kept;                      /* records written */
    uint64_t mapped;                    /* kept records whose opcode is a laysim opcode */
    uint64_t dropped[TRACE_DROP_COUNT];
    int drop_line[TRACE_DROP_COUNT];    /* line of the first record dropped for each reason */
    size_t nunmapped;                   /* distinct opcode names the table does not know */
    char **unmapped;                    /* their names, in order of first use */
    uint64_t *unmapped_count;           /* records per name */
};

const char *trace_import_format_name(enum trace_import_format f); /* "laysim-csv", ... */
int trace_import_format_parse(const char *s, enum trace_import_format *f);
const char *trace_drop_name(enum trace_drop d);                   /* "bad_time", ... */

/* Detect, read and write. Errors name file:line:column (LS_ERR_INPUT) and leave no output;
 * an input with no record a fit can use (every record dropped, or no opcode laysim knows)
 * is LS_ERR_INPUT too. stats (may be NULL) is filled as far as the input was read, also on
 * errors; free it with trace_import_stats_free. */
int trace_import(const char *in_path, const char *out_path, const struct trace_import_opts *o,
                 struct trace_import_stats *stats, struct ls_error *err);
void trace_import_stats_free(struct trace_import_stats *s);

/* The old entry point: trace_import with stats reduced to the record count. */
int trace_import_csv(const char *csv_path, const char *out_path,
                     const struct trace_import_opts *o, uint64_t *nrecords,
                     struct ls_error *err);

/* Engine from a name: "pe", "act", "dve", "pool", "dma" or a profiler alias (tensor,
 * tensormatrix, scalar, activation, vector, gpsimd, pool; names starting with "dma" or "q"
 * are DMA), case-insensitive. -1 when unknown. */
int trace_engine_parse(const char *s, size_t n);

#endif
