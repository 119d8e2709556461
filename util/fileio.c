#define _POSIX_C_SOURCE 200809L
#include "util/fileio.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ls_read_file(const char *path, char **data, size_t *len, struct ls_error *err)
{
    return ls_read_file_max(path, LS_READ_STREAM_MAX, data, len, err);
}

int ls_open_read(const char *path, int regular_only, FILE **fp, int *regular,
                 struct ls_error *err)
{
    *fp = NULL;
    *regular = 0;
    struct stat st;
    if (strcmp(path, "-") == 0 && !regular_only) {
        *fp = stdin;
        *regular = fstat(STDIN_FILENO, &st) == 0 && S_ISREG(st.st_mode);
        return LS_OK;
    }
    /* non-blocking open: a FIFO without a writer would block a plain open forever */
    int fd = open(path, O_RDONLY | O_CLOEXEC | (regular_only ? O_NONBLOCK : 0));
    if (fd < 0)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "cannot open: %s", strerror(errno));
    const char *why = fstat(fd, &st) != 0       ? strerror(errno)
                      : S_ISDIR(st.st_mode)      ? "is a directory"
                      : regular_only && !S_ISREG(st.st_mode)
                          ? "not a regular file (a FIFO, device or socket)"
                          : NULL;
    if (!why && regular_only)
        why = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) ? strerror(errno) : NULL;
    if (!why && !(*fp = fdopen(fd, "rb")))
        why = strerror(errno);
    if (why) {
        close(fd);
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "%s", why);
    }
    *regular = S_ISREG(st.st_mode);
    return LS_OK;
}

int ls_read_file_max(const char *path, size_t stream_max, char **data, size_t *len,
                     struct ls_error *err)
{
    FILE *fp;
    int regular, rc = ls_open_read(path, 0, &fp, &regular, err);
    if (rc)
        return rc;
    int use_stdin = fp == stdin;
    /* a regular file ends; a pipe or device may not (the zero device never does) */
    size_t limit = regular ? SIZE_MAX : stream_max;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) {
        if (!use_stdin)
            fclose(fp);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory reading %s", path);
    }
    for (;;) {
        if (cap - n < 2) {
            char *nb = cap < ((size_t)1 << 40) ? realloc(buf, cap * 2) : NULL;
            if (!nb) {
                free(buf);
                if (!use_stdin)
                    fclose(fp);
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory reading %s", path);
            }
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, fp);
        n += got;
        if (got == 0)
            break;
        if (n > limit) {
            free(buf);
            if (!use_stdin)
                fclose(fp);
            return ls_error_set(err, LS_ERR_LIMIT, path, 0, 0,
                                "input from a pipe or device exceeds %zu MiB; save it to a "
                                "file first", stream_max >> 20);
        }
    }
    int bad = ferror(fp);
    if (!use_stdin)
        fclose(fp);
    if (bad) {
        free(buf);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "read error");
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return LS_OK;
}

/* Temporary files still open, for the signal handler. The only mutable global state in
 * laysim: a signal is process-wide, so its cleanup list must be too. Entries are published
 * fully built with an atomic store; removal happens under a mutex with the signals
 * blocked in the removing thread, and the handler only reads and calls unlink(). */
struct live_tmp {
    struct live_tmp *next;
    char tmp[1100];
};
static struct live_tmp *live_head;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;
static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP};

static void block_cleanup_signals(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++)
        sigaddset(&set, cleanup_signals[i]);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

/* The list entry of temporary file tmp, published; NULL when out of memory. */
static struct live_tmp *live_push(const char *tmp)
{
    struct live_tmp *n = malloc(sizeof *n);
    if (!n)
        return NULL; /* the temp file still works; only its signal cleanup is lost */
    snprintf(n->tmp, sizeof n->tmp, "%s", tmp);
    sigset_t old;
    block_cleanup_signals(&old);
    pthread_mutex_lock(&live_lock);
    n->next = live_head;
    __atomic_store_n(&live_head, n, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&live_lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return n;
}

static void live_add(struct ls_atomic_file *af)
{
    af->live = live_push(af->tmp);
}

static void live_drop(struct live_tmp *n)
{
    if (!n)
        return;
    sigset_t old;
    block_cleanup_signals(&old);
    pthread_mutex_lock(&live_lock);
    for (struct live_tmp **p = &live_head; *p; p = &(*p)->next)
        if (*p == n) {
            __atomic_store_n(p, n->next, __ATOMIC_RELEASE);
            break;
        }
    pthread_mutex_unlock(&live_lock);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(n);
}

static void live_remove(struct ls_atomic_file *af)
{
    live_drop(af->live);
    af->live = NULL;
}

void *ls_temp_track(const char *path)
{
    return live_push(path);
}

void ls_temp_untrack(void *handle)
{
    live_drop(handle);
}

static void cleanup_and_die(int sig)
{
    for (struct live_tmp *n = __atomic_load_n(&live_head, __ATOMIC_ACQUIRE); n; n = n->next)
        unlink(n->tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

int ls_atomic_cleanup_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = cleanup_and_die;
    sigemptyset(&sa.sa_mask);
    int rc = 0;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof *cleanup_signals; i++) {
        struct sigaction prev;
        /* keep an inherited "ignore" (nohup): the user asked for the signal not to kill us */
        if (sigaction(cleanup_signals[i], NULL, &prev) == 0 && prev.sa_handler == SIG_IGN)
            continue;
        if (sigaction(cleanup_signals[i], &sa, NULL) != 0)
            rc = -1;
    }
    return rc;
}

/* Write straight into a device, FIFO or socket (or through a dangling symlink, creating
 * its target): there is nothing to rename into place. */
static int open_direct(struct ls_atomic_file *af, const char *path, struct ls_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0666); /* the umask applies */
    if (fd < 0)
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open output: %s",
                            strerror(errno));
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open output: %s",
                            strerror(errno));
    }
    af->direct = 1;
    return LS_OK;
}

