/* Stationary weights stored group-major (codegen/mm, s_blk): x[128,6144] @ W[6144,1024]
 * bf16, 96 KiB per partition, so that only 3 stationary m-tiles fit the constant ring and
 * it loads in groups of 384 columns. For random assignments: price of the compiled program
 * == .lsp objective, every weight byte is read from HBM exactly once (the blocks are a
 * permutation of the weight's bytes inside its region), and with W stationary (y's output
 * columns on partitions) every weight DMA's partition rows are at least one minimum
 * descriptor long (k-tiled, a group's k-step row was 768 bytes).
 * test_ring_per_weight: a chain of [768, 768] weights, as many as the constant ring holds
 * together; a weight loaded in one group takes its own bytes of the ring and no more, so no
 * weight's loads overwrite another's (they reserved twice their size, and the ring wrapped
 * onto the weight loaded just before, whose matmuls the loads then waited for), and a
 * weight's loads wait for the weights loaded CG_RING_LOOKAHEAD ops before to be used. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "sim/sim.h"
#include "util/prng.h"

enum { K = 6144, N = 1024, TOKENS = 128 };

/* y = x[tokens, k] @ W[k, n], bf16. */
static struct graph *one_matmul(const char *name, int64_t tokens, int64_t k, int64_t n)
{
    struct ls_error err = {0};
    struct graph *g = graph_new(name);
    int32_t x = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(tokens, k), NULL);
    int32_t w = graph_weight(g, "W", LS_DT_BF16, GRAPH_DIMS(k, n), NULL);
    graph_output(g, graph_matmul(g, "y", x, w));
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

static struct graph *fc2(void)
{
    return one_matmul("fc2", TOKENS, K, N);
}

/* Weight loads are the DMAs on the constant queues (4/5 direct, 6/7 into the ring). */
static int weight_load(const struct sim_instr *in)
{
    return in->engine == LS_ENGINE_DMA && in->src.mem == LS_MEM_HBM && in->queue >= 4 &&
           in->queue <= 7;
}

/* Marks in seen[] (one counter per weight byte, from the lowest weight address) the bytes
 * the weight loads read; returns the shortest partition row in bytes. */
static uint64_t weight_reads(const struct sim_program *p, uint8_t *seen, uint64_t wbytes)
{
    struct sim_instr buf;
    uint64_t lo = UINT64_MAX, shortest = UINT64_MAX;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        if (weight_load(in) && in->src.addr < lo)
            lo = in->src.addr;
    }
    for (size_t i = 0; i < sim_program_count(p); i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        if (!weight_load(in))
            continue;
        assert_int_equal(in->src.ndim, 1);   /* contiguous rows: k-tiled or blocked */
        uint64_t es = ls_dtype_size((enum ls_dtype)in->src.dtype);
        uint64_t row = in->src.size[0] * es;
        shortest = row < shortest ? row : shortest;
        for (uint32_t r = 0; r < in->src.nparts; r++) {
            uint64_t a = in->src.addr - lo + (uint64_t)r * (uint64_t)in->src.pstride * es;
            assert_true(a + row <= wbytes);
            for (uint64_t b = 0; b < row; b++)
                seen[a + b]++;
        }
    }
    return shortest;
}

/* W is the stationary operand when the matmul writes y with its N axis (1) on partitions. */
static int w_stationary(const struct lsp_problem *p, const int32_t *cfg)
{
    for (int32_t i = 0; i < p->nops; i++)
        if (strcmp(p->ops[i].kind, "matmul") == 0)
            return p->cfg_layout[p->ops[i].lay0 + (int64_t)cfg[i] * p->ops[i].nslots + 2] == 1;
    fail_msg("no matmul op");
    return 0;
}

/* A random assignment into cfg, compiled; its table price must be the .lsp objective. */
static struct sim_program *compile_random(struct cm_instance *in, const struct sim_target *t,
                                          const struct cm_table *tb, struct ls_rng *r,
                                          int32_t *cfg)
{
    struct ls_error err = {0};
    const struct lsp_problem *p = in->p;
    for (int32_t i = 0; i < p->nops; i++)
        cfg[i] = (int32_t)ls_rng_below(r, (uint64_t)p->ops[i].ncfg);
    struct sim_program *prog = NULL;
    assert_int_equal(cm_instance_compile(in, cfg, &prog, NULL, &err), 0);
    int64_t priced;
    assert_int_equal(cm_price_program(tb, t, prog, &priced, NULL), 0);
    assert_int_equal(priced, lsp_eval(p, cfg, NULL, NULL));
    return prog;
}

