#include "util/intern.h"
#include "util/hash.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

void ls_intern_init(struct ls_intern *t)
{
    memset(t, 0, sizeof *t);
    ls_arena_init(&t->arena, 0);
}

void ls_intern_free(struct ls_intern *t)
{
    ls_arena_free(&t->arena);
    free(t->strs);
    free(t->lens);
    ls_hmap_free(&t->map);
    memset(t, 0, sizeof *t);
}

struct key {
    const char *s;
    size_t n;
};

static int eq(const void *ctx, int32_t id, const void *key)
{
    const struct ls_intern *t = ctx;
    const struct key *k = key;
    return t->lens[id] == k->n && memcmp(t->strs[id], k->s, k->n) == 0;
}

static uint64_t hash(const void *ctx, int32_t id)
{
    const struct ls_intern *t = ctx;
    return ls_fnv1a64(t->strs[id], t->lens[id]);
}

static const struct ls_hmap_fns fns = {hash, eq};

int32_t ls_intern_find(const struct ls_intern *t, const char *s, size_t n)
{
    struct key k = {s, n};
    return ls_hmap_find(&t->map, ls_fnv1a64(s, n), &fns, t, &k);
}

int32_t ls_intern_add(struct ls_intern *t, const char *s, size_t n)
{
    /* room first, then one probe: the new id's entry is only read after the put */
    if (ls_vec_reserve_((void **)&t->strs, &t->cap, t->count + 1, sizeof *t->strs) ||
        ls_vec_reserve_((void **)&t->lens, &t->lcap, t->count + 1, sizeof *t->lens))
        return -1;
    struct key k = {s, n};
    uint64_t h = ls_fnv1a64(s, n);
    int32_t id = ls_hmap_put(&t->map, h, &fns, t, &k);
    if (id < 0 || (size_t)id < t->count)
        return id;
    char *copy = ls_arena_strndup(&t->arena, s, n);
    if (!copy) {
        ls_hmap_drop_last(&t->map, h);
        return -1;
    }
    t->strs[id] = copy;
    t->lens[id] = n;
    t->count++;
    return id;
}
