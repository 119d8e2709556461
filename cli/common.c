#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "graph/model.h"
#include "graph/inputs.h"
#include "util/dtype.h"
#include "util/fileio.h"
#include "util/progress.h"
#include "util/scan.h"

/* The running subcommand, named in every error message. Set once by main before the
 * command runs (the CLI is one thread; the libraries below never see it). */
static const char *running_cmd;
/* The program as it was invoked (argv[0]), set once by main like running_cmd. */
static const char *running_prog;

void cli_set_command(const char *cmd)
{
    running_cmd = cmd;
}

void cli_set_program(const char *argv0)
{
    running_prog = argv0;
}

const char *cli_program(void)
{
    return running_prog ? running_prog : "laysim";
}

const char *cli_error_lead(char *buf, size_t n)
{
    snprintf(buf, n, running_cmd ? "laysim %s: " : "laysim: ", running_cmd);
    return buf;
}

int cli_report(const struct ls_error *err)
{
    char buf[1200], lead[64];
    fprintf(stderr, "%s%s\n", cli_error_lead(lead, sizeof lead),
            ls_error_format(err, buf, sizeof buf));
    return ls_exit_code(err->code ? err->code : LS_ERR_INTERNAL);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "laysim %s: ", cmd);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\n(see `laysim %s --help`)\n", cmd);
    return CLI_USAGE;
}

int cli_bad_option(const char *cmd, char **argv, const char *shortopts)
{
    /* getopt_long leaves: optopt = 0 for an unknown long option, the option's value for a
     * long option missing its argument, the character for a short option either way */
    const char *text = optind > 0 ? argv[optind - 1] : "?";
    int known = !strncmp(text, "--", 2) ? optopt != 0
                                         : optopt && strchr(shortopts, optopt) != NULL;
    if (known)
        return cli_usage(cmd, "option '%s' needs a value", text);
    if (optopt && strncmp(text, "--", 2) != 0)
        return cli_usage(cmd, "unknown option '-%c'", optopt);
    return cli_usage(cmd, "unknown option '%s'", text);
}

int cli_stdout_begin(struct cli_redirect *r, const char *path, struct ls_error *err)
{
    memset(r, 0, sizeof *r);
    if (!path || !strcmp(path, "-"))
        return 0;
    int rc = ls_atomic_open(&r->af, path, err);
    if (rc)
        return rc;
    fflush(stdout);
    r->saved_fd = dup(STDOUT_FILENO);
    if (r->saved_fd < 0 || dup2(fileno(r->af.fp), STDOUT_FILENO) < 0) {
        if (r->saved_fd >= 0)
            close(r->saved_fd);
        ls_atomic_abort(&r->af);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot redirect output: %s",
                            strerror(errno));
    }
    r->active = 1;
    return 0;
}

int cli_stdout_end(struct cli_redirect *r, int ok, struct ls_error *err)
{
    if (!r->active)
        return 0;
    int bad = fflush(stdout) != 0 || ferror(stdout);
    dup2(r->saved_fd, STDOUT_FILENO);
    close(r->saved_fd);
    clearerr(stdout);
    r->active = 0;
    if (!ok || bad) {
        ls_atomic_abort(&r->af);
        return bad ? ls_error_set(err, LS_ERR_IO, r->af.path, 0, 0, "write error") : 0;
    }
    return ls_atomic_commit(&r->af, err);
}

static void *tick(void *arg)
{
    struct cli_ticker *t = arg;
    struct timespec nap = {0, 100 * 1000 * 1000};
    uint64_t ms = 0;
    while (!t->stop) {
        nanosleep(&nap, NULL);
        ms += 100;
        ls_progress_update(&t->bar, ms < t->bar.total ? ms : t->bar.total);
    }
    return NULL;
}

void cli_ticker_start(struct cli_ticker *t, const char *label, double seconds, int quiet)
{
    memset(t, 0, sizeof *t);
    ls_progress_begin(&t->bar, label, (uint64_t)(seconds * 1000), quiet);
    pthread_t th;
    if (t->bar.enabled && pthread_create(&th, NULL, tick, t) == 0) {
        t->thread = (unsigned long)th;
        t->running = 1;
    }
}

