/* costmodel/microbench: one-instruction programs sweeping every opcode's cost parameters,
 * run in isolation in the simulator; their records are calibration samples. */
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "sim/sim.h"
#include "traces/trace.h"


struct mb {
    const struct sim_target *t;
    cm_micro_fn fn;
    void *ctx;
    size_t count;
    struct ls_error *err;
};

/* Emit a program of n instructions (each depending on the previous one); silently
 * skip when the target rejects it. */
static int emit(struct mb *b, const struct sim_instr *ins, int n)
{
    struct sim_program *p = sim_program_new();
    if (!p)
        return ls_error_msg(b->err, LS_ERR_NOMEM, "out of memory");
    struct ls_error e2 = {0};
    for (int i = 0; i < n; i++) {
        uint32_t dep = (uint32_t)(i - 1);
        if (sim_program_add(p, &ins[i], i ? &dep : NULL, i ? 1 : 0, &e2) < 0) {
            sim_program_free(p);
            return e2.code == LS_ERR_NOMEM ? ls_error_msg(b->err, LS_ERR_NOMEM, "out of memory") : 0;
        }
    }
    int rc = 0;
    if (sim_check(b->t, p, &e2) == 0) {
        rc = b->fn(b->ctx, p, b->err);
        b->count++;
    }
    sim_program_free(p);
    return rc;
}

static const enum ls_dtype DTS[2] = {LS_DT_BF16, LS_DT_FP32};
static const uint32_t FREE[] = {1, 8, 32, 64, 96, 128, 256, 512, 1024, 2048, 4096};
#define NFREE (sizeof FREE / sizeof FREE[0])

static int pe(struct mb *b)
{
    const struct sim_target *t = b->t;
    uint32_t R = t->pe_rows, C = t->pe_cols;
    int rc;
    for (int d = 0; d < 2; d++) {
        enum ls_dtype dt = DTS[d];
        for (uint32_t k = 16; k <= R; k *= 2)
            for (uint32_t m = 32; m <= C; m *= 2) {
                struct sim_instr ls = sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY);
                ls.src = sim_sbuf(0, k, 0, dt, m);
                if ((rc = emit(b, &ls, 1)))
                    return rc;
            }
        uint32_t tmax = t->pe_moving_max < t->psum_bank_bytes / 4 ? t->pe_moving_max : t->psum_bank_bytes / 4;
        for (uint32_t T = 8; T <= tmax; T *= 2)
            for (uint32_t T2 = T; T2 <= T + T / 2 && T2 <= tmax; T2 += T / 2 ? T / 2 : 1) {
                struct sim_instr in[2] = {sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY),
                                          sim_instr_init(LS_ENGINE_PE, SIM_OP_MATMUL)};
                in[0].src = sim_sbuf(0, R, 0, dt, C);
                in[1].src = sim_sbuf(0, R, 65536, dt, T2);
                in[1].dst = sim_psum(0, C, 0, LS_DT_FP32, T2);
                if ((rc = emit(b, in, 2)))
                    return rc;
            }
        for (uint32_t P = 32; P <= R; P *= 2)
            for (uint32_t F = 8; F <= C; F *= 2) {
                struct sim_instr in = sim_instr_init(LS_ENGINE_PE, SIM_OP_PE_TRANSPOSE);
                in.src = sim_sbuf(0, P, 0, dt, F);
                in.dst = sim_psum(0, F, 0, dt, P);
                if ((rc = emit(b, &in, 1)))
                    return rc;
            }
    }
    return 0;
}

