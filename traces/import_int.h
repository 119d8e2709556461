/* traces/import_int: what the import readers (import_csv.c, import_json.c) share with the
 * driver (import.c). Not part of the layer's API. */
#ifndef LS_TRACES_IMPORT_INT_H
#define LS_TRACES_IMPORT_INT_H

#include <stdio.h>

#include "traces/import.h"
#include "util/intern.h"

/* Buffered input streamed from a file, read twice (rewind between passes). */
struct imp_in {
    FILE *fp;
    char *buf;
    size_t len, pos, cap;
    uint64_t base;      /* file offset of buf[0] */
    int eof;
};

/* A record as a reader found it: the numbers in r (times already in ticks), the names
 * still as text in the input (valid until the reader moves on). */
struct imp_raw {
    struct trace_record r;
    const char *opcode, *op, *conv;
    size_t opcode_n, op_n, conv_n;
    int line;
};

struct imp {
    const char *path, *out_path;
    const struct trace_import_opts *o;
    struct imp_in in;
    int pass;                     /* 1: collect names and counts, 2: write */
    struct trace_import_stats *st;
    struct trace_header h;
    char target[TRACE_MAX_NAME + 1];
    int have_clock;               /* clocks came from the options */
    uint64_t mult;                /* ticks per unit of the input's timestamps */
    double scale;                 /* > 0: ticks per unit when not a whole number */
    uint64_t json_tick_hz;        /* otherData.tick_hz of laysim's JSON export */
    struct ls_intern opcodes;     /* the written trace's opcode table */
    struct ls_intern unmapped;    /* names the table does not know (stats) */
    struct trace_writer *w;
    uint64_t index;               /* records seen this pass (default ids) */
    int no_clock_line;            /* first compute record without an engine clock */
    int last_line;
    struct imp_mapped {          /* recent opcode lookups (profmap's table is linear) */
        char name[24];
        uint8_t n, engine, used;
        const char *to;
    } cache[32];
    void *json_threads;           /* import_json.c: track names found in pass 1 */
    size_t json_nthreads;
};

/* Refill so that at least one more byte is buffered; 0 at end of input. keep: bytes before
 * pos the caller still points into (moved along with the rest). */
int imp_in_fill(struct imp_in *in, size_t keep, struct ls_error *err);

/* A record the reader finished: map its opcode, count it, write it in pass 2. */
int imp_emit(struct imp *s, struct imp_raw *raw, struct ls_error *err);
/* A record the reader could not use (pass 1 counts it). */
void imp_drop(struct imp *s, enum trace_drop why, int line);

/* Timestamp text to ticks (s->mult per unit): decimal, optional fraction and exponent.
 * -1 when not a non-negative number or out of range. */
int imp_parse_time(const struct imp *s, const char *t, size_t n, uint64_t *ticks);

int imp_read_csv(struct imp *s, struct ls_error *err);
int imp_read_json(struct imp *s, struct ls_error *err);
/* Format of a CSV from its header row (laysim or Neuron), used by detection. */
enum trace_import_format imp_csv_kind(struct imp *s, struct ls_error *err);

#endif
