/* traces/record: the one record that producers (simulator, RTL harness, CSV import) hand
 * to trace sinks, and the enumerations that records carry. This is the contract between
 * sim/ and traces/; the file format lives in traces/trace.h. */
#ifndef LS_TRACES_RECORD_H
#define LS_TRACES_RECORD_H

#include <stdint.h>

enum trace_engine {
    TRACE_ENG_PE,
    TRACE_ENG_ACT,
    TRACE_ENG_DVE,
    TRACE_ENG_POOL,
    TRACE_ENG_DMA,
    TRACE_ENG_COUNT
};

/* Why an instruction started later than its issue point. Enumerated once, here. */
enum trace_stall {
    TRACE_STALL_NONE,
    TRACE_STALL_DEPENDENCY,      /* waiting on a semaphore / dependency */
    TRACE_STALL_ENGINE_BUSY,     /* the engine was still running something else */
    TRACE_STALL_DMA_QUEUE,       /* waiting for a DMA queue / engine */
    TRACE_STALL_HBM_BANDWIDTH,   /* shared HBM bandwidth saturated */
    TRACE_STALL_ACCESS_CONFLICT, /* NC-v2 SBUF/PSUM engine access conflict */
    TRACE_STALL_PSUM,            /* waiting for a PSUM bank */
    TRACE_STALL_COUNT
};

enum trace_mem { TRACE_MEM_NONE, TRACE_MEM_HBM, TRACE_MEM_SBUF, TRACE_MEM_PSUM, TRACE_MEM_COUNT };

#define TRACE_NO_ID (-1)
#define TRACE_NO_QUEUE 0xffff

struct trace_record {
    uint64_t id;              /* instruction id, unique within a trace */
    uint64_t start, end;      /* ticks; end is exclusive */
    uint64_t stall;           /* ticks between becoming issuable and starting */
    uint32_t opcode;          /* index into the trace's opcode-name table */
    uint8_t engine;           /* enum trace_engine */
    uint8_t stall_cause;      /* enum trace_stall */
    uint8_t dtype;            /* enum ls_dtype (util/dtype.h) */
    uint8_t src_mem, dst_mem; /* enum trace_mem */
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

const char *trace_engine_name(enum trace_engine e);  /* "pe", "act", "dve", "pool", "dma" */
const char *trace_stall_name(enum trace_stall s);    /* "none", "dependency", ... */
const char *trace_mem_name(enum trace_mem m);        /* "none", "hbm", "sbuf", "psum" */

#endif
