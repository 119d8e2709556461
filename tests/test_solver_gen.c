/* The problem generators: pinned outputs of the existing shapes (new options must not
 * change old seeds), the windowed random DAG's rules (inputs distinct and recent,
 * fan-in and fan-out caps, determinism) and its width bound growing with the window. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solver/gen.h"
#include "solver/problem.h"
#include "util/hash.h"
#include "util/treedec.h"

static char *to_text(const struct lsp_problem *p, size_t *len)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    assert_non_null(fp);
    assert_int_equal(lsp_write_fp(p, fp), 0);
    fclose(fp);
    *len = n;
    return buf;
}

static struct lsp_problem *gen(int shape, int32_t ops, uint64_t seed, int32_t window,
                               int32_t fanin, int32_t fanout)
{
    struct lsp_gen_opts go;
    lsp_gen_opts_init(&go);
    go.shape = shape;
    go.ops = ops;
    go.seed = seed;
    go.window = window;
    go.max_inputs = fanin;
    go.max_fanout = fanout;
    struct lsp_problem *p;
    struct ls_error err;
    if (lsp_gen(&go, &p, &err))
        fail_msg("gen shape %d ops %d: %s", shape, (int)ops, err.msg);
    assert_int_equal(p->nops, ops);
    return p;
}

static uint64_t text_hash(const struct lsp_problem *p)
{
    size_t n;
    char *t = to_text(p, &n);
    uint64_t h = ls_fnv1a64(t, n);
    free(t);
    return h;
}

/* FNV-1a-64 of the .lsp text written for each shape before the window options existed
 * (`laysim gen --shape S --ops N --seed K` gives the same bytes; checked against the
 * binary built before the change). */
static void test_pinned_outputs(void **state)
{
    (void)state;
    static const struct {
        int shape;
        int32_t ops;
        uint64_t seed;
        uint64_t hash;
    } pin[] = {
        {LSP_GEN_TRANSFORMER, 200, 7, 0x98abb3e0a3c9ec41ULL},
        {LSP_GEN_CNN, 200, 7, 0xe33c3a70bf5a70c1ULL},
        {LSP_GEN_RANDOM, 200, 7, 0x199dedfb4a34ab3aULL},
        {LSP_GEN_RANDOM, 37, 2, 0xc5601c110537cd9aULL},
        {LSP_GEN_SAT, 200, 7, 0x85c52a681bb20c48ULL},
        {LSP_GEN_OCT, 200, 7, 0xd2b3ec71f436e2c0ULL},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof pin / sizeof pin[0]; i++) {
        struct lsp_problem *p = gen(pin[i].shape, pin[i].ops, pin[i].seed, 0, 0, 0);
        uint64_t h = text_hash(p);
        if (h != pin[i].hash) {
            print_message("shape %d ops %d seed %llu: hash 0x%016llxULL\n", pin[i].shape,
                          (int)pin[i].ops, (unsigned long long)pin[i].seed,
                          (unsigned long long)h);
            bad++;
        }
        lsp_free(p);
    }
    assert_int_equal(bad, 0);
}

/* Rank of each tensor in production order (tensor ids are assigned as ops produce them,
 * but do not rely on it). */
static int32_t *production_rank(const struct lsp_problem *p)
{
    int32_t *rank = malloc((size_t)p->ntensors * sizeof *rank);
    assert_non_null(rank);
    int32_t r = 0;
    for (int32_t o = 0; o < p->nops; o++)
        if (p->ops[o].out >= 0)
            rank[p->ops[o].out] = r++;
    assert_int_equal(r, p->ntensors);
    return rank;
}

