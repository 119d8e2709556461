/* graph/import/inputs: parse `--input NAME=AxBxC` entries (graph/inputs.h). */
#include <stdio.h>
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

/* The value after ':' of an entry (s[0..n)): 0 and *val, or LS_ERR_INPUT. */
static int parse_value(const char *entry, size_t elen, const char *s, size_t n, double *val,
                       struct ls_error *err)
{
    char buf[40];
    char *end = NULL;
    if (n > 0 && n < sizeof buf) {
        memcpy(buf, s, n);
        buf[n] = 0;
        *val = strtod(buf, &end);
    }
    if (!end || *end || !(*val > -1e15 && *val < 1e15))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "--input '%.*s': expected NAME=D1xD2...:VALUE with a number of at "
                            "most 15 digits after ':'", (int)elen, entry);
    return 0;
}

/* Walk the entries; stop at the one named `name` (NULL: check them all); *has_val and *val
 * tell the value given after ':' (NULL: not wanted). */
static int walk(const char *spec, const char *name, int *rank, int64_t *dims, int *has_val,
                double *val, struct ls_error *err)
{
    const char *p = spec ? spec : "";
    while (*p) {
        const char *end = strchr(p, ';');
        size_t elen = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', elen);
        if (!eq || eq == p)
            return -ls_error_msg(err, LS_ERR_INPUT, "--input '%.*s': expected NAME=D1xD2x...",
                                 (int)elen, p);
        size_t nlen = (size_t)(eq - p), rest = elen - nlen - 1;
        const char *colon = memchr(eq + 1, ':', rest);
        size_t dlen = colon ? (size_t)(colon - eq - 1) : rest;
        int r;
        int64_t d[GRAPH_MAX_RANK];
        double v = 0;
        if (parse_dims(p, elen, eq + 1, dlen, &r, d, err) ||
            (colon && parse_value(p, elen, colon + 1, rest - dlen - 1, &v, err)))
            return -LS_ERR_INPUT;
        if (name && strlen(name) == nlen && !memcmp(name, p, nlen)) {
            *rank = r;
            memcpy(dims, d, sizeof(int64_t) * (size_t)r);
            if (has_val) {
                *has_val = colon != NULL;
                *val = v;
            }
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
    return walk(spec, NULL, &rank, dims, NULL, NULL, err) < 0 ? LS_ERR_INPUT : 0;
}

int graph_inputs_find(const char *spec, const char *name, int *rank, int64_t *dims,
                      struct ls_error *err)
{
    int rc = walk(spec, name, rank, dims, NULL, NULL, err);
    return rc < 0 ? -1 : rc;
}

int graph_inputs_value(const char *spec, const char *name, double *val)
{
    int rank, has = 0;
    int64_t dims[GRAPH_MAX_RANK];
    struct ls_error e = {0};
    return walk(spec, name, &rank, dims, &has, val, &e) == 1 && has;
}

/* Does entry name e[0..l) name input `name`? */
static int names_input(const char *e, size_t l, const char *name, int tf_ports)
{
    size_t n = strlen(name);
    if (n == l && !memcmp(e, name, l))
        return 1;
    return tf_ports && l == n + 2 && !memcmp(e, name, n) && !memcmp(e + n, ":0", 2);
}

/* "a, b, c" (cut with "..." when it does not fit). */
static void list_names(const char *const *names, size_t n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", names[i]);
    if (used >= cap && cap > 4)
        memcpy(buf + cap - 4, "...", 4);
    if (!n)
        snprintf(buf, cap, "none");
}

int graph_input_known(const char *name, size_t len, const char *const *names, size_t n,
                      int tf_ports, const char *file, struct ls_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (names_input(name, len, names[i], tf_ports))
            return 0;
    char list[400];
    list_names(names, n, list, sizeof list);
    return ls_error_set(err, LS_ERR_INPUT, file, 0, 0,
                        "--input %.*s=...: the model has no input '%.*s' (its inputs: %s)",
                        (int)len, name, (int)len, name, list);
}

int graph_inputs_known(const char *spec, const char *const *names, size_t n, int tf_ports,
                       const char *file, struct ls_error *err)
{
    for (const char *p = spec ? spec : ""; *p;) {
        const char *end = strchr(p, ';');
        size_t elen = end ? (size_t)(end - p) : strlen(p);
        const char *eq = memchr(p, '=', elen);
        if (graph_input_known(p, eq ? (size_t)(eq - p) : elen, names, n, tf_ports, file, err))
            return LS_ERR_INPUT;
        p += elen + (end != NULL);
    }
    return 0;
}

/* ---- --batch on declared shapes ---- */

void graph_batch_init(struct graph_batch *b, int64_t batch)
{
    memset(b, 0, sizeof *b);
    b->batch = batch > 0 ? batch : 0;
}

int64_t graph_batch_axis0(struct graph_batch *b, const char *name, int rank, int64_t declared)
{
    if (declared <= 0) {
        b->used = 1;
        return b->batch ? b->batch : GRAPH_IMPORT_BATCH_DEFAULT;
    }
    if (!b->batch || declared == b->batch || (declared == 1 && rank >= 2)) {
        b->used |= b->batch != 0;
        if (b->batch && declared != b->batch && !b->forced[0])
            snprintf(b->forced, sizeof b->forced, "%s", name);
        return b->batch ? b->batch : declared;
    }
    if (!b->refused[0]) {
        snprintf(b->refused, sizeof b->refused, "%s", name);
        b->refused_dim = declared;
    }
    return declared;
}

int graph_batch_check(const struct graph_batch *b, const char *file, struct ls_error *err)
{
    if (!b->batch || b->used)
        return 0;
    if (!b->refused[0])
        return ls_error_set(err, LS_ERR_INPUT, file, 0, 0,
                            "--batch %lld: the model has no input with a batch axis (axis 0 "
                            "unknown or 1, rank 2 or more)", (long long)b->batch);
    return ls_error_set(err, LS_ERR_INPUT, file, 0, 0,
                        "--batch %lld applies to no input: '%s' declares a fixed batch of "
                        "%lld (axis 0; --batch replaces one that is unknown or 1): give its "
                        "whole shape with --input %s=...",
                        (long long)b->batch, b->refused, (long long)b->refused_dim, b->refused);
}

void graph_batch_note(const struct graph_batch *b, struct ls_error *err)
{
    if (!err || !err->code || !b->forced[0])
        return;
    size_t n = strlen(err->msg);
    snprintf(err->msg + n, sizeof err->msg - n,
             " (--batch %lld replaced the batch of 1 that input '%s' declares; the model's "
             "fixed shapes may need 1)", (long long)b->batch, b->forced);
}
