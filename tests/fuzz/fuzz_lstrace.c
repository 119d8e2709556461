// libFuzzer target for the binary .lstrace reader (traces/reader.c). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* Two input forms:
 *  - a trace file as is (starts with the magic "LSTRACE\x1a");
 *  - anything else is a list of chunks (u16 LE length, then bytes): the first is the
 *    header body, each further one a block (first byte = record count, then the raw
 *    payload). The target frames them into a file with correct lengths, zlib compression
 *    and CRCs, so the fuzzer reaches the record decoder instead of failing CRC checks.
 * Reading must end in records + a clean end or a LS_ERR_INPUT; a fully read trace must
 * write back with trace_writer and re-read to the same header, names and records. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "fuzz_common.h"
#include "traces/codec.h"
#include "traces/trace.h"

#define MAX_RECORDS 4096

struct rec {
    struct trace_record r;
    const char *op, *conv;   /* names (owned by the reader) */
};

static void put_chunked(FILE *fp, const uint8_t *data, size_t size)
{
    size_t pos = 0, nblocks = 0;
    uint64_t nrec = 0;
    int first = 1;
    while (pos + 2 <= size) {
        size_t len = (size_t)data[pos] | (size_t)data[pos + 1] << 8;
        pos += 2;
        if (len > size - pos)
            len = size - pos;
        const uint8_t *c = data + pos;
        pos += len;
        uint8_t f[TRACE_FRAME_LEN + 8];
        if (first) {
            first = 0;
            fwrite(TRACE_MAGIC, 1, TRACE_MAGIC_LEN, fp);
            trace_put_u32le(f, TRACE_FORMAT_VERSION);
            trace_put_u32le(f + 4, (uint32_t)len);
            uint32_t crc = (uint32_t)crc32(crc32(0, f, 8), c, (uInt)len);
            fwrite(f, 1, 8, fp);
            fwrite(c, 1, len, fp);
            trace_put_u32le(f, crc);
            fwrite(f, 1, 4, fp);
            continue;
        }
        if (len < 2)
            continue;
        uLongf clen = compressBound(len - 1);
        uint8_t *z = malloc(clen);
        if (!z || compress(z, &clen, c + 1, len - 1) != Z_OK)
            abort();
        trace_put_u32le(f, c[0]);
        trace_put_u32le(f + 4, (uint32_t)(len - 1));
        trace_put_u32le(f + 8, (uint32_t)clen);
        trace_put_u32le(f + 12, (uint32_t)crc32(crc32(0, f, 12), z, (uInt)clen));
        fwrite(f, 1, TRACE_FRAME_LEN, fp);
        fwrite(z, 1, clen, fp);
        free(z);
        nblocks++;
        nrec += c[0];
    }
    if (first)
        return;
    uint8_t f[TRACE_FRAME_LEN + 8];
    trace_put_u32le(f, TRACE_END_MARK);
    trace_put_u32le(f + 4, (uint32_t)nblocks);
    trace_put_u32le(f + 8, 8);
    trace_put_u64le(f + 16, nrec);
    trace_put_u32le(f + 12, (uint32_t)crc32(crc32(0, f, 12), f + 16, 8));
    fwrite(f, 1, sizeof f, fp);
}

/* Read every record of path into recs; returns the reader (open) or NULL on a rejected
 * file (after checking the error). */
