/* codegen/memplan: the whole-program SBUF residency plan (see memplan.h). */
#include <stdlib.h>
#include <string.h>

#include "codegen/attn.h"
#include "codegen/cg_int.h"
#include "codegen/epi.h"
#include "codegen/memplan.h"
#include "util/invariant.h"
#include "util/vec.h"

#define GRAN 64 /* allocation granule, bytes per partition */
/* A tensor read within this many ops of its producer (a matmul's scores, a softmax's
 * probabilities) is short-lived: the top-down placement puts it at the top of the region,
 * away from the long-lived ones, so that their holes do not fragment the bottom. */
#define SHORT_SPAN 3
/* Plans (cg_memplan_build_capped): every tensor in all the layouts it keeps or not at all
 * (WHOLE); one that does not fit in its widest layout alone (PARTIAL); and long-lived
 * ones always in their widest alone (PARTIAL_LONG: a residual stream then takes one slot
 * for the whole layer, not one per layout). */
enum { WHOLE, PARTIAL, PARTIAL_LONG };
/* Candidate k (cg_memplan_build_plan) is variant k / 2, placed top-down when k is odd.
 * alias: a reshape's or transpose's output takes its input's bytes (alias_input_bytes). */
static const struct {
    int partial, alias;
    const char *name[2];         /* first-fit, top-down */
} variant[] = {
    {WHOLE, 0, {"whole, first-fit", "whole, top-down"}},
    {PARTIAL, 0, {"partial, first-fit", "partial, top-down"}},
    {PARTIAL_LONG, 0, {"partial-long, first-fit", "partial-long, top-down"}},
    {PARTIAL, 1, {"partial+alias, first-fit", "partial+alias, top-down"}},
    {PARTIAL_LONG, 1, {"partial-long+alias, first-fit", "partial-long+alias, top-down"}},
};
#define NVARIANTS (int)(sizeof variant / sizeof variant[0])

uint64_t cg_res_block_bytes(const struct graph *g, int32_t t, int pax)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    int64_t P = pax >= 0 ? x->shape.dims[pax].size : 1;
    return (uint64_t)(graph_shape_numel(&x->shape) / P) * ls_dtype_size(x->dtype);
}

uint64_t cg_res_slot_bytes(const struct graph *g, const struct sim_target *tg, int32_t t,
                           int pax)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    int64_t P = pax >= 0 ? x->shape.dims[pax].size : 1;
    uint64_t blocks = (uint64_t)cg_cdiv(P, tg->sbuf_partitions);
    return (blocks * cg_res_block_bytes(g, t, pax) + GRAN - 1) / GRAN * GRAN;
}

int cg_memplan_resident(const struct cg_memplan *p, int32_t t)
{
    return p && t >= 0 && t < p->ntensors && p->res[t].resident;
}

int cg_memplan_in_sbuf(const struct cg_memplan *p, const struct graph *g, int32_t t, int pax)
{
    if (!cg_memplan_resident(p, t))
        return 0;
    int li = cg_layout_index(g, t, pax);
    return li >= 0 && p->res[t].slot[li] != CG_NO_SLOT;
}

unsigned cg_memplan_sbuf_mask(const struct cg_memplan *p, const struct graph *g, int32_t t)
{
    if (!cg_memplan_resident(p, t))
        return 0;
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    unsigned mask = 0;
    for (int i = 0; i < l.n; i++)
        if (p->res[t].slot[i] != CG_NO_SLOT)
            mask |= 1u << i;
    return mask;
}

/* The output axis that input axis a of reshape or transpose op becomes, with each
 * partition's elements in the same order on both sides when a is the partition axis; -1
 * when there is none (a reshape's axis that does not map one to one, a transpose that
 * reorders the other axes). */
