/* sim/program_bin: the .lsprogz binary form (docs/formats.md, "Binary programs"): a 16-byte
 * header, then traces/block zlib blocks of varint-coded instructions, then an end frame.
 * Read straight into the program's arrays: no tokens, no labels, one hash per tag string. */
#include "sim/program.h"
#include "sim/program_int.h"
#include "sim/progz_int.h"
#include "sim/check_int.h"
#include "sim/target.h"

#include <stdlib.h>
#include <string.h>

#include "traces/block.h"
#include "traces/codec.h"

#define PROGZ_HEADER_LEN 16
#define PROGZ_TIE_MAX 4096   /* bytes of tie lines after the header (offset 12) */
#define PROGZ_BLOCK_TARGET (256u << 10)
#ifndef PROGZ_LEVEL
#define PROGZ_LEVEL 1
#endif
#define PROGZ_INSTR_MAX (16 + 5 * 3 + 3 * (3 + 4 * 10 + 2 * 10 * SIM_AP_MAX_DIMS))

/* ---- encoding ------------------------------------------------------------------------- */

/* Version 3 (written) names each instruction's kind (engine, opcode, func, flags, operand
 * shapes: sim/program_int.h) by a slot in a small table of the kinds its stream (engine, or
 * DMA queue) used last in the block, and stores only addresses, as differences from the
 * previous instruction that used the same slot: consecutive instructions of a stream differ
 * mostly in addresses, often alternating between two or three kinds (weight and
 * activation loads on one queue), which version 2's per-operand field masks coded as a new
 * shape every time. The reader takes the kind id from the slot: no shape decoding and no
 * hashing per instruction. Versions 1 and 2 are still read (program_bin_v12.c). The state
 * restarts at every block. */
void progz_streams_reset(struct progz_stream *st)
{
    memset(st, 0, PROGZ_STREAMS * sizeof *st);
    for (int s = 0; s < PROGZ_STREAMS; s++) {
        st[s].op_tag = st[s].conv_tag = -1;
        st[s].kind_id = UINT32_MAX;
    }
}

/* o as the format stores it: ndim 0 is the 1/1 pattern it means (as the text writer
 * writes it), dims past ndim are zero. */
static struct sim_operand normalized(const struct sim_operand *o)
{
    struct sim_operand n;
    memset(&n, 0, sizeof n);
    n.mem = o->mem;
    n.dtype = o->dtype;
    n.part_start = o->part_start;
    n.nparts = o->nparts;
    n.pstride = o->pstride;
    n.addr = o->addr;
    n.ndim = o->ndim ? o->ndim : 1;
    for (int d = 0; d < n.ndim; d++) {
        n.size[d] = o->ndim ? o->size[d] : 1;
        n.stride[d] = o->ndim ? o->stride[d] : 1;
    }
    return n;
}

/* A new kind's shapes (version 3): per present operand its normalized fields but the
 * address, as version 1 writes them. */
static uint8_t *put_shape(uint8_t *b, const struct sim_operand *o)
{
    struct sim_operand n = normalized(o);
    *b++ = (uint8_t)(n.mem | n.ndim << 2);
    *b++ = n.dtype;
    b += trace_put_varint(b, n.part_start);
    b += trace_put_varint(b, n.nparts);
    b += trace_put_varint(b, trace_zigzag(n.pstride));
    for (int d = 0; d < n.ndim; d++) {
        b += trace_put_varint(b, n.size[d]);
        b += trace_put_varint(b, trace_zigzag(n.stride[d]));
    }
    return b;
}

static unsigned tag_mode(int32_t tag, int32_t prev)
{
    return tag < 0 ? TAG_NONE : tag == prev ? TAG_SAME : TAG_ID;
}

/* Put kind id into the table's next slot (round robin; its addresses start at 0): the
 * writer and the reader both do this for every new kind, so their tables agree. */
