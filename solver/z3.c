/* solver/z3: the paper's weighted MaxSAT encoding (section 3.2.2) solved by Z3's
 * optimization module through libz3's C API, opened with dlopen on first use. Built when
 * CMake finds z3.h (LAYSIM_HAVE_Z3); otherwise, or when libz3 is missing at run time, the
 * solver is registered but refuses to run (exit 2).
 *
 * Variables: x_{o,c} per op and configuration; y_{t,l} per tensor and layout some
 * consumer may request. Hard: at least one x per op, pairwise at most one,
 * x_{c,k} -> y_{t,l} for each slot. Soft: not x_{o,c} with
 * the op cost; not x_{P,c} or not y_{t,l'} with tr[out(c)][l'] for l' != out(c).
 * Built as WCNF by solver/lsp_export.c and read by Z3's own MaxSAT front end.
 * Status optimal only when Z3 reports sat within the time limit.
 *
 * Export, reading and search run in a child process (solver/fence) that the parent kills
 * at the time limit plus a grace (grace_s), so the limit holds where Z3 cannot be
 * interrupted (its WCNF reader) and the export too; the process's address space may grow
 * by z3.mem_limit (RLIMIT_AS), and a killed process gives its memory back. */
#include "solver/solver.h"

#ifndef LAYSIM_HAVE_Z3

int lsp_solve_z3(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                 struct lsp_result *r, struct ls_error *err)
{
    (void)p;
    (void)o;
    (void)r;
    return ls_error_msg(err, LS_ERR_INPUT,
                        "solver z3: laysim was built without libz3 (install libz3-dev and rebuild)");
}

#else

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "solver/export.h"
#include "solver/fence.h"
#include "util/clock.h"
#include "util/fileio.h"

#include <z3.h>

/* libz3 is opened on first use, not linked: relocating it cost every laysim command about
 * 2 ms of CPU at start-up (2.6 against 0.7 ms for an empty program), and a machine without it
 * still runs every other command. z3.h gives the types; the table holds what dlsym found. */
#define Z3_FUNCS(X) \
    X(Z3_del_config) \
    X(Z3_del_context) \
    X(Z3_get_bool_value) \
    X(Z3_get_error_code) \
    X(Z3_get_error_msg) \
    X(Z3_interrupt) \
    X(Z3_mk_bool_sort) \
    X(Z3_mk_config) \
    X(Z3_mk_const) \
    X(Z3_mk_context) \
    X(Z3_mk_int_symbol) \
    X(Z3_mk_optimize) \
    X(Z3_mk_params) \
    X(Z3_mk_string_symbol) \
    X(Z3_model_dec_ref) \
    X(Z3_model_eval) \
    X(Z3_model_inc_ref) \
    X(Z3_optimize_check) \
    X(Z3_optimize_dec_ref) \
    X(Z3_optimize_from_file) \
    X(Z3_optimize_get_model) \
    X(Z3_optimize_inc_ref) \
    X(Z3_optimize_set_params) \
    X(Z3_params_dec_ref) \
    X(Z3_params_inc_ref) \
    X(Z3_params_set_uint) \
    X(Z3_set_error_handler)

struct z3_api {
#define Z3_FIELD(f) __typeof__(&f) f;
    Z3_FUNCS(Z3_FIELD)
#undef Z3_FIELD
};

static struct z3_api api;
static char load_error[256];   /* empty when api is complete */
static pthread_once_t load_once = PTHREAD_ONCE_INIT;

/* Sonames to try: the one CMake found at build time, then the development symlink. */
static void *open_z3(void)
{
    static const char *const names[] = {LAYSIM_Z3_SONAME, "libz3.so"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (h)
            return h;
    }
    snprintf(load_error, sizeof load_error, "cannot load %s at run time (%s)",
             LAYSIM_Z3_SONAME, dlerror());
    return NULL;
}

