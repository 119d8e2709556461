#include "traces/block.h"

#include <stdlib.h>

#ifdef LAYSIM_HAVE_LIBDEFLATE
#include <libdeflate.h>
#endif

#include "traces/codec.h"
#include "util/vec.h"

int trace_block_pack(z_stream *zs, uint32_t count, const struct trace_block_part *parts,
                     int nparts, uint8_t **out, size_t *cap, size_t *len)
{
    size_t raw = 0;
    for (int i = 0; i < nparts; i++)
        raw += parts[i].n;
    if (raw > TRACE_BLOCK_MAX_RAW)
        return -2;
    size_t bound = deflateBound(zs, raw) + TRACE_FRAME_LEN;
    if (LS_ARRAY_RESERVE(*out, *cap, bound))
        return -1;
    if (deflateReset(zs) != Z_OK)
        return -2;
    zs->next_out = *out + TRACE_FRAME_LEN;
    zs->avail_out = (uInt)(bound - TRACE_FRAME_LEN);
    for (int i = 0; i < nparts; i++) {
        zs->next_in = (Bytef *)(uintptr_t)parts[i].p;
        zs->avail_in = (uInt)parts[i].n;
        int last = i == nparts - 1;
        int zrc = deflate(zs, last ? Z_FINISH : Z_NO_FLUSH);
        if (zrc == Z_STREAM_ERROR || zs->avail_in != 0 || (last && zrc != Z_STREAM_END))
            return -2;
    }
    size_t clen = zs->total_out;
    uint8_t *f = *out;
    trace_put_u32le(f, count);
    trace_put_u32le(f + 4, (uint32_t)raw);
    trace_put_u32le(f + 8, (uint32_t)clen);
    trace_put_u32le(f + 12, (uint32_t)crc32(crc32(0, f, 12), f + TRACE_FRAME_LEN, (uInt)clen));
    *len = TRACE_FRAME_LEN + clen;
    return 0;
}

void trace_block_end(uint8_t out[TRACE_END_LEN], uint32_t nblocks, uint64_t total)
{
    trace_put_u32le(out, TRACE_END_MARK);
    trace_put_u32le(out + 4, nblocks);
    trace_put_u32le(out + 8, 8);
    trace_put_u64le(out + 16, total);
    trace_put_u32le(out + 12, (uint32_t)crc32(crc32(0, out, 12), out + 16, 8));
}

enum trace_block_status trace_block_lengths(const uint8_t f[TRACE_FRAME_LEN], uint32_t *count,
                                            uint32_t *raw_len, uint32_t *comp_len)
{
    *count = trace_get_u32le(f);
    *raw_len = trace_get_u32le(f + 4);
    *comp_len = trace_get_u32le(f + 8);
    if (*raw_len > TRACE_BLOCK_MAX_RAW || *comp_len > compressBound(TRACE_BLOCK_MAX_RAW) ||
        *raw_len == 0 || *comp_len == 0)
        return TRACE_BLOCK_BAD_LENGTHS;
    return TRACE_BLOCK_OK;
}

enum trace_block_status trace_block_unpack(const uint8_t f[TRACE_FRAME_LEN], const uint8_t *comp,
                                           uint8_t *raw, uint32_t *crc)
{
    uint32_t raw_len = trace_get_u32le(f + 4), comp_len = trace_get_u32le(f + 8);
    *crc = (uint32_t)crc32(crc32(0, f, 12), comp, comp_len);
    if (*crc != trace_get_u32le(f + 12))
        return TRACE_BLOCK_BAD_CRC;
    uLongf dlen = raw_len;
    if (uncompress(raw, &dlen, comp, comp_len) != Z_OK || dlen != raw_len)
        return TRACE_BLOCK_BAD_ZLIB;
    return TRACE_BLOCK_OK;
}

struct trace_inflater {
#ifdef LAYSIM_HAVE_LIBDEFLATE
    struct libdeflate_decompressor *d;
#else
    z_stream zs; /* raw inflate, reset per block */
#endif
};

struct trace_inflater *trace_inflater_new(void)
{
    struct trace_inflater *in = calloc(1, sizeof *in);
    if (!in)
        return NULL;
#ifdef LAYSIM_HAVE_LIBDEFLATE
    in->d = libdeflate_alloc_decompressor();
    if (!in->d) {
#else
    if (inflateInit2(&in->zs, -MAX_WBITS) != Z_OK) {
#endif
        free(in);
        return NULL;
    }
    return in;
}

void trace_inflater_free(struct trace_inflater *in)
{
    if (!in)
        return;
#ifdef LAYSIM_HAVE_LIBDEFLATE
    libdeflate_free_decompressor(in->d);
#else
    inflateEnd(&in->zs);
#endif
    free(in);
}

/* Inflate the deflate data at comp[0..n), which must be followed by exactly the 4-byte
 * Adler-32 trailer (left unread), into exactly raw_len bytes. */
static int inflate_exact(struct trace_inflater *in, const uint8_t *comp, size_t n, uint8_t *raw,
                         uint32_t raw_len)
{
#ifdef LAYSIM_HAVE_LIBDEFLATE
    size_t used = 0, got = 0;
    enum libdeflate_result rc =
        libdeflate_deflate_decompress_ex(in->d, comp, n, raw, raw_len, &used, &got);
    return rc == LIBDEFLATE_SUCCESS && got == raw_len && used + 4 == n ? 0 : -1;
#else
    if (inflateReset(&in->zs) != Z_OK)
        return -1;
    in->zs.next_in = (Bytef *)(uintptr_t)comp;
    in->zs.avail_in = (uInt)n;
    in->zs.next_out = raw;
    in->zs.avail_out = raw_len;
    int rc = inflate(&in->zs, Z_FINISH);
    return rc == Z_STREAM_END && in->zs.avail_out == 0 && in->zs.avail_in == 4 ? 0 : -1;
#endif
}

enum trace_block_status trace_block_inflate(struct trace_inflater *in,
                                            const uint8_t f[TRACE_FRAME_LEN],
                                            const uint8_t *comp, uint8_t *raw, uint32_t *crc)
{
    uint32_t raw_len = trace_get_u32le(f + 4), comp_len = trace_get_u32le(f + 8);
    *crc = (uint32_t)crc32(crc32(0, f, 12), comp, comp_len);
    if (*crc != trace_get_u32le(f + 12))
        return TRACE_BLOCK_BAD_CRC;
    /* zlib header (deflate, window <= 32 KiB, no preset dictionary), deflate data, then the
     * 4-byte Adler-32 trailer */
    if (comp_len < 7 || (comp[0] & 15) != Z_DEFLATED || comp[0] >> 4 > 7 || (comp[1] & 0x20) ||
        ((unsigned)comp[0] << 8 | comp[1]) % 31)
        return TRACE_BLOCK_BAD_ZLIB;
    return inflate_exact(in, comp + 2, comp_len - 2, raw, raw_len) ? TRACE_BLOCK_BAD_ZLIB
                                                                    : TRACE_BLOCK_OK;
}

enum trace_block_status trace_block_check_end(const uint8_t f[TRACE_FRAME_LEN],
                                              const uint8_t tail[8], uint32_t *nblocks,
                                              uint64_t *total)
{
    if (trace_get_u32le(f + 8) != 8)
        return TRACE_BLOCK_BAD_LENGTHS;
    if ((uint32_t)crc32(crc32(0, f, 12), tail, 8) != trace_get_u32le(f + 12))
        return TRACE_BLOCK_BAD_CRC;
    *nblocks = trace_get_u32le(f + 4);
    *total = trace_get_u64le(tail);
    return TRACE_BLOCK_OK;
}
