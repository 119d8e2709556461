/* graph/import/tfjs_loop: TF while loops (v1 control flow) unrolled at import time. A
 * loop's frame is its Enter nodes (run once, before it) and the nodes their values reach
 * up to its Exit nodes: Merge, LoopCond, Switch, the body and NextIteration. The whole
 * frame is lowered once per iteration: a Merge passes its Enter input on the first
 * iteration and its NextIteration input after; the LoopCond's value must fold to a
 * constant (a trip count known at import time; of `known && data`, the known part: unrolled
 * to the maximum), and while it is true the Switch nodes pass
 * their values to the body, then to the Exit nodes. A condition that depends on tensor
 * values, more than IMPORT_MAX_TRIPS iterations, or a loop inside a loop exit 2 naming the
 * node. */
#include <stdlib.h>
#include <string.h>

#include "tfjs_int.h"
#include "unroll.h"


#define NOMEM(c) ((c)->rc = ls_error_msg((c)->err, LS_ERR_NOMEM, "out of memory"))

static const char *frame_of(const struct tnode *n)
{
    json_t *a = json_object_get(json_object_get(n->j, "attr"), "frame_name");
    const char *s = json_string_value(json_object_get(a, "s"));
    return s ? s : "";
}

static int is_op(const struct tnode *n, const char *op)
{
    return !strcmp(n->op, op);
}

/* Users of every node (data inputs): start[i]..start[i+1] in *users. */
static int users_of(struct tfjs *c, int32_t **start, int32_t **users)
{
    int32_t *s = calloc(c->n + 1, sizeof *s), *fill = calloc(c->n + 1, sizeof *fill);
    size_t m = 0;
    for (size_t i = 0; s && i < c->n; i++)
        for (int k = 0; k < c->nodes[i].nin; k++)
            s[c->nodes[i].in[k] + 1]++, m++;
    int32_t *u = malloc((m ? m : 1) * sizeof *u);
    if (!s || !fill || !u) {
        free(s), free(fill), free(u);
        return NOMEM(c);
    }
    for (size_t i = 0; i < c->n; i++)
        s[i + 1] += s[i];
    for (size_t i = 0; i < c->n; i++)
        for (int k = 0; k < c->nodes[i].nin; k++) {
            int32_t p = c->nodes[i].in[k];
            u[s[p] + fill[p]++] = (int32_t)i;
        }
    free(fill);
    *start = s, *users = u;
    return 0;
}

/* The frame of Enter node e (every Enter of the same frame_name): marks and lists it. */
static int add_frame(struct tfjs *c, size_t e, const int32_t *start, const int32_t *users,
                     int32_t *stack)
{
    struct tloop *l = realloc(c->loops, (size_t)(c->nloops + 1) * sizeof *l);
    if (!l)
        return NOMEM(c);
    c->loops = l;
    l = &c->loops[c->nloops++];
    memset(l, 0, sizeof *l);
    l->cond = -1;
    if (!(l->mem = malloc(c->n * sizeof *l->mem)))
        return NOMEM(c);
    int id = c->nloops, sp = 0;
    const char *frame = frame_of(&c->nodes[e]);
    for (size_t i = e; i < c->n; i++)
        if (is_op(&c->nodes[i], "Enter") && !strcmp(frame_of(&c->nodes[i]), frame))
            c->nodes[i].loop = -id, stack[sp++] = (int32_t)i;   /* -id: this frame's Enter */
    while (sp && !c->rc) {
        int32_t v = stack[--sp];
        for (int32_t k = start[v]; k < start[v + 1]; k++) {
            struct tnode *u = &c->nodes[users[k]];
            c->cur = users[k];
            if (u->loop == id || u->loop == -id)
                continue;
            if (u->loop || is_op(u, "Enter"))
                return tf_fail(c, "a while loop inside a while loop is not unrolled");
            u->loop = id;
            l->mem[l->nmem++] = users[k];
            if (is_op(u, "LoopCond") && l->cond >= 0)
                return tf_fail(c, "a while loop with a second LoopCond");
            l->cond = is_op(u, "LoopCond") ? users[k] : l->cond;
            if (!is_op(u, "Exit"))
                stack[sp++] = users[k];
        }
    }
    c->cur = (int32_t)e;
    if (!c->rc && l->cond < 0)
        return tf_fail(c, "a while loop's frame without a LoopCond");
    return c->rc;
}

int tf_loops_find(struct tfjs *c)
{
    int32_t *start = NULL, *users = NULL, *stack = malloc((c->n ? c->n : 1) * sizeof *stack);
    if (!stack)
        return NOMEM(c);
    if (!users_of(c, &start, &users))
        for (size_t i = 0; i < c->n && !c->rc; i++)
            if (is_op(&c->nodes[i], "Enter") && !c->nodes[i].loop)
                add_frame(c, i, start, users, stack);
    for (size_t i = 0; i < c->n; i++)   /* Enter nodes are lowered as ordinary nodes */
        c->nodes[i].loop = c->nodes[i].loop < 0 ? 0 : c->nodes[i].loop;
    free(start), free(users), free(stack);
    return c->rc;
}

