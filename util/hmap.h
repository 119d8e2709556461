/* util/hmap: the one hash map. An index from keys to dense ids 0,1,2,...: open
 * addressing, linear probing, a power-of-two slot count kept at most half full. The caller
 * keeps keys and values in its own arrays indexed by id (an LS_VEC, in insertion order)
 * and supplies the key's 64-bit hash and an equality test; the map stores only a 32-bit
 * tag of the hash and the id per slot (8 bytes).
 *
 * Why an index and not a key/value container: every user already keeps its entries
 * densely (interned strings by id, DP table rows that back pointers name, scored designs in
 * scoring order), so iterating means walking the caller's array in insertion order —
 * deterministic and independent of the hash function and of the table size.
 *
 *   struct ls_hmap m = {0};
 *   int32_t id = ls_hmap_put(&m, hash(key), eq, ctx, key, n);   // n = ids so far
 *   if (id < 0) ...out of memory...; if (id == n) ...new: store key at n, n++...
 *   ls_hmap_free(&m);
 */
#ifndef LS_UTIL_HMAP_H
#define LS_UTIL_HMAP_H

#include <stddef.h>
#include <stdint.h>

struct ls_hmap_slot {
    uint32_t tag;            /* 32 bits of the mixed hash */
    int32_t id;              /* -1 = empty */
};

struct ls_hmap {
    struct ls_hmap_slot *slot;
    size_t nslots;           /* 0 or a power of two */
    size_t n;                /* ids stored */
};

/* 1 when the caller's entry `id` has the key `key` (both opaque to the map). */
typedef int (*ls_hmap_eq_fn)(const void *ctx, int32_t id, const void *key);

void ls_hmap_free(struct ls_hmap *m);
/* Forget every id, keeping the slots. */
void ls_hmap_clear(struct ls_hmap *m);
/* Make room for n ids in total without growing; 0 or LS_ERR_NOMEM. */
int ls_hmap_reserve(struct ls_hmap *m, size_t n);
/* Slot count reserve(n) would give: lets a caller with a memory budget price a growth
 * before making it. */
size_t ls_hmap_slots_for(size_t n);
/* Bytes the slots take. */
static inline size_t ls_hmap_bytes(const struct ls_hmap *m)
{
    return m->nslots * sizeof *m->slot;
}

/* The id of the key with hash h, or -1 when absent. */
int32_t ls_hmap_find(const struct ls_hmap *m, uint64_t h, ls_hmap_eq_fn eq, const void *ctx,
                     const void *key);
/* The id of the key when present; otherwise records it under `id` (growing when needed)
 * and returns `id`. -1 when out of memory. ids must be >= 0 and distinct. */
int32_t ls_hmap_put(struct ls_hmap *m, uint64_t h, ls_hmap_eq_fn eq, const void *ctx,
                    const void *key, int32_t id);

#endif
