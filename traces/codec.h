/* traces/codec (internal to traces/): varints and the delta encoding of records inside
 * one block. Shared by the writer and the reader; docs/formats.md describes the bytes. */
#ifndef LS_TRACES_CODEC_H
#define LS_TRACES_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "traces/block.h"
#include "traces/record.h"

#define TRACE_MAGIC "LSTRACE\x1a"
#define TRACE_MAGIC_LEN 8
#define TRACE_BLOCK_TARGET (128u << 10)  /* the writer flushes a block at this raw size */
#define TRACE_HEADER_MAX (16u << 20)
#define TRACE_REC_MAX 160                /* upper bound of one encoded record */
/* zlib level of the writer: 1 writes ~40% faster than 6 for ~12% more bytes (bench/traces.sh). */
#define TRACE_ZLIB_LEVEL 1

/* Delta state: the previous record of each slot (one per compute engine, DMA by queue). */
#define TRACE_DMA_SLOTS 64
#define TRACE_SLOTS (LS_ENGINE_COUNT + TRACE_DMA_SLOTS)

struct trace_codec {
    struct trace_record prev[TRACE_SLOTS];
    uint64_t prev_id;
};

/* Field-changed bits of a record head (head = engine | mask << 3). */
enum {
    TRACE_F_DUR = 1 << 0,
    TRACE_F_OPCODE = 1 << 1,
    TRACE_F_STALL = 1 << 2,
    TRACE_F_OPID = 1 << 3,
    TRACE_F_ID = 1 << 4,
    TRACE_F_FREE = 1 << 5,
    TRACE_F_PART = 1 << 6,
    TRACE_F_DTM = 1 << 7,
    TRACE_F_BPP = 1 << 8,
    TRACE_F_CHUNK = 1 << 9,
    TRACE_F_DESC = 1 << 10,
    TRACE_F_STAT = 1 << 11,
    TRACE_F_CONV = 1 << 12,
    TRACE_F_QUEUE = 1 << 13,
    TRACE_F_ALL = (1 << 14) - 1
};

void trace_codec_reset(struct trace_codec *c);

/* Encode r (already validated) at out (room for TRACE_REC_MAX bytes); returns its length. */
size_t trace_codec_encode(struct trace_codec *c, const struct trace_record *r, uint8_t *out);
/* Decode one record from p[0..n); returns bytes used, or 0 when malformed. Enum ranges are
 * not checked here. */
size_t trace_codec_decode(struct trace_codec *c, const uint8_t *p, size_t n,
                          struct trace_record *r);

/* LEB128 varints. put returns bytes written (≤ 10); get returns bytes read or 0. */
size_t trace_put_varint(uint8_t *out, uint64_t v);
size_t trace_get_varint(const uint8_t *p, size_t n, uint64_t *v);

static inline uint64_t trace_zigzag(int64_t v)
{
    return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}
static inline int64_t trace_unzigzag(uint64_t v)
{
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static inline void trace_put_u32le(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8), p[2] = (uint8_t)(v >> 16), p[3] = (uint8_t)(v >> 24);
}
static inline uint32_t trace_get_u32le(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline void trace_put_u64le(uint8_t *p, uint64_t v)
{
    trace_put_u32le(p, (uint32_t)v);
    trace_put_u32le(p + 4, (uint32_t)(v >> 32));
}
static inline uint64_t trace_get_u64le(const uint8_t *p)
{
    return (uint64_t)trace_get_u32le(p) | (uint64_t)trace_get_u32le(p + 4) << 32;
}

#endif
