// libFuzzer target for simulator target INI files (sim/target.c: sim_target_load_string).
// Not built by default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* A loaded target must pass validation again, and its canonical key=value lines, written
 * back as an INI file, must load to the same lines and hash; a rejected file must give
 * LS_ERR_INPUT naming the file (and the line for syntax errors). Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/target.h"

static char *lines_of(const struct sim_target *t, size_t *len)
{
    *len = sim_target_lines(t, NULL, 0);
    char *buf = malloc(*len + 1);
    if (!buf || sim_target_lines(t, buf, *len + 1) != *len)
        abort();
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    struct sim_target t, u;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = sim_target_load_string(&t, "fuzz.ini", text, &err);
    free(text);
    if (rc) {
        if (rc != LS_ERR_INPUT || strcmp(err.file, "fuzz.ini") != 0)
            abort();
        return 0;
    }
    if (sim_target_validate(&t, &err) || sim_target_tick_mhz(&t) == 0)
        abort();
    /* Canonical lines -> INI ("a.b=v" becomes "[a]\nb = v"), then load again. */
    size_t len1 = 0, len2 = 0;
    char *l1 = lines_of(&t, &len1);
    size_t cap = 2 * len1 + 64, n = 0;
    char *ini = malloc(cap);
    if (!ini)
        abort();
    for (char *s = l1; *s;) {
        char *nl = strchr(s, '\n'), *dot = strchr(s, '.'), *eq = strchr(s, '=');
        if (!nl || !dot || !eq || dot > eq || eq > nl)
            abort();
        n += (size_t)snprintf(ini + n, cap - n, "[%.*s]\n%.*s = %.*s\n", (int)(dot - s), s,
                              (int)(eq - dot - 1), dot + 1, (int)(nl - eq - 1), eq + 1);
        if (n >= cap)
            abort();
        s = nl + 1;
    }
    if (sim_target_load_string(&u, "again.ini", ini, &err))
        abort();
    char *l2 = lines_of(&u, &len2);
    if (len1 != len2 || memcmp(l1, l2, len1) != 0 || sim_target_hash(&t) != sim_target_hash(&u))
        abort();
    free(ini);
    free(l1);
    free(l2);
    return 0;
}
