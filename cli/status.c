#define _GNU_SOURCE
#include "cli/status.h"

#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

void cli_duration(double seconds, char *buf, size_t n)
{
    long s = seconds > 0 ? (long)(seconds + 0.5) : 0;
    if (s < 60)
        snprintf(buf, n, "%lds", s);
    else if (s < 3600)
        snprintf(buf, n, "%ldm%02lds", s / 60, s % 60);
    else
        snprintf(buf, n, "%ldh%02ldm", s / 3600, s / 60 % 60);
}

void cli_status_format(const struct cli_status *s, uint64_t now_ns, char *buf, size_t n)
{
    enum { WIDTH = 10 };
    double frac = s->total ? (double)s->done / (double)s->total : 0;
    frac = frac > 1 ? 1 : frac;
    char bar[WIDTH + 1], el[32], left[48] = "";
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < (int)(frac * WIDTH) ? '#' : '.';
    bar[WIDTH] = 0;
    cli_duration((double)(now_ns - s->start_ns) / 1e9, el, sizeof el);
    if (s->done && s->total > s->done && now_ns > s->units_ns) {
        /* the units so far set the pace of the rest */
        double per = (double)(now_ns - s->units_ns) / 1e9 / (double)s->done;
        char eta[32];
        cli_duration(per * (double)(s->total - s->done), eta, sizeof eta);
        snprintf(left, sizeof left, ", ETA %s", eta);
    }
    snprintf(buf, n, "%s [%s] %3d%% %zu/%zu %s %s%s | %s", s->label, bar, (int)(frac * 100),
             s->done, s->total, s->unit, el, left, s->what);
}

static int term_width(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 80;
}

/* Redraw the line, cut to the terminal's width (so that it never wraps). Under s->mu. */
static void redraw(struct cli_status *s)
{
    if (!s->draw)
        return;
    char line[512];
    cli_status_format(s, ls_now_ns(), line, sizeof line);
    int w = term_width() - 1;
    if (w < (int)sizeof line)
        line[w] = 0;
    fprintf(stderr, "\r%s\033[K", line);
    fflush(stderr);
}

static void interrupted(struct cli_status *s, int sig)
{
    pthread_mutex_lock(&s->mu);
    if (s->draw)
        fputc('\n', stderr);
    if (s->hint)
        s->hint(s->hint_ctx, stderr, s->done, s->total);
    fflush(stderr);
    /* die of the signal as the process would have: the handler main installed removes
     * the temporaries, then re-raises it with the default action */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
    signal(sig, SIG_DFL);
    raise(sig);
    _exit(128 + sig);
}

static void *status_thread(void *arg)
{
    struct cli_status *s = arg;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    struct timespec tick = {0, 250 * 1000 * 1000};
    while (!s->stop) {
        pthread_mutex_lock(&s->mu);
        redraw(s);
        pthread_mutex_unlock(&s->mu);
        int sig = sigtimedwait(&set, NULL, &tick);
        if (sig > 0)
            interrupted(s, sig);
    }
    return NULL;
}

void cli_status_start(struct cli_status *s, const char *label, const char *unit, int quiet,
                      cli_status_hint hint, void *hint_ctx)
{
    memset(s, 0, sizeof *s);
    pthread_mutex_init(&s->mu, NULL);
    s->label = label;
    s->unit = unit;
    s->start_ns = s->units_ns = ls_now_ns();
    snprintf(s->what, sizeof s->what, "starting");
    s->draw = !quiet && isatty(STDERR_FILENO);
    s->hint = hint;
    s->hint_ctx = hint_ctx;
    /* the signals go to the status thread alone: this thread and every thread started
     * from it (the run's workers) block them */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, &s->saved);
    s->running = pthread_create(&s->thread, NULL, status_thread, s) == 0;
    if (!s->running)
        pthread_sigmask(SIG_SETMASK, &s->saved, NULL);
}

void cli_status_stop(struct cli_status *s)
{
    if (s->running) {
        s->stop = 1;
        pthread_join(s->thread, NULL);
        pthread_sigmask(SIG_SETMASK, &s->saved, NULL);
    }
    if (s->draw) {
        redraw(s);
        fputc('\n', stderr);
    }
    pthread_mutex_destroy(&s->mu);
}

static void on_done(void *ctx, size_t done, size_t total, const char *what)
{
    struct cli_status *s = ctx;
    (void)what;
    pthread_mutex_lock(&s->mu);
    if (done == 0 && s->total == 0)
        s->units_ns = ls_now_ns();  /* the pace counts from the first unit on */
    s->done = done;
    s->total = total;
    pthread_mutex_unlock(&s->mu);
}

static void on_phase(void *ctx, const char *what)
{
    struct cli_status *s = ctx;
    pthread_mutex_lock(&s->mu);
    snprintf(s->what, sizeof s->what, "%s", what);
    pthread_mutex_unlock(&s->mu);
}

struct study_progress_cb cli_status_cb(struct cli_status *s)
{
    return (struct study_progress_cb){.ctx = s, .done = on_done, .phase = on_phase};
}

void cli_shell_append(char *buf, size_t n, size_t *len, const char *arg)
{
    int plain = *arg != 0;
    for (const char *p = arg; *p && plain; p++)
        plain = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
                (*p >= '0' && *p <= '9') || strchr("_./:=,@%+-", *p);
    size_t k = *len;
    if (k && k + 1 < n)
        buf[k++] = ' ';
    if (!plain && k + 1 < n)
        buf[k++] = '\'';
    for (const char *p = arg; *p && k + 5 < n; p++) {
        if (*p == '\'' && !plain) {      /* ' ends the quote, \' adds one, ' reopens */
            memcpy(buf + k, "'\\''", 4);
            k += 4;
        } else {
            buf[k++] = *p;
        }
    }
    if (!plain && k + 1 < n)
        buf[k++] = '\'';
    buf[k < n ? k : n - 1] = 0;
    *len = k < n ? k : n - 1;
}
