/* Tests for graph/: builder, shape inference, validation, statistics, .lg round trips. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph/graph.h"
#include "graph/lg.h"
#include "util/fileio.h"
#include "util/prng.h"

/* Write g to memory, read it back, and require an identical graph. */
static struct graph *round_trip(const struct graph *g)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    assert_non_null(fp);
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(graph_write(g, fp, &err), 0);
    fclose(fp);
    struct graph *h = NULL;
    int rc = graph_read("mem.lg", buf, len, &h, &err);
    if (rc)
        fprintf(stderr, "%s\n%s:%d:%d: %s\n", buf, err.file, err.line, err.col, err.msg);
    assert_int_equal(rc, 0);
    char why[256] = "";
    int eq = graph_equal(g, h, why, sizeof why);
    if (!eq)
        fprintf(stderr, "round trip differs: %s\n%s", why, buf);
    assert_true(eq);
    /* writing the copy gives the same text */
    char *buf2 = NULL;
    size_t len2 = 0;
    fp = open_memstream(&buf2, &len2);
    assert_int_equal(graph_write(h, fp, &err), 0);
    fclose(fp);
    assert_string_equal(buf, buf2);
    free(buf);
    free(buf2);
    return h;
}

static void assert_valid(const struct graph *g)
{
    struct ls_error err;
    ls_error_clear(&err);
    int rc = graph_validate(g, &err);
    if (rc)
        fprintf(stderr, "invalid: %s\n", err.msg);
    assert_int_equal(rc, 0);
}

static struct graph *fig1(void)
{
    struct graph *g = graph_new("fig1");
    int32_t a = graph_input(g, "A", LS_DT_FP32, GRAPH_DIMS(4, 8), NULL);
    int32_t b = graph_input(g, "B", LS_DT_FP32, GRAPH_DIMS(8, 3), NULL);
    int32_t c = graph_matmul(g, "C", a, b);
    int32_t d = graph_reduce(g, "D", GRAPH_OP_REDUCE_SUM, c, GRAPH_AXES(0), 1);
    int32_t r = graph_binary(g, "R", GRAPH_OP_ADD, d, b);
    graph_output(g, r);
    return g;
}

/* Names are never cut to fit a buffer (a cut name could collide): too long is an error
 * naming the limit, in the builder and in the .lg reader. */
static void test_long_names(void **state)
{
    (void)state;
    char nm[700];
    memset(nm, 'a', sizeof nm - 1);
    nm[sizeof nm - 1] = 0;
    struct graph *g = graph_new("long");
    assert_int_equal(graph_input(g, nm, LS_DT_FP32, GRAPH_DIMS(4, 8), NULL), -1);
    assert_non_null(graph_error(g));
    assert_non_null(strstr(graph_error(g)->msg, "longer than 511 bytes"));
    graph_free(g);
    g = graph_new("prefix");
    graph_set_prefix(g, nm);
    assert_non_null(graph_error(g));
    assert_non_null(strstr(graph_error(g)->msg, "longer than 127 bytes"));
    graph_free(g);
    char text[1000];
    snprintf(text, sizeof text, "lg 1\ninput %s fp32 [4,8]\n", nm);
    struct graph *out = NULL;
    struct ls_error err = {0};
    assert_int_equal(graph_read("t.lg", text, strlen(text), &out, &err), LS_ERR_INPUT);
    assert_null(out);
    assert_non_null(strstr(err.msg, "longer than 511 bytes"));
}

static void test_fig1_builder(void **state)
{
    (void)state;
    struct graph *g = fig1();
    assert_valid(g);
    const struct graph_tensor *c = graph_tensor(g, graph_find_tensor(g, "C"));
    assert_int_equal(c->shape.rank, 2);
    assert_int_equal(c->shape.dims[0].size, 4);
    assert_int_equal(c->shape.dims[1].size, 3);
    const struct graph_tensor *d = graph_tensor(g, graph_find_tensor(g, "D"));
    assert_int_equal(d->shape.dims[0].size, 1);
    assert_int_equal(d->shape.dims[1].size, 3);
    const struct graph_tensor *r = graph_tensor(g, graph_find_tensor(g, "R"));
    assert_int_equal(r->shape.dims[0].size, 8);
    assert_int_equal(r->role, GRAPH_ROLE_OUTPUT);
    struct graph_stats st;
    struct ls_error err;
    assert_int_equal(graph_stats(g, &st, &err), 0);
    assert_int_equal(st.ops, 6);
    assert_int_equal(st.compute_ops, 3);
    assert_int_equal(st.sources, 2);
    assert_int_equal(st.returns, 1);
    assert_int_equal(st.tensors, 5);
    assert_int_equal(st.edges, 6);
    assert_int_equal(st.max_fanout, 2);
    assert_int_equal(st.treewidth_ub, 2);
    assert_true(st.flops == 2.0 * 4 * 3 * 8 + 12 + 24);
    assert_int_equal(graph_find_op(g, "return:R"), 5);
    struct graph *h = round_trip(g);
    graph_free(h);
    graph_free(g);
}

/* Read an example file from the source tree. */
static struct graph *read_example(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/examples/%s", LAYSIM_SOURCE_DIR, name);
    struct graph *g = NULL;
    struct ls_error err;
    ls_error_clear(&err);
    int rc = graph_read_file(path, &g, &err);
    if (rc)
        fprintf(stderr, "%s:%d:%d: %s\n", err.file, err.line, err.col, err.msg);
    assert_int_equal(rc, 0);
    return g;
}

