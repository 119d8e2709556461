/* traces/import_json: Chrome/Perfetto trace-event JSON, streamed. A small tokenizer walks
 * the `traceEvents` array (or a top-level array of events) one event at a time, so memory
 * stays constant whatever the number of events: complete slices ("ph":"X", ts/dur) become
 * records, "thread_name" metadata names the tracks (engine and DMA queue), everything
 * else is counted or skipped. */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traces/import_int.h"
#include "util/dtype.h"
#include "util/scan.h"

#define J_MAX_DEPTH 64
#define J_MAX_THREADS 4096
#define J_SHORT 64

struct thread {
    int64_t pid, tid;
    int engine;
    uint16_t queue;
};

struct jev {
    char ph[8], ts[J_SHORT], dur[J_SHORT], cat[J_SHORT], tidname[J_SHORT];
    char engine[J_SHORT], dtype[J_SHORT], src[J_SHORT], dst[J_SHORT], stall[J_SHORT];
    char cause[J_SHORT];
    char name[TRACE_MAX_NAME + 1], argname[TRACE_MAX_NAME + 1];
    char op[TRACE_MAX_NAME + 1], conv[TRACE_MAX_NAME + 1];
    size_t name_n, op_n, conv_n, argname_n;
    int64_t pid, tid;
    int have_ts, have_dur, have_id, op_rank;
    uint64_t id, partitions, free_size, stationary, descriptors, bpp, chunk, queue;
    uint64_t start_tick, end_tick;
    int have_queue, bad_field, have_ticks;
    int line;
};

struct jr {
    struct imp *s;
    struct imp_in *in;
    int line;
    uint64_t line_start;
    struct jev ev;
    struct thread *threads;
    size_t nthreads, last;
    char key[J_SHORT];
    size_t key_n;
};

/* The member name just read is the literal k. */
#define KEY(j, k) ((j)->key_n == sizeof(k) - 1 && !memcmp((j)->key, k, sizeof(k) - 1))

static int jpeek_slow(struct jr *j, struct ls_error *err)
{
    int rc = imp_in_fill(j->in, 0, err);
    if (rc < 0)
        return -2;
    return rc ? (unsigned char)j->in->buf[j->in->pos] : -1;
}

static inline int jpeek(struct jr *j, struct ls_error *err)
{
    if (j->in->pos < j->in->len)
        return (unsigned char)j->in->buf[j->in->pos];
    return jpeek_slow(j, err);
}

static int jerr(struct jr *j, struct ls_error *err, const char *what)
{
    if (err->code == LS_ERR_NOMEM || err->code == LS_ERR_IO)
        return err->code;
    uint64_t at = j->in->base + j->in->pos;
    return ls_error_set(err, LS_ERR_INPUT, j->s->path, j->line, (int)(at - j->line_start + 1),
                        "%s", what);
}

/* Skip whitespace; the next byte, -1 at end, -2 on a read error. */
static int jws_slow(struct jr *j, struct ls_error *err)
{
    for (;;) {
        int c = jpeek(j, err);
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            return c;
        j->in->pos++;
        if (c == '\n') {
            j->line++;
            j->line_start = j->in->base + j->in->pos;
        }
    }
}

static inline int jws(struct jr *j, struct ls_error *err)
{
    struct imp_in *in = j->in;
    if (in->pos < in->len && (unsigned char)in->buf[in->pos] > ' ')
        return (unsigned char)in->buf[in->pos];
    return jws_slow(j, err);
}

static int jexpect_slow(struct jr *j, int want, struct ls_error *err)
{
    if (jws(j, err) != want) {
        char msg[32];
        snprintf(msg, sizeof msg, "expected '%c'", want);
        return jerr(j, err, msg);
    }
    j->in->pos++;
    return LS_OK;
}

static inline int jexpect(struct jr *j, int want, struct ls_error *err)
{
    struct imp_in *in = j->in;
    if (in->pos < in->len && in->buf[in->pos] == want) {
        in->pos++;
        return LS_OK;
    }
    return jexpect_slow(j, want, err);
}

