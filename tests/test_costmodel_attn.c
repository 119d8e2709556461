/* Fused attention (codegen/attn): which groups fuse, one configuration per op, golden
 * instruction counts, no score matrix in HBM, price == objective for random assignments
 * and never faster than the roofline bound. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen/attn.h"
#include "codegen/memplan.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "costmodel/roofline.h"
#include "graph/lg.h"
#include "sim/sim.h"
#include "util/prng.h"
#include "cm_fixture.h"

/* q, k, v [1, H, S, 64] bf16 -> scores [1, H, S, S] -> softmax (bf16) -> ctx (returned) */
static struct graph *attention(int64_t H, int64_t S)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("attn");
    int32_t q = graph_input(g, "q", LS_DT_BF16, GRAPH_DIMS(1, H, S, 64), NULL);
    int32_t k = graph_input(g, "k", LS_DT_BF16, GRAPH_DIMS(1, H, S, 64), NULL);
    int32_t s = graph_batch_matmul(g, "scores", q, k, 1);
    int32_t p = graph_cast(g, "probs", graph_softmax(g, "sm", s, 3), LS_DT_BF16);
    (void)p;
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* the same with the softmax writing bf16 (as the auto-cast pass leaves it) and the
 * context returned, written in the .lg text format */
static struct graph *attention_bf16(int64_t H, int64_t S)
{
    char txt[1024];
    snprintf(txt, sizeof txt,
             "lg 1\n"
             "input q bf16 [1,%lld,%lld,64]\n"
             "input k bf16 [1,%lld,%lld,64]\n"
             "input v bf16 [1,%lld,%lld,64]\n"
             "op scores fp32 [1,%lld,%lld,%lld] = batch_matmul q k lhs_batch=0,1 rhs_batch=0,1 "
             "lhs_contract=3 rhs_contract=3\n"
             "op probs bf16 [1,%lld,%lld,%lld] = softmax scores axis=3\n"
             "op ctx fp32 [1,%lld,%lld,64] = batch_matmul probs v lhs_batch=0,1 rhs_batch=0,1 "
             "lhs_contract=3 rhs_contract=2\n"
             "output ctx\n",
             (long long)H, (long long)S, (long long)H, (long long)S, (long long)H, (long long)S,
             (long long)H, (long long)S, (long long)S, (long long)H, (long long)S, (long long)S,
             (long long)H, (long long)S);
    return graph_of_text("attn.lg", txt);
}


/* 4 heads x 1024 x 1024 fp32 scores fuse, and so do 128 tokens (whose scores would fit
 * on chip: the fused kernel reads resident Q, K, V in place, so it pays on every size);
 * a softmax read by anything else does not. */
static void test_groups(void **st)
{
    (void)st;
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    struct graph *g = attention_bf16(4, 1024);
    struct cg_attn a;
    assert_int_equal(cg_attn_find(g, &t, op_of(g, "scores"), &a), 0);
    assert_int_equal(cg_attn_find(g, &t, op_of(g, "probs"), &a), 1);
    assert_int_equal(cg_attn_find(g, &t, op_of(g, "ctx"), &a), 2);
    assert_int_equal(a.m.nb, 4);
    assert_int_equal(a.m.nc, 2);
    assert_int_equal(a.m.nkb, 8);
    graph_free(g);
    g = attention_bf16(4, 128);
    assert_int_equal(cg_attn_find(g, &t, op_of(g, "scores"), &a), 0);
    assert_int_equal(a.m.nc, 1);
    assert_int_equal(a.m.nkb, 1);
    graph_free(g);
    g = attention(4, 1024);   /* no ctx matmul */
    assert_int_equal(cg_attn_find(g, &t, op_of(g, "scores"), &a), -1);
    graph_free(g);
}

static size_t count(const struct sim_program *p, enum sim_opcode op, int conversions)
{
    size_t n = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        n += in->opcode == op && (in->conv_tag >= 0) == conversions;
    }
    return n;
}

