/* Heuristic solvers against brute force on small problems; the NP-hardness gadgets;
 * .lsp/.sol round trips; the builder API. */
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

/* The objective, written again from the definition in docs/design.md, naively: for each
 * tensor, collect the layouts its consumers ask for, then charge each distinct one that
 * differs from the producer's layout. */
static int64_t naive_eval(const struct lsp_problem *p, const int32_t *cfg)
{
    int64_t sum = 0;
    for (int32_t o = 0; o < p->nops; o++)
        sum += p->cfg_cost[p->ops[o].cfg0 + cfg[o]];
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t L = p->tensors[t].nlayouts, pr = -1, src = -1;
        for (int32_t o = 0; o < p->nops; o++)
            if (p->ops[o].out == t)
                pr = o;
        assert_true(pr >= 0);
        const struct lsp_op *po = &p->ops[pr];
        src = p->cfg_layout[po->lay0 + (int64_t)cfg[pr] * po->nslots + po->nin];
        int asked[64] = {0};
        assert_true(L <= 64);
        for (int32_t o = 0; o < p->nops; o++) {
            const struct lsp_op *op = &p->ops[o];
            for (int32_t s = 0; s < op->nin; s++)
                if (op->in[s] == t)
                    asked[p->cfg_layout[op->lay0 + (int64_t)cfg[o] * op->nslots + s]] = 1;
        }
        for (int32_t l = 0; l < L; l++)
            if (asked[l] && l != src)
                sum += p->tr[p->tensors[t].tr0 + (int64_t)src * L + l];
    }
    return sum;
}

static double space(const struct lsp_problem *p)
{
    double s = 1;
    for (int32_t o = 0; o < p->nops; o++)
        s *= p->ops[o].ncfg;
    return s;
}

static int64_t brute_force(const struct lsp_problem *p)
{
    int32_t cfg[64] = {0};
    assert_true(p->nops <= 64);
    int64_t best = INT64_MAX;
    for (;;) {
        int64_t c = naive_eval(p, cfg);
        if (c < best)
            best = c;
        int32_t k = 0;
        while (k < p->nops && ++cfg[k] == p->ops[k].ncfg)
            cfg[k++] = 0;
        if (k == p->nops)
            break;
    }
    return best;
}

/* Run a solver and check what every solver must satisfy; returns the cost. */
static int64_t run_checked(const char *name, const struct lsp_problem *p,
                           const struct lsp_solve_opts *o, int64_t opt, struct lsp_result *r)
{
    struct ls_error err;
    ls_error_clear(&err);
    int rc = lsp_solve(name, p, o, r, &err);
    if (rc)
        fail_msg("%s: %s", name, err.msg);
    assert_int_equal(r->sol.nops, p->nops);
    assert_int_equal(lsp_check_assignment(p, r->sol.cfg, &err), 0);
    int64_t c = naive_eval(p, r->sol.cfg);
    assert_int_equal(r->sol.cost, c);
    assert_int_equal(lsp_eval(p, r->sol.cfg, NULL, NULL), c);
    if (opt >= 0) {
        assert_true(c >= opt);
        if (r->sol.has_bound)
            assert_true(r->sol.bound <= opt);
        if (r->sol.status == LSP_OPTIMAL)
            assert_int_equal(c, opt);
    }
    return c;
}

static void assert_local_optimum(const struct lsp_problem *p, int32_t *cfg, int64_t cost)
{
    for (int32_t o = 0; o < p->nops; o++) {
        int32_t keep = cfg[o];
        for (int32_t c = 0; c < p->ops[o].ncfg; c++) {
            cfg[o] = c;
            assert_true(naive_eval(p, cfg) >= cost);
        }
        cfg[o] = keep;
    }
}

static double stat(const struct lsp_result *r, const char *key)
{
    const double *v = lsp_stats_get(&r->stats, key);
    assert_non_null(v);
    return *v;
}

