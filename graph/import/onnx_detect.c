/* graph/import/onnx_detect: the data-dependent operators of detection post-processing,
 * bounded by their maximum size (as NonMaxSuppression is): NonZero as if every element were
 * nonzero, TopK as the first k plus the row maximum (the whole row is read), GatherND as one
 * gather of rows. Output shapes are the bounds; values are never computed. */
#include <string.h>

#include "onnx_int.h"
#include "onnx_ops.h"

/* NonZero(x): int64 [rank, numel] (every element nonzero): x flattened to a row, the row
 * repeated rank times, cast to the index type. */
int oxo_nonzero(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    if (t < 0)
        return -1;
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int r = s->rank;
    if (r < 1)
        return ox_fail(x, "a scalar input (rank 0) is not supported");
    int64_t d[GRAPH_MAX_RANK], flat[2] = {1, 1};
    oxo_dims_of(s, d);
    for (int i = 0; i < r; i++)
        flat[1] *= d[i];
    char nm[GRAPH_MAX_NAME + 1];
    int32_t f = oxo_reshape_to(x, t, 2, flat, ".flat"), rows[GRAPH_MAX_RANK];
    for (int i = 0; i < r; i++)
        rows[i] = f;
    if (f >= 0 && r > 1)
        f = graph_concat(x->g, ox_name(x, ".rows", nm, sizeof nm), r, rows, 0);
    return ox_bind(x, 0, f < 0 ? -1 : graph_cast(x->g, ox_name(x, "", nm, sizeof nm), f,
                                                 LS_DT_INT32));
}

/* TopK(x, k): values the first k along axis plus the row maximum, indices those cast. */
int oxo_topk(struct ox *x)
{
    int32_t t = oxo_req(x, 0);
    int64_t k;
    if (t < 0)
        return -1;
    if (ox_in_ints(x, 1, &k, 1) != 1)
        return ox_fail(x, "k must be a constant of one value");
    const struct graph_shape *s = &graph_tensor(x->g, t)->shape;
    int64_t a = ox_attr_i(x, "axis", -1);
    if (a < -s->rank || a >= s->rank)
        return ox_fail(x, "axis %lld out of range for rank %d", (long long)a, s->rank);
    int ax = (int)(a < 0 ? a + s->rank : a);
    if (k < 1 || k > s->dims[ax].size)
        return ox_fail(x, "k %lld out of range 1..%lld (axis %d)", (long long)k,
                       (long long)s->dims[ax].size, ax);
    char nm[GRAPH_MAX_NAME + 1];
    int axes[1] = {ax};
    int32_t mx = graph_reduce(x->g, ox_name(x, ".rowmax", nm, sizeof nm), GRAPH_OP_REDUCE_MAX, t,
                              1, axes, 1);
    int32_t first = graph_slice(x->g, ox_name(x, ".first", nm, sizeof nm), t, ax, 0, k, 1);
    int32_t v = mx < 0 || first < 0 ? -1 : graph_binary(x->g, ox_name(x, "", nm, sizeof nm),
                                                         GRAPH_OP_ADD, first, mx);
    if (ox_bind(x, 0, v))
        return -1;
    return ox_bind(x, 1, graph_cast(x->g, ox_name(x, ".indices", nm, sizeof nm), v,
                                    LS_DT_INT32));
}

/* GatherND(data, indices) with batch_dims 0: data's first q axes (q = indices' last dim)
 * merged by a reshape, one gather by indices' first column reshaped to indices' leading
 * shape: the output indices.shape[:-1] + data.shape[q:]. */
int oxo_gather_nd(struct ox *x)
{
    int32_t t = oxo_req(x, 0), ix = oxo_req(x, 1);
    if (t < 0 || ix < 0)
        return -1;
    if (ox_attr_i(x, "batch_dims", 0) != 0)
        return ox_fail(x, "batch_dims other than 0 is not supported");
    /* copies: the graph's tensor array moves as ops are added */
    const struct graph_shape ds = graph_tensor(x->g, t)->shape, is = graph_tensor(x->g, ix)->shape;
    int64_t q = is.rank ? is.dims[is.rank - 1].size : 0;
    if (is.rank < 1 || q < 1 || q > ds.rank || is.rank - 1 + ds.rank - q + 1 > GRAPH_MAX_RANK)
        return ox_fail(x, "indices of shape rank %d and last dim %lld for data of rank %d",
                       is.rank, (long long)q, ds.rank);
    int64_t d[GRAPH_MAX_RANK], lead[GRAPH_MAX_RANK];
    int r = 1;
    d[0] = 1;
    for (int i = 0; i < ds.rank; i++) {
        if (i < q)
            d[0] *= ds.dims[i].size;
        else
            d[r++] = ds.dims[i].size;
    }
    char nm[GRAPH_MAX_NAME + 1];
    int32_t table = oxo_reshape_to(x, t, r, d, ".rows");
    int32_t col = graph_slice(x->g, ox_name(x, ".col", nm, sizeof nm), ix, is.rank - 1, 0, 1, 1);
    int nl = is.rank - 1;
    oxo_dims_of(&is, lead);
    if (nl == 0)
        lead[nl++] = 1;
    int32_t ids = col < 0 ? -1 : oxo_reshape_to(x, col, nl, lead, ".ids");
    if (ids >= 0 && graph_tensor(x->g, ids)->dtype != LS_DT_INT32)
        ids = graph_cast(x->g, ox_name(x, ".ids32", nm, sizeof nm), ids, LS_DT_INT32);
    if (table < 0 || ids < 0)
        return -1;
    int32_t y = graph_gather(x->g, ox_name(x, is.rank == 1 ? ".one" : "", nm, sizeof nm), table,
                             ids, 0);
    if (y >= 0 && is.rank == 1) {   /* a single index: no leading axis */
        int64_t o[GRAPH_MAX_RANK];
        for (int i = 1; i < r; i++)
            o[i - 1] = d[i];
        y = oxo_reshape_to(x, y, r - 1, o, "");
    }
    return ox_bind(x, 0, y);
}

