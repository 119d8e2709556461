/* cm_price_program out of memory (issue 45, item 6): `validate` on a huge model said
 * "price of the compiled program -1 != objective ...", the price function's -1 for a
 * failed allocation leaking into a price. Now it is an error (LS_ERR_NOMEM naming the
 * program's size) and no price. Allocations fail on demand: this test links with
 * -Wl,--wrap=malloc,--wrap=calloc (tests/CMakeLists.txt). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "costmodel/costmodel.h"
#include "sim/sim.h"

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t size);
static int failing;   /* every allocation fails while set */

void *__wrap_malloc(size_t n)
{
    return failing ? NULL : __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t size)
{
    return failing ? NULL : __real_calloc(n, size);
}

/* Two tagged DMA loads. */
static struct sim_program *program(void)
{
    struct sim_program *p = sim_program_new();
    assert_non_null(p);
    int32_t a = sim_program_tag(p, "a");
    for (int i = 0; i < 2; i++) {
        struct sim_instr in;
        memset(&in, 0, sizeof in);
        in.opcode = SIM_OP_DMA_COPY;
        in.engine = LS_ENGINE_DMA;
        in.src = sim_hbm(128, 512, (uint64_t)i << 20, LS_DT_BF16, 512);
        in.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, 512);
        in.op_tag = a;
        in.conv_tag = -1;
        struct ls_error err = {0};
        assert_int_equal(sim_program_add(p, &in, NULL, 0, &err), i);
    }
    return p;
}

static void test_price_out_of_memory(void **st)
{
    (void)st;
    struct sim_target t;
    assert_int_equal(sim_target_builtin(&t, "nc-v2"), 0);
    struct sim_program *p = program();
    for (int agg = 0; agg < 2; agg++) {   /* the sum's path and the groups' */
        struct cm_table tb;
        cm_table_default(&t, &tb);
        cm_table_set_aggregate(&tb, agg ? CM_AGG_MAX : CM_AGG_SUM, agg ? 0 : -1);
        struct ls_error err = {0};
        int64_t price = 12345;
        failing = 1;
        int rc = cm_price_program(&tb, &t, p, &price, &err);
        failing = 0;
        assert_int_equal(rc, LS_ERR_NOMEM);
        assert_non_null(strstr(err.msg, "out of memory pricing the compiled program (2 "
                                        "instructions"));
        assert_int_equal(price, 0);
        assert_int_equal(cm_price_program(&tb, &t, p, &price, &err), 0);
        assert_true(price > 0);
    }
    sim_program_free(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_price_out_of_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
