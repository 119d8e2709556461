/* traces/import_csv: the two CSV layouts import reads, streamed line by line: laysim's own
 * (strict: any bad field is an error naming file:line:column) and the CSV export of a Neuron
 * Explorer Instruction table (lenient: a row that cannot be used is counted per reason;
 * columns it does not use are skipped). docs/formats.md lists both. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/trace_export.h"
#include "traces/import_int.h"
#include "util/csv.h"
#include "util/dtype.h"
#include "util/scan.h"
#include "util/vec.h"

enum {
    C_ID, C_ENGINE, C_OPCODE, C_START, C_END, C_STALL, C_CAUSE, C_DTYPE, C_SRC, C_DST,
    C_QUEUE, C_PART, C_FREE, C_STAT, C_DESC, C_BPP, C_CHUNK, C_OP, C_CONV, C_DURATION,
    C_TRACK, C_LAYER,
    /* Neuron's per-instruction sizes: bytes read/written per memory, elements, FLOPs */
    C_HBM_RD, C_HBM_WR, C_SBUF_RD, C_SBUF_WR, C_PSUM_RD, C_PSUM_WR, C_ELEMS, C_RAW_FLOPS,
    C_ADJ_FLOPS,
    C_IGNORE, C_COUNT
};

#define MAX_COLS 256

/* Neuron Explorer Instruction-table columns (profile schema reference) and what they are
 * in a record; every other column of that table is skipped. */
static const struct {
    const char *name;
    int kind;
} neuron_cols[] = {{"start_ts", C_START},        {"end_ts", C_END},
                   {"duration_ns", C_DURATION},  {"timeline_track", C_TRACK},
                   {"evt_wait_time_ns", C_STALL}, {"hlo_name", C_OP},
                   {"layer", C_LAYER},           {"label", C_OP},
                   {"hbm_read_bytes", C_HBM_RD}, {"hbm_write_bytes", C_HBM_WR},
                   {"sbuf_read_bytes", C_SBUF_RD}, {"sbuf_write_bytes", C_SBUF_WR},
                   {"psum_read_bytes", C_PSUM_RD}, {"psum_write_bytes", C_PSUM_WR},
                   {"tensor_elements", C_ELEMS}, {"raw_flops", C_RAW_FLOPS},
                   {"adjusted_flops", C_ADJ_FLOPS}};

/* Partitions a Neuron row's elements are spread over: the table has no partition column,
 * and the compiler tiles the 128 SBUF partitions full (docs/formats.md). */
#define NEURON_PARTITIONS 128

struct csv {
    struct imp *s;
    int line, lenient;
    struct ls_csv_row row;   /* the current row's fields (util/csv) */
    struct {                 /* engine names parsed so far (rows repeat a few) */
        char name[24];
        size_t n;
        int e;
    } engines[8];
    unsigned nengines;
    int colmap[MAX_COLS];
    int has[C_COUNT];
    size_t ncols;
};

/* The next line of the input without its end of line; 1 = a line, 0 = end, < 0 error. */
static int next_line(struct csv *c, const char **p, size_t *n, struct ls_error *err)
{
    struct imp_in *in = &c->s->in;
    size_t off = 0; /* bytes after pos already searched */
    for (;;) {
        char *nl = memchr(in->buf + in->pos + off, '\n', in->len - in->pos - off);
        if (nl || (in->eof && in->pos < in->len)) {
            size_t end = nl ? (size_t)(nl - in->buf) : in->len;
            *p = in->buf + in->pos;
            *n = end - in->pos;
            in->pos = nl ? end + 1 : end;
            c->line++;
            if (*n && (*p)[*n - 1] == '\r')
                (*n)--;
            return 1;
        }
        off = in->len - in->pos;
        int rc = imp_in_fill(in, 0, err);
        if (rc < 0)
            return rc;
        if (rc == 0 && in->pos >= in->len)
            return 0;
    }
}

