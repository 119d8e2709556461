#include "util/scan.h"
#include "util/vec.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ls_scan_init(struct ls_scan *sc, const char *file, const char *buf, size_t len)
{
    memset(sc, 0, sizeof *sc);
    sc->file = file;
    sc->buf = buf;
    sc->len = len;
}

void ls_scan_free(struct ls_scan *sc)
{
    free(sc->tok);
    sc->tok = NULL;
    sc->ntok = sc->captok = 0;
}

/* Bytes that end a token: blanks, '#', NUL (a 256-entry table: this loop reads every byte
 * of every text file laysim loads, a million-line program among them). */
static const unsigned char token_end[256] = {[' '] = 1, ['\t'] = 1, ['\r'] = 1, ['#'] = 1,
                                              ['\0'] = 1};

int ls_scan_next(struct ls_scan *sc, struct ls_error *err)
{
    while (sc->pos < sc->len) {
        sc->line++;
        sc->ntok = 0;
        size_t start = sc->pos;
        const char *nl = memchr(sc->buf + start, '\n', sc->len - start);
        size_t end = nl ? (size_t)(nl - sc->buf) : sc->len;
        sc->pos = end < sc->len ? end + 1 : end;
        for (size_t i = start; i < end;) {
            unsigned char c = (unsigned char)sc->buf[i];
            if (c == '\0')
                return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line, (int)(i - start) + 1,
                                    "NUL byte in text file"), -1;
            if (c == '#') {
                /* the rest of the line is a comment, but a NUL there is still an error */
                const char *z = memchr(sc->buf + i, '\0', end - i);
                if (z)
                    return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line,
                                        (int)(z - sc->buf - start) + 1, "NUL byte in text file"),
                           -1;
                break;
            }
            if (token_end[c]) {
                i++;
                continue;
            }
            size_t j = i + 1;
            while (j < end && !token_end[(unsigned char)sc->buf[j]])
                j++;
            if (sc->ntok == sc->captok &&
                ls_vec_reserve_((void **)&sc->tok, &sc->captok, sc->ntok + 1, sizeof *sc->tok))
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
            sc->tok[sc->ntok].s = sc->buf + i;
            sc->tok[sc->ntok].n = j - i;
            sc->tok[sc->ntok].col = (int)(i - start) + 1;
            sc->ntok++;
            sc->end_col = (int)(j - start) + 1;
            i = j;
        }
        if (sc->ntok)
            return 1;
    }
    sc->ntok = 0;
    return 0;
}

int ls_scan_error(const struct ls_scan *sc, size_t i, struct ls_error *err, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int col = i < sc->ntok ? sc->tok[i].col : (sc->ntok ? sc->end_col : 1);
    return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line, col, "%s", msg);
}

int ls_tok_eq(const struct ls_token *t, const char *s)
{
    size_t n = strlen(s);
    return t->n == n && memcmp(t->s, s, n) == 0;
}

const char *ls_tok_str(const struct ls_token *t, char *buf, size_t n)
{
    size_t m = t->n < n - 1 ? t->n : n - 1;
    memcpy(buf, t->s, m);
    buf[m] = '\0';
    return buf;
}

int ls_parse_u64(const char *s, size_t n, uint64_t *out)
{
    if (n == 0 || (n > 1 && s[0] == '0'))
        return -1;
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        /* overflow checks without a division per digit (a tenth of parsing a program) */
        if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, (unsigned)(s[i] - '0'), &v))
            return -1;
    }
    *out = v;
    return 0;
}

static int need_token(const struct ls_scan *sc, size_t i, const char *what, struct ls_error *err)
{
    if (i >= sc->ntok)
        return ls_scan_error(sc, i, err, "expected %s", what);
    return 0;
}

int ls_scan_u64(const struct ls_scan *sc, size_t i, const char *what, uint64_t *out,
                struct ls_error *err)
{
    if (need_token(sc, i, what, err))
        return LS_ERR_INPUT;
    char buf[64];
    if (ls_parse_u64(sc->tok[i].s, sc->tok[i].n, out))
        return ls_scan_error(sc, i, err, "%s: expected a non-negative integer, got '%s'", what,
                             ls_tok_str(&sc->tok[i], buf, sizeof buf));
    return 0;
}

int ls_scan_i64(const struct ls_scan *sc, size_t i, const char *what, int64_t *out,
                struct ls_error *err)
{
    if (need_token(sc, i, what, err))
        return LS_ERR_INPUT;
    const struct ls_token *t = &sc->tok[i];
    int neg = t->n > 1 && t->s[0] == '-';
    uint64_t v;
    char buf[64];
    if (ls_parse_u64(t->s + neg, t->n - neg, &v) || v > (uint64_t)INT64_MAX || (neg && v == 0))
        return ls_scan_error(sc, i, err, "%s: expected an integer, got '%s'", what,
                             ls_tok_str(t, buf, sizeof buf));
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int ls_scan_double(const struct ls_scan *sc, size_t i, const char *what, double *out,
                   struct ls_error *err)
{
    if (need_token(sc, i, what, err))
        return LS_ERR_INPUT;
    char buf[64], *end;
    ls_tok_str(&sc->tok[i], buf, sizeof buf);
    errno = 0;
    double v = strtod(buf, &end);
    if (sc->tok[i].n >= sizeof buf || end == buf || *end || errno || !isfinite(v))
        return ls_scan_error(sc, i, err, "%s: expected a number, got '%s'", what, buf);
    *out = v;
    return 0;
}

int ls_scan_arity(const struct ls_scan *sc, size_t lo, long hi, const char *usage,
                  struct ls_error *err)
{
    if (sc->ntok < lo)
        return ls_scan_error(sc, sc->ntok, err, "too few fields; expected: %s", usage);
    if (hi >= 0 && sc->ntok > (size_t)hi)
        return ls_scan_error(sc, (size_t)hi, err, "too many fields; expected: %s", usage);
    return 0;
}