void tf_loops_free(struct tfjs *c)
{
    for (int i = 0; i < c->nloops; i++)
        free(c->loops[i].mem);
    for (int i = 0; i < c->nlists; i++)
        free(c->lists[i].el);
    free(c->loops), free(c->lists);
}

int tf_loop_back_edge(const struct tfjs *c, int32_t node, int k)
{
    const struct tnode *n = &c->nodes[node];
    return n->loop && is_op(n, "Merge") && is_op(&c->nodes[n->in[k]], "NextIteration");
}

/* An Exit waits for every other node of its loop. */
int tf_loop_extra(const struct tfjs *c, int32_t node)
{
    const struct tnode *n = &c->nodes[node];
    if (!n->loop || !is_op(n, "Exit"))
        return 0;
    const struct tloop *l = &c->loops[n->loop - 1];
    int m = 0;
    for (int i = 0; i < l->nmem; i++)
        m += !is_op(&c->nodes[l->mem[i]], "Exit");
    return m;
}

void tf_loop_release(const struct tfjs *c, int32_t v, int32_t *deg, int32_t *ord,
                     size_t *tail)
{
    const struct tnode *n = &c->nodes[v];
    if (!n->loop || is_op(n, "Exit"))
        return;
    const struct tloop *l = &c->loops[n->loop - 1];
    for (int i = 0; i < l->nmem; i++)
        if (is_op(&c->nodes[l->mem[i]], "Exit") && --deg[l->mem[i]] == 0)
            ord[(*tail)++] = l->mem[i];
}

/* Forget node n's outputs (a new iteration lowers it again). */
static void reset(struct tnode *n)
{
    for (int k = 0; k < n->nout; k++)
        free(n->out[k].vals);
    n->nout = 0;
    n->done = n->dead = n->dead_port = 0;
}

int tf_loop_run(struct tfjs *c, int loop, const int32_t *ord)
{
    struct tloop *l = &c->loops[loop];
    int32_t *seq = malloc((size_t)(l->nmem ? l->nmem : 1) * sizeof *seq);
    int m = 0;
    if (!seq)
        return NOMEM(c);
    for (size_t i = 0; i < c->n; i++)
        if (c->nodes[ord[i]].loop == loop + 1)
            seq[m++] = ord[i];
    for (l->iter = 0; !c->rc; l->iter++) {
        for (int k = 0; k < m && !c->rc; k++) {
            reset(&c->nodes[seq[k]]);
            tf_lower_node(c, seq[k]);
        }
        const struct tnode *cond = &c->nodes[l->cond];
        if (c->rc || cond->dead || !cond->out[0].vals[0])
            break;
        if (l->iter >= IMPORT_MAX_TRIPS) {   /* a body run more than the bound */
            c->cur = l->cond;
            tf_fail(c, "the while loop runs more than %d iterations (each one is a copy of "
                       "its body in the IR)", IMPORT_MAX_TRIPS);
        }
    }
    free(seq);
    return c->rc;
}

/* Enter, Exit, NextIteration: pass input 0. */
static int op_pass(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    return !x ? c->rc : tf_pass(c, n, 0, x);
}

/* The known value of a conjunct of a LogicalAnd condition (a counter against a constant
 * maximum) when the other one depends on data; NULL when none. */
static const struct tv *bounding_conjunct(const struct tfjs *c, const struct tnode *n)
{
    const struct tnode *a = &c->nodes[n->in[0]];
    if (strcmp(a->op, "LogicalAnd") || a->nin != 2)
        return NULL;
    for (int i = 0; i < 2; i++) {
        const struct tnode *p = &c->nodes[a->in[i]];
        const struct tv *v = a->port[i] < p->nout ? &p->out[a->port[i]] : NULL;
        if (v && v->vals && tf_numel(v->rank, v->dims) == 1)
            return v;
    }
    return NULL;
}

/* LoopCond: the loop's condition, which must fold to one value; a condition `known &&
 * data` (an early exit on data bounded by a maximum count) takes the known part: the loop
 * is unrolled to its maximum, as the detection ops are bounded by their maximum size. */
static int op_loop_cond(struct tfjs *c, struct tnode *n)
{
    const struct tv *x = tf_in(c, n, 0), *k = NULL;
    if (!x)
        return c->rc;
    if (!x->vals && (k = bounding_conjunct(c, n)))
        x = k;
    if (!x->vals || tf_numel(x->rank, x->dims) != 1)
        return tf_fail(c, "the while loop's condition is not known at import time (it "
                       "depends on tensor values): only loops whose trip count, or a maximum "
                       "of it (`i < max && ...`), folds to a constant are unrolled; an input "
                       "it reads may be given a value with --input NAME=DIMS:VALUE");
    return tf_pass(c, n, 0, x);
}

static const struct {
    const char *op;
    tf_lower_fn fn;
} loop_ops[] = {
    {"Enter", op_pass}, {"Exit", op_pass}, {"NextIteration", op_pass},
    {"LoopCond", op_loop_cond},
};

tf_lower_fn tf_loop_ops_find(const char *op)
{
    for (size_t i = 0; i < sizeof loop_ops / sizeof *loop_ops; i++)
        if (!strcmp(op, loop_ops[i].op))
            return loop_ops[i].fn;
    return tf_list_ops_find(op);
}
