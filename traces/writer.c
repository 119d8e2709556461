#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "traces/block.h"
#include "traces/codec.h"
#include "traces/trace.h"
#include "util/dtype.h"
#include "util/fileio.h"
#include "util/intern.h"
#include "util/vec.h"

struct buf {
    uint8_t *data;
    size_t len, cap;
};

static int buf_reserve(struct buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len)
        return -1;
    return LS_ARRAY_RESERVE(b->data, b->cap, b->len + extra) ? -1 : 0;
}

struct trace_writer {
    struct ls_atomic_file af;
    char path[1024];
    uint32_t nopcodes;
    struct ls_intern strings;
    uint32_t nstrings_flushed;  /* strings already written in earlier blocks */
    struct buf strs;            /* pending string definitions (len + bytes each) */
    struct buf recs;            /* encoded records of the open block */
    struct buf comp;            /* compressed output */
    uint32_t block_nrec;
    struct trace_codec codec;
    uint64_t nrec, nblocks;
    z_stream zs;
    int zs_ready;
    int failed;                 /* a sink emit failed: close drops the output */
    struct ls_error sink_err;
};

const char *trace_producer_name(enum trace_producer p)
{
    static const char *names[TRACE_PROD_COUNT] = {"sim", "rtl", "import"};
    return (unsigned)p < TRACE_PROD_COUNT ? names[p] : "?";
}

static int put_name(struct buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    if (buf_reserve(b, n + 10))
        return -1;
    b->len += trace_put_varint(b->data + b->len, n);
    if (n)
        memcpy(b->data + b->len, s, n);
    b->len += n;
    return 0;
}

static int write_bytes(struct trace_writer *w, const void *p, size_t n, struct ls_error *err)
{
    if (n && fwrite(p, 1, n, w->af.fp) != n)
        return ls_error_set(err, LS_ERR_IO, w->path, 0, 0, "write failed");
    return LS_OK;
}

static int write_header(struct trace_writer *w, const struct trace_header *h,
                        struct ls_error *err)
{
    struct buf b = {0};
    int rc = LS_OK;
    if (buf_reserve(&b, 64 + TRACE_MAGIC_LEN))
        goto nomem;
    memcpy(b.data, TRACE_MAGIC, TRACE_MAGIC_LEN);
    trace_put_u32le(b.data + 8, TRACE_FORMAT_VERSION);
    b.len = 16; /* body length patched below */
    b.len += trace_put_varint(b.data + b.len, h->producer);
    if (put_name(&b, h->target) || buf_reserve(&b, 64))
        goto nomem;
    trace_put_u64le(b.data + b.len, h->target_hash);
    b.len += 8;
    b.len += trace_put_varint(b.data + b.len, h->tick_hz);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        b.len += trace_put_varint(b.data + b.len, h->clock_mhz[e]);
    b.len += trace_put_varint(b.data + b.len, h->nopcodes);
    for (uint32_t i = 0; i < h->nopcodes; i++)
        if (put_name(&b, h->opcodes[i]))
            goto nomem;
    if (h->model_hash || h->problem_hash) {   /* appended: older readers skip it */
        if (buf_reserve(&b, 16))
            goto nomem;
        trace_put_u64le(b.data + b.len, h->model_hash);
        trace_put_u64le(b.data + b.len + 8, h->problem_hash);
        b.len += 16;
    }
    if (b.len - 16 > TRACE_HEADER_MAX) {
        rc = ls_error_set(err, LS_ERR_INPUT, w->path, 0, 0, "trace header too large");
        goto out;
    }
    trace_put_u32le(b.data + 12, (uint32_t)(b.len - 16));
    if (buf_reserve(&b, 4))
        goto nomem;
    trace_put_u32le(b.data + b.len, (uint32_t)crc32(0, b.data + 8, (uInt)(b.len - 8)));
    b.len += 4;
    rc = write_bytes(w, b.data, b.len, err);
    goto out;
nomem:
    rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory writing trace header");
out:
    free(b.data);
    return rc;
}

