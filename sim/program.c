/* sim/program: the in-memory program and its builder API. */
#include "sim/program.h"
#include "sim/program_int.h"
#include "sim/target.h"

#include <stdlib.h>
#include <string.h>

struct sim_program *sim_program_new(void)
{
    struct sim_program *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    ls_intern_init(&p->strs);
    ls_intern_init(&p->label_names);
    return p;
}

/* Everything of p but its instruction, dependency and stream arrays. */
static void free_tables(struct sim_program *p)
{
    LS_VEC_FREE(&p->shapes);
    free(p->shape_slots);
    LS_VEC_FREE(&p->kinds);
    free(p->kind_slots);
    LS_VEC_FREE(&p->lines);
    LS_VEC_FREE(&p->labels);
    LS_VEC_FREE(&p->label_index);
    ls_intern_free(&p->strs);
    ls_intern_free(&p->label_names);
    free(p->file);
}

void sim_program_free(struct sim_program *p)
{
    if (!p)
        return;
    LS_VEC_FREE(&p->ins);
    LS_VEC_FREE(&p->deps);
    LS_VEC_FREE(&p->sid);
    free_tables(p);
    free(p);
}

void sim_program_clear(struct sim_program *p)
{
    struct sim_program keep = {.ins = p->ins, .deps = p->deps, .sid = p->sid};
    free_tables(p);
    memset(p, 0, sizeof *p);
    ls_intern_init(&p->strs);
    ls_intern_init(&p->label_names);
    p->ins = keep.ins;
    p->deps = keep.deps;
    p->sid = keep.sid;
    p->ins.len = p->deps.len = p->sid.len = 0;
}

/* ---- operand shapes ------------------------------------------------------------------ */

/* 1 when o has shape s. Field by field: comparing o's bytes with a shape copy just built
 * field by field stalled on store forwarding (a third of loading). */
static inline int has_shape(const struct sim_operand *s, const struct sim_operand *o)
{
    if (s->mem != o->mem || s->dtype != o->dtype || s->ndim != o->ndim ||
        s->part_start != o->part_start || s->nparts != o->nparts || s->pstride != o->pstride)
        return 0;
    for (int d = 0; d < o->ndim && d < SIM_AP_MAX_DIMS; d++)
        if (s->size[d] != o->size[d] || s->stride[d] != o->stride[d])
            return 0;
    return 1;
}

/* Hash of o's shape (its fields but the address), from the fields themselves. */
static inline uint64_t shape_hash(const struct sim_operand *o)
{
    uint64_t h = (uint64_t)o->mem | (uint64_t)o->dtype << 8 | (uint64_t)o->ndim << 16 |
                 (uint64_t)o->part_start << 32;
    h = (h ^ ((uint64_t)o->nparts << 32 | (uint32_t)o->pstride)) * 0xff51afd7ed558ccdull;
    for (int d = 0; d < o->ndim && d < SIM_AP_MAX_DIMS; d++)
        h = (h ^ ((uint64_t)o->size[d] << 32 | (uint32_t)o->stride[d])) * 0xc4ceb9fe1a85ec53ull;
    return h ^ h >> 29;
}

/* The open-addressing slots (id + 1, 0 = empty) of n entries in a table of twice the
 * capacity *cap (256 at first), hashed by hash(p, id); the old slots freed. */
static int slots_grow(const struct sim_program *p, size_t n,
                      uint64_t (*hash)(const struct sim_program *, size_t), uint32_t **slots,
                      size_t *cap)
{
    size_t c = *cap ? 2 * *cap : 256;
    uint32_t *sl = calloc(c, sizeof *sl);
    if (!sl)
        return -1;
    for (size_t id = 0; id < n; id++) {
        size_t k = hash(p, id) & (c - 1);
        while (sl[k])
            k = (k + 1) & (c - 1);
        sl[k] = (uint32_t)id + 1;
    }
    free(*slots);
    *slots = sl;
    *cap = c;
    return 0;
}

static uint64_t shape_hash_at(const struct sim_program *p, size_t id)
{
    return shape_hash(&p->shapes.data[id]);
}

