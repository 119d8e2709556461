/* study/opattr: a trace's time per graph op and conversion beside the prediction. */
#include "study/opattr.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/vec.h"

#define UNSEEN (-2)

/* A record's place in program order, its end and its row: what exposed time needs. */
struct rec_end {
    uint64_t id, end;
    int32_t row;
};

struct build {
    const struct lsp_problem *p;
    struct study_opattr *a;
    size_t cap;
    LS_VEC(struct rec_end) order;
    int sorted;               /* records came in id order so far */
    LS_VEC(int32_t) by_id;    /* trace string id -> row, UNSEEN before its first record */
    double per_tick;          /* cycles per tick */
    uint64_t t0, t1;
    int any;
};

/* Row of name (added as cls/kind/predicted when new); -1 when out of memory. */
static int32_t row_of(struct build *b, const char *name, enum study_opattr_class cls,
                      const char *kind, int64_t predicted)
{
    struct study_opattr *a = b->a;
    size_t before = a->names.count;
    int32_t i = ls_intern_add(&a->names, name, strlen(name));
    if (i < 0 || a->names.count == before)
        return i;
    int32_t k = ls_intern_add(&a->kinds, kind, strlen(kind));
    if (k < 0)
        return -1;
    if (a->n == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 256;
        struct study_opattr_row *r = realloc(a->rows, cap * sizeof *r);
        if (!r)
            return -1;
        a->rows = r;
        b->cap = cap;
    }
    struct study_opattr_row *r = &a->rows[a->n++];
    memset(r, 0, sizeof *r);
    r->name = ls_intern_str(&a->names, i);
    r->kind = ls_intern_str(&a->kinds, k);   /* the problem's may be freed before a */
    r->cls = cls;
    r->predicted = predicted;
    return i;
}

/* One row per op of p (its chosen cfg's cost) and per conversion the objective charges. */
static int problem_rows(struct build *b, const struct lsp_problem *p, const int32_t *cfg)
{
    for (int32_t o = 0; o < p->nops; o++)
        if (row_of(b, p->ops[o].name, OPATTR_OP, p->ops[o].kind, lsp_cfg_cost(p, o, cfg[o])) < 0)
            return LS_ERR_NOMEM;
    char name[1024], lf[64], lt[64];
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t from = lsp_tensor_layout(p, cfg, t), to;
        int64_t cost;
        for (int32_t i = 0; from >= 0 && (to = lsp_tensor_conversion(p, cfg, t, i, &cost)) >= 0;
             i++) {
            snprintf(name, sizeof name, "%s@%s->%s", p->tensors[t].name,
                     lsp_layout_label(p, t, from, lf, sizeof lf),
                     lsp_layout_label(p, t, to, lt, sizeof lt));
            if (row_of(b, name, OPATTR_CONV, "conversion", cost) < 0)
                return LS_ERR_NOMEM;
        }
    }
    return 0;
}

/* The row of a name the trace gives: the problem's op or charged conversion of that name;
 * else, for a conversion the objective does not charge of a tensor of the problem (a graph
 * input entering a layout other than its own, which its source op's C_op prices), the
 * producer's row; else a new row of kind "unknown". -1 when out of memory. */
static int32_t name_row(struct build *b, const char *name)
{
    int32_t row = ls_intern_find(&b->a->names, name, strlen(name));
    if (row >= 0)
        return row;
    const char *at = strchr(name, '@');
    int32_t t = at ? lsp_find_tensor(b->p, name, (size_t)(at - name)) : -1;
    if (t >= 0 && b->p->tensors[t].producer >= 0)
        return b->p->tensors[t].producer;   /* op o is row o */
    row = row_of(b, name, OPATTR_UNKNOWN, "unknown", 0);
    b->a->unknown += row >= 0;
    return row;
}

/* The row of a record: its conversion's name, else its op's, else "(untagged)". */
static int32_t record_row(struct build *b, struct trace_reader *r, const struct trace_record *rec)
{
    int32_t id = rec->conv_id != TRACE_NO_ID ? rec->conv_id : rec->op_id;
    if (id < 0)
        return row_of(b, "(untagged)", OPATTR_UNTAGGED, "untagged", 0);
    while (b->by_id.len <= (size_t)id)
        if (LS_VEC_PUSH(&b->by_id, UNSEEN))
            return -1;
    if (b->by_id.data[id] == UNSEEN) {
        const char *name = trace_reader_string(r, id);
        b->by_id.data[id] = name_row(b, name ? name : "(unnamed)");
    }
    return b->by_id.data[id];
}

