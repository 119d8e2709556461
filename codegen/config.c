/* codegen/config: the admissible configurations of each op kind (docs/costmodel.md). */
#include <stdlib.h>

#include "codegen/attn.h"
#include "codegen/epi.h"
#include "codegen/cg_int.h"
#include "util/vec.h"

struct cfgb {
    struct cg_cfgs *c;
    size_t cap;              /* bytes of c->pax */
    int oom;
};

static void add(struct cfgb *b, const int8_t *pax)
{
    struct cg_cfgs *c = b->c;
    for (int i = 0; i < c->ncfg; i++)
        if (memcmp(c->pax + (size_t)i * c->nslots, pax, (size_t)c->nslots) == 0)
            return;
    if (c->ncfg >= CG_MAX_CFGS)
        return;
    if (LS_ARRAY_RESERVE(c->pax, b->cap, (size_t)(c->ncfg + 1) * (size_t)(c->nslots ? c->nslots : 1))) {
        b->oom = 1;
        return;
    }
    memcpy(c->pax + (size_t)c->ncfg * c->nslots, pax, (size_t)c->nslots);
    c->ncfg++;
}

/* Input axis of slot `slot` that maps onto output axis `oax` (MAP or NORMALIZE), or -1. */
static int in_axis_to(const struct graph *g, int32_t op, int slot, int oax, int *kind)
{
    struct graph_axis m[GRAPH_MAX_RANK];
    int r = graph_axis_map(g, op, slot, m);
    for (int i = 0; i < r; i++)
        if (m[i].out == oax && (m[i].kind == GRAPH_AXIS_MAP || m[i].kind == GRAPH_AXIS_NORMALIZE ||
                                m[i].kind == GRAPH_AXIS_WINDOW || m[i].kind == GRAPH_AXIS_BROADCAST ||
                                m[i].kind == GRAPH_AXIS_SLICE || m[i].kind == GRAPH_AXIS_CONCAT)) {
            if (kind)
                *kind = m[i].kind;
            return i;
        }
    return -1;
}

static int64_t ext(const struct graph *g, int32_t t, int ax)
{
    return ax < 0 ? 1 : graph_tensor(g, t)->shape.dims[ax].size;
}

/* Map family: inputs follow the output partition axis; broadcast inputs take any layout. */
static void cfgs_map(const struct graph *g, const struct sim_target *tg, int32_t op,
                     struct cfgb *b)
{
    const struct graph_op *x = graph_op(g, op);
    struct cg_layouts lo;
    cg_tensor_layouts(g, x->output, &lo);
    int n = x->ninputs;
    int8_t pax[GRAPH_MAX_RANK + 8];
    for (int l = 0; l < lo.n; l++) {
        int po = lo.pax[l];
        int ok = 1;
        /* per input: forced axis or list of layouts */
        int nch[8], choice[8][CG_MAX_LAYOUTS];
        for (int s = 0; s < n && s < 8; s++) {
            int kind = 0;
            int ia = po < 0 ? -1 : in_axis_to(g, op, s, po, &kind);
            if (ia >= 0 && ext(g, x->inputs[s], ia) > 1) {
                if (kind == GRAPH_AXIS_WINDOW) {
                    ok = 0;
                    break;
                }
                if (kind == GRAPH_AXIS_NORMALIZE && ext(g, x->inputs[s], ia) > tg->sbuf_partitions) {
                    ok = 0;
                    break;
                }
                nch[s] = 1;
                choice[s][0] = ia;
            } else {
                struct cg_layouts li;
                cg_tensor_layouts(g, x->inputs[s], &li);
                nch[s] = li.n;
                for (int k = 0; k < li.n; k++)
                    choice[s][k] = li.pax[k];
            }
        }
        if (!ok || n > 8)
            continue;
        int idx[8] = {0};
        for (;;) {
            for (int s = 0; s < n; s++)
                pax[s] = (int8_t)choice[s][idx[s]];
            pax[n] = (int8_t)po;
            add(b, pax);
            int s = n - 1;
            while (s >= 0 && ++idx[s] == nch[s])
                idx[s--] = 0;
            if (s < 0)
                break;
        }
    }
    /* reductions: the reduced axis on partitions (output in its default layout) */
    if (graph_kind_is_reduce(x->kind)) {
        for (int i = 0; i < x->attrs.naxes; i++) {
            int r = x->attrs.axes[i];
            if (ext(g, x->inputs[0], r) <= 1)
                continue;
            pax[0] = (int8_t)r;
            pax[1] = (int8_t)lo.pax[0];
            add(b, pax);
        }
    }
}