static int rows_kept_axis(const struct graph *g, int32_t op, int a)
{
    const struct graph_op *x = graph_op(g, op);
    if (a < 0)
        return -1;
    if (x->kind == GRAPH_OP_RESHAPE) {
        struct graph_axis m[GRAPH_MAX_RANK];
        graph_axis_map(g, op, 0, m);
        return m[a].kind == GRAPH_AXIS_MAP ? m[a].out : -1;
    }
    if (x->kind != GRAPH_OP_TRANSPOSE)
        return -1;
    int r = graph_tensor(g, x->output)->shape.rank, b = -1, prev = -1;
    for (int i = 0; i < r; i++)
        if (x->attrs.perm[i] == a)
            b = i;
    for (int i = 0; i < r; i++) {
        if (i == b)
            continue;
        if (x->attrs.perm[i] < prev)
            return -1;
        prev = x->attrs.perm[i];
    }
    return b;
}

/* A reshape whose every configuration keeps one axis on partitions (the default layouts
 * map one to one): each partition's elements keep their order, a copy per block. */
static int reshape_keeps_rows(const struct graph *g, int32_t op)
{
    const struct graph_op *x = graph_op(g, op);
    struct cg_layouts li, lo;
    cg_tensor_layouts(g, x->inputs[0], &li);
    cg_tensor_layouts(g, x->output, &lo);
    return lo.pax[0] >= 0 && rows_kept_axis(g, op, li.pax[0]) == lo.pax[0];
}

/* A standard conv2d (groups 1): its channel tiles are whole blocks of a resident image or
 * output, read and written in place (codegen/conv.c). Grouped and depthwise convs, whose
 * channel tiles start inside a block, lower through HBM. */
static int conv_in_place(const struct graph *g, int32_t op)
{
    const struct graph_op *x = graph_op(g, op);
    return x->attrs.groups <= 1;
}

/* Ops whose lowering reads and writes SBUF-resident tensors in place. */
static int in_place_op(const struct graph *g, int32_t op)
{
    enum graph_op_kind k = graph_op(g, op)->kind;
    if (k == GRAPH_OP_RESHAPE)
        return reshape_keeps_rows(g, op);
    if (k == GRAPH_OP_CONV2D)
        return conv_in_place(g, op);
    return k == GRAPH_OP_MATMUL || k == GRAPH_OP_BATCH_MATMUL || graph_kind_is_unary(k) ||
           graph_kind_is_binary(k) || k == GRAPH_OP_SOFTMAX || k == GRAPH_OP_LAYERNORM ||
           k == GRAPH_OP_RMSNORM || k == GRAPH_OP_TRANSPOSE || k == GRAPH_OP_BATCHNORM ||
           k == GRAPH_OP_POOL_MAX || k == GRAPH_OP_POOL_AVG;
}

/* Layouts kept on chip: those with at least half the partitions of the tensor's widest
 * layout (capped at one block). A layout with fewer rows wastes most of every engine and
 * would multiply the footprint (a [heads, seq, seq] tensor with heads on partitions holds
 * seq*seq elements per partition); a tensor in such a layout lives in HBM. */
int cg_memplan_keeps(const struct graph *g, const struct sim_target *tg, int32_t t, int pax)
{
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    const struct graph_tensor *x = graph_tensor(g, t);
    int64_t widest = 1, P = pax >= 0 ? x->shape.dims[pax].size : 1;
    for (int i = 0; i < l.n; i++)
        if (l.pax[i] >= 0 && x->shape.dims[l.pax[i]].size > widest)
            widest = x->shape.dims[l.pax[i]].size;
    return 2 * P >= cg_min(widest, tg->sbuf_partitions);
}

/* An elementwise consumer may read its input broadcast over the output's partition axis
 * (for some layout); compute engines cannot broadcast across partitions, so such a
 * tensor stays in HBM, where a DMA with partition stride 0 does it. */
static int may_read_broadcast(const struct graph *g, int32_t op, int slot)
{
    const struct graph_op *x = graph_op(g, op);
    if (x->kind == GRAPH_OP_MATMUL || x->kind == GRAPH_OP_BATCH_MATMUL ||
        x->kind == GRAPH_OP_RESHAPE || x->kind == GRAPH_OP_CONV2D)
        return 0;
    struct graph_axis map[GRAPH_MAX_RANK];
    int r = graph_axis_map(g, op, slot, map);
    const struct graph_tensor *in = graph_tensor(g, x->inputs[slot]);
    const struct graph_tensor *out = graph_tensor(g, x->output);
    for (int j = 0; j < out->shape.rank; j++) {
        if (out->shape.dims[j].size <= 1)
            continue;
        int covered = 0;
        for (int i = 0; i < r && !covered; i++)
            covered = (map[i].kind == GRAPH_AXIS_MAP || map[i].kind == GRAPH_AXIS_NORMALIZE ||
                       map[i].kind == GRAPH_AXIS_WINDOW) &&   /* a pooling window: read in place */
                      map[i].out == j && in->shape.dims[i].size > 1;
        if (!covered)
            return 1;
    }
    return 0;
}

