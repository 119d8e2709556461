/* The abstract autotuner (solver/tune.h) against a synthetic reward: the .lsp objective of
 * the same problem under a hidden, perturbed cost matrix (a "hardware" the static costs
 * only approximate). The problems are small enough to enumerate every design. */
#include <math.h>
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
#include "solver/solver.h"
#include "solver/tune.h"
#include "util/hash.h"
#include "util/prng.h"
#include "util/vec.h"

/* ---- the synthetic reward ------------------------------------------------------------ */

struct hidden {
    struct lsp_problem *p;       /* same structure as the visible problem, other costs */
    int32_t nops;
    /* call log: every assignment's hash, to check that none is evaluated twice */
    uint64_t *log;
    size_t nlog, cap;
    uint64_t chain;              /* running hash of the evaluation order */
    int fail_at;                 /* > 0: the fail_at-th call returns an error */
    int32_t bad_op, bad_cfg;     /* assignments with cfg bad_cfg at bad_op cannot run */
};

static int hidden_eval(void *ctx, const int32_t *a, double *cycles, struct ls_error *err)
{
    struct hidden *h = ctx;
    assert_int_equal(LS_ARRAY_RESERVE(h->log, h->cap, h->nlog + 1), 0);
    uint64_t k = lsp_tune_assignment_hash(a, h->nops);
    h->log[h->nlog++] = k;
    h->chain = ls_hash_mix64(h->chain ^ k);
    if (h->fail_at > 0 && (int)h->nlog == h->fail_at)
        return ls_error_msg(err, LS_ERR_IO, "simulated failure");
    if (h->bad_op >= 0 && a[h->bad_op] == h->bad_cfg) {
        *cycles = HUGE_VAL;
        return 0;
    }
    *cycles = (double)lsp_eval(h->p, a, NULL, NULL);
    return 0;
}

/* A random problem and its hidden twin: every op and transpose cost scaled by a factor
 * in [0.3, 2.0] (at least 1 so the static prior stays informative but wrong). */
static void make_pair(uint64_t seed, int32_t ops, int32_t max_cfg, struct lsp_problem **vis,
                      struct hidden *h)
{
    struct lsp_gen_opts go;
    lsp_gen_opts_init(&go);
    go.shape = LSP_GEN_RANDOM;
    go.ops = ops;
    go.seed = seed;
    go.max_cfg = max_cfg;
    go.max_layouts = 3;
    go.max_cost = 40;
    struct ls_error err = {0};
    assert_int_equal(lsp_gen(&go, vis, &err), 0);
    memset(h, 0, sizeof *h);
    assert_int_equal(lsp_gen(&go, &h->p, &err), 0);
    h->nops = h->p->nops;
    h->bad_op = -1;
    struct ls_rng r;
    ls_rng_seed(&r, seed * 7919 + 13);
    for (int64_t i = 0; i < h->p->ncfg; i++)
        h->p->cfg_cost[i] = (int64_t)llround((double)h->p->cfg_cost[i] * (0.3 + 1.7 * ls_rng_double(&r)));
    for (int64_t i = 0; i < h->p->ntr; i++)
        h->p->tr[i] = (int64_t)llround((double)h->p->tr[i] * (0.3 + 1.7 * ls_rng_double(&r)));
}

static void hidden_free(struct hidden *h)
{
    lsp_free(h->p);
    free(h->log);
    memset(h, 0, sizeof *h);
}

static void hidden_reset_log(struct hidden *h)
{
    h->nlog = 0;
    h->chain = 0;
}

/* The static solver's answer as the start. */
static int32_t *solve_start(const struct lsp_problem *p, const char *solver)
{
    struct lsp_solve_opts so;
    lsp_opts_init(&so);
    struct lsp_result r;
    struct ls_error err = {0};
    assert_int_equal(lsp_solve(solver, p, &so, &r, &err), 0);
    int32_t *s = malloc(sizeof *s * (size_t)p->nops);
    memcpy(s, r.sol.cfg, sizeof *s * (size_t)p->nops);
    lsp_result_free(&r);
    return s;
}

