/* Tests of the exact solvers (exact, dp, z3) against brute force on random tiny
 * instances, plus their limits (memory budget, node limit) and determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "solver/exact_dee.h"
#include "solver/export.h"
#include "solver/gen.h"
#include "solver/mip_model.h"
#include "solver/problem.h"
#include "solver/solver.h"
#include "util/prng.h"

/* A random problem: up to maxops ops, 1..maxl layouts per tensor, inputs drawn from
 * earlier tensors (repeats allowed), biased towards tensor 0 when crowd is set so it
 * gets many co-consumers; at most maxcfg configurations per op (duplicate tuples allowed). */
static struct lsp_problem *random_problem(struct ls_rng *rng, int maxops, int maxl, int maxcfg,
                                          int crowd)
{
    struct ls_error err;
    struct lsp_problem *p = lsp_new();
    assert_non_null(p);
    int nops = 1 + (int)ls_rng_below(rng, (uint64_t)maxops);
    int32_t tens[64];
    int ntens = 0;
    for (int i = 0; i < nops; i++) {
        char name[32];
        int32_t in[4], out = -1;
        int nin = ntens ? (int)ls_rng_below(rng, 4) : 0;
        for (int k = 0; k < nin; k++)
            in[k] = (crowd && ls_rng_below(rng, 2)) ? tens[0] : tens[ls_rng_below(rng, (uint64_t)ntens)];
        if (ls_rng_below(rng, 8) != 0 || i == 0) {
            int32_t L = 1 + (int32_t)ls_rng_below(rng, (uint64_t)maxl);
            int64_t tr[9];
            for (int a = 0; a < L; a++)
                for (int b = 0; b < L; b++)
                    tr[a * L + b] = a == b ? 0 : (int64_t)ls_rng_below(rng, 16);
            snprintf(name, sizeof name, "t%d", i);
            assert_int_equal(lsp_add_tensor(p, name, L, NULL, L > 1 ? tr : NULL, &out, &err), 0);
        }
        snprintf(name, sizeof name, "op%d", i);
        int32_t id;
        assert_int_equal(lsp_add_op(p, name, "k", nin, in, out, &id, &err), 0);
        int nslots = nin + (out >= 0);
        int ncfg = 1 + (int)ls_rng_below(rng, (uint64_t)maxcfg);
        for (int c = 0; c < ncfg; c++) {
            int32_t lay[4];
            for (int s = 0; s < nslots; s++) {
                int32_t t = s < nin ? in[s] : out;
                lay[s] = (int32_t)ls_rng_below(rng, (uint64_t)p->tensors[t].nlayouts);
            }
            assert_int_equal(lsp_add_cfg(p, id, (int64_t)ls_rng_below(rng, 21), lay, NULL, &err), 0);
        }
        if (out >= 0)
            tens[ntens++] = out;
    }
    assert_int_equal(lsp_finish(p, &err), 0);
    return p;
}

static double space(const struct lsp_problem *p)
{
    double s = 1;
    for (int32_t o = 0; o < p->nops; o++)
        s *= p->ops[o].ncfg;
    return s;
}

static int64_t brute(const struct lsp_problem *p)
{
    int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
    int64_t best = INT64_MAX;
    for (;;) {
        int64_t c = lsp_eval(p, cfg, NULL, NULL);
        if (c < best)
            best = c;
        int32_t o = 0;
        while (o < p->nops && ++cfg[o] == p->ops[o].ncfg)
            cfg[o++] = 0;
        if (o == p->nops)
            break;
    }
    free(cfg);
    return best;
}

static struct lsp_problem *tiny(struct ls_rng *rng, int i)
{
    for (;;) {
        struct lsp_problem *p = random_problem(rng, 10, 3, 6, i % 3 == 0);
        if (space(p) <= 2e4)
            return p;
        lsp_free(p);
    }
}

