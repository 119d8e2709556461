/* sim/sim_check: static checks of a program against a target, before any timing. */
#include "sim/sim.h"
#include "sim/program_int.h"
#include "sim/sim_int.h"
#include "sim/check_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const struct sim_program *p, size_t i, struct ls_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int fail(const struct sim_program *p, size_t i, struct ls_error *err, const char *fmt, ...)
{
    char where[200], msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sim_program_where(p, i, where, sizeof where);
    int line = sim_program_line(p, i);
    /* a binary program has a file but no lines: name the file all the same */
    return ls_error_set(err, LS_ERR_INPUT, p->file && *p->file ? p->file : NULL, line,
                        line ? 1 : 0, "%s: %s", where, msg);
}

#define SIM_MAX_FREE (1ull << 32) /* elements per partition in one operand */

static const char *slot_name(int k)
{
    return k == 0 ? "dst" : k == 1 ? "src" : "src2";
}

/* Which operand slots an opcode needs (bit 0 dst, 1 src, 2 src2). */
static unsigned needed(enum sim_opcode op)
{
    switch (op) {
    case SIM_OP_LOAD_STATIONARY: return 2;
    case SIM_OP_TENSOR_TENSOR:
    case SIM_OP_GATHER: return 7;
    case SIM_OP_MEMSET:
    case SIM_OP_IOTA: return 1;
    default: return 3;
    }
}

/* Compute-engine start partition rule (hw-facts: A1 access-pattern limits). */
static int start_ok(uint32_t p0, uint32_t np)
{
    if (np > 64)
        return p0 == 0;
    if (np > 32)
        return p0 == 0 || p0 == 64;
    return p0 % 32 == 0;
}

static int check_operand(const struct sim_target *t, const struct sim_program *p, size_t i,
                         const struct sim_instr *in, int k, const struct sim_operand *o,
                         struct ls_error *err)
{
    const char *sn = slot_name(k);
    enum ls_engine e = (enum ls_engine)in->engine;
    if (o->nparts == 0)
        return fail(p, i, err, "%s: no partitions", sn);
    if (o->dtype >= LS_DT_COUNT)
        return fail(p, i, err, "%s: bad dtype", sn);
    for (int d = 0; d < o->ndim; d++)
        if (o->size[d] == 0)
            return fail(p, i, err, "%s: dim %d has size 0", sn, d);
    if (o->ndim > SIM_AP_MAX_DIMS)
        return fail(p, i, err, "%s: more than %d free dims", sn, SIM_AP_MAX_DIMS);
    uint64_t free = 1;
    for (int d = 0; d < o->ndim; d++)
        if (__builtin_mul_overflow(free, (uint64_t)o->size[d], &free) || free > SIM_MAX_FREE)
            return fail(p, i, err, "%s: more than %llu elements per partition", sn,
                        (unsigned long long)SIM_MAX_FREE);
    uint64_t lo, hi;
    if (sim_operand_extent(o, &lo, &hi))
        return fail(p, i, err, "%s: the access pattern reaches outside the address space", sn);
    switch (o->mem) {
    case LS_MEM_SBUF:
        if (e == LS_ENGINE_PE && k == 0)
            return fail(p, i, err, "dst: the PE array writes PSUM, not SBUF");
        if ((uint64_t)o->part_start + o->nparts > t->sbuf_partitions)
            return fail(p, i, err, "%s: partitions [%u:%llu] exceed sbuf.partitions (%u)", sn,
                        o->part_start, (unsigned long long)o->part_start + o->nparts,
                        t->sbuf_partitions);
        if (hi > t->sbuf_usable_bytes)
            return fail(p, i, err,
                        "%s: SBUF overflow: bytes [%llu, %llu) per partition exceed the usable "
                        "%llu (sbuf.usable_bytes)",
                        sn, (unsigned long long)lo, (unsigned long long)hi,
                        (unsigned long long)t->sbuf_usable_bytes);
        break;
    case LS_MEM_PSUM: {
        if (e == LS_ENGINE_POOL || e == LS_ENGINE_DMA)
            return fail(p, i, err, "%s: engine %s cannot access PSUM", sn, ls_engine_name(e));
        if (e == LS_ENGINE_PE && k != 0)
            return fail(p, i, err, "%s: the PE array reads SBUF, not PSUM", sn);
        if ((uint64_t)o->part_start + o->nparts > t->sbuf_partitions)
            return fail(p, i, err, "%s: partitions [%u:%llu] exceed the %u PSUM partitions", sn,
                        o->part_start, (unsigned long long)o->part_start + o->nparts,
                        t->sbuf_partitions);
        uint64_t cap = (uint64_t)t->psum_banks * t->psum_bank_bytes;
        if (hi > cap)
            return fail(p, i, err,
                        "%s: PSUM overflow: bytes [%llu, %llu) per partition exceed the %llu bytes "
                        "of PSUM (%u banks x %u)",
                        sn, (unsigned long long)lo, (unsigned long long)hi,
                        (unsigned long long)cap, t->psum_banks, t->psum_bank_bytes);
        if (e == LS_ENGINE_PE && lo / t->psum_bank_bytes != (hi - 1) / t->psum_bank_bytes)
            return fail(p, i, err,
                        "dst: PSUM overflow: the output, bytes [%llu, %llu) per partition, does "
                        "not fit in one %u-byte PSUM bank",
                        (unsigned long long)lo, (unsigned long long)hi, t->psum_bank_bytes);
        /* An engine reads or writes one PSUM bank per access; an operand that crosses a
         * bank boundary would need two (the hardware has no such access pattern). */
        if (lo / t->psum_bank_bytes != (hi - 1) / t->psum_bank_bytes)
            return fail(p, i, err,
                        "%s: bytes [%llu, %llu) per partition span more than one %u-byte PSUM "
                        "bank (psum.bank_bytes)",
                        sn, (unsigned long long)lo, (unsigned long long)hi, t->psum_bank_bytes);
        break;
    }
    case LS_MEM_HBM:
        if (e != LS_ENGINE_DMA)
            return fail(p, i, err, "%s: only DMA reaches HBM", sn);
        break;
    default:
        return fail(p, i, err, "%s: bad memory", sn);
    }
    if (e != LS_ENGINE_DMA && o->mem != LS_MEM_HBM && !start_ok(o->part_start, o->nparts))
        return fail(p, i, err,
                    "%s: %u partitions cannot start at partition %u (compute engines start at 0 "
                    "for >64 partitions, 0/64 for 33-64, a multiple of 32 for <=32)",
                    sn, o->nparts, o->part_start);
    return 0;
}

