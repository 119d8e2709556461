#include "util/arena.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ls_arena_block {
    struct ls_arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void ls_arena_init(struct ls_arena *a, size_t block_size)
{
    a->head = NULL;
    a->block_size = block_size ? block_size : 64 * 1024;
    a->total = 0;
}

void *ls_arena_alloc(struct ls_arena *a, size_t n)
{
    size_t need = (n + 15) & ~(size_t)15;
    if (need < n)
        return NULL;
    struct ls_arena_block *b = a->head;
    if (!b || b->size - b->used < need) {
        size_t size = need > a->block_size ? need : a->block_size;
        b = malloc(sizeof *b + size);
        if (!b)
            return NULL;
        b->size = size;
        b->used = 0;
        /* keep the partially used block in front when the new one is oversized */
        if (a->head && need > a->block_size) {
            b->next = a->head->next;
            a->head->next = b;
        } else {
            b->next = a->head;
            a->head = b;
        }
    }
    void *p = b->data + b->used;
    b->used += need;
    a->total += n;
    memset(p, 0, n);
    return p;
}

char *ls_arena_strndup(struct ls_arena *a, const char *s, size_t n)
{
    char *p = ls_arena_alloc(a, n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

char *ls_arena_strdup(struct ls_arena *a, const char *s)
{
    return ls_arena_strndup(a, s, strlen(s));
}

void ls_arena_free(struct ls_arena *a)
{
    struct ls_arena_block *b = a->head;
    while (b) {
        struct ls_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}
