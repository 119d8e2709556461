#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "traces/block.h"
#include "traces/codec.h"
#include "traces/trace.h"
#include "util/arena.h"
#include "util/dtype.h"
#include "util/vec.h"

struct trace_reader {
    FILE *fp;
    int own_fp;
    char path[1024];
    uint64_t off;                  /* bytes consumed */
    struct trace_header h;
    struct ls_arena arena;         /* header names and string table */
    LS_VEC(const char *) strings;
    uint8_t *comp, *raw;
    size_t comp_cap, raw_cap;
    size_t raw_len, pos;           /* decoded payload of the current block */
    uint32_t left;                 /* records left in the current block */
    uint64_t block;                /* number of the current block (0-based) */
    uint64_t block_off;            /* file offset of the current block's frame */
    uint64_t nblocks, nrec;
    struct trace_codec codec;
    uint64_t max_records, max_inflation; /* the caps (trace.h), 0 = none */
    int state;                     /* 1 reading, 0 ended, < 0 failed with -code */
    int nomem;                     /* get_name ran out of memory: not a malformed name */
    struct ls_error saved;
};

static int fail(struct trace_reader *r, struct ls_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(struct trace_reader *r, struct ls_error *err, int code, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    ls_error_set(&r->saved, code, r->path, 0, 0, "%s", msg);
    if (err)
        *err = r->saved;
    r->state = -code;
    return -code;
}

/* Read exactly n bytes; returns bytes read (< n at end of file). */
static size_t read_some(struct trace_reader *r, void *p, size_t n)
{
    size_t got = n ? fread(p, 1, n, r->fp) : 0;
    r->off += got;
    return got;
}

static int grow(uint8_t **p, size_t *cap, size_t need)
{
    return LS_ARRAY_RESERVE(*p, *cap, need) ? -1 : 0;
}

/* Parse a length-prefixed name from p[*pos..n) into the arena. */
static const char *get_name(struct trace_reader *r, const uint8_t *p, size_t n, size_t *pos)
{
    uint64_t len;
    size_t k = trace_get_varint(p + *pos, n - *pos, &len);
    if (!k || len > TRACE_MAX_NAME || len > n - *pos - k)
        return NULL;
    const char *s = (const char *)p + *pos + k;
    if (memchr(s, 0, len))
        return NULL;
    *pos += k + len;
    const char *copy = ls_arena_strndup(&r->arena, s, len);
    r->nomem = !copy;
    return copy;
}

static int read_header(struct trace_reader *r, struct ls_error *err)
{
    uint8_t fixed[16];
    size_t got = read_some(r, fixed, sizeof fixed);
    if (got == 0)
        return fail(r, err, LS_ERR_INPUT, "empty file (byte offset 0): not a laysim trace");
    if (got < TRACE_MAGIC_LEN || memcmp(fixed, TRACE_MAGIC, TRACE_MAGIC_LEN) != 0) {
        size_t i = 0;
        while (i < got && i < TRACE_MAGIC_LEN && fixed[i] == (uint8_t)TRACE_MAGIC[i])
            i++;
        return fail(r, err, LS_ERR_INPUT,
                    "byte offset %zu: wrong magic, not a laysim trace (.lstrace)", i);
    }
    if (got < sizeof fixed)
        return fail(r, err, LS_ERR_INPUT, "byte offset %zu: truncated header", got);
    uint32_t version = trace_get_u32le(fixed + 8);
    if (version > TRACE_FORMAT_VERSION)
        return fail(r, err, LS_ERR_INPUT,
                    "byte offset 8: trace format version %u is newer than this laysim reads "
                    "(up to %u); use a newer laysim",
                    version, TRACE_FORMAT_VERSION);
    if (version == 0)
        return fail(r, err, LS_ERR_INPUT, "byte offset 8: bad trace format version 0");
    uint32_t blen = trace_get_u32le(fixed + 12);
    if (blen > TRACE_HEADER_MAX)
        return fail(r, err, LS_ERR_INPUT, "byte offset 12: implausible header length %u", blen);
    if (grow(&r->raw, &r->raw_cap, (size_t)blen + 12))
        return fail(r, err, LS_ERR_NOMEM, "out of memory reading the trace header");
    memcpy(r->raw, fixed + 8, 8);
    got = read_some(r, r->raw + 8, (size_t)blen + 4);
    if (got < (size_t)blen + 4)
        return fail(r, err, LS_ERR_INPUT,
                    "byte offset %llu: truncated header (needs %u more bytes)",
                    (unsigned long long)r->off, (unsigned)(blen + 4 - got));
    uint32_t stored = trace_get_u32le(r->raw + 8 + blen);
    uint32_t crc = (uint32_t)crc32(0, r->raw, (uInt)blen + 8);
    if (stored != crc)
        return fail(r, err, LS_ERR_INPUT,
                    "byte offset 8: header CRC-32 mismatch (stored 0x%08x, computed 0x%08x): "
                    "corrupt file", stored, crc);
    const uint8_t *p = r->raw + 8;
    size_t n = blen, pos = 0, k;
    uint64_t v;
    struct trace_header *h = &r->h;
    h->version = version;
#define HGET(dst, max)                                                           \
    do {                                                                         \
        k = trace_get_varint(p + pos, n - pos, &v);                              \
        if (!k || v > (uint64_t)(max))                                           \
            goto bad;                                                            \
        pos += k;                                                                \
        (dst) = v;                                                               \
    } while (0)
    HGET(h->producer, TRACE_PROD_COUNT - 1);
    if (!(h->target = get_name(r, p, n, &pos)))
        goto bad;
    if (n - pos < 8)
        goto bad;
    h->target_hash = trace_get_u64le(p + pos);
    pos += 8;
    HGET(h->tick_hz, UINT64_MAX);
    if (h->tick_hz == 0)
        goto bad;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        HGET(h->clock_mhz[e], UINT32_MAX);
    HGET(h->nopcodes, TRACE_MAX_OPCODES);
#undef HGET
    const char **ops = ls_arena_alloc(&r->arena, sizeof *ops * (h->nopcodes + 1));
    if (!ops)
        return fail(r, err, LS_ERR_NOMEM, "out of memory reading the trace header");
    for (uint32_t i = 0; i < h->nopcodes; i++)
        if (!(ops[i] = get_name(r, p, n, &pos)))
            goto bad;
    h->opcodes = ops;
    if (n - pos >= 16) {   /* the program's model and problem hashes, when known */
        h->model_hash = trace_get_u64le(p + pos);
        h->problem_hash = trace_get_u64le(p + pos + 8);
        pos += 16;
    }
    /* Fields a later minor revision appends to the body are skipped. */
    return LS_OK;
bad:
    if (r->nomem)
        return fail(r, err, LS_ERR_NOMEM, "out of memory reading the trace header");
    return fail(r, err, LS_ERR_INPUT, "byte offset %llu: malformed header field",
                (unsigned long long)(16 + pos));
}

/* A cap from the environment variable name, def when unset. */
static int env_cap(const char *name, uint64_t def, uint64_t *cap, struct ls_error *err)
{
    const char *v = getenv(name);
    *cap = def;
    if (!v)
        return 0;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || *v == '-' || *v == '+' || *v == ' ')
        return ls_error_msg(err, LS_ERR_INPUT, "%s: expected a non-negative integer, got '%s'",
                            name, v);
    *cap = x;
    return 0;
}

