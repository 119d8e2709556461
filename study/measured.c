/* study/measured: fidelity figures against measured times (measured.h). */
#include "study/measured.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "study/loop_int.h"
#include "traces/trace.h"
#include "util/csv.h"
#include "util/fileio.h"

/* The columns the manifest may name (every other one is ignored). */
enum col { C_MODEL, C_STRATEGY, C_PREDICTED, C_ASSIGNMENT, C_BASE_MHZ, C_NS, C_US, C_CYCLES,
           C_TRACE, C_COUNT };
static const char *const col_name[C_COUNT] = {
    "model", "strategy", "predicted_cycles", "assignment", "base_mhz", "measured_ns",
    "measured_us", "measured_cycles", "trace"};
/* One line's fields, each a NUL-terminated copy (util/csv splits them). */
struct csv_line {
    char *buf;
    char **f;
    int *col;                  /* 1-based column of each field */
    int n;
};

struct reader {
    const char *path;
    char *dir;                 /* the manifest's directory ("." when none) */
    double base_mhz;
    int at[C_COUNT];           /* field index of each column, -1: absent */
    int line;
    struct ls_csv_row row;     /* reused from line to line */
};

static int line_err(const struct reader *rd, int col, struct ls_error *err, const char *what,
                    const char *detail)
{
    return ls_error_set(err, LS_ERR_INPUT, rd->path, rd->line, col, "%s%s", what, detail);
}

/* Split text[0..n) (one line, no newline) into l. */
static int split(struct reader *rd, const char *text, size_t n, struct csv_line *l,
                 struct ls_error *err)
{
    int col;
    const char *what;
    int rc = ls_csv_split(&rd->row, text, n, &col, &what);
    if (rc && rc != LS_ERR_NOMEM)
        return line_err(rd, col, err, what, "");
    size_t nf = rd->row.nf;
    l->buf = malloc(n + nf + 1);
    l->f = malloc(nf * sizeof *l->f);
    l->col = malloc(nf * sizeof *l->col);
    if (rc || !l->buf || !l->f || !l->col)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    char *o = l->buf;
    for (size_t k = 0; k < nf; k++) {
        const struct ls_csv_field *f = &rd->row.f[k];
        memcpy(o, f->s, f->n);
        o[f->n] = 0;
        l->f[k] = o;
        l->col[k] = f->col;
        o += f->n + 1;
    }
    l->n = (int)nf;
    return 0;
}

static void line_free(struct csv_line *l)
{
    free(l->buf);
    free(l->f);
    free(l->col);
}

static int header(struct reader *rd, const struct csv_line *l, struct ls_error *err)
{
    for (int c = 0; c < C_COUNT; c++)
        rd->at[c] = -1;
    for (int k = 0; k < l->n; k++)
        for (int c = 0; c < C_COUNT; c++)
            if (strcmp(l->f[k], col_name[c]) == 0) {
                if (rd->at[c] >= 0)
                    return line_err(rd, l->col[k], err, "column named twice: ", col_name[c]);
                rd->at[c] = k;
            }
    for (int c = C_MODEL; c <= C_PREDICTED; c++)
        if (rd->at[c] < 0)
            return line_err(rd, 1, err, "the header has no column ", col_name[c]);
    if (rd->at[C_NS] < 0 && rd->at[C_US] < 0 && rd->at[C_CYCLES] < 0 && rd->at[C_TRACE] < 0)
        return line_err(rd, 1, err, "the header names no measurement: give a column "
                        "measured_ns, measured_us, measured_cycles or trace", "");
    return 0;
}

static const char *field(const struct reader *rd, const struct csv_line *l, enum col c)
{
    return rd->at[c] >= 0 && rd->at[c] < l->n ? l->f[rd->at[c]] : "";
}

static int column(const struct reader *rd, const struct csv_line *l, enum col c)
{
    return rd->at[c] >= 0 && rd->at[c] < l->n ? l->col[rd->at[c]] : 1;
}

