/* costmodel/fit_trace: the group samples of a trace (calibrate --traces): one program run,
 * its records grouped by the op or conversion they carry, priced under a table from the
 * records' shapes alone. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "sim/sim.h"
#include "traces/trace.h"
#include "util/hash.h"
#include "util/vec.h"
#include "util/order.h"

/* The parts of one sample under tb, in base-clock cycles (entry -1: no entry prices it). */
static struct cm_parts sample_parts(const struct cm_table *tb, const struct sim_target *t,
                                    const struct cm_sample *s)
{
    struct cm_parts p = {.entry = -1, .engine = (uint8_t)s->engine};
    int k = cm_table_find(tb, s->opcode, s->dtype, s->mem);
    if (k < 0)
        return p;
    double f, v, r;
    cm_entry_parts(&tb->e[k], t, s, &f, &v, &r);
    p.entry = (int16_t)k;
    p.fixed = (float)(f * r);
    p.var = (float)(v * r);
    if (s->engine != LS_ENGINE_DMA)
        p.cyc = (float)r;
    return p;
}

/* A table with dma_group charges a group's DMA latency once (cm_agg_total): the first
 * DMA instruction of each group (tag; an untagged instruction is a group of its own)
 * carries the group's latency, lat base cycles, and the others none, so that the rows
 * price what the table prices. */
static int once_per_group(struct cm_parts *parts, const int32_t *tag, size_t n,
                          size_t ntags, double lat)
{
    unsigned char *seen = calloc(ntags + 1, 1);
    if (!seen)
        return LS_ERR_NOMEM;
    for (size_t i = 0; i < n; i++) {
        if (parts[i].engine != LS_ENGINE_DMA || parts[i].entry < 0)
            continue;
        int32_t tg = tag[i];
        int first = tg < 0 || (size_t)tg >= ntags || !seen[tg];
        if (tg >= 0 && (size_t)tg < ntags)
            seen[tg] = 1;
        parts[i].fixed = first ? (float)lat : 0.0f;
    }
    free(seen);
    return 0;
}

/* Per record, whether its instruction depends on its engine's previous one in its group
 * (cm_program_dep_flags of the program the trace ran; records are matched by instruction
 * id, and an engine that differs says the program is not the trace's). */
static int trace_deps(const char *prog_path, const char *trace_path,
                      const struct trace_record *rec, size_t n, uint8_t *dep,
                      struct ls_error *err)
{
    memset(dep, 0, n);
    if (!prog_path)
        return 0;
    struct sim_program *p;
    int rc = sim_program_load(&p, prog_path, err);
    if (rc)
        return rc;
    size_t np = sim_program_count(p);
    uint8_t *f = malloc(np + 1);
    if (!f || cm_program_dep_flags(p, f))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct sim_instr buf;
    for (size_t i = 0; i < n && !rc; i++) {
        uint64_t id = rec[i].id;
        if (id >= np || sim_program_get(p, id, &buf)->engine != rec[i].engine)
            rc = ls_error_set(err, LS_ERR_INPUT, prog_path, 0, 0,
                              "not the program of trace %s: the trace's instruction %llu "
                              "ran on %s, %s", trace_path, (unsigned long long)id,
                              ls_engine_name((enum ls_engine)rec[i].engine),
                              id >= np ? "the program has no such instruction"
                                       : "the program's runs on another engine");
        else
            dep[i] = f[id];
    }
    free(f);
    sim_program_free(p);
    return rc;
}