static void test_examples(void **state)
{
    (void)state;
    struct graph *g = read_example("fig1.lg");
    struct graph *b = fig1();
    char why[256];
    assert_true(graph_equal(g, b, why, sizeof why));
    graph_free(b);
    graph_free(g);

    g = read_example("fig2.lg");
    struct graph_stats st;
    struct ls_error err;
    assert_int_equal(graph_stats(g, &st, &err), 0);
    assert_int_equal(st.compute_ops, 8 + 8 + 7);
    assert_int_equal(st.sources, 9);
    assert_int_equal(st.returns, 1);
    assert_int_equal(st.ops, 33);
    assert_int_equal(st.max_fanout, 8);
    assert_int_equal(st.edges, 16 + 8 + 14 + 1);
    assert_int_equal(st.treewidth_ub, 2);
    const struct graph_tensor *y = graph_tensor(g, graph_find_tensor(g, "y"));
    assert_int_equal(y->shape.dims[3].size, 56);
    assert_string_equal(y->shape.dims[1].role, "channels");
    graph_free(round_trip(g));
    graph_free(g);
}

/* One graph with every op kind; each is checked to exist, then the graph round-trips. */
static struct graph *all_kinds(void)
{
    struct graph *g = graph_new("every-kind");
    graph_set_prefix(g, "k.");
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(2, 4, 8), "batch,seq,hidden");
    int32_t w = graph_weight(g, "w", LS_DT_FP32, GRAPH_DIMS(8, 16), "hidden,ffn");
    int32_t ga = graph_weight(g, "gamma", LS_DT_FP32, GRAPH_DIMS(8), NULL);
    int32_t be = graph_weight(g, "beta", LS_DT_FP32, GRAPH_DIMS(8), NULL);
    int32_t h = graph_matmul(g, "h", x, w);                              /* [2,4,16] */
    int32_t q = graph_reshape(g, "q", h, GRAPH_DIMS(2, 4, 2, 8), NULL);  /* [2,4,2,8] */
    int32_t qt = graph_transpose(g, "qt", q, (const int[]){0, 2, 1, 3}); /* [2,2,4,8] */
    int32_t s = graph_batch_matmul(g, "s", qt, qt, 1);                   /* [2,2,4,4] */
    int32_t p = graph_softmax(g, "p", s, -1);
    int32_t o = graph_batch_matmul(g, "o", p, qt, 0);                    /* [2,2,4,8] */
    int32_t u[9];
    static const enum graph_op_kind un[] = {GRAPH_OP_RELU, GRAPH_OP_GELU, GRAPH_OP_SILU,
                                            GRAPH_OP_EXP, GRAPH_OP_TANH, GRAPH_OP_SIGMOID,
                                            GRAPH_OP_RSQRT, GRAPH_OP_COPY};
    int32_t cur = o;
    for (int i = 0; i < 8; i++)
        cur = u[i] = graph_unary(g, NULL, un[i], cur);
    int32_t cst = graph_cast(g, "cst", cur, LS_DT_BF16);
    int32_t back = graph_cast(g, "back", cst, LS_DT_FP32);
    static const enum graph_op_kind bin[] = {GRAPH_OP_ADD, GRAPH_OP_SUB, GRAPH_OP_MUL,
                                             GRAPH_OP_DIV, GRAPH_OP_MAX};
    for (int i = 0; i < 5; i++)
        back = graph_binary(g, NULL, bin[i], back, o);
    int32_t r1 = graph_reduce(g, "rs", GRAPH_OP_REDUCE_SUM, back, GRAPH_AXES(3, 1), 0);
    int32_t r2 = graph_reduce(g, "rm", GRAPH_OP_REDUCE_MAX, back, GRAPH_AXES(-1), 1);
    int32_t r3 = graph_reduce(g, "ra", GRAPH_OP_REDUCE_MEAN, back, GRAPH_AXES(0), 0);
    int32_t ln = graph_layernorm(g, "ln", x, ga, be, -1);
    int32_t ln0 = graph_layernorm(g, "ln0", ln, -1, -1, 1);
    int32_t rn = graph_rmsnorm(g, "rn", ln0, ga, 2);
    int32_t rn0 = graph_rmsnorm(g, "rn0", rn, -1, 2);
    int32_t cat = graph_concat(g, "cat", 3, (const int32_t[]){rn0, x, rn0}, 1); /* [2,12,8] */
    int32_t sl = graph_slice(g, "sl", cat, 1, 1, 12, 3);                          /* [2,4,8] */
    int32_t ids = graph_input(g, "ids", LS_DT_INT32, GRAPH_DIMS(2, 4), "batch,seq");
    int32_t emb = graph_weight(g, "emb", LS_DT_FP32, GRAPH_DIMS(100, 8), "vocab,hidden");
    int32_t ge = graph_gather(g, "ge", emb, ids, 0);                              /* [2,4,8] */
    int32_t img = graph_input(g, "img", LS_DT_FP32, GRAPH_DIMS(1, 4, 9, 9),
                              "batch,channels,height,width");
    int32_t cw = graph_weight(g, "cw", LS_DT_FP32, GRAPH_DIMS(8, 2, 3, 3), NULL);
    int32_t cv = graph_conv2d(g, "cv", img, cw, 2, 1, 2);                         /* [1,8,5,5] */
    int32_t sc = graph_weight(g, "bn_scale", LS_DT_FP32, GRAPH_DIMS(8), NULL);
    int32_t sh = graph_weight(g, "bn_shift", LS_DT_FP32, GRAPH_DIMS(8), NULL);
    int32_t bn = graph_batchnorm(g, "bn", cv, sc, sh, 1);
    int32_t bn0 = graph_batchnorm(g, "bn0", bn, -1, -1, 1);
    int32_t pm = graph_pool(g, "pm", GRAPH_OP_POOL_MAX, bn0, 3, 2, 1);            /* [1,8,3,3] */
    int32_t pa = graph_pool(g, "pa", GRAPH_OP_POOL_AVG, pm, 3, 1, 0);             /* [1,8,1,1] */
    int32_t mm2 = graph_matmul_axes(g, "mm2", sl, ge, 2, 2);                      /* [2,4,2,4] */
    graph_output(g, p);
    graph_output(g, r1);
    graph_output(g, r2);
    graph_output(g, r3);
    graph_output(g, pa);
    graph_output(g, mm2);
    graph_output(g, x); /* an input returned directly */
    (void)u;
    return g;
}

