/* sim/program_text: the .lsprog text form (docs/formats.md, "Programs"): parser and writer. */
#include "sim/program.h"
#include "sim/program_int.h"
#include "sim/check_int.h"
#include "sim/target.h"
#include "sim/sim.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/fileio.h"
#include "util/scan.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

typedef LS_VEC(uint32_t) dep_vec;

/* a[0..n) == b[0..n) for the short names and tags of a program, 8 bytes at a time (the
 * last word overlapping) instead of a memcmp call per line. */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            if (a[i] != b[i])
                return 0;
        return 1;
    }
    uint64_t x, y;
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&x, a + i, 8);
        memcpy(&y, b + i, 8);
        if (x != y)
            return 0;
    }
    memcpy(&x, a + n - 8, 8);
    memcpy(&y, b + n - 8, 8);
    return x == y;
}

/* The last few names parsed in one place (engine, opcode, dtype) and their values:
 * consecutive lines mostly repeat one of them (a stream of load_stationary and matmul
 * alternates two opcodes), and comparing is cheaper than the name tables. */
#define NAME_MEMO_WAYS 4
struct name_memo {
    struct {
        const char *s;
        size_t n;
        int v;
    } e[NAME_MEMO_WAYS];
    unsigned next; /* the entry to replace */
};

static inline int memo_hit(const struct name_memo *m, const char *s, size_t n, int *v)
{
    for (int k = 0; k < NAME_MEMO_WAYS; k++)
        if (m->e[k].s && m->e[k].n == n && same_bytes(m->e[k].s, s, n)) {
            *v = m->e[k].v;
            return 1;
        }
    return 0;
}

static inline void memo_set(struct name_memo *m, const char *s, size_t n, int v)
{
    unsigned k = m->next++ % NAME_MEMO_WAYS;
    m->e[k].s = s;
    m->e[k].n = n;
    m->e[k].v = v;
}

/* The last few operand tokens parsed in one slot (dst, src, src2), as the bytes before the
 * address and after it: consecutive instructions mostly repeat an operand but for its
 * address, which is then the only field parsed. */
#define OPERAND_MEMO_WAYS 4
struct operand_seen {
    const char *pre, *post; /* "MEM[...]@" and ":DTYPE:DIMS" in the text */
    size_t pre_n, post_n;
    struct sim_operand op;
};
struct operand_memo {
    struct operand_seen e[OPERAND_MEMO_WAYS];
    unsigned next;
};

/* What a line needs besides the program: its dependency list, the last tag interned
 * (consecutive instructions mostly carry the same tag: compared, not hashed) and the last
 * names and operands parsed. */
struct line_ctx {
    dep_vec deps;
    const char *tag;
    size_t tag_n;
    int32_t tag_id;
    struct name_memo engine, opcode, dtype;
    struct operand_memo operand[3];
};

static int parse_engine(struct line_ctx *lc, const char *s, size_t n, enum ls_engine *e)
{
    int v;
    if (memo_hit(&lc->engine, s, n, &v))
        return *e = (enum ls_engine)v, 0;
    if (sim_engine_parse(s, n, e))
        return -1;
    memo_set(&lc->engine, s, n, (int)*e);
    return 0;
}

static int parse_opcode(struct line_ctx *lc, const char *s, size_t n, enum sim_opcode *op)
{
    int v;
    if (memo_hit(&lc->opcode, s, n, &v))
        return *op = (enum sim_opcode)v, 0;
    if (sim_opcode_parse(s, n, op))
        return -1;
    memo_set(&lc->opcode, s, n, (int)*op);
    return 0;
}

static int parse_dtype(struct name_memo *m, const char *s, size_t n, enum ls_dtype *dt)
{
    int v;
    if (memo_hit(m, s, n, &v))
        return *dt = (enum ls_dtype)v, 0;
    if (ls_dtype_parse(s, n, dt))
        return -1;
    memo_set(m, s, n, (int)*dt);
    return 0;
}

static int32_t intern_tag(struct sim_program *p, struct line_ctx *lc, const char *v, size_t vn)
{
    if (lc->tag && lc->tag_n == vn && same_bytes(lc->tag, v, vn))
        return lc->tag_id;
    int32_t id = ls_intern_add(&p->strs, v, vn);
    if (id >= 0) {
        lc->tag = ls_intern_str(&p->strs, id);
        lc->tag_n = vn;
        lc->tag_id = id;
    }
    return id;
}

