#include "traces/summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

/* Room for `need` stats, the new ones zeroed. */
static int grow_stats(struct trace_stat **p, size_t *have, size_t need)
{
    size_t old = *have;
    if (LS_ARRAY_RESERVE(*p, *have, need))
        return -1;
    if (*have > old)
        memset(*p + old, 0, sizeof **p * (*have - old));
    return 0;
}

static void add(struct trace_stat *st, const struct trace_record *r, uint64_t bytes)
{
    st->count++;
    st->busy += r->end - r->start;
    st->bytes += bytes;
    st->stall += r->stall;
}

static void cover(struct trace_stat *st, const struct trace_record *r)
{
    if (r->start >= st->active_end || st->count == 1) {
        st->active += r->end - r->start;
        st->active_end = r->end;
    } else if (r->end > st->active_end) {
        st->active += r->end - st->active_end;
        st->active_end = r->end;
    }
}

int trace_summarize(struct trace_reader *r, struct trace_summary *s, struct ls_error *err)
{
    memset(s, 0, sizeof *s);
    s->header = *trace_reader_header(r);
    uint32_t nops = s->header.nopcodes;
    s->opcode = calloc((size_t)LS_ENGINE_COUNT * (nops ? nops : 1), sizeof *s->opcode);
    if (!s->opcode)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory summarizing a trace");
    size_t cap_op = 0, cap_conv = 0;
    struct trace_record rec;
    int rc;
    while ((rc = trace_reader_next(r, &rec, err)) == 1) {
        uint64_t bytes = rec.engine == LS_ENGINE_DMA
                             ? rec.bytes_per_partition * (uint64_t)rec.partitions
                             : 0;
        if (s->records == 0 || rec.start < s->first_start)
            s->first_start = rec.start;
        if (rec.end > s->last_end)
            s->last_end = rec.end;
        s->records++;
        add(&s->engine[rec.engine], &rec, bytes);
        cover(&s->engine[rec.engine], &rec);
        add(&s->opcode[(size_t)rec.engine * nops + rec.opcode], &rec, bytes);
        add(&s->stall[rec.stall_cause], &rec, bytes);
        if (rec.engine == LS_ENGINE_DMA && rec.queue != TRACE_NO_QUEUE) {
            unsigned q = rec.queue < TRACE_SUMMARY_QUEUES ? rec.queue : TRACE_SUMMARY_QUEUES;
            if (q < TRACE_SUMMARY_QUEUES && s->queue[q].count == 0)
                s->queues_used++;
            add(&s->queue[q], &rec, bytes);
            cover(&s->queue[q], &rec);
        }
        uint32_t nstr = trace_reader_nstrings(r);
        if (grow_stats(&s->op, &cap_op, nstr) || grow_stats(&s->conv, &cap_conv, nstr))
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory summarizing a trace");
        s->nstrings = nstr;
        if (rec.op_id >= 0)
            add(&s->op[rec.op_id], &rec, bytes);
        if (rec.conv_id >= 0)
            add(&s->conv[rec.conv_id], &rec, bytes);
    }
    return rc < 0 ? -rc : LS_OK;
}

void trace_summary_free(struct trace_summary *s)
{
    free(s->opcode);
    free(s->op);
    free(s->conv);
    memset(s, 0, sizeof *s);
}

double trace_ticks_ns(const struct trace_header *h, uint64_t ticks)
{
    return h->tick_hz ? (double)ticks * 1e9 / (double)h->tick_hz : 0.0;
}

double trace_ticks_cycles(const struct trace_header *h, enum ls_engine e, uint64_t ticks)
{
    if (!h->tick_hz || (unsigned)e >= LS_ENGINE_COUNT)
        return 0.0;
    return (double)ticks * (double)h->clock_mhz[e] * 1e6 / (double)h->tick_hz;
}

double trace_summary_utilization(const struct trace_summary *s, enum ls_engine e)
{
    uint64_t span = s->last_end - s->first_start;
    if (!s->records || !span)
        return 0.0;
    return (double)s->engine[e].active / (double)span;
}

struct rank {
    uint64_t key;
    uint32_t idx;
};

