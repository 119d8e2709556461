/* util/csv: one CSV line split into fields, the splitter every CSV reader of laysim shares
 * (trace import, validation manifests). Fields are separated by commas; a field that starts
 * with a double quote runs to the closing quote ("" inside = one quote) and must be followed
 * by a comma or the end of the line. Each field knows its 1-based column for messages.
 * Line breaks, comments and the meaning of the fields are the caller's. */
#ifndef LS_UTIL_CSV_H
#define LS_UTIL_CSV_H

#include <stddef.h>
#include <stdio.h>

struct ls_csv_field {
    const char *s;           /* not NUL-terminated: into the line, or the row's scratch */
    size_t n;
    int col;                 /* 1-based column of the field's first byte */
};

/* The fields of the last line split; reused from line to line (zero it first). */
struct ls_csv_row {
    struct ls_csv_field *f;
    size_t nf, capf;
    char *scratch;           /* unquoted text of the quoted fields */
    size_t capscratch;
};

/* Split b[0..n) into r's fields. 0, LS_ERR_NOMEM, or LS_ERR_INPUT with *col (1-based) and
 * *what ("unterminated quoted field", "expected ',' after a quoted field") set; the
 * fields then stay valid until the next call. */
int ls_csv_split(struct ls_csv_row *r, const char *b, size_t n, int *col, const char **what);
void ls_csv_row_free(struct ls_csv_row *r);

/* Write s as one CSV field: as it is, or double-quoted ("" for a quote) when it holds a
 * comma, quote or line break or starts with '#' or a space (so that readers that skip
 * comment lines or trim fields read it back whole). NULL writes nothing. */
void ls_csv_put(FILE *fp, const char *s);

#endif
