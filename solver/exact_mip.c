/* solver/exact_mip: CBC on the local-polytope MIP (see exact_mip.h). */
#define _POSIX_C_SOURCE 200809L
#include "solver/exact_mip.h"

#include <Cbc_C_Interface.h>
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "solver/exact_dee.h"
#include "solver/incr.h"
#include "solver/mip_model.h"

/* Load the model into CBC as a column-major matrix: x and y integer, z continuous. */
static int load(Cbc_Model *cbc, const struct lsp_mip *m)
{
    int ncol = (int)m->ncols, nrow = (int)m->nrows;
    CoinBigIndex *start = calloc((size_t)ncol + 1, sizeof *start);
    int *index = malloc(((size_t)m->nterms + 1) * sizeof *index);
    double *value = malloc(((size_t)m->nterms + 1) * sizeof *value);
    double *collb = calloc((size_t)ncol + 1, sizeof *collb);
    double *colub = malloc(((size_t)ncol + 1) * sizeof *colub);
    double *rowlb = malloc(((size_t)nrow + 1) * sizeof *rowlb);
    double *rowub = malloc(((size_t)nrow + 1) * sizeof *rowub);
    int rc = -1;
    if (!start || !index || !value || !collb || !colub || !rowlb || !rowub)
        goto out;
    for (int64_t i = 0; i < m->nterms; i++)
        start[m->col[i] + 1]++;
    for (int k = 0; k < ncol; k++) {
        start[k + 1] += start[k];
        colub[k] = lsp_mip_is_binary(m, k) ? 1.0 : DBL_MAX;
    }
    for (int r = 0; r < nrow; r++) {
        const struct lsp_mip_row *row = &m->rows[r];
        rowlb[r] = row->rhs;
        rowub[r] = row->kind == LSP_ROW_ONE ? row->rhs : DBL_MAX;
        for (int64_t i = row->off; i < m->rows[r + 1].off; i++) {
            CoinBigIndex at = start[m->col[i]]++;   /* rows arrive in order */
            index[at] = r;
            value[at] = m->coef[i];
        }
    }
    for (int k = ncol; k > 0; k--)   /* undo the shift of the fill */
        start[k] = start[k - 1];
    start[0] = 0;
    Cbc_loadProblem(cbc, ncol, nrow, start, index, value, collb, colub, m->obj, rowlb, rowub);
    for (int k = 0; k < ncol; k++)
        if (lsp_mip_is_binary(m, k))
            Cbc_setInteger(cbc, k);
    rc = 0;
out:
    free(start);
    free(index);
    free(value);
    free(collb);
    free(colub);
    free(rowlb);
    free(rowub);
    return rc;
}

/* The start as CBC's MIP start: x of the chosen cfgs, y of the requested layouts, and z
 * (1 on the producer's output layout where the layout is requested), so that CBC gets a
 * complete solution and the start's true cost as its first incumbent. */
static int mip_start(Cbc_Model *cbc, const struct lsp_problem *p, const struct lsp_mip *m,
                     const int32_t *start)
{
    int *idx = malloc(((size_t)m->ncols + 1) * sizeof *idx);
    double *val = malloc(((size_t)m->ncols + 1) * sizeof *val);
    if (!idx || !val) {
        free(idx);
        free(val);
        return -1;
    }
    int n = 0;
    for (int32_t o = 0; o < p->nops; o++)
        for (int32_t c = 0; c < p->ops[o].ncfg; c++) {
            idx[n] = (int)(lsp_export_xvar(p, o, c) - 1);
            val[n++] = c == start[o];
        }
    for (int32_t t = 0; t < p->ntensors; t++)
        for (int32_t l = 0; m->v.ybase[t] && l < p->tensors[t].nlayouts; l++) {
            idx[n] = (int)(m->v.ybase[t] + l - 1);
            val[n++] = lsp_tensor_requests(p, start, t, l);
        }
    for (int64_t k = m->nz0; k < m->ncols; k++) {
        int64_t i = k - m->nz0;
        int32_t t = m->zt[i], pr = p->tensors[t].producer;
        idx[n] = (int)k;
        val[n++] = lsp_cfg_out_layout(p, pr, start[pr]) == m->zl[i] &&
                   lsp_tensor_requests(p, start, t, m->zm[i]);
    }
    Cbc_setMIPStartI(cbc, n, idx, val);
    free(idx);
    free(val);
    return 0;
}

