/* Tests for study/opattr: a hand-made trace set beside a hand-made problem, every figure
 * worked out by hand (exposed times, spans, busy cycles, per-kind totals), and the bad
 * inputs (no matching name, no clock, an invalid assignment). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "solver/problem.h"
#include "study/opattr.h"
#include "traces/trace.h"

/* x (source) -> mm (matmul: y in p:a, 100 cycles) -> act (relu, reads y in p:b, 50); y's
 * conversion p:a -> p:b costs 30; w (relu of x, 5 cycles) has no record in the trace. */
static const char lsp_text[] = "lsp 1\n"
                               "tensor x 1 p:0\n"
                               "op x source 0 x\n"
                               "cfg 0 0\n"
                               "tensor y 2 p:a p:b\n"
                               "transpose y 0 30 40 0\n"
                               "op mm matmul 1 x y\n"
                               "cfg 100 0 0\n"
                               "cfg 90 0 1\n"
                               "tensor z 1 p:0\n"
                               "op act relu 1 y z\n"
                               "cfg 50 1 0\n"
                               "tensor v 1 p:0\n"
                               "op w relu 1 x v\n"
                               "cfg 5 0 0\n";

static const char *const opcodes[] = {"dma_copy", "matmul", "activation", "tensor_tensor"};

static struct trace_record rec(uint64_t id, int engine, uint64_t start, uint64_t end, int32_t op,
                               int32_t conv)
{
    struct trace_record r;
    memset(&r, 0, sizeof r);
    r.id = id;
    r.engine = (uint8_t)engine;
    r.start = start;
    r.end = end;
    r.queue = TRACE_NO_QUEUE;
    r.op_id = op;
    r.conv_id = conv;
    return r;
}

/* Ticks at 2 GHz (two ticks per cycle of the 1000 MHz base clock). With names, in program
 * order (ids): mm on PE [0,100) and [100,200), y's conversion on DMA [150,260), act on ACT
 * [260,300), an untagged DVE record [300,320), an unknown name on DMA [10,20) (last in
 * program order, written second: records need not come in program order), and a
 * conversion of y the objective does not charge on DMA [320,330) (its producer's: mm).
 * Without names: the unknown one. */
static void write_trace(const char *path, int with_names)
{
    struct trace_header h;
    memset(&h, 0, sizeof h);
    h.producer = TRACE_PROD_IMPORT;
    h.target = "nc-v2";
    h.tick_hz = 2000000000ULL;
    h.nopcodes = 4;
    h.opcodes = opcodes;
    struct trace_writer *w;
    struct ls_error err;
    assert_int_equal(trace_writer_open(&w, path, &h, &err), LS_OK);
    int32_t mm, conv, act, other, back;
    assert_int_equal(trace_writer_intern(w, "mm", &mm, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "y@p:a->p:b", &conv, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "act", &act, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "other", &other, &err), LS_OK);
    assert_int_equal(trace_writer_intern(w, "y@p:b->p:a", &back, &err), LS_OK);
    struct trace_record r[] = {
        rec(0, LS_ENGINE_PE, 0, 100, mm, TRACE_NO_ID),
        rec(5, LS_ENGINE_DMA, 10, 20, other, TRACE_NO_ID),
        rec(1, LS_ENGINE_PE, 100, 200, mm, TRACE_NO_ID),
        rec(2, LS_ENGINE_DMA, 150, 260, TRACE_NO_ID, conv),
        rec(3, LS_ENGINE_ACT, 260, 300, act, TRACE_NO_ID),
        rec(4, LS_ENGINE_DVE, 300, 320, TRACE_NO_ID, TRACE_NO_ID),
        rec(6, LS_ENGINE_DMA, 320, 330, TRACE_NO_ID, back),
    };
    for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
        if (with_names || r[i].op_id == other)
            assert_int_equal(trace_writer_write(w, &r[i], &err), LS_OK);
    assert_int_equal(trace_writer_close(w, &err), LS_OK);
}

static struct lsp_problem *problem(void)
{
    struct lsp_problem *p;
    struct ls_error err;
    assert_int_equal(lsp_parse("t.lsp", lsp_text, strlen(lsp_text), &p, &err), LS_OK);
    return p;
}

static const struct study_opattr_row *row(const struct study_opattr *a, const char *name)
{
    for (size_t i = 0; i < a->n; i++)
        if (!strcmp(a->rows[i].name, name))
            return &a->rows[i];
    fail_msg("no row %s", name);
    return NULL;
}

