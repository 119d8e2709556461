#!/usr/bin/env python3
"""Write the HLO text fixtures of tests/cli/hlo.sh (run from anywhere; writes beside itself).

transformer.hlo: a decoder of LAYERS blocks (layernorm written out as reduce / broadcast /
elementwise, causal self-attention with batch dots, rotate-half through slice/negate/
concatenate, a GELU fusion, the second layernorm as a call returning a tuple, a bf16 MLP).
cnn.hlo: convolutions in NHWC and NCHW dim_labels, batchnorm as elementwise ops and as
batch-norm-inference, relu as maximum, a max pool as reduce-window, a grouped convolution,
global average pooling.
The text follows XLA's HLO grammar as `--xla_dump_to` writes it; no XLA is needed.
"""
import os
import sys


class Comp:
    """One computation: instructions appended in order, names numbered like XLA's."""

    def __init__(self, mod, name):
        self.mod, self.name, self.lines, self.params = mod, name, [], []

    def ins(self, shape, opcode, operands=(), attrs="", base=None, root=False):
        name = self.mod.fresh(base or opcode)
        ops = ", ".join(f"{self.mod.shapes[o]} %{o}" if self.mod.typed else f"%{o}"
                        for o in operands)
        text = f"{shape} {opcode}({ops})" + (f", {attrs}" if attrs else "")
        self.lines.append(("ROOT " if root else "") + f"%{name} = {text}")
        self.mod.shapes[name] = shape
        if root:
            self.root_shape = shape
        return name

    def param(self, shape, base="Arg"):
        n = len(self.params)
        name = self.mod.fresh(base)
        self.params.append((name, shape))
        self.lines.append(f"%{name} = {shape} parameter({n})")
        self.mod.shapes[name] = shape
        return name

    def text(self, entry=False, root_shape=None):
        sig = ", ".join(f"{n}: {strip_layout(s)}" for n, s in self.params)
        head = ("ENTRY " if entry else "") + f"%{self.name} ({sig}) -> {strip_layout(root_shape)}"
        return head + " {\n" + "".join(f"  {l}\n" for l in self.lines) + "}\n"


def strip_layout(s):
    """The signature's shapes carry no layout: f32[8,4]{1,0} -> f32[8,4]."""
    out, depth = "", 0
    for ch in s:
        depth += ch == "{"
        if not depth:
            out += ch
        depth -= ch == "}"
    return out


class Module:
    def __init__(self, name):
        self.name, self.count, self.shapes, self.comps, self.typed = name, 0, {}, [], False

    def fresh(self, base):
        self.count += 1
        return f"{base}.{self.count}"

    def comp(self, name):
        c = Comp(self, name)
        self.comps.append(c)
        return c


def shp(dt, dims):
    if not dims:
        return f"{dt}[]"
    lay = ",".join(str(i) for i in reversed(range(len(dims))))
    return f"{dt}[{','.join(map(str, dims))}]{{{lay}}}"


def scalar_comp(m, name, op):
    c = m.comp(name)
    x, y = c.param("f32[]", "x"), c.param("f32[]", "y")
    c.ins("f32[]", op, [x, y], root=True)
    return c


def bcast(c, x, dims, out_dims):
    return c.ins(shp("f32", out_dims), "broadcast", [x],
                 "dimensions={" + ",".join(map(str, dims)) + "}")


def c_const(c, value, dims=()):
    name = c.mod.fresh("constant")
    shape = shp("f32", list(dims))
    c.lines.append(f"%{name} = {shape} constant({value})")
    c.mod.shapes[name] = shape
    return name


