#include "traces/synth.h"

#include <stdio.h>
#include <string.h>

#include "util/dtype.h"
#include "util/hash.h"

enum { OP_DMA, OP_LS, OP_MM, OP_ACT, OP_TT, OP_COPY, OP_COUNT };
static const char *const synth_opcodes[OP_COUNT] = {
    "dma_copy", "load_stationary", "multiply_moving", "activation", "tensor_tensor",
    "tensor_copy"};

/* One tile: 2 DMA loads, LS, 4 MMs, an activation, a vector op, a DMA store. */
#define STEPS_PER_TILE 10

void trace_synth_init(struct trace_synth *s, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    ls_rng_seed(&s->rng, seed);
}

void trace_synth_header(struct trace_header *h)
{
    memset(h, 0, sizeof *h);
    h->version = TRACE_FORMAT_VERSION;
    h->producer = TRACE_PROD_SIM;
    h->target = "synthetic";
    h->target_hash = 0x5eed5eed5eed5eedULL;
    h->tick_hz = 5600000000ULL;
    const uint32_t mhz[LS_ENGINE_COUNT] = {2800, 1400, 1120, 1400, 1400};
    memcpy(h->clock_mhz, mhz, sizeof mhz);
    h->nopcodes = OP_COUNT;
    h->opcodes = synth_opcodes;
}

void trace_synth_string(int32_t i, char *buf, unsigned n)
{
    if (i < TRACE_SYNTH_OPS)
        snprintf(buf, n, "synth_op%d", (int)i);
    else
        snprintf(buf, n, "synth_conv%d", (int)(i - TRACE_SYNTH_OPS));
}

static uint64_t max_u64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

/* Start r on its engine at max(ready, busy_at); fills start, end, stall and its cause. */
static void place(struct trace_synth *s, struct trace_record *r, uint64_t ready, uint64_t busy_at,
                  uint64_t dur)
{
    uint64_t start = max_u64(ready, busy_at);
    r->stall_cause = LS_STALL_NONE;
    r->stall = 0;
    if (ls_rng_below(&s->rng, 16) == 0) { /* now and then an access conflict */
        r->stall = 8 + ls_rng_below(&s->rng, 64);
        r->stall_cause = LS_STALL_ACCESS_CONFLICT;
        start += r->stall;
    } else if (ready > busy_at) {
        r->stall = ready - busy_at;
        r->stall_cause = LS_STALL_DEPENDENCY;
    } else if (r->engine == LS_ENGINE_DMA && ready && busy_at > ready) {
        r->stall = busy_at - ready;
        r->stall_cause = LS_STALL_DMA_QUEUE;
    }
    r->start = start;
    r->end = start + dur;
}

