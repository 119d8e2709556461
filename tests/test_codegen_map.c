/* codegen/map on its own (no memory plan: every input loads from HBM and every output
 * stores to HBM): golden instruction counts per engine and opcode of an elementwise add,
 * a row layernorm (software-pipelined, its fp32 gamma and beta narrowed once), a softmax
 * with its axis on partitions, and the reductions along partitions (a ones-column matmul
 * on PE for sums, POOL partition reduces for max); the loads' descriptor sizes; and every
 * program simulates. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen/codegen.h"
#include "graph/lg.h"
#include "sim/sim.h"
#include "sim/target.h"
#include "cg_fixture.h"

/* Instructions of one op per engine and opcode, and its HBM loads' smallest and largest
 * descriptor (bytes of one partition's contiguous run). */
struct counts {
    int n[LS_ENGINE_COUNT][SIM_OP_COUNT];
    uint64_t chunk_min, chunk_max;
};

/* Compile the .lg text with every op in its conventional configuration but the op
 * producing `tensor`, which takes its first configuration with axis pax on partitions in
 * slot `slot` (its inputs in order, then its output; -1: the output); count that op's
 * instructions into c and simulate the program. */
static void compile_op(const char *txt, const char *tensor, int slot, int pax,
                       struct counts *c)
{
    struct ls_error err = {0};
    struct graph *g = NULL;
    assert_int_equal(graph_read("t.lg", txt, strlen(txt), &g, &err), 0);
    assert_int_equal(graph_validate(g, &err), 0);
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    int32_t nops = graph_nops(g), mine = graph_tensor(g, graph_find_tensor(g, tensor))->producer;
    struct cg_cfgs *cf = calloc((size_t)nops, sizeof *cf);
    const int8_t **opp = calloc((size_t)nops, sizeof *opp);
    assert_non_null(cf);
    assert_non_null(opp);
    for (int32_t op = 0; op < nops; op++) {
        assert_int_equal(cg_op_cfgs(g, &t, op, -2, &cf[op], &err), 0);
        opp[op] = cf[op].pax;
        int at = slot < 0 ? cf[op].nslots - 1 : slot;
        for (int k = 0; op == mine && k < cf[op].ncfg; k++)
            if (cf[op].pax[k * cf[op].nslots + at] == pax) {
                opp[op] = cf[op].pax + k * cf[op].nslots;
                break;
            }
        if (op == mine)
            assert_int_equal(opp[op][at], pax);
    }
    struct sim_program *pr = NULL;
    static const struct cg_options o = {0};
    assert_int_equal(cg_compile(g, &t, &o, opp, choose_strided, NULL, &pr, NULL, &err), 0);
    memset(c, 0, sizeof *c);
    c->chunk_min = UINT64_MAX;
    int32_t tag = sim_program_tag(pr, tensor);
    for (size_t i = 0; i < sim_program_count(pr); i++) {
        struct sim_instr buf;
        const struct sim_instr *in = sim_program_get(pr, i, &buf);
        if (in->op_tag != tag || in->conv_tag >= 0)
            continue;
        c->n[in->engine][in->opcode]++;
        if (in->engine == LS_ENGINE_DMA && in->src.mem == LS_MEM_HBM) {
            struct sim_features sh;
            sim_features(in, &sh);
            uint64_t chunk = sh.bytes_per_partition / sh.chunks_per_partition;
            c->chunk_min = chunk < c->chunk_min ? chunk : c->chunk_min;
            c->chunk_max = chunk > c->chunk_max ? chunk : c->chunk_max;
        }
    }
    struct sim_stats ss;
    int rc = sim_run(&t, pr, NULL, &ss, &err);
    if (rc)
        print_message("%s\n", err.msg);
    assert_int_equal(rc, 0);
    sim_program_free(pr);
    for (int32_t op = 0; op < nops; op++)
        cg_cfgs_free(&cf[op]);
    free(cf);
    free(opp);
    graph_free(g);
}

#define N(c, eng, op) ((c).n[LS_ENGINE_##eng][SIM_OP_##op])

/* Total instructions of the op. */
static int total(const struct counts *c)
{
    int n = 0;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        for (int k = 0; k < SIM_OP_COUNT; k++)
            n += c->n[e][k];
    return n;
}

/* Two row tiles of 128 x 512 fp32: per tile one load per input, one DVE add, one store;
 * each partition's row of 512 elements is one 2 KiB descriptor. */