static void check_solver2(const char *name, const char *param, const char *param2, int count,
                          uint64_t seed)
{
    struct ls_rng rng;
    ls_rng_seed(&rng, seed);
    int multi = 0;
    for (int i = 0; i < count; i++) {
        struct lsp_problem *p = tiny(&rng, i);
        int64_t want = brute(p);
        struct lsp_solve_opts o;
        lsp_opts_init(&o);
        struct ls_error err;
        if (param)
            assert_int_equal(lsp_opts_add_param(&o, param, &err), 0);
        if (param2)
            assert_int_equal(lsp_opts_add_param(&o, param2, &err), 0);
        struct lsp_result r;
        int rc = lsp_solve(name, p, &o, &r, &err);
        if (rc)
            fail_msg("%s on instance %d: %s", name, i, err.msg);
        if (r.sol.cost != want || r.sol.status != LSP_OPTIMAL)
            fail_msg("%s on instance %d: cost %lld status %d, brute force %lld", name, i,
                     (long long)r.sol.cost, r.sol.status, (long long)want);
        assert_int_equal(r.sol.bound, want);
        for (int32_t t = 0; t < p->ntensors; t++)
            multi += p->use_off[t + 1] - p->use_off[t] >= 3;
        lsp_result_free(&r);
        lsp_free(p);
    }
    assert_true(multi > count / 10);   /* the generator does produce co-consumers */
}

static void check_solver(const char *name, const char *param, int count, uint64_t seed)
{
    check_solver2(name, param, NULL, count, seed);
}

static void test_exact_brute(void **state)
{
    (void)state;
    check_solver("exact", NULL, 520, 11);
}

/* Tables capped at 2 entries: mini-bucket bounds and real branch and bound. */
static void test_exact_minibucket_brute(void **state)
{
    (void)state;
    check_solver("exact", "exact.max_table=2", 520, 12);
}

static void test_dp_brute(void **state)
{
    (void)state;
    check_solver("dp", NULL, 520, 13);
}

static int z3_available(void)
{
    struct lsp_problem *p = lsp_new();
    struct ls_error err;
    int32_t t, o;
    lsp_add_tensor(p, "x", 1, NULL, NULL, &t, &err);
    lsp_add_op(p, "a", "source", 0, NULL, t, &o, &err);
    lsp_add_cfg(p, o, 3, (int32_t[]){0}, NULL, &err);
    lsp_finish(p, &err);
    struct lsp_solve_opts opts;
    lsp_opts_init(&opts);
    struct lsp_result r;
    int rc = lsp_solve("z3", p, &opts, &r, &err);
    if (rc)
        assert_non_null(strstr(err.msg, "libz3"));   /* not built with it, or missing at run time */
    else
        assert_int_equal(r.sol.cost, 3);
    lsp_result_free(&r);
    lsp_free(p);
    return rc == 0;
}

static void test_z3_brute(void **state)
{
    (void)state;
    if (!z3_available())
        skip();
    check_solver("z3", NULL, 60, 14);
}

/* Z3's WCNF reader takes weights exactly only below 2^53. A problem's costs stay below
 * that (lsp_finish), but its WCNF repeats a transpose for every producer configuration:
 * 16 cfgs producing layout 0 of a tensor whose 0 -> 1 transpose costs 2^50 weigh 2^54.
 * The z3 backend refuses (input error naming the limit) instead of answering wrong. */
static void test_z3_huge_costs(void **state)
{
    (void)state;
    if (!z3_available())
        skip();
    struct lsp_problem *p = lsp_new();
    struct ls_error err;
    int32_t t, u, o;
    const int64_t tr[4] = {0, (int64_t)1 << 50, 1, 0};
    assert_int_equal(lsp_add_tensor(p, "x", 2, NULL, tr, &t, &err), 0);
    assert_int_equal(lsp_add_op(p, "a", "source", 0, NULL, t, &o, &err), 0);
    for (int c = 0; c < 16; c++)
        assert_int_equal(lsp_add_cfg(p, o, c, (int32_t[]){0}, NULL, &err), 0);
    assert_int_equal(lsp_add_tensor(p, "y", 1, NULL, NULL, &u, &err), 0);
    assert_int_equal(lsp_add_op(p, "b", "use", 1, &t, u, &o, &err), 0);
    assert_int_equal(lsp_add_cfg(p, o, 0, (int32_t[]){1, 0}, NULL, &err), 0);
    assert_int_equal(lsp_finish(p, &err), 0);
    struct lsp_solve_opts opts;
    lsp_opts_init(&opts);
    struct lsp_result r;
    lsp_result_init(&r);
    assert_int_equal(lsp_solve("z3", p, &opts, &r, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "2^53"));
    lsp_result_free(&r);
    lsp_free(p);
}