/* Every layout pair converts on chip (PE or DVE transpose). */
static int converts_on_chip(const struct graph *g, const struct sim_target *tg,
                            const struct cg_options *o, int32_t t)
{
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    for (int i = 0; i < l.n; i++)
        for (int j = 0; j < l.n; j++)
            if (i != j &&
                (cg_memplan_keeps(g, tg, t, l.pax[i]) || cg_memplan_keeps(g, tg, t, l.pax[j])) &&
                !cg_conv_possible(g, tg, o, t, l.pax[i], l.pax[j], CG_CONV_PE) &&
                !cg_conv_possible(g, tg, o, t, l.pax[i], l.pax[j], CG_CONV_DVE))
                return 0;
    return 1;
}

/* The role of op in a fused attention group (codegen/attn.h), -1. The group reads Q, K
 * and V and writes ctx in place when they are resident. */
static int attn_role(const struct graph *g, const struct sim_target *tg, int32_t op)
{
    struct cg_attn a;
    return cg_attn_find(g, tg, op, &a);
}

static int eligible(const struct graph *g, const struct sim_target *tg,
                    const struct cg_options *o, int32_t t)
{
    const struct graph_tensor *x = graph_tensor(g, t);
    if (cg_epi_fused(g, t))
        return 0;   /* an epilogue chain's intermediate: never materialized */
    if (x->producer < 0 || !in_place_op(g, x->producer) ||
        attn_role(g, tg, x->producer) == 0 || attn_role(g, tg, x->producer) == 1)
        return 0;   /* a fused group's scores and probabilities are never materialized */
    for (size_t u = 0; u < x->nuses; u++) {
        int32_t op = x->uses[u].op;
        if (!in_place_op(g, op) || may_read_broadcast(g, op, x->uses[u].slot))
            return 0;
        if (graph_op(g, op)->kind == GRAPH_OP_CONV2D && x->uses[u].slot != 0)
            return 0;  /* a conv's weights are loaded from HBM */
    }
    return converts_on_chip(g, tg, o, t);
}

/* Bytes per partition of t's slots in the layouts of mask (bit i: layout index i). */
static uint64_t footprint(const struct graph *g, const struct sim_target *tg, int32_t t,
                          unsigned mask)
{
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    uint64_t n = 0;
    for (int i = 0; i < l.n; i++)
        if (mask >> i & 1)
            n += cg_res_slot_bytes(g, tg, t, l.pax[i]);
    return n;
}

/* The layouts t keeps on chip when its whole footprint fits (bit i: layout index i). */
static unsigned kept_layouts(const struct graph *g, const struct sim_target *tg, int32_t t)
{
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    unsigned mask = 0;
    for (int i = 0; i < l.n; i++)
        if (cg_memplan_keeps(g, tg, t, l.pax[i]))
            mask |= 1u << i;
    return mask;
}

/* When t's kept layouts do not fit together, its widest one alone (most rows on
 * partitions, the first of equals): the layout in which its engines do the most per
 * instruction. The others live in HBM. A function of t's shape only, like the plan. */
static unsigned widest_layout(const struct graph *g, int32_t t, unsigned mask)
{
    struct cg_layouts l;
    cg_tensor_layouts(g, t, &l);
    const struct graph_tensor *x = graph_tensor(g, t);
    int best = -1;
    int64_t rows = 0;
    for (int i = 0; i < l.n; i++) {
        int64_t r = l.pax[i] >= 0 ? x->shape.dims[l.pax[i]].size : 1;
        if (mask >> i & 1 && r > rows) {
            rows = r;
            best = i;
        }
    }
    return best < 0 ? 0 : 1u << best;
}