/* Id + 1 of o's shape, added when new (address and unused dims 0); 0 out of memory. */
static uint32_t shape_intern(struct sim_program *p, const struct sim_operand *o)
{
    if (2 * (p->shapes.len + 1) > p->shape_cap &&
        slots_grow(p, p->shapes.len, shape_hash_at, &p->shape_slots, &p->shape_cap))
        return 0;
    size_t k = shape_hash(o) & (p->shape_cap - 1);
    for (; p->shape_slots[k]; k = (k + 1) & (p->shape_cap - 1))
        if (has_shape(&p->shapes.data[p->shape_slots[k] - 1], o))
            return p->shape_slots[k];
    if (p->shapes.len >= UINT32_MAX - 1 || LS_VEC_RESERVE(&p->shapes, p->shapes.len + 1))
        return 0;
    struct sim_operand *s = &p->shapes.data[p->shapes.len++];
    memset(s, 0, sizeof *s);
    s->mem = o->mem;
    s->dtype = o->dtype;
    s->ndim = o->ndim;
    s->part_start = o->part_start;
    s->nparts = o->nparts;
    s->pstride = o->pstride;
    for (int d = 0; d < o->ndim && d < SIM_AP_MAX_DIMS; d++) {
        s->size[d] = o->size[d];
        s->stride[d] = o->stride[d];
    }
    return p->shape_slots[k] = (uint32_t)p->shapes.len;
}

/* Shape id + 1 of operand o in slot k of stream sid: one of the slot's last two shapes when
 * it is one of them (consecutive instructions of a stream mostly differ in addresses, or
 * alternate between two patterns, as loads of weights and of activations on one queue),
 * else interned. */
static inline uint32_t shape_of(struct sim_program *p, uint8_t sid, int k,
                                const struct sim_operand *o)
{
    uint32_t *last = p->last_shape[sid][k];
    if (last[0] && has_shape(&p->shapes.data[last[0] - 1], o))
        return last[0];
    uint32_t id = last[1] && has_shape(&p->shapes.data[last[1] - 1], o) ? last[1]
                                                                           : shape_intern(p, o);
    if (id) {
        last[1] = last[0];
        last[0] = id;
    }
    return id;
}

uint32_t sim_program_shape_id(struct sim_program *p, uint8_t sid, int k,
                              const struct sim_operand *o)
{
    return shape_of(p, sid, k, o);
}

int sim_program_push(struct sim_program *p, const struct sim_instr *in)
{
    const struct sim_operand *const ops[3] = {&in->dst, &in->src, &in->src2};
    return sim_program_push_ops(p, in, ops);
}

/* ---- kinds ----------------------------------------------------------------------------- */

static inline int same_kind(const struct sim_kind *a, const struct sim_kind *b)
{
    return a->shape[0] == b->shape[0] && a->shape[1] == b->shape[1] &&
           a->shape[2] == b->shape[2] && a->engine == b->engine && a->opcode == b->opcode &&
           a->func == b->func && a->flags == b->flags && a->queue == b->queue;
}

static inline uint64_t kind_hash(const struct sim_kind *k)
{
    uint64_t h = ((uint64_t)k->shape[0] << 32 | k->shape[1]) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)k->shape[2] << 32 | (uint64_t)k->engine << 24 | (uint64_t)k->opcode << 16 |
          (uint64_t)k->func << 8 | k->flags) * 0xc2b2ae3d27d4eb4full;
    h ^= (uint64_t)k->queue * 0x165667b19e3779f9ull;
    return h ^ h >> 31;
}

static uint64_t kind_hash_at(const struct sim_program *p, size_t id)
{
    return kind_hash(&p->kinds.data[id]);
}

static uint32_t kind_intern(struct sim_program *p, const struct sim_kind *k)
{
    if (2 * (p->kinds.len + 1) > p->kind_cap &&
        slots_grow(p, p->kinds.len, kind_hash_at, &p->kind_slots, &p->kind_cap))
        return UINT32_MAX;
    size_t h = kind_hash(k) & (p->kind_cap - 1);
    for (; p->kind_slots[h]; h = (h + 1) & (p->kind_cap - 1))
        if (same_kind(&p->kinds.data[p->kind_slots[h] - 1], k))
            return p->kind_slots[h] - 1;
    if (p->kinds.len >= UINT32_MAX - 1 || LS_VEC_RESERVE(&p->kinds, p->kinds.len + 1))
        return UINT32_MAX;
    p->kinds.data[p->kinds.len] = *k;
    p->kind_slots[h] = (uint32_t)++p->kinds.len;
    return (uint32_t)p->kinds.len - 1;
}

