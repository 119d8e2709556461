/* Tests for util/: errors, arena, vec, hash map, intern, scan, prng, atomic files, tree decompositions. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>

#include "util/arena.h"
#include "util/csv.h"
#include "util/error.h"
#include "util/fileio.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/intern.h"
#include "util/jsonpos.h"
#include "util/prng.h"
#include "util/scan.h"
#include "util/treedec.h"
#include "util/vec.h"

static void test_error_format(void **state)
{
    (void)state;
    struct ls_error e;
    char buf[256];
    assert_int_equal(ls_error_set(&e, LS_ERR_INPUT, "a.lg", 3, 7, "bad %s", "token"), LS_ERR_INPUT);
    assert_string_equal(ls_error_format(&e, buf, sizeof buf), "a.lg:3:7: bad token");
    ls_error_msg(&e, LS_ERR_IO, "plain");
    assert_string_equal(ls_error_format(&e, buf, sizeof buf), "plain");
    assert_int_equal(ls_exit_code(LS_ERR_INPUT), 2);
    assert_int_equal(ls_exit_code(LS_ERR_IO), 1);
    assert_int_equal(ls_exit_code(LS_OK), 0);
}

static void test_arena(void **state)
{
    (void)state;
    struct ls_arena a;
    ls_arena_init(&a, 128);
    char *big = ls_arena_alloc(&a, 1000);
    assert_non_null(big);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(big[i], 0);
    for (int i = 0; i < 100; i++) {
        int *p = ls_arena_alloc(&a, sizeof(int) * 3);
        assert_non_null(p);
        assert_int_equal((uintptr_t)p % 16, 0);
        p[2] = i;
    }
    assert_string_equal(ls_arena_strdup(&a, "hello"), "hello");
    assert_string_equal(ls_arena_strndup(&a, "hello", 3), "hel");
    ls_arena_free(&a);
}

static void test_vec(void **state)
{
    (void)state;
    LS_VEC(int) v = {0};
    for (int i = 0; i < 1000; i++)
        assert_int_equal(LS_VEC_PUSH(&v, i * 2), 0);
    assert_int_equal(v.len, 1000);
    assert_int_equal(v.data[999], 1998);
    LS_VEC_FREE(&v);
    assert_null(v.data);
}

static void test_vec_helpers(void **state)
{
    (void)state;
    LS_VEC(int) v = {0};
    int src[5] = {1, 2, 3, 4, 5};
    assert_int_equal(LS_VEC_APPEND(&v, src, 0), 0);
    assert_int_equal(v.len, 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(LS_VEC_APPEND(&v, src, 5), 0);
    assert_int_equal(v.len, 500);
    assert_int_equal(v.data[499], 5);
    assert_int_equal(v.data[250], 1);
    assert_int_equal(LS_VEC_RESIZE(&v, 3), 0);
    assert_int_equal(v.len, 3);
    assert_int_equal(v.data[2], 3);
    LS_VEC_FREE(&v);
    assert_int_equal(LS_VEC_RESERVE_EXACT(&v, 37), 0);
    assert_int_equal(v.cap, 37);
    assert_int_equal(LS_VEC_RESERVE_EXACT(&v, 20), 0);   /* never shrinks */
    assert_int_equal(v.cap, 37);
    LS_VEC_FREE(&v);
}

/* hash map test keys: uint64 values in an array indexed by id, hashed as the test says
 * (identity, FNV of the bytes, or one constant that puts every key on one probe chain) */
enum hm_mode { HM_IDENTITY, HM_FNV, HM_CONST };

struct hm_keys {
    const uint64_t *k;
    enum hm_mode mode;
    int eq_calls, hash_calls;
};

static uint64_t hm_hash_of(const struct hm_keys *c, uint64_t k)
{
    return c->mode == HM_IDENTITY ? k : c->mode == HM_FNV ? ls_fnv1a64(&k, 8) : 42;
}

static uint64_t hm_hash(const void *ctx, int32_t id)
{
    struct hm_keys *c = (struct hm_keys *)ctx;
    c->hash_calls++;
    return hm_hash_of(c, c->k[id]);
}

static int hm_eq(const void *ctx, int32_t id, const void *key)
{
    struct hm_keys *c = (struct hm_keys *)ctx;
    c->eq_calls++;
    return c->k[id] == *(const uint64_t *)key;
}