/* Next design in mixed-radix order; 0 after the last. */
static int next_design(const struct lsp_tune_space *s, int32_t *d)
{
    for (int32_t i = 0; i < lsp_tune_space_npoints(s); i++) {
        if (++d[i] < lsp_tune_space_point(s, i)->nplans)
            return 1;
        d[i] = 0;
    }
    return 0;
}

/* Best reward over every design of s. */
static double enumerate_best(const struct lsp_tune_space *s, struct hidden *h)
{
    int32_t np = lsp_tune_space_npoints(s), nops = lsp_tune_space_problem(s)->nops;
    int32_t *d = calloc((size_t)np + 1, sizeof *d), *a = malloc(sizeof *a * (size_t)nops);
    double best = HUGE_VAL;
    do {
        lsp_tune_design_apply(s, d, a);
        double c = (double)lsp_eval(h->p, a, NULL, NULL);
        if (c < best)
            best = c;
    } while (next_design(s, d));
    free(d);
    free(a);
    return best;
}

static double product_ncfg(const struct lsp_problem *p)
{
    double s = 1;
    for (int32_t o = 0; o < p->nops; o++)
        s *= p->ops[o].ncfg;
    return s;
}

static struct lsp_tune_space *space_of(const struct lsp_problem *p, const int32_t *start,
                                       int32_t group_max_ops, int32_t top_k)
{
    struct lsp_tune_space_opts so;
    lsp_tune_space_opts_init(&so);
    so.group_max_ops = group_max_ops;
    so.top_k = top_k;
    struct lsp_tune_space *s = NULL;
    struct ls_error err = {0};
    assert_int_equal(lsp_tune_space_build(p, start, &so, &s, &err), 0);
    return s;
}

static void run(const struct lsp_tune_space *s, struct hidden *h, const char *explorer,
                uint64_t seed, uint64_t budget, struct lsp_tune_result *r)
{
    struct lsp_tune_opts o;
    lsp_tune_opts_init(&o);
    o.explorer = explorer;
    o.seed = seed;
    o.max_evaluations = budget;
    struct ls_error err = {0};
    lsp_tune_result_init(r);
    assert_int_equal(lsp_tune_run(s, hidden_eval, h, &o, r, &err), 0);
}

/* No assignment in the call log twice. */
static void assert_no_repeat(const struct hidden *h)
{
    for (size_t i = 0; i < h->nlog; i++)
        for (size_t j = i + 1; j < h->nlog; j++)
            assert_true(h->log[i] != h->log[j]);
}

/* ---- tuning points and designs ------------------------------------------------------- */

/* Per-op points cover every assignment exactly once; plan 0 is the start; plans 1.. are in
 * static-cost order with the right costs. */
static void test_space_per_op(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(3, 9, 3, &p, &h);
    int32_t *start = solve_start(p, "greedy");
    struct lsp_tune_space *s = space_of(p, start, 1, 0);
    int32_t np = lsp_tune_space_npoints(s);
    double expect = product_ncfg(p);
    assert_true(expect > 50 && expect < 50000);
    assert_true(fabs(pow(10, lsp_tune_space_log10_size(s)) - expect) < 1e-6 * expect);
    assert_int_equal(lsp_tune_space_size(s), (uint64_t)expect);
    int32_t tuned = 0;
    for (int32_t o = 0; o < p->nops; o++)
        tuned += p->ops[o].ncfg > 1;
    assert_int_equal(np, tuned);
    int32_t *d = calloc((size_t)np + 1, sizeof *d), *a = malloc(sizeof *a * (size_t)p->nops);
    for (int32_t i = 0; i < np; i++) {
        const struct lsp_tune_point *pt = lsp_tune_space_point(s, i);
        assert_int_equal(pt->nops, 1);
        assert_int_equal(pt->nplans, p->ops[pt->ops[0]].ncfg);
        assert_int_equal(pt->plan_cfg[0], start[pt->ops[0]]);
        for (int32_t j = 0; j < pt->nplans; j++) {
            memset(d, 0, sizeof *d * (size_t)np);
            d[i] = j;
            lsp_tune_design_apply(s, d, a);
            assert_int_equal(lsp_eval(p, a, NULL, NULL), pt->plan_cost[j]);
            if (j >= 2)
                assert_true(pt->plan_cost[j - 1] <= pt->plan_cost[j]);
        }
    }
    /* every design gives a distinct assignment: count distinct hashes */
    size_t n = 0, cap = (size_t)expect;
    uint64_t *seen = malloc(sizeof *seen * cap);
    memset(d, 0, sizeof *d * (size_t)np);
    lsp_tune_design_apply(s, d, a);
    assert_memory_equal(a, start, sizeof *a * (size_t)p->nops);
    do {
        lsp_tune_design_apply(s, d, a);
        seen[n++] = lsp_tune_assignment_hash(a, p->nops);
    } while (next_design(s, d));
    assert_int_equal(n, cap);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_true(seen[i] != seen[j]);
    free(seen);
    free(d);
    free(a);
    free(start);
    lsp_tune_space_free(s);
    lsp_free(p);
    hidden_free(&h);
}

