#include "traces/codec.h"

#include <string.h>

size_t trace_put_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

size_t trace_get_varint(const uint8_t *p, size_t n, uint64_t *v)
{
    uint64_t x = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        uint64_t b = p[i];
        if (i == 9 && b > 1)
            return 0; /* more than 64 bits */
        x |= (b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *v = x;
            return i + 1;
        }
    }
    return 0;
}

void trace_codec_reset(struct trace_codec *c)
{
    struct trace_record base;
    memset(&base, 0, sizeof base);
    base.queue = TRACE_NO_QUEUE;
    base.op_id = TRACE_NO_ID;
    base.conv_id = TRACE_NO_ID;
    for (size_t i = 0; i < TRACE_SLOTS; i++)
        c->prev[i] = base;
    c->prev_id = UINT64_MAX; /* so that id 0 counts as "the next id" */
}

static size_t slot_of(unsigned engine, unsigned queue)
{
    return engine == LS_ENGINE_DMA ? LS_ENGINE_COUNT + queue % TRACE_DMA_SLOTS : engine;
}

size_t trace_codec_encode(struct trace_codec *c, const struct trace_record *r, uint8_t *out)
{
    int dma = r->engine == LS_ENGINE_DMA;
    struct trace_record *p = &c->prev[slot_of(r->engine, r->queue)];
    unsigned mask = 0;
    if (r->end - r->start != p->end - p->start)
        mask |= TRACE_F_DUR;
    if (r->opcode != p->opcode)
        mask |= TRACE_F_OPCODE;
    if (r->stall != p->stall || r->stall_cause != p->stall_cause)
        mask |= TRACE_F_STALL;
    if (r->op_id != p->op_id)
        mask |= TRACE_F_OPID;
    if (r->id != c->prev_id + 1)
        mask |= TRACE_F_ID;
    if (r->free_size != p->free_size)
        mask |= TRACE_F_FREE;
    if (r->partitions != p->partitions)
        mask |= TRACE_F_PART;
    if (r->dtype != p->dtype || r->src_mem != p->src_mem || r->dst_mem != p->dst_mem)
        mask |= TRACE_F_DTM;
    if (r->bytes_per_partition != p->bytes_per_partition)
        mask |= TRACE_F_BPP;
    if (r->chunk_bytes != p->chunk_bytes)
        mask |= TRACE_F_CHUNK;
    if (r->descriptors != p->descriptors)
        mask |= TRACE_F_DESC;
    if (r->stationary != p->stationary)
        mask |= TRACE_F_STAT;
    if (r->conv_id != p->conv_id)
        mask |= TRACE_F_CONV;
    if (!dma && r->queue != p->queue)
        mask |= TRACE_F_QUEUE;

    size_t n = trace_put_varint(out, (uint64_t)r->engine | (uint64_t)mask << 3);
    if (dma)
        n += trace_put_varint(out + n, r->queue);
    n += trace_put_varint(out + n, trace_zigzag((int64_t)(r->start - p->end)));
    if (mask & TRACE_F_DUR)
        n += trace_put_varint(out + n, r->end - r->start);
    if (mask & TRACE_F_OPCODE)
        n += trace_put_varint(out + n, r->opcode);
    if (mask & TRACE_F_STALL) {
        n += trace_put_varint(out + n, r->stall);
        out[n++] = r->stall_cause;
    }
    if (mask & TRACE_F_OPID)
        n += trace_put_varint(out + n, trace_zigzag(r->op_id));
    if (mask & TRACE_F_ID)
        n += trace_put_varint(out + n, trace_zigzag((int64_t)(r->id - c->prev_id - 1)));
    if (mask & TRACE_F_FREE)
        n += trace_put_varint(out + n, r->free_size);
    if (mask & TRACE_F_PART)
        n += trace_put_varint(out + n, r->partitions);
    if (mask & TRACE_F_DTM) {
        out[n++] = r->dtype;
        out[n++] = (uint8_t)(r->src_mem << 4 | (r->dst_mem & 15));
    }
    if (mask & TRACE_F_BPP)
        n += trace_put_varint(out + n, r->bytes_per_partition);
    if (mask & TRACE_F_CHUNK)
        n += trace_put_varint(out + n, r->chunk_bytes);
    if (mask & TRACE_F_DESC)
        n += trace_put_varint(out + n, r->descriptors);
    if (mask & TRACE_F_STAT)
        n += trace_put_varint(out + n, r->stationary);
    if (mask & TRACE_F_CONV)
        n += trace_put_varint(out + n, trace_zigzag(r->conv_id));
    if (mask & TRACE_F_QUEUE)
        n += trace_put_varint(out + n, r->queue);
    *p = *r;
    c->prev_id = r->id;
    return n;
}