static void test_blocked_weight(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = fc2();
    struct sim_target t;
    struct cm_table tb;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    cm_table_default(&t, &tb);
    struct cg_options o = {0};
    struct cm_model *m = cm_model_new(g, &t, &tb, &o);
    assert_non_null(m);
    struct cm_instance *in = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    const struct lsp_problem *p = in->p;
    const uint64_t wbytes = (uint64_t)K * N * 2;
    double desc_bytes = t.dma_desc_min_ns * t.dma_bytes_per_ns;
    uint8_t *seen = malloc(wbytes);
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    assert_non_null(seen);
    assert_non_null(cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 16);
    int stationary = 0;
    for (int it = 0; it < 50; it++) {
        struct sim_program *prog = compile_random(in, &t, &tb, &r, cfg);
        memset(seen, 0, wbytes);
        uint64_t shortest = weight_reads(prog, seen, wbytes);
        if (w_stationary(p, cfg)) {
            stationary++;
            assert_true((double)shortest >= desc_bytes);
        }
        for (uint64_t b = 0; b < wbytes; b++)
            if (seen[b] != 1)
                fail_msg("assignment %d: weight byte %llu read %u times", it,
                         (unsigned long long)b, seen[b]);
        sim_program_free(prog);
    }
    assert_true(stationary > 0);
    free(cfg);
    free(seen);
    cm_instance_free(in);
    cm_model_free(m);
    graph_free(g);
}

enum { HID = 768, CHAIN_MAX = 16 };

static struct graph *chain(int n)
{
    struct ls_error err = {0};
    struct graph *g = graph_new("chain");
    int32_t h = graph_input(g, "x", LS_DT_BF16, GRAPH_DIMS(TOKENS, HID), NULL);
    for (int i = 0; i < n; i++) {
        char wn[16], yn[16];
        snprintf(wn, sizeof wn, "W%d", i);
        snprintf(yn, sizeof yn, "y%d", i);
        h = graph_matmul(g, yn, h, graph_weight(g, wn, LS_DT_BF16, GRAPH_DIMS(HID, HID), NULL));
    }
    graph_output(g, h);
    assert_int_equal(graph_validate(g, &err), 0);
    return g;
}

/* Ops load into the ring at most CG_RING_LOOKAHEAD ring-loading ops ahead: the first ring
 * load of the r-th such op depends on an instruction of the (r - CG_RING_LOOKAHEAD)-th.
 * Returns how many loads were checked. */
static int lookahead_checked(const struct sim_program *p, const struct cg_sink *s)
{
    struct sim_instr buf;
    int32_t order[64];
    int n = 0, checked = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        if (in->engine != LS_ENGINE_DMA || in->dst.mem != LS_MEM_SBUF ||
            in->dst.addr < s->ring_base || in->dst.addr >= s->ring_base + s->ring_bytes ||
            (n > 0 && order[n - 1] == in->op_tag))
            continue;
        assert_true(n < 64);
        order[n++] = in->op_tag;
        if (n <= CG_RING_LOOKAHEAD)
            continue;
        size_t nd;
        const uint32_t *d = sim_program_deps(p, i, &nd);
        int found = 0;
        for (size_t k = 0; k < nd && !found; k++)
            found = sim_program_get(p, d[k], &buf)->op_tag == order[n - 1 - CG_RING_LOOKAHEAD];
        if (!found)
            fail_msg("ring load %zu does not wait for the op %d ring-loading ops before", i,
                     CG_RING_LOOKAHEAD);
        checked++;
    }
    return checked;
}

/* Per op tag, the lowest and highest ring byte its loads write (per partition). */
static void ring_extents(const struct sim_program *p, const struct cg_sink *s, uint64_t *lo,
                         uint64_t *hi, int ntags)
{
    struct sim_instr buf;
    for (int k = 0; k < ntags; k++)
        lo[k] = UINT64_MAX, hi[k] = 0;
    for (size_t i = 0; i < sim_program_count(p); i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        uint64_t a, b;
        if (in->engine != LS_ENGINE_DMA || in->dst.mem != LS_MEM_SBUF ||
            in->dst.addr < s->ring_base || in->dst.addr >= s->ring_base + s->ring_bytes ||
            in->op_tag < 0 || in->op_tag >= ntags || sim_operand_extent(&in->dst, &a, &b))
            continue;
        lo[in->op_tag] = a < lo[in->op_tag] ? a : lo[in->op_tag];
        hi[in->op_tag] = b > hi[in->op_tag] ? b : hi[in->op_tag];
    }
}

