/* graph/hlo: build a graph from an XLA HLO module in text form (what `--xla_dump_to`
 * writes: `HloModule NAME`, computations, an `ENTRY` computation, instructions with shapes
 * and layouts).
 *
 * Every instruction of the entry computation that the ROOT depends on is mapped onto the
 * IR's op kinds (graph.h); fusions and calls are inlined, tuples and get-tuple-element are
 * followed, reduce reads its to_apply computation (add -> reduce_sum, maximum/minimum ->
 * reduce_max). Shapes are static in HLO, so no scaling option applies. The layouts
 * (`{1,0}`) are read and checked but the IR has no place for them (docs/import.md, "XLA
 * HLO", lists the mapping and what is refused). */
#ifndef LS_GRAPH_HLO_H
#define LS_GRAPH_HLO_H

#include <stddef.h>

#include "graph/graph.h"
#include "util/error.h"

/* 1 when buf's first token (after blanks and comments) is `HloModule`. */
int hlo_sniff(const char *buf, size_t len);

/* Import the HLO text buf[0..len) (file names it in messages). *out: a validated graph the
 * caller frees. LS_ERR_INPUT with file:line:col for a syntax error, a truncated module, an
 * unknown opcode, an undefined operand or computation, a shape mismatch, or an
 * instruction the IR has no kind for (naming the instruction and its opcode). */
int hlo_import(const char *file, const char *buf, size_t len, struct graph **out,
               struct ls_error *err);

#endif
