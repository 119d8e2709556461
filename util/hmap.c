#include "util/hmap.h"
#include "util/error.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 16

void ls_hmap_free(struct ls_hmap *m)
{
    free(m->slot);
    memset(m, 0, sizeof *m);
}

void ls_hmap_clear(struct ls_hmap *m)
{
    for (size_t i = 0; i < ls_hmap_nslots(m); i++)
        m->slot[i] = -1;
    m->n = 0;
}

size_t ls_hmap_slots_for(size_t n)
{
    size_t ns = MIN_SLOTS;
    while (ns / 2 < n) {
        if (ns > SIZE_MAX / 2)
            return 0;
        ns *= 2;
    }
    return ns;
}

/* ids are dense, so growing re-places 0 .. n-1 from their hashes and never reads the old
 * slots: they are freed before the new ones are filled, never copied. */
int ls_hmap_reserve(struct ls_hmap *m, size_t n, const struct ls_hmap_fns *f, const void *ctx)
{
    if (n <= ls_hmap_nslots(m) / 2)
        return 0;
    size_t ns = ls_hmap_slots_for(n);
    if (!ns || ns - 1 > UINT32_MAX || ns > SIZE_MAX / sizeof *m->slot)
        return LS_ERR_NOMEM;
    int32_t *s = malloc(ns * sizeof *s);
    if (!s)
        return LS_ERR_NOMEM;
    free(m->slot);
    for (size_t i = 0; i < ns; i++)
        s[i] = -1;
    size_t mask = ns - 1;
    for (size_t id = 0; id < m->n; id++) {   /* distinct: no equality needed */
        size_t j = ls_hmap_home_(f->hash(ctx, (int32_t)id), mask);
        while (s[j] >= 0)
            j = (j + 1) & mask;
        s[j] = (int32_t)id;
    }
    m->slot = s;
    m->mask = (uint32_t)mask;
    return 0;
}

int32_t ls_hmap_insert_(struct ls_hmap *m, uint64_t h, const struct ls_hmap_fns *f,
                        const void *ctx)
{
    if (m->n >= INT32_MAX || ls_hmap_reserve(m, (size_t)m->n + 1, f, ctx))
        return -1;
    size_t mask = m->mask, i = ls_hmap_home_(h, mask);   /* absent: the first empty slot */
    while (m->slot[i] >= 0)
        i = (i + 1) & mask;
    m->slot[i] = (int32_t)m->n;
    return (int32_t)m->n++;
}

void ls_hmap_drop_last(struct ls_hmap *m, uint64_t h)
{
    if (!m->slot || !m->n)
        return;
    int32_t last = (int32_t)m->n - 1;
    size_t mask = m->mask;
    for (size_t i = ls_hmap_home_(h, mask);; i = (i + 1) & mask)
        if (m->slot[i] == last) {
            m->slot[i] = -1;
            m->n--;
            return;
        }
}
