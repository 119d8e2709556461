/* The co-simulation sweep (rtl_cosim.h). Each case is one instruction sequence, built once
 * as a simulator program and once as RTL instructions, with its operands written into the
 * RTL memories and into C reference copies; the reference then executes the sequence
 * (matmul, transposes, copies) and the RTL's memories must match it exactly. */
#include "rtl_cosim.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rtl_model.h"
#include "sim/program.h"
#include "sim/sim.h"
#include "traces/trace.h"
#include "util/clock.h"
#include "util/prng.h"
#include "util/vec.h"

/* DMA rates of the RTL (base clock at 1 GHz: cycles are nanoseconds). */
#define DMA_RATE 16      /* bytes per cycle */
#define DMA_DMIN 64      /* cycles per descriptor at least */
#define DMA_LAT 600      /* cycles of transfer latency */
#define BASE_MHZ 1000
#define MAX_INSTR 64

struct mode {
    const char *name;
    uint32_t bg, ls_speedup, mm_min_ii, fp32_passes, dve_min_ii;
};

static const struct mode NORMAL = {"normal", 1, 4, 64, 4, 64};
static const struct mode FAST = {"fast", 1, 2, 0, 2, 64};
static const struct mode SLOWLS = {"ls1", 1, 1, 16, 4, 64};
static const struct mode TEXTBOOK = {"textbook", 0, 1, 0, 1, 64};

struct check {
    uint8_t mem; /* LS_MEM_SBUF / PSUM / HBM */
    uint32_t part, nparts, addr, len;
};

struct ctx {
    const struct rtl_cosim_opts *o;
    uint32_t R, C, parts, sbuf_elems, psum_entries, bank_entries, hbm_elems;
    struct rtl_model *m;
    struct ls_rng rng;
    int16_t *sbuf;  /* reference copies */
    int32_t *psum;
    int16_t *hbm;
    uint8_t *psum_touched;
    /* the case being built */
    struct mode mode;
    struct sim_program *prog;
    struct rtl_instr ri[MAX_INSTR];
    size_t n;
    uint32_t sbuf_next, hbm_next;
    const int16_t *w;   /* reference: the stationary of the last LS (points into sbuf copy) */
    uint32_t w_addr, w_k, w_m;
    int last_ls_fp32;
    struct check checks[MAX_INSTR];
    size_t nchecks;
    uint64_t tol;
    /* trace output */
    struct trace_writer *tw;
    uint64_t trace_base, trace_id;
    struct ls_error *err;
};

#define SB(c, p, a) (c)->sbuf[(size_t)(p) * (c)->sbuf_elems + (a)]
#define PS(c, p, a) (c)->psum[(size_t)(p) * (c)->psum_entries + (a)]

static int16_t rnd(struct ctx *c)
{
    return (int16_t)((int)ls_rng_below(&c->rng, 31) - 15);
}

/* ---------------- operands ---------------- */

static uint32_t sbuf_alloc(struct ctx *c, uint32_t parts, uint32_t len, int fill)
{
    uint32_t a = c->sbuf_next;
    c->sbuf_next += (len + 7) & ~7u;
    if (fill)
        for (uint32_t p = 0; p < parts; p++) {
            for (uint32_t i = 0; i < len; i++)
                SB(c, p, a + i) = rnd(c);
            rtl_model_sbuf_write(c->m, p, a, &SB(c, p, a), len);
        }
    return a;
}

static void psum_init(struct ctx *c, uint32_t parts, uint32_t addr, uint32_t len)
{
    for (uint32_t p = 0; p < parts; p++) {
        for (uint32_t i = 0; i < len; i++)
            PS(c, p, addr + i) = rnd(c) * 1000;
        rtl_model_psum_write(c->m, p, addr, &PS(c, p, addr), len);
    }
}

static void add_check(struct ctx *c, uint8_t mem, uint32_t part, uint32_t nparts, uint32_t addr,
                      uint32_t len)
{
    if (c->nchecks < MAX_INSTR)
        c->checks[c->nchecks++] = (struct check){mem, part, nparts, addr, len};
}