/* Groups: connected, at most group_max_ops ops; with top_k = 0 they still cover the whole
 * space; with top_k = K the plans are the K cheapest joint assignments (brute force). */
static void test_space_groups(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(5, 10, 3, &p, &h);
    int32_t *start = solve_start(p, "local");
    struct lsp_tune_space *all = space_of(p, start, 3, 0);
    int32_t multi = 0;
    for (int32_t i = 0; i < lsp_tune_space_npoints(all); i++) {
        const struct lsp_tune_point *pt = lsp_tune_space_point(all, i);
        assert_true(pt->nops >= 1 && pt->nops <= 3);
        multi += pt->nops > 1;
        double prod = 1;
        for (int32_t k = 0; k < pt->nops; k++) {
            prod *= p->ops[pt->ops[k]].ncfg;
            if (k)
                assert_true(pt->ops[k - 1] < pt->ops[k]);
        }
        assert_int_equal(pt->nplans, (int32_t)prod);
    }
    assert_true(multi > 0);
    assert_int_equal(lsp_tune_space_size(all), (uint64_t)product_ncfg(p));

    /* top 2 per group: check against brute force over each group's joint assignments */
    struct lsp_tune_space *top = space_of(p, start, 3, 2);
    int32_t *a = malloc(sizeof *a * (size_t)p->nops);
    for (int32_t i = 0; i < lsp_tune_space_npoints(top); i++) {
        const struct lsp_tune_point *pt = lsp_tune_space_point(top, i);
        assert_true(pt->nplans >= 2 && pt->nplans <= 3);
        /* the cheapest non-start joint cost by brute force */
        int32_t idx[3] = {0, 0, 0};
        int64_t best1 = INT64_MAX, best2 = INT64_MAX;
        for (;;) {
            memcpy(a, start, sizeof *a * (size_t)p->nops);
            int same = 1;
            for (int32_t k = 0; k < pt->nops; k++) {
                a[pt->ops[k]] = idx[k];
                same &= idx[k] == start[pt->ops[k]];
            }
            if (!same) {
                int64_t c = lsp_eval(p, a, NULL, NULL);
                if (c < best1) {
                    best2 = best1;
                    best1 = c;
                } else if (c < best2) {
                    best2 = c;
                }
            }
            int32_t k = 0;
            for (; k < pt->nops; k++) {
                if (++idx[k] < p->ops[pt->ops[k]].ncfg)
                    break;
                idx[k] = 0;
            }
            if (k == pt->nops)
                break;
        }
        assert_int_equal(pt->plan_cost[1], best1);
        if (pt->nplans == 3)
            assert_int_equal(pt->plan_cost[2], best2);
        for (int32_t j = 0; j < pt->nplans; j++) {   /* plan costs are what they claim */
            memcpy(a, start, sizeof *a * (size_t)p->nops);
            for (int32_t k = 0; k < pt->nops; k++)
                a[pt->ops[k]] = pt->plan_cfg[(int64_t)j * pt->nops + k];
            assert_int_equal(lsp_eval(p, a, NULL, NULL), pt->plan_cost[j]);
        }
    }
    free(a);
    free(start);
    lsp_tune_space_free(all);
    lsp_tune_space_free(top);
    lsp_free(p);
    hidden_free(&h);
}