/* Split the next non-empty, non-comment line into fields. 1 = row, 0 = end, < 0 error. */
static int csv_row(struct csv *c, struct ls_error *err)
{
    const char *b;
    size_t stop;
    int rc;
    while ((rc = next_line(c, &b, &stop, err)) == 1) {
        if (stop == 0 || b[0] == '#')
            continue;
        const char *nul = memchr(b, 0, stop);
        if (nul)
            return -ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, (int)(nul - b) + 1,
                                 "NUL byte in line");
        int col;
        const char *what;
        if ((rc = ls_csv_split(&c->row, b, stop, &col, &what)) == LS_ERR_NOMEM)
            return -ls_error_msg(err, LS_ERR_NOMEM, "out of memory reading %s", c->s->path);
        if (rc)
            return -ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, col, "%s", what);
        return 1;
    }
    return rc;
}

static int field_err(const struct csv *c, const struct ls_csv_field *f, struct ls_error *err,
                     const char *what, const char *expect)
{
    char got[64];
    size_t n = f->n < sizeof got - 1 ? f->n : sizeof got - 1;
    memcpy(got, f->s, n);
    got[n] = '\0';
    return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, f->col,
                        "%s: expected %s, got '%s'", what, expect, got);
}

/* "# laysim trace: key=value ..." on the first line (written by trace_export_csv). */
static void read_meta(struct imp *s, const char *b, size_t len)
{
    const char *tag = "# laysim trace:";
    size_t tl = strlen(tag);
    if (len < tl || strncmp(b, tag, tl) != 0)
        return;
    const char *p = b + tl, *eol = b + len;
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
            if (n > TRACE_MAX_NAME)
                n = TRACE_MAX_NAME;
            if (!s->o->target) {
                memcpy(s->target, v, n);
                s->target[n] = '\0';
            }
            break;
        }
        while (p < eol && *p != ' ')
            p++;
        char val[128];
        size_t vl = (size_t)(p - v) < sizeof val - 1 ? (size_t)(p - v) : sizeof val - 1;
        memcpy(val, v, vl);
        val[vl] = '\0';
        uint64_t x;
        if (kl == 7 && !strncmp(k, "tick_hz", 7)) {
            if (!ls_parse_u64(val, vl, &x) && x && !s->o->tick_hz &&
                s->o->time_unit == TRACE_UNIT_DEFAULT)
                s->h.tick_hz = x;
        } else if (kl == 11 && !strncmp(k, "target_hash", 11) && !s->o->set_target_hash) {
            s->h.target_hash = strtoull(val, NULL, 16);
        } else if (kl == 9 && !strncmp(k, "clock_mhz", 9) && !s->have_clock) {
            char *q = val;
            for (int e = 0; e < LS_ENGINE_COUNT && *q; e++) {
                s->h.clock_mhz[e] = (uint32_t)strtoul(q, &q, 10);
                if (*q == ',')
                    q++;
            }
        }
    }
}

static int column_kind(const struct csv *c, const struct ls_csv_field *f)
{
    for (int j = 0; j < TRACE_CSV_NCOLUMNS; j++)
        if (strlen(trace_csv_columns[j]) == f->n && !strncmp(trace_csv_columns[j], f->s, f->n))
            return j;
    if (f->n == 8 && !strncmp(f->s, "duration", 8))
        return C_DURATION;
    if (!c->lenient)
        return -1;
    for (size_t j = 0; j < sizeof neuron_cols / sizeof neuron_cols[0]; j++)
        if (strlen(neuron_cols[j].name) == f->n && !strncmp(neuron_cols[j].name, f->s, f->n))
            return neuron_cols[j].kind;
    return C_IGNORE;
}

static int is_neuron_header(const struct csv *c)
{
    for (size_t i = 0; i < c->row.nf; i++)
        for (size_t j = 0; j < 4; j++) /* start_ts, end_ts, duration_ns, timeline_track */
            if (strlen(neuron_cols[j].name) == c->row.f[i].n &&
                !strncmp(neuron_cols[j].name, c->row.f[i].s, c->row.f[i].n))
                return 1;
    return 0;
}

