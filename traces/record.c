#include "traces/record.h"

const char *trace_engine_name(enum trace_engine e)
{
    static const char *names[TRACE_ENG_COUNT] = {"pe", "act", "dve", "pool", "dma"};
    return (unsigned)e < TRACE_ENG_COUNT ? names[e] : "?";
}

const char *trace_stall_name(enum trace_stall s)
{
    static const char *names[TRACE_STALL_COUNT] = {
        "none", "dependency", "engine_busy", "dma_queue", "hbm_bandwidth", "access_conflict",
        "psum"};
    return (unsigned)s < TRACE_STALL_COUNT ? names[s] : "?";
}

const char *trace_mem_name(enum trace_mem m)
{
    static const char *names[TRACE_MEM_COUNT] = {"none", "hbm", "sbuf", "psum"};
    return (unsigned)m < TRACE_MEM_COUNT ? names[m] : "?";
}