def layernorm(c, x, gamma, beta, B, S, H, add, tuple_out=False):
    """Layernorm over the last axis written out; returns the normalized tensor."""
    zero = c_const(c, 0)
    s = c.ins(shp("f32", [B, S]), "reduce", [x, zero],
              f"dimensions={{2}}, to_apply=%{add.name}")
    n = bcast(c, c_const(c, float(H)), [], [B, S])
    mean = c.ins(shp("f32", [B, S]), "divide", [s, n])
    xc = c.ins(shp("f32", [B, S, H]), "subtract", [x, bcast(c, mean, [0, 1], [B, S, H])])
    sq = c.ins(shp("f32", [B, S, H]), "multiply", [xc, xc])
    vs = c.ins(shp("f32", [B, S]), "reduce", [sq, zero], f"dimensions={{2}}, to_apply=%{add.name}")
    var = c.ins(shp("f32", [B, S]), "divide", [vs, n])
    ve = c.ins(shp("f32", [B, S]), "add", [var, bcast(c, c_const(c, "1e-05"), [], [B, S])])
    rs = c.ins(shp("f32", [B, S]), "rsqrt", [ve])
    xn = c.ins(shp("f32", [B, S, H]), "multiply", [xc, bcast(c, rs, [0, 1], [B, S, H])])
    xg = c.ins(shp("f32", [B, S, H]), "multiply", [xn, bcast(c, gamma, [2], [B, S, H])])
    out = c.ins(shp("f32", [B, S, H]), "add", [xg, bcast(c, beta, [2], [B, S, H])],
                root=False)
    if tuple_out:
        c.ins(f"({shp('f32', [B, S, H])}, {shp('f32', [B, S])})", "tuple", [out, var],
              root=True)
    return out


def gelu_fusion(m, B, S, F):
    """tanh GELU as a fused computation (0.5 x (1 + tanh(c (x + 0.044715 x^3))))."""
    c = m.comp("fused_gelu")
    d = [B, S, F]
    x = c.param(shp("f32", d), "param_0")
    x3 = c.ins(shp("f32", d), "multiply", [x, c.ins(shp("f32", d), "multiply", [x, x])])
    inner = c.ins(shp("f32", d), "add", [x, c.ins(shp("f32", d), "multiply",
                                                  [x3, bcast(c, c_const(c, "0.044715"), [], d)])])
    t = c.ins(shp("f32", d), "tanh", [c.ins(shp("f32", d), "multiply",
                                            [inner, bcast(c, c_const(c, "0.7978846"), [], d)])])
    one = c.ins(shp("f32", d), "add", [t, bcast(c, c_const(c, 1), [], d)])
    half = c.ins(shp("f32", d), "multiply", [x, bcast(c, c_const(c, "0.5"), [], d)])
    c.ins(shp("f32", d), "multiply", [half, one], root=True)
    return c


def attention(e, m, x, W, B, S, H, NH, mx, add):
    D = H // NH
    qkv = e.ins(shp("f32", [B, S, 3 * H]), "dot", [x, W["qkv"]],
                "lhs_contracting_dims={2}, rhs_contracting_dims={0}")
    qkv = e.ins(shp("f32", [B, S, 3 * H]), "add", [qkv, bcast(e, W["bqkv"], [2], [B, S, 3 * H])])
    heads = []
    for i, nm in enumerate("qkv"):
        sl = e.ins(shp("f32", [B, S, H]), "slice", [qkv],
                   f"slice={{[0:{B}], [0:{S}], [{i * H}:{(i + 1) * H}]}}")
        r = e.ins(shp("f32", [B, S, NH, D]), "reshape", [sl])
        heads.append(e.ins(shp("f32", [B, NH, S, D]), "transpose", [r], "dimensions={0,2,1,3}"))
    q, k, v = heads
    # rotate_half(q): concatenate(-q[..., D/2:], q[..., :D/2])
    h = D // 2
    q1 = e.ins(shp("f32", [B, NH, S, h]), "slice", [q], f"slice={{[0:{B}], [0:{NH}], [0:{S}], [0:{h}]}}")
    q2 = e.ins(shp("f32", [B, NH, S, h]), "slice", [q], f"slice={{[0:{B}], [0:{NH}], [0:{S}], [{h}:{D}]}}")
    rot = e.ins(shp("f32", [B, NH, S, D]), "concatenate",
                [e.ins(shp("f32", [B, NH, S, h]), "negate", [q2]), q1], "dimensions={3}")
    q = e.ins(shp("f32", [B, NH, S, D]), "add", [q, rot])
    s4 = [B, NH, S, S]
    sc = e.ins(shp("f32", s4), "dot", [q, k], "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, "
               "rhs_batch_dims={0,1}, rhs_contracting_dims={3}")
    sc = e.ins(shp("f32", s4), "multiply", [sc, bcast(e, c_const(e, 1.0 / D ** 0.5), [], s4)])
    i0 = e.ins(f"s32[{S},{S}]{{1,0}}", "iota", [], "iota_dimension=0")
    i1 = e.ins(f"s32[{S},{S}]{{1,0}}", "iota", [], "iota_dimension=1")
    mask = e.ins(f"pred[{S},{S}]{{1,0}}", "compare", [i0, i1], "direction=GE")
    maskb = e.ins(f"pred[{B},{NH},{S},{S}]{{3,2,1,0}}", "broadcast", [mask], "dimensions={2,3}")
    sc = e.ins(shp("f32", s4), "select", [maskb, sc, bcast(e, c_const(e, "-1e+09"), [], s4)])
    mxv = e.ins(shp("f32", [B, NH, S]), "reduce", [sc, c_const(e, "-inf")],
                f"dimensions={{3}}, to_apply=%{mx.name}")
    ex = e.ins(shp("f32", s4), "exponential",
               [e.ins(shp("f32", s4), "subtract", [sc, bcast(e, mxv, [0, 1, 2], s4)])])
    den = e.ins(shp("f32", [B, NH, S]), "reduce", [ex, c_const(e, 0)],
                f"dimensions={{3}}, to_apply=%{add.name}")
    p = e.ins(shp("f32", s4), "divide", [ex, bcast(e, den, [0, 1, 2], s4)])
    ctx = e.ins(shp("f32", [B, NH, S, D]), "dot", [p, v], "lhs_batch_dims={0,1}, "
                "lhs_contracting_dims={3}, rhs_batch_dims={0,1}, rhs_contracting_dims={2}")
    ctx = e.ins(shp("f32", [B, S, NH, D]), "transpose", [ctx], "dimensions={0,2,1,3}")
    ctx = e.ins(shp("f32", [B, S, H]), "reshape", [ctx])
    o = e.ins(shp("f32", [B, S, H]), "dot", [ctx, W["o"]],
              "lhs_contracting_dims={2}, rhs_contracting_dims={0}")
    return e.ins(shp("f32", [B, S, H]), "add", [o, bcast(e, W["bo"], [2], [B, S, H])])