static int build(const char *path, const int32_t *cfg, double mhz, struct study_opattr *a,
                 struct ls_error *err)
{
    struct lsp_problem *p = problem();
    struct trace_reader *r;
    assert_int_equal(trace_reader_open(&r, path, err), LS_OK);
    int rc = study_opattr_build(p, cfg, r, mhz, a, err);
    trace_reader_close(r);
    lsp_free(p);
    return rc;
}

static void test_by_hand(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "opattr_%ld.lstrace", (long)getpid());
    write_trace(path, 1);
    const int32_t cfg[] = {0, 0, 0, 0};
    struct study_opattr a;
    struct ls_error err;
    assert_int_equal(build(path, cfg, 1000, &a, &err), LS_OK);
    assert_int_equal(a.objective, 185);   /* 100 + 50 + 5 + the conversion's 30 */
    assert_true(a.span == 165);           /* 330 ticks */
    assert_int_equal(a.records, 7);
    assert_int_equal(a.unknown, 1);
    assert_int_equal(a.silent, 1);        /* w: 5 cycles predicted, no record */
    assert_int_equal(a.n, 4 + 1 + 2);     /* ops, the conversion, "other", "(untagged)" */
    const struct study_opattr_row *mm = row(&a, "mm"), *cv = row(&a, "y@p:a->p:b"),
                                  *act = row(&a, "act"), *oth = row(&a, "other"),
                                  *unt = row(&a, "(untagged)"), *w = row(&a, "w");
    /* the latest end grows 100 + 100 ticks (mm), 60 (conversion), 40 (act), 20 (untagged),
     * 10 (y's uncharged conversion: mm's), then not at all (other: ends at 20, issued last) */
    assert_true(oth->exposed == 0 && oth->cls == OPATTR_UNKNOWN && oth->records == 1);
    assert_true(mm->exposed == 105 && mm->start == 0 && mm->end == 165);
    assert_true(mm->busy[LS_ENGINE_PE] == 100 && mm->busy[LS_ENGINE_DMA] == 5);
    assert_true(mm->predicted == 100 && mm->records == 3);
    assert_true(cv->exposed == 30 && cv->predicted == 30 && cv->cls == OPATTR_CONV);
    assert_true(cv->start == 75 && cv->busy[LS_ENGINE_DMA] == 55);
    assert_true(act->exposed == 20 && act->predicted == 50);
    assert_true(unt->exposed == 10 && unt->cls == OPATTR_UNTAGGED);
    assert_true(w->records == 0 && w->exposed == 0 && w->predicted == 5);
    double sum = 0;
    int64_t pred = 0;
    for (size_t i = 0; i < a.n; i++)
        sum += a.rows[i].exposed, pred += a.rows[i].predicted;
    assert_true(sum == a.span);
    assert_int_equal(pred, a.objective);
    struct study_opattr_kind *k;
    int nk = study_opattr_by_kind(&a, &k);
    assert_int_equal(nk, 6);   /* source, matmul, relu, conversion, unknown, untagged */
    assert_string_equal(k[2].kind, "relu");
    assert_true(k[2].rows == 2 && k[2].traced == 1 && k[2].predicted == 55 &&
                k[2].exposed == 20 && k[2].span == 20);
    free(k);
    study_opattr_free(&a);
    /* the other configuration of mm: y in p:b, no conversion charged, 90 cycles */
    const int32_t cfg2[] = {0, 1, 0, 0};
    assert_int_equal(build(path, cfg2, 1000, &a, &err), LS_OK);
    assert_int_equal(a.objective, 145);
    assert_int_equal(a.unknown, 1);       /* both conversions of y are mm's now */
    assert_true(row(&a, "mm")->records == 4);
    assert_true(row(&a, "mm")->predicted == 90);
    study_opattr_free(&a);
    unlink(path);
}

static void test_bad_inputs(void **state)
{
    (void)state;
    char path[64];
    snprintf(path, sizeof path, "opattr_bad_%ld.lstrace", (long)getpid());
    write_trace(path, 0);
    const int32_t cfg[] = {0, 0, 0, 0}, bad[] = {0, 2, 0, 0};
    struct study_opattr a;
    struct ls_error err;
    assert_int_equal(build(path, cfg, 1000, &a, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "names an op or conversion of the problem"));
    assert_int_equal(a.n, 0);
    write_trace(path, 1);
    assert_int_equal(build(path, cfg, 0, &a, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "base clock"));
    assert_int_equal(build(path, bad, 1000, &a, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "mm"));
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_by_hand),
        cmocka_unit_test(test_bad_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