/* Kept open for the life of the process: Z3 keeps global state between contexts. */
static void load_z3(void)
{
    void *h = open_z3();
    if (!h)
        return;
#define Z3_SYM(f)                                                                   \
    if (!load_error[0]) {                                                           \
        void *s = dlsym(h, #f);                                                     \
        if (!s)                                                                     \
            snprintf(load_error, sizeof load_error, "%s lacks %s", LAYSIM_Z3_SONAME, #f); \
        memcpy(&api.f, &s, sizeof s);                                               \
    }
    Z3_FUNCS(Z3_SYM)
#undef Z3_SYM
}


static void quiet_handler(Z3_context c, Z3_error_code e)
{
    (void)c;
    (void)e;   /* errors are checked with Z3_get_error_code after each call */
}

/* The problem in Z3's own weighted MaxSAT front end: written as WCNF (solver/lsp_export.c,
 * the encoding of the header comment) to a temporary file and read with
 * Z3_optimize_from_file, as `z3 -wcnf` reads it. The same clauses built through the API
 * solve slower (oct-300: 90.2 s against 49.7 s for `z3 -wcnf` on its export, whose order
 * puts each op's clauses together), and a user comparing with the z3 binary gets its run. */
/* The time limit as an interrupt from a watchdog thread, not Z3's "timeout" parameter:
 * with the parameter the same problem took 52 s under a 60 s limit and 61 s under 200 s
 * (oct-300; exact's z3 member 56 s under 60 s, 74 s under 90 s), the limit steering the
 * search; `z3 -T:N` stops the process from outside and so does this. */
struct watch {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct timespec until;   /* CLOCK_MONOTONIC */
    int done;
    Z3_context ctx;
};

static void *watch_run(void *arg)
{
    struct watch *w = arg;
    pthread_mutex_lock(&w->mu);
    int r = 0;
    while (!w->done && r != ETIMEDOUT)
        r = pthread_cond_timedwait(&w->cv, &w->mu, &w->until);
    if (!w->done)
        api.Z3_interrupt(w->ctx);
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

static int watch_start(struct watch *w, Z3_context ctx, double seconds)
{
    memset(w, 0, sizeof *w);
    w->ctx = ctx;
    clock_gettime(CLOCK_MONOTONIC, &w->until);
    double s = seconds > 1e7 ? 1e7 : seconds;
    long long ns = (long long)w->until.tv_nsec + (long long)((s - (double)(long long)s) * 1e9);
    w->until.tv_sec += (time_t)s + (time_t)(ns / 1000000000LL);
    w->until.tv_nsec = (long)(ns % 1000000000LL);
    pthread_condattr_t ca;
    if (pthread_condattr_init(&ca))
        return -1;
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int rc = pthread_cond_init(&w->cv, &ca);
    pthread_condattr_destroy(&ca);
    if (rc)
        return -1;
    if (pthread_mutex_init(&w->mu, NULL)) {
        pthread_cond_destroy(&w->cv);
        return -1;
    }
    if (pthread_create(&w->th, NULL, watch_run, w)) {
        pthread_mutex_destroy(&w->mu);
        pthread_cond_destroy(&w->cv);
        return -1;
    }
    return 0;
}

static void watch_stop(struct watch *w)
{
    pthread_mutex_lock(&w->mu);
    w->done = 1;
    pthread_cond_signal(&w->cv);
    pthread_mutex_unlock(&w->mu);
    pthread_join(w->th, NULL);
    pthread_mutex_destroy(&w->mu);
    pthread_cond_destroy(&w->cv);
}

/* The soft weights' sum, the WCNF header's top - 1 (solver/lsp_export.c), saturating. */
static double soft_sum(const struct lsp_problem *p)
{
    double sum = 0;
    for (int32_t o = 0; o < p->nops; o++)
        for (int32_t c = 0; c < p->ops[o].ncfg; c++) {
            sum += (double)lsp_cfg_cost(p, o, c);
            int32_t t = p->ops[o].out, src = lsp_cfg_out_layout(p, o, c);
            for (int32_t l = 0; t >= 0 && l < p->tensors[t].nlayouts; l++)
                sum += l == src ? 0 : (double)lsp_tr_cost(p, t, src, l);
        }
    return sum;
}

/* The solve's work in z3's process (solver/fence): the WCNF export into the temporary
 * file, Z3's reading of it and the search; the parent kills the process at the deadline,
 * which neither the export nor Z3_optimize_from_file would notice. */
struct z3_job {
    const struct lsp_problem *p;
    const char *path;        /* the temporary WCNF */
    int fd;                  /* open on it for writing */
    uint64_t until_ns;       /* the time limit's end (ls_now_ns; 0: none) */
    double mem_mib;          /* z3.mem_limit: address space the process may add */
};

/* The answer on the pipe, followed by nops cfg indices when have_model. */
struct z3_wire {
    int32_t rc;              /* 0 or an ls_status; msg says what */
    int32_t res;             /* Z3_optimize_check: 1 sat, 0 undef, -1 unsat */
    int32_t have_model;
    char msg[sizeof ((struct ls_error *)0)->msg];
};

static int write_wcnf(const struct z3_job *j, struct ls_error *err)
{
    FILE *fp = fdopen(j->fd, "w");
    if (!fp)
        return ls_error_msg(err, LS_ERR_IO, "z3: cannot write %s", j->path);
    int rc = lsp_export_fp(j->p, LSP_EXPORT_WCNF_OLD, fp, err);
    if (fclose(fp) && !rc)
        rc = ls_error_msg(err, LS_ERR_IO, "z3: cannot write %s", j->path);
    return rc;
}

static int over_memory(const struct z3_job *j, struct ls_error *err)
{
    return ls_error_msg(err, LS_ERR_LIMIT, "z3: over its memory limit z3.mem_limit = %.0f MiB",
                        j->mem_mib);
}

/* An error of Z3's, as ours: out of memory is z3.mem_limit reached. */
static int z3_failed(Z3_context ctx, const struct z3_job *j, struct ls_error *err)
{
    Z3_error_code e = api.Z3_get_error_code(ctx);
    if (e == Z3_MEMOUT_FAIL)
        return over_memory(j, err);
    return ls_error_msg(err, LS_ERR_INTERNAL, "z3: %s", api.Z3_get_error_msg(ctx, e));
}

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define Z3_NO_AS_CAP 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define Z3_NO_AS_CAP 1
#endif

/* Let this process's address space grow by at most mib MiB (RLIMIT_AS over its size now:
 * what it inherited, the problem included, is not Z3's). Not under AddressSanitizer, whose
 * allocator aborts with a report where malloc would return NULL. */
static void cap_memory(double mib)
{
#ifdef Z3_NO_AS_CAP
    (void)mib;
    return;
#endif
    long pages = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld", &pages) != 1)
            pages = 0;
        fclose(f);
    }
    struct rlimit rl;
    if (pages <= 0 || getrlimit(RLIMIT_AS, &rl))
        return;
    double want = (double)pages * (double)sysconf(_SC_PAGESIZE) + mib * 1048576.0;
    if (rl.rlim_max == RLIM_INFINITY || want < (double)rl.rlim_max)
        rl.rlim_cur = (rlim_t)want;
    setrlimit(RLIMIT_AS, &rl);
}

/* Read the picks of the model Z3 holds into cfg; 1 when every op has one. */
static int read_model(Z3_context ctx, Z3_optimize opt, const struct lsp_problem *p,
                      const Z3_ast *x, int32_t *cfg)
{
    Z3_model m = api.Z3_optimize_get_model(ctx, opt);
    if (api.Z3_get_error_code(ctx) != Z3_OK || !m)
        return 0;
    api.Z3_model_inc_ref(ctx, m);
    int complete = 1;
    for (int32_t op = 0; op < p->nops && complete; op++) {
        int32_t pick = -1;
        for (int32_t c = 0; c < p->ops[op].ncfg && pick < 0; c++) {
            Z3_ast v;
            if (api.Z3_model_eval(ctx, m, x[p->ops[op].cfg0 + c], true, &v) &&
                api.Z3_get_bool_value(ctx, v) == Z3_L_TRUE)
                pick = c;
        }
        complete = pick >= 0;
        cfg[op] = pick;
    }
    api.Z3_model_dec_ref(ctx, m);
    return complete;
}

/* Z3 on the written WCNF within the time left: w->res, and cfg when w->have_model. */
static int z3_search(Z3_context ctx, const struct z3_job *j, const Z3_ast *x, int32_t *cfg,
                     struct z3_wire *w, struct ls_error *err)
{
    double left = j->until_ns ? (double)(int64_t)(j->until_ns - ls_now_ns()) / 1e9 : 0;
    if (j->until_ns && (ls_now_ns() >= j->until_ns || left < 1e-3))
        return 0;   /* the export took the time: unknown */
    Z3_optimize opt = api.Z3_mk_optimize(ctx);
    api.Z3_optimize_inc_ref(ctx, opt);
    struct watch wt;
    int watching = j->until_ns && watch_start(&wt, ctx, left) == 0;
    if (j->until_ns && !watching) {   /* no thread: Z3's own timeout */
        Z3_params prm = api.Z3_mk_params(ctx);
        api.Z3_params_inc_ref(ctx, prm);
        api.Z3_params_set_uint(ctx, prm, api.Z3_mk_string_symbol(ctx, "timeout"),
                               left > 4e6 ? 4000000000u : (unsigned)(left * 1000 + 1));
        api.Z3_optimize_set_params(ctx, opt, prm);
        api.Z3_params_dec_ref(ctx, prm);
    }
    int rc = 0;
    api.Z3_optimize_from_file(ctx, opt, j->path);
    if (api.Z3_get_error_code(ctx) != Z3_OK) {
        if (!j->until_ns || ls_now_ns() < j->until_ns)   /* else interrupted: unknown */
            rc = z3_failed(ctx, j, err);
    } else {
        Z3_lbool res = api.Z3_optimize_check(ctx, opt, 0, NULL);
        w->res = res == Z3_L_TRUE ? 1 : res == Z3_L_FALSE ? -1 : 0;
        if (api.Z3_get_error_code(ctx) == Z3_MEMOUT_FAIL)
            rc = z3_failed(ctx, j, err);
        else if (res != Z3_L_FALSE)
            w->have_model = read_model(ctx, opt, j->p, x, cfg);
    }
    if (watching)
        watch_stop(&wt);
    api.Z3_optimize_dec_ref(ctx, opt);
    return rc;
}

/* The child's whole run: export, Z3, the answer written to out. */
static int z3_child(void *arg, int out)
{
    const struct z3_job *j = arg;
    const struct lsp_problem *p = j->p;
    struct z3_wire w;
    memset(&w, 0, sizeof w);
    struct ls_error err;
    ls_error_clear(&err);
    cap_memory(j->mem_mib);
    int32_t *cfg = malloc(((size_t)p->nops + 1) * sizeof *cfg);
    Z3_ast *x = malloc((size_t)(p->ncfg ? p->ncfg : 1) * sizeof *x);
    w.rc = cfg && x ? write_wcnf(j, &err) : ls_error_msg(&err, LS_ERR_NOMEM, "z3: out of memory");
    Z3_config cfgz = w.rc ? NULL : api.Z3_mk_config();
    Z3_context ctx = cfgz ? api.Z3_mk_context(cfgz) : NULL;
    if (cfgz)
        api.Z3_del_config(cfgz);
    if (!w.rc && !ctx)
        w.rc = over_memory(j, &err);
    if (!w.rc) {
        api.Z3_set_error_handler(ctx, quiet_handler);
        Z3_sort bs = api.Z3_mk_bool_sort(ctx);
        /* Z3's WCNF reader names variable k by the number k */
        for (int32_t op = 0; op < p->nops; op++)
            for (int32_t c = 0; c < p->ops[op].ncfg; c++)
                x[p->ops[op].cfg0 + c] = api.Z3_mk_const(
                    ctx, api.Z3_mk_int_symbol(ctx, (int)lsp_export_xvar(p, op, c)), bs);
        w.rc = z3_search(ctx, j, x, cfg, &w, &err);
        api.Z3_del_context(ctx);
    }
    if (w.rc == LS_ERR_NOMEM)
        w.rc = over_memory(j, &err);
    if (w.rc)
        memcpy(w.msg, err.msg, sizeof w.msg);
    FILE *fp = fdopen(out, "w");
    size_t n = w.have_model ? (size_t)p->nops : 0;
    return !fp || fwrite(&w, sizeof w, 1, fp) != 1 || fwrite(cfg, sizeof *cfg, n, fp) != n ||
           fclose(fp);
}

/* z3.mem_limit in MiB: the given bytes, or half of the machine's memory. */
static int mem_limit_mib(const struct lsp_solve_opts *o, double *mib, struct ls_error *err)
{
    double bytes;
    int rc = lsp_param_num(o, "z3.mem_limit", &bytes, err);
    if (!rc && isnan(bytes))
        bytes = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE) / 2;
    *mib = floor(bytes / 1048576.0);
    if (*mib < 1)
        *mib = 1;
    return rc;
}

/* The child's answer as the result; how it ended when it gave none. */
static int take_answer(const struct z3_job *j, enum lsp_fence_end end, const char *buf,
                       size_t got, int status, struct lsp_result *r, struct ls_error *err)
{
    const struct lsp_problem *p = j->p;
    r->sol.status = LSP_UNKNOWN;
    r->sol.nops = 0;
    lsp_stats_set(&r->stats, "z3_cut", end == LSP_FENCE_CUT);
    lsp_stats_set(&r->stats, "z3_result", 0);
    if (end == LSP_FENCE_FAILED)
        return ls_error_msg(err, LS_ERR_NOMEM, "z3: cannot start its process: %s",
                            strerror(errno));
    if (end == LSP_FENCE_CUT)
        return 0;   /* the time limit: no assignment */
    struct z3_wire w;
    if (got < sizeof w)
        return ls_error_msg(err, LS_ERR_INTERNAL, "z3: its process ended without an answer "
                            "(%s %d; its memory limit z3.mem_limit is %.0f MiB)",
                            WIFSIGNALED(status) ? "signal" : "exit status",
                            WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status),
                            j->mem_mib);
    memcpy(&w, buf, sizeof w);
    w.msg[sizeof w.msg - 1] = '\0';
    if (w.rc)
        return ls_error_msg(err, w.rc, "%s", w.msg);
    lsp_stats_set(&r->stats, "z3_result", w.res);
    if (w.res < 0)
        return ls_error_msg(err, LS_ERR_INTERNAL, "z3: the encoding is unsatisfiable");
    size_t need = sizeof w + (size_t)p->nops * sizeof *r->sol.cfg;
    if (!w.have_model || got < need)
        return 0;
    memcpy(r->sol.cfg, buf + sizeof w, (size_t)p->nops * sizeof *r->sol.cfg);
    r->sol.nops = p->nops;
    r->sol.cost = lsp_eval(p, r->sol.cfg, NULL, NULL);
    r->sol.status = w.res > 0 ? LSP_OPTIMAL : LSP_FEASIBLE;
    r->sol.has_bound = w.res > 0;
    r->sol.bound = w.res > 0 ? r->sol.cost : 0;
    return 0;
}

