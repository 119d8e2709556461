/* sim/micro: microbenchmark program builders. */
#include "sim/micro.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/isa.h"
#include "sim/sim.h"
#include "util/scan.h"

#define MAXKV 16

struct kv {
    char key[32];
    char val[64];
    int used;
};

struct spec {
    char kind[16];
    struct kv kv[MAXKV];
    int n;
};

static int parse_spec(const char *s, struct spec *sp, struct ls_error *err)
{
    memset(sp, 0, sizeof *sp);
    const char *colon = strchr(s, ':');
    size_t kl = colon ? (size_t)(colon - s) : strlen(s);
    if (kl == 0 || kl >= sizeof sp->kind)
        return ls_error_msg(err, LS_ERR_INPUT, "%s: expected KIND:key=value,...", s);
    memcpy(sp->kind, s, kl);
    if (!colon)
        return 0;
    const char *p = colon + 1;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        const char *eq = memchr(p, '=', len);
        if (sp->n == MAXKV)
            return ls_error_msg(err, LS_ERR_INPUT, "%s: at most %d key=value pairs", s, MAXKV);
        if (!eq || eq == p)
            return ls_error_msg(err, LS_ERR_INPUT, "%s: expected key=value at '%.*s'", s,
                                (int)len, p);
        size_t a = (size_t)(eq - p), b = len - a - 1;
        if (a >= sizeof sp->kv[0].key || b >= sizeof sp->kv[0].val)
            return ls_error_msg(err, LS_ERR_INPUT, "%s: '%.*s' is too long", s, (int)len, p);
        memcpy(sp->kv[sp->n].key, p, a);
        memcpy(sp->kv[sp->n].val, eq + 1, b);
        sp->n++;
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

static const char *get(struct spec *sp, const char *key)
{
    for (int i = 0; i < sp->n; i++)
        if (!strcmp(sp->kv[i].key, key)) {
            sp->kv[i].used = 1;
            return sp->kv[i].val;
        }
    return NULL;
}

static int get_u64(struct spec *sp, const char *key, uint64_t def, uint64_t lo, uint64_t hi,
                   uint64_t *out, struct ls_error *err)
{
    const char *v = get(sp, key);
    if (!v) {
        *out = def;
        return 0;
    }
    if (ls_parse_u64(v, strlen(v), out) || *out < lo || *out > hi)
        return ls_error_msg(err, LS_ERR_INPUT, "%s: %s=%s: expected an integer in [%llu, %llu]",
                            sp->kind, key, v, (unsigned long long)lo, (unsigned long long)hi);
    return 0;
}

static int get_dtype(struct spec *sp, enum ls_dtype *dt, struct ls_error *err)
{
    const char *v = get(sp, "dtype");
    *dt = LS_DT_BF16;
    if (v && ls_dtype_parse(v, strlen(v), dt))
        return ls_error_msg(err, LS_ERR_INPUT, "%s: dtype=%s: unknown dtype", sp->kind, v);
    return 0;
}

static int unused_keys(struct spec *sp, const char *known, struct ls_error *err)
{
    for (int i = 0; i < sp->n; i++)
        if (!sp->kv[i].used)
            return ls_error_msg(err, LS_ERR_INPUT, "%s: unknown key '%s' (known: %s)",
                                sp->kind, sp->kv[i].key, known);
    return 0;
}


/* Append; returns the index or -1 (err filled). */
static int64_t add(struct sim_program *p, const struct sim_instr *in, const uint32_t *deps,
                   size_t nd, struct ls_error *err)
{
    return sim_program_add(p, in, deps, nd, err);
}

#define ADD_OR_FAIL(var, in, deps, nd)                      \
    do {                                                    \
        int64_t r_ = add(p, &(in), (deps), (nd), err);      \
        if (r_ < 0)                                         \
            goto fail;                                      \
        var = (uint32_t)r_;                                 \
        (void)var;                                          \
    } while (0)

/* ---- gemm ------------------------------------------------------------------------------ */

static int build_gemm(struct spec *sp, const struct sim_target *t, struct sim_program *p,
                      struct ls_error *err)
{
    uint64_t M, K, N, swap;
    enum ls_dtype dt;
    if (get_u64(sp, "M", 128, 1, 1 << 20, &M, err) || get_u64(sp, "K", 128, 1, 1 << 20, &K, err) ||
        get_u64(sp, "N", 512, 1, 1 << 20, &N, err) || get_u64(sp, "swap", 0, 0, 1, &swap, err) ||
        get_dtype(sp, &dt, err) || unused_keys(sp, "M, K, N, dtype, swap", err))
        return err->code;
    uint64_t Ms = swap ? N : M, Nm = swap ? M : N; /* stationary / moving free sizes */
    uint64_t es = ls_dtype_size(dt);
    uint64_t R = t->pe_rows, Cc = t->pe_cols, chunk = t->pe_moving_max;
    uint64_t kt = (K + R - 1) / R, mt = (Ms + Cc - 1) / Cc, nt = (Nm + chunk - 1) / chunk;
    uint64_t s_off = 0, v_off = kt * Ms * es, o_off = v_off + kt * Nm * es;
    const int nstage = 4;
    uint64_t need = o_off + nstage * chunk * es;
    if (need > t->sbuf_usable_bytes)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "gemm: operands need %llu bytes per partition, more than the "
                            "%llu usable SBUF bytes",
                            (unsigned long long)need, (unsigned long long)t->sbuf_usable_bytes);
    if (Ms * Nm * es > (uint64_t)INT32_MAX || Nm > INT32_MAX)
        return ls_error_msg(err, LS_ERR_INPUT, "gemm: matrices too large");
    uint32_t *ls_dep = calloc(kt, sizeof *ls_dep), *mv_dep = calloc(kt, sizeof *mv_dep);
    int64_t bank_evac[64], stage_store[8];
    for (int b = 0; b < 64; b++)
        bank_evac[b] = -1;
    for (int b = 0; b < 8; b++)
        stage_store[b] = -1;
    if (!ls_dep || !mv_dep) {
        free(ls_dep);
        free(mv_dep);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (uint64_t k = 0; k < kt; k++) {
        uint32_t kp = (uint32_t)(K - k * R < R ? K - k * R : R);
        struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
        in.queue = 0;
        in.src = sim_hbm(kp, (int32_t)Ms, k * R * Ms * es, dt, (uint32_t)Ms);
        in.dst = sim_sbuf(0, kp, s_off + k * Ms * es, dt, (uint32_t)Ms);
        ADD_OR_FAIL(ls_dep[k], in, NULL, 0);
        in.queue = 1 % t->dma_queues;
        in.src = sim_hbm(kp, (int32_t)Nm, (1ull << 32) + k * R * Nm * es, dt, (uint32_t)Nm);
        in.dst = sim_sbuf(0, kp, v_off + k * Nm * es, dt, (uint32_t)Nm);
        ADD_OR_FAIL(mv_dep[k], in, NULL, 0);
    }
    uint64_t step = 0;
    for (uint64_t m = 0; m < mt; m++) {
        uint32_t mp = (uint32_t)(Ms - m * Cc < Cc ? Ms - m * Cc : Cc);
        for (uint64_t n = 0; n < nt; n++, step++) {
            uint32_t np = (uint32_t)(Nm - n * chunk < chunk ? Nm - n * chunk : chunk);
            uint32_t bank = (uint32_t)(step % t->psum_banks), stage = (uint32_t)(step % nstage);
            uint32_t last_mm = 0;
            for (uint64_t k = 0; k < kt; k++) {
                uint32_t kp = (uint32_t)(K - k * R < R ? K - k * R : R);
                struct sim_instr ls = sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY);
                ls.src = sim_sbuf(0, kp, s_off + k * Ms * es + m * Cc * es, dt, mp);
                uint32_t d1[2] = {ls_dep[k], 0}, tmp;
                ADD_OR_FAIL(tmp, ls, d1, 1);
                struct sim_instr mm = sim_instr_init(LS_ENGINE_PE, SIM_OP_MATMUL);
                mm.src = sim_sbuf(0, kp, v_off + k * Nm * es + n * chunk * es, dt, np);
                mm.dst = sim_psum(0, mp, (uint64_t)bank * t->psum_bank_bytes, LS_DT_FP32, np);
                if (k)
                    mm.flags = SIM_F_ACCUMULATE;
                uint32_t d2[2] = {mv_dep[k], 0};
                size_t nd = 1;
                if (k == 0 && bank_evac[bank] >= 0)
                    d2[nd++] = (uint32_t)bank_evac[bank];
                ADD_OR_FAIL(last_mm, mm, d2, nd);
            }
            int on_act = step % 2 == 0;
            struct sim_instr ev = sim_instr_init(on_act ? LS_ENGINE_ACT : LS_ENGINE_DVE,
                                        on_act ? SIM_OP_ACTIVATION : SIM_OP_TENSOR_COPY);
            ev.src = sim_psum(0, mp, (uint64_t)bank * t->psum_bank_bytes, LS_DT_FP32, np);
            ev.dst = sim_sbuf(0, mp, o_off + stage * chunk * es, dt, np);
            uint32_t d3[2] = {last_mm, 0}, evi, sti;
            size_t nd = 1;
            if (stage_store[stage] >= 0)
                d3[nd++] = (uint32_t)stage_store[stage];
            ADD_OR_FAIL(evi, ev, d3, nd);
            bank_evac[bank] = evi;
            struct sim_instr st = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
            st.queue = 2 % t->dma_queues;
            st.src = sim_sbuf(0, mp, o_off + stage * chunk * es, dt, np);
            st.dst = sim_hbm(mp, (int32_t)Nm, (2ull << 32) + (m * Cc * Nm + n * chunk) * es, dt, np);
            ADD_OR_FAIL(sti, st, &evi, 1);
            stage_store[stage] = sti;
        }
    }
    free(ls_dep);
    free(mv_dep);
    return 0;
fail:
    free(ls_dep);
    free(mv_dep);
    return err->code;
}

