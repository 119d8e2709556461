/* graph/hlo: the XLA HLO text reader's pieces (module parsing, shapes and layouts,
 * attribute values, sniffing) and small modules imported op by op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "graph/graph.h"
#include "graph/hlo.h"
#include "graph/import/hlo_int.h"

static const char *MOD =
    "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[3]{0}}\n"
    "\n"
    "%sum (a: f32[], b: f32[]) -> f32[] {\n"
    "  %a = f32[] parameter(0)\n"
    "  %b = f32[] parameter(1)\n"
    "  ROOT %s = f32[] add(%a, %b) /* comment */\n"
    "}, execution_thread=\"main\"\n"
    "// a line comment\n"
    "ENTRY %main (x: f32[2,3]) -> (f32[3], bf16[2,3]) {\n"
    "  %x = f32[2,3]{0,1} parameter(0), metadata={op_name=\"jit(f)/x\" source_line=3}\n"
    "  %z = f32[] constant(0)\n"
    "  %r = f32[3]{0} reduce(f32[2,3]{0,1} %x, f32[] %z), dimensions={0}, to_apply=%sum\n"
    "  %c = bf16[2,3]{1,0} convert(%x)\n"
    "  ROOT %t = (f32[3]{0}, bf16[2,3]{1,0}) tuple(%r, %c)\n"
    "}\n";

static void test_parse(void **state)
{
    (void)state;
    struct hlo_module m;
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(hlo_parse("m.hlo", MOD, strlen(MOD), &m, &err), 0);
    assert_int_equal(m.ncomps, 2);
    assert_int_equal(m.entry, 1);
    const struct hlo_comp *e = &m.comps[1];
    assert_true(hlo_span_is(&e->name, "main"));
    assert_int_equal(e->nins, 5);
    assert_int_equal(e->root, 4);
    const struct hlo_instr *x = &e->ins[0], *r = &e->ins[2], *t = &e->ins[4];
    assert_int_equal(x->shape.rank, 2);
    assert_int_equal(x->shape.dims[1], 3);
    assert_int_equal(x->shape.nlayout, 2);
    assert_int_equal(x->shape.layout[0], 0);   /* {0,1}: axis 0 minor */
    assert_int_equal(x->name.line, 10);
    assert_int_equal(x->name.col, 4);
    assert_true(hlo_span_is(&r->opcode, "reduce"));
    assert_int_equal(r->nops, 2);
    assert_int_equal(r->opi[0], 0);
    assert_int_equal(r->opi[1], 1);
    assert_non_null(hlo_attr_find(r, "to_apply"));
    int comp;
    assert_int_equal(hlo_attr_comp(&m, hlo_attr_find(r, "to_apply"), 1, &comp, &err), 0);
    assert_int_equal(comp, 0);
    assert_int_equal(t->shape.tuple, 1);
    assert_int_equal(t->shape.nelems, 2);
    assert_int_equal(t->shape.elems[1].dt, LS_DT_BF16);
    assert_int_equal(m.comps[0].ins[0].shape.rank, 0);
    hlo_module_free(&m);
}

/* Attribute values read from one instruction that carries them all. */
static const char *ATTRS =
    "HloModule a\n"
    "ENTRY %e {\n"
    "  ROOT %p = f32[1,2,3,4]{3,2,1,0} parameter(0), window={size=3x5 stride=2x1 "
    "pad=1_2x-1_0 rhs_dilate=1x2}, dim_labels=b01f_01io->bf01, slice={[0:1], [1:2:1], "
    "[0:3:2], [2:4]}, padding=0_0x1_2x0_0_1x3_-1, dims={3,1}, bad={1,,2}, bad2=b0f_01io->bf01\n"
    "}\n";

