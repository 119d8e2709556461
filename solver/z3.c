/* solver/z3: the paper's weighted MaxSAT encoding (section 3.2.2) solved by Z3's
 * optimization module through libz3's C API, opened with dlopen on first use. Built when
 * CMake finds z3.h (LAYSIM_HAVE_Z3); otherwise, or when libz3 is missing at run time, the
 * solver is registered but refuses to run (exit 2).
 *
 * Variables: x_{o,c} per op and configuration; y_{t,l} per tensor and layout some
 * consumer may request. Hard: at least one x per op, pairwise at most one,
 * x_{c,k} -> y_{t,l} for each slot. Soft: not x_{o,c} with
 * the op cost; not x_{P,c} or not y_{t,l'} with tr[out(c)][l'] for l' != out(c).
 * Built as WCNF by solver/export.c and read by Z3's own MaxSAT front end (load_wcnf).
 * Status optimal only when Z3 reports sat within the time limit. */
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
#include <pthread.h>
#include <time.h>
#include <unistd.h>

#include "solver/export.h"
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

/* The problem in Z3's own weighted MaxSAT front end: written as WCNF (solver/export.c,
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

/* The soft weights' sum, the WCNF header's top - 1 (solver/export.c), saturating. */
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

static int load_wcnf(Z3_context ctx, Z3_optimize opt, const struct lsp_problem *p,
                     struct ls_error *err)
{
    /* Z3 4.8 misreads tops near 2^62 (docs/solvers.md) and the format keeps weights
     * below 2^53: refuse rather than answer wrong */
    if (soft_sum(p) >= 9007199254740992.0)
        return ls_error_msg(err, LS_ERR_INPUT, "z3: the op costs and the transposes (once per "
                            "producer configuration) sum to 2^53 or more, beyond what Z3's "
                            "weighted MaxSAT reader takes exactly");
    const char *dir = getenv("TMPDIR");
    char path[4096];
    snprintf(path, sizeof path, "%s/laysim-z3-XXXXXX.wcnf", dir && *dir ? dir : "/tmp");
    int fd = mkstemps(path, 5);
    if (fd < 0)
        return ls_error_msg(err, LS_ERR_IO, "z3: cannot create a temporary file in %s",
                            dir && *dir ? dir : "/tmp");
    void *tracked = ls_temp_track(path); /* a SIGTERM mid-export leaves no WCNF behind */
    FILE *fp = fdopen(fd, "w");
    int rc = fp ? lsp_export_fp(p, LSP_EXPORT_WCNF_OLD, fp, err)
                : ls_error_msg(err, LS_ERR_IO, "z3: cannot write %s", path);
    if (fp && fclose(fp) && !rc)
        rc = ls_error_msg(err, LS_ERR_IO, "z3: cannot write %s", path);
    if (!fp)
        close(fd);
    if (!rc) {
        api.Z3_optimize_from_file(ctx, opt, path);
        if (api.Z3_get_error_code(ctx) != Z3_OK)
            rc = ls_error_msg(err, LS_ERR_INTERNAL, "z3: %s",
                              api.Z3_get_error_msg(ctx, api.Z3_get_error_code(ctx)));
    }
    unlink(path);
    ls_temp_untrack(tracked);
    return rc;
}

int lsp_solve_z3(const struct lsp_problem *p, const struct lsp_solve_opts *o,
                 struct lsp_result *r, struct ls_error *err)
{
    pthread_once(&load_once, load_z3);
    if (load_error[0])
        return ls_error_msg(err, LS_ERR_INPUT, "solver z3: %s; install libz3 (Debian: libz3-4)",
                            load_error);
    Z3_config cfgz = api.Z3_mk_config();
    Z3_context ctx = api.Z3_mk_context(cfgz);
    api.Z3_del_config(cfgz);
    api.Z3_set_error_handler(ctx, quiet_handler);
    Z3_optimize opt = api.Z3_mk_optimize(ctx);
    api.Z3_optimize_inc_ref(ctx, opt);
    Z3_params prm = api.Z3_mk_params(ctx);
    api.Z3_params_inc_ref(ctx, prm);
    struct watch w;
    int watching = o->time_limit > 0 && watch_start(&w, ctx, o->time_limit) == 0;
    if (o->time_limit > 0 && !watching) {   /* no thread: Z3's own timeout, as before */
        double ms = o->time_limit * 1000.0;
        api.Z3_params_set_uint(ctx, prm, api.Z3_mk_string_symbol(ctx, "timeout"),
                           ms > 4e9 ? 4000000000u : (unsigned)(ms < 1 ? 1 : ms));
    }
    api.Z3_optimize_set_params(ctx, opt, prm);
    Z3_sort bs = api.Z3_mk_bool_sort(ctx);
    Z3_ast *x = malloc((size_t)(p->ncfg ? p->ncfg : 1) * sizeof *x);
    int rc = LS_ERR_NOMEM;
    if (!x)
        goto out;
    if ((rc = load_wcnf(ctx, opt, p, err)))
        goto out;
    /* Z3's WCNF reader names variable k by the number k */
    for (int32_t op = 0; op < p->nops; op++)
        for (int32_t c = 0; c < p->ops[op].ncfg; c++)
            x[p->ops[op].cfg0 + c] = api.Z3_mk_const(
                ctx, api.Z3_mk_int_symbol(ctx, (int)lsp_export_xvar(p, op, c)), bs);
    Z3_lbool res = api.Z3_optimize_check(ctx, opt, 0, NULL);
    if (watching) {
        watch_stop(&w);
        watching = 0;
    }
    lsp_stats_set(&r->stats, "z3_result", res == Z3_L_TRUE ? 1 : res == Z3_L_FALSE ? -1 : 0);
    rc = 0;
    if (res == Z3_L_FALSE) {
        rc = ls_error_msg(err, LS_ERR_INTERNAL, "z3: the encoding is unsatisfiable");
        goto out;
    }
    Z3_model m = api.Z3_optimize_get_model(ctx, opt);
    if (api.Z3_get_error_code(ctx) != Z3_OK || !m) {
        r->sol.status = LSP_UNKNOWN;
        r->sol.nops = 0;
        goto out;
    }
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
        r->sol.cfg[op] = pick;
    }
    api.Z3_model_dec_ref(ctx, m);
    if (!complete) {
        r->sol.status = LSP_UNKNOWN;
        r->sol.nops = 0;
        goto out;
    }
    r->sol.cost = lsp_eval(p, r->sol.cfg, NULL, NULL);
    r->sol.status = res == Z3_L_TRUE ? LSP_OPTIMAL : LSP_FEASIBLE;
    if (res == Z3_L_TRUE) {
        r->sol.has_bound = 1;
        r->sol.bound = r->sol.cost;
    }
out:
    if (watching)
        watch_stop(&w);
    free(x);
    api.Z3_params_dec_ref(ctx, prm);
    api.Z3_optimize_dec_ref(ctx, opt);
    api.Z3_del_context(ctx);
    if (rc == LS_ERR_NOMEM)
        return ls_error_msg(err, rc, "z3: out of memory");
    return rc;
}

#endif
