/* solver/lsp_read: the .lsp reader. Checks every rule of the format (docs/design.md) with
 * an error naming file:line:col, building the problem through the raw appends. */
#include "solver/problem.h"
#include "solver/problem_impl.h"
#include "util/fileio.h"
#include "util/scan.h"
#include "util/vec.h"

#include <stdlib.h>
#include <string.h>

struct reader {
    struct ls_scan sc;
    struct lsp_problem *p;
    struct ls_error *err;
    size_t len;
    int32_t *tensor_col;     /* column of each tensor's name token */
    size_t cap_col;
    int32_t *tr_line;        /* line of each tensor's transpose line (0 = none yet) */
    size_t cap_tr_line;
    int32_t *scratch;
    size_t cap_scratch;
    int32_t cur_op;          /* op whose cfg lines may follow, -1 otherwise */
};

#define TOKSTR(i) ls_tok_str(&r->sc.tok[(i)], buf, sizeof buf)

static int nomem(struct reader *r)
{
    return ls_error_msg(r->err, LS_ERR_NOMEM, "out of memory");
}

/* A format integer (0|[1-9][0-9]*) below 2^53 at token i. */
static int read_int(struct reader *r, size_t i, const char *what, int64_t *out)
{
    uint64_t v;
    if (ls_scan_u64(&r->sc, i, what, &v, r->err))
        return LS_ERR_INPUT;
    if (v >= (uint64_t)LSP_COST_LIMIT)
        return ls_scan_error(&r->sc, i, r->err, "%s: %llu is not below 2^53", what,
                             (unsigned long long)v);
    *out = (int64_t)v;
    return 0;
}

static int read_cost(struct reader *r, size_t i, const char *what, int64_t *out)
{
    if (read_int(r, i, what, out))
        return LS_ERR_INPUT;
    struct lsp_problem *p = r->p;
    if (p->cost_sum >= LSP_COST_LIMIT - *out)
        return ls_scan_error(&r->sc, i, r->err, "the sum of all costs reaches 2^53 here");
    p->cost_sum += *out;
    return 0;
}

static int close_op(struct reader *r)
{
    if (r->cur_op >= 0 && r->p->ops[r->cur_op].ncfg == 0) {
        const struct lsp_op *o = &r->p->ops[r->cur_op];
        return ls_scan_error(&r->sc, 0, r->err,
                             "op %s (line %d) needs at least one cfg line before this line",
                             o->name, o->line);
    }
    r->cur_op = -1;
    return 0;
}

