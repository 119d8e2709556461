/* traces/record: the one record that producers (simulator, RTL harness, CSV import) hand
 * to trace sinks. This is the contract between sim/ and traces/; the enumerations records
 * carry are util/arch.h's, the file format lives in traces/trace.h. */
#ifndef LS_TRACES_RECORD_H
#define LS_TRACES_RECORD_H

#include <stdint.h>

#include "util/arch.h"

#define TRACE_NO_ID (-1)
#define TRACE_NO_QUEUE 0xffff

struct trace_record {
    uint64_t id;              /* instruction id, unique within a trace */
    uint64_t start, end;      /* ticks; end is exclusive */
    uint64_t stall;           /* ticks between becoming issuable and starting */
    uint32_t opcode;          /* index into the trace's opcode-name table */
    uint8_t engine;           /* enum ls_engine */
    uint8_t stall_cause;      /* enum ls_stall */
    uint8_t dtype;            /* enum ls_dtype (util/dtype.h) */
    uint8_t src_mem, dst_mem; /* enum ls_mem */
    uint16_t queue;           /* DMA queue, TRACE_NO_QUEUE otherwise */
    uint32_t partitions;      /* partitions touched */
    uint64_t free_size;       /* elements per partition (moving free size T for PE) */
    uint32_t stationary;      /* PE: stationary columns (0 otherwise) */
    uint32_t descriptors;     /* DMA: contiguous chunks moved */
    uint64_t bytes_per_partition;
    uint64_t chunk_bytes;     /* DMA: bytes per contiguous chunk */
    int32_t op_id;            /* string-table id of the graph op, TRACE_NO_ID when none */
    int32_t conv_id;          /* string-table id of the tensor conversion, or TRACE_NO_ID */
};

/* Where producers send records. emit returns 0 or an enum ls_status code, which stops
 * the producer. */
struct trace_sink {
    void *ctx;
    int (*emit)(void *ctx, const struct trace_record *r);
};

#endif
