/* sim/isa: name tables, operand helpers and the features of an instruction. */
#include "sim/isa.h"
#include "sim/sim_int.h"

#include <string.h>

static const char *const opcode_names[SIM_OP_COUNT] = {
    [SIM_OP_LOAD_STATIONARY] = "load_stationary",
    [SIM_OP_MATMUL] = "matmul",
    [SIM_OP_PE_TRANSPOSE] = "pe_transpose",
    [SIM_OP_ACTIVATION] = "activation",
    [SIM_OP_ACTIVATION_REDUCE] = "activation_reduce",
    [SIM_OP_TENSOR_TENSOR] = "tensor_tensor",
    [SIM_OP_TENSOR_SCALAR] = "tensor_scalar",
    [SIM_OP_TENSOR_COPY] = "tensor_copy",
    [SIM_OP_TENSOR_REDUCE] = "tensor_reduce",
    [SIM_OP_DVE_TRANSPOSE] = "dve_transpose",
    [SIM_OP_MEMSET] = "memset",
    [SIM_OP_IOTA] = "iota",
    [SIM_OP_PARTITION_REDUCE] = "partition_reduce",
    [SIM_OP_GATHER] = "gather",
    [SIM_OP_DMA_COPY] = "dma_copy",
    [SIM_OP_DMA_TRANSPOSE] = "dma_transpose",
};

/* Bit e set when the opcode may run on engine e. */
#define E(x) (1u << LS_ENGINE_##x)
static const unsigned opcode_engines[SIM_OP_COUNT] = {
    [SIM_OP_LOAD_STATIONARY] = E(PE),
    [SIM_OP_MATMUL] = E(PE),
    [SIM_OP_PE_TRANSPOSE] = E(PE),
    [SIM_OP_ACTIVATION] = E(ACT),
    [SIM_OP_ACTIVATION_REDUCE] = E(ACT),
    [SIM_OP_TENSOR_TENSOR] = E(DVE) | E(POOL),
    [SIM_OP_TENSOR_SCALAR] = E(DVE) | E(ACT) | E(POOL),
    [SIM_OP_TENSOR_COPY] = E(DVE) | E(ACT) | E(POOL),
    [SIM_OP_TENSOR_REDUCE] = E(DVE),
    [SIM_OP_DVE_TRANSPOSE] = E(DVE),
    [SIM_OP_MEMSET] = E(DVE) | E(POOL),
    [SIM_OP_IOTA] = E(POOL),
    [SIM_OP_PARTITION_REDUCE] = E(POOL),
    [SIM_OP_GATHER] = E(POOL),
    [SIM_OP_DMA_COPY] = E(DMA),
    [SIM_OP_DMA_TRANSPOSE] = E(DMA),
};
#undef E

static const char *const func_names[SIM_FN_COUNT] = {
    [SIM_FN_NONE] = "none",       [SIM_FN_ADD] = "add",   [SIM_FN_SUB] = "sub",
    [SIM_FN_MUL] = "mul",         [SIM_FN_MAX] = "max",   [SIM_FN_MIN] = "min",
    [SIM_FN_RECIPROCAL] = "reciprocal", [SIM_FN_EXP] = "exp", [SIM_FN_RELU] = "relu",
    [SIM_FN_GELU] = "gelu",       [SIM_FN_TANH] = "tanh", [SIM_FN_SIGMOID] = "sigmoid",
    [SIM_FN_SQRT] = "sqrt",       [SIM_FN_RSQRT] = "rsqrt",
};

static int match(const char *const *names, int count, const char *s, size_t n)
{
    for (int i = 0; i < count; i++)
        /* first byte first: no strlen of every name for every token */
        if (names[i] && n && names[i][0] == s[0] && strnlen(names[i], n + 1) == n &&
            !memcmp(names[i], s, n))
            return i;
    return -1;
}

const char *const *sim_opcode_names(size_t *n)
{
    if (n)
        *n = SIM_OP_COUNT;
    return opcode_names;
}

const char *sim_opcode_name(enum sim_opcode op)
{
    return (unsigned)op < SIM_OP_COUNT ? opcode_names[op] : "?";
}

int sim_opcode_parse(const char *s, size_t n, enum sim_opcode *out)
{
    int i = match(opcode_names, SIM_OP_COUNT, s, n);
    if (i < 0)
        return -1;
    *out = (enum sim_opcode)i;
    return 0;
}

int sim_opcode_on_engine(enum sim_opcode op, enum ls_engine e)
{
    return (unsigned)op < SIM_OP_COUNT && (unsigned)e < LS_ENGINE_COUNT &&
           (opcode_engines[op] >> e & 1u);
}

const char *sim_func_name(enum sim_func f)
{
    return (unsigned)f < SIM_FN_COUNT ? func_names[f] : "?";
}

int sim_func_parse(const char *s, size_t n, enum sim_func *out)
{
    int i = match(func_names, SIM_FN_COUNT, s, n);
    if (i < 0) {
        /* aliases */
        if (n == 8 && !memcmp(s, "identity", 8))
            i = SIM_FN_NONE;
        else if (n == 4 && !memcmp(s, "copy", 4))
            i = SIM_FN_NONE;
        else
            return -1;
    }
    *out = (enum sim_func)i;
    return 0;
}

