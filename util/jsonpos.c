/* util/jsonpos: a structural JSON scan that follows one key path. The text has already
 * been parsed by jansson, so the scan may be permissive: it only needs to tell strings,
 * nesting and member keys apart. Skipping is iterative, so deep nesting costs no stack. */
#include "util/jsonpos.h"

#include <string.h>

struct jscan {
    const char *s;
    size_t n, i;
};

static void skip_ws(struct jscan *j)
{
    while (j->i < j->n && (j->s[j->i] == ' ' || j->s[j->i] == '\t' || j->s[j->i] == '\n' ||
                           j->s[j->i] == '\r'))
        j->i++;
}

/* At an opening quote: move past the closing one. */
static void skip_string(struct jscan *j)
{
    for (j->i++; j->i < j->n; j->i++) {
        if (j->s[j->i] == '\\')
            j->i++;
        else if (j->s[j->i] == '"') {
            j->i++;
            return;
        }
    }
}

/* Skip one value of any kind: a string, a container with everything in it, or a scalar
 * (which ends at a separator, whitespace or the enclosing container's end). */
static void skip_value(struct jscan *j)
{
    skip_ws(j);
    int depth = 0;
    while (j->i < j->n) {
        char c = j->s[j->i];
        if (c == '"') {
            skip_string(j);
            if (depth == 0)
                return;
        } else if (c == '{' || c == '[') {
            depth++;
            j->i++;
        } else if (c == '}' || c == ']') {
            if (depth == 0)
                return;
            j->i++;
            if (--depth == 0)
                return;
        } else if (depth == 0 && strchr(", \t\r\n", c)) {
            return;
        } else {
            j->i++;
        }
    }
}

/* In an object's '{': find the member whose key is path[0..klen); returns 1 with j at the
 * key's opening quote, or 0. */
static int find_member(struct jscan *j, const char *key, size_t klen)
{
    j->i++;
    for (;;) {
        skip_ws(j);
        if (j->i >= j->n || j->s[j->i] != '"')
            return 0; /* '}' or malformed */
        size_t at = j->i;
        skip_string(j);
        size_t inner = j->i - at - 2;
        int match = inner == klen && !memcmp(j->s + at + 1, key, klen);
        skip_ws(j);
        if (j->i < j->n && j->s[j->i] == ':')
            j->i++;
        if (match) {
            j->i = at;
            return 1;
        }
        skip_value(j);
        skip_ws(j);
        if (j->i >= j->n || j->s[j->i] != ',')
            return 0;
        j->i++;
    }
}

int ls_json_locate(const char *text, size_t len, const char *path, int *line, int *col)
{
    struct jscan j = {text, len, 0};
    const char *key = path;
    for (;;) {
        skip_ws(&j);
        if (j.i >= j.n || j.s[j.i] != '{')
            return -1;
        const char *dot = strchr(key, '.');
        size_t klen = dot ? (size_t)(dot - key) : strlen(key);
        if (!find_member(&j, key, klen))
            return -1;
        if (!dot)
            break;
        skip_string(&j); /* the key, then ':' and on into the member's value */
        skip_ws(&j);
        if (j.i < j.n && j.s[j.i] == ':')
            j.i++;
        key = dot + 1;
    }
    int ln = 1, c = 1;
    for (size_t k = 0; k < j.i; k++) {
        if (text[k] == '\n')
            ln++, c = 1;
        else
            c++;
    }
    *line = ln;
    *col = c;
    return 0;
}
