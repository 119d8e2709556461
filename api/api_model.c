/* api/model: models, targets, latency tables and calibration. */
#include <stdlib.h>
#include <string.h>

#include "api/api_int.h"
#include "costmodel/calib_run.h"
#include "costmodel/calibrate.h"
#include "costmodel/tie.h"
#include "graph/model.h"
#include "util/arch.h"

_Static_assert((int)LAYSIM_EINPUT == LS_ERR_INPUT && (int)LAYSIM_EIO == LS_ERR_IO &&
                   (int)LAYSIM_ENOMEM == LS_ERR_NOMEM && (int)LAYSIM_ELIMIT == LS_ERR_LIMIT &&
                   (int)LAYSIM_EINTERNAL == LS_ERR_INTERNAL,
               "the public status codes are the layers' ls_status codes");
_Static_assert(LAYSIM_ENGINES == LS_ENGINE_COUNT, "one result per engine");

/* "key=value" options into zoo_opts, each through the CLI's own parser; the input entries
 * are joined in *inputs (the caller frees it after loading). */
static int parse_model_options(laysim_ctx *cx, const char *const *options, struct zoo_opts *zo,
                               char **inputs)
{
    zoo_opts_init(zo);
    for (size_t i = 0; options && options[i]; i++) {
        const char *eq = strchr(options[i], '=');
        char key[32];
        if (!eq || eq == options[i] || (size_t)(eq - options[i]) >= sizeof key)
            return api_fail(cx, LAYSIM_EINPUT, "model option '%s': expected KEY=VALUE", options[i]);
        memcpy(key, options[i], (size_t)(eq - options[i]));
        key[eq - options[i]] = '\0';
        if (model_opts_set(zo, key, eq + 1, inputs, &cx->err))
            return api_done(cx, cx->err.code);
    }
    return 0;
}

LAYSIM_API int laysim_model_load(laysim_ctx *cx, const char *spec, const char *const *options,
                                 laysim_model **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need(cx, spec, "laysim_model_load", "spec")) ||
        (rc = api_need(cx, out, "laysim_model_load", "out")))
        return rc;
    *out = NULL;
    struct zoo_opts zo;
    char *inputs = NULL;
    laysim_model *m = NULL;
    if ((rc = parse_model_options(cx, options, &zo, &inputs)))
        goto done;
    if (!(m = calloc(1, sizeof *m))) {
        rc = api_fail(cx, LAYSIM_ENOMEM, "out of memory");
        goto done;
    }
    m->magic = API_MAGIC_MODEL;
    atomic_init(&m->refs, 1);
    /* hashed as `laysim problem` does (no pins, no --exact-transpose): the .lsp and .sol
     * of the API and of the CLI carry the same headers */
    if ((rc = model_load(spec, &zo, &m->g, &cx->err)) ||
        (rc = cm_model_hash(m->g, NULL, NULL, &m->hash, &cx->err))) {
        laysim_model_free(m);
        rc = api_done(cx, rc);
        goto done;
    }
    *out = m;
    rc = api_done(cx, 0);
done:
    free(inputs);
    return rc;
}

void api_model_release(laysim_model *m)
{
    if (atomic_fetch_sub(&m->refs, 1) != 1)
        return;
    m->magic = API_MAGIC_DEAD;
    graph_free(m->g);
    free(m);
}

/* The caller's reference goes; the model itself when no instance holds it any more. */
LAYSIM_API void laysim_model_free(laysim_model *m)
{
    if (!api_is(m, API_MAGIC_MODEL))
        return;
    m->magic = API_MAGIC_DEAD;   /* to the caller it is gone, whoever still holds it */
    api_model_release(m);
}

LAYSIM_API int32_t laysim_model_option_count(void)
{
    return MODEL_NOPTS;
}

LAYSIM_API const char *laysim_model_option_name(int32_t i)
{
    return i >= 0 && i < MODEL_NOPTS ? model_opt_names[i] : NULL;
}

LAYSIM_API int32_t laysim_model_ops(const laysim_model *m)
{
    return api_is(m, API_MAGIC_MODEL) ? graph_nops(m->g) : 0;
}

LAYSIM_API int32_t laysim_model_tensors(const laysim_model *m)
{
    return api_is(m, API_MAGIC_MODEL) ? graph_ntensors(m->g) : 0;
}

LAYSIM_API int laysim_target_load(laysim_ctx *cx, const char *name_or_file, laysim_target **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need(cx, name_or_file, "laysim_target_load", "name_or_file")) ||
        (rc = api_need(cx, out, "laysim_target_load", "out")))
        return rc;
    *out = NULL;
    laysim_target *t = calloc(1, sizeof *t);
    if (!t)
        return api_fail(cx, LAYSIM_ENOMEM, "out of memory");
    t->magic = API_MAGIC_TARGET;
    if (sim_target_builtin(&t->t, name_or_file) == 0) {
        *out = t;
        return api_done(cx, 0);
    }
    if (!strchr(name_or_file, '/') && !strchr(name_or_file, '.')) {
        free(t);
        return api_fail(cx, LAYSIM_EINPUT, "target '%s': not a built-in target (nc-v2, nc-v3) "
                        "nor a file path", name_or_file);
    }
    if ((rc = sim_target_load_file(&t->t, name_or_file, &cx->err))) {
        free(t);
        return api_done(cx, rc == LS_ERR_IO ? LAYSIM_EINPUT : rc);
    }
    *out = t;
    return api_done(cx, 0);
}

