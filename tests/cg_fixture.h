/* tests/cg_fixture.h: for tests that compile an assignment straight through codegen
 * (cg_compile, no cost model): the conversion chooser, the strided DMA gather, which every
 * layout pair has. */
#ifndef LS_TESTS_CG_FIXTURE_H
#define LS_TESTS_CG_FIXTURE_H

#include "codegen/codegen.h"

static inline enum cg_conv_method choose_strided(void *ctx, int32_t t, int from, int to)
{
    (void)ctx;
    (void)t;
    (void)from;
    (void)to;
    return CG_CONV_DMA_STRIDED;
}

#endif