/* A finite non-negative number (positive when positive is set). */
static int number(const struct reader *rd, const struct csv_line *l, enum col c, int positive,
                  double *v, struct ls_error *err)
{
    const char *s = field(rd, l, c);
    char *end;
    errno = 0;
    *v = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(*v) || *v < 0 || (positive && *v == 0))
        return line_err(rd, column(rd, l, c), err, col_name[c],
                        positive ? ": expected a positive number" : ": expected a number >= 0");
    return 0;
}

/* The span of a trace, first start to last end, in ns. */
static int trace_ns(const struct reader *rd, const struct csv_line *l, double *ns,
                    struct ls_error *err)
{
    const char *t = field(rd, l, C_TRACE);
    char path[4096];
    int k = snprintf(path, sizeof path, "%s%s%s", t[0] == '/' ? "" : rd->dir,
                     t[0] == '/' ? "" : "/", t);
    if (k < 0 || (size_t)k >= sizeof path)
        return line_err(rd, column(rd, l, C_TRACE), err, "trace: path too long", "");
    struct trace_reader *r;
    int rc = trace_reader_open(&r, path, err);
    if (rc)
        return rc;
    struct trace_record rec;
    uint64_t lo = UINT64_MAX, hi = 0;
    while ((rc = trace_reader_next(r, &rec, err)) == 1) {
        lo = rec.start < lo ? rec.start : lo;
        hi = rec.end > hi ? rec.end : hi;
    }
    uint64_t hz = trace_reader_header(r)->tick_hz;
    trace_reader_close(r);
    if (rc < 0)
        return -rc;
    if (hi <= lo)
        return line_err(rd, column(rd, l, C_TRACE), err, "trace: no records in ", path);
    *ns = (double)(hi - lo) * 1e9 / (double)hz;
    return 0;
}

/* The row's measured time in base-clock cycles (exactly one measurement given). */
static int measured(const struct reader *rd, const struct csv_line *l, double mhz, double *cyc,
                    struct ls_error *err)
{
    static const enum col m[] = {C_NS, C_US, C_CYCLES, C_TRACE};
    int given = -1, ng = 0;
    for (int k = 0; k < 4; k++)
        if (*field(rd, l, m[k])) {
            given = k;
            ng++;
        }
    if (ng != 1)
        return line_err(rd, 1, err, ng ? "more than one measurement in the row (give one of "
                                         "measured_ns, measured_us, measured_cycles, trace)"
                                       : "no measurement: fill measured_ns, measured_us, "
                                         "measured_cycles or trace", "");
    double v;
    int rc = m[given] == C_TRACE ? trace_ns(rd, l, &v, err) : number(rd, l, m[given], 1, &v, err);
    if (rc)
        return rc;
    *cyc = m[given] == C_CYCLES ? v : v * (m[given] == C_US ? 1e3 : 1) * mhz / 1e3;
    return 0;
}

/* The model of a row (appended when new). */
static int model_of(struct study_measured *out, const char *name, struct ls_error *err)
{
    for (size_t i = 0; i < out->models.len; i++)
        if (strcmp(out->models.data[i].model, name) == 0)
            return (int)i;
    struct study_measured_model m;
    memset(&m, 0, sizeof m);
    m.exact = -1;
    if (!(m.model = strdup(name)) || LS_VEC_PUSH(&out->models, m)) {
        free(m.model);
        ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        return -1;
    }
    return (int)out->models.len - 1;
}

