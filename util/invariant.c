/* util/invariant: the internal error and the debug builds' action (util/invariant.h). */
#include "util/invariant.h"

#undef NDEBUG /* for __assert_fail's declaration: only debug builds call it */
#include <assert.h>
#include <stdlib.h>

static ls_invariant_action action;

int ls_invariant_error(struct ls_error *err, const char *what, const char *file, int line)
{
    return ls_error_msg(err, LS_ERR_INTERNAL, "internal error: %s (%s:%d)", what, file, line);
}

void ls_invariant_broken(const char *expr, const char *file, int line)
{
    if (action) {
        action(expr, file, line);
        return;
    }
#ifdef __GLIBC__
    __assert_fail(expr, file, (unsigned)line, "ALWAYS/NEVER"); /* what assert prints */
#else
    abort();
#endif
}

ls_invariant_action ls_invariant_set_action(ls_invariant_action a)
{
    ls_invariant_action old = action;
    action = a;
    return old;
}
