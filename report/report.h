/* report/report: the study's report, computed from the results database's rows alone
 * (docs/study.md): report.html (self-contained, tables and inline SVG plots),
 * report.md, results.json, and CSV files (cells.csv, table1.csv, whatif.csv), each written
 * atomically; and the terminal summary (the Table 1 analogue and the headline figures).
 *
 * The report/ layer owns rendering only; it may include study/ (the rows, struct
 * study_cells of study/db.h, and the fidelity metrics of study/validate.h) and util/.
 * The CLI calls it after a study, a what-if sweep or a merge. */
#ifndef LS_REPORT_H
#define LS_REPORT_H

#include <stdio.h>

#include "study/db.h"
#include "util/error.h"

struct report_opts {
    const char *kind;          /* "study" or "whatif" */
    const char *command;       /* the command line, shown in the report */
    double seconds;            /* wall time of the run (0 = unknown, e.g. after merge) */
    int calibration_api;       /* 1: calibrated tables from the loop's fit (in sample) */
    const char *base_hash;     /* what-if: hash of the base target ("" = first target) */
};

/* Write every report file into dir (which must exist). */
int report_write(const struct study_cells *cells, const struct report_opts *o,
                       const char *dir, struct ls_error *err);

/* The terminal summary. */
void report_terminal(const struct study_cells *cells, const struct report_opts *o,
                           FILE *out);

#endif
