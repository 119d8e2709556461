/* Tests for sim/isa and sim/program: builder, text parser, writer round trip, errors. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <inttypes.h>
#include <string.h>

#include "sim/isa.h"
#include "sim/program.h"
#include "sim/sim.h"

static struct sim_program *parse(const char *text, struct ls_error *err)
{
    struct sim_program *p = NULL;
    int rc = sim_program_parse(&p, "t.lsprog", text, strlen(text), err);
    if (rc)
        assert_null(p);
    return p;
}

static void test_opcode_table(void **state)
{
    (void)state;
    size_t n;
    const char *const *names = sim_opcode_names(&n);
    assert_int_equal(n, SIM_OP_COUNT);
    for (size_t i = 0; i < n; i++) {
        assert_non_null(names[i]);
        enum sim_opcode op;
        assert_int_equal(sim_opcode_parse(names[i], strlen(names[i]), &op), 0);
        assert_int_equal(op, (enum sim_opcode)i);
        for (size_t j = 0; j < i; j++)
            assert_string_not_equal(names[i], names[j]);
    }
    assert_true(sim_opcode_on_engine(SIM_OP_MATMUL, LS_ENGINE_PE));
    assert_false(sim_opcode_on_engine(SIM_OP_MATMUL, LS_ENGINE_ACT));
    assert_true(sim_opcode_on_engine(SIM_OP_TENSOR_COPY, LS_ENGINE_POOL));
}

static void test_operand_helpers(void **state)
{
    (void)state;
    struct sim_operand o = sim_sbuf(0, 128, 64, LS_DT_BF16, 512);
    assert_int_equal(sim_operand_free(&o), 512);
    assert_int_equal(sim_operand_run(&o), 512);
    uint64_t lo, hi;
    assert_int_equal(sim_operand_extent(&o, &lo, &hi), 0);
    assert_int_equal(lo, 64);
    assert_int_equal(hi, 64 + 1024);
    uint32_t sz[2] = {4, 128};
    int32_t st[2] = {256, 1};
    sim_operand_dims(&o, 2, sz, st);
    assert_int_equal(sim_operand_free(&o), 512);
    assert_int_equal(sim_operand_run(&o), 128);
    assert_int_equal(sim_operand_extent(&o, &lo, &hi), 0);
    assert_int_equal(hi - lo, (3 * 256 + 127 + 1) * 2);
    int32_t st2[2] = {128, 1};
    sim_operand_dims(&o, 2, sz, st2);
    assert_int_equal(sim_operand_run(&o), 512);
    int32_t neg[2] = {-128, 1};
    sim_operand_dims(&o, 2, sz, neg);
    assert_int_equal(sim_operand_extent(&o, &lo, &hi), -1); /* reaches below address 64 */
}

static void test_parse_basic(void **state)
{
    (void)state;
    struct ls_error err;
    struct sim_program *p = parse("# comment\n"
                                  "lsprog 1\n"
                                  "a: dma dma_copy q=3 dst=sbuf[0:128]@0:bf16:512 "
                                  "src=hbm[128/2048]@4096:bf16:4/512x128\n"
                                  "b: pe load_stationary src=sbuf[0:128]@0:bf16:128 after=a tag=mm0\n"
                                  "   pe matmul src=sbuf[0:64]@0:bf16:512 dst=psum[0:128]@2048:fp32:512 acc=1 after=b,a conv=c1 tag=mm0\n",
                                  &err);
    assert_non_null(p);
    assert_int_equal(sim_program_count(p), 3);
    struct sim_instr buf, buf1;
    const struct sim_instr *in = sim_program_get(p, 0, &buf);
    assert_int_equal(in->engine, LS_ENGINE_DMA);
    assert_int_equal(in->queue, 3);
    assert_int_equal(in->src.mem, LS_MEM_HBM);
    assert_int_equal(in->src.nparts, 128);
    assert_int_equal(in->src.pstride, 2048);
    assert_int_equal(in->src.addr, 4096);
    assert_int_equal(in->src.ndim, 2);
    assert_int_equal(in->src.size[0], 4);
    assert_int_equal(in->src.stride[0], 512);
    assert_int_equal(in->src.stride[1], 1);
    in = sim_program_get(p, 2, &buf);
    assert_int_equal(in->opcode, SIM_OP_MATMUL);
    assert_true(in->flags & SIM_F_ACCUMULATE);
    assert_int_equal(in->dst.addr, 2048);
    assert_int_equal(in->src.nparts, 64);
    size_t nd;
    const uint32_t *d = sim_program_deps(p, 2, &nd);
    assert_int_equal(nd, 2);
    assert_int_equal(d[0], 1);
    assert_int_equal(d[1], 0);
    assert_int_equal(sim_program_get(p, 1, &buf1)->op_tag, in->op_tag);
    assert_string_equal(ls_intern_str(sim_program_strings(p), in->conv_tag), "c1");
    assert_int_equal(sim_program_line(p, 2), 5);
    assert_string_equal(sim_program_label_of(p, 1), "b");
    assert_null(sim_program_label_of(p, 2));
    sim_program_free(p);
}

