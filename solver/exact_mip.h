/* solver/exact_mip: the exact solver's MIP engine. The local-polytope MIP of the problem
 * (solver/mip_model) is solved by COIN-OR CBC through its C interface, either in this
 * process (ex_mip_solve) or in a forked child that the portfolio can stop at any moment
 * (ex_mip_start / ex_mip_finish). docs/exact.md says why CBC. */
#ifndef LS_SOLVER_EXACT_MIP_H
#define LS_SOLVER_EXACT_MIP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "solver/problem.h"
#include "util/clock.h"
#include "util/error.h"

struct ex_mip_out {
    int status;              /* LSP_OPTIMAL (proven), LSP_FEASIBLE, LSP_UNKNOWN (none) */
    int64_t cost;            /* objective of cfg (lsp_eval) when status != unknown */
    int64_t bound;           /* proven lower bound (CBC's best possible, rounded up) */
    double nodes;            /* branch-and-bound nodes */
};

/* Solve in this process within time_limit seconds (<= 0: none). start (may be NULL) is a
 * full assignment given to CBC as its MIP start (moved onto the cfgs that survive
 * dead-end elimination). cfg (nops) gets the assignment. */
int ex_mip_solve(const struct lsp_problem *p, double time_limit, const int32_t *start,
                 int32_t *cfg, struct ex_mip_out *out, struct ls_error *err);

/* A solve in a child process. The reader thread collects the child's answer; when it is
 * a proof it sets *proved (the portfolio's stop flag for the other engine). */
struct ex_mip_job {
    const struct lsp_problem *p;
    pid_t pid;
    int fd;
    pthread_t reader;
    atomic_int *proved;
    atomic_int got;          /* 1 once a complete answer was read */
    atomic_int ended;        /* 1 once the reader is done (answer or end of file) */
    struct ex_mip_out out;
    int32_t *cfg;            /* nops */
};
/* Fork the child (call while this process runs no other thread). */
int ex_mip_start(struct ex_mip_job *j, const struct lsp_problem *p, double time_limit,
                 const int32_t *start, atomic_int *proved, struct ls_error *err);
/* Wait until the child answered or ended, or grace seconds past dl (no deadline: until
 * it ends). */
void ex_mip_wait(struct ex_mip_job *j, const struct ls_deadline *dl, double grace);
/* Stop the child when it still runs, wait for it and the reader. Returns 1 when an
 * answer arrived (j->out, j->cfg), else 0. Frees nothing but the process resources:
 * call ex_mip_job_free afterwards. */
int ex_mip_finish(struct ex_mip_job *j);
void ex_mip_job_free(struct ex_mip_job *j);

#endif
