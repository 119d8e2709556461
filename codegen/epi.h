/* codegen/epi: epilogue chains, matmul -> bias add (-> activation) and conv2d ->
 * activation, lowered as one matmul or conv whose PSUM evacuation adds the bias (and
 * applies the activation) on the way to SBUF, so the fp32 product and the pre-activation
 * values never exist in SBUF or HBM. docs/costmodel.md "Epilogue chains".
 *
 * A chain is decided from the graph alone (before layouts). Its intermediate tensors have
 * one admissible layout (nothing converts them) and its ops but the last one a single
 * configuration that emits nothing; the last op carries the layout choice of the chain's
 * output and prices (and, in a program, tags) the whole chain. So C_op stays a function of
 * one op's configuration and the .lsp objective the table price of the program. */
#ifndef LS_CODEGEN_EPI_H
#define LS_CODEGEN_EPI_H

#include <stdint.h>

#include "codegen/codegen.h"
#include "sim/isa.h"

struct cg_epi {
    int32_t op[3];               /* matmul, bias add, activation; or conv2d, activation */
    int n;                       /* 2 or 3 */
    int conv;                    /* a conv2d chain (op[0] the conv, op[1] the activation) */
    int32_t x, w, bias;          /* the matmul's (conv's) input and weight, the bias weight
                                    (-1 for a conv: its bias is folded into it) */
    int32_t out;                 /* the chain's output: the last op's output */
    enum graph_op_kind act;      /* the activation's kind (GRAPH_OP_SOURCE: none) */
};

/* The chain op belongs to: its role (index in c->op) and the chain in *c, or -1. */
int cg_epi_find(const struct graph *g, int32_t op, struct cg_epi *c);
/* 1 when t is an intermediate of a chain (the matmul's output, the add's when an
 * activation follows): never materialized, one layout. */
int cg_epi_fused(const struct graph *g, int32_t t);
/* The single configuration of a chain op that is not the last one (nslots pax). */
void cg_epi_cfg(const struct graph *g, const struct cg_epi *c, int role, int8_t *pax);
/* The partition axes the chain's matmul (conv) takes when the chain's output is in
 * layout po. */
void cg_epi_mm_pax(const struct graph *g, const struct cg_epi *c, int po, int8_t *pax);
/* The function the evacuating ACT instruction applies for activation kind k (SIM_FN_NONE
 * for GRAPH_OP_SOURCE, no activation). */
enum sim_func cg_epi_act_fn(enum graph_op_kind k);

#endif