/* NonMaxSuppression(boxes [1,N,4], scores [1,C,N], M, ...): the pairwise IoU matrix boxes x
 * boxes^T, its row maxima, the first min(M, N) kept per class (as the TF.js importer does);
 * selected_indices [C*min(M,N), 3], the bound of the triples (batch, class, box). */
int oxo_nms(struct ox *x)
{
    int32_t b = oxo_req(x, 0), sc = oxo_req(x, 1);
    int64_t m = 0;
    if (b < 0 || sc < 0)
        return -1;
    if (ox_in(x, 2) && ox_in_ints(x, 2, &m, 1) != 1)
        return ox_fail(x, "max_output_boxes_per_class must be a constant of one value");
    const struct graph_shape bs = graph_tensor(x->g, b)->shape, ss = graph_tensor(x->g, sc)->shape;
    if (bs.rank != 3 || bs.dims[0].size != 1 || bs.dims[2].size != 4 || ss.rank != 3 ||
        ss.dims[0].size != 1 || ss.dims[2].size != bs.dims[1].size)
        return ox_fail(x, "expects boxes [1,N,4] and scores [1,C,N] (a batch of one)");
    int64_t n = bs.dims[1].size, c = ss.dims[1].size, nb = m < n ? m : n;
    if (nb < 1)
        return ox_fail(x, "max_output_boxes_per_class %lld selects no box", (long long)m);
    char nm[GRAPH_MAX_NAME + 1];
    int64_t d2[2] = {n, 4}, col[2] = {nb, 1};
    int32_t bt = oxo_reshape_to(x, b, 2, d2, ".boxes");
    int32_t iou = bt < 0 ? -1 : graph_matmul_axes(x->g, ox_name(x, ".iou", nm, sizeof nm), bt,
                                                   bt, 1, 1);
    int axes[1] = {1};
    int32_t best = iou < 0 ? -1 : graph_reduce(x->g, ox_name(x, ".best", nm, sizeof nm),
                                                GRAPH_OP_REDUCE_MAX, iou, 1, axes, 0);
    int32_t sel = best < 0 ? -1 : graph_slice(x->g, ox_name(x, ".first", nm, sizeof nm), best,
                                               0, 0, nb, 1);
    int32_t t = sel < 0 ? -1 : oxo_reshape_to(x, sel, 2, col, ".col"), parts[3] = {t, t, t};
    if (t >= 0)
        t = graph_concat(x->g, ox_name(x, ".triples", nm, sizeof nm), 3, parts, 1);
    int32_t per[GRAPH_MAX_INPUTS];
    for (int64_t k = 0; k < c && k < GRAPH_MAX_INPUTS; k++)
        per[k] = t;
    if (c > GRAPH_MAX_INPUTS)
        return ox_fail(x, "%lld classes (at most %d)", (long long)c, GRAPH_MAX_INPUTS);
    if (t >= 0 && c > 1)   /* one block of triples per class */
        t = graph_concat(x->g, ox_name(x, ".classes", nm, sizeof nm), (int)c, per, 0);
    return ox_bind(x, 0, t < 0 ? -1 : graph_cast(x->g, ox_name(x, "", nm, sizeof nm), t,
                                                 LS_DT_INT32));
}

/* RoiAlign(X [N,C,H,W], rois [R,4], batch_indices [R]): [R,C,oh,ow], the sampled pixels as
 * row gathers of X (axis 0 to R, H to oh, W to ow: the resize of nearest-neighbour index
 * tables); the bilinear taps and the box coordinates are not modelled. */
int oxo_roi_align(struct ox *x)
{
    int32_t t = oxo_req(x, 0), rois = oxo_req(x, 1);
    if (t < 0 || rois < 0)
        return -1;
    const struct graph_shape s = graph_tensor(x->g, t)->shape,
                             rs = graph_tensor(x->g, rois)->shape;
    int64_t oh = ox_attr_i(x, "output_height", 1), ow = ox_attr_i(x, "output_width", 1);
    if (s.rank != 4 || rs.rank != 2 || rs.dims[1].size != 4)
        return ox_fail(x, "expects X [N,C,H,W] and rois [R,4] (ranks %d and %d)", s.rank,
                       rs.rank);
    if (oh < 1 || ow < 1 || oh > GRAPH_MAX_DIM || ow > GRAPH_MAX_DIM)
        return ox_fail(x, "output size %lldx%lld out of range", (long long)oh, (long long)ow);
    int64_t out[4] = {rs.dims[0].size, s.dims[1].size, oh, ow};
    return ox_bind(x, 0, oxo_resize_to(x, t, out));
}