int sim_engine_parse(const char *s, size_t n, enum ls_engine *out)
{
    for (int e = 0; e < LS_ENGINE_COUNT; e++) {
        const char *nm = ls_engine_name((enum ls_engine)e);
        if (n && nm[0] == s[0] && strnlen(nm, n + 1) == n && !memcmp(nm, s, n)) {
            *out = (enum ls_engine)e;
            return 0;
        }
    }
    return -1;
}

void sim_operand_dims(struct sim_operand *o, int ndim, const uint32_t *size,
                      const int32_t *stride)
{
    if (ndim > SIM_AP_MAX_DIMS)
        ndim = SIM_AP_MAX_DIMS;
    o->ndim = (uint8_t)(ndim < 0 ? 0 : ndim);
    for (int i = 0; i < SIM_AP_MAX_DIMS; i++) {
        o->size[i] = i < o->ndim ? size[i] : 0;
        o->stride[i] = i < o->ndim ? stride[i] : 0;
    }
}

uint64_t sim_operand_run(const struct sim_operand *o)
{
    uint64_t run = 1;
    int64_t expect = 1;
    for (int i = o->ndim - 1; i >= 0; i--) {
        if (o->size[i] == 1)
            continue; /* a size-1 dim never breaks contiguity */
        if (o->stride[i] != expect)
            break;
        run *= o->size[i];
        expect = (int64_t)run;
    }
    return run;
}

void sim_operand_extent_rel(const struct sim_operand *o, __int128 *lo, __int128 *hi)
{
    __int128 mn = 0, mx = 0;
    for (int i = 0; i < o->ndim; i++) {
        if (o->size[i] == 0)
            continue;
        __int128 span = (__int128)(o->size[i] - 1) * o->stride[i];
        if (span < 0)
            mn += span;
        else
            mx += span;
    }
    __int128 es = (__int128)ls_dtype_size((enum ls_dtype)o->dtype);
    *lo = mn * es;
    *hi = (mx + 1) * es;
}

int sim_operand_extent(const struct sim_operand *o, uint64_t *lo, uint64_t *hi)
{
    __int128 rl, rh;
    sim_operand_extent_rel(o, &rl, &rh);
    __int128 base = (__int128)o->addr;
    __int128 l = base + rl, h = base + rh;
    if (l < 0 || h > (__int128)UINT64_MAX)
        return -1;
    *lo = (uint64_t)l;
    *hi = (uint64_t)h;
    return 0;
}

uint64_t sim_gcd64(uint64_t a, uint64_t b)
{
    while (b) {
        uint64_t r = a % b;
        a = b;
        b = r;
    }
    return a;
}

uint64_t sim_dma_chunks(uint64_t e, uint64_t a, uint64_t b)
{
    if (e % a == 0 && e % b == 0)
        return e / a + e / b - e / (a / sim_gcd64(a, b) * b);
    uint64_t m = a < b ? a : b;
    return (e + m - 1) / m;
}

double sim_dma_engine_descs(uint32_t partitions, double chunks_per_partition, uint32_t engines)
{
    uint32_t E = engines ? engines : 1;
    return (double)((partitions + E - 1) / E) * chunks_per_partition;
}

double sim_dma_chunk_bytes(uint64_t bytes_per_partition, double chunks_per_partition)
{
    return (double)bytes_per_partition / chunks_per_partition;
}

static void dma_features(const struct sim_instr *in, struct sim_features *f)
{
    const struct sim_operand *d = &in->dst, *s = &in->src;
    const struct sim_operand *side = d->mem != LS_MEM_HBM ? d : s->mem != LS_MEM_HBM ? s : d;
    f->partitions = side->nparts;
    f->part_start = side->mem == LS_MEM_HBM ? 0 : side->part_start;
    uint64_t e = f->partitions ? (uint64_t)s->nparts * sim_operand_free(s) / f->partitions : 0;
    if (e == 0)
        e = 1;
    uint64_t a = sim_operand_run(s), b = sim_operand_run(d);
    if (a > e)
        a = e;
    if (b > e)
        b = e;
    if (in->opcode == SIM_OP_DMA_TRANSPOSE)
        b = a; /* the engines assemble transposed tiles; chunks follow the source rows */
    size_t es = ls_dtype_size((enum ls_dtype)s->dtype), ed = ls_dtype_size((enum ls_dtype)d->dtype);
    f->bytes_per_partition = e * (es > ed ? es : ed);
    f->chunks_per_partition = sim_dma_chunks(e, a, b);
    f->hbm_sides = (s->mem == LS_MEM_HBM) + (d->mem == LS_MEM_HBM);
}

void sim_features(const struct sim_instr *in, struct sim_features *f)
{
    memset(f, 0, sizeof *f);
    const struct sim_operand *s = &in->src;
    switch ((enum sim_opcode)in->opcode) {
    case SIM_OP_DMA_COPY:
    case SIM_OP_DMA_TRANSPOSE: dma_features(in, f); return;
    case SIM_OP_LOAD_STATIONARY: f->n = s->nparts; return;
    case SIM_OP_MATMUL:
    case SIM_OP_PE_TRANSPOSE: f->n = sim_operand_free(s); return;
    default: {
        uint64_t a = s->mem != LS_MEM_NONE ? sim_operand_free(s) : 0, b = sim_operand_free(&in->dst);
        f->n = a > b ? a : b;
    }
    }
}
