/* sim/sim_cost: per-instruction costs of the ACT/DVE/POOL engines and the closed-form DMA
 * descriptor buckets (docs/targets.md, "Timing model"). */
#include "sim/sim.h"
#include "sim/sim_int.h"

static int is16(uint8_t dt)
{
    return dt == LS_DT_BF16 || dt == LS_DT_FP16;
}

static int wide_stride(const struct sim_target *t, const struct sim_operand *o)
{
    if (o->mem == LS_MEM_NONE || o->ndim == 0)
        return 0;
    int64_t st = o->stride[o->ndim - 1];
    if (st < 0)
        st = -st;
    return (uint64_t)st * ls_dtype_size((enum ls_dtype)o->dtype) > t->vec_wide_stride_bytes;
}

static int contiguous(const struct sim_operand *o)
{
    return o->mem == LS_MEM_NONE || sim_operand_run(o) == sim_operand_free(o);
}

static int in_sbuf(const struct sim_operand *o)
{
    return o->mem == LS_MEM_NONE || o->mem == LS_MEM_SBUF;
}

uint64_t sim_vec_cycles(const struct sim_target *t, const struct sim_instr *in)
{
    const struct sim_operand *d = &in->dst, *s = &in->src, *s2 = &in->src2;
    struct sim_features f;
    sim_features(in, &f);
    uint64_t n = f.n;
    unsigned k2 = 2; /* k x 2: 1 = 0.5, 2 = 1, 4 = 2, 16 = 8 */
    unsigned perf = 1;
    int dve = in->engine == LS_ENGINE_DVE;
    switch ((enum sim_opcode)in->opcode) {
    case SIM_OP_IOTA:
    case SIM_OP_GATHER:
        return t->pool_start_cycles + n;
    case SIM_OP_PARTITION_REDUCE:
        return t->pool_start_cycles + n * ((in->flags & SIM_F_ALL) ? 3 : 2);
    case SIM_OP_TENSOR_TENSOR: {
        int mixed = (s->mem == LS_MEM_PSUM) != (s2->mem == LS_MEM_PSUM);
        int fast_alu = in->func == SIM_FN_ADD || in->func == SIM_FN_MUL || in->func == SIM_FN_SUB;
        int fast = mixed || (fast_alu && d->dtype == LS_DT_BF16 && s->dtype == LS_DT_BF16 &&
                             s2->dtype == LS_DT_BF16 && s->mem == LS_MEM_SBUF &&
                             s2->mem == LS_MEM_SBUF && contiguous(s) && contiguous(s2));
        k2 = fast ? 2 : 4;
        if (dve && t->vec_perf_modes && s->mem == LS_MEM_SBUF && s2->mem == LS_MEM_SBUF &&
            is16(s->dtype) && is16(s2->dtype))
            perf = 2;
        break;
    }
    case SIM_OP_TENSOR_SCALAR:
    case SIM_OP_TENSOR_COPY:
        if (dve && in->func == SIM_FN_RECIPROCAL)
            k2 = 16;
        if (dve && t->vec_perf_modes) {
            int c = (in_sbuf(s) && in_sbuf(d)) + (is16(s->dtype) && is16(d->dtype)) +
                    (contiguous(s) && contiguous(d));
            perf = c == 3 ? 4 : c == 2 ? 2 : 1;
        }
        break;
    case SIM_OP_TENSOR_REDUCE:
        if (s->dtype == LS_DT_BF16 && d->dtype == LS_DT_BF16 &&
            (in->func == SIM_FN_ADD || in->func == SIM_FN_MAX))
            k2 = 1;
        break;
    case SIM_OP_MEMSET:
        if (is16(d->dtype))
            k2 = 1;
        break;
    default: /* activation, activation_reduce, dve_transpose */
        break;
    }
    if (wide_stride(t, d) || wide_stride(t, s) || wide_stride(t, s2))
        k2 *= 2;
    uint64_t c = (n * k2 + 2 * perf - 1) / (2 * perf);
    if (c < t->vec_min_ii)
        c = t->vec_min_ii;
    if (in->opcode == SIM_OP_ACTIVATION_REDUCE)
        c += t->vec_min_ii; /* the accumulator readout */
    return c;
}

int sim_desc_bucket(uint64_t chunk_bytes)
{
    return chunk_bytes < 512 ? 0 : chunk_bytes < 2048 ? 1 : chunk_bytes < 8192 ? 2 : 3;
}

const char *sim_desc_bucket_name(int b)
{
    static const char *const names[SIM_DESC_BUCKETS] = {"lt512", "512_2k", "2k_8k", "ge8k"};
    return b >= 0 && b < SIM_DESC_BUCKETS ? names[b] : "?";
}
