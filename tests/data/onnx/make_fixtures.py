#!/usr/bin/python3
"""Writes the small ONNX fixtures of tests/data/onnx (run by hand when they change; needs
Debian's python3-onnx, which the build and the tests do not). Weights are initializers
without data or graph inputs (export_params=False style): the importer reads shapes only."""
import os
import onnx
from onnx import TensorProto as T, helper as h

HERE = os.path.dirname(os.path.abspath(__file__))


def shape_only(name, dims, dtype=T.FLOAT):
    """An initializer with dims and no data (the importer never reads float data)."""
    t = onnx.TensorProto()
    t.name, t.data_type = name, dtype
    t.dims.extend(dims)
    return t


def ints(name, vals):
    return h.make_tensor(name, T.INT64, [len(vals)], vals)


def save(model, path):
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, path))


def tiny_cnn():
    n = [
        h.make_node("Conv", ["x", "conv1.weight"], ["c1"], "/conv1/Conv", kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], strides=[2, 2]),
        h.make_node("BatchNormalization", ["c1", "bn.s", "bn.b", "bn.m", "bn.v"], ["b1"], "/bn1/BN"),
        h.make_node("Clip", ["b1", "lo", "hi"], ["r1"], "/relu6"),
        h.make_node("MaxPool", ["r1"], ["p1"], "/pool", kernel_shape=[3, 3], strides=[2, 2],
                    pads=[0, 0, 1, 1], ceil_mode=1),
        h.make_node("Conv", ["p1", "dw.weight"], ["d1"], "/dw/Conv", kernel_shape=[3, 3],
                    pads=[1, 1, 1, 1], group=8),
        h.make_node("HardSwish", ["d1"], ["hs"], "/hswish"),
        h.make_node("Resize", ["hs", "", "scales"], ["up"], "/up/Resize", mode="nearest"),
        h.make_node("Pad", ["up", "pads"], ["pd"], "/pad"),
        h.make_node("ConvTranspose", ["pd", "deconv.weight"], ["ct"], "/deconv",
                    kernel_shape=[2, 2], strides=[2, 2]),
        h.make_node("Concat", ["ct", "ct"], ["cat"], "/cat", axis=1),
        h.make_node("GlobalAveragePool", ["cat"], ["gap"], "/gap"),
        h.make_node("Flatten", ["gap"], ["flat"], "/flatten"),
        h.make_node("Gemm", ["flat", "fc.weight", "fc.bias"], ["logits"], "/fc/Gemm", transB=1),
    ]
    inits = [shape_only("conv1.weight", [8, 3, 3, 3]), shape_only("bn.s", [8]),
             shape_only("bn.b", [8]), shape_only("bn.m", [8]), shape_only("bn.v", [8]),
             h.make_tensor("lo", T.FLOAT, [], [0.0]), h.make_tensor("hi", T.FLOAT, [], [6.0]),
             shape_only("dw.weight", [8, 1, 3, 3]),
             h.make_tensor("scales", T.FLOAT, [4], [1.0, 1.0, 2.0, 2.0]),
             ints("pads", [0, 0, 1, 1, 0, 0, 1, 1]), shape_only("deconv.weight", [8, 4, 2, 2]),
             shape_only("fc.bias", [10])]
    g = h.make_graph(n, "tiny_cnn",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", 3, 32, 32]),
                      h.make_tensor_value_info("fc.weight", T.FLOAT, [10, 8])],
                     [h.make_tensor_value_info("logits", T.FLOAT, ["batch", 10])], inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "tiny_cnn.onnx")