static int header_row(struct csv *c, struct ls_error *err)
{
    const char *b;
    size_t n;
    struct imp_in *in = &c->s->in;
    size_t keep = in->pos;
    int rc = next_line(c, &b, &n, err); /* peek at the first line for the meta data */
    if (rc < 0)
        return -rc;
    if (rc == 1)
        read_meta(c->s, b, n);
    in->pos = keep; /* no refill happened that dropped it: the first line is < 1 MiB */
    c->line = 0;
    if (in->base != 0)
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, 1, 1, "first line longer than 1 MiB");
    if ((rc = csv_row(c, err)) < 0)
        return -rc;
    if (rc == 0)
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line ? c->line : 1, 1,
                            "no header row (engine,opcode,start,end,...)");
    if (c->row.nf > MAX_COLS)
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, c->row.f[MAX_COLS].col,
                            "too many columns (at most %d)", MAX_COLS);
    return LS_OK;
}

static int read_columns(struct csv *c, struct ls_error *err)
{
    int rc = header_row(c, err);
    if (rc)
        return rc;
    c->lenient = c->s->st->format == TRACE_FMT_NEURON_CSV;
    memset(c->has, 0, sizeof c->has);
    for (size_t i = 0; i < c->row.nf; i++) {
        const struct ls_csv_field *f = &c->row.f[i];
        int k = column_kind(c, f);
        if (k < 0)
            return field_err(c, f, err, "header", "a known column (see docs/formats.md)");
        if (k != C_IGNORE && c->has[k])
            return field_err(c, f, err, "header", "each column once");
        c->has[k] = 1;
        c->colmap[i] = k;
    }
    c->ncols = c->row.nf;
    const char *missing = !c->has[C_ENGINE] && !c->has[C_TRACK] ? "engine"
                          : !c->has[C_OPCODE]                   ? "opcode"
                          : !c->has[C_START]                    ? "start"
                          : !c->has[C_END] && !c->has[C_DURATION] ? "end (or duration)"
                                                                  : NULL;
    if (!c->lenient && c->has[C_END] && c->has[C_DURATION])
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, 1,
                            "give either an end or a duration column, not both");
    if (missing)
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, 1,
                            "header row: missing the required column '%s'", missing);
    return LS_OK;
}

enum trace_import_format imp_csv_kind(struct imp *s, struct ls_error *err)
{
    struct csv c;
    memset(&c, 0, sizeof c);
    c.s = s;
    int rc = header_row(&c, err);
    enum trace_import_format f = rc ? TRACE_FMT_AUTO
                                    : is_neuron_header(&c) ? TRACE_FMT_NEURON_CSV
                                                           : TRACE_FMT_LAYSIM_CSV;
    ls_csv_row_free(&c.row);
    return f;
}