static void test_random_vs_brute_force(void **state)
{
    (void)state;
    int accepted = 0, exhaustive_all = 0, split_used = 0, greedy_used = 0, gaps = 0;
    for (uint64_t seed = 1; accepted < 320; seed++) {
        struct lsp_gen_opts go;
        lsp_gen_opts_init(&go);
        go.shape = LSP_GEN_RANDOM;
        go.seed = seed;
        go.ops = 2 + (int32_t)(seed % 11);            /* 2..12 ops */
        go.max_cfg = 2 + (int32_t)(seed % 4);         /* up to 2..5 cfgs */
        go.max_layouts = 1 + (int32_t)(seed % 3);
        go.max_inputs = 1 + (int32_t)(seed % 3);
        struct lsp_problem *p;
        struct ls_error err;
        assert_int_equal(lsp_gen(&go, &p, &err), 0);
        if (space(p) > 40000) {
            lsp_free(p);
            continue;
        }
        accepted++;
        int64_t opt = brute_force(p);
        struct lsp_solve_opts o;
        lsp_opts_init(&o);
        struct lsp_result r;

        int64_t cl = run_checked("local", p, &o, opt, &r);
        lsp_result_free(&r);

        int64_t cg = run_checked("greedy", p, &o, opt, &r);
        assert_local_optimum(p, r.sol.cfg, cg);
        lsp_result_free(&r);

        int64_t cr = run_checked("rulebased", p, &o, opt, &r);
        if (stat(&r, "components_exhaustive") == stat(&r, "components")) {
            exhaustive_all++;
            assert_int_equal(cr, opt);
            assert_int_equal(r.sol.status, LSP_OPTIMAL);
        }
        lsp_result_free(&r);
        if (cl > opt || cg > opt)
            gaps++;

        /* thresholds forced down: divide and conquer */
        struct lsp_solve_opts od;
        lsp_opts_init(&od);
        assert_int_equal(lsp_opts_add_param(&od, "rb.exhaustive_max=3", &err), 0);
        run_checked("rulebased", p, &od, opt, &r);
        split_used += stat(&r, "components_split") > 0;
        lsp_result_free(&r);

        /* and the greedy fallback */
        struct lsp_solve_opts og;
        lsp_opts_init(&og);
        assert_int_equal(lsp_opts_add_param(&og, "rb.exhaustive_max=1", &err), 0);
        assert_int_equal(lsp_opts_add_param(&og, "rb.split_max_ops=0", &err), 0);
        run_checked("rulebased", p, &og, opt, &r);
        greedy_used += stat(&r, "components_greedy") > 0;
        lsp_result_free(&r);
        lsp_free(p);
    }
    /* the instances must exercise every arm, and be hard enough to separate solvers */
    print_message("instances %d: all-exhaustive %d, split %d, greedy arm %d, heuristic gaps %d\n", accepted, exhaustive_all, split_used, greedy_used, gaps);
    assert_true(exhaustive_all >= 200);
    assert_true(split_used >= 100);
    assert_true(greedy_used >= 100);
    assert_true(gaps >= 20);
}

static struct lsp_problem *sat_problem(int32_t nvars, int32_t ncl, const int32_t *lits, int k)
{
    int32_t off[64];
    for (int32_t i = 0; i <= ncl; i++)
        off[i] = i * k;
    struct lsp_problem *p;
    struct ls_error err;
    assert_int_equal(lsp_gen_sat(nvars, ncl, off, lits, &p, &err), 0);
    return p;
}

static void heuristics_honest(const struct lsp_problem *p, int64_t opt)
{
    static const char *const names[] = {"local", "greedy", "rulebased"};
    for (int i = 0; i < 3; i++) {
        struct lsp_solve_opts o;
        lsp_opts_init(&o);
        struct lsp_result r;
        run_checked(names[i], p, &o, opt, &r);
        lsp_result_free(&r);
    }
}

