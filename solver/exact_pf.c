/* solver/exact_pf: portfolio pieces of the exact solver (see exact_pf.h). */
#include "solver/exact_pf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/exact_be.h"
#include "solver/exact_wc.h"
#include "solver/incr.h"

int64_t ex_default_mem_limit(void)
{
    const int64_t lo = (int64_t)768 << 20, hi = (int64_t)4 << 30;
    FILE *f = fopen("/proc/meminfo", "r");
    if (!f)
        return lo;
    char line[128];
    long long kib = -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "MemAvailable: %lld kB", &kib) == 1)
            break;
    fclose(f);
    int64_t quarter = kib > 0 ? (int64_t)kib * 1024 / 4 : lo;
    return quarter < lo ? lo : quarter > hi ? hi : quarter;
}

/* Replace the incumbent of every unsolved component by rb's assignment where rb's is
 * cheaper; *cost follows for component c. */
static void adopt_seed(struct ex_pf *pf, const int32_t *rb, int32_t c, int32_t *cfg,
                       int64_t *cost)
{
    const struct ex_fg *g = pf->g;
    for (int32_t k = 0; k < g->ncomp; k++) {
        if (pf->done[k])
            continue;
        int64_t mine = ex_comp_cost(pf->p, g, k, cfg), theirs = ex_comp_cost(pf->p, g, k, rb);
        if (theirs >= mine)
            continue;
        for (int32_t j = g->comp_op_off[k]; j < g->comp_op_off[k + 1]; j++)
            cfg[g->comp_op[j]] = rb[g->comp_op[j]];
        pf->seed_gain += mine - theirs;
        if (k == c)
            *cost = theirs;
    }
}

/* The rule-based solver (with its local search) as the anytime seed. */
static int seed(struct ex_pf *pf, int32_t c, int32_t *cfg, int64_t *cost, struct ls_error *err)
{
    struct lsp_solve_opts ro;
    lsp_opts_init(&ro);
    ro.time_limit = pf->o->time_limit;
    struct lsp_result rr;
    lsp_result_init(&rr);
    int rc = lsp_solution_alloc(&rr.sol, pf->p, err);
    if (!rc)
        rc = lsp_solve_rulebased(pf->p, &ro, &rr, err);
    if (!rc && rr.sol.nops == pf->p->nops)
        adopt_seed(pf, rr.sol.cfg, c, cfg, cost);
    lsp_result_free(&rr);
    return rc;
}

/* Seconds left of the run, or dflt when it has no deadline. */
static double time_left(const struct ex_pf *pf, double dflt)
{
    if (!pf->dl || !pf->dl->end_ns)
        return dflt;
    uint64_t now = ls_now_ns();
    return now < pf->dl->end_ns ? (double)(pf->dl->end_ns - now) / 1e9 : 0;
}

/* The MIP engine in its child process; its start: solved components at their optimum,
 * the others at the incumbent (seeded, improved by the search). */
static void start_mip(struct ex_pf *pf, const int32_t *cfg)
{
    double left = time_left(pf, 0);
    if (pf->dl && pf->dl->end_ns && left <= 0)
        left = 0.01;
    struct ls_error ignored;
    if (ex_mip_start(&pf->job, pf->p, left, cfg, &pf->proved, &ignored)) {
        /* no child process (fork refused, out of memory): the in-process engines alone
         * are still complete solvers */
        ex_mip_job_free(&pf->job);
        pf->start_failed = 1;
        return;
    }
    pf->started = 1;
}

/* SAT-like structure (docs/exact.md, "Portfolio"): the search's root bound is below half
 * the incumbent, i.e. the problem is mostly about finding a cheap assignment at all, which
 * is what a CDCL core does well and bounds do not (the SAT gadgets: root bound 0). Then
 * laysim's z3 backend (dlopened; absent libz3 is not an error here) runs on the whole
 * problem for at most pf->z3_seconds; its proof restricted to component c is c's optimum
 * (components are independent). Returns 1 when it proved. */
