/* sim/sim_run: the event-driven scheduler. Every engine and every DMA queue is an in-order
 * stream; at each step the stream whose head instruction can start earliest is settled
 * (ties: lowest stream), so shared resources are handed out in time order. */
#include "sim/sim.h"
#include "sim/program_int.h"
#include "sim/sim_int.h"
#include "util/invariant.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NONE64 UINT64_MAX
#define NFIXED SIM_STREAM_DMA0 /* streams 0..3: PE, ACT, DVE, POOL; 4 + q: DMA queue q */

struct stream {
    uint32_t *idx;
    size_t n, pos;
    uint64_t issue;   /* earliest time the sequencer can start the head */
    uint64_t est;     /* cached start estimate of the head, NONE64 while blocked */
    uint64_t depmax;  /* latest dependency end of the head */
    uint32_t wait_on; /* unfinished dependency of the head, when blocked */
    uint32_t prev;    /* previous instruction of this stream, UINT32_MAX = none */
    uint64_t last_start; /* its start: a stream's records come in start order */
    uint8_t rank;     /* position among the active streams: ties go to the lowest */
    int8_t at;        /* index in the ready heap, -1 = not in it (blocked or done) */
};

/* What an instruction costs apart from its addresses and its timing: a function of its
 * kind (engine, opcode, func, flags and operand shapes) only, so it is computed once per
 * kind (a compiled program has a few hundred; computing it per instruction was a fifth of
 * the run) and found by the record's kind id. */
struct cost {
    /* the fields every step reads first, then what vec_step and dma_step read, then the
     * PSUM extents: a lookup touches two or three cache lines, not five */
    uint8_t engine, opcode, queue, used;
    /* the operands (dst, src, src2) as the loop needs them, without decoding them */
    uint8_t mem[3], dtype[3];
    uint32_t nparts[3];
    uint64_t free[3];
    uint64_t vfree, vcycles;                   /* ACT, DVE, POOL */
    uint64_t dur_hi, dur_lo, need_hi, need_lo; /* DMA: ticks of base + 1 and base partitions */
    /* the DMA split: engines used, partitions per engine (base, and base + 1 on the first
     * extra), first engine; chunk bytes and their histogram bucket (no divisions per step) */
    uint32_t d_used, d_base, d_extra, d_e0;
    uint64_t chunk_bytes;
    int bucket;
    struct sim_features sh;                    /* DMA, and its engine shares priced */
    __int128 ext_lo[3], ext_hi[3];             /* extents relative to the address */
};

struct run {
    const struct sim_target *t;
    const struct sim_program *p;
    struct sim_stats *st;
    uint64_t *end; /* per instruction its end + 1, 0 while unsettled (calloc's zeroes) */
    uint64_t tpc[LS_ENGINE_COUNT]; /* ticks per engine cycle (DMA: base clock) */
    double ticks_per_ns;
    uint64_t dma_lat;   /* dma.transfer_latency_ns in ticks */
    int bank_shift;     /* log2 psum.bank_bytes when a power of two, else -1 */
    /* PE */
    uint64_t ls_end, shadow_free, mm_next, pe_free;
    int pending;
    uint32_t stat_m;
    int stat_fp32;
    /* access rules */
    uint64_t sbuf_until[LS_ENGINE_COUNT], psum_until[LS_ENGINE_COUNT];
    uint64_t *bank_until; /* [0..banks): ACT, [banks..2*banks): DVE */
    /* DMA */
    uint64_t eng_free[SIM_MAX_DMA_ENGINES];
    uint64_t hbm_free;
    /* busy-interval unions */
    uint64_t eng_last_end[LS_ENGINE_COUNT], q_last_end[SIM_MAX_QUEUES];
    /* Blocked streams, filed under the stream of the instruction they wait on: settling an
     * instruction re-estimates only the streams that may wait on it. */
    struct stream *streams;
    uint64_t waiters[SIM_STREAMS][2]; /* bit w: stream w waits on this stream */
    uint32_t wake_at[SIM_STREAMS];    /* the earliest instruction they wait on */
    /* Streams whose head can be estimated, a binary min-heap on (est, rank): the pick is
     * its top instead of a scan of every active stream (mix: some 40 DMA queues). A key
     * packs est, rank and stream into one integer: compares without branches or loads. */
    unsigned __int128 heap[SIM_STREAMS];
    size_t nheap;
    struct cost *costs; /* per kind id */
};

uint32_t sim_engine_mhz(const struct sim_target *t, enum ls_engine e)
{
    switch (e) {
    case LS_ENGINE_PE: return t->pe_mhz;
    case LS_ENGINE_ACT: return t->act_mhz;
    case LS_ENGINE_DVE: return t->dve_mhz;
    case LS_ENGINE_POOL: return t->pool_mhz;
    default: return t->base_mhz;
    }
}

