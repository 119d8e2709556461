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

/* Greatest common divisor (a when b is 0). */
uint64_t sim_gcd64(uint64_t a, uint64_t b);

#endif