static const struct ls_hmap_fns hm_fns = {hm_hash, hm_eq};

static void test_hmap_basic(void **state)
{
    (void)state;
    struct ls_hmap m = {0};
    uint64_t keys[4] = {10, 20, 30, 50};
    struct hm_keys c = {keys, HM_IDENTITY, 0, 0};
    assert_int_equal(ls_hmap_find(&m, 10, &hm_fns, &c, &keys[0]), -1);   /* no slots yet */
    assert_int_equal(ls_hmap_bytes(&m), 0);
    for (int32_t i = 0; i < 3; i++)
        assert_int_equal(ls_hmap_put(&m, keys[i], &hm_fns, &c, &keys[i]), i);
    /* present: the stored id comes back, no new id */
    assert_int_equal(ls_hmap_put(&m, keys[1], &hm_fns, &c, &keys[1]), 1);
    assert_int_equal(m.n, 3);
    uint64_t absent = 40;
    assert_int_equal(ls_hmap_find(&m, absent, &hm_fns, &c, &absent), -1);
    assert_int_equal(ls_hmap_find(&m, 30, &hm_fns, &c, &keys[2]), 2);
    assert_int_equal(ls_hmap_bytes(&m), 16 * sizeof(int32_t));
    /* drop_last forgets the newest id only; the others stay findable */
    assert_int_equal(ls_hmap_put(&m, keys[3], &hm_fns, &c, &keys[3]), 3);
    ls_hmap_drop_last(&m, keys[3]);
    assert_int_equal(m.n, 3);
    assert_int_equal(ls_hmap_find(&m, keys[3], &hm_fns, &c, &keys[3]), -1);
    for (int32_t i = 0; i < 3; i++)
        assert_int_equal(ls_hmap_find(&m, keys[i], &hm_fns, &c, &keys[i]), i);
    ls_hmap_clear(&m);
    assert_int_equal(m.n, 0);
    assert_int_equal(ls_hmap_find(&m, 30, &hm_fns, &c, &keys[2]), -1);
    assert_int_equal(ls_hmap_put(&m, keys[0], &hm_fns, &c, &keys[0]), 0);   /* ids restart */
    ls_hmap_free(&m);
    assert_null(m.slot);
    assert_int_equal(ls_hmap_nslots(&m), 0);
    assert_true(sizeof m <= 16);
}

static void test_hmap_collisions(void **state)
{
    (void)state;
    /* every key has the same hash: one probe chain, told apart by equality alone, through
     * several growths */
    enum { N = 300 };
    uint64_t keys[N];
    for (int i = 0; i < N; i++)
        keys[i] = (uint64_t)i * 7919u;
    struct hm_keys c = {keys, HM_CONST, 0, 0};
    struct ls_hmap m = {0};
    for (int32_t i = 0; i < N; i++)
        assert_int_equal(ls_hmap_put(&m, 42, &hm_fns, &c, &keys[i]), i);
    assert_true(c.hash_calls > 0);
    for (int32_t i = 0; i < N; i++)
        assert_int_equal(ls_hmap_find(&m, 42, &hm_fns, &c, &keys[i]), i);
    uint64_t absent = 1;
    assert_int_equal(ls_hmap_find(&m, 42, &hm_fns, &c, &absent), -1);
    ls_hmap_free(&m);
}

