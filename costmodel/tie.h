/* costmodel/tie: the values of the `# key: value` headers that tie a .lsp to what it was
 * built from (solver/lsp_tie.h): the model-hash, computed from the loaded graph and the
 * lowering options, and the target, table and codegen keys. `laysim
 * problem|solve MODEL` and the API's laysim_instance_new both call these, so a .sol
 * written by either carries the same headers for the same model, target and table. */
#ifndef LS_COSTMODEL_TIE_H
#define LS_COSTMODEL_TIE_H

#include <stdint.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "graph/model.h"
#include "sim/program.h"
#include "sim/target.h"
#include "solver/lsp_tie.h"
#include "util/error.h"

/* FNV-1a-64 over a canonical text of what shapes the problem: the loaded graph as .lg text
 * (graph_write: every tensor's name, dtype, shape and roles, every op in order with its
 * kind, attributes, inputs and output), so the hash follows the content and not how the
 * model was named or scaled (`--decode 64` and `--decode 128`, the ONNX `--input` shapes,
 * a moved or re-exported file), then cg's exact_transpose and memplan (cg NULL: the
 * defaults) and the output-layout pins (pins: the pinned axis per op, < 0 none; NULL:
 * none). LS_ERR_NOMEM when out of memory. */
int cm_model_hash(const struct graph *g, const struct cg_options *cg, const int *pins,
                  uint64_t *out, struct ls_error *err);
/* Record in prog (compiled from p for t) what it was built for: t's name and hash, p's
 * model-hash and problem-hash (sim/program.h "tie"). `laysim compile` and laysim_compile. */
void cm_tie_program(struct sim_program *prog, const struct lsp_problem *p,
                    const struct sim_target *t);
/* Set the model, target, table and codegen keys of tie (the other keys are cleared). */
void cm_tie_set(struct lsp_tie *tie, uint64_t model_hash, const struct sim_target *t,
                const struct cm_table *tb);

#endif
