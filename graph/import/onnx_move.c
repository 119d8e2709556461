/* graph/import/onnx_move: ONNX operators that only move or mask elements, lowered to the
 * IR's reshape/transpose/mul: DepthToSpace, SpaceToDepth (NCHW) and Trilu. */
#include <string.h>

#include "onnx_int.h"
#include "onnx_ops.h"

/* Reshape t to rank/dims, transpose by perm, reshape to rank 4 odims. */
static int32_t shuffle(struct ox *x, int32_t t, const int64_t *dims, const int *perm,
                       const int64_t *odims)
{
    char nm[GRAPH_MAX_NAME + 1];
    t = oxo_reshape_to(x, t, 6, dims, ".split");
    if (t >= 0)
        t = graph_transpose(x->g, ox_name(x, ".perm", nm, sizeof nm), t, perm);
    return t < 0 ? -1 : oxo_reshape_to(x, t, 4, odims, "");
}

/* DepthToSpace (modes DCR and CRD) and SpaceToDepth with block b on an NCHW input. */
int oxo_depth_space(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int64_t b = ox_attr_i(x, "blocksize", 0);
    if (s->rank != 4 || b < 1 || b > 1 << 16)
        return ox_fail(x, "expects an NCHW input and blocksize >= 1 (rank %d, blocksize %lld)",
                       s->rank, (long long)b);
    int64_t N = s->dims[0].size, C = s->dims[1].size, H = s->dims[2].size, W = s->dims[3].size;
    if (b * b > GRAPH_MAX_DIM / C || b > GRAPH_MAX_DIM / H || b > GRAPH_MAX_DIM / W)
        return ox_fail(x, "blocksize %lld makes a dim too large", (long long)b);
    if (!strcmp(x->node->op_type, "SpaceToDepth")) {
        if (H % b || W % b)
            return ox_fail(x, "spatial size %lldx%lld not divisible by blocksize %lld",
                           (long long)H, (long long)W, (long long)b);
        static const int p[6] = {0, 3, 5, 1, 2, 4};
        int64_t d[6] = {N, C, H / b, b, W / b, b}, o[4] = {N, C * b * b, H / b, W / b};
        return ox_bind(x, 0, shuffle(x, t, d, p, o));
    }
    if (C % (b * b))
        return ox_fail(x, "channels %lld not divisible by blocksize^2 (%lld)", (long long)C,
                       (long long)(b * b));
    char mode[8];
    int crd = ox_attr_s(x, "mode", mode, sizeof mode) && !strcmp(mode, "CRD");
    static const int dcr[6] = {0, 3, 4, 1, 5, 2}, crdp[6] = {0, 1, 4, 2, 5, 3};
    int64_t c = C / (b * b), o[4] = {N, c, H * b, W * b};
    int64_t dd[6] = {N, b, b, c, H, W}, dc[6] = {N, c, b, b, H, W};
    return ox_bind(x, 0, shuffle(x, t, crd ? dc : dd, crd ? crdp : dcr, o));
}

/* Trilu: the input times a 0/1 mask of its shape (a weight that exists for its shape: the
 * values are never computed, so which triangle is kept does not change the cost). */
int oxo_trilu(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const struct graph_tensor *tt = graph_tensor(x->g, t);
    if (tt->shape.rank < 2)
        return ox_fail(x, "input rank %d (at least 2)", tt->shape.rank);
    int64_t d[GRAPH_MAX_RANK];
    oxo_dims_of(&tt->shape, d);
    int32_t m = ox_block(x, ".mask", tt->dtype, tt->shape.rank, d);
    char nm[GRAPH_MAX_NAME + 1];
    return m < 0 ? -1 : ox_bind(x, 0, graph_binary(x->g, ox_name(x, "", nm, sizeof nm),
                                                   GRAPH_OP_MUL, t, m));
}
