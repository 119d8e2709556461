/* solver/tune: the tuning driver — metric cache, store hook, budgets, best design, and the
 * explorer registry (solver/tune.h). */
#include "solver/tune_impl.h"
#include "util/hash.h"
#include "util/prng.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef int (*explore_fn)(struct tune_run *t, struct ls_error *err);

static const struct lsp_tune_explorer_info infos[] = {
    {"mcts", "Monte-Carlo tree search: UCT over plan ids point by point, rollouts around the "
             "incumbent"},
    {"random", "uniform random designs, each scored once"},
    {"sweep", "coordinate descent over the points from the incumbent, random kicks when stuck"},
};
static const explore_fn fns[] = {tune_explore_mcts, tune_explore_random, tune_explore_sweep};
#define NEXPLORERS (sizeof infos / sizeof infos[0])

const struct lsp_tune_explorer_info *lsp_tune_explorers(size_t *n)
{
    *n = NEXPLORERS;
    return infos;
}

void lsp_tune_opts_init(struct lsp_tune_opts *o)
{
    memset(o, 0, sizeof *o);
    o->explorer = "mcts";
    o->seed = LS_SEED_DEFAULT;
    o->uct_c = 0.5;
    o->uct_best = 0.5;
    o->rollout_mutations = 1.5;
    o->score_window = 0.05;
    o->score_mix = 0.5;
    o->neighbour_share = 0.5;
}

void lsp_tune_result_init(struct lsp_tune_result *r)
{
    memset(r, 0, sizeof *r);
    r->start_cycles = r->best_cycles = HUGE_VAL;
}

void lsp_tune_result_free(struct lsp_tune_result *r)
{
    free(r->best_design);
    free(r->best_assignment);
    lsp_tune_result_init(r);
}

uint64_t lsp_tune_assignment_hash(const int32_t *assignment, int32_t nops)
{
    return ls_fnv1a64(assignment, sizeof *assignment * (size_t)nops);
}

/* ---- the metric cache ------------------------------------------------------------------ */

static uint64_t key_of(struct tune_run *t, const int32_t *design)
{
    lsp_tune_design_apply(t->s, design, t->asg);
    uint64_t h = lsp_tune_assignment_hash(t->asg, t->p->nops);
    return h ? h : 1;
}

static int design_eq(const void *ctx, int32_t id, const void *key)
{
    const struct tune_run *t = ctx;
    return memcmp(t->pool + t->seen.data[id].off, key, sizeof(int32_t) * (size_t)t->np) == 0;
}

static uint64_t design_hash(const void *ctx, int32_t id)
{
    return ((const struct tune_run *)ctx)->seen.data[id].hash;
}

static const struct ls_hmap_fns design_fns = {design_hash, design_eq};

/* The entry of a scored design, or NULL. */
static struct tune_entry *find(struct tune_run *t, uint64_t h, const int32_t *design)
{
    int32_t id = ls_hmap_find(&t->map, ls_hash_mix64(h), &design_fns, t, design);
    return id < 0 ? NULL : &t->seen.data[id];
}

int tune_cached(struct tune_run *t, const int32_t *design, double *cycles)
{
    struct tune_entry *e = find(t, key_of(t, design), design);
    if (!e)
        return 0;
    if (cycles)
        *cycles = e->cycles;
    return 1;
}

double tune_norm(const struct tune_run *t, double cycles)
{
    if (!isfinite(cycles) || t->nsorted == 0)
        return 0;
    /* lo = first index with sorted[i] >= cycles, hi = first with sorted[i] > cycles */
    size_t lo = 0, hi = t->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->sorted[mid] < cycles)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t a = lo;
    hi = t->nsorted;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->sorted[mid] <= cycles)
            lo = mid + 1;
        else
            hi = mid;
    }
    double worse = (double)(t->nsorted - lo) + 0.5 * (double)(lo - a);
    double rank = worse / (double)t->nsorted, close = 0;
    double best = t->r->best_cycles, w = t->o->score_window;
    if (isfinite(best) && best > 0 && w > 0) {
        close = 1 - (cycles / best - 1) / w;
        close = close < 0 ? 0 : close > 1 ? 1 : close;
    }
    return t->o->score_mix * close + (1 - t->o->score_mix) * rank;
}

