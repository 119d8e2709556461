/* A plain driver for the libFuzzer targets: feeds every file named on the command line
 * (or found in a named directory) to LLVMFuzzerTestOneInput once. Built by CMake with the
 * ordinary compiler so the reproducers in tests/data/fuzz/ and the seed corpora run as
 * normal tests (under ASan + UBSan in CI's second pass), without clang or libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/fileio.h"
#include "util/vec.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    char *buf;
    size_t n;
    struct ls_error err;
    if (ls_read_file(path, &buf, &n, &err)) {
        fprintf(stderr, "replay: %s: %s\n", path, err.msg);
        return -1;
    }
    LLVMFuzzerTestOneInput((const uint8_t *)buf, n); /* a finding aborts the process */
    free(buf);
    return 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every regular file directly in dir, in name order (deterministic). */
static int replay_dir(const char *dir, int *count)
{
    DIR *d = opendir(dir);
    if (!d)
        return fprintf(stderr, "replay: cannot open directory %s\n", dir), -1;
    LS_VEC(char *) names = {0};
    for (struct dirent *e; (e = readdir(d));) {
        char *name = e->d_name[0] == '.' ? NULL : malloc(strlen(dir) + strlen(e->d_name) + 2);
        if (name && LS_VEC_PUSH(&names, name))
            free(name), name = NULL;
        if (name)
            sprintf(name, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    qsort(names.data, names.len, sizeof *names.data, cmp_names);
    int rc = 0;
    for (size_t i = 0; i < names.len; i++) {
        struct stat st;
        if (stat(names.data[i], &st) == 0 && S_ISREG(st.st_mode)) {
            rc |= replay_file(names.data[i]);
            ++*count;
        }
        free(names.data[i]);
    }
    LS_VEC_FREE(&names);
    return rc;
}

int main(int argc, char **argv)
{
    int count = 0, rc = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0)
            continue; /* a target without reproducers or seeds yet */
        if (S_ISDIR(st.st_mode))
            rc |= replay_dir(argv[i], &count);
        else
            rc |= replay_file(argv[i]), count++;
    }
    if (count == 0) {
        fprintf(stderr, "replay: no inputs found in the paths given\n");
        rc = 1;
    }
    printf("%d input(s) replayed without a finding\n", count);
    printf("%d passed, %d failed\n", rc ? 0 : 1, rc ? 1 : 0);
    return rc ? 1 : 0;
}