def tiny_attn():
    """One attention block with the shape arithmetic torch exports for dynamic axes."""
    n = [
        h.make_node("LayerNormalization", ["x", "ln.g", "ln.b"], ["ln"], "/ln", axis=-1),
        h.make_node("MatMul", ["ln", "qkv.weight"], ["qkv"], "/qkv/MatMul"),
        h.make_node("Split", ["qkv", "split"], ["q", "k", "v"], "/split", axis=2),
        h.make_node("Shape", ["x"], ["shp"], "/shape"),
        h.make_node("Gather", ["shp", "i0"], ["bsz"], "/g0", axis=0),
        h.make_node("Gather", ["shp", "i1"], ["len"], "/g1", axis=0),
        h.make_node("Unsqueeze", ["bsz", "ax0"], ["bsz1"], "/u0"),
        h.make_node("Unsqueeze", ["len", "ax0"], ["len1"], "/u1"),
        h.make_node("Concat", ["bsz1", "len1", "heads"], ["hs"], "/hs", axis=0),
        h.make_node("Reshape", ["q", "hs"], ["q4"], "/q/Reshape"),
        h.make_node("Reshape", ["k", "hs"], ["k4"], "/k/Reshape"),
        h.make_node("Reshape", ["v", "hs"], ["v4"], "/v/Reshape"),
        h.make_node("Transpose", ["q4"], ["qt"], "/q/T", perm=[0, 2, 1, 3]),
        h.make_node("Transpose", ["k4"], ["kt"], "/k/T", perm=[0, 2, 3, 1]),
        h.make_node("Transpose", ["v4"], ["vt"], "/v/T", perm=[0, 2, 1, 3]),
        h.make_node("MatMul", ["qt", "kt"], ["s"], "/scores"),
        h.make_node("Div", ["s", "scale"], ["sd"], "/scale"),
        h.make_node("Where", ["mask", "sd", "neg"], ["sm"], "/mask"),
        h.make_node("Softmax", ["sm"], ["p"], "/softmax", axis=-1),
        h.make_node("Einsum", ["p", "vt"], ["o"], "/pv", equation="bhqk,bhkd->bhqd"),
        h.make_node("Transpose", ["o"], ["ot"], "/o/T", perm=[0, 2, 1, 3]),
        h.make_node("Reshape", ["ot", "flat"], ["of"], "/o/Reshape"),
        h.make_node("Gemm", ["of", "proj.weight"], ["pj"], "/proj/Gemm"),
        h.make_node("Reshape", ["pj", "shp"], ["pr"], "/proj/Reshape"),
        h.make_node("Add", ["x", "pr"], ["res"], "/res"),
        h.make_node("Mul", ["res", "half"], ["h1"], "/gelu/mul"),
        h.make_node("Div", ["res", "sqrt2"], ["h2"], "/gelu/div"),
        h.make_node("Erf", ["h2"], ["h3"], "/gelu/erf"),
        h.make_node("Add", ["h3", "one"], ["h4"], "/gelu/add"),
        h.make_node("Mul", ["h1", "h4"], ["y"], "/gelu/out"),
        h.make_node("ReduceMean", ["y"], ["pooled"], "/pool", axes=[1], keepdims=0),
        h.make_node("ArgMax", ["pooled"], ["cls"], "/argmax", axis=-1, keepdims=0),
    ]
    inits = [shape_only("ln.g", [32]), shape_only("ln.b", [32]),
             shape_only("qkv.weight", [32, 96]), ints("split", [32, 32, 32]),
             ints("i0", [0]), ints("i1", [1]), ints("ax0", [0]), ints("heads", [4, 8]),
             h.make_tensor("scale", T.FLOAT, [], [2.828]), h.make_tensor("neg", T.FLOAT, [], [-1e4]),
             ints("flat", [-1, 32]), shape_only("proj.weight", [32, 32]),
             h.make_tensor("half", T.FLOAT, [], [0.5]), h.make_tensor("sqrt2", T.FLOAT, [], [1.414]),
             h.make_tensor("one", T.FLOAT, [], [1.0])]
    for t in inits:   # the indices Gather takes as scalars
        if t.name in ("i0", "i1"):
            del t.dims[:]
    g = h.make_graph(n, "tiny_attn",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", "sequence", 32]),
                      h.make_tensor_value_info("mask", T.BOOL, ["batch", 1, 1, "sequence"])],
                     [h.make_tensor_value_info("cls", T.INT64, ["batch"])], inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "tiny_attn.onnx")


