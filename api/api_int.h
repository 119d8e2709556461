/* api/api_int.h: what the handles of include/laysim/laysim.h hold (the library's own
 * layer-internal header, never installed). Each handle wraps the layer objects it stands
 * for; the context carries the last error. */
#ifndef LS_API_INT_H
#define LS_API_INT_H

#include "costmodel/costmodel.h"
#include "costmodel/instance.h"
#include "graph/graph.h"
#include "laysim/laysim.h"
#include "sim/program.h"
#include "sim/target.h"
#include "solver/problem.h"
#include "util/error.h"

struct laysim_ctx {
    struct ls_error err;     /* scratch for the layers' calls */
    int code;                /* of the last call: 0 after a success */
    char msg[1100];          /* "" after a success */
};

struct laysim_model {
    struct graph *g;
    uint64_t hash;           /* cm_model_hash at load: the model-hash of its instances */
};

struct laysim_target {
    struct sim_target t;
};

struct laysim_table {
    struct cm_table tb;
};

struct laysim_problem {
    struct lsp_problem *p;
    int owned;               /* 0: borrowed from an instance */
};

struct laysim_instance {
    struct sim_target t;     /* copies: the cost model borrows them */
    struct cm_table tb;
    struct cm_model *m;
    struct cm_instance *in;
    struct laysim_problem problem;
};

struct laysim_solution {
    struct lsp_solution sol;
    double seconds;
};

struct laysim_program {
    struct sim_program *p;
};

/* Every entry point that takes a context starts with this: without one there is nowhere
 * to put the message. */
#define API_CX(cx)                                                                    \
    do {                                                                              \
        if (!(cx))                                                                    \
            return LAYSIM_EINPUT;                                                     \
    } while (0)

/* Record the outcome of a call: api_done(cx, 0) clears the message; api_done(cx, rc)
 * formats cx->err. Returns rc. */
int api_done(laysim_ctx *cx, int rc);
/* Fill cx->err with a message and return api_done(cx, code). */
int api_fail(laysim_ctx *cx, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* LAYSIM_EINPUT naming the argument when p is NULL (the out-pointer and handle checks). */
int api_need(laysim_ctx *cx, const void *p, const char *fn, const char *what);
/* LAYSIM_EINPUT unless p is a finished problem (solving, writing and evaluating need one). */
int api_need_finished(laysim_ctx *cx, const laysim_problem *p, const char *fn);

#endif