static void cfgs_matmul(const struct graph *g, int32_t op, struct cfgb *b)
{
    const struct graph_op *x = graph_op(g, op);
    const struct graph_attrs *at = &x->attrs;
    struct cg_layouts lo;
    cg_tensor_layouts(g, x->output, &lo);
    struct graph_axis ml[GRAPH_MAX_RANK], mr[GRAPH_MAX_RANK];
    int rl = graph_axis_map(g, op, 0, ml), rr = graph_axis_map(g, op, 1, mr);
    for (int l = 0; l < lo.n; l++) {
        int po = lo.pax[l];
        int from_lhs = 0, from_rhs = 0;
        for (int i = 0; i < rl; i++)
            if (ml[i].kind == GRAPH_AXIS_MAP && ml[i].out == po) {
                int batch = 0;
                for (int k = 0; k < at->nbatch; k++)
                    batch |= at->lhs_batch[k] == i;
                if (!batch)
                    from_lhs = 1;
            }
        for (int i = 0; i < rr; i++)
            if (mr[i].kind == GRAPH_AXIS_MAP && mr[i].out == po) {
                int batch = 0;
                for (int k = 0; k < at->nbatch; k++)
                    batch |= at->rhs_batch[k] == i;
                if (!batch)
                    from_rhs = 1;
            }
        if (!from_lhs && !from_rhs)
            continue;
        for (int k = at->ncontract - 1; k >= 0; k--) {
            int lc = at->lhs_contract[k], rc = at->rhs_contract[k];
            if (ext(g, x->inputs[0], lc) <= 1)
                continue;
            int8_t pax[3] = {(int8_t)lc, (int8_t)rc, (int8_t)po};
            add(b, pax);
        }
    }
}

static void cfgs_conv(const struct graph *g, int32_t op, struct cfgb *b)
{
    const struct graph_op *x = graph_op(g, op);
    const struct graph_shape *xs = &graph_tensor(g, x->inputs[0])->shape;
    const struct graph_shape *os = &graph_tensor(g, x->output)->shape;
    int64_t C = xs->dims[1].size;
    if (x->attrs.groups == C && C > 1) {
        int8_t pax[3] = {1, 0, 1};
        add(b, pax);
        return;
    }
    if (C <= 1)
        return;
    int8_t pax[3] = {1, 1, 1};
    if (os->dims[1].size > 1)
        add(b, pax);
    if (x->attrs.groups == 1) {
        for (int a = 3; a >= 2; a--)
            if (os->dims[a].size > 1) {
                pax[2] = (int8_t)a;
                add(b, pax);
            }
    }
}

/* Data movement: each input in the layout whose axis matches, else its default. */
static void cfgs_move(const struct graph *g, int32_t op, struct cfgb *b)
{
    const struct graph_op *x = graph_op(g, op);
    int n = x->ninputs;
    int8_t *pax = malloc((size_t)n + 1);
    if (!pax) {
        b->oom = 1;
        return;
    }
    if (x->kind == GRAPH_OP_GATHER) {
        struct cg_layouts l0, l1, lo;
        cg_tensor_layouts(g, x->inputs[0], &l0);
        cg_tensor_layouts(g, x->inputs[1], &l1);
        cg_tensor_layouts(g, x->output, &lo);
        int ax = x->attrs.axis;
        pax[0] = (int8_t)(cg_layout_index(g, x->inputs[0], ax) >= 0 ? ax : l0.pax[0]);
        pax[1] = (int8_t)l1.pax[0];
        pax[2] = (int8_t)lo.pax[0];
        add(b, pax);
        free(pax);
        return;
    }
    struct cg_layouts lo;
    cg_tensor_layouts(g, x->output, &lo);
    if (x->kind == GRAPH_OP_RESHAPE) {
        struct cg_layouts li;
        cg_tensor_layouts(g, x->inputs[0], &li);
        pax[0] = (int8_t)li.pax[0];
        pax[1] = (int8_t)lo.pax[0];
        add(b, pax);
        struct graph_axis m[GRAPH_MAX_RANK];
        int r = graph_axis_map(g, op, 0, m);
        for (int i = 0; i < r; i++)
            if (m[i].kind == GRAPH_AXIS_MAP && cg_layout_index(g, x->inputs[0], i) >= 0 &&
                cg_layout_index(g, x->output, m[i].out) >= 0) {
                pax[0] = (int8_t)i;
                pax[1] = (int8_t)m[i].out;
                add(b, pax);
            }
        free(pax);
        return;
    }
    for (int l = 0; l < lo.n; l++) {
        int po = lo.pax[l];
        for (int s = 0; s < n; s++) {
            int ia = po < 0 ? -1 : in_axis_to(g, op, s, po, NULL);
            if (ia >= 0 && cg_layout_index(g, x->inputs[s], ia) >= 0)
                pax[s] = (int8_t)ia;
            else {
                struct cg_layouts li;
                cg_tensor_layouts(g, x->inputs[s], &li);
                pax[s] = (int8_t)li.pax[0];
            }
        }
        pax[n] = (int8_t)po;
        add(b, pax);
    }
    free(pax);
}