static int get_u64(const struct csv *c, const struct ls_csv_field *f, const char *what, uint64_t max,
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

/* A time field in ticks: integers in laysim's CSV at the file's own tick rate (as before),
 * decimals otherwise. */
static int get_time(const struct csv *c, const struct ls_csv_field *f, const char *what, uint64_t *v,
                    struct ls_error *err)
{
    if (!f->n)
        return field_err(c, f, err, what, "a time");
    if (!c->lenient && c->s->mult == 1)
        return get_u64(c, f, what, UINT64_MAX, v, err);
    if (imp_parse_time(c->s, f->s, f->n, v))
        return field_err(c, f, err, what, "a non-negative number");
    return LS_OK;
}

static int engine_of(struct csv *c, const struct ls_csv_field *f)
{
    unsigned have = c->nengines < 8 ? c->nengines : 8;
    for (unsigned i = 0; i < have; i++)
        if (c->engines[i].n == f->n && !memcmp(c->engines[i].name, f->s, f->n))
            return c->engines[i].e;
    int e = trace_engine_parse(f->s, f->n);
    if (f->n < sizeof c->engines[0].name) { /* round robin */
        unsigned i = c->nengines++ % 8;
        memcpy(c->engines[i].name, f->s, f->n);
        c->engines[i].n = f->n;
        c->engines[i].e = e;
    }
    return e;
}

/* Index of a name among names[0..n) (exact, n chars), or -1. */
static int lookup(const char *(*name)(int), int n, const struct ls_csv_field *f)
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

struct row_times {
    uint64_t dur;
    int have_end, have_dur;
    const struct ls_csv_field *end_field, *track;
    /* Neuron sizes (C_HBM_RD .. C_ADJ_FLOPS, in that order) */
    uint64_t size[C_ADJ_FLOPS - C_HBM_RD + 1];
};

static const char *neuron_size_name(int k)
{
    for (size_t j = 0; j < sizeof neuron_cols / sizeof neuron_cols[0]; j++)
        if (neuron_cols[j].kind == k)
            return neuron_cols[j].name;
    return "size";
}

/* The memory of the largest of three byte counts (hbm, sbuf, psum), LS_MEM_NONE when all 0. */
static enum ls_mem busiest_mem(uint64_t hbm, uint64_t sbuf, uint64_t psum)
{
    if (!hbm && !sbuf && !psum)
        return LS_MEM_NONE;
    return psum > sbuf && psum > hbm ? LS_MEM_PSUM : sbuf >= hbm ? LS_MEM_SBUF : LS_MEM_HBM;
}

/* dtype from a size: 4 bytes per element fp32, 2 bf16, 1 fp8; -1 for anything else */
static int dtype_of_width(double bytes_per_elem)
{
    return bytes_per_elem >= 3 ? LS_DT_FP32 : bytes_per_elem >= 1.5 ? LS_DT_BF16
           : bytes_per_elem >= 0.75 ? LS_DT_FP8 : -1;
}

/* A compute row's dtype: on PE from adjusted_flops / raw_flops (the schema's BF16-equivalent
 * factor: fp32 4, bf16 1, fp8 0.5); elsewhere from the bytes per element written (read,
 * when the row writes less than a byte per element: a reduction). -1: unknown. */
static int neuron_dtype(const struct trace_record *r, const uint64_t *z)
{
    if (r->engine == LS_ENGINE_PE) {
        uint64_t raw = z[C_RAW_FLOPS - C_HBM_RD], adj = z[C_ADJ_FLOPS - C_HBM_RD];
        if (!raw || !adj)
            return -1;
        double f = (double)adj / (double)raw;
        return f >= 2 ? LS_DT_FP32 : f <= 0.75 ? LS_DT_FP8 : LS_DT_BF16;
    }
    uint64_t elems = z[C_ELEMS - C_HBM_RD];
    uint64_t wr = z[C_SBUF_WR - C_HBM_RD] + z[C_PSUM_WR - C_HBM_RD] + z[C_HBM_WR - C_HBM_RD];
    uint64_t rd = z[C_SBUF_RD - C_HBM_RD] + z[C_PSUM_RD - C_HBM_RD] + z[C_HBM_RD - C_HBM_RD];
    if (!elems)
        return -1;
    return dtype_of_width((double)(wr >= elems ? wr : rd) / (double)elems);
}

/* Fill what a Neuron row's size columns say and laysim's own columns did not: memories
 * from the bytes read and written, a DMA's bytes (one contiguous chunk per partition row),
 * a compute row's free size (tensor_elements over the partitions) and dtype. */
static void neuron_shape(const struct csv *c, struct trace_record *r, const struct row_times *t)
{
    const uint64_t *z = t->size;
#define Z(k) z[(k) - C_HBM_RD]
    if (!c->has[C_SRC])
        r->src_mem = (uint8_t)busiest_mem(Z(C_HBM_RD), Z(C_SBUF_RD), Z(C_PSUM_RD));
    if (!c->has[C_DST])
        r->dst_mem = (uint8_t)busiest_mem(Z(C_HBM_WR), Z(C_SBUF_WR), Z(C_PSUM_WR));
    if (r->engine == LS_ENGINE_DMA) {
        uint64_t rd = Z(C_HBM_RD) + Z(C_SBUF_RD) + Z(C_PSUM_RD);
        uint64_t wr = Z(C_HBM_WR) + Z(C_SBUF_WR) + Z(C_PSUM_WR);
        uint64_t bytes = rd > wr ? rd : wr;
        if (!bytes || c->has[C_BPP])
            return;
        if (!c->has[C_PART] || !r->partitions)
            r->partitions = 1;
        r->bytes_per_partition = bytes / r->partitions;
        if (!c->has[C_DESC])
            r->descriptors = r->partitions;
        if (!c->has[C_CHUNK])
            r->chunk_bytes = r->bytes_per_partition;
        return;
    }
    if (Z(C_ELEMS) && !c->has[C_FREE]) {
        if (!c->has[C_PART] || !r->partitions)
            r->partitions = NEURON_PARTITIONS;
        r->free_size = (Z(C_ELEMS) + r->partitions - 1) / r->partitions;
    }
#undef Z
    int dt = c->has[C_DTYPE] ? -1 : neuron_dtype(r, z);
    if (dt >= 0)
        r->dtype = (uint8_t)dt;
}

/* One field into raw. Returns LS_OK, an error, or sets *drop (lenient) for a bad value. */
static int parse_field(struct csv *c, int k, const struct ls_csv_field *f, struct imp_raw *raw,
                       struct row_times *t, int *drop, struct ls_error *err)
{
    struct trace_record *r = &raw->r;
    uint64_t v;
    int e = 0, rc = LS_OK;
    switch (k) {
    case C_ID: rc = get_u64(c, f, "id", UINT64_MAX, &r->id, err); if (!f->n) r->id = c->s->index; break;
    case C_ENGINE:
        if ((e = engine_of(c, f)) < 0) {
            if (c->lenient) { e = LS_ENGINE_COUNT; break; } /* maybe the track names it */
            return field_err(c, f, err, "engine", "pe, act, dve, pool or dma");
        }
        r->engine = (uint8_t)e;
        break;
    case C_TRACK: t->track = f; break;
    case C_OPCODE:
        if (f->n == 0 || f->n > TRACE_MAX_NAME) {
            if (c->lenient) { *drop = 1 + TRACE_DROP_NO_OPCODE; return LS_OK; }
            return field_err(c, f, err, "opcode", "a name");
        }
        raw->opcode = f->s;
        raw->opcode_n = f->n;
        break;
    case C_START: if ((rc = get_time(c, f, "start", &r->start, err))) *drop = 1 + TRACE_DROP_BAD_TIME; break;
    case C_END:
        if (c->lenient && !f->n) break; /* then the duration */
        t->have_end = 1;
        t->end_field = f;
        if ((rc = get_time(c, f, "end", &r->end, err))) *drop = 1 + TRACE_DROP_BAD_TIME;
        break;
    case C_DURATION:
        if (c->lenient && !f->n) break;
        t->have_dur = 1;
        if ((rc = get_time(c, f, "duration", &t->dur, err))) *drop = 1 + TRACE_DROP_BAD_TIME;
        break;
    case C_STALL:
        if (c->lenient) { if (f->n && imp_parse_time(c->s, f->s, f->n, &r->stall)) r->stall = 0; break; }
        rc = get_u64(c, f, "stall", UINT64_MAX, &r->stall, err); break;
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
    case C_OP: if (f->n) { raw->op = f->s; raw->op_n = f->n; } break;
    case C_LAYER: if (f->n && !raw->op_n) { raw->op = f->s; raw->op_n = f->n; } break;
    case C_CONV: if (f->n) { raw->conv = f->s; raw->conv_n = f->n; } break;
    case C_HBM_RD: case C_HBM_WR: case C_SBUF_RD: case C_SBUF_WR: case C_PSUM_RD:
    case C_PSUM_WR: case C_ELEMS: case C_RAW_FLOPS: case C_ADJ_FLOPS:
        rc = get_u64(c, f, neuron_size_name(k), UINT64_MAX, &t->size[k - C_HBM_RD], err);
        break;
    default: break;
    }
    if (rc && c->lenient) {
        if (!*drop)
            *drop = 1 + TRACE_DROP_BAD_FIELD;
        return LS_OK;
    }
    return rc;
}

/* end from end or start + duration; lenient rows may fall back to the track's engine. */
static int finish_row(struct csv *c, struct imp_raw *raw, struct row_times *t, int *drop,
                      struct ls_error *err)
{
    struct trace_record *r = &raw->r;
    if (c->lenient && r->engine >= LS_ENGINE_COUNT) {
        int e = t->track ? trace_engine_parse(t->track->s, t->track->n) : -1;
        if (e < 0) { *drop = 1 + TRACE_DROP_UNKNOWN_ENGINE; return LS_OK; }
        r->engine = (uint8_t)e;
    }
    if (!t->have_end && !t->have_dur) {
        if (c->lenient) { *drop = 1 + TRACE_DROP_BAD_TIME; return LS_OK; }
    } else if (!t->have_end) {
        if (t->dur > UINT64_MAX - r->start) {
            if (c->lenient) { *drop = 1 + TRACE_DROP_BAD_TIME; return LS_OK; }
            return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, 1, "start + duration overflows");
        }
        r->end = r->start + t->dur;
    }
    if (r->end < r->start) {
        if (c->lenient) { *drop = 1 + TRACE_DROP_END_BEFORE_START; return LS_OK; }
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line, t->end_field->col,
                            "end (%llu) is before start (%llu)",
                            (unsigned long long)r->end, (unsigned long long)r->start);
    }
    if (c->lenient && r->end == r->start)
        *drop = 1 + TRACE_DROP_ZERO_DURATION;
    if (c->lenient && !*drop)
        neuron_shape(c, r, t);
    return LS_OK;
}