/* ---- tokens ------------------------------------------------------------------------------
 * The lines of a program as ls_scan_next cuts them (the same tokens, columns, comments and
 * NUL errors), with token ends found 16 bytes at a time: cutting a 130 MB program byte by
 * byte was a quarter of loading it. */

static int ends_token(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '#' || c == '\0';
}

/* First j' >= j before end where a token ends, or end; b has len bytes (never read past). */
static inline size_t token_stop(const char *b, size_t j, size_t end, size_t len)
{
#ifdef __SSE2__
    const __m128i sp = _mm_set1_epi8(' '), tab = _mm_set1_epi8('\t'), cr = _mm_set1_epi8('\r'),
                  hash = _mm_set1_epi8('#'), nul = _mm_setzero_si128();
    for (; j < end && j + 16 <= len; j += 16) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(b + j));
        __m128i m = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, tab)),
                                 _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, cr),
                                                           _mm_cmpeq_epi8(v, hash)),
                                              _mm_cmpeq_epi8(v, nul)));
        unsigned bits = (unsigned)_mm_movemask_epi8(m);
        if (bits) {
            size_t k = j + (size_t)__builtin_ctz(bits);
            return k < end ? k : end;
        }
    }
    if (j >= end)
        return end;
#endif
    while (j < end && !ends_token((unsigned char)b[j]))
        j++;
    return j;
}

static int scan_nul(struct ls_scan *sc, size_t start, size_t at, struct ls_error *err)
{
    return ls_error_set(err, LS_ERR_INPUT, sc->file, sc->line, (int)(at - start) + 1,
                        "NUL byte in text file"), -1;
}

/* ls_scan_next's contract: 1 with the next line's tokens, 0 at the end, -1 on error. */
static int scan_next(struct ls_scan *sc, struct ls_error *err)
{
    const char *b = sc->buf;
    while (sc->pos < sc->len) {
        sc->line++;
        sc->ntok = 0;
        size_t start = sc->pos;
        const char *nl = memchr(b + start, '\n', sc->len - start);
        size_t end = nl ? (size_t)(nl - b) : sc->len;
        sc->pos = end < sc->len ? end + 1 : end;
        for (size_t i = start; i < end;) {
            unsigned char c = (unsigned char)b[i];
            if (c == ' ' || c == '\t' || c == '\r') {
                i++;
                continue;
            }
            if (c == '\0')
                return scan_nul(sc, start, i, err);
            if (c == '#') { /* a comment, but a NUL there is still an error */
                const char *z = memchr(b + i, '\0', end - i);
                if (z)
                    return scan_nul(sc, start, (size_t)(z - b), err);
                break;
            }
            size_t j = token_stop(b, i + 1, end, sc->len);
            if (sc->ntok == sc->captok && LS_ARRAY_RESERVE(sc->tok, sc->captok, sc->ntok + 1))
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory"), -1;
            struct ls_token *t = &sc->tok[sc->ntok++];
            t->s = b + i;
            t->n = j - i;
            t->col = (int)(i - start) + 1;
            sc->end_col = (int)(j - start) + 1;
            i = j;
        }
        if (sc->ntok)
            return 1;
    }
    sc->ntok = 0;
    return 0;
}

/* A small cursor over one token for the operand grammar. */
struct cur {
    const char *s;
    size_t n, i;
};

static inline __attribute__((always_inline)) int cur_lit(struct cur *c, char ch)
{
    if (c->i < c->n && c->s[c->i] == ch) {
        c->i++;
        return 1;
    }
    return 0;
}

/* Digits as ls_parse_u64 takes them (no leading zero, no overflow). Up to 19 digits cannot
 * overflow: only longer numbers pay for the checks. Inlined at each of its dozen call
 * sites: the calls were a tenth of parsing. */
