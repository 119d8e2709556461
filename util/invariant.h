/* util/invariant: SQLite-style ALWAYS and NEVER for the contracts between layers (a
 * program sim_run is given passed its check, a memory plan stays in its region, a solution
 * has the problem's shape, a stream's trace records come in start order).
 *
 *     if (!ALWAYS(cond)) return LS_INTERNAL(err, "what broke");
 *     if (NEVER(cond)) return LS_INTERNAL(err, "what broke");
 *
 * ALWAYS(x) is x where x should always be true, NEVER(x) is x where x should never be true.
 * In a debug build (NDEBUG not defined) a broken one calls ls_invariant_broken, which
 * aborts like assert unless a test installed its own action; in a release build the
 * condition is only evaluated and the caller returns LS_ERR_INTERNAL: a release build never
 * aborts. LS_INTERNAL fills err with the contract and the source location. */
#ifndef LS_UTIL_INVARIANT_H
#define LS_UTIL_INVARIANT_H

#include "util/error.h"

#ifdef NDEBUG
#define ALWAYS(x) (!!(x))
#define NEVER(x) (!!(x))
#else
#define ALWAYS(x) ((x) ? 1 : (ls_invariant_broken(#x, __FILE__, __LINE__), 0))
#define NEVER(x) ((x) ? (ls_invariant_broken(#x, __FILE__, __LINE__), 1) : 0)
#endif

/* LS_ERR_INTERNAL in err: "internal error: WHAT (FILE:LINE)"; returns LS_ERR_INTERNAL. */
#define LS_INTERNAL(err, what) ls_invariant_error((err), (what), __FILE__, __LINE__)
int ls_invariant_error(struct ls_error *err, const char *what, const char *file, int line);

/* Debug builds: what a broken ALWAYS/NEVER does (abort, or the installed action). */
void ls_invariant_broken(const char *expr, const char *file, int line);
/* Replace that action (NULL: abort again); returns the previous one. For tests: an action
 * that returns lets the release path (the internal error) run in a debug build. */
typedef void (*ls_invariant_action)(const char *expr, const char *file, int line);
ls_invariant_action ls_invariant_set_action(ls_invariant_action a);

#endif