static int vec(struct mb *b)
{
    int rc;
    uint32_t P = b->t->sbuf_partitions;
    uint64_t half = 65536;
    for (int d = 0; d < 2; d++) {
        enum ls_dtype dt = DTS[d];
        for (size_t f = 0; f < NFREE; f++) {
            uint32_t N = FREE[f];
            uint32_t psum_max = b->t->psum_bank_bytes / 4;
            struct sim_instr in;
            /* ACT */
            in = sim_instr_init(LS_ENGINE_ACT, SIM_OP_ACTIVATION);
            in.func = SIM_FN_EXP;
            in.src = sim_sbuf(0, P, 0, dt, N);
            in.dst = sim_sbuf(0, P, half, dt, N);
            if ((rc = emit(b, &in, 1)))
                return rc;
            if (N <= psum_max) {
                in.src = sim_psum(0, P, 0, LS_DT_FP32, N);
                if ((rc = emit(b, &in, 1)))
                    return rc;
            }
            in = sim_instr_init(LS_ENGINE_ACT, SIM_OP_ACTIVATION_REDUCE);
            in.func = SIM_FN_EXP;
            in.src = sim_sbuf(0, P, 0, dt, N);
            in.dst = sim_sbuf(0, P, half, dt, 1);
            if ((rc = emit(b, &in, 1)))
                return rc;
            /* DVE */
            in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR);
            in.func = SIM_FN_ADD;
            in.src = sim_sbuf(0, P, 0, dt, N);
            in.src2 = sim_sbuf(0, P, half / 2, dt, N);
            in.dst = sim_sbuf(0, P, half, dt, N);
            if ((rc = emit(b, &in, 1)))
                return rc;
            if (N <= psum_max) {
                in.src = sim_psum(0, P, 0, LS_DT_FP32, N);
                if ((rc = emit(b, &in, 1)))
                    return rc;
            }
            enum sim_opcode ops[3] = {SIM_OP_TENSOR_SCALAR, SIM_OP_TENSOR_COPY, SIM_OP_TENSOR_REDUCE};
            for (int k = 0; k < 3; k++) {
                in = sim_instr_init(LS_ENGINE_DVE, ops[k]);
                in.func = k == 2 ? SIM_FN_ADD : k == 0 ? SIM_FN_MUL : SIM_FN_NONE;
                in.src = sim_sbuf(0, P, 0, dt, N);
                in.dst = sim_sbuf(0, P, half, dt, k == 2 ? 1 : N);
                if ((rc = emit(b, &in, 1)))
                    return rc;
            }
            in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_MEMSET);
            in.dst = sim_sbuf(0, P, half, dt, N);
            if ((rc = emit(b, &in, 1)))
                return rc;
            /* POOL */
            in = sim_instr_init(LS_ENGINE_POOL, SIM_OP_IOTA);
            in.dst = sim_sbuf(0, P, half, LS_DT_INT32, N);
            if ((rc = emit(b, &in, 1)))
                return rc;
            in = sim_instr_init(LS_ENGINE_POOL, SIM_OP_PARTITION_REDUCE);
            in.func = SIM_FN_ADD;
            in.flags = SIM_F_ALL;
            in.src = sim_sbuf(0, P, 0, dt, N);
            in.dst = sim_sbuf(0, P, half, dt, N);
            if ((rc = emit(b, &in, 1)))
                return rc;
            in = sim_instr_init(LS_ENGINE_POOL, SIM_OP_GATHER);
            in.src = sim_sbuf(0, P, 0, dt, N);
            in.src2 = sim_sbuf(0, P, half / 2, LS_DT_INT32, N);
            in.dst = sim_sbuf(0, P, half, dt, N);
            if ((rc = emit(b, &in, 1)))
                return rc;
        }
        for (uint32_t p = 4; p <= 32; p *= 2)
            for (uint32_t f = 4; f <= 32; f *= 2) {
                struct sim_instr in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_DVE_TRANSPOSE);
                in.src = sim_sbuf(0, p, 0, dt, f);
                in.dst = sim_sbuf(0, p, half, dt, f);
                if ((rc = emit(b, &in, 1)))
                    return rc;
            }
    }
    return 0;
}

static int dma(struct mb *b)
{
    static const uint32_t parts[] = {1, 8, 16, 64, 128};
    static const uint32_t bpp[] = {64, 256, 1024, 2048, 8192, 32768};
    static const uint32_t chunk[] = {2, 8, 32, 128, 512, 0}; /* bytes; 0 = contiguous */
    int rc;
    for (int d = 0; d < 2; d++) {
        enum ls_dtype dt = DTS[d];
        uint32_t es = (uint32_t)ls_dtype_size(dt);
        for (size_t pi = 0; pi < sizeof parts / sizeof parts[0]; pi++)
            for (size_t bi = 0; bi < sizeof bpp / sizeof bpp[0]; bi++)
                for (size_t ci = 0; ci < sizeof chunk / sizeof chunk[0]; ci++) {
                    uint32_t P = parts[pi], F = bpp[bi] / es;
                    uint32_t ch = chunk[ci] ? chunk[ci] / es : F;
                    if (ch == 0 || ch > F || F % ch)
                        continue;
                    if (chunk[ci] && ch == F)
                        continue;
                    for (int dir = 0; dir < 2; dir++) {
                        struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
                        in.queue = (uint16_t)(dir * 2 % b->t->dma_queues);
                        struct sim_operand h = sim_hbm(P, (int32_t)(2 * F), 0, dt, F);
                        if (ch < F) { /* every other chunk: gaps between the chunks */
                            uint32_t sz[2] = {F / ch, ch};
                            int32_t st[2] = {(int32_t)(2 * ch), 1};
                            sim_operand_dims(&h, 2, sz, st);
                            h.pstride = (int32_t)(4 * F);
                        }
                        struct sim_operand s = sim_sbuf(0, P, 0, dt, F);
                        in.src = dir ? s : h;
                        in.dst = dir ? h : s;
                        if ((rc = emit(b, &in, 1)))
                            return rc;
                    }
                    if (b->t->dma_transpose && ch == F && (es == 2 || es == 4) && F <= 4096) {
                        struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_TRANSPOSE);
                        in.src = sim_hbm(P, (int32_t)F, 0, dt, F);
                        in.dst = sim_sbuf(0, P, 0, dt, F);
                        if ((rc = emit(b, &in, 1)))
                            return rc;
                        in.src = sim_sbuf(0, P, 65536, dt, F);
                        if ((rc = emit(b, &in, 1)))
                            return rc;
                    }
                }
    }
    return 0;
}