static int push(struct ctx *c, const struct sim_instr *si, const struct rtl_instr *r)
{
    if (c->n >= MAX_INSTR)
        return ls_error_msg(c->err, LS_ERR_INTERNAL, "cosim case too long");
    if (sim_program_add(c->prog, si, NULL, 0, c->err) < 0)
        return LS_ERR_INTERNAL;
    c->ri[c->n] = *r;
    c->ri[c->n].id = (uint16_t)c->n;
    c->n++;
    return 0;
}


static int add_ls(struct ctx *c, uint32_t K, uint32_t M, int fp32)
{
    uint32_t a = sbuf_alloc(c, K, M, 1);
    struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY);
    in.src = sim_sbuf(0, K, (uint64_t)a * 4, fp32 ? LS_DT_FP32 : LS_DT_BF16, M);
    c->w_addr = a;
    c->w_k = K;
    c->w_m = M;
    c->last_ls_fp32 = fp32;
    struct rtl_instr r = {.op = RTL_OP_LS, .k = (uint16_t)K, .m = (uint16_t)M, .src = a};
    return push(c, &in, &r);
}

static int add_mm(struct ctx *c, uint32_t T, uint32_t bank, int acc, int fp32)
{
    uint32_t K = c->w_k, M = c->w_m;
    uint32_t x = sbuf_alloc(c, K, T, 1);
    uint32_t dst = bank * c->bank_entries;
    if (!c->psum_touched[bank]) {
        psum_init(c, M, dst, T);
        c->psum_touched[bank] = 1;
    }
    for (uint32_t m = 0; m < M; m++)
        for (uint32_t j = 0; j < T; j++) {
            uint32_t s = acc ? (uint32_t)PS(c, m, dst + j) : 0;
            for (uint32_t k = 0; k < K; k++)
                s += (uint32_t)((int32_t)SB(c, k, c->w_addr + m) * (int32_t)SB(c, k, x + j));
            PS(c, m, dst + j) = (int32_t)s;
        }
    add_check(c, LS_MEM_PSUM, 0, M, dst, T);
    struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_MATMUL);
    in.src = sim_sbuf(0, K, (uint64_t)x * 4, fp32 ? LS_DT_FP32 : LS_DT_BF16, T);
    in.dst = sim_psum(0, M, (uint64_t)dst * 4, LS_DT_FP32, T);
    in.flags = acc ? SIM_F_ACCUMULATE : 0;
    struct rtl_instr r = {.op = RTL_OP_MM, .acc = (uint8_t)acc,
                          .fp32 = (uint8_t)(c->mode.bg && (fp32 || c->last_ls_fp32)),
                          .k = (uint16_t)K, .t = (uint16_t)T, .src = x, .dst = dst};
    return push(c, &in, &r);
}

static int add_pe_transpose(struct ctx *c, uint32_t P, uint32_t F, uint32_t bank)
{
    uint32_t a = sbuf_alloc(c, P, F, 1);
    uint32_t dst = bank * c->bank_entries;
    if (!c->psum_touched[bank]) {
        psum_init(c, F, dst, P);
        c->psum_touched[bank] = 1;
    }
    for (uint32_t f = 0; f < F; f++)
        for (uint32_t p = 0; p < P; p++)
            PS(c, f, dst + p) = SB(c, p, a + f);
    add_check(c, LS_MEM_PSUM, 0, F, dst, P);
    c->w_k = P; /* the transpose leaves its data as the stationary */
    c->w_m = F;
    c->w_addr = a;
    c->last_ls_fp32 = 0;
    struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_PE_TRANSPOSE);
    in.src = sim_sbuf(0, P, (uint64_t)a * 4, LS_DT_BF16, F);
    in.dst = sim_psum(0, F, (uint64_t)dst * 4, LS_DT_BF16, P);
    struct rtl_instr r = {.op = RTL_OP_PE_TRANSPOSE, .k = (uint16_t)P, .m = (uint16_t)F,
                          .src = a, .dst = dst};
    return push(c, &in, &r);
}

