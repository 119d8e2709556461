/* sim/progz_int: what the .lsprogz encoder and the decoders of its versions share
 * (program_bin.c: the format, version 3; program_bin_v12.c: versions 1 and 2). Not public. */
#ifndef LS_SIM_PROGZ_INT_H
#define LS_SIM_PROGZ_INT_H

#include <stdint.h>
#include <string.h>

#include "sim/program_int.h"
#include "traces/codec.h"

#define PROGZ_STREAMS (SIM_STREAM_DMA0 + SIM_MAX_QUEUES)
#define KIND_SLOTS 15  /* per stream; slot byte value 15 = a new kind follows */
#define KIND_NEW 15

/* A stream's kind table (version 3): slots 0..n-1 defined, the next new kind goes to slot
 * next (round robin). */
struct kind_table {
    uint32_t id[KIND_SLOTS];       /* the program's kind id */
    uint64_t addr[KIND_SLOTS][3];  /* the addresses the slot's last instruction had */
    uint8_t present[KIND_SLOTS];   /* operands present: bit 0 dst, 1 src, 2 src2 */
    uint8_t n, next;
};

enum { TAG_NONE, TAG_SAME, TAG_ID };
enum {
    F_KIND = 1 << 0,   /* byte mem | ndim << 2, byte dtype */
    F_PSTART = 1 << 1, /* varint first partition */
    F_NPARTS = 1 << 2, /* varint partitions */
    F_PSTRIDE = 1 << 3, /* varint zigzag row stride */
    F_ADDR = 1 << 4,   /* varint zigzag(address - previous address), modulo 2^64 */
    F_DIMS = 1 << 5,   /* per dim varint size, varint zigzag stride */
    F_ALL = (1 << 6) - 1
};

/* What a stream's previous instructions left: the operand last seen in each slot and the
 * tags of the last instruction. */
struct progz_stream {
    struct sim_operand op[3];
    uint32_t shape[3]; /* reader: the program's shape id + 1 of op[k], 0 = none yet */
    int32_t op_tag, conv_tag;
    struct sim_kind kind; /* reader: the kind of the stream's last instruction, */
    uint32_t kind_id;     /* its id, UINT32_MAX = none yet */
    struct kind_table kt; /* version 3 */
};

void progz_streams_reset(struct progz_stream *st);

/* ---- reading -------------------------------------------------------------------------- */

struct rd {
    const uint8_t *p, *end;
    int bad;
};

/* LEB128 as trace_get_varint reads it, inline: this loop is most of the decoding time.
 * room: the caller knows that at least 10 bytes (the longest varint) are left, so no read
 * is compared with the end (a constant where it is inlined). */
static inline __attribute__((always_inline)) uint64_t rd_u_in(struct rd *r, int room)
{
    /* most values take one or two bytes */
    if (room || __builtin_expect(r->end - r->p >= 2, 1)) {
        uint64_t b0 = r->p[0], b1 = r->p[1];
        if (b0 < 0x80)
            return r->p++, b0;
        if (b1 < 0x80)
            return r->p += 2, (b0 & 0x7f) | b1 << 7;
    }
    uint64_t v = 0;
    for (int shift = 0; (room || r->p < r->end) && shift < 64; shift += 7) {
        uint64_t b = *r->p++;
        v |= (b & 0x7f) << shift;
        if (!(b & 0x80))
            return shift == 63 && b > 1 ? (r->bad = 1, 0) : v;
    }
    r->bad = 1;
    return 0;
}

static inline uint64_t rd_u(struct rd *r)
{
    return rd_u_in(r, 0);
}

static inline uint8_t rd_byte(struct rd *r)
{
    if (r->p < r->end)
        return *r->p++;
    r->bad = 1;
    return 0;
}