/* A wider instance: each op reads the two previous tensors and one of the last six. */
static struct lsp_problem *wide(int nops, int L)
{
    struct ls_rng rng;
    ls_rng_seed(&rng, 5);
    struct ls_error err;
    struct lsp_problem *p = lsp_new();
    int32_t ts[256], nt = 0;
    for (int i = 0; i < nops; i++) {
        char name[32];
        int32_t in[3], nin = 0, out;
        if (nt)
            in[nin++] = ts[nt - 1];
        if (nt > 1)
            in[nin++] = ts[nt - 2];
        if (nt > 2)
            in[nin++] = ts[nt - 1 - (int32_t)ls_rng_below(&rng, (uint64_t)(nt < 6 ? nt : 6))];
        int64_t tr[16];
        for (int a = 0; a < L; a++)
            for (int b = 0; b < L; b++)
                tr[a * L + b] = a == b ? 0 : 1 + (int64_t)ls_rng_below(&rng, 9);
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(lsp_add_tensor(p, name, L, NULL, tr, &out, &err), 0);
        snprintf(name, sizeof name, "op%d", i);
        int32_t id;
        assert_int_equal(lsp_add_op(p, name, "k", nin, in, out, &id, &err), 0);
        for (int c = 0; c < 6; c++) {
            int32_t lay[4];
            for (int s = 0; s <= nin; s++)
                lay[s] = (int32_t)ls_rng_below(&rng, (uint64_t)L);
            assert_int_equal(lsp_add_cfg(p, id, (int64_t)ls_rng_below(&rng, 30), lay, NULL, &err), 0);
        }
        ts[nt++] = out;
    }
    assert_int_equal(lsp_finish(p, &err), 0);
    return p;
}

static void test_dp_mem_limit(void **state)
{
    (void)state;
    struct lsp_problem *p = wide(40, 3);
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    struct ls_error err;
    assert_int_equal(lsp_opts_add_param(&o, "dp.mem_limit=4096", &err), 0);
    struct lsp_result r;
    int rc = lsp_solve("dp", p, &o, &r, &err);
    assert_int_equal(rc, LS_ERR_LIMIT);
    assert_int_equal(r.sol.status, LSP_UNKNOWN);
    assert_non_null(strstr(err.msg, "width"));
    assert_non_null(strstr(err.msg, "dp.mem_limit"));
    lsp_result_free(&r);
    lsp_free(p);
    /* a narrower instance within the default budget equals exact */
    p = wide(12, 2);
    lsp_opts_init(&o);
    struct lsp_result a, b;
    assert_int_equal(lsp_solve("dp", p, &o, &a, &err), 0);
    assert_int_equal(lsp_solve("exact", p, &o, &b, &err), 0);
    assert_int_equal(a.sol.status, LSP_OPTIMAL);
    assert_int_equal(a.sol.cost, b.sol.cost);
    lsp_result_free(&a);
    lsp_result_free(&b);
    lsp_free(p);
}

/* A node budget stops branch and bound: the answer is feasible with an honest bound. */
static void test_exact_anytime(void **state)
{
    (void)state;
    struct lsp_problem *p = wide(60, 3);
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    struct ls_error err;
    struct lsp_result opt;
    assert_int_equal(lsp_solve("exact", p, &o, &opt, &err), 0);
    assert_int_equal(opt.sol.status, LSP_OPTIMAL);
    assert_int_equal(lsp_opts_add_param(&o, "exact.max_table=2", &err), 0);
    o.node_limit = 2000;
    struct lsp_result r;
    assert_int_equal(lsp_solve("exact", p, &o, &r, &err), 0);
    assert_true(r.sol.has_bound);
    assert_true(r.sol.bound <= opt.sol.cost);
    assert_true(r.sol.cost >= opt.sol.cost);
    if (r.sol.status == LSP_OPTIMAL)
        assert_int_equal(r.sol.cost, opt.sol.cost);
    else
        assert_int_equal(r.sol.status, LSP_FEASIBLE);
    const double *stopped = lsp_stats_get(&r.stats, "stopped");
    assert_non_null(stopped);
    lsp_result_free(&r);
    lsp_result_free(&opt);
    lsp_free(p);
}

static void test_exact_deterministic(void **state)
{
    (void)state;
    struct lsp_problem *p = wide(80, 3);
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    struct ls_error err;
    struct lsp_result a, b;
    assert_int_equal(lsp_solve("exact", p, &o, &a, &err), 0);
    assert_int_equal(lsp_solve("exact", p, &o, &b, &err), 0);
    assert_memory_equal(a.sol.cfg, b.sol.cfg, (size_t)p->nops * sizeof *a.sol.cfg);
    lsp_result_free(&a);
    lsp_result_free(&b);
    lsp_free(p);
}

