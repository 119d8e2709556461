/* study/opattr: where a cost model's prediction and a trace part, op by op. A trace of a
 * compiled program (simulated, RTL or an imported profile whose records name their graph op
 * or conversion) is set beside the layout problem and assignment it was compiled from: per
 * graph op, the predicted cost of its chosen configuration (C_op); per conversion the
 * objective charges, its C_tr; per name, the trace's records, busy time per engine, span
 * (first start to last end) and exposed time.
 *
 * Exposed time is the calibration's (costmodel/calibrate.h, cm_groups_add_program): records
 * in program order (by instruction id), each adds the growth of the running latest end to
 * its name. The exposed times sum to the span, as the predictions sum to the objective, so
 * the difference per op kind says which ops the model gets wrong in context (an op that runs
 * under its neighbours is exposed less than its span; one that waits for them, more).
 * A conversion the objective does not charge, of a tensor of the problem, counts to the op
 * producing the tensor: a graph input entering a layout other than its own is priced in its
 * source op's C_op. Times are base-clock cycles (the .lsp's unit). Memory: 24 bytes per
 * record. */
#ifndef LS_STUDY_OPATTR_H
#define LS_STUDY_OPATTR_H

#include <stddef.h>
#include <stdint.h>

#include "solver/problem.h"
#include "traces/trace.h"
#include "util/arch.h"
#include "util/error.h"
#include "util/intern.h"

/* What a row is: a problem op, a charged conversion, records with no op or conversion
 * name, or a name the problem does not have. */
enum study_opattr_class { OPATTR_OP, OPATTR_CONV, OPATTR_UNTAGGED, OPATTR_UNKNOWN };

struct study_opattr_row {
    const char *name;        /* op name, "tensor@from->to", or "(untagged)" */
    const char *kind;        /* the op's kind, "conversion", "untagged" or "unknown" */
    enum study_opattr_class cls;
    int64_t predicted;       /* C_op of the chosen cfg or the conversion's C_tr; 0 otherwise */
    uint64_t records;        /* trace records of this name (0: none in the trace) */
    double start, end;       /* first start, last end, cycles from the trace's first start */
    double exposed;         /* cycles (see above) */
    double busy[LS_ENGINE_COUNT]; /* summed record durations per engine, cycles */
};

struct study_opattr {
    struct study_opattr_row *rows; /* problem ops, then conversions, then trace-only names */
    size_t n;
    double span;             /* cycles: the trace's first start to its last end */
    int64_t objective;       /* the assignment's objective (sum of the rows' predicted) */
    uint64_t records;        /* trace records read */
    size_t unknown;          /* rows of names the problem does not have */
    size_t silent;           /* problem rows with a nonzero prediction and no records */
    struct ls_intern names;  /* row i is named names.strs[i] */
    struct ls_intern kinds;  /* the rows' kinds (a owns every string of its rows) */
};

/* Read every record of r and attribute it. cfg: one configuration index per op of p
 * (checked). base_mhz: the clock of p's costs (> 0). A trace with no record naming an op
 * or conversion of p is bad input (LS_ERR_INPUT, saying so). */
int study_opattr_build(const struct lsp_problem *p, const int32_t *cfg, struct trace_reader *r,
                       double base_mhz, struct study_opattr *out, struct ls_error *err);
void study_opattr_free(struct study_opattr *a);

/* Totals of the rows of one kind. */
struct study_opattr_kind {
    const char *kind;
    size_t rows;             /* ops (or conversions) of this kind */
    size_t traced;           /* of which with records */
    int64_t predicted;
    double exposed, span;   /* span: summed per row */
    double busy[LS_ENGINE_COUNT];
};

/* Per-kind totals over the rows of a, kinds in order of first appearance. Returns the
 * number of kinds, or -1 when out of memory; *kinds is freed with free(). */
int study_opattr_by_kind(const struct study_opattr *a, struct study_opattr_kind **kinds);

#endif
