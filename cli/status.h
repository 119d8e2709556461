/* cli/status: the status line of a long run (study, whatif, loop) and its SIGINT hint.
 *
 * A thread redraws one line on stderr four times a second, from the first moment on: what
 * the run does now (the library's phase callback), units done of the total, the elapsed
 * time and, once a unit is done, the time left. It draws only when stderr is a terminal
 * and quiet is off. The same thread takes SIGINT and SIGTERM (blocked in every other
 * thread the run starts): it ends the line, prints the run's hint (what was kept, how to
 * resume; also with quiet and on a non-terminal) and lets the process die of the signal
 * as before (util/fileio removes the temporaries; the shell sees 130 for SIGINT).
 *
 *     struct cli_status st;
 *     cli_status_start(&st, "study", "jobs", quiet, hint, ctx);
 *     o.progress = cli_status_cb(&st);
 *     ... run ...
 *     cli_status_stop(&st);
 */
#ifndef LS_CLI_STATUS_H
#define LS_CLI_STATUS_H

#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "study/pipeline.h"

/* Prints what an interrupted run kept and how to resume it to out; done and total are the
 * units done and announced so far (total 0: not announced yet). */
typedef void (*cli_status_hint)(void *ctx, FILE *out, size_t done, size_t total);

struct cli_status {
    pthread_mutex_t mu;
    const char *label, *unit;
    size_t done, total;
    uint64_t start_ns, units_ns;   /* start; when the total was announced */
    char what[256];
    int draw;                      /* stderr is a terminal and quiet is off */
    volatile int stop;
    int running;
    pthread_t thread;
    sigset_t saved;                /* the caller's signal mask, restored by stop */
    cli_status_hint hint;
    void *hint_ctx;
};

void cli_status_start(struct cli_status *s, const char *label, const char *unit, int quiet,
                      cli_status_hint hint, void *hint_ctx);
/* Draws the last state (ending the line), stops the thread and restores the signal mask. */
void cli_status_stop(struct cli_status *s);
/* A progress callback (done and phase) feeding s. */
struct study_progress_cb cli_status_cb(struct cli_status *s);
/* The line as drawn, without the leading "\r" (for tests of the format): at most n bytes. */
void cli_status_format(const struct cli_status *s, uint64_t now_ns, char *buf, size_t n);
/* "42s", "3m05s", "1h02m" */
void cli_duration(double seconds, char *buf, size_t n);
/* Append arg to the shell command in buf (length *len, capacity n) after a space, quoted
 * for a POSIX shell when it holds anything but [A-Za-z0-9_./:=,@%+-]. */
void cli_shell_append(char *buf, size_t n, size_t *len, const char *arg);

#endif