/* The MIP engine alone (CBC) reaches the brute-force optimum with a proof. */
static void test_exact_mip_brute(void **state)
{
    (void)state;
    check_solver("exact", "exact.engine=mip", 200, 12);
}

/* The race forced on every component (race_entries=0): CBC in a child process next to
 * bucket elimination, either proof wins, the optimum is the brute-force one. */
/* Every assignment, written as x, y and z the way exact_mip's start writes it, satisfies
 * every row of the tight model and is priced at the objective: the tight model keeps the
 * optimum (test_exact_mip_brute checks CBC's answers on it). */
static void check_tight_point(const struct lsp_problem *p, const struct lsp_mip *m,
                              const int32_t *cfg)
{
    double *v = calloc((size_t)m->ncols + 1, sizeof *v), cost = 0;
    assert_non_null(v);
    for (int32_t o = 0; o < p->nops; o++)
        v[lsp_export_xvar(p, o, cfg[o]) - 1] = 1;
    for (int32_t t = 0; t < p->ntensors; t++)
        for (int32_t l = 0; m->v.ybase[t] && l < p->tensors[t].nlayouts; l++)
            v[m->v.ybase[t] + l - 1] = lsp_tensor_requests(p, cfg, t, l);
    for (int64_t k = m->nz0; k < m->ncols; k++) {
        int64_t i = k - m->nz0;
        int32_t t = m->zt[i], pr = p->tensors[t].producer;
        v[k] = lsp_cfg_out_layout(p, pr, cfg[pr]) == m->zl[i] &&
               lsp_tensor_requests(p, cfg, t, m->zm[i]);
    }
    for (int64_t r = 0; r < m->nrows; r++) {
        double lhs = 0;
        for (int64_t i = m->rows[r].off; i < m->rows[r + 1].off; i++)
            lhs += m->coef[i] * v[m->col[i]];
        if (m->rows[r].kind == LSP_ROW_ONE)
            assert_true(lhs == m->rows[r].rhs);
        else
            assert_true(lhs >= m->rows[r].rhs);
    }
    for (int64_t k = 0; k < m->ncols; k++)
        cost += m->obj[k] * v[k];
    assert_true(cost == (double)lsp_eval(p, cfg, NULL, NULL));
    free(v);
}

static void test_mip_tight_model(void **state)
{
    (void)state;
    struct ls_rng rng;
    ls_rng_seed(&rng, 24);
    for (int i = 0; i < 100; i++) {
        struct lsp_problem *p = tiny(&rng, i);
        struct lsp_mip m;
        struct ls_error err;
        assert_int_equal(lsp_mip_build_tight(p, &m, &err), 0);
        int32_t *cfg = calloc((size_t)p->nops, sizeof *cfg);
        assert_non_null(cfg);
        for (int k = 0; k < 20; k++) {
            for (int32_t o = 0; o < p->nops; o++)
                cfg[o] = (int32_t)ls_rng_below(&rng, (uint64_t)p->ops[o].ncfg);
            check_tight_point(p, &m, cfg);
        }
        free(cfg);
        lsp_mip_free(&m);
        lsp_free(p);
    }
}

/* Dead-end elimination keeps the optimum: the problem restricted to the live cfgs has the
 * brute-force optimum of the whole one, every op keeps a cfg, and the kept cfgs are the
 * live ones in order. Crowded instances (many consumers of one tensor) included. */
static void test_exact_dee_keeps_optimum(void **state)
{
    (void)state;
    struct ls_rng rng;
    ls_rng_seed(&rng, 2424);
    int64_t killed = 0;
    for (int i = 0; i < 300; i++) {
        struct lsp_problem *p = tiny(&rng, i), *q = NULL;
        uint8_t *dead = malloc((size_t)p->ncfg + 1);
        int32_t *keep = NULL;
        struct ls_error err;
        assert_non_null(dead);
        int64_t n = ex_dee(p, dead);
        assert_true(n >= 0 && n < p->ncfg);
        killed += n;
        assert_int_equal(ex_dee_restrict(p, dead, &q, &keep, &err), 0);
        assert_int_equal(q->ncfg, p->ncfg - n);
        for (int32_t o = 0; o < p->nops; o++) {
            assert_true(q->ops[o].ncfg >= 1);
            for (int32_t c = 0; c < q->ops[o].ncfg; c++)
                assert_false(dead[p->ops[o].cfg0 + keep[q->ops[o].cfg0 + c]]);
        }
        assert_int_equal(brute(q), brute(p));
        free(dead);
        free(keep);
        lsp_free(q);
        lsp_free(p);
    }
    assert_true(killed > 0);
}