void cli_ticker_stop(struct cli_ticker *t)
{
    t->stop = 1;
    if (t->running)
        pthread_join((pthread_t)t->thread, NULL);
    ls_progress_end(&t->bar);
}

void cli_progress_done(void *ctx, size_t done, size_t total, const char *what)
{
    struct ls_progress *p = ctx;
    (void)what;
    if (done == 0 && total) {
        p->total = total;
        return;
    }
    ls_progress_update(p, done);
}

void cli_error_prefix(struct ls_error *err, const char *pfx)
{
    char tmp[sizeof err->msg];
    memcpy(tmp, err->msg, sizeof tmp);
    size_t pl = strlen(pfx), cap = sizeof err->msg - 1;
    if (pl > cap)
        pl = cap;
    memcpy(err->msg, pfx, pl);
    size_t ml = strnlen(tmp, sizeof tmp);
    if (ml > cap - pl)
        ml = cap - pl;
    memcpy(err->msg + pl, tmp, ml);
    err->msg[pl + ml] = '\0';
}

int cli_wants_help(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            return 0;
        if (!strcmp(argv[i], CLI_FLAG_ARG(HELP)) || !strcmp(argv[i], "-h"))
            return 1;
    }
    return 0;
}

json_t *cli_json_num(double v)
{
    return isfinite(v) ? json_real(v) : json_null();
}

int cli_print_json(json_t *v)
{
    if (!v) {
        char lead[64];
        fprintf(stderr, "%sout of memory building JSON\n", cli_error_lead(lead, sizeof lead));
        return CLI_FAIL;
    }
    int rc = json_dumpf(v, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
    json_decref(v);
    fputc('\n', stdout);
    return rc ? CLI_FAIL : CLI_OK;
}

int cli_parse_u64(const char *cmd, const char *opt, const char *s, unsigned long long *out)
{
    uint64_t v;
    if (ls_parse_u64(s, strlen(s), &v))
        return cli_usage(cmd, "%s: expected a non-negative integer, got '%s'", opt, s);
    *out = v;
    return CLI_OK;
}

int cli_parse_double(const char *cmd, const char *opt, const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return cli_usage(cmd, "%s: expected a number, got '%s'", opt, s);
    *out = v;
    return CLI_OK;
}

int cli_parse_memplan(const char *cmd, const char *s, enum cg_memplan_mode *out)
{
    if (strcmp(s, "whole") == 0)
        *out = CG_MEMPLAN_WHOLE;
    else if (strcmp(s, "partial") == 0)
        *out = CG_MEMPLAN_PARTIAL;
    else
        return cli_usage(cmd, "--memplan: expected whole or partial, got '%s'", s);
    return CLI_OK;
}

/* --input entries joined by ';' for zoo_opts.inputs: one buffer per process, kept (and so
 * reachable) until exit, like the option values getopt hands out. */
static char *input_specs;

int cli_model_opt_set(struct zoo_opts *o, const char *name, const char *value,
                      struct ls_error *err)
{
    if (o->inputs != input_specs) {  /* another zoo_opts: from its own entries on */
        char *mine = o->inputs ? strdup(o->inputs) : NULL;
        if (o->inputs && !mine)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        free(input_specs);
        input_specs = mine;
        o->inputs = mine;
    }
    return model_opts_set(o, name, value, &input_specs, err);
}

int cli_model_opt(struct zoo_opts *zo, int c, const char *arg, int *rc)
{
    if (c < CLI_OPT_MODEL || c >= CLI_OPT_MODEL + MODEL_NOPTS)
        return 0;
    struct ls_error err;
    ls_error_clear(&err);
    *rc = cli_model_opt_set(zo, model_opt_names[c - CLI_OPT_MODEL], arg, &err)
              ? cli_report(&err)
              : CLI_OK;
    return 1;
}
