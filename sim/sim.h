/* sim/sim: the event-driven timing model (docs/targets.md describes every rule).
 *
 * Time is integer ticks at the LCM of the target's clocks in MHz (sim_target_tick_mhz):
 * 5600 ticks per microsecond on nc-v2. Each engine (PE, ACT, DVE, POOL) and each DMA queue
 * runs its instructions in program order; dependencies, engine occupancy, DMA engines, the
 * shared HBM bandwidth and the memory access rules decide when each one starts. The cost of
 * a run grows with the number of instructions (DMA descriptors are priced in closed form),
 * never with the number of cycles. Same target + same program = same stats and records. */
#ifndef LS_SIM_SIM_H
#define LS_SIM_SIM_H

#include <stdint.h>

#include "sim/program.h"
#include "sim/target.h"
#include "traces/record.h"
#include "util/error.h"

struct sim_engine_stats {
    uint64_t instructions;
    uint64_t busy_ticks;    /* union of the instructions' [start, end) intervals */
    uint64_t first_start;   /* ticks; 0 when instructions == 0 */
    uint64_t last_end;
};

struct sim_queue_stats {
    uint64_t instructions;
    uint64_t bytes;         /* bytes written by the queue's transfers */
    uint64_t descriptors;
    uint64_t busy_ticks;    /* union of the queue's transfer intervals */
};

/* DMA descriptors by chunk size (bytes of one contiguous chunk): < 512 B, 512 B-2 KiB,
 * 2-8 KiB, >= 8 KiB. The edges bracket dma.desc_min_ns x dma.bytes_per_ns (2482 B on
 * nc-v2): chunks below it pay the fixed descriptor time, so the first two buckets are
 * where a layout wastes DMA bandwidth. */
#define SIM_DESC_BUCKETS 4
struct sim_desc_bucket {
    uint64_t descriptors;
    uint64_t bytes;         /* bytes those descriptors move */
};

struct sim_stats {
    uint64_t tick_mhz;      /* ticks per microsecond */
    uint64_t ticks;         /* total time: the end of the last instruction (start is 0) */
    uint64_t instructions;
    struct sim_engine_stats engine[LS_ENGINE_COUNT];
    uint64_t stall_ticks[LS_STALL_COUNT]; /* summed over instructions, by cause */
    uint32_t nqueues;       /* = target dma.queues */
    struct sim_queue_stats queue[SIM_MAX_QUEUES];
    uint64_t dma_bytes;
    struct sim_desc_bucket desc_hist[SIM_DESC_BUCKETS];
    /* summed instruction durations: all, and those of layout conversions (conv_tag >= 0) */
    uint64_t instr_ticks, conv_instr_ticks;
};

/* Check p against t (operand memories, partition ranges, SBUF/PSUM capacity and banks,
 * PE shapes, DMA queues and transposes). Errors are LS_ERR_INPUT naming the first bad
 * instruction in program order (and its file:line for parsed programs). sim_run makes the
 * same checks up front, before any record is emitted. */
int sim_check(const struct sim_target *t, const struct sim_program *p, struct ls_error *err);
/* sim_check, remembered in p: sim_run on the same target (same sim_target_hash) skips its
 * own check until instructions are added. For a program simulated many times, or checked
 * where it is built. */
int sim_program_check(const struct sim_target *t, struct sim_program *p, struct ls_error *err);
/* sim_program_load that also checks each instruction against t as it is read (one pass
 * over the instructions instead of two): a program that passes is marked as
 * sim_program_check marks it. A bad instruction is no error here: sim_run reports it,
 * exactly as sim_check does. */
int sim_program_load_checked(struct sim_program **out, const char *path,
                             const struct sim_target *t, struct ls_error *err);

/* Simulate. sink may be NULL; otherwise it receives one record per instruction, in the
 * order the simulator settles them (start times are nearly but not strictly sorted). */
int sim_run(const struct sim_target *t, const struct sim_program *p, const struct trace_sink *sink,
            struct sim_stats *st, struct ls_error *err);
/* sim_run with every record written to a new .lstrace file at path (atomically: nothing
 * is left there on failure), the program's op/conversion tags as the trace's strings. */
int sim_run_trace(const struct sim_target *t, const struct sim_program *p, const char *path,
                  struct sim_stats *st, struct ls_error *err);

/* Clock of an engine in MHz (DMA: the base clock). */
uint32_t sim_engine_mhz(const struct sim_target *t, enum ls_engine e);
/* Ticks to nanoseconds, and to whole cycles of an engine's clock (rounded up). */
double sim_ticks_ns(const struct sim_stats *st, uint64_t ticks);
uint64_t sim_ticks_cycles(const struct sim_target *t, enum ls_engine e, uint64_t ticks);
/* Ticks to base-clock cycles (rounded up). */
uint64_t sim_ticks_base_cycles(const struct sim_target *t, uint64_t ticks);
/* Bytes moved by queue q over its busy time, as a fraction of the peak of all DMA engines. */
double sim_queue_efficiency(const struct sim_target *t, const struct sim_stats *st, uint32_t q);
/* Bytes moved by all DMAs over the DMA busy time, as a fraction of the DMA peak. */
double sim_dma_efficiency(const struct sim_target *t, const struct sim_stats *st);

/* Bucket of a descriptor of chunk_bytes bytes, and the bucket's name ("lt512",
 * "512_2k", "2k_8k", "ge8k"). */
int sim_desc_bucket(uint64_t chunk_bytes);
const char *sim_desc_bucket_name(int b);

/* Cost of one ACT/DVE/POOL instruction in its engine's cycles (no dependency overhead). */
uint64_t sim_vec_cycles(const struct sim_target *t, const struct sim_instr *in);

#endif
