/* graph: op kind names, arities and attribute defaults. */
#include "graph/graph_int.h"

#include <string.h>

static const char *const kind_names[GRAPH_OP_COUNT] = {
    [GRAPH_OP_SOURCE] = "source",         [GRAPH_OP_RETURN] = "return",
    [GRAPH_OP_MATMUL] = "matmul",         [GRAPH_OP_BATCH_MATMUL] = "batch_matmul",
    [GRAPH_OP_CONV2D] = "conv2d",         [GRAPH_OP_RELU] = "relu",
    [GRAPH_OP_GELU] = "gelu",             [GRAPH_OP_SILU] = "silu",
    [GRAPH_OP_EXP] = "exp",               [GRAPH_OP_TANH] = "tanh",
    [GRAPH_OP_SIGMOID] = "sigmoid",       [GRAPH_OP_RSQRT] = "rsqrt",
    [GRAPH_OP_COPY] = "copy",             [GRAPH_OP_CAST] = "cast",
    [GRAPH_OP_ADD] = "add",               [GRAPH_OP_SUB] = "sub",
    [GRAPH_OP_MUL] = "mul",               [GRAPH_OP_DIV] = "div",
    [GRAPH_OP_MAX] = "max",               [GRAPH_OP_REDUCE_SUM] = "reduce_sum",
    [GRAPH_OP_REDUCE_MAX] = "reduce_max", [GRAPH_OP_REDUCE_MEAN] = "reduce_mean",
    [GRAPH_OP_SOFTMAX] = "softmax",       [GRAPH_OP_LAYERNORM] = "layernorm",
    [GRAPH_OP_RMSNORM] = "rmsnorm",       [GRAPH_OP_BATCHNORM] = "batchnorm",
    [GRAPH_OP_TRANSPOSE] = "transpose",   [GRAPH_OP_RESHAPE] = "reshape",
    [GRAPH_OP_CONCAT] = "concat",         [GRAPH_OP_SLICE] = "slice",
    [GRAPH_OP_GATHER] = "gather",         [GRAPH_OP_POOL_MAX] = "pool_max",
    [GRAPH_OP_POOL_AVG] = "pool_avg",
};

static const char *const role_names[GRAPH_ROLE_COUNT] = {"input", "weight", "activation",
                                                          "output"};

static const char *const axis_kind_names[GRAPH_AXIS_COUNT] = {
    [GRAPH_AXIS_MAP] = "map",           [GRAPH_AXIS_BROADCAST] = "broadcast",
    [GRAPH_AXIS_CONTRACT] = "contract", [GRAPH_AXIS_REDUCE] = "reduce",
    [GRAPH_AXIS_NORMALIZE] = "normalize", [GRAPH_AXIS_WINDOW] = "window",
    [GRAPH_AXIS_SLICE] = "slice",       [GRAPH_AXIS_CONCAT] = "concat",
    [GRAPH_AXIS_INDEX] = "index",       [GRAPH_AXIS_SPLIT] = "split",
    [GRAPH_AXIS_MERGE] = "merge",       [GRAPH_AXIS_REGROUP] = "regroup",
    [GRAPH_AXIS_DROP] = "drop",
};

const char *graph_op_kind_name(enum graph_op_kind k)
{
    return (unsigned)k < GRAPH_OP_COUNT ? kind_names[k] : "?";
}

int graph_op_kind_parse(const char *s, size_t n, enum graph_op_kind *out)
{
    for (int k = 0; k < GRAPH_OP_COUNT; k++)
        if (strlen(kind_names[k]) == n && memcmp(kind_names[k], s, n) == 0) {
            *out = (enum graph_op_kind)k;
            return 0;
        }
    return -1;
}

const char *graph_role_name(enum graph_tensor_role r)
{
    return (unsigned)r < GRAPH_ROLE_COUNT ? role_names[r] : "?";
}

const char *graph_axis_kind_name(enum graph_axis_kind k)
{
    return (unsigned)k < GRAPH_AXIS_COUNT ? axis_kind_names[k] : "?";
}

int graph_kind_is_unary(enum graph_op_kind k)
{
    return k >= GRAPH_OP_RELU && k <= GRAPH_OP_CAST;
}

int graph_kind_is_binary(enum graph_op_kind k)
{
    return k >= GRAPH_OP_ADD && k <= GRAPH_OP_MAX;
}

int graph_kind_is_reduce(enum graph_op_kind k)
{
    return k >= GRAPH_OP_REDUCE_SUM && k <= GRAPH_OP_REDUCE_MEAN;
}

