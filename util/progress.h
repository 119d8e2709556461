/* util/progress: a one-line progress bar on stderr. It draws only when stderr is a
 * terminal and quiet is off, and redraws at most ten times a second. */
#ifndef LS_UTIL_PROGRESS_H
#define LS_UTIL_PROGRESS_H

#include <stdint.h>

struct ls_progress {
    const char *label;
    uint64_t total, done;
    uint64_t start_ns, last_draw_ns;
    int enabled;
};

void ls_progress_begin(struct ls_progress *p, const char *label, uint64_t total, int quiet);
void ls_progress_update(struct ls_progress *p, uint64_t done);
void ls_progress_end(struct ls_progress *p);

#endif
