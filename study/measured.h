/* study/measured: cost-model fidelity against times measured outside laysim's simulator
 * (a hardware profile, another simulator). The input is a manifest, as
 * `laysim validate --emit DIR` writes it (docs/calibration.md, "Measured references"): a
 * CSV with a header line naming its columns, one row per (model, strategy):
 *   model, strategy, predicted_cycles          required
 *   assignment                                  optional: rows of one model with the same
 *                                               value are identical assignments (their pairs
 *                                               are excluded and counted, as in validate)
 *   base_mhz                                    optional: the clock of predicted_cycles
 *                                               (default: the caller's target's)
 *   measured_ns | measured_us | measured_cycles | trace
 *                                               at least one column, exactly one value per
 *                                               row: a time, or a .lstrace (a simulator's,
 *                                               or a profile brought in by `laysim trace
 *                                               import`) whose span, first start to last
 *                                               end, is the time; relative paths are read
 *                                               from the manifest's directory
 * '#' lines and blank lines are skipped; a field may be double-quoted ("" inside = ").
 * Every other column (program, simulated_cycles...) is ignored. The figures are those of
 * study/validate.h with the measured time in place of the simulated one. */
#ifndef LS_STUDY_MEASURED_H
#define LS_STUDY_MEASURED_H

#include <stdint.h>

#include "study/loop.h"
#include "study/validate.h"
#include "util/error.h"
#include "util/vec.h"

struct study_measured_point {
    char strategy[32];
    int line;                  /* of the manifest */
    uint64_t assignment;
    int has_assignment;
    int32_t akey[2];           /* assignment as the configuration vector study/validate.h
                                  compares (identical assignments) */
    double predicted;          /* base-clock cycles */
    double measured;           /* base-clock cycles (of the row's base_mhz) */
};

struct study_measured_model {
    char *model;               /* owned */
    int n;
    struct study_measured_point pt[STUDY_CRITERION_MAX];
    struct study_metrics metrics;
    int exact;                 /* index of the strategy "exact", -1: none */
    struct study_criterion criterion;  /* exact >= 0 only */
};

struct study_measured {
    LS_VEC(struct study_measured_model) models;
    struct study_metrics all;  /* pairs over every model; tau = mean over models */
    int exact_within_1pct_all; /* over the models with an exact row */
    int rows;
};

/* Read and evaluate the manifest at path; base_mhz: the clock of rows without one. On
 * error (LS_ERR_INPUT naming the file, line and column) *out is empty. */
int study_measured_read(const char *path, double base_mhz, struct study_measured *out,
                        struct ls_error *err);
void study_measured_free(struct study_measured *m);

/* Write the manifest of a validation whose programs were written (study_loop_opts:
 * program_dir) to path, atomically: every column above, measured_ns and trace empty for
 * the user to fill, program named relative to the manifest (its file name when the
 * programs are beside it), simulated_cycles the simulator's time for reference; command (may
 * be NULL): the command line that made it, as a comment (the model specs alone do not say
 * their scaling). */
int study_measured_write(const struct study_validation *v, const char *path, double base_mhz,
                         const char *command, struct ls_error *err);

#endif
