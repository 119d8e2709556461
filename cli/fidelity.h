/* cli/fidelity: the JSON of `laysim validate` and `laysim loop` (docs/calibration.md),
 * built from the C results of study/loop.h where they are printed. Keys and their order
 * are the commands' output format: undefined figures (NaN) print as null. */
#ifndef LS_CLI_FIDELITY_H
#define LS_CLI_FIDELITY_H

#include <jansson.h>

#include "study/loop.h"

json_t *cli_validation_json(const struct study_validation *v);
/* {models, within_1pct, max, median} of exact's regret (study/regret.h) */
json_t *cli_regret_json(const struct study_regret *r);
json_t *cli_loop_json(const struct study_loop_result *r);
/* `laysim validate --measured`: the figures of a manifest (study/measured.h). */
struct study_measured;
json_t *cli_measured_json(const struct study_measured *m, const char *path);

#endif