def transformer(layers=4, B=1, S=128, H=256, NH=4, F=1024):
    m = Module("jit_transformer_block")
    add = scalar_comp(m, "region_add", "add")
    mx = scalar_comp(m, "region_max", "maximum")
    gelu = gelu_fusion(m, B, S, F)
    ln = m.comp("layernorm")
    lx = ln.param(shp("f32", [B, S, H]), "x")
    lg, lb = ln.param(shp("f32", [H]), "gamma"), ln.param(shp("f32", [H]), "beta")
    layernorm(ln, lx, lg, lb, B, S, H, add, tuple_out=True)
    e = m.comp("main")
    m.typed = True
    tok = e.param(shp("f32", [B, S - 1, H]), "tokens")
    x = e.ins(shp("f32", [B, S, H]), "pad", [tok, c_const(e, 0)], "padding=0_0x1_0x0_0")
    for layer in range(layers):
        W = {k: e.param(shp("f32", d), f"l{layer}_{k}") for k, d in
             [("ln1_g", [H]), ("ln1_b", [H]), ("qkv", [H, 3 * H]), ("bqkv", [3 * H]),
              ("o", [H, H]), ("bo", [H]), ("ln2_g", [H]), ("ln2_b", [H]), ("b1", [F]),
              ("b2", [H])]}
        W["w1"] = e.param(shp("f32", [H, F]), f"l{layer}_w1")
        W["w2"] = e.param(shp("bf16", [F, H]), f"l{layer}_w2")
        h = layernorm(e, x, W["ln1_g"], W["ln1_b"], B, S, H, add)
        x = e.ins(shp("f32", [B, S, H]), "add", [x, attention(e, m, h, W, B, S, H, NH, mx, add)])
        t = e.ins(f"({shp('f32', [B, S, H])}, {shp('f32', [B, S])})", "call",
                  [x, W["ln2_g"], W["ln2_b"]], f"to_apply=%{ln.name}")
        h = e.ins(shp("f32", [B, S, H]), "get-tuple-element", [t], "index=0")
        h = e.ins(shp("f32", [B, S, F]), "dot", [h, W["w1"]],
                  "lhs_contracting_dims={2}, rhs_contracting_dims={0}")
        h = e.ins(shp("f32", [B, S, F]), "add", [h, bcast(e, W["b1"], [2], [B, S, F])])
        h = e.ins(shp("f32", [B, S, F]), "fusion", [h], f"kind=kLoop, calls=%{gelu.name}")
        h = e.ins(shp("bf16", [B, S, F]), "convert", [h])
        h = e.ins(shp("f32", [B, S, H]), "dot", [h, W["w2"]],
                  "lhs_contracting_dims={2}, rhs_contracting_dims={0}")
        h = e.ins(shp("f32", [B, S, H]), "add", [h, bcast(e, W["b2"], [2], [B, S, H])])
        x = e.ins(shp("f32", [B, S, H]), "add", [x, h])
    e.ins(f"({shp('f32', [B, S, H])})", "tuple", [x], root=True)
    return m, f"({shp('f32', [B, S, H])})"