static void test_every_kind_round_trip(void **state)
{
    (void)state;
    struct graph *g = all_kinds();
    assert_null(graph_error(g));
    assert_valid(g);
    int seen[GRAPH_OP_COUNT] = {0};
    for (int32_t o = 0; o < graph_nops(g); o++)
        seen[graph_op(g, o)->kind]++;
    for (int k = 0; k < GRAPH_OP_COUNT; k++) {
        if (!seen[k])
            fprintf(stderr, "kind %s missing\n", graph_op_kind_name(k));
        assert_true(seen[k] > 0);
    }
    /* spot-check inferred shapes and propagated roles */
    const struct graph_tensor *t = graph_tensor(g, graph_find_tensor(g, "k.s"));
    assert_int_equal(t->shape.rank, 4);
    assert_int_equal(t->shape.dims[3].size, 4);
    t = graph_tensor(g, graph_find_tensor(g, "k.h"));
    assert_string_equal(t->shape.dims[0].role, "batch");
    assert_string_equal(t->shape.dims[2].role, "ffn");
    t = graph_tensor(g, graph_find_tensor(g, "k.cv"));
    assert_int_equal(t->shape.dims[2].size, 5);
    assert_string_equal(t->shape.dims[1].role, "channels");
    t = graph_tensor(g, graph_find_tensor(g, "k.sl"));
    assert_int_equal(t->shape.dims[1].size, 4);
    t = graph_tensor(g, graph_find_tensor(g, "k.pa"));
    assert_int_equal(t->shape.dims[2].size, 1);
    t = graph_tensor(g, graph_find_tensor(g, "k.mm2"));
    assert_int_equal(t->shape.rank, 4);
    t = graph_tensor(g, graph_find_tensor(g, "k.cst"));
    assert_int_equal(t->dtype, LS_DT_BF16);
    t = graph_tensor(g, graph_find_tensor(g, "k.ge"));
    assert_string_equal(t->shape.dims[1].role, "seq");
    assert_string_equal(t->shape.dims[2].role, "hidden");
    graph_free(round_trip(g));
    graph_free(g);
}

/* Per-kind round trips: one tiny graph per kind, so a failure names the kind. */
static void test_round_trip_per_kind(void **state)
{
    (void)state;
    struct graph *all = all_kinds();
    for (int32_t o = 0; o < graph_nops(all); o++) {
        const struct graph_op *op = graph_op(all, o);
        if (!graph_kind_is_compute(op->kind))
            continue;
        struct graph *g = graph_new(graph_op_kind_name(op->kind));
        int32_t in[8];
        for (int i = 0; i < op->ninputs && i < 8; i++) {
            const struct graph_tensor *t = graph_tensor(all, op->inputs[i]);
            char nm[32];
            snprintf(nm, sizeof nm, "in%d", i);
            in[i] = graph_add_tensor_shape(g, nm, t->dtype, GRAPH_ROLE_INPUT, &t->shape);
            graph_add_op(g, GRAPH_OP_SOURCE, NULL, 0, in[i], NULL);
        }
        const struct graph_tensor *out = graph_tensor(all, op->output);
        int32_t t = graph_add_tensor_shape(g, "out", out->dtype, GRAPH_ROLE_ACTIVATION,
                                           &out->shape);
        graph_add_op(g, op->kind, in, op->ninputs, t, &op->attrs);
        graph_output(g, t);
        assert_null(graph_error(g));
        assert_valid(g);
        graph_free(round_trip(g));
        graph_free(g);
    }
    graph_free(all);
}

/* ---- axis maps ---- */

struct ax {
    enum graph_axis_kind k;
    int out;
};

static void check_map(const struct graph *g, const char *opname, int slot, int rank,
                      const struct ax *want)
{
    struct graph_axis m[GRAPH_MAX_RANK];
    int32_t op = graph_find_op(g, opname);
    assert_true(op >= 0);
    int r = graph_axis_map(g, op, slot, m);
    assert_int_equal(r, rank);
    for (int i = 0; i < r; i++) {
        if (m[i].kind != want[i].k || m[i].out != want[i].out)
            fprintf(stderr, "%s slot %d axis %d: got %s->%d, want %s->%d\n", opname, slot, i,
                    graph_axis_kind_name(m[i].kind), m[i].out, graph_axis_kind_name(want[i].k),
                    want[i].out);
        assert_int_equal(m[i].kind, want[i].k);
        assert_int_equal(m[i].out, want[i].out);
    }
}

#define M(o) {GRAPH_AXIS_MAP, o}
#define BC(o) {GRAPH_AXIS_BROADCAST, o}
#define CT {GRAPH_AXIS_CONTRACT, -1}
#define RD(o) {GRAPH_AXIS_REDUCE, o}
#define NZ(o) {GRAPH_AXIS_NORMALIZE, o}
#define WN(o) {GRAPH_AXIS_WINDOW, o}

