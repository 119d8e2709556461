/* sim/isa: the instruction set the simulator runs.
 *
 * Every instruction belongs to one engine (enum ls_engine: PE, ACT, DVE, POOL, DMA) and
 * has up to three operands (dst, src, src2). An operand names a memory, a partition range
 * and a free-axis access pattern of up to 4 (size, stride) dims in elements, outermost first.
 * For HBM operands the partition axis is a real address axis: `pstride` elements apart. */
#ifndef LS_SIM_ISA_H
#define LS_SIM_ISA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/arch.h"
#include "util/dtype.h"

#define SIM_AP_MAX_DIMS 4

enum sim_opcode {
    SIM_OP_LOAD_STATIONARY,   /* pe: src = stationary [K partitions x M] */
    SIM_OP_MATMUL,            /* pe: multiply-moving, src = moving [K x T], dst = PSUM [M x T] */
    SIM_OP_PE_TRANSPOSE,      /* pe: identity matmul, src [P x F] -> PSUM dst [F x P] */
    SIM_OP_ACTIVATION,        /* act: dst = func(src * scale + bias) */
    SIM_OP_ACTIVATION_REDUCE, /* act: activation plus an accumulate/reduce readout */
    SIM_OP_TENSOR_TENSOR,     /* dve/pool: dst = src alu src2 */
    SIM_OP_TENSOR_SCALAR,     /* dve/act/pool: dst = src alu scalar */
    SIM_OP_TENSOR_COPY,       /* dve/act/pool */
    SIM_OP_TENSOR_REDUCE,     /* dve: reduce along the free axes */
    SIM_OP_DVE_TRANSPOSE,     /* dve: 32x32 block transpose */
    SIM_OP_MEMSET,            /* dve/pool */
    SIM_OP_IOTA,              /* pool */
    SIM_OP_PARTITION_REDUCE,  /* pool: reduce across partitions (flag ALL: all-reduce) */
    SIM_OP_GATHER,            /* pool: local gather, src2 = indices */
    SIM_OP_DMA_COPY,          /* dma: HBM<->SBUF, SBUF->SBUF, HBM->HBM on a queue */
    SIM_OP_DMA_TRANSPOSE,     /* dma: 2-D transpose (targets with dma.transpose = 1) */
    SIM_OP_COUNT
};

/* ALU operation / activation function. Only a few change the cost (see docs/targets.md). */
enum sim_func {
    SIM_FN_NONE, /* bypass / identity / copy */
    SIM_FN_ADD,
    SIM_FN_SUB,
    SIM_FN_MUL,
    SIM_FN_MAX,
    SIM_FN_MIN,
    SIM_FN_RECIPROCAL,
    SIM_FN_EXP,
    SIM_FN_RELU,
    SIM_FN_GELU,
    SIM_FN_TANH,
    SIM_FN_SIGMOID,
    SIM_FN_SQRT,
    SIM_FN_RSQRT,
    SIM_FN_COUNT
};

enum {
    SIM_F_ACCUMULATE = 1u << 0, /* matmul: accumulate into PSUM; act reduce: accumulate */
    SIM_F_ALL = 1u << 1,        /* partition_reduce: all-reduce */
};

struct sim_operand {
    uint8_t mem;         /* enum ls_mem; LS_MEM_NONE = operand absent */
    uint8_t dtype;       /* enum ls_dtype */
    uint8_t ndim;        /* 0..SIM_AP_MAX_DIMS free dims */
    uint8_t pad_;
    uint32_t part_start; /* SBUF/PSUM: first partition; HBM: 0 */
    uint32_t nparts;     /* partitions (HBM: rows mapped onto partitions) */
    int32_t pstride;     /* HBM: elements between partition rows */
    uint64_t addr;       /* bytes: SBUF/PSUM offset inside each partition; HBM offset */
    uint32_t size[SIM_AP_MAX_DIMS];  /* outermost first */
    int32_t stride[SIM_AP_MAX_DIMS]; /* elements */
};

struct sim_instr {
    uint8_t engine;      /* enum ls_engine */
    uint8_t opcode;      /* enum sim_opcode */
    uint8_t func;        /* enum sim_func */
    uint8_t flags;       /* SIM_F_* */
    uint16_t queue;      /* DMA queue; 0 for other engines */
    uint16_t ndeps;      /* filled by the program */
    uint32_t deps_off;   /* filled by the program */
    int32_t op_tag;      /* program string id of the graph op, -1 = none */
    int32_t conv_tag;    /* program string id of the tensor conversion, -1 = none */
    struct sim_operand dst, src, src2;
};

/* Opcode names ("load_stationary", "matmul", ...), indexed by enum sim_opcode: the table
 * a trace file stores so that trace_record.opcode can be read back. */
const char *const *sim_opcode_names(size_t *n);
const char *sim_opcode_name(enum sim_opcode op);
int sim_opcode_parse(const char *s, size_t n, enum sim_opcode *out);
/* 1 when opcode op may run on engine e. */
int sim_opcode_on_engine(enum sim_opcode op, enum ls_engine e);

const char *sim_func_name(enum sim_func f);
int sim_func_parse(const char *s, size_t n, enum sim_func *out);
int sim_engine_parse(const char *s, size_t n, enum ls_engine *out);