static void test_sat_gadget(void **state)
{
    (void)state;
    /* satisfiable (x1=T, x2=T, x3=F satisfies all four) */
    static const int32_t sat[] = {1, 2, 3, -1, 2, -3, 1, -2, 3, -1, -2, -3};
    struct lsp_problem *p = sat_problem(3, 4, sat, 3);
    assert_int_equal(p->nops, 7);
    assert_int_equal(brute_force(p), 0);
    heuristics_honest(p, 0);
    lsp_free(p);
    /* unsatisfiable: all four 2-clauses over two variables */
    static const int32_t unsat[] = {1, 2, 1, -2, -1, 2, -1, -2};
    p = sat_problem(2, 4, unsat, 2);
    assert_int_equal(brute_force(p), 1);
    heuristics_honest(p, 1);
    lsp_free(p);
    /* random planted formulas: optimum 0 */
    for (uint64_t seed = 1; seed <= 4; seed++) {
        struct ls_error err;
        assert_int_equal(lsp_gen_sat_random(8, seed, &p, &err), 0);
        assert_int_equal(brute_force(p), 0);
        heuristics_honest(p, 0);
        lsp_free(p);
    }
}

static void test_oct_gadget(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct ls_error err;
    static const int32_t triangle[] = {0, 1, 1, 2, 0, 2};
    assert_int_equal(lsp_gen_oct(3, 3, triangle, &p, &err), 0);
    assert_int_equal(brute_force(p), 1);
    heuristics_honest(p, 1);
    lsp_free(p);
    /* the paper's figure: triangles uvw and uwx share the edge uw; removing u suffices */
    static const int32_t fig[] = {0, 1, 1, 2, 0, 2, 0, 3, 2, 3};
    assert_int_equal(lsp_gen_oct(4, 5, fig, &p, &err), 0);
    assert_int_equal(brute_force(p), 1);
    lsp_free(p);
    /* a bipartite graph (4-cycle): 0 */
    static const int32_t square[] = {0, 1, 1, 2, 2, 3, 3, 0};
    assert_int_equal(lsp_gen_oct(4, 4, square, &p, &err), 0);
    assert_int_equal(brute_force(p), 0);
    heuristics_honest(p, 0);
    lsp_free(p);
}

static char *to_text(const struct lsp_problem *p, const struct lsp_solution *s)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *fp = open_memstream(&buf, &n);
    assert_non_null(fp);
    if (s)
        assert_int_equal(lsp_sol_write_fp(p, s, fp), 0);
    else
        assert_int_equal(lsp_write_fp(p, fp), 0);
    fclose(fp);
    return buf;
}

static void test_round_trip(void **state)
{
    (void)state;
    for (int shape = 0; shape <= LSP_GEN_OCT; shape++) {
        struct lsp_gen_opts go;
        lsp_gen_opts_init(&go);
        go.shape = shape;
        go.ops = 200;
        go.seed = 7;
        struct lsp_problem *p, *q;
        struct ls_error err;
        assert_int_equal(lsp_gen(&go, &p, &err), 0);
        assert_int_equal(p->nops, 200);
        char *a = to_text(p, NULL);
        if (lsp_parse("rt.lsp", a, strlen(a), &q, &err))
            fail_msg("shape %d: %s (line %d col %d)", shape, err.msg, err.line, err.col);
        char *b = to_text(q, NULL);
        assert_string_equal(a, b);
        assert_int_equal(q->nops, p->nops);
        assert_int_equal(q->ntensors, p->ntensors);
        assert_int_equal(q->cost_sum, p->cost_sum);
        /* a solution survives the trip too, with the same objective on both problems */
        struct lsp_solve_opts o;
        lsp_opts_init(&o);
        struct lsp_result r;
        assert_int_equal(lsp_solve("greedy", p, &o, &r, &err), 0);
        assert_int_equal(lsp_eval(q, r.sol.cfg, NULL, NULL), r.sol.cost);
        char *sa = to_text(p, &r.sol);
        struct lsp_solution s;
        assert_int_equal(lsp_sol_parse(q, "rt.sol", sa, strlen(sa), &s, &err), 0);
        assert_int_equal(s.status, r.sol.status);
        assert_int_equal(s.cost, r.sol.cost);
        assert_int_equal(s.has_bound, r.sol.has_bound);
        assert_int_equal(s.bound, r.sol.bound);
        assert_memory_equal(s.cfg, r.sol.cfg, (size_t)p->nops * sizeof *s.cfg);
        assert_int_equal(lsp_solution_verify(q, &s, &err), 0);
        char *sb = to_text(q, &s);
        assert_string_equal(sa, sb);
        free(a);
        free(b);
        free(sa);
        free(sb);
        lsp_solution_free(&s);
        lsp_result_free(&r);
        lsp_free(p);
        lsp_free(q);
    }
    /* unknown without an assignment: two lines only */
    struct lsp_problem *p;
    struct ls_error err;
    const char *txt = "lsp 1\ntensor a 1\nop s src 0 a\ncfg 3 0\n";
    assert_int_equal(lsp_parse("x", txt, strlen(txt), &p, &err), 0);
    struct lsp_solution s;
    lsp_solution_init(&s);
    char *u = to_text(p, &s);
    assert_string_equal(u, "lsp-solution 1\nstatus unknown\n");
    assert_int_equal(lsp_sol_parse(p, "u", u, strlen(u), &s, &err), 0);
    assert_int_equal(s.status, LSP_UNKNOWN);
    assert_null(s.cfg);
    free(u);
    lsp_free(p);
}

