/* traces/import: the driver shared by the readers (import_csv.c, import_json.c): format
 * detection, time units and clocks, the opcode mapping, counts per drop reason, and the
 * two passes (names first, because an .lstrace header carries the opcode table). */
#include "traces/import.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "traces/import_int.h"
#include "traces/profmap.h"
#include "util/vec.h"

#define IMP_CHUNK (1u << 20)

static const char *const format_names[TRACE_FMT_COUNT] = {"auto", "laysim-csv", "neuron-csv",
                                                          "chrome-json"};
static const char *const drop_names[TRACE_DROP_COUNT] = {
    "bad_time", "end_before_start", "zero_duration", "unknown_engine",
    "no_opcode", "bad_field", "not_a_slice"};

const char *trace_import_format_name(enum trace_import_format f)
{
    return (unsigned)f < TRACE_FMT_COUNT ? format_names[f] : "?";
}

int trace_import_format_parse(const char *s, enum trace_import_format *f)
{
    for (int i = 0; i < TRACE_FMT_COUNT; i++)
        if (!strcmp(s, format_names[i])) {
            *f = (enum trace_import_format)i;
            return 0;
        }
    return -1;
}

const char *trace_drop_name(enum trace_drop d)
{
    return (unsigned)d < TRACE_DROP_COUNT ? drop_names[d] : "?";
}

int trace_engine_parse(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int e;
    } names[] = {{"pe", LS_ENGINE_PE},          {"tensor", LS_ENGINE_PE},
                 {"tensormatrix", LS_ENGINE_PE}, {"tensore", LS_ENGINE_PE},
                 {"act", LS_ENGINE_ACT},        {"scalar", LS_ENGINE_ACT},
                 {"scalare", LS_ENGINE_ACT},    {"activation", LS_ENGINE_ACT},
                 {"dve", LS_ENGINE_DVE},        {"vector", LS_ENGINE_DVE},
                 {"vectore", LS_ENGINE_DVE},    {"pool", LS_ENGINE_POOL},
                 {"gpsimd", LS_ENGINE_POOL},    {"gpsimde", LS_ENGINE_POOL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && strncasecmp(s, names[i].name, n) == 0)
            return names[i].e;
    if ((n >= 3 && strncasecmp(s, "dma", 3) == 0) || (n >= 1 && (s[0] == 'q' || s[0] == 'Q')))
        return LS_ENGINE_DMA;
    return -1;
}

int imp_in_fill(struct imp_in *in, size_t keep, struct ls_error *err)
{
    if (in->eof)
        return 0;
    size_t from = in->pos - keep; /* drop what nobody points into any more */
    memmove(in->buf, in->buf + from, in->len - from);
    in->base += from;
    in->len -= from;
    in->pos = keep;
    if (in->len == in->cap && LS_ARRAY_RESERVE(in->buf, in->cap, in->cap * 2))
        return -ls_error_msg(err, LS_ERR_NOMEM, "out of memory reading a profile");
    size_t got = fread(in->buf + in->len, 1, in->cap - in->len, in->fp);
    if (got == 0) {
        if (ferror(in->fp))
            return -ls_error_msg(err, LS_ERR_IO, "read error: %s", strerror(errno));
        in->eof = 1;
        return 0;
    }
    in->len += got;
    return 1;
}

static int in_rewind(struct imp *s, struct ls_error *err)
{
    if (fseek(s->in.fp, 0, SEEK_SET))
        return ls_error_msg(err, LS_ERR_IO, "%s: cannot read it twice (%s); import from a file",
                            s->path, strerror(errno));
    s->in.len = s->in.pos = 0;
    s->in.base = 0;
    s->in.eof = 0;
    s->index = 0;
    return LS_OK;
}

void imp_drop(struct imp *s, enum trace_drop why, int line)
{
    s->index++;
    if (s->pass != 2)
        return;
    if (!s->st->dropped[why]++)
        s->st->drop_line[why] = line;
}

/* trace_opmap_lookup through a small direct-mapped cache: profiles repeat a few names. */
static const char *map_opcode(struct imp *s, const char *name, size_t n, int engine)
{
    if (n >= sizeof s->cache[0].name || engine < 0 || engine > LS_ENGINE_COUNT)
        return trace_opmap_lookup(name, n, engine);
    unsigned h = ((unsigned)n * 31u + (unsigned char)name[0] * 7u +
                  (unsigned char)name[n ? n - 1 : 0] + (unsigned)engine * 13u) % 32u;
    struct imp_mapped *m = &s->cache[h];
    if (m->used && m->n == n && m->engine == engine && !memcmp(m->name, name, n))
        return m->to;
    m->to = trace_opmap_lookup(name, n, engine);
    memcpy(m->name, name, n);
    m->n = (uint8_t)n;
    m->engine = (uint8_t)engine;
    m->used = 1;
    return m->to;
}

