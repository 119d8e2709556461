/* sim/program_int: the program's representation, shared by program*.c and the simulator
 * (not part of the public API). */
#ifndef LS_SIM_PROGRAM_INT_H
#define LS_SIM_PROGRAM_INT_H

#include <stdint.h>

#include "sim/isa.h"
#include "util/intern.h"
#include "util/vec.h"

#define SIM_STREAM_DMA0 4 /* streams: PE, ACT, DVE, POOL, then one per DMA queue */

struct sim_program {
    LS_VEC(struct sim_instr) ins;
    LS_VEC(uint32_t) deps;
    LS_VEC(uint8_t) sid;          /* stream per instruction: engine, or 4 + DMA queue */
    LS_VEC(int32_t) lines;       /* source line per instruction (parsed programs only) */
    LS_VEC(int32_t) labels;      /* label id per instruction, -1 = none (lazily filled) */
    LS_VEC(uint32_t) label_index; /* label id -> instruction */
    struct ls_intern strs;        /* op / conversion tags */
    struct ls_intern label_names;
    char *file;                   /* source file, or NULL */
};

#endif