/* A signed value that must fit the text format's range, -INT32_MAX..INT32_MAX. */
static inline int32_t rd_i32(struct rd *r)
{
    int64_t v = trace_unzigzag(rd_u(r));
    r->bad |= v > INT32_MAX || v < -INT32_MAX;
    return (int32_t)v;
}

/* The same operands the text parser accepts; NULL or what is wrong. ps and np are the
 * partition fields as read, before narrowing. */
static inline const char *progz_operand_ok(const struct sim_operand *o, uint64_t ps, uint64_t np)
{
    if (o->mem == LS_MEM_NONE || o->ndim < 1 || o->ndim > SIM_AP_MAX_DIMS)
        return "operand: bad memory or dim count";
    if (o->dtype >= LS_DT_COUNT)
        return "operand: bad dtype";
    if (np == 0 || np > UINT32_MAX || ps > UINT32_MAX - np ||
        (o->mem == LS_MEM_HBM ? ps != 0 : o->pstride != 0))
        return "operand: bad partitions";
    return NULL;
}

/* Version 2's tag of one kind: mode as get_tags reads it, the stream's last in *tag. */
static inline const char *progz_get_tag(struct rd *r, unsigned mode, int32_t *tag,
                                     const struct sim_program *p)
{
    if (mode == TAG_SAME)
        return NULL;
    if (mode == TAG_NONE) {
        *tag = -1;
        return NULL;
    }
    if (mode != TAG_ID)
        return "bad tag mode";
    uint64_t t = rd_u(r);
    if (t >= p->strs.count)
        return "tag names no string defined so far";
    *tag = (int32_t)t;
    return NULL;
}

/* Instruction idx's nd dependencies (backward distances) into p->deps past its end (the
 * caller counts them in when the instruction is whole); room as rd_u_in's, for all of them. */
static inline __attribute__((always_inline)) const char *
progz_get_deps_in(struct rd *r, uint32_t idx, uint64_t nd, struct sim_program *p, int room)
{
    if (p->deps.len + nd > UINT32_MAX ||
        (p->deps.len + nd > p->deps.cap && LS_VEC_RESERVE(&p->deps, p->deps.len + nd)))
        return "out of memory or too many dependencies";
    /* no pointer arithmetic on an empty vector's NULL data (UB even when nd is 0) */
    uint32_t *deps = nd ? p->deps.data + p->deps.len : NULL;
    for (uint64_t d = 0; d < nd; d++) {
        uint64_t dist = rd_u_in(r, room);
        if (dist == 0 || dist > idx)
            return "dependency on no earlier instruction";
        deps[d] = idx - (uint32_t)dist;
    }
    return NULL;
}

static inline const char *progz_get_deps(struct rd *r, uint32_t idx, uint64_t nd, struct sim_program *p)
{
    return progz_get_deps_in(r, idx, nd, p, 0);
}

/* An operand written out in full (version 1, with_addr) or a version 3 shape (no address);
 * NULL or what is wrong (program_bin.c). */
const char *progz_get_shape(struct rd *r, struct sim_operand *o, int with_addr);

/* Instruction idx of stream sid, decoded into rec with its nd dependencies past the
 * program's end (progz_get_deps), counted in: the last step of every version's reader. */
static inline void progz_commit(struct sim_program *p, struct sim_irec *rec,
                                const struct progz_stream *st, uint8_t sid, uint32_t idx,
                                uint64_t nd)
{
    rec->op_tag = st->op_tag;
    rec->conv_tag = st->conv_tag;
    rec->deps_off = (uint32_t)p->deps.len;
    p->sid.data[idx] = sid;
    p->stream_n[sid]++;
    p->deps.len += nd;
    p->ins.len = p->sid.len = (size_t)idx + 1;
}

/* Versions 1 and 2: instruction idx (program_bin_v12.c). */
const char *progz_get_instr_v12(struct rd *r, int version, uint32_t idx, struct sim_program *p,
                                struct progz_stream *streams, const uint8_t b0_ok[256]);

#endif