static int check_header(const char *path, const struct trace_header *h, struct ls_error *err)
{
    if (h->producer >= TRACE_PROD_COUNT)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "trace header: bad producer %u",
                            h->producer);
    if (h->tick_hz == 0)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "trace header: tick rate must be > 0");
    if (h->nopcodes > TRACE_MAX_OPCODES || (h->nopcodes && !h->opcodes))
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "trace header: bad opcode table");
    if (h->target && strlen(h->target) > TRACE_MAX_NAME)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "trace header: target name too long");
    for (uint32_t i = 0; i < h->nopcodes; i++)
        if (!h->opcodes[i] || strlen(h->opcodes[i]) > TRACE_MAX_NAME)
            return ls_error_set(err, LS_ERR_INPUT, path, 0, 0,
                                "trace header: opcode %u has no name or too long a name", i);
    return LS_OK;
}

int trace_writer_open(struct trace_writer **out, const char *path, const struct trace_header *h,
                      struct ls_error *err)
{
    *out = NULL;
    int rc = check_header(path, h, err);
    if (rc)
        return rc;
    struct trace_writer *w = calloc(1, sizeof *w);
    if (!w)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory opening %s", path);
    snprintf(w->path, sizeof w->path, "%s", path);
    w->nopcodes = h->nopcodes;
    ls_intern_init(&w->strings);
    trace_codec_reset(&w->codec);
    if (deflateInit(&w->zs, TRACE_ZLIB_LEVEL) != Z_OK) {
        ls_intern_free(&w->strings);
        free(w);
        return ls_error_msg(err, LS_ERR_NOMEM, "zlib: cannot initialise deflate");
    }
    w->zs_ready = 1;
    rc = ls_atomic_open(&w->af, path, err);
    if (rc) {
        deflateEnd(&w->zs);
        ls_intern_free(&w->strings);
        free(w);
        return rc;
    }
    rc = write_header(w, h, err);
    if (rc) {
        trace_writer_abort(w);
        return rc;
    }
    *out = w;
    return LS_OK;
}

/* Compress and write the open block (string definitions, then records). */
static int flush_block(struct trace_writer *w, struct ls_error *err)
{
    uint32_t nnew = (uint32_t)(w->strings.count - w->nstrings_flushed);
    if (w->block_nrec == 0 && nnew == 0)
        return LS_OK;
    uint8_t prefix[10];
    size_t np = trace_put_varint(prefix, nnew);
    size_t raw = np + w->strs.len + w->recs.len;
    if (raw > TRACE_BLOCK_MAX_RAW)
        return ls_error_set(err, LS_ERR_LIMIT, w->path, 0, 0, "trace block too large");
    struct trace_block_part parts[3] = {
        {prefix, np}, {w->strs.data, w->strs.len}, {w->recs.data, w->recs.len}};
    size_t flen;
    int prc =
        trace_block_pack(&w->zs, w->block_nrec, parts, 3, &w->comp.data, &w->comp.cap, &flen);
    if (prc == -1)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory compressing a trace block");
    if (prc)
        return ls_error_msg(err, LS_ERR_INTERNAL, "zlib: deflate failed");
    int rc = write_bytes(w, w->comp.data, flen, err);
    if (rc)
        return rc;
    w->nblocks++;
    w->nstrings_flushed = (uint32_t)w->strings.count;
    w->strs.len = 0;
    w->recs.len = 0;
    w->block_nrec = 0;
    trace_codec_reset(&w->codec);
    return LS_OK;
}

int trace_writer_intern(struct trace_writer *w, const char *name, int32_t *id,
                        struct ls_error *err)
{
    size_t n = strlen(name);
    if (n > TRACE_MAX_NAME)
        return ls_error_set(err, LS_ERR_INPUT, w->path, 0, 0, "string too long (%zu bytes)", n);
    size_t before = w->strings.count;
    if (before >= INT32_MAX)
        return ls_error_set(err, LS_ERR_LIMIT, w->path, 0, 0, "too many strings");
    int32_t i = ls_intern_add(&w->strings, name, n);
    if (i < 0)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory interning a trace string");
    if (w->strings.count != before) {
        if (buf_reserve(&w->strs, n + 10))
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory interning a trace string");
        w->strs.len += trace_put_varint(w->strs.data + w->strs.len, n);
        memcpy(w->strs.data + w->strs.len, name, n);
        w->strs.len += n;
        if (w->strs.len + w->recs.len >= TRACE_BLOCK_TARGET) {
            int rc = flush_block(w, err);
            if (rc)
                return rc;
        }
    }
    *id = i;
    return LS_OK;
}