static int add_dve_transpose(struct ctx *c, uint32_t n)
{
    uint32_t a = sbuf_alloc(c, n, n, 1), b = sbuf_alloc(c, n, n, 0);
    for (uint32_t q = 0; q < n; q++)
        for (uint32_t p = 0; p < n; p++)
            SB(c, q, b + p) = SB(c, p, a + q);
    add_check(c, LS_MEM_SBUF, 0, n, b, n);
    struct sim_instr in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_DVE_TRANSPOSE);
    in.src = sim_sbuf(0, n, (uint64_t)a * 4, LS_DT_BF16, n);
    in.dst = sim_sbuf(0, n, (uint64_t)b * 4, LS_DT_BF16, n);
    struct rtl_instr r = {.op = RTL_OP_DVE_TRANSPOSE, .k = (uint16_t)n, .m = (uint16_t)n,
                          .src = a, .dst = b};
    return push(c, &in, &r);
}

/* P partitions x `chunks` chunks of `run` elements; HBM rows `gap` elements apart between
 * chunks (gap = run: one contiguous row per partition). dir 0: HBM -> SBUF. */
static int add_dma(struct ctx *c, uint32_t P, uint32_t chunks, uint32_t run, uint32_t gap,
                   int dir)
{
    uint32_t e = chunks * run, pstride = chunks * gap;
    uint32_t h = c->hbm_next;
    c->hbm_next += P * pstride;
    uint32_t s = sbuf_alloc(c, P, e, dir == 1);
    for (uint32_t p = 0; p < P; p++)
        for (uint32_t k = 0; k < chunks; k++)
            for (uint32_t i = 0; i < run; i++) {
                uint32_t ha = h + p * pstride + k * gap + i, sa = s + k * run + i;
                if (dir == 0) {
                    c->hbm[ha] = rnd(c);
                    rtl_model_hbm_write(c->m, ha, &c->hbm[ha], 1);
                    SB(c, p, sa) = c->hbm[ha];
                } else {
                    c->hbm[ha] = SB(c, p, sa);
                }
            }
    if (dir == 0)
        add_check(c, LS_MEM_SBUF, 0, P, s, e);
    else
        add_check(c, LS_MEM_HBM, 0, 1, h, P * pstride);
    struct sim_operand ho = sim_hbm(P, (int32_t)pstride, (uint64_t)h * 2, LS_DT_BF16, e);
    if (chunks > 1) {
        uint32_t size[2] = {chunks, run};
        int32_t stride[2] = {(int32_t)gap, 1};
        sim_operand_dims(&ho, 2, size, stride);
    }
    struct sim_operand so = sim_sbuf(0, P, (uint64_t)s * 4, LS_DT_BF16, e);
    struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
    in.src = dir == 0 ? ho : so;
    in.dst = dir == 0 ? so : ho;
    uint32_t bytes = run * 2;
    if (bytes % DMA_RATE && bytes / DMA_RATE >= DMA_DMIN)
        c->tol += (uint64_t)P * chunks; /* per-descriptor rounding, docs/rtl.md */
    struct rtl_instr r = {.op = RTL_OP_DMA, .dir = (uint8_t)dir, .k = (uint16_t)P,
                          .m = (uint16_t)chunks, .t = (uint16_t)bytes, .src = h, .dst = s,
                          .s1 = pstride, .s2 = gap};
    return push(c, &in, &r);
}

/* ---------------- target ---------------- */

static int set(struct sim_target *t, const char *k, uint64_t v, struct ls_error *err)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    return sim_target_set(t, k, buf, err);
}

/* The simulator target matching the RTL: same array, PE knobs, one DMA engine and queue at
 * the RTL's rates (base clock 1 GHz), HBM bandwidth out of the way. */
