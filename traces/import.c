#include "traces/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "traces/export.h"
#include "util/dtype.h"
#include "util/fileio.h"
#include "util/intern.h"
#include "util/scan.h"
#include "util/vec.h"

enum {
    C_ID, C_ENGINE, C_OPCODE, C_START, C_END, C_STALL, C_CAUSE, C_DTYPE, C_SRC, C_DST,
    C_QUEUE, C_PART, C_FREE, C_STAT, C_DESC, C_BPP, C_CHUNK, C_OP, C_CONV, C_DURATION,
    C_COUNT
};

struct field {
    const char *s;
    size_t n;
    int col;
};

struct csv {
    const char *path, *buf;
    size_t len, pos;
    int line;
    struct field *f;
    size_t nf, capf;
    char *scratch;        /* unquoted text of the current row */
    size_t capscratch;
};

int trace_engine_parse(const char *s, size_t n)
{
    static const struct {
        const char *name;
        int e;
    } names[] = {{"pe", LS_ENGINE_PE},       {"tensor", LS_ENGINE_PE},
                 {"tensormatrix", LS_ENGINE_PE}, {"tensore", LS_ENGINE_PE},
                 {"act", LS_ENGINE_ACT},     {"scalar", LS_ENGINE_ACT},
                 {"scalare", LS_ENGINE_ACT}, {"dve", LS_ENGINE_DVE},
                 {"vector", LS_ENGINE_DVE},  {"vectore", LS_ENGINE_DVE},
                 {"pool", LS_ENGINE_POOL},   {"gpsimd", LS_ENGINE_POOL},
                 {"gpsimde", LS_ENGINE_POOL}};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i].name) == n && strncasecmp(s, names[i].name, n) == 0)
            return names[i].e;
    if ((n >= 3 && strncasecmp(s, "dma", 3) == 0) || (n >= 1 && (s[0] == 'q' || s[0] == 'Q')))
        return LS_ENGINE_DMA;
    return -1;
}

/* Split the next non-empty, non-comment line into fields. 1 = row, 0 = end, < 0 error. */
static int csv_row(struct csv *c, struct ls_error *err)
{
    while (c->pos < c->len) {
        size_t start = c->pos, end = start;
        while (end < c->len && c->buf[end] != '\n')
            end++;
        c->pos = end < c->len ? end + 1 : end;
        c->line++;
        size_t stop = end;
        if (stop > start && c->buf[stop - 1] == '\r')
            stop--;
        if (stop == start || c->buf[start] == '#')
            continue;
        const char *nul = memchr(c->buf + start, 0, stop - start);
        if (nul)
            return -ls_error_set(err, LS_ERR_INPUT, c->path, c->line,
                                 (int)(nul - (c->buf + start)) + 1, "NUL byte in line");
        if (LS_ARRAY_RESERVE(c->scratch, c->capscratch, stop - start + 1))
            return -ls_error_msg(err, LS_ERR_NOMEM, "out of memory reading %s", c->path);
        size_t out = 0, p = start;
        c->nf = 0;
        for (;;) {
            if (LS_ARRAY_RESERVE(c->f, c->capf, c->nf + 1))
                return -ls_error_msg(err, LS_ERR_NOMEM, "out of memory reading %s", c->path);
            struct field *f = &c->f[c->nf++];
            f->col = (int)(p - start) + 1;
            if (p < stop && c->buf[p] == '"') {
                f->s = c->scratch + out;
                p++;
                for (;;) {
                    if (p >= stop)
                        return -ls_error_set(err, LS_ERR_INPUT, c->path, c->line, f->col,
                                             "unterminated quoted field");
                    if (c->buf[p] == '"') {
                        if (p + 1 < stop && c->buf[p + 1] == '"') {
                            c->scratch[out++] = '"';
                            p += 2;
                            continue;
                        }
                        p++;
                        break;
                    }
                    c->scratch[out++] = c->buf[p++];
                }
                f->n = (size_t)(c->scratch + out - f->s);
                if (p < stop && c->buf[p] != ',')
                    return -ls_error_set(err, LS_ERR_INPUT, c->path, c->line,
                                         (int)(p - start) + 1,
                                         "expected ',' after a quoted field");
            } else {
                f->s = c->buf + p;
                while (p < stop && c->buf[p] != ',')
                    p++;
                f->n = (size_t)(c->buf + p - f->s);
            }
            if (p >= stop)
                break;
            p++; /* the comma */
        }
        return 1;
    }
    return 0;
}