void trace_synth_next(struct trace_synth *s, struct trace_record *r)
{
    memset(r, 0, sizeof *r);
    r->id = s->next_id++;
    r->queue = TRACE_NO_QUEUE;
    r->dtype = LS_DT_BF16;
    r->op_id = (int32_t)((s->tile / 37) % TRACE_SYNTH_OPS);
    r->conv_id = TRACE_NO_ID;
    r->partitions = 128;
    unsigned step = s->step;
    s->step = (s->step + 1) % STEPS_PER_TILE;
    if (step == 0 || step == 1 || step == 9) {
        unsigned q = (unsigned)((s->tile * 3 + step) % 16);
        r->engine = LS_ENGINE_DMA;
        r->opcode = OP_DMA;
        r->queue = (uint16_t)q;
        r->src_mem = step == 9 ? LS_MEM_SBUF : LS_MEM_HBM;
        r->dst_mem = step == 9 ? LS_MEM_HBM : LS_MEM_SBUF;
        r->bytes_per_partition = step == 1 ? 1024 : 2048;
        r->chunk_bytes = (s->tile % 8 == 0) ? 256 : r->bytes_per_partition;
        r->descriptors = (uint32_t)(128 * (r->bytes_per_partition / r->chunk_bytes));
        r->free_size = r->bytes_per_partition / 2;
        if (s->tile % 8 == 0)
            r->conv_id = (int32_t)(TRACE_SYNTH_OPS + (s->tile / 8) % TRACE_SYNTH_CONVS);
        uint64_t dur = 2 * (1300 + r->descriptors * 7) + ls_rng_below(&s->rng, 40);
        uint64_t ready = step == 9 ? s->act_end_tile : s->act_end_prev;
        place(s, r, ready, s->queue_end[q], dur);
        s->queue_end[q] = r->end;
        if (step != 9)
            s->dma_in_end = max_u64(step == 0 ? 0 : s->dma_in_end, r->end);
        else {
            s->tile++;
            s->act_end_prev = s->act_end_tile;
        }
        return;
    }
    if (step == 2 || (step >= 3 && step <= 6)) {
        r->engine = LS_ENGINE_PE;
        r->src_mem = LS_MEM_SBUF;
        r->dst_mem = step == 2 ? LS_MEM_NONE : LS_MEM_PSUM;
        r->opcode = step == 2 ? OP_LS : OP_MM;
        r->stationary = 128;
        r->free_size = step == 2 ? 128 : 512;
        uint64_t dur = step == 2 ? 64 : 2 * 512;
        place(s, r, step == 2 ? s->dma_in_end : 0, s->eng_end[LS_ENGINE_PE], dur);
        s->eng_end[LS_ENGINE_PE] = r->end;
        s->pe_end_tile = r->end;
        return;
    }
    if (step == 7) {
        r->engine = LS_ENGINE_ACT;
        r->opcode = OP_ACT;
        r->src_mem = LS_MEM_PSUM;
        r->dst_mem = LS_MEM_SBUF;
        r->dtype = LS_DT_FP32;
        r->free_size = 512;
        place(s, r, s->pe_end_tile, s->eng_end[LS_ENGINE_ACT], 4 * (512 + 64) + ls_rng_below(&s->rng, 8));
        s->eng_end[LS_ENGINE_ACT] = r->end;
        s->act_end_tile = r->end;
        return;
    }
    r->engine = LS_ENGINE_DVE; /* step 8 */
    r->opcode = (s->tile % 5 == 0) ? OP_COPY : OP_TT;
    r->src_mem = LS_MEM_SBUF;
    r->dst_mem = LS_MEM_SBUF;
    r->free_size = 512;
    place(s, r, s->act_end_tile, s->eng_end[LS_ENGINE_DVE], 5 * (r->opcode == OP_TT ? 1024 : 512));
    s->eng_end[LS_ENGINE_DVE] = r->end;
    s->act_end_tile = r->end;
}

uint64_t trace_record_digest(uint64_t h, const struct trace_record *r)
{
    uint64_t f[] = {r->id, r->start, r->end, r->stall, r->opcode, r->engine, r->stall_cause,
                    r->dtype, r->src_mem, r->dst_mem, r->queue, r->partitions, r->free_size,
                    r->stationary, r->descriptors, r->bytes_per_partition, r->chunk_bytes,
                    (uint64_t)(int64_t)r->op_id, (uint64_t)(int64_t)r->conv_id};
    return ls_fnv1a64_update(h, f, sizeof f);
}

int trace_synth_write(const char *path, uint64_t n, uint64_t seed, uint64_t *digest,
                      struct ls_error *err)
{
    struct trace_header h;
    trace_synth_header(&h);
    struct trace_writer *w;
    int rc = trace_writer_open(&w, path, &h, err);
    if (rc)
        return rc;
    for (int32_t i = 0; i < TRACE_SYNTH_OPS + TRACE_SYNTH_CONVS; i++) {
        char name[32];
        int32_t id;
        trace_synth_string(i, name, sizeof name);
        if ((rc = trace_writer_intern(w, name, &id, err))) {
            trace_writer_abort(w);
            return rc;
        }
    }
    struct trace_synth s;
    trace_synth_init(&s, seed);
    uint64_t d = LS_FNV64_INIT;
    for (uint64_t i = 0; i < n; i++) {
        struct trace_record r;
        trace_synth_next(&s, &r);
        d = trace_record_digest(d, &r);
        if ((rc = trace_writer_write(w, &r, err))) {
            trace_writer_abort(w);
            return rc;
        }
    }
    if (digest)
        *digest = d;
    return trace_writer_close(w, err);
}
