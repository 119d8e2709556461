/* graph/import/inputs: parse `--input NAME=AxBxC` entries (graph/inputs.h). */
#include <stdlib.h>
#include <string.h>

#include "graph/inputs.h"

/* Parse the dims of one entry text[0..n) after '='. 0 or LS_ERR_INPUT. */
static int parse_dims(const char *entry, size_t elen, const char *s, size_t n, int *rank,
                      int64_t *dims, struct ls_error *err)
{
    *rank = 0;
    size_t i = 0;
    while (i < n) {
        if (*rank == GRAPH_MAX_RANK)
            return ls_error_msg(err, LS_ERR_INPUT, "--input '%.*s': more than %d dims",
                                (int)elen, entry, GRAPH_MAX_RANK);
        int64_t v = 0;
        size_t start = i;
        while (i < n && s[i] >= '0' && s[i] <= '9' && v <= GRAPH_MAX_DIM)
            v = v * 10 + (s[i++] - '0');
        if (i == start || v < 1 || v > GRAPH_MAX_DIM || (i < n && s[i] != 'x'))
            return ls_error_msg(err, LS_ERR_INPUT,
                                "--input '%.*s': expected NAME=D1xD2x... with dims in 1..%lld",
                                (int)elen, entry, (long long)GRAPH_MAX_DIM);
        dims[(*rank)++] = v;
        if (i < n && ++i == n)
            return ls_error_msg(err, LS_ERR_INPUT, "--input '%.*s': trailing 'x'", (int)elen,
                                entry);
    }
    return 0;
}

/* Walk the entries; stop at the one named `name` (NULL: check them all). */
static int walk(const char *spec, const char *name, int *rank, int64_t *dims,
                struct ls_error *err)
{
    const char *p = spec ? spec : "";
    while (*p) {
        const char *end = strchr(p, ';');
        size_t elen = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', elen);
        if (!eq || eq == p)
            return -ls_error_msg(err, LS_ERR_INPUT, "--input '%.*s': expected NAME=D1xD2x...",
                                 (int)elen, p);
        size_t nlen = (size_t)(eq - p);
        int r;
        int64_t d[GRAPH_MAX_RANK];
        if (parse_dims(p, elen, eq + 1, elen - nlen - 1, &r, d, err))
            return -LS_ERR_INPUT;
        if (name && strlen(name) == nlen && !memcmp(name, p, nlen)) {
            *rank = r;
            memcpy(dims, d, sizeof(int64_t) * (size_t)r);
            return 1;
        }
        p += elen + (end != NULL);
    }
    return 0;
}

int graph_inputs_check(const char *spec, struct ls_error *err)
{
    int rank;
    int64_t dims[GRAPH_MAX_RANK];
    return walk(spec, NULL, &rank, dims, err) < 0 ? LS_ERR_INPUT : 0;
}

int graph_inputs_find(const char *spec, const char *name, int *rank, int64_t *dims,
                      struct ls_error *err)
{
    int rc = walk(spec, name, rank, dims, err);
    return rc < 0 ? -1 : rc;
}
