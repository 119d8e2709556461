/* sim/check_int: the checker's memo, shared by sim_check.c and the loaders, which run its
 * common case inline on each instruction they decode (not part of the public API). */
#ifndef LS_SIM_CHECK_INT_H
#define LS_SIM_CHECK_INT_H

#include "sim/program_int.h"
#include "sim/sim_int.h"

/* What checking an instruction learnt from everything but its addresses: an instruction
 * of the same kind (engine, opcode, func, queue, operand shapes) and, for a matmul, which
 * reads it, the same PE state passes all of that too, and only its operands' bounds remain
 * to check. Compiled programs have a few hundred kinds for a million instructions; the
 * memo is indexed by kind. */
struct check_memo {
    uint8_t mem[3];
    uint8_t valid, opcode;
    struct sim_check_state before, after; /* PE state: a matmul's key; what LS/transpose set */
    /* The addresses at which each operand passes the bounds checks: [amin, amax] (empty when
     * amin > amax), and for PSUM, with its first byte at address + pofs (modulo 2^64) and
     * span bytes, within one bank. */
    uint64_t amin[3], amax[3], pofs[3], span[3];
};

static inline int memo_key_is(const struct check_memo *m, const struct sim_check_state *cs)
{
    return m->valid && m->before.have_ls == cs->have_ls && m->before.ls_k == cs->ls_k &&
           m->before.ls_m == cs->ls_m;
}

/* 1 when the operands of r at their addresses stay within what the memo's checks allowed
 * (the same bounds check_operand applies); 0 sends the instruction to the full check. */
static inline int memo_bounds_ok(const struct sim_target *t, const struct check_memo *m,
                                 const struct sim_kind *kind, const struct sim_irec *r)
{
    const uint64_t bank = t->psum_bank_bytes;
    for (int k = 0; k < 3; k++) {
        uint64_t a = r->addr[k];
        if (kind->shape[k] && (a < m->amin[k] || a > m->amax[k]))
            return 0;
        if (m->mem[k] == LS_MEM_PSUM) { /* one bank: a power of two needs no division */
            uint64_t lo = a + m->pofs[k];
            uint64_t off = bank & (bank - 1) ? lo % bank : lo & (bank - 1);
            if (off + m->span[k] > bank)
                return 0;
        }
    }
    return 1;
}

struct sim_checker {
    const struct sim_target *t;
    struct check_memo *memo; /* per kind id, memo_cap of them */
    size_t memo_cap;
    struct sim_check_state cs;
    size_t next; /* the instruction to check next */
};

/* sim_checker_next with its common case inline: an instruction whose kind's memo holds for
 * the PE state and whose operands lie in the memo's address ranges passes here, anything
 * else goes to sim_checker_next (which looks again and checks in full). */
static inline int sim_checker_step(struct sim_checker *c, const struct sim_program *p,
                                   struct ls_error *err)
{
    const struct sim_irec *r = &p->ins.data[c->next];
    if (r->kind < c->memo_cap) {
        const struct check_memo *m = &c->memo[r->kind];
        int mm = m->opcode == SIM_OP_MATMUL;
        struct sim_check_state before = mm ? c->cs : (struct sim_check_state){0, 0, 0};
        if (memo_key_is(m, &before) && memo_bounds_ok(c->t, m, sim_irec_kind(p, r), r)) {
            if (m->opcode == SIM_OP_LOAD_STATIONARY || m->opcode == SIM_OP_PE_TRANSPOSE)
                c->cs = m->after;
            c->next++;
            return 0;
        }
    }
    return sim_checker_next(c, p, err);
}

#endif