def conv1d():
    """1-D Conv and MaxPool with 1-entry strides/dilations and 2-entry pads (silero-vad's STFT
    conv), in a graph whose name is no valid IR name (PaddlePaddle's exports)."""
    n = [h.make_node("Conv", ["x", "w"], ["c"], "conv1d", strides=[2], dilations=[2],
                     pads=[3, 5]),
         h.make_node("MaxPool", ["c"], ["y"], "pool1d", kernel_shape=[3], strides=[2],
                     pads=[1, 1])]
    g = h.make_graph(n, "Model from Test.",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", 4, 64])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [shape_only("w", [8, 4, 16])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "conv1d.onnx")


def one_channel():
    """A ConvTranspose to one output channel over a 256x256 image (PaddleOCR's DB head)."""
    n = [h.make_node("ConvTranspose", ["x", "w", "b"], ["y"], "up", strides=[2, 2])]
    g = h.make_graph(n, "one_channel",
                     [h.make_tensor_value_info("x", T.FLOAT, [1, 4, 128, 128])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [shape_only("w", [4, 1, 2, 2]), shape_only("b", [1])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 11)]), "one_channel.onnx")


def narrow():
    """A Conv over one input channel and a Gemm to a single output element (openWakeWord's
    models): both are rewritten into forms the IR can partition."""
    n = [h.make_node("Conv", ["x", "w"], ["c"], "conv", pads=[1, 1, 1, 1]),
         h.make_node("GlobalAveragePool", ["c"], ["p"], "gap"),
         h.make_node("Flatten", ["p"], ["f"], "flat"),
         h.make_node("Gemm", ["f", "fc_w", "fc_b"], ["y"], "fc", transB=1)]
    g = h.make_graph(n, "narrow",
                     [h.make_tensor_value_info("x", T.FLOAT, [1, 1, 16, 16])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [shape_only("w", [4, 1, 3, 3]), shape_only("fc_w", [1, 4]),
                      shape_only("fc_b", [1])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "narrow.onnx")


def group_norm():
    """PyTorch's GroupNorm(4, 8) export at opsets 11-17: a reshape to [N, groups, -1], an
    InstanceNormalization with ones/zeros of the groups, the input's shape back, then the
    affine Mul/Add; and an InstanceNorm2d(8, affine=True) on the result."""
    n = [h.make_node("Conv", ["x", "w"], ["c"], "/conv/Conv", kernel_shape=[3, 3],
                     pads=[1, 1, 1, 1]),
         h.make_node("Reshape", ["c", "grp"], ["g"], "/gn/Reshape"),
         h.make_node("InstanceNormalization", ["g", "ones", "zeros"], ["gi"],
                     "/gn/InstanceNormalization", epsilon=1e-5),
         h.make_node("Shape", ["c"], ["cs"], "/gn/Shape"),
         h.make_node("Reshape", ["gi", "cs"], ["gr"], "/gn/Reshape_1"),
         h.make_node("Mul", ["gr", "gn.weight"], ["gm"], "/gn/Mul"),
         h.make_node("Add", ["gm", "gn.bias"], ["ga"], "/gn/Add"),
         h.make_node("InstanceNormalization", ["ga", "in.weight", "in.bias"], ["y"],
                     "/in/InstanceNormalization", epsilon=1e-5)]
    inits = [shape_only("w", [8, 3, 3, 3]), ints("grp", [0, 4, -1]),
             h.make_tensor("ones", T.FLOAT, [4], [1.0] * 4),
             h.make_tensor("zeros", T.FLOAT, [4], [0.0] * 4),
             shape_only("gn.weight", [8, 1, 1]), shape_only("gn.bias", [8, 1, 1]),
             shape_only("in.weight", [8]), shape_only("in.bias", [8])]
    g = h.make_graph(n, "group_norm",
                     [h.make_tensor_value_info("x", T.FLOAT, ["batch", 3, 16, 16])],
                     [h.make_tensor_value_info("y", T.FLOAT, ["batch", 8, 16, 16])], inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "group_norm.onnx")


def fixed_batch():
    """Inputs that declare their batch: [1,4,4,4] flattened by a constant [1,64] target (an
    export with a dummy batch of 1, which --batch 4 cannot take), and [8,16]."""
    n = [h.make_node("Relu", ["x"], ["r"], "relu"),
         h.make_node("Reshape", ["r", "target"], ["f"], "flatten"),
         h.make_node("Gemm", ["f", "w"], ["y"], "fc")]
    g = h.make_graph(n, "batch1", [h.make_tensor_value_info("x", T.FLOAT, [1, 4, 4, 4])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)],
                     [ints("target", [1, 64]), shape_only("w", [64, 10])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "batch1.onnx")
    n = [h.make_node("Gemm", ["x", "w"], ["y"], "fc")]
    g = h.make_graph(n, "batch8", [h.make_tensor_value_info("x", T.FLOAT, [8, 16])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)], [shape_only("w", [16, 4])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "batch8.onnx")


def rnn():
    """PyTorch's LSTM and GRU exports: LSTM(8, 32) over x [sequence, batch, 8] with B and zero
    initial states, its Y squeezed into GRU(32, 16) (linear_before_reset=1, as PyTorch writes
    it) whose Y_h feeds a Gemm; and a bidirectional batch-first LSTM feeding a reverse GRU
    without linear_before_reset over a fixed 6 steps; a plain (tanh) RNN over 5 steps."""
    n = [h.make_node("LSTM", ["x", "lstm.W", "lstm.R", "lstm.B", "", "h0", "c0"],
                     ["ly", "lh", "lc"], "/lstm/LSTM", hidden_size=32),
         h.make_node("Squeeze", ["ly", "ax1"], ["ls"], "/lstm/Squeeze"),
         h.make_node("GRU", ["ls", "gru.W", "gru.R", "gru.B", "", "g0"], ["gy", "gh"],
                     "/gru/GRU", hidden_size=16, linear_before_reset=1),
         h.make_node("Squeeze", ["gh", "ax0"], ["gs"], "/gru/Squeeze"),
         h.make_node("Gemm", ["gs", "fc.weight"], ["y"], "/fc/Gemm", transB=1)]
    inits = [shape_only("lstm.W", [1, 128, 8]), shape_only("lstm.R", [1, 128, 32]),
             shape_only("lstm.B", [1, 256]), shape_only("h0", [1, 1, 32]),
             shape_only("c0", [1, 1, 32]), ints("ax1", [1]), ints("ax0", [0]),
             shape_only("gru.W", [1, 48, 32]), shape_only("gru.R", [1, 48, 16]),
             shape_only("gru.B", [1, 96]), shape_only("g0", [1, 1, 16]),
             shape_only("fc.weight", [4, 16])]
    g = h.make_graph(n, "rnn", [h.make_tensor_value_info("x", T.FLOAT, ["sequence", 1, 8])],
                     [h.make_tensor_value_info("y", T.FLOAT, [1, 4])], inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 14)]), "rnn.onnx")
    n = [h.make_node("LSTM", ["x", "W", "R"], ["ly"], "bilstm", hidden_size=8,
                     direction="bidirectional", layout=1),
         h.make_node("Reshape", ["ly", "flat"], ["lf"], "merge_dirs"),
         h.make_node("GRU", ["lf", "gW", "gR", "gB"], ["", "gh"], "rgru", hidden_size=8,
                     direction="reverse", layout=1)]
    inits = [shape_only("W", [2, 32, 4]), shape_only("R", [2, 32, 8]), ints("flat", [2, 6, 16]),
             shape_only("gW", [1, 24, 16]), shape_only("gR", [1, 24, 8]),
             shape_only("gB", [1, 48])]
    g = h.make_graph(n, "rnn_bidir", [h.make_tensor_value_info("x", T.FLOAT, [2, 6, 4])],
                     [h.make_tensor_value_info("gh", T.FLOAT, [2, 1, 8])], inits)
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 14)]), "rnn_bidir.onnx")
    n = [h.make_node("RNN", ["x", "W", "R", "B"], ["y", "yh"], "rnn", hidden_size=8)]
    g = h.make_graph(n, "rnn_tanh", [h.make_tensor_value_info("x", T.FLOAT, [5, 2, 4])],
                     [h.make_tensor_value_info("y", T.FLOAT, [5, 1, 2, 8]),
                      h.make_tensor_value_info("yh", T.FLOAT, [1, 2, 8])],
                     [shape_only("W", [1, 8, 4]), shape_only("R", [1, 8, 8]),
                      shape_only("B", [1, 16])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 14)]), "rnn_tanh.onnx")