LAYSIM_API int laysim_target_set(laysim_ctx *cx, laysim_target *t, const char *key,
                                 const char *value)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, t, API_MAGIC_TARGET, "laysim_target_set", "target")) ||
        (rc = api_need(cx, key, "laysim_target_set", "key")) ||
        (rc = api_need(cx, value, "laysim_target_set", "value")))
        return rc;
    struct sim_target next = t->t;
    if ((rc = sim_target_set(&next, key, value, &cx->err)) ||
        (rc = sim_target_validate(&next, &cx->err)))
        return api_done(cx, rc);
    t->t = next;
    return api_done(cx, 0);
}

LAYSIM_API void laysim_target_free(laysim_target *t)
{
    if (!api_is(t, API_MAGIC_TARGET))
        return;
    t->magic = API_MAGIC_DEAD;
    free(t);
}

LAYSIM_API const char *laysim_target_name(const laysim_target *t)
{
    return api_is(t, API_MAGIC_TARGET) ? t->t.name : NULL;
}

LAYSIM_API uint64_t laysim_target_hash(const laysim_target *t)
{
    return api_is(t, API_MAGIC_TARGET) ? sim_target_hash(&t->t) : 0;
}

static int new_table(laysim_ctx *cx, laysim_table **out)
{
    *out = calloc(1, sizeof **out);
    if (*out)
        (*out)->magic = API_MAGIC_TABLE;
    return *out ? 0 : ls_error_msg(&cx->err, LS_ERR_NOMEM, "out of memory");
}

LAYSIM_API int laysim_table_default(laysim_ctx *cx, const laysim_target *t, laysim_table **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, t, API_MAGIC_TARGET, "laysim_table_default", "target")) ||
        (rc = api_need(cx, out, "laysim_table_default", "out")))
        return rc;
    if ((rc = new_table(cx, out)))
        return api_done(cx, rc);
    cm_table_default(&t->t, &(*out)->tb);
    return api_done(cx, 0);
}

LAYSIM_API int laysim_table_load(laysim_ctx *cx, const char *path, laysim_table **out)
{
    API_CX(cx);
    int rc;
    if ((rc = api_need(cx, path, "laysim_table_load", "path")) ||
        (rc = api_need(cx, out, "laysim_table_load", "out")))
        return rc;
    if ((rc = new_table(cx, out)))
        return api_done(cx, rc);
    if ((rc = cm_table_load(path, &(*out)->tb, &cx->err))) {
        free(*out);
        *out = NULL;
    }
    return api_done(cx, rc);
}

LAYSIM_API int laysim_table_write(laysim_ctx *cx, const laysim_table *tb, const char *path)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, tb, API_MAGIC_TABLE, "laysim_table_write", "table")) ||
        (rc = api_need(cx, path, "laysim_table_write", "path")))
        return rc;
    return api_done(cx, cm_table_write(&tb->tb, path, &cx->err));
}

LAYSIM_API void laysim_table_free(laysim_table *tb)
{
    if (!api_is(tb, API_MAGIC_TABLE))
        return;
    tb->magic = API_MAGIC_DEAD;
    free(tb);
}

/* How many entries a NULL-terminated list holds. */
static int list_len(const char *const *l)
{
    int n = 0;
    while (l && l[n])
        n++;
    return n;
}

LAYSIM_API int laysim_calibrate_ex(laysim_ctx *cx, const laysim_target *t,
                                   const laysim_table *prior, const char *const *traces,
                                   const char *const *programs, int microbench, unsigned flags,
                                   laysim_table **out, int *is_prior)
{
    API_CX(cx);
    int rc;
    if ((rc = api_handle(cx, t, API_MAGIC_TARGET, "laysim_calibrate", "target")) ||
        (rc = api_need(cx, out, "laysim_calibrate", "out")) ||
        (prior && (rc = api_handle(cx, prior, API_MAGIC_TABLE, "laysim_calibrate", "table"))))
        return rc;
    *out = NULL;
    int n = list_len(traces);
    if (!microbench && n == 0)
        return api_fail(cx, LAYSIM_EINPUT, "laysim_calibrate: nothing to fit: give traces or "
                        "microbench");
    if (programs && list_len(programs) != n)
        return api_fail(cx, LAYSIM_EINPUT, "laysim_calibrate: %d programs for %d traces: give "
                        "one program per trace, in the same order", list_len(programs), n);
    struct cm_table start;
    if (prior)
        start = prior->tb;
    else
        cm_table_default(&t->t, &start);
    struct cm_run_opts o;
    cm_run_opts_init(&o);
    o.traces = traces;
    o.progs = programs;
    o.ntraces = n;
    o.micro = microbench;
    o.keep_worse = (flags & LAYSIM_CALIBRATE_KEEP_WORSE) != 0;
    struct cm_run r;
    laysim_table *fit = NULL;
    if (!(rc = cm_calibrate(&o, &t->t, &start, &r, &cx->err)) && !(rc = new_table(cx, &fit))) {
        fit->tb = *r.out;
        if (is_prior)
            *is_prior = r.out == &start;
        *out = fit;
    }
    cm_run_free(&r);
    return api_done(cx, rc);
}

LAYSIM_API int laysim_calibrate(laysim_ctx *cx, const laysim_target *t, const laysim_table *prior,
                                const char *const *traces, int microbench, laysim_table **out)
{
    return laysim_calibrate_ex(cx, t, prior, traces, NULL, microbench, 0, out, NULL);
}