/* Opcode names of pass 1: the mapped name, or every name the record could map to when its
 * engine is not known yet (a JSON thread name may come after its slices). */
static int intern_names(struct imp *s, const struct imp_raw *raw, struct ls_error *err)
{
    int engines = raw->r.engine < LS_ENGINE_COUNT ? 1 : LS_ENGINE_COUNT;
    for (int i = 0; i < engines; i++) {
        int e = engines == 1 ? raw->r.engine : i;
        const char *to = map_opcode(s, raw->opcode, raw->opcode_n, e);
        if (ls_intern_add(&s->opcodes, to ? to : raw->opcode, to ? strlen(to) : raw->opcode_n) < 0)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    return LS_OK;
}

static int count_unmapped(struct imp *s, const struct imp_raw *raw, struct ls_error *err)
{
    struct trace_import_stats *st = s->st;
    int32_t id = ls_intern_add(&s->unmapped, raw->opcode, raw->opcode_n);
    if (id < 0)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if ((size_t)id == st->nunmapped) {
        size_t cap = st->nunmapped; /* grows by one: few distinct names */
        char **names = realloc(st->unmapped, (cap + 1) * sizeof *names);
        if (names)
            st->unmapped = names;
        uint64_t *cnt = realloc(st->unmapped_count, (cap + 1) * sizeof *cnt);
        if (cnt)
            st->unmapped_count = cnt;
        char *copy = names && cnt ? strndup(raw->opcode, raw->opcode_n) : NULL;
        if (!copy)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        names[cap] = copy;
        cnt[cap] = 0;
        st->nunmapped++;
    }
    st->unmapped_count[id]++;
    return LS_OK;
}

static int intern_string(struct imp *s, const char *t, size_t n, int32_t *id,
                         struct ls_error *err)
{
    char name[TRACE_MAX_NAME + 1];
    if (n > TRACE_MAX_NAME)
        n = TRACE_MAX_NAME;
    memcpy(name, t, n);
    name[n] = '\0';
    if (strlen(name) != n)
        return LS_OK; /* a NUL inside: no name rather than a cut one */
    return trace_writer_intern(s->w, name, id, err);
}

int imp_emit(struct imp *s, struct imp_raw *raw, struct ls_error *err)
{
    if (!raw->opcode_n || raw->opcode_n > TRACE_MAX_NAME ||
        memchr(raw->opcode, 0, raw->opcode_n)) {
        imp_drop(s, TRACE_DROP_NO_OPCODE, raw->line);
        return LS_OK;
    }
    s->index++;
    s->last_line = raw->line;
    if (s->pass == 1)
        return intern_names(s, raw, err);
    const char *to = map_opcode(s, raw->opcode, raw->opcode_n, raw->r.engine);
    int32_t id = to ? ls_intern_find(&s->opcodes, to, strlen(to))
                    : ls_intern_find(&s->opcodes, raw->opcode, raw->opcode_n);
    if (id < 0)
        return ls_error_set(err, LS_ERR_INPUT, s->path, raw->line, 1,
                            "the file changed while it was read");
    raw->r.opcode = (uint32_t)id;
    s->st->kept++;
    int rc = LS_OK;
    if (!to)
        rc = count_unmapped(s, raw, err);
    else {
        s->st->mapped++;
        if (raw->r.engine != LS_ENGINE_DMA && !s->h.clock_mhz[raw->r.engine] && !s->no_clock_line)
            s->no_clock_line = raw->line;
    }
    if (!rc && raw->op_n)
        rc = intern_string(s, raw->op, raw->op_n, &raw->r.op_id, err);
    if (!rc && raw->conv_n)
        rc = intern_string(s, raw->conv, raw->conv_n, &raw->r.conv_id, err);
    if (!rc && (rc = trace_writer_write(s->w, &raw->r, err))) {
        err->line = raw->line;
        snprintf(err->file, sizeof err->file, "%s", s->path);
    }
    return rc;
}

/* Digits with an optional fraction and exponent; mult ticks per unit. */
int imp_parse_time(const struct imp *s, const char *t, size_t n, uint64_t *ticks)
{
    char buf[64];
    if (!n || n >= sizeof buf || !((t[0] >= '0' && t[0] <= '9') || t[0] == '.'))
        return -1;
    uint64_t ip = 0;
    size_t i = 0;
    while (i < n && t[i] >= '0' && t[i] <= '9') {
        if (ip > (UINT64_MAX - 9) / 10)
            return -1;
        ip = ip * 10 + (uint64_t)(t[i++] - '0');
    }
    if (i < n && t[i] == '.') { /* a fraction: fixed point, up to 9 digits counted */
        uint64_t frac = 0, p10 = 1;
        size_t k = i + 1;
        for (; k < n && t[k] >= '0' && t[k] <= '9'; k++)
            if (p10 < 1000000000ULL) {
                frac = frac * 10 + (uint64_t)(t[k] - '0');
                p10 *= 10;
            }
        if (k == n && k > 1) {
            if (s->scale > 0) {
                double x = ((double)ip + (double)frac / (double)p10) * s->scale;
                if (!(x < 1.8e19))
                    return -1;
                *ticks = (uint64_t)llround(x);
                return 0;
            }
            if (ip > (UINT64_MAX - s->mult) / s->mult)
                return -1;
            *ticks = ip * s->mult + (frac * s->mult + p10 / 2) / p10;
            return 0;
        }
    }
    if (i == n && !(s->scale > 0)) {
        if (ip > UINT64_MAX / s->mult)
            return -1;
        *ticks = ip * s->mult;
        return 0;
    }
    memcpy(buf, t, n); /* a fraction or exponent: the library's parser, range-checked */
    buf[n] = '\0';
    char *end;
    double v = strtod(buf, &end);
    double x = v * (s->scale > 0 ? s->scale : (double)s->mult);
    if (*end || !(x >= 0) || x >= 1.8e19)
        return -1;
    *ticks = (uint64_t)llround(x);
    return 0;
}

/* Bytes of a UTF-8 byte-order mark at the read position (0 or 3): spreadsheet and UI
 * exports start with one; every format skips it here, before its reader. */
static size_t bom_len(const struct imp_in *in)
{
    return in->len - in->pos >= 3 && !memcmp(in->buf + in->pos, "\xef\xbb\xbf", 3) ? 3 : 0;
}

static int detect(struct imp *s, struct ls_error *err)
{
    int rc;
    while ((rc = imp_in_fill(&s->in, 0, err)) > 0 && s->in.len < 4096) {}
    if (rc < 0)
        return -rc;
    s->in.pos = bom_len(&s->in);
    size_t i = s->in.pos;
    while (i < s->in.len && strchr(" \t\r\n", s->in.buf[i]))
        i++;
    if (i < s->in.len && (s->in.buf[i] == '{' || s->in.buf[i] == '['))
        s->st->format = TRACE_FMT_CHROME_JSON;
    else
        s->st->format = imp_csv_kind(s, err);
    if (s->st->format == TRACE_FMT_AUTO)
        return err->code ? err->code : LS_ERR_INPUT;
    return in_rewind(s, err);
}

/* Time base of the written trace: ticks per second and ticks per input unit. */
static int set_units(struct imp *s, struct ls_error *err)
{
    const struct trace_import_opts *o = s->o;
    double mhz = 0; /* the clock of cycle timestamps: the first engine's given */
    for (int e = LS_ENGINE_COUNT - 1; e >= 0; e--) {
        double f = o->clock_mhz[e];
        if (f < 0 || f > 1e6)
            return ls_error_msg(err, LS_ERR_INPUT, "--clock-mhz: expected 0 < F <= 1e6, got %g", f);
        if (f > 0) {
            s->h.clock_mhz[e] = (uint32_t)lround(f < 1 ? 1 : f);
            s->have_clock = 1;
            mhz = f;
        }
    }
    s->mult = 1;
    enum trace_time_unit u = o->time_unit;
    if (u == TRACE_UNIT_DEFAULT && !o->tick_hz)
        u = s->st->format == TRACE_FMT_CHROME_JSON ? TRACE_UNIT_US : TRACE_UNIT_NS;
    s->h.tick_hz = 1000000000ULL;
    if (o->tick_hz)
        s->h.tick_hz = o->tick_hz;
    else if (u == TRACE_UNIT_US)
        s->mult = 1000;
    else if (u == TRACE_UNIT_CYCLES) {
        if (!(mhz > 0))
            return ls_error_msg(err, LS_ERR_INPUT, "--time-unit cycles needs --clock-mhz F");
        s->h.tick_hz = (uint64_t)llround(mhz * 1e6);
    }
    return LS_OK;
}

static int run_pass(struct imp *s, int pass, struct ls_error *err)
{
    s->pass = pass;
    int rc = in_rewind(s, err);
    if (rc)
        return rc;
    if ((rc = imp_in_fill(&s->in, 0, err)) < 0)
        return -rc;
    s->in.pos = bom_len(&s->in);
    return s->st->format == TRACE_FMT_CHROME_JSON ? imp_read_json(s, err) : imp_read_csv(s, err);
}

/* After pass 2: refuse a trace a fit cannot use, with the reason. */
static int check_usable(struct imp *s, struct ls_error *err)
{
    const struct trace_import_stats *st = s->st;
    int line = s->last_line > 0 ? s->last_line : 1;
    if (!st->kept)
        return ls_error_set(err, LS_ERR_INPUT, s->path, line, 1,
                            "no record kept out of %llu (see the counts per reason)",
                            (unsigned long long)st->events);
    if (!st->mapped)
        return ls_error_set(err, LS_ERR_INPUT, s->path, line, 1,
                            "none of the %llu records has an opcode laysim knows (the "
                            "unmapped names are listed; docs/formats.md has the table)",
                            (unsigned long long)st->kept);
    if (s->no_clock_line)
        return ls_error_set(err, LS_ERR_INPUT, s->path, s->no_clock_line, 1,
                            "compute records need the engine clock to be fitted in cycles: "
                            "give --clock-mhz F");
    return LS_OK;
}

static int import_passes(struct imp *s, struct ls_error *err)
{
    int rc = s->o->format == TRACE_FMT_AUTO ? detect(s, err) : LS_OK;
    if (!rc && s->o->format != TRACE_FMT_AUTO)
        s->st->format = s->o->format;
    if (!rc)
        rc = set_units(s, err);
    if (!rc)
        rc = run_pass(s, 1, err);
    if (rc)
        return rc;
    if (s->json_tick_hz && !s->o->tick_hz && s->o->time_unit == TRACE_UNIT_DEFAULT) {
        /* laysim's own JSON: keep its tick rate (exact ticks from args.start_tick/end_tick,
         * ts/dur in us otherwise) */
        s->h.tick_hz = s->json_tick_hz;
        s->scale = (double)s->json_tick_hz / 1e6;
    }
    s->h.nopcodes = (uint32_t)s->opcodes.count;
    s->h.opcodes = s->opcodes.strs;
    s->st->tick_hz = s->h.tick_hz;
    if ((rc = trace_writer_open(&s->w, s->out_path, &s->h, err)))
        return rc;
    rc = run_pass(s, 2, err);
    if (!rc)
        rc = check_usable(s, err);
    if (rc) {
        trace_writer_abort(s->w);
        return rc;
    }
    return trace_writer_close(s->w, err);
}

int trace_import(const char *in_path, const char *out_path, const struct trace_import_opts *o,
                 struct trace_import_stats *stats, struct ls_error *err)
{
    static const struct trace_import_opts none;
    struct trace_import_stats local;
    struct trace_import_stats *st = stats ? stats : &local;
    memset(st, 0, sizeof *st);
    struct imp *s = calloc(1, sizeof *s);
    if (!s)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    s->path = in_path;
    s->out_path = out_path;
    s->o = o ? o : &none;
    s->st = st;
    s->h.producer = TRACE_PROD_IMPORT;
    if (s->o->target)
        snprintf(s->target, sizeof s->target, "%s", s->o->target);
    s->h.target = s->target;
    if (s->o->set_target_hash)
        s->h.target_hash = s->o->target_hash;
    ls_intern_init(&s->opcodes);
    ls_intern_init(&s->unmapped);
    int rc;
    s->in.fp = strcmp(in_path, "-") ? fopen(in_path, "rb") : NULL;
    s->in.cap = IMP_CHUNK;
    s->in.buf = malloc(s->in.cap);
    if (!s->in.fp)
        rc = ls_error_msg(err, LS_ERR_INPUT, "%s: %s", in_path,
                          strcmp(in_path, "-") ? strerror(errno)
                                               : "import reads its input twice: give a file");
    else if (!s->in.buf)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    else
        rc = import_passes(s, err);
    if (s->in.fp)
        fclose(s->in.fp);
    free(s->in.buf);
    free(s->json_threads);
    ls_intern_free(&s->opcodes);
    ls_intern_free(&s->unmapped);
    free(s);
    if (!stats)
        trace_import_stats_free(&local);
    return rc;
}

void trace_import_stats_free(struct trace_import_stats *s)
{
    for (size_t i = 0; i < s->nunmapped; i++)
        free(s->unmapped[i]);
    free(s->unmapped);
    free(s->unmapped_count);
    s->unmapped = NULL;
    s->unmapped_count = NULL;
    s->nunmapped = 0;
}

int trace_import_csv(const char *csv_path, const char *out_path,
                     const struct trace_import_opts *o, uint64_t *nrecords,
                     struct ls_error *err)
{
    struct trace_import_stats st;
    int rc = trace_import(csv_path, out_path, o, &st, err);
    if (!rc && nrecords)
        *nrecords = st.kept;
    trace_import_stats_free(&st);
    return rc;
}
