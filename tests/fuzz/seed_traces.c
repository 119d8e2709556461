/* Writes seed inputs for fuzz_lstrace and fuzz_csv (tests/fuzz/run.sh):
 *   seed_traces lstrace DIR   synthetic traces, and the same records in chunked form
 *   seed_traces csv DIR       measured-trace CSVs, and the CSV export of a synthetic trace */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/codec.h"
#include "traces/trace_export.h"
#include "traces/synth.h"
#include "traces/trace.h"

static void die(const struct ls_error *err)
{
    fprintf(stderr, "seed_traces: %s\n", err->msg);
    exit(1);
}

static void put_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *fp = fopen(path, "w");
    if (!fp || fputs(text, fp) < 0 || fclose(fp)) {
        perror(path);
        exit(1);
    }
}

/* A chunked seed for fuzz_lstrace: a header body and one block of n synthetic records. */
static void put_chunked(const char *path, unsigned n, uint64_t seed)
{
    uint8_t body[4096], *p = body;
    struct trace_header h;
    trace_synth_header(&h);
    p += trace_put_varint(p, h.producer);
    size_t tl = strlen(h.target ? h.target : "");
    p += trace_put_varint(p, tl);
    memcpy(p, h.target ? h.target : "", tl);
    p += tl;
    trace_put_u64le(p, h.target_hash);
    p += 8;
    p += trace_put_varint(p, h.tick_hz);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        p += trace_put_varint(p, h.clock_mhz[e]);
    p += trace_put_varint(p, h.nopcodes);
    for (uint32_t i = 0; i < h.nopcodes; i++) {
        size_t l = strlen(h.opcodes[i]);
        p += trace_put_varint(p, l);
        memcpy(p, h.opcodes[i], l);
        p += l;
    }
    uint8_t block[8192], *q = block;
    *q++ = (uint8_t)n;
    struct trace_synth s;
    trace_synth_init(&s, seed);
    struct trace_record recs[64];
    int32_t maxid = -1;
    for (unsigned i = 0; i < n; i++) {
        trace_synth_next(&s, &recs[i]);
        if (recs[i].op_id > maxid)
            maxid = recs[i].op_id;
        if (recs[i].conv_id > maxid)
            maxid = recs[i].conv_id;
    }
    q += trace_put_varint(q, (uint64_t)(maxid + 1));
    for (int32_t i = 0; i <= maxid; i++) {
        char name[128];
        trace_synth_string(i, name, sizeof name);
        size_t l = strlen(name);
        q += trace_put_varint(q, l);
        memcpy(q, name, l);
        q += l;
    }
    struct trace_codec c;
    trace_codec_reset(&c);
    for (unsigned i = 0; i < n; i++)
        q += trace_codec_encode(&c, &recs[i], q);
    FILE *fp = fopen(path, "wb");
    size_t bl = (size_t)(p - body), kl = (size_t)(q - block);
    uint8_t len[2];
    if (!fp)
        exit(1);
    len[0] = (uint8_t)bl, len[1] = (uint8_t)(bl >> 8);
    fwrite(len, 1, 2, fp);
    fwrite(body, 1, bl, fp);
    len[0] = (uint8_t)kl, len[1] = (uint8_t)(kl >> 8);
    fwrite(len, 1, 2, fp);
    fwrite(block, 1, kl, fp);
    fclose(fp);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    const char *dir = argv[2];
    char path[1024], path2[1024];
    struct ls_error err;
    if (strcmp(argv[1], "lstrace") == 0) {
        static const unsigned counts[] = {0, 1, 5, 40};
        for (unsigned i = 0; i < 4; i++) {
            snprintf(path, sizeof path, "%s/synth%u.lstrace", dir, counts[i]);
            if (trace_synth_write(path, counts[i], i + 1, NULL, &err))
                die(&err);
            snprintf(path, sizeof path, "%s/chunked%u.bin", dir, counts[i]);
            put_chunked(path, counts[i], i + 1);
        }
        return 0;
    }
    if (strcmp(argv[1], "csv") != 0)
        return 2;
    put_text(dir, "minimal.csv", "engine,opcode,start,end\npe,matmul,0,10\ndma,copy,5,9\n");
    put_text(dir, "profiler.csv",
             "# from a profiler\n"
             "id,engine,opcode,start,duration,stall,stall_cause,dtype,src_mem,dst_mem,queue,"
             "partitions,free_size,op,conversion\n"
             "7,TensorMatrix,MatMult,100,50,3,dependency,bf16,sbuf,psum,,128,512,mm0,\n"
             "8,qSyncIO,dma,120,40,0,dma_queue,fp32,hbm,sbuf,3,128,64,,\"t:x,y\"\n"
             "9,Vector,\"tensor \"\"copy\"\"\",130,5,0,none,fp16,psum,sbuf,,64,512,mm0,\n");
    put_text(dir, "meta.csv",
             "# laysim trace: producer=sim tick_hz=5600000000 target_hash=1f clock_mhz=1400,"
             "1400,1400,1400,1400 target=nc-v2\n"
             "engine,opcode,start,end,stationary,descriptors,bytes_per_partition,chunk_bytes\n"
             "pe,load_stationary,0,64,128,0,256,0\n"
             "dma,dma_copy,0,900,0,16,1024,64\n");
    /* The CSV export of a synthetic trace, the form `laysim trace F csv` writes. */
    snprintf(path, sizeof path, "%s/synth.tmp.lstrace", dir);
    snprintf(path2, sizeof path2, "%s/synth.csv", dir);
    struct trace_reader *r = NULL;
    if (trace_synth_write(path, 30, 3, NULL, &err) || trace_reader_open(&r, path, &err) ||
        trace_export_csv(r, path2, &err))
        die(&err);
    trace_reader_close(r);
    remove(path);
    return 0;
}