static int parse_row(struct csv *c, struct imp_raw *raw, int *drop, struct ls_error *err)
{
    if (c->row.nf != c->ncols)
        return ls_error_set(err, LS_ERR_INPUT, c->s->path, c->line,
                            c->row.f[c->row.nf < c->ncols ? c->row.nf - 1 : c->ncols].col,
                            "expected %zu fields, got %zu", c->ncols, c->row.nf);
    memset(raw, 0, sizeof *raw);
    raw->line = c->line;
    raw->r.id = c->s->index;
    raw->r.queue = TRACE_NO_QUEUE;
    raw->r.op_id = raw->r.conv_id = TRACE_NO_ID;
    raw->r.engine = LS_ENGINE_COUNT;
    struct row_times t;
    memset(&t, 0, sizeof t);
    *drop = 0;
    for (size_t i = 0; i < c->row.nf && !*drop; i++) {
        int rc = parse_field(c, c->colmap[i], &c->row.f[i], raw, &t, drop, err);
        if (rc)
            return rc;
    }
    if (*drop)
        return LS_OK;
    if (!raw->opcode_n) {
        if (c->lenient) { *drop = 1 + TRACE_DROP_NO_OPCODE; return LS_OK; }
    }
    return finish_row(c, raw, &t, drop, err);
}

