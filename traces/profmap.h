/* traces/profmap: the one table that maps profiler opcode names (Neuron Explorer's
 * Instruction table, Chrome/Perfetto slice names, DMA queue names) to laysim's opcode names
 * (sim/isa.c). docs/formats.md shows the same table; tests/test_traces_import.c checks that
 * every target is an opcode sim/ knows. */
#ifndef LS_TRACES_PROFMAP_H
#define LS_TRACES_PROFMAP_H

#include <stddef.h>

struct trace_opmap {
    const char *from;  /* profiler name, case-insensitive; a trailing '*' matches a prefix */
    int engine;        /* enum ls_engine the row applies to, -1 = any engine */
    const char *to;    /* laysim opcode name */
};

extern const struct trace_opmap trace_opmap_table[];
extern const size_t trace_opmap_count;

/* laysim opcode for name[0..n) on engine (enum ls_engine, or -1 when not known yet), or
 * NULL when the name is not in the table. A laysim opcode name maps to itself. */
const char *trace_opmap_lookup(const char *name, size_t n, int engine);

#endif