static void test_attrs(void **state)
{
    (void)state;
    struct hlo_module m;
    struct ls_error err;
    ls_error_clear(&err);
    assert_int_equal(hlo_parse("a.hlo", ATTRS, strlen(ATTRS), &m, &err), 0);
    const struct hlo_instr *p = &m.comps[0].ins[0];
    struct hlo_window w;
    assert_int_equal(hlo_attr_window(&m, hlo_attr_find(p, "window"), &w, &err), 0);
    assert_int_equal(w.n, 2);
    assert_int_equal(w.size[1], 5);
    assert_int_equal(w.stride[0], 2);
    assert_int_equal(w.lo[0], 1);
    assert_int_equal(w.hi[0], 2);
    assert_int_equal(w.lo[1], -1);
    assert_int_equal(w.rdil[1], 2);
    assert_int_equal(w.ldil[0], 1);
    struct hlo_dimlabels d;
    assert_int_equal(hlo_attr_dimlabels(&m, hlo_attr_find(p, "dim_labels"), &d, &err), 0);
    assert_int_equal(d.rank, 4);
    assert_int_equal(d.axes[0][1], 3);   /* input feature f is axis 3 (NHWC) */
    assert_int_equal(d.axes[1][0], 3);   /* filter output feature o is axis 3 (HWIO) */
    assert_int_equal(d.axes[1][1], 2);
    assert_int_equal(d.axes[2][1], 1);   /* output NCHW */
    int64_t b[4], e[4], s[4], lo[4], hi[4], in[4];
    assert_int_equal(hlo_attr_slice(&m, hlo_attr_find(p, "slice"), 4, b, e, s, &err), 0);
    assert_int_equal(b[1], 1);
    assert_int_equal(s[2], 2);
    assert_int_equal(e[3], 4);
    assert_int_equal(hlo_attr_slice(&m, hlo_attr_find(p, "slice"), 3, b, e, s, &err),
                     LS_ERR_INPUT);
    assert_int_equal(hlo_attr_padding(&m, hlo_attr_find(p, "padding"), 4, lo, hi, in, &err), 0);
    assert_int_equal(hi[1], 2);
    assert_int_equal(in[2], 1);
    assert_int_equal(hi[3], -1);
    int64_t v[6];
    int n;
    assert_int_equal(hlo_attr_ints(&m, hlo_attr_find(p, "dims"), v, 6, &n, &err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(v[0], 3);
    /* errors point into the value: bad={1,,2} at its second comma */
    ls_error_clear(&err);
    assert_int_equal(hlo_attr_ints(&m, hlo_attr_find(p, "bad"), v, 6, &n, &err), LS_ERR_INPUT);
    assert_int_equal(err.line, 3);
    const struct hlo_attr *bad = hlo_attr_find(p, "bad");
    assert_int_equal(err.col, bad->val.col + 3);
    ls_error_clear(&err);
    assert_int_equal(hlo_attr_dimlabels(&m, hlo_attr_find(p, "bad2"), &d, &err), LS_ERR_INPUT);
    assert_non_null(strstr(err.msg, "different ranks"));
    hlo_module_free(&m);
}

static void test_sniff(void **state)
{
    (void)state;
    const char *yes[] = {"HloModule m\n", "  /* x */\n// y\nHloModule jit_f, is_scheduled=true"};
    const char *no[] = {"lg 1\n", "{\"HloModule\": 1}", "HloModuleX", "/* HloModule m"};
    for (size_t i = 0; i < 2; i++)
        assert_true(hlo_sniff(yes[i], strlen(yes[i])));
    for (size_t i = 0; i < 4; i++)
        assert_false(hlo_sniff(no[i], strlen(no[i])));
}

/* Each malformed text fails at the expected line and column. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int line, col;
        const char *msg;
    } cases[] = {
        {"HloModule m\nENTRY %e {\n  %x = f32[2]{0} parameter(0)\n", 2, 10, "never closed"},
        {"HloModule m\nENTRY %e {\n  ROOT %x = f32[2 parameter(0)\n}\n", 3, 19, "','"},
        {"HloModule m\nENTRY %e {\n  ROOT %x = f33[2] parameter(0)\n}\n", 3, 13, "f33"},
        {"HloModule m\nENTRY %e {\n  ROOT %x = f32[2]{1} parameter(0)\n}\n", 3, 19, "layout"},
        {"HloModule m\nENTRY %e {\n  ROOT %x = f32[2] frobnicate(0)\n}\n", 3, 20, "unknown opcode"},
        {"HloModule m\nENTRY %e {\n  %x = f32[2] parameter(0)\n  %x = f32[2] tanh(%x)\n}\n", 4,
         4, "defined twice"},
        {"HloModule m\n%f {\n  ROOT %x = f32[2] parameter(0)\n}\n", 5, 1, "no ENTRY"},
        {"HloModule m\nENTRY %e {\n  ROOT %x = f32[<=2] parameter(0)\n}\n", 3, 17, "dynamic"},
        {"Hlo m\n", 1, 1, "HloModule"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct hlo_module m;
        struct ls_error err;
        ls_error_clear(&err);
        int rc = hlo_parse("e.hlo", cases[i].text, strlen(cases[i].text), &m, &err);
        hlo_module_free(&m);
        if (rc != LS_ERR_INPUT || err.line != cases[i].line || err.col != cases[i].col ||
            !strstr(err.msg, cases[i].msg))
            fail_msg("case %zu: rc %d at %d:%d '%s'", i, rc, err.line, err.col, err.msg);
    }
}

static const struct graph_op *op_of(const struct graph *g, const char *tensor)
{
    int32_t t = graph_find_tensor(g, tensor);
    assert_true(t >= 0);
    return graph_op(g, graph_tensor(g, t)->producer);
}

/* The small module imported: reduce with its to_apply, a convert, a tuple of outputs, the
 * {0,1} layout read (and not kept: the IR has no layout). */
static void test_import(void **state)
{
    (void)state;
    struct graph *g = NULL;
    struct ls_error err;
    assert_int_equal(hlo_import("m.hlo", MOD, strlen(MOD), &g, &err), 0);
    assert_int_equal(op_of(g, "r")->kind, GRAPH_OP_REDUCE_SUM);
    assert_int_equal(op_of(g, "r")->attrs.axes[0], 0);
    assert_int_equal(op_of(g, "c")->kind, GRAPH_OP_CAST);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "x"))->role, GRAPH_ROLE_INPUT);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "r"))->role, GRAPH_ROLE_OUTPUT);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "c"))->role, GRAPH_ROLE_OUTPUT);
    assert_int_equal(graph_find_tensor(g, "z"), -1);   /* the init value is not read */
    graph_free(g);
}