static void test_axis_maps(void **state)
{
    (void)state;
    struct graph *g = all_kinds();
    assert_valid(g);
    /* matmul x[2,4,8] @ w[8,16] -> [2,4,16] */
    check_map(g, "k.h", 0, 3, (struct ax[]){M(0), M(1), CT});
    check_map(g, "k.h", 1, 2, (struct ax[]){CT, M(2)});
    /* matmul_axes sl[2,4,8] . ge[2,4,8] contracting 2 with 2 -> [2,4,2,4] */
    check_map(g, "k.mm2", 0, 3, (struct ax[]){M(0), M(1), CT});
    check_map(g, "k.mm2", 1, 3, (struct ax[]){M(2), M(3), CT});
    /* batch_matmul qt[2,2,4,8] x qt^T -> [2,2,4,4]; slot 1 is contracted on its last axis */
    check_map(g, "k.s", 0, 4, (struct ax[]){M(0), M(1), M(2), CT});
    check_map(g, "k.s", 1, 4, (struct ax[]){M(0), M(1), M(3), CT});
    /* p[2,2,4,4] @ qt[2,2,4,8] */
    check_map(g, "k.o", 0, 4, (struct ax[]){M(0), M(1), M(2), CT});
    check_map(g, "k.o", 1, 4, (struct ax[]){M(0), M(1), CT, M(3)});
    /* softmax along the last axis */
    check_map(g, "k.p", 0, 4, (struct ax[]){M(0), M(1), M(2), NZ(3)});
    /* transpose perm 0,2,1,3: in axis 1 -> out 2, in axis 2 -> out 1 */
    check_map(g, "k.qt", 0, 4, (struct ax[]){M(0), M(2), M(1), M(3)});
    /* reshape [2,4,16] -> [2,4,2,8]: the 16 splits into out axes 2..3 */
    check_map(g, "k.q", 0, 3,
              (struct ax[]){M(0), M(1), {GRAPH_AXIS_SPLIT, 2}});
    /* unary: identity; cast too */
    check_map(g, "k.cst", 0, 4, (struct ax[]){M(0), M(1), M(2), M(3)});
    for (int32_t o = 0; o < graph_nops(g); o++) { /* auto-named unary and binary ops */
        const struct graph_op *op = graph_op(g, o);
        if (graph_kind_is_unary(op->kind) || graph_kind_is_binary(op->kind))
            for (int s = 0; s < op->ninputs; s++)
                check_map(g, op->name, s, 4, (struct ax[]){M(0), M(1), M(2), M(3)});
    }
    assert_true(graph_find_op(g, "k.relu_10") >= 0);
    /* reductions: without keep the survivors shift down, with keep they stay */
    check_map(g, "k.rs", 0, 4, (struct ax[]){M(0), RD(-1), M(1), RD(-1)});
    check_map(g, "k.rm", 0, 4, (struct ax[]){M(0), M(1), M(2), RD(3)});
    check_map(g, "k.ra", 0, 4, (struct ax[]){RD(-1), M(0), M(1), M(2)});
    /* layernorm: x normalizes along the axis, gamma/beta map to it */
    check_map(g, "k.ln", 0, 3, (struct ax[]){M(0), M(1), NZ(2)});
    check_map(g, "k.ln", 1, 1, (struct ax[]){M(2)});
    check_map(g, "k.ln", 2, 1, (struct ax[]){M(2)});
    check_map(g, "k.ln0", 0, 3, (struct ax[]){M(0), NZ(1), M(2)});
    check_map(g, "k.rn", 0, 3, (struct ax[]){M(0), M(1), NZ(2)});
    check_map(g, "k.rn", 1, 1, (struct ax[]){M(2)});
    /* batchnorm: per channel, x maps straight through; scale/shift map to channels */
    check_map(g, "k.bn", 0, 4, (struct ax[]){M(0), M(1), M(2), M(3)});
    check_map(g, "k.bn", 1, 1, (struct ax[]){M(1)});
    check_map(g, "k.bn", 2, 1, (struct ax[]){M(1)});
    /* concat along 1 */
    for (int s = 0; s < 3; s++)
        check_map(g, "k.cat", s, 3, (struct ax[]){M(0), {GRAPH_AXIS_CONCAT, 1}, M(2)});
    /* slice along 1 */
    check_map(g, "k.sl", 0, 3, (struct ax[]){M(0), {GRAPH_AXIS_SLICE, 1}, M(2)});
    /* gather emb[100,8] by ids[2,4] on axis 0 -> [2,4,8] */
    check_map(g, "k.ge", 0, 2, (struct ax[]){{GRAPH_AXIS_INDEX, -1}, M(2)});
    check_map(g, "k.ge", 1, 2, (struct ax[]){M(0), M(1)});
    /* grouped conv (groups 2): channels contracted; 3x3 stride 2 windows */
    check_map(g, "k.cv", 0, 4, (struct ax[]){M(0), CT, WN(2), WN(3)});
    check_map(g, "k.cv", 1, 4, (struct ax[]){M(1), CT, CT, CT});
    /* pools keep channels; windows on H, W */
    check_map(g, "k.pm", 0, 4, (struct ax[]){M(0), M(1), WN(2), WN(3)});
    check_map(g, "k.pa", 0, 4, (struct ax[]){M(0), M(1), WN(2), WN(3)});
    /* return: identity */
    check_map(g, "return:k.p", 0, 4, (struct ax[]){M(0), M(1), M(2), M(3)});
    /* out of range */
    struct graph_axis m[GRAPH_MAX_RANK];
    assert_int_equal(graph_axis_map(g, graph_find_op(g, "k.x"), 0, m), -1);
    assert_int_equal(graph_axis_map(g, 100000, 0, m), -1);
    graph_free(g);

    /* fig1: D[1,3] broadcast over B's rows; matmul contraction */
    g = fig1();
    check_map(g, "R", 0, 2, (struct ax[]){BC(0), M(1)});
    check_map(g, "R", 1, 2, (struct ax[]){M(0), M(1)});
    check_map(g, "D", 0, 2, (struct ax[]){RD(0), M(1)});
    check_map(g, "C", 0, 2, (struct ax[]){M(0), CT});
    check_map(g, "C", 1, 2, (struct ax[]){CT, M(1)});
    graph_free(g);

    /* broadcasting across ranks, depthwise and pointwise conv */
    g = graph_new(NULL);
    int32_t a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(2, 3, 4), NULL);
    int32_t b = graph_input(g, "b", LS_DT_FP32, GRAPH_DIMS(1, 4), NULL);
    graph_binary(g, "ab", GRAPH_OP_MUL, b, a);
    int32_t img = graph_input(g, "img", LS_DT_FP32, GRAPH_DIMS(1, 8, 6, 6), NULL);
    int32_t dw = graph_weight(g, "dw", LS_DT_FP32, GRAPH_DIMS(8, 1, 3, 3), NULL);
    int32_t pw = graph_weight(g, "pw", LS_DT_FP32, GRAPH_DIMS(4, 8, 1, 1), NULL);
    graph_conv2d(g, "dconv", img, dw, 1, 1, 8);
    graph_conv2d(g, "pconv", img, pw, 1, 0, 1);
    assert_valid(g);
    check_map(g, "ab", 0, 2, (struct ax[]){BC(1), M(2)});
    check_map(g, "ab", 1, 3, (struct ax[]){M(0), M(1), M(2)});
    check_map(g, "dconv", 0, 4, (struct ax[]){M(0), M(1), WN(2), WN(3)});
    check_map(g, "pconv", 0, 4, (struct ax[]){M(0), CT, M(2), M(3)});
    graph_free(g);
}