static int do_tensor(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    struct lsp_problem *p = r->p;
    char buf[128];
    if (ls_scan_arity(sc, 3, -1, "tensor <name> <L> [<label_0> ... <label_L-1>]", r->err))
        return LS_ERR_INPUT;
    const struct ls_token *nm = &sc->tok[1];
    if (!lsp_valid_name(nm->s, nm->n))
        return ls_scan_error(sc, 1, r->err, "invalid tensor name '%s' (allowed: [A-Za-z0-9_.:/@-]+)",
                             TOKSTR(1));
    if (nm->n == 1 && nm->s[0] == '-')
        return ls_scan_error(sc, 1, r->err, "'-' is reserved for 'no output' and cannot name a tensor");
    int32_t prev = lsp_find_tensor(p, nm->s, nm->n);
    if (prev >= 0)
        return ls_scan_error(sc, 1, r->err, "duplicate tensor name '%s' (first declared on line %d)",
                             TOKSTR(1), p->tensors[prev].line);
    int64_t L = 0;
    if (read_int(r, 2, "layout count", &L))
        return LS_ERR_INPUT;
    if (L < 1)
        return ls_scan_error(sc, 2, r->err, "layout count must be at least 1");
    if (L > INT32_MAX || (L >= 2 && (uint64_t)L * (uint64_t)L > r->len))
        return ls_scan_error(sc, 2, r->err,
                             "layout count %lld: its transpose matrix cannot fit in this file",
                             (long long)L);
    size_t nlab = sc->ntok - 3;
    if (nlab != 0 && nlab != (size_t)L)
        return ls_scan_error(sc, nlab < (size_t)L ? sc->ntok : 3 + (size_t)L, r->err,
                             "expected no labels or exactly %lld labels, got %zu", (long long)L,
                             nlab);
    for (size_t i = 3; i < sc->ntok; i++) {
        if (!lsp_valid_name(sc->tok[i].s, sc->tok[i].n))
            return ls_scan_error(sc, i, r->err, "invalid label '%s' (allowed: [A-Za-z0-9_.:/@-]+)",
                                 TOKSTR(i));
        for (size_t j = 3; j < i; j++)
            if (sc->tok[j].n == sc->tok[i].n && !memcmp(sc->tok[j].s, sc->tok[i].s, sc->tok[i].n))
                return ls_scan_error(sc, i, r->err, "duplicate label '%s' in tensor %.*s",
                                     TOKSTR(i), (int)nm->n, nm->s);
    }
    int32_t t;
    if (lsp_push_tensor(p, nm->s, nm->n, (int32_t)L, &t))
        return nomem(r);
    if (ls_vec_reserve_((void **)&r->tensor_col, &r->cap_col, (size_t)t + 1, sizeof(int32_t)) ||
        ls_vec_reserve_((void **)&r->tr_line, &r->cap_tr_line, (size_t)t + 1, sizeof(int32_t)))
        return nomem(r);
    r->tensor_col[t] = nm->col;
    r->tr_line[t] = 0;
    p->tensors[t].line = sc->line;
    if (nlab) {
        const char **lab = ls_arena_alloc(&p->arena, nlab * sizeof *lab);
        if (!lab)
            return nomem(r);
        for (size_t i = 0; i < nlab; i++)
            if (!(lab[i] = ls_arena_strndup(&p->arena, sc->tok[3 + i].s, sc->tok[3 + i].n)))
                return nomem(r);
        p->tensors[t].labels = lab;
    }
    return 0;
}

static int do_transpose(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    struct lsp_problem *p = r->p;
    char buf[128];
    if (ls_scan_arity(sc, 2, -1, "transpose <tensor> <c_00> ... <c_(L-1)(L-1)>", r->err))
        return LS_ERR_INPUT;
    int32_t t = lsp_find_tensor(p, sc->tok[1].s, sc->tok[1].n);
    if (t < 0)
        return ls_scan_error(sc, 1, r->err, "unknown tensor '%s' (declare it with a tensor line first)",
                             TOKSTR(1));
    struct lsp_tensor *x = &p->tensors[t];
    int64_t L = x->nlayouts;
    if (L < 2)
        return ls_scan_error(sc, 0, r->err,
                             "tensor %s has a single layout: it must have no transpose line", x->name);
    if (r->tr_line[t])
        return ls_scan_error(sc, 0, r->err, "second transpose line for tensor %s (first on line %d)",
                             x->name, r->tr_line[t]);
    if (x->producer >= 0)
        return ls_scan_error(sc, 0, r->err,
                             "transpose line for tensor %s after its producer %s (line %d)",
                             x->name, p->ops[x->producer].name, p->ops[x->producer].line);
    size_t want = (size_t)(L * L);
    if (sc->ntok - 2 != want)
        return ls_scan_error(sc, sc->ntok - 2 < want ? sc->ntok : 2 + want, r->err,
                             "tensor %s has %lld layouts: expected %zu matrix entries, got %zu",
                             x->name, (long long)L, want, sc->ntok - 2);
    int64_t *m;
    if (lsp_push_tr(p, t, &m))
        return nomem(r);
    for (size_t k = 0; k < want; k++) {
        int64_t c = 0;
        if (read_cost(r, 2 + k, "transpose cost", &c))
            return LS_ERR_INPUT;
        if (k / (size_t)L == k % (size_t)L && c != 0)
            return ls_scan_error(sc, 2 + k, r->err,
                                 "diagonal entry [%zu][%zu] must be 0, got %lld", k / (size_t)L,
                                 k % (size_t)L, (long long)c);
        m[k] = c;
    }
    r->tr_line[t] = sc->line;
    return 0;
}