/* First-fit allocator over the resident region: live intervals sorted by start. */
struct span {
    uint64_t lo, hi;
    int32_t t;
};
typedef LS_VEC(struct span) span_vec;

static int first_fit(const span_vec *live, uint64_t region, uint64_t size, uint64_t *at)
{
    uint64_t cur = 0;
    for (size_t i = 0; i < live->len; i++) {
        if (live->data[i].lo >= cur + size)
            break;
        if (live->data[i].hi > cur)
            cur = live->data[i].hi;
    }
    if (cur + size > region)
        return -1;
    *at = cur;
    return 0;
}

/* The highest gap of the region that holds size bytes (sorted, disjoint spans). */
static int top_fit(const span_vec *live, uint64_t region, uint64_t size, uint64_t *at)
{
    int found = 0;
    uint64_t lo = 0;
    for (size_t i = 0; i <= live->len; i++) {
        uint64_t hi = i < live->len ? live->data[i].lo : region;
        if (hi >= lo + size) {
            *at = hi - size;
            found = 1;
        }
        if (i < live->len && live->data[i].hi > lo)
            lo = live->data[i].hi;
    }
    return found ? 0 : -1;
}

static int insert_span(span_vec *live, struct span s)
{
    if (LS_VEC_PUSH(live, s))
        return -1;
    size_t i = live->len - 1;
    while (i > 0 && live->data[i - 1].lo > s.lo) {
        live->data[i] = live->data[i - 1];
        i--;
    }
    live->data[i] = s;
    return 0;
}

struct builder {
    const struct graph *g;
    const struct sim_target *tg;
    struct cg_memplan *p;
    span_vec live;
    int32_t *owner;              /* per granule: the last tensor placed there, -1 */
    uint64_t high;               /* high-water mark of the placements */
    int top;                     /* 1: short-lived tensors placed from the top (top_fit) */
    int partial;                 /* PARTIAL_*: when a tensor keeps only its widest layout */
    int alias;                   /* 1: reshapes and transposes may alias (alias_input_bytes) */
    LS_VEC(int32_t) prev;
};

/* Place t at [at, at + size): record the earlier occupants of those bytes. */
static int place(struct builder *b, int32_t t, uint64_t at, uint64_t size, unsigned mask)
{
    struct cg_res *r = &b->p->res[t];
    r->resident = 1;
    r->prev_off = (uint32_t)b->prev.len;
    for (uint64_t k = at / GRAN; k < (at + size) / GRAN; k++) {
        int32_t o = b->owner[k];
        int seen = o < 0;
        for (size_t i = r->prev_off; i < b->prev.len && !seen; i++)
            seen = b->prev.data[i] == o;
        if (!seen && LS_VEC_PUSH(&b->prev, o))
            return -1;
        b->owner[k] = t;
    }
    r->nprev = (uint32_t)(b->prev.len - r->prev_off);
    if (at + size > b->high)
        b->high = at + size;
    struct cg_layouts l;
    cg_tensor_layouts(b->g, t, &l);
    uint64_t a = at;
    for (int i = 0; i < l.n; i++) {
        r->slot[i] = CG_NO_SLOT;
        if (!(mask >> i & 1))
            continue;
        r->slot[i] = a;
        a += cg_res_slot_bytes(b->g, b->tg, t, l.pax[i]);
    }
    return insert_span(&b->live, (struct span){at, at + size, t});
}

static void release_dead(struct builder *b, int32_t pos)
{
    size_t m = 0;
    for (size_t i = 0; i < b->live.len; i++)
        if (b->p->res[b->live.data[i].t].last >= pos)
            b->live.data[m++] = b->live.data[i];
    b->live.len = m;
}