/* ---- dma --------------------------------------------------------------------------------- */

static int build_dma(struct spec *sp, const struct sim_target *t, struct sim_program *p,
                     struct ls_error *err)
{
    uint64_t B, P, count, queues, transpose;
    enum ls_dtype dt;
    const char *dir = get(sp, "dir");
    if (get_u64(sp, "bytes_per_partition", 2048, 1, 1 << 24, &B, err) ||
        get_u64(sp, "partitions", t->sbuf_partitions, 1, t->sbuf_partitions, &P, err) ||
        get_u64(sp, "count", 64, 1, 1 << 24, &count, err) ||
        get_u64(sp, "queues", 4 < t->dma_queues ? 4 : t->dma_queues, 1, t->dma_queues, &queues, err) ||
        get_u64(sp, "transpose", 0, 0, 1, &transpose, err) || get_dtype(sp, &dt, err) ||
        unused_keys(sp, "bytes_per_partition, partitions, count, queues, dir, transpose, dtype", err))
        return err->code;
    int mode = 0; /* 0 load, 1 store, 2 sbuf */
    if (dir && !strcmp(dir, "store"))
        mode = 1;
    else if (dir && !strcmp(dir, "sbuf"))
        mode = 2;
    else if (dir && strcmp(dir, "load"))
        return ls_error_msg(err, LS_ERR_INPUT, "dma: dir=%s: expected load, store or sbuf", dir);
    uint64_t es = ls_dtype_size(dt);
    if (B % es)
        return ls_error_msg(err, LS_ERR_INPUT,
                            "dma: bytes_per_partition=%llu is not a multiple of the %s size",
                            (unsigned long long)B, ls_dtype_name(dt));
    uint64_t region = mode == 2 ? t->sbuf_usable_bytes / 2 : t->sbuf_usable_bytes;
    uint64_t nbuf = region / B;
    if (nbuf == 0)
        return ls_error_msg(err, LS_ERR_INPUT, "dma: %llu bytes per partition do not fit SBUF",
                            (unsigned long long)B);
    if (nbuf > 64)
        nbuf = 64;
    uint32_t F = (uint32_t)(B / es);
    for (uint64_t i = 0; i < count; i++) {
        struct sim_instr in =
            sim_instr_init(LS_ENGINE_DMA, transpose ? SIM_OP_DMA_TRANSPOSE : SIM_OP_DMA_COPY);
        in.queue = (uint16_t)(i % queues);
        struct sim_operand hbm = sim_hbm((uint32_t)P, (int32_t)F, i * P * B, dt, F);
        struct sim_operand sb = sim_sbuf(0, (uint32_t)P, (i % nbuf) * B, dt, F);
        if (mode == 0) {
            in.src = hbm;
            in.dst = sb;
        } else if (mode == 1) {
            in.src = sb;
            in.dst = hbm;
        } else {
            in.src = sb;
            in.dst = sim_sbuf(0, (uint32_t)P, region + (i % nbuf) * B, dt, F);
        }
        if (add(p, &in, NULL, 0, err) < 0)
            return err->code;
    }
    return 0;
}