static void test_hmap_growth(void **state)
{
    (void)state;
    /* many keys, growing from empty: load stays at most one half, every id findable, ids
     * dense in insertion order */
    enum { N = 200000 };
    uint64_t *keys = malloc(N * sizeof *keys);
    assert_non_null(keys);
    struct ls_rng r;
    ls_rng_seed(&r, 5);
    for (int i = 0; i < N; i++)
        keys[i] = ls_rng_next(&r) | 1;   /* odd; distinct with overwhelming probability */
    struct hm_keys c = {keys, HM_FNV, 0, 0};
    struct ls_hmap m = {0};
    size_t last = 0;
    int grows = 0;
    for (int32_t i = 0; i < N; i++) {
        assert_int_equal(ls_hmap_put(&m, hm_hash_of(&c, keys[i]), &hm_fns, &c, &keys[i]), i);
        assert_true(m.n * 2 <= ls_hmap_nslots(&m));
        if (ls_hmap_nslots(&m) != last) {
            grows++;
            last = ls_hmap_nslots(&m);
        }
    }
    assert_int_equal(m.n, N);
    assert_true(grows > 10);
    /* every growth re-hashes each stored id once: fewer than 2 calls per id in all */
    assert_true(c.hash_calls < 2 * N);
    c.eq_calls = 0;
    for (int32_t i = 0; i < N; i++)
        assert_int_equal(ls_hmap_find(&m, hm_hash_of(&c, keys[i]), &hm_fns, &c, &keys[i]), i);
    assert_true(c.eq_calls < 2 * N);   /* short probe chains at load <= 1/2 */
    for (int i = 0; i < 1000; i++) {
        uint64_t k = (uint64_t)i * 2;   /* even: never a key */
        assert_int_equal(ls_hmap_find(&m, hm_hash_of(&c, k), &hm_fns, &c, &k), -1);
    }
    ls_hmap_free(&m);
    /* reserve up front: no growth while filling, and the size slots_for announces */
    assert_int_equal(ls_hmap_reserve(&m, 1000, &hm_fns, &c), 0);
    size_t ns = ls_hmap_nslots(&m);
    assert_int_equal(ns, ls_hmap_slots_for(1000));
    assert_int_equal(ns, 2048);
    c.hash_calls = 0;
    for (int32_t i = 0; i < 1000; i++)
        assert_int_equal(ls_hmap_put(&m, hm_hash_of(&c, keys[i]), &hm_fns, &c, &keys[i]), i);
    assert_int_equal(ls_hmap_nslots(&m), ns);
    assert_int_equal(c.hash_calls, 0);
    assert_int_equal(ls_hmap_slots_for(0), 16);
    ls_hmap_free(&m);
    free(keys);
}

static void test_intern(void **state)
{
    (void)state;
    struct ls_intern t;
    ls_intern_init(&t);
    char name[32];
    for (int i = 0; i < 500; i++) {
        snprintf(name, sizeof name, "t%d", i);
        assert_int_equal(ls_intern_add(&t, name, strlen(name)), i);
    }
    assert_int_equal(ls_intern_add(&t, "t42", 3), 42);
    assert_int_equal(ls_intern_find(&t, "t499", 4), 499);
    assert_int_equal(ls_intern_find(&t, "t500", 4), -1);
    assert_string_equal(ls_intern_str(&t, 7), "t7");
    ls_intern_free(&t);
}

