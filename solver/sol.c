/* solver/sol: .sol solutions: reader, writer, verification. */
#include "solver/problem.h"
#include "util/fileio.h"
#include "util/scan.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

const char *lsp_status_name(int status)
{
    switch (status) {
    case LSP_OPTIMAL: return "optimal";
    case LSP_FEASIBLE: return "feasible";
    default: return "unknown";
    }
}

void lsp_solution_init(struct lsp_solution *s)
{
    memset(s, 0, sizeof *s);
    s->status = LSP_UNKNOWN;
}

void lsp_solution_free(struct lsp_solution *s)
{
    free(s->cfg);
    lsp_solution_init(s);
}

int lsp_solution_alloc(struct lsp_solution *s, const struct lsp_problem *p,
                       struct ls_error *err)
{
    free(s->cfg);
    s->cfg = calloc((size_t)p->nops + 1, sizeof *s->cfg);
    if (!s->cfg) {
        s->nops = 0;
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    s->nops = p->nops;
    return 0;
}

static int read_i64(struct ls_scan *sc, size_t i, const char *what, int64_t *out,
                    struct ls_error *err)
{
    uint64_t v;
    if (ls_scan_u64(sc, i, what, &v, err))
        return LS_ERR_INPUT;
    if (v >= (uint64_t)LSP_COST_LIMIT)
        return ls_scan_error(sc, i, err, "%s: %llu is not below 2^53", what,
                             (unsigned long long)v);
    *out = (int64_t)v;
    return 0;
}

/* Next line with the given keyword and arity; 0 ok, 1 at end of input, else error. */
static int expect_line(struct ls_scan *sc, const char *kw, const char *usage, size_t ntok,
                       struct ls_error *err)
{
    char buf[64];
    int rc = ls_scan_next(sc, err);
    if (rc < 0)
        return err ? err->code : LS_ERR_INPUT;
    if (rc == 0)
        return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line ? sc->line : 1, 1,
                            "unexpected end of file: expected '%s'", usage);
    if (!ls_tok_eq(&sc->tok[0], kw))
        return ls_scan_error(sc, 0, err, "expected '%s', got '%s'", usage,
                             ls_tok_str(&sc->tok[0], buf, sizeof buf));
    return ls_scan_arity(sc, ntok, (long)ntok, usage, err);
}