static unsigned kind_define(struct kind_table *kt, uint32_t id, uint8_t present)
{
    unsigned j = kt->next;
    kt->next = (uint8_t)(j + 1 == KIND_SLOTS ? 0 : j + 1);
    if (kt->n < KIND_SLOTS)
        kt->n++;
    kt->id[j] = id;
    kt->present[j] = present;
    memset(kt->addr[j], 0, sizeof kt->addr[j]);
    return j;
}

/* The slot of kind id in the stream's table; *fresh = 1 when it was not there and has just
 * been given the next slot (the caller then writes the kind out). */
static unsigned kind_slot(struct kind_table *kt, uint32_t id, uint8_t present, int *fresh)
{
    *fresh = 0;
    for (unsigned j = 0; j < kt->n; j++)
        if (kt->id[j] == id)
            return j;
    *fresh = 1;
    return kind_define(kt, id, present);
}

static size_t put_instr(const struct sim_program *p, uint32_t idx, struct progz_stream *streams,
                        uint8_t *out)
{
    const struct sim_irec *r = &p->ins.data[idx];
    const struct sim_kind *k = sim_irec_kind(p, r);
    uint8_t sid = p->sid.data[idx];
    struct progz_stream *st = &streams[sid];
    unsigned m0 = tag_mode(r->op_tag, st->op_tag), m1 = tag_mode(r->conv_tag, st->conv_tag);
    uint8_t present = (uint8_t)((k->shape[0] != 0) | (k->shape[1] != 0) << 1 |
                                (k->shape[2] != 0) << 2);
    int fresh;
    unsigned j = kind_slot(&st->kt, r->kind, present, &fresh);
    uint8_t *b = out;
    *b++ = sid;
    *b++ = (uint8_t)((fresh ? KIND_NEW : j) | m0 << 4 | m1 << 6);
    uint32_t nd = sim_irec_ndeps(p, idx);
    b += trace_put_varint(b, nd);
    for (uint32_t d = 0; d < nd; d++) /* backwards distance: small, >= 1 */
        b += trace_put_varint(b, idx - p->deps.data[r->deps_off + d]);
    if (m0 == TAG_ID)
        b += trace_put_varint(b, (uint64_t)r->op_tag);
    if (m1 == TAG_ID)
        b += trace_put_varint(b, (uint64_t)r->conv_tag);
    st->op_tag = r->op_tag;
    st->conv_tag = r->conv_tag;
    if (fresh) {
        *b++ = (uint8_t)(k->engine | k->opcode << 3);
        *b++ = (uint8_t)(k->func | (k->flags & 3) << 4);
        *b++ = present;
        for (int o = 0; o < 3; o++)
            if (k->shape[o])
                b = put_shape(b, &p->shapes.data[k->shape[o] - 1]);
    }
    for (int o = 0; o < 3; o++)
        if (k->shape[o]) {
            b += trace_put_varint(b, trace_zigzag((int64_t)(r->addr[o] - st->kt.addr[j][o])));
            st->kt.addr[j][o] = r->addr[o];
        }
    return (size_t)(b - out);
}

struct bin_writer {
    FILE *f;
    z_stream zs;
    LS_VEC(uint8_t) strs, recs;
    uint8_t *comp;
    size_t comp_cap;
    uint32_t nstr_written, block_n, nblocks;
    struct progz_stream streams[PROGZ_STREAMS];
};

/* Queue the definitions of tag strings up to id (ids are dense, defined in order). */
static int define_strings(struct bin_writer *w, const struct ls_intern *t, int32_t id)
{
    for (; id >= 0 && w->nstr_written <= (uint32_t)id; w->nstr_written++) {
        size_t n = t->lens[w->nstr_written];
        if (LS_VEC_RESERVE(&w->strs, w->strs.len + n + 10))
            return -1;
        w->strs.len += trace_put_varint(w->strs.data + w->strs.len, n);
        memcpy(w->strs.data + w->strs.len, t->strs[w->nstr_written], n);
        w->strs.len += n;
    }
    return 0;
}

