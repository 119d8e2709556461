/* sim/program: a program is one instruction stream per engine (PE, ACT, DVE, POOL, and one
 * FIFO per DMA queue) plus explicit dependencies between instructions.
 *
 * Instructions are kept in one global order that must be a topological order of the
 * dependencies: an instruction may only depend on instructions added before it. Each
 * engine (each DMA queue) runs its own instructions in that order. Build programs with
 * sim_program_add (codegen) or parse the text form (docs/formats.md, "Programs"). */
#ifndef LS_SIM_PROGRAM_H
#define LS_SIM_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sim/isa.h"
#include "sim/target.h"
#include "util/error.h"
#include "util/intern.h"

struct sim_program;

struct sim_program *sim_program_new(void);
void sim_program_free(struct sim_program *p);
/* Empty p for a new program: afterwards it is what sim_program_new returns, except that its
 * instruction, dependency and stream arrays keep their memory (compiling one program after
 * another into it touches no fresh pages: a tenth of an autotuning run on olmoe). */
void sim_program_clear(struct sim_program *p);

/* Append a copy of *in (its ndeps/deps_off are ignored) depending on deps[0..ndeps), which
 * must be indices of earlier instructions. Returns the new index, or -1 with err filled
 * (LS_ERR_INPUT for a bad dependency, LS_ERR_NOMEM). */
int64_t sim_program_add(struct sim_program *p, const struct sim_instr *in, const uint32_t *deps,
                        size_t ndeps, struct ls_error *err);
/* Intern an op/conversion tag; returns its id (for sim_instr.op_tag / conv_tag) or -1. */
int32_t sim_program_tag(struct sim_program *p, const char *name);
/* Set a label (used in messages and by the text writer); label must be unique. */
int sim_program_label(struct sim_program *p, uint32_t index, const char *label,
                      struct ls_error *err);

size_t sim_program_count(const struct sim_program *p);
/* Engine of instruction i, without decoding the rest. */
enum ls_engine sim_program_engine(const struct sim_program *p, size_t i);
/* Instruction i, decoded into *buf (the program keeps a compact form); returns buf. */
const struct sim_instr *sim_program_get(const struct sim_program *p, size_t i,
                                        struct sim_instr *buf);
const uint32_t *sim_program_deps(const struct sim_program *p, size_t i, size_t *ndeps);
/* The tag strings (ids as in op_tag / conv_tag). */
const struct ls_intern *sim_program_strings(const struct sim_program *p);
/* Where instruction i came from: source file and line (NULL/0 for built programs). */
const char *sim_program_file(const struct sim_program *p);
int sim_program_line(const struct sim_program *p, size_t i);
/* Label of instruction i, or NULL (also for a label "i<i>", the text writer's own, which is
 * kept implicit; sim_program_where still names it). */
const char *sim_program_label_of(const struct sim_program *p, size_t i);

/* Describe instruction i for messages: "file:line: instruction 7 'mm3' (pe matmul)". */
const char *sim_program_where(const struct sim_program *p, size_t i, char *buf, size_t n);

/* Parse the text form. file names the source in messages. */
int sim_program_parse(struct sim_program **out, const char *file, const char *text, size_t len,
                      struct ls_error *err);
int sim_program_load(struct sim_program **out, const char *path, struct ls_error *err);
/* Write the text form (parses back to the same program): 0, LS_ERR_IO (f failed) or
 * LS_ERR_NOMEM. */
int sim_program_write(const struct sim_program *p, FILE *f);

/* The binary form (.lsprogz, docs/formats.md "Binary programs"): zlib blocks of varint-coded
 * instructions, ~10 bytes per instruction, read without tokenizing. Labels are not kept
 * (the text writer renumbers them i<N> too); tags are. sim_program_parse and
 * sim_program_load recognise it by its magic and read either form. */
#define SIM_PROGZ_MAGIC "LSPROGZ\x1a"
#define SIM_PROGZ_VERSION 3 /* written; 1 and 2 are still read */
int sim_program_write_binary(const struct sim_program *p, FILE *f);
int sim_program_is_binary(const void *data, size_t len);
int sim_program_parse_binary(struct sim_program **out, const char *file, const void *data,
                             size_t len, struct ls_error *err);

/* What a program was built for (docs/formats.md "Programs tied to their target"): the
 * target's name and sim_target_hash, and the model-hash and problem-hash of the .lsp it was
 * compiled from; "" = not recorded. Written as `# key: value` lines after `lsprog 1` in
 * the text form (comments: older readers skip them) and as a block after the binary
 * header; read back by both parsers. Programs built in memory start with none. */
enum { SIM_TIE_TARGET, SIM_TIE_TARGET_HASH, SIM_TIE_MODEL, SIM_TIE_PROBLEM, SIM_TIE_NKEYS };
#define SIM_TIE_VALUE_MAX 64
struct sim_program_tie {
    char v[SIM_TIE_NKEYS][SIM_TIE_VALUE_MAX];
};
const struct sim_program_tie *sim_program_tie(const struct sim_program *p);
void sim_program_set_tie(struct sim_program *p, const struct sim_program_tie *t);
/* Set one key (truncated to SIM_TIE_VALUE_MAX - 1 bytes); the target's name and hash. */
void sim_tie_set(struct sim_program_tie *t, int key, const char *value);
void sim_tie_set_target(struct sim_program_tie *t, const struct sim_target *tg);
/* 1 when the program records a target name other than t's, with "built for target A
 * (target-hash X), simulated on target B (target-hash Y)" in buf; 0 when the names match
 * (a `--set` variant of the program's target is the same target: what-if sweeps and
 * hidden-core calibration run programs on modified cores on purpose) or the program
 * records none. */
int sim_program_tie_check(const struct sim_program *p, const struct sim_target *t, char *buf,
                          size_t n);

#endif
