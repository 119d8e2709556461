/* util/clock: monotonic time for measuring runs and enforcing time limits. */
#ifndef LS_UTIL_CLOCK_H
#define LS_UTIL_CLOCK_H

#include <stdatomic.h>
#include <stdint.h>

uint64_t ls_now_ns(void);
/* CPU time of the process: figures that stay meaningful on a loaded machine. */
uint64_t ls_cpu_ns(void);
double ls_seconds_since(uint64_t start_ns);

/* A deadline; limit_s <= 0 means none. stop (NULL: none) lets another thread end the
 * run early: once *stop is non-zero the deadline counts as passed (a portfolio stops the
 * slower engine this way). */
struct ls_deadline {
    uint64_t end_ns;     /* 0 = no deadline */
    const atomic_int *stop;
};
struct ls_deadline ls_deadline_in(double limit_s);
int ls_deadline_passed(const struct ls_deadline *d);

#endif