static int flush(struct bin_writer *w, uint32_t nstr_before)
{
    uint8_t prefix[10];
    size_t np = trace_put_varint(prefix, w->nstr_written - nstr_before);
    struct trace_block_part parts[3] = {
        {prefix, np}, {w->strs.data, w->strs.len}, {w->recs.data, w->recs.len}};
    size_t flen;
    if (trace_block_pack(&w->zs, w->block_n, parts, 3, &w->comp, &w->comp_cap, &flen))
        return -1;
    if (fwrite(w->comp, 1, flen, w->f) != flen)
        return -1;
    w->strs.len = w->recs.len = 0;
    w->block_n = 0;
    progz_streams_reset(w->streams);
    w->nblocks++;
    return 0;
}

static int write_blocks(const struct sim_program *p, struct bin_writer *w)
{
    uint32_t nstr_before = 0;
    for (size_t i = 0; i < p->ins.len; i++) {
        const struct sim_irec *in = &p->ins.data[i];
        int32_t top = in->op_tag > in->conv_tag ? in->op_tag : in->conv_tag;
        if (define_strings(w, &p->strs, top) ||
            LS_VEC_RESERVE(&w->recs, w->recs.len + PROGZ_INSTR_MAX + 5u * sim_irec_ndeps(p, i)))
            return -1;
        w->recs.len += put_instr(p, (uint32_t)i, w->streams, w->recs.data + w->recs.len);
        w->block_n++;
        if (w->recs.len + w->strs.len >= PROGZ_BLOCK_TARGET) {
            if (flush(w, nstr_before))
                return -1;
            nstr_before = w->nstr_written;
        }
    }
    if (w->block_n && flush(w, nstr_before))
        return -1;
    uint8_t end[TRACE_END_LEN];
    trace_block_end(end, w->nblocks, p->ins.len);
    return fwrite(end, 1, sizeof end, w->f) == sizeof end ? 0 : -1;
}

int sim_program_write_binary(const struct sim_program *p, FILE *f)
{
    uint8_t h[PROGZ_HEADER_LEN] = {0};
    char tie[SIM_TIE_NKEYS * (SIM_TIE_VALUE_MAX + 20)];
    size_t tl = sim_tie_format(&p->tie, "", tie, sizeof tie);
    memcpy(h, SIM_PROGZ_MAGIC, 8);
    trace_put_u32le(h + 8, SIM_PROGZ_VERSION);
    trace_put_u32le(h + 12, (uint32_t)tl);   /* 0 without a tie: the bytes of before */
    if (fwrite(h, 1, sizeof h, f) != sizeof h || fwrite(tie, 1, tl, f) != tl)
        return LS_ERR_IO;
    struct bin_writer *w = calloc(1, sizeof *w);
    if (!w)
        return LS_ERR_NOMEM;
    w->f = f;
    progz_streams_reset(w->streams);
    int rc = LS_ERR_NOMEM;
    if (deflateInit(&w->zs, PROGZ_LEVEL) == Z_OK) {
        rc = write_blocks(p, w) || ferror(f) ? LS_ERR_IO : 0;
        deflateEnd(&w->zs);
    }
    free(w->strs.data);
    free(w->recs.data);
    free(w->comp);
    free(w);
    return rc;
}

/* ---- decoding ------------------------------------------------------------------------- */

/* b0_ok[b0]: the first instruction byte names an engine and an opcode that runs on it. */
static void header_table(uint8_t b0_ok[256])
{
    for (unsigned b = 0; b < 256; b++)
        b0_ok[b] = (b & 7) < LS_ENGINE_COUNT && (b >> 3) < SIM_OP_COUNT &&
                   sim_opcode_on_engine((enum sim_opcode)(b >> 3), (enum ls_engine)(b & 7));
}

