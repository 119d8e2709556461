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

#include <stdatomic.h>

struct laysim_ctx {
    struct ls_error err;     /* scratch for the layers' calls */
    int code;                /* of the last call: 0 after a success */
    char msg[1100];          /* "" after a success */
};

/* Every handle starts with its kind's magic (API_MAGIC_*), cleared when the handle is freed,
 * so that an entry point refuses a handle of another kind or a freed one (where the freed
 * memory still holds it) with LAYSIM_EINPUT instead of reading it as its own kind. */
enum api_magic {
    API_MAGIC_MODEL = 0x4c534d44u,     /* "LSMD" */
    API_MAGIC_TARGET = 0x4c535447u,    /* "LSTG" */
    API_MAGIC_TABLE = 0x4c535442u,     /* "LSTB" */
    API_MAGIC_PROBLEM = 0x4c535042u,   /* "LSPB" */
    API_MAGIC_INSTANCE = 0x4c53494eu,  /* "LSIN" */
    API_MAGIC_SOLUTION = 0x4c53534cu,  /* "LSSL" */
    API_MAGIC_PROGRAM = 0x4c535047u,   /* "LSPG" */
    API_MAGIC_DEAD = 0xdeadbeefu
};

struct laysim_model {
    uint32_t magic;
    atomic_int refs;         /* the caller's, plus one per instance built on it */
    struct graph *g;
    uint64_t hash;           /* cm_model_hash at load: the model-hash of its instances */
};

struct laysim_target {
    uint32_t magic;
    struct sim_target t;
};

struct laysim_table {
    uint32_t magic;
    struct cm_table tb;
};

struct laysim_problem {
    uint32_t magic;
    struct lsp_problem *p;
    int owned;               /* 0: borrowed from an instance */
};

struct laysim_instance {
    uint32_t magic;
    struct sim_target t;     /* copies: the cost model borrows them */
    struct cm_table tb;
    struct cm_model *m;
    struct cm_instance *in;
    struct laysim_problem problem;
    laysim_model *model;     /* kept alive while the instance lives (cm_model borrows its graph) */
};

struct laysim_solution {
    uint32_t magic;
    struct lsp_solution sol;
    double seconds;
};

struct laysim_program {
    uint32_t magic;
    struct sim_program *p;
};

/* Every entry point that takes a context starts with this: without one there is nowhere
 * to put the message. */
#define API_CX(cx)                                                                    \
    do {                                                                              \
        if (!(cx))                                                                    \
            return LAYSIM_EINPUT;                                                     \
    } while (0)

/* Drop one reference to m (the caller's or an instance's); the last one frees it. */
void api_model_release(laysim_model *m);

/* Record the outcome of a call: api_done(cx, 0) clears the message; api_done(cx, rc)
 * formats cx->err. Returns rc. */
int api_done(laysim_ctx *cx, int rc);
/* Fill cx->err with a message and return api_done(cx, code). */
int api_fail(laysim_ctx *cx, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* LAYSIM_EINPUT naming the argument when p is NULL (the out-pointer and handle checks). */
int api_need(laysim_ctx *cx, const void *p, const char *fn, const char *what);
/* 1 when h is a live handle of the kind `magic` (the getters without a context use it). */
static inline int api_is(const void *h, uint32_t magic)
{
    return h && *(const uint32_t *)h == magic;
}
/* api_need, and LAYSIM_EINPUT naming the argument when h is not a live handle of its kind
 * (another kind of handle, or a freed one). */
int api_handle(laysim_ctx *cx, const void *h, uint32_t magic, const char *fn, const char *what);
/* LAYSIM_EINPUT unless p is a finished problem (solving, writing and evaluating need one). */
int api_need_finished(laysim_ctx *cx, const laysim_problem *p, const char *fn);

#endif