static void live_ranges(const struct graph *g, const struct sim_target *tg, const int32_t *order,
                        struct cg_memplan *p)
{
    int32_t nops = graph_nops(g);
    for (int32_t i = 0; i < nops; i++)
        p->pos[order[i]] = i;
    for (int32_t t = 0; t < p->ntensors; t++) {
        const struct graph_tensor *x = graph_tensor(g, t);
        struct cg_res *r = &p->res[t];
        r->first = r->last = x->producer >= 0 ? p->pos[x->producer] : 0;
        for (size_t u = 0; u < x->nuses; u++) {
            int32_t op = x->uses[u].op;
            struct cg_attn a;   /* a fused group is emitted at its ctx op */
            if (cg_attn_find(g, tg, op, &a) >= 0)
                op = a.op[2];
            if (p->pos[op] > r->last)
                r->last = p->pos[op];
        }
        struct cg_epi c;   /* a chain's output is written by its matmul's step */
        if (x->producer >= 0 && cg_epi_find(g, x->producer, &c) > 0 && c.out == t)
            r->first = p->pos[c.op[0]];
    }
}

/* The tensor the step of op writes: its output, the chain's output for an epilogue
 * chain's matmul (the whole chain lowers there), -1 for the chain's later ops. */
static int32_t written_by(const struct graph *g, int32_t op)
{
    struct cg_epi c;
    int role = cg_epi_find(g, op, &c);
    if (role < 0)
        return graph_op(g, op)->output;
    return role == 0 ? c.out : -1;
}

/* The scores and probabilities of a fused attention group exist only in PSUM and the
 * step's buffers, tile by tile: neither resident nor spilled. */
static int fused_away(const struct graph *g, const struct sim_target *tg, int32_t op)
{
    struct cg_attn a;
    int role = cg_attn_find(g, tg, op, &a);
    return role == 0 || role == 1;
}

/* A place for t in the layouts of mask, else (partial plans) in its widest layout alone;
 * a long-lived tensor of a PARTIAL_LONG plan only ever in its widest. 1 and *kept, *at
 * set, or 0. */
static int fit(struct builder *b, int32_t t, unsigned mask, unsigned *kept, uint64_t *at)
{
    int longlived = b->p->res[t].last - b->p->res[t].first > SHORT_SPAN;
    int shortlived = b->top && !longlived;
    unsigned tries[2] = {mask, b->partial ? widest_layout(b->g, t, mask) : mask};
    if (b->partial == PARTIAL_LONG && longlived)
        tries[0] = tries[1];
    for (int k = 0; k < 2 && (k == 0 || tries[1] != tries[0]); k++) {
        uint64_t size = footprint(b->g, b->tg, t, tries[k]);
        if (size && (shortlived ? top_fit(&b->live, b->p->region, size, at)
                                : first_fit(&b->live, b->p->region, size, at)) == 0) {
            *kept = tries[k];
            return 1;
        }
    }
    return 0;
}

/* Alias plans: a reshape or transpose (at position pos) whose input u is resident and
 * read for the last time here puts its output t in u's bytes of a layout that keeps each
 * partition's elements in order (rows_kept_axis), t keeping that layout alone (the
 * lowering then copies nothing, codegen/move.c cg_lower_alias): *mask, *at set, u's span
 * leaves the live set. */
static int alias_input_bytes(struct builder *b, int32_t op, int32_t pos, int32_t t, unsigned *mask,
                         uint64_t *at)
{
    const struct graph *g = b->g;
    const struct graph_op *x = graph_op(g, op);
    int32_t u = x->inputs[0];
    if (!b->alias || x->output != t || !cg_memplan_resident(b->p, u) || b->p->res[u].last != pos)
        return 0;
    struct cg_layouts li;
    cg_tensor_layouts(g, u, &li);
    for (int i = 0; i < li.n; i++) {
        int ax = rows_kept_axis(g, op, li.pax[i]);
        int j = ax >= 0 ? cg_layout_index(g, t, ax) : -1;
        if (b->p->res[u].slot[i] == CG_NO_SLOT || j < 0 || !cg_memplan_keeps(g, b->tg, t, ax) ||
            cg_res_slot_bytes(g, b->tg, u, li.pax[i]) != cg_res_slot_bytes(g, b->tg, t, ax))
            continue;
        *mask = 1u << j;
        *at = b->p->res[u].slot[i];
        size_t n = 0;
        for (size_t k = 0; k < b->live.len; k++)
            if (b->live.data[k].t != u)
                b->live.data[n++] = b->live.data[k];
        b->live.len = n;
        return 1;
    }
    return 0;
}

