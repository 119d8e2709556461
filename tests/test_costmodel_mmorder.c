/* Tests for the matmul's loop order (codegen/mm.c): with the moving operand loaded whole and
 * one chunk per m-tile, two m-tiles share a group k-step outer (the second m-tile's first
 * matmul before the first one's second k-step), and consecutive groups use alternate halves
 * of the step's PSUM banks, across m-tiles; the table price equals the objective and the
 * instruction counts are those of the m-tile-outer order. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/lg.h"
#include "sim/program.h"
#include "cm_fixture.h"

/* x [512 tokens, 512] (bf16) times the weight w [512, 512]: with the tokens on the output
 * partitions x is stationary (4 m-tiles of 128 tokens, 4 k-steps) and w moving (one chunk
 * of 512 columns), loaded whole into the constant ring. */
static struct graph *proj(int n)
{
    char txt[512];
    snprintf(txt, sizeof txt,
             "lg 1\n"
             "input x bf16 [512,512]\n"
             "weight w bf16 [512,%d]\n"
             "op y fp32 [512,%d] = matmul x w lhs_contract=1 rhs_contract=0\n"
             "output y\n", n, n);
    return graph_of_text("proj.lg", txt);
}

/* The configuration of op y whose output has the tokens (axis 0) on partitions. */
static int32_t tokens_cfg(const struct fixture *f, int32_t op)
{
    const struct lsp_problem *p = f->in->p;
    for (int32_t c = 0; c < p->ops[op].ncfg; c++) {
        char buf[16];
        int32_t l = lsp_cfg_out_layout(p, op, c);
        if (!strcmp(lsp_layout_label(p, p->ops[op].out, l, buf, sizeof buf), "p:0"))
            return c;
    }
    fail_msg("no configuration with the tokens on partitions");
    return -1;
}

/* The matmuls of op y with the tokens on partitions, n output columns: their PSUM banks
 * and accumulate flags in program order (at most 32); counts of matmuls, load_stationary
 * and evacuations. */
struct mm_seq {
    int nmm, nls, nev;
    uint64_t bank[32];
    int acc[32];
};

static void mm_seq_of(int n, struct mm_seq *s)
{
    struct graph *g = proj(n);
    struct fixture f;
    open_model(&f, g);
    int32_t op = lsp_find_op(f.in->p, "y", 1);
    int32_t *cfg = calloc((size_t)f.in->p->nops, sizeof *cfg);
    cfg[op] = tokens_cfg(&f, op);
    struct sim_program *prog = compile_checked(&f, cfg, 1, 0);
    int32_t tag = sim_program_tag(prog, "y");
    memset(s, 0, sizeof *s);
    for (size_t i = 0; i < sim_program_count(prog); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(prog, i, &buf);
        if (in->op_tag != tag)
            continue;
        s->nls += in->opcode == SIM_OP_LOAD_STATIONARY;
        s->nev += in->opcode == SIM_OP_ACTIVATION;
        if (in->opcode != SIM_OP_MATMUL)
            continue;
        assert_true(s->nmm < 32);
        s->bank[s->nmm] = in->dst.addr / f.t.psum_bank_bytes;
        s->acc[s->nmm++] = (in->flags & SIM_F_ACCUMULATE) != 0;
    }
    sim_program_free(prog);
    free(cfg);
    close_model(&f);
    graph_free(g);
}

static void test_k_outer_pairs(void **st)
{
    (void)st;
    struct mm_seq s;
    mm_seq_of(512, &s);
    int nmm = s.nmm, nls = s.nls, nev = s.nev;
    const uint64_t *bank = s.bank;
    const int *acc = s.acc;
    /* the m-tile-outer order's counts: 4 k-steps x 4 m-tiles, one evacuation per m-tile */
    assert_int_equal(nmm, 16);
    assert_int_equal(nls, 16);
    assert_int_equal(nev, 4);
    for (int grp = 0; grp < 2; grp++) {
        const uint64_t *b = bank + 8 * grp;
        const int *a = acc + 8 * grp;
        /* k-step 0 of both m-tiles first, into two banks, then k-steps 1..3 accumulating */
        assert_false(a[0] || a[1]);
        for (int k = 2; k < 8; k++) {
            assert_true(a[k]);
            assert_true(b[k] == b[k % 2]);
        }
        assert_true(b[0] != b[1]);
    }
    /* the second group in the other half of the banks: its banks are not the first's */
    assert_true(bank[8] != bank[0] && bank[8] != bank[1] && bank[9] != bank[0] &&
                bank[9] != bank[1]);
}

/* Two chunks per m-tile fill a group (half the banks): m-tile outer, each m-tile one group,
 * and consecutive m-tiles in alternate halves (until cg-9 every m-tile's group took the
 * first half, so its first matmul waited for the previous m-tile's evacuation). */
static void test_halves_alternate(void **st)
{
    (void)st;
    struct mm_seq s;
    mm_seq_of(1024, &s);
    assert_int_equal(s.nmm, 32);   /* 4 k-steps x 4 m-tiles x 2 chunks */
    assert_int_equal(s.nls, 16);
    assert_int_equal(s.nev, 8);
    for (int m = 0; m < 4; m++) {
        const uint64_t *b = s.bank + 8 * m;
        assert_false(s.acc[8 * m] || s.acc[8 * m + 1]);   /* k-step 0's two chunks */
        for (int k = 2; k < 8; k++)
            assert_true(s.acc[8 * m + k] && b[k] == b[k % 2]);
        if (m > 0)   /* not the previous m-tile's banks */
            assert_true(b[0] != b[-8] && b[0] != b[-7] && b[1] != b[-8] && b[1] != b[-7]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_k_outer_pairs),
        cmocka_unit_test(test_halves_alternate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
