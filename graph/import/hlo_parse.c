/* graph/import: HLO module text -> computations and instructions (hlo_int.h). A small
 * recursive-descent reader over the characters; every error names line and column. */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/import/hlo_int.h"
#include "util/intern.h"

struct cur {
    const struct hlo_module *m;
    const char *s, *end;
    int line, col;
    struct ls_error *err;
    int depth;               /* tuple shape nesting */
};

int hlo_fail_at(const struct hlo_module *m, const struct hlo_span *at, struct ls_error *err,
                const char *fmt, ...)
{
    char msg[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return ls_error_set(err, LS_ERR_INPUT, m->file, at ? at->line : 0, at ? at->col : 0,
                        "%s", msg);
}

int hlo_span_is(const struct hlo_span *s, const char *lit)
{
    return (int)strlen(lit) == s->n && !memcmp(s->s, lit, (size_t)s->n);
}

const struct hlo_attr *hlo_attr_find(const struct hlo_instr *in, const char *key)
{
    for (int i = 0; i < in->nattrs; i++)
        if (hlo_span_is(&in->attrs[i].key, key))
            return &in->attrs[i];
    return NULL;
}

static struct hlo_span here(const struct cur *c)
{
    return (struct hlo_span){c->s, 0, c->line, c->col};
}

static int fail(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct cur *c, const char *fmt, ...)
{
    char msg[sizeof c->err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    struct hlo_span at = here(c);
    return hlo_fail_at(c->m, &at, c->err, "%s", msg);
}

static void adv(struct cur *c)
{
    if (*c->s == '\n') {
        c->line++;
        c->col = 1;
    } else {
        c->col++;
    }
    c->s++;
}

/* Blanks, block comments and line comments. */
static void ws(struct cur *c)
{
    while (c->s < c->end) {
        if (isspace((unsigned char)*c->s)) {
            adv(c);
        } else if (c->s + 1 < c->end && c->s[0] == '/' && c->s[1] == '*') {
            while (c->s < c->end && !(c->s + 1 < c->end && c->s[0] == '*' && c->s[1] == '/'))
                adv(c);
            for (int i = 0; i < 2 && c->s < c->end; i++)
                adv(c);
        } else if (c->s + 1 < c->end && c->s[0] == '/' && c->s[1] == '/') {
            while (c->s < c->end && *c->s != '\n')
                adv(c);
        } else {
            break;
        }
    }
}

static int peek(struct cur *c)
{
    ws(c);
    return c->s < c->end ? (unsigned char)*c->s : -1;
}

static int eat(struct cur *c, char ch)
{
    if (peek(c) != (unsigned char)ch)
        return 0;
    adv(c);
    return 1;
}

static int expect(struct cur *c, char ch, const char *what)
{
    if (eat(c, ch))
        return 0;
    if (c->s >= c->end)
        return fail(c, "unexpected end of file: expected '%c' %s", ch, what);
    return fail(c, "expected '%c' %s, found '%c'", ch, what, *c->s);
}

static int name_char(int ch)
{
    return isalnum(ch) || ch == '_' || ch == '.' || ch == '-';
}

/* A name or keyword: [%]?[A-Za-z_][A-Za-z0-9_.-]*; the span has no '%'. */
static int ident(struct cur *c, struct hlo_span *out, const char *what)
{
    ws(c);
    if (c->s < c->end && *c->s == '%')
        adv(c);
    *out = here(c);
    if (c->s >= c->end)
        return fail(c, "unexpected end of file: expected %s", what);
    if (!isalpha((unsigned char)*c->s) && *c->s != '_')
        return fail(c, "expected %s, found '%c'", what, *c->s);
    while (c->s < c->end && name_char((unsigned char)*c->s))
        adv(c);
    out->n = (int)(c->s - out->s);
    return 0;
}

static int integer(struct cur *c, int64_t *v, const char *what)
{
    ws(c);
    const char *p = c->s;
    int64_t x = 0;
    while (c->s < c->end && isdigit((unsigned char)*c->s)) {
        if (x > GRAPH_MAX_DIM)
            return fail(c, "%s too large", what);
        x = x * 10 + (*c->s - '0');
        adv(c);
    }
    if (c->s == p)
        return c->s >= c->end ? fail(c, "unexpected end of file: expected %s", what)
                              : fail(c, "expected %s, found '%c'", what, *c->s);
    *v = x;
    return 0;
}

/* Skip a balanced (), {} or [] group starting at the opener, strings included. */
static int skip_group(struct cur *c)
{
    char stack[64];
    int depth = 0;
    struct hlo_span start = here(c);
    do {
        if (c->s >= c->end)
            return hlo_fail_at(c->m, &start, c->err,
                               "unexpected end of file: '%c' is never closed", *start.s);
        char ch = *c->s;
        if (ch == '"') {
            adv(c);
            while (c->s < c->end && *c->s != '"') {
                if (*c->s == '\\' && c->s + 1 < c->end)
                    adv(c);
                adv(c);
            }
        } else if (ch == '(' || ch == '{' || ch == '[') {
            if (depth == (int)sizeof stack)
                return fail(c, "nesting deeper than %d", (int)sizeof stack);
            stack[depth++] = ch == '(' ? ')' : ch == '{' ? '}' : ']';
        } else if (ch == ')' || ch == '}' || ch == ']') {
            if (ch != stack[depth - 1])
                return fail(c, "'%c' closes '%c'", ch,
                            stack[depth - 1] == ')' ? '(' : stack[depth - 1] == '}' ? '{' : '[');
            depth--;
        }
        if (c->s < c->end)
            adv(c);
    } while (depth > 0);
    return 0;
}

static const struct {
    const char *name;
    enum ls_dtype dt;
} TYPES[] = {
    {"pred", LS_DT_INT8}, {"s8", LS_DT_INT8},   {"u8", LS_DT_INT8},    {"s16", LS_DT_INT32},
    {"u16", LS_DT_INT32}, {"s32", LS_DT_INT32}, {"u32", LS_DT_INT32}, {"s64", LS_DT_INT32},
    {"u64", LS_DT_INT32}, {"f16", LS_DT_FP16},  {"bf16", LS_DT_BF16}, {"f32", LS_DT_FP32},
    {"f64", LS_DT_FP32},  {"f8e4m3fn", LS_DT_FP8}, {"f8e5m2", LS_DT_FP8},
    {"f8e4m3", LS_DT_FP8}, {"f8e4m3fnuz", LS_DT_FP8}, {"f8e5m2fnuz", LS_DT_FP8},
};

/* `{1,0}` or `{1,0:T(8,128)}`: the minor-to-major list, the rest skipped. */
static int layout(struct cur *c, struct hlo_shape *s)
{
    struct hlo_span at = here(c);
    adv(c);   /* '{' */
    s->nlayout = 0;
    unsigned seen = 0;
    while (peek(c) != '}' && peek(c) != ':') {
        int64_t v;
        if (s->nlayout && expect(c, ',', "between layout entries"))
            return LS_ERR_INPUT;
        if (integer(c, &v, "a layout entry"))
            return LS_ERR_INPUT;
        if (v >= s->rank || s->nlayout == s->rank || (seen >> v & 1))
            return hlo_fail_at(c->m, &at, c->err,
                               "layout is not a permutation of the %d axes of the shape",
                               s->rank);
        seen |= 1u << v;
        s->layout[s->nlayout++] = (int)v;
    }
    if (s->nlayout != s->rank)
        return hlo_fail_at(c->m, &at, c->err,
                           "layout has %d entries, the shape has rank %d", s->nlayout, s->rank);
    while (peek(c) == ':') {  /* tiles, memory space: not modelled */
        while (c->s < c->end && *c->s != '}') {
            if (*c->s == '(' ? skip_group(c) : (adv(c), 0))
                return LS_ERR_INPUT;
        }
    }
    return expect(c, '}', "after the layout");
}

static int shape(struct cur *c, struct hlo_shape *s);

static int tuple_shape(struct cur *c, struct hlo_shape *s)
{
    adv(c);   /* '(' */
    s->tuple = 1;
    struct hlo_shape tmp[64];
    while (!eat(c, ')')) {
        if (s->nelems && expect(c, ',', "between tuple elements"))
            return LS_ERR_INPUT;
        if (s->nelems == 64)
            return fail(c, "more than 64 tuple elements");
        memset(&tmp[s->nelems], 0, sizeof tmp[0]);
        if (shape(c, &tmp[s->nelems]))
            return LS_ERR_INPUT;
        s->nelems++;
    }
    s->elems = ls_arena_alloc(&((struct hlo_module *)c->m)->arena,
                              sizeof *s->elems * (size_t)(s->nelems ? s->nelems : 1));
    if (!s->elems)
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    memcpy(s->elems, tmp, sizeof *s->elems * (size_t)s->nelems);
    return 0;
}

/* f32[8,128]{1,0}, bf16[], (f32[2], s32[]) */
static int shape(struct cur *c, struct hlo_shape *s)
{
    if (peek(c) == '(') {
        if (c->depth > 8)
            return fail(c, "tuple shapes nested deeper than 8");
        c->depth++;
        int rc = tuple_shape(c, s);
        c->depth--;
        return rc;
    }
    struct hlo_span t;
    if (ident(c, &t, "a shape"))
        return LS_ERR_INPUT;
    size_t k = 0;
    while (k < sizeof TYPES / sizeof TYPES[0] && !hlo_span_is(&t, TYPES[k].name))
        k++;
    if (k == sizeof TYPES / sizeof TYPES[0])
        return hlo_fail_at(c->m, &t, c->err, "element type '%.*s' is not supported", t.n, t.s);
    s->dt = TYPES[k].dt;
    s->nlayout = -1;
    if (expect(c, '[', "after the element type"))
        return LS_ERR_INPUT;
    while (!eat(c, ']')) {
        if (s->rank && expect(c, ',', "between dimensions"))
            return LS_ERR_INPUT;
        if (s->rank == GRAPH_MAX_RANK)
            return fail(c, "more than %d dimensions", GRAPH_MAX_RANK);
        if (peek(c) == '<' || peek(c) == '?')
            return fail(c, "dynamic dimensions are not supported");
        if (integer(c, &s->dims[s->rank], "a dimension"))
            return LS_ERR_INPUT;
        if (s->dims[s->rank] < 1)
            return fail(c, "dimension of size 0");
        s->rank++;
    }
    /* the layout follows ']' directly (a blank then '{' opens a computation body) */
    return c->s < c->end && *c->s == '{' ? layout(c, s) : 0;
}

/* Operands: [shape] %name, ... up to ')'. */
static int operands(struct cur *c, struct hlo_instr *in, struct hlo_module *m)
{
    struct hlo_span tmp[GRAPH_MAX_INPUTS];
    in->nops = 0;
    while (!eat(c, ')')) {
        if (in->nops && expect(c, ',', "between operands"))
            return LS_ERR_INPUT;
        if (in->nops == GRAPH_MAX_INPUTS)
            return fail(c, "more than %d operands", GRAPH_MAX_INPUTS);
        struct cur save = *c;
        struct hlo_span nm;
        if (peek(c) != '(' && ident(c, &nm, "an operand"))
            return LS_ERR_INPUT;
        if (peek(c) == '[' || peek(c) == '(') {   /* the operand's shape, then its name */
            *c = save;
            struct hlo_shape ignored = {0};
            if (shape(c, &ignored) || ident(c, &nm, "an operand name"))
                return LS_ERR_INPUT;
        }
        tmp[in->nops++] = nm;
    }
    in->ops = ls_arena_alloc(&m->arena, sizeof *in->ops * (size_t)(in->nops + 1));
    in->opi = ls_arena_alloc(&m->arena, sizeof *in->opi * (size_t)(in->nops + 1));
    if (!in->ops || !in->opi)
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    memcpy(in->ops, tmp, sizeof *in->ops * (size_t)in->nops);
    return 0;
}

/* An attribute value: a {...} or "..." group, or a run up to ',' or a blank. */
static int attr_value(struct cur *c, struct hlo_span *v)
{
    ws(c);
    *v = here(c);
    if (c->s < c->end && (*c->s == '{' || *c->s == '(')) {
        if (skip_group(c))
            return LS_ERR_INPUT;
    } else if (c->s < c->end && *c->s == '"') {
        adv(c);
        while (c->s < c->end && *c->s != '"') {
            if (*c->s == '\\' && c->s + 1 < c->end)
                adv(c);
            adv(c);
        }
        if (c->s >= c->end)
            return hlo_fail_at(c->m, v, c->err, "unexpected end of file: string never closed");
        adv(c);
    } else {
        while (c->s < c->end && !isspace((unsigned char)*c->s) && *c->s != ',' && *c->s != '}')
            adv(c);
    }
    v->n = (int)(c->s - v->s);
    if (!v->n)
        return fail(c, "expected an attribute value");
    return 0;
}

static int attrs(struct cur *c, struct hlo_instr *in, struct hlo_module *m)
{
    struct hlo_attr tmp[32];
    in->nattrs = 0;
    while (eat(c, ',')) {
        if (in->nattrs == 32)
            return fail(c, "more than 32 attributes");
        struct hlo_attr *a = &tmp[in->nattrs++];
        if (ident(c, &a->key, "an attribute name") || expect(c, '=', "after the attribute name") ||
            attr_value(c, &a->val))
            return LS_ERR_INPUT;
    }
    in->attrs = ls_arena_alloc(&m->arena, sizeof *in->attrs * (size_t)(in->nattrs + 1));
    if (!in->attrs)
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    memcpy(in->attrs, tmp, sizeof *in->attrs * (size_t)in->nattrs);
    return 0;
}

/* The computation's instruction names: intern id = instruction index (names are unique
 * and added in order). */
static int find_instr(const struct ls_intern *names, const struct hlo_span *nm)
{
    return (int)ls_intern_find(names, nm->s, (size_t)nm->n);
}

/* [ROOT] %name = shape opcode(operands), attr=value... */
static int instruction(struct cur *c, struct ls_intern *names, struct hlo_instr *in,
                       struct hlo_module *m)
{
    if (ident(c, &in->name, "an instruction name"))
        return LS_ERR_INPUT;
    if (hlo_span_is(&in->name, "ROOT")) {
        in->root = 1;
        if (ident(c, &in->name, "an instruction name"))
            return LS_ERR_INPUT;
    }
    if (find_instr(names, &in->name) >= 0)
        return hlo_fail_at(m, &in->name, c->err, "instruction '%.*s' defined twice",
                           in->name.n, in->name.s);
    if (expect(c, '=', "after the instruction name") || shape(c, &in->shape) ||
        ident(c, &in->opcode, "an opcode"))
        return LS_ERR_INPUT;
    if (!hlo_opcode_known(in->opcode.s, in->opcode.n))
        return hlo_fail_at(m, &in->opcode, c->err, "instruction '%.*s': unknown opcode '%.*s'",
                           in->name.n, in->name.s, in->opcode.n, in->opcode.s);
    if (peek(c) != '(')
        return expect(c, '(', "after the opcode");
    int plain = !hlo_span_is(&in->opcode, "constant") && !hlo_span_is(&in->opcode, "parameter");
    in->args = here(c);
    if (plain) {
        adv(c);
        if (operands(c, in, m))
            return LS_ERR_INPUT;
    } else if (skip_group(c)) {
        return LS_ERR_INPUT;
    }
    in->args.n = (int)(c->s - in->args.s);
    for (int i = 0; i < in->nops; i++) {
        in->opi[i] = find_instr(names, &in->ops[i]);
        if (in->opi[i] < 0)
            return hlo_fail_at(m, &in->ops[i], c->err,
                               "instruction '%.*s': operand '%.*s' is not defined before it",
                               in->name.n, in->name.s, in->ops[i].n, in->ops[i].s);
    }
    if (attrs(c, in, m))
        return LS_ERR_INPUT;
    return ls_intern_add(names, in->name.s, (size_t)in->name.n) < 0
               ? ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory") : 0;
}

/* [ENTRY] %name [(params) -> shape] { instructions } */
static int computation_body(struct cur *c, struct hlo_comp *cp, struct hlo_module *m,
                            struct ls_intern *names)
{
    if (ident(c, &cp->name, "a computation name"))
        return LS_ERR_INPUT;
    if (hlo_span_is(&cp->name, "ENTRY")) {
        cp->entry = 1;
        if (ident(c, &cp->name, "a computation name"))
            return LS_ERR_INPUT;
    }
    if (peek(c) == '(' && skip_group(c))
        return LS_ERR_INPUT;
    if (peek(c) == '-') {
        struct hlo_shape ignored = {0};
        adv(c);
        if (expect(c, '>', "in '->'") || shape(c, &ignored))
            return LS_ERR_INPUT;
    }
    struct hlo_span open = here(c);
    if (expect(c, '{', "to open the computation"))
        return LS_ERR_INPUT;
    size_t cap = 16;
    cp->ins = malloc(cap * sizeof *cp->ins);
    cp->root = -1;
    while (cp->ins && !eat(c, '}')) {
        if (peek(c) < 0)
            return hlo_fail_at(m, &open, c->err,
                               "unexpected end of file: computation '%.*s' is never closed",
                               cp->name.n, cp->name.s);
        if ((size_t)cp->nins == cap) {
            struct hlo_instr *n = realloc(cp->ins, (cap *= 2) * sizeof *cp->ins);
            if (!n)
                return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
            cp->ins = n;
        }
        struct hlo_instr *in = &cp->ins[cp->nins];
        memset(in, 0, sizeof *in);
        if (instruction(c, names, in, m))
            return LS_ERR_INPUT;
        if (in->root && cp->root >= 0)
            return hlo_fail_at(m, &in->name, c->err, "a second ROOT in computation '%.*s'",
                               cp->name.n, cp->name.s);
        if (in->root)
            cp->root = cp->nins;
        cp->nins++;
    }
    if (!cp->ins)
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    if (!cp->nins)
        return hlo_fail_at(m, &open, c->err, "computation '%.*s' has no instructions",
                           cp->name.n, cp->name.s);
    if (cp->root < 0)
        cp->root = cp->nins - 1;
    /* keep the instructions in the arena so hlo_module_free frees them at once */
    struct hlo_instr *kept = ls_arena_alloc(&m->arena, sizeof *kept * (size_t)cp->nins);
    if (!kept)
        return ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
    memcpy(kept, cp->ins, sizeof *kept * (size_t)cp->nins);
    free(cp->ins);
    cp->ins = kept;
    return 0;
}

static int computation(struct cur *c, struct hlo_comp *cp, struct hlo_module *m)
{
    struct ls_intern names;
    ls_intern_init(&names);
    int rc = computation_body(c, cp, m, &names);
    ls_intern_free(&names);
    if (rc) {
        free(cp->ins);   /* on errors still the malloc'd array */
        cp->ins = NULL;
        return rc;
    }
    while (eat(c, ',')) {   /* `}, execution_thread="main"` */
        struct hlo_span k, v;
        if (ident(c, &k, "a computation attribute") ||
            expect(c, '=', "after the attribute name") || attr_value(c, &v))
            return LS_ERR_INPUT;
    }
    return 0;
}

static int module_header(struct cur *c, struct hlo_module *m)
{
    struct hlo_span kw;
    if (ident(c, &kw, "'HloModule'"))
        return LS_ERR_INPUT;
    if (!hlo_span_is(&kw, "HloModule"))
        return hlo_fail_at(m, &kw, c->err, "expected 'HloModule', found '%.*s'", kw.n, kw.s);
    if (ident(c, &m->name, "the module name"))
        return LS_ERR_INPUT;
    while (eat(c, ',')) {
        struct hlo_span k, v;
        if (ident(c, &k, "a module attribute") || expect(c, '=', "after the attribute name") ||
            attr_value(c, &v))
            return LS_ERR_INPUT;
    }
    return 0;
}

int hlo_parse(const char *file, const char *buf, size_t len, struct hlo_module *m,
              struct ls_error *err)
{
    memset(m, 0, sizeof *m);
    m->file = file;
    m->entry = -1;
    ls_arena_init(&m->arena, 0);
    struct cur c = {m, buf, buf + len, 1, 1, err, 0};
    const char *nul = memchr(buf, 0, len);
    if (nul) {
        struct cur at = c;
        while (at.s < nul)
            adv(&at);
        return fail(&at, "a NUL byte in HLO text");
    }
    if (module_header(&c, m))
        return LS_ERR_INPUT;
    int cap = 0;
    struct hlo_comp *comps = NULL;
    int rc = 0;
    while (!rc && peek(&c) >= 0) {
        if (m->ncomps == cap) {
            cap = cap ? 2 * cap : 8;
            struct hlo_comp *n = realloc(comps, sizeof *comps * (size_t)cap);
            if (!n) {
                rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                break;
            }
            comps = n;
        }
        memset(&comps[m->ncomps], 0, sizeof *comps);
        m->comps = comps;
        rc = computation(&c, &comps[m->ncomps], m);
        if (!rc && comps[m->ncomps].entry) {
            if (m->entry >= 0)
                rc = hlo_fail_at(m, &comps[m->ncomps].name, err, "a second ENTRY computation");
            m->entry = m->ncomps;
        }
        if (!rc)
            m->ncomps++;
    }
    m->comps = comps;
    if (!rc && m->entry < 0) {
        struct hlo_span at = here(&c);
        rc = hlo_fail_at(m, &at, err, "unexpected end of file: the module has no ENTRY "
                                      "computation");
    }
    return rc;
}

void hlo_module_free(struct hlo_module *m)
{
    free(m->comps);
    ls_arena_free(&m->arena);
    memset(m, 0, sizeof *m);
}