double sim_ticks_ns(const struct sim_stats *st, uint64_t ticks)
{
    return st->tick_mhz ? (double)ticks * 1000.0 / (double)st->tick_mhz : 0.0;
}

uint64_t sim_ticks_cycles(const struct sim_target *t, enum ls_engine e, uint64_t ticks)
{
    uint64_t tpc = sim_target_tick_mhz(t) / sim_engine_mhz(t, e);
    return (ticks + tpc - 1) / tpc;
}

uint64_t sim_ticks_base_cycles(const struct sim_target *t, uint64_t ticks)
{
    uint64_t tpc = sim_target_tick_mhz(t) / t->base_mhz;
    return (ticks + tpc - 1) / tpc;
}

double sim_queue_efficiency(const struct sim_target *t, const struct sim_stats *st, uint32_t q)
{
    if (q >= st->nqueues || !st->queue[q].busy_ticks)
        return 0.0;
    double ns = sim_ticks_ns(st, st->queue[q].busy_ticks);
    return (double)st->queue[q].bytes / (ns * t->dma_engines * t->dma_bytes_per_ns);
}

double sim_dma_efficiency(const struct sim_target *t, const struct sim_stats *st)
{
    uint64_t busy = st->engine[LS_ENGINE_DMA].busy_ticks;
    if (!busy)
        return 0.0;
    double ns = sim_ticks_ns(st, busy);
    return (double)st->dma_bytes / (ns * t->dma_engines * t->dma_bytes_per_ns);
}

/* n bytes of zeroed memory; large ones on 2 MiB-aligned transparent huge pages where the
 * system has them, *len then what to munmap (0: calloc'd, to free). The per-instruction
 * arrays of a large program in malloc'd memory faulted in 4 KiB pages, and reading a not yet
 * settled end time first mapped the zero page so that writing it faulted again: half of
 * qwen-vl's page faults. Small ones (most simulations: the study's, the loop's) stay in
 * calloc's memory, where a huge page would cost more to clear than they use. NULL out of
 * memory. */
static void *huge_zalloc(size_t n, size_t *len)
{
    const size_t huge = (size_t)2 << 20;
    *len = 0;
    if (n < 2 * huge) {
        void *p = calloc(n ? n : 1, 1);
        if (p)
            sim_huge_pages(p, n);
        return p;
    }
    size_t want = (n + huge - 1) & ~(huge - 1);
    uint8_t *m = mmap(NULL, want + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                      -1, 0);
    if (m == MAP_FAILED)
        return NULL;
    uint8_t *a = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));
    if (a > m)
        munmap(m, (size_t)(a - m));
    if (m + want + huge > a + want)
        munmap(a + want, (size_t)(m + want + huge - (a + want)));
#ifdef MADV_HUGEPAGE
    (void)madvise(a, want, MADV_HUGEPAGE);
#endif
    *len = want;
    return a;
}

static void huge_free(void *p, size_t len)
{
    if (len)
        munmap(p, len);
    else
        free(p);
}

/* sim_program_deps, inlined: asked twice per simulated instruction */
static inline const uint32_t *deps_of(const struct sim_program *p, size_t i, size_t *nd)
{
    *nd = sim_irec_ndeps(p, i);
    return *nd ? p->deps.data + p->ins.data[i].deps_off : NULL;
}

static uint64_t ns_to_ticks(const struct run *r, double ns)
{
    double v = ceil(ns * r->ticks_per_ns - 1e-9);
    if (v >= 9.0e18) /* absurd sizes saturate instead of overflowing */
        return (uint64_t)9.0e18;
    return v <= 0 ? 0 : (uint64_t)v;
}

static inline void later(uint64_t *start, uint8_t *cause, uint64_t c, enum ls_stall why)
{
    if (c > *start) {
        *start = c;
        *cause = (uint8_t)why;
    }
}

static int touches(const struct cost *c, uint8_t mem)
{
    return c->mem[0] == mem || c->mem[1] == mem || c->mem[2] == mem;
}

/* PSUM bank range [*b0, *b1] of the instruction's PSUM operands; 0 when none. */
static int psum_banks(const struct run *r, const struct sim_irec *in, const struct cost *c,
                      uint32_t *b0, uint32_t *b1)
{
    int any = 0;
    for (int k = 0; k < 3; k++) {
        if (c->mem[k] != LS_MEM_PSUM)
            continue;
        __int128 l = (__int128)in->addr[k] + c->ext_lo[k], h = (__int128)in->addr[k] + c->ext_hi[k];
        if (l < 0 || h > (__int128)UINT64_MAX) /* as sim_operand_extent */
            continue;
        uint64_t lo = (uint64_t)l, hi = (uint64_t)h;
        uint32_t a, b;
        if (r->bank_shift >= 0) {
            a = (uint32_t)(lo >> r->bank_shift);
            b = (uint32_t)((hi - 1) >> r->bank_shift);
        } else {
            a = (uint32_t)(lo / r->t->psum_bank_bytes);
            b = (uint32_t)((hi - 1) / r->t->psum_bank_bytes);
        }
        if (!any || a < *b0)
            *b0 = a;
        if (!any || b > *b1)
            *b1 = b;
        any = 1;
    }
    return any;
}

