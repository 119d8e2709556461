/* solver/export: WCNF (new and old header), CFN and CPLEX LP encodings. */
#include "solver/export.h"
#include "solver/mip_model.h"
#include "util/fileio.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int lsp_export_format_parse(const char *name)
{
    if (!strcmp(name, "wcnf"))
        return LSP_EXPORT_WCNF;
    if (!strcmp(name, "wcnf-old"))
        return LSP_EXPORT_WCNF_OLD;
    if (!strcmp(name, "cfn"))
        return LSP_EXPORT_CFN;
    if (!strcmp(name, "lp"))
        return LSP_EXPORT_LP;
    return -1;
}

int lsp_export_vars_init(const struct lsp_problem *p, struct lsp_export_vars *v)
{
    v->ybase = calloc((size_t)p->ntensors + 1, sizeof *v->ybase);
    if (!v->ybase)
        return LS_ERR_NOMEM;
    v->nvars = p->ncfg;
    for (int32_t t = 0; t < p->ntensors; t++)
        if (p->tensors[t].nlayouts >= 2 && p->use_off[t + 1] > p->use_off[t]) {
            v->ybase[t] = v->nvars + 1;
            v->nvars += p->tensors[t].nlayouts;
        }
    return 0;
}

void lsp_export_vars_free(struct lsp_export_vars *v)
{
    free(v->ybase);
    v->ybase = NULL;
}

int32_t lsp_export_xvar_op(const struct lsp_problem *p, int64_t k, int32_t *c)
{
    int32_t lo = 0, hi = p->nops - 1;   /* the last op whose cfg0 < k */
    while (lo < hi) {
        int32_t mid = lo + (hi - lo + 1) / 2;
        if (p->ops[mid].cfg0 < k)
            lo = mid;
        else
            hi = mid - 1;
    }
    *c = (int32_t)(k - 1 - p->ops[lo].cfg0);
    return lo;
}

/* Walk the clauses of the MaxSAT encoding; emit(ctx, weight or -1 for hard, lits, n). */
typedef void (*clause_fn)(void *ctx, int64_t w, const int64_t *lits, int n);

static void clauses(const struct lsp_problem *p, const struct lsp_export_vars *v,
                    clause_fn emit, void *ctx, int64_t *lits)
{
    for (int32_t o = 0; o < p->nops; o++) {
        const struct lsp_op *op = &p->ops[o];
        for (int32_t c = 0; c < op->ncfg; c++)   /* at least one cfg */
            lits[c] = lsp_export_xvar(p, o, c);
        emit(ctx, -1, lits, op->ncfg);
        for (int32_t a = 0; a < op->ncfg; a++)   /* at most one cfg */
            for (int32_t b = a + 1; b < op->ncfg; b++) {
                int64_t l2[2] = {-lsp_export_xvar(p, o, a), -lsp_export_xvar(p, o, b)};
                emit(ctx, -1, l2, 2);
            }
        for (int32_t c = 0; c < op->ncfg; c++) {
            const int32_t *lay = lsp_cfg_layouts(p, o, c);
            for (int32_t s = 0; s < op->nin; s++) {   /* x_{o,c} -> y_{t,l} */
                int32_t t = op->in[s];
                if (!v->ybase[t] || lsp_mip_slot_repeats(p, o, c, s))
                    continue;
                int64_t l2[2] = {-lsp_export_xvar(p, o, c), v->ybase[t] + lay[s]};
                emit(ctx, -1, l2, 2);
            }
            if (lsp_cfg_cost(p, o, c) > 0) {
                int64_t l1 = -lsp_export_xvar(p, o, c);
                emit(ctx, lsp_cfg_cost(p, o, c), &l1, 1);
            }
            int32_t t = op->out;
            if (t < 0 || !v->ybase[t])
                continue;
            int32_t src = lay[op->nin];
            for (int32_t l = 0; l < p->tensors[t].nlayouts; l++) {
                int64_t w = lsp_tr_cost(p, t, src, l);
                if (l == src || w == 0)
                    continue;
                int64_t l2[2] = {-lsp_export_xvar(p, o, c), -(v->ybase[t] + l)};
                emit(ctx, w, l2, 2);
            }
        }
    }
}