static inline __attribute__((always_inline)) int cur_u64(struct cur *c, uint64_t *out)
{
    size_t j = c->i;
    uint64_t v = 0;
    while (j < c->n && (unsigned)(c->s[j] - '0') < 10u)
        v = v * 10 + (unsigned)(c->s[j++] - '0');
    if (j == c->i || (j - c->i > 1 && c->s[c->i] == '0'))
        return -1;
    if (j - c->i > 19) {
        v = 0;
        for (size_t k = c->i; k < j; k++)
            if (__builtin_mul_overflow(v, 10, &v) ||
                __builtin_add_overflow(v, (unsigned)(c->s[k] - '0'), &v))
                return -1;
    }
    *out = v;
    c->i = j;
    return 0;
}

static inline __attribute__((always_inline)) int cur_i64(struct cur *c, int64_t *out)
{
    int neg = cur_lit(c, '-');
    uint64_t v;
    if (cur_u64(c, &v) || v > (uint64_t)INT32_MAX)
        return -1;
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

/* MEM[...]@ADDR:DTYPE:DIMS ; see docs/formats.md. Returns NULL or a message. */
static const char *parse_operand(const char *s, size_t n, struct sim_operand *o,
                                 struct name_memo *dtm)
{
    memset(o, 0, sizeof *o);
    struct cur c = {s, n, 0};
    size_t j = 0;
    while (j < n && s[j] >= 'a' && s[j] <= 'z')
        j++;
    if (j == 4 && !memcmp(s, "sbuf", 4))
        o->mem = LS_MEM_SBUF;
    else if (j == 4 && !memcmp(s, "psum", 4))
        o->mem = LS_MEM_PSUM;
    else if (j == 3 && !memcmp(s, "hbm", 3))
        o->mem = LS_MEM_HBM;
    else
        return "expected a memory: sbuf, psum or hbm";
    c.i = j;
    uint64_t a, b;
    if (!cur_lit(&c, '['))
        return "expected '[' after the memory";
    if (o->mem == LS_MEM_HBM) {
        int64_t ps;
        if (cur_u64(&c, &a) || !cur_lit(&c, '/') || cur_i64(&c, &ps))
            return "expected hbm[ROWS/ROW_STRIDE]";
        if (a == 0 || a > UINT32_MAX)
            return "row count out of range";
        o->nparts = (uint32_t)a;
        o->pstride = (int32_t)ps;
    } else {
        if (cur_u64(&c, &a) || !cur_lit(&c, ':') || cur_u64(&c, &b))
            return "expected [FIRST:END] partitions";
        if (b <= a || b > UINT32_MAX)
            return "partition range [FIRST:END] must have END > FIRST";
        o->part_start = (uint32_t)a;
        o->nparts = (uint32_t)(b - a);
    }
    if (!cur_lit(&c, ']'))
        return "expected ']'";
    if (!cur_lit(&c, '@') || cur_u64(&c, &a))
        return "expected @ADDRESS (bytes)";
    o->addr = a;
    if (!cur_lit(&c, ':'))
        return "expected ':DTYPE'";
    j = c.i;
    while (j < n && s[j] != ':')
        j++;
    enum ls_dtype dt;
    if (parse_dtype(dtm, s + c.i, j - c.i, &dt))
        return "unknown dtype (fp32, bf16, fp16, fp8, int32, int8)";
    o->dtype = (uint8_t)dt;
    c.i = j;
    if (!cur_lit(&c, ':'))
        return "expected ':DIMS' (e.g. 512 or 4x128/2)";
    int nd = 0;
    int explicit_stride[SIM_AP_MAX_DIMS] = {0};
    for (;;) {
        if (nd == SIM_AP_MAX_DIMS)
            return "more than 4 free dims";
        if (cur_u64(&c, &a) || a == 0 || a > UINT32_MAX)
            return "expected a dim size (1 or more)";
        o->size[nd] = (uint32_t)a;
        if (cur_lit(&c, '/')) {
            int64_t st;
            if (cur_i64(&c, &st))
                return "expected a stride after '/'";
            o->stride[nd] = (int32_t)st;
            explicit_stride[nd] = 1;
        }
        nd++;
        if (!cur_lit(&c, 'x'))
            break;
    }
    if (c.i != n)
        return "unexpected characters after the dims";
    o->ndim = (uint8_t)nd;
    int64_t dense = 1;
    for (int d = nd - 1; d >= 0; d--) {
        if (!explicit_stride[d]) {
            if (dense > INT32_MAX)
                return "dims too large";
            o->stride[d] = (int32_t)dense;
        }
        dense = (int64_t)o->size[d] * (o->stride[d] < 0 ? -o->stride[d] : o->stride[d]);
        if (dense == 0)
            dense = o->size[d];
    }
    return NULL;
}

/* Operand token s[0..n) split around its address: pre is s[0..*at) up to and with the '@',
 * the address digits end at *post. 0 when there is no '@' followed by a digit. */
static inline int split_address(const char *s, size_t n, size_t *at, size_t *post)
{
    const char *a = memchr(s, '@', n);
    if (!a)
        return 0;
    size_t i = (size_t)(a - s) + 1, j = i;
    while (j < n && (unsigned)(s[j] - '0') < 10u)
        j++;
    *at = i;
    *post = j;
    return j > i;
}

/* parse_operand through the slot's memo: a token that repeats a memo entry's bytes before
 * and after its address (so parse_operand would accept it) parses only the address. */
static const char *parse_operand_memo(struct line_ctx *lc, int k, const char *s, size_t n,
                                      struct sim_operand *o)
{
    struct operand_memo *m = &lc->operand[k];
    size_t at, post;
    if (!split_address(s, n, &at, &post))
        return parse_operand(s, n, o, &lc->dtype);
    for (int w = 0; w < OPERAND_MEMO_WAYS; w++) {
        const struct operand_seen *e = &m->e[w];
        if (e->pre && e->pre_n == at && e->post_n == n - post && same_bytes(e->pre, s, at) &&
            same_bytes(e->post, s + post, n - post)) {
            struct cur c = {s, post, at};
            uint64_t a;
            if (cur_u64(&c, &a)) /* a leading zero: parse_operand's error */
                break;
            *o = e->op;
            o->addr = a;
            return NULL;
        }
    }
    const char *msg = parse_operand(s, n, o, &lc->dtype);
    if (!msg) {
        struct operand_seen *e = &m->e[m->next++ % OPERAND_MEMO_WAYS];
        e->pre = s;
        e->pre_n = at;
        e->post = s + post;
        e->post_n = n - post;
        e->op = *o;
    }
    return msg;
}

/* "key=value": key is a literal, so its length is known at compile time (no strlen per
 * token: the parser tries up to ten keys on every token). */
#define TOK_KEY(t, key, val, vn) tok_key((t), key, sizeof key - 1, (val), (vn))

/* always inlined so that memcmp sees a constant length and becomes a compare or two */
static inline __attribute__((always_inline)) int
tok_key(const struct ls_token *t, const char *key, size_t k, const char **val, size_t *vn)
{
    if (t->n > k && t->s[k] == '=' && !memcmp(t->s, key, k)) {
        *val = t->s + k + 1;
        *vn = t->n - k - 1;
        return 1;
    }
    return 0;
}

/* Name instruction idx by the label token (without its ':'); a label seen before is an
 * error. */
static int add_label(struct sim_program *p, struct ls_scan *sc, uint32_t idx,
                     struct ls_error *err)
{
    const struct ls_token *t = &sc->tok[0];
    int rc = sim_label_add(p, idx, t->s, t->n - 1);
    if (rc < 0)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (rc)
        return ls_scan_error(sc, 0, err, "label '%.*s' is defined twice", (int)t->n - 1, t->s);
    return 0;
}

static int parse_line(struct sim_program *p, struct ls_scan *sc, struct ls_error *err,
                      struct line_ctx *lc)
{
    dep_vec *deps = &lc->deps;
    char buf[128];
    size_t t0 = 0;
    const struct ls_token *tk = sc->tok;
    int32_t label = -1;
    if (tk[0].n > 1 && tk[0].s[tk[0].n - 1] == ':') {
        for (size_t i = 0; i + 1 < tk[0].n; i++) {
            char ch = tk[0].s[i];
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                  ch == '_' || ch == '.' || ch == '-' || ch == '/'))
                return ls_scan_error(sc, 0, err, "label: character '%c' not allowed", ch);
        }
        label = 0;
        t0 = 1;
    }
    if (sc->ntok < t0 + 2)
        return ls_scan_error(sc, sc->ntok, err, "expected ENGINE OPCODE");
    enum ls_engine e;
    enum sim_opcode op;
    if (parse_engine(lc, tk[t0].s, tk[t0].n, &e))
        return ls_scan_error(sc, t0, err, "unknown engine '%s' (pe, act, dve, pool, dma)",
                             ls_tok_str(&tk[t0], buf, sizeof buf));
    if (parse_opcode(lc, tk[t0 + 1].s, tk[t0 + 1].n, &op))
        return ls_scan_error(sc, t0 + 1, err, "unknown opcode '%s'",
                             ls_tok_str(&tk[t0 + 1], buf, sizeof buf));
    if (!sim_opcode_on_engine(op, e))
        return ls_scan_error(sc, t0 + 1, err, "opcode %s does not run on engine %s",
                             sim_opcode_name(op), ls_engine_name(e));
    /* sim_instr_init's instruction but for the absent operands' shape fields, which nothing
     * reads (sim_program_push skips an operand whose memory is none): zeroing the 192 bytes
     * on every line showed in the profile */
    struct sim_instr in;
    in.engine = (uint8_t)e;
    in.opcode = (uint8_t)op;
    in.func = in.flags = 0;
    in.queue = 0;
    in.op_tag = in.conv_tag = -1;
    in.dst.mem = in.src.mem = in.src2.mem = LS_MEM_NONE;
    deps->len = 0;
    int seen_q = 0;
    for (size_t i = t0 + 2; i < sc->ntok; i++) {
        const char *v;
        size_t vn;
        const struct ls_token *t = &tk[i];
        struct sim_operand *slot = NULL;
        int k = 0;
        if (TOK_KEY(t, "dst", &v, &vn))
            slot = &in.dst;
        else if (TOK_KEY(t, "src", &v, &vn))
            slot = &in.src, k = 1;
        else if (TOK_KEY(t, "src2", &v, &vn))
            slot = &in.src2, k = 2;
        if (slot) {
            if (slot->mem != LS_MEM_NONE)
                return ls_scan_error(sc, i, err, "operand given twice");
            const char *msg = parse_operand_memo(lc, k, v, vn, slot);
            if (msg)
                return ls_scan_error(sc, i, err, "%s", msg);
            continue;
        }
        uint64_t u;
        if (TOK_KEY(t, "func", &v, &vn)) {
            enum sim_func f;
            if (sim_func_parse(v, vn, &f))
                return ls_scan_error(sc, i, err, "unknown func '%.*s'", (int)vn, v);
            in.func = (uint8_t)f;
        } else if (TOK_KEY(t, "acc", &v, &vn) || TOK_KEY(t, "all", &v, &vn)) {
            if (ls_parse_u64(v, vn, &u) || u > 1)
                return ls_scan_error(sc, i, err, "expected 0 or 1");
            unsigned fl = t->s[1] == 'c' ? SIM_F_ACCUMULATE : SIM_F_ALL;
            if (u)
                in.flags |= (uint8_t)fl;
        } else if (TOK_KEY(t, "q", &v, &vn)) {
            if (e != LS_ENGINE_DMA)
                return ls_scan_error(sc, i, err, "q= (DMA queue) is for dma instructions only");
            if (ls_parse_u64(v, vn, &u) || u >= SIM_MAX_QUEUES)
                return ls_scan_error(sc, i, err, "queue: expected 0..%d", SIM_MAX_QUEUES - 1);
            in.queue = (uint16_t)u;
            seen_q = 1;
        } else if (TOK_KEY(t, "tag", &v, &vn) || TOK_KEY(t, "conv", &v, &vn)) {
            if (vn == 0)
                return ls_scan_error(sc, i, err, "empty tag");
            int32_t id = intern_tag(p, lc, v, vn);
            if (id < 0)
                return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
            if (t->s[0] == 't')
                in.op_tag = id;
            else
                in.conv_tag = id;
        } else if (TOK_KEY(t, "after", &v, &vn)) {
            size_t a = 0;
            while (a <= vn) {
                size_t b = a;
                while (b < vn && v[b] != ',')
                    b++;
                int64_t dep = sim_label_numbered_at(p, sim_label_number(v + a, b - a));
                if (dep < 0) /* not the writer's own i<N> */
                    dep = sim_label_find(p, v + a, b - a);
                if (b == a || dep < 0)
                    return ls_scan_error(sc, i, err,
                                         "after: '%.*s' is not the label of an earlier instruction",
                                         (int)(b - a), v + a);
                if (deps->len == deps->cap && LS_VEC_RESERVE(deps, deps->len + 1))
                    return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
                deps->data[deps->len++] = (uint32_t)dep;
                a = b + 1;
            }
        } else {
            return ls_scan_error(sc, i, err,
                                 "unknown argument '%s' (dst=, src=, src2=, func=, acc=, all=, "
                                 "q=, after=, tag=, conv=)",
                                 ls_tok_str(t, buf, sizeof buf));
        }
    }
    if (e == LS_ENGINE_DMA && !seen_q)
        in.queue = 0;
    struct ls_error e2;
    int64_t idx = sim_program_add_in_place(p, &in, deps->data, deps->len, &e2);
    if (idx < 0)
        return ls_error_set(err, e2.code, sc->file, sc->line, tk[0].col, "%s", e2.msg);
    if (p->lines.len == p->lines.cap && LS_VEC_RESERVE(&p->lines, p->lines.len + 1))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (LS_VEC_PUSH(&p->lines, sc->line))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    return label == 0 ? add_label(p, sc, (uint32_t)idx, err) : 0;
}