static void test_reshape_maps(void **state)
{
    (void)state;
    struct graph *g = graph_new(NULL);
    int32_t x = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(2, 3, 4, 1), "b,s,h,");
    graph_reshape(g, "merge", x, GRAPH_DIMS(6, 4), NULL);      /* 2,3 merge; 1 dropped */
    graph_reshape(g, "regroup", x, GRAPH_DIMS(3, 2, 4), NULL); /* 2x3 -> 3x2 */
    graph_reshape(g, "grow", x, GRAPH_DIMS(1, 2, 3, 4), NULL); /* new leading 1 */
    int32_t y = graph_input(g, "y", LS_DT_FP32, GRAPH_DIMS(24), NULL);
    graph_reshape(g, "split", y, GRAPH_DIMS(2, 3, 4), "b,,h");
    assert_valid(g);
    check_map(g, "merge", 0, 4,
              (struct ax[]){{GRAPH_AXIS_MERGE, 0}, {GRAPH_AXIS_MERGE, 0}, M(1),
                            {GRAPH_AXIS_DROP, -1}});
    check_map(g, "regroup", 0, 4,
              (struct ax[]){{GRAPH_AXIS_REGROUP, 0}, {GRAPH_AXIS_REGROUP, 0}, M(2),
                            {GRAPH_AXIS_DROP, -1}});
    /* the trailing size-1 axis has no partner: dropped (the new leading 1 is fresh) */
    check_map(g, "grow", 0, 4, (struct ax[]){M(1), M(2), M(3), {GRAPH_AXIS_DROP, -1}});
    check_map(g, "split", 0, 1, (struct ax[]){{GRAPH_AXIS_SPLIT, 0}});
    struct graph_axis m[GRAPH_MAX_RANK];
    graph_axis_map(g, graph_find_op(g, "split"), 0, m);
    assert_int_equal(m[0].out_n, 3);
    graph_axis_map(g, graph_find_op(g, "regroup"), 0, m);
    assert_int_equal(m[0].out_n, 2);
    /* roles: kept where axes map one to one, and given ones win */
    const struct graph_tensor *t = graph_tensor(g, graph_find_tensor(g, "merge"));
    assert_null(t->shape.dims[0].role);
    assert_string_equal(t->shape.dims[1].role, "h");
    t = graph_tensor(g, graph_find_tensor(g, "split"));
    assert_string_equal(t->shape.dims[0].role, "b");
    assert_null(t->shape.dims[1].role);
    graph_free(round_trip(g));
    graph_free(g);
}

/* ---- validation and builder errors ---- */

static void expect_invalid(struct graph *g, const char *needle)
{
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(graph_validate(g, &err), LS_ERR_INPUT);
    if (!strstr(err.msg, needle))
        fprintf(stderr, "message '%s' lacks '%s'\n", err.msg, needle);
    assert_non_null(strstr(err.msg, needle));
    graph_free(g);
}