static int remember_score(struct tune_run *t, double c)
{
    if (LS_ARRAY_RESERVE(t->sorted, t->csorted, t->nsorted + 1))
        return LS_ERR_NOMEM;
    size_t i = t->nsorted;
    while (i > 0 && t->sorted[i - 1] > c)
        i--;
    memmove(t->sorted + i + 1, t->sorted + i, sizeof *t->sorted * (t->nsorted - i));
    t->sorted[i] = c;
    t->nsorted++;
    return 0;
}

static void report(struct tune_run *t)
{
    if (!t->o->progress)
        return;
    struct lsp_tune_progress pr = {
        .evaluations = t->r->evaluations,
        .budget = t->o->max_evaluations,
        .callbacks = t->r->callbacks,
        .start_cycles = t->r->start_cycles,
        .best_cycles = t->r->best_cycles,
        .seconds = ls_seconds_since(t->t0),
    };
    t->o->progress(t->o->progress_ctx, &pr);
}

int tune_score(struct tune_run *t, const int32_t *design, double *cycles, int *scored,
               int *fresh, struct ls_error *err)
{
    struct lsp_tune_result *r = t->r;
    uint64_t h = key_of(t, design);   /* leaves the assignment in t->asg */
    struct tune_entry *e = find(t, h, design);
    *scored = 1;
    if (fresh)
        *fresh = 0;
    if (e) {
        r->repeats++;
        *cycles = e->cycles;
        return 0;
    }
    /* the start (first evaluation) is scored whatever the budget */
    if (r->evaluations > 0 &&
        (t->stop || (t->o->max_evaluations && r->evaluations >= t->o->max_evaluations) ||
         ls_deadline_passed(&t->dl))) {
        if (t->o->time_limit > 0 && ls_deadline_passed(&t->dl))
            r->timed_out = 1;
        t->stop = 1;
        *scored = 0;
        return 0;
    }
    const struct lsp_tune_store *st = t->o->store;
    int found = 0, rc = 0;
    double c = 0;
    int32_t nops = t->p->nops;
    if (st && st->lookup && (rc = st->lookup(st->ctx, t->asg, nops, h, &c, &found, err)))
        return rc;
    if (found) {
        r->store_hits++;
    } else {
        if ((rc = t->eval(t->eval_ctx, t->asg, &c, err)))
            return rc;
        r->callbacks++;
        if (isnan(c))
            return ls_error_msg(err, LS_ERR_INTERNAL, "tune: the reward callback returned NaN");
        if (st && st->save && (rc = st->save(st->ctx, t->asg, nops, h, c, err)))
            return rc;
    }
    /* remember the design */
    if (LS_ARRAY_RESERVE(t->pool, t->pcap, t->plen + (size_t)t->np + 1) ||
        t->seen.len >= INT32_MAX || LS_VEC_RESERVE(&t->seen, t->seen.len + 1))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    memcpy(t->pool + t->plen, design, sizeof *design * (size_t)t->np);
    int32_t id = (int32_t)t->seen.len;
    t->seen.data[id] = (struct tune_entry){ls_hash_mix64(h), (int64_t)t->plen, c};
    if (ls_hmap_put(&t->map, ls_hash_mix64(h), &design_fns, t, design) != id)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    t->seen.len++;
    t->plen += (size_t)t->np;
    r->evaluations++;
    if (fresh)
        *fresh = 1;
    if (r->evaluations == 1)
        r->start_cycles = c;
    if (r->evaluations == 1 || c < r->best_cycles) {
        r->best_cycles = c;
        r->best_at = r->evaluations;
        memcpy(r->best_design, design, sizeof *design * (size_t)t->np);
        memcpy(r->best_assignment, t->asg, sizeof *t->asg * (size_t)nops);
    }
    if (isfinite(c) && c > t->worst)
        t->worst = c;
    if (remember_score(t, c))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    uint64_t size = lsp_tune_space_size(t->s);
    if (size && r->evaluations >= size) {
        r->exhausted = 1;
        t->stop = 1;
    }
    *cycles = c;
    report(t);
    return 0;
}