static void test_hash(void **state)
{
    (void)state;
    /* published FNV-1a 64 test vectors */
    assert_true(ls_fnv1a64("", 0) == 0xcbf29ce484222325ULL);
    assert_true(ls_fnv1a64("a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(ls_fnv1a64("foobar", 6) == 0x85944171f73967e8ULL);
}

static void test_scan(void **state)
{
    (void)state;
    const char *text = "# header\n\nlsp 1  # trailing\r\n\ttensor  a 2\nop x\n";
    struct ls_scan sc;
    struct ls_error e;
    ls_scan_init(&sc, "f.lsp", text, strlen(text));
    assert_int_equal(ls_scan_next(&sc, &e), 1);
    assert_int_equal(sc.line, 3);
    assert_int_equal(sc.ntok, 2);
    assert_true(ls_tok_eq(&sc.tok[0], "lsp"));
    uint64_t v;
    assert_int_equal(ls_scan_u64(&sc, 1, "version", &v, &e), 0);
    assert_int_equal(v, 1);
    assert_int_equal(ls_scan_next(&sc, &e), 1);
    assert_int_equal(sc.line, 4);
    assert_int_equal(sc.tok[0].col, 2);
    assert_int_equal(sc.tok[1].col, 10);
    assert_int_not_equal(ls_scan_u64(&sc, 1, "layout count", &v, &e), 0);
    assert_int_equal(e.line, 4);
    assert_int_equal(e.col, 10);
    assert_int_equal(ls_scan_next(&sc, &e), 1);
    assert_int_not_equal(ls_scan_u64(&sc, 2, "count", &v, &e), 0);
    assert_int_equal(e.col, 5); /* just past the last token */
    assert_int_equal(ls_scan_next(&sc, &e), 0);
    ls_scan_free(&sc);

    assert_int_equal(ls_parse_u64("007", 3, &v), -1);
    assert_int_equal(ls_parse_u64("18446744073709551616", 20, &v), -1);
    assert_int_equal(ls_parse_u64("18446744073709551615", 20, &v), 0);
    assert_true(v == UINT64_MAX);

    const char nul[] = "lsp\0 1\n";
    ls_scan_init(&sc, "n.lsp", nul, sizeof nul - 1);
    assert_int_equal(ls_scan_next(&sc, &e), -1);
    assert_int_equal(e.col, 4);
    ls_scan_free(&sc);
}

static void test_prng(void **state)
{
    (void)state;
    struct ls_rng a, b;
    ls_rng_seed(&a, 12345);
    ls_rng_seed(&b, 12345);
    for (int i = 0; i < 100; i++)
        assert_true(ls_rng_next(&a) == ls_rng_next(&b));
    int hist[5] = {0};
    for (int i = 0; i < 5000; i++) {
        uint64_t x = ls_rng_below(&a, 5);
        assert_true(x < 5);
        hist[x]++;
    }
    for (int i = 0; i < 5; i++)
        assert_in_range(hist[i], 800, 1200);
    double d = ls_rng_double(&a);
    assert_true(d >= 0 && d < 1);
}

static void test_atomic_file(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/out.txt", dir);
    struct ls_error e;
    assert_int_equal(ls_write_file_atomic(path, "one\n", 4, &e), 0);
    /* an aborted write leaves the old content */
    struct ls_atomic_file af;
    assert_int_equal(ls_atomic_open(&af, path, &e), 0);
    fputs("half", af.fp);
    ls_atomic_abort(&af);
    char *data;
    size_t len;
    assert_int_equal(ls_read_file(path, &data, &len, &e), 0);
    assert_string_equal(data, "one\n");
    free(data);
    /* nothing else left in the directory */
    char cmd[300];
    snprintf(cmd, sizeof cmd, "test $(ls %s | wc -l) -eq 1", dir);
    assert_int_equal(system(cmd), 0);
    unlink(path);
    rmdir(dir);
    assert_int_equal(ls_read_file("/nonexistent/x", &data, &len, &e), LS_ERR_INPUT);
    /* an endless device is cut off at the stream limit instead of exhausting memory */
    assert_int_equal(ls_read_file_max("/dev/zero", 1 << 20, &data, &len, &e), LS_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "exceeds 1 MiB"));
    snprintf(path, sizeof path, "/nonexistent/dir/out.txt");
    assert_int_equal(ls_write_file_atomic(path, "x", 1, &e), LS_ERR_IO);
}

static int count_entries(const char *dir)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "exit $(ls -A %s | wc -l)", dir);
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void assert_file_is(const char *path, const char *want)
{
    char *data;
    size_t len;
    struct ls_error e;
    assert_int_equal(ls_read_file(path, &data, &len, &e), 0);
    assert_string_equal(data, want);
    free(data);
}

