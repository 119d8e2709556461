/* api/context: the context, errors and the small lookups (version, zoo names, engines). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "api/api_int.h"
#include "graph/zoo.h"
#include "util/arch.h"

LAYSIM_API const char *laysim_version(void)
{
    return LAYSIM_VERSION;
}

LAYSIM_API laysim_ctx *laysim_new(void)
{
    return calloc(1, sizeof(laysim_ctx));
}

LAYSIM_API void laysim_free(laysim_ctx *cx)
{
    free(cx);
}

LAYSIM_API int laysim_errcode(const laysim_ctx *cx)
{
    return cx ? cx->code : LAYSIM_EINPUT;
}

LAYSIM_API const char *laysim_errmsg(const laysim_ctx *cx)
{
    return cx ? cx->msg : "no laysim context (laysim_new returned NULL?)";
}

int api_done(laysim_ctx *cx, int rc)
{
    cx->code = rc;
    if (rc == 0)
        cx->msg[0] = '\0';
    else
        ls_error_format(&cx->err, cx->msg, sizeof cx->msg);
    ls_error_clear(&cx->err);
    return rc;
}

int api_fail(laysim_ctx *cx, int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ls_error_clear(&cx->err);
    cx->err.code = code;
    vsnprintf(cx->err.msg, sizeof cx->err.msg, fmt, ap);
    va_end(ap);
    return api_done(cx, code);
}

int api_need(laysim_ctx *cx, const void *p, const char *fn, const char *what)
{
    return p ? 0 : api_fail(cx, LAYSIM_EINPUT, "%s: %s is NULL", fn, what);
}

int api_handle(laysim_ctx *cx, const void *h, uint32_t magic, const char *fn, const char *what)
{
    int rc = api_need(cx, h, fn, what);
    if (!rc && !api_is(h, magic))
        rc = api_fail(cx, LAYSIM_EINPUT, "%s: %s is not a live laysim_%s handle (freed, or "
                      "another kind of handle)", fn, what, what);
    return rc;
}

LAYSIM_API int32_t laysim_zoo_count(void)
{
    return (int32_t)zoo_count();
}

LAYSIM_API const char *laysim_zoo_name(int32_t i)
{
    const struct zoo_entry *e = i < 0 ? NULL : zoo_entry((size_t)i);
    return e ? e->name : NULL;
}

LAYSIM_API const char *laysim_engine_name(int engine)
{
    return engine < 0 || engine >= LS_ENGINE_COUNT ? NULL : ls_engine_name((enum ls_engine)engine);
}