static int by_id(const void *a, const void *b)
{
    const struct trace_record *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* Every record of the trace, in instruction-id order, times relative to the first start.
 * A trace without records is an input error: it has nothing to fit or to key. */
static int read_records(struct trace_reader *rd, const char *path, struct trace_record **out,
                        size_t *n, struct ls_error *err)
{
    LS_VEC(struct trace_record) v = {0};
    struct trace_record r;
    int k;
    while ((k = trace_reader_next(rd, &r, err)) == 1)
        if (LS_VEC_PUSH(&v, r)) {
            free(v.data);
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        }
    if (k < 0) {
        free(v.data);
        return -k;
    }
    if (!v.len)
        return ls_error_set(err, LS_ERR_INPUT, path, 0, 0, "no records");
    uint64_t t0 = UINT64_MAX;
    for (size_t i = 0; i < v.len; i++)
        if (v.data[i].start < t0)
            t0 = v.data[i].start;
    for (size_t i = 0; i < v.len; i++) {
        v.data[i].start -= t0;
        v.data[i].end = v.data[i].end > t0 ? v.data[i].end - t0 : 0;
    }
    qsort(v.data, v.len, sizeof *v.data, by_id);
    *out = v.data;
    *n = v.len;
    return 0;
}

/* A key shared by the traces of one model's programs: its operators' names (a layout
 * changes the conversions, not the operators), as an order-free hash. */
static int32_t model_key(struct trace_reader *rd, const struct trace_record *rec, size_t n)
{
    uint32_t ns = trace_reader_nstrings(rd);
    unsigned char *seen = calloc(ns + 1, 1);
    uint64_t h = 0;
    if (!seen)
        return -1;
    for (size_t i = 0; i < n; i++) {
        int32_t op = rec[i].op_id;
        if (op < 0 || (uint32_t)op >= ns || seen[op])
            continue;
        seen[op] = 1;
        const char *name = trace_reader_string(rd, op);
        h += ls_fnv1a64(name, strlen(name)) * 0x9e3779b97f4a7c15ull;
    }
    free(seen);
    return (int32_t)(h >> 33);
}

int cm_groups_add_trace(struct cm_groups *g, const struct cm_table *tb,
                        const struct sim_target *t, const char *path, const char *program,
                        int32_t key, size_t *attributed, struct ls_error *err)
{
    struct trace_reader *rd;
    *attributed = 0;
    int rc = trace_reader_open(&rd, path, err);
    if (rc)
        return rc;
    const struct trace_header *h = trace_reader_header(rd);
    struct trace_record *rec = NULL;
    size_t n = 0;
    if ((rc = read_records(rd, path, &rec, &n, err))) {
        trace_reader_close(rd);
        return rc;
    }
    struct cm_parts *parts = malloc(sizeof *parts * (n + 1));
    int32_t *tag = malloc(sizeof *tag * (n + 1));
    uint8_t *dep = malloc(n + 1);
    uint64_t tick_mhz = h->tick_hz / 1000000u, end = 0;
    if (!parts || !tag || !dep)
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!rc)
        rc = trace_deps(program, path, rec, n, dep, err);
    cm_groups_set_dep(g, tb);
    for (size_t i = 0; i < n && !rc; i++) {
        struct cm_sample s;
        const char *op = trace_reader_opcode(rd, rec[i].opcode);
        parts[i] = (struct cm_parts){.entry = -1, .engine = rec[i].engine};
        if (cm_record_sample(&rec[i], op, h->tick_hz, h->clock_mhz, t->dma_engines, &s)) {
            parts[i] = sample_parts(tb, t, &s);
            parts[i].dep = cm_parts_dep(tb, s.engine, dep[i], s.n);
        }
        tag[i] = rec[i].op_id >= 0 ? rec[i].op_id : rec[i].conv_id;
        *attributed += tag[i] >= 0;
        if (rec[i].end > end)
            end = rec[i].end;
    }
    if (!rc && tick_mhz == 0)
        rc = ls_error_msg(err, LS_ERR_INPUT, "%s: %llu ticks per second: below one per "
                          "microsecond, too coarse for a group fit", path,
                          (unsigned long long)h->tick_hz);
    if (!rc && tb->dma_group &&
        once_per_group(parts, tag, n, trace_reader_nstrings(rd),
                       (double)cm_dma_group_latency(tb, t)))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    g->dma_once = tb->dma_group != 0;
    if (!rc && *attributed) {
        double cycles = (double)end * t->base_mhz / (double)tick_mhz;
        double w = cycles > 0 ? 1.0 / cycles : 1.0;
        if (key == CM_KEY_BY_OPS)
            key = model_key(rd, rec, n);
        if (cm_groups_add_program(g, parts, rec, tag, n, trace_reader_nstrings(rd), tick_mhz,
                                  t->base_mhz, w * w, key))
            rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    free(parts);
    free(tag);
    free(dep);
    free(rec);
    trace_reader_close(rd);
    return rc;
}

/* Program k of h: its time predicted under tb's aggregation (*p) and measured (*y). */
static void program_time(const struct cm_groups *h, size_t k, const struct cm_table *tb,
                         const struct sim_target *t, double *p, double *y)
{
    int max = tb->agg == CM_AGG_MAX;
    cm_groups_program_time(h, k, tb->agg, max ? tb->group_ns * t->base_mhz / 1000.0 : 0,
                           max ? tb->serial : 0, tb->exposed ? tb->exposed_share : 1, p, y,
                           NULL);
}

/* Median relative error of predicted against measured program time over h's programs. */
static double programs_error(const struct cm_groups *h, const struct cm_table *tb,
                             const struct sim_target *t)
{
    LS_VEC(double) rel = {0};
    double m = NAN;
    for (size_t k = 0; k < h->nprog; k++) {
        double p, y;
        program_time(h, k, tb, t, &p, &y);
        if (y > 0 && LS_VEC_PUSH(&rel, fabs(p - y) / y))
            break;
    }
    if (rel.len)
        m = ls_median(rel.data, rel.len);
    LS_VEC_FREE(&rel);
    return m;
}

/* Groups of the traces in set `held` (1: the held-out ones) priced under tb. */
static int add_traces(struct cm_groups *g, const char *const *paths,
                      const char *const *progs, int n, int every,
                      int held, const struct cm_table *tb, const struct sim_target *t,
                      struct cm_trace_fit *rep, struct ls_error *err)
{
    for (int i = 0; i < n; i++) {
        int is_held = every > 0 && i % every == every - 1;
        if (is_held != held)
            continue;
        size_t attr = 0;
        int rc = cm_groups_add_trace(g, tb, t, paths[i], progs ? progs[i] : NULL,
                                     g->tied ? CM_KEY_BY_OPS : -1, &attr, err);
        if (rc)
            return rc;
        if (attr && !held)
            rep->fitted_traces++;
        if (attr && held)
            rep->held_traces++;
        rep->attributed += attr;
    }
    return 0;
}

/* Median held-out error of the traces of set `held` priced under tb (NAN: none held). */
static int held_error(const char *const *paths, const char *const *progs, int n, int every,
                      const struct cm_table *tb,
                      const struct sim_target *t, double *out, struct ls_error *err)
{
    struct cm_trace_fit scratch;
    struct cm_groups h;
    memset(&scratch, 0, sizeof scratch);
    cm_groups_init(&h, tb->n);
    int rc = add_traces(&h, paths, progs, n, every, 1, tb, t, &scratch, err);
    *out = !rc && h.nprog ? programs_error(&h, tb, t) : NAN;
    cm_groups_free(&h);
    return rc;
}

int cm_trace_model_key(const char *path, int32_t *key, struct ls_error *err)
{
    struct trace_reader *rd;
    struct trace_record *rec = NULL;
    size_t n = 0;
    *key = -1;
    int rc = trace_reader_open(&rd, path, err);
    if (rc)
        return rc;
    rc = read_records(rd, path, &rec, &n, err);
    int attributed = 0;
    for (size_t i = 0; !rc && i < n && !attributed; i++)
        attributed = rec[i].op_id >= 0;
    if (attributed)
        *key = model_key(rd, rec, n);
    free(rec);
    trace_reader_close(rd);
    return rc;
}

int cm_cmp3(double a, double b)
{
    double m = a < b ? a : b;
    if (a == b || fabs(a - b) < CM_EQ_BAND * m)
        return 0;
    return a < b ? -1 : 1;
}

/* The pairs of h's programs (those with a measured time) and those tb's prices rank as
 * their measured times do. */
static void programs_pairs(const struct cm_groups *h, const struct cm_table *tb,
                           const struct sim_target *t, int *pairs, int *correct)
{
    *pairs = *correct = 0;
    for (size_t k = 0; k < h->nprog; k++) {
        double pk, yk;
        program_time(h, k, tb, t, &pk, &yk);
        for (size_t l = k + 1; l < h->nprog && yk > 0; l++) {
            double pl, yl;
            program_time(h, l, tb, t, &pl, &yl);
            if (yl <= 0)
                continue;
            ++*pairs;
            *correct += cm_cmp3(pk, pl) == cm_cmp3(yk, yl);
        }
    }
}

int cm_trace_programs_judge(const char *const *paths, const char *const *progs, int n,
                            const unsigned char *mask, const struct cm_table *tb,
                            const struct sim_target *t, struct cm_held *out,
                            struct ls_error *err)
{
    struct cm_groups h;
    cm_groups_init(&h, tb->n);
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        size_t attr = 0;
        if (mask[i])
            rc = cm_groups_add_trace(&h, tb, t, paths[i], progs ? progs[i] : NULL, -1, &attr,
                                     err);
    }
    out->median = !rc && h.nprog ? programs_error(&h, tb, t) : NAN;
    out->pairs = out->correct = 0;
    if (!rc)
        programs_pairs(&h, tb, t, &out->pairs, &out->correct);
    cm_groups_free(&h);
    return rc;
}