/* A symlink given as the output is written through: the link stays, its target changes. */
static void test_atomic_symlink(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX", target[256], link[256], dangling[256];
    assert_non_null(mkdtemp(dir));
    snprintf(target, sizeof target, "%s/target.txt", dir);
    snprintf(link, sizeof link, "%s/link.txt", dir);
    snprintf(dangling, sizeof dangling, "%s/dangling.txt", dir);
    struct ls_error e;
    assert_int_equal(ls_write_file_atomic(target, "old\n", 4, &e), 0);
    assert_int_equal(symlink("target.txt", link), 0); /* relative to the link's folder */
    assert_int_equal(ls_write_file_atomic(link, "new\n", 4, &e), 0);
    struct stat st;
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_is(target, "new\n");
    /* a dangling link creates its target */
    char missing[256];
    snprintf(missing, sizeof missing, "%s/missing.txt", dir);
    assert_int_equal(symlink(missing, dangling), 0);
    assert_int_equal(ls_write_file_atomic(dangling, "made\n", 5, &e), 0);
    assert_int_equal(lstat(dangling, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_file_is(missing, "made\n");
    assert_int_equal(count_entries(dir), 4); /* no temporaries left */
    unlink(link), unlink(dangling), unlink(target), unlink(missing), rmdir(dir);
}

/* A device node or FIFO given as the output is written through, never renamed over. */
static void test_atomic_special_files(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX", fifo[256], dev[256];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo", dir);
    snprintf(dev, sizeof dev, "%s/null", dir);
    struct ls_error e;
    struct stat st;
    assert_int_equal(mkfifo(fifo, 0600), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) { /* reader: exits 0 iff it read exactly what was written */
        char buf[16] = {0};
        alarm(10); /* a writer that renamed over the FIFO never opens it: fail, not hang */
        int fd = open(fifo, O_RDONLY);
        ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
        _exit(n == 6 && !strcmp(buf, "piped\n") ? 0 : 1);
    }
    assert_int_equal(ls_write_file_atomic(fifo, "piped\n", 6, &e), 0);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    /* a character device (a copy of the null device, made here), when we may create one */
    if (mknod(dev, S_IFCHR | 0600, makedev(1, 3)) == 0) {
        assert_int_equal(ls_write_file_atomic(dev, "gone\n", 5, &e), 0);
        assert_int_equal(lstat(dev, &st), 0);
        assert_true(S_ISCHR(st.st_mode));
        unlink(dev);
    } else {
        print_message("[  SKIPPED ] character device case: mknod not permitted here\n");
    }
    /* a directory is refused */
    assert_int_equal(ls_write_file_atomic(dir, "x", 1, &e), LS_ERR_IO);
    assert_int_equal(count_entries(dir), 1);
    unlink(fifo), rmdir(dir);
}

/* A run killed by SIGTERM while writing leaves no temporary file behind. */
static void test_atomic_signal_cleanup(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out.txt", dir);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct ls_atomic_file af;
        struct ls_error e;
        if (ls_atomic_cleanup_on_signals() || ls_atomic_open(&af, path, &e))
            _exit(3);
        fputs("half", af.fp);
        fflush(af.fp);
        raise(SIGTERM);
        _exit(4);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    assert_int_equal(count_entries(dir), 0);
    rmdir(dir);
}

/* Stale temporaries of owned outputs go; anything else stays. */
static void test_remove_stale_temps(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX", path[300];
    assert_non_null(mkdtemp(dir));
    static const char *const files[] = {"cells.csv.tmp.a1B2c3", "report.md.tmp.XyZ123",
                                        "cells.csv", "notes.txt.tmp.abcdef", "cells.csv.tmp.x",
                                        "calibrated-table-2.json.tmp.Q1w2E3"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        fclose(f);
    }
    static const char *const owned[] = {"report.md", "*.csv", "calibrated-table*.json"};
    assert_int_equal(ls_remove_stale_temps(dir, owned, 3), 3);
    assert_int_equal(count_entries(dir), 3); /* cells.csv, notes.txt.tmp.abcdef, cells.csv.tmp.x */
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
    rmdir(dir);
    assert_int_equal(ls_remove_stale_temps("/nonexistent/dir", owned, 3), -1);
}

/* New outputs get 0666 less the umask (mkstemp gave 0600, a fixed mode 0644); an existing
 * file keeps its mode. */
static void test_atomic_umask(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX", path[300];
    struct ls_error e;
    struct stat st;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/out", dir);
    static const mode_t masks[] = {077, 022, 002};
    mode_t old = umask(077);
    for (size_t i = 0; i < sizeof masks / sizeof *masks; i++) {
        umask(masks[i]);
        unlink(path);
        assert_int_equal(ls_write_file_atomic(path, "x", 1, &e), 0);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 0777, 0666 & ~masks[i]);
    }
    assert_int_equal(chmod(path, 0640), 0);
    assert_int_equal(ls_write_file_atomic(path, "y", 1, &e), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640);
    umask(old);
    unlink(path);
    rmdir(dir);
}

/* A pid that named a process and no longer does (a reaped child). */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    assert_true(pid > 0);
    waitpid(pid, NULL, 0);
    return pid;
}

static void touch(const char *dir, const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fclose(f);
}

static int exists(const char *dir, const char *name)
{
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return access(path, F_OK) == 0;
}

/* Writing an output removes the temporaries of that output left by dead runs, never a
 * live writer's (its PID is alive) nor another output's; the study's sweep also spares a
 * live writer's temporaries. */