static inline __attribute__((always_inline)) void vec_step(struct run *r, struct stream *s, uint32_t i, const struct sim_irec *in,
                     const struct cost *c, struct trace_record *rec)
{
    const struct sim_target *t = r->t;
    enum ls_engine e = (enum ls_engine)c->engine;
    uint64_t tpc = r->tpc[e];
    uint64_t start = rec->start;
    uint8_t cause = rec->stall_cause;
    uint64_t n = c->vfree;
    /* Depending on the previous instruction of the same engine costs the producer's write
     * and the consumer's read access (+ the static overhead when tiny). */
    if (s->prev != UINT32_MAX) {
        size_t nd;
        const uint32_t *deps = deps_of(r->p, i, &nd);
        for (size_t k = 0; k < nd; k++)
            if (deps[k] == s->prev) {
                uint64_t extra = 2 * (uint64_t)t->vec_access_overhead +
                                 (n < t->vec_tiny_free ? t->vec_static_overhead : 0);
                later(&start, &cause, r->end[s->prev] - 1 + extra * tpc, LS_STALL_DEPENDENCY);
                break;
            }
    }
    int sb = touches(c, LS_MEM_SBUF), ps = touches(c, LS_MEM_PSUM);
    uint32_t b0 = 0, b1 = 0;
    int have_banks = ps && psum_banks(r, in, c, &b0, &b1);
    if (t->mem_access_conflicts) {
        if (sb && e == LS_ENGINE_DVE)
            later(&start, &cause, r->sbuf_until[LS_ENGINE_POOL], LS_STALL_ACCESS_CONFLICT);
        if (sb && e == LS_ENGINE_POOL)
            later(&start, &cause, r->sbuf_until[LS_ENGINE_DVE], LS_STALL_ACCESS_CONFLICT);
        if (ps && e == LS_ENGINE_DVE)
            later(&start, &cause, r->psum_until[LS_ENGINE_ACT], LS_STALL_ACCESS_CONFLICT);
        if (ps && e == LS_ENGINE_ACT)
            later(&start, &cause, r->psum_until[LS_ENGINE_DVE], LS_STALL_ACCESS_CONFLICT);
    } else if (have_banks && (e == LS_ENGINE_ACT || e == LS_ENGINE_DVE)) {
        const uint64_t *other = r->bank_until + (e == LS_ENGINE_ACT ? t->psum_banks : 0);
        for (uint32_t b = b0; b <= b1; b++)
            later(&start, &cause, other[b], LS_STALL_PSUM);
    }
    uint64_t end = start + c->vcycles * tpc;
    if (sb)
        r->sbuf_until[e] = end;
    if (ps)
        r->psum_until[e] = end;
    if (have_banks && (e == LS_ENGINE_ACT || e == LS_ENGINE_DVE)) {
        uint64_t *mine = r->bank_until + (e == LS_ENGINE_ACT ? 0 : t->psum_banks);
        for (uint32_t b = b0; b <= b1; b++)
            mine[b] = end;
    }
    rec->start = start;
    rec->end = end;
    rec->stall_cause = cause;
    rec->partitions = c->nparts[0];
    rec->free_size = n;
    s->issue = end;
}