static struct trace_reader *read_all(const char *path, struct rec *recs, size_t *n,
                                     int *complete)
{
    struct trace_reader *r = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = trace_reader_open(&r, path, &err);
    if (rc) {
        if (r || rc != LS_ERR_INPUT)
            abort();
        return NULL;
    }
    const struct trace_header *h = trace_reader_header(r);
    if (h->producer >= TRACE_PROD_COUNT || h->tick_hz == 0 || h->version < 1 ||
        h->version > TRACE_FORMAT_VERSION || (h->nopcodes && !h->opcodes))
        abort();
    *n = 0;
    *complete = 0;
    struct trace_record rec;
    for (;;) {
        rc = trace_reader_next(r, &rec, &err);
        if (rc == 0) {
            *complete = 1;
            break;
        }
        if (rc < 0) {
            if (rc != -LS_ERR_INPUT || trace_reader_next(r, &rec, NULL) != rc)
                abort();
            break;
        }
        if (rec.engine >= LS_ENGINE_COUNT || rec.stall_cause >= LS_STALL_COUNT ||
            rec.opcode >= h->nopcodes || rec.end < rec.start)
            abort();
        if (*n < MAX_RECORDS) {
            recs[*n].r = rec;
            recs[*n].op = trace_reader_string(r, rec.op_id);
            recs[*n].conv = trace_reader_string(r, rec.conv_id);
            if ((rec.op_id >= 0 && !recs[*n].op) || (rec.conv_id >= 0 && !recs[*n].conv))
                abort();
            (void)trace_reader_opcode(r, rec.opcode);
        }
        (*n)++;
    }
    return r;
}

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Every field but the string ids (compared by name). */
static int same_record(const struct trace_record *a, const struct trace_record *b)
{
    return a->id == b->id && a->start == b->start && a->end == b->end &&
           a->stall == b->stall && a->opcode == b->opcode && a->engine == b->engine &&
           a->stall_cause == b->stall_cause && a->dtype == b->dtype &&
           a->src_mem == b->src_mem && a->dst_mem == b->dst_mem && a->queue == b->queue &&
           a->partitions == b->partitions && a->free_size == b->free_size &&
           a->stationary == b->stationary && a->descriptors == b->descriptors &&
           a->bytes_per_partition == b->bytes_per_partition &&
           a->chunk_bytes == b->chunk_bytes;
}

static struct rec recs1[MAX_RECORDS], recs2[MAX_RECORDS];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_path pathp = fuzz_tmp_path(0, ".lstrace");
    const char *path = pathp.s;
    if (size >= TRACE_MAGIC_LEN && memcmp(data, TRACE_MAGIC, TRACE_MAGIC_LEN) == 0) {
        (void)fuzz_tmp_write(0, ".lstrace", data, size);
    } else {
        FILE *fp = fopen(path, "wb");
        if (!fp)
            abort();
        put_chunked(fp, data, size);
        if (fclose(fp))
            abort();
    }
    size_t n1 = 0, n2 = 0;
    int complete = 0, complete2 = 0;
    struct trace_reader *r = read_all(path, recs1, &n1, &complete);
#ifdef FUZZ_DEBUG
    fprintf(stderr, "opened %d, records %zu, complete %d\n", r != NULL, n1, complete);
#endif
    if (!r)
        return 0;
    if (!complete || n1 > MAX_RECORDS) {
        trace_reader_close(r);
        return 0;
    }
    /* Round trip: write the same header and records, read back, compare. */
    const struct trace_header *h = trace_reader_header(r);
    struct fuzz_path outp = fuzz_tmp_path(1, ".lstrace");
    const char *out = outp.s;
    struct trace_writer *w = NULL;
    struct ls_error err;
    if (trace_writer_open(&w, out, h, &err))
        abort();
    for (size_t i = 0; i < n1; i++) {
        struct trace_record x = recs1[i].r;
        if ((recs1[i].op && trace_writer_intern(w, recs1[i].op, &x.op_id, &err)) ||
            (recs1[i].conv && trace_writer_intern(w, recs1[i].conv, &x.conv_id, &err)))
            abort();
        if (trace_writer_write(w, &x, &err))
            abort();
    }
    if (trace_writer_close(w, &err))
        abort();
    struct trace_reader *r2 = read_all(out, recs2, &n2, &complete2);
    if (!r2 || !complete2 || n2 != n1)
        abort();
    const struct trace_header *h2 = trace_reader_header(r2);
    if (h2->producer != h->producer || !same_str(h2->target, h->target) ||
        h2->target_hash != h->target_hash || h2->tick_hz != h->tick_hz ||
        memcmp(h2->clock_mhz, h->clock_mhz, sizeof h->clock_mhz) != 0 ||
        h2->nopcodes != h->nopcodes)
        abort();
    for (uint32_t i = 0; i < h->nopcodes; i++)
        if (strcmp(h->opcodes[i], h2->opcodes[i]) != 0)
            abort();
    for (size_t i = 0; i < n1; i++) {
        struct trace_record a = recs1[i].r, b = recs2[i].r;
        if (!same_str(recs1[i].op, recs2[i].op) || !same_str(recs1[i].conv, recs2[i].conv))
            abort();
        if (!same_record(&a, &b))
            abort();
    }
    trace_reader_close(r2);
    trace_reader_close(r);
    remove(out);
    return 0;
}
