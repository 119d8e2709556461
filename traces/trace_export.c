#include "traces/trace_export.h"

#include <stdlib.h>
#include <string.h>

#include "util/dtype.h"
#include "util/csv.h"
#include "util/fileio.h"

const char *const trace_csv_columns[TRACE_CSV_NCOLUMNS] = {
    "id", "engine", "opcode", "start", "end", "stall", "stall_cause", "dtype", "src_mem",
    "dst_mem", "queue", "partitions", "free_size", "stationary", "descriptors",
    "bytes_per_partition", "chunk_bytes", "op", "conversion"};

/* JSON string with escapes; bytes >= 0x80 become \u00XX so the output is always valid. */
static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(fp, "\\%c", *p);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(fp, "\\u%04x", *p);
        else
            fputc(*p, fp);
    }
    fputc('"', fp);
}

#define PF_LANES 8
#define PF_QTRACKS 256
/* Tracks: 0..3 compute engines, 4 = DMA without queue, 5.. = DMA queues (last: >= 256). */
#define PF_TRACKS (5 + PF_QTRACKS + 1)

struct pf_state {
    uint64_t lane_end[PF_TRACKS][PF_LANES];
    uint8_t lane_named[PF_TRACKS][PF_LANES];
};

static unsigned pf_track(const struct trace_record *r)
{
    if (r->engine != LS_ENGINE_DMA)
        return r->engine;
    if (r->queue == TRACE_NO_QUEUE)
        return 4;
    return 5 + (r->queue < PF_QTRACKS ? r->queue : PF_QTRACKS);
}

static void pf_track_name(unsigned track, unsigned lane, char *buf, size_t n)
{
    char base[32];
    if (track < 4)
        snprintf(base, sizeof base, "%s", ls_engine_name(track));
    else if (track == 4)
        snprintf(base, sizeof base, "dma");
    else if (track - 5 < PF_QTRACKS)
        snprintf(base, sizeof base, "dma q%u", track - 5);
    else
        snprintf(base, sizeof base, "dma q>=%d", PF_QTRACKS);
    if (lane)
        snprintf(buf, n, "%s (lane %u)", base, lane + 1);
    else
        snprintf(buf, n, "%s", base);
}

static void pf_event(FILE *fp, const struct trace_reader *rd, const struct trace_record *r,
                     unsigned tid)
{
    const struct trace_header *h = trace_reader_header(rd);
    double us = 1e6 / (double)h->tick_hz;
    fprintf(fp, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%u,\"ts\":%.6f,\"dur\":%.6f,\"name\":", tid,
            (double)r->start * us, (double)(r->end - r->start) * us);
    json_str(fp, trace_reader_opcode(rd, r->opcode));
    fprintf(fp, ",\"cat\":\"%s\",\"args\":{\"id\":%llu", ls_engine_name(r->engine),
            (unsigned long long)r->id);
    const char *op = trace_reader_string(rd, r->op_id);
    const char *conv = trace_reader_string(rd, r->conv_id);
    if (op) {
        fputs(",\"op\":", fp);
        json_str(fp, op);
    }
    if (conv) {
        fputs(",\"conversion\":", fp);
        json_str(fp, conv);
    }
    fprintf(fp, ",\"partitions\":%u,\"free_size\":%llu,\"dtype\":\"%s\",\"src\":\"%s\",\"dst\":\"%s\"",
            r->partitions, (unsigned long long)r->free_size, ls_dtype_name(r->dtype),
            ls_mem_name(r->src_mem), ls_mem_name(r->dst_mem));
    if (r->engine == LS_ENGINE_DMA)
        fprintf(fp, ",\"bytes_per_partition\":%llu,\"chunk_bytes\":%llu,\"descriptors\":%u",
                (unsigned long long)r->bytes_per_partition, (unsigned long long)r->chunk_bytes,
                r->descriptors);
    if (r->engine == LS_ENGINE_PE)
        fprintf(fp, ",\"stationary\":%u", r->stationary);
    if (r->stall_cause != LS_STALL_NONE || r->stall)
        fprintf(fp, ",\"stall_ns\":%.3f,\"stall_cause\":\"%s\"",
                (double)r->stall * 1e9 / (double)h->tick_hz, ls_stall_name(r->stall_cause));
    fprintf(fp, ",\"start_tick\":%llu,\"end_tick\":%llu}}", (unsigned long long)r->start,
            (unsigned long long)r->end);
}