static inline __attribute__((always_inline)) void pe_step(struct run *r, struct stream *s, const struct cost *c,
                    struct trace_record *rec)
{
    const struct sim_target *t = r->t;
    uint64_t tpc = r->tpc[LS_ENGINE_PE];
    uint64_t R = t->pe_rows, C = t->pe_cols;
    uint64_t start = rec->start, end;
    uint8_t cause = rec->stall_cause;
    enum sim_opcode op = (enum sim_opcode)c->opcode;
    uint64_t sfree = c->free[1];
    int fp32 = c->dtype[1] == LS_DT_FP32;
    rec->partitions = c->nparts[1];
    if (!t->pe_background_load) { /* textbook weight-stationary: nothing overlaps */
        later(&start, &cause, r->pe_free, LS_STALL_ENGINE_BUSY);
        uint64_t cyc;
        if (op == SIM_OP_LOAD_STATIONARY) {
            cyc = R;
            r->stat_m = (uint32_t)sfree;
        } else if (op == SIM_OP_MATMUL) {
            cyc = sfree + R + C - 2;
        } else { /* transpose: load the data, stream the identity */
            cyc = R + c->nparts[1] + R + C - 2;
            r->stat_m = (uint32_t)sfree;
        }
        end = start + cyc * tpc;
        r->pe_free = end;
        s->issue = end;
    } else if (op == SIM_OP_LOAD_STATIONARY) {
        later(&start, &cause, r->ls_end, LS_STALL_ENGINE_BUSY);
        later(&start, &cause, r->shadow_free, LS_STALL_ENGINE_BUSY);
        end = start + ((R + t->pe_ls_speedup - 1) / t->pe_ls_speedup) * tpc;
        r->ls_end = end;
        r->pending = 1;
        r->stat_m = (uint32_t)sfree;
        r->stat_fp32 = fp32;
        s->issue = start;
    } else {
        uint64_t T = sfree, mm_start;
        if (op == SIM_OP_PE_TRANSPOSE) {
            later(&start, &cause, r->ls_end, LS_STALL_ENGINE_BUSY);
            later(&start, &cause, r->shadow_free, LS_STALL_ENGINE_BUSY);
            r->ls_end = start + ((R + t->pe_ls_speedup - 1) / t->pe_ls_speedup) * tpc;
            r->pending = 1;
            r->stat_m = (uint32_t)sfree;
            r->stat_fp32 = fp32;
            T = c->nparts[1]; /* the identity streams P columns */
            mm_start = r->ls_end > r->mm_next ? r->ls_end : r->mm_next;
        } else {
            if (r->pending)
                later(&start, &cause, r->ls_end, LS_STALL_ENGINE_BUSY);
            later(&start, &cause, r->mm_next, LS_STALL_ENGINE_BUSY);
            mm_start = start;
        }
        uint64_t ii = T > t->pe_mm_min_ii ? T : t->pe_mm_min_ii;
        if (fp32 || r->stat_fp32)
            ii *= t->pe_fp32_passes;
        end = mm_start + (ii + R + C - 2) * tpc;
        r->mm_next = mm_start + ii * tpc;
        if (r->pending) {
            r->pending = 0;
            r->shadow_free = mm_start;
        }
        s->issue = start;
        rec->free_size = T;
    }
    if (op == SIM_OP_LOAD_STATIONARY)
        rec->free_size = sfree;
    rec->stationary = r->stat_m;
    rec->start = start;
    rec->end = end;
    rec->stall_cause = cause;
}

/* HBM ticks an engine moving np partitions needs (the same for every engine with that
 * share: priced once per instruction, not per engine). */
static uint64_t hbm_need(const struct sim_features *sh, uint32_t np, double hbm_tpb)
{
    double bytes = (double)np * (double)sh->bytes_per_partition * sh->hbm_sides;
    double needd = ceil(bytes * hbm_tpb - 1e-9);
    return needd >= 9.0e18 ? (uint64_t)9.0e18 : (uint64_t)needd;
}

/* The DMA part of c (c->sh set): each engine share's transfer and HBM ticks. */
static void dma_price(const struct run *r, struct cost *c)
{
    const struct sim_target *t = r->t;
    const struct sim_features *sh = &c->sh;
    double bw = t->dma_bytes_per_ns;
    if (c->opcode == SIM_OP_DMA_TRANSPOSE)
        bw *= sh->hbm_sides ? t->dma_transpose_hbm_eff : t->dma_transpose_sbuf_eff;
    double chunk = sim_dma_chunk_bytes(sh->bytes_per_partition, (double)sh->chunks_per_partition);
    double desc_ns = chunk / bw;
    if (desc_ns < t->dma_desc_min_ns)
        desc_ns = t->dma_desc_min_ns;
    double part_ns = desc_ns * (double)sh->chunks_per_partition;
    uint32_t base = sh->partitions / t->dma_engines;
    /* Engines with the same share cost the same: price each share once. */
    c->dur_hi = ns_to_ticks(r, part_ns * (base + 1));
    c->dur_lo = ns_to_ticks(r, part_ns * base);
    double hbm_tpb = sh->hbm_sides ? r->ticks_per_ns / t->hbm_bytes_per_ns : 0.0;
    c->need_hi = hbm_need(sh, base + 1, hbm_tpb);
    c->need_lo = hbm_need(sh, base, hbm_tpb);
}