/* Where an atomic write to `path` must go: the path itself, or a symlink's target.
 * Sets *direct when the destination cannot be replaced by a rename, and *mode to the
 * permissions of an existing regular file (kept by the replacement), -1 for a new file
 * (0666 less the umask, as open(2) gives). */
static int resolve_output(const char *path, char *final, size_t cap, int *direct,
                          int *mode, struct ls_error *err)
{
    struct stat st;
    *direct = 0;
    *mode = -1;
    if (strlen(path) >= cap)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "path too long");
    snprintf(final, cap, "%s", path);
    if (lstat(path, &st) != 0)
        return LS_OK; /* a new file */
    if (S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (!real) {
            *direct = 1; /* dangling: write through the link */
            return LS_OK;
        }
        int too_long = strlen(real) >= cap;
        if (!too_long)
            snprintf(final, cap, "%s", real);
        free(real);
        if (too_long)
            return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "link target path too long");
        if (stat(final, &st) != 0)
            return LS_OK;
    }
    if (S_ISDIR(st.st_mode))
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot write: is a directory");
    if (!S_ISREG(st.st_mode))
        *direct = 1;
    else
        *mode = (int)(st.st_mode & 07777);
    return LS_OK;
}

/* A fresh temporary NAME.tmp.PID.XXXXXX next to af->path, created exclusively with mode
 * 0666 so that the umask applies (mkstemp's 0600 would not); the PID lets a later write
 * tell a dead run's leftover from a live writer's file. Returns the descriptor or -1. */
static int create_temp(struct ls_atomic_file *af)
{
    static const char alnum[] = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 30) ^ (uint64_t)(uintptr_t)af;
    for (int attempt = 0; attempt < 100; attempt++) {
        uint64_t h = x + (uint64_t)attempt * 0x9E3779B97F4A7C15u; /* splitmix64 */
        h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9u;
        h = (h ^ (h >> 27)) * 0x94D049BB133111EBu;
        h ^= h >> 31;
        char sfx[7];
        for (int i = 0; i < 6; i++, h /= 62)
            sfx[i] = alnum[h % 62];
        sfx[6] = '\0';
        snprintf(af->tmp, sizeof af->tmp, "%s.tmp.%ld.%s", af->path, (long)getpid(), sfx);
        int fd = open(af->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            return fd;
    }
    return -1;
}

static int remove_temps(const char *dir, const char *const *patterns, size_t npatterns,
                        int pidless);

/* The leftovers of dead runs beside path (NAME.tmp.PID.XXXXXX of this NAME): removed. */
static void remove_dead_temps(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[1024], pat[2100], *w = pat;
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) + 1 : 1, slash ? path : ".");
    for (const char *c = slash ? slash + 1 : path; *c; c++) { /* the name, matched literally */
        if (strchr("*?[\\", *c))
            *w++ = '\\';
        *w++ = *c;
    }
    *w = '\0';
    const char *const pats[] = {pat};
    remove_temps(dir, pats, 1, 0);
}

int ls_atomic_open(struct ls_atomic_file *af, const char *path, struct ls_error *err)
{
    memset(af, 0, sizeof *af);
    if (strcmp(path, "-") == 0) {
        af->fp = stdout;
        af->to_stdout = 1;
        return LS_OK;
    }
    int direct, mode;
    int rc = resolve_output(path, af->path, sizeof af->path, &direct, &mode, err);
    if (rc)
        return rc;
    if (direct)
        return open_direct(af, af->path, err);
    remove_dead_temps(af->path);
    int fd = create_temp(af);
    if (fd < 0)
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot create output: %s",
                            strerror(errno));
    if (mode >= 0)
        fchmod(fd, (mode_t)mode);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        unlink(af->tmp);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open output: %s",
                            strerror(errno));
    }
    live_add(af);
    return LS_OK;
}

static int commit_direct(struct ls_atomic_file *af, struct ls_error *err)
{
    int bad = fflush(af->fp) != 0 || ferror(af->fp);
    int saved = errno;
    if (fclose(af->fp) != 0 && !bad) {
        bad = 1;
        saved = errno;
    }
    af->fp = NULL;
    if (bad)
        return ls_error_set(err, LS_ERR_IO, af->path, 0, 0, "cannot write: %s",
                            strerror(saved));
    return LS_OK;
}