/* Pass 1 needs only the opcode names (mapped with the row's engine): the rest of the row
 * is checked in pass 2, which also reports any error. */
static int name_row(struct csv *c, struct imp_raw *raw, struct ls_error *err)
{
    memset(raw, 0, sizeof *raw);
    raw->line = c->line;
    raw->r.engine = LS_ENGINE_COUNT;
    const struct ls_csv_field *track = NULL;
    for (size_t i = 0; i < c->row.nf && i < c->ncols; i++) {
        const struct ls_csv_field *f = &c->row.f[i];
        int k = c->colmap[i], e;
        if (k == C_OPCODE) {
            raw->opcode = f->s;
            raw->opcode_n = f->n;
        } else if (k == C_ENGINE && (e = engine_of(c, f)) >= 0)
            raw->r.engine = (uint8_t)e;
        else if (k == C_TRACK)
            track = f;
    }
    int e;
    if (raw->r.engine == LS_ENGINE_COUNT && track && (e = trace_engine_parse(track->s, track->n)) >= 0)
        raw->r.engine = (uint8_t)e;
    return raw->opcode_n ? imp_emit(c->s, raw, err) : LS_OK;
}

int imp_read_csv(struct imp *s, struct ls_error *err)
{
    struct csv c;
    memset(&c, 0, sizeof c);
    c.s = s;
    int rc = read_columns(&c, err);
    struct imp_raw raw;
    while (!rc && (rc = csv_row(&c, err)) == 1) {
        int drop = 0;
        s->last_line = c.line;
        if (s->pass == 1) {
            rc = name_row(&c, &raw, err);
            continue;
        }
        s->st->events++;
        if ((rc = parse_row(&c, &raw, &drop, err)))
            break;
        if (drop)
            imp_drop(s, (enum trace_drop)(drop - 1), c.line);
        else
            rc = imp_emit(s, &raw, err);
    }
    ls_csv_row_free(&c.row);
    return rc < 0 ? -rc : rc;
}