/* Explicit groups and bad options. */
static void test_space_explicit(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(8, 8, 3, &p, &h);
    int32_t *start = solve_start(p, "greedy");
    int32_t group[8];
    for (int32_t o = 0; o < 8; o++)
        group[o] = o < 4 ? 7 : -1;   /* one point: the first four ops */
    struct lsp_tune_space_opts so;
    lsp_tune_space_opts_init(&so);
    so.group = group;
    so.top_k = 0;
    struct lsp_tune_space *s = NULL;
    struct ls_error err = {0};
    assert_int_equal(lsp_tune_space_build(p, start, &so, &s, &err), 0);
    double prod = 1;
    for (int32_t o = 0; o < 4; o++)
        prod *= p->ops[o].ncfg;
    if (prod > 1) {
        assert_int_equal(lsp_tune_space_npoints(s), 1);
        assert_int_equal(lsp_tune_space_point(s, 0)->nops, 4);
        assert_int_equal(lsp_tune_space_point(s, 0)->nplans, (int32_t)prod);
    }
    lsp_tune_space_free(s);
    group[2] = -5;
    s = NULL;
    assert_int_equal(lsp_tune_space_build(p, start, &so, &s, &err), LS_ERR_INPUT);
    assert_null(s);
    so.group = NULL;
    so.group_max_ops = 0;
    assert_int_equal(lsp_tune_space_build(p, start, &so, &s, &err), LS_ERR_INPUT);
    lsp_tune_space_opts_init(&so);
    start[0] = p->ops[0].ncfg;     /* out of range */
    assert_int_equal(lsp_tune_space_build(p, start, &so, &s, &err), LS_ERR_INPUT);
    assert_null(s);
    free(start);
    lsp_free(p);
    hidden_free(&h);
}

/* ---- search -------------------------------------------------------------------------- */

/* MCTS finds the optimum of the hidden reward within a quarter of the design space, on
 * five problems, each for three tuner seeds; the evaluation log never repeats. */
static void test_mcts_finds_optimum(void **state)
{
    (void)state;
    for (uint64_t ps = 1; ps <= 5; ps++) {
        struct lsp_problem *p;
        struct hidden h;
        make_pair(100 + ps, 12, 3, &p, &h);
        int32_t *start = solve_start(p, "exact");
        struct lsp_tune_space *s = space_of(p, start, 1, 0);
        uint64_t size = lsp_tune_space_size(s);
        assert_true(size >= 64);
        double opt = enumerate_best(s, &h);
        for (uint64_t seed = 1; seed <= 3; seed++) {
            struct lsp_tune_result r;
            hidden_reset_log(&h);
            run(s, &h, "mcts", seed, size / 4, &r);
            if (r.best_cycles != opt)
                print_message("problem %llu seed %llu: size %llu, best %.0f, optimum %.0f\n",
                              (unsigned long long)ps, (unsigned long long)seed,
                              (unsigned long long)size, r.best_cycles, opt);
            assert_true(r.best_cycles == opt);
            assert_true(r.evaluations <= size / 4);
            if (seed == 1)
                print_message("problem %llu: %llu designs, optimum at evaluation %llu\n",
                              (unsigned long long)ps, (unsigned long long)size,
                              (unsigned long long)r.best_at);
            assert_int_equal(r.callbacks, r.evaluations);
            assert_int_equal(h.nlog, r.evaluations);
            assert_no_repeat(&h);
            assert_true((double)lsp_eval(h.p, r.best_assignment, NULL, NULL) == r.best_cycles);
            lsp_tune_result_free(&r);
        }
        free(start);
        lsp_tune_space_free(s);
        lsp_free(p);
        hidden_free(&h);
    }
}

