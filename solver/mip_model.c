/* solver/mip_model: the local-polytope MIP in memory (see mip_model.h). */
#include "solver/mip_model.h"

#include <stdlib.h>
#include <string.h>

/* The model is walked twice: a counting pass (arrays NULL: only the counts grow) sizes
 * the arrays, the second pass fills them. */
static void open_row(struct lsp_mip *m, int kind, int32_t a, int32_t b, int32_t c, double rhs)
{
    if (m->rows)
        m->rows[m->nrows] = (struct lsp_mip_row){(int8_t)kind, a, b, c, m->nterms, rhs};
    m->nrows++;
}

static void term(struct lsp_mip *m, int64_t col, int coef)
{
    if (m->col) {
        m->col[m->nterms] = col;
        m->coef[m->nterms] = (int8_t)coef;
    }
    m->nterms++;
}

/* 1 when slot s of cfg c of o repeats the (tensor, layout) of an earlier input slot. */
int lsp_mip_slot_repeats(const struct lsp_problem *p, int32_t o, int32_t c, int32_t s)
{
    const struct lsp_op *op = &p->ops[o];
    const int32_t *lay = lsp_cfg_layouts(p, o, c);
    for (int32_t j = 0; j < s; j++)
        if (op->in[j] == op->in[s] && lay[j] == lay[s])
            return 1;
    return 0;
}

/* Does some cfg of t's producer output layout l? */
static int produces(const struct lsp_problem *p, int32_t t, int32_t l)
{
    int32_t pr = p->tensors[t].producer;
    for (int32_t c = 0; c < p->ops[pr].ncfg; c++)
        if (lsp_cfg_out_layout(p, pr, c) == l)
            return 1;
    return 0;
}

/* Op o takes exactly one cfg: sum of its x = 1. */
static void one_row(struct lsp_mip *m, const struct lsp_problem *p, int32_t o)
{
    open_row(m, LSP_ROW_ONE, o, 0, 0, 1);
    for (int32_t c = 0; c < p->ops[o].ncfg; c++)
        term(m, lsp_export_xvar(p, o, c) - 1, 1);
}

static void op_rows(struct lsp_mip *m, const struct lsp_problem *p, int32_t o)
{
    const struct lsp_op *op = &p->ops[o];
    one_row(m, p, o);
    for (int32_t c = 0; c < op->ncfg; c++)
        for (int32_t s = 0; s < op->nin; s++) {
            int32_t t = op->in[s];
            if (!m->v.ybase[t] || lsp_mip_slot_repeats(p, o, c, s))
                continue;
            open_row(m, LSP_ROW_REQ, o, c, s, 0);
            term(m, m->v.ybase[t] + lsp_cfg_layouts(p, o, c)[s] - 1, 1);
            term(m, lsp_export_xvar(p, o, c) - 1, -1);
        }
}

/* The z column and tr row of (t, l, mm). */
static void tr_row(struct lsp_mip *m, const struct lsp_problem *p, int32_t t, int32_t l,
                   int32_t mm)
{
    int64_t z = m->ncols++;
    if (m->zt) {
        m->zt[z - m->nz0] = t;
        m->zl[z - m->nz0] = l;
        m->zm[z - m->nz0] = mm;
    }
    int32_t pr = p->tensors[t].producer;
    open_row(m, LSP_ROW_TR, t, l, mm, -1);
    term(m, z, 1);
    term(m, m->v.ybase[t] + mm - 1, -1);
    for (int32_t c = 0; c < p->ops[pr].ncfg; c++)
        if (lsp_cfg_out_layout(p, pr, c) == l)
            term(m, lsp_export_xvar(p, pr, c) - 1, -1);
}

/* ---- the tight variant (lsp_mip_build_tight) ---- */

/* 1 when cfg c of o reads t in layout l in some input slot. */
static int cfg_requests(const struct lsp_problem *p, int32_t o, int32_t c, int32_t t, int32_t l)
{
    const int32_t *lay = lsp_cfg_layouts(p, o, c);
    for (int32_t s = 0; s < p->ops[o].nin; s++)
        if (p->ops[o].in[s] == t && lay[s] == l)
            return 1;
    return 0;
}

/* Per input tensor t and layout l of op o: y_{t,l} >= the sum of x over o's cfgs that
 * request it (they exclude each other, so the sum is valid, and it is tighter than one
 * row per cfg when the LP spreads o over several cfgs). */
static void op_rows_tight(struct lsp_mip *m, const struct lsp_problem *p, int32_t o)
{
    const struct lsp_op *op = &p->ops[o];
    one_row(m, p, o);
    for (int32_t s = 0; s < op->nin; s++) {
        int32_t t = op->in[s], seen = 0;
        for (int32_t j = 0; j < s; j++)
            seen |= op->in[j] == t;
        for (int32_t l = 0; m->v.ybase[t] && !seen && l < p->tensors[t].nlayouts; l++) {
            int opened = 0;
            for (int32_t c = 0; c < op->ncfg; c++) {
                if (!cfg_requests(p, o, c, t, l))
                    continue;
                if (!opened) {
                    open_row(m, LSP_ROW_REQSUM, o, t, l, 0);
                    term(m, m->v.ybase[t] + l - 1, 1);
                    opened = 1;
                }
                term(m, lsp_export_xvar(p, o, c) - 1, -1);
            }
        }
    }
}

