/* costmodel/tie: the values of the `# key: value` headers that tie a .lsp to what it was
 * built from (solver/tie.h): the model-hash, computed from the model spec, its scaling
 * options and the lowering options, and the target, table and codegen keys. `laysim
 * problem|solve MODEL` and the API's laysim_instance_new both call these, so a .sol
 * written by either carries the same headers for the same model, target and table. */
#ifndef LS_COSTMODEL_TIE_H
#define LS_COSTMODEL_TIE_H

#include <stdint.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "graph/model.h"
#include "sim/target.h"
#include "solver/tie.h"
#include "util/error.h"

/* FNV-1a-64 over a canonical text of what shapes the graph and its lowering: the zoo name
 * ("zoo:NAME") or, for a file, its contents (a moved file still matches), the scaling
 * options, autocast, cg's exact_transpose and memplan (cg NULL: the defaults) and the
 * output-layout pins (npins "NAME=AXIS" strings, in any order: they are sorted). LS_ERR_IO
 * when the file cannot be read. */
int cm_model_hash(const char *spec, const struct zoo_opts *zo, const struct cg_options *cg,
                  const char *const *pins, int npins, uint64_t *out, struct ls_error *err);
/* Set the model, target, table and codegen keys of tie (the other keys are cleared). */
void cm_tie_set(struct lsp_tie *tie, uint64_t model_hash, const struct sim_target *t,
                const struct cm_table *tb);

#endif
