#include "traces/block.h"

#include <stdlib.h>

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

enum trace_block_status trace_block_inflate(z_stream *zs, const uint8_t f[TRACE_FRAME_LEN],
                                            const uint8_t *comp, uint8_t *raw, uint32_t *crc)
{
    uint32_t raw_len = trace_get_u32le(f + 4), comp_len = trace_get_u32le(f + 8);
    *crc = (uint32_t)crc32(crc32(0, f, 12), comp, comp_len);
    if (*crc != trace_get_u32le(f + 12))
        return TRACE_BLOCK_BAD_CRC;
    /* zlib header (deflate, window <= 32 KiB, no preset dictionary), deflate data, then the
     * 4-byte Adler-32 trailer, which is left unread */
    if (comp_len < 7 || (comp[0] & 15) != Z_DEFLATED || comp[0] >> 4 > 7 || (comp[1] & 0x20) ||
        ((unsigned)comp[0] << 8 | comp[1]) % 31 || inflateReset(zs) != Z_OK)
        return TRACE_BLOCK_BAD_ZLIB;
    zs->next_in = (Bytef *)(uintptr_t)(comp + 2);
    zs->avail_in = comp_len - 2;
    zs->next_out = raw;
    zs->avail_out = raw_len;
    int rc = inflate(zs, Z_FINISH);
    if (rc != Z_STREAM_END || zs->avail_out != 0 || zs->avail_in != 4)
        return TRACE_BLOCK_BAD_ZLIB;
    return TRACE_BLOCK_OK;
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