/* Compute the cost of ir's kind into c (instruction ir as the example). */
static const struct cost *cost_fill(struct run *r, struct cost *c, const struct sim_irec *ir)
{
    const struct sim_kind *kind = sim_irec_kind(r->p, ir);
    c->engine = kind->engine;
    c->opcode = kind->opcode;
    c->queue = kind->queue;
    c->used = 1;
    struct sim_instr buf, *in = &buf;
    sim_irec_get(r->p, (size_t)(ir - r->p->ins.data), &buf);
    const struct sim_operand *ops[3] = {&in->dst, &in->src, &in->src2};
    for (int k = 0; k < 3; k++) {
        c->mem[k] = ops[k]->mem;
        c->dtype[k] = ops[k]->dtype;
        c->nparts[k] = ops[k]->nparts;
        c->free[k] = sim_operand_free(ops[k]);
        sim_operand_extent_rel(ops[k], &c->ext_lo[k], &c->ext_hi[k]);
    }
    if (in->engine == LS_ENGINE_DMA) {
        sim_features(in, &c->sh);
        dma_price(r, c);
        uint32_t E = r->t->dma_engines, P = c->sh.partitions;
        c->d_used = P < E ? P : E;
        c->d_base = P / E;
        c->d_extra = P % E;
        c->d_e0 = c->sh.part_start % E;
        c->chunk_bytes = c->sh.bytes_per_partition / c->sh.chunks_per_partition;
        c->bucket = sim_desc_bucket(c->chunk_bytes);
    } else if (in->engine != LS_ENGINE_PE) {
        struct sim_features f;
        sim_features(in, &f);
        c->vfree = f.n;
        c->vcycles = sim_vec_cycles(r->t, in);
    }
    return c;
}

/* The cost of instruction ir's kind, computed on its first use. */
static inline const struct cost *cost_of(struct run *r, const struct sim_irec *ir)
{
    struct cost *c = &r->costs[ir->kind];
    return c->used ? c : cost_fill(r, c, ir);
}

/* What a DMA's engines add up to: the least wait for an engine, the last end, the most
 * an engine's transfer was stretched by HBM bandwidth. */
struct dma_acc {
    uint64_t min_wait, end, hbm_ext;
};

/* Engines e..e+n-1 each move a share taking dur ticks (and need ticks of HBM bandwidth when
 * hbm) from ready on: a loop without the engine index's wrap-around or the per-engine
 * choice of share, which were half of its instructions. */
static inline void dma_engines(struct run *r, uint32_t e, uint32_t n, uint64_t ready,
                               uint64_t dur, uint64_t need, int hbm, struct dma_acc *a)
{
    uint64_t *ef = r->eng_free + e, hf = r->hbm_free;
    for (uint32_t k = 0; k < n; k++) {
        uint64_t begin = ef[k] > ready ? ef[k] : ready;
        if (begin - ready < a->min_wait)
            a->min_wait = begin - ready;
        uint64_t fin = begin + dur;
        if (hbm) {
            hf = (hf > begin ? hf : begin) + need;
            if (hf > fin) {
                if (hf - fin > a->hbm_ext)
                    a->hbm_ext = hf - fin;
                fin = hf;
            }
        }
        ef[k] = fin;
        if (fin > a->end)
            a->end = fin;
    }
    r->hbm_free = hf;
}

static inline __attribute__((always_inline)) void dma_step(struct run *r, struct stream *s, const struct sim_irec *in,
                     const struct cost *c, struct trace_record *rec)
{
    const struct sim_target *t = r->t;
    const struct sim_features sh = c->sh;
    uint64_t trigger = rec->start;
    uint32_t E = t->dma_engines, P = sh.partitions;
    uint64_t ready = trigger + r->dma_lat;
    /* The engines from d_e0 on, wrapping around: the first d_extra move base + 1 partitions,
     * the rest base. In that order, as runs of consecutive engines. */
    struct dma_acc a = {NONE64, 0, 0};
    uint32_t e = c->d_e0;
    for (int part = 0; part < 2; part++) {
        uint32_t left = part ? c->d_used - c->d_extra : c->d_extra;
        uint64_t dur = part ? c->dur_lo : c->dur_hi, need = part ? c->need_lo : c->need_hi;
        while (left) {
            uint32_t run = left < E - e ? left : E - e;
            dma_engines(r, e, run, ready, dur, need, sh.hbm_sides != 0, &a);
            left -= run;
            e = e + run == E ? 0 : e + run;
        }
    }
    uint64_t min_wait = a.min_wait, end = a.end, hbm_ext = a.hbm_ext;
    uint64_t start = trigger + min_wait;
    uint8_t cause = rec->stall_cause;
    if (min_wait)
        cause = LS_STALL_DMA_QUEUE;
    r->st->stall_ticks[LS_STALL_HBM_BANDWIDTH] += hbm_ext;
    if (hbm_ext > start - rec->stall) /* slowed down more by HBM than held back at start */
        cause = LS_STALL_HBM_BANDWIDTH;
    rec->start = start;
    rec->end = end;
    rec->stall_cause = cause;
    rec->partitions = P;
    rec->free_size = c->free[c->mem[0] != LS_MEM_HBM ? 0 : 1];
    rec->descriptors = sh.chunks_per_partition * P;
    rec->bytes_per_partition = sh.bytes_per_partition;
    rec->chunk_bytes = c->chunk_bytes;
    uint8_t queue = c->queue;
    struct sim_queue_stats *q = &r->st->queue[queue];
    q->instructions++;
    q->bytes += sh.bytes_per_partition * P;
    q->descriptors += rec->descriptors;
    uint64_t from = start > r->q_last_end[queue] ? start : r->q_last_end[queue];
    if (end > from)
        q->busy_ticks += end - from;
    if (end > r->q_last_end[queue])
        r->q_last_end[queue] = end;
    r->st->dma_bytes += sh.bytes_per_partition * P;
    struct sim_desc_bucket *hb = &r->st->desc_hist[c->bucket];
    hb->descriptors += rec->descriptors;
    hb->bytes += sh.bytes_per_partition * P;
    s->issue = start;
}

