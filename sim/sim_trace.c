/* sim/sim_trace: simulate a program into a .lstrace file (laysim sim --trace, the library's
 * laysim_simulate). */
#include <stdlib.h>
#include <string.h>

#include "sim/isa.h"
#include "sim/program.h"
#include "sim/sim.h"
#include "traces/trace.h"

/* Remaps the program's tag ids to the trace's string ids. */
struct remap_sink {
    struct trace_sink inner;
    const int32_t *map;
};

static int remap_emit(void *ctx, const struct trace_record *r)
{
    struct remap_sink *s = ctx;
    struct trace_record c = *r;
    if (c.op_id >= 0)
        c.op_id = s->map[c.op_id];
    if (c.conv_id >= 0)
        c.conv_id = s->map[c.conv_id];
    return s->inner.emit(s->inner.ctx, &c);
}

int sim_run_trace(const struct sim_target *t, const struct sim_program *p, const char *path,
                  struct sim_stats *st, struct ls_error *err)
{
    size_t nop;
    const char *const *names = sim_opcode_names(&nop);
    struct trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = TRACE_PROD_SIM;
    h.target = t->name;
    h.target_hash = sim_target_hash(t);
    h.tick_hz = sim_target_tick_mhz(t) * 1000000ull;
    for (int e = 0; e < LS_ENGINE_COUNT; e++)
        h.clock_mhz[e] = sim_engine_mhz(t, (enum ls_engine)e);
    h.nopcodes = (uint32_t)nop;
    h.opcodes = names;
    const struct sim_program_tie *tie = sim_program_tie(p);
    h.model_hash = strtoull(tie->v[SIM_TIE_MODEL], NULL, 16);
    h.problem_hash = strtoull(tie->v[SIM_TIE_PROBLEM], NULL, 16);
    struct trace_writer *w;
    int rc = trace_writer_open(&w, path, &h, err);
    if (rc)
        return rc;
    const struct ls_intern *strs = sim_program_strings(p);
    int32_t *map = malloc((strs->count ? strs->count : 1) * sizeof *map);
    if (!map) {
        trace_writer_abort(w);
        return ls_error_msg(err, LS_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < strs->count; i++)
        if ((rc = trace_writer_intern(w, strs->strs[i], &map[i], err))) {
            free(map);
            trace_writer_abort(w);
            return rc;
        }
    struct remap_sink rs = {trace_writer_sink(w), map};
    struct trace_sink sink = {&rs, remap_emit};
    rc = sim_run(t, p, &sink, st, err);
    free(map);
    if (rc) {
        const struct ls_error *we = trace_writer_error(w);
        if (we && we->code)
            *err = *we;
        trace_writer_abort(w);
        return rc;
    }
    return trace_writer_close(w, err);
}

