/* sim/target: the hardware description the simulator runs on.
 *
 * A target is a flat set of `section.field` keys (docs/targets.md documents every one).
 * Two built-ins (nc-v2, nc-v3) carry the published NeuronCore numbers; an INI file
 * (read by sim/target.c) or `--set key=value` overrides start from one of them. A target has a stable
 * hash: FNV-1a-64 over its sorted `key=value` lines (sim_target_hash), shared with the RTL
 * harness and the trace header. */
#ifndef LS_SIM_TARGET_H
#define LS_SIM_TARGET_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

#define SIM_MAX_QUEUES 64
#define SIM_MAX_DMA_ENGINES 128
#define SIM_MAX_TICK_MHZ 100000u /* ticks run at the LCM of the clocks: at most 100 GHz */
#define SIM_MAX_TICKS ((uint64_t)1 << 62) /* a run that ends later fails (no wrap-around) */

/* The most PSUM banks a target may have (psum.banks' range): bank indices stay below it,
 * so per-bank bookkeeping can be sized by it. */
#define SIM_PSUM_BANKS_MAX 64

/* The field types of sim/target_keys.def's TYPE column. */
#define SIM_TARGET_CTYPE_U32 uint32_t
#define SIM_TARGET_CTYPE_U64 uint64_t
#define SIM_TARGET_CTYPE_DBL double

struct sim_target {
    char name[64];
    /* one field per key of sim/target_keys.def, in key order (pe.rows is pe_rows) */
#define SIM_TARGET_KEY(key, field, type, lo, hi, lo_open, nc_v2, nc_v3) \
    SIM_TARGET_CTYPE_##type field;
#include "sim/target_keys.def"
#undef SIM_TARGET_KEY
    /* 1 once dma.desc_min_ns was set by sim_target_set. Until then, setting
     * dma.bytes_per_ns rescales desc_min_ns so that the minimum descriptor size in bytes
     * stays the same (the fixed per-descriptor overhead is a byte count on the wire, not a
     * time). Not a key: it does not enter the lines or the hash. */
    int dma_desc_min_explicit;
};

/* The built-in a command runs on when no target is given (the table's nc-v2 column, which
 * INI files start from too); `--target`'s help spells it. */
#define SIM_TARGET_DEFAULT "nc-v2"

/* Fill t with a built-in ("nc-v2", "nc-v3"); -1 when the name is unknown. */
int sim_target_builtin(struct sim_target *t, const char *name);
/* Names of the built-ins, NULL-terminated. */
const char *const *sim_target_builtin_names(void);

/* Set one key from its text value ("pe.rows", "128"). Unknown keys and values out of the
 * key's range are LS_ERR_INPUT errors naming the key. "target.name" sets the name. */
int sim_target_set(struct sim_target *t, const char *key, const char *value, struct ls_error *err);

/* Whole-target consistency (pe.rows <= sbuf.partitions, tick rate <= 100 GHz, ...);
 * errors name the key(s). */
int sim_target_validate(const struct sim_target *t, struct ls_error *err);

/* Load an INI file: sections are the key prefixes ([pe] rows = 128 is pe.rows). The file
 * starts from nc-v2 unless `[target] base = nc-v3` comes first; `[target] name = X` names it.
 * Validates the result. Errors name file:line and the key. */
int sim_target_load_file(struct sim_target *t, const char *path, struct ls_error *err);
/* Same, from a NUL-terminated buffer; file is used in messages only. */
int sim_target_load_string(struct sim_target *t, const char *file, const char *text,
                           struct ls_error *err);

/* The canonical `key=value` lines, sorted by key, each ending in '\n' (the name is not
 * part of it). Returns the length that was needed (snprintf-style). */
size_t sim_target_lines(const struct sim_target *t, char *buf, size_t n);
/* FNV-1a-64 over sim_target_lines: equal numbers give equal hashes whatever the name. */
uint64_t sim_target_hash(const struct sim_target *t);

/* The keys, in sorted order (for docs, tests and `laysim sim --print-target`). */
size_t sim_target_key_count(void);
const char *sim_target_key_name(size_t i);

/* Time base: ticks per microsecond = LCM of every clock in MHz. */
uint64_t sim_target_tick_mhz(const struct sim_target *t);

#endif
