#include "util/hash.h"

uint64_t ls_fnv1a64_update(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= 0x100000001b3ULL;
    }
    return h;
}

uint64_t ls_fnv1a64(const void *data, size_t n)
{
    return ls_fnv1a64_update(LS_FNV64_INIT, data, n);
}

