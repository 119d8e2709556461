/* traces/trace: the .lstrace file format (docs/formats.md): a header, then records in
 * zlib-compressed blocks, each with its length and a CRC-32, then an end frame.
 * Writer and reader both stream in constant memory (plus the string table, which grows
 * with the number of distinct names, not with the number of records). */
#ifndef LS_TRACES_TRACE_H
#define LS_TRACES_TRACE_H

#include <stdint.h>

#include "traces/record.h"
#include "util/error.h"

/* The format version this build writes; readers accept 1..TRACE_FORMAT_VERSION and
 * reject newer files with a message saying so. */
#define TRACE_FORMAT_VERSION 1

/* Limits checked by writer and reader. */
#define TRACE_MAX_NAME 4096        /* bytes in one name (target, opcode, string) */
#define TRACE_MAX_OPCODES 65536

/* Caps of the reader, so that a hostile trace (a zlib bomb: 586 KB inflating to 67 M
 * records) cannot exhaust memory, time or disk in the commands that read it: a block of
 * 64 KiB or more may inflate at most TRACE_MAX_INFLATION times its compressed size
 * (laysim's own traces inflate 2 to 15 times), and a trace holds at most
 * TRACE_MAX_RECORDS records. The environment variables LAYSIM_TRACE_MAX_INFLATION and
 * LAYSIM_TRACE_MAX_RECORDS override them (a non-negative integer; 0: no cap). Crossing a
 * cap is LS_ERR_LIMIT, found from the block's frame before it is inflated. */
#define TRACE_MAX_INFLATION 200
#define TRACE_MAX_RECORDS ((uint64_t)1 << 24)
#define TRACE_INFLATION_MIN_RAW (64u << 10)

enum trace_producer { TRACE_PROD_SIM, TRACE_PROD_RTL, TRACE_PROD_IMPORT, TRACE_PROD_COUNT };

const char *trace_producer_name(enum trace_producer p); /* "sim", "rtl", "import" */

struct trace_header {
    uint32_t version;               /* format version; the writer ignores it and writes
                                       TRACE_FORMAT_VERSION, the reader reports the file's */
    uint8_t producer;               /* enum trace_producer */
    const char *target;             /* target name ("nc-v2", a file name...); NULL = "" */
    uint64_t target_hash;           /* the simulator's target hash (0 when unknown) */
    uint64_t model_hash;            /* the program's model-hash and problem-hash (0 when */
    uint64_t problem_hash;          /* unknown; appended to the header only when known) */
    uint64_t tick_hz;               /* ticks per second, > 0 */
    uint32_t clock_mhz[LS_ENGINE_COUNT]; /* each engine's clock, 0 when unknown */
    uint32_t nopcodes;              /* record.opcode < nopcodes */
    const char *const *opcodes;     /* opcode names: owned by the caller when writing (only
                                       read during trace_writer_open), by the reader when
                                       reading */
};

/* ---- writer ---- */

struct trace_writer;

/* Create path atomically ("-" = stdout) and write the header. The header is copied. */
int trace_writer_open(struct trace_writer **w, const char *path, const struct trace_header *h,
                      struct ls_error *err);
/* Id of a name in the trace's string table (op and tensor-conversion names), adding it
 * when new. Ids are dense, starting at 0, and stay valid for the whole trace. */
int trace_writer_intern(struct trace_writer *w, const char *name, int32_t *id,
                        struct ls_error *err);
/* Append one record. Rejects records whose enums, opcode or string ids are out of range. */
int trace_writer_write(struct trace_writer *w, const struct trace_record *r, struct ls_error *err);
/* A sink whose emit calls trace_writer_write; on failure emit returns the status code and
 * the message is kept (trace_writer_error) and returned again by trace_writer_close. */
struct trace_sink trace_writer_sink(struct trace_writer *w);
/* The first error a sink emit hit, or NULL. */
const struct ls_error *trace_writer_error(const struct trace_writer *w);
/* Records written so far. */
uint64_t trace_writer_count(const struct trace_writer *w);
/* Flush, write the end frame, rename into place and free w (always freed). After a sink
 * error, the output is dropped and that error is returned. */
int trace_writer_close(struct trace_writer *w, struct ls_error *err);
/* Drop the output (no file is left) and free w. NULL is fine. */
void trace_writer_abort(struct trace_writer *w);

/* ---- reader ---- */

struct trace_reader;

/* Open path ("-" = stdin) and read the header. Errors: LS_ERR_IO when the file cannot be
 * opened, LS_ERR_INPUT (with the byte offset) when it is not a valid trace. */
int trace_reader_open(struct trace_reader **r, const char *path, struct ls_error *err);
const struct trace_header *trace_reader_header(const struct trace_reader *r);
/* Name of string id (defined by the blocks read so far), or NULL (also for TRACE_NO_ID). */
const char *trace_reader_string(const struct trace_reader *r, int32_t id);
uint32_t trace_reader_nstrings(const struct trace_reader *r);
/* Opcode name, or "?" when out of range. */
const char *trace_reader_opcode(const struct trace_reader *r, uint32_t opcode);
/* 1 = a record was stored in rec, 0 = end of trace (end frame checked), < 0 = error:
 * -(enum ls_status), err names the block number and byte offset. After an error or the end, keeps
 * returning the same result. */
int trace_reader_next(struct trace_reader *r, struct trace_record *rec, struct ls_error *err);
/* Compressed bytes consumed so far (file offset). */
uint64_t trace_reader_offset(const struct trace_reader *r);
void trace_reader_close(struct trace_reader *r);

#endif