int cm_trace_share_fit(const char *const *paths, const char *const *progs, int n,
                       const struct sim_target *t, struct cm_table *tb, struct ls_error *err)
{
    struct cm_groups g;
    struct cm_trace_fit scratch;
    memset(&scratch, 0, sizeof scratch);
    cm_groups_init(&g, tb->n);
    int rc = add_traces(&g, paths, progs, n, 0, 0, tb, t, &scratch, err);
    int max = tb->agg == CM_AGG_MAX;
    double s = rc ? 0 : cm_groups_exposed_share(&g, tb->agg,
                                                max ? tb->group_ns * t->base_mhz / 1000.0 : 0,
                                                max ? tb->serial : 0);
    if (s > 0) {
        tb->exposed = 1;
        tb->exposed_share = s < CM_EXPOSED_SHARE_MAX ? s : CM_EXPOSED_SHARE_MAX;
    }
    cm_groups_free(&g);
    return rc;
}

int cm_trace_dep_measure(const char *const *paths, const char *const *progs, int n,
                         const struct sim_target *t, struct cm_table *tb, size_t *gaps,
                         struct ls_error *err)
{
    struct cm_groups g;
    struct cm_trace_fit scratch;
    memset(&scratch, 0, sizeof scratch);
    cm_groups_init(&g, tb->n);
    int rc = add_traces(&g, paths, progs, n, 0, 0, tb, t, &scratch, err);
    double dep[LS_ENGINE_COUNT + 1];
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        dep[e] = tb->dep[e];
    dep[LS_ENGINE_COUNT] = tb->dep_tiny;
    *gaps = rc ? 0 : cm_groups_dep_measure(&g, dep);
    for (int e = 0; *gaps && e < LS_ENGINE_COUNT; e++)
        tb->dep[e] = dep[e];
    if (*gaps)
        tb->dep_tiny = dep[LS_ENGINE_COUNT];
    cm_groups_free(&g);
    return rc;
}