static void test_add(void **st)
{
    (void)st;
    struct counts c;
    compile_op("lg 1\ninput a fp32 [r:256,c:512]\ninput b fp32 [r:256,c:512]\n"
               "op s fp32 [r:256,c:512] = add a b\noutput s\n", "s", -1, 0, &c);
    assert_int_equal(N(c, DVE, TENSOR_TENSOR), 2);
    assert_int_equal(N(c, DMA, DMA_COPY), 2 * 2 + 2);
    assert_int_equal(total(&c), 8);
    assert_int_equal(c.chunk_min, 512 * 4);
    assert_int_equal(c.chunk_max, 512 * 4);
}

/* A row layernorm of [1500, 512] fp32 into bf16, twelve row tiles of one normalized row
 * per partition: per tile DVE sum and sum of squares, ACT x - mean, rsqrt and scale, DVE
 * square, gamma and beta (docs/costmodel.md, "Tiling"); gamma and beta load once and POOL
 * narrows each to bf16 once. */
static void test_layernorm_rows(void **st)
{
    (void)st;
    struct counts c;
    compile_op("lg 1\ninput x fp32 [s:1500,h:512]\nweight g fp32 [h:512]\n"
               "weight be fp32 [h:512]\n"
               "op n bf16 [s:1500,h:512] = layernorm x g be axis=1\noutput n\n",
               "n", -1, 0, &c);
    int tiles = 12;
    assert_int_equal(N(c, DVE, TENSOR_REDUCE), 2 * tiles);
    assert_int_equal(N(c, DVE, TENSOR_TENSOR), 3 * tiles);
    assert_int_equal(N(c, ACT, ACTIVATION), 3 * tiles);
    assert_int_equal(N(c, POOL, TENSOR_COPY), 2);
    assert_int_equal(N(c, DMA, DMA_COPY), 2 * tiles + 2);
    assert_int_equal(total(&c), 10 * tiles + 4);
    assert_int_equal(c.chunk_min, 512 * 4);
}

/* A softmax whose axis (100) is on partitions, one tile: POOL all-reduces for the max and
 * the sum, DVE subtract and scale, ACT exp and reciprocal; the input in layout p:k is
 * [k, s] in HBM, so each partition loads one run of 64 fp32. */
static void test_softmax_partitions(void **st)
{
    (void)st;
    struct counts c;
    compile_op("lg 1\ninput x fp32 [s:64,k:100]\n"
               "op p fp32 [s:64,k:100] = softmax x axis=1\noutput p\n", "p", -1, 1, &c);
    assert_int_equal(N(c, POOL, PARTITION_REDUCE), 2);
    assert_int_equal(N(c, DVE, TENSOR_TENSOR), 2);
    assert_int_equal(N(c, ACT, ACTIVATION), 2);
    assert_int_equal(N(c, DMA, DMA_COPY), 2);
    assert_int_equal(total(&c), 8);
    assert_int_equal(c.chunk_min, 64 * 4);
}

/* Reductions over a 300-row axis on partitions (three row tiles), 64 x 5 results in one
 * PSUM bank: a sum is one ones-column matmul per row tile accumulating in PSUM (after one
 * memset of the ones) and one ACT evacuation; a max is one POOL partition reduce per row
 * tile folded by DVE, then one DVE copy out. One load per row tile (rows of 320 fp32),
 * one store. */
static void test_reduce_partitions(void **st)
{
    (void)st;
    struct counts c;
    compile_op("lg 1\ninput x fp32 [a:300,b:64,c:5]\n"
               "op s fp32 [1,b:64,c:5] = reduce_sum x axes=0 keep=1\noutput s\n", "s", 0, 0,
               &c);
    assert_int_equal(N(c, PE, LOAD_STATIONARY), 3);
    assert_int_equal(N(c, PE, MATMUL), 3);
    assert_int_equal(N(c, DVE, MEMSET), 1);
    assert_int_equal(N(c, ACT, ACTIVATION), 1);
    assert_int_equal(N(c, DMA, DMA_COPY), 3 + 1);
    assert_int_equal(total(&c), 12);
    assert_int_equal(c.chunk_min, 320 * 4);
    compile_op("lg 1\ninput x fp32 [a:300,b:64,c:5]\n"
               "op s fp32 [1,b:64,c:5] = reduce_max x axes=0 keep=1\noutput s\n", "s", 0, 0,
               &c);
    assert_int_equal(N(c, POOL, PARTITION_REDUCE), 3);
    assert_int_equal(N(c, DVE, TENSOR_TENSOR), 2);
    assert_int_equal(N(c, DVE, TENSOR_COPY), 1);
    assert_int_equal(N(c, DMA, DMA_COPY), 3 + 1);
    assert_int_equal(total(&c), 10);
    assert_int_equal(c.chunk_max, 320 * 4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_add),
        cmocka_unit_test(test_layernorm_rows),
        cmocka_unit_test(test_softmax_partitions),
        cmocka_unit_test(test_reduce_partitions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
