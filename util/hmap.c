#include "util/hmap.h"
#include "util/error.h"
#include "util/hash.h"

#include <stdlib.h>
#include <string.h>

#define MIN_SLOTS 16

/* The tag is the slot index's source too: callers' hashes (FNV-1a) have weak low bits, so
 * mix first; 32 bits index up to 2^32 slots, as many as 2^31 ids at half load need. */
static uint32_t tag_of(uint64_t h)
{
    uint64_t x = ls_hash_mix64(h);
    return (uint32_t)(x ^ (x >> 32));
}

void ls_hmap_free(struct ls_hmap *m)
{
    free(m->slot);
    memset(m, 0, sizeof *m);
}

void ls_hmap_clear(struct ls_hmap *m)
{
    for (size_t i = 0; i < m->nslots; i++)
        m->slot[i].id = -1;
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

int ls_hmap_reserve(struct ls_hmap *m, size_t n)
{
    if (n <= m->nslots / 2)
        return 0;
    size_t ns = ls_hmap_slots_for(n);
    if (!ns || ns > SIZE_MAX / sizeof *m->slot)
        return LS_ERR_NOMEM;
    struct ls_hmap_slot *s = malloc(ns * sizeof *s);
    if (!s)
        return LS_ERR_NOMEM;
    for (size_t i = 0; i < ns; i++)
        s[i].id = -1;
    size_t mask = ns - 1;
    for (size_t i = 0; i < m->nslots; i++) {   /* ids are distinct: no equality needed */
        if (m->slot[i].id < 0)
            continue;
        size_t j = m->slot[i].tag & mask;
        while (s[j].id >= 0)
            j = (j + 1) & mask;
        s[j] = m->slot[i];
    }
    free(m->slot);
    m->slot = s;
    m->nslots = ns;
    return 0;
}

/* The slot holding the key, or the empty slot where it would go. nslots > 0. */
static size_t probe(const struct ls_hmap *m, uint32_t tag, ls_hmap_eq_fn eq, const void *ctx,
                    const void *key)
{
    size_t mask = m->nslots - 1;
    for (size_t i = tag & mask;; i = (i + 1) & mask) {
        const struct ls_hmap_slot *s = &m->slot[i];
        if (s->id < 0 || (s->tag == tag && eq(ctx, s->id, key)))
            return i;
    }
}

int32_t ls_hmap_find(const struct ls_hmap *m, uint64_t h, ls_hmap_eq_fn eq, const void *ctx,
                     const void *key)
{
    if (!m->nslots)
        return -1;
    return m->slot[probe(m, tag_of(h), eq, ctx, key)].id;
}

int32_t ls_hmap_put(struct ls_hmap *m, uint64_t h, ls_hmap_eq_fn eq, const void *ctx,
                    const void *key, int32_t id)
{
    uint32_t tag = tag_of(h);
    if (m->nslots) {
        size_t i = probe(m, tag, eq, ctx, key);
        if (m->slot[i].id >= 0)
            return m->slot[i].id;
        if ((m->n + 1) <= m->nslots / 2) {
            m->slot[i] = (struct ls_hmap_slot){tag, id};
            m->n++;
            return id;
        }
    }
    if (ls_hmap_reserve(m, m->n + 1))
        return -1;
    size_t i = probe(m, tag, eq, ctx, key);   /* absent: lands on an empty slot */
    m->slot[i] = (struct ls_hmap_slot){tag, id};
    m->n++;
    return id;
}