static void test_atomic_dead_temps(void **state)
{
    (void)state;
    char dir[] = "/tmp/laysim_test_XXXXXX", path[300], dead[64], live[64], other[64];
    assert_non_null(mkdtemp(dir));
    snprintf(dead, sizeof dead, "out.json.tmp.%ld.Ab12Cd", (long)dead_pid());
    snprintf(live, sizeof live, "out.json.tmp.%ld.Xy34Zw", (long)getppid());
    snprintf(other, sizeof other, "cells.csv.tmp.%ld.Qq11Ww", (long)dead_pid());
    touch(dir, dead), touch(dir, live), touch(dir, other);
    snprintf(path, sizeof path, "%s/out.json", dir);
    struct ls_error e;
    assert_int_equal(ls_write_file_atomic(path, "{}", 2, &e), 0);
    assert_false(exists(dir, dead));
    assert_true(exists(dir, live));
    assert_true(exists(dir, other));
    static const char *const owned[] = {"*"};
    assert_int_equal(ls_remove_stale_temps(dir, owned, 1), 1); /* other, not live */
    assert_true(exists(dir, live));
    assert_int_equal(count_entries(dir), 2);
    snprintf(path, sizeof path, "%s/%s", dir, live);
    unlink(path);
    snprintf(path, sizeof path, "%s/out.json", dir);
    unlink(path);
    rmdir(dir);
}

static void test_json_locate(void **state)
{
    (void)state;
    static const char j[] = "{\"a\": [1, {\"b\": 2}, \"x}\\\"\"],\n"
                            "  \"b\": {\"c\": {\"d\": true}, \"e\": -1.5e3},\n"
                            "  \"c\": null, \"e\": 7}";
    int line = 0, col = 0;
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "a", &line, &col), 0);
    assert_int_equal(line, 1), assert_int_equal(col, 2);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "b", &line, &col), 0);
    assert_int_equal(line, 2), assert_int_equal(col, 3); /* not the "b" inside the array */
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "b.c.d", &line, &col), 0);
    assert_int_equal(line, 2), assert_int_equal(col, 15);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "b.e", &line, &col), 0);
    assert_int_equal(line, 2), assert_int_equal(col, 27);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "e", &line, &col), 0);
    assert_int_equal(line, 3), assert_int_equal(col, 14);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "d", &line, &col), -1);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "a.b", &line, &col), -1);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "a[1].b", &line, &col), 0);
    assert_int_equal(line, 1), assert_int_equal(col, 12);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "a[2]", &line, &col), 0);
    assert_int_equal(line, 1), assert_int_equal(col, 21);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "a[3]", &line, &col), -1);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "a[x]", &line, &col), -1);
    assert_int_equal(ls_json_locate(j, sizeof j - 1, "c.x", &line, &col), -1);
    assert_int_equal(ls_json_locate("[1]", 3, "a", &line, &col), -1);
    assert_int_equal(ls_json_locate("{\"a\": ", 6, "a.b", &line, &col), -1); /* truncated */
}

/* Checks the three tree-decomposition properties; returns the width. */
static int check_td(int32_t n, const int32_t *edges, size_t m, const struct ls_treedec *td)
{
    assert_int_equal(td->n, n);
    int width = -1;
    for (int32_t i = 0; i < n; i++) {
        int sz = td->bag_off[i + 1] - td->bag_off[i];
        if (sz - 1 > width)
            width = sz - 1;
        assert_true(td->parent[i] == -1 || td->parent[i] > i);
    }
    assert_int_equal(width, td->width);
    for (size_t k = 0; k < m; k++) { /* every edge in a bag */
        int found = edges[2 * k] == edges[2 * k + 1];
        for (int32_t i = 0; i < n && !found; i++) {
            int hu = 0, hv = 0;
            for (int32_t j = td->bag_off[i]; j < td->bag_off[i + 1]; j++) {
                hu |= td->bag[j] == edges[2 * k];
                hv |= td->bag[j] == edges[2 * k + 1];
            }
            found = hu && hv;
        }
        assert_true(found);
    }
    for (int32_t v = 0; v < n; v++) { /* bags holding v are connected */
        int holders = 0, links = 0;
        for (int32_t i = 0; i < n; i++) {
            int in = 0, pin = 0;
            for (int32_t j = td->bag_off[i]; j < td->bag_off[i + 1]; j++)
                in |= td->bag[j] == v;
            if (!in)
                continue;
            holders++;
            int32_t p = td->parent[i];
            if (p >= 0)
                for (int32_t j = td->bag_off[p]; j < td->bag_off[p + 1]; j++)
                    pin |= td->bag[j] == v;
            links += pin;
        }
        assert_int_equal(links, holders - 1);
    }
    return width;
}