/* Golden counts (4 heads x 8 query tiles = 32 tiles, 2 key chunks, 8 key blocks): per tile
 * 1 + 8 load_stationary, 2 + 8 matmuls, 8 transposes; and nothing of the 16 MiB scores
 * or 8 MiB probabilities crosses HBM: the stores are the 1 MiB fp32 ctx (plus the
 * conversions of the inputs and the output). */
static void test_golden(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = attention_bf16(4, 1024);
    struct fixture f;
    open_model(&f, g);
    struct sim_program *pr = NULL;
    assert_int_equal(cm_instance_compile(f.in, NULL, &pr, NULL, &err), 0);
    assert_int_equal(count(pr, SIM_OP_LOAD_STATIONARY, 0), 32 * 9);
    assert_int_equal(count(pr, SIM_OP_MATMUL, 0), 32 * 10);
    assert_int_equal(count(pr, SIM_OP_PE_TRANSPOSE, 0), 32 * 8);
    uint64_t stored = 0;
    for (size_t i = 0; i < sim_program_count(pr); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(pr, i, &buf);
        if (in->engine == LS_ENGINE_DMA && in->dst.mem == LS_MEM_HBM && in->conv_tag < 0)
            stored += (uint64_t)in->dst.nparts * sim_operand_free(&in->dst) *
                      ls_dtype_size((enum ls_dtype)in->dst.dtype);
    }
    assert_int_equal(stored, 4 * 1024 * 64 * 4);
    /* V (in HBM) loads once for every head: one DMA per block of 128 keys whose rows hold
     * the 4 heads' 64 elements, not one per (head, key block) of 128-byte rows */
    int32_t ctag = sim_program_tag(pr, "ctx");
    int vloads = 0;
    for (size_t i = 0; i < sim_program_count(pr); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(pr, i, &buf);
        vloads += in->op_tag == ctag && in->engine == LS_ENGINE_DMA &&
                  in->src.mem == LS_MEM_HBM && in->conv_tag < 0;
    }
    assert_int_equal(vloads, 8);
    /* cg-8: the softmax reads each score from PSUM once (one ACT copy per key chunk of
     * 512: 2 per tile), the max and the exp read SBUF; the ctx part's PSUM reads (the
     * transposes' copies, the evacuation) are all on DVE */
    int32_t sm = sim_program_tag(pr, "probs"), cx = sim_program_tag(pr, "ctx");
    int psum_reads[2][LS_ENGINE_COUNT] = {{0}};
    for (size_t i = 0; i < sim_program_count(pr); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(pr, i, &buf);
        int part = in->op_tag == sm ? 0 : in->op_tag == cx ? 1 : -1;
        if (part >= 0 && (in->src.mem == LS_MEM_PSUM || in->src2.mem == LS_MEM_PSUM))
            psum_reads[part][in->engine]++;
    }
    assert_int_equal(psum_reads[0][LS_ENGINE_ACT], 32 * 2);
    assert_int_equal(psum_reads[0][LS_ENGINE_DVE], 0);
    assert_int_equal(psum_reads[1][LS_ENGINE_ACT], 0);
    assert_true(psum_reads[1][LS_ENGINE_DVE] > 0);
    sim_program_free(pr);
    close_model(&f);
    graph_free(g);
}

/* q, k, v produced on chip (copies of the inputs) and ctx read on chip (a copy returned):
 * all four stay in SBUF and the fused group reads and writes them in place */
