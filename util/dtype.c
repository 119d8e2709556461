#include "util/dtype.h"

#include <string.h>

static const struct {
    const char *name;
    size_t size;
} dtypes[LS_DT_COUNT] = {
    [LS_DT_FP32] = {"fp32", 4}, [LS_DT_BF16] = {"bf16", 2}, [LS_DT_FP16] = {"fp16", 2},
    [LS_DT_FP8] = {"fp8", 1},   [LS_DT_INT32] = {"int32", 4}, [LS_DT_INT8] = {"int8", 1},
};

const char *ls_dtype_name(enum ls_dtype dt)
{
    return (unsigned)dt < LS_DT_COUNT ? dtypes[dt].name : "?";
}

size_t ls_dtype_size(enum ls_dtype dt)
{
    return (unsigned)dt < LS_DT_COUNT ? dtypes[dt].size : 0;
}

int ls_dtype_parse(const char *s, size_t n, enum ls_dtype *out)
{
    for (int i = 0; i < LS_DT_COUNT; i++)
        if (n && dtypes[i].name[0] == s[0] && strnlen(dtypes[i].name, n + 1) == n &&
            !memcmp(dtypes[i].name, s, n)) {
            *out = (enum ls_dtype)i;
            return 0;
        }
    return -1;
}