/* Seconds past the time limit the parent waits for the interrupted search's model: a
 * tenth of the limit, 0.2 s at least, 1 s at most. */
static double grace_s(double limit)
{
    double g = limit / 10;
    return g < 0.2 ? 0.2 : g > 1 ? 1 : g;
}

int lsp_solve_z3(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                 struct lsp_result *r, struct ls_error *err)
{
    pthread_once(&load_once, load_z3);
    if (load_error[0])
        return ls_error_msg(err, LS_ERR_INPUT, "solver z3: %s; install libz3 (Debian: libz3-4)",
                            load_error);
    /* Z3 4.8 misreads tops near 2^62 (docs/solvers.md) and the format keeps weights
     * below 2^53: refuse rather than answer wrong */
    if (soft_sum(p) >= 9007199254740992.0)
        return ls_error_msg(err, LS_ERR_INPUT, "z3: the op costs and the transposes (once per "
                            "producer configuration) sum to 2^53 or more, beyond what Z3's "
                            "weighted MaxSAT reader takes exactly");
    uint64_t start = ls_now_ns();
    struct z3_job j = {.p = p, .until_ns = o->time_limit > 0
                                              ? start + (uint64_t)(fmin(o->time_limit, 1e7) * 1e9)
                                              : 0};
    int rc = mem_limit_mib(o, &j.mem_mib, err);
    if (rc)
        return rc;
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/laysim-z3-XXXXXX.wcnf", dir && *dir ? dir : "/tmp");
    j.path = path;
    j.fd = mkstemps(path, 5);
    if (j.fd < 0)
        return ls_error_msg(err, LS_ERR_IO, "z3: cannot create a temporary file in %s",
                            dir && *dir ? dir : "/tmp");
    void *tracked = ls_temp_track(path); /* a SIGTERM mid-solve leaves no WCNF behind */
    size_t cap = sizeof(struct z3_wire) + (size_t)p->nops * sizeof *r->sol.cfg, got = 0;
    char *buf = malloc(cap);
    uint64_t kill_at = j.until_ns ? j.until_ns + (uint64_t)(grace_s(o->time_limit) * 1e9) : 0;
    int status = 0;
    enum lsp_fence_end end = buf ? lsp_fence_run(z3_child, &j, kill_at, buf, cap, &got, &status)
                                 : LSP_FENCE_FAILED;
    int fork_errno = buf ? errno : ENOMEM;
    close(j.fd);
    unlink(path);
    ls_temp_untrack(tracked);
    errno = fork_errno;
    rc = take_answer(&j, end, buf, got, status, r, err);
    free(buf);
    return rc;
}

#endif
