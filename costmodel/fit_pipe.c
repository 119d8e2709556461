/* costmodel/fit_pipe: the compute samples of a trace measured as occupancy where the
 * engine pipelines, so that the per-instruction fit prices what an instruction adds to
 * its engine's busy time, as the datasheet table does.
 *
 * A pipelined engine starts its next instruction before the previous one ends: the
 * simulator's PE issues a matmul every initiation interval and each one ends
 * pe.rows + pe.cols - 2 cycles after that (sim/sim_run.c pe_step). A record's duration
 * is then occupancy + latency, while a table entry prices occupancy (the datasheet's
 * matmul: max(64, N), no latency) and the per-op aggregation sums it. Fitting durations
 * charged every matmul 254 cycles more (docs/history.md, "Occupancy, not duration").
 *
 * When an instruction overlaps the previous one on its engine and has the same opcode and
 * dtype (the same pipeline), what it adds to the engine's time is the growth of the
 * engine's end: its end minus the previous one's. That is its sample. An instruction
 * that overlaps nothing (the first of a chain, or an engine that runs one instruction at
 * a time) keeps its duration, latency included, which is what it exposes. */
#include <stdlib.h>
#include <string.h>

#include "costmodel/calibrate.h"
#include "sim/isa.h"

struct span {
    uint64_t start, end;
    size_t sample;
    int engine;
};

static int by_engine_start(const void *a, const void *b)
{
    const struct span *x = a, *y = b;
    if (x->engine != y->engine)
        return x->engine < y->engine ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->sample < y->sample ? -1 : x->sample > y->sample;
}

static int same_pipeline(const struct cm_sample *a, const struct cm_sample *b)
{
    return a->engine == b->engine && a->opcode == b->opcode && a->dtype == b->dtype;
}

int cm_pipe_adjust(struct cm_sample *s, const uint64_t *start, const uint64_t *end, size_t n,
                   uint64_t tick_hz, const uint32_t *clock_mhz, double *lat_cycles)
{
    for (int e = 0; e < LS_ENGINE_COUNT && lat_cycles; e++)
        lat_cycles[e] = 0;
    struct span *sp = malloc(sizeof *sp * (n + 1));
    if (!sp)
        return LS_ERR_NOMEM;
    size_t m = 0;
    for (size_t i = 0; i < n; i++)   /* DMA: its latency is the table's fixed_ns */
        if (s[i].engine != LS_ENGINE_DMA && s[i].engine >= 0 && s[i].engine < LS_ENGINE_COUNT)
            sp[m++] = (struct span){start[i], end[i], i, s[i].engine};
    qsort(sp, m, sizeof *sp, by_engine_start);
    for (size_t k = m; k-- > 1;) {   /* backwards: every pair reads the original ends */
        struct cm_sample *cur = &s[sp[k].sample];
        const struct span *prev = &sp[k - 1];
        uint32_t mhz = clock_mhz ? clock_mhz[cur->engine] : 0;
        if (!same_pipeline(&s[prev->sample], cur) || prev->end <= sp[k].start ||
            sp[k].end <= prev->end || !mhz || !tick_hz)
            continue;
        double to_cyc = (double)mhz * 1e6 / (double)tick_hz;
        double overlap = (double)(prev->end - sp[k].start) * to_cyc;
        cur->y = (double)(sp[k].end - prev->end) * to_cyc;
        if (lat_cycles && overlap > lat_cycles[cur->engine])
            lat_cycles[cur->engine] = overlap;
    }
    free(sp);
    return 0;
}
