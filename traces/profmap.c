#include "traces/profmap.h"

#include <string.h>
#include <strings.h>

#include "util/arch.h"

#define ANY (-1)

/* Profiler names from the Neuron ISA as Neuron Explorer prints them (opcode column of the
 * Instruction table), then the names laysim's own exports use. Keep docs/formats.md's copy
 * of this table in step. */
const struct trace_opmap trace_opmap_table[] = {
    {"MATMUL", LS_ENGINE_PE, "matmul"},
    {"MATMULT", LS_ENGINE_PE, "matmul"},
    {"MULT_MOVING", LS_ENGINE_PE, "matmul"},
    {"LDWEIGHTS", LS_ENGINE_PE, "load_stationary"},
    {"LOAD_WEIGHTS", LS_ENGINE_PE, "load_stationary"},
    {"LOAD_STATIONARY", LS_ENGINE_PE, "load_stationary"},
    {"TRANSPOSE", LS_ENGINE_PE, "pe_transpose"},
    {"TRANSPOSE", LS_ENGINE_DVE, "dve_transpose"},
    {"ACTIVATE", ANY, "activation"},
    {"ACTIVATION", ANY, "activation"},
    {"ACT", ANY, "activation"},
    {"ACTIVATE_REDUCE", ANY, "activation_reduce"},
    {"ACTIVATION_REDUCE", ANY, "activation_reduce"},
    {"TENSOR_TENSOR", ANY, "tensor_tensor"},
    {"TENSOR_TENSOR_ARITH", ANY, "tensor_tensor"},
    {"TENSOR_SCALAR", ANY, "tensor_scalar"},
    {"TENSOR_SCALAR_PTR", ANY, "tensor_scalar"},
    {"TENSOR_COPY", ANY, "tensor_copy"},
    {"COPY", ANY, "tensor_copy"},
    {"TENSOR_REDUCE", ANY, "tensor_reduce"},
    {"MEMSET", ANY, "memset"},
    {"IOTA", ANY, "iota"},
    {"PARTITION_REDUCE", ANY, "partition_reduce"},
    {"PARTITION_ALL_REDUCE", ANY, "partition_reduce"},
    {"GATHER", ANY, "gather"},
    {"DMA_TRANSPOSE", ANY, "dma_transpose"},
    {"DMA*", ANY, "dma_copy"},     /* "DMA", "dma_copy", "DMA_DESCRIPTOR" ... */
    {"q*", LS_ENGINE_DMA, "dma_copy"}, /* DMA queue names: qSyncIO0, qScalarSpillReload0-Q1 */
};
const size_t trace_opmap_count = sizeof trace_opmap_table / sizeof trace_opmap_table[0];

static int name_matches(const char *pat, const char *s, size_t n)
{
    size_t pl = strlen(pat);
    if (pl && pat[pl - 1] == '*')
        return n >= pl - 1 && strncasecmp(pat, s, pl - 1) == 0;
    return pl == n && strncasecmp(pat, s, n) == 0;
}

const char *trace_opmap_lookup(const char *name, size_t n, int engine)
{
    for (size_t i = 0; i < trace_opmap_count; i++) {
        const struct trace_opmap *m = &trace_opmap_table[i];
        if (strlen(m->to) == n && strncasecmp(m->to, name, n) == 0)
            return m->to; /* laysim's own name, any case */
    }
    for (size_t i = 0; i < trace_opmap_count; i++) {
        const struct trace_opmap *m = &trace_opmap_table[i];
        if ((m->engine == ANY || m->engine == engine) && name_matches(m->from, name, n))
            return m->to;
    }
    return NULL;
}