static int cosim_target(struct sim_target *t, const struct ctx *c, const struct mode *md,
                        struct ls_error *err)
{
    if (sim_target_builtin(t, "nc-v2"))
        return ls_error_msg(err, LS_ERR_INTERNAL, "no nc-v2 target");
    int rc = 0;
    rc = rc ? rc : set(t, "clock.base_mhz", BASE_MHZ, err);
    rc = rc ? rc : set(t, "sbuf.partitions", c->parts, err);
    rc = rc ? rc : set(t, "sbuf.bytes_per_partition", (uint64_t)c->sbuf_elems * 4, err);
    rc = rc ? rc : set(t, "sbuf.usable_bytes", (uint64_t)c->sbuf_elems * 4, err);
    rc = rc ? rc : set(t, "pe.rows", c->R, err);
    rc = rc ? rc : set(t, "pe.cols", c->C, err);
    rc = rc ? rc : set(t, "pe.background_load", md->bg, err);
    rc = rc ? rc : set(t, "pe.ls_speedup", md->ls_speedup, err);
    rc = rc ? rc : set(t, "pe.mm_min_ii", md->mm_min_ii, err);
    rc = rc ? rc : set(t, "pe.fp32_passes", md->fp32_passes, err);
    rc = rc ? rc : set(t, "vec.min_ii", md->dve_min_ii, err);
    rc = rc ? rc : set(t, "dma.engines", 1, err);
    rc = rc ? rc : set(t, "dma.queues", 1, err);
    rc = rc ? rc : set(t, "dma.bytes_per_ns", DMA_RATE * BASE_MHZ / 1000, err);
    rc = rc ? rc : set(t, "dma.desc_min_ns", DMA_DMIN * 1000 / BASE_MHZ, err);
    rc = rc ? rc : set(t, "dma.transfer_latency_ns", DMA_LAT * 1000 / BASE_MHZ, err);
    rc = rc ? rc : set(t, "hbm.bytes_per_ns", 1000000, err);
    rc = rc ? rc : sim_target_validate(t, err);
    return rc;
}

/* ---------------- one case ---------------- */

struct recs {
    struct trace_record r[MAX_INSTR];
    uint8_t have[MAX_INSTR];
};

static int rec_emit(void *ctx, const struct trace_record *r)
{
    struct recs *s = ctx;
    if (r->id < MAX_INSTR) {
        s->r[r->id] = *r;
        s->have[r->id] = 1;
    }
    return 0;
}

static void begin_case(struct ctx *c, const struct mode *md)
{
    c->mode = *md;
    c->prog = sim_program_new();
    c->n = 0;
    c->sbuf_next = 0;
    c->hbm_next = 0;
    c->nchecks = 0;
    c->tol = 0;
    c->w_k = c->w_m = 0;
    c->last_ls_fp32 = 0;
    memset(c->psum_touched, 0, c->psum_entries / c->bank_entries);
}

static int memories_match(struct ctx *c)
{
    for (size_t i = 0; i < c->nchecks; i++) {
        const struct check *k = &c->checks[i];
        for (uint32_t p = k->part; p < k->part + k->nparts; p++)
            for (uint32_t a = 0; a < k->len; a++) {
                if (k->mem == LS_MEM_PSUM) {
                    int32_t v;
                    rtl_model_psum_read(c->m, p, k->addr + a, &v, 1);
                    if (v != PS(c, p, k->addr + a))
                        return 0;
                } else if (k->mem == LS_MEM_SBUF) {
                    int16_t v;
                    rtl_model_sbuf_read(c->m, p, k->addr + a, &v, 1);
                    if (v != SB(c, p, k->addr + a))
                        return 0;
                } else {
                    int16_t v;
                    rtl_model_hbm_read(c->m, k->addr + a, &v, 1);
                    if (v != c->hbm[k->addr + a])
                        return 0;
                }
            }
    }
    return 1;
}