static int tw_of(int32_t n, const int32_t *edges, size_t m)
{
    struct ls_treedec td;
    struct ls_error e;
    assert_int_equal(ls_treedec_best(n, edges, m, &td, &e), 0);
    int w = check_td(n, edges, m, &td);
    ls_treedec_free(&td);
    return w;
}

/* Min-fill over its work budget: the min-degree decomposition is kept, exactly (its order),
 * and still valid; with no budget the narrower of both is kept. Vertex 1 has two
 * non-adjacent neighbours (degree 2, fill 1), vertex 2 a triangle (degree 3, fill 0), so
 * the two heuristics order differently; a hub of 400 leaves (vertex 9 on) makes min-fill's
 * scoring read 400 entries per leaf. */
static void test_treedec_budget(void **state)
{
    (void)state;
    enum { L = 400, N = 10 + L };
    int32_t edges[2 * (8 + L)] = {1, 3, 1, 4, 2, 5, 2, 6, 2, 7, 5, 6, 6, 7, 5, 7};
    size_t m = 8;
    for (int32_t i = 10; i < N; i++) {
        edges[2 * m] = 9;
        edges[2 * m++ + 1] = i;
    }
    struct ls_treedec deg, fill, cut, full;
    struct ls_error e;
    assert_int_equal(ls_treedec_build(N, edges, m, LS_ELIM_MIN_DEGREE, &deg, &e), 0);
    assert_int_equal(ls_treedec_build(N, edges, m, LS_ELIM_MIN_FILL, &fill, &e), 0);
    assert_true(memcmp(deg.order, fill.order, sizeof *deg.order * N) != 0);
    assert_int_equal(ls_treedec_best_budget(N, edges, m, NULL, 1000, &cut, &e), 0);
    assert_memory_equal(cut.order, deg.order, sizeof *deg.order * N);
    check_td(N, edges, m, &cut);
    assert_int_equal(ls_treedec_best_budget(N, edges, m, NULL, 0, &full, &e), 0);
    assert_memory_equal(full.order, fill.order, sizeof *fill.order * N); /* ties: min-fill */
    ls_treedec_free(&deg);
    ls_treedec_free(&fill);
    ls_treedec_free(&cut);
    ls_treedec_free(&full);
}

static void test_treedec_known(void **state)
{
    (void)state;
    int32_t path[] = {0, 1, 1, 2, 2, 3, 3, 4};
    assert_int_equal(tw_of(5, path, 4), 1);
    int32_t cycle[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0};
    assert_int_equal(tw_of(5, cycle, 5), 2);
    int32_t k5[20], m = 0;
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++) {
            k5[2 * m] = i;
            k5[2 * m + 1] = j;
            m++;
        }
    assert_int_equal(tw_of(5, k5, (size_t)m), 4);
    int32_t grid[48], g = 0; /* 3x3 grid: treewidth 3 */
    for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) {
            if (c < 2) { grid[2 * g] = r * 3 + c; grid[2 * g + 1] = r * 3 + c + 1; g++; }
            if (r < 2) { grid[2 * g] = r * 3 + c; grid[2 * g + 1] = (r + 1) * 3 + c; g++; }
        }
    assert_int_equal(tw_of(9, grid, (size_t)g), 3);
    int32_t loops[] = {0, 0, 1, 1, 0, 1, 0, 1};
    assert_int_equal(tw_of(3, loops, 4), 1); /* vertex 2 isolated: forest */
    struct ls_treedec td;
    struct ls_error e;
    assert_int_equal(ls_treedec_best(0, NULL, 0, &td, &e), 0);
    assert_int_equal(td.width, -1);
    ls_treedec_free(&td);
    int32_t badedge[] = {0, 7};
    assert_int_not_equal(ls_treedec_build(3, badedge, 1, LS_ELIM_MIN_FILL, &td, &e), 0);
    /* a deadline that has passed stops the elimination with LS_ERR_LIMIT */
    int32_t chain[] = {0, 1, 1, 2};
    struct ls_deadline past = {.end_ns = 1}; /* 1 ns after the clock's epoch */
    assert_int_equal(ls_treedec_best_until(3, chain, 2, &past, &td, &e), LS_ERR_LIMIT);
    assert_non_null(strstr(e.msg, "time limit"));
    struct ls_deadline none = ls_deadline_in(0);
    assert_int_equal(ls_treedec_best_until(3, chain, 2, &none, &td, &e), 0);
    assert_int_equal(td.width, 1);
    ls_treedec_free(&td);
}