/* The cfg whose x is 1 in CBC's best solution; -1 when there is none. */
static int decode(Cbc_Model *cbc, const struct lsp_problem *p, int32_t *cfg)
{
    const double *x = Cbc_bestSolution(cbc);
    if (!x)
        return -1;
    for (int32_t o = 0; o < p->nops; o++) {
        int32_t best = 0;
        for (int32_t c = 1; c < p->ops[o].ncfg; c++)
            if (x[lsp_export_xvar(p, o, c) - 1] > x[lsp_export_xvar(p, o, best) - 1])
                best = c;
        cfg[o] = best;
    }
    return 0;
}

static void read_answer(Cbc_Model *cbc, const struct lsp_problem *p, int32_t *cfg,
                        struct ex_mip_out *out)
{
    out->nodes = Cbc_getNodeCount(cbc);
    double bp = Cbc_getBestPossibleObjValue(cbc);
    /* costs are integers: round CBC's bound up, after a tolerance for its arithmetic */
    out->bound = isfinite(bp) && bp > 0 ? (int64_t)ceil(bp - 1e-6 - 1e-9 * bp) : 0;
    if (decode(cbc, p, cfg))
        return;
    out->cost = lsp_eval(p, cfg, NULL, NULL);
    out->status = Cbc_isProvenOptimal(cbc) ? LSP_OPTIMAL : LSP_FEASIBLE;
    if (out->status == LSP_OPTIMAL || out->bound > out->cost)
        out->bound = out->cost;
}

static int solve_direct(const struct lsp_problem *p, double time_limit, const int32_t *start,
                        int32_t *cfg, struct ex_mip_out *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    struct lsp_mip m;
    int rc = lsp_mip_build_tight(p, &m, err);
    if (rc) {
        lsp_mip_free(&m);
        return rc;
    }
    if (m.ncols > INT32_MAX / 2 || m.nterms > INT32_MAX / 2) {
        lsp_mip_free(&m);
        return ls_error_msg(err, LS_ERR_LIMIT, "exact: the MIP is too large for CBC");
    }
    Cbc_Model *cbc = Cbc_newModel();
    if (!cbc || load(cbc, &m) || (start && mip_start(cbc, p, &m, start))) {
        if (cbc)
            Cbc_deleteModel(cbc);
        lsp_mip_free(&m);
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory building the MIP");
    }
    Cbc_setLogLevel(cbc, 0);
    /* With the tight model (lsp_mip_build_tight) the root LP is within ~0.1% of the
     * optimum on the wide families and the MIP start is complete, so CBC's integer
     * preprocessing and its primal heuristics only cost time: random-5000 4.3 -> 2.6 CPU
     * s, fan10-2550 11.8 -> 1.9 s, rw30-2500 8.8 -> 1.9 s (docs/history.md) */
    Cbc_setParameter(cbc, "preprocess", "off");
    Cbc_setParameter(cbc, "heuristicsOnOff", "off");
    /* the root cuts that close the last ~0.1% are Gomory's and two-step MIR's; the other
     * generators found nothing there and cost 15-20% of the run (random-5000 2.6 -> 2.2 s) */
    static const char *const idle_cuts[] = {"probingCuts", "zeroHalfCuts", "knapsackCuts",
                                            "mixedIntegerRoundingCuts", "flowCoverCuts",
                                            "cliqueCuts"};
    for (size_t i = 0; i < sizeof idle_cuts / sizeof *idle_cuts; i++)
        Cbc_setParameter(cbc, idle_cuts[i], "off");
    if (time_limit > 0)
        Cbc_setMaximumSeconds(cbc, time_limit);
    Cbc_solve(cbc);
    if (Cbc_isProvenInfeasible(cbc))
        rc = ls_error_msg(err, LS_ERR_INTERNAL, "exact: CBC calls the MIP infeasible, but "
                          "every valid problem is feasible");
    else
        read_answer(cbc, p, cfg, out);
    Cbc_deleteModel(cbc);
    lsp_mip_free(&m);
    return rc;
}