int trace_reader_open(struct trace_reader **out, const char *path, struct ls_error *err)
{
    *out = NULL;
    struct trace_reader *r = calloc(1, sizeof *r);
    if (!r)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory opening %s", path);
    snprintf(r->path, sizeof r->path, "%s", path);
    ls_arena_init(&r->arena, 0);
    int rc = env_cap("LAYSIM_TRACE_MAX_RECORDS", TRACE_MAX_RECORDS, &r->max_records, err);
    if (rc || (rc = env_cap("LAYSIM_TRACE_MAX_INFLATION", TRACE_MAX_INFLATION,
                            &r->max_inflation, err))) {
        trace_reader_close(r);
        return rc;
    }
    if (strcmp(path, "-") == 0) {
        r->fp = stdin;
    } else {
        r->fp = fopen(path, "rb");
        r->own_fp = 1;
        if (!r->fp) {
            int rc = ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "cannot open: %s", strerror(errno));
            trace_reader_close(r);
            return rc;
        }
    }
    rc = read_header(r, err);
    if (rc) {
        trace_reader_close(r);
        return -rc;
    }
    r->state = 1;
    *out = r;
    return LS_OK;
}

const struct trace_header *trace_reader_header(const struct trace_reader *r)
{
    return &r->h;
}

const char *trace_reader_string(const struct trace_reader *r, int32_t id)
{
    return id >= 0 && (size_t)id < r->strings.len ? r->strings.data[id] : NULL;
}