typedef unsigned __int128 heap_key;

static inline heap_key key_of(const struct stream *s, uint8_t k)
{
    return (heap_key)s->est << 16 | (heap_key)s->rank << 8 | k;
}

static inline void heap_put(struct run *r, size_t h, heap_key key)
{
    r->heap[h] = key;
    r->streams[(uint8_t)key].at = (int8_t)h;
}

/* Place key at index h, restoring the heap order (it may go either way). */
static void heap_sift(struct run *r, size_t h, heap_key key)
{
    while (h > 0 && key < r->heap[(h - 1) / 2]) {
        heap_put(r, h, r->heap[(h - 1) / 2]);
        h = (h - 1) / 2;
    }
    for (;;) {
        size_t c = 2 * h + 1;
        if (c >= r->nheap)
            break;
        if (c + 1 < r->nheap && r->heap[c + 1] < r->heap[c])
            c++;
        if (!(r->heap[c] < key))
            break;
        heap_put(r, h, r->heap[c]);
        h = c;
    }
    heap_put(r, h, key);
}

/* Stream k's estimate or rank changed: insert, move or remove it. */
static void heap_fix(struct run *r, uint8_t k)
{
    struct stream *s = &r->streams[k];
    if (s->est != NONE64) {
        heap_sift(r, s->at < 0 ? r->nheap++ : (size_t)s->at, key_of(s, k));
    } else if (s->at >= 0) {
        size_t h = (size_t)s->at;
        s->at = -1;
        if (h != --r->nheap)
            heap_sift(r, h, r->heap[r->nheap]);
    }
}

static void head_estimate(struct run *r, struct stream *s)
{
    if (s->pos == s->n) {
        s->est = NONE64;
        return;
    }
    uint32_t i = s->idx[s->pos];
    size_t nd;
    const uint32_t *deps = deps_of(r->p, i, &nd);
    uint64_t m = 0;
    for (size_t k = 0; k < nd; k++) {
        uint64_t e = r->end[deps[k]] - 1; /* NONE64 while unsettled */
        if (e == NONE64) {
            s->est = NONE64;
            s->wait_on = deps[k];
            size_t w = (size_t)(s - r->streams), sd = r->p->sid.data[deps[k]];
            r->waiters[sd][w / 64] |= (uint64_t)1 << (w % 64);
            if (deps[k] < r->wake_at[sd])
                r->wake_at[sd] = deps[k];
            return;
        }
        if (e > m)
            m = e;
    }
    s->depmax = m;
    s->est = m > s->issue ? m : s->issue;
}

/* Fetch ahead what head_estimate will read for the stream's next heads (waiting on them
 * was half of its time): the dependency list of the head after next, and the end times
 * of the next head's first dependencies. Hints only. */
static inline void prefetch_deps(const struct run *r, const struct stream *s)
{
    const struct sim_program *p = r->p;
    if (!p->deps.data)
        return;
    if (s->pos + 2 < s->n)
        __builtin_prefetch(p->deps.data + p->ins.data[s->idx[s->pos + 2]].deps_off);
    if (s->pos + 1 < s->n) {
        uint32_t nx = s->idx[s->pos + 1], nd = sim_irec_ndeps(p, nx);
        const uint32_t *d = p->deps.data + p->ins.data[nx].deps_off;
        for (uint32_t k = 0; k < nd && k < 4; k++)
            __builtin_prefetch(&r->end[d[k]]);
    }
}

/* Instruction i of stream k has settled: re-estimate the streams that waited on it. A
 * stream settles its instructions in program order, so nobody waits on it before wake_at. */
static inline __attribute__((always_inline)) void wake_waiters(struct run *r, size_t k, uint32_t i)
{
    if (i != r->wake_at[k])
        return;
    uint64_t woken[2] = {0, 0};
    uint32_t next = UINT32_MAX;
    for (size_t h = 0; h < 2; h++)
        for (uint64_t m = r->waiters[k][h]; m; m &= m - 1) {
            size_t w = h * 64 + (size_t)__builtin_ctzll(m);
            uint32_t d = r->streams[w].wait_on;
            if (d == i)
                woken[h] |= (uint64_t)1 << (w % 64);
            else if (d < next)
                next = d;
        }
    r->wake_at[k] = next;
    for (size_t h = 0; h < 2; h++) {
        r->waiters[k][h] &= ~woken[h];
        for (uint64_t m = woken[h]; m; m &= m - 1) {
            size_t w = h * 64 + (size_t)__builtin_ctzll(m);
            head_estimate(r, &r->streams[w]); /* may file it under a stream again */
            heap_fix(r, (uint8_t)w);
        }
    }
}

