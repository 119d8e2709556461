/* study/regret: regret summaries and reference files of best known times. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "study/regret.h"
#include "study/validate.h"
#include "util/csv.h"
#include "util/fileio.h"

void study_regret_summary(const double *regret, int n, struct study_regret *out)
{
    memset(out, 0, sizeof *out);
    double *v = malloc(sizeof *v * (size_t)(n > 0 ? n : 1));
    for (int i = 0; i < n; i++) {
        if (isnan(regret[i]))
            continue;
        if (v)
            v[out->models] = regret[i];
        out->models++;
        out->within += regret[i] <= STUDY_REGRET_OK;
    }
    out->max = v ? study_max(v, out->models) : NAN;
    out->median = v ? study_median(v, out->models) : NAN;
    free(v);
}

void study_reference_free(struct study_reference *ref)
{
    for (size_t i = 0; i < ref->n; i++) {
        free(ref->rows[i].model);
        free(ref->rows[i].source);
    }
    free(ref->rows);
    memset(ref, 0, sizeof *ref);
}

const struct study_reference_row *study_reference_find(const struct study_reference *ref,
                                                       const char *model)
{
    for (size_t i = 0; i < ref->n; i++)
        if (strcmp(ref->rows[i].model, model) == 0)
            return &ref->rows[i];
    return NULL;
}

static char *dup_field(const struct ls_csv_field *f)
{
    char *s = malloc(f->n + 1);
    if (s) {
        memcpy(s, f->s, f->n);
        s[f->n] = 0;
    }
    return s;
}

static int field_is(const struct ls_csv_field *f, const char *s)
{
    return f->n == strlen(s) && memcmp(f->s, s, f->n) == 0;
}

/* One data row of the file into ref. */
static int take_row(struct study_reference *ref, const struct ls_csv_row *r, int line,
                    struct ls_error *err)
{
    const char *p = ref->path;
    if (r->nf < 2 || r->nf > 3)
        return ls_error_set(err, LS_ERR_INPUT, p, line, 1,
                            "expected model,best_cycles[,source] (%zu fields)", r->nf);
    char num[64];
    const struct ls_csv_field *c = &r->f[1];
    size_t k = c->n < sizeof num - 1 ? c->n : sizeof num - 1;
    memcpy(num, c->s, k);
    num[k] = 0;
    char *end;
    double v = strtod(num, &end);
    if (k == 0 || *end || !isfinite(v) || v <= 0)
        return ls_error_set(err, LS_ERR_INPUT, p, line, c->col,
                            "best_cycles: expected a number > 0, got '%s'", num);
    struct study_reference_row row = {dup_field(&r->f[0]), NULL, v, line};
    if (row.model && study_reference_find(ref, row.model)) {
        int first = study_reference_find(ref, row.model)->line;
        free(row.model);
        return ls_error_set(err, LS_ERR_INPUT, p, line, 1,
                            "model listed twice (first on line %d)", first);
    }
    static const struct ls_csv_field none = {"", 0, 0};
    row.source = dup_field(r->nf > 2 ? &r->f[2] : &none);
    struct study_reference_row *g = realloc(ref->rows, sizeof *g * (ref->n + 1));
    if (!row.model || !row.source || !g) {
        free(row.model);
        free(row.source);
        if (g)
            ref->rows = g;
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    ref->rows = g;
    ref->rows[ref->n++] = row;
    return 0;
}

/* The lines of text[0..len) into ref (the header first). */
static int read_lines(struct study_reference *ref, const char *text, size_t len,
                      struct ls_error *err)
{
    struct ls_csv_row r = {0};
    int line = 0, header = 0, rc = 0;
    for (size_t at = 0; at < len && !rc;) {
        const char *b = text + at, *nl = memchr(b, '\n', len - at);
        size_t n = nl ? (size_t)(nl - b) : len - at;
        at += n + 1;
        line++;
        if (n && b[n - 1] == '\r')
            n--;
        if (n == 0 || b[0] == '#')
            continue;
        int col;
        const char *what;
        if ((rc = ls_csv_split(&r, b, n, &col, &what))) {
            if (rc == LS_ERR_INPUT)
                ls_error_set(err, rc, ref->path, line, col, "%s", what);
            else
                ls_error_msg(err, rc, "out of memory");
        } else if (!header) {
            header = 1;
            if (r.nf < 2 || !field_is(&r.f[0], "model") || !field_is(&r.f[1], "best_cycles") ||
                (r.nf > 2 && !field_is(&r.f[2], "source")) || r.nf > 3)
                rc = ls_error_set(err, LS_ERR_INPUT, ref->path, line, 1,
                                  "expected the header model,best_cycles[,source]");
        } else {
            rc = take_row(ref, &r, line, err);
        }
    }
    ls_csv_row_free(&r);
    if (!rc && !header)
        rc = ls_error_set(err, LS_ERR_INPUT, ref->path, 0, 0,
                          "empty: expected the header model,best_cycles[,source]");
    return rc;
}

int study_reference_read(const char *path, struct study_reference *ref, struct ls_error *err)
{
    memset(ref, 0, sizeof *ref);
    snprintf(ref->path, sizeof ref->path, "%s", path);
    char *text = NULL;
    size_t len = 0;
    int rc = ls_read_file(path, &text, &len, err);
    if (!rc)
        rc = read_lines(ref, text, len, err);
    free(text);
    if (rc)
        study_reference_free(ref);
    return rc;
}