/* The address range of memo_bounds_ok for an operand of extents [rel_lo, rel_hi) around its
 * address in memory mem: where the extents stay in [0, 2^64), and for SBUF within
 * sbuf.usable_bytes, for PSUM within its capacity and one bank. */
static void memo_range(const struct sim_target *t, struct check_memo *m, int k, uint8_t mem,
                       __int128 rel_lo, __int128 rel_hi)
{
    const uint64_t bank = t->psum_bank_bytes;
    __int128 lo = rel_lo < 0 ? -rel_lo : 0, hi = (__int128)UINT64_MAX - rel_hi, cap = hi;
    if (mem == LS_MEM_SBUF)
        cap = (__int128)t->sbuf_usable_bytes - rel_hi;
    if (mem == LS_MEM_PSUM)
        cap = (__int128)t->psum_banks * bank - rel_hi;
    if (cap < hi)
        hi = cap;
    m->span[k] = 0;
    m->pofs[k] = (uint64_t)rel_lo;
    int never = hi < lo;
    if (mem == LS_MEM_PSUM) {
        __int128 span = rel_hi - rel_lo;
        never |= !bank || span < 1 || span > (__int128)bank;
        m->span[k] = never ? 0 : (uint64_t)span;
    }
    m->amin[k] = never ? 1 : (uint64_t)lo;
    m->amax[k] = never ? 0 : (uint64_t)hi;
}

static void memo_fill(const struct sim_target *t, struct check_memo *m,
                      const struct sim_kind *kind, const struct sim_instr *in,
                      const struct sim_check_state *before, const struct sim_check_state *after)
{
    const struct sim_operand *ops[3] = {&in->dst, &in->src, &in->src2};
    for (int k = 0; k < 3; k++) {
        m->mem[k] = ops[k]->mem;
        __int128 rel_lo = 0, rel_hi = 0;
        if (kind->shape[k])
            sim_operand_extent_rel(ops[k], &rel_lo, &rel_hi);
        memo_range(t, m, k, ops[k]->mem, rel_lo, rel_hi);
    }
    m->opcode = kind->opcode;
    m->before = *before;
    m->after = *after;
    m->valid = 1;
}

struct sim_checker *sim_checker_new(const struct sim_target *t)
{
    struct sim_checker *c = calloc(1, sizeof *c);
    if (c)
        c->t = t;
    return c;
}

void sim_checker_free(struct sim_checker *c)
{
    if (c)
        free(c->memo);
    free(c);
}

