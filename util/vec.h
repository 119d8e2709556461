/* util/vec: type-safe growable arrays: the one way code outside util/ grows an array.
 *   LS_VEC(int) v = {0};
 *   if (LS_VEC_PUSH(&v, 42)) ...out of memory...
 *   free(v.data);
 * Every macro that can fail evaluates to 0 on success, non-zero (LS_ERR_NOMEM) when out of
 * memory, leaving the vector as it was.
 */
#ifndef LS_UTIL_VEC_H
#define LS_UTIL_VEC_H

#include <stddef.h>
#include <string.h>

#define LS_VEC(T) struct { T *data; size_t len, cap; }

/* Make room for at least `need` elements; returns 0 or LS_ERR_NOMEM. */
int ls_vec_reserve_(void **data, size_t *cap, size_t need, size_t elem);

#define LS_VEC_RESERVE(v, n) \
    ls_vec_reserve_((void **)&(v)->data, &(v)->cap, (n), sizeof *(v)->data)

/* Capacity exactly n when it has to grow (no doubling): for callers that budget their
 * memory and must know what they allocate. */
int ls_vec_reserve_exact_(void **data, size_t *cap, size_t n, size_t elem);

#define LS_VEC_RESERVE_EXACT(v, n) \
    ls_vec_reserve_exact_((void **)&(v)->data, &(v)->cap, (n), sizeof *(v)->data)

#define LS_VEC_PUSH(v, x) \
    (LS_VEC_RESERVE((v), (v)->len + 1) ? 1 : ((v)->data[(v)->len++] = (x), 0))

/* Append n elements copied from p. */
#define LS_VEC_APPEND(v, p, n) \
    (LS_VEC_RESERVE((v), (v)->len + (n)) ? 1 \
     : ((n) ? (void)memcpy((v)->data + (v)->len, (p), (n) * sizeof *(v)->data) : (void)0, \
        (v)->len += (n), 0))

/* len = n; new elements are uninitialized. */
#define LS_VEC_RESIZE(v, n) (LS_VEC_RESERVE((v), (n)) ? 1 : ((v)->len = (n), 0))

/* The same growth for a plain pointer + size_t capacity pair, where a struct keeps its own
 * count or several arrays share one (public structs whose fields others index directly). */
#define LS_ARRAY_RESERVE(ptr, cap, n) \
    ls_vec_reserve_((void **)&(ptr), &(cap), (n), sizeof *(ptr))

#define LS_ARRAY_RESERVE_EXACT(ptr, cap, n) \
    ls_vec_reserve_exact_((void **)&(ptr), &(cap), (n), sizeof *(ptr))

#define LS_VEC_FREE(v) do { free((v)->data); (v)->data = NULL; (v)->len = (v)->cap = 0; } while (0)

#endif