/* A broadcast bias feeds the add without a materialized copy; broadcast to a consumer that
 * does not broadcast (a dot) is an add of a zero block, named after that consumer; a root that is a parameter is
 * copied; a dead instruction is not emitted. */
static void test_broadcast(void **state)
{
    (void)state;
    static const char *text =
        "HloModule b\n"
        "ENTRY %e {\n"
        "  %x = f32[4,8] parameter(0)\n"
        "  %v = f32[8] parameter(1)\n"
        "  %bv = f32[4,8] broadcast(%v), dimensions={1}\n"
        "  %a = f32[4,8] add(%x, %bv)\n"
        "  %dead = f32[4,8] tanh(%a)\n"
        "  %w = f32[8,2] broadcast(%v), dimensions={0}\n"
        "  %d = f32[4,2] dot(%a, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
        "  ROOT %t = (f32[4,2], f32[4,8]) tuple(%d, %x)\n"
        "}\n";
    struct graph *g = NULL;
    struct ls_error err;
    assert_int_equal(hlo_import("b.hlo", text, strlen(text), &g, &err), 0);
    const struct graph_op *a = op_of(g, "a");
    assert_int_equal(a->kind, GRAPH_OP_ADD);
    assert_int_equal(graph_tensor(g, a->inputs[1])->shape.dims[0].size, 1);   /* [1,8] */
    assert_int_equal(op_of(g, "d.bcast")->kind, GRAPH_OP_ADD);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "d.zeros"))->shape.dims[1].size, 2);
    assert_int_equal(op_of(g, "t.out")->kind, GRAPH_OP_COPY);
    assert_int_equal(graph_find_tensor(g, "dead"), -1);
    graph_free(g);
}

/* A fusion operand that the fused computation never reads is not imported (nor what only
 * it needs). */
static void test_dead_fusion_operand(void **state)
{
    (void)state;
    static const char *text =
        "HloModule d\n"
        "%f (p: f32[8,16], q: f32[8,16]) -> f32[8,16] {\n"
        "  %p = f32[8,16]{1,0} parameter(0)\n"
        "  %q = f32[8,16]{1,0} parameter(1)\n"
        "  ROOT %e = f32[8,16]{1,0} exponential(%p)\n"
        "}\n"
        "%g (a: f32[8,16], b: f32[8,16]) -> f32[8,16] {\n"
        "  %a = f32[8,16]{1,0} parameter(0)\n"
        "  %b = f32[8,16]{1,0} parameter(1)\n"
        "  ROOT %h = f32[8,16]{1,0} fusion(%b, %a), kind=kLoop, calls=%f\n"
        "}\n"
        "ENTRY %e {\n"
        "  %x = f32[8,16]{1,0} parameter(0)\n"
        "  %t = f32[8,16]{1,0} tanh(%x)\n"
        "  %s = f32[8,16]{1,0} sine(%x)\n"
        "  ROOT %y = f32[8,16]{1,0} call(%t, %s), to_apply=%g\n"
        "}\n";
    struct graph *g = NULL;
    struct ls_error err;
    assert_int_equal(hlo_import("d.hlo", text, strlen(text), &g, &err), 0);
    assert_int_equal(graph_find_tensor(g, "t"), -1);   /* g's a: f's q, never read */
    assert_int_equal(op_of(g, "y.h.e")->kind, GRAPH_OP_EXP);
    assert_int_equal(op_of(g, "s")->kind, GRAPH_OP_TANH);
    assert_int_equal(graph_nops(g), 4);   /* x, s, y.h.e, return */
    graph_free(g);
}

/* A weight read by two dots, and a scalar constant broadcast into two adds, are each made
 * once (no second weight named w_2 / c_2). */