static int rank_cmp(const void *a, const void *b)
{
    const struct rank *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? 1 : -1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

size_t trace_summary_top(const struct trace_stat *stats, size_t len, size_t n, uint32_t *idx)
{
    struct rank *rk = malloc(sizeof *rk * (len ? len : 1));
    if (!rk)
        return 0;
    size_t m = 0;
    for (size_t i = 0; i < len; i++)
        if (stats[i].count)
            rk[m++] = (struct rank){stats[i].busy, (uint32_t)i};
    qsort(rk, m, sizeof *rk, rank_cmp);
    if (m > n)
        m = n;
    for (size_t i = 0; i < m; i++)
        idx[i] = rk[i].idx;
    free(rk);
    return m;
}

static json_t *stat_json(const struct trace_summary *s, const struct trace_stat *st, int engine)
{
    json_t *o = json_object();
    /* One name per quantity, as in `laysim sim`: busy = time covered by at least one
     * instruction (engines and queues); instr = the sum of instruction durations, which
     * counts overlapping instructions twice. */
    json_object_set_new(o, "instructions", json_integer((json_int_t)st->count));
    json_object_set_new(o, "instr_ticks", json_integer((json_int_t)st->busy));
    json_object_set_new(o, "instr_ns", json_real(trace_ticks_ns(&s->header, st->busy)));
    if (engine >= 0 && s->header.clock_mhz[engine])
        json_object_set_new(o, "instr_cycles",
                            json_real(trace_ticks_cycles(&s->header, engine, st->busy)));
    json_object_set_new(o, "stall_ns", json_real(trace_ticks_ns(&s->header, st->stall)));
    if (st->active) {
        json_object_set_new(o, "busy_ns", json_real(trace_ticks_ns(&s->header, st->active)));
        if (engine >= 0 && s->header.clock_mhz[engine])
            json_object_set_new(o, "busy_cycles",
                                json_real(trace_ticks_cycles(&s->header, engine, st->active)));
    }
    if (engine == LS_ENGINE_DMA || engine < 0)
        json_object_set_new(o, "bytes", json_integer((json_int_t)st->bytes));
    return o;
}

static json_t *named_top(const struct trace_summary *s, const struct trace_reader *r,
                         const struct trace_stat *stats, unsigned top)
{
    json_t *a = json_array();
    uint32_t *idx = malloc(sizeof *idx * (top ? top : 1));
    size_t m = idx && stats ? trace_summary_top(stats, s->nstrings, top, idx) : 0;
    for (size_t i = 0; i < m; i++) {
        json_t *o = stat_json(s, &stats[idx[i]], -1);
        const char *name = trace_reader_string(r, (int32_t)idx[i]);
        json_object_set_new(o, "name", json_string(name ? name : "?"));
        json_array_append_new(a, o);
    }
    free(idx);
    return a;
}

json_t *trace_summary_json(const struct trace_summary *s, const struct trace_reader *r,
                           unsigned top)
{
    const struct trace_header *h = &s->header;
    json_t *o = json_object();
    json_object_set_new(o, "producer", json_string(trace_producer_name(h->producer)));
    json_object_set_new(o, "target", json_string(h->target ? h->target : ""));
    char hash[24];
    snprintf(hash, sizeof hash, "%016llx", (unsigned long long)h->target_hash);
    json_object_set_new(o, "target_hash", json_string(hash));
    const uint64_t ties[2] = {h->model_hash, h->problem_hash};
    for (int k = 0; k < 2; k++) {   /* the program's, when the trace records them */
        snprintf(hash, sizeof hash, "%016llx", (unsigned long long)ties[k]);
        json_object_set_new(o, k ? "problem_hash" : "model_hash",
                            ties[k] ? json_string(hash) : json_null());
    }
    json_object_set_new(o, "tick_hz", json_integer((json_int_t)h->tick_hz));
    json_object_set_new(o, "records", json_integer((json_int_t)s->records));
    uint64_t span = s->records ? s->last_end - s->first_start : 0;
    json_object_set_new(o, "span_ticks", json_integer((json_int_t)span));
    json_object_set_new(o, "span_ns", json_real(trace_ticks_ns(h, span)));

    json_t *eng = json_object();
    for (int e = 0; e < LS_ENGINE_COUNT; e++) {
        json_t *x = stat_json(s, &s->engine[e], e);
        json_object_set_new(x, "utilization", json_real(trace_summary_utilization(s, e)));
        json_object_set_new(eng, ls_engine_name(e), x);
    }
    json_object_set_new(o, "engines", eng);

    json_t *qs = json_array();
    for (unsigned q = 0; q <= TRACE_SUMMARY_QUEUES; q++) {
        if (!s->queue[q].count)
            continue;
        json_t *x = stat_json(s, &s->queue[q], LS_ENGINE_DMA);
        if (q < TRACE_SUMMARY_QUEUES)
            json_object_set_new(x, "queue", json_integer(q));
        else
            json_object_set_new(x, "queue", json_string(">=256"));
        json_object_set_new(x, "utilization",
                            json_real(span ? (double)s->queue[q].active / (double)span : 0.0));
        json_array_append_new(qs, x);
    }
    json_object_set_new(o, "dma_queues", qs);

    json_t *ops = json_array();
    size_t nstat = (size_t)LS_ENGINE_COUNT * h->nopcodes;
    uint32_t *idx = malloc(sizeof *idx * (nstat ? nstat : 1));
    size_t m = idx ? trace_summary_top(s->opcode, nstat, nstat, idx) : 0;
    for (size_t i = 0; i < m; i++) {
        int e = (int)(idx[i] / h->nopcodes);
        json_t *x = stat_json(s, &s->opcode[idx[i]], e);
        json_object_set_new(x, "engine", json_string(ls_engine_name(e)));
        json_object_set_new(x, "opcode", json_string(trace_reader_opcode(r, idx[i] % h->nopcodes)));
        json_array_append_new(ops, x);
    }
    free(idx);
    json_object_set_new(o, "opcodes", ops);

    json_t *st = json_array();
    struct rank rk[LS_STALL_COUNT];
    size_t ns = 0;
    for (uint32_t c = 1; c < LS_STALL_COUNT; c++)
        if (s->stall[c].count)
            rk[ns++] = (struct rank){s->stall[c].stall, c};
    qsort(rk, ns, sizeof *rk, rank_cmp);
    for (size_t i = 0; i < ns; i++) {
        json_t *x = json_object();
        json_object_set_new(x, "cause", json_string(ls_stall_name(rk[i].idx)));
        json_object_set_new(x, "instructions", json_integer((json_int_t)s->stall[rk[i].idx].count));
        json_object_set_new(x, "stall_ticks", json_integer((json_int_t)rk[i].key));
        json_object_set_new(x, "stall_ns", json_real(trace_ticks_ns(h, rk[i].key)));
        json_array_append_new(st, x);
    }
    json_object_set_new(o, "stalls", st);
    json_object_set_new(o, "top_ops", named_top(s, r, s->op, top));
    json_object_set_new(o, "top_conversions", named_top(s, r, s->conv, top));
    return o;
}