static void test_treedec_random(void **state)
{
    (void)state;
    struct ls_rng r;
    ls_rng_seed(&r, 7);
    for (int trial = 0; trial < 200; trial++) {
        int32_t n = 1 + (int32_t)ls_rng_below(&r, 14);
        size_t m = ls_rng_below(&r, (uint64_t)(n * 2 + 1));
        int32_t *edges = malloc((m + 1) * 2 * sizeof *edges);
        for (size_t k = 0; k < 2 * m; k++)
            edges[k] = (int32_t)ls_rng_below(&r, (uint64_t)n);
        for (int h = 0; h < 2; h++) {
            struct ls_treedec td;
            struct ls_error e;
            assert_int_equal(ls_treedec_build(n, edges, m, h, &td, &e), 0);
            check_td(n, edges, m, &td);
            ls_treedec_free(&td);
        }
        free(edges);
    }
}

/* util/csv: plain, empty and quoted fields with their columns; located errors. */
static void expect_field(const struct ls_csv_row *r, size_t k, const char *s, int col)
{
    assert_true(k < r->nf);
    assert_int_equal(r->f[k].n, strlen(s));
    assert_memory_equal(r->f[k].s, s, strlen(s));
    assert_int_equal(r->f[k].col, col);
}

static void test_csv_split(void **state)
{
    (void)state;
    struct ls_csv_row r = {0};
    int col = 0;
    const char *what = NULL;
    const char *l1 = "a,,\"b,\"\"c\"\"\",d,";
    assert_int_equal(ls_csv_split(&r, l1, strlen(l1), &col, &what), 0);
    assert_int_equal(r.nf, 5);
    expect_field(&r, 0, "a", 1);
    expect_field(&r, 1, "", 3);
    expect_field(&r, 2, "b,\"c\"", 4);
    expect_field(&r, 3, "d", 14);
    expect_field(&r, 4, "", 16);
    assert_int_equal(ls_csv_split(&r, "x", 1, &col, &what), 0);   /* the row is reused */
    assert_int_equal(r.nf, 1);
    expect_field(&r, 0, "x", 1);
    assert_int_equal(ls_csv_split(&r, "a,\"bc", 5, &col, &what), LS_ERR_INPUT);
    assert_int_equal(col, 3);
    assert_string_equal(what, "unterminated quoted field");
    assert_int_equal(ls_csv_split(&r, "\"a\"b,c", 6, &col, &what), LS_ERR_INPUT);
    assert_int_equal(col, 4);
    assert_string_equal(what, "expected ',' after a quoted field");
    ls_csv_row_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_error_format), cmocka_unit_test(test_arena),
        cmocka_unit_test(test_vec),          cmocka_unit_test(test_vec_helpers),
        cmocka_unit_test(test_hmap_basic),   cmocka_unit_test(test_hmap_collisions),
        cmocka_unit_test(test_hmap_growth),  cmocka_unit_test(test_intern),
        cmocka_unit_test(test_hash),         cmocka_unit_test(test_scan),
        cmocka_unit_test(test_prng),         cmocka_unit_test(test_atomic_file),
        cmocka_unit_test(test_atomic_symlink), cmocka_unit_test(test_atomic_special_files),
        cmocka_unit_test(test_atomic_signal_cleanup), cmocka_unit_test(test_json_locate),
        cmocka_unit_test(test_remove_stale_temps), cmocka_unit_test(test_csv_split),
        cmocka_unit_test(test_atomic_umask), cmocka_unit_test(test_atomic_dead_temps),
        cmocka_unit_test(test_treedec_known), cmocka_unit_test(test_treedec_budget), cmocka_unit_test(test_treedec_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