static void put_utf8(char *dst, size_t cap, size_t *n, unsigned u)
{
    char b[3];
    size_t k = 0;
    if (u < 0x80) b[k++] = (char)u;
    else if (u < 0x800) { b[k++] = (char)(0xc0 | u >> 6); b[k++] = (char)(0x80 | (u & 0x3f)); }
    else { b[k++] = (char)(0xe0 | u >> 12); b[k++] = (char)(0x80 | (u >> 6 & 0x3f));
           b[k++] = (char)(0x80 | (u & 0x3f)); }
    for (size_t i = 0; i < k; i++)
        if (dst && *n < cap)
            dst[(*n)++] = b[i];
}

static int jescape(struct jr *j, char *dst, size_t cap, size_t *n, struct ls_error *err)
{
    int c = jpeek(j, err);
    j->in->pos++;
    const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
    const char *k = c >= 0 ? strchr(from, c) : NULL;
    if (k && c) {
        put_utf8(dst, cap, n, (unsigned char)to[k - from]);
        return LS_OK;
    }
    if (c != 'u')
        return jerr(j, err, "bad escape in a string");
    unsigned u = 0;
    for (int i = 0; i < 4; i++) {
        int h = jpeek(j, err);
        int v = h >= '0' && h <= '9' ? h - '0' : h >= 'a' && h <= 'f' ? h - 'a' + 10
              : h >= 'A' && h <= 'F' ? h - 'A' + 10 : -1;
        if (v < 0)
            return jerr(j, err, "bad \\u escape in a string");
        u = u << 4 | (unsigned)v;
        j->in->pos++;
    }
    put_utf8(dst, cap, n, u);
    return LS_OK;
}

/* A string into dst (cut at cap bytes; dst NULL skips it). */
static int jstring(struct jr *j, char *dst, size_t cap, size_t *n, struct ls_error *err)
{
    size_t len = 0;
    if (jexpect(j, '"', err))
        return err->code;
    struct imp_in *in = j->in;
    const char *b = in->buf + in->pos, *q = b, *end = in->buf + in->len;
    while (q < end && *q != '"' && *q != '\\' && (unsigned char)*q >= 0x20)
        q++;
    if (q < end && *q == '"') { /* the usual case: no escape, all buffered */
        len = (size_t)(q - b);
        if (dst) {
            size_t m = len < cap ? len : cap;
            memcpy(dst, b, m);
            dst[m] = '\0';
        }
        if (n)
            *n = len;
        in->pos += len + 1;
        return LS_OK;
    }
    for (;;) {
        while (in->pos < in->len) { /* the fast path: plain bytes */
            char c = in->buf[in->pos];
            if (c == '"' || c == '\\' || (unsigned char)c < 0x20)
                break;
            if (dst && len < cap)
                dst[len++] = c;
            in->pos++;
        }
        int c = jpeek(j, err);
        if (c < 0x20) /* also the end of input */
            return jerr(j, err, c < 0 ? "unterminated string" : "control character in a string");
        in->pos++;
        if (c == '"')
            break;
        if (c != '\\') { /* the buffer ended inside the string: an ordinary byte */
            if (dst && len < cap)
                dst[len++] = (char)c;
            continue;
        }
        if (jescape(j, dst, cap, &len, err))
            return err->code;
    }
    if (n)
        *n = len;
    if (dst)
        dst[len < cap ? len : cap] = '\0';
    return LS_OK;
}

