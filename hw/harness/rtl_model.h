/* hw/harness/rtl_model: a C API over the Verilator models of the tensor engine RTL
 * (hw/rtl/tensor_engine.sv). One model is compiled per array size (hw/CMakeLists.txt,
 * LAYSIM_RTL_SIZES); rtl_model_create picks the one matching rows x cols.
 *
 * Memories are reached through backdoor accessors (loading operands and reading results
 * costs no simulated cycles); instructions go through the RTL's program memory and
 * front end, and their timing comes back from the retire ports. All cycle counts are
 * cycles of the single RTL clock, which stands for each unit's own clock (PE clock for
 * PE instructions, DVE clock for DVE transposes, base clock for DMA). */
#ifndef LS_HW_RTL_MODEL_H
#define LS_HW_RTL_MODEL_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct rtl_config {
    uint32_t rows, cols;
    uint32_t background_load; /* 0 = textbook mode */
    uint32_t ls_speedup;      /* 1, 2 or 4 */
    uint32_t mm_min_ii;
    uint32_t fp32_passes;
    uint32_t dve_min_ii;
    uint32_t dma_latency;     /* DMA cycles, >= 1 */
    uint32_t dma_rate;        /* bytes per DMA cycle, even, <= 2 * max(cols, 32) */
    uint32_t dma_desc_min;    /* minimum cycles per descriptor */
};

enum rtl_op { RTL_OP_LS, RTL_OP_MM, RTL_OP_PE_TRANSPOSE, RTL_OP_DVE_TRANSPOSE, RTL_OP_DMA };
enum rtl_unit { RTL_UNIT_LS, RTL_UNIT_MM, RTL_UNIT_DVE, RTL_UNIT_DMA };

/* One RTL instruction. Addresses count 16-bit elements (SBUF, HBM) or 32-bit entries (PSUM:
 * bank * entries_per_bank + offset).
 *   LS:   k partitions x m columns at SBUF src (partitions from 0)
 *   MM:   k partitions x t moving elements at SBUF src -> PSUM dst (acc: accumulate; fp32)
 *   PE transpose: k partitions x m elements at SBUF src -> PSUM dst [m partitions x k]
 *   DVE transpose: k partitions x m elements at SBUF (p0, src) -> SBUF (p1, dst)
 *   DMA:  k partitions x m chunks of t bytes; HBM element address src, partition row stride
 *         s1 and chunk stride s2 (elements); SBUF partition p0, element address dst
 *         (chunks packed); dir 0 = HBM -> SBUF, 1 = SBUF -> HBM. */
struct rtl_instr {
    uint8_t op, acc, fp32, dir;
    uint16_t id, k, m, t, p0, p1;
    uint32_t src, dst, s1, s2;
};

struct rtl_retire {
    uint16_t id;
    uint8_t unit;       /* enum rtl_unit */
    uint64_t start, end; /* cycles from the run's start; end exclusive */
};

struct rtl_model;

/* Sizes compiled into this build: writes up to max (rows, cols) pairs, returns the count. */
size_t rtl_model_sizes(uint32_t *rows, uint32_t *cols, size_t max);
/* NULL when no model of that size was built or the config is out of range; msg says why. */
struct rtl_model *rtl_model_create(const struct rtl_config *cfg, char *msg, size_t msgn);
void rtl_model_destroy(struct rtl_model *m);
/* Change the timing knobs (same size); returns -1 (model unchanged) when out of range. */
int rtl_model_set_config(struct rtl_model *m, const struct rtl_config *cfg);

uint32_t rtl_model_sbuf_partitions(const struct rtl_model *m);
uint32_t rtl_model_sbuf_elems(const struct rtl_model *m);   /* per partition */
uint32_t rtl_model_psum_partitions(const struct rtl_model *m);
uint32_t rtl_model_psum_entries(const struct rtl_model *m); /* per partition, all banks */
uint32_t rtl_model_hbm_elems(const struct rtl_model *m);

/* Backdoor memory access (out-of-range elements are ignored / read as 0). */
void rtl_model_sbuf_write(struct rtl_model *m, uint32_t part, uint32_t addr, const int16_t *v,
                          size_t n);
void rtl_model_sbuf_read(const struct rtl_model *m, uint32_t part, uint32_t addr, int16_t *v,
                         size_t n);
void rtl_model_psum_write(struct rtl_model *m, uint32_t part, uint32_t addr, const int32_t *v,
                          size_t n);
void rtl_model_psum_read(const struct rtl_model *m, uint32_t part, uint32_t addr, int32_t *v,
                         size_t n);
void rtl_model_hbm_write(struct rtl_model *m, uint32_t addr, const int16_t *v, size_t n);
void rtl_model_hbm_read(const struct rtl_model *m, uint32_t addr, int16_t *v, size_t n);

/* Load prog[0..n) (n <= 256), run it from cycle 0 until every unit is idle, and store up to
 * cap retire events in out (in the order they retired). Returns the number of events, or
 * -1 when max_cycles passed first. *cycles gets the cycles simulated. */
long rtl_model_run(struct rtl_model *m, const struct rtl_instr *prog, size_t n,
                   struct rtl_retire *out, size_t cap, uint64_t max_cycles, uint64_t *cycles);

#ifdef __cplusplus
}
#endif

#endif
