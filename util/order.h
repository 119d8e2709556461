/* util/order: order statistics of double arrays, shared by the calibration fits. */
#ifndef LS_UTIL_ORDER_H
#define LS_UTIL_ORDER_H

#include <stddef.h>

/* qsort comparator of doubles, ascending (NaNs are not ordered: keep them out). */
int ls_cmp_double(const void *a, const void *b);
/* The median of v[0..n), sorting v in place; NAN when n == 0. */
double ls_median(double *v, size_t n);

#endif
