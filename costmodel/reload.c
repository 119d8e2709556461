/* costmodel/reload: which run-ahead DMA loads reload bytes their group already loaded
 * (CM_PRICE_RELOAD, costmodel/costmodel.h). "dma_prefetch_share" discounts a constant's
 * load because the simulator streams it under the compute of earlier ops; an op that
 * loads the same piece of a weight again (a streamed operand, once per m-tile) does so
 * after its own instructions overwrote the first copy, so that load is the op's own time.
 * Both the pricing sink and a compiled program's price identify a load by its group and
 * its source extent: within a group, equal extents are the same bytes in either, since
 * every (tensor, layout) has HBM space of its own. */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "costmodel/costmodel.h"
#include "sim/sim.h"
#include "util/hash.h"

void cm_reload_track_init(struct cm_reload_track *r)
{
    memset(r, 0, sizeof *r);
}

void cm_reload_track_free(struct cm_reload_track *r)
{
    ls_hmap_free(&r->map);
    free(r->key);
    memset(r, 0, sizeof *r);
}

static uint64_t key_hash(const struct cm_reload_key *k)
{
    return ls_hash_mix64(ls_hash_mix64(ls_hash_mix64((uint64_t)(uint32_t)k->tag) ^ k->lo) ^
                         k->hi);
}

static uint64_t id_hash(const void *ctx, int32_t id)
{
    return key_hash(&((const struct cm_reload_track *)ctx)->key[id]);
}

static int id_eq(const void *ctx, int32_t id, const void *key)
{
    const struct cm_reload_key *a = &((const struct cm_reload_track *)ctx)->key[id], *b = key;
    return a->tag == b->tag && a->lo == b->lo && a->hi == b->hi;
}

static const struct ls_hmap_fns reload_fns = {id_hash, id_eq};

/* 1 when k was recorded before, 0 when it is new (now recorded), -1: out of memory. */
static int seen(struct cm_reload_track *r, const struct cm_reload_key *k)
{
    size_t n = r->map.n;
    if (n == r->cap) {   /* room for the key the put may add */
        size_t cap = r->cap ? 2 * r->cap : 64;
        struct cm_reload_key *nk = realloc(r->key, cap * sizeof *nk);
        if (!nk)
            return -1;
        r->key = nk;
        r->cap = cap;
    }
    int32_t id = ls_hmap_put(&r->map, key_hash(k), &reload_fns, r, k);
    if (id < 0)
        return -1;
    if ((size_t)id < n)
        return 1;
    r->key[id] = *k;
    return 0;
}

int cm_reload_track_add(struct cm_reload_track *r, const struct cm_table *tb,
                        const struct sim_target *t, int32_t tag, const struct sim_instr *in)
{
    uint64_t lo, hi;
    if (!tb->dma_prefetch || in->engine != LS_ENGINE_DMA || in->src.mem != LS_MEM_HBM ||
        !cg_dma_queue_runs_ahead(t, in->queue) || sim_operand_extent(&in->src, &lo, &hi))
        return 0;
    struct cm_reload_key k = {tag, lo, hi};
    int rc = seen(r, &k);
    return rc < 0 ? -1 : rc ? CM_PRICE_RELOAD : 0;
}

int cm_program_reload_flags(const struct cm_table *tb, const struct sim_target *t,
                            const struct sim_program *p, uint8_t *flags)
{
    if (!tb->dma_prefetch)
        return 0;
    struct cm_reload_track r;
    cm_reload_track_init(&r);
    size_t n = sim_program_count(p);
    struct sim_instr buf;
    int rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        const struct sim_instr *in = sim_program_get(p, i, &buf);
        int32_t tag = in->op_tag >= 0 ? in->op_tag : in->conv_tag;
        /* an untagged instruction is its own group: nothing before it in its group */
        int f = tag < 0 ? 0 : cm_reload_track_add(&r, tb, t, tag, in);
        if (f < 0)
            rc = LS_ERR_NOMEM;
        else
            flags[i] |= (uint8_t)f;
    }
    cm_reload_track_free(&r);
    return rc;
}