static int finish_case(struct ctx *c, struct rtl_cosim_report *rep, const char *kind,
                       const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* Cases sweep() runs, section by section (tiles, fp32, sequences, PE transposes, DVE
 * transposes, DMA): the progress total, known before the first case. rtl_cosim_run fails
 * when sweep() disagrees, so the two cannot drift apart unnoticed. */
#define SWEEP_CASES (2 * 3 * 6 + 3 * 2 + 4 * 3 + 4 * (3 + 1) + 2 * (5 + 1) + 5 * 2 + 3)

static int push_case(struct rtl_cosim_report *rep, struct rtl_cosim_case *k, struct ls_error *err)
{
    if (LS_ARRAY_RESERVE(rep->cases, rep->cap, rep->n + 1))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    rep->cases[rep->n++] = *k;
    return 0;
}

static int finish_case(struct ctx *c, struct rtl_cosim_report *rep, const char *kind,
                       const char *fmt, ...)
{
    struct rtl_cosim_case k;
    memset(&k, 0, sizeof k);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k.name, sizeof k.name, fmt, ap);
    va_end(ap);
    k.kind = kind;
    k.instructions = (uint32_t)c->n;
    k.tolerance = c->tol;
    int rc = 0;
    struct sim_target t;
    struct recs *sr = calloc(1, sizeof *sr);
    if (!sr) {
        sim_program_free(c->prog);
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    }
    rc = cosim_target(&t, c, &c->mode, c->err);
    struct sim_stats st;
    struct trace_sink sink = {sr, rec_emit};
    if (!rc)
        rc = sim_run(&t, c->prog, &sink, &st, c->err);
    if (rc) {
        free(sr);
        sim_program_free(c->prog);
        return rc;
    }
    /* the RTL, configured like the target (textbook mode: one row per cycle, no min II) */
    struct rtl_config cfg = {c->R, c->C, c->mode.bg, c->mode.bg ? c->mode.ls_speedup : 1,
                             c->mode.bg ? c->mode.mm_min_ii : 0,
                             c->mode.bg ? c->mode.fp32_passes : 1, c->mode.dve_min_ii,
                             DMA_LAT, DMA_RATE, DMA_DMIN};
    rtl_model_set_config(c->m, &cfg);
    struct rtl_retire ev[2 * MAX_INSTR];
    uint64_t cycles = 0, t0 = ls_now_ns(), c0 = ls_cpu_ns();
    long ne = rtl_model_run(c->m, c->ri, c->n, ev, 2 * MAX_INSTR, 10000000, &cycles);
    rep->rtl_seconds += (double)(ls_now_ns() - t0) / 1e9;
    rep->rtl_cpu_seconds += (double)(ls_cpu_ns() - c0) / 1e9;
    rep->rtl_cycles_simulated += cycles + c->n + 2;
    uint64_t rs[MAX_INSTR], re[MAX_INSTR];
    uint8_t got[MAX_INSTR];
    memset(got, 0, sizeof got);
    for (long i = 0; i < ne && i < 2 * MAX_INSTR; i++)
        if (ev[i].id < c->n) {
            rs[ev[i].id] = ev[i].start;
            re[ev[i].id] = ev[i].end;
            got[ev[i].id] = 1;
        }
    uint64_t sim_max = 0, rtl_max = 0, base_ticks = 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct trace_record *r = &sr->r[i];
        uint64_t tpc = st.tick_mhz / sim_engine_mhz(&t, (enum ls_engine)r->engine);
        uint64_t ss = r->start / tpc, se = r->end / tpc;
        int exact = r->start % tpc == 0 && r->end % tpc == 0;
        if (se > sim_max)
            sim_max = se;
        if (got[i] && re[i] > rtl_max)
            rtl_max = re[i];
        uint64_t ds = got[i] ? (rs[i] > ss ? rs[i] - ss : ss - rs[i]) : UINT64_MAX;
        uint64_t de = got[i] ? (re[i] > se ? re[i] - se : se - re[i]) : UINT64_MAX;
        if (!sr->have[i] || !got[i] || !exact || ds > k.tolerance || de > k.tolerance)
            k.timing_mismatches++;
        if (got[i] && re[i] * tpc > base_ticks)
            base_ticks = re[i] * tpc;
        if (c->tw && got[i]) {
            struct trace_record w = *r;
            w.id = c->trace_id++;
            w.start = c->trace_base + rs[i] * tpc;
            w.end = c->trace_base + re[i] * tpc;
            w.stall = 0;
            w.stall_cause = LS_STALL_NONE;
            w.op_id = w.conv_id = TRACE_NO_ID;
            if (!rc)
                rc = trace_writer_write(c->tw, &w, c->err);
        }
    }
    c->trace_base += base_ticks;
    k.rtl_cycles = rtl_max;
    k.sim_cycles = sim_max;
    k.diff = (int64_t)rtl_max - (int64_t)sim_max;
    k.timing_ok = ne >= 0 && k.timing_mismatches == 0;
    k.result_ok = ne >= 0 && memories_match(c);
    free(sr);
    sim_program_free(c->prog);
    c->prog = NULL;
    if (!rc)
        rc = push_case(rep, &k, c->err);
    if (!rc && c->o->progress)
        c->o->progress(c->o->progress_ctx, rep->n, SWEEP_CASES);
    return rc;
}

