/* util/arch: the core's engines, memories and stall causes. The ISA (sim/) builds on them
 * and traces/ records them, so they live at the bottom layer that both may include. The
 * names are part of the trace format and the reports: append, never reorder. */
#ifndef LS_UTIL_ARCH_H
#define LS_UTIL_ARCH_H

enum ls_engine {
    LS_ENGINE_PE,
    LS_ENGINE_ACT,
    LS_ENGINE_DVE,
    LS_ENGINE_POOL,
    LS_ENGINE_DMA,
    LS_ENGINE_COUNT
};

/* Why an instruction started later than its issue point. Enumerated once, here. */
enum ls_stall {
    LS_STALL_NONE,
    LS_STALL_DEPENDENCY,      /* waiting on a semaphore / dependency */
    LS_STALL_ENGINE_BUSY,     /* the engine was still running something else */
    LS_STALL_DMA_QUEUE,       /* waiting for a DMA queue / engine */
    LS_STALL_HBM_BANDWIDTH,   /* shared HBM bandwidth saturated */
    LS_STALL_ACCESS_CONFLICT, /* NC-v2 SBUF/PSUM engine access conflict */
    LS_STALL_PSUM,            /* waiting for a PSUM bank */
    LS_STALL_COUNT
};

enum ls_mem { LS_MEM_NONE, LS_MEM_HBM, LS_MEM_SBUF, LS_MEM_PSUM, LS_MEM_COUNT };

const char *ls_engine_name(enum ls_engine e); /* "pe", "act", "dve", "pool", "dma" */
const char *ls_stall_name(enum ls_stall s);   /* "none", "dependency", ... */
const char *ls_mem_name(enum ls_mem m);       /* "none", "hbm", "sbuf", "psum" */

#endif