static struct graph *attention_on_chip(int64_t H, int64_t S)
{
    char txt[1024];
    snprintf(txt, sizeof txt,
             "lg 1\n"
             "input xq bf16 [1,%lld,%lld,64]\n"
             "input xk bf16 [1,%lld,%lld,64]\n"
             "input xv bf16 [1,%lld,%lld,64]\n"
             "op q bf16 [1,%lld,%lld,64] = copy xq\n"
             "op k bf16 [1,%lld,%lld,64] = copy xk\n"
             "op v bf16 [1,%lld,%lld,64] = copy xv\n"
             "op scores fp32 [1,%lld,%lld,%lld] = batch_matmul q k lhs_batch=0,1 rhs_batch=0,1 "
             "lhs_contract=3 rhs_contract=3\n"
             "op probs bf16 [1,%lld,%lld,%lld] = softmax scores axis=3\n"
             "op ctx fp32 [1,%lld,%lld,64] = batch_matmul probs v lhs_batch=0,1 rhs_batch=0,1 "
             "lhs_contract=3 rhs_contract=2\n"
             "op out fp32 [1,%lld,%lld,64] = copy ctx\n"
             "output out\n",
             (long long)H, (long long)S, (long long)H, (long long)S, (long long)H, (long long)S,
             (long long)H, (long long)S, (long long)H, (long long)S, (long long)H, (long long)S,
             (long long)H, (long long)S, (long long)S, (long long)H, (long long)S, (long long)S,
             (long long)H, (long long)S, (long long)H, (long long)S);
    return graph_of_text("attn-chip.lg", txt);
}

/* HBM transfers of the group's own instructions (tags scores, probs, ctx) */
static int group_hbm_dmas(struct sim_program *p)
{
    int32_t tags[3] = {sim_program_tag(p, "scores"), sim_program_tag(p, "probs"),
                       sim_program_tag(p, "ctx")};
    int n = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        int mine = in->op_tag == tags[0] || in->op_tag == tags[1] || in->op_tag == tags[2];
        n += mine && in->engine == LS_ENGINE_DMA &&
             (in->src.mem == LS_MEM_HBM || in->dst.mem == LS_MEM_HBM);
    }
    return n;
}

/* Resident Q, K, V and ctx: the group moves nothing through HBM, keeps its golden PE
 * counts (4 heads x 2 query tiles of 256 tokens, one key chunk, 2 key blocks), and its
 * price still equals the objective for random assignments, above the roofline bound. */
static void test_resident(void **st)
{
    (void)st;
    struct graph *g = attention_on_chip(4, 256);
    struct fixture f;
    open_model(&f, g);
    const struct cg_memplan *mp = cm_model_options(f.m)->plan;
    const char *names[4] = {"q", "k", "v", "ctx"};
    for (int i = 0; i < 4; i++)
        assert_true(cg_memplan_resident(mp, graph_find_tensor(g, names[i])));
    struct cm_roofline rl;
    cm_roofline(g, &f.t, &rl);
    int32_t *cfg = calloc((size_t)f.in->p->nops, sizeof *cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 3);
    for (int it = 0; it < 20; it++) {
        if (it)
            random_assignment(&f, &r, cfg);
        struct sim_program *pr = compile_checked(&f, cfg, it % 10 == 0, rl.bound_ns);
        assert_int_equal(group_hbm_dmas(pr), 0);
        assert_int_equal(count(pr, SIM_OP_LOAD_STATIONARY, 0), 8 * 3);
        assert_int_equal(count(pr, SIM_OP_MATMUL, 0), 8 * 3);
        sim_program_free(pr);
    }
    free(cfg);
    close_model(&f);
    graph_free(g);
}

/* price of the compiled program == .lsp objective for random assignments (the fused ops
 * have one configuration each; their neighbours' layouts vary), and the simulated time is
 * never below the roofline bound */
static void test_consistency_random(void **st)
{
    (void)st;
    struct graph *g = attention_bf16(4, 1024);
    struct fixture f;
    open_model(&f, g);
    const struct lsp_problem *p = f.in->p;
    struct cm_roofline rl;
    cm_roofline(g, &f.t, &rl);
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 11);
    for (int it = 0; it < 50; it++) {
        random_assignment(&f, &r, cfg);
        sim_program_free(compile_checked(&f, cfg, it % 10 == 0, rl.bound_ns));
    }
    free(cfg);
    close_model(&f);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_groups),
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_consistency_random),
        cmocka_unit_test(test_resident),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
