/* libFuzzer target for hardware descriptions past their parsers: the input is a target INI,
 * optionally followed by a line "%%table" and a latency table (JSON). A target and table
 * that load go through problem -> solve (greedy, exact) -> compile -> simulate of a small
 * fixed model (the study pipeline) and a calibration on the runs' traces, under small
 * limits: whatever timings a valid target holds, every step succeeds or fails with a
 * message, a run that succeeds has a non-negative prediction and a simulated time, and a
 * calibration of the simulator's own traces does not fail. Inputs the readers reject are
 * fuzz_target's and fuzz_cmtable's business and end here. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "costmodel/calib_run.h"
#include "fuzz_common.h"
#include "graph/graph.h"
#include "graph/lg.h"
#include "sim/target.h"
#include "study/pipeline.h"

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
#define NSOLVERS (sizeof solvers / sizeof solvers[0])

static void check_failure(int rc, const struct ls_error *err)
{
    if (rc && err->msg[0] == 0)
        abort();
}

static void run(const struct graph *g, const struct sim_target *t, const struct cm_table *tb,
                const char *dir)
{
    struct study_pipe_opts o;
    study_pipe_opts_init(&o);
    o.solve.time_limit = 1;
    o.cg.max_instructions = 200000;
    o.trace_dir = dir;
    struct study_pipe *p = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = study_pipe_new(g, t, tb, &o, &p, &err);
    check_failure(rc, &err);
    if (rc)
        return;
    const char *traces[NSOLVERS];
    int n = 0;
    for (size_t k = 0; k < NSOLVERS; k++) {
        const struct study_run *r = NULL;
        ls_error_clear(&err);
        rc = study_pipe_run(p, solvers[k], &r, &err);
        check_failure(rc, &err);
        if (rc)
            continue;
        if (r->predicted < 0 || r->sim_cycles == 0)
            abort();
        if (r->trace_path[0])
            traces[n++] = r->trace_path;
    }
    if (n > 0) {
        struct cm_run_opts co;
        cm_run_opts_init(&co);
        co.traces = traces;
        co.ntraces = n;
        struct cm_run cr;
        ls_error_clear(&err);
        rc = cm_calibrate(&co, t, tb, &cr, &err);
        if (rc && rc != LS_ERR_NOMEM)
            abort();
        cm_run_free(&cr);
    }
    study_pipe_free(p);
}

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
    struct fuzz_path dir = fuzz_tmp_path(0, ".d");
    if (mkdir(dir.s, 0700) && access(dir.s, W_OK))
        abort();
    run(g, &t, &tb, dir.s);
    for (size_t k = 0; k < NSOLVERS; k++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s.lstrace", dir.s, solvers[k]);
        remove(path);
    }
    graph_free(g);
    return 0;
}