static void test_ring_per_weight(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct sim_target t;
    struct cm_table tb;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    cm_table_default(&t, &tb);
    struct cg_options o = {0};
    /* the ring of a one-weight chain bounds the chain's length: the plan keeps activations
     * only, of the same size whatever the length */
    struct graph *g = chain(1);
    struct cm_model *m = cm_model_new(g, &t, &tb, &o);
    assert_non_null(m);
    struct cg_sink s = {0};
    cg_sink_region(&s, &t, cm_model_options(m), 0);
    cm_model_free(m);
    graph_free(g);
    const uint64_t wpart = (uint64_t)HID / 128 * HID * 2;   /* a weight's bytes per partition */
    int n = (int)(s.ring_bytes / wpart);
    n = n > CHAIN_MAX ? CHAIN_MAX : n;
    assert_true(n >= 3);
    g = chain(n);
    m = cm_model_new(g, &t, &tb, &o);
    assert_non_null(m);
    cg_sink_region(&s, &t, cm_model_options(m), 0);
    assert_true((uint64_t)n * wpart <= s.ring_bytes);
    struct cm_instance *in = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    const struct lsp_problem *p = in->p;
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    assert_non_null(cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 41);
    uint64_t lo[64], hi[64];
    int in_ring = 0, lookaheads = 0;
    for (int it = 0; it < 20; it++) {
        struct sim_program *prog = compile_random(in, &t, &tb, &r, cfg);
        ring_extents(prog, &s, lo, hi, 64);
        lookaheads += lookahead_checked(prog, &s);
        for (int a = 0; a < 64; a++) {
            if (lo[a] == UINT64_MAX)
                continue;
            in_ring++;
            assert_true(hi[a] - lo[a] <= wpart);
            for (int b = a + 1; b < 64; b++)
                if (lo[b] != UINT64_MAX && lo[a] < hi[b] && lo[b] < hi[a])
                    fail_msg("assignment %d: two weights share ring bytes [%llu, %llu) and "
                             "[%llu, %llu)", it, (unsigned long long)lo[a],
                             (unsigned long long)hi[a], (unsigned long long)lo[b],
                             (unsigned long long)hi[b]);
        }
        sim_program_free(prog);
    }
    assert_true(in_ring >= 20 * n / 2);   /* most weights of most assignments */
    assert_true(lookaheads >= 20);
    free(cfg);
    cm_instance_free(in);
    cm_model_free(m);
    graph_free(g);
}

/* A weight too large for the constant ring, read by a matmul of several activation
 * m-tiles: the configurations that stream it as the moving operand load each piece once
 * per m-tile. Under "dma_prefetch_share" the first load of a piece is discounted and a
 * reload is charged in full (costmodel/reload.c): the flags cm_program_reload_flags sets
 * are exactly the run-ahead loads whose source extent a run-ahead load of the same op
 * read before (checked here by brute force), and price == objective holds. */
static void test_prefetch_reloads(void **st)
{
    (void)st;
    struct ls_error err = {0};
    struct graph *g = one_matmul("stream", 256, 2048, 8192);
    struct sim_target t;
    struct cm_table tb;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    cm_table_default(&t, &tb);
    tb.dma_prefetch = 1;
    tb.dma_prefetch_share = 0.5;
    struct cg_options o = {0};
    struct cm_model *m = cm_model_new(g, &t, &tb, &o);
    assert_non_null(m);
    struct cm_instance *in = NULL;
    assert_int_equal(cm_instance_create(m, NULL, &in, &err), 0);
    int32_t *cfg = calloc((size_t)in->p->nops, sizeof *cfg);
    assert_non_null(cfg);
    struct ls_rng r;
    ls_rng_seed(&r, 41);
    size_t reloads = 0;
    for (int it = 0; it < 12; it++) {
        struct sim_program *prog = compile_random(in, &t, &tb, &r, cfg);
        size_t n = sim_program_count(prog);
        uint8_t *fl = calloc(n + 1, 1);
        uint64_t *lo = calloc(n + 1, sizeof *lo), *hi = calloc(n + 1, sizeof *hi);
        int32_t *tag = calloc(n + 1, sizeof *tag);
        assert_true(fl && lo && hi && tag);
        assert_int_equal(cm_program_reload_flags(&tb, &t, prog, fl), 0);
        struct sim_instr buf;
        size_t k = 0;   /* run-ahead loads so far: extents and tags */
        for (size_t i = 0; i < n; i++) {
            const struct sim_instr *ins = sim_program_get(prog, i, &buf);
            int32_t tg = ins->op_tag >= 0 ? ins->op_tag : ins->conv_tag;
            if (!weight_load(ins) || tg < 0) {
                assert_int_equal(fl[i], 0);
                continue;
            }
            assert_int_equal(sim_operand_extent(&ins->src, &lo[k], &hi[k]), 0);
            tag[k] = tg;
            int seen = 0;
            for (size_t j = 0; j < k && !seen; j++)
                seen = tag[j] == tg && lo[j] == lo[k] && hi[j] == hi[k];
            assert_int_equal(fl[i], seen ? CM_PRICE_RELOAD : 0);
            reloads += (size_t)seen;
            k++;
        }
        free(fl);
        free(lo);
        free(hi);
        free(tag);
        sim_program_free(prog);
    }
    assert_true(reloads > 0);
    free(cfg);
    cm_instance_free(in);
    cm_model_free(m);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_blocked_weight),
        cmocka_unit_test(test_ring_per_weight),
        cmocka_unit_test(test_prefetch_reloads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