int tune_random_unseen(struct tune_run *t, int32_t *design)
{
    for (int attempt = 0; attempt < 64; attempt++) {
        for (int32_t i = 0; i < t->np; i++)
            design[i] = (int32_t)ls_rng_below(&t->rng,
                                              (uint64_t)lsp_tune_space_point(t->s, i)->nplans);
        if (!tune_cached(t, design, NULL))
            return 1;
    }
    /* nearly everything is scored: walk the designs in mixed-radix order from the last draw */
    uint64_t size = lsp_tune_space_size(t->s);
    for (uint64_t step = 0; size ? step < size : step < 1000000; step++) {
        int32_t i = 0;
        for (; i < t->np; i++) {
            if (++design[i] < lsp_tune_space_point(t->s, i)->nplans)
                break;
            design[i] = 0;
        }
        if (!tune_cached(t, design, NULL))
            return 1;
    }
    return 0;
}

/* ---- the run --------------------------------------------------------------------------- */

int lsp_tune_run(const struct lsp_tune_space *s, lsp_tune_eval_fn eval, void *eval_ctx,
                 const struct lsp_tune_opts *o, struct lsp_tune_result *r,
                 struct ls_error *err)
{
    struct lsp_tune_opts def;
    if (!o) {
        lsp_tune_opts_init(&def);
        o = &def;
    }
    explore_fn run = NULL;
    const char *name = o->explorer ? o->explorer : "mcts";
    for (size_t i = 0; i < NEXPLORERS; i++)
        if (strcmp(infos[i].name, name) == 0)
            run = fns[i];
    if (!run)
        return ls_error_msg(err, LS_ERR_INPUT, "tune: unknown explorer '%s' (mcts, random, sweep)",
                            name);
    if (!(o->uct_c >= 0) || !(o->uct_best >= 0 && o->uct_best <= 1) ||
        !(o->rollout_mutations >= 0 && o->rollout_mutations <= 1e6) ||
        !(o->score_window > 0 && o->score_window <= 1e6) ||
        !(o->score_mix >= 0 && o->score_mix <= 1) ||
        !(o->neighbour_share >= 0 && o->neighbour_share <= 1))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "tune: uct_c and rollout_mutations must be >= 0, uct_best, "
                            "score_mix and neighbour_share in [0, 1], score_window > 0");
    const struct lsp_problem *p = lsp_tune_space_problem(s);
    struct tune_run t;
    memset(&t, 0, sizeof t);
    t.s = s;
    t.p = p;
    t.np = lsp_tune_space_npoints(s);
    t.eval = eval;
    t.eval_ctx = eval_ctx;
    t.o = o;
    t.r = r;
    t.worst = -HUGE_VAL;
    t.t0 = ls_now_ns();
    t.dl = ls_deadline_in(o->time_limit);
    ls_rng_seed(&t.rng, o->seed);
    lsp_tune_result_free(r);
    r->npoints = t.np;
    r->nops = p->nops;
    r->best_design = calloc((size_t)t.np + 1, sizeof *r->best_design);
    r->best_assignment = calloc((size_t)p->nops + 1, sizeof *r->best_assignment);
    int32_t *start = calloc((size_t)t.np + 1, sizeof *start);
    t.asg = malloc(sizeof *t.asg * ((size_t)p->nops + 1));
    int rc = 0;
    if (!r->best_design || !r->best_assignment || !start || !t.asg || ls_hmap_reserve(&t.map, 128, &design_fns, &t)) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    double c;
    int scored;
    if ((rc = tune_score(&t, start, &c, &scored, NULL, err)))
        goto out;
    if (!t.stop)
        rc = run(&t, err);
    uint64_t size = lsp_tune_space_size(s);
    if (size && r->evaluations >= size)
        r->exhausted = 1;
out:
    r->seconds = ls_seconds_since(t.t0);
    free(start);
    free(t.asg);
    LS_VEC_FREE(&t.seen);
    ls_hmap_free(&t.map);
    free(t.pool);
    free(t.sorted);
    return rc;
}
