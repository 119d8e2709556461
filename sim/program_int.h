/* sim/program_int: the program's representation, shared by program*.c and the simulator
 * (not part of the public API). */
#ifndef LS_SIM_PROGRAM_INT_H
#define LS_SIM_PROGRAM_INT_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sim/isa.h"
#include "sim/program.h"
#include "sim/target.h"
#include "util/intern.h"
#include "util/vec.h"

#define SIM_STREAM_DMA0 4 /* streams: PE, ACT, DVE, POOL, then one per DMA queue */
#define SIM_STREAMS (SIM_STREAM_DMA0 + SIM_MAX_QUEUES)

/* What an instruction is apart from its addresses, dependencies and tags: engine, opcode,
 * func, flags, queue and operand shapes. A compiled program has a few hundred distinct
 * kinds for a million instructions, so the checks and the simulator's costs are computed
 * once per kind and found by index, not by hashing the fields again per instruction. */
struct sim_kind {
    uint32_t shape[3]; /* shape id + 1; 0 = operand absent */
    uint8_t engine, opcode, func, flags, queue;
};

/* An instruction as the program keeps it: 48 bytes instead of struct sim_instr's 192. An
 * operand is an interned *shape* (memory, dtype, partitions, access pattern: everything but
 * the address) plus its address; the shapes and the rest of what makes the instruction's
 * timing are its kind. Loading and compiling write, and the simulator reads, a quarter of
 * the memory; consumers get the full instruction back from sim_program_get. */
struct sim_irec {
    uint64_t addr[3]; /* dst, src, src2 (0 when absent) */
    uint32_t kind;    /* index into sim_program.kinds */
    int32_t op_tag, conv_tag;
    uint32_t deps_off; /* the dependencies of consecutive records are consecutive: record
                        * i has deps_off[i + 1] - deps_off[i] (sim_irec_ndeps), which keeps
                        * a record at 40 bytes, not 48 (a sixth less memory to touch) */
};

struct sim_program {
    LS_VEC(struct sim_irec) ins;
    LS_VEC(uint32_t) deps;
    LS_VEC(uint8_t) sid;          /* stream per instruction: engine, or 4 + DMA queue (apart:
                                   * the simulator sorts by it, a byte per instruction) */
    size_t stream_n[SIM_STREAMS]; /* instructions per stream (the simulator's sort needs no
                                   * counting pass) */
    LS_VEC(struct sim_operand) shapes; /* addr 0, unused dims 0 */
    uint32_t *shape_slots;        /* open addressing: shape id + 1, 0 = empty */
    size_t shape_cap;             /* slots, a power of two */
    uint32_t last_shape[SIM_STREAMS][3][2]; /* per stream and slot, the last two: skip most hashing */
    LS_VEC(struct sim_kind) kinds;
    uint32_t *kind_slots;         /* open addressing: kind id + 1, 0 = empty */
    size_t kind_cap;              /* slots, a power of two */
    uint32_t last_kind[SIM_STREAMS][2]; /* kind id + 1 per stream, the last two */
    LS_VEC(int32_t) lines;       /* source line per instruction (parsed programs only) */
    LS_VEC(int32_t) labels;      /* label id per instruction, -1 = none (lazily filled) */
    LS_VEC(uint32_t) label_index; /* label id -> instruction */
    struct ls_intern strs;        /* op / conversion tags */
    struct ls_intern label_names;
    char *file;                   /* source file, or NULL */
    uint32_t numbered_interned;   /* interned labels that look like i<N> (see below) */
    /* sim_program_check passed for the target with this hash while the program had
     * checked_len instructions (records are never changed in place, only appended): sim_run
     * then skips its own up-front check. */
    int checked;
    uint64_t checked_hash;
    size_t checked_len;
    struct sim_program_tie tie;   /* what it was built for (program_tie.c) */
};

