/* solver/answer: MaxSAT `v` lines, toulbar2 and cbc solution files back to a solution. */
#include "solver/answer.h"
#include "solver/export.h"
#include "util/fileio.h"
#include "util/scan.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int lsp_answer_format_parse(const char *name)
{
    if (!strcmp(name, "wcnf") || !strcmp(name, "wcnf-old") || !strcmp(name, "maxsat"))
        return LSP_ANSWER_WCNF;
    if (!strcmp(name, "cfn") || !strcmp(name, "toulbar2"))
        return LSP_ANSWER_CFN;
    if (!strcmp(name, "lp") || !strcmp(name, "cbc"))
        return LSP_ANSWER_LP;
    return -1;
}

struct reader {
    const struct lsp_problem *p;
    struct lsp_export_vars v;
    struct ls_scan sc;
    int32_t *cfg;            /* per op, -1 until the answer picks one */
    int32_t *line;           /* per op: where it was picked */
    struct lsp_answer_claim *claim;
    struct ls_error *err;
};

/* The answer picks cfg c of op o at token i of the current line. */
static int pick(struct reader *r, int32_t o, int32_t c, size_t i)
{
    if (r->cfg[o] >= 0 && r->cfg[o] != c)
        return ls_scan_error(&r->sc, i, r->err, "a second configuration for op %s (%d, after "
                             "%d on line %d): the export allows exactly one",
                             r->p->ops[o].name, c, r->cfg[o], r->line[o]);
    r->cfg[o] = c;
    r->line[o] = r->sc.line;
    return 0;
}

/* x variable k is true at token i (variables above the x range are auxiliary). */
static int pick_x(struct reader *r, int64_t k, size_t i)
{
    if (k < 1 || k > r->v.nvars)
        return ls_scan_error(&r->sc, i, r->err, "variable %" PRId64 " out of range (the export "
                             "has %" PRId64 ")", k, r->v.nvars);
    if (k > r->p->ncfg)
        return 0;
    int32_t c, o = lsp_export_xvar_op(r->p, k, &c);
    return pick(r, o, c, i);
}

/* ---- MaxSAT: c / s / o / v lines ------------------------------------------------------ */

static int maxsat_status(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    if (sc->ntok >= 3 && ls_tok_eq(&sc->tok[1], "OPTIMUM") && ls_tok_eq(&sc->tok[2], "FOUND"))
        r->claim->optimal = 1;
    else if (sc->ntok >= 2 && ls_tok_eq(&sc->tok[1], "UNSATISFIABLE"))
        return ls_scan_error(sc, 1, r->err, "the solver reports UNSATISFIABLE, but every "
                             "laysim export has a solution: an answer to another file?");
    return 0;
}

/* A token of only '0' and '1' as long as the variable count: the bit-string form (a
 * literal that long would exceed the variable count, so the forms never collide). */
static int is_bitstring(const struct ls_token *t, int64_t nvars)
{
    if ((int64_t)t->n != nvars)
        return 0;
    for (size_t k = 0; k < t->n; k++)
        if (t->s[k] != '0' && t->s[k] != '1')
            return 0;
    return 1;
}

static int maxsat_v(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    const struct ls_token *t = &sc->tok[1];
    if (sc->ntok == 2 && is_bitstring(t, r->v.nvars)) {
        for (size_t k = 0; k < t->n; k++)   /* the bit-string form */
            if (t->s[k] == '1' && pick_x(r, (int64_t)k + 1, 1))
                return LS_ERR_INPUT;
        return 0;
    }
    for (size_t i = 1; i < sc->ntok; i++) {   /* the literal form */
        int64_t lit;
        if (ls_scan_i64(sc, i, "literal", &lit, r->err))
            return LS_ERR_INPUT;
        if (lit > 0 && pick_x(r, lit, i))
            return LS_ERR_INPUT;
        if (lit < -r->v.nvars)
            return ls_scan_error(sc, i, r->err, "variable %" PRId64 " out of range (the "
                                 "export has %" PRId64 ")", -lit, r->v.nvars);
    }
    return 0;
}

static int parse_maxsat(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    int rc, vlines = 0;
    char buf[32];
    while ((rc = ls_scan_next(sc, r->err)) > 0) {
        const struct ls_token *k = &sc->tok[0];
        if (ls_tok_eq(k, "c"))
            continue;
        if (ls_tok_eq(k, "s")) {
            if (maxsat_status(r))
                return LS_ERR_INPUT;
        } else if (ls_tok_eq(k, "o")) {
            uint64_t o;
            if (ls_scan_arity(sc, 2, 2, "o <cost>", r->err) ||
                ls_scan_u64(sc, 1, "cost", &o, r->err))
                return LS_ERR_INPUT;
            r->claim->has_objective = 1;
            r->claim->objective = (int64_t)(o > INT64_MAX ? INT64_MAX : o);
        } else if (ls_tok_eq(k, "v")) {
            vlines++;
            if (maxsat_v(r))
                return LS_ERR_INPUT;
        } else {
            return ls_scan_error(sc, 0, r->err, "expected a line starting with c, s, o or v, "
                                 "got '%s'", ls_tok_str(k, buf, sizeof buf));
        }
    }
    if (rc < 0)
        return LS_ERR_INPUT;
    if (!vlines)
        return ls_error_set(r->err, LS_ERR_INPUT, sc->file, sc->line ? sc->line : 1, 1,
                            "no 'v' line: the answer holds no assignment");
    return 0;
}