/* At an equal, small budget MCTS ends better than random search on average over five
 * seeds (summed over several problems). */
static void test_mcts_beats_random(void **state)
{
    (void)state;
    double sum_mcts = 0, sum_random = 0;
    for (uint64_t ps = 1; ps <= 4; ps++) {
        struct lsp_problem *p;
        struct hidden h;
        make_pair(200 + ps, 12, 3, &p, &h);
        int32_t *start = solve_start(p, "rulebased");
        struct lsp_tune_space *s = space_of(p, start, 1, 0);
        uint64_t budget = lsp_tune_space_size(s) / 50;
        assert_true(budget >= 20);
        for (uint64_t seed = 1; seed <= 5; seed++) {
            struct lsp_tune_result rm, rr;
            run(s, &h, "mcts", seed, budget, &rm);
            run(s, &h, "random", seed, budget, &rr);
            assert_int_equal(rm.evaluations, budget);
            assert_int_equal(rr.evaluations, budget);
            sum_mcts += rm.best_cycles / rm.start_cycles;
            sum_random += rr.best_cycles / rr.start_cycles;
            lsp_tune_result_free(&rm);
            lsp_tune_result_free(&rr);
        }
        free(start);
        lsp_tune_space_free(s);
        lsp_free(p);
        hidden_free(&h);
    }
    print_message("mean best/start: mcts %.4f random %.4f\n", sum_mcts / 20, sum_random / 20);
    assert_true(sum_mcts < sum_random);
}

/* Never worse than the start (even from a bad start, with any explorer and budget), the
 * start is the first evaluation, a budget of 1 returns the start, and a budget beyond the
 * space exhausts it and finds the optimum with every explorer. */
static void test_never_worse(void **state)
{
    (void)state;
    const char *ex[] = {"mcts", "random", "sweep"};
    for (uint64_t ps = 1; ps <= 3; ps++) {
        struct lsp_problem *p;
        struct hidden h;
        make_pair(300 + ps, 8, 3, &p, &h);
        int32_t *start = solve_start(p, ps == 1 ? "local" : "exact");
        struct lsp_tune_space *s = space_of(p, start, ps == 3 ? 2 : 1, 0);
        double start_reward = (double)lsp_eval(h.p, start, NULL, NULL);
        double opt = enumerate_best(s, &h);
        uint64_t size = lsp_tune_space_size(s);
        for (int e = 0; e < 3; e++) {
            for (uint64_t budget = 1; budget <= 9; budget += 4) {
                struct lsp_tune_result r;
                hidden_reset_log(&h);
                run(s, &h, ex[e], 7, budget, &r);
                assert_true(r.start_cycles == start_reward);
                assert_true(r.best_cycles <= r.start_cycles);
                assert_true(h.log[0] == lsp_tune_assignment_hash(start, p->nops));
                if (budget == 1) {
                    assert_int_equal(r.evaluations, 1);
                    assert_memory_equal(r.best_assignment, start, sizeof *start * (size_t)p->nops);
                    assert_int_equal(r.best_at, 1);
                }
                lsp_tune_result_free(&r);
            }
            struct lsp_tune_result r;
            hidden_reset_log(&h);
            run(s, &h, ex[e], 3, size * 2, &r);
            assert_true(r.exhausted);
            assert_int_equal(r.evaluations, size);
            assert_true(r.best_cycles == opt);
            assert_no_repeat(&h);
            lsp_tune_result_free(&r);
        }
        free(start);
        lsp_tune_space_free(s);
        lsp_free(p);
        hidden_free(&h);
    }
}

