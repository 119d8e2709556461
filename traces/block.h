/* traces/block: the zlib-compressed block every binary file of laysim is made of (.lstrace
 * records, .lsprogz instructions). A block is a 16-byte frame (count, raw length,
 * compressed length, CRC-32 of the frame's first 12 bytes and the compressed bytes; u32
 * little-endian each) followed by the compressed bytes. An end frame (count =
 * TRACE_END_MARK, then the number of blocks, 8, the CRC-32, and a u64 total count) closes
 * the file, so that a truncated file is never mistaken for a whole one. docs/formats.md. */
#ifndef LS_TRACES_BLOCK_H
#define LS_TRACES_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>

#define TRACE_END_MARK 0xffffffffu
#define TRACE_FRAME_LEN 16               /* count, raw_len, comp_len, crc (u32 LE each) */
#define TRACE_END_LEN (TRACE_FRAME_LEN + 8)
#define TRACE_BLOCK_MAX_RAW (16u << 20)  /* readers reject larger blocks */

struct trace_block_part {
    const void *p;
    size_t n;
};

/* Compress parts[0..nparts) (raw total at most TRACE_BLOCK_MAX_RAW) into *out, frame
 * first, growing *out (capacity *cap); *len = frame + compressed bytes. zs is a deflate
 * stream the caller initialised (reset here). Returns 0, or -1 (out of memory) or -2 (zlib
 * failed, raw too large). */
int trace_block_pack(z_stream *zs, uint32_t count, const struct trace_block_part *parts,
                     int nparts, uint8_t **out, size_t *cap, size_t *len);

/* The end frame for nblocks blocks holding total items in all. */
void trace_block_end(uint8_t out[TRACE_END_LEN], uint32_t nblocks, uint64_t total);

enum trace_block_status {
    TRACE_BLOCK_OK,
    TRACE_BLOCK_BAD_LENGTHS, /* raw or compressed length 0 or implausibly large */
    TRACE_BLOCK_BAD_CRC,
    TRACE_BLOCK_BAD_ZLIB,    /* does not inflate to exactly raw_len bytes */
};

/* Count, raw and compressed lengths of a (non-end) frame; BAD_LENGTHS when implausible. */
enum trace_block_status trace_block_lengths(const uint8_t f[TRACE_FRAME_LEN], uint32_t *count,
                                            uint32_t *raw_len, uint32_t *comp_len);
/* Check the CRC of frame f and its comp_len compressed bytes and inflate them into raw
 * (room for raw_len bytes). *crc is the computed CRC-32 (for messages). */
enum trace_block_status trace_block_unpack(const uint8_t f[TRACE_FRAME_LEN], const uint8_t *comp,
                                           uint8_t *raw, uint32_t *crc);
/* A block decompressor kept across blocks: libdeflate's when the build has it (whole-buffer
 * inflating, two to three times zlib's speed: inflating was a tenth of loading a binary
 * program), else a raw zlib inflate stream. NULL out of memory. */
struct trace_inflater;
struct trace_inflater *trace_inflater_new(void);
void trace_inflater_free(struct trace_inflater *in);
/* The same as trace_block_unpack through in: no allocation per block, and no Adler-32 over
 * the inflated bytes, which the CRC-32 over the compressed ones makes redundant (the zlib
 * header is still checked). */
enum trace_block_status trace_block_inflate(struct trace_inflater *in,
                                            const uint8_t f[TRACE_FRAME_LEN],
                                            const uint8_t *comp, uint8_t *raw, uint32_t *crc);
/* Check an end frame f with its 8-byte tail: OK (nblocks, total filled), BAD_LENGTHS (the
 * frame's length field is not 8) or BAD_CRC. */
enum trace_block_status trace_block_check_end(const uint8_t f[TRACE_FRAME_LEN],
                                              const uint8_t tail[8], uint32_t *nblocks,
                                              uint64_t *total);

#endif