static int parse_sol(const struct lsp_problem *p, struct ls_scan *sc, struct lsp_solution *s,
                     int32_t *seen_line, struct ls_error *err)
{
    char buf[128];
    if (expect_line(sc, "lsp-solution", "lsp-solution 1", 2, err))
        return LS_ERR_INPUT;
    if (!ls_tok_eq(&sc->tok[1], "1"))
        return ls_scan_error(sc, 1, err, "unsupported .sol version '%s' (this reader knows 1)",
                             ls_tok_str(&sc->tok[1], buf, sizeof buf));
    if (expect_line(sc, "status", "status optimal|feasible|unknown", 2, err))
        return LS_ERR_INPUT;
    const struct ls_token *st = &sc->tok[1];
    if (ls_tok_eq(st, "optimal"))
        s->status = LSP_OPTIMAL;
    else if (ls_tok_eq(st, "feasible"))
        s->status = LSP_FEASIBLE;
    else if (ls_tok_eq(st, "unknown"))
        s->status = LSP_UNKNOWN;
    else if (ls_tok_eq(st, "infeasible"))
        return ls_scan_error(sc, 1, err, "status 'infeasible' is reserved: every valid .lsp is "
                             "feasible");
    else
        return ls_scan_error(sc, 1, err, "unknown status '%s' (expected optimal, feasible or "
                             "unknown)", ls_tok_str(st, buf, sizeof buf));
    int rc = ls_scan_next(sc, err);
    if (rc < 0)
        return err ? err->code : LS_ERR_INPUT;
    if (rc == 0) {
        if (s->status != LSP_UNKNOWN)
            return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line, 1,
                                "unexpected end of file: status %s needs a cost line and one op "
                                "line per op", lsp_status_name(s->status));
        return 0;
    }
    if (!ls_tok_eq(&sc->tok[0], "cost"))
        return ls_scan_error(sc, 0, err, "expected 'cost <total>', got '%s'",
                             ls_tok_str(&sc->tok[0], buf, sizeof buf));
    if (ls_scan_arity(sc, 2, 2, "cost <total>", err) || read_i64(sc, 1, "cost", &s->cost, err))
        return LS_ERR_INPUT;
    s->cost_line = sc->line;
    if (lsp_solution_alloc(s, p, err))
        return LS_ERR_NOMEM;
    for (int32_t o = 0; o < p->nops; o++)
        s->cfg[o] = -1;
    int first = 1;
    while ((rc = ls_scan_next(sc, err)) > 0) {
        const struct ls_token *k = &sc->tok[0];
        if (first && ls_tok_eq(k, "bound")) {
            first = 0;
            if (ls_scan_arity(sc, 2, 2, "bound <lower bound>", err) ||
                read_i64(sc, 1, "bound", &s->bound, err))
                return LS_ERR_INPUT;
            if (s->bound > s->cost)
                return ls_scan_error(sc, 1, err, "bound %" PRId64 " exceeds the cost %" PRId64,
                                     s->bound, s->cost);
            if (s->status == LSP_OPTIMAL && s->bound != s->cost)
                return ls_scan_error(sc, 1, err, "status optimal needs bound == cost (%" PRId64
                                     "), got %" PRId64, s->cost, s->bound);
            s->has_bound = 1;
            continue;
        }
        first = 0;
        if (!ls_tok_eq(k, "op"))
            return ls_scan_error(sc, 0, err, "expected 'op <name> <cfg-index>', got '%s'",
                                 ls_tok_str(k, buf, sizeof buf));
        if (ls_scan_arity(sc, 3, 3, "op <name> <cfg-index>", err))
            return LS_ERR_INPUT;
        int32_t o = lsp_find_op(p, sc->tok[1].s, sc->tok[1].n);
        if (o < 0)
            return ls_scan_error(sc, 1, err, "unknown op '%s' (not in the problem)",
                                 ls_tok_str(&sc->tok[1], buf, sizeof buf));
        if (seen_line[o])
            return ls_scan_error(sc, 1, err, "second line for op %s (first on line %d)",
                                 p->ops[o].name, seen_line[o]);
        uint64_t c;
        if (ls_scan_u64(sc, 2, "cfg index", &c, err))
            return LS_ERR_INPUT;
        if (c >= (uint64_t)p->ops[o].ncfg)
            return ls_scan_error(sc, 2, err, "op %s has %d configurations: index %llu out of range",
                                 p->ops[o].name, p->ops[o].ncfg, (unsigned long long)c);
        s->cfg[o] = (int32_t)c;
        seen_line[o] = sc->line;
    }
    if (rc < 0)
        return err ? err->code : LS_ERR_INPUT;
    for (int32_t o = 0; o < p->nops; o++)
        if (!seen_line[o])
            return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line + 1, 1,
                                "end of file: no line for op %s (every op needs exactly one)",
                                p->ops[o].name);
    /* the bound line is optional; an optimal solution's bound is its cost all the same */
    if (s->status == LSP_OPTIMAL && !s->has_bound) {
        s->bound = s->cost;
        s->has_bound = 1;
    }
    return 0;
}

/* A .sol that does not read against p (an unknown op name, a cfg out of range...) but whose
 * headers say it was solved for another problem: the mismatch is the cause, so it leads the
 * message (the reading error follows). */
static void blame_tie(const struct lsp_problem *p, const char *file, const char *buf,
                      size_t len, struct ls_error *err)
{
    struct lsp_tie sol, here;
    char what[512], why[sizeof err->msg];
    lsp_tie_scan(buf, len, &sol);
    lsp_sol_tie_of(p, &here);
    if (lsp_tie_empty(&sol) || !lsp_tie_mismatch(&sol, &here, what, sizeof what))
        return;
    /* the reading error's place stays the message's location */
    int line = err->line, col = err->col;
    snprintf(why, sizeof why, "%s", err->msg);
    ls_error_set(err, LS_ERR_INPUT, file, line, col, "was solved for another problem: %s; so "
                 "it does not read against this one (%s)", what, why);
}

int lsp_sol_parse(const struct lsp_problem *p, const char *file, const char *buf, size_t len,
                  struct lsp_solution *s, struct ls_error *err)
{
    lsp_solution_init(s);
    int32_t *seen = calloc((size_t)p->nops + 1, sizeof *seen);
    if (!seen)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct ls_scan sc;
    ls_scan_init(&sc, file, buf, len);
    int rc = parse_sol(p, &sc, s, seen, err);
    ls_scan_free(&sc);
    if (rc == LS_ERR_INPUT)
        blame_tie(p, file, buf, len, err);
    if (!rc)
        lsp_tie_scan(buf, len, &s->tie);
    free(seen);
    if (rc)
        lsp_solution_free(s);
    return rc;
}