struct wcnf {
    FILE *fp;
    int old;
    int64_t top, nclauses, soft_sum;
};

static void count_clause(void *ctx, int64_t w, const int64_t *lits, int n)
{
    struct wcnf *c = ctx;
    c->nclauses++;
    if (w > 0)
        c->soft_sum += w;
}

static void write_clause(void *ctx, int64_t w, const int64_t *lits, int n)
{
    struct wcnf *c = ctx;
    if (w < 0 && !c->old)
        fputs("h", c->fp);
    else
        fprintf(c->fp, "%" PRId64, w < 0 ? c->top : w);
    for (int i = 0; i < n; i++)
        fprintf(c->fp, " %" PRId64, lits[i]);
    fputs(" 0\n", c->fp);
}

static int export_wcnf(const struct lsp_problem *p, const struct lsp_export_vars *v, int old,
                       FILE *fp, int64_t *lits)
{
    struct wcnf c = {.fp = fp, .old = old};
    clauses(p, v, count_clause, &c, lits);
    c.top = c.soft_sum + 1;
    fprintf(fp, "c laysim layout selection problem: %d ops, %d tensors\n", p->nops, p->ntensors);
    fprintf(fp, "c x(op,cfg) = 1 + global cfg index; y(tensor,layout) from %" PRId64 "\n",
            p->ncfg + 1);
    if (old)
        fprintf(fp, "p wcnf %" PRId64 " %" PRId64 " %" PRId64 "\n", v->nvars, c.nclauses, c.top);
    clauses(p, v, write_clause, &c, lits);
    return 0;
}

/* CFN: one variable per op (its cfgs) and per y_{t,l} (0/1); unary op-cost functions;
 * one binary function per (consumer op, y var) forbidding "cfg asks for l but y = 0";
 * one binary function per (producer op, y var) charging the transpose when y = 1. */
static void cfn_costs_open(FILE *fp, int *first, const char *fname, const char *a,
                           const char *b)
{
    fprintf(fp, "%s\n    \"%s\": {\"scope\": [\"%s\"%s%s%s], \"costs\": [", *first ? "" : ",",
            fname, a, b ? ", \"" : "", b ? b : "", b ? "\"" : "");
    *first = 0;
}