/* The simulation proper: settle the earliest head until every instruction is settled.
 * Inlined twice, with a sink and without (sink NULL): then the trace record's fields that
 * only the sink reads are never stored. */
static inline __attribute__((always_inline)) int run_steps(struct run *r, uint8_t *active,
                                                           size_t nactive,
                                                           const struct trace_sink *sink,
                                                           uint64_t *total, struct ls_error *err)
{
    const struct sim_program *p = r->p;
    struct sim_stats *st = r->st;
    struct stream *streams = r->streams;
    size_t n = p->ins.len;
    int rc = 0;
    for (size_t step = 0; step < n; step++) {
        /* The earliest head: the heap's top (blocked streams are not in it). */
        if (NEVER(!r->nheap)) {
            rc = ls_error_msg(err, LS_ERR_INTERNAL, "simulator deadlock after %zu instructions",
                              step);
            break;
        }
        uint8_t sk = (uint8_t)r->heap[0];
        struct stream *s = &streams[sk];
        uint32_t i = s->idx[s->pos];
        /* The record and its cost entry: the operands are not decoded. */
        const struct sim_irec *in = &p->ins.data[i];
        const struct cost *c = cost_of(r, in);
        struct trace_record rec;
        if (sink) { /* fields only the sink reads (the steps fill the rest) */
            memset(&rec, 0, sizeof rec);
            rec.id = i;
            rec.opcode = c->opcode;
            rec.engine = c->engine;
            rec.dtype = c->mem[1] != LS_MEM_NONE ? c->dtype[1] : c->dtype[0];
            rec.src_mem = c->mem[1];
            rec.dst_mem = c->mem[0];
            rec.queue = c->engine == LS_ENGINE_DMA ? c->queue : TRACE_NO_QUEUE;
            rec.op_id = in->op_tag < 0 ? TRACE_NO_ID : in->op_tag;
            rec.conv_id = in->conv_tag < 0 ? TRACE_NO_ID : in->conv_tag;
        }
        rec.start = s->est;
        rec.stall_cause = s->depmax > s->issue ? LS_STALL_DEPENDENCY : LS_STALL_NONE;
        rec.stall = s->issue; /* temporarily: the issue point */
        switch (c->engine) {
        case LS_ENGINE_PE: pe_step(r, s, c, &rec); break;
        case LS_ENGINE_DMA: dma_step(r, s, in, c, &rec); break;
        default: vec_step(r, s, i, in, c, &rec); break;
        }
        if (rec.end > SIM_MAX_TICKS) { /* durations saturate below 2^63: nothing wrapped yet */
            rc = ls_error_msg(err, LS_ERR_INPUT,
                              "instruction %u ends after 2^62 ticks: the target's timings "
                              "(bandwidths, clocks) are too slow for this program", i);
            break;
        }
        /* the record's contract with the trace (docs/formats.md): it ends after it starts,
         * starts once issuable, and a stream's records come in start order */
        if (NEVER(rec.end < rec.start || rec.start < rec.stall ||
                  (s->prev != UINT32_MAX && rec.start < s->last_start))) {
            rc = LS_INTERNAL(err, "a record out of its stream's order or ending before it starts");
            break;
        }
        s->last_start = rec.start;
        rec.stall = rec.start - rec.stall;
        if (rec.stall == 0)
            rec.stall_cause = LS_STALL_NONE;
        st->stall_ticks[rec.stall_cause] += rec.stall;
        st->instr_ticks += rec.end - rec.start;
        if (in->conv_tag >= 0)
            st->conv_instr_ticks += rec.end - rec.start;
        r->end[i] = rec.end + 1; /* < 2^62 + 1: never wraps to 0 */
        struct sim_engine_stats *es = &st->engine[c->engine];
        if (!es->instructions++)
            es->first_start = rec.start;
        else if (rec.start < es->first_start)
            es->first_start = rec.start;
        uint64_t from = rec.start > r->eng_last_end[c->engine] ? rec.start : r->eng_last_end[c->engine];
        if (rec.end > from)
            es->busy_ticks += rec.end - from;
        if (rec.end > r->eng_last_end[c->engine])
            r->eng_last_end[c->engine] = rec.end;
        if (rec.end > es->last_end)
            es->last_end = rec.end;
        if (rec.end > *total)
            *total = rec.end;
        s->prev = i;
        s->pos++;
        if (s->pos + 6 < s->n) { /* streams are sequential: fetch ahead of the scheduler */
            const char *nx = (const char *)&p->ins.data[s->idx[s->pos + 6]];
            __builtin_prefetch(nx); /* a record may straddle two lines */
            __builtin_prefetch(nx + sizeof(struct sim_irec) - 1);
        }
        prefetch_deps(r, s);
        wake_waiters(r, sk, i);
        if (s->pos == s->n) { /* done: the last active stream takes its rank */
            s->est = NONE64;
            heap_fix(r, sk);
            uint8_t last = active[--nactive];
            active[s->rank] = last;
            streams[last].rank = s->rank;
            heap_fix(r, last); /* a lower rank: a new key */
        } else {
            head_estimate(r, s);
            heap_fix(r, sk);
        }
        if (sink && sink->emit) {
            int erc = sink->emit(sink->ctx, &rec);
            if (erc) {
                rc = ls_error_msg(err, erc, "trace sink failed at instruction %u", i);
                break;
            }
        }
    }
    return rc;
}