static void test_round_trip(void **state)
{
    (void)state;
    char path[512];
    snprintf(path, sizeof path, "%s/tests/data/prog/pipeline.lsprog", LAYSIM_SOURCE_DIR);
    struct ls_error err;
    struct sim_program *p;
    assert_int_equal(sim_program_load(&p, path, &err), 0);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(sim_program_write(p, f), 0);
    fclose(f);
    struct sim_program *q;
    assert_int_equal(sim_program_parse(&q, "rt", buf, len, &err), 0);
    assert_int_equal(sim_program_count(p), sim_program_count(q));
    for (size_t i = 0; i < sim_program_count(p); i++) {
        struct sim_instr a, b;
        sim_program_get(p, i, &a);
        sim_program_get(q, i, &b);
        assert_memory_equal(&a.dst, &b.dst, sizeof a.dst);
        assert_memory_equal(&a.src, &b.src, sizeof a.src);
        assert_memory_equal(&a.src2, &b.src2, sizeof a.src2);
        assert_int_equal(a.opcode, b.opcode);
        assert_int_equal(a.engine, b.engine);
        assert_int_equal(a.queue, b.queue);
        assert_int_equal(a.func, b.func);
        size_t n1, n2;
        const uint32_t *d1 = sim_program_deps(p, i, &n1), *d2 = sim_program_deps(q, i, &n2);
        assert_int_equal(n1, n2);
        if (n1)
            assert_memory_equal(d1, d2, n1 * sizeof *d1);
        assert_true((a.op_tag < 0) == (b.op_tag < 0));
        if (a.op_tag >= 0)
            assert_string_equal(ls_intern_str(sim_program_strings(p), a.op_tag),
                                ls_intern_str(sim_program_strings(q), b.op_tag));
    }
    /* Same timing too. */
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    struct sim_stats s1, s2;
    assert_int_equal(sim_run(&t, p, NULL, &s1, &err), 0);
    assert_int_equal(sim_run(&t, q, NULL, &s2, &err), 0);
    assert_int_equal(s1.ticks, s2.ticks);
    free(buf);
    sim_program_free(p);
    sim_program_free(q);
}

/* The writer's numbers at their extremes and digit-count boundaries (it formats by hand):
 * a canonical program comes back byte for byte. */
static void test_write_numbers(void **state)
{
    (void)state;
    static const char text[] =
        "lsprog 1\n"
        "i0: dma dma_copy dst=sbuf[0:100]@18446744073709551615:bf16:99/1 "
        "src=hbm[10/-2147483647]@0:bf16:10/-1x9/100 q=0 tag=a\n"
        "i1: act activation dst=sbuf[9:10]@9999999999999999999:fp32:1/1 "
        "src=sbuf[0:1]@10000000000000000000:fp32:1000000/2147483647 func=relu after=i0 conv=c\n";
    struct ls_error err;
    struct sim_program *p = parse(text, &err);
    assert_non_null(p);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_int_equal(sim_program_write(p, f), 0);
    fclose(f);
    assert_int_equal(len, strlen(text));
    assert_memory_equal(buf, text, len);
    free(buf);
    sim_program_free(p);
}