uint32_t trace_reader_nstrings(const struct trace_reader *r)
{
    return (uint32_t)r->strings.len;
}

const char *trace_reader_opcode(const struct trace_reader *r, uint32_t opcode)
{
    return opcode < r->h.nopcodes ? r->h.opcodes[opcode] : "?";
}

uint64_t trace_reader_offset(const struct trace_reader *r)
{
    return r->off;
}

static int read_end(struct trace_reader *r, const uint8_t *f, struct ls_error *err)
{
    uint8_t tail[8];
    unsigned long long at = (unsigned long long)r->block_off;
    if (read_some(r, tail, 8) < 8)
        return fail(r, err, LS_ERR_INPUT, "end frame (byte offset %llu): truncated", at);
    uint32_t nblocks;
    uint64_t total;
    enum trace_block_status st = trace_block_check_end(f, tail, &nblocks, &total);
    if (st == TRACE_BLOCK_BAD_LENGTHS)
        return fail(r, err, LS_ERR_INPUT, "end frame (byte offset %llu): bad length", at);
    if (st != TRACE_BLOCK_OK)
        return fail(r, err, LS_ERR_INPUT, "end frame (byte offset %llu): CRC-32 mismatch", at);
    if (nblocks != r->nblocks || total != r->nrec)
        return fail(r, err, LS_ERR_INPUT,
                    "end frame (byte offset %llu): says %u blocks and %llu records, read %llu "
                    "and %llu (blocks missing)",
                    at, nblocks, (unsigned long long)total, (unsigned long long)r->nblocks,
                    (unsigned long long)r->nrec);
    if (fgetc(r->fp) != EOF)
        return fail(r, err, LS_ERR_INPUT, "byte offset %llu: trailing bytes after the end frame",
                    (unsigned long long)r->off);
    r->state = 0;
    return 0;
}

/* The caps of trace.h against the next block's frame, before it is inflated. */
static int check_caps(struct trace_reader *r, uint32_t nrec, uint32_t raw_len,
                      uint32_t comp_len, struct ls_error *err)
{
    unsigned long long bn = (unsigned long long)r->block, at = (unsigned long long)r->block_off;
    if (r->max_inflation && r->max_inflation < UINT32_MAX && raw_len >= TRACE_INFLATION_MIN_RAW &&
        raw_len > r->max_inflation * comp_len)
        return fail(r, err, LS_ERR_LIMIT,
                    "block %llu (byte offset %llu): %u compressed bytes inflate to %u, more "
                    "than %llu times (a zlib bomb?); LAYSIM_TRACE_MAX_INFLATION raises the cap",
                    bn, at, comp_len, raw_len, (unsigned long long)r->max_inflation);
    if (r->max_records && r->nrec + nrec > r->max_records)
        return fail(r, err, LS_ERR_LIMIT,
                    "block %llu (byte offset %llu): more than %llu records; "
                    "LAYSIM_TRACE_MAX_RECORDS raises the cap", bn, at,
                    (unsigned long long)r->max_records);
    return 0;
}

