/* traces/summary: one streaming pass over a trace giving totals per engine, DMA queue,
 * opcode, stall cause, operator and tensor conversion. Memory grows with the number of
 * opcodes and names, not with the number of records. */
#ifndef LS_TRACES_SUMMARY_H
#define LS_TRACES_SUMMARY_H

#include <jansson.h>
#include <stdint.h>

#include "traces/trace.h"

#define TRACE_SUMMARY_QUEUES 256 /* DMA queues tracked one by one; higher ids are lumped */

struct trace_stat {
    uint64_t count;
    uint64_t busy;    /* ticks: sum of end - start */
    uint64_t bytes;   /* DMA: partitions * bytes_per_partition */
    uint64_t stall;   /* ticks */
    uint64_t active;  /* engines and queues: ticks covered by at least one instruction
                         (union of [start, end), exact when starts arrive in order) */
    uint64_t active_end; /* internal: end of the current union interval */
};

struct trace_summary {
    struct trace_header header;           /* copy; names stay owned by the reader */
    uint64_t records;
    uint64_t first_start, last_end;       /* span of the trace, ticks */
    struct trace_stat engine[LS_ENGINE_COUNT];
    struct trace_stat queue[TRACE_SUMMARY_QUEUES + 1]; /* last: queue ids >= 256 */
    unsigned queues_used;                 /* distinct DMA queues seen (tracked ones) */
    struct trace_stat stall[LS_STALL_COUNT];
    struct trace_stat *opcode;            /* [engine * nopcodes + opcode] */
    struct trace_stat *op, *conv;         /* by string id */
    uint32_t nstrings;
};

/* Read all remaining records of r. Free with trace_summary_free (also after an error). */
int trace_summarize(struct trace_reader *r, struct trace_summary *s, struct ls_error *err);
void trace_summary_free(struct trace_summary *s);

/* Ticks -> nanoseconds / engine cycles with the header's rates. */
double trace_ticks_ns(const struct trace_header *h, uint64_t ticks);
double trace_ticks_cycles(const struct trace_header *h, enum ls_engine e, uint64_t ticks);
/* active / span: the fraction of the trace's span in which the engine (for DMA: any
 * queue) was running something; 0 for an empty trace. */
double trace_summary_utilization(const struct trace_summary *s, enum ls_engine e);

/* The summary as JSON (top: how many operators / conversions to list). r names strings. */
json_t *trace_summary_json(const struct trace_summary *s, const struct trace_reader *r,
                           unsigned top);

/* Indices of the top-n entries of stats[0..len) by busy time (descending, ties by index);
 * returns how many were stored in idx (≤ n). Entries with count 0 are skipped. */
size_t trace_summary_top(const struct trace_stat *stats, size_t len, size_t n, uint32_t *idx);

#endif