/* The transposes of (t, requested layout mm) as the local polytope of the pair
 * (producer, y_{t,mm}): z_{t,l,mm} <= x-mass of the producer on output l, and the z of
 * every producible l together cover y_{t,mm}. At integer points this is exactly
 * z_{t,out,mm} = y_{t,mm}; in the LP a half-requested layout can no longer be served
 * for free by the weak z >= x + y - 1. */
static void tr_rows_tight(struct lsp_mip *m, const struct lsp_problem *p, int32_t t, int32_t mm)
{
    int32_t L = p->tensors[t].nlayouts, pr = p->tensors[t].producer, costly = 0;
    for (int32_t l = 0; l < L; l++)
        costly |= lsp_tr_cost(p, t, l, mm) != 0 && produces(p, t, l);
    if (!costly)
        return;   /* no producible layout makes this request cost anything */
    int64_t z0 = m->ncols;
    for (int32_t l = 0; l < L; l++) {
        if (!produces(p, t, l))
            continue;
        int64_t z = m->ncols++;
        if (m->zt) {
            m->zt[z - m->nz0] = t;
            m->zl[z - m->nz0] = l;
            m->zm[z - m->nz0] = mm;
        }
        open_row(m, LSP_ROW_MARG, t, l, mm, 0);
        term(m, z, -1);
        for (int32_t c = 0; c < p->ops[pr].ncfg; c++)
            if (lsp_cfg_out_layout(p, pr, c) == l)
                term(m, lsp_export_xvar(p, pr, c) - 1, 1);
    }
    open_row(m, LSP_ROW_COVER, t, mm, 0, 0);
    term(m, m->v.ybase[t] + mm - 1, -1);
    for (int64_t z = z0; z < m->ncols; z++)
        term(m, z, 1);
}

static void walk_tight(struct lsp_mip *m, const struct lsp_problem *p)
{
    m->ncols = m->nz0;
    m->nrows = m->nterms = 0;
    for (int32_t o = 0; o < p->nops; o++)
        op_rows_tight(m, p, o);
    for (int32_t t = 0; t < p->ntensors; t++)
        for (int32_t mm = 0; m->v.ybase[t] && mm < p->tensors[t].nlayouts; mm++)
            tr_rows_tight(m, p, t, mm);
    open_row(m, 0, 0, 0, 0, 0);
    m->nrows--;
}

static void walk(struct lsp_mip *m, const struct lsp_problem *p)
{
    if (m->tight) {
        walk_tight(m, p);
        return;
    }
    m->ncols = m->nz0;
    m->nrows = m->nterms = 0;
    for (int32_t o = 0; o < p->nops; o++)
        op_rows(m, p, o);
    for (int32_t t = 0; t < p->ntensors; t++) {
        int32_t L = p->tensors[t].nlayouts;
        for (int32_t l = 0; m->v.ybase[t] && l < L; l++)
            for (int32_t mm = 0; mm < L; mm++)
                if (l != mm && lsp_tr_cost(p, t, l, mm) != 0 && produces(p, t, l))
                    tr_row(m, p, t, l, mm);
    }
    open_row(m, 0, 0, 0, 0, 0);   /* sentinel: rows[nrows].off = nterms */
    m->nrows--;
}

static int fill_obj(const struct lsp_problem *p, struct lsp_mip *m)
{
    m->obj = calloc((size_t)(m->ncols ? m->ncols : 1), sizeof *m->obj);
    if (!m->obj)
        return -1;
    for (int64_t k = 0; k < p->ncfg; k++)
        m->obj[k] = (double)p->cfg_cost[k];
    for (int64_t k = m->nz0; k < m->ncols; k++) {
        int64_t i = k - m->nz0;
        m->obj[k] = (double)lsp_tr_cost(p, m->zt[i], m->zl[i], m->zm[i]);
    }
    return 0;
}

static int build(const struct lsp_problem *p, struct lsp_mip *m, int tight, struct ls_error *err)
{
    memset(m, 0, sizeof *m);
    m->tight = tight;
    if (lsp_export_vars_init(p, &m->v))
        return ls_error_msg(err, LS_ERR_NOMEM, "MIP model: out of memory");
    m->nz0 = m->v.nvars;
    walk(m, p);   /* count */
    size_t nz = (size_t)(m->ncols - m->nz0) + 1, nt = (size_t)m->nterms + 1;
    m->rows = malloc(((size_t)m->nrows + 1) * sizeof *m->rows);
    m->col = malloc(nt * sizeof *m->col);
    m->coef = malloc(nt * sizeof *m->coef);
    m->zt = malloc(nz * sizeof *m->zt);
    m->zl = malloc(nz * sizeof *m->zl);
    m->zm = malloc(nz * sizeof *m->zm);
    if (!m->rows || !m->col || !m->coef || !m->zt || !m->zl || !m->zm)
        return ls_error_msg(err, LS_ERR_NOMEM, "MIP model: out of memory");
    walk(m, p);   /* fill */
    if (fill_obj(p, m))
        return ls_error_msg(err, LS_ERR_NOMEM, "MIP model: out of memory");
    return 0;
}

int lsp_mip_build(const struct lsp_problem *p, struct lsp_mip *m, struct ls_error *err)
{
    return build(p, m, 0, err);
}

int lsp_mip_build_tight(const struct lsp_problem *p, struct lsp_mip *m, struct ls_error *err)
{
    return build(p, m, 1, err);
}

void lsp_mip_free(struct lsp_mip *m)
{
    lsp_export_vars_free(&m->v);
    free(m->zt);
    free(m->zl);
    free(m->zm);
    free(m->obj);
    free(m->rows);
    free(m->col);
    free(m->coef);
    memset(m, 0, sizeof *m);
}
