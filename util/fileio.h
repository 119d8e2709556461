/* util/fileio: whole-file reads and atomic writes (temp file + fsync + rename),
 * so a failed run never leaves a half-written output behind. */
#ifndef LS_UTIL_FILEIO_H
#define LS_UTIL_FILEIO_H

#include <stdio.h>
#include <stddef.h>

#include "util/error.h"

/* Read a whole file ("-" = stdin) into a NUL-terminated malloc'd buffer. */
int ls_read_file(const char *path, char **data, size_t *len, struct ls_error *err);

struct ls_atomic_file {
    FILE *fp;            /* write here */
    char path[1024];     /* final name */
    char tmp[1100];      /* temporary name in the same directory */
    int to_stdout;       /* path was "-" */
};

/* Open a temp file next to path ("-" writes straight to stdout). */
int ls_atomic_open(struct ls_atomic_file *af, const char *path, struct ls_error *err);
/* Flush, fsync and rename into place; on any failure the temp file is removed. */
int ls_atomic_commit(struct ls_atomic_file *af, struct ls_error *err);
/* Drop the temp file; the destination is left untouched. */
void ls_atomic_abort(struct ls_atomic_file *af);

/* Convenience: write a whole buffer atomically. */
int ls_write_file_atomic(const char *path, const void *data, size_t len, struct ls_error *err);

#endif