static int plan_ops(struct builder *b, const struct cg_options *o, const int32_t *order)
{
    const struct graph *g = b->g;
    for (int32_t i = 0; i < graph_nops(g); i++) {
        release_dead(b, i);
        int32_t t = written_by(g, order[i]);
        if (cg_epi_fused(g, graph_op(g, order[i])->output)) {
            b->p->fused_tensors++;
            b->p->fused_bytes += (uint64_t)graph_shape_numel(
                                     &graph_tensor(g, graph_op(g, order[i])->output)->shape) *
                                 ls_dtype_size(graph_tensor(g, graph_op(g, order[i])->output)->dtype);
        }
        if (t < 0)
            continue;
        uint64_t whole = (uint64_t)graph_shape_numel(&graph_tensor(g, t)->shape) *
                         ls_dtype_size(graph_tensor(g, t)->dtype);
        uint64_t at;
        unsigned mask = 0;
        int ok = eligible(g, b->tg, o, t), aliased = 0;
        if (ok && (aliased = alias_input_bytes(b, order[i], i, t, &mask, &at), aliased ||
                   fit(b, t, kept_layouts(g, b->tg, t), &mask, &at))) {
            if (place(b, t, at, footprint(g, b->tg, t, mask), mask))
                return -1;
            b->p->res[t].aliased = aliased;
            b->p->aliased_tensors += aliased;
            b->p->partial_tensors += mask != kept_layouts(g, b->tg, t);
            b->p->resident_tensors++;
            b->p->resident_bytes += whole;
        } else if (fused_away(g, b->tg, order[i])) {
            b->p->fused_tensors++;
            b->p->fused_bytes += whole;
        } else if (graph_op(g, order[i])->kind != GRAPH_OP_SOURCE) {
            b->p->spilled_tensors++;
            b->p->spilled_bytes += whole;
        }
    }
    return 0;
}

int cg_memplan_build(const struct graph *g, const struct sim_target *t,
                     const struct cg_options *o, struct cg_memplan *p, struct ls_error *err)
{
    return cg_memplan_build_capped(g, t, o, t->sbuf_usable_bytes / 2, p, err);
}

/* A resident tensor's bytes [lo, hi) per partition: its kept layouts' slots, side by side. */
struct held {
    int32_t first, last;
    uint64_t lo, hi;
};

static int by_first(const void *a, const void *b)
{
    const struct held *x = a, *y = b;
    return (x->first > y->first) - (x->first < y->first);
}

int cg_memplan_check(const struct graph *g, const struct sim_target *tg,
                     const struct cg_memplan *p, struct ls_error *err)
{
    struct held *h = malloc(sizeof *h * ((size_t)p->ntensors + 1));
    if (!h)
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    size_t n = 0;
    int ok = ALWAYS(p->region <= tg->sbuf_usable_bytes);
    for (int32_t t = 0; t < p->ntensors && ok; t++) {
        const struct cg_res *r = &p->res[t];
        if (!r->resident)
            continue;
        struct cg_layouts l;
        cg_tensor_layouts(g, t, &l);
        struct held x = {r->first, r->last, UINT64_MAX, 0};
        for (int i = 0; i < l.n; i++)
            if (r->slot[i] != CG_NO_SLOT) {
                uint64_t end = r->slot[i] + cg_res_slot_bytes(g, tg, t, l.pax[i]);
                x.lo = r->slot[i] < x.lo ? r->slot[i] : x.lo;
                x.hi = end > x.hi ? end : x.hi;
            }
        ok = ALWAYS(r->first <= r->last) && ALWAYS(x.hi <= p->region);
        if (!r->aliased && x.lo < x.hi)
            h[n++] = x;
    }
    qsort(h, n, sizeof *h, by_first);
    for (size_t i = 0; i < n && ok; i++)
        for (size_t j = i + 1; j < n && h[j].first <= h[i].last && ok; j++)
            ok = !NEVER(h[j].lo < h[i].hi && h[i].lo < h[j].hi);
    free(h);
    return ok ? 0 : LS_INTERNAL(err, "memory plan: a slot outside the region or two live tensors "
                                     "in the same bytes");
}