/* ---- toulbar2: one value per CFN variable ------------------------------------------- */

/* "c<k>" or "<k>" as a cfg index of op o. */
static int cfn_value(struct reader *r, size_t i, const char *s, size_t n, int32_t o)
{
    uint64_t c;
    size_t skip = n > 1 && s[0] == 'c';
    if (ls_parse_u64(s + skip, n - skip, &c) || c >= (uint64_t)r->p->ops[o].ncfg)
        return ls_scan_error(&r->sc, i, r->err, "op %s (o%d): '%.*s' is not one of its %d "
                             "configurations", r->p->ops[o].name, o, (int)n, s,
                             r->p->ops[o].ncfg);
    return pick(r, o, (int32_t)c, i);
}

/* A `name=value` token: o<op>=value sets an op; y variables are auxiliary. */
static int cfn_named(struct reader *r, size_t i, const struct ls_token *t, const char *eq)
{
    size_t nl = (size_t)(eq - t->s);
    uint64_t o;
    if (nl > 1 && t->s[0] == 'y')
        return 0;
    if (nl < 2 || t->s[0] != 'o' || ls_parse_u64(t->s + 1, nl - 1, &o) ||
        o >= (uint64_t)r->p->nops)
        return ls_scan_error(&r->sc, i, r->err, "'%.*s' is not a variable of the CFN export",
                             (int)nl, t->s);
    return cfn_value(r, i, eq + 1, t->n - nl - 1, (int32_t)o);
}

static int cfn_line(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    int64_t want = r->p->nops + (r->v.nvars - r->p->ncfg), positional = 0;
    for (int32_t o = 0; o < r->p->nops; o++)   /* a later line is a better solution */
        r->cfg[o] = -1;
    for (size_t i = 0; i < sc->ntok; i++) {
        const struct ls_token *t = &sc->tok[i];
        const char *eq = memchr(t->s, '=', t->n);
        if (eq) {
            if (cfn_named(r, i, t, eq))
                return LS_ERR_INPUT;
        } else if (positional++ < r->p->nops) {
            if (cfn_value(r, i, t->s, t->n, (int32_t)(positional - 1)))
                return LS_ERR_INPUT;
        }
    }
    if (positional && positional != want)
        return ls_scan_error(sc, sc->ntok, r->err, "%" PRId64 " values, but the CFN export has "
                             "%" PRId64 " variables (%d ops, then the y variables)",
                             positional, want, r->p->nops);
    return 0;
}

static int parse_cfn(struct reader *r)
{
    int rc, lines = 0;
    while ((rc = ls_scan_next(&r->sc, r->err)) > 0) {
        lines++;
        if (cfn_line(r))
            return LS_ERR_INPUT;
    }
    if (rc < 0)
        return LS_ERR_INPUT;
    if (!lines)
        return ls_error_set(r->err, LS_ERR_INPUT, r->sc.file, 1, 1,
                            "empty: the answer holds no assignment");
    return 0;
}

/* ---- cbc: status line, then index name value reduced-cost ---------------------------- */

static int cbc_status(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    size_t v = 0;
    for (size_t i = 1; i + 1 < sc->ntok && !v; i++)
        if (ls_tok_eq(&sc->tok[i], "objective") && ls_tok_eq(&sc->tok[i + 1], "value"))
            v = i + 2;
    if (!v)
        return ls_scan_error(sc, 0, r->err, "expected cbc's status line '<status> - objective "
                             "value <number>'");
    if (ls_tok_eq(&sc->tok[0], "Infeasible") || ls_tok_eq(&sc->tok[0], "Integer") ||
        ls_tok_eq(&sc->tok[0], "Unbounded"))
        return ls_scan_error(sc, 0, r->err, "cbc found no solution (every laysim export has "
                             "one: an answer to another file?)");
    double obj;
    if (ls_scan_double(sc, v, "objective value", &obj, r->err))
        return LS_ERR_INPUT;
    r->claim->optimal = ls_tok_eq(&sc->tok[0], "Optimal");
    if (isfinite(obj) && fabs(obj) < 9e18) {
        r->claim->has_objective = 1;
        r->claim->objective = llround(obj);
    }
    return 0;
}