/* The memo of kind id, the table grown (zeroed: not valid) to reach it; NULL out of memory. */
static struct check_memo *memo_of(struct sim_checker *c, uint32_t id)
{
    if (id >= c->memo_cap) {
        size_t cap = c->memo_cap ? c->memo_cap : 64;
        while (cap <= id)
            cap *= 2;
        struct check_memo *m = realloc(c->memo, cap * sizeof *m);
        if (!m)
            return NULL;
        memset(m + c->memo_cap, 0, (cap - c->memo_cap) * sizeof *m);
        c->memo = m;
        c->memo_cap = cap;
    }
    return &c->memo[id];
}

int sim_checker_next(struct sim_checker *c, const struct sim_program *p, struct ls_error *err)
{
    size_t i = c->next++;
    const struct sim_irec *r = &p->ins.data[i];
    const struct sim_kind *kind = sim_irec_kind(p, r);
    /* Only a matmul reads the PE state: other keys leave it out so that they are shared. */
    struct sim_check_state before =
        kind->opcode == SIM_OP_MATMUL ? c->cs : (struct sim_check_state){0, 0, 0};
    struct check_memo *m = memo_of(c, r->kind);
    if (!m)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory checking the program");
    if (memo_key_is(m, &before) && memo_bounds_ok(c->t, m, kind, r)) {
        if (kind->opcode == SIM_OP_LOAD_STATIONARY || kind->opcode == SIM_OP_PE_TRANSPOSE)
            c->cs = m->after; /* the stationary operand they leave: from their shapes */
        return 0;
    }
    struct sim_instr in;
    if (sim_check_instr(c->t, p, i, sim_program_get(p, i, &in), &c->cs, err))
        return LS_ERR_INPUT;
    memo_fill(c->t, m, kind, &in, &before, &c->cs);
    return 0;
}

void sim_checker_passed(const struct sim_checker *c, struct sim_program *p)
{
    p->checked = c->next == p->ins.len;
    p->checked_hash = sim_target_hash(c->t);
    p->checked_len = p->ins.len;
}

/* Every instruction of p through a new checker for t; *passed (when not NULL) marks p. */
static int check_all(const struct sim_target *t, const struct sim_program *p,
                     struct sim_program *passed, struct ls_error *err)
{
    struct sim_checker *c = sim_checker_new(t);
    if (!c)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory checking the program");
    int rc = 0;
    for (size_t i = 0; i < p->ins.len && !rc; i++)
        rc = sim_checker_step(c, p, err);
    if (!rc && passed)
        sim_checker_passed(c, passed);
    sim_checker_free(c);
    return rc;
}

int sim_check(const struct sim_target *t, const struct sim_program *p, struct ls_error *err)
{
    return check_all(t, p, NULL, err);
}

int sim_program_check(const struct sim_target *t, struct sim_program *p, struct ls_error *err)
{
    p->checked = 0;
    return check_all(t, p, p, err);
}

int sim_check_once(const struct sim_target *t, const struct sim_program *p, struct ls_error *err)
{
    if (p->checked && p->checked_len == p->ins.len && p->checked_hash == sim_target_hash(t))
        return 0;
    return sim_check(t, p, err);
}