static void test_validation(void **state)
{
    (void)state;
    /* a cycle built with the low-level API */
    struct graph *g = graph_new(NULL);
    int32_t a = graph_add_tensor(g, "a", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(4), NULL);
    int32_t b = graph_add_tensor(g, "b", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(4), NULL);
    graph_add_op(g, GRAPH_OP_RELU, &a, 1, b, NULL);
    graph_add_op(g, GRAPH_OP_RELU, &b, 1, a, NULL);
    assert_null(graph_error(g));
    expect_invalid(g, "cycle");

    /* two producers */
    g = graph_new(NULL);
    a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(4), NULL);
    b = graph_add_tensor(g, "b", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(4), NULL);
    int32_t c = graph_add_tensor(g, "c", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(4), NULL);
    graph_add_op(g, GRAPH_OP_RELU, &a, 1, b, NULL);
    graph_add_op(g, GRAPH_OP_EXP, &c, 1, b, NULL); /* op name 'b' again */
    assert_non_null(graph_error(g));
    assert_non_null(strstr(graph_error(g)->msg, "used twice"));
    expect_invalid(g, "used twice");

    /* no producer */
    g = graph_new(NULL);
    graph_add_tensor(g, "lonely", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(4), NULL);
    expect_invalid(g, "0 producers");

    /* declared shape disagrees with inference */
    g = graph_new(NULL);
    a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(4, 8), NULL);
    b = graph_add_tensor(g, "b", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(8, 4), NULL);
    graph_add_op(g, GRAPH_OP_RELU, &a, 1, b, NULL);
    expect_invalid(g, "declared shape [8,4]");

    /* attribute out of range */
    g = graph_new(NULL);
    a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(4, 8), NULL);
    b = graph_add_tensor(g, "b", LS_DT_FP32, GRAPH_ROLE_ACTIVATION, GRAPH_DIMS(4, 8), NULL);
    struct graph_attrs at;
    memset(&at, 0, sizeof at);
    at.axis = 2;
    graph_add_op(g, GRAPH_OP_SOFTMAX, &a, 1, b, &at);
    expect_invalid(g, "axis 2 out of range");

    /* a returned tensor must have role output, and only once */
    g = graph_new(NULL);
    a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(4), NULL);
    b = graph_unary(g, "b", GRAPH_OP_RELU, a);
    graph_output(g, b);
    graph_output(g, b);
    expect_invalid(g, "used twice");

    g = graph_new(NULL);
    a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(4), NULL);
    b = graph_add_tensor(g, "b", LS_DT_FP32, GRAPH_ROLE_OUTPUT, GRAPH_DIMS(4), NULL);
    graph_add_op(g, GRAPH_OP_RELU, &a, 1, b, NULL);
    expect_invalid(g, "not returned");

    /* sticky builder error: later calls return -1, validate reports the first error */
    g = graph_new(NULL);
    a = graph_input(g, "a", LS_DT_FP32, GRAPH_DIMS(4, 8), NULL);
    b = graph_weight(g, "b", LS_DT_FP32, GRAPH_DIMS(4, 3), NULL);
    c = graph_matmul(g, "c", a, b);
    assert_int_equal(c, -1);
    assert_int_equal(graph_unary(g, "d", GRAPH_OP_RELU, c), -1);
    assert_int_equal(graph_output(g, c), -1);
    assert_int_equal(graph_input(g, "e", LS_DT_FP32, GRAPH_DIMS(1), NULL), -1);
    expect_invalid(g, "contraction sizes differ");

    /* builder argument checks */
    g = graph_new(NULL);
    assert_int_equal(graph_input(g, "bad name", LS_DT_FP32, GRAPH_DIMS(1), NULL), -1);
    expect_invalid(g, "bad tensor name");
    g = graph_new(NULL);
    assert_int_equal(graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(2, 2), "a,b,c"), -1);
    expect_invalid(g, "role list");
    g = graph_new(NULL);
    a = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(2, 2), NULL);
    assert_int_equal(graph_unary(g, "y", GRAPH_OP_ADD, a), -1);
    expect_invalid(g, "not a unary");
    g = graph_new(NULL);
    a = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(2, 2), NULL);
    b = graph_input(g, "i", LS_DT_FP32, GRAPH_DIMS(3), NULL);
    assert_int_equal(graph_gather(g, "y", a, b, 0), -1);
    expect_invalid(g, "must be int32");
    g = graph_new(NULL);
    a = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(1, 3, 4, 4), NULL);
    b = graph_weight(g, "w", LS_DT_FP32, GRAPH_DIMS(4, 3, 5, 5), NULL);
    assert_int_equal(graph_conv2d(g, "y", a, b, 1, 0, 1), -1);
    expect_invalid(g, "does not fit");
    g = graph_new(NULL);
    a = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(6), NULL);
    assert_int_equal(graph_reshape(g, "y", a, GRAPH_DIMS(4), NULL), -1);
    expect_invalid(g, "6 elements");
    g = graph_new(NULL);
    a = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(6, 2), NULL);
    assert_int_equal(graph_transpose(g, "y", a, (const int[]){0, 0}), -1);
    expect_invalid(g, "used twice");
    g = graph_new(NULL);
    a = graph_input(g, "x", LS_DT_FP32, GRAPH_DIMS(6, 2), NULL);
    assert_int_equal(graph_slice(g, "y", a, 0, 4, 2, 1), -1);
    expect_invalid(g, "begin < end");
}

