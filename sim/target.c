/* sim/target: key table, built-ins, overrides, validation and the stable hash. */
#include "sim/target.h"
#include "sim/sim_int.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fileio.h"
#include "util/hash.h"
#include "util/scan.h"
#include "util/vec.h"

enum key_type { KT_U32, KT_U64, KT_DBL };

struct key_def {
    const char *key;
    enum key_type type;
    size_t off;
    double lo, hi; /* inclusive range */
    int lo_open;   /* doubles: the value must be > lo */
    double nc_v2;  /* the default: its value in the built-in nc-v2 */
    double nc_v3;
};

/* sim/target_keys.def, one row per key (sorted by key: sim_target_lines relies on it). */
static const struct key_def keys[] = {
#define SIM_TARGET_KEY(key, field, type, lo, hi, lo_open, v2, v3) \
    {key, KT_##type, offsetof(struct sim_target, field), lo, hi, lo_open, v2, v3},
#include "sim/target_keys.def"
#undef SIM_TARGET_KEY
};
#define NKEYS (sizeof keys / sizeof keys[0])

/* Store v (in k's range) into k's field of t. */
static void put(struct sim_target *t, const struct key_def *k, double v)
{
    char *p = (char *)t + k->off;
    switch (k->type) {
    case KT_U32: *(uint32_t *)p = (uint32_t)v; break;
    case KT_U64: *(uint64_t *)p = (uint64_t)v; break;
    case KT_DBL: *(double *)p = v; break;
    }
}

/* A built-in: every key at its value in the table's nc-v2 or nc-v3 column. */
static void builtin(struct sim_target *t, const char *name, int v3)
{
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", name);
    for (size_t i = 0; i < NKEYS; i++)
        put(t, &keys[i], v3 ? keys[i].nc_v3 : keys[i].nc_v2);
}

static void nc_v2(struct sim_target *t)
{
    builtin(t, "nc-v2", 0);
}

static const char *const builtin_names[] = {"nc-v2", "nc-v3", NULL};

const char *const *sim_target_builtin_names(void)
{
    return builtin_names;
}

int sim_target_builtin(struct sim_target *t, const char *name)
{
    if (!strcmp(name, "nc-v2"))
        nc_v2(t);
    else if (!strcmp(name, "nc-v3"))
        builtin(t, "nc-v3", 1);
    else
        return -1;
    return 0;
}

static const struct key_def *find_key(const char *key)
{
    for (size_t i = 0; i < NKEYS; i++)
        if (!strcmp(keys[i].key, key))
            return &keys[i];
    return NULL;
}

/* Append s to buf[0..n) at *used, when it fits. */
static void append(char *buf, size_t n, size_t *used, const char *s)
{
    int w = snprintf(buf + *used, n - *used, "%s", s);
    if (w > 0 && (size_t)w < n - *used)
        *used += (size_t)w;
}

/* The error for an unknown key: the valid keys of its section ("pe.rowz": pe.background_load,
 * ... pe.rows), or, for an unknown section, the sections. */
static int unknown_key(const char *key, struct ls_error *err)
{
    char list[600];
    size_t used = 0, sl = strcspn(key, ".");
    list[0] = '\0';
    for (size_t i = 0; i < NKEYS; i++)
        if (key[sl] == '.' && !strncmp(keys[i].key, key, sl + 1)) {
            append(list, sizeof list, &used, used ? ", " : "");
            append(list, sizeof list, &used, keys[i].key);
        }
    if (used)
        return ls_error_msg(err, LS_ERR_INPUT, "%s: unknown target key (valid %.*s keys: %s)", key,
                            (int)sl, key, list);
    for (size_t i = 0; i < NKEYS; i++) {
        size_t l = strcspn(keys[i].key, ".");
        if (i && l == strcspn(keys[i - 1].key, ".") && !strncmp(keys[i].key, keys[i - 1].key, l))
            continue;   /* the table is sorted: one section's keys are adjacent */
        char sec[32];
        snprintf(sec, sizeof sec, "%s%.*s", used ? ", " : "", (int)l, keys[i].key);
        append(list, sizeof list, &used, sec);
    }
    return ls_error_msg(err, LS_ERR_INPUT,
                        "%s: unknown target key (sections: %s, target; `laysim sim --print-target` "
                        "lists every key)", key, list);
}

static int parse_number(const char *s, double *out)
{
    char *end;
    errno = 0;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s)
        return -1;
    double v = strtod(s, &end);
    while (*end == ' ' || *end == '\t')
        end++;
    if (end == s || *end || errno || !isfinite(v))
        return -1;
    for (const char *c = s; c < end; c++) /* decimal only: no hex, inf or nan */
        if (!strchr("0123456789+-.eE", *c))
            return -1;
    *out = v;
    return 0;
}