/* The group fit of the training traces with parts priced under base, into out. */
static int fit_from(const struct cm_table *base, const char *const *paths,
                    const char *const *progs, int n, int every,
                    const struct sim_target *t, enum cm_aggregate agg,
                    struct cm_fit_form form, struct cm_table *out,
                    struct cm_trace_fit *rep, struct ls_error *err)
{
    struct cm_table with_group;
    if (form.dma_group && !base->dma_group) {
        with_group = *base;
        with_group.dma_group = 1;
        with_group.dma_group_lat = 1;
        base = &with_group;
    }
    struct cm_groups g;
    cm_groups_init(&g, base->n);
    cm_groups_set_form(&g, form, base);
    memset(rep, 0, sizeof *rep);
    rep->rel_in = NAN;
    int rc = add_traces(&g, paths, progs, n, every, 0, base, t, rep, err);
    rep->groups = g.n;
    rep->dep_rows = cm_groups_dep_seen(&g);
    double dep[LS_ENGINE_COUNT + 1] = {0};
    rep->dep_gaps = form.fit_dep ? cm_groups_dep_measure(&g, dep) : 0;
    *out = *base;
    if (!rc && g.n > 0) {
        rc = cm_group_fit(&g, agg, t, out, &rep->rel_in, err);
        rep->done = !rc;
    }
    cm_groups_free(&g);
    return rc;
}