static int do_op(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    struct lsp_problem *p = r->p;
    char buf[128];
    static const char usage[] = "op <name> <kind> <n_in> <in_1> ... <in_n> <out>";
    if (ls_scan_arity(sc, 5, -1, usage, r->err))
        return LS_ERR_INPUT;
    const struct ls_token *nm = &sc->tok[1];
    if (!lsp_valid_name(nm->s, nm->n))
        return ls_scan_error(sc, 1, r->err, "invalid op name '%s' (allowed: [A-Za-z0-9_.:/@-]+)",
                             TOKSTR(1));
    int32_t prev = lsp_find_op(p, nm->s, nm->n);
    if (prev >= 0)
        return ls_scan_error(sc, 1, r->err, "duplicate op name '%s' (first on line %d)", TOKSTR(1),
                             p->ops[prev].line);
    int64_t nin = 0;
    if (read_int(r, 3, "input count", &nin))
        return LS_ERR_INPUT;
    if ((uint64_t)nin + 5 != sc->ntok)
        return ls_scan_error(sc, (uint64_t)nin + 5 > sc->ntok ? sc->ntok : (size_t)nin + 5, r->err,
                             "%lld inputs declared: expected %lld fields, got %zu; expected: %s",
                             (long long)nin, (long long)nin + 5, sc->ntok, usage);
    if (ls_vec_reserve_((void **)&r->scratch, &r->cap_scratch, (size_t)nin + 1, sizeof(int32_t)))
        return nomem(r);
    for (int64_t i = 0; i < nin; i++) {
        size_t k = 4 + (size_t)i;
        int32_t t = lsp_find_tensor(p, sc->tok[k].s, sc->tok[k].n);
        if (t < 0)
            return ls_scan_error(sc, k, r->err, "unknown tensor '%s'", TOKSTR(k));
        if (p->tensors[t].producer < 0)
            return ls_scan_error(sc, k, r->err,
                                 "input %s is not the output of an earlier op (ops must be in "
                                 "topological order)", TOKSTR(k));
        r->scratch[i] = t;
    }
    size_t ko = 4 + (size_t)nin;
    int32_t out = -1;
    if (!ls_tok_eq(&sc->tok[ko], "-")) {
        out = lsp_find_tensor(p, sc->tok[ko].s, sc->tok[ko].n);
        if (out < 0)
            return ls_scan_error(sc, ko, r->err,
                                 "unknown output tensor '%s' (declare it before its producer)",
                                 TOKSTR(ko));
        const struct lsp_tensor *x = &p->tensors[out];
        if (x->producer >= 0)
            return ls_scan_error(sc, ko, r->err, "tensor %s is already the output of op %s (line %d)",
                                 x->name, p->ops[x->producer].name, p->ops[x->producer].line);
        if (x->nlayouts >= 2 && !r->tr_line[out])
            return ls_scan_error(sc, ko, r->err,
                                 "tensor %s (%d layouts) needs its transpose line before its producer",
                                 x->name, x->nlayouts);
    }
    int32_t *in, o;
    if (lsp_push_op(p, nm->s, nm->n, sc->tok[2].s, sc->tok[2].n, (int32_t)nin, out, &in, &o))
        return nomem(r);
    if (nin)
        memcpy(in, r->scratch, (size_t)nin * sizeof *in);
    p->ops[o].line = sc->line;
    r->cur_op = o;
    return 0;
}

static int do_cfg(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    struct lsp_problem *p = r->p;
    if (r->cur_op < 0)
        return ls_scan_error(sc, 0, r->err, "cfg line outside an op (cfg lines must directly follow "
                             "their op line)");
    const struct lsp_op *o = &p->ops[r->cur_op];
    size_t want = 2 + (size_t)o->nslots;
    if (sc->ntok != want)
        return ls_scan_error(sc, sc->ntok < want ? sc->ntok : want, r->err,
                             "op %s has %d slots: expected cfg <cost> and %d layouts, got %zu fields",
                             o->name, o->nslots, o->nslots, sc->ntok - 1);
    int64_t cost = 0;
    if (read_cost(r, 1, "cfg cost", &cost))
        return LS_ERR_INPUT;
    int32_t *lay;
    if (lsp_push_cfg(p, r->cur_op, cost, &lay))
        return nomem(r);
    o = &p->ops[r->cur_op];
    for (int32_t s = 0; s < o->nslots; s++) {
        int32_t t = s < o->nin ? o->in[s] : o->out;
        int32_t L = p->tensors[t].nlayouts;
        uint64_t v;
        if (ls_scan_u64(sc, 2 + (size_t)s, "layout", &v, r->err))
            return LS_ERR_INPUT;
        if (v >= (uint64_t)L)
            return ls_scan_error(sc, 2 + (size_t)s, r->err,
                                 "layout %llu out of range for tensor %s (layouts 0..%d)",
                                 (unsigned long long)v, p->tensors[t].name, L - 1);
        lay[s] = (int32_t)v;
    }
    return 0;
}

