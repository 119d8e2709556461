/* graph/import/tfjs_flow: TF `cond` blocks (v1 control flow: Switch/Merge) resolved at
 * import time. A Switch whose predicate is a constant passes its data to the taken port and
 * makes the other port dead; a node reading a dead value is dead itself (not lowered); a
 * Merge passes its one live input. A predicate computed from tensor values exits 2 naming
 * the Switch. While loops reuse Switch and Merge (tfjs_loop.c). */
#include <stdlib.h>
#include <string.h>

#include "tfjs_int.h"

int tf_input_dead(const struct tfjs *c, const struct tnode *n, int i)
{
    const struct tnode *p = &c->nodes[n->in[i]];
    return p->dead || p->dead_port == n->port[i] + 1;
}

int tf_merge_input(const struct tfjs *c, const struct tnode *n)
{
    const char *want = NULL;
    if (n->loop)
        want = c->loops[n->loop - 1].iter ? "NextIteration" : "Enter";
    for (int i = 0; i < n->nin; i++)
        if (want ? !strcmp(c->nodes[n->in[i]].op, want) : !tf_input_dead(c, n, i))
            return i;
    return -1;
}

int tf_node_dead(const struct tfjs *c, const struct tnode *n)
{
    if (!strcmp(n->op, "Merge")) {
        int i = tf_merge_input(c, n);
        return i < 0 || tf_input_dead(c, n, i);
    }
    for (int i = 0; i < n->nin; i++)
        if (tf_input_dead(c, n, i))
            return 1;
    return 0;
}

int tf_pass(struct tfjs *c, struct tnode *n, int k, const struct tv *x)
{
    struct tv *o = tf_out(c, n, k);
    if (!o)
        return c->rc;
    const char *nm = o->name;
    *o = *x;
    o->name = nm;
    if (x->vals) {
        int64_t m = tf_numel(x->rank, x->dims);
        o->vals = malloc((size_t)(m ? m : 1) * sizeof *o->vals);
        if (!o->vals)
            return c->rc = ls_error_msg(c->err, LS_ERR_NOMEM, "out of memory");
        memcpy(o->vals, x->vals, (size_t)m * sizeof *o->vals);
    }
    return 0;
}

/* Switch(data, pred): port 1 (true) or 0 (false) takes data, the other is dead. */
int tf_op_switch(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0), *p = tf_in(c, n, 1);
    if (!x || !p)
        return c->rc;
    if (!p->vals)
        return tf_fail(c, "the predicate is not known at import time (it depends on tensor "
                       "values); an input it reads may be given a value with "
                       "--input NAME=DIMS:VALUE");
    if (tf_numel(p->rank, p->dims) != 1)
        return tf_fail(c, "the predicate has %lld elements, expected one",
                       (long long)tf_numel(p->rank, p->dims));
    int live = p->vals[0] != 0;
    if (!tf_out(c, n, 1) || tf_pass(c, n, live, x))
        return c->rc;
    n->dead_port = (1 - live) + 1;
    return 0;
}

/* Merge: output 0 the one live input, output 1 its index. */
int tf_op_merge(struct tfjs *c, struct tnode *n)
{
    int i = tf_merge_input(c, n);
    if (i < 0 || tf_input_dead(c, n, i))
        return tf_fail(c, "every input is dead");
    struct tv *x = tf_in(c, n, i);
    double idx = i;
    int64_t scalar[1] = {1};   /* unused at rank 0 */
    if (!x || tf_pass(c, n, 0, x))
        return c->rc;
    return tf_set_value(c, n, 1, LS_DT_INT32, 0, scalar, &idx);
}
