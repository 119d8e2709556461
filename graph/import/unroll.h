/* graph/import/unroll: what the importers share about control flow resolved at import time.
 * A loop (ONNX Loop, a TF while loop) is unrolled into the IR, each iteration a copy of its
 * body; longer loops are refused (exit 2 naming the node). */
#ifndef LS_GRAPH_IMPORT_UNROLL_H
#define LS_GRAPH_IMPORT_UNROLL_H

#define IMPORT_MAX_TRIPS 512

#endif