int lsp_sol_read(const struct lsp_problem *p, const char *path, struct lsp_solution *s,
                 struct ls_error *err)
{
    char *buf;
    size_t len;
    lsp_solution_init(s);
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = lsp_sol_parse(p, path, buf, len, s, err);
    free(buf);
    return rc;
}

void lsp_sol_tie_of(const struct lsp_problem *p, struct lsp_tie *out)
{
    *out = p->tie;
    lsp_tie_set_hash(out, LSP_TIE_PROBLEM, lsp_problem_hash(p));
}

int lsp_sol_tie_check(const struct lsp_problem *p, const struct lsp_solution *s, char *what,
                      size_t n)
{
    what[0] = '\0';
    if (lsp_tie_empty(&s->tie))
        return LSP_TIE_UNCHECKED;
    struct lsp_tie here;
    lsp_sol_tie_of(p, &here);
    return lsp_tie_mismatch(&s->tie, &here, what, n) ? LSP_TIE_MISMATCH : LSP_TIE_MATCH;
}

int lsp_sol_write_fp(const struct lsp_problem *p, const struct lsp_solution *s, FILE *fp)
{
    int has = s->cfg && s->nops == p->nops;
    if (has) {   /* `unknown` without an assignment stays the format's two lines */
        struct lsp_tie tie;
        lsp_sol_tie_of(p, &tie);
        lsp_tie_write(&tie, fp);
    }
    fprintf(fp, "lsp-solution 1\nstatus %s\n", lsp_status_name(s->status));
    if (has) {
        fprintf(fp, "cost %" PRId64 "\n", s->cost);
        if (s->has_bound)
            fprintf(fp, "bound %" PRId64 "\n", s->bound);
        for (int32_t o = 0; o < p->nops; o++)
            fprintf(fp, "op %s %" PRId32 "\n", p->ops[o].name, s->cfg[o]);
    }
    return ferror(fp) ? -1 : 0;
}

int lsp_sol_write(const struct lsp_problem *p, const struct lsp_solution *s, const char *path,
                  struct ls_error *err)
{
    if (s->status != LSP_UNKNOWN && (!s->cfg || s->nops != p->nops))
        return ls_error_msg(err, LS_ERR_INTERNAL, "status %s without an assignment",
                            lsp_status_name(s->status));
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    if (lsp_sol_write_fp(p, s, af.fp)) {
        ls_atomic_abort(&af);
        return ls_error_msg(err, LS_ERR_IO, "%s: write error", path);
    }
    return ls_atomic_commit(&af, err);
}

int lsp_solution_verify(const struct lsp_problem *p, const struct lsp_solution *s,
                        struct ls_error *err)
{
    if (!s->cfg || s->nops == 0) {
        if (s->status != LSP_UNKNOWN && p->nops > 0)
            return ls_error_msg(err, LS_ERR_INPUT, "status %s without an assignment",
                                lsp_status_name(s->status));
        return 0;
    }
    if (s->nops != p->nops)
        return ls_error_msg(err, LS_ERR_INPUT, "assignment has %d ops, problem %d", s->nops,
                            p->nops);
    int rc = lsp_check_assignment(p, s->cfg, err);
    if (rc)
        return rc;
    int64_t cost = lsp_eval(p, s->cfg, NULL, NULL);
    if (cost != s->cost)
        return ls_error_set(err, LS_ERR_INPUT, NULL, s->cost_line, s->cost_line ? 6 : 0,
                            "claimed cost %" PRId64 " but the objective of the assignment is %" PRId64,
                            s->cost, cost);
    if (s->has_bound && s->bound > s->cost)
        return ls_error_msg(err, LS_ERR_INPUT, "bound %" PRId64 " exceeds the cost %" PRId64,
                            s->bound, s->cost);
    if (s->has_bound && s->status == LSP_OPTIMAL && s->bound != s->cost)
        return ls_error_msg(err, LS_ERR_INPUT, "optimal but bound %" PRId64 " != cost %" PRId64,
                            s->bound, s->cost);
    return 0;
}
