/* traces/synth: a deterministic synthetic trace shaped like a tiled matmul pipeline (DMA in
 * on several queues, load-stationary + multiply-moving, activation, vector op, DMA out),
 * for tests and benchmarks of the trace format and tools. Not a timing model. */
#ifndef LS_TRACES_SYNTH_H
#define LS_TRACES_SYNTH_H

#include <stdint.h>

#include "traces/trace.h"
#include "util/prng.h"

#define TRACE_SYNTH_OPS 24     /* op names "synth_op<i>", string ids 0..23 */
#define TRACE_SYNTH_CONVS 8    /* conversion names "synth_conv<i>", string ids 24..31 */

struct trace_synth {
    struct ls_rng rng;
    uint64_t next_id, tile;
    uint64_t eng_end[LS_ENGINE_COUNT];
    uint64_t queue_end[16];
    uint64_t dma_in_end, pe_end_tile, act_end_tile, act_end_prev;
    unsigned step;             /* position within the current tile */
};

void trace_synth_init(struct trace_synth *s, uint64_t seed);
/* Header for a synthetic trace (nc-v2 clocks, 5.6 GHz ticks, a static opcode table). */
void trace_synth_header(struct trace_header *h);
/* Name of string id i (ops first, then conversions), in the order a writer must intern them. */
void trace_synth_string(int32_t i, char *buf, unsigned n);
void trace_synth_next(struct trace_synth *s, struct trace_record *r);

/* Write n synthetic records to path. digest (may be NULL) receives trace_record_digest
 * folded over all records. */
int trace_synth_write(const char *path, uint64_t n, uint64_t seed, uint64_t *digest,
                      struct ls_error *err);

/* Fold every field of r into a running FNV-1a hash (start from LS_FNV64_INIT). */
uint64_t trace_record_digest(uint64_t h, const struct trace_record *r);

#endif