static int parse_body(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    char buf[64];
    int rc = ls_scan_next(sc, r->err);
    if (rc < 0)
        return r->err ? r->err->code : LS_ERR_INPUT;
    if (rc == 0)
        return ls_error_set(r->err, LS_ERR_INPUT, sc->file, 1, 1, "empty file: expected 'lsp 1'");
    if (!ls_tok_eq(&sc->tok[0], "lsp"))
        return ls_scan_error(sc, 0, r->err, "expected 'lsp 1' as the first line, got '%s'",
                             ls_tok_str(&sc->tok[0], buf, sizeof buf));
    if (ls_scan_arity(sc, 2, 2, "lsp 1", r->err))
        return LS_ERR_INPUT;
    if (!ls_tok_eq(&sc->tok[1], "1"))
        return ls_scan_error(sc, 1, r->err, "unsupported .lsp version '%s' (this reader knows 1)",
                             ls_tok_str(&sc->tok[1], buf, sizeof buf));
    while ((rc = ls_scan_next(sc, r->err)) > 0) {
        const struct ls_token *k = &sc->tok[0];
        if (ls_tok_eq(k, "cfg")) {
            rc = do_cfg(r);
        } else {
            if (close_op(r))
                return LS_ERR_INPUT;
            if (ls_tok_eq(k, "op"))
                rc = do_op(r);
            else if (ls_tok_eq(k, "tensor"))
                rc = do_tensor(r);
            else if (ls_tok_eq(k, "transpose"))
                rc = do_transpose(r);
            else
                rc = ls_scan_error(sc, 0, r->err,
                                   "unknown line '%s' (expected tensor, transpose, op or cfg)",
                                   ls_tok_str(k, buf, sizeof buf));
        }
        if (rc)
            return rc;
    }
    if (rc < 0)
        return r->err ? r->err->code : LS_ERR_INPUT;
    struct lsp_problem *p = r->p;
    if (r->cur_op >= 0 && p->ops[r->cur_op].ncfg == 0)
        return ls_error_set(r->err, LS_ERR_INPUT, sc->file, p->ops[r->cur_op].line, 1,
                            "op %s has no cfg line", p->ops[r->cur_op].name);
    for (int32_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].producer < 0)
            return ls_error_set(r->err, LS_ERR_INPUT, sc->file, p->tensors[t].line,
                                r->tensor_col[t], "tensor %s is not the output of any op",
                                p->tensors[t].name);
    if (lsp_build_uses(p))
        return nomem(r);
    p->finished = 1;
    return 0;
}

int lsp_parse(const char *file, const char *buf, size_t len, struct lsp_problem **out,
              struct ls_error *err)
{
    *out = NULL;
    struct reader r;
    memset(&r, 0, sizeof r);
    r.err = err;
    r.len = len;
    r.cur_op = -1;
    if (!(r.p = lsp_new()))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    ls_scan_init(&r.sc, file, buf, len);
    int rc = parse_body(&r);
    ls_scan_free(&r.sc);
    free(r.tensor_col);
    free(r.tr_line);
    free(r.scratch);
    if (rc) {
        lsp_free(r.p);
        return rc;
    }
    lsp_tie_scan(buf, len, &r.p->tie);
    r.p->tie.v[LSP_TIE_PROBLEM][0] = '\0';   /* a .sol key: a problem does not carry it */
    *out = r.p;
    return 0;
}

int lsp_read(const char *path, struct lsp_problem **out, struct ls_error *err)
{
    char *buf;
    size_t len;
    *out = NULL;
    int rc = ls_read_file(path, &buf, &len, err);
    if (rc)
        return rc;
    rc = lsp_parse(path, buf, len, out, err);
    free(buf);
    return rc;
}