/* ---- dve / act --------------------------------------------------------------------------- */

static int build_vec(struct spec *sp, const struct sim_target *t, struct sim_program *p,
                     struct ls_error *err, int act)
{
    uint64_t F, P, count, dep;
    enum ls_dtype dt;
    const char *opname = get(sp, act ? "func" : "op");
    if (get_u64(sp, "free", act ? 1 : 2048, 1, 65536, &F, err) ||
        get_u64(sp, "partitions", t->sbuf_partitions, 1, t->sbuf_partitions, &P, err) ||
        get_u64(sp, "count", act ? 64 : 1, 1, 1 << 24, &count, err) ||
        get_u64(sp, "dep", act ? 1 : 0, 0, 1, &dep, err) || get_dtype(sp, &dt, err) ||
        unused_keys(sp, act ? "func, free, partitions, count, dep, dtype"
                            : "op, free, partitions, count, dep, dtype", err))
        return err->code;
    enum sim_func fn = act ? SIM_FN_EXP : SIM_FN_ADD;
    enum sim_opcode op = act ? SIM_OP_ACTIVATION : SIM_OP_TENSOR_TENSOR;
    if (opname) {
        if (!act && !strcmp(opname, "copy"))
            op = SIM_OP_TENSOR_COPY, fn = SIM_FN_NONE;
        else if (!act && !strcmp(opname, "reduce"))
            op = SIM_OP_TENSOR_REDUCE, fn = SIM_FN_ADD;
        else if (!act && !strcmp(opname, "memset"))
            op = SIM_OP_MEMSET, fn = SIM_FN_NONE;
        else if (!act && !strcmp(opname, "transpose"))
            op = SIM_OP_DVE_TRANSPOSE, fn = SIM_FN_NONE;
        else if (sim_func_parse(opname, strlen(opname), &fn))
            return ls_error_msg(err, LS_ERR_INPUT, "%s: unknown %s '%s'", sp->kind,
                                act ? "func" : "op", opname);
        else if (!act && fn != SIM_FN_ADD && fn != SIM_FN_SUB && fn != SIM_FN_MUL &&
                 fn != SIM_FN_MAX && fn != SIM_FN_MIN)
            op = SIM_OP_TENSOR_SCALAR;
    }
    uint64_t es = ls_dtype_size(dt);
    if (3 * F * es > t->sbuf_usable_bytes)
        return ls_error_msg(err, LS_ERR_INPUT, "%s: free=%llu does not fit SBUF three times",
                            sp->kind, (unsigned long long)F);
    uint32_t prev = 0;
    for (uint64_t i = 0; i < count; i++) {
        struct sim_instr in = sim_instr_init(act ? LS_ENGINE_ACT : LS_ENGINE_DVE, op);
        in.func = (uint8_t)fn;
        in.dst = sim_sbuf(0, (uint32_t)P, 2 * F * es, dt, (uint32_t)F);
        if (op != SIM_OP_MEMSET)
            in.src = sim_sbuf(0, (uint32_t)P, 0, dt, (uint32_t)F);
        if (op == SIM_OP_TENSOR_TENSOR)
            in.src2 = sim_sbuf(0, (uint32_t)P, F * es, dt, (uint32_t)F);
        if (op == SIM_OP_TENSOR_REDUCE)
            in.dst.size[0] = 1;
        int64_t r = add(p, &in, &prev, (dep && i) ? 1 : 0, err);
        if (r < 0)
            return err->code;
        prev = (uint32_t)r;
    }
    return 0;
}