/* One placement: first fit, or (top) short-lived tensors from the top of the region. */
static int build_placement(const struct graph *g, const struct sim_target *t,
                           const struct cg_options *o, uint64_t cap, int top, int v,
                           struct cg_memplan *p, struct ls_error *err)
{
    memset(p, 0, sizeof *p);
    p->ntensors = graph_ntensors(g);
    p->region = cap / GRAN * GRAN;
    p->candidate = variant[v].name[top ? 1 : 0];
    int32_t nops = graph_nops(g);
    struct builder b = {g, t, p, {0}, NULL, 0, top, variant[v].partial, variant[v].alias, {0}};
    int32_t *order = malloc(sizeof *order * ((size_t)nops + 1));
    p->res = calloc((size_t)p->ntensors + 1, sizeof *p->res);
    p->pos = malloc(sizeof *p->pos * ((size_t)nops + 1));
    b.owner = malloc(sizeof *b.owner * (p->region / GRAN + 1));
    int rc = 0;
    if (!order || !p->res || !p->pos || !b.owner) {
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
        goto done;
    }
    for (uint64_t k = 0; k <= p->region / GRAN; k++)
        b.owner[k] = -1;
    if ((rc = graph_topo_order(g, order, err)))
        goto done;
    live_ranges(g, t, order, p);
    if (plan_ops(&b, o, order))
        rc = ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    p->region = b.high;  /* the steps' scratch gets the rest */
    p->prev = b.prev.data;
    b.prev.data = NULL;
    if (!rc)
        rc = cg_memplan_check(g, t, p, err);
done:
    free(order);
    free(b.owner);
    LS_VEC_FREE(&b.live);
    LS_VEC_FREE(&b.prev);
    if (rc)
        cg_memplan_free(p);
    return rc;
}

/* First fit leaves holes that a large short-lived tensor (vit-b16's probabilities beside
 * its scores) may not fit in; the top-down placement avoids them but reaches the cap, which
 * takes SBUF from the steps and the constant ring. Keeping tensors in their widest layout
 * alone (PARTIAL, PARTIAL_LONG; only with CG_MEMPLAN_PARTIAL, docs/costmodel.md "Partial
 * keeps") puts long sequences' residual streams and FFN activations on chip (whisper-enc),
 * but may push later tensors out. So the first-fit plan of whole tensors is the first, and
 * another (top-down or not, by partial mode) is kept only when it spills fewer bytes. */
int cg_memplan_build_capped(const struct graph *g, const struct sim_target *t,
                            const struct cg_options *o, uint64_t cap, struct cg_memplan *p,
                            struct ls_error *err)
{
    int rc = build_placement(g, t, o, cap, 0, WHOLE, p, err);
    int plans = cg_memplan_nplans(o);
    for (int k = 1; k < plans && !rc && p->spilled_bytes > 0; k++) {
        struct cg_memplan alt;
        if ((rc = build_placement(g, t, o, cap, k & 1, k / 2, &alt, err))) {
            cg_memplan_free(p);
            return rc;
        }
        if (alt.spilled_bytes < p->spilled_bytes) {
            cg_memplan_free(p);
            *p = alt;
        } else {
            cg_memplan_free(&alt);
        }
    }
    return rc;
}

int cg_memplan_nplans(const struct cg_options *o)
{
    return o && o->memplan == CG_MEMPLAN_PARTIAL ? 2 * NVARIANTS : 2;
}

int cg_memplan_build_plan(const struct graph *g, const struct sim_target *t,
                          const struct cg_options *o, int k, struct cg_memplan *p,
                          struct ls_error *err)
{
    return build_placement(g, t, o, t->sbuf_usable_bytes / 2, k & 1, k / 2, p, err);
}

void cg_memplan_free(struct cg_memplan *p)
{
    free(p->res);
    free(p->prev);
    free(p->pos);
    memset(p, 0, sizeof *p);
}