static int field_err(const struct csv *c, const struct field *f, struct ls_error *err,
                     const char *what, const char *expect)
{
    char got[64];
    size_t n = f->n < sizeof got - 1 ? f->n : sizeof got - 1;
    memcpy(got, f->s, n);
    got[n] = '\0';
    return ls_error_set(err, LS_ERR_INPUT, c->path, c->line, f->col, "%s: expected %s, got '%s'",
                        what, expect, got);
}

static int get_u64(const struct csv *c, const struct field *f, const char *what, uint64_t max,
                   uint64_t *v, struct ls_error *err)
{
    if (f->n == 0) {
        *v = 0;
        return LS_OK;
    }
    if (ls_parse_u64(f->s, f->n, v) || *v > max)
        return field_err(c, f, err, what,
                         max == UINT64_MAX ? "a non-negative integer" : "a smaller integer");
    return LS_OK;
}

/* Index of a name among names[0..n) (exact, n chars), or -1. */
static int lookup(const char *(*name)(int), int n, const struct field *f)
{
    for (int i = 0; i < n; i++) {
        const char *s = name(i);
        if (strlen(s) == f->n && strncmp(s, f->s, f->n) == 0)
            return i;
    }
    return -1;
}

static const char *stall_name_i(int i) { return ls_stall_name((enum ls_stall)i); }
static const char *mem_name_i(int i) { return ls_mem_name((enum ls_mem)i); }

struct import_state {
    struct csv c;
    int colmap[64];             /* field index -> column kind */
    int has[C_COUNT];
    size_t ncols;
    struct trace_header h;
    uint32_t clock_tmp[LS_ENGINE_COUNT];
    char target[TRACE_MAX_NAME + 1];
    int have_meta_tick;
    struct ls_intern opcodes;
    struct trace_writer *w;
    uint64_t rows;
};

/* "# laysim trace: key=value ..." before the header row (written by trace_export_csv). */
static void read_meta(struct import_state *st)
{
    const char *tag = "# laysim trace:";
    size_t tl = strlen(tag);
    if (st->c.len < tl || strncmp(st->c.buf, tag, tl) != 0)
        return;
    const char *p = st->c.buf + tl, *eol = memchr(p, '\n', st->c.len - tl);
    if (!eol)
        eol = st->c.buf + st->c.len;
    while (p < eol) {
        while (p < eol && *p == ' ')
            p++;
        const char *k = p;
        while (p < eol && *p != '=' && *p != ' ')
            p++;
        if (p >= eol || *p != '=')
            break;
        size_t kl = (size_t)(p - k);
        const char *v = ++p;
        if (kl == 6 && !strncmp(k, "target", 6)) { /* the rest of the line */
            size_t n = (size_t)(eol - v);
            if (n && v[n - 1] == '\r')
                n--;
            if (n > TRACE_MAX_NAME)
                n = TRACE_MAX_NAME;
            memcpy(st->target, v, n);
            st->target[n] = '\0';
            break;
        }
        while (p < eol && *p != ' ')
            p++;
        char val[128];
        size_t vl = (size_t)(p - v) < sizeof val - 1 ? (size_t)(p - v) : sizeof val - 1;
        memcpy(val, v, vl);
        val[vl] = '\0';
        if (kl == 7 && !strncmp(k, "tick_hz", 7)) {
            uint64_t x;
            if (!ls_parse_u64(val, vl, &x) && x) {
                st->h.tick_hz = x;
                st->have_meta_tick = 1;
            }
        } else if (kl == 11 && !strncmp(k, "target_hash", 11)) {
            st->h.target_hash = strtoull(val, NULL, 16);
        } else if (kl == 9 && !strncmp(k, "clock_mhz", 9)) {
            char *s = val;
            for (int e = 0; e < LS_ENGINE_COUNT && *s; e++) {
                st->h.clock_mhz[e] = (uint32_t)strtoul(s, &s, 10);
                if (*s == ',')
                    s++;
            }
        }
    }
}

