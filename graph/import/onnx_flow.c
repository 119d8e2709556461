/* graph/import/onnx_flow: control flow resolved at import time. An If whose condition is a
 * constant imports the branch it takes; a Loop whose trip count is a constant is unrolled
 * (its body imported once per iteration). Anything else exits 2 naming the node and why. */
#include <stdlib.h>
#include <string.h>

#include "onnx_int.h"
#include "onnx_ops.h"
#include "unroll.h"


/* Copy value src into *dst (its values too), dst being any value slot. 0 or LS_ERR_NOMEM. */
static int copy_val(struct ox *x, struct ox_val *dst, const struct ox_val *src)
{
    double *vals = NULL;
    if (src->vals) {
        size_t n = (size_t)ox_numel(src);
        vals = malloc(sizeof(double) * (n ? n : 1));
        if (!vals)
            return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
        memcpy(vals, src->vals, sizeof(double) * n);
    }
    free(dst->vals);
    *dst = *src;
    dst->vals = vals;
    return 0;
}

/* Give value `name` the contents of src (a subgraph input bound before its nodes run). */
static int define(struct ox *x, const char *name, const struct ox_val *src)
{
    struct ox_val *v = ox_val(x, name);
    if (!v)
        return ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    if (copy_val(x, v, src))
        return LS_ERR_NOMEM;
    v->defined = 1;
    return 0;
}

/* Output k of the current node takes value src (a copy of the struct: binding may move the
 * values array; src.vals stays valid). */
static int bind_val(struct ox *x, int k, struct ox_val src)
{
    if (src.t >= 0 || !src.konst)
        return ox_bind(x, k, src.t);
    struct ox_val *v = ox_bind_const(x, k, src.onnx_dt, src.rank, src.dims);
    if (!v)
        return (size_t)k < x->node->n_output && x->node->output[k][0] ? -1 : 0;
    return src.vals ? copy_val(x, v, &src) : 0;
}

/* Output k of the current node takes the value of subgraph output `name`. */
static int bind_from(struct ox *x, int k, const char *name)
{
    struct ox_val *s = ox_val(x, name);
    if (!s || !s->defined)
        return ox_fail(x, "subgraph output '%.100s' is not produced", name);
    return bind_val(x, k, *s);
}

/* The graph attribute `name` of the current node, or NULL. */
static const Onnx__GraphProto *subgraph(struct ox *x, const char *name)
{
    const Onnx__AttributeProto *a = ox_attr(x, name);
    return a && a->g ? a->g : NULL;
}

/* Import the nodes of subgraph gp (outer values visible), the current node kept. */
static int run_subgraph(struct ox *x, const Onnx__GraphProto *gp)
{
    const Onnx__NodeProto *nd = x->node;
    int rc = ox_run_nodes(x, gp);
    x->node = nd;
    return rc;
}

/* A scalar condition or count input k as a number: 0, or -2 when it is not a constant with
 * a known value (ox_fail not called), LS_ERR_INPUT when it is not one element. */
static int scalar_in(struct ox *x, int k, double *out)
{
    struct ox_val *c = ox_in(x, k);
    if (!c || !c->konst || !c->vals)
        return -2;
    if (ox_numel(c) != 1)
        return ox_fail(x, "input %d ('%.100s') has %lld elements, expected one", k,
                       x->node->input[k], (long long)ox_numel(c));
    *out = c->vals[0];
    return 0;
}

int oxo_if(struct ox *x)
{
    double cond = 0;
    int rc = scalar_in(x, 0, &cond);
    if (rc == -2)
        return ox_fail(x, "the condition '%.100s' is not known at import time (it depends on "
                       "tensor values, not on shapes or constants); a graph input it reads "
                       "may be given a value with --input NAME=DIMS:VALUE",
                       x->node->n_input ? x->node->input[0] : "");
    if (rc)
        return rc;
    const char *which = cond != 0 ? "then_branch" : "else_branch";
    const Onnx__GraphProto *b = subgraph(x, which);
    if (!b)
        return ox_fail(x, "attribute '%s' (a graph) is missing", which);
    if (b->n_output < x->node->n_output)
        return ox_fail(x, "%s has %zu outputs, the node %zu", which, b->n_output,
                       x->node->n_output);
    if ((rc = run_subgraph(x, b)))
        return rc;
    for (size_t k = 0; k < x->node->n_output; k++)
        if ((rc = bind_from(x, (int)k, b->output[k]->name ? b->output[k]->name : "")))
            return rc;
    return 0;
}