/* The start moved onto the restricted problem q: its live cfgs kept, every dead one
 * replaced by the live cfg of least added cost (in op order). */
static int restrict_start(const struct lsp_problem *q, const int32_t *keep, const int32_t *start,
                          int32_t *qstart)
{
    struct lsp_incr s;
    if (lsp_incr_init(&s, q))
        return -1;
    for (int32_t o = 0; o < q->nops; o++) {
        qstart[o] = -1;
        for (int32_t c = 0; c < q->ops[o].ncfg; c++)
            if (keep[q->ops[o].cfg0 + c] == start[o])
                qstart[o] = c;
        if (qstart[o] >= 0)
            lsp_incr_set(&s, o, qstart[o]);
    }
    for (int32_t o = 0; o < q->nops; o++) {
        if (qstart[o] >= 0)
            continue;
        int32_t best = 0;
        for (int32_t c = 1; c < q->ops[o].ncfg; c++)
            if (lsp_incr_delta(&s, o, c) < lsp_incr_delta(&s, o, best))
                best = c;
        lsp_incr_set(&s, o, qstart[o] = best);
    }
    lsp_incr_free(&s);
    return 0;
}

/* CBC on q, the problem restricted to the cfgs that survive dead-end elimination; the
 * answer mapped back to p's cfg indices. */
static int solve_restricted(const struct lsp_problem *p, const struct lsp_problem *q,
                            const int32_t *keep, double time_limit, const int32_t *start,
                            int32_t *cfg, struct ex_mip_out *out, struct ls_error *err)
{
    int32_t *qstart = malloc(((size_t)p->nops + 1) * sizeof *qstart);
    int32_t *qcfg = malloc(((size_t)p->nops + 1) * sizeof *qcfg);
    int rc = !qstart || !qcfg || (start && restrict_start(q, keep, start, qstart))
                 ? ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory") : 0;
    if (!rc)
        rc = solve_direct(q, time_limit, start ? qstart : NULL, qcfg, out, err);
    if (!rc && out->status != LSP_UNKNOWN) {
        for (int32_t o = 0; o < p->nops; o++)
            cfg[o] = keep[q->ops[o].cfg0 + qcfg[o]];
        out->cost = lsp_eval(p, cfg, NULL, NULL);
    }
    free(qstart);
    free(qcfg);
    return rc;
}

/* Dead-end elimination first (solver/exact_dee): on the wide families it kills about half
 * the cfgs in milliseconds, the root LP stays the same, and CBC's LP and cut loop on the
 * smaller model take ~30% less (random-5000 2.1 -> 1.45 CPU s, docs/exact.md). */
int ex_mip_solve(const struct lsp_problem *p, double time_limit, const int32_t *start,
                 int32_t *cfg, struct ex_mip_out *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    uint8_t *dead = malloc((size_t)p->ncfg + 1);
    int64_t ndead = dead ? ex_dee(p, dead) : -1;
    if (ndead < 0) {
        free(dead);
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: out of memory");
    }
    int rc;
    if (ndead == 0) {
        rc = solve_direct(p, time_limit, start, cfg, out, err);
    } else {
        struct lsp_problem *q = NULL;
        int32_t *keep = NULL;
        rc = ex_dee_restrict(p, dead, &q, &keep, err);
        if (!rc)
            rc = solve_restricted(p, q, keep, time_limit, start, cfg, out, err);
        lsp_free(q);
        free(keep);
    }
    free(dead);
    return rc;
}

/* ---- the child process ---------------------------------------------------------------- */

struct wire {                /* the child's answer, followed by nops int32 cfgs */
    int32_t status, nops;
    int64_t cost, bound;
    double nodes;
};

/* Move all n bytes through the pipe (read when reading, else write), across short
 * transfers and EINTR; -1 on an error or end of file. */
