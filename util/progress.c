#define _POSIX_C_SOURCE 200809L
#include "util/progress.h"
#include "util/clock.h"

#include <stdio.h>
#include <unistd.h>

void ls_progress_begin(struct ls_progress *p, const char *label, uint64_t total, int quiet)
{
    p->label = label;
    p->total = total;
    p->done = 0;
    p->start_ns = ls_now_ns();
    p->last_draw_ns = 0;
    p->enabled = !quiet && isatty(STDERR_FILENO);
}

static void draw(struct ls_progress *p)
{
    int width = 30;
    double frac = p->total ? (double)p->done / (double)p->total : 0.0;
    if (frac > 1)
        frac = 1;
    int fill = (int)(frac * width);
    char bar[64];
    for (int i = 0; i < width; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[width] = '\0';
    fprintf(stderr, "\r%-20.20s [%s] %3d%% %llu/%llu %.1fs", p->label, bar, (int)(frac * 100),
            (unsigned long long)p->done, (unsigned long long)p->total,
            ls_seconds_since(p->start_ns));
    fflush(stderr);
}

void ls_progress_update(struct ls_progress *p, uint64_t done)
{
    p->done = done;
    if (!p->enabled)
        return;
    uint64_t now = ls_now_ns();
    if (now - p->last_draw_ns < 100000000ULL && done < p->total)
        return;
    p->last_draw_ns = now;
    draw(p);
}

void ls_progress_end(struct ls_progress *p)
{
    if (!p->enabled)
        return;
    draw(p);
    fputc('\n', stderr);
    p->enabled = 0;
}
