/* solver/fence: a computation run in a forked child process that the parent stops at a
 * deadline. The z3 solver runs libz3 in one: neither laysim's WCNF export nor
 * Z3_optimize_from_file can be interrupted, and a killed process gives all its memory back;
 * `laysim graph --time-limit` runs the whole command in one (importers and the treewidth
 * heuristic check no clock).
 *
 * The child runs fn(ctx, fd), writing its answer to fd (a pipe), and exits with fn's
 * return value; it dies with the thread that forked it (PR_SET_PDEATHSIG), so a parent
 * killed by a signal leaves no solver running. The parent reads the answer (at most cap
 * bytes, the rest dropped) until the child closes the pipe and exits, or the deadline
 * passes: then it kills the child (SIGKILL) and reaps it. */
#ifndef LS_SOLVER_FENCE_H
#define LS_SOLVER_FENCE_H

#include <stddef.h>
#include <stdint.h>

enum lsp_fence_end {
    LSP_FENCE_DONE,      /* the child exited; *status is waitpid's status */
    LSP_FENCE_CUT,       /* the deadline came first: the child was killed */
    LSP_FENCE_FAILED     /* no child: pipe or fork failed (errno says why) */
};

/* until_ns: ls_now_ns() time of the deadline, 0 for none. *got: bytes read into buf. */
enum lsp_fence_end lsp_fence_run(int (*fn)(void *ctx, int fd), void *ctx, uint64_t until_ns,
                                 void *buf, size_t cap, size_t *got, int *status);

#endif