static int transfer_all(int fd, void *buf, size_t n, int reading)
{
    char *b = buf;
    while (n) {
        ssize_t k = reading ? read(fd, b, n) : write(fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static int write_all(int fd, const void *buf, size_t n)
{
    return transfer_all(fd, (void *)buf, n, 0);
}

static int read_all(int fd, void *buf, size_t n)
{
    return transfer_all(fd, buf, n, 1);
}

static void child(const struct lsp_problem *p, double time_limit, const int32_t *start, int fd)
{
    /* CBC writes banners to stdout on some paths: a solver never prints */
    int devnull = open("/dev/null", O_WRONLY);
    if (devnull >= 0) {
        dup2(devnull, STDOUT_FILENO);
        close(devnull);
    }
    int32_t *cfg = malloc(((size_t)p->nops + 1) * sizeof *cfg);
    struct ex_mip_out out;
    struct ls_error err = {0};
    if (!cfg || ex_mip_solve(p, time_limit, start, cfg, &out, &err))
        _exit(1);
    struct wire w = {out.status, p->nops, out.cost, out.bound, out.nodes};
    if (write_all(fd, &w, sizeof w) ||
        write_all(fd, cfg, (size_t)p->nops * sizeof *cfg))
        _exit(1);
    _exit(0);
}

static void read_wire(struct ex_mip_job *j)
{
    struct wire w;
    if (read_all(j->fd, &w, sizeof w) || w.nops != j->p->nops ||
        read_all(j->fd, j->cfg, (size_t)w.nops * sizeof *j->cfg))
        return;
    if (w.status != LSP_UNKNOWN && lsp_check_assignment(j->p, j->cfg, NULL) == 0) {
        j->out = (struct ex_mip_out){w.status, w.cost, w.bound, w.nodes};
        atomic_store(&j->got, 1);
        if (w.status == LSP_OPTIMAL)
            atomic_store(j->proved, 1);
    }
}

static void *reader(void *arg)
{
    struct ex_mip_job *j = arg;
    read_wire(j);
    atomic_store(&j->ended, 1);
    return NULL;
}

void ex_mip_wait(struct ex_mip_job *j, const struct ls_deadline *dl, double grace)
{
    uint64_t until = dl->end_ns ? dl->end_ns + (uint64_t)(grace * 1e9) : 0;
    const struct timespec tick = {0, 5000000};   /* 5 ms */
    while (j->pid > 0 && !atomic_load(&j->ended) && (!until || ls_now_ns() < until))
        nanosleep(&tick, NULL);
}

int ex_mip_start(struct ex_mip_job *j, const struct lsp_problem *p, double time_limit,
                 const int32_t *start, atomic_int *proved, struct ls_error *err)
{
    memset(j, 0, sizeof *j);
    j->p = p;
    j->pid = -1;
    j->fd = -1;
    j->proved = proved;
    atomic_init(&j->got, 0);
    atomic_init(&j->ended, 0);
    j->cfg = malloc(((size_t)p->nops + 1) * sizeof *j->cfg);
    int fds[2];
    if (!j->cfg || pipe(fds))
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: cannot start the MIP engine");
    fflush(NULL);   /* the child must not flush the parent's buffered output again */
    pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: cannot fork the MIP engine: %s",
                            strerror(errno));
    }
    if (pid == 0) {
        close(fds[0]);
        child(p, time_limit, start, fds[1]);
    }
    close(fds[1]);
    j->pid = pid;
    j->fd = fds[0];
    if (pthread_create(&j->reader, NULL, reader, j)) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        close(j->fd);
        j->pid = -1;
        return ls_error_msg(err, LS_ERR_NOMEM, "exact: cannot start the MIP reader");
    }
    return 0;
}

int ex_mip_finish(struct ex_mip_job *j)
{
    if (j->pid <= 0)
        return 0;
    if (!atomic_load(&j->got))
        kill(j->pid, SIGKILL);   /* its answer is no longer wanted: the reader sees EOF */
    pthread_join(j->reader, NULL);
    while (waitpid(j->pid, NULL, 0) < 0 && errno == EINTR)
        ;
    close(j->fd);
    j->pid = -1;
    return atomic_load(&j->got);
}

void ex_mip_job_free(struct ex_mip_job *j)
{
    free(j->cfg);
    j->cfg = NULL;
}
