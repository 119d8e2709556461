/* hw/harness/rtl_cosim: the co-simulation sweep behind `laysim cosim`. Builds instruction
 * sequences (single tiles over a grid of K x M x T, back-to-back sequences with and
 * without background loading, PE and DVE transposes, DMA transfers), runs each on the RTL
 * model and on the C simulator configured with the same numbers (rtl_cosim_target), and
 * compares per-instruction start/end cycles and the numeric results. */
#ifndef LS_HW_RTL_COSIM_H
#define LS_HW_RTL_COSIM_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

struct rtl_cosim_opts {
    uint32_t rows, cols;
    const char *trace_path; /* RTL retire events as an .lstrace (producer rtl), or NULL */
    /* called after each case with the cases done and the sweep's total (the CLI's progress
     * bar; the harness itself never prints); NULL for none */
    void (*progress)(void *ctx, size_t done, size_t total);
    void *progress_ctx;
};

struct rtl_cosim_case {
    char name[96];
    const char *kind;        /* "pe", "transpose", "dve_transpose", "dma" */
    uint64_t rtl_cycles;     /* end of the last instruction, in the unit's clock */
    uint64_t sim_cycles;
    int64_t diff;            /* rtl - sim */
    uint64_t tolerance;      /* allowed |difference| per instruction (DMA only) */
    uint32_t instructions;
    uint32_t timing_mismatches; /* instructions whose start or end differs beyond tolerance */
    int timing_ok, result_ok;
};

struct rtl_cosim_report {
    struct rtl_cosim_case *cases;
    size_t n, cap;
    uint64_t rtl_cycles_simulated; /* every RTL clock cycle stepped, loading included */
    double rtl_seconds;            /* wall time inside the RTL model */
    double rtl_cpu_seconds;        /* CPU time of the same (what a loaded machine does not inflate) */
    uint64_t target_hash;          /* hash of the base cosim target */
};

/* Run the sweep. Errors: LS_ERR_INPUT when no RTL model of that size was built, others
 * for simulator or trace failures. Failing cases are reported, not errors. */
int rtl_cosim_run(const struct rtl_cosim_opts *o, struct rtl_cosim_report *rep,
                  struct ls_error *err);
void rtl_cosim_report_free(struct rtl_cosim_report *rep);

/* Array sizes compiled into this build ("8x8 16x16 32x32"). */
void rtl_cosim_sizes(char *buf, size_t n);

#endif