int sim_program_parse(struct sim_program **out, const char *file, const char *text, size_t len,
                      struct ls_error *err)
{
    return sim_program_parse_with(out, file, text, len, NULL, err);
}

int sim_program_parse_with(struct sim_program **out, const char *file, const char *text,
                           size_t len, struct sim_checker *chk, struct ls_error *err)
{
    if (sim_program_is_binary(text, len))
        return sim_program_parse_binary_with(out, file, text, len, chk, err);
    *out = NULL;
    struct sim_program *p = sim_program_new();
    if (!p || !(p->file = strdup(file ? file : ""))) {
        sim_program_free(p);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    sim_tie_scan(&p->tie, text, len, 1);
    struct ls_scan sc;
    ls_scan_init(&sc, p->file, text, len);
    struct line_ctx lc = {.tag_id = -1};
    int rc = 0, r, header = 0;
    while ((r = scan_next(&sc, err)) == 1) {
        if (!header) {
            uint64_t v;
            if (!ls_tok_eq(&sc.tok[0], "lsprog"))
                rc = ls_scan_error(&sc, 0, err, "expected the header 'lsprog 1'");
            else if (!(rc = ls_scan_arity(&sc, 2, 2, "lsprog 1", err)) &&
                     !(rc = ls_scan_u64(&sc, 1, "version", &v, err)) && v != 1)
                rc = ls_scan_error(&sc, 1, err, "unsupported version %" PRIu64 " (expected 1)", v);
            if (rc)
                break;
            header = 1;
            continue;
        }
        size_t before = p->ins.len;
        if ((rc = parse_line(p, &sc, err, &lc)))
            break;
        struct ls_error ignored; /* a failure leaves the error to sim_run's own check */
        if (chk && p->ins.len > before && sim_checker_step(chk, p, &ignored))
            chk = NULL;
    }
    if (r < 0)
        rc = err->code;
    if (!rc && !header)
        rc = ls_error_set(err, LS_ERR_INPUT, p->file, 1, 1, "empty program: expected 'lsprog 1'");
    free(lc.deps.data);
    ls_scan_free(&sc);
    if (rc) {
        sim_program_free(p);
        return rc;
    }
    if (chk)
        sim_checker_passed(chk, p);
    *out = p;
    return 0;
}

/* A regular file is mapped rather than copied into the heap: a 100 MB program read with
 * read(2) cost as much in page faults and copying as the parsing itself. */
static int load_mapped(struct sim_program **out, const char *path, struct sim_checker *chk,
                       int *mapped, struct ls_error *err)
{
    *mapped = 0;
    int fd = strcmp(path, "-") ? open(path, O_RDONLY) : -1;
    struct stat st;
    if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size <= 0) {
        if (fd >= 0)
            close(fd);
        return 0;
    }
    size_t len = (size_t)st.st_size;
    void *data = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (data == MAP_FAILED)
        return 0;
    (void)madvise(data, len, MADV_SEQUENTIAL);
    *mapped = 1;
    int rc = sim_program_parse_with(out, path, data, len, chk, err);
    munmap(data, len);
    return rc;
}

