/* util/arch: names of the engines, memories and stall causes (traces and reports use them). */
#include "util/arch.h"

const char *ls_engine_name(enum ls_engine e)
{
    static const char *names[LS_ENGINE_COUNT] = {"pe", "act", "dve", "pool", "dma"};
    return (unsigned)e < LS_ENGINE_COUNT ? names[e] : "?";
}

const char *ls_stall_name(enum ls_stall s)
{
    static const char *names[LS_STALL_COUNT] = {
        "none", "dependency", "engine_busy", "dma_queue", "hbm_bandwidth", "access_conflict",
        "psum"};
    return (unsigned)s < LS_STALL_COUNT ? names[s] : "?";
}

const char *ls_mem_name(enum ls_mem m)
{
    static const char *names[LS_MEM_COUNT] = {"none", "hbm", "sbuf", "psum"};
    return (unsigned)m < LS_MEM_COUNT ? names[m] : "?";
}
