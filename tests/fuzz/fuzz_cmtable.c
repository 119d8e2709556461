// libFuzzer target for latency tables (costmodel/table.c: cm_table_load, which reads only
// from a path, so every input goes through a scratch file). Not built by default:
// tests/fuzz/run.sh builds and runs it (see tests/fuzz/README.md).
/* A loaded table must price every opcode without UB, write back with cm_table_write and
 * load to an equal table (same hash); a rejected one must give LS_ERR_INPUT. Anything else
 * aborts. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "costmodel/costmodel.h"
#include "fuzz_common.h"
#include "sim/sim.h"
#include "sim/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_path inp = fuzz_tmp_write(0, ".json", data, size);
    const char *in = inp.s;
    struct cm_table tb, tb2;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = cm_table_load(in, &tb, &err);
    if (rc) {
        if (rc != LS_ERR_INPUT)
            abort();
        return 0;
    }
    if (tb.n < 0 || tb.n > (int)(sizeof tb.e / sizeof tb.e[0]))
        abort();
    struct sim_target t;
    if (sim_target_builtin(&t, "nc-v2"))
        abort();
    /* Price one small instruction of every opcode. */
    for (int op = 0; op < SIM_OP_COUNT; op++)
        for (int e = 0; e < LS_ENGINE_COUNT; e++) {
            if (!sim_opcode_on_engine((enum sim_opcode)op, (enum ls_engine)e))
                continue;
            struct sim_instr ins = sim_instr_init((enum ls_engine)e, (enum sim_opcode)op);
            ins.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, 512);
            ins.src = sim_sbuf(0, 128, 4096, LS_DT_FP32, 512);
            ins.src2 = ins.src;
            (void)cm_price(&tb, &t, &ins);
        }
    struct fuzz_path outp = fuzz_tmp_path(1, ".json");
    const char *out = outp.s;
    if (cm_table_write(&tb, out, &err))
        abort();
    if (cm_table_load(out, &tb2, &err) || cm_table_hash(&tb) != cm_table_hash(&tb2) ||
        tb.n != tb2.n)
        abort();
    remove(out);
    return 0;
}
