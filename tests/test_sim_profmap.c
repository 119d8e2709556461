/* The profiler opcode table (traces/profmap.c) names only opcodes sim/ knows, and every
 * simulator opcode is reachable through it under its own name. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "sim/isa.h"
#include "traces/profmap.h"

static void test_targets_are_opcodes(void **state)
{
    (void)state;
    for (size_t i = 0; i < trace_opmap_count; i++) {
        const char *to = trace_opmap_table[i].to;
        enum sim_opcode op;
        if (sim_opcode_parse(to, strlen(to), &op))
            fail_msg("profmap row %zu (%s): '%s' is not a laysim opcode", i,
                     trace_opmap_table[i].from, to);
    }
    for (int op = 0; op < SIM_OP_COUNT; op++) {
        const char *name = sim_opcode_name((enum sim_opcode)op);
        const char *to = trace_opmap_lookup(name, strlen(name), -1);
        if (!to || strcmp(to, name))
            fail_msg("laysim opcode '%s' does not map to itself", name);
    }
}

static void test_lookups(void **state)
{
    (void)state;
    assert_string_equal(trace_opmap_lookup("MATMUL", 6, LS_ENGINE_PE), "matmul");
    assert_string_equal(trace_opmap_lookup("Matmul", 6, LS_ENGINE_PE), "matmul");
    assert_string_equal(trace_opmap_lookup("TRANSPOSE", 9, LS_ENGINE_PE), "pe_transpose");
    assert_string_equal(trace_opmap_lookup("TRANSPOSE", 9, LS_ENGINE_DVE), "dve_transpose");
    assert_null(trace_opmap_lookup("TRANSPOSE", 9, LS_ENGINE_ACT));
    assert_string_equal(trace_opmap_lookup("qSyncIO0", 8, LS_ENGINE_DMA), "dma_copy");
    assert_null(trace_opmap_lookup("qSyncIO0", 8, LS_ENGINE_PE));
    assert_null(trace_opmap_lookup("DRAIN", 5, LS_ENGINE_DVE));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_targets_are_opcodes),
        cmocka_unit_test(test_lookups),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
