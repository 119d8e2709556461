#define _POSIX_C_SOURCE 200809L
#include "util/fileio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ls_read_file(const char *path, char **data, size_t *len, struct ls_error *err)
{
    int use_stdin = strcmp(path, "-") == 0;
    FILE *fp = use_stdin ? stdin : fopen(path, "rb");
    if (!fp)
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open: %s", strerror(errno));
    if (!use_stdin) {
        struct stat st;
        if (fstat(fileno(fp), &st) == 0 && S_ISDIR(st.st_mode)) {
            fclose(fp);
            return ls_error_set(err, LS_ERR_IO, path, 0, 0, "is a directory");
        }
    }
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

int ls_atomic_open(struct ls_atomic_file *af, const char *path, struct ls_error *err)
{
    memset(af, 0, sizeof *af);
    if (strcmp(path, "-") == 0) {
        af->fp = stdout;
        af->to_stdout = 1;
        return LS_OK;
    }
    if (strlen(path) >= sizeof af->path)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "path too long");
    snprintf(af->path, sizeof af->path, "%s", path);
    snprintf(af->tmp, sizeof af->tmp, "%s.tmp.XXXXXX", path);
    int fd = mkstemp(af->tmp);
    if (fd < 0)
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot create output: %s",
                            strerror(errno));
    fchmod(fd, 0644);
    af->fp = fdopen(fd, "wb");
    if (!af->fp) {
        close(fd);
        unlink(af->tmp);
        return ls_error_set(err, LS_ERR_IO, path, 0, 0, "cannot open output: %s",
                            strerror(errno));
    }
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
    int bad = fflush(af->fp) != 0 || ferror(af->fp) || fsync(fileno(af->fp)) != 0;
    int saved = errno;
    if (fclose(af->fp) != 0)
        bad = 1;
    af->fp = NULL;
    if (bad || rename(af->tmp, af->path) != 0) {
        if (!bad)
            saved = errno;
        unlink(af->tmp);
        return ls_error_set(err, LS_ERR_IO, af->path, 0, 0, "cannot write: %s",
                            strerror(saved));
    }
    return LS_OK;
}

void ls_atomic_abort(struct ls_atomic_file *af)
{
    if (af->to_stdout || !af->fp)
        return;
    fclose(af->fp);
    af->fp = NULL;
    unlink(af->tmp);
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