/* ---- Loop ---- */

static void forget_name(struct ox *x, const char *name)
{
    int32_t id = name ? ls_intern_find(&x->names, name, strlen(name)) : -1;
    if (id >= 0) {
        free(x->vals[id].vals);
        memset(&x->vals[id], 0, sizeof x->vals[id]);
        x->vals[id].t = -1;
    }
}

/* Forget every value the body's nodes (and their subgraphs) produced, for the next pass
 * (its initializers stay: one weight for every iteration). */
static void forget(struct ox *x, const Onnx__GraphProto *gp)
{
    for (size_t i = 0; i < gp->n_node; i++) {
        const Onnx__NodeProto *nd = gp->node[i];
        for (size_t k = 0; k < nd->n_output; k++)
            forget_name(x, nd->output[k]);
        for (size_t a = 0; a < nd->n_attribute; a++)
            if (nd->attribute[a]->g)
                forget(x, nd->attribute[a]->g);
    }
}

struct loop {
    const Onnx__GraphProto *body;
    size_t ncarry, nscan;
    struct ox_val *carry;      /* ncarry values carried between iterations (owned) */
    int32_t *scan;             /* nscan * trips tensors */
    int64_t trips;
};

/* The trip count: M, or 0 when the initial condition is a constant false. */
static int loop_trips(struct ox *x, int64_t *trips)
{
    double m = 0, c = 1;
    int rm = scalar_in(x, 0, &m), rc = x->node->n_input > 1 ? scalar_in(x, 1, &c) : -1;
    if (rm == LS_ERR_INPUT || rc == LS_ERR_INPUT)
        return LS_ERR_INPUT;
    if (rm == -2 && ox_in(x, 0))
        return ox_fail(x, "the trip count '%.100s' is not known at import time (it depends "
                       "on tensor values); a graph input it reads may be given a value with "
                       "--input NAME=DIMS:VALUE", x->node->input[0]);
    if (rm == -2)
        return ox_fail(x, "a loop without a trip count (a while loop on a tensor condition) "
                       "cannot be unrolled");
    if (!(m >= 0 && m <= IMPORT_MAX_TRIPS))   /* NaN too */
        return ox_fail(x, "trip count %.0f: at most %d iterations are unrolled", m,
                       IMPORT_MAX_TRIPS);
    *trips = rc == 0 && c == 0 ? 0 : (int64_t)m;
    return 0;
}

/* One iteration i: bind the body inputs, import its nodes, keep the carried values and the
 * scan outputs; *stop when the body's condition output is a constant false. */
static int loop_step(struct ox *x, struct loop *l, int64_t i, int *stop)
{
    const Onnx__GraphProto *b = l->body;
    struct ox_val it = {.t = -1, .defined = 1, .konst = 1, .onnx_dt = 7}, on = it;
    double vi = (double)i, one = 1;
    it.vals = &vi;
    on.onnx_dt = 9;
    on.vals = &one;
    int rc = define(x, b->input[0]->name, &it);
    if (!rc)
        rc = define(x, b->input[1]->name, &on);
    for (size_t j = 0; j < l->ncarry && !rc; j++)
        rc = define(x, b->input[2 + j]->name, &l->carry[j]);
    if (!rc)
        rc = run_subgraph(x, b);
    for (size_t j = 0; j < l->ncarry && !rc; j++) {
        struct ox_val *o = ox_val(x, b->output[1 + j]->name);
        rc = !o || !o->defined ? ox_fail(x, "body output '%.100s' is not produced",
                                         b->output[1 + j]->name)
                               : copy_val(x, &l->carry[j], o);
    }
    for (size_t k = 0; k < l->nscan && !rc; k++) {
        struct ox_val *o = ox_val(x, b->output[1 + l->ncarry + k]->name);
        int32_t t = o && o->defined ? ox_tensor(x, o, -1) : -1;
        if (t < 0)
            return ox_fail(x, "scan output '%.100s' is not a tensor",
                           b->output[1 + l->ncarry + k]->name);
        l->scan[k * (size_t)l->trips + (size_t)i] = t;
    }
    struct ox_val *c = rc ? NULL : ox_val(x, b->output[0]->name);
    *stop = c && c->konst && c->vals && ox_numel(c) == 1 && c->vals[0] == 0;
    forget(x, b);
    return rc;
}

