/* sim/program_tie: what a program was built for (target, target hash, model and problem
 * hashes) as `key: value` lines: `# `-prefixed comments after `lsprog 1` in the text form,
 * a length-prefixed block after the header of the binary form (docs/formats.md). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sim/program.h"
#include "sim/program_int.h"

static const char *const key_names[SIM_TIE_NKEYS] = {"target", "target-hash", "model-hash",
                                                     "problem-hash"};

const struct sim_program_tie *sim_program_tie(const struct sim_program *p)
{
    return &p->tie;
}

void sim_program_set_tie(struct sim_program *p, const struct sim_program_tie *t)
{
    p->tie = *t;
}

void sim_tie_set(struct sim_program_tie *t, int key, const char *value)
{
    snprintf(t->v[key], sizeof t->v[key], "%s", value);
}

void sim_tie_set_target(struct sim_program_tie *t, const struct sim_target *tg)
{
    char h[20];
    snprintf(h, sizeof h, "%016" PRIx64, sim_target_hash(tg));
    sim_tie_set(t, SIM_TIE_TARGET, tg->name);
    sim_tie_set(t, SIM_TIE_TARGET_HASH, h);
}

static int blank(char c)
{
    return c == ' ' || c == '\t' || c == '\r';
}

void sim_tie_line(struct sim_program_tie *t, const char *s, size_t n)
{
    while (n && blank(*s))
        s++, n--;
    while (n && blank(s[n - 1]))
        n--;
    for (int k = 0; k < SIM_TIE_NKEYS; k++) {
        size_t kl = strlen(key_names[k]), i = kl + 1;
        if (n <= kl || memcmp(s, key_names[k], kl) || s[kl] != ':')
            continue;
        while (i < n && blank(s[i]))
            i++;
        if (n - i >= SIM_TIE_VALUE_MAX)
            return;
        for (size_t j = i; j < n; j++)
            if ((unsigned char)s[j] < 0x20 || s[j] == 0x7f)
                return;   /* no control bytes: the value must write back as one line */
        memcpy(t->v[k], s + i, n - i);
        t->v[k][n - i] = '\0';
        return;
    }
}

void sim_tie_scan(struct sim_program_tie *t, const char *buf, size_t len, int text)
{
    size_t pos = 0;
    while (pos < len) {
        const char *nl = memchr(buf + pos, '\n', len - pos);
        size_t end = nl ? (size_t)(nl - buf) : len, i = pos;
        while (i < end && blank(buf[i]))
            i++;
        if (text && i < end && buf[i] != '#' &&
            (end - i < 6 || memcmp(buf + i, "lsprog", 6)))   /* the buffer need not end in NUL */
            return;   /* the first instruction: the header is over */
        if (!text || (i < end && buf[i] == '#'))
            sim_tie_line(t, buf + i + (text ? 1 : 0), end - i - (text ? 1 : 0));
        pos = end + 1;
    }
}

size_t sim_tie_format(const struct sim_program_tie *t, const char *prefix, char *buf, size_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int k = 0; k < SIM_TIE_NKEYS; k++) {
        if (!t->v[k][0])
            continue;
        int w = snprintf(buf + used, n - used, "%s%s: %s\n", prefix, key_names[k], t->v[k]);
        if (w > 0 && (size_t)w < n - used)
            used += (size_t)w;
    }
    return used;
}

int sim_program_tie_check(const struct sim_program *p, const struct sim_target *t, char *buf,
                          size_t n)
{
    struct sim_program_tie here;
    memset(&here, 0, sizeof here);
    sim_tie_set_target(&here, t);
    const char *name = p->tie.v[SIM_TIE_TARGET], *h = p->tie.v[SIM_TIE_TARGET_HASH];
    buf[0] = '\0';
    if (!name[0] || !strcmp(name, here.v[SIM_TIE_TARGET]))
        return 0;   /* the same target, or a --set variant of it (what-if, hidden cores) */
    snprintf(buf, n, "built for target %s (target-hash %s), simulated on target %s "
                     "(target-hash %s)",
             name, h[0] ? h : "?", here.v[SIM_TIE_TARGET], here.v[SIM_TIE_TARGET_HASH]);
    return 1;
}