/* Same seed and count budget: same evaluation order and result. */
static void test_determinism(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(42, 12, 3, &p, &h);
    int32_t *start = solve_start(p, "greedy");
    struct lsp_tune_space *s = space_of(p, start, 2, 4);
    const char *ex[] = {"mcts", "random", "sweep"};
    for (int e = 0; e < 3; e++) {
        struct lsp_tune_result a, b, c;
        hidden_reset_log(&h);
        run(s, &h, ex[e], 11, 60, &a);
        uint64_t chain_a = h.chain;
        hidden_reset_log(&h);
        run(s, &h, ex[e], 11, 60, &b);
        assert_int_equal(h.chain, chain_a);
        assert_true(a.best_cycles == b.best_cycles);
        assert_int_equal(a.evaluations, b.evaluations);
        assert_int_equal(a.iterations, b.iterations);
        assert_memory_equal(a.best_design, b.best_design, sizeof(int32_t) * (size_t)a.npoints);
        hidden_reset_log(&h);
        run(s, &h, ex[e], 12, 60, &c);
        if (e < 2)   /* the seed matters */
            assert_true(h.chain != chain_a);
        lsp_tune_result_free(&a);
        lsp_tune_result_free(&b);
        lsp_tune_result_free(&c);
    }
    free(start);
    lsp_tune_space_free(s);
    lsp_free(p);
    hidden_free(&h);
}

/* ---- the store hook, errors, unrunnable designs -------------------------------------- */

struct fake_store {
    uint64_t key[4096];
    double val[4096];
    int n, lookups, saves;
};

static int fs_lookup(void *ctx, const int32_t *a, int32_t nops, uint64_t hash, double *cycles,
                     int *found, struct ls_error *err)
{
    struct fake_store *f = ctx;
    assert_true(hash == lsp_tune_assignment_hash(a, nops) || hash == 1);
    f->lookups++;
    *found = 0;
    for (int i = 0; i < f->n; i++)
        if (f->key[i] == hash) {
            *found = 1;
            *cycles = f->val[i];
        }
    return 0;
}

static int fs_save(void *ctx, const int32_t *a, int32_t nops, uint64_t hash, double cycles,
                   struct ls_error *err)
{
    struct fake_store *f = ctx;
    assert_true(f->n < 4096);
    f->saves++;
    f->key[f->n] = hash;
    f->val[f->n++] = cycles;
    return 0;
}

static void test_store(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(77, 10, 3, &p, &h);
    int32_t *start = solve_start(p, "exact");
    struct lsp_tune_space *s = space_of(p, start, 1, 0);
    struct fake_store *f = calloc(1, sizeof *f);
    struct lsp_tune_store st = {f, fs_lookup, fs_save};
    struct lsp_tune_opts o;
    lsp_tune_opts_init(&o);
    o.max_evaluations = 40;
    o.store = &st;
    struct lsp_tune_result a, b, c;
    struct ls_error err = {0};
    lsp_tune_result_init(&a);
    lsp_tune_result_init(&b);
    lsp_tune_result_init(&c);
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &a, &err), 0);
    assert_int_equal(a.callbacks, 40);
    assert_int_equal(f->saves, 40);
    assert_int_equal(a.store_hits, 0);
    hidden_reset_log(&h);
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &b, &err), 0);
    assert_int_equal(b.callbacks, 0);          /* everything came from the store */
    assert_int_equal(h.nlog, 0);
    assert_int_equal(b.store_hits, 40);
    assert_true(a.best_cycles == b.best_cycles);
    assert_memory_equal(a.best_design, b.best_design, sizeof(int32_t) * (size_t)a.npoints);
    /* a larger budget reuses the 40 and simulates only the rest */
    o.max_evaluations = 60;
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &c, &err), 0);
    assert_int_equal(c.store_hits, 40);
    assert_int_equal(c.callbacks, 20);
    assert_true(c.best_cycles <= a.best_cycles);
    lsp_tune_result_free(&a);
    lsp_tune_result_free(&b);
    lsp_tune_result_free(&c);
    free(f);
    free(start);
    lsp_tune_space_free(s);
    lsp_free(p);
    hidden_free(&h);
}

