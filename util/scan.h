/* util/scan: the line tokenizer every text format of laysim shares (.lg, .lsp, .sol,
 * programs). '#' starts a comment, blank lines are skipped, tokens are separated by
 * spaces or tabs, and every token knows its 1-based line and column for error messages. */
#ifndef LS_UTIL_SCAN_H
#define LS_UTIL_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct ls_token {
    const char *s;   /* not NUL-terminated */
    size_t n;
    int col;         /* 1-based */
};

struct ls_scan {
    const char *file;        /* for messages */
    const char *buf;
    size_t len, pos;
    int line;                /* line of the current tokens, 1-based */
    struct ls_token *tok;
    size_t ntok, captok;
    int end_col;             /* column just past the last token (for "expected more") */
};

void ls_scan_init(struct ls_scan *sc, const char *file, const char *buf, size_t len);
void ls_scan_free(struct ls_scan *sc);

/* Advance to the next line with at least one token. Returns 1 when there is one,
 * 0 at end of input, or -1 (err filled) on a NUL byte or out of memory. */
int ls_scan_next(struct ls_scan *sc, struct ls_error *err);

/* Error located at token i of the current line (i >= ntok points past the end). */
int ls_scan_error(const struct ls_scan *sc, size_t i, struct ls_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

int ls_tok_eq(const struct ls_token *t, const char *s);
/* Copy a token into buf (truncated to n-1 chars) for messages; returns buf. */
const char *ls_tok_str(const struct ls_token *t, char *buf, size_t n);

/* Strict number parsers for token i; on failure an error naming line and column.
 * what names the field for the message ("cost", "layout count"...). */
int ls_scan_u64(const struct ls_scan *sc, size_t i, const char *what, uint64_t *out,
                struct ls_error *err);
int ls_scan_i64(const struct ls_scan *sc, size_t i, const char *what, int64_t *out,
                struct ls_error *err);
int ls_scan_double(const struct ls_scan *sc, size_t i, const char *what, double *out,
                   struct ls_error *err);
/* Require token count in [lo, hi] (hi < 0: no upper bound). */
int ls_scan_arity(const struct ls_scan *sc, size_t lo, long hi, const char *usage,
                  struct ls_error *err);

/* Parse a whole decimal string; 0 on success. No sign, no leading zeros (except "0"). */
int ls_parse_u64(const char *s, size_t n, uint64_t *out);

#endif