static int load_with(struct sim_program **out, const char *path, struct sim_checker *chk,
                     struct ls_error *err)
{
    int mapped, rc = load_mapped(out, path, chk, &mapped, err);
    if (mapped)
        return rc;
    char *data;
    size_t len;
    rc = ls_read_file(path, &data, &len, err);
    if (rc)
        return rc;
    rc = sim_program_parse_with(out, path, data, len, chk, err);
    free(data);
    return rc;
}

int sim_program_load(struct sim_program **out, const char *path, struct ls_error *err)
{
    return load_with(out, path, NULL, err);
}

int sim_program_load_checked(struct sim_program **out, const char *path,
                             const struct sim_target *t, struct ls_error *err)
{
    struct ls_error ignored; /* an invalid target is sim_run's to report, before any check */
    if (sim_target_validate(t, &ignored))
        return load_with(out, path, NULL, err);
    struct sim_checker *chk = sim_checker_new(t);
    if (!chk)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int rc = load_with(out, path, chk, err);
    sim_checker_free(chk);
    return rc;
}

/* ---- writer ----------------------------------------------------------------------------- */

/* The writer formats into a buffer by hand: with fprintf, formatting was half of what
 * `laysim compile` spent on a million-instruction program. Room for a whole line is made
 * once (line_room), then every piece is put with a bare cursor: a capacity check and a
 * library memcpy per piece were a third of the writer's time. */
