/* tests/failalloc: the allocation-failure hook of laysim_failalloc (tests/cli/oom.sh).
 *
 * laysim_failalloc is laysim linked with -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc:
 * every allocation of laysim's own code (not of libc or the shared libraries it uses)
 * comes through here. With LAYSIM_FAIL_ALLOC=N in the environment, the Nth of them
 * returns NULL (errno ENOMEM) and every other one succeeds; with LAYSIM_ALLOC_COUNT=FILE,
 * the number of allocations made is written to FILE at exit, so that a test knows how far
 * to sweep N. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

void *__real_malloc(size_t n);
void *__real_calloc(size_t k, size_t n);
void *__real_realloc(void *p, size_t n);

static unsigned long long count, fail_at;
static int armed = -1; /* -1: the environment not read yet */

static void write_count(void)
{
    const char *path = getenv("LAYSIM_ALLOC_COUNT");
    FILE *f = path ? fopen(path, "w") : NULL;
    if (f) {
        fprintf(f, "%llu\n", count);
        fclose(f);
    }
}

/* Called on the failed allocation: `break failalloc_hit` in gdb shows who asked. */
__attribute__((noinline)) void failalloc_hit(void);
__attribute__((noinline)) void failalloc_hit(void)
{
    __asm__ volatile("");
}

/* 1 when this allocation is the one to fail. */
static int fail_now(void)
{
    if (armed < 0) {
        const char *s = getenv("LAYSIM_FAIL_ALLOC");
        fail_at = s ? strtoull(s, NULL, 10) : 0;
        armed = fail_at > 0;
        if (getenv("LAYSIM_ALLOC_COUNT"))
            atexit(write_count);
    }
    if (++count != fail_at || !armed)
        return 0;
    errno = ENOMEM;
    failalloc_hit();
    return 1;
}

void *__wrap_malloc(size_t n)
{
    return fail_now() ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t k, size_t n)
{
    return fail_now() ? NULL : __real_calloc(k, n);
}

void *__wrap_realloc(void *p, size_t n)
{
    return fail_now() ? NULL : __real_realloc(p, n);
}
