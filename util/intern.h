/* util/intern: string interning. Each distinct string gets a dense id 0,1,2,...
 * Strings live in the table's own arena; ids and pointers stay valid until free. */
#ifndef LS_UTIL_INTERN_H
#define LS_UTIL_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"
#include "util/hmap.h"

struct ls_intern {
    struct ls_arena arena;
    const char **strs;   /* id -> string */
    size_t *lens;        /* id -> length */
    size_t count, cap, lcap;
    struct ls_hmap map;  /* string -> id */
};

void ls_intern_init(struct ls_intern *t);
void ls_intern_free(struct ls_intern *t);
/* Id of s[0..n), adding it when new; -1 when out of memory. */
int32_t ls_intern_add(struct ls_intern *t, const char *s, size_t n);
/* Id of s[0..n) or -1 when absent. */
int32_t ls_intern_find(const struct ls_intern *t, const char *s, size_t n);
static inline const char *ls_intern_str(const struct ls_intern *t, int32_t id)
{
    return t->strs[id];
}

#endif