int cg_op_cfgs(const struct graph *g, const struct sim_target *t, int32_t op, int pinned,
               struct cg_cfgs *out, struct ls_error *err)
{
    const struct graph_op *x = graph_op(g, op);
    out->nslots = x->ninputs + (x->output >= 0);
    out->ncfg = 0;
    out->pax = NULL;
    struct cfgb b = {out, 0, 0};
    struct cg_attn a;
    int role = cg_attn_find(g, t, op, &a);
    if (role >= 0) {   /* a fused attention op: the one configuration its lowering takes */
        int8_t pax[3];
        cg_attn_cfg(&a, role, pax);
        add(&b, pax);
    }
    struct cg_epi ep;
    int erole = role < 0 ? cg_epi_find(g, op, &ep) : -1;
    if (erole >= 0) {  /* an epilogue chain: the last op chooses the output's layout */
        int8_t pax[4];
        cg_epi_cfg(g, &ep, erole, pax);
        struct cg_layouts lo;
        cg_tensor_layouts(g, x->output, &lo);
        for (int l = 0; l < (erole == ep.n - 1 ? lo.n : 1); l++) {
            if (erole == ep.n - 1)
                pax[x->ninputs] = (int8_t)lo.pax[l];
            add(&b, pax);
        }
        role = erole;
    }
    if (role < 0)
    switch (x->kind) {
    case GRAPH_OP_SOURCE:
    case GRAPH_OP_RETURN: {
        int32_t tt = x->kind == GRAPH_OP_SOURCE ? x->output : x->inputs[0];
        struct cg_layouts l;
        cg_tensor_layouts(g, tt, &l);
        for (int i = 0; i < l.n; i++) {
            int8_t p = (int8_t)l.pax[i];
            if (x->kind == GRAPH_OP_RETURN && pinned != -2 && p != pinned)
                continue;
            add(&b, &p);
        }
        if (x->kind == GRAPH_OP_RETURN && pinned != -2 && out->ncfg == 0)
            return ls_error_msg(err, LS_ERR_INPUT,
                                "output %s: axis %d is not an admissible layout (extent 1 or out "
                                "of range)",
                                graph_tensor(g, tt)->name, pinned);
        break;
    }
    case GRAPH_OP_MATMUL:
    case GRAPH_OP_BATCH_MATMUL:
        cfgs_matmul(g, op, &b);
        break;
    case GRAPH_OP_CONV2D:
        cfgs_conv(g, op, &b);
        break;
    case GRAPH_OP_RESHAPE:
    case GRAPH_OP_CONCAT:
    case GRAPH_OP_SLICE:
    case GRAPH_OP_GATHER:
        cfgs_move(g, op, &b);
        break;
    default:
        cfgs_map(g, t, op, &b);
        break;
    }
    if (b.oom) {
        cg_cfgs_free(out);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    if (out->ncfg == 0) {
        cg_cfgs_free(out);
        return ls_error_msg(err, LS_ERR_INPUT, "op %s (%s): no feasible layout configuration",
                            x->name, graph_op_kind_name(x->kind));
    }
    return 0;
}

void cg_cfgs_free(struct cg_cfgs *c)
{
    free(c->pax);
    c->pax = NULL;
    c->ncfg = 0;
}

int cg_layout_free(const struct graph *g, int32_t t)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    return x->role == GRAPH_ROLE_WEIGHT || x->state;
}
