/* solver/tie: reading, writing and comparing the tie headers of .lsp and .sol files. */
#include "solver/lsp_tie.h"

#include <inttypes.h>
#include <string.h>

static const char *const key_names[LSP_TIE_NKEYS] = {
    "model-hash", "target-hash", "table-hash", "codegen-version", "problem-hash"};
static const char *const key_what[LSP_TIE_NKEYS] = {"model", "target", "table", "codegen",
                                                    "problem"};

const char *lsp_tie_key_name(int key)
{
    return key >= 0 && key < LSP_TIE_NKEYS ? key_names[key] : "?";
}

const char *lsp_tie_what(int key)
{
    return key >= 0 && key < LSP_TIE_NKEYS ? key_what[key] : "?";
}

void lsp_tie_set(struct lsp_tie *t, int key, const char *value)
{
    snprintf(t->v[key], sizeof t->v[key], "%s", value);
}

void lsp_tie_set_hash(struct lsp_tie *t, int key, uint64_t h)
{
    snprintf(t->v[key], sizeof t->v[key], "%016" PRIx64, h);
}

int lsp_tie_empty(const struct lsp_tie *t)
{
    for (int k = 0; k < LSP_TIE_NKEYS; k++)
        if (t->v[k][0])
            return 0;
    return 1;
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

/* One line (without its newline): a tie header sets its key. */
static void scan_line(const char *s, size_t n, struct lsp_tie *t)
{
    size_t i = 1;
    if (n < 2 || s[0] != '#')
        return;
    while (i < n && is_space(s[i]))
        i++;
    for (int k = 0; k < LSP_TIE_NKEYS; k++) {
        size_t kl = strlen(key_names[k]);
        if (n - i <= kl || memcmp(s + i, key_names[k], kl) || s[i + kl] != ':')
            continue;
        size_t a = i + kl + 1, b = n;
        while (a < b && is_space(s[a]))
            a++;
        while (b > a && is_space(s[b - 1]))
            b--;
        size_t len = b - a < LSP_TIE_VALUE_MAX - 1 ? b - a : LSP_TIE_VALUE_MAX - 1;
        while (len > 0 && is_space(s[a + len - 1]))  /* truncation may end on a space: */
            len--;                                    /* trim again so writing re-reads */
        memcpy(t->v[k], s + a, len);
        t->v[k][len] = '\0';
        return;
    }
}

void lsp_tie_scan(const char *buf, size_t len, struct lsp_tie *t)
{
    memset(t, 0, sizeof *t);
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len;
        scan_line(buf + pos, end - pos, t);
        pos = end + 1;
    }
}

void lsp_tie_write(const struct lsp_tie *t, FILE *fp)
{
    for (int k = 0; k < LSP_TIE_NKEYS; k++)
        if (t->v[k][0])
            fprintf(fp, "# %s: %s\n", key_names[k], t->v[k]);
}

int lsp_tie_diff(const struct lsp_tie *a, const struct lsp_tie *b)
{
    for (int k = 0; k < LSP_TIE_NKEYS; k++)
        if (a->v[k][0] && b->v[k][0] && strcmp(a->v[k], b->v[k]))
            return k;
    return -1;
}

int lsp_tie_mismatch(const struct lsp_tie *sol, const struct lsp_tie *here, char *buf, size_t n)
{
    int found = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < LSP_TIE_NKEYS; k++) {
        if (k == LSP_TIE_PROBLEM && found)
            break;
        if (!sol->v[k][0] || !here->v[k][0] || !strcmp(sol->v[k], here->v[k]))
            continue;
        int w = snprintf(buf + used, n - used, "%s%s differs (%s %s in the .sol, %s here)",
                         found ? "; " : "", lsp_tie_what(k), lsp_tie_key_name(k), sol->v[k],
                         here->v[k]);
        if (w > 0 && (size_t)w < n - used)
            used += (size_t)w;
        found = 1;
    }
    return found;
}
