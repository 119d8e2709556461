/* cli/traceops: `laysim trace FILE ops --problem P.lsp --solution S.sol`. */
#include "cli/traceops.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "sim/target.h"
#include "solver/problem.h"
#include "study/opattr.h"
#include "util/csv.h"
#include "util/fileio.h"

/* The base clock of the trace's target when it is an unmodified built-in one: a file name,
 * an imported profile's unknown core or a built-in changed by --set (its hash differs; the
 * trace keeps the name) needs --base-mhz. */
static int trace_base_mhz(struct trace_reader *r, double *mhz, struct ls_error *err)
{
    const struct trace_header *h = trace_reader_header(r);
    struct sim_target t;
    const char *name = h->target ? h->target : "";
    if (!name[0] || sim_target_builtin(&t, name))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "the trace's target '%s' is not a built-in one: give the clock of "
                            "the problem's costs with --base-mhz F", name);
    if (h->target_hash && h->target_hash != sim_target_hash(&t))
        return ls_error_msg(err, LS_ERR_INPUT,
                            "the trace's target is %s changed by --set (target-hash %016" PRIx64
                            ", the built-in's %016" PRIx64 "): give the clock of the problem's "
                            "costs with --base-mhz F", name, h->target_hash, sim_target_hash(&t));
    *mhz = t.base_mhz;
    return 0;
}

static json_t *busy_json(const double *busy)
{
    json_t *o = json_object();
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        json_object_set_new(o, ls_engine_name((enum ls_engine)e), json_real(busy[e]));
    return o;
}

static json_t *ops_json(const struct study_opattr *a, const struct study_opattr_kind *k, int nk,
                        const char *path, const struct cli_trace_ops_opts *o, double mhz)
{
    json_t *j = json_pack("{s:s, s:s, s:s, s:f, s:I, s:f, s:I, s:o, s:I, s:I}", "trace", path,
                          "problem", o->problem, "solution", o->solution, "base_mhz", mhz,
                          "records", (json_int_t)a->records, "span_cycles", a->span,
                          "objective", (json_int_t)a->objective, "rel_error",
                          cli_json_num(fabs((double)a->objective - a->span) / a->span),
                          "unknown_names", (json_int_t)a->unknown, "silent",
                          (json_int_t)a->silent);
    json_t *kinds = json_array(), *ops = json_array();
    for (int i = 0; i < nk; i++)
        json_array_append_new(
            kinds, json_pack("{s:s, s:I, s:I, s:I, s:f, s:f, s:o}", "kind", k[i].kind, "rows",
                             (json_int_t)k[i].rows, "traced", (json_int_t)k[i].traced,
                             "predicted", (json_int_t)k[i].predicted, "exposed", k[i].exposed,
                             "span", k[i].span, "busy", busy_json(k[i].busy)));
    for (size_t i = 0; i < a->n; i++) {
        const struct study_opattr_row *r = &a->rows[i];
        json_array_append_new(
            ops, json_pack("{s:s, s:s, s:I, s:I, s:f, s:f, s:f, s:f, s:o}", "name", r->name,
                           "kind", r->kind, "predicted", (json_int_t)r->predicted, "records",
                           (json_int_t)r->records, "start", r->start, "end", r->end, "span",
                           r->end - r->start, "exposed", r->exposed, "busy",
                           busy_json(r->busy)));
    }
    json_object_set_new(j, "kinds", kinds);
    json_object_set_new(j, "ops", ops);
    return j;
}

static void ops_csv(FILE *f, const struct study_opattr *a)
{
    fputs("name,kind,predicted_cycles,exposed_cycles,span_cycles,start_cycles,end_cycles,"
          "records,pe_busy,act_busy,dve_busy,pool_busy,dma_busy\n", f);
    for (size_t i = 0; i < a->n; i++) {
        const struct study_opattr_row *r = &a->rows[i];
        ls_csv_put(f, r->name);
        fputc(',', f);
        ls_csv_put(f, r->kind);
        fprintf(f, ",%" PRId64 ",%.1f,%.1f,%.1f,%.1f,%" PRIu64, r->predicted, r->exposed,
                r->end - r->start, r->start, r->end, r->records);
        for (int e = 0; e < LS_ENGINE_COUNT; e++)
            fprintf(f, ",%.1f", r->busy[e]);
        fputc('\n', f);
    }
}

static double diff_of(const struct study_opattr_row *r)
{
    return r->exposed - (double)r->predicted;
}

static int by_abs_diff(const void *x, const void *y)
{
    double a = fabs(diff_of(*(const struct study_opattr_row *const *)x)),
           b = fabs(diff_of(*(const struct study_opattr_row *const *)y));
    return a > b ? -1 : a < b;
}

static double kind_diff(const struct study_opattr_kind *k)
{
    return k->exposed - (double)k->predicted;
}

static int kind_by_abs_diff(const void *x, const void *y)
{
    double a = fabs(kind_diff(x)), b = fabs(kind_diff(y));
    return a > b ? -1 : a < b;
}