static int row(struct reader *rd, const struct csv_line *l, struct study_measured *out,
               struct ls_error *err)
{
    const char *model = field(rd, l, C_MODEL), *strategy = field(rd, l, C_STRATEGY);
    if (!*model || !*strategy)
        return line_err(rd, column(rd, l, *model ? C_STRATEGY : C_MODEL), err,
                        *model ? "strategy" : "model", ": empty");
    if (strlen(strategy) >= sizeof out->models.data[0].pt[0].strategy)
        return line_err(rd, column(rd, l, C_STRATEGY), err, "strategy: longer than 31 bytes", "");
    struct study_measured_point p;
    memset(&p, 0, sizeof p);
    snprintf(p.strategy, sizeof p.strategy, "%s", strategy);
    p.line = rd->line;
    double mhz = rd->base_mhz;
    int rc = number(rd, l, C_PREDICTED, 0, &p.predicted, err);
    if (!rc && *field(rd, l, C_BASE_MHZ))
        rc = number(rd, l, C_BASE_MHZ, 1, &mhz, err);
    if (!rc)
        rc = measured(rd, l, mhz, &p.measured, err);
    const char *a = field(rd, l, C_ASSIGNMENT);
    if (!rc && *a) {
        char *end;
        errno = 0;
        p.assignment = strtoull(a, &end, 16);
        if (*end || errno)
            rc = line_err(rd, column(rd, l, C_ASSIGNMENT), err, "assignment: expected hex", "");
        p.has_assignment = 1;
        memcpy(p.akey, &p.assignment, sizeof p.akey);
    }
    int mi = rc ? -1 : model_of(out, model, err);
    if (mi < 0)
        return rc ? rc : LS_ERR_NOMEM;
    struct study_measured_model *m = &out->models.data[mi];
    for (int k = 0; k < m->n; k++)
        if (strcmp(m->pt[k].strategy, p.strategy) == 0)
            return line_err(rd, column(rd, l, C_STRATEGY), err, "strategy given twice for ",
                            model);
    if (m->n == STUDY_CRITERION_MAX)
        return line_err(rd, 1, err, "more than 8 strategies for ", model);
    if (strcmp(p.strategy, "exact") == 0)
        m->exact = m->n;
    m->pt[m->n++] = p;
    out->rows++;
    return 0;
}

/* The points of one model for study/validate.h (assignments as two int32 each). */
static void points(const struct study_measured_model *m, struct study_point *pts)
{
    for (int k = 0; k < m->n; k++) {
        const struct study_measured_point *p = &m->pt[k];
        pts[k] = (struct study_point){p->strategy, p->predicted, p->measured,
                                      p->has_assignment ? p->akey : NULL,
                                      2};
    }
}

static int evaluate(struct study_measured *out, struct ls_error *err)
{
    size_t n = out->models.len;
    double *taus = malloc(sizeof *taus * (n ? n : 1));
    double *rels = malloc(sizeof *rels * (size_t)(out->rows ? out->rows : 1));
    if (!taus || !rels) {
        free(taus);
        free(rels);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    int nrel = 0, rc = 0;
    out->exact_within_1pct_all = 1;
    for (size_t i = 0; i < n && !rc; i++) {
        struct study_measured_model *m = &out->models.data[i];
        struct study_point pts[STUDY_CRITERION_MAX];
        points(m, pts);
        rc = lp_metrics(pts, m->n, &m->metrics, err);
        study_pairwise_add(pts, m->n, &out->all.pw);
        taus[i] = m->metrics.kendall_tau;
        nrel += study_rel_errors(pts, m->n, rels + nrel);
        if (m->exact >= 0) {
            study_criterion(pts, m->n, m->exact, &m->criterion);
            out->exact_within_1pct_all &= m->criterion.exact_within_1pct;
        }
    }
    out->all.pairwise_accuracy = study_pairwise_accuracy(&out->all.pw);
    out->all.kendall_tau = study_nanmean(taus, (int)n);
    out->all.median_rel_error = study_median(rels, nrel);
    out->all.max_rel_error = study_max(rels, nrel);
    free(taus);
    free(rels);
    return rc;
}

/* Every line of text: the header, then the rows. */
static int parse(struct reader *rd, const char *text, size_t len, struct study_measured *out,
                 struct ls_error *err)
{
    int seen_header = 0, rc = 0;
    for (size_t i = 0; i < len && !rc;) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t n = e > i && text[e - 1] == '\r' ? e - i - 1 : e - i;
        rd->line++;
        if (n && text[i] != '#') {
            struct csv_line l = {0};
            rc = split(rd, text + i, n, &l, err);
            if (!rc)
                rc = seen_header ? row(rd, &l, out, err) : header(rd, &l, err);
            seen_header = 1;
            line_free(&l);
        }
        i = e + 1;
    }
    if (!rc && !out->rows)
        rc = ls_error_msg(err, LS_ERR_INPUT, "%s: no rows%s", rd->path,
                          seen_header ? "" : " (and no header line)");
    return rc;
}