/* A new DMA bandwidth keeps the minimum descriptor size in bytes (desc_min_ns x
 * bytes_per_ns, 2482 B on nc-v2) unless desc_min_ns was given explicitly. */
static void keep_desc_min_bytes(struct sim_target *t, const struct key_def *k, double v)
{
    if (k->off == offsetof(struct sim_target, dma_desc_min_ns))
        t->dma_desc_min_explicit = 1;
    else if (k->off == offsetof(struct sim_target, dma_bytes_per_ns) && !t->dma_desc_min_explicit)
        t->dma_desc_min_ns = fmin(t->dma_desc_min_ns * t->dma_bytes_per_ns / v, 1e6);
}

int sim_target_set(struct sim_target *t, const char *key, const char *value, struct ls_error *err)
{
    if (!strcmp(key, "target.name")) {
        if (strlen(value) >= sizeof t->name || !*value)
            return ls_error_msg(err, LS_ERR_INPUT, "target.name: must be 1 to %zu characters",
                                sizeof t->name - 1);
        snprintf(t->name, sizeof t->name, "%s", value);
        return 0;
    }
    const struct key_def *k = find_key(key);
    if (!k)
        return unknown_key(key, err);
    double v;
    if (parse_number(value, &v))
        return ls_error_msg(err, LS_ERR_INPUT, "%s: expected a decimal number, got '%s'", key,
                            value);
    if (k->type != KT_DBL && v != floor(v))
        return ls_error_msg(err, LS_ERR_INPUT, "%s: expected an integer, got '%s'", key, value);
    if (v < k->lo || v > k->hi || (k->lo_open && v <= k->lo)) {
        /* integer keys print their range as integers (2^32, not 4.29497e+09) */
        int dig = k->type == KT_DBL ? 6 : 17;
        return ls_error_msg(err, LS_ERR_INPUT, "%s: %s is out of range %c%.*g, %.*g]", key, value,
                            k->lo_open ? '(' : '[', dig, k->lo, dig, k->hi);
    }
    keep_desc_min_bytes(t, k, v);
    put(t, k, v);
    return 0;
}

uint64_t sim_target_tick_mhz(const struct sim_target *t)
{
    const uint32_t c[5] = {t->base_mhz, t->pe_mhz, t->dve_mhz, t->act_mhz, t->pool_mhz};
    uint64_t l = 1;
    for (int i = 0; i < 5; i++) {
        if (!c[i])
            return 0;
        l = l / sim_gcd64(l, c[i]) * c[i];
        if (l > (uint64_t)SIM_MAX_TICK_MHZ * 1000000u)
            return l; /* already far too large; stop before overflow */
    }
    return l;
}

int sim_target_validate(const struct sim_target *t, struct ls_error *err)
{
    for (size_t i = 0; i < NKEYS; i++) {
        const struct key_def *k = &keys[i];
        const char *p = (const char *)t + k->off;
        double v = k->type == KT_U32 ? *(const uint32_t *)p
                   : k->type == KT_U64 ? (double)*(const uint64_t *)p
                                       : *(const double *)p;
        if (v < k->lo || v > k->hi || (k->lo_open && v <= k->lo) || v != v)
            return ls_error_msg(err, LS_ERR_INPUT, "%s: %g is out of range", k->key, v);
    }
    uint64_t tick = sim_target_tick_mhz(t);
    if (tick > SIM_MAX_TICK_MHZ)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "clock.base_mhz, clock.pe_mhz, clock.dve_mhz, clock.act_mhz, "
                            "clock.pool_mhz: the least common multiple of the clocks is %llu MHz, "
                            "above the %u MHz tick limit; pick clocks with a smaller LCM",
                            (unsigned long long)tick, SIM_MAX_TICK_MHZ);
    if (t->pe_rows > t->sbuf_partitions)
        return ls_error_msg(err, LS_ERR_INPUT, "pe.rows: %u is greater than sbuf.partitions (%u)",
                            t->pe_rows, t->sbuf_partitions);
    if (t->pe_cols > t->sbuf_partitions)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "pe.cols: %u is greater than sbuf.partitions (%u, which PSUM shares)",
                            t->pe_cols, t->sbuf_partitions);
    if (t->sbuf_usable_bytes > t->sbuf_bytes_per_partition)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "sbuf.usable_bytes: %llu is greater than sbuf.bytes_per_partition (%llu)",
                            (unsigned long long)t->sbuf_usable_bytes,
                            (unsigned long long)t->sbuf_bytes_per_partition);
    if (t->dma_engines > t->sbuf_partitions)
        return ls_error_msg(err, LS_ERR_INPUT, "dma.engines: %u is greater than sbuf.partitions (%u)",
                            t->dma_engines, t->sbuf_partitions);
    if (t->psum_bank_bytes % 4)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "psum.bank_bytes: %u is not a multiple of 4 (PSUM holds 32-bit values)",
                            t->psum_bank_bytes);
    if ((uint64_t)t->pe_moving_max * 4 > t->psum_bank_bytes)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "pe.moving_max: %u fp32 results per partition do not fit one PSUM bank "
                            "(psum.bank_bytes = %u)",
                            t->pe_moving_max, t->psum_bank_bytes);
    return 0;
}