def bad_rnn():
    x = [h.make_tensor_value_info("x", T.FLOAT, [4, 1, 8])]
    y = [h.make_tensor_value_info("y", T.FLOAT, None)]
    pp = h.make_graph([h.make_node("LSTM", ["x", "W", "R", "", "", "", "", "P"], ["y"],
                                   "lstm_peep", hidden_size=4)], "peep", x, y,
                      [shape_only("W", [1, 16, 8]), shape_only("R", [1, 16, 4]),
                       shape_only("P", [1, 12])])
    save(h.make_model(pp, opset_imports=[h.make_opsetid("", 14)]), "bad/lstm_peephole.onnx")
    ws = h.make_graph([h.make_node("GRU", ["x", "W", "R"], ["y"], "gru_w", hidden_size=4)],
                      "gru_w", x, y, [shape_only("W", [1, 12, 6]), shape_only("R", [1, 12, 4])])
    save(h.make_model(ws, opset_imports=[h.make_opsetid("", 14)]), "bad/gru_w_shape.onnx")


def bad_instance_norm():
    x = [h.make_tensor_value_info("x", T.FLOAT, [1, 8, 4, 4])]
    y = [h.make_tensor_value_info("y", T.FLOAT, None)]
    sc = h.make_graph([h.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], "in_scale")],
                      "in_scale", x, y, [shape_only("s", [4]), shape_only("b", [8])])
    save(h.make_model(sc, opset_imports=[h.make_opsetid("", 13)]), "bad/instance_norm_scale.onnx")
    x2 = [h.make_tensor_value_info("x", T.FLOAT, [2, 8])]
    rk = h.make_graph([h.make_node("InstanceNormalization", ["x", "s", "b"], ["y"], "in_rank")],
                      "in_rank", x2, y, [shape_only("s", [8]), shape_only("b", [8])])
    save(h.make_model(rk, opset_imports=[h.make_opsetid("", 13)]), "bad/instance_norm_rank.onnx")