static void test_exact_race_brute(void **state)
{
    (void)state;
    check_solver("exact", "exact.race_entries=0", 60, 13);
    check_solver2("exact", "exact.race_entries=0", "exact.max_table=2", 60, 14);
}

static void solve_with(const struct lsp_problem *p, const char *a, const char *b,
                       struct lsp_result *r)
{
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    struct ls_error err;
    if (a)
        assert_int_equal(lsp_opts_add_param(&o, a, &err), 0);
    if (b)
        assert_int_equal(lsp_opts_add_param(&o, b, &err), 0);
    if (lsp_solve("exact", p, &o, r, &err))
        fail_msg("exact %s %s: %s", a ? a : "", b ? b : "", err.msg);
}

/* Bucket elimination, the MIP and the race agree on the optimum of a wider instance, and
 * the race's answer is the same on two runs. */
static void test_exact_portfolio_deterministic(void **state)
{
    (void)state;
    struct lsp_problem *p = wide(50, 3);
    struct lsp_result be, mip, r1, r2;
    solve_with(p, "exact.engine=be", NULL, &be);
    solve_with(p, "exact.engine=mip", NULL, &mip);
    solve_with(p, "exact.race_entries=0", "exact.max_table=2", &r1);
    solve_with(p, "exact.race_entries=0", "exact.max_table=2", &r2);
    assert_int_equal(be.sol.status, LSP_OPTIMAL);
    assert_int_equal(mip.sol.status, LSP_OPTIMAL);
    assert_int_equal(r1.sol.status, LSP_OPTIMAL);
    assert_int_equal(mip.sol.cost, be.sol.cost);
    assert_int_equal(r1.sol.cost, be.sol.cost);
    assert_memory_equal(r1.sol.cfg, r2.sol.cfg, (size_t)p->nops * sizeof *r1.sol.cfg);
    const double *started = lsp_stats_get(&r1.stats, "mip_started");
    assert_non_null(started);
    assert_true(*started == 1);
    lsp_result_free(&be);
    lsp_result_free(&mip);
    lsp_result_free(&r1);
    lsp_result_free(&r2);
    lsp_free(p);
}

/* The soft-arc-consistency search alone (exact.engine=wc) reaches the brute-force optimum
 * with a proof on tiny instances. */
static void test_exact_wc_brute(void **state)
{
    (void)state;
    check_solver("exact", "exact.engine=wc", 200, 21);
}

/* ... and agrees with bucket elimination on medium ones (up to 64 ops, several consumers
 * per tensor), where brute force is out of reach; the answer is deterministic. So does
 * the portfolio forced on every component (its bounded search, then CBC). */
static void test_exact_wc_vs_be(void **state)
{
    (void)state;
    struct ls_rng rng;
    ls_rng_seed(&rng, 22);
    for (int i = 0; i < 60; i++) {
        struct lsp_problem *p = random_problem(&rng, 64, 3, 6, i % 3 == 0);
        struct lsp_result be, wc, wc2, race;
        solve_with(p, "exact.engine=be", NULL, &be);
        solve_with(p, "exact.engine=wc", NULL, &wc);
        solve_with(p, "exact.engine=wc", NULL, &wc2);
        solve_with(p, "exact.race_entries=0", NULL, &race);   /* the portfolio's search */
        assert_int_equal(be.sol.status, LSP_OPTIMAL);
        assert_int_equal(race.sol.status, LSP_OPTIMAL);
        assert_int_equal(race.sol.cost, be.sol.cost);
        if (wc.sol.status != LSP_OPTIMAL || wc.sol.cost != be.sol.cost)
            fail_msg("instance %d: wc cost %lld status %d, elimination %lld", i,
                     (long long)wc.sol.cost, wc.sol.status, (long long)be.sol.cost);
        assert_int_equal(wc.sol.cost, lsp_eval(p, wc.sol.cfg, NULL, NULL));
        assert_memory_equal(wc.sol.cfg, wc2.sol.cfg, (size_t)p->nops * sizeof *wc.sol.cfg);
        lsp_result_free(&be);
        lsp_result_free(&wc);
        lsp_result_free(&wc2);
        lsp_result_free(&race);
        lsp_free(p);
    }
}