/* ---- mix: a large realistic program for bench/sim.sh --------------------------------------
 * Each iteration (4 rotating SBUF slots, 8 PSUM banks): two loads (one strided, 4
 * descriptors per partition), 4 load_stationary + 4 matmul, PSUM evacuation split over ACT
 * and DVE, a DVE add and reduce, a POOL iota and a store; dependencies for every
 * read-after-write and for the reuse of slots and banks. 18 instructions per iteration. */
static int build_mix(struct spec *sp, const struct sim_target *t, struct sim_program *p,
                     struct ls_error *err)
{
    uint64_t total;
    if (get_u64(sp, "instructions", 1000000, 1, 1ull << 31, &total, err) ||
        unused_keys(sp, "instructions", err))
        return err->code;
    if (t->sbuf_partitions < 128 || t->pe_rows < 128 || t->pe_cols < 128 || t->psum_banks < 8 ||
        t->pe_moving_max < 256 || t->sbuf_usable_bytes < 24 * 1024)
        return ls_error_msg(err, LS_ERR_INPUT, "mix needs a target at least as large as nc-v2");
    const enum ls_dtype bf = LS_DT_BF16;
    const uint64_t A = 0, B = 8192, E = 12288, O = 20480; /* per-slot regions */
    const uint32_t nq = t->dma_queues;
    int64_t last_pe[4] = {-1, -1, -1, -1}, last_add[4] = {-1, -1, -1, -1},
            last_store[4] = {-1, -1, -1, -1}, bank_evac[8];
    for (int b = 0; b < 8; b++)
        bank_evac[b] = -1;
    uint64_t iters = (total + 17) / 18;
    for (uint64_t it = 0; it < iters; it++) {
        int slot = (int)(it % 4);
        uint32_t q = (uint32_t)((it * 3) % nq), deps[5], la, lb, mm[4], ev[4], add_i, red, st;
        size_t nd;
        /* loads */
        struct sim_instr in = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
        in.queue = (uint16_t)q;
        in.src = sim_hbm(128, 4096, (it % 64) * 128 * 4096 * 2, bf, 1024);
        uint32_t sz[2] = {4, 256};
        int32_t stv[2] = {1024, 1};
        sim_operand_dims(&in.src, 2, sz, stv);
        in.dst = sim_sbuf(0, 128, A + (uint64_t)slot * 2048, bf, 1024);
        nd = 0;
        if (last_pe[slot] >= 0)
            deps[nd++] = (uint32_t)last_pe[slot];
        ADD_OR_FAIL(la, in, deps, nd);
        in.queue = (uint16_t)((q + 1) % nq);
        in.src = sim_hbm(128, 512, (1ull << 32) + (it % 64) * 128 * 1024, bf, 512);
        in.dst = sim_sbuf(0, 128, B + (uint64_t)slot * 1024, bf, 512);
        ADD_OR_FAIL(lb, in, deps, nd);
        /* PE */
        for (uint32_t j = 0; j < 4; j++) {
            struct sim_instr ls = sim_instr_init(LS_ENGINE_PE, SIM_OP_LOAD_STATIONARY);
            ls.src = sim_sbuf(0, 128, A + (uint64_t)slot * 2048 + j * 256, bf, 128);
            uint32_t tmp;
            ADD_OR_FAIL(tmp, ls, &la, 1);
            uint32_t bank = (uint32_t)((it * 4 + j) % 8);
            struct sim_instr m = sim_instr_init(LS_ENGINE_PE, SIM_OP_MATMUL);
            m.src = sim_sbuf(0, 128, B + (uint64_t)slot * 1024 + (j % 2) * 512, bf, 256);
            m.dst = sim_psum(0, 128, (uint64_t)bank * t->psum_bank_bytes, LS_DT_FP32, 256);
            deps[0] = lb;
            nd = 1;
            if (bank_evac[bank] >= 0)
                deps[nd++] = (uint32_t)bank_evac[bank];
            ADD_OR_FAIL(mm[j], m, deps, nd);
        }
        last_pe[slot] = mm[3];
        /* evacuate PSUM: ACT for even j, DVE for odd j */
        for (uint32_t j = 0; j < 4; j++) {
            uint32_t bank = (uint32_t)((it * 4 + j) % 8);
            int on_act = j % 2 == 0;
            struct sim_instr e = sim_instr_init(on_act ? LS_ENGINE_ACT : LS_ENGINE_DVE,
                                       on_act ? SIM_OP_ACTIVATION : SIM_OP_TENSOR_COPY);
            e.func = on_act ? SIM_FN_EXP : SIM_FN_NONE;
            e.src = sim_psum(0, 128, (uint64_t)bank * t->psum_bank_bytes, LS_DT_FP32, 256);
            e.dst = sim_sbuf(0, 128, E + (uint64_t)slot * 2048 + j * 512, bf, 256);
            deps[0] = mm[j];
            nd = 1;
            if (last_add[slot] >= 0)
                deps[nd++] = (uint32_t)last_add[slot];
            ADD_OR_FAIL(ev[j], e, deps, nd);
            bank_evac[bank] = ev[j];
        }
        /* DVE: add the halves, reduce */
        struct sim_instr a = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_TENSOR);
        a.func = SIM_FN_ADD;
        a.src = sim_sbuf(0, 128, E + (uint64_t)slot * 2048, bf, 512);
        a.src2 = sim_sbuf(0, 128, E + (uint64_t)slot * 2048 + 1024, bf, 512);
        a.dst = sim_sbuf(0, 128, O + (uint64_t)slot * 1024, bf, 512);
        memcpy(deps, ev, sizeof ev);
        nd = 4;
        if (last_store[slot] >= 0)
            deps[nd++] = (uint32_t)last_store[slot];
        ADD_OR_FAIL(add_i, a, deps, nd);
        last_add[slot] = add_i;
        struct sim_instr rd = sim_instr_init(LS_ENGINE_DVE, SIM_OP_TENSOR_REDUCE);
        rd.func = SIM_FN_MAX;
        rd.src = a.dst;
        rd.dst = sim_sbuf(0, 128, O + 4096 + (uint64_t)slot * 64, bf, 1);
        ADD_OR_FAIL(red, rd, &add_i, 1);
        struct sim_instr io = sim_instr_init(LS_ENGINE_POOL, SIM_OP_IOTA);
        io.dst = sim_sbuf(0, 128, O + 8192 + (uint64_t)slot * 512, LS_DT_INT32, 64);
        uint32_t tmp;
        ADD_OR_FAIL(tmp, io, NULL, 0);
        /* store */
        struct sim_instr s = sim_instr_init(LS_ENGINE_DMA, SIM_OP_DMA_COPY);
        s.queue = (uint16_t)((q + 2) % nq);
        s.src = a.dst;
        s.dst = sim_hbm(128, 512, (2ull << 32) + (it % 64) * 128 * 1024, bf, 512);
        ADD_OR_FAIL(st, s, &add_i, 1);
        last_store[slot] = st;
    }
    return 0;