static void progress_count(void *ctx, const struct lsp_tune_progress *pr)
{
    uint64_t *n = ctx;
    assert_int_equal(pr->evaluations, *n + 1);
    assert_true(pr->best_cycles <= pr->start_cycles);
    (*n)++;
}

static void test_errors(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(91, 9, 3, &p, &h);
    int32_t *start = solve_start(p, "exact");
    struct lsp_tune_space *s = space_of(p, start, 1, 0);
    struct lsp_tune_opts o;
    lsp_tune_opts_init(&o);
    struct lsp_tune_result r;
    lsp_tune_result_init(&r);
    struct ls_error err = {0};
    o.explorer = "annealing";
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &r, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "annealing"));
    o.explorer = "mcts";
    o.rollout_mutations = -1;
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &r, &err), LS_ERR_INPUT);
    o.rollout_mutations = 1.5;
    /* a failing callback stops the run with its error; the best so far is kept */
    h.fail_at = 5;
    o.max_evaluations = 30;
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &r, &err), LS_ERR_IO);
    assert_int_equal(r.evaluations, 4);
    assert_true(r.best_cycles <= r.start_cycles);
    h.fail_at = 0;
    /* unrunnable designs (HUGE_VAL) are scored but never returned */
    hidden_reset_log(&h);
    h.bad_op = lsp_tune_space_point(s, 0)->ops[0];
    h.bad_cfg = lsp_tune_space_point(s, 0)->plan_cfg[1];
    uint64_t seen = 0;
    o.progress = progress_count;
    o.progress_ctx = &seen;
    o.max_evaluations = 0;             /* no budget: runs until the space is exhausted */
    assert_int_equal(lsp_tune_run(s, hidden_eval, &h, &o, &r, &err), 0);
    assert_true(r.exhausted);
    assert_int_equal(seen, r.evaluations);
    assert_true(isfinite(r.best_cycles));
    assert_true(r.best_assignment[h.bad_op] != h.bad_cfg);
    /* a time limit ends a run without an evaluation budget */
    struct lsp_problem *big;
    struct hidden hb;
    make_pair(92, 60, 4, &big, &hb);
    int32_t *sb = solve_start(big, "greedy");
    struct lsp_tune_space *S = space_of(big, sb, 1, 0);
    assert_int_equal(lsp_tune_space_size(S), 0);   /* beyond 2^62 */
    o.progress = NULL;
    o.time_limit = 0.2;
    assert_int_equal(lsp_tune_run(S, hidden_eval, &hb, &o, &r, &err), 0);
    assert_true(r.timed_out);
    assert_false(r.exhausted);
    assert_true(r.evaluations > 1);
    lsp_tune_result_free(&r);
    free(sb);
    lsp_tune_space_free(S);
    lsp_free(big);
    hidden_free(&hb);
    free(start);
    lsp_tune_space_free(s);
    lsp_free(p);
    hidden_free(&h);
}

/* A space with no points: only the start is scored. */
static void test_empty_space(void **state)
{
    (void)state;
    struct lsp_problem *p = lsp_new();
    struct ls_error err = {0};
    int32_t t, o;
    assert_int_equal(lsp_add_tensor(p, "x", 1, NULL, NULL, &t, &err), 0);
    assert_int_equal(lsp_add_op(p, "src", "source", 0, NULL, t, &o, &err), 0);
    assert_int_equal(lsp_add_cfg(p, o, 5, (int32_t[]){0}, NULL, &err), 0);
    assert_int_equal(lsp_finish(p, &err), 0);
    int32_t start = 0;
    struct lsp_tune_space *s = space_of(p, &start, 1, 0);
    assert_int_equal(lsp_tune_space_npoints(s), 0);
    assert_int_equal(lsp_tune_space_size(s), 1);
    struct hidden h = {.p = p, .nops = 1, .bad_op = -1};
    struct lsp_tune_result r;
    run(s, &h, "mcts", 1, 10, &r);
    assert_int_equal(r.evaluations, 1);
    assert_true(r.exhausted);
    assert_true(r.best_cycles == 5);
    lsp_tune_result_free(&r);
    free(h.log);
    lsp_tune_space_free(s);
    lsp_free(p);
}

