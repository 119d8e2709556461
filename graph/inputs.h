/* graph/inputs: the `--input NAME=1x3x224x224` specs importers use for the shapes of graph
 * inputs whose dims the model leaves unknown. zoo_opts.inputs holds the entries joined by
 * ';' ("ids=1x128;mask=1x128"). */
#ifndef LS_GRAPH_INPUTS_H
#define LS_GRAPH_INPUTS_H

#include <stdint.h>

#include "graph/graph.h"
#include "util/error.h"

/* Check every entry of spec (NULL or "" is fine): NAME=D1xD2..., dims in 1..GRAPH_MAX_DIM,
 * rank <= GRAPH_MAX_RANK (rank 0: "NAME="), optionally ":VALUE" (a number every element of
 * the input holds: "sr=:16000"). LS_ERR_INPUT naming the entry. */
int graph_inputs_check(const char *spec, struct ls_error *err);

/* The dims given for input `name`: 1 and *rank, dims filled when spec names it, 0 when it
 * does not, LS_ERR_INPUT-negated (-1) with err set when its entry is malformed. */
int graph_inputs_find(const char *spec, const char *name, int *rank, int64_t *dims,
                      struct ls_error *err);

/* 1 and *val when spec gives input `name` a value (NAME=DIMS:VALUE), else 0 (a malformed
 * spec gives 0: graph_inputs_check reports it). */
int graph_inputs_value(const char *spec, const char *name, double *val);

/* Every entry of spec must name one of the model's inputs names[0..n) (with tf_ports, "x:0"
 * names input "x" too). 0, or LS_ERR_INPUT naming the first unknown entry and listing the
 * model's inputs (file: for the message). */
int graph_inputs_known(const char *spec, const char *const *names, size_t n, int tf_ports,
                       const char *file, struct ls_error *err);

/* The same for one entry name name[0..len). */
int graph_input_known(const char *name, size_t len, const char *const *names, size_t n,
                      int tf_ports, const char *file, struct ls_error *err);

/* `--batch N` on the graph inputs of an imported model. It replaces an unknown axis 0, and
 * also a declared axis 0 of 1 on an input of rank 2 or more (models exported with a dummy
 * batch of 1); an input whose axis 0 is fixed at another size keeps it. An importer keeps
 * one of these per import (batch 0: --batch not given). */
struct graph_batch {
    int64_t batch;                 /* the --batch value, 0 when not given */
    int used;                      /* some input took it (or already had it) */
    char forced[GRAPH_MAX_NAME + 1];   /* the first input whose declared 1 it replaced */
    char refused[GRAPH_MAX_NAME + 1];  /* the first input whose fixed axis 0 it could not */
    int64_t refused_dim;
};

/* The sizes an imported model's unknown input dims take when no option gives them: axis 0
 * (and any dim named like a batch) GRAPH_IMPORT_BATCH_DEFAULT, sequence-like dims
 * GRAPH_IMPORT_SEQ_DEFAULT (the CLI's --batch and --seq help spells them). */
#define GRAPH_IMPORT_BATCH_DEFAULT 1
#define GRAPH_IMPORT_SEQ_DEFAULT 128

void graph_batch_init(struct graph_batch *b, int64_t batch);
/* The size of axis 0 of input `name` (rank) that declares `declared` there (<= 0: unknown,
 * then the --batch value or 1). */
int64_t graph_batch_axis0(struct graph_batch *b, const char *name, int rank, int64_t declared);
/* After every input: LS_ERR_INPUT when --batch was given and no input could take it (the
 * message names the first input with a fixed axis 0 and says to use --input). */
int graph_batch_check(const struct graph_batch *b, const char *file, struct ls_error *err);
/* After a failed import: append to err's message which input --batch replaced a declared
 * batch of 1 on (the model's fixed shapes may need that 1). */
void graph_batch_note(const struct graph_batch *b, struct ls_error *err);

#endif