static int read_columns(struct import_state *st, struct ls_error *err)
{
    int rc = csv_row(&st->c, err);
    if (rc < 0)
        return -rc;
    if (rc == 0)
        return ls_error_set(err, LS_ERR_INPUT, st->c.path, st->c.line ? st->c.line : 1, 1,
                            "no header row (engine,opcode,start,end,...)");
    if (st->c.nf > sizeof st->colmap / sizeof st->colmap[0])
        return ls_error_set(err, LS_ERR_INPUT, st->c.path, st->c.line, st->c.f[64].col,
                            "too many columns (at most %zu)",
                            sizeof st->colmap / sizeof st->colmap[0]);
    for (size_t i = 0; i < st->c.nf; i++) {
        const struct field *f = &st->c.f[i];
        int k = -1;
        for (int j = 0; j < TRACE_CSV_NCOLUMNS; j++)
            if (strlen(trace_csv_columns[j]) == f->n && !strncmp(trace_csv_columns[j], f->s, f->n))
                k = j;
        if (f->n == 8 && !strncmp(f->s, "duration", 8))
            k = C_DURATION;
        if (k < 0)
            return field_err(&st->c, f, err, "header", "a known column (see docs/formats.md)");
        if (st->has[k])
            return field_err(&st->c, f, err, "header", "each column once");
        st->has[k] = 1;
        st->colmap[i] = k;
    }
    st->ncols = st->c.nf;
    const char *missing = !st->has[C_ENGINE] ? "engine"
                          : !st->has[C_OPCODE] ? "opcode"
                          : !st->has[C_START] ? "start"
                          : !st->has[C_END] && !st->has[C_DURATION] ? "end (or duration)"
                                                                   : NULL;
    if (st->has[C_END] && st->has[C_DURATION])
        return ls_error_set(err, LS_ERR_INPUT, st->c.path, st->c.line, 1,
                            "give either an end or a duration column, not both");
    if (missing)
        return ls_error_set(err, LS_ERR_INPUT, st->c.path, st->c.line, 1,
                            "header row: missing the required column '%s'", missing);
    return LS_OK;
}

/* Parse the current row into r. With w == NULL only opcodes are collected. */
static int parse_row(struct import_state *st, struct trace_record *r, struct ls_error *err)
{
    struct csv *c = &st->c;
    if (c->nf != st->ncols)
        return ls_error_set(err, LS_ERR_INPUT, c->path, c->line,
                            c->f[c->nf < st->ncols ? c->nf - 1 : st->ncols].col,
                            "expected %zu fields, got %zu", st->ncols, c->nf);
    memset(r, 0, sizeof *r);
    r->id = st->rows;
    r->queue = TRACE_NO_QUEUE;
    r->op_id = r->conv_id = TRACE_NO_ID;
    uint64_t v, dur = 0;
    int rc = LS_OK;
    for (size_t i = 0; i < c->nf && !rc; i++) {
        const struct field *f = &c->f[i];
        int k = st->colmap[i], e = 0;
        switch (k) {
        case C_ID: rc = get_u64(c, f, "id", UINT64_MAX, &r->id, err); if (!f->n) r->id = st->rows; break;
        case C_ENGINE:
            if ((e = trace_engine_parse(f->s, f->n)) < 0)
                rc = field_err(c, f, err, "engine", "pe, act, dve, pool or dma");
            r->engine = (uint8_t)e;
            break;
        case C_OPCODE: {
            if (f->n == 0 || f->n > TRACE_MAX_NAME)
                return field_err(c, f, err, "opcode", "a name");
            int32_t id = ls_intern_add(&st->opcodes, f->s, f->n);
            if (id < 0)
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            r->opcode = (uint32_t)id;
            break;
        }
        case C_START: rc = f->n ? get_u64(c, f, "start", UINT64_MAX, &r->start, err)
                                : field_err(c, f, err, "start", "a time"); break;
        case C_END: rc = f->n ? get_u64(c, f, "end", UINT64_MAX, &r->end, err)
                              : field_err(c, f, err, "end", "a time"); break;
        case C_DURATION: rc = f->n ? get_u64(c, f, "duration", UINT64_MAX, &dur, err)
                                   : field_err(c, f, err, "duration", "a time"); break;
        case C_STALL: rc = get_u64(c, f, "stall", UINT64_MAX, &r->stall, err); break;
        case C_CAUSE:
            if (f->n && (e = lookup(stall_name_i, LS_STALL_COUNT, f)) < 0)
                rc = field_err(c, f, err, "stall_cause", "a stall cause (none, dependency, ...)");
            r->stall_cause = f->n ? (uint8_t)e : LS_STALL_NONE;
            break;
        case C_DTYPE: {
            enum ls_dtype dt = LS_DT_FP32;
            if (f->n && ls_dtype_parse(f->s, f->n, &dt))
                rc = field_err(c, f, err, "dtype", "fp32, bf16, fp16, fp8, int32 or int8");
            r->dtype = (uint8_t)dt;
            break;
        }
        case C_SRC: case C_DST:
            if (f->n && (e = lookup(mem_name_i, LS_MEM_COUNT, f)) < 0)
                rc = field_err(c, f, err, k == C_SRC ? "src_mem" : "dst_mem", "none, hbm, sbuf or psum");
            else if (k == C_SRC) r->src_mem = f->n ? (uint8_t)e : 0;
            else r->dst_mem = f->n ? (uint8_t)e : 0;
            break;
        case C_QUEUE:
            if (f->n && !(rc = get_u64(c, f, "queue", TRACE_NO_QUEUE - 1, &v, err)))
                r->queue = (uint16_t)v;
            break;
        case C_PART: rc = get_u64(c, f, "partitions", UINT32_MAX, &v, err); r->partitions = (uint32_t)v; break;
        case C_FREE: rc = get_u64(c, f, "free_size", UINT64_MAX, &r->free_size, err); break;
        case C_STAT: rc = get_u64(c, f, "stationary", UINT32_MAX, &v, err); r->stationary = (uint32_t)v; break;
        case C_DESC: rc = get_u64(c, f, "descriptors", UINT32_MAX, &v, err); r->descriptors = (uint32_t)v; break;
        case C_BPP: rc = get_u64(c, f, "bytes_per_partition", UINT64_MAX, &r->bytes_per_partition, err); break;
        case C_CHUNK: rc = get_u64(c, f, "chunk_bytes", UINT64_MAX, &r->chunk_bytes, err); break;
        case C_OP: case C_CONV:
            if (f->n && st->w) {
                char name[TRACE_MAX_NAME + 1];
                if (f->n > TRACE_MAX_NAME)
                    return field_err(c, f, err, "name", "at most 4096 bytes");
                memcpy(name, f->s, f->n);
                name[f->n] = '\0';
                if (strlen(name) != f->n)
                    return field_err(c, f, err, "name", "no NUL bytes");
                rc = trace_writer_intern(st->w, name, k == C_OP ? &r->op_id : &r->conv_id, err);
            }
            break;
        }
    }
    if (rc)
        return rc;
    if (st->has[C_DURATION]) {
        if (dur > UINT64_MAX - r->start)
            return ls_error_set(err, LS_ERR_INPUT, c->path, c->line, 1, "start + duration overflows");
        r->end = r->start + dur;
    }
    if (r->end < r->start) {
        for (size_t i = 0; i < c->nf; i++)
            if (st->colmap[i] == C_END)
                return ls_error_set(err, LS_ERR_INPUT, c->path, c->line, c->f[i].col,
                                    "end (%llu) is before start (%llu)",
                                    (unsigned long long)r->end, (unsigned long long)r->start);
    }
    return LS_OK;
}