/* Charged once per distinct layout; a tensor read through two slots in two layouts pays
 * both; the example of the spec computed by hand. */
static void test_objective_by_hand(void **state)
{
    (void)state;
    const char *txt =
        "lsp 1\n"
        "tensor x 3 p:a p:b p:c   # labels\n"
        "transpose x 0 5 7 2 0 4 1 3 0\n"
        "op src source 0 x\n"
        "cfg 10 0\n"
        "cfg 12 1\n"
        "op u1 add 1 x -\n"
        "cfg 1 1\n"
        "cfg 2 2\n"
        "op u2 mul 2 x x -\n"
        "cfg 3 1 2\n"
        "cfg 4 0 0\n";
    struct lsp_problem *p;
    struct ls_error err;
    assert_int_equal(lsp_parse("h", txt, strlen(txt), &p, &err), 0);
    int64_t op, tr;
    /* src->a; u1 asks b; u2 asks b and c: b once (5) + c (7) */
    assert_int_equal(lsp_eval(p, (int32_t[]){0, 0, 0}, &op, &tr), 10 + 1 + 3 + 5 + 7);
    assert_int_equal(op, 14);
    assert_int_equal(tr, 12);
    /* src->b; u1 asks c (4); u2 asks a (2) */
    assert_int_equal(lsp_eval(p, (int32_t[]){1, 1, 1}, NULL, NULL), 12 + 2 + 4 + 4 + 2);
    int32_t n;
    assert_int_equal(lsp_eval_tensor(p, (int32_t[]){0, 0, 0}, 0, &n), 12);
    assert_int_equal(n, 2);
    lsp_free(p);
}

static void test_builder(void **state)
{
    (void)state;
    struct ls_error err;
    struct lsp_problem *p = lsp_new();
    int32_t t, u, o;
    static const int64_t tr[] = {0, 3, 4, 0};
    static const char *const lab[] = {"p:m", "p:n"};
    assert_int_equal(lsp_add_tensor(p, "t", 2, lab, tr, &t, &err), 0);
    assert_int_equal(lsp_add_tensor(p, "t", 2, NULL, tr, &u, &err), LS_ERR_INPUT);  /* dup */
    assert_int_equal(lsp_add_tensor(p, "bad name", 1, NULL, NULL, &u, &err), LS_ERR_INPUT);
    assert_int_equal(lsp_add_tensor(p, "u", 2, NULL, NULL, &u, &err), 0);
    /* consumer before producer */
    assert_int_equal(lsp_add_op(p, "c", "add", 1, &t, -1, &o, &err), LS_ERR_INPUT);
    assert_int_equal(lsp_add_op(p, "s", "source", 0, NULL, t, &o, &err), 0);
    assert_int_equal(lsp_add_cfg(p, o, 1, (int32_t[]){2}, NULL, &err), LS_ERR_INPUT);
    /* u has no transpose matrix yet: cannot be produced */
    assert_int_equal(lsp_add_op(p, "s2", "source", 0, NULL, u, &o, &err), LS_ERR_INPUT);
    assert_int_equal(lsp_add_cfg(p, 0, 1, (int32_t[]){1}, NULL, &err), 0);
    assert_int_equal(lsp_set_transpose(p, u, (int64_t[]){1, 2, 3, 0}, &err), LS_ERR_INPUT);
    assert_int_equal(lsp_set_transpose(p, u, tr, &err), 0);
    assert_int_equal(lsp_add_op(p, "s2", "source", 0, NULL, u, &o, &err), 0);
    assert_int_equal(lsp_finish(p, &err), LS_ERR_INPUT);   /* s2 has no cfg */
    assert_int_equal(lsp_add_cfg(p, o, 0, (int32_t[]){0}, NULL, &err), 0);
    assert_int_equal(lsp_add_op(p, "m", "matmul", 2, (int32_t[]){t, u}, -1, &o, &err), 0);
    int32_t idx;
    assert_int_equal(lsp_add_cfg(p, o, 5, (int32_t[]){0, 1}, &idx, &err), 0);
    assert_int_equal(idx, 0);
    assert_int_equal(lsp_add_cfg(p, o, 5, (int32_t[]){0, 1}, &idx, &err), 0);  /* dup ok */
    assert_int_equal(idx, 1);
    assert_int_equal(lsp_add_cfg(p, o, LSP_COST_LIMIT, (int32_t[]){0, 0}, NULL, &err),
                     LS_ERR_INPUT);
    assert_int_equal(lsp_finish(p, &err), 0);
    /* s: layout 1; m asks t in 0 (tr 4) and u in 1 (u produced in 0: tr 3) */
    assert_int_equal(lsp_eval(p, (int32_t[]){0, 0, 1}, NULL, NULL), 1 + 0 + 5 + 4 + 3);
    lsp_free(p);
}

