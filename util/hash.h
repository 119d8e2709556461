/* util/hash: FNV-1a 64-bit and a 64-bit mixer. */
#ifndef LS_UTIL_HASH_H
#define LS_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define LS_FNV64_INIT 0xcbf29ce484222325ULL

uint64_t ls_fnv1a64(const void *data, size_t n);
/* Continue a running hash: h = ls_fnv1a64_update(h, data, n), starting from LS_FNV64_INIT. */
uint64_t ls_fnv1a64_update(uint64_t h, const void *data, size_t n);
/* Inline: every hash-map probe starts with it. */
static inline uint64_t ls_hash_mix64(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    x ^= x >> 33;
    return x;
}

#endif
