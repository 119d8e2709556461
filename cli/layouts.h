/* cli/layouts: `laysim solve --layouts`, the chosen layouts per tensor: the producer's
 * layout label, each consumer slot's requested layout, and the conversions paid (one per
 * distinct requested layout != the produced one, as the objective charges them). Names and
 * labels are printed, so the listing reads without the .lsp. */
#ifndef LS_CLI_LAYOUTS_H
#define LS_CLI_LAYOUTS_H

#include <stdio.h>

#include <jansson.h>

#include "solver/problem.h"

/* " cycles" when p's costs are cycles (priced with a latency table: p has a table-hash
 * header), else "" (the costs of a hand-made or generated problem have no unit). */
static inline const char *cli_cost_unit(const struct lsp_problem *p)
{
    return p->tie.v[LSP_TIE_TABLE][0] ? " cycles" : "";
}

void cli_layouts_print(const struct lsp_problem *p, const int32_t *cfg, FILE *fp);
json_t *cli_layouts_json(const struct lsp_problem *p, const int32_t *cfg);

#endif