int sim_check_instr(const struct sim_target *t, const struct sim_program *p, size_t i,
                    const struct sim_instr *in, struct sim_check_state *cs, struct ls_error *err)
{
    {
        enum sim_opcode op = (enum sim_opcode)in->opcode;
        enum ls_engine e = (enum ls_engine)in->engine;
        if (!sim_opcode_on_engine(op, e))
            return fail(p, i, err, "opcode does not run on this engine");
        if (in->func >= SIM_FN_COUNT)
            return fail(p, i, err, "bad func");
        const struct sim_operand *ops[3] = {&in->dst, &in->src, &in->src2};
        unsigned need = needed(op);
        for (int k = 0; k < 3; k++) {
            int has = ops[k]->mem != LS_MEM_NONE;
            if (has != (int)(need >> k & 1u))
                return fail(p, i, err, "operand %s is %s", slot_name(k),
                            has ? "not allowed for this opcode" : "missing");
            if (has && check_operand(t, p, i, in, k, ops[k], err))
                return LS_ERR_INPUT;
        }
        const struct sim_operand *d = &in->dst, *s = &in->src, *s2 = &in->src2;
        uint64_t dfree = sim_operand_free(d), sfree = sim_operand_free(s);
        switch (op) {
        case SIM_OP_LOAD_STATIONARY:
            if (s->nparts > t->pe_rows || sfree > t->pe_cols)
                return fail(p, i, err,
                            "stationary [%u x %llu] exceeds the PE array (pe.rows %u x pe.cols %u)",
                            s->nparts, (unsigned long long)sfree, t->pe_rows, t->pe_cols);
            if (!t->pe_background_load && s->dtype == LS_DT_FP32)
                return fail(p, i, err, "textbook PE mode (pe.background_load=0) models bf16 only");
            cs->have_ls = 1;
            cs->ls_k = s->nparts;
            cs->ls_m = (uint32_t)sfree;
            break;
        case SIM_OP_MATMUL:
            if (!cs->have_ls)
                return fail(p, i, err, "matmul without an earlier load_stationary");
            if (s->nparts != cs->ls_k)
                return fail(p, i, err, "moving has %u partitions but the stationary has %u rows",
                            s->nparts, cs->ls_k);
            if (sfree > t->pe_moving_max)
                return fail(p, i, err, "moving free size %llu exceeds pe.moving_max (%u)",
                            (unsigned long long)sfree, t->pe_moving_max);
            if (d->nparts != cs->ls_m || dfree != sfree)
                return fail(p, i, err,
                            "dst must be [%u partitions x %llu] (stationary columns x moving free "
                            "size), got [%u x %llu]",
                            cs->ls_m, (unsigned long long)sfree, d->nparts, (unsigned long long)dfree);
            if (!t->pe_background_load && s->dtype == LS_DT_FP32)
                return fail(p, i, err, "textbook PE mode (pe.background_load=0) models bf16 only");
            break;
        case SIM_OP_PE_TRANSPOSE:
            if (s->nparts > t->pe_rows || sfree > t->pe_cols)
                return fail(p, i, err, "transpose input [%u x %llu] exceeds the PE array (%u x %u)",
                            s->nparts, (unsigned long long)sfree, t->pe_rows, t->pe_cols);
            if (d->nparts != sfree || dfree != s->nparts)
                return fail(p, i, err, "dst must be [%llu partitions x %u], got [%u x %llu]",
                            (unsigned long long)sfree, s->nparts, d->nparts,
                            (unsigned long long)dfree);
            if (!t->pe_background_load && s->dtype == LS_DT_FP32)
                return fail(p, i, err, "textbook PE mode (pe.background_load=0) models bf16 only");
            cs->have_ls = 1; /* the transposed data is now the stationary operand */
            cs->ls_k = s->nparts;
            cs->ls_m = (uint32_t)sfree;
            break;
        case SIM_OP_DMA_COPY:
        case SIM_OP_DMA_TRANSPOSE: {
            if (in->queue >= t->dma_queues)
                return fail(p, i, err, "queue %u does not exist (dma.queues = %u)", in->queue,
                            t->dma_queues);
            if ((uint64_t)d->nparts * dfree != (uint64_t)s->nparts * sfree)
                return fail(p, i, err, "src has %llu elements but dst has %llu",
                            (unsigned long long)s->nparts * sfree,
                            (unsigned long long)d->nparts * dfree);
            if (op == SIM_OP_DMA_TRANSPOSE) {
                if (!t->dma_transpose)
                    return fail(p, i, err, "this target has no DMA transpose (dma.transpose = 0)");
                if (d->mem != LS_MEM_SBUF)
                    return fail(p, i, err, "dma_transpose writes SBUF only");
                size_t es = ls_dtype_size((enum ls_dtype)s->dtype);
                if (es != 2 && es != 4)
                    return fail(p, i, err, "dma_transpose moves 2- or 4-byte elements only");
            }
            break;
        }
        case SIM_OP_TENSOR_TENSOR:
            if (s->mem == LS_MEM_PSUM && s2->mem == LS_MEM_PSUM)
                return fail(p, i, err, "both inputs cannot be in PSUM");
            if (sim_operand_free(s2) != sfree || s2->nparts != s->nparts)
                return fail(p, i, err, "src and src2 differ in shape");
            /* fall through */
        case SIM_OP_TENSOR_SCALAR:
        case SIM_OP_TENSOR_COPY:
        case SIM_OP_ACTIVATION:
        case SIM_OP_DVE_TRANSPOSE:
            if (d->nparts != s->nparts || dfree != sfree)
                return fail(p, i, err, "dst [%u x %llu] and src [%u x %llu] differ in shape",
                            d->nparts, (unsigned long long)dfree, s->nparts,
                            (unsigned long long)sfree);
            if (op == SIM_OP_DVE_TRANSPOSE && (s->nparts > 32 || sfree > 32))
                return fail(p, i, err, "the DVE transpose handles at most 32x32 elements");
            break;
        case SIM_OP_TENSOR_REDUCE:
        case SIM_OP_ACTIVATION_REDUCE:
            if (d->nparts != s->nparts || dfree > sfree)
                return fail(p, i, err, "dst must have src's partitions and at most its free size");
            break;
        case SIM_OP_PARTITION_REDUCE:
            if (dfree != sfree)
                return fail(p, i, err, "dst and src differ in free size");
            break;
        default:
            break;
        }
    }
    return 0;
}
