/* sim/program_bin_v12: decoding .lsprogz versions 1 and 2 (docs/formats.md, "Binary
 * programs"), which laysim wrote before version 3 and still reads. */
#include "sim/progz_int.h"

/* Version 1: every field written out. */
static const char *get_operand_v1(struct rd *r, struct sim_operand *o)
{
    return progz_get_shape(r, o, 1);
}

/* Version 2: the fields of *mask, over the stream's previous operand in the slot, *o, which
 * is updated in place (copying it whole after narrow stores stalled on store forwarding).
 * fresh: the slot has no checked operand yet (a block's first), so the mask must define it. */
#define F_SHAPE (F_KIND | F_PSTART | F_NPARTS | F_PSTRIDE | F_DIMS)
static const char *get_operand_v2(struct rd *r, struct sim_operand *o, int fresh, uint8_t *mask_out)
{
    uint8_t mask = *mask_out = rd_byte(r);
    if (!(mask & (F_SHAPE | ~F_ALL)) && !fresh) { /* most: the slot's shape, a new address */
        if (mask & F_ADDR)
            o->addr += (uint64_t)trace_unzigzag(rd_u(r));
        return NULL;
    }
    if (mask & ~F_ALL)
        return "operand: bad field mask";
    if (mask & F_KIND) {
        uint8_t b = rd_byte(r);
        o->mem = b & 3;
        o->ndim = b >> 2;
        o->dtype = rd_byte(r);
    }
    uint64_t ps = mask & F_PSTART ? rd_u(r) : o->part_start;
    uint64_t np = mask & F_NPARTS ? rd_u(r) : o->nparts;
    if (mask & F_PSTRIDE)
        o->pstride = rd_i32(r);
    if (mask & F_ADDR)
        o->addr += (uint64_t)trace_unzigzag(rd_u(r));
    const char *msg = progz_operand_ok(o, ps, np);
    if (msg)
        return msg;
    o->part_start = (uint32_t)ps;
    o->nparts = (uint32_t)np;
    if (!(mask & (F_DIMS | F_KIND)))
        return NULL; /* the pattern is the slot's previous one, already checked */
    for (int d = 0; d < SIM_AP_MAX_DIMS; d++) {
        if (d >= o->ndim) {
            o->size[d] = 0;
            o->stride[d] = 0;
        } else if (mask & F_DIMS) {
            uint64_t sz = rd_u(r);
            o->size[d] = sz > UINT32_MAX ? 0 : (uint32_t)sz;
            o->stride[d] = rd_i32(r);
        }
        if (d < o->ndim && o->size[d] == 0)
            return "operand: bad dim size";
    }
    return NULL;
}

/* The tags: version 1 flags them in b1, version 2 gives a mode for each in the operand
 * byte (none, the stream's previous, an id). */
static const char *get_tags(struct rd *r, int version, uint8_t b1, uint8_t ops,
                            struct progz_stream *st, const struct sim_program *p, int32_t tags[2])
{
    uint64_t t[2] = {UINT64_MAX, UINT64_MAX};
    int32_t same[2] = {st->op_tag, st->conv_tag};
    for (int k = 0; k < 2; k++) {
        unsigned mode = version == 1 ? (b1 >> (6 + k) & 1 ? TAG_ID : TAG_NONE)
                                     : (ops >> (3 + 2 * k) & 3u);
        if (mode == TAG_SAME)
            t[k] = same[k] < 0 ? UINT64_MAX : (uint64_t)same[k];
        else if (mode == TAG_ID)
            t[k] = rd_u(r);
        else if (mode != TAG_NONE)
            return "bad tag mode";
        if (t[k] != UINT64_MAX && t[k] >= p->strs.count)
            return "tag names no string defined so far";
    }
    tags[0] = st->op_tag = t[0] == UINT64_MAX ? -1 : (int32_t)t[0];
    tags[1] = st->conv_tag = t[1] == UINT64_MAX ? -1 : (int32_t)t[1];
    return NULL;
}

/* Operand k of an instruction of stream sid: its shape id into kind (interned only when the
 * fields that make the shape changed: most operands move only their address), its address
 * into rec. */
static const char *get_operand(struct rd *r, int version, struct sim_program *p, uint8_t sid,
                               int k, struct progz_stream *st, struct sim_irec *rec,
                               struct sim_kind *kind)
{
    struct sim_operand v1, *o = version == 1 ? &v1 : &st->op[k];
    uint8_t mask = F_SHAPE;
    const char *msg = version == 1 ? get_operand_v1(r, o) : get_operand_v2(r, o, !st->shape[k], &mask);
    if (msg)
        return msg;
    if ((mask & F_SHAPE) || !st->shape[k]) {
        if (!(st->shape[k] = sim_program_shape_id(p, sid, k, o)))
            return "out of memory";
    }
    kind->shape[k] = st->shape[k];
    rec->addr[k] = o->addr;
    return NULL;
}