/* ---------------- the sweep ---------------- */

#define TRY(x)                 \
    do {                       \
        int rc_ = (x);         \
        if (rc_)               \
            return rc_;        \
    } while (0)

static int sweep(struct ctx *c, struct rtl_cosim_report *rep)
{
    uint32_t R = c->R, C = c->C;
    const struct mode *both[2] = {&NORMAL, &TEXTBOOK};
    const struct mode *all[4] = {&NORMAL, &FAST, &SLOWLS, &TEXTBOOK};
    /* single tiles: LS + MM over K x M x T */
    uint32_t km[3][2] = {{1, 1}, {R, C}, {R / 2 + 1, C > 1 ? C - 1 : 1}};
    uint32_t ts[6] = {1, 7, 64, 100, 333, 512};
    for (int mi = 0; mi < 2; mi++)
        for (int a = 0; a < 3; a++)
            for (int b = 0; b < 6; b++) {
                begin_case(c, both[mi]);
                TRY(add_ls(c, km[a][0], km[a][1], 0));
                TRY(add_mm(c, ts[b], 0, 0, 0));
                TRY(finish_case(c, rep, "pe", "tile-%s-K%u-M%u-T%u", both[mi]->name, km[a][0],
                                km[a][1], ts[b]));
            }
    /* fp32: II times the pass count */
    uint32_t f32[3] = {5, 100, 512};
    for (int b = 0; b < 3; b++)
        for (int mi = 0; mi < 2; mi++) {
            const struct mode *md = mi ? &FAST : &NORMAL;
            begin_case(c, md);
            TRY(add_ls(c, R, C, b == 2));
            TRY(add_mm(c, f32[b], 1, 0, b != 2));
            TRY(finish_case(c, rep, "pe", "fp32-%s-T%u", md->name, f32[b]));
        }
    /* back-to-back sequences */
    for (int mi = 0; mi < 4; mi++) {
        const struct mode *md = all[mi];
        uint32_t tt[4] = {200, 1, 64, 512};
        begin_case(c, md);
        for (int i = 0; i < 4; i++) {
            TRY(add_ls(c, R, C, 0));
            TRY(add_mm(c, tt[i], (uint32_t)i % 2, i >= 2, 0));
        }
        TRY(finish_case(c, rep, "pe", "seq-ls-mm-%s", md->name));
        begin_case(c, md);
        TRY(add_ls(c, R / 2 + 1, C, 0));
        for (int i = 0; i < 3; i++)
            TRY(add_mm(c, 50, 2, i > 0, 0));
        TRY(add_ls(c, R, C / 2 + 1, 0));
        TRY(add_mm(c, 3, 3, 0, 0));
        TRY(finish_case(c, rep, "pe", "seq-accumulate-%s", md->name));
        begin_case(c, md);
        for (int i = 0; i < 6; i++) {
            TRY(add_ls(c, R, C, 0));
            TRY(add_mm(c, 2 + (uint32_t)i, (uint32_t)i % 4, 0, 0));
        }
        TRY(finish_case(c, rep, "pe", "seq-tiny-%s", md->name));
    }
    /* PE transposes */
    uint32_t pf[3][2] = {{R, C}, {1, C}, {R / 2 + 1, C / 2 + 1}};
    for (int mi = 0; mi < 4; mi++) {
        const struct mode *md = all[mi];
        for (int a = 0; a < 3; a++) {
            begin_case(c, md);
            TRY(add_pe_transpose(c, pf[a][0], pf[a][1], 0));
            TRY(finish_case(c, rep, "transpose", "pe-transpose-%s-P%u-F%u", md->name, pf[a][0],
                            pf[a][1]));
        }
        begin_case(c, md);
        TRY(add_pe_transpose(c, R, C, 0));
        TRY(add_pe_transpose(c, R / 2 + 1, C, 1));
        TRY(add_ls(c, R, C, 0));
        TRY(add_mm(c, 20, 2, 0, 0));
        TRY(add_pe_transpose(c, R, C / 2 + 1, 3));
        TRY(add_mm(c, 9, 4, 0, 0));
        TRY(finish_case(c, rep, "transpose", "pe-transpose-seq-%s", md->name));
    }
    /* DVE 32x32 transposes: cost max(min_ii, N) */
    uint32_t dn[5] = {1, 5, 16, 31, 32};
    struct mode dve[2] = {NORMAL, NORMAL};
    dve[0].dve_min_ii = 0;
    dve[0].name = "ii0";
    dve[1].name = "ii64";
    for (int mi = 0; mi < 2; mi++) {
        for (int a = 0; a < 5; a++) {
            begin_case(c, &dve[mi]);
            TRY(add_dve_transpose(c, dn[a]));
            TRY(finish_case(c, rep, "dve_transpose", "dve-transpose-%s-N%u", dve[mi].name, dn[a]));
        }
        begin_case(c, &dve[mi]);
        TRY(add_dve_transpose(c, 32));
        TRY(add_dve_transpose(c, 7));
        TRY(add_dve_transpose(c, 20));
        TRY(finish_case(c, rep, "dve_transpose", "dve-transpose-seq-%s", dve[mi].name));
    }
    /* DMA transfers */
    uint32_t P = c->parts;
    uint32_t chunk[5] = {64, 512, 2048, 4096, 100};
    for (int a = 0; a < 5; a++)
        for (int b = 0; b < 2; b++) {
            uint32_t np = b ? P : 1;
            begin_case(c, &NORMAL);
            TRY(add_dma(c, np, 1, chunk[a] / 2, chunk[a] / 2, 0));
            TRY(finish_case(c, rep, "dma", "dma-load-P%u-chunk%u", np, chunk[a]));
        }
    begin_case(c, &NORMAL);
    TRY(add_dma(c, P / 2, 4, 128, 200, 0));
    TRY(finish_case(c, rep, "dma", "dma-load-strided-P%u-4x256B", P / 2));
    begin_case(c, &NORMAL);
    TRY(add_dma(c, P, 1, 512, 512, 1));
    TRY(finish_case(c, rep, "dma", "dma-store-P%u-chunk1024", P));
    begin_case(c, &NORMAL);
    TRY(add_dma(c, 2, 1, 32, 32, 0));
    TRY(add_dma(c, 1, 2, 16, 40, 0));
    TRY(add_dma(c, 4, 1, 1024, 1024, 0));
    TRY(add_dma(c, 3, 1, 8, 8, 1));
    TRY(finish_case(c, rep, "dma", "dma-seq-small"));
    return 0;
}

