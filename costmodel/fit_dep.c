/* costmodel/fit_dep: the dependency latency of a table (struct cm_table: dep), measured
 * from runs instead of fitted. A vector instruction that depends on its engine's previous
 * instruction waits for that one's write and its own read; in a trace that wait is the gap
 * between the previous instruction's end and its start. The gaps of instructions that had
 * nothing else to wait for are the latency itself, and those that waited for something
 * else (a DMA, another engine) only add larger gaps, so a low quantile of the gaps is the
 * latency. Program totals cannot pin it: fitted together with the table's scales, it
 * trades against them (docs/history.md, "The dependency latency, measured"). */
#include <math.h>
#include <stdlib.h>

#include "costmodel/calibrate.h"
#include "util/vec.h"
#include "util/order.h"

#define NE LS_ENGINE_COUNT
/* Gaps an engine (or the tiny extra) needs before its latency counts as measured. */
#define CM_DEP_MIN_GAPS 16
/* The quantile taken: the floor of the gaps, robust to a few early or clipped records. */
#define CM_DEP_QUANTILE 0.1

static int is_vector(int e)
{
    return e == LS_ENGINE_ACT || e == LS_ENGINE_DVE || e == LS_ENGINE_POOL;
}

int cm_groups_add_gaps(struct cm_groups *g, const struct cm_parts *parts,
                       const struct trace_record *rec, const int32_t *tag, size_t n,
                       uint64_t tick_mhz, uint32_t base_mhz)
{
    size_t last[NE];
    for (int e = 0; e < NE; e++)
        last[e] = SIZE_MAX;
    double base_per_tick = (double)base_mhz / (double)(tick_mhz ? tick_mhz : 1);
    for (size_t i = 0; i < n; i++) {
        const struct cm_parts *p = &parts[i];
        int e = p->engine;
        if (e >= NE)
            continue;
        size_t j = last[e];
        last[e] = i;
        /* the dep bit names the previous instruction of the engine in the same group */
        if (!is_vector(e) || !(p->dep & CM_DEP) || j == SIZE_MAX || tag[j] != tag[i] ||
            tag[i] < 0 || p->cyc <= 0)
            continue;
        double ticks = rec[i].start > rec[j].end ? (double)(rec[i].start - rec[j].end) : 0;
        if (LS_ARRAY_RESERVE(g->gap, g->capgap, g->ngap + 1))
            return LS_ERR_NOMEM;
        g->gap[g->ngap++] = (struct cm_dep_gap){
            .engine = (uint8_t)e, .tiny = (p->dep & CM_DEP_TINY) != 0,
            .cycles = (float)(ticks * base_per_tick / p->cyc)};
    }
    return 0;
}

/* The low quantile of v (n >= 1), rounded to whole engine cycles (a trace's clock rounds
 * every start and end; latencies are whole cycles). */
static double floor_of(double *v, size_t n)
{
    qsort(v, n, sizeof *v, ls_cmp_double);
    return (double)lround(v[(size_t)(CM_DEP_QUANTILE * (double)(n - 1))]);
}

size_t cm_groups_dep_measure(const struct cm_groups *g, double *dep)
{
    double *v = malloc(sizeof *v * (g->ngap + 1)), measured[NE + 1];
    int have[NE + 1] = {0};
    size_t used = 0;
    if (!v)
        return 0;
    for (int e = 0; e < NE; e++) {
        size_t m = 0;
        for (size_t k = 0; k < g->ngap; k++)
            if (g->gap[k].engine == e && !g->gap[k].tiny)
                v[m++] = g->gap[k].cycles;
        if (is_vector(e) && m >= CM_DEP_MIN_GAPS) {
            measured[e] = floor_of(v, m);
            have[e] = 1;
            used += m;
        }
    }
    size_t m = 0;   /* the tiny extra: beyond the engine's own latency */
    for (size_t k = 0; k < g->ngap; k++)
        if (g->gap[k].tiny && have[g->gap[k].engine])
            v[m++] = g->gap[k].cycles - measured[g->gap[k].engine];
    if (m >= CM_DEP_MIN_GAPS) {
        measured[NE] = fmax(floor_of(v, m), 0);
        have[NE] = 1;
        used += m;
    }
    free(v);
    /* what nothing measured keeps the prior's (an engine the runs never chained) */
    for (int e = 0; used && e <= NE; e++)
        if (have[e])
            dep[e] = measured[e];
    return used;
}