def cnn(B=1, HW=32, C=16):
    m = Module("jit_cnn_block")
    add = scalar_comp(m, "region_add", "add")
    mx = scalar_comp(m, "region_max", "maximum")
    e = m.comp("main")
    m.typed = True
    x = e.param(shp("f32", [B, HW, HW, C]), "image")
    w1 = e.param(shp("f32", [3, 3, C, 32]), "conv1_w")
    d = [B, HW, HW, 32]
    y = e.ins(shp("f32", d), "convolution", [x, w1],
              "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f")
    for nm in ("mean", "scale", "beta"):   # batchnorm as elementwise ops
        p = e.param(shp("f32", [32]), f"bn1_{nm}")
        op = {"mean": "subtract", "scale": "multiply", "beta": "add"}[nm]
        y = e.ins(shp("f32", d), op, [y, bcast(e, p, [3], d)])
    y = e.ins(shp("f32", d), "maximum", [y, bcast(e, c_const(e, 0), [], d)])
    hp = HW // 2   # 3x3 max pool, stride 2, TF SAME padding (0 before, 1 after)
    y = e.ins(shp("f32", [B, hp, hp, 32]), "reduce-window", [y, c_const(e, "-inf")],
              f"window={{size=1x3x3x1 stride=1x2x2x1 pad=0_0x0_1x0_1x0_0}}, to_apply=%{mx.name}")
    yt = e.ins(shp("f32", [B, 32, hp, hp]), "transpose", [y], "dimensions={0,3,1,2}")
    w2 = e.param(shp("f32", [64, 32, 3, 3]), "conv2_w")
    h2 = hp // 2
    d2 = [B, 64, h2, h2]
    y2 = e.ins(shp("f32", d2), "convolution", [yt, w2],
               "window={size=3x3 stride=2x2 pad=0_1x0_1}, dim_labels=bf01_oi01->bf01")
    bn = [e.param(shp("f32", [64]), f"bn2_{k}") for k in ("scale", "offset", "mean", "var")]
    y2 = e.ins(shp("f32", d2), "batch-norm-inference", [y2] + bn,
               "epsilon=0.001, feature_index=1")
    y2 = e.ins(shp("f32", d2), "maximum", [y2, bcast(e, c_const(e, 0), [], d2)])
    wd = e.param(shp("f32", [64, 1, 3, 3]), "dw_w")
    y3 = e.ins(shp("f32", d2), "convolution", [y2, wd],
               "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=64")
    y3 = e.ins(shp("f32", d2), "add", [y3, y2])
    s = e.ins(shp("f32", [B, 64]), "reduce", [y3, c_const(e, 0)],
              f"dimensions={{2,3}}, to_apply=%{add.name}")
    g = e.ins(shp("f32", [B, 64]), "divide", [s, bcast(e, c_const(e, float(h2 * h2)), [], [B, 64])])
    wf = e.param(shp("f32", [64, 10]), "fc_w")
    logits = e.ins(shp("f32", [B, 10]), "dot", [g, wf],
                   "lhs_contracting_dims={1}, rhs_contracting_dims={0}")
    e.ins(shp("f32", [B, 10]), "logistic", [logits], root=True)
    return m, shp("f32", [B, 10])


def write(path, m, root_shape):
    out = [f"HloModule {m.name}, is_scheduled=false\n"]
    for c in m.comps:
        entry = c is m.comps[-1]
        out.append("\n" + c.text(entry, root_shape if entry else c.root_shape))
    with open(path, "w") as f:
        f.write("".join(out))


def main():
    here = os.path.dirname(os.path.abspath(sys.argv[0]))
    write(os.path.join(here, "transformer.hlo"), *transformer())
    write(os.path.join(here, "cnn.hlo"), *cnn())


if __name__ == "__main__":
    main()
