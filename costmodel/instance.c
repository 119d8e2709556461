/* costmodel/instance: configurations + .lsp problem + op map of a graph (instance.h). */
#include <stdlib.h>
#include <string.h>

#include "costmodel/instance.h"
#include "util/invariant.h"

/* The conversion behind cm_instance_layout, by graph op: the problem is built with it
 * before the op map is complete. */
static int slot_layout(const struct graph *g, const struct cm_cfgs *cf, int32_t op,
                       int32_t cfg, int slot, int *pax, int32_t *layout, struct ls_error *err)
{
    const struct graph_op *x = graph_op(g, op);
    const struct cg_cfgs *c = &cf->op[op];
    int nslots = x->ninputs + (x->output >= 0);
    if (cfg < 0 || cfg >= c->ncfg || slot < 0 || slot >= nslots)
        return ls_error_msg(err, LS_ERR_INPUT, "op %s: no configuration %d slot %d", x->name,
                            (int)cfg, slot);
    int px = c->pax[(size_t)cfg * (size_t)c->nslots + (size_t)slot];
    if (pax)
        *pax = px;
    if (layout)
        *layout = cg_layout_index(g, slot < x->ninputs ? x->inputs[slot] : x->output, px);
    return 0;
}

int cm_instance_layout(const struct cm_instance *in, int32_t op, int32_t cfg, int slot,
                       int *pax, int32_t *layout, struct ls_error *err)
{
    if (op < 0 || op >= in->p->nops)
        return ls_error_msg(err, LS_ERR_INPUT, "no problem op %d", (int)op);
    return slot_layout(in->g, &in->cf, in->gop[op], cfg, slot, pax, layout, err);
}

/* Add graph op op (its output tensor first, with its transpose matrix) and its cfgs. */
static int add_op(struct cm_instance *in, int32_t op, int32_t *tid, struct ls_error *err)
{
    const struct graph *g = in->g;
    const struct graph_op *x = graph_op(g, op);
    struct lsp_problem *p = in->p;
    int rc;
    if (x->output >= 0) {
        struct cg_layouts l;
        cg_tensor_layouts(g, x->output, &l);
        char lab[CG_MAX_LAYOUTS][64];
        const char *labs[CG_MAX_LAYOUTS];
        int64_t tr[CG_MAX_LAYOUTS * CG_MAX_LAYOUTS];
        for (int a = 0; a < l.n; a++) {
            cg_layout_label(g, x->output, l.pax[a], lab[a], sizeof lab[a]);
            labs[a] = lab[a];
            for (int b = 0; b < l.n; b++) {
                int64_t c = 0;
                if (a != b &&
                    (rc = cm_conv_cost(in->m, x->output, l.pax[a], l.pax[b], &c, NULL, err)))
                    return rc;
                tr[a * l.n + b] = c;
            }
        }
        if ((rc = lsp_add_tensor(p, graph_tensor(g, x->output)->name, l.n, labs,
                                 l.n > 1 ? tr : NULL, &tid[x->output], err)))
            return rc;
    }
    int32_t ins[GRAPH_MAX_INPUTS], po;
    for (int k = 0; k < x->ninputs && k < GRAPH_MAX_INPUTS; k++)
        ins[k] = tid[x->inputs[k]];
    if ((rc = lsp_add_op(p, x->name, graph_op_kind_name(x->kind), x->ninputs, ins,
                         x->output >= 0 ? tid[x->output] : -1, &po, err)))
        return rc;
    in->gop[po] = op;
    in->pop[op] = po;
    int nslots = x->ninputs + (x->output >= 0);
    int32_t lay[GRAPH_MAX_INPUTS + 1];
    for (int32_t ci = 0; ci < in->cf.op[op].ncfg; ci++) {
        for (int k = 0; k < nslots; k++)
            if ((rc = slot_layout(g, &in->cf, op, ci, k, NULL, &lay[k], err)))
                return rc;
        if ((rc = lsp_add_cfg(p, po, in->cf.cost[op][ci], lay, NULL, err)))
            return rc;
    }
    return 0;
}

int cm_instance_create(struct cm_model *m, const int *pins, struct cm_instance **out,
                       struct ls_error *err)
{
    *out = NULL;
    struct cm_instance *in = calloc(1, sizeof *in);
    if (!in)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    in->m = m;
    in->g = cm_model_graph(m);
    int32_t nops = graph_nops(in->g), nt = graph_ntensors(in->g);
    int32_t *order = malloc(sizeof *order * ((size_t)nops + 1));
    int32_t *tid = malloc(sizeof *tid * ((size_t)nt + 1));
    in->gop = malloc(sizeof *in->gop * ((size_t)nops + 1));
    in->pop = malloc(sizeof *in->pop * ((size_t)nops + 1));
    in->p = lsp_new();
    int rc = 0;
    if (!order || !tid || !in->gop || !in->pop || !in->p) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    if ((rc = cm_enumerate(m, pins, &in->cf, err)) ||
        (rc = graph_topo_order(in->g, order, err)))
        goto done;
    for (int32_t i = 0; i < nops && !rc; i++)
        rc = add_op(in, order[i], tid, err);
    if (!rc && !(rc = lsp_finish(in->p, err)))
        rc = cm_instance_check(in, err);
done:
    free(order);
    free(tid);
    if (rc)
        cm_instance_free(in);
    else
        *out = in;
    return rc;
}

void cm_instance_free(struct cm_instance *in)
{
    if (!in)
        return;
    lsp_free(in->p);
    cm_cfgs_free(&in->cf);
    free(in->gop);
    free(in->pop);
    free(in);
}

int cm_instance_check(const struct cm_instance *in, struct ls_error *err)
{
    int32_t n = graph_nops(in->g);
    if (NEVER(in->p->nops != n || in->cf.nops != n))
        return LS_INTERNAL(err, "instance: not one problem op per graph op");
    for (int32_t i = 0; i < n; i++) {
        int32_t g = in->gop[i];
        if (NEVER(g < 0 || g >= n || in->pop[g] != i || in->p->ops[i].ncfg != in->cf.op[g].ncfg))
            return LS_INTERNAL(err, "instance: the problem and graph op maps disagree");
    }
    return 0;
}

int cm_instance_compile(const struct cm_instance *in, const int32_t *cfg,
                        struct sim_program **out, struct cg_compile_stats *st,
                        struct ls_error *err)
{
    *out = NULL;
    return cm_instance_compile_reuse(in, cfg, out, st, err);
}

int cm_instance_compile_reuse(const struct cm_instance *in, const int32_t *cfg,
                              struct sim_program **out, struct cg_compile_stats *st,
                              struct ls_error *err)
{
    int32_t n = graph_nops(in->g);
    int rc = cm_instance_check(in, err);
    if (rc)
        return rc;
    int32_t *gcfg = calloc((size_t)n + 1, sizeof *gcfg);
    if (!gcfg) {
        sim_program_free(*out);
        *out = NULL;
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (int32_t i = 0; cfg && i < in->p->nops; i++)
        gcfg[in->gop[i]] = cfg[i];
    rc = cm_compile(in->m, &in->cf, gcfg, out, st, err);
    free(gcfg);
    return rc;
}