/* Number text into dst (J_SHORT bytes); a number longer than that is an error. */
static int jnumber(struct jr *j, char *dst, struct ls_error *err)
{
    size_t n = 0;
    int c;
    while ((c = jpeek(j, err)) >= 0 &&
           ((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) {
        if (n + 1 >= J_SHORT)
            return jerr(j, err, "number too long");
        dst[n++] = (char)c;
        j->in->pos++;
    }
    dst[n] = '\0';
    if (!n || !strchr("-0123456789", dst[0]))
        return jerr(j, err, "expected a value");
    return LS_OK;
}

static int jword(struct jr *j, const char *w, struct ls_error *err)
{
    for (const char *p = w; *p; p++) {
        if (jpeek(j, err) != *p)
            return jerr(j, err, "expected a value");
        j->in->pos++;
    }
    return LS_OK;
}

static int jskip(struct jr *j, int depth, struct ls_error *err);

/* Pass 1 over a slice's args: only brackets and strings matter (pass 2 parses them and
 * reports any error), so bytes are scanned, not tokenized. */
static int jskip_raw(struct jr *j, struct ls_error *err)
{
    int depth = 0, in_str = 0, esc = 0;
    for (;;) {
        struct imp_in *in = j->in;
        while (in->pos < in->len) {
            char c = in->buf[in->pos++];
            if (in_str) {
                if (esc) esc = 0;
                else if (c == '\\') esc = 1;
                else if (c == '"') in_str = 0;
            } else if (c == '"') in_str = 1;
            else if (c == '{' || c == '[') depth++;
            else if (c == '}' || c == ']') {
                if (--depth <= 0)
                    return LS_OK;
            } else if (c == '\n') {
                j->line++;
                j->line_start = in->base + in->pos;
            }
        }
        int c = jpeek(j, err);
        if (c == -2)
            return err->code;
        if (c < 0)
            return jerr(j, err, "unexpected end of input");
    }
}

/* Walk an object or array, skipping its members. */
static int jskip_container(struct jr *j, int open, int depth, struct ls_error *err)
{
    int close = open == '{' ? '}' : ']';
    j->in->pos++;
    if (jws(j, err) == close) {
        j->in->pos++;
        return LS_OK;
    }
    for (;;) {
        if (open == '{' && (jstring(j, NULL, 0, NULL, err) || jexpect(j, ':', err)))
            return err->code;
        if (jskip(j, depth + 1, err))
            return err->code;
        int c = jws(j, err);
        j->in->pos++;
        if (c == close)
            return LS_OK;
        if (c != ',') {
            j->in->pos--;
            return jerr(j, err, open == '{' ? "expected ',' or '}'" : "expected ',' or ']'");
        }
    }
}

static int jskip(struct jr *j, int depth, struct ls_error *err)
{
    if (depth > J_MAX_DEPTH)
        return jerr(j, err, "nested too deeply");
    int c = jws(j, err);
    char num[J_SHORT];
    switch (c) {
    case '{': case '[': return jskip_container(j, c, depth, err);
    case '"': return jstring(j, NULL, 0, NULL, err);
    case 't': return jword(j, "true", err);
    case 'f': return jword(j, "false", err);
    case 'n': return jword(j, "null", err);
    default: return jnumber(j, num, err);
    }
}

/* A value that should be a string (short); anything else is skipped and flagged. */
static int jshort_string(struct jr *j, char *dst, size_t cap, int *ok, struct ls_error *err)
{
    if (jws(j, err) != '"') {
        *ok = 0;
        return jskip(j, 1, err);
    }
    *ok = 1;
    return jstring(j, dst, cap - 1, NULL, err);
}

/* A non-negative integer value; anything else sets ev.bad_field. */
static int juint(struct jr *j, uint64_t *v, struct ls_error *err)
{
    char num[J_SHORT];
    int c = jws(j, err);
    if (!(c == '-' || (c >= '0' && c <= '9')))
        return j->ev.bad_field = 1, jskip(j, 1, err);
    if (jnumber(j, num, err))
        return err->code;
    size_t n = strlen(num);
    if (ls_parse_u64(num, n, v))
        j->ev.bad_field = 1;
    return LS_OK;
}

static int jint(struct jr *j, int64_t *v, char *name, struct ls_error *err)
{
    char num[J_SHORT];
    int c = jws(j, err), ok;
    if (c == '"') { /* a named thread: its name is the track name */
        *v = -1;
        return jshort_string(j, name, J_SHORT, &ok, err);
    }
    if (!(c == '-' || (c >= '0' && c <= '9')))
        return jskip(j, 1, err);
    if (jnumber(j, num, err))
        return err->code;
    int64_t x = 0; /* a plain parse: ids are small integers */
    const char *p = num + (num[0] == '-');
    while (*p >= '0' && *p <= '9' && x < INT64_MAX / 10 - 9)
        x = x * 10 + (*p++ - '0');
    *v = num[0] == '-' ? -x : x;
    return LS_OK;
}

static int jtime(struct jr *j, char *dst, int *have, struct ls_error *err)
{
    int c = jws(j, err);
    if (!(c == '-' || (c >= '0' && c <= '9')))
        return jskip(j, 1, err); /* a string or null: left out as bad_time */
    *have = 1;
    return jnumber(j, dst, err);
}

static int jarg(struct jr *j, struct ls_error *err)
{
    struct jev *e = &j->ev;
    const char *k = j->key;
    int ok, rank = KEY(j, "op") ? 3 : KEY(j, "label") ? 2
                 : KEY(j, "hlo_name") || KEY(j, "layer") ? 1 : 0;
    if (rank > e->op_rank) {
        if (jws(j, err) != '"')
            return jskip(j, 1, err);
        e->op_rank = rank;
        return jstring(j, e->op, TRACE_MAX_NAME, &e->op_n, err);
    }
    if (KEY(j, "name"))
        return jws(j, err) == '"' ? jstring(j, e->argname, TRACE_MAX_NAME, &e->argname_n, err)
                                  : jskip(j, 1, err);
    if (KEY(j, "conversion"))
        return jws(j, err) == '"' ? jstring(j, e->conv, TRACE_MAX_NAME, &e->conv_n, err)
                                  : jskip(j, 1, err);
    if (KEY(j, "id"))
        return e->have_id = 1, juint(j, &e->id, err);
    static const char *const nums[] = {"partitions", "free_size", "stationary", "descriptors",
                                       "bytes_per_partition", "chunk_bytes", "queue",
                                       "start_tick", "end_tick"};
    uint64_t *dst[] = {&e->partitions, &e->free_size, &e->stationary, &e->descriptors,
                       &e->bpp, &e->chunk, &e->queue, &e->start_tick, &e->end_tick};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++)
        if (j->key_n == strlen(nums[i]) && !memcmp(k, nums[i], j->key_n)) {
            e->have_queue |= i == 6;
            e->have_ticks |= (i == 7) + 2 * (i == 8);
            return juint(j, dst[i], err);
        }
    if (KEY(j, "dtype")) return jshort_string(j, e->dtype, J_SHORT, &ok, err);
    if (KEY(j, "src")) return jshort_string(j, e->src, J_SHORT, &ok, err);
    if (KEY(j, "dst")) return jshort_string(j, e->dst, J_SHORT, &ok, err);
    if (KEY(j, "engine")) return jshort_string(j, e->engine, J_SHORT, &ok, err);
    if (KEY(j, "stall_cause")) return jshort_string(j, e->cause, J_SHORT, &ok, err);
    if (KEY(j, "stall_ns")) return jws(j, err) == '"' ? jskip(j, 1, err) : jnumber(j, e->stall, err);
    return jskip(j, 1, err);
}

/* Members of an object, each handled by fn after its key is in j->key. */
static int jobject(struct jr *j, int (*fn)(struct jr *, struct ls_error *), struct ls_error *err)
{
    if (jexpect(j, '{', err))
        return err->code;
    if (jws(j, err) == '}') {
        j->in->pos++;
        return LS_OK;
    }
    for (;;) {
        if (jws(j, err) != '"')
            return jerr(j, err, "expected a member name");
        if (jstring(j, j->key, J_SHORT - 1, &j->key_n, err) || jexpect(j, ':', err) || fn(j, err))
            return err->code;
        int c = jws(j, err);
        j->in->pos++;
        if (c == '}')
            return LS_OK;
        if (c != ',') {
            j->in->pos--;
            return jerr(j, err, "expected ',' or '}'");
        }
    }
}

/* Pass 1 over a value it does not need: strings and numbers scanned to their end, containers
 * by jskip_raw (pass 2 reads every value properly and reports any error). */
static int jskip_fast(struct jr *j, struct ls_error *err)
{
    int c = jws(j, err);
    if (c == '{' || c == '[')
        return jskip_raw(j, err);
    if (c == '"')
        return jstring(j, NULL, 0, NULL, err);
    struct imp_in *in = j->in;
    for (;;) {
        while (in->pos < in->len) {
            char b = in->buf[in->pos];
            if (b == ',' || b == '}' || b == ']' || b == ' ' || b == '\n' || b == '\r' || b == '\t')
                return LS_OK;
            in->pos++;
        }
        int p = jpeek(j, err);
        if (p == -2)
            return err->code;
        if (p < 0)
            return LS_OK;
    }
}

static int jmember(struct jr *j, struct ls_error *err)
{
    struct jev *e = &j->ev;
    int ok;
    if (j->s->pass == 1 && !KEY(j, "ph") && !KEY(j, "name") && !KEY(j, "tid") &&
        !KEY(j, "pid") && !KEY(j, "args") && !KEY(j, "cat"))
        return jskip_fast(j, err);
    if (KEY(j, "ph")) return jshort_string(j, e->ph, sizeof e->ph, &ok, err);
    if (KEY(j, "name"))
        return jws(j, err) == '"' ? jstring(j, e->name, TRACE_MAX_NAME, &e->name_n, err)
                                  : jskip(j, 1, err);
    if (KEY(j, "ts")) return jtime(j, e->ts, &e->have_ts, err);
    if (KEY(j, "dur")) return jtime(j, e->dur, &e->have_dur, err);
    if (KEY(j, "tid")) return jint(j, &e->tid, e->tidname, err);
    char pidname[J_SHORT];
    if (KEY(j, "pid")) return jint(j, &e->pid, pidname, err); /* a string pid: ignored */
    if (KEY(j, "cat")) return jshort_string(j, e->cat, J_SHORT, &ok, err);
    if (KEY(j, "args")) {
        int c = jws(j, err);
        if (c == '{' && j->s->pass == 1 && e->ph[0] && strcmp(e->ph, "M"))
            return jskip_raw(j, err);
        return c == '{' ? jobject(j, jarg, err) : jskip(j, 1, err);
    }
    return jskip(j, 1, err);
}

/* Engine (and queue) of a track name: its first word ("pe (lane 2)", "dma q3", "qSyncIO"). */
static int track_engine(const char *name, uint16_t *queue)
{
    size_t n = strcspn(name, " (");
    int e = trace_engine_parse(name, n);
    const char *q = strstr(name, " q");
    *queue = TRACE_NO_QUEUE;
    if (e == LS_ENGINE_DMA && q && q[2] >= '0' && q[2] <= '9') {
        unsigned long v = strtoul(q + 2, NULL, 10);
        if (v < TRACE_NO_QUEUE)
            *queue = (uint16_t)v;
    }
    return e;
}

static struct thread *find_thread(struct jr *j, int64_t pid, int64_t tid)
{
    if (j->last < j->nthreads && j->threads[j->last].pid == pid && j->threads[j->last].tid == tid)
        return &j->threads[j->last];
    for (size_t i = 0; i < j->nthreads; i++)
        if (j->threads[i].pid == pid && j->threads[i].tid == tid) {
            j->last = i;
            return &j->threads[i];
        }
    return NULL;
}

static void name_thread(struct jr *j)
{
    struct jev *e = &j->ev;
    if (strcmp(e->name, "thread_name") || !e->argname_n)
        return;
    struct thread *t = find_thread(j, e->pid, e->tid);
    if (!t) {
        if (j->nthreads >= J_MAX_THREADS)
            return;
        t = &j->threads[j->nthreads++];
        t->pid = e->pid;
        t->tid = e->tid;
    }
    t->engine = track_engine(e->argname, &t->queue);
}

static void set_engine(struct jr *j, struct trace_record *r)
{
    struct jev *e = &j->ev;
    const struct thread *t = find_thread(j, e->pid, e->tid);
    uint16_t q = TRACE_NO_QUEUE;
    int eng = t ? t->engine : -1;
    if (t)
        q = t->queue;
    const char *names[] = {e->engine, e->cat, e->tidname};
    for (size_t i = 0; i < 3 && eng < 0; i++)
        if (names[i][0])
            eng = track_engine(names[i], &q);
    r->engine = eng < 0 ? LS_ENGINE_COUNT : (uint8_t)eng;
    r->queue = e->have_queue && e->queue < TRACE_NO_QUEUE ? (uint16_t)e->queue : q;
}

static int mem_of(const char *s)
{
    if (!s[0])
        return 0;
    for (int m = 0; m < LS_MEM_COUNT; m++)
        if (!strcmp(s, ls_mem_name((enum ls_mem)m)))
            return m;
    return s[0] ? -1 : 0;
}

/* The record of a complete slice, or the reason it cannot be one. */
static int slice_record(struct jr *j, struct imp_raw *raw)
{
    struct jev *e = &j->ev;
    struct trace_record *r = &raw->r;
    memset(raw, 0, sizeof *raw);
    raw->line = e->line;
    raw->opcode = e->name;
    raw->opcode_n = e->name_n;
    r->engine = LS_ENGINE_COUNT;
    r->op_id = r->conv_id = TRACE_NO_ID;
    uint64_t dur;
    if (j->s->scale > 0 && e->have_ticks == 3 && e->end_tick >= e->start_tick) {
        r->start = e->start_tick; /* laysim's export: its exact ticks */
        dur = e->end_tick - e->start_tick;
    } else if (!e->have_ts || !e->have_dur || imp_parse_time(j->s, e->ts, strlen(e->ts), &r->start) ||
        imp_parse_time(j->s, e->dur, strlen(e->dur), &dur) || dur > UINT64_MAX - r->start)
        return 1 + TRACE_DROP_BAD_TIME;
    if (!dur)
        return 1 + TRACE_DROP_ZERO_DURATION;
    r->end = r->start + dur;
    set_engine(j, r);
    if (r->engine >= LS_ENGINE_COUNT && j->s->pass == 2)
        return 1 + TRACE_DROP_UNKNOWN_ENGINE;
    enum ls_dtype dt = LS_DT_FP32;
    int src = mem_of(e->src), dst = mem_of(e->dst);
    if (e->bad_field || (e->dtype[0] && ls_dtype_parse(e->dtype, strlen(e->dtype), &dt)) ||
        src < 0 || dst < 0 || e->partitions > UINT32_MAX || e->stationary > UINT32_MAX ||
        e->descriptors > UINT32_MAX)
        return 1 + TRACE_DROP_BAD_FIELD;
    for (int c = 0; e->cause[0] && c < LS_STALL_COUNT; c++)
        if (!strcmp(e->cause, ls_stall_name((enum ls_stall)c)))
            r->stall_cause = (uint8_t)c;
    r->dtype = (uint8_t)dt;
    r->src_mem = (uint8_t)src;
    r->dst_mem = (uint8_t)dst;
    r->id = e->have_id ? e->id : j->s->index;
    r->partitions = (uint32_t)e->partitions;
    r->free_size = e->free_size;
    if (r->engine == LS_ENGINE_PE) /* engine-specific operands, as record.h has them */
        r->stationary = (uint32_t)e->stationary;
    if (r->engine == LS_ENGINE_DMA) {
        r->descriptors = (uint32_t)e->descriptors;
        r->bytes_per_partition = e->bpp;
        r->chunk_bytes = e->chunk;
    } else
        r->queue = TRACE_NO_QUEUE;
    if (e->stall[0]) { /* stall_ns, as laysim's export writes it */
        double ns = strtod(e->stall, NULL);
        if (ns > 0 && ns < 1e15)
            r->stall = (uint64_t)(ns * (double)j->s->h.tick_hz / 1e9 + 0.5);
    }
    raw->op = e->op;
    raw->op_n = e->op_n;
    raw->conv = e->conv;
    raw->conv_n = e->conv_n;
    return 0;
}

static int jevent(struct jr *j, struct ls_error *err)
{
    struct jev *e = &j->ev;
    memset(e, 0, offsetof(struct jev, name)); /* the short fields; names get lengths below */
    e->name[0] = e->argname[0] = e->op[0] = e->conv[0] = '\0';
    e->name_n = e->op_n = e->conv_n = e->argname_n = 0;
    e->pid = e->tid = 0;
    e->have_ts = e->have_dur = e->have_id = e->op_rank = e->have_queue = e->bad_field = 0;
    e->have_ticks = 0;
    e->start_tick = e->end_tick = 0;
    e->id = e->partitions = e->free_size = e->stationary = e->descriptors = 0;
    e->bpp = e->chunk = e->queue = 0;
    e->line = j->line;
    if (jws(j, err) != '{')
        return jskip(j, 1, err); /* not an event: skipped */
    if (jobject(j, jmember, err))
        return err->code;
    if (!strcmp(e->ph, "M")) {
        if (j->s->pass == 1)
            name_thread(j);
        return LS_OK;
    }
    if (j->s->pass == 2)
        j->s->st->events++;
    j->s->last_line = e->line;
    if (strcmp(e->ph, "X")) {
        imp_drop(j->s, TRACE_DROP_NOT_A_SLICE, e->line);
        return LS_OK;
    }
    struct imp_raw raw;
    if (j->s->pass == 1) { /* names only (times are read in pass 2, in its time base) */
        memset(&raw, 0, sizeof raw);
        raw.line = e->line;
        raw.opcode = e->name;
        raw.opcode_n = e->name_n;
        set_engine(j, &raw.r);
        return imp_emit(j->s, &raw, err);
    }
    int drop = slice_record(j, &raw);
    if (drop) {
        imp_drop(j->s, (enum trace_drop)(drop - 1), e->line);
        return LS_OK;
    }
    return imp_emit(j->s, &raw, err);
}

/* The events array; a missing ']' at the very end is allowed (Chrome's array format). */
static int jevents(struct jr *j, struct ls_error *err)
{
    if (jexpect(j, '[', err))
        return err->code;
    if (jws(j, err) == ']') {
        j->in->pos++;
        return LS_OK;
    }
    for (;;) {
        if (jevent(j, err))
            return err->code;
        int c = jws(j, err);
        if (c == -1)
            return LS_OK;
        j->in->pos++;
        if (c == ']')
            return LS_OK;
        if (c != ',') {
            j->in->pos--;
            return jerr(j, err, "expected ',' or ']' after an event");
        }
    }
}

/* otherData.clock_mhz: the engine clocks laysim's export writes. */
static int jclocks(struct jr *j, struct ls_error *err)
{
    uint32_t mhz[LS_ENGINE_COUNT] = {0};
    int n = 0, c;
    if (jexpect(j, '[', err))
        return err->code;
    while ((c = jws(j, err)) != ']') {
        uint64_t v = 0;
        if (n && jexpect(j, ',', err))
            return err->code;
        j->ev.bad_field = 0;
        if (juint(j, &v, err))
            return err->code;
        if (n < LS_ENGINE_COUNT && !j->ev.bad_field && v <= 1000000)
            mhz[n] = (uint32_t)v;
        n++;
    }
    j->in->pos++;
    if (!j->s->have_clock && j->s->pass == 1)
        memcpy(j->s->h.clock_mhz, mhz, sizeof mhz);
    return LS_OK;
}

static int jother(struct jr *j, struct ls_error *err)
{
    if (KEY(j, "clock_mhz") && jws(j, err) == '[')
        return jclocks(j, err);
    if (KEY(j, "tick_hz") && j->s->pass == 1) {
        j->ev.bad_field = 0;
        int rc = juint(j, &j->s->json_tick_hz, err);
        if (j->ev.bad_field || j->s->json_tick_hz > 1000000000000000ULL)
            j->s->json_tick_hz = 0;
        return rc;
    }
    if (KEY(j, "target_hash") && jws(j, err) == '"' && j->s->pass == 1) {
        char hex[J_SHORT];
        int rc = jstring(j, hex, J_SHORT - 1, NULL, err);
        if (!j->s->o->set_target_hash)
            j->s->h.target_hash = strtoull(hex, NULL, 16);
        return rc;
    }
    if (KEY(j, "target") && jws(j, err) == '"' && !j->s->o->target && j->s->pass == 1)
        return jstring(j, j->s->target, TRACE_MAX_NAME, NULL, err);
    return jskip(j, 1, err);
}

static int jtop_member(struct jr *j, struct ls_error *err)
{
    if (KEY(j, "otherData") && jws(j, err) == '{')
        return jobject(j, jother, err);
    return !KEY(j, "traceEvents") ? jskip(j, 1, err) : jevents(j, err);
}

int imp_read_json(struct imp *s, struct ls_error *err)
{
    struct jr *j = calloc(1, sizeof *j);
    if (!j)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    j->s = s;
    j->in = &s->in;
    j->line = 1;
    j->threads = calloc(J_MAX_THREADS, sizeof *j->threads);
    int rc;
    if (!j->threads)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    else {
        /* pass 2 keeps pass 1's thread names (they may follow their slices) */
        if (s->pass == 2 && s->json_threads) {
            memcpy(j->threads, s->json_threads, s->json_nthreads * sizeof *j->threads);
            j->nthreads = s->json_nthreads;
        }
        int c = jws(j, err);
        rc = c == '[' ? jevents(j, err) : c == '{' ? jobject(j, jtop_member, err)
                                                    : jerr(j, err, "expected '{' or '['");
        if (!rc && jws(j, err) >= 0)
            rc = jerr(j, err, "unexpected data after the trace");
    }
    if (!rc && s->pass == 1) {
        free(s->json_threads);
        s->json_threads = j->threads;
        s->json_nthreads = j->nthreads;
        j->threads = NULL;
    }
    free(j->threads);
    free(j);
    return rc;
}
