/* util/arena: bump allocator; everything allocated from an arena is freed at once. */
#ifndef LS_UTIL_ARENA_H
#define LS_UTIL_ARENA_H

#include <stddef.h>

struct ls_arena_block;

struct ls_arena {
    struct ls_arena_block *head;
    size_t block_size;   /* default size of new blocks */
    size_t total;        /* bytes handed out, for statistics */
};

void ls_arena_init(struct ls_arena *a, size_t block_size); /* 0 = default (64 KiB) */
/* Zeroed, 16-byte aligned memory; NULL only when malloc fails. */
void *ls_arena_alloc(struct ls_arena *a, size_t n);
char *ls_arena_strdup(struct ls_arena *a, const char *s);
char *ls_arena_strndup(struct ls_arena *a, const char *s, size_t n);
void ls_arena_free(struct ls_arena *a);

#endif