static void test_topo_and_equal(void **state)
{
    (void)state;
    struct graph *g = fig1();
    int32_t order[16];
    struct ls_error err;
    assert_int_equal(graph_topo_order(g, order, &err), 0);
    for (int i = 0; i < graph_nops(g); i++)
        assert_int_equal(order[i], i);
    struct graph *h = fig1();
    assert_true(graph_equal(g, h, NULL, 0));
    graph_set_name(h, "other");
    char why[128];
    assert_false(graph_equal(g, h, why, sizeof why));
    assert_non_null(strstr(why, "names differ"));
    graph_free(h);
    /* same structure, different attribute */
    h = graph_new("fig1");
    int32_t a = graph_input(h, "A", LS_DT_FP32, GRAPH_DIMS(4, 8), NULL);
    int32_t b = graph_input(h, "B", LS_DT_FP32, GRAPH_DIMS(8, 3), NULL);
    int32_t c = graph_matmul(h, "C", a, b);
    int32_t d = graph_reduce(h, "D", GRAPH_OP_REDUCE_MAX, c, GRAPH_AXES(0), 1);
    graph_output(h, graph_binary(h, "R", GRAPH_OP_ADD, d, b));
    assert_false(graph_equal(g, h, why, sizeof why));
    graph_free(h);
    graph_free(g);
}

/* ---- reader ---- */

static int read_str(const char *text, struct ls_error *err)
{
    struct graph *g = NULL;
    ls_error_clear(err);
    int rc = graph_read("t.lg", text, strlen(text), &g, err);
    graph_free(g);
    return rc;
}

static void test_reader_features(void **state)
{
    (void)state;
    struct ls_error err;
    /* defaults, negative axes, single-value pairs, comments, tabs */
    const char *ok =
        "# comment\n"
        "lg 1\n"
        "input x\tfp32 [n:1,c:4,h:8,w:8]   # trailing comment\n"
        "weight k fp32 [4,4,3,3]\n"
        "op y fp32 [1,4,4,4] = conv2d x k stride=2 pad=1\n"
        "op z fp32 [1,4,4] = reduce_mean y axes=-1\n"
        "op s fp32 [1,4,4] = softmax z\n"
        "op t fp32 [1,2,4] = slice s axis=1 begin=2\n"
        "op u fp32 [4,2,1] = transpose t\n"
        "output u\n";
    assert_int_equal(read_str(ok, &err), 0);
    struct graph *g = NULL;
    assert_int_equal(graph_read("t.lg", ok, strlen(ok), &g, &err), 0);
    const struct graph_op *op = graph_op(g, graph_find_op(g, "y"));
    assert_int_equal(op->attrs.stride[1], 2);
    assert_int_equal(op->attrs.pad[0], 1);
    assert_int_equal(op->attrs.groups, 1);
    op = graph_op(g, graph_find_op(g, "z"));
    assert_int_equal(op->attrs.axes[0], 3);
    op = graph_op(g, graph_find_op(g, "t"));
    assert_int_equal(op->attrs.end, 4);
    assert_string_equal(graph_tensor(g, graph_find_tensor(g, "x"))->shape.dims[1].role, "c");
    graph_free(round_trip(g));
    graph_free(g);

    /* scalars and rank-0 broadcasting */
    assert_int_equal(read_str("lg 1\ninput a fp32 []\ninput b fp32 [3]\n"
                              "op c fp32 [3] = mul a b\noutput c\n", &err), 0);

    /* errors carry line and column */
    assert_int_equal(read_str("lg 1\ninput a fp32 [4,x]\n", &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 2);
    assert_int_equal(err.col, 17);
    assert_int_equal(read_str("lg 1\ninput a fp32 [4]\nop b fp32 [4] = relu c\n", &err),
                     LS_ERR_INPUT);
    assert_int_equal(err.line, 3);
    assert_int_equal(err.col, 22);
    assert_non_null(strstr(err.msg, "unknown tensor 'c'"));
    assert_int_equal(read_str("", &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 1);
    assert_int_equal(read_str("lg 1\ninput a fp32 [4]\nop b fp32 [4] = relu a\0\n", &err), 0);
    /* an embedded NUL is an error */
    struct graph *h = NULL;
    assert_int_equal(graph_read("t.lg", "lg 1\n\0", 6, &h, &err), LS_ERR_INPUT);
    assert_null(h);
}

/* Every malformed file under tests/data/bad fails with a located LS_ERR_INPUT. */
static void test_bad_files(void **state)
{
    (void)state;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/tests/data/bad", LAYSIM_SOURCE_DIR);
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        size_t len = strlen(e->d_name);
        if (len < 4 || strcmp(e->d_name + len - 3, ".lg"))
            continue;
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct graph *g = NULL;
        struct ls_error err;
        ls_error_clear(&err);
        int rc = graph_read_file(path, &g, &err);
        if (rc != LS_ERR_INPUT || err.line < 1 || err.col < 1)
            fprintf(stderr, "%s: rc %d line %d col %d: %s\n", e->d_name, rc, err.line, err.col,
                    err.msg);
        assert_int_equal(rc, LS_ERR_INPUT);
        assert_null(g);
        assert_true(err.line >= 1);
        assert_true(err.col >= 1);
        n++;
    }
    closedir(d);
    assert_true(n >= 15);
}

/* Deterministic mutations of the example files: every result is either a valid graph that
 * round-trips or an LS_ERR_INPUT with a line and column (the sanitizer build checks memory). */
static void test_reader_mutations(void **state)
{
    (void)state;
    static const char *const files[] = {"fig1.lg", "fig2.lg"};
    static const char alphabet[] = "[],:=#-0123456789 \tabx\n";
    struct ls_rng rng;
    ls_rng_seed(&rng, 12345);
    int valid = 0, invalid = 0;
    for (int f = 0; f < 2; f++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/examples/%s", LAYSIM_SOURCE_DIR, files[f]);
        char *data;
        size_t len;
        struct ls_error err;
        assert_int_equal(ls_read_file(path, &data, &len, &err), 0);
        char *buf = malloc(len + 64);
        assert_non_null(buf);
        for (int iter = 0; iter < 1500; iter++) {
            memcpy(buf, data, len);
            size_t n = len;
            int edits = 1 + (int)ls_rng_below(&rng, 3);
            for (int e = 0; e < edits && n > 0; e++) {
                size_t at = ls_rng_below(&rng, n);
                switch (ls_rng_below(&rng, 3)) {
                case 0: /* replace */
                    buf[at] = alphabet[ls_rng_below(&rng, sizeof alphabet - 1)];
                    break;
                case 1: /* delete */
                    memmove(buf + at, buf + at + 1, n - at - 1);
                    n--;
                    break;
                default: /* insert */
                    if (n + 1 < len + 64) {
                        memmove(buf + at + 1, buf + at, n - at);
                        buf[at] = alphabet[ls_rng_below(&rng, sizeof alphabet - 1)];
                        n++;
                    }
                }
            }
            struct graph *g = NULL;
            ls_error_clear(&err);
            int rc = graph_read("mut.lg", buf, n, &g, &err);
            if (rc == 0) {
                valid++;
                assert_int_equal(graph_validate(g, &err), 0);
                graph_free(round_trip(g));
                graph_free(g);
            } else {
                invalid++;
                if (rc != LS_ERR_INPUT || err.line < 1 || err.col < 1)
                    fprintf(stderr, "%.*s\n-> rc %d %d:%d %s\n", (int)n, buf, rc, err.line,
                            err.col, err.msg);
                assert_int_equal(rc, LS_ERR_INPUT);
                assert_true(err.line >= 1 && err.col >= 1);
                assert_null(g);
            }
        }
        free(buf);
        free(data);
    }
    assert_true(valid > 0);
    assert_true(invalid > 0);
}

static void test_json_and_dot(void **state)
{
    (void)state;
    struct graph *g = fig1();
    char *buf = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&buf, &len);
    struct ls_error err;
    assert_int_equal(graph_write_dot(g, fp, &err), 0);
    fclose(fp);
    assert_non_null(strstr(buf, "digraph \"fig1\""));
    assert_non_null(strstr(buf, "n2 -> n3"));
    free(buf);
    graph_free(g);
}