/* An operand written out in full: version 1's operands (with_addr) and version 3's shapes
 * of a new kind (no address). */
const char *progz_get_shape(struct rd *r, struct sim_operand *o, int with_addr)
{
    memset(o, 0, sizeof *o);
    uint8_t b = rd_byte(r);
    o->mem = b & 3;
    o->ndim = b >> 2;
    o->dtype = rd_byte(r);
    uint64_t ps = rd_u(r), np = rd_u(r);
    o->pstride = rd_i32(r);
    if (with_addr)
        o->addr = rd_u(r);
    const char *msg = progz_operand_ok(o, ps, np);
    if (msg)
        return msg;
    o->part_start = (uint32_t)ps;
    o->nparts = (uint32_t)np;
    for (int d = 0; d < o->ndim; d++) {
        uint64_t sz = rd_u(r);
        if (sz == 0 || sz > UINT32_MAX)
            return "operand: bad dim size";
        o->size[d] = (uint32_t)sz;
        o->stride[d] = rd_i32(r);
    }
    return NULL;
}

/* Version 3: a new kind of stream sid (first two bytes as version 2's instruction header,
 * then the operands present and their shapes) into the stream's next table slot *j. */
static const char *get_kind_v3(struct rd *r, struct sim_program *p, uint8_t sid,
                               struct kind_table *kt, const uint8_t b0_ok[256], unsigned *j)
{
    uint8_t b0 = rd_byte(r), b1 = rd_byte(r), present = rd_byte(r);
    enum ls_engine e = (enum ls_engine)(b0 & 7);
    if (!b0_ok[b0])
        return "bad engine or opcode";
    if (e == LS_ENGINE_DMA ? sid < SIM_STREAM_DMA0 : sid != (uint8_t)e)
        return "the kind's engine is not its stream's";
    if ((b1 & 15) >= SIM_FN_COUNT || (b1 & 0xc0) || present > 7)
        return "bad function or operand mask";
    struct sim_kind kind = {{0, 0, 0}, (uint8_t)e, (uint8_t)(b0 >> 3), b1 & 15, (b1 >> 4) & 3,
                            (uint8_t)(e == LS_ENGINE_DMA ? sid - SIM_STREAM_DMA0 : 0)};
    for (int k = 0; k < 3; k++) {
        struct sim_operand o;
        if (!(present >> k & 1))
            continue;
        const char *msg = progz_get_shape(r, &o, 0);
        if (msg)
            return msg;
        if (!(kind.shape[k] = sim_program_shape_id(p, sid, k, &o)))
            return "out of memory";
    }
    uint32_t id = sim_program_kind_id(p, &kind);
    if (id == UINT32_MAX)
        return "out of memory";
    *j = kind_define(kt, id, present);
    return NULL;
}

/* The most bytes a version 3 instruction with at most ROOM_DEPS dependencies and no new
 * kind takes: stream and slot bytes, then up to 3 + ROOM_DEPS + 2 varints. */
#define ROOM_DEPS 4
#define ROOM_BYTES (2 + 10 * (3 + ROOM_DEPS + 2))

/* Version 3's instruction idx: stream, kind slot and tag modes, dependencies, tag ids, a
 * new kind when the slot says so, then one address difference per operand of the kind.
 * room: at least ROOM_BYTES are left in the block, so that the varints of an instruction
 * with at most ROOM_DEPS dependencies and no new kind (nearly all) need no end checks. */