int sim_run(const struct sim_target *t, const struct sim_program *p, const struct trace_sink *sink,
            struct sim_stats *st, struct ls_error *err)
{
    memset(st, 0, sizeof *st);
    int rc = sim_target_validate(t, err);
    if (rc || (rc = sim_check_once(t, p, err)))
        return rc;
    size_t n = p->ins.len;
    st->tick_mhz = sim_target_tick_mhz(t);
    st->nqueues = t->dma_queues;
    struct run r;
    memset(&r, 0, sizeof r);
    r.t = t;
    r.p = p;
    r.st = st;
    r.ticks_per_ns = (double)st->tick_mhz / 1000.0;
    r.dma_lat = ns_to_ticks(&r, t->dma_transfer_latency_ns);
    r.bank_shift = t->psum_bank_bytes && !(t->psum_bank_bytes & (t->psum_bank_bytes - 1))
                       ? __builtin_ctz(t->psum_bank_bytes) : -1;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        r.tpc[e] = st->tick_mhz / sim_engine_mhz(t, (enum ls_engine)e);
    size_t nstreams = NFIXED + SIM_MAX_QUEUES; /* bad queues are caught by the checks */
    struct stream streams[NFIXED + SIM_MAX_QUEUES];
    memset(streams, 0, sizeof streams);
    r.streams = streams;
    for (size_t k = 0; k < SIM_STREAMS; k++)
        r.wake_at[k] = UINT32_MAX;
    size_t arrays_len;
    r.end = huge_zalloc(n * (sizeof *r.end + sizeof(uint32_t)), &arrays_len);
    uint32_t *order = r.end ? (uint32_t *)(r.end + n) : NULL; /* after the end times */
    r.bank_until = calloc(2 * (size_t)t->psum_banks, sizeof *r.bank_until);
    r.costs = calloc(p->kinds.len ? p->kinds.len : 1, sizeof *r.costs);
    if (!r.end || !r.bank_until || !r.costs) {
        huge_free(r.end, arrays_len);
        free(r.bank_until);
        free(r.costs);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory simulating %zu instructions", n);
    }
    /* The instructions sorted into their streams, keeping program order (the program
     * counts each stream's instructions as they are added). */
    for (size_t k = 0; k < nstreams; k++)
        streams[k].n = p->stream_n[k];
    size_t off = 0;
    for (size_t k = 0; k < nstreams; k++) {
        streams[k].idx = order + off;
        off += streams[k].n;
        streams[k].n = 0;
        streams[k].prev = UINT32_MAX;
    }
    if (NEVER(off != n)) { /* the program's per-stream counts (sim_program_push) add up */
        huge_free(r.end, arrays_len);
        free(r.bank_until);
        free(r.costs);
        return LS_INTERNAL(err, "the program's stream counts do not add up to its length");
    }
    for (size_t i = 0; i < n; i++) {
        struct stream *s = &streams[p->sid.data[i]];
        s->idx[s->n++] = (uint32_t)i;
    }
    uint8_t active[NFIXED + SIM_MAX_QUEUES];
    size_t nactive = 0;
    for (size_t k = 0; k < nstreams; k++) {
        streams[k].at = -1;
        if (streams[k].n) {
            streams[k].rank = (uint8_t)nactive;
            active[nactive++] = (uint8_t)k;
            head_estimate(&r, &streams[k]);
            heap_fix(&r, (uint8_t)k);
        }
    }
    uint64_t total = 0;
    rc = sink && sink->emit ? run_steps(&r, active, nactive, sink, &total, err)
                            : run_steps(&r, active, nactive, NULL, &total, err);
    st->ticks = total;
    st->instructions = n;
    st->stall_ticks[LS_STALL_NONE] = 0;
    huge_free(r.end, arrays_len);
    free(r.bank_until);
    free(r.costs);
    return rc;
}