static int fmt_value(const struct key_def *k, const struct sim_target *t, char *buf, size_t n)
{
    const char *p = (const char *)t + k->off;
    switch (k->type) {
    case KT_U32: return snprintf(buf, n, "%u", *(const uint32_t *)p);
    case KT_U64: return snprintf(buf, n, "%llu", (unsigned long long)*(const uint64_t *)p);
    case KT_DBL: return snprintf(buf, n, "%.15g", *(const double *)p);
    }
    return 0;
}

size_t sim_target_lines(const struct sim_target *t, char *buf, size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < NKEYS; i++) {
        char v[64];
        fmt_value(&keys[i], t, v, sizeof v);
        int w = snprintf(len < n ? buf + len : NULL, len < n ? n - len : 0, "%s=%s\n",
                         keys[i].key, v);
        len += (size_t)w;
    }
    if (n && len >= n)
        buf[n - 1] = '\0';
    return len;
}

uint64_t sim_target_hash(const struct sim_target *t)
{
    char buf[4096];
    size_t len = sim_target_lines(t, buf, sizeof buf);
    if (len >= sizeof buf) { /* cannot happen with the current key set */
        char *big = malloc(len + 1);
        if (!big)
            return 0;
        sim_target_lines(t, big, len + 1);
        uint64_t h = ls_fnv1a64(big, len);
        free(big);
        return h;
    }
    return ls_fnv1a64(buf, len);
}

/* ---- INI ------------------------------------------------------------------------------ */

/* The target INI dialect (docs/targets.md), read here rather than by a library so that
 * lines of any length keep their true line numbers (inih split lines at 200 bytes and
 * applied the rest as a setting): `[section]`, `key = value` or `key: value`, whole-line
 * comments starting with ';' or '#', inline comments after whitespace + ';', an optional
 * UTF-8 byte-order mark. */
struct ini_ctx {
    struct sim_target *t;
    const char *file;
    int nkeys;
    int key_line[NKEYS]; /* line of each key's last setting, for errors found later */
    struct ls_error *err;
};

static void trim(const char **s, const char **e)
{
    while (*s < *e && isspace((unsigned char)**s))
        (*s)++;
    while (*e > *s && isspace((unsigned char)(*e)[-1]))
        (*e)--;
}

/* Cut an inline comment: ';' at the start or after whitespace. */
static void cut_comment(const char *s, const char **e)
{
    for (const char *q = s; q < *e; q++)
        if (*q == ';' && (q == s || isspace((unsigned char)q[-1]))) {
            *e = q;
            break;
        }
}

static int ini_key(struct ini_ctx *c, int line, const char *key, const char *value)
{
    struct ls_error e;
    ls_error_clear(&e);
    if (!strcmp(key, "target.base")) {
        if (c->nkeys)
            return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0,
                                "target.base: must come before every other key");
        char nm[sizeof c->t->name];
        snprintf(nm, sizeof nm, "%s", c->t->name);
        if (sim_target_builtin(c->t, value))
            return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0,
                                "target.base: unknown built-in '%s' (nc-v2, nc-v3)", value);
        snprintf(c->t->name, sizeof c->t->name, "%s", nm);
        c->nkeys++;
        return 0;
    }
    c->nkeys++;
    if (sim_target_set(c->t, key, value, &e))
        return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0, "%s", e.msg);
    const struct key_def *k = find_key(key);
    if (k)
        c->key_line[k - keys] = line;
    return 0;
}

