/* solver/fence: a computation in a child process, stopped at a deadline (fence.h). */
#include "solver/fence.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util/clock.h"

/* poll's timeout until until_ns: -1 without a deadline, 0 once it has passed. */
static int ms_left(uint64_t until_ns)
{
    if (!until_ns)
        return -1;
    uint64_t now = ls_now_ns();
    if (now >= until_ns)
        return 0;
    uint64_t ms = (until_ns - now + 999999) / 1000000;
    return ms > 60000 ? 60000 : (int)ms;
}

/* Read fd into buf (past cap: dropped) until end of file (1) or the deadline (0). */
static int drain(int fd, uint64_t until_ns, char *buf, size_t cap, size_t *got)
{
    char sink[4096];
    for (;;) {
        struct pollfd pf = {.fd = fd, .events = POLLIN};
        int ms = ms_left(until_ns);
        if (ms == 0)
            return 0;
        int r = poll(&pf, 1, ms);
        if (r == 0 || (r < 0 && errno == EINTR))
            continue;
        int keep = *got < cap;
        ssize_t k = r < 0 ? -1 : read(fd, keep ? buf + *got : sink, keep ? cap - *got : sizeof sink);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return 1;
        *got += keep ? (size_t)k : 0;
    }
}

/* Wait for the child until the deadline, then kill it; 1 when it exited by itself. */
static int reap(pid_t pid, uint64_t until_ns, int *status)
{
    const struct timespec tick = {0, 2000000};   /* 2 ms */
    for (;;) {
        pid_t r = waitpid(pid, status, WNOHANG);
        if (r == pid)
            return 1;
        if (r < 0 && errno != EINTR)
            return 1;
        if (until_ns && ls_now_ns() >= until_ns)
            break;
        nanosleep(&tick, NULL);
    }
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return 0;
}

enum lsp_fence_end lsp_fence_run(int (*fn)(void *ctx, int fd), void *ctx, uint64_t until_ns,
                                 void *buf, size_t cap, size_t *got, int *status)
{
    *got = 0;
    *status = 0;
    int fds[2];
    if (pipe(fds))
        return LSP_FENCE_FAILED;
    pid_t parent = getpid();
    fflush(NULL);   /* the child must not flush the parent's buffered output again */
    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return LSP_FENCE_FAILED;
    }
    if (pid == 0) {
        close(fds[0]);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        _exit(getppid() != parent ? 1 : fn(ctx, fds[1]));   /* parent gone before prctl */
    }
    close(fds[1]);
    int eof = drain(fds[0], until_ns, buf, cap, got);
    close(fds[0]);   /* a child still writing gets SIGPIPE */
    if (!eof) {
        kill(pid, SIGKILL);
        while (waitpid(pid, status, 0) < 0 && errno == EINTR)
            ;
        return LSP_FENCE_CUT;
    }
    return reap(pid, until_ns, status) ? LSP_FENCE_DONE : LSP_FENCE_CUT;
}