static int reject_all(void *ctx, const int32_t *a, double *cycles, struct ls_error *err)
{
    *cycles = HUGE_VAL;
    return 0;
}

static const char *reject_note(void *ctx)
{
    return "no such hardware";
}

/* The autotuner as the registered solver mcts: no reward, no run; with one, the same run
 * as lsp_tune_run from rulebased's start (or from the warm start). */
static void test_as_solver(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct hidden h;
    make_pair(77, 8, 3, &p, &h);
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    struct lsp_result r;
    struct ls_error err = {0};
    assert_int_equal(lsp_solve("mcts", p, &o, &r, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "needs a MODEL"));
    lsp_result_free(&r);

    o.reward = hidden_eval;
    o.reward_ctx = &h;
    o.seed = 5;
    assert_int_equal(lsp_opts_add_param(&o, "tune.evaluations=9", &err), 0);
    assert_int_equal(lsp_solve("mcts", p, &o, &r, &err), 0);
    assert_int_equal(r.sol.status, LSP_FEASIBLE);
    int32_t *start = solve_start(p, "rulebased");
    struct lsp_tune_space *s = space_of(p, start, 1, 16);
    struct lsp_tune_result tr;
    run(s, &h, "mcts", 5, 9, &tr);
    assert_memory_equal(r.sol.cfg, tr.best_assignment, sizeof *start * (size_t)p->nops);
    assert_true(*lsp_stats_get(&r.stats, "best_cycles") == tr.best_cycles);
    assert_true(*lsp_stats_get(&r.stats, "start_cycles") == tr.start_cycles);
    assert_true(*lsp_stats_get(&r.stats, "evaluations") == (double)tr.evaluations);
    assert_true(*lsp_stats_get(&r.stats, "simulations") == (double)tr.callbacks);
    assert_true(*lsp_stats_get(&r.stats, "tuning_points") == lsp_tune_space_npoints(s));
    lsp_tune_result_free(&tr);
    lsp_tune_space_free(s);
    free(start);
    lsp_result_free(&r);

    /* a warm start replaces the start solver */
    start = solve_start(p, "local");
    struct lsp_solution ws = {.nops = p->nops, .cfg = start};
    o.start = &ws;
    assert_int_equal(lsp_solve("mcts", p, &o, &r, &err), 0);
    assert_true(*lsp_stats_get(&r.stats, "start_cycles") ==
                (double)lsp_eval(h.p, start, NULL, NULL));
    lsp_result_free(&r);
    free(start);
    o.start = NULL;

    /* foreign params, an unknown start solver, a reward that rejects everything */
    struct lsp_solve_opts bad = o;
    assert_int_equal(lsp_opts_add_param(&bad, "rb.x=1", &err), 0);
    assert_int_equal(lsp_solve("mcts", p, &bad, &r, &err), LS_ERR_INPUT);
    lsp_result_free(&r);
    bad = o;
    assert_int_equal(lsp_opts_add_param(&bad, "tune.start=nosuch", &err), 0);
    assert_int_equal(lsp_solve("mcts", p, &bad, &r, &err), LS_ERR_INPUT);
    lsp_result_free(&r);
    bad = o;
    bad.reward = reject_all;
    bad.reward_note = reject_note;
    assert_int_equal(lsp_solve("mcts", p, &bad, &r, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "the first: no such hardware"));
    lsp_result_free(&r);
    lsp_free(p);
    hidden_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_space_per_op),     cmocka_unit_test(test_space_groups),
        cmocka_unit_test(test_space_explicit),   cmocka_unit_test(test_mcts_finds_optimum),
        cmocka_unit_test(test_mcts_beats_random), cmocka_unit_test(test_never_worse),
        cmocka_unit_test(test_determinism),      cmocka_unit_test(test_store),
        cmocka_unit_test(test_errors),           cmocka_unit_test(test_empty_space),
        cmocka_unit_test(test_as_solver),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