int ls_atomic_commit(struct ls_atomic_file *af, struct ls_error *err)
{
    if (af->to_stdout) {
        af->fp = NULL;
        if (fflush(stdout) != 0)
            return ls_error_msg(err, LS_ERR_IO, "cannot write to stdout: %s", strerror(errno));
        return LS_OK;
    }
    if (af->direct)
        return commit_direct(af, err);
    int bad = fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0;
    int saved = errno;
    if (fclose(af->fp) != 0)
        bad = 1;
    af->fp = NULL;
    if (bad || rename(af->tmp, af->path) != 0) {
        if (!bad)
            saved = errno;
        unlink(af->tmp);
        live_remove(af);
        return ls_error_set(err, LS_ERR_IO, af->path, 0, 0, "cannot write: %s",
                            strerror(saved));
    }
    live_remove(af);
    return LS_OK;
}

void ls_atomic_abort(struct ls_atomic_file *af)
{
    if (af->to_stdout || !af->fp)
        return;
    fclose(af->fp);
    af->fp = NULL;
    if (af->direct)
        return; /* written through: nothing to take back */
    unlink(af->tmp);
    live_remove(af);
}

int ls_write_file_atomic(const char *path, const void *data, size_t len, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    if (len && fwrite(data, 1, len, af.fp) != len) {
        ls_atomic_abort(&af);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "short write");
    }
    return ls_atomic_commit(&af, err);
}

int ls_dir_lock(const char *dir, int *fd, struct ls_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/.laysim.lock", dir);
    *fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (*fd < 0)
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open the lock: %s",
                            strerror(errno));
    if (flock(*fd, LOCK_EX | LOCK_NB) != 0) {
        int busy = errno == EWOULDBLOCK, saved = errno;
        char buf[24] = "";
        ssize_t n = busy ? pread(*fd, buf, sizeof buf - 1, 0) : 0;
        long pid = n > 0 ? strtol(buf, NULL, 10) : 0;
        close(*fd);
        *fd = -1;
        if (!busy)
            return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot lock: %s", strerror(saved));
        if (pid > 0)
            return ls_error_msg(err, LS_ERR_INPUT, "%s is in use by PID %ld (another laysim "
                                "run writing there): wait for it or choose another directory",
                                dir, pid);
        return ls_error_msg(err, LS_ERR_INPUT, "%s is in use by another laysim run", dir);
    }
    char pid[24];
    int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
    if (ftruncate(*fd, 0) != 0 || pwrite(*fd, pid, (size_t)n, 0) != n) {
        int saved = errno;
        ls_dir_unlock(*fd);
        *fd = -1;
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot write the lock: %s",
                            strerror(saved));
    }
    return LS_OK;
}

void ls_dir_unlock(int fd)
{
    if (fd >= 0)
        close(fd); /* releases the flock; the file stays (removing it would race) */
}

/* NAME.tmp.PID.XXXXXX (or NAME.tmp.XXXXXX, written before temporaries carried the PID) ->
 * the length of NAME, 0 when the entry is not such a temporary; *pid the writer, 0 when
 * the name does not say. */
static size_t temp_stem(const char *entry, long *pid)
{
    size_t n = strlen(entry), e = n - 7; /* e: the '.' before XXXXXX */
    *pid = 0;
    if (n < 12 || entry[e] != '.')
        return 0;
    for (size_t i = e + 1; i < n; i++)
        if (!isalnum((unsigned char)entry[i]))
            return 0;
    size_t d = e;
    while (d > 0 && isdigit((unsigned char)entry[d - 1]))
        d--;
    if (d < e && e - d < 10 && d > 5 && !memcmp(entry + d - 5, ".tmp.", 5)) {
        *pid = strtol(entry + d, NULL, 10);
        return d - 5;
    }
    return e > 4 && !memcmp(entry + e - 4, ".tmp", 4) ? e - 4 : 0;
}

/* The writer of a temporary is gone: its PID names no process (EPERM: one of another
 * user, alive). Our own PID is never dead. */
static int writer_dead(long pid)
{
    return pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Remove the temporaries in dir whose NAME matches a pattern and whose writer is dead, or
 * that carry no PID when pidless is set. */
static int remove_temps(const char *dir, const char *const *patterns, size_t npatterns,
                        int pidless)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int removed = 0;
    for (struct dirent *e; (e = readdir(d));) {
        long pid;
        size_t stem = temp_stem(e->d_name, &pid);
        if (!stem || stem >= 256 || !(pid ? writer_dead(pid) : pidless))
            continue;
        char name[256], path[4096];
        memcpy(name, e->d_name, stem);
        name[stem] = '\0';
        for (size_t i = 0; i < npatterns; i++)
            if (fnmatch(patterns[i], name, 0) == 0) {
                snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
                removed += unlink(path) == 0;
                break;
            }
    }
    closedir(d);
    return removed;
}

int ls_remove_stale_temps(const char *dir, const char *const *patterns, size_t npatterns)
{
    return remove_temps(dir, patterns, npatterns, 1);
}
