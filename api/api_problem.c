/* api/problem: problems (.lsp): read, built by hand, written, looked at. */
#include <stdlib.h>

#include "api/api_int.h"

LAYSIM_API int laysim_problem_read(laysim_ctx *cx, const char *path, laysim_problem **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need(cx, path, "laysim_problem_read", "path")) ||
        (rc = api_need(cx, out, "laysim_problem_read", "out")))
        return rc;
    *out = calloc(1, sizeof **out);
    if (!*out)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    (*out)->magic = API_MAGIC_PROBLEM;
    if ((rc = lsp_read(path, &(*out)->p, &cx->err))) {
        free(*out);
        *out = NULL;
        return api_done(cx, rc);
    }
    (*out)->owned = 1;
    return api_done(cx, 0);
}

LAYSIM_API int laysim_problem_new(laysim_ctx *cx, laysim_problem **out)
{
    API_CX(cx);
    int rc = api_need(cx, out, "laysim_problem_new", "out");
    if (rc)
        return rc;
    *out = calloc(1, sizeof **out);
    if (*out && !((*out)->p = lsp_new())) {
        free(*out);
        *out = NULL;
    }
    if (!*out)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    (*out)->magic = API_MAGIC_PROBLEM;
    (*out)->owned = 1;
    return api_done(cx, 0);
}

/* The builder calls take a problem still open for additions. */
static int need_open(laysim_ctx *cx, const laysim_problem *p, const char *fn)
{
    int rc = api_handle(cx, p, API_MAGIC_PROBLEM, fn, "problem");
    if (!rc && p->p->finished)
        rc = api_fail(cx, LAYSIM_EINPUT, "%s: the problem is finished (read-only)", fn);
    return rc;
}

LAYSIM_API int laysim_problem_add_tensor(laysim_ctx *cx, laysim_problem *p, const char *name,
                                         int32_t nlayouts, const char *const *labels,
                                         const int64_t *transpose, int32_t *id)
{
    int64_t n = transpose && nlayouts > 1 ? (int64_t)nlayouts * nlayouts : 0;
    return laysim_problem_add_tensor_n(cx, p, name, nlayouts, labels, n, transpose, id);
}

LAYSIM_API int laysim_problem_add_tensor_n(laysim_ctx *cx, laysim_problem *p, const char *name,
                                           int32_t nlayouts, const char *const *labels,
                                           int64_t ntranspose, const int64_t *transpose,
                                           int32_t *id)
{
    API_CX(cx);
    int rc;
    if ((rc = need_open(cx, p, "laysim_problem_add_tensor")) ||
        (rc = api_need(cx, name, "laysim_problem_add_tensor", "name")))
        return rc;
    int64_t want = transpose && nlayouts > 1 ? (int64_t)nlayouts * nlayouts : 0;
    if (ntranspose != want || (ntranspose && !transpose))
        return api_fail(cx, LAYSIM_EINPUT, "laysim_problem_add_tensor: tensor %s: %lld transpose "
                        "costs for %d layouts (give %lld, or none)", name, (long long)ntranspose,
                        nlayouts, (long long)(nlayouts > 1 ? (int64_t)nlayouts * nlayouts : 0));
    int32_t t;
    rc = lsp_add_tensor(p->p, name, nlayouts, labels, transpose, &t, &cx->err);
    if (!rc && id)
        *id = t;
    return api_done(cx, rc);
}

LAYSIM_API int laysim_problem_add_op(laysim_ctx *cx, laysim_problem *p, const char *name,
                                     const char *kind, int32_t nin, const int32_t *in,
                                     int32_t out, int32_t *id)
{
    API_CX(cx);
    int rc;
    if ((rc = need_open(cx, p, "laysim_problem_add_op")) ||
        (rc = api_need(cx, name, "laysim_problem_add_op", "name")) ||
        (rc = api_need(cx, kind, "laysim_problem_add_op", "kind")))
        return rc;
    if (nin > 0 && !in)
        return api_fail(cx, LAYSIM_EINPUT, "laysim_problem_add_op: %d inputs but in is NULL", nin);
    int32_t o;
    rc = lsp_add_op(p->p, name, kind, nin, in, out, &o, &cx->err);
    if (!rc && id)
        *id = o;
    return api_done(cx, rc);
}

LAYSIM_API int laysim_problem_add_config(laysim_ctx *cx, laysim_problem *p, int32_t op,
                                         int64_t cost, const int32_t *layouts)
{
    int32_t n = api_is(p, API_MAGIC_PROBLEM) && op >= 0 && op < p->p->nops
                    ? p->p->ops[op].nslots
                    : 0;   /* trusted: the caller passed as many as the op has slots */
    return laysim_problem_add_config_n(cx, p, op, cost, n, layouts);
}

