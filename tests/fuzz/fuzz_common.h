/* Helpers shared by the fuzz targets whose parser reads only from a path: a per-process
 * scratch file rewritten for every input. Not part of any library. */
#ifndef LS_FUZZ_COMMON_H
#define LS_FUZZ_COMMON_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/vec.h"

/* A path, by value. */
struct fuzz_path {
    char s[512];
};

/* The scratch paths handed out so far: removed when the process exits (libFuzzer's
 * -max_total_time and the replay driver both end in exit()), so runs leave nothing in
 * the temporary directory. A directory is removed once empty, as its users leave it. */
#define FUZZ_SCRATCH_MAX 16
static struct fuzz_path fuzz_scratch[FUZZ_SCRATCH_MAX];
static int fuzz_nscratch;

static void fuzz_scratch_remove(void)
{
    for (int i = 0; i < fuzz_nscratch; i++)
        remove(fuzz_scratch[i].s);
}

static inline void fuzz_scratch_note(const struct fuzz_path *p)
{
    for (int i = 0; i < fuzz_nscratch; i++)
        if (!strcmp(fuzz_scratch[i].s, p->s))
            return;
    if (fuzz_nscratch == 0 && atexit(fuzz_scratch_remove))
        abort();
    if (fuzz_nscratch == FUZZ_SCRATCH_MAX)
        abort(); /* a harness defect: more scratch names than slots x extensions */
    fuzz_scratch[fuzz_nscratch++] = *p;
}

/* Path of scratch file `slot` (0..3) of this process, under $TMPDIR or /tmp. */
static inline struct fuzz_path fuzz_tmp_path(int slot, const char *ext)
{
    struct fuzz_path p;
    const char *dir = getenv("TMPDIR");
    snprintf(p.s, sizeof p.s, "%s/laysim-fuzz-%ld-%d%s", dir && *dir ? dir : "/tmp",
             (long)getpid(), slot, ext);
    fuzz_scratch_note(&p);
    return p;
}

/* Write data to the scratch file; aborts on I/O failure (not a finding). */
static inline struct fuzz_path fuzz_tmp_write(int slot, const char *ext, const void *data,
                                              size_t size)
{
    struct fuzz_path path = fuzz_tmp_path(slot, ext);
    FILE *fp = fopen(path.s, "wb");
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
    LS_VEC(char) buf = {0};
    for (;;) {
        if (LS_VEC_RESERVE(&buf, buf.len + 4096 + 1))
            abort();
        size_t got = fread(buf.data + buf.len, 1, 4096, fp);
        if (got == 0)
            break;
        buf.len += got;
    }
    fclose(fp);
    buf.data[buf.len] = 0;
    *len = buf.len;
    return buf.data;
}

#endif