void rtl_cosim_sizes(char *buf, size_t n)
{
    uint32_t r[16], cc[16];
    size_t k = rtl_model_sizes(r, cc, 16), off = 0;
    buf[0] = 0;
    for (size_t i = 0; i < k && i < 16 && off < n; i++)
        off += (size_t)snprintf(buf + off, n - off, "%s%ux%u", i ? " " : "", r[i], cc[i]);
}

int rtl_cosim_run(const struct rtl_cosim_opts *o, struct rtl_cosim_report *rep,
                  struct ls_error *err)
{
    memset(rep, 0, sizeof *rep);
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.err = err;
    c.o = o;
    c.R = o->rows;
    c.C = o->cols;
    char msg[160];
    struct rtl_config cfg = {o->rows, o->cols, 1, 4, 64, 4, 64, DMA_LAT, DMA_RATE, DMA_DMIN};
    c.m = rtl_model_create(&cfg, msg, sizeof msg);
    if (!c.m) {
        char sizes[128];
        rtl_cosim_sizes(sizes, sizeof sizes);
        return ls_error_msg(err, LS_ERR_INPUT, "--rows %u --cols %u: %s; built sizes: %s",
                            o->rows, o->cols, msg, sizes);
    }
    c.parts = rtl_model_sbuf_partitions(c.m);
    c.sbuf_elems = rtl_model_sbuf_elems(c.m);
    c.psum_entries = rtl_model_psum_entries(c.m);
    c.bank_entries = 2048 / 4;
    c.hbm_elems = rtl_model_hbm_elems(c.m);
    ls_rng_seed(&c.rng, 0x1a75e11);
    c.sbuf = calloc((size_t)c.parts * c.sbuf_elems, sizeof *c.sbuf);
    c.psum = calloc((size_t)rtl_model_psum_partitions(c.m) * c.psum_entries, sizeof *c.psum);
    c.hbm = calloc(c.hbm_elems, sizeof *c.hbm);
    c.psum_touched = calloc(c.psum_entries / c.bank_entries, 1);
    int rc = 0;
    if (!c.sbuf || !c.psum || !c.hbm || !c.psum_touched)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct sim_target base;
    if (!rc)
        rc = cosim_target(&base, &c, &NORMAL, err);
    if (!rc)
        rep->target_hash = sim_target_hash(&base);
    if (!rc && o->trace_path) {
        struct sim_stats tmp;
        (void)tmp;
        struct trace_header h;
        memset(&h, 0, sizeof h);
        size_t nops;
        char tname[64];
        snprintf(tname, sizeof tname, "cosim-%ux%u", c.R, c.C);
        h.producer = TRACE_PROD_RTL;
        h.target = tname;
        h.target_hash = rep->target_hash;
        h.tick_hz = sim_target_tick_mhz(&base) * 1000000ull;
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            h.clock_mhz[e] = sim_engine_mhz(&base, (enum ls_engine)e);
        h.opcodes = sim_opcode_names(&nops);
        h.nopcodes = (uint32_t)nops;
        rc = trace_writer_open(&c.tw, o->trace_path, &h, err);
    }
    if (!rc)
        rc = sweep(&c, rep);
    if (!rc && rep->n != SWEEP_CASES)
        rc = ls_error_msg(err, LS_ERR_INTERNAL, "the sweep ran %zu cases, SWEEP_CASES says %d",
                          rep->n, SWEEP_CASES);
    if (c.prog)
        sim_program_free(c.prog);
    if (c.tw) {
        if (rc)
            trace_writer_abort(c.tw);
        else
            rc = trace_writer_close(c.tw, err);
    }
    rtl_model_destroy(c.m);
    free(c.sbuf);
    free(c.psum);
    free(c.hbm);
    free(c.psum_touched);
    return rc;
}

void rtl_cosim_report_free(struct rtl_cosim_report *rep)
{
    free(rep->cases);
    memset(rep, 0, sizeof *rep);
}