static inline __attribute__((always_inline)) const char *
get_instr_v3_in(struct rd *r, uint32_t idx, struct sim_program *p, struct progz_stream *streams,
                const uint8_t b0_ok[256], int room)
{
    uint8_t sid = room ? *r->p++ : rd_byte(r), h = room ? *r->p++ : rd_byte(r);
    uint64_t nd = rd_u_in(r, room);
    if (sid >= PROGZ_STREAMS || nd > UINT16_MAX)
        return "bad stream or dependency count";
    struct progz_stream *st = &streams[sid];
    struct kind_table *kt = &st->kt;
    unsigned j = h & 15;
    if (room && (nd > ROOM_DEPS || j == KIND_NEW))
        room = 0; /* not within ROOM_BYTES: checked reads from here on */
    const char *msg = room ? progz_get_deps_in(r, idx, nd, p, 1) : progz_get_deps(r, idx, nd, p);
    if (!msg)
        msg = progz_get_tag(r, h >> 4 & 3u, &st->op_tag, p);
    if (!msg)
        msg = progz_get_tag(r, h >> 6, &st->conv_tag, p);
    if (!msg && j == KIND_NEW)
        msg = get_kind_v3(r, p, sid, kt, b0_ok, &j);
    if (msg)
        return msg;
    if (j >= kt->n)
        return "kind slot not defined in this block";
    struct sim_irec *rec = &p->ins.data[idx];
    uint8_t present = kt->present[j];
    uint64_t *last = kt->addr[j];
    /* written out per operand: the loop kept its counter and reloaded present each turn */
    rec->addr[0] = present & 1 ? last[0] += (uint64_t)trace_unzigzag(rd_u_in(r, room)) : 0;
    rec->addr[1] = present & 2 ? last[1] += (uint64_t)trace_unzigzag(rd_u_in(r, room)) : 0;
    rec->addr[2] = present & 4 ? last[2] += (uint64_t)trace_unzigzag(rd_u_in(r, room)) : 0;
    if (r->bad)
        return "truncated or malformed instruction";
    rec->kind = kt->id[j];
    progz_commit(p, rec, st, sid, idx, nd);
    return NULL;
}

static const char *get_instr_v3(struct rd *r, uint32_t idx, struct sim_program *p,
                                struct progz_stream *streams, const uint8_t b0_ok[256])
{
    if (__builtin_expect(r->end - r->p >= ROOM_BYTES, 1))
        return get_instr_v3_in(r, idx, p, streams, b0_ok, 1);
    return get_instr_v3_in(r, idx, p, streams, b0_ok, 0);
}

/* A tag as the text format can carry it: no blanks, no '#', no control bytes. */
static int tag_ok(const uint8_t *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (s[i] <= ' ' || s[i] == '#' || s[i] == 0x7f)
            return 0;
    return n > 0;
}

static const char *get_strings(struct rd *r, struct sim_program *p)
{
    uint64_t n = rd_u(r);
    for (uint64_t i = 0; i < n && !r->bad; i++) {
        uint64_t len = rd_u(r);
        if (r->bad || len > (uint64_t)(r->end - r->p) || !tag_ok(r->p, len))
            return "malformed tag string";
        size_t before = p->strs.count;
        if (ls_intern_add(&p->strs, (const char *)r->p, len) < 0)
            return "out of memory";
        if (p->strs.count == before)
            return "tag string defined twice";
        r->p += len;
    }
    return r->bad ? "malformed string count" : NULL;
}

struct bin_reader {
    const char *file;
    const uint8_t *data;
    size_t len, off;
    uint8_t *raw;
    size_t raw_cap;
    uint32_t nblocks;
    int version;
    uint8_t b0_ok[256]; /* header_table */
    struct trace_inflater *inf;
    struct sim_checker *chk; /* NULL: no checking, or a check failed */
    struct progz_stream streams[PROGZ_STREAMS];
};

static int bad(const struct bin_reader *b, struct ls_error *err, size_t off, const char *what)
{
    return ls_error_set(err, LS_ERR_INPUT, b->file, 0, 0, "byte offset %zu: %s", off, what);
}

