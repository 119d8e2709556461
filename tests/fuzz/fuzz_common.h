/* Helpers shared by the fuzz targets whose parser reads only from a path: a per-process
 * scratch file rewritten for every input. Not part of any library. */
#ifndef LS_FUZZ_COMMON_H
#define LS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Path of scratch file `slot` (0..3) of this process, under $TMPDIR or /tmp. */
static inline const char *fuzz_tmp_path(int slot, const char *ext)
{
    static char paths[4][512];
    const char *dir = getenv("TMPDIR");
    snprintf(paths[slot], sizeof paths[slot], "%s/laysim-fuzz-%ld-%d%s",
             dir && *dir ? dir : "/tmp", (long)getpid(), slot, ext);
    return paths[slot];
}

/* Write data to the scratch file; aborts on I/O failure (not a finding). */
static inline const char *fuzz_tmp_write(int slot, const char *ext, const void *data,
                                         size_t size)
{
    const char *path = fuzz_tmp_path(slot, ext);
    FILE *fp = fopen(path, "wb");
    if (!fp || (size && fwrite(data, 1, size, fp) != size) || fclose(fp))
        abort();
    return path;
}

/* Whole contents of a file (NUL-terminated, malloc'd), or NULL when it does not exist. */
static inline char *fuzz_slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, fp)) > 0) {
        n += got;
        if (cap - n - 1 == 0) {
            char *b = realloc(buf, cap * 2);
            if (!b)
                free(buf);
            buf = b;
            cap *= 2;
        }
    }
    fclose(fp);
    if (!buf)
        abort();
    buf[n] = 0;
    *len = n;
    return buf;
}

#endif