int study_measured_read(const char *path, double base_mhz, struct study_measured *out,
                        struct ls_error *err)
{
    memset(out, 0, sizeof *out);
    struct reader rd = {path, NULL, base_mhz, {0}, 0, {0}};
    char *text = NULL;
    size_t len = 0;
    const char *slash = strrchr(path, '/');
    rd.dir = slash ? strndup(path, (size_t)(slash - path) + (slash == path)) : strdup(".");
    int rc = rd.dir ? ls_read_file(path, &text, &len, err)
                    : ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    if (!rc && memchr(text, 0, len))
        rc = ls_error_msg(err, LS_ERR_INPUT, "%s: a NUL byte: not a text manifest", path);
    if (!rc)
        rc = parse(&rd, text, len, out, err);
    if (!rc)
        rc = evaluate(out, err);
    free(text);
    free(rd.dir);
    ls_csv_row_free(&rd.row);
    if (rc)
        study_measured_free(out);
    return rc;
}

/* One CSV field: quoted when it holds a comma or a quote (a line break, which no model spec
 * or strategy holds, would end the row: it is quoted too, and the reader refuses it). */
static void put_field(FILE *f, const char *s, int last)
{
    if (strpbrk(s, ",\"\r\n")) {
        fputc('"', f);
        for (; *s; s++)
            fputs(*s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
        fputc('"', f);
    } else {
        fputs(s, f);
    }
    fputc(last ? '\n' : ',', f);
}

int study_measured_write(const struct study_validation *v, const char *path, double base_mhz,
                         const char *command, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    FILE *f = af.fp;
    fprintf(f, "# laysim validate --emit: run each program, then fill measured_ns (or measured_us,\n"
               "# measured_cycles at base_mhz, or trace: a .lstrace) and run\n"
               "# `laysim validate --measured %s`\n", path);
    if (command)
        fprintf(f, "# made by: %s\n", command);
    fprintf(f, "model,strategy,program,assignment,predicted_cycles,simulated_cycles,base_mhz,"
               "measured_ns,trace\n");
    for (size_t i = 0; i < v->models.len; i++)
        for (int s = 0; s < STUDY_NSTRATEGIES; s++) {
            const struct study_strategy_result *r = &v->models.data[i].eval.runs[s];
            const char *slash = strrchr(r->program, '/');
            char num[160];
            put_field(f, v->models.data[i].eval.model, 0);
            put_field(f, r->strategy, 0);
            put_field(f, slash ? slash + 1 : r->program, 0);
            snprintf(num, sizeof num, "%016llx,%lld,%lld,%g,,\n",
                     (unsigned long long)r->assignment, (long long)r->predicted,
                     (long long)r->simulated, base_mhz);
            fputs(num, f);   /* numbers only: nothing to quote */
        }
    if (ferror(f)) {
        ls_atomic_abort(&af);
        return ls_error_msg(err, LS_ERR_IO, "%s: cannot write", path);
    }
    return ls_atomic_commit(&af, err);
}

void study_measured_free(struct study_measured *m)
{
    for (size_t i = 0; i < m->models.len; i++)
        free(m->models.data[i].model);
    LS_VEC_FREE(&m->models);
    memset(m, 0, sizeof *m);
}