/* The one starting point of every instruction builder: opcode op on engine e, every operand
 * absent (LS_MEM_NONE), no function, flags or queue, no graph-op or conversion tag (-1).
 * Callers fill the operands; the program fills the dependencies. Inline, as the operand
 * helpers below: codegen calls them millions of times and, out of line, the returned copies
 * were a fifth of `laysim compile`. */
static inline struct sim_instr sim_instr_init(enum ls_engine e, enum sim_opcode op)
{
    struct sim_instr in;
    memset(&in, 0, sizeof in); /* every field, the unused operand dims included */
    in.engine = (uint8_t)e;
    in.opcode = (uint8_t)op;
    in.op_tag = in.conv_tag = -1;
    return in;
}

static inline struct sim_operand sim_operand_1d_(uint8_t mem, uint32_t p0, uint32_t np,
                                                 uint64_t addr, enum ls_dtype dt, uint32_t free)
{
    struct sim_operand o;
    memset(&o, 0, sizeof o);
    o.mem = mem;
    o.dtype = (uint8_t)dt;
    o.part_start = p0;
    o.nparts = np;
    o.addr = addr;
    o.ndim = 1;
    o.size[0] = free;
    o.stride[0] = 1;
    return o;
}

/* Operand helpers for builders. All are contiguous 1-D patterns of `free` elements. */
static inline struct sim_operand sim_sbuf(uint32_t part_start, uint32_t nparts, uint64_t addr,
                                          enum ls_dtype dt, uint32_t free)
{
    return sim_operand_1d_(LS_MEM_SBUF, part_start, nparts, addr, dt, free);
}
static inline struct sim_operand sim_psum(uint32_t part_start, uint32_t nparts, uint64_t addr,
                                          enum ls_dtype dt, uint32_t free)
{
    return sim_operand_1d_(LS_MEM_PSUM, part_start, nparts, addr, dt, free);
}
/* HBM: nparts rows of `free` elements, rows pstride elements apart, from byte addr. */
static inline struct sim_operand sim_hbm(uint32_t nparts, int32_t pstride, uint64_t addr,
                                         enum ls_dtype dt, uint32_t free)
{
    struct sim_operand o = sim_operand_1d_(LS_MEM_HBM, 0, nparts, addr, dt, free);
    o.pstride = pstride;
    return o;
}
/* Replace the free pattern of o by ndim (size, stride) dims, outermost first. */
void sim_operand_dims(struct sim_operand *o, int ndim, const uint32_t *size,
                      const int32_t *stride);

/* Elements per partition (product of the sizes; 1 for ndim 0). Inline: the simulator and
 * its checks ask several times per instruction. */
static inline uint64_t sim_operand_free(const struct sim_operand *o)
{
    uint64_t n = 1;
    for (int i = 0; i < o->ndim; i++)
        n *= o->size[i];
    return n;
}
/* Innermost contiguous run, in elements: product of the innermost dims that are dense. */
uint64_t sim_operand_run(const struct sim_operand *o);
/* Lowest and one-past-highest byte touched inside one partition (HBM: one row, from addr).
 * Returns -1 when the pattern reaches below byte 0 or beyond 2^64. */
int sim_operand_extent(const struct sim_operand *o, uint64_t *lo, uint64_t *hi);
/* The same relative to o->addr, from the shape alone: the extent is [addr + *lo, addr +
 * *hi), valid when that lies in [0, 2^64] (what sim_operand_extent checks). */
void sim_operand_extent_rel(const struct sim_operand *o, __int128 *lo, __int128 *hi);

/* What the time of an instruction depends on besides the target and its opcode, derived
 * here once: the simulator times with it, the cost model prices with it, calibration reads
 * the same quantities back from trace records (docs/targets.md, "Timing model";
 * docs/costmodel.md, "Features"). */
struct sim_features {
    /* PE/ACT/DVE/POOL: N, the elements the engine streams per partition: the source's
     * partitions (load_stationary), the source's free size (matmul: T; pe_transpose: the
     * stationary width), else the larger of the source's and the destination's free sizes */
    uint64_t n;
    /* DMA: partitions split over the engines (the on-chip side's; dst's for HBM->HBM) and the
     * first one; elements per partition x the larger element size (DMA casts); contiguous
     * chunks (descriptors) per partition; operands in HBM (0, 1, 2) */
    uint32_t partitions, part_start;
    uint64_t bytes_per_partition, chunks_per_partition;
    int hbm_sides;
};
void sim_features(const struct sim_instr *in, struct sim_features *f);
/* Contiguous chunks (descriptors) per partition of a DMA moving e elements per partition
 * whose source and destination patterns have contiguous runs of a and b elements (each
 * at least 1 and at most e): a chunk ends where either side's run ends. */
uint64_t sim_dma_chunks(uint64_t e, uint64_t a, uint64_t b);
/* DMA: the descriptors of the busiest engine, ceil(partitions / engines) x chunks per
 * partition (engines 0 counts as 1), and the bytes of one chunk. */
double sim_dma_engine_descs(uint32_t partitions, double chunks_per_partition, uint32_t engines);
double sim_dma_chunk_bytes(uint64_t bytes_per_partition, double chunks_per_partition);

#endif
