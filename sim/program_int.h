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
    uint32_t numbered_interned;   /* interned labels that look like i<N> (see below) */
};

/* labels[i] of an instruction whose label is "i<i>" (what the text writer writes): such
 * labels are not interned, so that a million of them cost no hashing. */
#define SIM_LABEL_NUMBERED (-2)

/* Label instruction idx s[0..n): 0, 1 when the label is already taken, -1 out of memory. */
int sim_label_add(struct sim_program *p, uint32_t idx, const char *s, size_t n);
/* Instruction labelled s[0..n), or -1. */
int64_t sim_label_find(const struct sim_program *p, const char *s, size_t n);

#endif