struct bad_case {
    const char *text;
    int line, col;
    const char *needle;
};

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct bad_case cases[] = {
        {"", 1, 1, "lsprog 1"},
        {"lsprog 1 2\n", 1, 10, "lsprog 1"},
        {"lsprog 3\n", 1, 8, "version"},
        {"lsprog 1\npe\n", 2, 3, "ENGINE OPCODE"},
        {"lsprog 1\nxpu matmul\n", 2, 1, "unknown engine"},
        {"lsprog 1\npe matmal\n", 2, 4, "unknown opcode"},
        {"lsprog 1\npool matmul\n", 2, 6, "does not run"},
        {"lsprog 1\npe load_stationary src=sbuf[0:0]@0:bf16:1\n", 2, 20, "END > FIRST"},
        {"lsprog 1\npe load_stationary src=sbuf[0:4]@0:bf16:1 src=sbuf[0:4]@0:bf16:1\n", 2, 43,
         "twice"},
        {"lsprog 1\npe load_stationary src=dram[0:4]@0:bf16:1\n", 2, 20, "memory"},
        {"lsprog 1\npe load_stationary src=sbuf[0:4]@0:bf16:0\n", 2, 20, "dim size"},
        {"lsprog 1\npe load_stationary src=sbuf[0:4]@0:bf16:4/x\n", 2, 20, "stride"},
        {"lsprog 1\npe load_stationary src=sbuf[0:4]@0:bf16:4 wibble=1\n", 2, 43, "unknown argument"},
        {"lsprog 1\npe load_stationary src=sbuf[0:4]@0:bf16:4 q=1\n", 2, 43, "dma"},
        {"lsprog 1\nx y: pe load_stationary\n", 2, 1, "unknown engine"},
        {"lsprog 1\nb@d: pe load_stationary\n", 2, 1, "label"},
        {"lsprog 1\ndma dma_copy q=99\n", 2, 14, "queue"},
        {"lsprog 1\ndve tensor_scalar func=frobnicate\n", 2, 19, "func"},
        {"lsprog 1\na: pe load_stationary after=a\n", 2, 23, "earlier"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ls_error err;
        memset(&err, 0, sizeof err);
        struct sim_program *p = parse(cases[i].text, &err);
        if (p)
            fail_msg("case %zu parsed", i);
        assert_int_equal(err.code, LS_ERR_INPUT);
        assert_string_equal(err.file, "t.lsprog");
        if (err.line != cases[i].line || err.col != cases[i].col || !strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: got %d:%d: %s", i, err.line, err.col, err.msg);
    }
}

static void test_builder(void **state)
{
    (void)state;
    struct sim_program *p = sim_program_new();
    struct ls_error err;
    struct sim_instr in = sim_instr_init(LS_ENGINE_DVE, SIM_OP_MEMSET);
    in.op_tag = sim_program_tag(p, "layer0/add");
    in.dst = sim_sbuf(0, 128, 0, LS_DT_BF16, 64);
    assert_int_equal(sim_program_add(p, &in, NULL, 0, &err), 0);
    uint32_t dep = 0;
    assert_int_equal(sim_program_add(p, &in, &dep, 1, &err), 1);
    dep = 2;
    assert_int_equal(sim_program_add(p, &in, &dep, 1, &err), -1);
    assert_int_equal(err.code, LS_ERR_INPUT);
    assert_int_equal(sim_program_label(p, 1, "second", &err), 0);
    assert_int_equal(sim_program_label(p, 0, "second", &err), LS_ERR_INPUT);
    char buf[200];
    assert_non_null(strstr(sim_program_where(p, 1, buf, sizeof buf), "'second'"));
    assert_int_equal(sim_program_tag(p, "layer0/add"), in.op_tag);
    sim_program_free(p);
}

static void test_check_errors(void **state)
{
    (void)state;
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    static const struct {
        const char *text;
        const char *needle;
    } cases[] = {
        {"lsprog 1\npe matmul src=sbuf[0:128]@0:bf16:512 dst=psum[0:128]@0:fp32:512\n",
         "without an earlier load_stationary"},
        {"lsprog 1\npe load_stationary src=sbuf[0:128]@0:bf16:128\n"
         "pe matmul src=sbuf[0:128]@0:bf16:1024 dst=psum[0:128]@0:fp32:1024\n",
         "PSUM overflow"},
        {"lsprog 1\npe load_stationary src=sbuf[0:128]@0:bf16:128\n"
         "pe matmul src=sbuf[0:64]@0:bf16:512 dst=psum[0:128]@0:fp32:512\n",
         "stationary has 128 rows"},
        {"lsprog 1\npe load_stationary src=sbuf[0:128]@0:bf16:256\n", "exceeds the PE array"},
        {"lsprog 1\ndve tensor_tensor func=add dst=sbuf[0:128]@0:fp32:512 "
         "src=psum[0:128]@0:fp32:512 src2=psum[0:128]@2048:fp32:512\n",
         "both inputs cannot be in PSUM"},
        {"lsprog 1\npool memset dst=psum[0:128]@0:fp32:8\n", "cannot access PSUM"},
        {"lsprog 1\ndve memset dst=psum[0:128]@16000:fp32:512\n", "PSUM overflow"},
        {"lsprog 1\ndma dma_copy q=0 dst=sbuf[0:128]@0:bf16:512 src=hbm[128/512]@0:bf16:256\n",
         "elements"},
        {"lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:bf16:64 src=hbm[128/64]@0:bf16:64\n",
         "only DMA"},
        {"lsprog 1\ndve tensor_copy dst=sbuf[120:136]@0:bf16:64 src=sbuf[0:16]@0:bf16:64\n",
         "sbuf.partitions"},
        /* one PSUM bank per operand and partition, whatever the engine */
        {"lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:bf16:6000 src=psum[0:128]@0:bf16:6000\n",
         "dve tensor_copy): src: bytes [0, 12000) per partition span more than one 2048-byte "
         "PSUM bank"},
        {"lsprog 1\nact activation func=exp dst=sbuf[0:128]@0:fp32:8 src=psum[0:128]@2040:fp32:8\n",
         "act activation): src: bytes [2040, 2072) per partition span more than one"},
        {"lsprog 1\ndve memset dst=psum[0:128]@4096:fp32:1024\n",
         "dst: bytes [4096, 8192) per partition span more than one 2048-byte PSUM bank"},
        /* SBUF: nothing beyond sbuf.usable_bytes (180224 on nc-v2) */
        {"lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:fp8:200000 src=sbuf[0:128]@0:fp8:200000\n",
         "dve tensor_copy): dst: SBUF overflow: bytes [0, 200000) per partition exceed the usable"},
        {"lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:fp8:80000 src=sbuf[0:128]@150000:fp8:80000\n",
         "src: SBUF overflow: bytes [150000, 230000)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ls_error err;
        struct sim_program *p = parse(cases[i].text, &err);
        assert_non_null(p);
        memset(&err, 0, sizeof err);
        int rc = sim_check(&t, p, &err);
        if (rc != LS_ERR_INPUT || !strstr(err.msg, cases[i].needle) || !strstr(err.msg, "instruction"))
            fail_msg("case %zu: rc %d: %s", i, rc, err.msg);
        assert_string_equal(err.file, "t.lsprog");
        assert_true(err.line >= 2);
        struct sim_stats st;
        assert_int_equal(sim_run(&t, p, NULL, &st, &err), LS_ERR_INPUT);
        sim_program_free(p);
    }
}

/* The largest legal operands: a whole PSUM bank at a bank boundary, 80,000 fp8 elements
 * (80,000 B of the 180,224 usable) per SBUF partition. */
static void test_check_limits_ok(void **state)
{
    (void)state;
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    static const char *const ok[] = {
        "lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:bf16:512 src=psum[0:128]@2048:fp32:512\n",
        "lsprog 1\nact activation func=exp dst=sbuf[0:128]@0:fp32:8 src=psum[0:128]@2016:fp32:8\n",
        "lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:fp8:80000 src=sbuf[0:128]@100224:fp8:80000\n",
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        struct ls_error err;
        struct sim_program *p = parse(ok[i], &err);
        assert_non_null(p);
        if (sim_check(&t, p, &err))
            fail_msg("case %zu: %s", i, err.msg);
        sim_program_free(p);
    }
}

/* The checks remember what an instruction's shapes passed: a later instruction with the
 * same shapes must still be caught at a bad address, and a matmul after a different
 * stationary operand, with the message naming the later instruction. */
static void test_check_memo(void **state)
{
    (void)state;
    struct sim_target t;
    sim_target_builtin(&t, "nc-v2");
    static const struct {
        const char *text, *needle;
    } cases[] = {
        {"lsprog 1\ndve memset dst=psum[0:128]@0:fp32:512\ndve memset dst=psum[0:128]@4096:fp32:512\n"
         "dve memset dst=psum[0:128]@6000:fp32:512\n",
         "instruction 2 (dve memset): dst: bytes [6000, 8048) per partition span more than one"},
        {"lsprog 1\ndve tensor_copy dst=sbuf[0:128]@0:fp8:80000 src=sbuf[0:128]@80000:fp8:80000\n"
         "dve tensor_copy dst=sbuf[0:128]@0:fp8:80000 src=sbuf[0:128]@150000:fp8:80000\n",
         "instruction 1 (dve tensor_copy): src: SBUF overflow"},
        {"lsprog 1\npe load_stationary src=sbuf[0:128]@0:bf16:128\n"
         "pe matmul src=sbuf[0:128]@0:bf16:512 dst=psum[0:128]@0:fp32:512\n"
         "pe load_stationary src=sbuf[0:64]@0:bf16:128\n"
         "pe matmul src=sbuf[0:128]@0:bf16:512 dst=psum[0:128]@0:fp32:512\n",
         "instruction 3 (pe matmul): moving has 128 partitions but the stationary has 64 rows"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct ls_error err;
        struct sim_program *p = parse(cases[i].text, &err);
        assert_non_null(p);
        memset(&err, 0, sizeof err);
        if (sim_check(&t, p, &err) != LS_ERR_INPUT || !strstr(err.msg, cases[i].needle))
            fail_msg("case %zu: %s", i, err.msg);
        sim_program_free(p);
    }
}

/* The tokenizer finds token ends 16 bytes at a time: tabs, CRs, comments and NUL bytes
 * inside long tokens, near a line's end and at the buffer's end behave as in ls_scan. */
static void test_parse_tokens(void **state)
{
    (void)state;
    static const char ok[] = "lsprog 1 # header\r\n"
                             "a_long_label_of_thirty_bytes_x:\tdve\tmemset "
                             "dst=sbuf[0:128]@0:fp32:512#comment\r\n"
                             "\t \r\n# only a comment\n"
                             "dve memset dst=sbuf[0:128]@2048:fp32:512 tag=a_tag_of_more_than_16";
    struct ls_error err;
    struct sim_program *p = NULL;
    if (sim_program_parse(&p, "t.lsprog", ok, sizeof ok - 1, &err))
        fail_msg("%s", err.msg);
    assert_int_equal(sim_program_count(p), 2);
    assert_string_equal(sim_program_label_of(p, 0), "a_long_label_of_thirty_bytes_x");
    assert_int_equal(sim_program_line(p, 1), 5);
    struct sim_instr buf;
    assert_int_equal(sim_program_get(p, 1, &buf)->dst.addr, 2048);
    assert_string_equal(ls_intern_str(sim_program_strings(p), sim_program_get(p, 1, &buf)->op_tag),
                        "a_tag_of_more_than_16");
    sim_program_free(p);
    /* numbers of every length, short ones read 8 bytes at a time */
    static const uint64_t nums[] = {0, 7, 10, 99, 408, 5120, 65535, 131072, 1000000, 9999999,
                                    12345678, 987654321, 4294967296ull};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        char text[200];
        snprintf(text, sizeof text, "lsprog 1\ndma dma_copy dst=hbm[1/1]@%" PRIu64 ":fp32:1 "
                 "src=sbuf[0:1]@0:fp32:1\n", nums[i]);
        assert_non_null(p = parse(text, &err));
        assert_int_equal(sim_program_get(p, 0, &buf)->dst.addr, nums[i]);
        sim_program_free(p);
    }
    assert_null(parse("lsprog 1\ndma dma_copy dst=hbm[1/1]@0123:fp32:1 src=sbuf[0:1]@0:fp32:1\n",
                      &err));
    /* numbers: 20 digits up to 2^64 - 1, not beyond */
    assert_non_null(p = parse("lsprog 1\ndma dma_copy dst=sbuf[0:1]@0:fp32:1 "
                              "src=hbm[1/1]@18446744073709551615:fp32:1\n", &err));
    sim_program_free(p);
    assert_null(parse("lsprog 1\ndma dma_copy dst=sbuf[0:1]@0:fp32:1 "
                      "src=hbm[1/1]@18446744073709551616:fp32:1\n", &err));
    assert_non_null(strstr(err.msg, "expected @ADDRESS"));
    assert_null(parse("lsprog 1\ndma dma_copy dst=sbuf[0:1]@0:fp32:1 "
                      "src=hbm[1/1]@99999999999999999999:fp32:1\n", &err));
    static const struct {
        const char *text;
        size_t len;
        int line, col;
    } bad[] = {
#define BAD(text, line, col) {text, sizeof text - 1, line, col}
        BAD("lsprog 1\ndve memset dst=sbuf[0:128]@0:fp3\0:512 tag=x\n", 2, 33),
        BAD("lsprog 1\ndve memset dst=sbuf[0:128]@0:fp32:512 # a \0 in a comment\n", 2, 43),
        BAD("lsprog 1\n\0", 2, 1),
#undef BAD
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&err, 0, sizeof err);
        assert_int_not_equal(sim_program_parse(&p, "t.lsprog", bad[i].text, bad[i].len, &err), 0);
        if (!strstr(err.msg, "NUL byte") || err.line != bad[i].line || err.col != bad[i].col)
            fail_msg("case %zu: line %d col %d: %s", i, err.line, err.col, err.msg);
    }
}

/* An operand that repeats an earlier one's text but for its address parses to the new
 * address (the parser's operand memo), and a repeat with a bad address or different dims
 * is still an error or a different operand. */
static void test_parse_operand_repeats(void **state)
{
    (void)state;
    struct ls_error err;
    struct sim_program *p = parse("lsprog 1\n"
                                  "dve memset dst=sbuf[0:128]@0:fp32:512\n"
                                  "dve memset dst=sbuf[0:128]@4096:fp32:512\n"
                                  "dve memset dst=sbuf[0:128]@4096:fp32:256/2\n"
                                  "dve memset dst=sbuf[0:64]@8:fp32:512\n"
                                  "dve memset dst=sbuf[0:128]@0:fp32:512\n", &err);
    assert_non_null(p);
    struct sim_instr b;
    static const uint64_t addr[] = {0, 4096, 4096, 8, 0};
    static const uint32_t parts[] = {128, 128, 128, 64, 128};
    for (size_t i = 0; i < 5; i++) {
        const struct sim_instr *in = sim_program_get(p, i, &b);
        assert_int_equal(in->dst.addr, addr[i]);
        assert_int_equal(in->dst.nparts, parts[i]);
        assert_int_equal(in->dst.stride[0], i == 2 ? 2 : 1);
        assert_int_equal(in->dst.size[0], i == 2 ? 256 : 512);
    }
    sim_program_free(p);
    assert_null(parse("lsprog 1\ndve memset dst=sbuf[0:128]@0:fp32:512\n"
                      "dve memset dst=sbuf[0:128]@0400:fp32:512\n", &err));
    assert_int_equal(err.line, 3);
    assert_non_null(strstr(err.msg, "expected @ADDRESS"));
    assert_null(parse("lsprog 1\ndve memset dst=sbuf[0:128]@0:fp32:512\n"
                      "dve memset dst=sbuf[0:128]@8:fp32:512x\n", &err));
    assert_int_equal(err.line, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_opcode_table), cmocka_unit_test(test_operand_helpers),
        cmocka_unit_test(test_parse_basic),  cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_parse_errors), cmocka_unit_test(test_builder),
        cmocka_unit_test(test_check_errors), cmocka_unit_test(test_check_limits_ok),
        cmocka_unit_test(test_check_memo), cmocka_unit_test(test_parse_tokens),
        cmocka_unit_test(test_parse_operand_repeats), cmocka_unit_test(test_write_numbers),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
