/* util/csv: one CSV line split into fields (csv.h). */
#include "util/csv.h"

#include <stdlib.h>
#include <string.h>

#include "util/error.h"
#include "util/vec.h"

/* The quoted field at b[*pp] (the opening quote), unquoted into the scratch at *out. */
static int split_quoted(struct ls_csv_row *r, const char *b, size_t *pp, size_t stop,
                        size_t *out, struct ls_csv_field *f, int *col, const char **what)
{
    size_t p = *pp + 1;
    f->s = r->scratch + *out;
    for (;;) {
        if (p >= stop) {
            *col = f->col;
            *what = "unterminated quoted field";
            return LS_ERR_INPUT;
        }
        if (b[p] == '"') {
            if (p + 1 < stop && b[p + 1] == '"') {
                r->scratch[(*out)++] = '"';
                p += 2;
                continue;
            }
            p++;
            break;
        }
        r->scratch[(*out)++] = b[p++];
    }
    f->n = (size_t)(r->scratch + *out - f->s);
    *pp = p;
    if (p < stop && b[p] != ',') {
        *col = (int)p + 1;
        *what = "expected ',' after a quoted field";
        return LS_ERR_INPUT;
    }
    return 0;
}

int ls_csv_split(struct ls_csv_row *r, const char *b, size_t n, int *col, const char **what)
{
    if (n + 1 > r->capscratch && LS_ARRAY_RESERVE(r->scratch, r->capscratch, n + 1))
        return LS_ERR_NOMEM;
    size_t out = 0, p = 0;
    r->nf = 0;
    for (;;) {
        if (r->nf + 1 > r->capf && LS_ARRAY_RESERVE(r->f, r->capf, r->nf + 1))
            return LS_ERR_NOMEM;
        struct ls_csv_field *f = &r->f[r->nf++];
        f->col = (int)p + 1;
        if (p < n && b[p] == '"') {
            int rc = split_quoted(r, b, &p, n, &out, f, col, what);
            if (rc)
                return rc;
        } else {
            f->s = b + p;
            const char *comma = memchr(b + p, ',', n - p);
            p = comma ? (size_t)(comma - b) : n;
            f->n = (size_t)(b + p - f->s);
        }
        if (p >= n)
            return 0;
        p++; /* the comma */
    }
}

void ls_csv_row_free(struct ls_csv_row *r)
{
    free(r->f);
    free(r->scratch);
    memset(r, 0, sizeof *r);
}

void ls_csv_put(FILE *fp, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n") && s[0] != '#' && s[0] != ' ') {
        fputs(s, fp);
        return;
    }
    fputc('"', fp);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', fp);
        fputc(*s, fp);
    }
    fputc('"', fp);
}