static void test_window_rules(void **state)
{
    (void)state;
    static const int32_t cases[][3] = {{1, 3, 0}, {4, 3, 0}, {6, 2, 0}, {8, 5, 2}, {3, 1, 1},
                                       {10, 4, 3}, {500, 3, 0}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        int32_t W = cases[c][0], K = cases[c][1], F = cases[c][2];
        struct lsp_problem *p = gen(LSP_GEN_RANDOM, 400, 11 + c, W, K, F);
        int32_t *rank = production_rank(p);
        int32_t *uses = calloc((size_t)p->ntensors, sizeof *uses);
        assert_non_null(uses);
        int32_t produced = 0, sources = 0, maxin = 0;
        for (int32_t o = 0; o < p->nops; o++) {
            const struct lsp_op *op = &p->ops[o];
            assert_true(op->nin <= K);
            if (op->nin == 0)
                sources++;
            if (op->nin > maxin)
                maxin = op->nin;
            for (int32_t s = 0; s < op->nin; s++) {
                int32_t t = op->in[s];
                /* among the last W tensors produced before this op */
                assert_true(rank[t] < produced);
                assert_true(rank[t] >= produced - W);
                for (int32_t s2 = 0; s2 < s; s2++)
                    assert_int_not_equal(op->in[s2], t);   /* distinct */
                uses[t]++;
                if (F > 0)
                    assert_true(uses[t] <= F);
            }
            if (op->out >= 0)
                produced++;
        }
        /* without a fan-out cap only the first op is a source */
        if (F == 0)
            assert_int_equal(sources, 1);
        assert_int_equal(maxin, K < W ? K : W);   /* the cap is reached on 400 ops */
        free(uses);
        free(rank);
        lsp_free(p);
    }
}

static void test_window_deterministic(void **state)
{
    (void)state;
    struct lsp_problem *a = gen(LSP_GEN_RANDOM, 300, 5, 6, 3, 0);
    struct lsp_problem *b = gen(LSP_GEN_RANDOM, 300, 5, 6, 3, 0);
    struct lsp_problem *c = gen(LSP_GEN_RANDOM, 300, 6, 6, 3, 0);
    struct lsp_problem *d = gen(LSP_GEN_RANDOM, 300, 5, 0, 3, 0);   /* no window */
    assert_true(text_hash(a) == text_hash(b));
    assert_true(text_hash(a) != text_hash(c));
    assert_true(text_hash(a) != text_hash(d));
    lsp_free(a);
    lsp_free(b);
    lsp_free(c);
    lsp_free(d);
}

/* Width bound (util/treedec, the one definition) of the op graph: an edge between the
 * producer and each consumer op of every tensor. */
static int32_t op_graph_width(const struct lsp_problem *p)
{
    size_t n = 0;
    for (int32_t o = 0; o < p->nops; o++)
        n += (size_t)p->ops[o].nin;
    int32_t *e = malloc((n ? n : 1) * 2 * sizeof *e);
    assert_non_null(e);
    size_t k = 0;
    for (int32_t o = 0; o < p->nops; o++)
        for (int32_t s = 0; s < p->ops[o].nin; s++) {
            e[2 * k] = p->tensors[p->ops[o].in[s]].producer;
            e[2 * k + 1] = o;
            k++;
        }
    int32_t w;
    struct ls_error err;
    assert_int_equal(ls_treewidth_ub(p->nops, e, n, &w, &err), 0);
    free(e);
    return w;
}

static void test_window_width_grows(void **state)
{
    (void)state;
    static const int32_t windows[] = {1, 2, 4, 8, 12};
    for (uint64_t seed = 1; seed <= 3; seed++) {
        int32_t prev = -1;
        for (size_t i = 0; i < sizeof windows / sizeof windows[0]; i++) {
            int32_t W = windows[i];
            struct lsp_problem *p = gen(LSP_GEN_RANDOM, 1500, seed, W, 3, 0);
            int32_t w = op_graph_width(p);
            print_message("seed %llu window %d: width bound %d\n", (unsigned long long)seed,
                          (int)W, (int)w);
            assert_true(w > prev);              /* grows with the window */
            assert_true(w <= W + 2);            /* and stays near it */
            if (W == 1)
                assert_int_equal(w, 1);         /* a path-like chain: a forest */
            if (W == 12)
                assert_true(w >= 9);            /* bounds up to ~10 are reachable */
            prev = w;
            lsp_free(p);
        }
    }
    /* the width does not grow with the size at a fixed window */
    struct lsp_problem *small = gen(LSP_GEN_RANDOM, 500, 9, 6, 3, 0);
    struct lsp_problem *big = gen(LSP_GEN_RANDOM, 20000, 9, 6, 3, 0);
    int32_t ws = op_graph_width(small), wb = op_graph_width(big);
    assert_true(wb <= 8 && ws <= 8);
    lsp_free(small);
    lsp_free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pinned_outputs),
        cmocka_unit_test(test_window_rules),
        cmocka_unit_test(test_window_deterministic),
        cmocka_unit_test(test_window_width_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