static int check_record(const struct trace_writer *w, const struct trace_record *r,
                        struct ls_error *err)
{
    const char *what = NULL;
    if (r->engine >= LS_ENGINE_COUNT)
        what = "engine";
    else if (r->stall_cause >= LS_STALL_COUNT)
        what = "stall cause";
    else if (r->dtype >= LS_DT_COUNT)
        what = "dtype";
    else if (r->src_mem >= LS_MEM_COUNT || r->dst_mem >= LS_MEM_COUNT)
        what = "memory";
    else if (r->opcode >= w->nopcodes)
        what = "opcode";
    else if (r->end < r->start)
        what = "end time (before start)";
    else if (r->op_id < TRACE_NO_ID || r->op_id >= (int64_t)w->strings.count)
        what = "op string id";
    else if (r->conv_id < TRACE_NO_ID || r->conv_id >= (int64_t)w->strings.count)
        what = "conversion string id";
    if (what)
        return ls_error_set(err, LS_ERR_INPUT, w->path, 0, 0,
                            "record %llu (instruction %llu): bad %s",
                            (unsigned long long)w->nrec, (unsigned long long)r->id, what);
    return LS_OK;
}

int trace_writer_write(struct trace_writer *w, const struct trace_record *r, struct ls_error *err)
{
    int rc = check_record(w, r, err);
    if (rc)
        return rc;
    if (buf_reserve(&w->recs, TRACE_REC_MAX))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory writing a trace record");
    w->recs.len += trace_codec_encode(&w->codec, r, w->recs.data + w->recs.len);
    w->block_nrec++;
    w->nrec++;
    if (w->strs.len + w->recs.len >= TRACE_BLOCK_TARGET || w->block_nrec == UINT32_MAX - 1)
        return flush_block(w, err);
    return LS_OK;
}

static int sink_emit(void *ctx, const struct trace_record *r)
{
    struct trace_writer *w = ctx;
    if (w->failed)
        return w->sink_err.code;
    int rc = trace_writer_write(w, r, &w->sink_err);
    if (rc)
        w->failed = 1;
    return rc;
}

struct trace_sink trace_writer_sink(struct trace_writer *w)
{
    struct trace_sink s = {w, sink_emit};
    return s;
}

const struct ls_error *trace_writer_error(const struct trace_writer *w)
{
    return w->failed ? &w->sink_err : NULL;
}

uint64_t trace_writer_count(const struct trace_writer *w)
{
    return w->nrec;
}

static void writer_free(struct trace_writer *w)
{
    if (w->zs_ready)
        deflateEnd(&w->zs);
    ls_intern_free(&w->strings);
    free(w->strs.data);
    free(w->recs.data);
    free(w->comp.data);
    free(w);
}

int trace_writer_close(struct trace_writer *w, struct ls_error *err)
{
    if (w->failed) {
        if (err)
            *err = w->sink_err;
        int code = w->sink_err.code;
        trace_writer_abort(w);
        return code;
    }
    int rc = flush_block(w, err);
    if (!rc) {
        uint8_t f[TRACE_END_LEN];
        trace_block_end(f, (uint32_t)w->nblocks, w->nrec);
        if (w->nblocks > UINT32_MAX)
            rc = ls_error_set(err, LS_ERR_LIMIT, w->path, 0, 0, "too many trace blocks");
        else
            rc = write_bytes(w, f, sizeof f, err);
    }
    if (rc) {
        trace_writer_abort(w);
        return rc;
    }
    rc = ls_atomic_commit(&w->af, err);
    writer_free(w);
    return rc;
}

void trace_writer_abort(struct trace_writer *w)
{
    if (!w)
        return;
    ls_atomic_abort(&w->af);
    writer_free(w);
}
