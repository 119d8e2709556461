/* costmodel/tie: the model-hash and the other build keys of a .lsp's tie headers. */
#include "costmodel/tie.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "graph/lg.h"
#include "util/hash.h"

/* The pinned return ops, in op order, by name: "pin NAME AXIS". */
static void print_pins(FILE *fp, const struct graph *g, const int *pins)
{
    for (int32_t i = 0; pins && i < graph_nops(g); i++)
        if (pins[i] >= 0)
            fprintf(fp, "pin %s %d\n", graph_op(g, i)->name, pins[i]);
}

int cm_model_hash(const struct graph *g, const struct cg_options *cg, const int *pins,
                  uint64_t *out, struct ls_error *err)
{
    static const struct cg_options defaults = {0}; /* cg NULL: the default options */
    if (!cg)
        cg = &defaults;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    if (!fp)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = graph_write(g, fp, err);
    if (!rc) {
        fprintf(fp, "exact-transpose %d\n", cg->exact_transpose);
        if (cg->memplan == CG_MEMPLAN_PARTIAL)
            fprintf(fp, "memplan partial\n");
        print_pins(fp, g, pins);
    }
    if (fclose(fp) && !rc)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!rc)
        *out = ls_fnv1a64(text, len);
    free(text);
    return rc;
}

void cm_tie_program(struct sim_program *prog, const struct lsp_problem *p,
                    const struct sim_target *t)
{
    struct sim_program_tie tie;
    char h[20];
    memset(&tie, 0, sizeof tie);
    sim_tie_set_target(&tie, t);
    sim_tie_set(&tie, SIM_TIE_MODEL, p->tie.v[LSP_TIE_MODEL]);
    snprintf(h, sizeof h, "%016" PRIx64, lsp_problem_hash(p));
    sim_tie_set(&tie, SIM_TIE_PROBLEM, h);
    sim_program_set_tie(prog, &tie);
}

void cm_tie_set(struct lsp_tie *tie, uint64_t model_hash, const struct sim_target *t,
                const struct cm_table *tb)
{
    memset(tie, 0, sizeof *tie);
    lsp_tie_set_hash(tie, LSP_TIE_MODEL, model_hash);
    lsp_tie_set_hash(tie, LSP_TIE_TARGET, sim_target_hash(t));
    lsp_tie_set_hash(tie, LSP_TIE_TABLE, cm_table_hash(tb));
    lsp_tie_set(tie, LSP_TIE_CODEGEN, CG_VERSION);
}