static void test_registry_and_params(void **state)
{
    (void)state;
    size_t n;
    const struct lsp_solver *s = lsp_solvers(&n);
    assert_true(n >= 3);
    assert_non_null(lsp_solver_find("local"));
    assert_non_null(lsp_solver_find("greedy"));
    assert_non_null(lsp_solver_find("rulebased"));
    assert_null(lsp_solver_find("nosuch"));
    assert_non_null(s[0].summary);
    struct lsp_solve_opts o;
    struct ls_error err;
    lsp_opts_init(&o);
    assert_int_equal(lsp_opts_add_param(&o, "novalue", &err), LS_ERR_INPUT);
    assert_int_equal(lsp_opts_add_param(&o, "rb.bogus=1", &err), 0);
    struct lsp_problem *p;
    struct lsp_gen_opts go;
    lsp_gen_opts_init(&go);
    assert_int_equal(lsp_gen(&go, &p, &err), 0);
    struct lsp_result r;
    assert_int_equal(lsp_solve("greedy", p, &o, &r, &err), LS_ERR_INPUT);  /* not greedy's */
    lsp_result_free(&r);
    lsp_opts_init(&o);
    assert_int_equal(lsp_opts_add_param(&o, "rb.exhaustive_max=abc", &err), 0);
    assert_int_equal(lsp_solve("rulebased", p, &o, &r, &err), LS_ERR_INPUT);
    lsp_result_free(&r);
    assert_int_equal(lsp_solve("nosuch", p, &o, &r, &err), LS_ERR_INPUT);
    lsp_result_free(&r);
    lsp_free(p);
}

/* The parameter table: every solver refuses a key that is not its own (a typo'd one) with
 * exit-2 input error naming every valid key; every row belongs to a registered solver and
 * its default reads back; values are checked for type and range. */
