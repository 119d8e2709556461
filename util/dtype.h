/* util/dtype: element types shared by the graph IR, the ISA and traces. */
#ifndef LS_UTIL_DTYPE_H
#define LS_UTIL_DTYPE_H

#include <stddef.h>

enum ls_dtype {
    LS_DT_FP32,
    LS_DT_BF16,
    LS_DT_FP16,
    LS_DT_FP8,
    LS_DT_INT32,
    LS_DT_INT8,
    LS_DT_COUNT
};

/* "fp32", "bf16", ... */
const char *ls_dtype_name(enum ls_dtype dt);
/* Bytes per element. */
size_t ls_dtype_size(enum ls_dtype dt);
/* Parse a name (n chars); returns 0 and sets *out, or -1 when unknown. */
int ls_dtype_parse(const char *s, size_t n, enum ls_dtype *out);

#endif
