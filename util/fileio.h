/* util/fileio: whole-file reads and atomic writes (temp file + fsync + rename),
 * so a failed run never leaves a half-written output behind.
 *
 * Outputs that are not plain files are never renamed over: a symlink is followed (its
 * target is replaced atomically, the link stays), and a device, FIFO or socket is written
 * through directly (no atomicity is possible there). Temporary files are removed on every
 * exit path of the API and, once ls_atomic_cleanup_on_signals() was called, on SIGINT,
 * SIGTERM and SIGHUP too. */
#ifndef LS_UTIL_FILEIO_H
#define LS_UTIL_FILEIO_H

#include <stdio.h>
#include <stddef.h>

#include "util/error.h"

/* Inputs that are not regular files (stdin, pipes, devices) are read up to this size;
 * beyond it the read fails with LS_ERR_LIMIT instead of exhausting memory. */
#define LS_READ_STREAM_MAX ((size_t)1 << 30)

/* Open path for reading ("-" = stdin unless regular_only). A directory is refused, and
 * with regular_only anything but a regular file too (a FIFO, device or socket), without
 * blocking on a FIFO that has no writer. *regular tells whether it is a regular file.
 * Errors are LS_ERR_INPUT naming path. */
int ls_open_read(const char *path, int regular_only, FILE **fp, int *regular,
                 struct ls_error *err);

/* Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer. */
int ls_read_file(const char *path, char **data, size_t *len, struct ls_error *err);
/* The same with another limit for pipes and devices (tests use a small one). */
int ls_read_file_max(const char *path, size_t stream_max, char **data, size_t *len,
                     struct ls_error *err);

struct ls_atomic_file {
    FILE *fp;            /* write here */
    char path[1024];     /* final name (a symlink's resolved target) */
    char tmp[1100];      /* temporary name in the same directory; "" when writing through */
    int to_stdout;       /* path was "-" */
    int direct;          /* path is a device, FIFO or socket: written through, not renamed */
    void *live;          /* the temp file's entry in the signal-cleanup list */
};

/* Open a temp file NAME.tmp.PID.XXXXXX next to path ("-" writes straight to stdout),
 * mode 0666 less the umask for a new output, an existing output's mode otherwise; first
 * removes the temporaries of path that dead runs left (their PID names no process). */
int ls_atomic_open(struct ls_atomic_file *af, const char *path, struct ls_error *err);
/* Flush, fsync and rename into place; on any failure the temp file is removed. */
int ls_atomic_commit(struct ls_atomic_file *af, struct ls_error *err);
/* Drop the temp file; the destination is left untouched. */
void ls_atomic_abort(struct ls_atomic_file *af);

/* Remove every open temporary file on SIGINT, SIGTERM and SIGHUP, then die of the signal
 * as before. For programs (the CLI calls it once at start); a library never installs
 * handlers by itself. Returns 0, or -1 if a handler could not be installed. */
int ls_atomic_cleanup_on_signals(void);

/* Another temporary file (not an output: a scratch file handed to a library) removed by
 * the same signal cleanup until ls_temp_untrack(handle); the caller still unlinks it on
 * its normal paths. Returns the handle (NULL when out of memory: only the cleanup is
 * lost; ls_temp_untrack(NULL) does nothing). */
void *ls_temp_track(const char *path);
void ls_temp_untrack(void *handle);

/* Remove the temporary files killed runs left in dir: entries NAME.tmp.PID.XXXXXX (the
 * pattern of ls_atomic_open) whose PID names no process, and NAME.tmp.XXXXXX of older
 * versions, whose NAME matches one of the fnmatch(3) patterns — the outputs the caller
 * owns there. Returns how many were removed, or -1 when dir cannot be read. */
int ls_remove_stale_temps(const char *dir, const char *const *patterns, size_t npatterns);

/* Take the advisory lock of directory dir: flock(2) on dir/.laysim.lock, which then holds
 * our PID. One writer per directory; the lock goes with ls_dir_unlock or the process (kill
 * -9 included). Held by a live run: LS_ERR_INPUT "DIR is in use by PID N". *fd is the
 * lock's descriptor (-1 on failure). */
int ls_dir_lock(const char *dir, int *fd, struct ls_error *err);
void ls_dir_unlock(int fd);

/* Convenience: write a whole buffer atomically. */
int ls_write_file_atomic(const char *path, const void *data, size_t len, struct ls_error *err);

#endif