fail:
    return err->code;
}

/* The keys a kind cannot guess (sizes): a spec without them is a mistake, not a request
 * for defaults ("gemm:M=512,K=256" ran a 512x256x512 GEMM). */
static const struct {
    const char *kind, *keys;
} required[] = {{"gemm", "M,K,N"},      {"dma", "bytes_per_partition,count"},
                {"dve", "op,free"},     {"act", "free,count"},
                {"mix", "instructions"}};

static int check_required(struct spec *sp, struct ls_error *err)
{
    for (size_t i = 0; i < sizeof required / sizeof *required; i++) {
        if (strcmp(sp->kind, required[i].kind))
            continue;
        for (const char *k = required[i].keys; *k;) {
            size_t n = strcspn(k, ",");
            char key[32];
            snprintf(key, sizeof key, "%.*s", (int)n, k);
            if (!get(sp, key))
                return ls_error_msg(err, LS_ERR_INPUT, "%s: missing %s= (required: %s)",
                                    sp->kind, key, required[i].keys);
            k += n + (k[n] == ',');
        }
    }
    return 0;
}

int sim_micro_build(const char *spec, const struct sim_target *t, struct sim_program **out,
                    struct ls_error *err)
{
    *out = NULL;
    struct spec sp;
    if (parse_spec(spec, &sp, err))
        return err->code;
    struct sim_program *p = sim_program_new();
    if (!p)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc;
    if (!strcmp(sp.kind, "gemm"))
        rc = build_gemm(&sp, t, p, err);
    else if (!strcmp(sp.kind, "dma"))
        rc = build_dma(&sp, t, p, err);
    else if (!strcmp(sp.kind, "dve"))
        rc = build_vec(&sp, t, p, err, 0);
    else if (!strcmp(sp.kind, "act"))
        rc = build_vec(&sp, t, p, err, 1);
    else if (!strcmp(sp.kind, "mix"))
        rc = build_mix(&sp, t, p, err);
    else
        rc = ls_error_msg(err, LS_ERR_INPUT, "%s: unknown kind '%s' (gemm, dma, dve, act, mix)",
                          spec, sp.kind);
    if (!rc) /* after the builder, so that a misspelt key is named as unknown first */
        rc = check_required(&sp, err);
    if (!rc) /* checked where it is built: sim_run does not check it again */
        rc = sim_program_check(t, p, err);
    if (rc) {
        sim_program_free(p);
        return rc;
    }
    *out = p;
    return 0;
}
