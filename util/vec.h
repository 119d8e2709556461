/* util/vec: type-safe growable arrays.
 *   LS_VEC(int) v = {0};
 *   if (LS_VEC_PUSH(&v, 42)) ...out of memory...
 *   free(v.data);
 */
#ifndef LS_UTIL_VEC_H
#define LS_UTIL_VEC_H

#include <stddef.h>

#define LS_VEC(T) struct { T *data; size_t len, cap; }

/* Make room for at least `need` elements; returns 0 or LS_ERR_NOMEM. */
int ls_vec_reserve_(void **data, size_t *cap, size_t need, size_t elem);

#define LS_VEC_RESERVE(v, n) \
    ls_vec_reserve_((void **)&(v)->data, &(v)->cap, (n), sizeof *(v)->data)

/* Evaluates to 0 on success, non-zero when out of memory. */
#define LS_VEC_PUSH(v, x) \
    (LS_VEC_RESERVE((v), (v)->len + 1) ? 1 : ((v)->data[(v)->len++] = (x), 0))

#define LS_VEC_FREE(v) do { free((v)->data); (v)->data = NULL; (v)->len = (v)->cap = 0; } while (0)

#endif