struct out {
    char *b;
    size_t len, cap;
    int failed; /* 0, LS_ERR_IO or LS_ERR_NOMEM */
};

/* Enough for a line's fixed parts: names (all under 32 bytes), three operands of at most
 * SIM_AP_MAX_DIMS dims with 20-digit numbers, func, flags and queue. Dependencies and tags
 * are counted apart. */
#define LINE_FIXED_MAX (256 + 3 * (128 + 48 * SIM_AP_MAX_DIMS))

static char *line_room(struct out *o, size_t n)
{
    if (o->len + n > o->cap && LS_ARRAY_RESERVE(o->b, o->cap, o->len + n)) {
        o->failed = LS_ERR_NOMEM;
        return NULL;
    }
    return o->b + o->len;
}

static inline char *put_str(char *w, const char *s, size_t n)
{
    memcpy(w, s, n);
    return w + n;
}

#define PUT_LIT(w, lit) put_str((w), lit, sizeof lit - 1) /* a fixed size: inlined */

static inline char *put_cstr(char *w, const char *s)
{
    while (*s)
        *w++ = *s++;
    return w;
}

static const uint64_t pow10_table[20] = {
    1u, 10u, 100u, 1000u, 10000u, 100000u, 1000000u, 10000000u, 100000000u, 1000000000u,
    10000000000u, 100000000000u, 1000000000000u, 10000000000000u, 100000000000000u,
    1000000000000000u, 10000000000000000u, 100000000000000000u, 1000000000000000000u,
    10000000000000000000u};