int graph_kind_is_compute(enum graph_op_kind k)
{
    return k > GRAPH_OP_RETURN && k < GRAPH_OP_COUNT;
}

int graph_kind_free_dtype(enum graph_op_kind k)
{
    return k == GRAPH_OP_MATMUL || k == GRAPH_OP_BATCH_MATMUL || k == GRAPH_OP_CONV2D ||
           k == GRAPH_OP_REDUCE_SUM || k == GRAPH_OP_REDUCE_MEAN;
}

int graph_kind_may_narrow(enum graph_op_kind k)
{
    return graph_kind_is_compute(k) && !graph_kind_free_dtype(k) && k != GRAPH_OP_CAST &&
           k != GRAPH_OP_RESHAPE && k != GRAPH_OP_CONCAT && k != GRAPH_OP_SLICE &&
           k != GRAPH_OP_GATHER;
}

static int is_float(enum ls_dtype d)
{
    return d == LS_DT_FP32 || d == LS_DT_BF16 || d == LS_DT_FP16 || d == LS_DT_FP8;
}

int graph_output_dtype_ok(enum graph_op_kind k, enum ls_dtype inferred, enum ls_dtype declared)
{
    if (inferred == declared || graph_kind_free_dtype(k))
        return 1;
    return graph_kind_may_narrow(k) && is_float(inferred) && is_float(declared) &&
           ls_dtype_size(declared) < ls_dtype_size(inferred);
}

void graph_kind_arity(enum graph_op_kind k, int *lo, int *hi)
{
    int a = 1, b = 1;
    if (k == GRAPH_OP_SOURCE)
        a = b = 0;
    else if (k == GRAPH_OP_MATMUL || k == GRAPH_OP_BATCH_MATMUL || k == GRAPH_OP_CONV2D ||
             graph_kind_is_binary(k) || k == GRAPH_OP_GATHER)
        a = b = 2;
    else if (k == GRAPH_OP_LAYERNORM || k == GRAPH_OP_BATCHNORM)
        b = 3;
    else if (k == GRAPH_OP_RMSNORM)
        b = 2;
    else if (k == GRAPH_OP_CONCAT)
        b = -1;
    *lo = a;
    *hi = b;
}

void graph_attrs_default(enum graph_op_kind k, const int *ranks, int ninputs,
                         struct graph_attrs *at)
{
    memset(at, 0, sizeof *at);
    int ra = ninputs > 0 ? ranks[0] : 0, rb = ninputs > 1 ? ranks[1] : 0;
    switch (k) {
    case GRAPH_OP_MATMUL:
        at->ncontract = 1;
        at->lhs_contract[0] = ra > 0 ? ra - 1 : 0;
        at->rhs_contract[0] = 0;
        break;
    case GRAPH_OP_BATCH_MATMUL:
        at->nbatch = ra - 2 > 0 ? ra - 2 : 1;
        if (at->nbatch > GRAPH_MAX_RANK)
            at->nbatch = GRAPH_MAX_RANK;
        for (int i = 0; i < at->nbatch; i++)
            at->lhs_batch[i] = at->rhs_batch[i] = i;
        at->ncontract = 1;
        at->lhs_contract[0] = ra > 0 ? ra - 1 : 0;
        at->rhs_contract[0] = rb >= 2 ? rb - 2 : 0;
        break;
    case GRAPH_OP_CONV2D:
        at->stride[0] = at->stride[1] = 1;
        at->dilation[0] = at->dilation[1] = 1;
        at->groups = 1;
        break;
    case GRAPH_OP_POOL_MAX:
    case GRAPH_OP_POOL_AVG:
        at->kernel[0] = at->kernel[1] = 2;
        at->stride[0] = at->stride[1] = 2;
        break;
    case GRAPH_OP_REDUCE_SUM:
    case GRAPH_OP_REDUCE_MAX:
    case GRAPH_OP_REDUCE_MEAN:
        at->naxes = 1;
        at->axes[0] = ra > 0 ? ra - 1 : 0;
        break;
    case GRAPH_OP_SOFTMAX:
    case GRAPH_OP_LAYERNORM:
    case GRAPH_OP_RMSNORM:
        at->axis = ra > 0 ? ra - 1 : 0;
        break;
    case GRAPH_OP_BATCHNORM:
        at->axis = 1;
        break;
    case GRAPH_OP_TRANSPOSE:
        for (int i = 0; i < ra && i < GRAPH_MAX_RANK; i++)
            at->perm[i] = ra - 1 - i;
        break;
    case GRAPH_OP_SLICE:
        at->step = 1;
        break;
    default:
        break;
    }
}
