/* graph/import/tfjs_list: TensorList and TensorArray ops (what while loops read and write)
 * resolved at import time. A list is a row of graph tensors (struct tlist), its value a
 * handle (struct tv.list); an index must fold to a constant; reading a slot never written
 * exits 2. A TensorArray's flow value is a constant 0 that only orders the ops. */
#include <stdlib.h>
#include <string.h>

#include "tfjs_int.h"

#define NOMEM(c) ((c)->rc = ls_error_msg((c)->err, LS_ERR_NOMEM, "out of memory"))

/* Output k of n: a new list of m unset slots. 0 or an error. */
static int new_list(struct tfjs *c, struct tnode *n, int k, int64_t m)
{
    if (m < 0 || m > GRAPH_MAX_INPUTS)
        return tf_fail(c, "a list of %lld elements (at most %d)", (long long)m,
                       GRAPH_MAX_INPUTS);
    struct tlist *l = realloc(c->lists, (size_t)(c->nlists + 1) * sizeof *l);
    if (!l)
        return NOMEM(c);
    c->lists = l;
    l = &c->lists[c->nlists];
    if (!(l->el = malloc((size_t)(m ? m : 1) * sizeof *l->el)))
        return NOMEM(c);
    l->n = (int)m;
    for (int i = 0; i < l->n; i++)
        l->el[i] = -1;
    struct tv *o = tf_out(c, n, k);
    if (!o)
        return c->rc;
    o->list = ++c->nlists;
    return 0;
}

/* The list input i of n names. NULL after an error. */
static struct tlist *list_in(struct tfjs *c, struct tnode *n, int i)
{
    struct tv *x = tf_in(c, n, i);
    if (x && !x->list)
        tf_fail(c, "input %d is not a TensorList or TensorArray", i);
    return x && x->list ? &c->lists[x->list - 1] : NULL;
}

/* The slot of list l that input i of n names (a constant). -1 after an error. */
static int slot(struct tfjs *c, struct tnode *n, struct tlist *l, int i)
{
    int64_t k;
    if (tf_ints(c, n, i, &k, 1) != 1)
        return c->rc ? -1 : (tf_fail(c, "the index must be one constant"), -1);
    if (k < 0 || k >= l->n)
        return tf_fail(c, "index %lld is outside a list of %d", (long long)k, l->n), -1;
    return (int)k;
}

/* Slots idx[0..m) of l take the rows of input i of n (row r to slot idx[r]). */
static int scatter(struct tfjs *c, struct tnode *n, struct tlist *l, const int64_t *idx,
                   int64_t m, int i)
{
    struct tv *x = tf_in(c, n, i);
    if (!x)
        return c->rc;
    if (x->rank < 2 || x->dims[0] != m)
        return tf_fail(c, "input %d: %lld rows of rank 1 or more expected", i, (long long)m);
    int rank = x->rank;
    int64_t d[GRAPH_MAX_RANK];
    memcpy(d, x->dims + 1, (size_t)(rank - 1) * sizeof *d);
    int32_t t = tf_mat(c, x, NULL);
    for (int64_t r = 0; r < m && t >= 0; r++) {
        if (idx[r] < 0 || idx[r] >= l->n)
            return tf_fail(c, "index %lld is outside a list of %d", (long long)idx[r], l->n);
        int32_t s = m > 1 ? graph_slice(c->g, tf_name(c, "row"), t, 0, r, r + 1, 1) : t;
        l->el[idx[r]] = graph_reshape(c->g, tf_name(c, NULL), s, rank - 1, d, NULL);
        if (l->el[idx[r]] < 0)
            return tf_set(c, n, 0, -1);
    }
    return t < 0 ? c->rc : 0;
}

static int flow_out(struct tfjs *c, struct tnode *n, int k)
{
    double zero = 0;
    int64_t none[1] = {1};
    return tf_set_value(c, n, k, LS_DT_FP32, 0, none, &zero);
}

static int pass_list(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    return x ? tf_pass(c, n, 0, x) : c->rc;
}

/* TensorListReserve(element_shape, num_elements); TensorArrayV3(size) -> handle, flow. */
static int op_reserve(struct tfjs *c, struct tnode *n)
{
    int v3 = !strcmp(n->op, "TensorArrayV3");
    int64_t m;
    if (tf_ints(c, n, v3 ? 0 : 1, &m, 1) != 1)
        return c->rc ? c->rc : tf_fail(c, "the size must be one constant");
    return new_list(c, n, 0, m) || (v3 && flow_out(c, n, 1)) ? c->rc : 0;
}

