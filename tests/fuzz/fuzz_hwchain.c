/* libFuzzer target for hardware descriptions past their parsers: the input is a target INI,
 * optionally followed by a line "%%table" and a latency table (JSON). A target and table
 * that load go through problem -> solve (greedy, exact) -> compile -> simulate of a small
 * fixed model (the study pipeline) and a calibration on the runs' traces, under small
 * limits: whatever timings a valid target holds, every step succeeds or fails with a
 * message, a run that succeeds has a non-negative prediction and a simulated time, and a
 * calibration of the simulator's own traces does not fail. Inputs the readers reject are
 * fuzz_target's and fuzz_cmtable's business and end here. */
#include <stdint.h>
#include <string.h>

#include "fuzz_chain.h"
#include "graph/graph.h"
#include "graph/lg.h"
#include "sim/target.h"

/* A matmul, a softmax and a residual add: PE, ACT/DVE and DMA work in a few ops. */
static const char model[] =
    "lg 1\nname hw\n"
    "input x bf16 [seq:128,hidden:256]\n"
    "weight w bf16 [hidden:256,ffn:512]\n"
    "weight v bf16 [ffn:512,hidden:256]\n"
    "op h bf16 [seq:128,ffn:512] = matmul x w\n"
    "op p bf16 [seq:128,ffn:512] = softmax h axis=1\n"
    "op o bf16 [seq:128,hidden:256] = matmul p v\n"
    "op y bf16 [seq:128,hidden:256] = add o x\n"
    "output y\n";

static const char *const solvers[] = {"greedy", "exact"};

/* The target (and table) of the input, or 0 when a reader rejects them. */
static int load(const uint8_t *data, size_t size, struct sim_target *t, struct cm_table *tb)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    memcpy(text, data, size);
    text[size] = 0;
    char *sep = strstr(text, "\n%%table\n");
    if (sep)
        *sep = 0;
    struct ls_error err;
    ls_error_clear(&err);
    int ok = !sim_target_load_string(t, "fuzz.ini", text, &err);
    if (ok && sep) {
        const char *json = sep + strlen("\n%%table\n");
        struct fuzz_path path = fuzz_tmp_write(1, ".json", json, strlen(json));
        ok = !cm_table_load(path.s, tb, &err);
        remove(path.s);
    } else if (ok) {
        cm_table_default(t, tb);
    }
    free(text);
    return ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct sim_target t;
    struct cm_table tb;
    if (!load(data, size, &t, &tb))
        return 0;
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    if (graph_read("hw.lg", model, sizeof model - 1, &g, &err))
        abort();
    fuzz_chain_run(g, &t, &tb, solvers, 2);
    graph_free(g);
    return 0;
}