/* Read, check and inflate the next block; returns 1 with a block loaded, 0 at the end. */
static int next_block(struct trace_reader *r, struct ls_error *err)
{
    uint8_t f[TRACE_FRAME_LEN];
    r->block_off = r->off;
    r->block = r->nblocks;
    unsigned long long at = (unsigned long long)r->block_off, bn = (unsigned long long)r->block;
    size_t got = read_some(r, f, sizeof f);
    if (got == 0)
        return fail(r, err, LS_ERR_INPUT,
                    "byte offset %llu: truncated file: the end frame is missing after block %llu",
                    at, bn);
    if (got < sizeof f)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): truncated block header", bn, at);
    uint32_t nrec = trace_get_u32le(f);
    if (nrec == TRACE_END_MARK)
        return read_end(r, f, err);
    uint32_t raw_len, comp_len, crc;
    if (trace_block_lengths(f, &nrec, &raw_len, &comp_len) != TRACE_BLOCK_OK)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): implausible lengths (raw %u, compressed %u): "
                    "corrupt file", bn, at, raw_len, comp_len);
    if (grow(&r->comp, &r->comp_cap, comp_len))
        return fail(r, err, LS_ERR_NOMEM, "out of memory reading block %llu", bn);
    got = read_some(r, r->comp, comp_len);
    if (got < comp_len)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): truncated: %u compressed bytes expected, "
                    "file ends after %zu", bn, at, comp_len, got);
    /* the CRC first, so that a damaged frame is reported as such, not as a cap crossed */
    crc = (uint32_t)crc32(crc32(0, f, 12), r->comp, comp_len);
    if (crc != trace_get_u32le(f + 12))
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): CRC-32 mismatch (stored 0x%08x, computed "
                    "0x%08x): corrupt file", bn, at, trace_get_u32le(f + 12), crc);
    int rc = check_caps(r, nrec, raw_len, comp_len, err);
    if (rc)
        return rc;
    if (grow(&r->raw, &r->raw_cap, raw_len))
        return fail(r, err, LS_ERR_NOMEM, "out of memory reading block %llu", bn);
    if (trace_block_unpack(f, r->comp, r->raw, &crc) != TRACE_BLOCK_OK)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): does not decompress: corrupt file", bn, at);
    /* String definitions come first. */
    uint64_t nstr;
    size_t pos = trace_get_varint(r->raw, raw_len, &nstr);
    if (!pos || nstr > raw_len || r->strings.len + nstr > INT32_MAX)
        return fail(r, err, LS_ERR_INPUT, "block %llu (byte offset %llu): bad string count",
                    bn, at);
    for (uint64_t i = 0; i < nstr; i++) {
        const char *s = get_name(r, r->raw, raw_len, &pos);
        if (!s && r->nomem)
            return fail(r, err, LS_ERR_NOMEM, "out of memory reading block %llu", bn);
        if (!s)
            return fail(r, err, LS_ERR_INPUT,
                        "block %llu (byte offset %llu): malformed string definition %llu", bn,
                        at, (unsigned long long)i);
        if (LS_VEC_PUSH(&r->strings, s))
            return fail(r, err, LS_ERR_NOMEM, "out of memory reading block %llu", bn);
    }
    r->raw_len = raw_len;
    r->pos = pos;
    r->left = nrec;
    r->nblocks++;
    trace_codec_reset(&r->codec);
    if (nrec == 0 && pos != raw_len)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): %zu bytes left over after the records", bn,
                    at, raw_len - pos);
    return 1;
}

static const char *check_decoded(const struct trace_reader *r, const struct trace_record *t)
{
    if (t->stall_cause >= LS_STALL_COUNT)
        return "stall cause";
    if (t->dtype >= LS_DT_COUNT)
        return "dtype";
    if (t->src_mem >= LS_MEM_COUNT || t->dst_mem >= LS_MEM_COUNT)
        return "memory";
    if (t->opcode >= r->h.nopcodes)
        return "opcode";
    if (t->end < t->start)
        return "end time";
    if (t->op_id < TRACE_NO_ID || t->op_id >= (int64_t)r->strings.len)
        return "op string id";
    if (t->conv_id < TRACE_NO_ID || t->conv_id >= (int64_t)r->strings.len)
        return "conversion string id";
    return NULL;
}

int trace_reader_next(struct trace_reader *r, struct trace_record *rec, struct ls_error *err)
{
    while (r->state == 1 && r->left == 0) {
        int rc = next_block(r, err);
        if (rc <= 0)
            return rc;
    }
    if (r->state != 1) {
        if (r->state < 0 && err)
            *err = r->saved;
        return r->state;
    }
    unsigned long long bn = (unsigned long long)r->block, at = (unsigned long long)r->block_off;
    size_t k = trace_codec_decode(&r->codec, r->raw + r->pos, r->raw_len - r->pos, rec);
    if (!k)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): malformed record at payload offset %zu", bn,
                    at, r->pos);
    const char *bad = check_decoded(r, rec);
    if (bad)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): record at payload offset %zu has a bad %s",
                    bn, at, r->pos, bad);
    r->pos += k;
    r->left--;
    r->nrec++;
    if (r->left == 0 && r->pos != r->raw_len)
        return fail(r, err, LS_ERR_INPUT,
                    "block %llu (byte offset %llu): %zu bytes left over after the records", bn,
                    at, r->raw_len - r->pos);
    return 1;
}

void trace_reader_close(struct trace_reader *r)
{
    if (!r)
        return;
    if (r->own_fp && r->fp)
        fclose(r->fp);
    ls_arena_free(&r->arena);
    LS_VEC_FREE(&r->strings);
    free(r->comp);
    free(r->raw);
    free(r);
}