static int cbc_var(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    size_t b = ls_tok_eq(&sc->tok[0], "**");   /* cbc flags an infeasible row or column */
    uint64_t idx, k;
    double val;
    if (ls_scan_arity(sc, b + 3, (long)b + 4, "<index> <name> <value> [<reduced cost>]",
                      r->err) ||
        ls_scan_u64(sc, b, "column index", &idx, r->err) ||
        ls_scan_double(sc, b + 2, "value", &val, r->err))
        return LS_ERR_INPUT;
    const struct ls_token *name = &sc->tok[b + 1];
    if (name->n < 2 || name->s[0] != 'x' || ls_parse_u64(name->s + 1, name->n - 1, &k))
        return 0;                            /* y and z columns are auxiliary */
    if (k < 1 || k > (uint64_t)r->p->ncfg)
        return ls_scan_error(sc, b + 1, r->err, "variable x%" PRIu64 " out of range (the "
                             "export has x1..x%" PRId64 ")", k, r->p->ncfg);
    return val > 0.5 ? pick_x(r, (int64_t)k, b + 1) : 0;
}

static int parse_lp(struct reader *r)
{
    int rc = ls_scan_next(&r->sc, r->err);
    if (rc == 0)
        return ls_error_set(r->err, LS_ERR_INPUT, r->sc.file, 1, 1,
                            "empty: expected cbc's status line");
    if (rc < 0 || cbc_status(r))
        return LS_ERR_INPUT;
    while ((rc = ls_scan_next(&r->sc, r->err)) > 0)
        if (cbc_var(r))
            return LS_ERR_INPUT;
    return rc < 0 ? LS_ERR_INPUT : 0;
}

/* ---- the solution --------------------------------------------------------------------- */

static int to_solution(struct reader *r, struct lsp_solution *s)
{
    const struct lsp_problem *p = r->p;
    for (int32_t o = 0; o < p->nops; o++)
        if (r->cfg[o] < 0)
            return ls_error_set(r->err, LS_ERR_INPUT, r->sc.file, r->sc.line + 1, 1,
                                "end of file: the answer picks no configuration of op %s (x%" PRId64
                                "..x%" PRId64 " all false)", p->ops[o].name,
                                lsp_export_xvar(p, o, 0), lsp_export_xvar(p, o, p->ops[o].ncfg - 1));
    if (lsp_solution_alloc(s, p, r->err))
        return LS_ERR_NOMEM;
    memcpy(s->cfg, r->cfg, sizeof *s->cfg * (size_t)p->nops);
    s->cost = lsp_eval(p, s->cfg, NULL, NULL);
    s->status = LSP_FEASIBLE;
    const struct lsp_answer_claim *cl = r->claim;
    if (cl->optimal && (!cl->has_objective || cl->objective == s->cost)) {
        s->status = LSP_OPTIMAL;
        s->has_bound = 1;
        s->bound = s->cost;
    }
    return 0;
}

int lsp_answer_parse(const struct lsp_problem *p, int format, const char *file,
                     const char *buf, size_t len, struct lsp_solution *s,
                     struct lsp_answer_claim *claim, struct ls_error *err)
{
    struct reader r = {.p = p, .claim = claim, .err = err};
    lsp_solution_init(s);
    memset(claim, 0, sizeof *claim);
    if (lsp_export_vars_init(p, &r.v))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    r.cfg = malloc(sizeof *r.cfg * ((size_t)p->nops + 1));
    r.line = calloc((size_t)p->nops + 1, sizeof *r.line);
    int rc = LS_ERR_NOMEM;
    if (!r.cfg || !r.line) {
        ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (int32_t o = 0; o < p->nops; o++)
        r.cfg[o] = -1;
    ls_scan_init(&r.sc, file, buf, len);
    switch (format) {
    case LSP_ANSWER_WCNF: rc = parse_maxsat(&r); break;
    case LSP_ANSWER_CFN: rc = parse_cfn(&r); break;
    case LSP_ANSWER_LP: rc = parse_lp(&r); break;
    default: rc = ls_error_msg(err, LS_ERR_INPUT, "unknown answer format %d", format);
    }
    if (!rc)
        rc = to_solution(&r, s);
    ls_scan_free(&r.sc);
out:
    free(r.cfg);
    free(r.line);
    lsp_export_vars_free(&r.v);
    if (rc)
        lsp_solution_free(s);
    return rc;
}

int lsp_answer_read(const struct lsp_problem *p, int format, const char *path,
                    struct lsp_solution *s, struct lsp_answer_claim *claim,
                    struct ls_error *err)
{
    char *buf;
    size_t len;
    lsp_solution_init(s);
    memset(claim, 0, sizeof *claim);
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = lsp_answer_parse(p, format, path, buf, len, s, claim, err);
    free(buf);
    return rc;
}