LAYSIM_API int laysim_problem_add_config_n(laysim_ctx *cx, laysim_problem *p, int32_t op,
                                           int64_t cost, int32_t nlayouts, const int32_t *layouts)
{
    API_CX(cx);
    int rc;
    if ((rc = need_open(cx, p, "laysim_problem_add_config")) ||
        (rc = api_need(cx, layouts, "laysim_problem_add_config", "layouts")))
        return rc;
    if (op < 0 || op != p->p->nops - 1)
        return api_fail(cx, LAYSIM_EINPUT, "laysim_problem_add_config: op %d: configurations go "
                        "to the last added op (%d)", op, p->p->nops - 1);
    const struct lsp_op *o = &p->p->ops[op];
    if (nlayouts != o->nslots)
        return api_fail(cx, LAYSIM_EINPUT, "laysim_problem_add_config: op %s: %d layouts for "
                        "%d inputs%s (give one per input, then the output's)", o->name, nlayouts,
                        o->nin, o->nslots > o->nin ? " and an output" : "");
    return api_done(cx, lsp_add_cfg(p->p, op, cost, layouts, NULL, &cx->err));
}

LAYSIM_API int laysim_problem_finish(laysim_ctx *cx, laysim_problem *p)
{
    API_CX(cx);
    int rc = need_open(cx, p, "laysim_problem_finish");
    return rc ? rc : api_done(cx, lsp_finish(p->p, &cx->err));
}

int api_need_finished(laysim_ctx *cx, const laysim_problem *p, const char *fn)
{
    int rc = api_handle(cx, p, API_MAGIC_PROBLEM, fn, "problem");
    if (!rc && !p->p->finished)
        rc = api_fail(cx, LAYSIM_EINPUT, "%s: call laysim_problem_finish first", fn);
    return rc;
}

LAYSIM_API int laysim_problem_write(laysim_ctx *cx, const laysim_problem *p, const char *path)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need_finished(cx, p, "laysim_problem_write")) ||
        (rc = api_need(cx, path, "laysim_problem_write", "path")))
        return rc;
    return api_done(cx, lsp_write(p->p, path, &cx->err));
}

LAYSIM_API void laysim_problem_free(laysim_problem *p)
{
    if (!api_is(p, API_MAGIC_PROBLEM) || !p->owned)
        return;    /* an instance's problem goes with the instance */
    p->magic = API_MAGIC_DEAD;
    lsp_free(p->p);
    free(p);
}

LAYSIM_API int32_t laysim_problem_ops(const laysim_problem *p)
{
    return api_is(p, API_MAGIC_PROBLEM) ? p->p->nops : 0;
}

LAYSIM_API int32_t laysim_problem_tensors(const laysim_problem *p)
{
    return api_is(p, API_MAGIC_PROBLEM) ? p->p->ntensors : 0;
}

static const struct lsp_op *problem_op(const laysim_problem *p, int32_t op)
{
    return api_is(p, API_MAGIC_PROBLEM) && op >= 0 && op < p->p->nops ? &p->p->ops[op] : NULL;
}

LAYSIM_API const char *laysim_problem_op_name(const laysim_problem *p, int32_t op)
{
    const struct lsp_op *o = problem_op(p, op);
    return o ? o->name : NULL;
}

LAYSIM_API const char *laysim_problem_op_kind(const laysim_problem *p, int32_t op)
{
    const struct lsp_op *o = problem_op(p, op);
    return o ? o->kind : NULL;
}

LAYSIM_API int32_t laysim_problem_op_configs(const laysim_problem *p, int32_t op)
{
    const struct lsp_op *o = problem_op(p, op);
    return o ? o->ncfg : 0;
}

LAYSIM_API const char *laysim_problem_tensor_name(const laysim_problem *p, int32_t tensor)
{
    return api_is(p, API_MAGIC_PROBLEM) && tensor >= 0 && tensor < p->p->ntensors
               ? p->p->tensors[tensor].name
               : NULL;
}

LAYSIM_API int64_t laysim_problem_eval(const laysim_problem *p, const int32_t *cfg)
{
    if (!api_is(p, API_MAGIC_PROBLEM) || !p->p->finished || !cfg || lsp_check_assignment(p->p, cfg, NULL))
        return -1;
    return lsp_eval(p->p, cfg, NULL, NULL);
}