static int export_cfn(const struct lsp_problem *p, const struct lsp_export_vars *v, FILE *fp)
{
    int64_t top = p->cost_sum + 1;
    fprintf(fp, "{\n  \"problem\": {\"name\": \"laysim\", \"mustbe\": \"<%" PRId64 "\"},\n",
            top);
    fputs("  \"variables\": {", fp);
    int first = 1;
    for (int32_t o = 0; o < p->nops; o++) {
        fprintf(fp, "%s\n    \"o%d\": [", first ? "" : ",", o);
        first = 0;
        for (int32_t c = 0; c < p->ops[o].ncfg; c++)
            fprintf(fp, "%s\"c%d\"", c ? ", " : "", c);
        fputc(']', fp);
    }
    for (int32_t t = 0; t < p->ntensors; t++)
        for (int32_t l = 0; v->ybase[t] && l < p->tensors[t].nlayouts; l++) {
            fprintf(fp, "%s\n    \"y%d_%d\": [\"n\", \"y\"]", first ? "" : ",", t, l);
            first = 0;
        }
    fputs("\n  },\n  \"functions\": {", fp);
    first = 1;
    char fn[64], a[32], b[32];
    for (int32_t o = 0; o < p->nops; o++) {
        const struct lsp_op *op = &p->ops[o];
        snprintf(fn, sizeof fn, "op%d", o);
        snprintf(a, sizeof a, "o%d", o);
        cfn_costs_open(fp, &first, fn, a, NULL);
        for (int32_t c = 0; c < op->ncfg; c++)
            fprintf(fp, "%s%" PRId64, c ? ", " : "", lsp_cfg_cost(p, o, c));
        fputs("]}", fp);
        /* requests: one function per distinct input tensor (with y vars) and layout */
        for (int32_t s = 0; s < op->nin; s++) {
            int32_t t = op->in[s];
            int dup = 0;
            for (int32_t j = 0; j < s; j++)
                dup |= op->in[j] == t;
            if (!v->ybase[t] || dup)
                continue;
            for (int32_t l = 0; l < p->tensors[t].nlayouts; l++) {
                snprintf(fn, sizeof fn, "req%d_%d_%d", o, t, l);
                snprintf(b, sizeof b, "y%d_%d", t, l);
                cfn_costs_open(fp, &first, fn, a, b);
                for (int32_t c = 0; c < op->ncfg; c++) {
                    const int32_t *lay = lsp_cfg_layouts(p, o, c);
                    int asks = 0;
                    for (int32_t j = 0; j < op->nin; j++)
                        asks |= op->in[j] == t && lay[j] == l;
                    fprintf(fp, "%s%" PRId64 ", 0", c ? ", " : "", asks ? top : 0);
                }
                fputs("]}", fp);
            }
        }
        int32_t t = op->out;
        if (t < 0 || !v->ybase[t])
            continue;
        for (int32_t l = 0; l < p->tensors[t].nlayouts; l++) {
            snprintf(fn, sizeof fn, "tr%d_%d", t, l);
            snprintf(b, sizeof b, "y%d_%d", t, l);
            cfn_costs_open(fp, &first, fn, a, b);
            for (int32_t c = 0; c < op->ncfg; c++) {
                int32_t src = lsp_cfg_out_layout(p, o, c);
                fprintf(fp, "%s0, %" PRId64, c ? ", " : "", lsp_tr_cost(p, t, src, l));
            }
            fputs("]}", fp);
        }
    }
    fputs("\n  }\n}\n", fp);
    return 0;
}

/* LP: the model of solver/mip_model (binaries x and y, continuous z >= 0 per (tensor,
 * source layout, requested layout) with z >= sum_{c: out(c)=l} x_{prod,c} + y_{t,l'} - 1),
 * written as CPLEX LP text. */
struct lpw {
    FILE *fp;
    int terms;
};

static void lp_term(struct lpw *w, int64_t coef, const char *var, int64_t idx)
{
    if (w->terms && w->terms % 8 == 0)
        fputs("\n   ", w->fp);
    if (coef == 1)
        fprintf(w->fp, " + %s%" PRId64, var, idx);
    else if (coef == -1)
        fprintf(w->fp, " - %s%" PRId64, var, idx);
    else
        fprintf(w->fp, " %c %" PRId64 " %s%" PRId64, coef < 0 ? '-' : '+',
                coef < 0 ? -coef : coef, var, idx);
    w->terms++;
}

static void lp_rows(const struct lsp_problem *p, const struct lsp_mip *m, struct lpw *w)
{
    FILE *fp = w->fp;
    for (int64_t r = 0; r < m->nrows; r++) {
        const struct lsp_mip_row *row = &m->rows[r];
        const int64_t *col = m->col + row->off;
        int64_t n = m->rows[r + 1].off - row->off;
        if (row->kind == LSP_ROW_ONE) {
            w->terms = 0;
            fprintf(fp, " one%d:", row->a);
            for (int64_t i = 0; i < n; i++)
                lp_term(w, 1, "x", col[i] + 1);
            fputs(" = 1\n", fp);
        } else if (row->kind == LSP_ROW_REQ) {
            fprintf(fp, " req%d_%d_%d: y%" PRId64 " - x%" PRId64 " >= 0\n", row->a, row->b,
                    row->c, col[0] + 1, col[1] + 1);
        } else {
            w->terms = 1;
            fprintf(fp, " tr%d_%d_%d: z%d_%d_%d - y%" PRId64, row->a, row->b, row->c, row->a,
                    row->b, row->c, col[1] + 1);
            for (int64_t i = 2; i < n; i++)
                lp_term(w, -1, "x", col[i] + 1);
            fputs(" >= -1\n", fp);
        }
    }
}

