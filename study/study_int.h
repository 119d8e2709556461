/* study/study_int: what the study driver (study_run.c) shares with its mcts cell
 * (study_mcts.c). Internal to the study layer. */
#ifndef LS_STUDY_STUDY_INT_H
#define LS_STUDY_STUDY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "costmodel/costmodel.h"
#include "graph/graph.h"
#include "study/pipeline.h"
#include "study/db.h"
#include "study/study.h"
#include "util/error.h"

/* One (model, target) pair of the grid and the cells it produced. */
struct job {
    size_t model, target;
    int calibrated; /* the pair's calibrated-table cells (a job apart: the largest models'
                     * tuning dominated the run, and two halves share two threads better) */
    struct study_cells out;
    int rc;
    struct ls_error err;
};

/* Per problem op "name=pax,pax,..;" of an assignment (malloc'd; NULL when out of memory). */
char *study_layouts_of(struct study_pipe *pp, const int32_t *cfg);
/* A cell's key and description fields for (model, target, strategy, table). */
void study_cell_base(struct study_cell *c, const struct study_model *m, size_t mi,
                     const struct study_target *t, size_t ti, const char *strategy,
                     const char *table, const struct cm_table *tb, int64_t ops, int tw);
void study_cell_error(struct study_cell *c, int rc, const struct ls_error *e);
/* The simulated figures and layouts of a pipeline run into c (LS_ERR_NOMEM on failure). */
int study_cell_fill(struct study_cell *c, struct study_pipe *pp, const struct study_run *run,
                    struct ls_error *err);

/* The autotuner cell of job j under table tb: MCTS from exact's assignment `start` (NULL
 * when exact failed: the cell records exact_rc / exact_msg), pushed into j->out. Non-zero
 * only for hard errors (memory, internal). */
int study_run_mcts(const struct study_opts *o, struct job *j, struct study_pipe *pp,
                   const struct cm_table *tb, const char *tname, int tw, const int32_t *start,
                   int exact_rc, const char *exact_msg,
                   struct ls_error *err);

#endif
