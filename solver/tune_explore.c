/* solver/tune_explore: the simple explorers beside MCTS.
 *  random: uniform designs not scored yet (sampling without replacement);
 *  sweep:  first-improvement coordinate descent from the incumbent, point by point, plan by
 *          plan; at a local optimum, a kick re-randomizes three points of the best design
 *          (a uniform unscored design when kicks stop finding new ones). */
#include "solver/tune_impl.h"

#include <stdlib.h>
#include <string.h>

int tune_explore_random(struct tune_run *t, struct ls_error *err)
{
    int32_t *d = calloc((size_t)t->np + 1, sizeof *d);
    if (!d)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = 0, scored = 1;
    double c;
    while (!t->stop && scored) {
        t->r->iterations++;
        if (!tune_random_unseen(t, d))
            break;
        if ((rc = tune_score(t, d, &c, &scored, NULL, err)))
            break;
    }
    free(d);
    return rc;
}

int tune_explore_sweep(struct tune_run *t, struct ls_error *err)
{
    size_t bytes = sizeof(int32_t) * ((size_t)t->np + 1);
    int32_t *cur = malloc(bytes), *cand = malloc(bytes);
    int rc = 0;
    if (!cur || !cand) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    memcpy(cur, t->r->best_design, bytes - sizeof(int32_t));
    double cur_c = t->r->best_cycles, c;
    int scored = 1, fresh, stale = 0;
    while (!t->stop) {
        int improved = 0;
        uint64_t before = t->r->evaluations;
        for (int32_t i = 0; i < t->np && scored; i++) {
            int32_t np = lsp_tune_space_point(t->s, i)->nplans;
            for (int32_t j = 0; j < np && scored; j++) {
                if (j == cur[i])
                    continue;
                memcpy(cand, cur, bytes);
                cand[i] = j;
                t->r->iterations++;
                if ((rc = tune_score(t, cand, &c, &scored, &fresh, err)))
                    goto out;
                if (scored && c < cur_c) {
                    memcpy(cur, cand, bytes);
                    cur_c = c;
                    improved = 1;
                }
            }
        }
        if (!scored || t->stop)
            break;
        if (improved)
            continue;
        /* local optimum: kick */
        stale = t->r->evaluations == before ? stale + 1 : 0;
        if (stale < 8) {
            memcpy(cur, t->r->best_design, bytes);
            for (int k = 0; k < 3 && t->np > 0; k++) {
                int32_t i = (int32_t)ls_rng_below(&t->rng, (uint64_t)t->np);
                cur[i] = (int32_t)ls_rng_below(
                    &t->rng, (uint64_t)lsp_tune_space_point(t->s, i)->nplans);
            }
        } else if (!tune_random_unseen(t, cur)) {
            break;
        }
        t->r->iterations++;
        if ((rc = tune_score(t, cur, &cur_c, &scored, &fresh, err)) || !scored)
            break;
    }
out:
    free(cur);
    free(cand);
    return rc;
}
