#include "util/intern.h"
#include "util/hash.h"

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
    free(t->slots);
    memset(t, 0, sizeof *t);
}

static size_t probe(const struct ls_intern *t, const char *s, size_t n, int *found)
{
    size_t mask = t->nslots - 1;
    size_t i = ls_fnv1a64(s, n) & mask;
    for (;;) {
        int32_t id = t->slots[i];
        if (id < 0) {
            *found = 0;
            return i;
        }
        if (t->lens[id] == n && memcmp(t->strs[id], s, n) == 0) {
            *found = 1;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static int grow(struct ls_intern *t)
{
    size_t nslots = t->nslots ? t->nslots * 2 : 64;
    int32_t *slots = malloc(nslots * sizeof *slots);
    if (!slots)
        return -1;
    for (size_t i = 0; i < nslots; i++)
        slots[i] = -1;
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    for (size_t id = 0; id < t->count; id++) {
        int found;
        size_t i = probe(t, t->strs[id], t->lens[id], &found);
        t->slots[i] = (int32_t)id;
    }
    return 0;
}

int32_t ls_intern_find(const struct ls_intern *t, const char *s, size_t n)
{
    if (!t->nslots)
        return -1;
    int found;
    size_t i = probe(t, s, n, &found);
    return found ? t->slots[i] : -1;
}

int32_t ls_intern_add(struct ls_intern *t, const char *s, size_t n)
{
    if ((t->count + 1) * 2 > t->nslots && grow(t))
        return -1;
    int found;
    size_t i = probe(t, s, n, &found);
    if (found)
        return t->slots[i];
    if (t->count == t->cap) {
        size_t cap = t->cap ? t->cap * 2 : 64;
        const char **strs = realloc(t->strs, cap * sizeof *strs);
        if (!strs)
            return -1;
        t->strs = strs;
        size_t *lens = realloc(t->lens, cap * sizeof *lens);
        if (!lens)
            return -1;
        t->lens = lens;
        t->cap = cap;
    }
    char *copy = ls_arena_strndup(&t->arena, s, n);
    if (!copy)
        return -1;
    int32_t id = (int32_t)t->count++;
    t->strs[id] = copy;
    t->lens[id] = n;
    t->slots[i] = id;
    return id;
}
