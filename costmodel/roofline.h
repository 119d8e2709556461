/* costmodel/roofline: the lower bound on the run time of any program of a graph.
 *
 * Two limits bind every correct program whatever its layouts, tiling or schedule: the PE
 * array must do every multiply-accumulate of the matmuls and convolutions, and every byte
 * that starts or ends in HBM (weights, graph inputs, graph outputs) must cross the HBM
 * interface at least once. The bound is the larger of the two times (docs/costmodel.md,
 * "Roofline"); a simulated time divided into it says how close a program comes. */
#ifndef LS_COSTMODEL_ROOFLINE_H
#define LS_COSTMODEL_ROOFLINE_H

#include <stdint.h>

#include "graph/graph.h"
#include "sim/target.h"

enum cm_bound { CM_BOUND_PE, CM_BOUND_HBM };

struct cm_roofline {
    double flops;           /* 2 x MACs of matmul, batch_matmul and conv2d; others 0 */
    uint64_t min_hbm_bytes; /* weights (gathered rows only for lookup tables), inputs, outputs */
    double pe_ns;           /* flops at the bf16 peak: one MAC per PE cell per PE cycle */
    double hbm_ns;          /* min_hbm_bytes at hbm.bytes_per_ns */
    double bound_ns;        /* max(pe_ns, hbm_ns) */
    enum cm_bound bound_by; /* which of the two is larger (PE on a tie) */
};

/* Fill r from graph g (validated) and target t. */
void cm_roofline(const struct graph *g, const struct sim_target *t, struct cm_roofline *r);

/* "pe" or "hbm". */
const char *cm_bound_name(enum cm_bound b);

#endif
