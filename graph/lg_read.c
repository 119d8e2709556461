/* graph/lg: the .lg reader. Every check that can be tied to a line is made while reading,
 * so errors name file:line:column and what was expected. */
#include "graph/graph_int.h"
#include "graph/lg.h"
#include "util/fileio.h"
#include "util/scan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct reader {
    struct ls_scan sc;
    struct graph *g;
    struct ls_error *err;
    LS_VEC(int) def_line;       /* tensor id -> line of its definition */
    int header, named;
};

/* Error at column offset `off` inside token i. */
static int err_at(struct reader *r, size_t i, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int err_at(struct reader *r, size_t i, size_t off, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (i >= r->sc.ntok)
        return ls_scan_error(&r->sc, i, r->err, "%s", msg);
    return ls_error_set(r->err, LS_ERR_INPUT, r->sc.file, r->sc.line,
                        r->sc.tok[i].col + (int)off, "%s", msg);
}

/* Builder failures (out of memory, mostly) located at token i. */
static int builder_err(struct reader *r, size_t i)
{
    const struct ls_error *e = graph_error(r->g);
    if (e && e->code == LS_ERR_INPUT)
        return err_at(r, i, 0, "%s", e->msg);
    return ls_error_msg(r->err, e ? e->code : LS_ERR_INTERNAL, "%s", e ? e->msg : "internal");
}

static const char *tokstr(struct reader *r, size_t i, char *buf, size_t n)
{
    return ls_tok_str(&r->sc.tok[i], buf, n);
}

/* Signed integer in s[0..n) (no leading '+', no leading zeros). */
static int parse_i64(const char *s, size_t n, int64_t *out)
{
    int neg = n > 0 && s[0] == '-';
    uint64_t v;
    if (ls_parse_u64(s + neg, n - (size_t)neg, &v) || v > (uint64_t)INT64_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* "[4,8]", "[batch:1,seq:128]", "[]" */
static int parse_shape(struct reader *r, size_t i, struct graph_shape *s)
{
    const struct ls_token *t = &r->sc.tok[i];
    memset(s, 0, sizeof *s);
    if (t->n < 2 || t->s[0] != '[' || t->s[t->n - 1] != ']')
        return err_at(r, i, 0, "expected a shape like [4,8] or [batch:1,seq:128]");
    size_t p = 1, end = t->n - 1;
    if (p == end)
        return 0;
    for (;;) {
        size_t q = p;
        while (q < end && t->s[q] != ',')
            q++;
        if (s->rank == GRAPH_MAX_RANK)
            return err_at(r, i, p, "rank exceeds %d", GRAPH_MAX_RANK);
        size_t colon = p;
        while (colon < q && t->s[colon] != ':')
            colon++;
        size_t num = p;
        if (colon < q) {
            if (!graph_role_ok(t->s + p, colon - p))
                return err_at(r, i, p, "expected a dimension role name ([A-Za-z][A-Za-z0-9_]*) "
                              "before ':'");
            char buf[GRAPH_MAX_ROLE + 1];
            if (colon - p >= sizeof buf)
                return err_at(r, i, p, "dimension role name too long");
            memcpy(buf, t->s + p, colon - p);
            buf[colon - p] = 0;
            if (!(s->dims[s->rank].role = graph_intern(r->g, buf)))
                return ls_error_msg(r->err, LS_ERR_NOMEM, "out of memory");
            num = colon + 1;
        }
        uint64_t v;
        if (ls_parse_u64(t->s + num, q - num, &v) || v < 1 || v > (uint64_t)GRAPH_MAX_DIM)
            return err_at(r, i, num, "expected a dimension size (an integer 1..2^40)");
        s->dims[s->rank++].size = (int64_t)v;
        if (q == end)
            break;
        p = q + 1;
    }
    int64_t total = 1;
    for (int k = 0; k < s->rank; k++) {
        if (total > GRAPH_MAX_ELEMS / s->dims[k].size)
            return err_at(r, i, 0, "shape has more than 2^50 elements");
        total *= s->dims[k].size;
    }
    return 0;
}

static int parse_dtype(struct reader *r, size_t i, enum ls_dtype *dt)
{
    const struct ls_token *t = &r->sc.tok[i];
    if (ls_dtype_parse(t->s, t->n, dt))
        return err_at(r, i, 0, "expected a dtype (fp32, bf16, fp16, fp8, int32, int8)");
    return 0;
}

/* A new tensor name at token i. */
static int check_new_name(struct reader *r, size_t i, char *buf, size_t n)
{
    const struct ls_token *t = &r->sc.tok[i];
    if (t->n >= n && graph_name_ok(t->s, t->n))
        return err_at(r, i, 0, "tensor name longer than %zu bytes", n - 1);
    if (!graph_name_ok(t->s, t->n))
        return err_at(r, i, 0, "expected a tensor name (letters, digits, _ . @ / -)");
    tokstr(r, i, buf, n);
    int32_t old = graph_find_tensor(r->g, buf);
    if (old >= 0)
        return err_at(r, i, 0, "tensor '%s' is already defined at line %d", buf,
                      r->def_line.data[old]);
    return 0;
}

static int32_t existing(struct reader *r, size_t i)
{
    char buf[GRAPH_MAX_NAME + 1];
    const struct ls_token *t = &r->sc.tok[i];
    if (t->n >= sizeof buf && graph_name_ok(t->s, t->n)) {
        err_at(r, i, 0, "tensor name longer than %zu bytes", sizeof buf - 1);
        return -1;
    }
    if (!graph_name_ok(t->s, t->n)) {
        err_at(r, i, 0, "expected a tensor name");
        return -1;
    }
    int32_t id = graph_find_tensor(r->g, tokstr(r, i, buf, sizeof buf));
    if (id < 0)
        err_at(r, i, 0, "unknown tensor '%s' (tensors must be defined before use)", buf);
    return id;
}

static int note_def(struct reader *r, int32_t id)
{
    while (r->def_line.len <= (size_t)id)
        if (LS_VEC_PUSH(&r->def_line, 0))
            return ls_error_msg(r->err, LS_ERR_NOMEM, "out of memory");
    r->def_line.data[id] = r->sc.line;
    return 0;
}

/* input NAME DTYPE SHAPE [state] / weight NAME DTYPE SHAPE */
static int line_source(struct reader *r, enum graph_tensor_role role)
{
    char name[GRAPH_MAX_NAME + 1];
    struct graph_shape s;
    enum ls_dtype dt;
    int input = role == GRAPH_ROLE_INPUT;
    if (ls_scan_arity(&r->sc, 4, input ? 5 : 4,
                      input ? "input NAME DTYPE SHAPE [state]" : "weight NAME DTYPE SHAPE",
                      r->err))
        return LS_ERR_INPUT;
    if (check_new_name(r, 1, name, sizeof name) || parse_dtype(r, 2, &dt) ||
        parse_shape(r, 3, &s))
        return LS_ERR_INPUT;
    if (r->sc.ntok == 5 && !ls_tok_eq(&r->sc.tok[4], "state"))
        return err_at(r, 4, 0, "expected 'state' or the end of the line");
    int32_t t = graph_add_tensor_shape(r->g, name, dt, role, &s);
    if (t < 0 || graph_add_op(r->g, GRAPH_OP_SOURCE, NULL, 0, t, NULL) < 0 ||
        (r->sc.ntok == 5 && graph_set_state(r->g, t)))
        return builder_err(r, 1);
    return note_def(r, t);
}

/* output NAME */
static int line_output(struct reader *r)
{
    if (ls_scan_arity(&r->sc, 2, 2, "output NAME", r->err))
        return LS_ERR_INPUT;
    int32_t t = existing(r, 1);
    if (t < 0)
        return LS_ERR_INPUT;
    const struct graph_tensor *ten = graph_tensor(r->g, t);
    for (size_t u = 0; u < ten->nuses; u++)
        if (graph_op(r->g, ten->uses[u].op)->kind == GRAPH_OP_RETURN)
            return err_at(r, 1, 0, "tensor '%s' is already an output", ten->name);
    if (graph_output(r->g, t) < 0)
        return builder_err(r, 1);
    return 0;
}

/* ---- attributes ---- */

enum { A_LHS_C, A_RHS_C, A_LHS_B, A_RHS_B, A_STRIDE, A_PAD, A_DIL, A_GROUPS, A_KERNEL, A_AXES,
       A_KEEP, A_AXIS, A_BEGIN, A_END, A_STEP, A_PERM, A_COUNT };
static const char *const attr_names[A_COUNT] = {
    "lhs_contract", "rhs_contract", "lhs_batch", "rhs_batch", "stride", "pad",
    "dilation",     "groups",       "kernel",    "axes",      "keep",   "axis",
    "begin",        "end",          "step",      "perm"};

static int attr_allowed(enum graph_op_kind k, int a)
{
    switch (k) {
    case GRAPH_OP_MATMUL:
        return a == A_LHS_C || a == A_RHS_C;
    case GRAPH_OP_BATCH_MATMUL:
        return a <= A_RHS_B;
    case GRAPH_OP_CONV2D:
        return a == A_STRIDE || a == A_PAD || a == A_DIL || a == A_GROUPS;
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        return a == A_STRIDE || a == A_PAD || a == A_KERNEL;
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN:
        return a == A_AXES || a == A_KEEP;
    case GRAPH_OP_SOFTMAX:
    case GRAPH_OP_LAYERNORM:
    case GRAPH_OP_RMSNORM:
    case GRAPH_OP_BATCHNORM:
    case GRAPH_OP_CONCAT:
    case GRAPH_OP_GATHER:
        return a == A_AXIS;
    case GRAPH_OP_SLICE:
        return a == A_AXIS || a == A_BEGIN || a == A_END || a == A_STEP;
    case GRAPH_OP_TRANSPOSE:
        return a == A_PERM;
    default:
        return 0;
    }
}

static int is_axis_attr(int a)
{
    return a == A_LHS_C || a == A_RHS_C || a == A_LHS_B || a == A_RHS_B || a == A_AXES ||
           a == A_AXIS || a == A_PERM;
}

/* Parse the value list of token i starting at offset off: 1..GRAPH_MAX_RANK integers. */
static int parse_list(struct reader *r, size_t i, size_t off, int64_t *v, int *n)
{
    const struct ls_token *t = &r->sc.tok[i];
    *n = 0;
    size_t p = off;
    for (;;) {
        size_t q = p;
        while (q < t->n && t->s[q] != ',')
            q++;
        if (*n == GRAPH_MAX_RANK)
            return err_at(r, i, p, "more than %d values", GRAPH_MAX_RANK);
        if (parse_i64(t->s + p, q - p, &v[*n]) || v[*n] < -((int64_t)1 << 40) ||
            v[*n] > ((int64_t)1 << 40))
            return err_at(r, i, p, "expected an integer");
        (*n)++;
        if (q == t->n)
            break;
        p = q + 1;
    }
    return 0;
}

struct attr_seen {
    int tok[A_COUNT];          /* token index, 0 = not given */
    int n[A_COUNT];
    int64_t v[A_COUNT][GRAPH_MAX_RANK];
};

/* Turn the parsed values into attrs; axis values may be negative (from the end). */
static int apply_attrs(struct reader *r, enum graph_op_kind kind, const int32_t *in, int nin,
                       const struct graph_shape *declared, struct attr_seen *as,
                       struct graph_attrs *at)
{
    int ranks[2] = {0, 0};
    for (int i = 0; i < nin && i < 2; i++)
        ranks[i] = graph_tensor(r->g, in[i])->shape.rank;
    graph_attrs_default(kind, ranks, nin, at);
    if (kind == GRAPH_OP_SLICE && nin > 0) {
        int ax = as->tok[A_AXIS] ? (int)as->v[A_AXIS][0] : 0;
        if (ax < 0)
            ax += ranks[0];
        if (ax >= 0 && ax < ranks[0])
            at->end = graph_tensor(r->g, in[0])->shape.dims[ax].size;
    }
    for (int a = 0; a < A_COUNT; a++) {
        if (!as->tok[a])
            continue;
        size_t ti = (size_t)as->tok[a];
        int n = as->n[a];
        int64_t *v = as->v[a];
        int rank = (a == A_RHS_C || a == A_RHS_B) ? ranks[1] : ranks[0];
        if (is_axis_attr(a))
            for (int k = 0; k < n; k++) {
                if (v[k] < 0)
                    v[k] += rank;
                if (v[k] < 0 || v[k] >= rank)
                    return err_at(r, ti, 0, "attribute %s: axis %lld out of range for rank %d",
                                  attr_names[a], (long long)(v[k] < 0 ? v[k] - rank : v[k]),
                                  rank);
            }
        int single = a == A_GROUPS || a == A_KEEP || a == A_AXIS || a == A_BEGIN ||
                     a == A_END || a == A_STEP;
        int pair = a == A_STRIDE || a == A_PAD || a == A_DIL || a == A_KERNEL;
        if (single && n != 1)
            return err_at(r, ti, 0, "%s takes one value", attr_names[a]);
        if (pair && n > 2)
            return err_at(r, ti, 0, "%s takes one or two values (height,width)",
                          attr_names[a]);
        if (a == A_PERM && n != rank)
            return err_at(r, ti, 0, "perm needs %d values (the input rank), got %d", rank, n);
        int64_t *dst2 = a == A_STRIDE ? at->stride : a == A_PAD ? at->pad
                        : a == A_DIL  ? at->dilation : a == A_KERNEL ? at->kernel : NULL;
        if (dst2) {
            dst2[0] = v[0];
            dst2[1] = n == 2 ? v[1] : v[0];
            continue;
        }
        for (int k = 0; k < n; k++) {
            int iv = (int)v[k];
            switch (a) {
            case A_LHS_C: at->lhs_contract[k] = iv; at->ncontract = n; break;
            case A_RHS_C: at->rhs_contract[k] = iv; break;
            case A_LHS_B: at->lhs_batch[k] = iv; at->nbatch = n; break;
            case A_RHS_B: at->rhs_batch[k] = iv; break;
            case A_AXES: at->axes[k] = iv; at->naxes = n; break;
            case A_PERM: at->perm[k] = iv; break;
            case A_AXIS: at->axis = iv; break;
            case A_KEEP: at->keep = (int)(v[k] > 1 || v[k] < 0 ? 2 : v[k]); break;
            case A_GROUPS: at->groups = v[k]; break;
            case A_BEGIN: at->begin = v[k]; break;
            case A_END: at->end = v[k]; break;
            case A_STEP: at->step = v[k]; break;
            default: break;
            }
        }
    }
    /* paired lists must have equal lengths */
    static const int pairs[2][2] = {{A_LHS_C, A_RHS_C}, {A_LHS_B, A_RHS_B}};
    for (int p = 0; p < 2; p++) {
        int l = pairs[p][0], rr = pairs[p][1];
        int nl = as->tok[l] ? as->n[l] : (p ? at->nbatch : at->ncontract);
        int nr = as->tok[rr] ? as->n[rr] : (p ? at->nbatch : at->ncontract);
        if (nl != nr) {
            size_t ti = (size_t)(as->tok[rr] ? as->tok[rr] : as->tok[l]);
            return err_at(r, ti, 0, "%s and %s need the same number of axes (%d vs %d)",
                          attr_names[l], attr_names[rr], nl, nr);
        }
    }
    if (kind == GRAPH_OP_REDUCE_SUM || kind == GRAPH_OP_REDUCE_MAX ||
        kind == GRAPH_OP_REDUCE_MEAN) { /* canonical order */
        for (int i = 1; i < at->naxes; i++)
            for (int j = i; j > 0 && at->axes[j - 1] > at->axes[j]; j--) {
                int tmp = at->axes[j];
                at->axes[j] = at->axes[j - 1];
                at->axes[j - 1] = tmp;
            }
    }
    (void)declared;
    return 0;
}

/* op NAME DTYPE SHAPE = KIND INPUT... [KEY=VALUE...] */
static int line_op(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    static const char usage[] = "op NAME DTYPE SHAPE = KIND INPUT... [KEY=VALUE...]";
    if (ls_scan_arity(sc, 6, -1, usage, r->err))
        return LS_ERR_INPUT;
    char name[GRAPH_MAX_NAME + 1];
    struct graph_shape shape;
    enum ls_dtype dt;
    enum graph_op_kind kind;
    if (check_new_name(r, 1, name, sizeof name) || parse_dtype(r, 2, &dt) ||
        parse_shape(r, 3, &shape))
        return LS_ERR_INPUT;
    if (!ls_tok_eq(&sc->tok[4], "="))
        return err_at(r, 4, 0, "expected '=' after the shape (%s)", usage);
    if (graph_op_kind_parse(sc->tok[5].s, sc->tok[5].n, &kind) || !graph_kind_is_compute(kind))
        return err_at(r, 5, 0, "expected an op kind (matmul, add, conv2d, reduce_sum, ...; "
                      "see docs/formats.md)");
    size_t first_attr = 6;
    while (first_attr < sc->ntok && !memchr(sc->tok[first_attr].s, '=', sc->tok[first_attr].n))
        first_attr++;
    int nin = (int)(first_attr - 6);
    int lo, hi;
    graph_kind_arity(kind, &lo, &hi);
    if (nin < lo || (hi >= 0 && nin > hi)) {
        char want[32];
        if (hi < 0)
            snprintf(want, sizeof want, "at least %d", lo);
        else if (hi != lo)
            snprintf(want, sizeof want, "%d to %d", lo, hi);
        else
            snprintf(want, sizeof want, "%d", lo);
        return err_at(r, nin < lo ? first_attr : (size_t)(6 + (hi < 0 ? 0 : hi)), 0,
                      "%s takes %s input%s, got %d", graph_op_kind_name(kind), want,
                      lo == 1 && hi == 1 ? "" : "s", nin);
    }
    if (nin > GRAPH_MAX_INPUTS)
        return err_at(r, 6, 0, "more than %d inputs", GRAPH_MAX_INPUTS);
    int32_t *in = malloc(sizeof(int32_t) * (size_t)(nin + 1));
    if (!in)
        return ls_error_msg(r->err, LS_ERR_NOMEM, "out of memory");
    int rc = 0;
    for (int k = 0; k < nin && !rc; k++)
        if ((in[k] = existing(r, 6 + (size_t)k)) < 0)
            rc = LS_ERR_INPUT;
    struct attr_seen as;
    memset(&as, 0, sizeof as);
    for (size_t i = first_attr; i < sc->ntok && !rc; i++) {
        const struct ls_token *t = &sc->tok[i];
        const char *eq = memchr(t->s, '=', t->n);
        size_t kl = eq ? (size_t)(eq - t->s) : t->n;
        int a = 0;
        while (a < A_COUNT && !(strlen(attr_names[a]) == kl && !memcmp(attr_names[a], t->s, kl)))
            a++;
        if (!eq) {
            rc = err_at(r, i, 0, "expected KEY=VALUE (inputs come before attributes)");
        } else if (a == A_COUNT || !attr_allowed(kind, a)) {
            char buf[64];
            snprintf(buf, sizeof buf, "%.*s", (int)(kl < 40 ? kl : 40), t->s);
            rc = err_at(r, i, 0, "%s has no attribute '%s'", graph_op_kind_name(kind), buf);
        } else if (as.tok[a]) {
            rc = err_at(r, i, 0, "attribute '%s' given twice", attr_names[a]);
        } else {
            as.tok[a] = (int)i;
            rc = parse_list(r, i, kl + 1, as.v[a], &as.n[a]);
        }
    }
    struct graph_attrs at;
    if (!rc)
        rc = apply_attrs(r, kind, in, nin, &shape, &as, &at);
    if (!rc && kind == GRAPH_OP_CAST)
        at.dtype = dt;
    struct graph_shape inferred;
    enum ls_dtype idt;
    struct ls_error e;
    ls_error_clear(&e);
    if (!rc && graph_infer(r->g, kind, in, nin, &at, &shape, &inferred, &idt, &e)) {
        if (e.code != LS_ERR_INPUT)
            rc = ls_error_msg(r->err, e.code, "%s", e.msg);
        else
            rc = err_at(r, first_attr < sc->ntok ? first_attr : 5, 0, "%s", e.msg);
    }
    char b1[200], b2[200];
    if (!rc && !graph_shape_equal(&inferred, &shape))
        rc = err_at(r, 3, 0, "declared shape %s, but %s of these inputs gives %s",
                    graph_shape_str(&shape, 0, b1, sizeof b1), graph_op_kind_name(kind),
                    graph_shape_str(&inferred, 0, b2, sizeof b2));
    if (!rc && !graph_output_dtype_ok(kind, idt, dt))
        rc = err_at(r, 2, 0, "declared dtype %s, but %s of these inputs gives %s",
                    ls_dtype_name(dt), graph_op_kind_name(kind), ls_dtype_name(idt));
    if (!rc) {
        int32_t t = graph_add_tensor_shape(r->g, name, dt, GRAPH_ROLE_ACTIVATION, &shape);
        if (t < 0 || graph_add_op(r->g, kind, in, nin, t, &at) < 0)
            rc = builder_err(r, 1);
        else
            rc = note_def(r, t);
    }
    free(in);
    return rc;
}

static int read_line(struct reader *r)
{
    struct ls_scan *sc = &r->sc;
    const struct ls_token *t0 = &sc->tok[0];
    if (!r->header) {
        if (!ls_tok_eq(t0, "lg"))
            return err_at(r, 0, 0, "expected the header 'lg 1'");
        if (sc->ntok < 2 || !ls_tok_eq(&sc->tok[1], "1"))
            return err_at(r, 1, 0, "expected format version 1 ('lg 1')");
        if (sc->ntok > 2)
            return err_at(r, 2, 0, "expected end of line after 'lg 1'");
        r->header = 1;
        return 0;
    }
    if (ls_tok_eq(t0, "input"))
        return line_source(r, GRAPH_ROLE_INPUT);
    if (ls_tok_eq(t0, "weight"))
        return line_source(r, GRAPH_ROLE_WEIGHT);
    if (ls_tok_eq(t0, "op"))
        return line_op(r);
    if (ls_tok_eq(t0, "output"))
        return line_output(r);
    if (ls_tok_eq(t0, "name")) {
        if (ls_scan_arity(sc, 2, 2, "name NAME", r->err))
            return LS_ERR_INPUT;
        if (r->named)
            return err_at(r, 0, 0, "the graph name is given twice");
        if (graph_nops(r->g))
            return err_at(r, 0, 0, "'name' must come before the first tensor");
        char buf[GRAPH_MAX_NAME + 1];
        if (sc->tok[1].n >= sizeof buf || !graph_name_ok(sc->tok[1].s, sc->tok[1].n))
            return err_at(r, 1, 0, "expected a graph name (letters, digits, _ . @ / -)");
        if (graph_set_name(r->g, tokstr(r, 1, buf, sizeof buf)))
            return builder_err(r, 1);
        r->named = 1;
        return 0;
    }
    if (ls_tok_eq(t0, "lg"))
        return err_at(r, 0, 0, "the header 'lg 1' appears twice");
    return err_at(r, 0, 0, "expected 'input', 'weight', 'op', 'output' or 'name'");
}

int graph_read(const char *file, const char *buf, size_t len, struct graph **out,
               struct ls_error *err)
{
    *out = NULL;
    struct reader r;
    memset(&r, 0, sizeof r);
    r.err = err;
    r.g = graph_new(NULL);
    if (!r.g)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    ls_scan_init(&r.sc, file, buf, len);
    int rc = 0, more;
    while (!rc && (more = ls_scan_next(&r.sc, err)) != 0) {
        if (more < 0) {
            rc = err->code ? err->code : LS_ERR_INPUT;
            break;
        }
        rc = read_line(&r);
    }
    if (!rc && !r.header)
        rc = ls_error_set(err, LS_ERR_INPUT, file, 1, 1, "expected the header 'lg 1' (empty file)");
    if (!rc) {
        struct ls_error e;
        ls_error_clear(&e);
        if ((rc = graph_validate(r.g, &e)) != 0)
            ls_error_set(err, rc, file, r.sc.line, 1, "%s", e.msg);
    }
    ls_scan_free(&r.sc);
    LS_VEC_FREE(&r.def_line);
    if (rc) {
        graph_free(r.g);
        return rc;
    }
    *out = r.g;
    return 0;
}

int graph_read_file(const char *path, struct graph **out, struct ls_error *err)
{
    char *data;
    size_t len;
    *out = NULL;
    int rc = ls_read_file(path, &data, &len, err);
    if (rc)
        return rc;
    rc = graph_read(path, data, len, out, err);
    free(data);
    return rc;
}