static void test_param_table(void **state)
{
    (void)state;
    struct lsp_problem *p;
    struct lsp_gen_opts go;
    struct ls_error err;
    lsp_gen_opts_init(&go);
    assert_int_equal(lsp_gen(&go, &p, &err), 0);
    size_t ns, nd;
    const struct lsp_solver *s = lsp_solvers(&ns);
    const struct lsp_param_def *d = lsp_param_defs(&nd);
    for (size_t i = 0; i < ns; i++) {
        struct lsp_solve_opts o;
        struct lsp_result r;
        lsp_opts_init(&o);
        assert_int_equal(lsp_opts_add_param(&o, "rb.exhaustiv_max=5", &err), 0);
        assert_int_equal(lsp_solve(s[i].name, p, &o, &r, &err), LS_ERR_INPUT);
        lsp_result_free(&r);
        assert_non_null(strstr(err.msg, "unknown parameter 'rb.exhaustiv_max'"));
        assert_non_null(strstr(err.msg, s[i].name));
        int nkeys = 0;
        for (size_t k = 0; k < nd; k++)
            if (!strcmp(d[k].solver, s[i].name)) {
                assert_non_null(strstr(err.msg, d[k].key));
                nkeys++;
            }
        if (!nkeys)
            assert_non_null(strstr(err.msg, "takes no parameters"));
    }
    for (size_t k = 0; k < nd; k++) {
        assert_non_null(lsp_solver_find(d[k].solver));
        struct lsp_solve_opts o;
        lsp_opts_init(&o);
        double v;
        assert_int_equal(lsp_param_num(&o, d[k].key, &v, &err), 0);
    }
    struct { const char *solver, *kv; } bad[] = {
        {"rulebased", "rb.split_max_ops=1.5"},  {"rulebased", "rb.exhaustive_max=-1"},
        {"exact", "exact.mem_limit=1000"},      {"exact", "exact.engine=simplex"},
        {"mcts", "tune.evaluations=0"},         {"dp", "dp.mem_limit=lots"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct lsp_solve_opts o;
        lsp_opts_init(&o);
        assert_int_equal(lsp_opts_add_param(&o, bad[i].kv, &err), 0);
        assert_int_equal(lsp_params_check(bad[i].solver, &o, &err), LS_ERR_INPUT);
        assert_non_null(strstr(err.msg, "parameter "));
    }
    lsp_free(p);
}

/* A statistic past the limits is never dropped silently: lsp_stats_check names the limit. */
static void test_stats_limits(void **state)
{
    (void)state;
    struct lsp_result r;
    lsp_result_init(&r);
    static const char *const keys[] = {"k00", "k01", "k02", "k03", "k04", "k05", "k06",
        "k07", "k08", "k09", "k10", "k11", "k12", "k13", "k14", "k15", "k16", "k17", "k18",
        "k19", "k20", "k21", "k22", "k23", "k24", "k25", "k26", "k27", "k28", "k29", "k30",
        "k31", "k32", "k33", "k34", "k35", "k36", "k37", "k38", "k39", "k40", "k41", "k42",
        "k43", "k44", "k45", "k46", "k47", "k48"};
    for (int i = 0; i < LSP_MAX_STATS; i++)
        lsp_stats_set(&r.stats, keys[i], i);
    lsp_stats_add(&r.stats, "k03", 1);   /* existing keys still update when full */
    assert_true(*lsp_stats_get(&r.stats, "k03") == 4);
    struct ls_error err = {0};
    assert_int_equal(lsp_stats_check(&r.stats, "x", &err), 0);
    lsp_stats_set(&r.stats, keys[LSP_MAX_STATS], 1);
    assert_null(lsp_stats_get(&r.stats, "k48"));
    assert_int_equal(lsp_stats_check(&r.stats, "x", &err), LS_ERR_INTERNAL);
    assert_non_null(strstr(err.msg, "k48"));
    assert_non_null(strstr(err.msg, "LSP_MAX_STATS"));
    lsp_result_free(&r);
    char long_key[LSP_STAT_KEY_MAX + 2];
    memset(long_key, 'a', sizeof long_key - 1);
    long_key[sizeof long_key - 1] = 0;
    lsp_stats_set(&r.stats, long_key, 1);   /* would have been truncated */
    assert_int_equal(r.stats.n, 0);
    assert_int_equal(lsp_stats_check(&r.stats, "x", &err), LS_ERR_INTERNAL);
    long_key[LSP_STAT_KEY_MAX] = 0;          /* exactly the limit: kept whole */
    lsp_result_init(&r);
    lsp_stats_set(&r.stats, long_key, 2);
    assert_true(*lsp_stats_get(&r.stats, long_key) == 2);
    lsp_result_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_objective_by_hand),
        cmocka_unit_test(test_builder),
        cmocka_unit_test(test_stats_limits),
        cmocka_unit_test(test_registry_and_params),
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_param_table),
        cmocka_unit_test(test_sat_gadget),
        cmocka_unit_test(test_oct_gadget),
        cmocka_unit_test(test_random_vs_brute_force),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