/* Every limit of the builder is one the reader accepts: a graph at each edge writes and
 * reads back; one step past each edge is refused by the builder, not by a later read. */
static void test_limits_agree(void **state)
{
    (void)state;
    char name[GRAPH_MAX_NAME + 2], role[GRAPH_MAX_ROLE + 2];
    memset(name, 'n', sizeof name - 1), name[GRAPH_MAX_NAME] = 0;
    memset(role, 'r', sizeof role - 1), role[GRAPH_MAX_ROLE] = 0;
    struct graph *g = graph_new(name);
    const int64_t edge[] = {GRAPH_MAX_DIM, GRAPH_MAX_ELEMS / GRAPH_MAX_DIM};
    int32_t a = graph_input(g, name, LS_DT_BF16, 2, edge, NULL);
    assert_true(a >= 0);
    assert_int_equal(graph_set_dim_role(g, a, 0, role), 0);
    const int64_t six[GRAPH_MAX_RANK] = {2, 2, 2, 2, 2, 2};
    int32_t b = graph_input(g, "six", LS_DT_FP32, GRAPH_MAX_RANK, six, NULL);
    assert_true(b >= 0);
    assert_true(graph_output(g, graph_unary(g, "r", GRAPH_OP_RELU, a)) >= 0);
    assert_true(graph_output(g, graph_unary(g, "s", GRAPH_OP_RELU, b)) >= 0);
    assert_valid(g);
    graph_free(round_trip(g));
    graph_free(g);

    struct {
        int64_t sizes[2];
        int name_len, role_len;
    } past[] = {
        {{GRAPH_MAX_DIM + 1, 1}, 1, 0},
        {{GRAPH_MAX_DIM, GRAPH_MAX_ELEMS / GRAPH_MAX_DIM + 1}, 1, 0},
        {{1, 1}, GRAPH_MAX_NAME + 1, 0},
        {{1, 1}, 1, GRAPH_MAX_ROLE + 1},
    };
    for (size_t i = 0; i < sizeof past / sizeof *past; i++) {
        char nm[GRAPH_MAX_NAME + 2], rl[GRAPH_MAX_ROLE + 2];
        memset(nm, 'n', (size_t)past[i].name_len), nm[past[i].name_len] = 0;
        memset(rl, 'r', (size_t)past[i].role_len), rl[past[i].role_len] = 0;
        g = graph_new(NULL);
        int32_t t = graph_input(g, nm, LS_DT_BF16, 2, past[i].sizes, NULL);
        if (t >= 0 && past[i].role_len)
            graph_set_dim_role(g, t, 0, rl);
        struct ls_error err;
        ls_error_clear(&err);
        assert_int_equal(graph_validate(g, &err), LS_ERR_INPUT);
        graph_free(g);
    }
    g = graph_new(NULL);
    memset(name, 'n', sizeof name - 1), name[sizeof name - 1] = 0;
    assert_int_equal(graph_set_name(g, name), -1);
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fig1_builder),
        cmocka_unit_test(test_long_names),
        cmocka_unit_test(test_examples),
        cmocka_unit_test(test_every_kind_round_trip),
        cmocka_unit_test(test_round_trip_per_kind),
        cmocka_unit_test(test_axis_maps),
        cmocka_unit_test(test_reshape_maps),
        cmocka_unit_test(test_validation),
        cmocka_unit_test(test_topo_and_equal),
        cmocka_unit_test(test_reader_features),
        cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_reader_mutations),
        cmocka_unit_test(test_json_and_dot),
        cmocka_unit_test(test_limits_agree),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