/* Operand k of a version 2 instruction: most only move the address of their stream slot's
 * operand (no shape fields in the mask), which needs no checks and no shape lookup. */
static inline const char *get_operand_fast(struct rd *r, struct sim_program *p, uint8_t sid,
                                           int k, struct progz_stream *st, struct sim_irec *rec,
                                           struct sim_kind *kind)
{
    if (st->shape[k] && r->p < r->end && !(*r->p & (F_SHAPE | ~F_ALL))) {
        if (*r->p++ & F_ADDR)
            st->op[k].addr += (uint64_t)trace_unzigzag(rd_u(r));
        kind->shape[k] = st->shape[k];
        rec->addr[k] = st->op[k].addr;
        return NULL;
    }
    return get_operand(r, 2, p, sid, k, st, rec, kind);
}

static inline int same_kind(const struct sim_kind *a, const struct sim_kind *b)
{
    return a->shape[0] == b->shape[0] && a->shape[1] == b->shape[1] &&
           a->shape[2] == b->shape[2] && a->engine == b->engine && a->opcode == b->opcode &&
           a->func == b->func && a->flags == b->flags && a->queue == b->queue;
}

/* The id of kind k of an instruction of stream st: most repeat the stream's last one. */
static inline uint32_t kind_of(struct sim_program *p, struct progz_stream *st,
                               const struct sim_kind *k)
{
    if (st->kind_id != UINT32_MAX && same_kind(&st->kind, k))
        return st->kind_id;
    st->kind = *k;
    return st->kind_id = sim_program_kind_id(p, k);
}

/* Decode instruction idx straight into its record (room reserved by the caller) and its
 * dependencies into p->deps; the program grows by it only when it is whole. */
const char *progz_get_instr_v12(struct rd *r, int version, uint32_t idx, struct sim_program *p,
                                struct progz_stream *streams, const uint8_t b0_ok[256])
{
    uint8_t b0 = rd_byte(r), b1 = rd_byte(r), ops = rd_byte(r);
    enum ls_engine e = (enum ls_engine)(b0 & 7);
    enum sim_opcode op = (enum sim_opcode)(b0 >> 3);
    if (!b0_ok[b0])
        return "bad engine or opcode";
    if ((b1 & 15) >= SIM_FN_COUNT || (version == 1 ? ops > 7 : (b1 & 0xc0) || (ops & 0x80)))
        return "bad function or operand mask";
    uint64_t q = e == LS_ENGINE_DMA ? rd_u(r) : 0, nd = rd_u(r);
    if (q >= SIM_MAX_QUEUES || nd > UINT16_MAX)
        return "bad queue or dependency count";
    const char *msg = progz_get_deps(r, idx, nd, p);
    if (msg)
        return msg;
    uint8_t sid = (uint8_t)(e == LS_ENGINE_DMA ? SIM_STREAM_DMA0 + q : (uint64_t)e);
    struct progz_stream *st = &streams[sid];
    struct sim_irec *rec = &p->ins.data[idx];
    struct sim_kind kind = {{0, 0, 0}, (uint8_t)e, (uint8_t)op, b1 & 15, (b1 >> 4) & 3, (uint8_t)q};
    if (version == 1) {
        int32_t tags[2];
        msg = get_tags(r, version, b1, ops, st, p, tags);
        for (int k = 0; k < 3 && !msg; k++) {
            rec->addr[k] = 0;
            if (ops >> k & 1)
                msg = get_operand(r, version, p, sid, k, st, rec, &kind);
        }
    } else {
        msg = progz_get_tag(r, ops >> 3 & 3u, &st->op_tag, p);
        if (!msg)
            msg = progz_get_tag(r, ops >> 5 & 3u, &st->conv_tag, p);
        for (int k = 0; k < 3 && !msg; k++) {
            rec->addr[k] = 0;
            if (ops >> k & 1)
                msg = get_operand_fast(r, p, sid, k, st, rec, &kind);
        }
    }
    if (msg)
        return msg;
    if (r->bad)
        return "truncated or malformed instruction";
    if ((rec->kind = kind_of(p, st, &kind)) == UINT32_MAX)
        return "out of memory";
    progz_commit(p, rec, st, sid, idx, nd);
    return NULL;
}