/* Decode one block's strings and instructions into p. */
static int get_block(struct bin_reader *b, struct sim_program *p, uint32_t count, uint32_t raw_len,
                     struct ls_error *err)
{
    struct rd r = {b->raw, b->raw + raw_len, 0};
    const char *msg = get_strings(&r, p);
    if (msg)
        return bad(b, err, b->off, msg);
    progz_streams_reset(b->streams);
    /* An instruction takes at least 3 bytes (version 3: stream, slot, dependency count). */
    if (count > raw_len / 3)
        return bad(b, err, b->off, "block announces more instructions than its payload holds");
    if (p->ins.len + count >= UINT32_MAX - 1)
        return ls_error_set(err, LS_ERR_LIMIT, b->file, 0, 0, "too many instructions");
    if (LS_VEC_RESERVE(&p->ins, p->ins.len + count) || LS_VEC_RESERVE(&p->sid, p->ins.len + count))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    /* Locals, not b's fields: the byte stores into the program may alias b, which made the
     * loop reload them for every instruction. */
    const int v3 = b->version == 3;
    struct sim_checker *chk = b->chk;
    const size_t first = p->ins.len; /* each instruction read adds one */
    for (uint32_t k = 0; k < count; k++) {
        size_t idx = first + k, at = (size_t)(r.p - b->raw);
        msg = v3 ? get_instr_v3(&r, (uint32_t)idx, p, b->streams, b->b0_ok)
                 : progz_get_instr_v12(&r, b->version, (uint32_t)idx, p, b->streams, b->b0_ok);
        if (msg) {
            char m[200];
            snprintf(m, sizeof m, "block %u, instruction %zu (payload offset %zu): %s",
                     b->nblocks, idx, at, msg);
            return bad(b, err, b->off, m);
        }
        if (chk) { /* a failure leaves the error to sim_run's own check */
            struct ls_error ignored;
            if (sim_checker_step(chk, p, &ignored))
                chk = NULL;
        }
    }
    b->chk = chk;
    if (r.p != r.end)
        return bad(b, err, b->off, "bytes left over after the block's instructions");
    return 0;
}

/* Frames from b->off on until the end frame. */
static int get_blocks(struct bin_reader *b, struct sim_program *p, struct ls_error *err)
{
    for (;;) {
        const uint8_t *f = b->data + b->off;
        if (b->len - b->off < TRACE_FRAME_LEN)
            return bad(b, err, b->off, "truncated file: block frame or end frame missing");
        uint32_t count, raw_len, comp_len, crc, nbl;
        uint64_t total;
        if (trace_get_u32le(f) == TRACE_END_MARK) {
            if (b->len - b->off < TRACE_END_LEN)
                return bad(b, err, b->off, "truncated end frame");
            if (trace_block_check_end(f, f + TRACE_FRAME_LEN, &nbl, &total) != TRACE_BLOCK_OK)
                return bad(b, err, b->off, "corrupt end frame (length or CRC-32)");
            if (nbl != b->nblocks || total != p->ins.len)
                return bad(b, err, b->off, "end frame disagrees: blocks missing");
            if (b->off + TRACE_END_LEN != b->len)
                return bad(b, err, b->off + TRACE_END_LEN, "trailing bytes after the end frame");
            return 0;
        }
        if (trace_block_lengths(f, &count, &raw_len, &comp_len) != TRACE_BLOCK_OK)
            return bad(b, err, b->off, "implausible block lengths: corrupt file");
        if (comp_len > b->len - b->off - TRACE_FRAME_LEN)
            return bad(b, err, b->off, "truncated block");
        if (LS_ARRAY_RESERVE(b->raw, b->raw_cap, raw_len))
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        enum trace_block_status st = trace_block_inflate(b->inf, f, f + TRACE_FRAME_LEN, b->raw, &crc);
        if (st != TRACE_BLOCK_OK)
            return bad(b, err, b->off, st == TRACE_BLOCK_BAD_CRC ? "block CRC-32 mismatch: corrupt file"
                                                                 : "block does not decompress");
        int rc = get_block(b, p, count, raw_len, err);
        if (rc)
            return rc;
        b->nblocks++;
        b->off += TRACE_FRAME_LEN + comp_len;
    }
}

