/* sim/sim_int: helpers shared by the simulator's .c files (not public). */
#ifndef LS_SIM_SIM_INT_H
#define LS_SIM_SIM_INT_H

#include <stdint.h>

#include "sim/isa.h"
#include "sim/program.h"
#include "sim/target.h"
#include "util/error.h"

/* Program-order state of the checks (the stationary operand the PE holds). */
struct sim_check_state {
    int have_ls;
    uint32_t ls_k, ls_m;
};
/* Check instruction i (in: as sim_program_get decodes it); PE instructions must come in
 * program order. */
int sim_check_instr(const struct sim_target *t, const struct sim_program *p, size_t i,
                    const struct sim_instr *in, struct sim_check_state *cs,
                    struct ls_error *err);

/* sim_check unless sim_program_check already passed for this target and program. */
int sim_check_once(const struct sim_target *t, const struct sim_program *p, struct ls_error *err);

struct sim_dma_shape {
    uint32_t partitions, part_start;  /* partitions split over the DMA engines */
    uint64_t bytes_per_partition;
    uint64_t chunks_per_partition;    /* contiguous chunks (descriptors) per partition */
    int hbm_sides;                    /* 0, 1 or 2 operands in HBM */
};

void sim_dma_shape(const struct sim_instr *in, struct sim_dma_shape *sh);
/* Elements per partition that an ACT/DVE/POOL instruction streams. */
uint64_t sim_vec_free(const struct sim_instr *in);

#endif