uint32_t sim_program_kind_id(struct sim_program *p, const struct sim_kind *k)
{
    uint8_t sid = (uint8_t)(k->engine == LS_ENGINE_DMA ? SIM_STREAM_DMA0 + k->queue : k->engine);
    uint32_t *last = p->last_kind[sid];
    if (last[0] && same_kind(&p->kinds.data[last[0] - 1], k))
        return last[0] - 1;
    uint32_t id = last[1] && same_kind(&p->kinds.data[last[1] - 1], k) ? last[1] - 1
                                                                        : kind_intern(p, k);
    if (id != UINT32_MAX) {
        last[1] = last[0];
        last[0] = id + 1;
    }
    return id;
}

int sim_program_push_ops(struct sim_program *p, const struct sim_instr *in,
                         const struct sim_operand *const ops[3])
{
    if (p->ins.len >= p->ins.cap && LS_VEC_RESERVE(&p->ins, p->ins.len + 1))
        return -1;
    if (p->ins.len >= p->sid.cap && LS_VEC_RESERVE(&p->sid, p->ins.len + 1))
        return -1;
    struct sim_irec *r = &p->ins.data[p->ins.len];
    uint8_t sid = (uint8_t)(in->engine == LS_ENGINE_DMA ? SIM_STREAM_DMA0 + in->queue : in->engine);
    struct sim_kind k;
    memset(&k, 0, sizeof k);
    for (int j = 0; j < 3; j++) {
        r->addr[j] = 0;
        if (!ops[j] || ops[j]->mem == LS_MEM_NONE)
            continue;
        if (!(k.shape[j] = shape_of(p, sid, j, ops[j])))
            return -1;
        r->addr[j] = ops[j]->addr;
    }
    k.engine = in->engine;
    k.opcode = in->opcode;
    k.func = in->func;
    k.flags = in->flags;
    k.queue = (uint8_t)in->queue;
    if ((r->kind = sim_program_kind_id(p, &k)) == UINT32_MAX)
        return -1;
    r->op_tag = in->op_tag;
    r->conv_tag = in->conv_tag;
    r->deps_off = in->deps_off; /* in->ndeps: implied by the next record's deps_off */
    p->sid.data[p->ins.len++] = sid;
    p->sid.len = p->ins.len;
    p->stream_n[sid]++;
    return 0;
}

/* ---- building -------------------------------------------------------------------------- */

int64_t sim_program_add(struct sim_program *p, const struct sim_instr *in, const uint32_t *deps,
                        size_t ndeps, struct ls_error *err)
{
    struct sim_instr c = *in;
    return sim_program_add_in_place(p, &c, deps, ndeps, err);
}

int64_t sim_program_add_in_place(struct sim_program *p, struct sim_instr *in,
                                 const uint32_t *deps, size_t ndeps, struct ls_error *err)
{
    size_t idx = p->ins.len;
    if (idx >= UINT32_MAX - 1)
        return ls_error_msg(err, LS_ERR_LIMIT, "program has too many instructions"), -1;
    if (ndeps > UINT16_MAX)
        return ls_error_msg(err, LS_ERR_INPUT, "instruction %zu: more than %u dependencies", idx,
                            UINT16_MAX), -1;
    for (size_t i = 0; i < ndeps; i++)
        if (deps[i] >= idx)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "instruction %zu: dependency %u is not an earlier instruction",
                                idx, deps[i]), -1;
    if (in->engine >= LS_ENGINE_COUNT || in->queue >= SIM_MAX_QUEUES)
        return ls_error_msg(err, LS_ERR_INPUT, "instruction %zu: bad engine or DMA queue", idx), -1;
    if (p->deps.len + ndeps > UINT32_MAX)
        return ls_error_msg(err, LS_ERR_LIMIT, "program has too many dependencies"), -1;
    if (p->deps.len + ndeps > p->deps.cap && LS_VEC_RESERVE(&p->deps, p->deps.len + ndeps))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
    in->ndeps = (uint16_t)ndeps;
    in->deps_off = (uint32_t)p->deps.len;
    if (ndeps)
        memcpy(p->deps.data + p->deps.len, deps, ndeps * sizeof *deps);
    if (sim_program_push(p, in))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
    p->deps.len += ndeps;
    return (int64_t)idx;
}

