/* util/hmap: the one hash map. An index from keys to dense ids 0,1,2,... (the k-th new
 * key gets id k): open addressing, linear probing, a power-of-two slot count kept at most
 * half full, 4 bytes (the id) per slot. The caller keeps keys and values in its own arrays indexed by id (an
 * LS_VEC, in insertion order) and supplies the key's 64-bit hash, the hash of a stored id
 * (to re-place ids when the map grows) and an equality test. The hash's low bits index
 * the slots as they are (no extra mixing: FNV-1a of the key bytes, which four of the five
 * users pass, spreads them well enough and keeps the placement the old hand-rolled
 * tables had; a hash with weak
 * low bits is mixed by its caller, as the tuner does with ls_hash_mix64).
 *
 * Why an index and not a key/value container: every user already keeps its entries
 * densely (interned strings by id, DP table rows that back pointers name, scored designs in
 * scoring order), so iterating means walking the caller's array in insertion order —
 * deterministic and independent of the hash function and of the table size. Why no hash
 * in the slots: the DP's tables are memory-bound (dp.mem_limit counts these bytes); a
 * caller whose keys are dear to hash keeps the hash in its own entries.
 *
 *   static const struct ls_hmap_fns fns = {my_hash, my_eq};
 *   struct ls_hmap m = {0};
 *   size_t n = m.n;
 *   int32_t id = ls_hmap_put(&m, hash(key), &fns, ctx, key);
 *   if (id < 0) ...out of memory...; if (id == n) ...new: store the key at id n...
 *   ls_hmap_free(&m);
 */
#ifndef LS_UTIL_HMAP_H
#define LS_UTIL_HMAP_H

#include <stddef.h>
#include <stdint.h>

#include "util/hash.h"

struct ls_hmap {              /* 16 bytes: the DP keeps one per tree-decomposition node */
    int32_t *slot;           /* ids, -1 = empty; NULL: no slots yet */
    uint32_t mask;           /* slot count - 1 (a power of two, at most 2^32) */
    uint32_t n;              /* ids stored: 0 .. n-1 */
};

struct ls_hmap_fns {
    /* The hash put/find were given for stored id `id` (called when the map grows). */
    uint64_t (*hash)(const void *ctx, int32_t id);
    /* 1 when stored id `id` has the key `key` (opaque to the map). */
    int (*eq)(const void *ctx, int32_t id, const void *key);
};

void ls_hmap_free(struct ls_hmap *m);
/* Forget every id, keeping the slots. */
void ls_hmap_clear(struct ls_hmap *m);
/* Make room for n ids in total without growing; 0 or LS_ERR_NOMEM. */
int ls_hmap_reserve(struct ls_hmap *m, size_t n, const struct ls_hmap_fns *f, const void *ctx);
/* Slot count reserve(n) gives: lets a caller with a memory budget price a growth first. */
size_t ls_hmap_slots_for(size_t n);
static inline size_t ls_hmap_nslots(const struct ls_hmap *m)
{
    return m->slot ? (size_t)m->mask + 1 : 0;
}
/* Bytes the slots take. */
static inline size_t ls_hmap_bytes(const struct ls_hmap *m)
{
    return ls_hmap_nslots(m) * sizeof *m->slot;
}

/* Lookups are inline so that a caller's constant fns are called directly (the DP does
 * millions of puts); growth is not. */
static inline size_t ls_hmap_home_(uint64_t h, size_t mask)
{
    return (size_t)h & mask;
}

/* The slot holding the key, or the empty slot where it would go. Slots exist. */
static inline size_t ls_hmap_probe_(const struct ls_hmap *m, uint64_t h,
                                    const struct ls_hmap_fns *f, const void *ctx,
                                    const void *key)
{
    size_t mask = m->mask;
    for (size_t i = ls_hmap_home_(h, mask);; i = (i + 1) & mask) {
        int32_t id = m->slot[i];
        if (id < 0 || f->eq(ctx, id, key))
            return i;
    }
}

/* Forget the id the last put added (m->n - 1), whose key hashed to h: for a caller that
 * could not store that key after all. Safe because nothing was placed after it and the map
 * never deletes otherwise: no probe of another key runs through its slot. */
void ls_hmap_drop_last(struct ls_hmap *m, uint64_t h);

/* Out-of-line part of put: grow when needed and place the next id (key known absent). */
int32_t ls_hmap_insert_(struct ls_hmap *m, uint64_t h, const struct ls_hmap_fns *f,
                        const void *ctx);

/* The id of the key with hash h, or -1 when absent. */
static inline int32_t ls_hmap_find(const struct ls_hmap *m, uint64_t h,
                                   const struct ls_hmap_fns *f, const void *ctx,
                                   const void *key)
{
    return m->slot ? m->slot[ls_hmap_probe_(m, h, f, ctx, key)] : -1;
}

/* The id of the key when present; otherwise gives it the next id, m->n (growing first
 * when needed: ids 0 .. m->n-1 must be hashable then, the new one need not be). -1 when
 * out of memory or past INT32_MAX ids (the map is unchanged). */
static inline int32_t ls_hmap_put(struct ls_hmap *m, uint64_t h, const struct ls_hmap_fns *f,
                                  const void *ctx, const void *key)
{
    if (m->slot) {
        size_t i = ls_hmap_probe_(m, h, f, ctx, key);
        if (m->slot[i] >= 0)
            return m->slot[i];
        if ((size_t)m->n + 1 <= ((size_t)m->mask + 1) / 2 && m->n < INT32_MAX) {
            m->slot[i] = (int32_t)m->n;
            return (int32_t)m->n++;
        }
    }
    return ls_hmap_insert_(m, h, f, ctx);
}

#endif
