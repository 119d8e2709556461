// libFuzzer target for the HuggingFace config.json import (graph/import/hf.c). Not built
// by default: tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* A parsed config is scaled down (few layers, short sequence) and built; the build must
 * give a valid graph that writes as .lg and re-reads equal, or a LS_ERR_INPUT naming the
 * problem. A rejected config must give LS_ERR_INPUT. Anything else aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "graph/graph.h"
#include "fuzz_graph.h"
#include "graph/hf.h"
#include "graph/lg.h"
#include "graph/zoo.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct zoo_arch a;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = hf_arch_parse("config.json", (const char *)data, size, &a, &err);
    if (rc) {
        if (rc != LS_ERR_INPUT || err.msg[0] == 0)
            abort();
        return 0;
    }
    /* Keep the graph small whatever the file says: sizes are symbolic, layers are not. */
    struct zoo_opts o;
    zoo_opts_init(&o);
    o.layers = a.family == ZOO_RESNET ? 18 : 2;
    o.seq = 16;
    o.batch = 1;
    o.image = a.family == ZOO_VIT || a.family == ZOO_VLM || a.family == ZOO_RESNET ? 64 : 0;
    struct graph *g = NULL;
    rc = zoo_arch_scale(&a, &o, &err);
    if (!rc)
        rc = zoo_arch_build(&a, &g, &err);
    if (rc) {
        fuzz_check_failure(rc, g, &err);
        return 0;
    }
    fuzz_check_graph(g);
    return 0;
}
