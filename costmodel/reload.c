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

void cm_reload_track_init(struct cm_reload_track *r)
{
    memset(r, 0, sizeof *r);
}

void cm_reload_track_free(struct cm_reload_track *r)
{
    free(r->key);
    memset(r, 0, sizeof *r);
}

static uint64_t mix(uint64_t h, uint64_t v)
{
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

/* Inserts k (non-zero) into the open-addressing set: 1 if it was there, 0 if not, -1. */
static int insert(struct cm_reload_track *r, uint64_t k)
{
    if (2 * (r->n + 1) > r->cap) {
        size_t cap = r->cap ? 2 * r->cap : 64;
        uint64_t *nk = calloc(cap, sizeof *nk);
        if (!nk)
            return -1;
        for (size_t i = 0; i < r->cap; i++)
            for (size_t j = r->key[i] % cap; r->key[i]; j = (j + 1) % cap)
                if (!nk[j]) {
                    nk[j] = r->key[i];
                    break;
                }
        free(r->key);
        r->key = nk;
        r->cap = cap;
    }
    size_t j = k % r->cap;
    for (; r->key[j]; j = (j + 1) % r->cap)
        if (r->key[j] == k)
            return 1;
    r->key[j] = k;
    r->n++;
    return 0;
}

int cm_reload_track_add(struct cm_reload_track *r, const struct cm_table *tb,
                        const struct sim_target *t, int32_t tag, const struct sim_instr *in)
{
    uint64_t lo, hi;
    if (!tb->dma_prefetch || in->engine != LS_ENGINE_DMA || in->src.mem != LS_MEM_HBM ||
        !cg_dma_queue_runs_ahead(t, in->queue) || sim_operand_extent(&in->src, &lo, &hi))
        return 0;
    uint64_t k = mix(mix(mix(1, (uint64_t)(uint32_t)tag), lo), hi);
    int rc = insert(r, k ? k : 1);
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