static int try_z3(struct ex_pf *pf, int32_t c, int32_t *cfg, int64_t *cost)
{
    double budget = time_left(pf, pf->z3_seconds);
    if (budget > pf->z3_seconds)
        budget = pf->z3_seconds;
    if (budget <= 0.05 || pf->z3_tried)
        return 0;
    pf->z3_tried = 1;
    struct lsp_solve_opts zo;
    lsp_opts_init(&zo);
    zo.time_limit = budget;
    struct lsp_result zr;
    lsp_result_init(&zr);
    struct ls_error ignored;
    int won = 0;
    if (!lsp_solution_alloc(&zr.sol, pf->p, &ignored) &&
        !lsp_solve_z3(pf->p, &zo, &zr, &ignored) && zr.sol.status == LSP_OPTIMAL &&
        zr.sol.nops == pf->p->nops) {
        const struct ex_fg *g = pf->g;
        for (int32_t j = g->comp_op_off[c]; j < g->comp_op_off[c + 1]; j++)
            cfg[g->comp_op[j]] = zr.sol.cfg[g->comp_op[j]];
        *cost = ex_comp_cost(pf->p, g, c, cfg);
        won = 1;
        pf->z3_proven++;
    }
    lsp_result_free(&zr);
    return won;
}

int ex_pf_sized(void *ctx, int32_t c, double exact_entries, int32_t *cfg, int64_t *cost,
                int *proven, struct ls_error *err)
{
    struct ex_pf *pf = ctx;
    *proven = 0;
    if (exact_entries <= pf->race_entries && exact_entries <= pf->budget)
        return 0;
    pf->raced[c] = 1;
    int rc = 0;
    if (!pf->seeded && (rc = seed(pf, c, cfg, cost, err)))
        return rc;
    pf->seeded = 1;
    /* the search proves quickly or not at all: it runs only when its root bound is
     * within 4% of the incumbent, for at most 100 nodes per variable and 10,000 in all
     * (measured on the wide families: proofs took 7-27 k nodes, 23-68 per variable, from
     * root gaps of 1.8-3.8%; since CBC runs on the tight model, a proof past 10 k nodes
     * costs more than CBC's: random-500 0.20 -> 0.19 s, random-1000 seed 2 1.18 -> 0.56
     * s). It runs before CBC starts, not next to it: a proof then costs no CBC time at
     * all (the figures are CPU seconds on a shared 2-core machine), and a failed search
     * is short */
    struct ex_wc_opts wopt = {pf->dl, 10000, 100, 0.04};
    struct ex_wc_out wo;
    if ((rc = ex_wc_solve(pf->p, pf->g, c, &wopt, cfg, cost, &wo)))
        return ls_error_msg(err, rc, "exact: out of memory");
    pf->wc_nodes += (double)wo.nodes;
    if (wo.optimal) {
        pf->wc_proven++;
        *proven = 1;
        return 0;
    }
    if (!wo.optimal && wo.root_lb * 2 < *cost && try_z3(pf, c, cfg, cost)) {
        *proven = 1;
        return 0;
    }
    if (!pf->started && !pf->start_failed && !ls_deadline_passed(pf->dl))
        start_mip(pf, cfg);
    /* past the budget, bucket elimination falls back to mini-buckets, which rarely prove
     * what CBC proves: rather than take CPU and memory from it, wait for its answer (a
     * proof stops the loop; without one the loop goes on with the time left) */
    if (exact_entries > pf->budget && pf->started)
        ex_mip_wait(&pf->job, pf->dl, 0);
    return 0;
}

int ex_canonical(const struct lsp_problem *p, const int32_t *ops, int32_t n, int32_t *cfg)
{
    struct lsp_incr s;
    if (lsp_incr_init(&s, p))
        return LS_ERR_NOMEM;
    for (int32_t o = 0; o < p->nops; o++)
        lsp_incr_set(&s, o, cfg[o]);
    for (int moved = 1; moved;) {
        moved = 0;
        for (int32_t i = 0; i < n; i++) {
            int32_t o = ops[i];
            for (int32_t c = 0; c < s.cfg[o]; c++)
                if (lsp_incr_delta(&s, o, c) <= 0) {
                    lsp_incr_set(&s, o, c);
                    moved = 1;
                    break;
                }
        }
    }
    memcpy(cfg, s.cfg, (size_t)p->nops * sizeof *cfg);
    lsp_incr_free(&s);
    return 0;
}