/* program_tie.c: one `key: value` line (no newline; unknown keys and values with control
 * bytes are ignored); the lines of buf (text: the `#` comments before the first
 * instruction; binary: every line); the recorded keys as lines, each after prefix, into
 * buf (returns the length). */
void sim_tie_line(struct sim_program_tie *t, const char *s, size_t n);
void sim_tie_scan(struct sim_program_tie *t, const char *buf, size_t len, int text);
size_t sim_tie_format(const struct sim_program_tie *t, const char *prefix, char *buf, size_t n);

/* Append *in whose ndeps dependencies are already at p->deps[in->deps_off...], right after
 * the previous record's (checked by the caller); engine and queue must be in range. 0, or
 * -1 out of memory. */
int sim_program_push(struct sim_program *p, const struct sim_instr *in);
/* sim_program_add filling in's ndeps and deps_off itself instead of in a copy (the text
 * parser: copying 192 bytes per line was measurable). */
int64_t sim_program_add_in_place(struct sim_program *p, struct sim_instr *in,
                                 const uint32_t *deps, size_t ndeps, struct ls_error *err);
/* The same with the operands given apart (NULL = absent; in's are ignored). */
int sim_program_push_ops(struct sim_program *p, const struct sim_instr *in,
                         const struct sim_operand *const ops[3]);

/* Ask for transparent huge pages under a large fresh array (its aligned interior): first-touch
 * page faults were a fifth of loading a million-instruction program with 4 KiB pages. */
static inline void sim_huge_pages(void *p, size_t n)
{
#ifdef MADV_HUGEPAGE
    const uintptr_t huge = (uintptr_t)2 << 20;
    uintptr_t lo = ((uintptr_t)p + huge - 1) & ~(huge - 1), hi = ((uintptr_t)p + n) & ~(huge - 1);
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)p, (void)n;
#endif
}

/* ls_vec_reserve_exact_ for a vector not allocated yet that will be large (a loader that
 * knows the program's size): 2 MiB-aligned, so that all of it can be on transparent huge
 * pages (malloc's blocks are not, and only their aligned interior was; olmoe's records still
 * faulted in 4 KiB pages). Still a malloc block: grows and frees as any other. */
static inline int sim_vec_reserve_huge(void **data, size_t *cap, size_t n, size_t elem)
{
    const size_t huge = (size_t)2 << 20;
    size_t bytes;
    if (*data || __builtin_mul_overflow(n, elem, &bytes) || bytes < huge / 2)
        return ls_vec_reserve_exact_(data, cap, n, elem);
    void *p;
    if (posix_memalign(&p, huge, bytes))
        return LS_ERR_NOMEM;
    sim_huge_pages(p, bytes);
    *data = p;
    *cap = n;
    return 0;
}

#define SIM_VEC_RESERVE_HUGE(v, n) \
    sim_vec_reserve_huge((void **)&(v)->data, &(v)->cap, (n), sizeof *(v)->data)

/* Shape id + 1 of operand o in slot k of an instruction of stream sid, interned when new
 * (only the fields but the address count); 0 out of memory. */
uint32_t sim_program_shape_id(struct sim_program *p, uint8_t sid, int k,
                              const struct sim_operand *o);

/* Id of kind *k (k->engine and k->queue give its stream), interned when new; UINT32_MAX
 * out of memory. */
uint32_t sim_program_kind_id(struct sim_program *p, const struct sim_kind *k);

static inline const struct sim_kind *sim_irec_kind(const struct sim_program *p,
                                                   const struct sim_irec *r)
{
    return &p->kinds.data[r->kind];
}

/* Operand k (0 dst, 1 src, 2 src2) of record r into *o. */
static inline void sim_irec_operand(const struct sim_program *p, const struct sim_irec *r, int k,
                                    struct sim_operand *o)
{
    uint32_t shape = sim_irec_kind(p, r)->shape[k];
    if (shape) {
        *o = p->shapes.data[shape - 1];
        o->addr = r->addr[k];
    } else {
        memset(o, 0, sizeof *o);
    }
}

