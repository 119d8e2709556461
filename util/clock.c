#define _POSIX_C_SOURCE 200809L
#include "util/clock.h"

#include <time.h>

uint64_t ls_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t ls_cpu_ns(void)
{
    struct timespec ts;
    if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts))
        return 0;
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

double ls_seconds_since(uint64_t start_ns)
{
    return (double)(ls_now_ns() - start_ns) / 1e9;
}

struct ls_deadline ls_deadline_in(double limit_s)
{
    struct ls_deadline d = {0};
    if (limit_s > 0)
        d.end_ns = ls_now_ns() + (uint64_t)(limit_s * 1e9);
    return d;
}

int ls_deadline_passed(const struct ls_deadline *d)
{
    if (d->stop && atomic_load_explicit(d->stop, memory_order_relaxed))
        return 1;
    return d->end_ns && ls_now_ns() >= d->end_ns;
}