static int export_lp(const struct lsp_problem *p, FILE *fp, struct ls_error *err)
{
    struct lsp_mip m;
    int rc = lsp_mip_build(p, &m, err);
    if (rc) {
        lsp_mip_free(&m);
        return rc;
    }
    struct lpw w = {.fp = fp};
    fprintf(fp, "\\ laysim layout selection problem: %d ops, %d tensors\n", p->nops, p->ntensors);
    fputs("\\ x<k>: configuration k (global, 1-based); y<k>: a consumer asks for a layout;\n"
          "\\ z<t>_<l>_<m>: tensor t produced in layout l and converted to m\n", fp);
    fputs("Minimize\n obj:", fp);
    for (int64_t k = 0; k < p->ncfg; k++)
        if (m.obj[k] > 0)
            lp_term(&w, p->cfg_cost[k], "x", k + 1);
    for (int64_t k = m.nz0; k < m.ncols; k++) {
        int64_t i = k - m.nz0;
        if (w.terms && w.terms % 8 == 0)
            fputs("\n   ", fp);
        fprintf(fp, " + %" PRId64 " z%d_%d_%d", lsp_tr_cost(p, m.zt[i], m.zl[i], m.zm[i]),
                m.zt[i], m.zl[i], m.zm[i]);
        w.terms++;
    }
    if (w.terms == 0)
        fputs(" 0 x1", fp);   /* an empty objective; every problem with ops has x1 */
    fputs("\nSubject To\n", fp);
    lp_rows(p, &m, &w);
    fputs("Binary\n", fp);
    for (int64_t k = 1; k <= p->ncfg; k++)
        fprintf(fp, " x%" PRId64 "%s", k, k % 16 == 0 ? "\n" : "");
    fputc('\n', fp);
    for (int64_t k = p->ncfg + 1; k <= m.v.nvars; k++)
        fprintf(fp, " y%" PRId64 "%s", k, (k - p->ncfg) % 16 == 0 ? "\n" : "");
    fputs("\nEnd\n", fp);
    lsp_mip_free(&m);
    return 0;
}

int lsp_export_fp(const struct lsp_problem *p, int format, FILE *fp, struct ls_error *err)
{
    struct lsp_export_vars v;
    if (lsp_export_vars_init(p, &v))
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    int64_t *lits = malloc(((size_t)p->max_cfg + 2) * sizeof *lits);
    if (!lits) {
        lsp_export_vars_free(&v);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    int rc;
    switch (format) {
    case LSP_EXPORT_WCNF:
    case LSP_EXPORT_WCNF_OLD:
        rc = export_wcnf(p, &v, format == LSP_EXPORT_WCNF_OLD, fp, lits);
        break;
    case LSP_EXPORT_CFN: rc = export_cfn(p, &v, fp); break;
    case LSP_EXPORT_LP: rc = export_lp(p, fp, err); break;
    default: rc = ls_error_msg(err, LS_ERR_INPUT, "unknown export format %d", format);
    }
    free(lits);
    lsp_export_vars_free(&v);
    if (!rc && ferror(fp))
        rc = ls_error_msg(err, LS_ERR_IO, "write error");
    return rc;
}

int lsp_export(const struct lsp_problem *p, int format, const char *path, struct ls_error *err)
{
    struct ls_atomic_file af;
    int rc = ls_atomic_open(&af, path, err);
    if (rc)
        return rc;
    if ((rc = lsp_export_fp(p, format, af.fp, err))) {
        ls_atomic_abort(&af);
        return rc;
    }
    return ls_atomic_commit(&af, err);
}