def bad():
    x = [h.make_tensor_value_info("x", T.FLOAT, [2, 3])]
    y = [h.make_tensor_value_info("y", T.FLOAT, [2, 3])]
    cyc = h.make_graph([h.make_node("Add", ["x", "z"], ["y"], "add_in_cycle"),
                        h.make_node("Relu", ["y"], ["z"], "relu_in_cycle")], "cycle", x, y)
    save(h.make_model(cyc), "bad/cycle.onnx")
    miss = h.make_graph([h.make_node("Add", ["x", "nowhere"], ["y"], "add_missing")],
                        "missing", x, y)
    save(h.make_model(miss), "bad/missing_input.onnx")
    uns = h.make_graph([h.make_node("Unique", ["x"], ["y"], "uq")], "unsupported", x, y)
    save(h.make_model(uns), "bad/unsupported.onnx")
    rank = h.make_graph([h.make_node("Conv", ["x", "w"], ["y"], "conv_on_a_matrix")], "rank",
                        x, y, [shape_only("w", [3, 3, 1, 1])])
    save(h.make_model(rank), "bad/wrong_rank.onnx")
    unk = h.make_graph([h.make_node("Relu", ["x2"], ["y"], "relu")], "unknown",
                       [h.make_tensor_value_info("x2", T.FLOAT, [1, "height"])], y)
    save(h.make_model(unk), "bad/unknown_dim.onnx")
    whole = open(os.path.join(HERE, "tiny_cnn.onnx"), "rb").read()
    open(os.path.join(HERE, "bad/truncated.onnx"), "wb").write(whole[: len(whole) // 2])
    # field 7 (graph) written as a varint instead of a message
    open(os.path.join(HERE, "bad/wrong_type.onnx"), "wb").write(bytes([0x08, 0x08, 0x38, 0x05]))


def control_flow():
    """If on a shape-derived condition (its then branch with an initializer of its own), If
    on an input's value (--input sr=:16000), a Loop whose trip count is a dim (unrolled),
    and a 1x1 conv to one channel over a single pixel."""
    vi = h.make_tensor_value_info
    mm = h.make_graph([h.make_node("MatMul", ["x", "then.w"], ["mm"], "/then/MatMul"),
                       h.make_node("Relu", ["mm"], ["ty"], "/then/Relu")], "then", [],
                      [vi("ty", T.FLOAT, [1, 8, 16])], [shape_only("then.w", [16, 16])])
    sg = h.make_graph([h.make_node("Sigmoid", ["x"], ["ey"], "/else/Sigmoid")], "else", [],
                      [vi("ey", T.FLOAT, [1, 8, 16])])
    n = [h.make_node("Shape", ["x"], ["shp"], "/Shape"),
         h.make_node("Gather", ["shp", "one"], ["len"], "/Gather", axis=0),
         h.make_node("Greater", ["len", "four"], ["long"], "/Greater"),
         h.make_node("If", ["long"], ["y"], "/if_long", then_branch=mm, else_branch=sg)]
    g = h.make_graph(n, "if_shape", [vi("x", T.FLOAT, [1, 8, 16])], [vi("y", T.FLOAT, None)],
                     [h.make_tensor("one", T.INT64, [], [1]),
                      h.make_tensor("four", T.INT64, [], [4])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "if_shape.onnx")

    tg = h.make_graph([h.make_node("Relu", ["x"], ["r"], "/then/Relu")], "t", [],
                      [vi("r", T.FLOAT, [1, 16])])
    eg = h.make_graph([h.make_node("Tanh", ["x"], ["e"], "/else/Tanh")], "e", [],
                      [vi("e", T.FLOAT, [1, 16])])
    n = [h.make_node("Equal", ["sr", "k16"], ["is16"], "/Equal"),
         h.make_node("If", ["is16"], ["y"], "/if_rate", then_branch=tg, else_branch=eg)]
    g = h.make_graph(n, "if_value", [vi("x", T.FLOAT, [1, 16]), vi("sr", T.INT64, [])],
                     [vi("y", T.FLOAT, None)], [h.make_tensor("k16", T.INT64, [], [16000])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "if_value.onnx")

    body = h.make_graph(
        [h.make_node("Identity", ["c_in"], ["c_out"], "/body/cond"),
         h.make_node("Gather", ["x", "i"], ["xt"], "/body/Gather", axis=1),
         h.make_node("MatMul", ["xt", "body.w"], ["xw"], "/body/MatMul"),
         h.make_node("Add", ["xw", "h_in"], ["s"], "/body/Add"),
         h.make_node("Tanh", ["s"], ["h_out"], "/body/Tanh"),
         h.make_node("Identity", ["h_out"], ["h_scan"], "/body/scan")],
        "body", [vi("i", T.INT64, []), vi("c_in", T.BOOL, []), vi("h_in", T.FLOAT, [1, 16])],
        [vi("c_out", T.BOOL, []), vi("h_out", T.FLOAT, [1, 16]), vi("h_scan", T.FLOAT, [1, 16])],
        [shape_only("body.w", [16, 16])])
    n = [h.make_node("Shape", ["x"], ["shp"], "/Shape"),
         h.make_node("Gather", ["shp", "one"], ["steps"], "/Gather", axis=0),
         h.make_node("Loop", ["steps", "true", "h0"], ["h", "hs"], "/loop", body=body)]
    g = h.make_graph(n, "loop_shape", [vi("x", T.FLOAT, [1, 4, 16])],
                     [vi("h", T.FLOAT, None), vi("hs", T.FLOAT, None)],
                     [h.make_tensor("one", T.INT64, [], [1]), h.make_tensor("true", T.BOOL, [], [1]),
                      shape_only("h0", [1, 16])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "loop_shape.onnx")

    # a while loop on a tensor condition (no trip count): exit 2 naming the node
    wb = h.make_graph([h.make_node("ReduceMax", ["h_in"], ["m"], "/wb/max", keepdims=0),
                       h.make_node("Less", ["m", "lim"], ["c_out"], "/wb/less"),
                       h.make_node("Relu", ["h_in"], ["h_out"], "/wb/relu")], "wbody",
                      [vi("i", T.INT64, []), vi("c_in", T.BOOL, []), vi("h_in", T.FLOAT, [1, 16])],
                      [vi("c_out", T.BOOL, []), vi("h_out", T.FLOAT, [1, 16])],
                      [h.make_tensor("lim", T.FLOAT, [], [1.0])])
    g = h.make_graph([h.make_node("Loop", ["", "true", "x"], ["h"], "/while", body=wb)], "while",
                     [vi("x", T.FLOAT, [1, 16])], [vi("h", T.FLOAT, None)],
                     [h.make_tensor("true", T.BOOL, [], [1])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "bad/loop_while.onnx")

    n = [h.make_node("Conv", ["x", "head.weight", "head.bias"], ["y"], "/head/Conv",
                     kernel_shape=[1])]
    g = h.make_graph(n, "one_pixel", [vi("x", T.FLOAT, [1, 128, 1])], [vi("y", T.FLOAT, None)],
                     [shape_only("head.weight", [1, 128, 1]), shape_only("head.bias", [1])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "one_pixel.onnx")


def move_ops():
    """DepthToSpace (DCR and CRD), SpaceToDepth, Trilu with k, and an Einsum spelled in
    capitals with spaces (maxvit's)."""
    vi = h.make_tensor_value_info
    n = [h.make_node("DepthToSpace", ["x"], ["dcr"], "/d2s_dcr", blocksize=2),
         h.make_node("DepthToSpace", ["x"], ["crd"], "/d2s_crd", blocksize=2, mode="CRD"),
         h.make_node("SpaceToDepth", ["dcr"], ["back"], "/s2d", blocksize=2),
         h.make_node("Trilu", ["att", "k1"], ["tri"], "/Trilu", upper=1),
         h.make_node("Einsum", ["q", "k"], ["s"], "/Einsum", equation="B H I D, B H J D -> B H I J")]
    g = h.make_graph(n, "move_ops", [vi("x", T.FLOAT, [1, 12, 4, 5]), vi("att", T.FLOAT, [1, 2, 6, 6]),
                                     vi("q", T.FLOAT, [1, 2, 6, 8]), vi("k", T.FLOAT, [1, 2, 7, 8])],
                     [vi("crd", T.FLOAT, None), vi("back", T.FLOAT, None), vi("tri", T.FLOAT, None),
                      vi("s", T.FLOAT, None)], [h.make_tensor("k1", T.INT64, [], [1])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 14)]), "move_ops.onnx")


def pool_one():
    """2-D MaxPool and AveragePool over one image of one channel (N = C = 1)."""
    n = [h.make_node("MaxPool", ["x"], ["m"], "/max", kernel_shape=[2, 2], strides=[2, 2]),
         h.make_node("AveragePool", ["m"], ["y"], "/avg", kernel_shape=[3, 3], pads=[1, 1, 1, 1])]
    g = h.make_graph(n, "pool_one", [h.make_tensor_value_info("x", T.FLOAT, [1, 1, 64, 64])],
                     [h.make_tensor_value_info("y", T.FLOAT, None)])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "pool_one.onnx")


def detect():
    """Detection post-processing as torchvision's SSD exports it: NonZero of a score mask,
    GatherND of the kept scores, TopK of them; NonMaxSuppression of boxes over 3 classes;
    fasterrcnn's resize to a size computed through Reciprocal, then RoiAlign."""
    vi = h.make_tensor_value_info
    n = [h.make_node("Greater", ["scores", "thr"], ["mask"], "/Greater"),
         h.make_node("NonZero", ["mask"], ["nz"], "/NonZero"),
         h.make_node("Transpose", ["nz"], ["idx"], "/Transpose", perm=[1, 0]),
         h.make_node("GatherND", ["scores", "idx"], ["kept"], "/GatherND"),
         h.make_node("TopK", ["kept", "k"], ["top", "top_i"], "/TopK"),
         h.make_node("NonMaxSuppression", ["boxes", "cls", "m"], ["sel"], "/nms"),
         # fasterrcnn's transform: a size computed from the image's by Reciprocal (folded)
         h.make_node("Shape", ["f"], ["fs"], "/Shape"),
         h.make_node("Gather", ["fs", "two"], ["fh"], "/Gather", axis=0),
         h.make_node("Cast", ["fh"], ["fhf"], "/Cast", to=T.FLOAT),
         h.make_node("Reciprocal", ["fhf"], ["inv"], "/Reciprocal"),
         h.make_node("Mul", ["inv", "k200"], ["side"], "/Mul"),
         h.make_node("Floor", ["side"], ["sidef"], "/Floor"),
         h.make_node("Cast", ["sidef"], ["sidei"], "/Cast_1", to=T.INT64),
         h.make_node("Concat", ["nc", "sidei", "sidei"], ["sizes"], "/Concat", axis=0),
         h.make_node("Resize", ["f", "", "", "sizes"], ["big"], "/Resize", mode="linear"),
         h.make_node("RoiAlign", ["big", "rois", "bi"], ["pooled"], "/RoiAlign",
                     output_height=7, output_width=7)]
    g = h.make_graph(n, "detect", [vi("scores", T.FLOAT, [100]), vi("boxes", T.FLOAT, [1, 50, 4]),
                                   vi("cls", T.FLOAT, [1, 3, 50]), vi("f", T.FLOAT, [1, 8, 10, 10]),
                                   vi("rois", T.FLOAT, [5, 4]), vi("bi", T.INT64, [5])],
                     [vi("top", T.FLOAT, None), vi("top_i", T.INT64, None), vi("sel", T.INT64, None),
                      vi("pooled", T.FLOAT, None)],
                     [h.make_tensor("thr", T.FLOAT, [], [0.5]), h.make_tensor("k", T.INT64, [1], [10]),
                      h.make_tensor("m", T.INT64, [1], [5]), h.make_tensor("two", T.INT64, [1], [2]),
                      h.make_tensor("k200", T.FLOAT, [], [200.0]),
                      h.make_tensor("nc", T.INT64, [2], [1, 8])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "detect.onnx")


def conv3d():
    """A 3-D Conv (r3d_18's form: bias, pads 1, depth stride 2) then a global average pool."""
    vi = h.make_tensor_value_info
    n = [h.make_node("Conv", ["x", "c3.weight", "c3.bias"], ["y"], "/c3/Conv",
                     kernel_shape=[3, 3, 3], pads=[1, 1, 1, 1, 1, 1], strides=[2, 1, 1]),
         h.make_node("Relu", ["y"], ["r"], "/relu"),
         h.make_node("GlobalAveragePool", ["r"], ["g"], "/gap")]
    g = h.make_graph(n, "conv3d", [vi("x", T.FLOAT, [1, 4, 6, 10, 10])], [vi("g", T.FLOAT, None)],
                     [shape_only("c3.weight", [8, 4, 3, 3, 3]), shape_only("c3.bias", [8])])
    save(h.make_model(g, opset_imports=[h.make_opsetid("", 13)]), "conv3d.onnx")


ALL = [tiny_cnn, tiny_attn, conv1d, one_channel, narrow, group_norm, fixed_batch, rnn, bad,
       bad_instance_norm, bad_rnn, control_flow, move_ops, pool_one, detect, conv3d]

if __name__ == "__main__":
    import sys
    # no argument: every fixture; else only the named ones (make_fixtures.py group_norm)
    for f in ALL:
        if len(sys.argv) < 2 or f.__name__ in sys.argv[1:]:
            f()