int cm_microbench(const struct sim_target *t, cm_micro_fn fn, void *ctx, size_t *count,
                  struct ls_error *err)
{
    struct mb b = {t, fn, ctx, 0, err};
    int rc = pe(&b);
    if (!rc)
        rc = vec(&b);
    if (!rc)
        rc = dma(&b);
    if (count)
        *count = b.count;
    return rc;
}

/* ---- running them -------------------------------------------------------------------- */

struct runctx {
    const struct sim_target *t;
    struct cm_calib *c;
    struct trace_writer *w;
    uint64_t base;             /* record id offset: ids stay unique in the one trace */
    uint64_t t0, tmax;         /* time offset of the program running, the latest end: each
                                  program runs after the previous one in the one trace, so
                                  that its records never overlap another program's */
    const char *const *names;
    uint32_t clock[LS_ENGINE_COUNT];
    uint64_t tick_hz;
    int nomem;
};

static int rec_emit(void *ctx, const struct trace_record *r)
{
    struct runctx *x = ctx;
    struct trace_record y = *r;
    y.id += x->base;
    y.start += x->t0;
    y.end += x->t0;
    if (y.end > x->tmax)
        x->tmax = y.end;
    if (cm_calib_add_record(x->c, &y, x->names[y.opcode], x->tick_hz, x->clock, x->t->dma_engines)) {
        x->nomem = 1;
        return LS_ERR_NOMEM;
    }
    if (x->w)
        return trace_writer_write(x->w, &y, NULL);
    return 0;
}

static int run_one(void *ctx, const struct sim_program *p, struct ls_error *err)
{
    struct runctx *x = ctx;
    struct trace_sink sink = {x, rec_emit};
    struct sim_stats st;
    int rc = sim_run(x->t, p, &sink, &st, err);
    if (x->nomem)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (x->w && rc && trace_writer_error(x->w))
        *err = *trace_writer_error(x->w);
    x->base += sim_program_count(p);
    x->t0 = x->tmax + 1;
    return rc;
}

int cm_microbench_run(const struct sim_target *t, struct cm_calib *c, const char *trace_path,
                      size_t *count, struct ls_error *err)
{
    size_t nop;
    struct runctx x;
    memset(&x, 0, sizeof x);
    x.t = t;
    x.c = c;
    x.names = sim_opcode_names(&nop);
    x.tick_hz = sim_target_tick_mhz(t) * 1000000ull;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        x.clock[e] = sim_engine_mhz(t, (enum ls_engine)e);
    if (trace_path) {
        struct trace_header h;
        memset(&h, 0, sizeof h);
        h.producer = TRACE_PROD_SIM;
        h.target = t->name;
        h.target_hash = sim_target_hash(t);
        h.tick_hz = x.tick_hz;
        memcpy(h.clock_mhz, x.clock, sizeof x.clock);
        h.nopcodes = (uint32_t)nop;
        h.opcodes = x.names;
        int rc = trace_writer_open(&x.w, trace_path, &h, err);
        if (rc)
            return rc;
    }
    int rc = cm_microbench(t, run_one, &x, count, err);
    if (x.w) {
        if (rc)
            trace_writer_abort(x.w);
        else
            rc = trace_writer_close(x.w, err);
    }
    return rc;
}