static void test_shared_weight(void **state)
{
    (void)state;
    static const char *text =
        "HloModule w\n"
        "ENTRY %e {\n"
        "  %x = f32[4,8] parameter(0)\n"
        "  %w = f32[8,8] parameter(1)\n"
        "  %c = f32[] constant(1)\n"
        "  %cb = f32[4,8] broadcast(%c), dimensions={}\n"
        "  %d1 = f32[4,8] dot(%x, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
        "  %a1 = f32[4,8] add(%d1, %cb)\n"
        "  %d2 = f32[4,8] dot(%a1, %w), lhs_contracting_dims={1}, rhs_contracting_dims={0}\n"
        "  ROOT %a2 = f32[4,8] add(%d2, %cb)\n"
        "}\n";
    struct graph *g = NULL;
    struct ls_error err;
    assert_int_equal(hlo_import("w.hlo", text, strlen(text), &g, &err), 0);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "w"))->role, GRAPH_ROLE_WEIGHT);
    assert_int_equal(graph_find_tensor(g, "w_2"), -1);
    assert_int_equal(graph_find_tensor(g, "c_2"), -1);
    assert_int_equal(graph_tensor(g, graph_find_tensor(g, "c"))->nuses, 2);
    graph_free(g);
}

/* An NHWC convolution's result stays NCHW through a bias add and cancels against an
 * explicit transpose to NCHW; a global pool (reduce over H, W) reads it as it is; a reader
 * that needs NHWC (a reshape) gets one transpose back. */
static void test_pending_transpose(void **state)
{
    (void)state;
    static const char *text =
        "HloModule t\n"
        "%sum (p: f32[], q: f32[]) -> f32[] {\n"
        "  %p = f32[] parameter(0)\n"
        "  %q = f32[] parameter(1)\n"
        "  ROOT %s = f32[] add(%p, %q)\n"
        "}\n"
        "ENTRY %e {\n"
        "  %x = f32[1,8,8,4] parameter(0)\n"
        "  %w = f32[3,3,4,6] parameter(1)\n"
        "  %b = f32[6] parameter(2)\n"
        "  %c = f32[1,8,8,6] convolution(%x, %w), window={size=3x3 pad=1_1x1_1}, "
        "dim_labels=b01f_01io->b01f\n"
        "  %bb = f32[1,8,8,6] broadcast(%b), dimensions={3}\n"
        "  %a = f32[1,8,8,6] add(%c, %bb)\n"
        "  %n = f32[1,6,8,8] transpose(%a), dimensions={0,3,1,2}\n"
        "  %h = f32[1,6,8,8] tanh(%n)\n"
        "  %r = f32[64,6] reshape(%a)\n"
        "  %z = f32[] constant(0)\n"
        "  %gap = f32[1,6] reduce(%a, %z), dimensions={1,2}, to_apply=%sum\n"
        "  ROOT %t = (f32[1,6,8,8], f32[64,6], f32[1,6]) tuple(%h, %r, %gap)\n"
        "}\n";
    struct graph *g = NULL;
    struct ls_error err;
    assert_int_equal(hlo_import("t.hlo", text, strlen(text), &g, &err), 0);
    const struct graph_op *a = op_of(g, "a");
    assert_int_equal(graph_tensor(g, a->inputs[0])->shape.dims[1].size, 6);   /* NCHW */
    assert_int_equal(graph_tensor(g, a->inputs[1])->shape.dims[1].size, 6);   /* [1,6,1,1] */
    assert_int_equal(op_of(g, "h")->inputs[0], graph_find_tensor(g, "a"));    /* cancelled */
    const struct graph_op *gap = op_of(g, "gap");   /* H, W of NHWC are axes 2, 3 of NCHW */
    assert_int_equal(gap->inputs[0], graph_find_tensor(g, "a"));
    assert_int_equal(gap->attrs.axes[0], 2);
    assert_int_equal(gap->attrs.axes[1], 3);
    const struct graph_op *back = op_of(g, "r.back");
    assert_int_equal(back->kind, GRAPH_OP_TRANSPOSE);
    assert_int_equal(graph_tensor(g, back->output)->shape.dims[3].size, 6);   /* NHWC */
    int transposes = 0;
    for (int32_t i = 0; i < graph_nops(g); i++)
        transposes += graph_op(g, i)->kind == GRAPH_OP_TRANSPOSE;
    assert_int_equal(transposes, 2);   /* the input's to NCHW and r.back */
    graph_free(g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),  cmocka_unit_test(test_attrs),
        cmocka_unit_test(test_sniff),  cmocka_unit_test(test_errors),
        cmocka_unit_test(test_import), cmocka_unit_test(test_broadcast),
        cmocka_unit_test(test_dead_fusion_operand), cmocka_unit_test(test_shared_weight),
        cmocka_unit_test(test_pending_transpose),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
