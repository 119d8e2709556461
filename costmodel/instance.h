/* costmodel/instance: one priced layout selection instance of a graph — the feasible
 * configurations of every op, the .lsp problem built from them, and the map between
 * problem ops and graph ops. The problem lists its ops in topological order, the graph in
 * creation order; whatever goes from a problem assignment back to the graph (compile,
 * simulate, report the layouts) goes through this object instead of matching op names.
 *
 * One layout choice has three encodings: the configuration index of an op (what .sol
 * files hold), the partition axis of each of the op's tensor slots (what codegen lowers)
 * and the layout index of each slot's tensor (what .lsp cfg lines hold).
 * cm_instance_layout is the one conversion between them.
 *
 *     struct cm_instance *in;
 *     cm_instance_create(m, pins, &in, &err);    // enumerate, price, build the problem
 *     ... lsp_solve(name, in->p, ...) ...
 *     cm_instance_compile(in, sol.cfg, &prog, &st, &err);
 *     cm_instance_free(in);
 */
#ifndef LS_COSTMODEL_INSTANCE_H
#define LS_COSTMODEL_INSTANCE_H

#include <stdint.h>

#include "costmodel/costmodel.h"

/* Read-only after cm_instance_create. */
struct cm_instance {
    struct cm_model *m;      /* the pricing model (borrowed: must outlive the instance) */
    const struct graph *g;   /* the model's graph */
    struct cm_cfgs cf;       /* per graph op; cfg i of an op is cfg i of its problem op */
    struct lsp_problem *p;   /* finished; tensor and op names are the graph's */
    int32_t *gop;            /* problem op -> graph op */
    int32_t *pop;            /* graph op -> problem op */
};

/* Enumerate and price every op's configurations (pins: see cm_enumerate) and build the
 * problem. */
int cm_instance_create(struct cm_model *m, const int *pins, struct cm_instance **out,
                       struct ls_error *err);
void cm_instance_free(struct cm_instance *in);

/* Configuration cfg of problem op op puts its slot `slot` (the inputs in order, then the
 * output) in partition axis *pax, which is layout index *layout of the slot's tensor.
 * Either output may be NULL. LS_ERR_INPUT when op, cfg or slot is out of range. */
int cm_instance_layout(const struct cm_instance *in, int32_t op, int32_t cfg, int slot,
                       int *pax, int32_t *layout, struct ls_error *err);

/* The map between problem and graph that compiling an assignment relies on: one problem op
 * per graph op, gop and pop inverse, and as many configurations in each problem op as in its
 * graph op (util/invariant.h: LS_ERR_INTERNAL when broken). cm_instance_create and
 * cm_instance_compile check it. */
int cm_instance_check(const struct cm_instance *in, struct ls_error *err);

/* Compile the program of a problem assignment (in->p->nops configuration indices; NULL =
 * configuration 0 everywhere). */
int cm_instance_compile(const struct cm_instance *in, const int32_t *cfg,
                        struct sim_program **out, struct cg_compile_stats *st,
                        struct ls_error *err);
/* The same into *out when it holds a program no longer needed (NULL: a new one), whose
 * memory is reused (cg_compile_reuse): what a loop compiling one assignment after
 * another (the autotuner's reward) calls. On error *out is freed and NULL. */
int cm_instance_compile_reuse(const struct cm_instance *in, const int32_t *cfg,
                              struct sim_program **out, struct cg_compile_stats *st,
                              struct ls_error *err);

#endif
