/* The chain past the parsers that fuzz_chain and fuzz_hwchain drive: a graph under a
 * target and table through the study pipeline (problem; per solver: solve, compile,
 * simulate, a trace per run in dir) under small limits, then a calibration on those
 * traces. Aborts on a failure without a message, on a run that succeeds with a negative
 * prediction or instructions that take no simulated time, and on a calibration of the simulator's own traces
 * that fails for another reason than memory. Not part of any library. */
#ifndef LS_FUZZ_CHAIN_H
#define LS_FUZZ_CHAIN_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "costmodel/calib_run.h"
#include "fuzz_common.h"
#include "study/pipeline.h"

#define FUZZ_CHAIN_MAX_SOLVERS 4

static inline void fuzz_chain_check(int rc, const struct ls_error *err)
{
    if (rc && err->msg[0] == 0)
        abort();
}

static inline void fuzz_chain_calibrate(const struct sim_target *t, const struct cm_table *prior,
                                        const char *const *traces, int n)
{
    struct cm_run_opts o;
    cm_run_opts_init(&o);
    o.traces = traces;
    o.ntraces = n;
    struct cm_run r;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = cm_calibrate(&o, t, prior, &r, &err);
    if (rc && rc != LS_ERR_NOMEM)
        abort();
    cm_run_free(&r);
}

static inline void fuzz_chain_pipeline(const struct graph *g, const struct sim_target *t,
                                       const struct cm_table *tb, const char *dir,
                                       const char *const *solvers, int nsolvers)
{
    struct study_pipe_opts o;
    study_pipe_opts_init(&o);
    o.solve.time_limit = 1;
    o.cg.max_instructions = 200000;
    o.trace_dir = dir;
    struct study_pipe *p = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = study_pipe_new(g, t, tb, &o, &p, &err);
    fuzz_chain_check(rc, &err);
    if (rc)
        return;
    const char *traces[FUZZ_CHAIN_MAX_SOLVERS];
    int n = 0;
    for (int k = 0; k < nsolvers && k < FUZZ_CHAIN_MAX_SOLVERS; k++) {
        const struct study_run *r = NULL;
        ls_error_clear(&err);
        rc = study_pipe_run(p, solvers[k], &r, &err);
        fuzz_chain_check(rc, &err);
        if (rc)
            continue;
        /* (a graph of inputs alone compiles to no instruction: 0 cycles) */
        if (r->predicted < 0 || (r->sim_cycles == 0 && r->instructions > 0))
            abort();
        if (r->trace_path[0] && r->instructions > 0)   /* (an empty trace is bad input) */
            traces[n++] = r->trace_path;
    }
    if (n > 0)
        fuzz_chain_calibrate(t, tb, traces, n);
    study_pipe_free(p);
}

/* fuzz_chain_pipeline in this process's scratch directory, its traces removed after. */
static inline void fuzz_chain_run(const struct graph *g, const struct sim_target *t,
                                  const struct cm_table *tb, const char *const *solvers,
                                  int nsolvers)
{
    struct fuzz_path dir = fuzz_tmp_path(0, ".d");
    if (mkdir(dir.s, 0700) && access(dir.s, W_OK))
        abort();
    fuzz_chain_pipeline(g, t, tb, dir.s, solvers, nsolvers);
    for (int k = 0; k < nsolvers; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s.lstrace", dir.s, solvers[k]);
        remove(path);
    }
}

#endif