/* v in decimal: its length first (from its bit length: 1233 / 4096 is just under log10 2,
 * then one compare), then two digits per division by 100 from the end backwards (the
 * digit-by-digit loop and its reversing copy were half of the writer's instructions). */
static inline char *put_u64(char *w, uint64_t v)
{
    unsigned t = ((unsigned)(64 - __builtin_clzll(v | 1)) * 1233u) >> 12;
    char *e = w + t + (v >= pow10_table[t]) + !v;
    for (w = e; v >= 100; v /= 100) {
        unsigned r = (unsigned)(v % 100);
        *--w = (char)('0' + r % 10);
        *--w = (char)('0' + r / 10);
    }
    *--w = (char)('0' + v % 10);
    if (v >= 10)
        *--w = (char)('0' + v / 10);
    return e;
}

static inline char *put_i64(char *w, int64_t v)
{
    if (v >= 0)
        return put_u64(w, (uint64_t)v);
    *w++ = '-';
    return put_u64(w, (uint64_t)0 - (uint64_t)v);
}

static char *write_operand(char *w, const char *key, const struct sim_operand *o)
{
    if (o->mem == LS_MEM_NONE)
        return w;
    *w++ = ' ';
    w = put_cstr(w, key);
    *w++ = '=';
    w = put_cstr(w, ls_mem_name((enum ls_mem)o->mem));
    *w++ = '[';
    if (o->mem == LS_MEM_HBM) {
        w = put_u64(w, o->nparts);
        *w++ = '/';
        w = put_i64(w, o->pstride);
    } else {
        w = put_u64(w, o->part_start);
        *w++ = ':';
        w = put_u64(w, (uint64_t)o->part_start + o->nparts);
    }
    w = PUT_LIT(w, "]@");
    w = put_u64(w, o->addr);
    *w++ = ':';
    w = put_cstr(w, ls_dtype_name((enum ls_dtype)o->dtype));
    *w++ = ':';
    for (int d = 0; d < o->ndim; d++) {
        if (d)
            *w++ = 'x';
        w = put_u64(w, o->size[d]);
        *w++ = '/';
        w = put_i64(w, o->stride[d]);
    }
    if (o->ndim == 0)
        w = PUT_LIT(w, "1/1");
    return w;
}

