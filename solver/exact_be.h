/* solver/exact_be: bucket elimination (exact, or mini-bucket under a table-size cap)
 * followed by depth-first branch and bound guided by the bucket messages, on one
 * connected component of the cost-function network (internal to the exact solver). */
#ifndef LS_SOLVER_EXACT_BE_H
#define LS_SOLVER_EXACT_BE_H

#include <stdint.h>

#include "solver/exact_fg.h"
#include "solver/solver.h"
#include "util/clock.h"

struct ex_be_opts {
    double budget;           /* table entries allowed for all messages of the component */
    double max_table;        /* > 0: force mini-buckets of at most this many entries */
    const struct ls_deadline *deadline;
    uint64_t node_limit;     /* 0: none */
    /* Called (may be NULL) once the dry run knows how many table entries plain
     * elimination of the component needs, before any table is allocated: the portfolio
     * starts its MIP engine there and may improve the incumbent (cfg, *cost); *proven = 1
     * when it proved the incumbent optimal (elimination is then skipped). Non-zero: an
     * error (err filled), returned by ex_be_solve. */
    int (*sized)(void *ctx, int32_t c, double exact_entries, int32_t *cfg, int64_t *cost,
                 int *proven, struct ls_error *err);
    void *sized_ctx;
};

struct ex_be_out {
    int optimal;             /* proven */
    int64_t lb;              /* proven lower bound of the component */
    int stopped;             /* time or node limit hit */
    int exact_be;            /* 1: plain bucket elimination; 0: mini-buckets */
    double max_table;        /* largest message (entries) */
    int32_t width;           /* largest message arity */
    double entries;          /* all message entries */
    double exact_entries;    /* entries plain bucket elimination would need */
    uint64_t nodes;
};

/* Improve the incumbent of component c: cfg (global, nops) holds it on entry and the
 * best found on return; *cost is its component cost (in/out). scratch: nops ints. */
int ex_be_solve(const struct lsp_problem *p, const struct ex_fg *g, int32_t c,
                const struct ex_be_opts *o, int32_t *cfg, int32_t *scratch, int64_t *cost,
                struct ex_be_out *out, struct ls_error *err);

/* Component cost of an assignment: its ops' costs plus its tensors' transposes. */
int64_t ex_comp_cost(const struct lsp_problem *p, const struct ex_fg *g, int32_t c,
                     const int32_t *cfg);

#endif
