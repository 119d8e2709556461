/* traces/export: stream a trace into other formats, atomically (no half-written output).
 * - Chrome trace-event JSON (ui.perfetto.dev, chrome://tracing): one track per engine and
 *   per DMA queue (overlapping instructions on one engine spill onto extra lanes), opcode
 *   names as slice names, operands as args.
 * - CSV, one row per record, in the column layout that trace_import_csv reads back. */
#ifndef LS_TRACES_EXPORT_H
#define LS_TRACES_EXPORT_H

#include <stdio.h>

#include "traces/trace.h"

int trace_export_perfetto(struct trace_reader *r, const char *out_path, struct ls_error *err);
int trace_export_csv(struct trace_reader *r, const char *out_path, struct ls_error *err);

/* The CSV columns, in order ("id", "engine", ...). */
extern const char *const trace_csv_columns[];
#define TRACE_CSV_NCOLUMNS 19

#endif