int32_t sim_program_tag(struct sim_program *p, const char *name)
{
    return ls_intern_add(&p->strs, name, strlen(name));
}

int sim_label_add(struct sim_program *p, uint32_t idx, const char *s, size_t n)
{
    if (idx >= p->labels.cap && LS_VEC_RESERVE(&p->labels, (size_t)idx + 1))
        return -1;
    while (p->labels.len <= idx)
        p->labels.data[p->labels.len++] = -1;
    if (p->labels.data[idx] != -1)
        return 1;
    int64_t k = sim_label_number(s, n);
    if (k == idx && !p->numbered_interned) {
        p->labels.data[idx] = SIM_LABEL_NUMBERED;
        return 0;
    }
    if (sim_label_numbered_at(p, k) >= 0)
        return 1;
    size_t before = p->label_names.count;
    int32_t id = ls_intern_add(&p->label_names, s, n);
    if (id < 0 || LS_VEC_RESERVE(&p->label_index, p->label_names.count))
        return -1;
    if (p->label_names.count == before)
        return 1;
    p->label_index.data[p->label_index.len++] = idx;
    p->labels.data[idx] = id;
    p->numbered_interned += k >= 0;
    return 0;
}

int64_t sim_label_find(const struct sim_program *p, const char *s, size_t n)
{
    int64_t k = sim_label_number(s, n);
    if (sim_label_numbered_at(p, k) >= 0)
        return k;
    int32_t id = ls_intern_find(&p->label_names, s, n);
    return id < 0 ? -1 : (int64_t)p->label_index.data[id];
}

int sim_program_label(struct sim_program *p, uint32_t index, const char *label,
                      struct ls_error *err)
{
    if (index >= p->ins.len)
        return ls_error_msg(err, LS_ERR_INPUT, "label '%s': no instruction %u", label, index);
    int rc = sim_label_add(p, index, label, strlen(label));
    if (rc < 0)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (rc)
        return ls_error_msg(err, LS_ERR_INPUT, "label '%s' is defined twice", label);
    return 0;
}

size_t sim_program_count(const struct sim_program *p)
{
    return p->ins.len;
}

const struct sim_instr *sim_program_get(const struct sim_program *p, size_t i,
                                        struct sim_instr *buf)
{
    sim_irec_get(p, i, buf);
    return buf;
}

enum ls_engine sim_program_engine(const struct sim_program *p, size_t i)
{
    return (enum ls_engine)sim_irec_kind(p, &p->ins.data[i])->engine;
}

const uint32_t *sim_program_deps(const struct sim_program *p, size_t i, size_t *ndeps)
{
    *ndeps = sim_irec_ndeps(p, i);
    return p->deps.data ? p->deps.data + p->ins.data[i].deps_off : NULL;
}

const struct ls_intern *sim_program_strings(const struct sim_program *p)
{
    return &p->strs;
}

const char *sim_program_file(const struct sim_program *p)
{
    return p->file;
}

int sim_program_line(const struct sim_program *p, size_t i)
{
    return i < p->lines.len ? p->lines.data[i] : 0;
}

const char *sim_program_label_of(const struct sim_program *p, size_t i)
{
    if (i >= p->labels.len || p->labels.data[i] < 0)
        return NULL;
    return ls_intern_str(&p->label_names, p->labels.data[i]);
}

const char *sim_program_where(const struct sim_program *p, size_t i, char *buf, size_t n)
{
    const struct sim_kind *in = sim_irec_kind(p, &p->ins.data[i]);
    char num[24];
    const char *label = sim_program_label_of(p, i);
    if (i < p->labels.len && p->labels.data[i] == SIM_LABEL_NUMBERED)
        snprintf(num, sizeof num, "i%zu", i), label = num;
    snprintf(buf, n, "instruction %zu%s%s%s (%s %s)", i, label ? " '" : "", label ? label : "",
             label ? "'" : "", ls_engine_name((enum ls_engine)in->engine),
             sim_opcode_name((enum sim_opcode)in->opcode));
    return buf;
}