static void write_instr(struct out *f, const struct sim_program *p, size_t i)
{
    struct sim_instr buf;
    const struct sim_instr *in = sim_program_get(p, i, &buf);
    size_t tags = (in->op_tag >= 0 ? 6 + p->strs.lens[in->op_tag] : 0) +
                  (in->conv_tag >= 0 ? 7 + p->strs.lens[in->conv_tag] : 0);
    char *w0 = line_room(f, LINE_FIXED_MAX + 24 * (size_t)in->ndeps + tags), *w = w0;
    if (!w)
        return;
    *w++ = 'i'; /* labels are renumbered i<N> so that references always resolve */
    w = put_u64(w, i);
    w = PUT_LIT(w, ": ");
    w = put_cstr(w, ls_engine_name((enum ls_engine)in->engine));
    *w++ = ' ';
    w = put_cstr(w, sim_opcode_name((enum sim_opcode)in->opcode));
    w = write_operand(w, "dst", &in->dst);
    w = write_operand(w, "src", &in->src);
    w = write_operand(w, "src2", &in->src2);
    if (in->func) {
        w = PUT_LIT(w, " func=");
        w = put_cstr(w, sim_func_name((enum sim_func)in->func));
    }
    if (in->flags & SIM_F_ACCUMULATE)
        w = PUT_LIT(w, " acc=1");
    if (in->flags & SIM_F_ALL)
        w = PUT_LIT(w, " all=1");
    if (in->engine == LS_ENGINE_DMA) {
        w = PUT_LIT(w, " q=");
        w = put_u64(w, in->queue);
    }
    for (uint32_t d = 0; d < in->ndeps; d++) {
        w = d ? PUT_LIT(w, ",i") : PUT_LIT(w, " after=i");
        w = put_u64(w, p->deps.data[in->deps_off + d]);
    }
    if (in->op_tag >= 0) {
        w = PUT_LIT(w, " tag=");
        w = put_str(w, ls_intern_str(&p->strs, in->op_tag), p->strs.lens[in->op_tag]);
    }
    if (in->conv_tag >= 0) {
        w = PUT_LIT(w, " conv=");
        w = put_str(w, ls_intern_str(&p->strs, in->conv_tag), p->strs.lens[in->conv_tag]);
    }
    *w++ = '\n';
    f->len += (size_t)(w - w0);
}

int sim_program_write(const struct sim_program *p, FILE *f)
{
    struct out o = {0};
    char tie[SIM_TIE_NKEYS * (SIM_TIE_VALUE_MAX + 20)];
    size_t tl = sim_tie_format(&p->tie, "# ", tie, sizeof tie);
    char *w = line_room(&o, 16 + tl);
    if (w) {
        w = PUT_LIT(w, "lsprog 1\n");
        memcpy(w, tie, tl);
        o.len = (size_t)(w + tl - o.b);
    }
    for (size_t i = 0; i < p->ins.len && !o.failed; i++) {
        write_instr(&o, p, i);
        if (o.len >= (1u << 20)) { /* flush every MiB: the buffer stays small */
            if (fwrite(o.b, 1, o.len, f) != o.len)
                o.failed = LS_ERR_IO;
            o.len = 0;
        }
    }
    if (!o.failed && o.len && fwrite(o.b, 1, o.len, f) != o.len)
        o.failed = LS_ERR_IO;
    free(o.b);
    return o.failed ? o.failed : ferror(f) ? LS_ERR_IO : 0;
}