/* Scan output k: the per-iteration tensors stacked on a new axis 0. */
static int32_t loop_stack(struct ox *x, struct loop *l, size_t k, int64_t n)
{
    char buf[GRAPH_MAX_NAME + 1], sfx[32];
    int32_t *ts = &l->scan[k * (size_t)l->trips];
    for (int64_t i = 0; i < n; i++) {
        const struct graph_shape *s = &graph_tensor(x->g, ts[i])->shape;
        int64_t dims[GRAPH_MAX_RANK];
        if (s->rank >= GRAPH_MAX_RANK)
            return OX_FAIL_T(x, "scan output of rank %d (at most %d)", s->rank,
                             GRAPH_MAX_RANK - 1);
        dims[0] = 1;
        for (int d = 0; d < s->rank; d++)
            dims[d + 1] = s->dims[d].size;
        snprintf(sfx, sizeof sfx, ".scan%zu.%lld", k, (long long)i);
        ts[i] = graph_reshape(x->g, ox_name(x, sfx, buf, sizeof buf), ts[i], s->rank + 1, dims,
                              NULL);
        if (ts[i] < 0)
            return -1;
    }
    snprintf(sfx, sizeof sfx, ".scan%zu", k);
    return n == 1 ? ts[0] : graph_concat(x->g, ox_name(x, sfx, buf, sizeof buf), (int)n, ts, 0);
}

static int loop_run(struct ox *x, struct loop *l)
{
    for (size_t j = 0; j < l->ncarry; j++) {
        struct ox_val *v = ox_in(x, 2 + (int)j);
        if (!v)
            return ox_fail(x, "loop-carried input %zu is missing", j);
        if (v->konst && !v->vals && v->t < 0 && ox_tensor(x, v, -1) < 0)
            return LS_ERR_INPUT;   /* a weight named after the outer value */
        if (copy_val(x, &l->carry[j], v))
            return LS_ERR_NOMEM;
    }
    int64_t n = 0;
    int stop = 0, rc = 0;
    while (n < l->trips && !stop && !rc)
        rc = loop_step(x, l, n++, &stop);
    if (rc)
        return rc;
    if (n == 0 && l->nscan)
        return ox_fail(x, "a loop of zero iterations has empty scan outputs");
    for (size_t j = 0; j < l->ncarry && !rc; j++)
        rc = bind_val(x, (int)j, l->carry[j]);
    for (size_t k = 0; k < l->nscan && !rc; k++)
        rc = ox_bind(x, (int)(l->ncarry + k), loop_stack(x, l, k, n));
    return rc;
}

int oxo_loop(struct ox *x)
{
    struct loop l = {.body = subgraph(x, "body")};
    if (!l.body)
        return ox_fail(x, "attribute 'body' (a graph) is missing");
    size_t nin = x->node->n_input;
    l.ncarry = nin > 2 ? nin - 2 : 0;
    if (l.body->n_input != l.ncarry + 2 || l.body->n_output < l.ncarry + 1)
        return ox_fail(x, "the body has %zu inputs and %zu outputs for %zu carried values",
                       l.body->n_input, l.body->n_output, l.ncarry);
    l.nscan = l.body->n_output - 1 - l.ncarry;
    for (size_t i = 0; i < l.body->n_input + l.body->n_output; i++) {
        const Onnx__ValueInfoProto *v = i < l.body->n_input ? l.body->input[i]
                                                             : l.body->output[i - l.body->n_input];
        if (!v->name || !*v->name)
            return ox_fail(x, "a body input or output has no name");
    }
    int rc = loop_trips(x, &l.trips);
    if (rc)
        return rc;
    l.carry = calloc(l.ncarry ? l.ncarry : 1, sizeof *l.carry);
    l.scan = calloc(l.nscan * (size_t)l.trips + 1, sizeof *l.scan);
    rc = l.carry && l.scan ? loop_run(x, &l)
                           : ls_error_msg(x->err, LS_ERR_NOMEM, "out of memory");
    for (size_t j = 0; l.carry && j < l.ncarry; j++)
        free(l.carry[j].vals);
    free(l.carry);
    free(l.scan);
    return rc;
}