static int read_records(struct build *b, struct trace_reader *r, struct ls_error *err)
{
    struct trace_record rec;
    int rc;
    while ((rc = trace_reader_next(r, &rec, err)) == 1) {
        int32_t i = record_row(b, r, &rec);
        if (i < 0)
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        struct study_opattr_row *row = &b->a->rows[i];
        double s = (double)rec.start, e = (double)rec.end;
        if (!row->records || s < row->start)
            row->start = s;
        if (!row->records || e > row->end)
            row->end = e;
        row->records++;
        struct rec_end d = {rec.id, rec.end, i};
        if (b->order.len && rec.id < b->order.data[b->order.len - 1].id)
            b->sorted = 0;
        if (LS_VEC_PUSH(&b->order, d))
            return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        if (rec.engine < LS_ENGINE_COUNT)
            row->busy[rec.engine] += (e - s) * b->per_tick;
        if (!b->any || rec.start < b->t0)
            b->t0 = rec.start;
        if (!b->any || rec.end > b->t1)
            b->t1 = rec.end;
        b->any = 1;
        b->a->records++;
    }
    return rc < 0 ? -rc : 0;
}

static int by_id(const void *x, const void *y)
{
    const struct rec_end *a = x, *b = y;
    return a->id < b->id ? -1 : a->id > b->id;
}

/* Ticks to cycles from the trace's start; exposed times in program order. */
static void finish(struct build *b)
{
    struct study_opattr *a = b->a;
    for (size_t i = 0; i < a->n; i++) {
        struct study_opattr_row *r = &a->rows[i];
        if (!r->records) {
            a->silent += r->predicted != 0;
            continue;
        }
        r->start = (r->start - (double)b->t0) * b->per_tick;
        r->end = (r->end - (double)b->t0) * b->per_tick;
    }
    if (!b->sorted)
        qsort(b->order.data, b->order.len, sizeof *b->order.data, by_id);
    uint64_t run = b->t0;
    for (size_t k = 0; k < b->order.len; k++) {
        const struct rec_end *d = &b->order.data[k];
        if (d->end > run) {
            a->rows[d->row].exposed += (double)(d->end - run) * b->per_tick;
            run = d->end;
        }
    }
    a->span = (double)(b->t1 - b->t0) * b->per_tick;
}

int study_opattr_build(const struct lsp_problem *p, const int32_t *cfg, struct trace_reader *r,
                       double base_mhz, struct study_opattr *out, struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    ls_intern_init(&out->names);
    ls_intern_init(&out->kinds);
    const struct trace_header *h = trace_reader_header(r);
    if (!(base_mhz > 0) || !isfinite(base_mhz))
        return ls_error_msg(err, LS_ERR_INPUT, "base clock must be > 0 MHz, got %g", base_mhz);
    int rc = lsp_check_assignment(p, cfg, err);
    if (rc)
        return rc;
    struct build b = {.p = p, .a = out, .sorted = 1, .per_tick = base_mhz * 1e6 / (double)h->tick_hz};
    out->objective = lsp_eval(p, cfg, NULL, NULL);
    rc = problem_rows(&b, p, cfg);
    size_t known = out->n;
    if (!rc)
        rc = read_records(&b, r, err);
    else
        ls_error_msg(err, rc, "out of memory");
    if (!rc)
        finish(&b);
    size_t named = 0;
    for (size_t i = 0; !rc && i < known; i++)
        named += out->rows[i].records > 0;
    if (!rc && !named)
        rc = ls_error_msg(err, LS_ERR_INPUT,
                          "no record of the trace (%llu records, %zu names) names an op or "
                          "conversion of the problem: a trace of another program, or one "
                          "without op attribution",
                          (unsigned long long)out->records, out->n - known);
    free(b.by_id.data);
    free(b.order.data);
    if (rc)
        study_opattr_free(out);
    return rc;
}

void study_opattr_free(struct study_opattr *a)
{
    free(a->rows);
    ls_intern_free(&a->names);
    ls_intern_free(&a->kinds);
    memset(a, 0, sizeof *a);
}

int study_opattr_by_kind(const struct study_opattr *a, struct study_opattr_kind **kinds)
{
    struct study_opattr_kind *k = calloc(a->n + 1, sizeof *k);
    int nk = 0;
    if (!k)
        return -1;
    for (size_t i = 0; i < a->n; i++) {
        const struct study_opattr_row *r = &a->rows[i];
        int j = 0;
        while (j < nk && strcmp(k[j].kind, r->kind))
            j++;
        if (j == nk)
            k[nk++].kind = r->kind;
        k[j].rows++;
        k[j].traced += r->records > 0;
        k[j].predicted += r->predicted;
        k[j].exposed += r->exposed;
        k[j].span += r->records ? r->end - r->start : 0;
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            k[j].busy[e] += r->busy[e];
    }
    *kinds = k;
    return nk;
}