/* TensorListFromTensor(tensor, element_shape): a list of its rows. */
static int op_from_tensor(struct tfjs *c, struct tnode *n)
{
    struct tv *x = tf_in(c, n, 0);
    if (!x || new_list(c, n, 0, x->rank ? x->dims[0] : -1))
        return c->rc;
    struct tlist *l = &c->lists[c->nlists - 1];
    int64_t *idx = malloc((size_t)(l->n ? l->n : 1) * sizeof *idx);
    if (!idx)
        return NOMEM(c);
    for (int i = 0; i < l->n; i++)
        idx[i] = i;
    scatter(c, n, l, idx, l->n, 0);
    free(idx);
    return c->rc;
}

/* TensorArrayScatterV3(handle, indices, value, flow) -> flow. */
static int op_scatter(struct tfjs *c, struct tnode *n)
{
    struct tlist *l = list_in(c, n, 0);
    int64_t idx[GRAPH_MAX_INPUTS];
    int m = l ? tf_ints(c, n, 1, idx, GRAPH_MAX_INPUTS) : -1;
    if (m < 0)
        return c->rc ? c->rc : tf_fail(c, "the indices must be constants");
    return scatter(c, n, l, idx, m, 2) ? c->rc : flow_out(c, n, 0);
}

/* TensorListGetItem(handle, index, shape); TensorArrayReadV3(handle, index, flow). */
static int op_get(struct tfjs *c, struct tnode *n)
{
    struct tlist *l = list_in(c, n, 0);
    int k = l ? slot(c, n, l, 1) : -1;
    if (k < 0)
        return c->rc;
    if (l->el[k] < 0)
        return tf_fail(c, "element %d of the list is read before it is written", k);
    return tf_set(c, n, 0, l->el[k]);
}

/* TensorListSetItem(handle, index, item) -> handle; TensorArrayWriteV3(handle, index,
 * value, flow) -> flow. */
static int op_set(struct tfjs *c, struct tnode *n)
{
    struct tlist *l = list_in(c, n, 0);
    int k = l ? slot(c, n, l, 1) : -1;
    struct tv *x = k < 0 ? NULL : tf_in(c, n, 2);
    if (!x)
        return c->rc;
    if ((l->el[k] = tf_mat(c, x, NULL)) < 0)
        return c->rc;
    return strcmp(n->op, "TensorListSetItem") ? flow_out(c, n, 0) : pass_list(c, n);
}

/* TensorListStack(handle, shape); TensorArrayGatherV3(handle, indices, flow): the
 * elements (all, or those of the indices) stacked on a new axis 0. */
static int op_stack(struct tfjs *c, struct tnode *n)
{
    struct tlist *l = list_in(c, n, 0);
    int32_t ts[GRAPH_MAX_INPUTS];
    int64_t idx[GRAPH_MAX_INPUTS];
    int all = !strcmp(n->op, "TensorListStack");
    int m = !l ? -1 : all ? l->n : tf_ints(c, n, 1, idx, GRAPH_MAX_INPUTS);
    if (m < 0)
        return c->rc ? c->rc : tf_fail(c, "the indices must be constants");
    for (int i = 0; i < m; i++) {
        int64_t k = all ? i : idx[i];
        if (k < 0 || k >= l->n || l->el[k] < 0)
            return tf_fail(c, "element %lld of the list is not written", (long long)k);
        ts[i] = l->el[k];
    }
    return tf_set(c, n, 0, tf_stack(c, m, ts, 0));
}

/* TensorArraySizeV3(handle, flow); TensorListLength(handle). */
static int op_size(struct tfjs *c, struct tnode *n)
{
    struct tlist *l = list_in(c, n, 0);
    int64_t none[1] = {1};
    double m = l ? l->n : 0;
    return l ? tf_set_value(c, n, 0, LS_DT_INT32, 0, none, &m) : c->rc;
}

static const struct {
    const char *op;
    tf_lower_fn fn;
} list_ops[] = {
    {"TensorListReserve", op_reserve}, {"TensorArrayV3", op_reserve},
    {"TensorListFromTensor", op_from_tensor}, {"TensorArrayScatterV3", op_scatter},
    {"TensorListGetItem", op_get}, {"TensorArrayReadV3", op_get},
    {"TensorListSetItem", op_set}, {"TensorArrayWriteV3", op_set},
    {"TensorListStack", op_stack}, {"TensorArrayGatherV3", op_stack},
    {"TensorArraySizeV3", op_size}, {"TensorListLength", op_size},
};

tf_lower_fn tf_list_ops_find(const char *op)
{
    for (size_t i = 0; i < sizeof list_ops / sizeof *list_ops; i++)
        if (!strcmp(op, list_ops[i].op))
            return list_ops[i].fn;
    return NULL;
}
