#include "util/vec.h"
#include "util/error.h"

#include <stdint.h>
#include <stdlib.h>

int ls_vec_reserve_(void **data, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return 0;
    size_t ncap = *cap ? *cap : 8;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return LS_ERR_NOMEM;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return LS_ERR_NOMEM;
    void *p = realloc(*data, ncap * elem);
    if (!p)
        return LS_ERR_NOMEM;
    *data = p;
    *cap = ncap;
    return 0;
}

int ls_vec_reserve_exact_(void **data, size_t *cap, size_t n, size_t elem)
{
    if (n <= *cap)
        return 0;
    if (n > SIZE_MAX / elem)
        return LS_ERR_NOMEM;
    void *p = realloc(*data, n * elem);
    if (!p)
        return LS_ERR_NOMEM;
    *data = p;
    *cap = n;
    return 0;
}