/* Under a node limit the search stops with a feasible answer and an honest bound. */
static void test_exact_wc_limit(void **state)
{
    (void)state;
    struct lsp_problem *p = wide(120, 3);
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    o.node_limit = 3;
    struct ls_error err;
    assert_int_equal(lsp_opts_add_param(&o, "exact.engine=wc", &err), 0);
    struct lsp_result r, be;
    assert_int_equal(lsp_solve("exact", p, &o, &r, &err), 0);
    solve_with(p, "exact.engine=be", NULL, &be);
    assert_true(r.sol.bound <= be.sol.cost);
    assert_true(r.sol.cost >= be.sol.cost);
    assert_int_equal(r.sol.cost, lsp_eval(p, r.sol.cfg, NULL, NULL));
    lsp_result_free(&r);
    lsp_result_free(&be);
    lsp_free(p);
}

/* A planted 3-SAT gadget (optimum 0, search root bound 0): the portfolio hands it to the
 * z3 member, whose proof is exact's answer; without z3 (exact.z3_seconds=0) CBC proves
 * the same optimum. */
static void test_exact_z3_member(void **state)
{
    (void)state;
    struct lsp_problem *p = NULL;
    struct ls_error err;
    assert_int_equal(lsp_gen_sat_random(120, 3, &p, &err), 0);
    struct lsp_result r, off;
    solve_with(p, "exact.race_entries=0", NULL, &r);
    solve_with(p, "exact.race_entries=0", "exact.z3_seconds=0", &off);
    assert_int_equal(r.sol.status, LSP_OPTIMAL);
    assert_int_equal(off.sol.status, LSP_OPTIMAL);
    assert_int_equal(r.sol.cost, 0);
    assert_int_equal(off.sol.cost, 0);
    assert_int_equal(lsp_eval(p, r.sol.cfg, NULL, NULL), 0);
    const double *z = lsp_stats_get(&r.stats, "z3_proven");
    const double *z0 = lsp_stats_get(&off.stats, "z3_proven");
    assert_non_null(z);
    assert_true(*z == (z3_available() ? 1 : 0));
    assert_true(*z0 == 0);
    lsp_result_free(&r);
    lsp_result_free(&off);
    lsp_free(p);
}

static void test_bad_params(void **state)
{
    (void)state;
    struct lsp_problem *p = wide(3, 2);
    struct lsp_solve_opts o;
    lsp_opts_init(&o);
    struct ls_error err;
    struct lsp_result r;
    assert_int_equal(lsp_opts_add_param(&o, "exact.nope=1", &err), 0);
    assert_int_equal(lsp_solve("exact", p, &o, &r, &err), LS_ERR_INPUT);
    lsp_result_free(&r);
    lsp_opts_init(&o);
    assert_int_equal(lsp_opts_add_param(&o, "exact.engine=simplex", &err), 0);
    assert_int_equal(lsp_solve("exact", p, &o, &r, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "exact.engine"));
    lsp_result_free(&r);
    lsp_opts_init(&o);
    assert_int_equal(lsp_opts_add_param(&o, "dp.mem_limit=lots", &err), 0);
    assert_int_equal(lsp_solve("dp", p, &o, &r, &err), LS_ERR_INPUT);
    lsp_result_free(&r);
    lsp_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_brute),
        cmocka_unit_test(test_exact_minibucket_brute),
        cmocka_unit_test(test_dp_brute),
        cmocka_unit_test(test_z3_brute), cmocka_unit_test(test_z3_huge_costs),
        cmocka_unit_test(test_dp_mem_limit),
        cmocka_unit_test(test_exact_anytime),
        cmocka_unit_test(test_exact_deterministic),
        cmocka_unit_test(test_exact_mip_brute),
        cmocka_unit_test(test_mip_tight_model),
        cmocka_unit_test(test_exact_dee_keeps_optimum),
        cmocka_unit_test(test_exact_race_brute),
        cmocka_unit_test(test_exact_portfolio_deterministic),
        cmocka_unit_test(test_exact_wc_brute),
        cmocka_unit_test(test_exact_wc_vs_be),
        cmocka_unit_test(test_exact_wc_limit),
        cmocka_unit_test(test_exact_z3_member),
        cmocka_unit_test(test_bad_params),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
