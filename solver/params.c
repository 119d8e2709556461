/* solver/params: the solver parameter table (solver/params.def), checking and reading. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "solver/solver.h"

static const struct lsp_param_def defs[] = {
#define LSP_PARAM(solver, key, type, def, min, max, choices, help) \
    {#solver, key, LSP_PARAM_##type, def, min, max, choices, help},
#include "solver/params.def"
#undef LSP_PARAM
};
#define NDEFS (sizeof defs / sizeof defs[0])

const struct lsp_param_def *lsp_param_defs(size_t *n)
{
    *n = NDEFS;
    return defs;
}

static const struct lsp_param_def *def_of(const char *solver, const char *key, size_t klen)
{
    for (size_t i = 0; i < NDEFS; i++)
        if ((!solver || !strcmp(defs[i].solver, solver)) && strlen(defs[i].key) == klen &&
            !memcmp(defs[i].key, key, klen))
            return &defs[i];
    return NULL;
}

/* The index of word among the '|'-separated choices, or -1. */
static int choice_index(const char *choices, const char *word)
{
    size_t wl = strlen(word);
    int i = 0;
    for (const char *c = choices; *c; i++) {
        const char *bar = strchr(c, '|');
        size_t cl = bar ? (size_t)(bar - c) : strlen(c);
        if (cl == wl && !memcmp(c, word, wl))
            return i;
        c += cl + (bar ? 1 : 0);
    }
    return -1;
}

/* Parse text as the value of d: a number in range, or a word among the choices. */
static int parse_value(const struct lsp_param_def *d, const char *text, double *out,
                       struct ls_error *err)
{
    if (d->type == LSP_PARAM_WORD) {
        if (d->choices[0] && choice_index(d->choices, text) < 0)
            return ls_error_msg(err, LS_ERR_INPUT, "parameter %s: '%s' is none of %s", d->key,
                                text, d->choices);
        *out = d->choices[0] ? choice_index(d->choices, text) : 0;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    if (end == text || *end || errno || !isfinite(v))
        return ls_error_msg(err, LS_ERR_INPUT, "parameter %s: expected a number, got '%s'", d->key,
                            text);
    if (d->type == LSP_PARAM_INT && (v != floor(v) || fabs(v) > 9e15))   /* exact in double */
        return ls_error_msg(err, LS_ERR_INPUT, "parameter %s: expected an integer, got '%s'",
                            d->key, text);
    if (v < d->min && isinf(d->max))
        return ls_error_msg(err, LS_ERR_INPUT, "parameter %s: %s is below the minimum %g", d->key,
                            text, d->min);
    if (v < d->min || v > d->max)
        return ls_error_msg(err, LS_ERR_INPUT, "parameter %s: %s is outside [%g, %g]", d->key,
                            text, d->min, d->max);
    *out = v;
    return 0;
}

int lsp_param_keys(const char *solver, char *buf, size_t n)
{
    int k = 0;
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < NDEFS; i++) {
        if (strcmp(defs[i].solver, solver))
            continue;
        int w = snprintf(buf + used, n - used, "%s%s", k++ ? ", " : "", defs[i].key);
        used += w > 0 && (size_t)w < n - used ? (size_t)w : 0;
    }
    return k;
}

/* Unknown key of the solver: the message lists its keys. */
static int unknown(const char *solver, const struct lsp_param *pr, struct ls_error *err)
{
    char keys[512];
    int n = (int)(pr->value - 1 - pr->key);
    if (!lsp_param_keys(solver, keys, sizeof keys))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "unknown parameter '%.*s': solver %s takes no parameters", n,
                            pr->key, solver);
    return ls_error_msg(err, LS_ERR_INPUT,
                        "unknown parameter '%.*s' for solver %s (valid: %s)", n, pr->key,
                        solver, keys);
}

int lsp_params_check(const char *solver, const struct lsp_solve_opts *o, struct ls_error *err)
{
    for (int i = 0; i < o->nparams; i++) {
        const struct lsp_param *pr = &o->params[i];
        const struct lsp_param_def *d = def_of(solver, pr->key, (size_t)(pr->value - 1 - pr->key));
        double v;
        if (!d)
            return unknown(solver, pr, err);
        if (parse_value(d, pr->value, &v, err))
            return LS_ERR_INPUT;
    }
    return 0;
}

/* The value of key (the last setting wins), or its default; NULL for a computed default. */
static const char *text_of(const struct lsp_solve_opts *o, const struct lsp_param_def *d)
{
    const char *v = lsp_opt_str(o, d->key);
    return v ? v : d->def[0] ? d->def : NULL;
}

int lsp_param_num(const struct lsp_solve_opts *o, const char *key, double *out,
                  struct ls_error *err)
{
    const struct lsp_param_def *d = def_of(NULL, key, strlen(key));
    if (!d)
        return ls_error_msg(err, LS_ERR_INTERNAL, "parameter %s: not in solver/params.def", key);
    const char *text = text_of(o, d);
    if (!text) {
        *out = NAN;
        return 0;
    }
    return parse_value(d, text, out, err);
}

const char *lsp_param_word(const struct lsp_solve_opts *o, const char *key)
{
    const struct lsp_param_def *d = def_of(NULL, key, strlen(key));
    return d ? text_of(o, d) : NULL;
}