/* One line [s, e) of the file. */
static int ini_line(struct ini_ctx *c, int line, const char *s, const char *e, char *section,
                    size_t section_cap)
{
    trim(&s, &e);
    if (s == e || *s == ';' || *s == '#')
        return 0;
    if (*s == '[') {
        const char *close = memchr(s, ']', (size_t)(e - s));
        const char *rest = close ? close + 1 : e;
        cut_comment(rest, &e);
        trim(&rest, &e);
        if (!close || rest != e)
            return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0,
                                "malformed section header (expected [section])");
        const char *ns = s + 1, *ne = close;
        trim(&ns, &ne);
        if ((size_t)(ne - ns) >= section_cap)
            return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0,
                                "section name longer than %zu bytes", section_cap - 1);
        memcpy(section, ns, (size_t)(ne - ns));
        section[ne - ns] = '\0';
        return 0;
    }
    const char *sep = s;
    while (sep < e && *sep != '=' && *sep != ':')
        sep++;
    const char *ks = s, *ke = sep, *vs = sep + 1, *ve = e;
    if (sep < e) {
        trim(&ks, &ke);
        cut_comment(vs, &ve);
        trim(&vs, &ve);
    }
    if (sep == e || ks == ke)
        return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0,
                            "malformed INI line (expected [section] or key = value)");
    char key[160];
    if (strlen(section) + (size_t)(ke - ks) + 2 > sizeof key)
        return ls_error_set(c->err, LS_ERR_INPUT, c->file, line, 0, "unknown key (too long)");
    snprintf(key, sizeof key, "%s.%.*s", section, (int)(ke - ks), ks);
    char *value = malloc((size_t)(ve - vs) + 1);
    if (!value)
        return ls_error_msg(c->err, LS_ERR_NOMEM, "%s: out of memory reading the target", c->file);
    memcpy(value, vs, (size_t)(ve - vs));
    value[ve - vs] = '\0';
    int rc = ini_key(c, line, key, value);
    free(value);
    return rc;
}

/* An error found after reading (sim_target_validate) is about the key its message starts
 * with: point at the line that set it, when the file did. */
static void locate_validate_error(const struct ini_ctx *c, struct ls_error *err)
{
    char key[64] = "";
    snprintf(err->file, sizeof err->file, "%s", c->file);
    if (sscanf(err->msg, "%63[a-z_.]", key) == 1) {
        const struct key_def *k = find_key(key);
        if (k && c->key_line[k - keys])
            err->line = c->key_line[k - keys];
    }
}

int sim_target_load_string(struct sim_target *t, const char *file, const char *text,
                           struct ls_error *err)
{
    struct ini_ctx c;
    memset(&c, 0, sizeof c);
    c.t = t;
    c.file = file;
    c.err = err;
    nc_v2(t);
    /* Default name: the file's base name without extension. */
    const char *b = strrchr(file, '/');
    b = b ? b + 1 : file;
    size_t bl = strcspn(b, ".");
    if (bl == 0 || bl >= sizeof t->name)
        bl = strlen(b) < sizeof t->name ? strlen(b) : sizeof t->name - 1;
    memcpy(t->name, b, bl);
    t->name[bl] = '\0';
    if (!strncmp(text, "\xEF\xBB\xBF", 3))
        text += 3;
    char section[64] = "";
    int line = 0;
    for (const char *p = text; *p;) {
        const char *eol = strchr(p, '\n');
        const char *e = eol ? eol : p + strlen(p);
        int rc = ini_line(&c, ++line, p, e, section, sizeof section);
        if (rc)
            return rc;
        p = eol ? eol + 1 : e;
    }
    if (sim_target_validate(t, err)) {
        locate_validate_error(&c, err);
        return LS_ERR_INPUT;
    }
    return 0;
}

int sim_target_load_file(struct sim_target *t, const char *path, struct ls_error *err)
{
    char *buf;
    size_t len;
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    const char *nul = memchr(buf, '\0', len);
    if (nul) {
        int line = 1, col = 1;
        for (const char *q = buf; q < nul; q++)
            line += *q == '\n', col = *q == '\n' ? 1 : col + 1;
        free(buf);
        return ls_error_set(err, LS_ERR_INPUT, path, line, col, "NUL byte in target file");
    }
    rc = sim_target_load_string(t, path, buf, err);
    free(buf);
    return rc;
}

size_t sim_target_key_count(void)
{
    return NKEYS;
}

const char *sim_target_key_name(size_t i)
{
    return i < NKEYS ? keys[i].key : NULL;
}