int trace_export_perfetto(struct trace_reader *rd, const char *out_path, struct ls_error *err)
{
    struct pf_state *st = calloc(1, sizeof *st);
    if (!st)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory exporting a trace");
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, out_path, err);
    if (rc) {
        free(st);
        return rc;
    }
    FILE *fp = af.fp;
    const struct trace_header *h = trace_reader_header(rd);
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":", fp);
    json_str(fp, trace_producer_name(h->producer));
    fputs(",\"target\":", fp);
    json_str(fp, h->target ? h->target : "");
    fprintf(fp, ",\"target_hash\":\"%016llx\",\"tick_hz\":%llu,\"clock_mhz\":[",
            (unsigned long long)h->target_hash, (unsigned long long)h->tick_hz);
    for (int e = 0; e < LS_ENGINE_COUNT; e++) /* so that `trace import` gets them back */
        fprintf(fp, "%s%u", e ? "," : "", h->clock_mhz[e]);
    fputs("]},\n\"traceEvents\":[\n", fp);
    fputs("{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":", fp);
    char pname[TRACE_MAX_NAME + 64];
    snprintf(pname, sizeof pname, "laysim %s (%s)", h->target ? h->target : "",
             trace_producer_name(h->producer));
    json_str(fp, pname);
    fputs("}}", fp);
    struct trace_record r;
    while ((rc = trace_reader_next(rd, &r, err)) == 1) {
        unsigned t = pf_track(&r), lane = 0;
        while (lane < PF_LANES - 1 && st->lane_end[t][lane] > r.start)
            lane++;
        if (st->lane_end[t][lane] < r.end)
            st->lane_end[t][lane] = r.end;
        unsigned tid = 1 + t * PF_LANES + lane;
        if (!st->lane_named[t][lane]) {
            char name[64];
            st->lane_named[t][lane] = 1;
            pf_track_name(t, lane, name, sizeof name);
            fprintf(fp, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_name\","
                        "\"args\":{\"name\":\"%s\"}}", tid, name);
            fprintf(fp, ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%u,\"name\":\"thread_sort_index\","
                        "\"args\":{\"sort_index\":%u}}", tid, tid);
        }
        pf_event(fp, rd, &r, tid);
    }
    free(st);
    if (rc < 0) {
        ls_atomic_abort(&af);
        return -rc;
    }
    fputs("\n]}\n", fp);
    return ls_atomic_commit(&af, err);
}

int trace_export_csv(struct trace_reader *rd, const char *out_path, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, out_path, err);
    if (rc)
        return rc;
    FILE *fp = af.fp;
    const struct trace_header *h = trace_reader_header(rd);
    fprintf(fp, "# laysim trace: producer=%s tick_hz=%llu target_hash=%016llx clock_mhz=",
            trace_producer_name(h->producer), (unsigned long long)h->tick_hz,
            (unsigned long long)h->target_hash);
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        fprintf(fp, "%s%u", e ? "," : "", h->clock_mhz[e]);
    fputs(" target=", fp);
    for (const char *p = h->target ? h->target : ""; *p; p++)
        fputc(*p == '\n' || *p == '\r' ? ' ' : *p, fp);
    fputc('\n', fp);
    for (int i = 0; i < TRACE_CSV_NCOLUMNS; i++)
        fprintf(fp, "%s%s", i ? "," : "", trace_csv_columns[i]);
    fputc('\n', fp);
    struct trace_record r;
    while ((rc = trace_reader_next(rd, &r, err)) == 1) {
        fprintf(fp, "%llu,%s,", (unsigned long long)r.id, ls_engine_name(r.engine));
        ls_csv_put(fp, trace_reader_opcode(rd, r.opcode));
        fprintf(fp, ",%llu,%llu,%llu,%s,%s,%s,%s,", (unsigned long long)r.start,
                (unsigned long long)r.end, (unsigned long long)r.stall,
                ls_stall_name(r.stall_cause), ls_dtype_name(r.dtype),
                ls_mem_name(r.src_mem), ls_mem_name(r.dst_mem));
        if (r.queue != TRACE_NO_QUEUE)
            fprintf(fp, "%u", r.queue);
        fprintf(fp, ",%u,%llu,%u,%u,%llu,%llu,", r.partitions, (unsigned long long)r.free_size,
                r.stationary, r.descriptors, (unsigned long long)r.bytes_per_partition,
                (unsigned long long)r.chunk_bytes);
        ls_csv_put(fp, trace_reader_string(rd, r.op_id));
        fputc(',', fp);
        ls_csv_put(fp, trace_reader_string(rd, r.conv_id));
        fputc('\n', fp);
    }
    if (rc < 0) {
        ls_atomic_abort(&af);
        return -rc;
    }
    return ls_atomic_commit(&af, err);
}