/* Dependencies of record i: up to the next record's, or to the end of p->deps for the last. */
static inline uint32_t sim_irec_ndeps(const struct sim_program *p, size_t i)
{
    uint32_t end = i + 1 < p->ins.len ? p->ins.data[i + 1].deps_off : (uint32_t)p->deps.len;
    return end - p->ins.data[i].deps_off;
}

/* The full instruction i (sim_program_get, inline for the simulator's loop). */
static inline void sim_irec_get(const struct sim_program *p, size_t i, struct sim_instr *in)
{
    const struct sim_irec *r = &p->ins.data[i];
    const struct sim_kind *k = sim_irec_kind(p, r);
    in->engine = k->engine;
    in->opcode = k->opcode;
    in->func = k->func;
    in->flags = k->flags;
    in->queue = k->queue;
    in->ndeps = (uint16_t)sim_irec_ndeps(p, i);
    in->deps_off = r->deps_off;
    in->op_tag = r->op_tag;
    in->conv_tag = r->conv_tag;
    sim_irec_operand(p, r, 0, &in->dst);
    sim_irec_operand(p, r, 1, &in->src);
    sim_irec_operand(p, r, 2, &in->src2);
}

/* labels[i] of an instruction whose label is "i<i>" (what the text writer writes): such
 * labels are not interned, so that a million of them cost no hashing. */
#define SIM_LABEL_NUMBERED (-2)

/* N when s[0..n) is "i<N>" (decimal, no leading zero), else -1. Inline: the text parser
 * asks it for every dependency of every line. */
static inline int64_t sim_label_number(const char *s, size_t n)
{
    if (n < 2 || n > 11 || s[0] != 'i' || (s[1] == '0' && n > 2))
        return -1;
    int64_t v = 0;
    for (size_t i = 1; i < n; i++) {
        if ((unsigned)(s[i] - '0') > 9u)
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v <= UINT32_MAX ? v : -1;
}

/* k when instruction k exists and is labelled i<k> implicitly, else -1. */
static inline int64_t sim_label_numbered_at(const struct sim_program *p, int64_t k)
{
    return k >= 0 && (uint64_t)k < p->labels.len && p->labels.data[k] == SIM_LABEL_NUMBERED ? k
                                                                                             : -1;
}

/* Label instruction idx s[0..n): 0, 1 when the label is already taken, -1 out of memory. */
int sim_label_add(struct sim_program *p, uint32_t idx, const char *s, size_t n);
/* Instruction labelled s[0..n), or -1. */
int64_t sim_label_find(const struct sim_program *p, const char *s, size_t n);

/* Checking while loading (sim_check's loop, one instruction at a time in program order):
 * a loader that is handed a checker checks each instruction right after decoding it, while
 * its record is still in cache, instead of sim_run making a second pass over them all. */
struct sim_checker;
struct sim_checker *sim_checker_new(const struct sim_target *t); /* NULL out of memory */
void sim_checker_free(struct sim_checker *c);
/* Check the next instruction (the checker counts them from 0); 0 or LS_ERR_INPUT. */
int sim_checker_next(struct sim_checker *c, const struct sim_program *p, struct ls_error *err);
/* Every instruction of p passed: mark p checked for the checker's target (sim_check_once). */
void sim_checker_passed(const struct sim_checker *c, struct sim_program *p);

/* sim_program_parse / sim_program_parse_binary checking as they go when chk is not NULL: a
 * program whose every instruction passed is marked checked; a bad instruction only stops
 * the checking (sim_run then reports it as sim_check does). */
int sim_program_parse_with(struct sim_program **out, const char *file, const char *text,
                           size_t len, struct sim_checker *chk, struct ls_error *err);
int sim_program_parse_binary_with(struct sim_program **out, const char *file, const void *data,
                                  size_t len, struct sim_checker *chk, struct ls_error *err);

#endif