int sim_program_is_binary(const void *data, size_t len)
{
    return len >= 8 && !memcmp(data, SIM_PROGZ_MAGIC, 8);
}

/* Room for the instructions the end frame announces, so that the arrays never move; capped
 * by the file size so that a corrupt count cannot reserve much. Dependencies get four per
 * instruction: only the pages written are ever backed, and qwen-vl's 2.1 per instruction
 * overflowed two (a reallocation copying them all, a quarter of the page faults). */
static int reserve(struct sim_program *p, const uint8_t *data, size_t len)
{
    if (len < PROGZ_HEADER_LEN + TRACE_END_LEN)
        return 0;
    const uint8_t *e = data + len - TRACE_END_LEN;
    uint64_t total = trace_get_u32le(e) == TRACE_END_MARK ? trace_get_u64le(e + 16) : 0;
    if (total > 8 * (uint64_t)len)
        total = 8 * (uint64_t)len;
    return SIM_VEC_RESERVE_HUGE(&p->ins, total) || SIM_VEC_RESERVE_HUGE(&p->sid, total) ||
                   SIM_VEC_RESERVE_HUGE(&p->deps, 4 * total)
               ? -1
               : 0;
}

/* The tie block after the header (offset 12: its length, 0 = none): `key: value` lines of
 * printable bytes; b->off moves past it. */
static int read_tie(struct bin_reader *b, struct sim_program *p, struct ls_error *err)
{
    size_t n = trace_get_u32le(b->data + 12);
    const char *s = (const char *)b->data + PROGZ_HEADER_LEN;
    for (size_t i = 0; i < n; i++)
        if (s[i] != '\n' && ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f))
            return bad(b, err, PROGZ_HEADER_LEN + i, "tie block: a byte that is not text");
    sim_tie_scan(&p->tie, s, n, 0);
    b->off += n;
    return 0;
}

int sim_program_parse_binary(struct sim_program **out, const char *file, const void *data,
                             size_t len, struct ls_error *err)
{
    return sim_program_parse_binary_with(out, file, data, len, NULL, err);
}

int sim_program_parse_binary_with(struct sim_program **out, const char *file, const void *data,
                                  size_t len, struct sim_checker *chk, struct ls_error *err)
{
    *out = NULL;
    struct sim_program *p = sim_program_new();
    if (!p || !(p->file = strdup(file ? file : "")) || reserve(p, data, len)) {
        sim_program_free(p);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    struct bin_reader b = {
        .file = p->file, .data = data, .len = len, .off = PROGZ_HEADER_LEN, .chk = chk};
    int rc = 0;
    if (!sim_program_is_binary(data, len))
        rc = bad(&b, err, 0, "not a binary laysim program (magic LSPROGZ)");
    else if (len < PROGZ_HEADER_LEN)
        rc = bad(&b, err, len, "truncated header");
    else if ((b.version = (int)trace_get_u32le(b.data + 8)) < 1 || b.version > SIM_PROGZ_VERSION)
        rc = bad(&b, err, 8, "unsupported binary program version (this laysim reads 1 to 3)");
    else if (trace_get_u32le(b.data + 12) > PROGZ_TIE_MAX ||
             trace_get_u32le(b.data + 12) > len - PROGZ_HEADER_LEN)
        rc = bad(&b, err, 12, "tie length past the file or over 4096 bytes");
    else if ((rc = read_tie(&b, p, err)))
        ;
    else if (header_table(b.b0_ok), !(b.inf = trace_inflater_new()))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    else {
        rc = get_blocks(&b, p, err);
        trace_inflater_free(b.inf);
    }
    free(b.raw);
    if (rc) {
        sim_program_free(p);
        return rc;
    }
    if (b.chk)
        sim_checker_passed(b.chk, p);
    *out = p;
    return 0;
}