/* Read a varint into *v, failing the decode when it does not fit in max. */
#define GET(v, max)                                          \
    do {                                                     \
        size_t k_ = trace_get_varint(p + n, len - n, &x);    \
        if (!k_ || x > (uint64_t)(max))                      \
            return 0;                                        \
        n += k_;                                             \
        (v) = x;                                             \
    } while (0)

size_t trace_codec_decode(struct trace_codec *c, const uint8_t *p, size_t len,
                          struct trace_record *r)
{
    size_t n = 0;
    uint64_t x, head, queue = TRACE_NO_QUEUE, gap;
    GET(head, (uint64_t)TRACE_F_ALL << 3 | 7);
    unsigned engine = head & 7, mask = (unsigned)(head >> 3);
    if (engine >= LS_ENGINE_COUNT)
        return 0;
    int dma = engine == LS_ENGINE_DMA;
    if (dma) {
        GET(queue, UINT16_MAX);
        if (mask & TRACE_F_QUEUE)
            return 0;
    }
    struct trace_record *prev = &c->prev[slot_of(engine, (unsigned)queue)];
    struct trace_record o = *prev;
    o.engine = (uint8_t)engine;
    if (dma)
        o.queue = (uint16_t)queue;
    GET(gap, UINT64_MAX);
    o.start = prev->end + (uint64_t)trace_unzigzag(gap);
    uint64_t dur = prev->end - prev->start;
    if (mask & TRACE_F_DUR)
        GET(dur, UINT64_MAX);
    o.end = o.start + dur;
    if (mask & TRACE_F_OPCODE)
        GET(o.opcode, UINT32_MAX);
    if (mask & TRACE_F_STALL) {
        GET(o.stall, UINT64_MAX);
        if (n >= len)
            return 0;
        o.stall_cause = p[n++];
    }
    if (mask & TRACE_F_OPID) {
        GET(x, UINT32_MAX);
        o.op_id = (int32_t)trace_unzigzag(x);
    }
    o.id = c->prev_id + 1;
    if (mask & TRACE_F_ID) {
        GET(x, UINT64_MAX);
        o.id += (uint64_t)trace_unzigzag(x);
    }
    if (mask & TRACE_F_FREE)
        GET(o.free_size, UINT64_MAX);
    if (mask & TRACE_F_PART)
        GET(o.partitions, UINT32_MAX);
    if (mask & TRACE_F_DTM) {
        if (len - n < 2)
            return 0;
        o.dtype = p[n];
        o.src_mem = p[n + 1] >> 4;
        o.dst_mem = p[n + 1] & 15;
        n += 2;
    }
    if (mask & TRACE_F_BPP)
        GET(o.bytes_per_partition, UINT64_MAX);
    if (mask & TRACE_F_CHUNK)
        GET(o.chunk_bytes, UINT64_MAX);
    if (mask & TRACE_F_DESC)
        GET(o.descriptors, UINT32_MAX);
    if (mask & TRACE_F_STAT)
        GET(o.stationary, UINT32_MAX);
    if (mask & TRACE_F_CONV) {
        GET(x, UINT32_MAX);
        o.conv_id = (int32_t)trace_unzigzag(x);
    }
    if (mask & TRACE_F_QUEUE)
        GET(o.queue, UINT16_MAX);
    *prev = o;
    c->prev_id = o.id;
    *r = o;
    return n;
}
