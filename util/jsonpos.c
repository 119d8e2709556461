/* util/jsonpos: a structural JSON scan that follows one key path. The text has already
 * been parsed by jansson, so the scan may be permissive: it only needs to tell strings,
 * nesting and member keys apart. Skipping is iterative, so deep nesting costs no stack. */
#include "util/jsonpos.h"

#include <stdlib.h>
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

/* From a member's key to the start of its value. */
static void key_to_value(struct jscan *j)
{
    skip_string(j);
    skip_ws(j);
    if (j->i < j->n && j->s[j->i] == ':')
        j->i++;
    skip_ws(j);
}

/* At an array's '[': move to the start of element idx; 0, or -1 when it has fewer. */
static int find_element(struct jscan *j, unsigned long idx)
{
    j->i++;
    skip_ws(j);
    for (unsigned long k = 0; k < idx; k++) {
        skip_value(j);
        skip_ws(j);
        if (j->i >= j->n || j->s[j->i] != ',')
            return -1;
        j->i++;
        skip_ws(j);
    }
    return j->i < j->n && j->s[j->i] != ']' ? 0 : -1;
}

int ls_json_locate(const char *text, size_t len, const char *path, int *line, int *col)
{
    struct jscan j = {text, len, 0};
    const char *p = path;
    int at_key = 0; /* j is at a member's key (else at a value) */
    for (;;) {
        if (at_key)
            key_to_value(&j);
        skip_ws(&j);
        size_t klen = strcspn(p, ".[");
        if (j.i >= j.n || j.s[j.i] != '{' || !find_member(&j, p, klen))
            return -1;
        at_key = 1;
        p += klen;
        while (*p == '[') { /* key[3][0]: elements of the member's array */
            char *end;
            unsigned long idx = strtoul(p + 1, &end, 10);
            if (end == p + 1 || *end != ']')
                return -1;
            if (at_key)
                key_to_value(&j);
            if (j.i >= j.n || j.s[j.i] != '[' || find_element(&j, idx))
                return -1;
            at_key = 0;
            p = end + 1;
        }
        if (!*p)
            break;
        if (*p != '.')
            return -1;
        p++;
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
