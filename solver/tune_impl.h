/* solver/tune_impl: what the tuning driver (tune_driver.c) shares with its explorers. */
#ifndef LS_SOLVER_TUNE_IMPL_H
#define LS_SOLVER_TUNE_IMPL_H

#include <stdint.h>

#include "solver/tune.h"
#include "util/clock.h"
#include "util/hmap.h"
#include "util/prng.h"
#include "util/vec.h"

struct tune_entry {
    uint64_t hash;           /* the map's key hash: the assignment hash, mixed (its low
                              * bits index the map) */
    int64_t off;             /* the design: t->pool[off .. off + npoints) */
    double cycles;
};

struct tune_run {
    const struct lsp_tune_space *s;
    const struct lsp_problem *p;
    int32_t np;              /* tuning points */
    lsp_tune_eval_fn eval;
    void *eval_ctx;
    const struct lsp_tune_opts *o;
    struct lsp_tune_result *r;
    struct ls_rng rng;
    struct ls_deadline dl;
    uint64_t t0;
    int32_t *asg;            /* scratch assignment (nops) */
    LS_VEC(struct tune_entry) seen;   /* scored designs, in scoring order */
    struct ls_hmap map;      /* design (hashed by its assignment) -> seen index */
    int32_t *pool;           /* scored designs, np each, in scoring order */
    size_t plen, pcap;
    double worst;            /* worst finite score seen (-HUGE_VAL when none) */
    double *sorted;          /* every score so far, ascending (HUGE_VAL for unrunnable) */
    size_t nsorted, csorted;
    int stop;                /* budget, deadline or exhaustion reached */
};

/* Score a design through the cache, the store and the callback. *scored = 0 (and t->stop
 * set) when the design is new but no budget is left; otherwise *cycles holds its score
 * and *fresh (may be NULL) is 1 when this call used the budget. */
int tune_score(struct tune_run *t, const int32_t *design, double *cycles, int *scored,
               int *fresh, struct ls_error *err);
/* 1 when the design was scored already (*cycles filled; may be NULL). Never evaluates. */
int tune_cached(struct tune_run *t, const int32_t *design, double *cycles);
/* Map a score into [0, 1]: (1 - score_mix) * its rank among the scores seen (the fraction
 * of scored designs that are worse, ties count half) + score_mix * its closeness to the
 * incumbent (1 at the best score, falling linearly to 0 at score_window slower). 1 = the
 * best so far, 0 = unrunnable. The rank keeps one very slow design from flattening the
 * others; the closeness keeps the many terrible designs exploration produces from making
 * a merely bad one look good. */
double tune_norm(const struct tune_run *t, double cycles);

/* Explorers: run until t->stop (or until they have nothing left to try). */
int tune_explore_mcts(struct tune_run *t, struct ls_error *err);
int tune_explore_random(struct tune_run *t, struct ls_error *err);
int tune_explore_sweep(struct tune_run *t, struct ls_error *err);

/* A uniformly random design not scored yet, when one is found within a few draws or by a
 * mixed-radix walk from a random design; 0 when every design is scored. */
int tune_random_unseen(struct tune_run *t, int32_t *design);

#endif