/* One candidate form: its fit from the per-instruction table and, with held-out traces,
 * from the prior; the base whose fit predicts the held-out programs better is kept in
 * *best with its report, and its held-out error in *e (NAN: nothing held out). */
static int fit_form(const char *const *paths, const char *const *progs, int n, int every,
                    const struct sim_target *t,
                    enum cm_aggregate agg, struct cm_fit_form form,
                    const struct cm_table *prior, const struct cm_table *tb,
                    struct cm_table *best, struct cm_trace_fit *rep, double *e,
                    struct ls_error *err)
{
    struct cm_table from_prior;
    struct cm_trace_fit r2;
    double e_fit = NAN, e_prior = NAN;
    int rc = fit_from(tb, paths, progs, n, every, t, agg, form, best, rep, err);
    if (!rc && rep->done && every)
        rc = fit_from(prior, paths, progs, n, every, t, agg, form, &from_prior, &r2, err);
    if (!rc && rep->done && every)
        rc = held_error(paths, progs, n, every, best, t, &e_fit, err);
    if (!rc && rep->done && every)
        rc = held_error(paths, progs, n, every, &from_prior, t, &e_prior, err);
    if (rc)
        return rc;
    rep->form = form;
    rep->from_prior = e_prior < e_fit;
    *e = rep->from_prior ? e_prior : e_fit;
    if (rep->from_prior) {
        *best = from_prior;
        rep->rel_in = r2.rel_in;
    }
    return 0;
}

int cm_trace_group_fit(const char *const *paths, const char *const *progs, int n,
                       const struct sim_target *t,
                       double holdout, enum cm_aggregate agg, struct cm_fit_form form,
                       const struct cm_table *prior,
                       struct cm_table *tb, struct cm_trace_fit *rep, struct ls_error *err)
{
    /* every k-th trace held out, when at least two traces remain to fit */
    int every = holdout > 0 ? (int)lround(1.0 / holdout) : 0;
    if (every < 2 || n < every || n - n / every < 2)
        every = 0;   /* (n < every: no trace would be held out) */
    /* auto: the tied and the split form, the one that predicts the held-out programs
     * better kept (split without held-out traces) */
    enum cm_group_scales cand[2] = {form.scales, form.scales};
    int ncand = 1;
    if (form.scales == CM_SCALES_AUTO) {
        cand[0] = CM_SCALES_SPLIT;
        cand[1] = CM_SCALES_TIED;
        ncand = every ? 2 : 1;
    }
    struct cm_table best = *tb, cur;
    struct cm_trace_fit r;
    double e_best = INFINITY, e;
    int rc = 0;
    for (int k = 0; k < ncand && !rc; k++) {
        struct cm_fit_form f = form;
        f.scales = cand[k];
        if ((rc = fit_form(paths, progs, n, every, t, agg, f, prior, tb, &cur, &r, &e, err)))
            break;
        if (k == 0 || e < e_best) {
            e_best = e;
            best = cur;
            *rep = r;
        }
        if (!r.done)
            break;
    }
    rep->auto_form = ncand > 1;
    rep->held_after = every ? e_best : NAN;
    if (!rc && rep->done && every) {
        struct cm_trace_fit count;
        memset(&count, 0, sizeof count);
        struct cm_groups h;
        cm_groups_init(&h, tb->n);
        rc = add_traces(&h, paths, progs, n, every, 1, tb, t, &count, err);
        rep->held_traces = count.held_traces;
        rep->held_before = h.nprog ? programs_error(&h, tb, t) : NAN;
        cm_groups_free(&h);
        if (!rc)
            rc = held_error(paths, progs, n, every, prior, t, &rep->held_prior, err);
    }
    if (rc)
        return rc;
    if (rep->done)
        *tb = best;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        rep->dep[e] = tb->dep[e];
    rep->dep[LS_ENGINE_COUNT] = tb->dep_tiny;
    return 0;
}