/* 0, or 1 when out of memory (nothing of the top list is written then). */
static int ops_text(FILE *f, const struct study_opattr *a, struct study_opattr_kind *k, int nk,
                    const char *path, const struct cli_trace_ops_opts *o, double mhz)
{
    fprintf(f, "trace %s: %" PRIu64 " records, span %.0f cycles (%.3f ms at %.0f MHz)\n", path,
            a->records, a->span, a->span / mhz / 1e3, mhz);
    fprintf(f, "%s under %s: objective %" PRId64 " cycles (%+.1f%% of the span)\n", o->problem,
            o->solution, a->objective, 100.0 * ((double)a->objective - a->span) / a->span);
    fprintf(f, "%zu names in the trace not in the problem; %zu predicted ops or conversions "
            "with no record\n\n", a->unknown, a->silent);
    qsort(k, (size_t)nk, sizeof *k, kind_by_abs_diff);
    fprintf(f, "by kind, furthest off first (exposed: growth of the latest end, records in "
            "program order)\n");
    fprintf(f, "%-16s %6s %14s %14s %14s %9s\n", "kind", "rows", "predicted", "exposed",
            "exposed-pred", "of span");
    for (int i = 0; i < nk; i++)
        fprintf(f, "%-16s %6zu %14" PRId64 " %14.0f %+14.0f %+8.1f%%\n", k[i].kind, k[i].rows,
                k[i].predicted, k[i].exposed, k[i].exposed - (double)k[i].predicted,
                100.0 * (k[i].exposed - (double)k[i].predicted) / a->span);
    fprintf(f, "%-16s %6zu %14" PRId64 " %14.0f %+14.0f %+8.1f%%\n", "total", a->n, a->objective,
            a->span, a->span - (double)a->objective,
            100.0 * (a->span - (double)a->objective) / a->span);
    const struct study_opattr_row **ord = malloc((a->n + 1) * sizeof *ord);
    if (!ord)
        return 1;
    for (size_t i = 0; i < a->n; i++)
        ord[i] = &a->rows[i];
    qsort(ord, a->n, sizeof *ord, by_abs_diff);
    size_t top = o->top < a->n ? (size_t)o->top : a->n;
    fprintf(f, "\ntop %zu of %zu by |exposed - predicted| (cycles; all in --json or --csv)\n",
            top, a->n);
    fprintf(f, "%12s %12s %12s %12s  %s\n", "predicted", "exposed", "span", "records", "name (kind)");
    for (size_t i = 0; i < top; i++)
        fprintf(f, "%12" PRId64 " %12.0f %12.0f %12" PRIu64 "  %s (%s)\n", ord[i]->predicted,
                ord[i]->exposed, ord[i]->end - ord[i]->start, ord[i]->records, ord[i]->name,
                ord[i]->kind);
    free((void *)ord);
    return 0;
}

/* Problem and solution, warning when the solution records another problem's hash. */
static int read_inputs(const struct cli_trace_ops_opts *o, struct lsp_problem **p,
                       struct lsp_solution *s, struct ls_error *err)
{
    lsp_solution_init(s);
    int rc = lsp_read(o->problem, p, err);
    if (rc)
        return rc;
    if ((rc = lsp_sol_read(*p, o->solution, s, err)))
        return rc;
    char here[20];
    snprintf(here, sizeof here, "%016" PRIx64, lsp_problem_hash(*p));
    const char *rec = s->tie.v[LSP_TIE_PROBLEM];
    if (rec[0] && strcmp(rec, here))
        fprintf(stderr, "laysim trace: warning: %s records problem-hash %s, %s has %s\n",
                o->solution, rec, o->problem, here);
    if (!s->cfg || s->nops != (*p)->nops)
        return ls_error_msg(err, LS_ERR_INPUT, "%s: no configuration for every op of %s",
                            o->solution, o->problem);
    return 0;
}

static int write_out(const struct study_opattr *a, const char *path,
                     const struct cli_trace_ops_opts *o, double mhz, struct ls_error *err)
{
    struct study_opattr_kind *k;
    int nk = study_opattr_by_kind(a, &k);
    if (nk < 0)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, o->out ? o->out : "-", err);
    if (!rc) {
        if (o->json) {
            json_t *j = ops_json(a, k, nk, path, o, mhz);
            rc = !j || json_dumpf(j, af.fp, JSON_INDENT(1)) || fputc('\n', af.fp) == EOF;
            json_decref(j);
        } else if (o->csv) {
            ops_csv(af.fp, a);
        } else {
            rc = ops_text(af.fp, a, k, nk, path, o, mhz);   /* sorts k (JSON keeps its order) */
        }
        if (rc) {
            ls_atomic_abort(&af);
            rc = ls_error_msg(err, LS_ERR_IO, "cannot write the results");
        } else {
            rc = ls_atomic_commit(&af, err);
        }
    }
    free(k);
    return rc;
}

int cli_trace_ops(const char *path, struct trace_reader *r, const struct cli_trace_ops_opts *o)
{
    if (!o->problem || !o->solution)
        return cli_usage("trace", "ops: --problem P.lsp and --solution S.sol are required");
    if (o->json && o->csv)
        return cli_usage("trace", "ops: --json and --csv exclude each other");
    struct ls_error err;
    ls_error_clear(&err);
    struct lsp_problem *p = NULL;
    struct lsp_solution s;
    struct study_opattr a;
    memset(&a, 0, sizeof a);
    double mhz = o->base_mhz;
    int rc = read_inputs(o, &p, &s, &err);
    if (!rc && mhz == 0)
        rc = trace_base_mhz(r, &mhz, &err);
    if (!rc)
        rc = study_opattr_build(p, s.cfg, r, mhz, &a, &err);
    if (rc && !err.file[0])   /* the trace's own faults: name it */
        snprintf(err.file, sizeof err.file, "%s", path);
    if (!rc)
        rc = write_out(&a, path, o, mhz, &err);
    study_opattr_free(&a);
    lsp_solution_free(&s);
    lsp_free(p);
    return rc ? cli_report(&err) : CLI_OK;
}