static int run_pass(struct import_state *st, struct ls_error *err)
{
    st->c.pos = 0;
    st->c.line = 0;
    st->rows = 0;
    memset(st->has, 0, sizeof st->has);
    int rc = read_columns(st, err);
    if (rc)
        return rc;
    struct trace_record r;
    while ((rc = csv_row(&st->c, err)) == 1) {
        if ((rc = parse_row(st, &r, err)))
            return rc;
        if (st->w && (rc = trace_writer_write(st->w, &r, err))) {
            err->line = st->c.line;
            snprintf(err->file, sizeof err->file, "%s", st->c.path);
            return rc;
        }
        st->rows++;
    }
    return rc < 0 ? -rc : LS_OK;
}

int trace_import_csv(const char *csv_path, const char *out_path,
                     const struct trace_import_opts *o, uint64_t *nrecords,
                     struct ls_error *err)
{
    struct import_state *st = calloc(1, sizeof *st);
    if (!st)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    char *buf = NULL;
    size_t len = 0;
    int rc = ls_read_file(csv_path, &buf, &len, err);
    if (rc) {
        free(st);
        return rc;
    }
    st->c.path = csv_path;
    st->c.buf = buf;
    st->c.len = len;
    ls_intern_init(&st->opcodes);
    st->h.producer = TRACE_PROD_IMPORT;
    st->h.tick_hz = 1000000000ULL;
    read_meta(st);
    if (o && o->tick_hz)
        st->h.tick_hz = o->tick_hz;
    if (o && o->target)
        snprintf(st->target, sizeof st->target, "%s", o->target);
    if (o && o->set_target_hash)
        st->h.target_hash = o->target_hash;
    st->h.target = st->target;
    rc = run_pass(st, err); /* pass 1: validate, collect opcodes */
    if (!rc) {
        st->h.nopcodes = (uint32_t)st->opcodes.count;
        st->h.opcodes = st->opcodes.strs;
        rc = trace_writer_open(&st->w, out_path, &st->h, err);
    }
    if (!rc)
        rc = run_pass(st, err); /* pass 2: write; same ids as pass 1 */
    if (st->w) {
        if (rc)
            trace_writer_abort(st->w);
        else
            rc = trace_writer_close(st->w, err);
    }
    if (!rc && nrecords)
        *nrecords = st->rows;
    ls_intern_free(&st->opcodes);
    free(st->c.f);
    free(st->c.scratch);
    free(buf);
    free(st);
    return rc;
}
