#!/usr/bin/env python3
"""Writes the small TF.js graph-model fixtures of tests/cli/tfjs.sh (run from this directory).

Each fixture is a model.json in the layout tfjs_converter writes: modelTopology.node with
base64 string attrs and decimal-string ints, weights listed in weightsManifest (no .bin:
float weights need only their shapes). Shape constants carry their values inline (intVal)."""
import base64
import json


def s(x):
    return {"s": base64.b64encode(x.encode()).decode()}


def ints(*v):
    return {"list": {"i": [str(i) for i in v]}}


def shape(*dims):
    return {"dim": [{"size": str(d)} for d in dims]}


class M:
    def __init__(self):
        self.nodes, self.weights = [], []

    def node(self, name, op, inputs=(), **attr):
        n = {"name": name, "op": op, "attr": attr}
        if inputs:
            n["input"] = list(inputs)
        self.nodes.append(n)
        return name

    def input(self, name, *dims):
        return self.node(name, "Placeholder", dtype={"type": "DT_FLOAT"},
                         shape={"shape": shape(*dims)})

    def weight(self, name, *dims):
        self.weights.append({"name": name, "shape": list(dims), "dtype": "float32"})
        return self.node(name, "Const", dtype={"type": "DT_FLOAT"},
                         value={"tensor": {"dtype": "DT_FLOAT", "tensorShape": shape(*dims)}})

    def ints(self, name, *vals, dims=None):
        dims = [len(vals)] if dims is None else dims
        return self.node(name, "Const", dtype={"type": "DT_INT32"},
                         value={"tensor": {"dtype": "DT_INT32", "tensorShape": shape(*dims),
                                           "intVal": list(vals)}})

    def write(self, path):
        doc = {"format": "graph-model", "generatedBy": "laysim tests",
               "modelTopology": {"node": self.nodes, "versions": {"producer": 1}},
               "weightsManifest": [{"paths": ["weights.bin"], "weights": self.weights}]}
        with open(path, "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")


T = {"T": {"type": "DT_FLOAT"}}
NHWC = {"data_format": s("NHWC")}


def cnn():
    """Convolutions, pooling, padding, normalization, shape arithmetic and a dense head."""
    m = M()
    x = m.input("image", -1, 32, 32, 3)
    w1, b1 = m.weight("w1", 3, 3, 3, 16), m.weight("b1", 16)
    c1 = m.node("conv1", "_FusedConv2D", [x, w1, b1], **NHWC, strides=ints(1, 2, 2, 1),
                padding=s("SAME"), dilations=ints(1, 1, 1, 1), num_args={"i": "1"},
                fused_ops={"list": {"s": [s("BiasAdd")["s"], s("Relu")["s"]]}})
    dw = m.weight("dw", 3, 3, 16, 1)
    d = m.node("dw1", "DepthwiseConv2dNative", [c1, dw], **NHWC, strides=ints(1, 1, 1, 1),
               padding=s("SAME"), dilations=ints(1, 1, 1, 1))
    r6 = m.node("relu6", "Relu6", [d], **T)
    a = m.weight("alpha", 16)
    pr = m.node("prelu", "Prelu", [r6, a], **T)
    mp = m.node("pool", "MaxPool", [pr], **NHWC, ksize=ints(1, 2, 2, 1),
                strides=ints(1, 2, 2, 1), padding=s("VALID"))
    pads = m.ints("pads", 0, 0, 1, 1, 1, 1, 0, 0, dims=[4, 2])
    pd = m.node("pad", "Pad", [mp, pads], **T)
    w2 = m.weight("w2", 3, 3, 16, 32)
    c2 = m.node("conv2", "Conv2D", [pd, w2], **NHWC, strides=ints(1, 1, 1, 1),
                padding=s("VALID"), dilations=ints(1, 1, 1, 1))
    sc, of, mu, va = (m.weight(n, 32) for n in ("bn_s", "bn_o", "bn_m", "bn_v"))
    bn = m.node("bn", "FusedBatchNormV3", [c2, sc, of, mu, va], **T, **NHWC,
                epsilon={"f": 0.001})
    sg = m.node("sig", "Sigmoid", [bn], **T)
    size = m.ints("size", 16, 16)
    up = m.node("up", "ResizeBilinear", [sg, size], **T)
    mp2 = m.node("avg", "AvgPool", [up], **NHWC, ksize=ints(1, 2, 2, 1),
                 strides=ints(1, 2, 2, 1), padding=s("SAME"))
    ax = m.ints("axis3", 3, dims=[])
    cat = m.node("cat", "ConcatV2", [mp2, bn, ax], **T, N={"i": "2"})
    red = m.ints("hw", 1, 2)
    mean = m.node("gap", "Mean", [cat, red], **T, keep_dims={"b": False})
    shp = m.node("shape", "Shape", [mean], **T)
    b0, b1_, st = m.ints("beg0", 0), m.ints("beg1", 1), m.ints("st1", 1)
    batch = m.node("batch", "StridedSlice", [shp, b0, b1_, st], **T,
                   shrink_axis_mask={"i": "1"})
    m1 = m.ints("m1", -1, dims=[])
    tgt = m.node("target", "Pack", [batch, m1], **T, axis={"i": "0"})
    flat = m.node("flat", "Reshape", [mean, tgt], **T)
    wd, bd = m.weight("wd", 64, 10), m.weight("bd", 10)
    fc = m.node("fc", "_FusedMatMul", [flat, wd, bd], **T, transpose_a={"b": False},
                transpose_b={"b": False}, num_args={"i": "1"},
                fused_ops={"list": {"s": [s("BiasAdd")["s"]]}})
    sm = m.node("probs", "Softmax", [fc], **T)
    m.node("Identity", "Identity", [sm], **T)
    return m


def post():
    """Elementwise math, slicing, splitting, batched matmuls and bounded selections."""
    m = M()
    x = m.input("feat", 1, 8, 6)
    sq = m.node("sq", "Square", [x], **T)
    rs = m.node("rs", "Rsqrt", [sq], **T)
    th = m.node("th", "Tanh", [rs], **T)
    half = m.weight("half", 1)
    mx = m.node("mx", "Maximum", [th, half], **T)
    mn = m.node("mn", "Minimum", [mx, half], **T)
    sub = m.node("sub", "Sub", [mn, x], **T)
    dv = m.node("dv", "RealDiv", [sub, half], **T)
    perm = m.ints("perm", 0, 2, 1)
    tr = m.node("tr", "Transpose", [dv, perm], **T)
    bmm = m.node("bmm", "BatchMatMulV2", [dv, tr], **T, adj_x={"b": False}, adj_y={"b": False})
    two = m.ints("two", 2, dims=[])
    sp = m.node("split", "Split", [two, bmm], **T, num_split={"i": "2"})
    ad = m.node("add", "AddV2", [sp, sp + ":1"], **T)
    b = m.ints("sb", 0, 0, 1)
    e = m.ints("se", 1, 4, 4)
    st = m.ints("sstride", 1, 1, 2)
    ss = m.node("ss", "StridedSlice", [ad, b, e, st], **T, begin_mask={"i": "1"})
    sq0 = m.node("squeeze", "Squeeze", [ss], **T, squeeze_dims=ints(0))
    un = m.node("unpack", "Unpack", [sq0], **T, num={"i": "4"}, axis={"i": "0"})
    pk = m.node("pack", "Pack", [un, un + ":1", un + ":3"], **T, axis={"i": "1"})
    mpad = m.ints("mpad", 1, 1, 0, 0, dims=[2, 2])
    mp = m.node("mirror", "MirrorPad", [pk, mpad], **T, mode=s("REFLECT"))
    mul = m.ints("mult", 1, 2)
    tl = m.node("tile", "Tile", [mp, mul], **T)
    k = m.ints("k", 3, dims=[])
    tk = m.node("topk", "TopKV2", [tl, k], **T)
    idx = m.ints("idx", 0, 2)
    ga = m.node("gather", "GatherV2", [tk, idx, m.ints("ax0", 0, dims=[])], **T)
    m.node("out_vals", "Identity", [ga], **T)
    boxes = m.input("boxes", 20, 4)
    scores = m.input("scores", 20)
    mo = m.ints("max_out", 5, dims=[])
    iou = m.weight("iou", 1)
    nms = m.node("nms", "NonMaxSuppressionV5", [boxes, scores, mo, iou, iou, iou], **T)
    ids = m.node("ids_f", "Cast", [nms], SrcT={"type": "DT_INT32"}, DstT={"type": "DT_FLOAT"})
    m.node("out_ids", "Identity", [ids], **T)
    return m


def cond(const_pred=False):
    """A TF cond (Switch/Merge) on `ratio == 1` (or on a constant false, which folds with no
    --input value: the fuzz seed): true passes x through, false runs a dilated depthwise conv
    as TF writes it (SpaceToBatchND, conv, BatchToSpaceND)."""
    m = M()
    x = m.input("x", 1, 8, 8, 4)
    if const_pred:
        pred = m.node("cond/pred", "Const", dtype={"type": "DT_BOOL"},
                      value={"tensor": {"dtype": "DT_BOOL", "tensorShape": shape(),
                                        "boolVal": [False]}})
    else:
        r = m.input("ratio")
        one = m.node("one", "Const", dtype={"type": "DT_FLOAT"},
                     value={"tensor": {"dtype": "DT_FLOAT", "tensorShape": shape(),
                                       "floatVal": [1.0]}})
        pred = m.node("cond/Equal", "Equal", [r, one], **T)
    sw = m.node("cond/Switch", "Switch", [x, pred], **T)
    s2b = m.node("cond/else/s2b", "SpaceToBatchND",
                 [sw, m.ints("block", 2, 2), m.ints("pads", 2, 2, 2, 2, dims=[2, 2])], **T)
    dw = m.node("cond/else/dw", "DepthwiseConv2dNative", [s2b, m.weight("dw.w", 3, 3, 4, 1)],
                **NHWC, strides=ints(1, 1, 1, 1), padding=s("VALID"), dilations=ints(1, 1, 1, 1))
    b2s = m.node("cond/else/b2s", "BatchToSpaceND",
                 [dw, "block", m.ints("crops", 0, 0, 0, 0, dims=[2, 2])], **T)
    th = m.node("cond/then/id", "Identity", [sw + ":1"], **T)
    mg = m.node("cond/Merge", "Merge", [th, b2s], **T)
    m.node("out", "Relu", [mg], **T)
    return m


def while_loop():
    """A TF while loop as tf.map_fn writes it (v1 control flow, frame "w"): the rows of x
    [3,4] in a TensorList, each read at the loop counter, put through a Relu and set into a
    reserved list, stacked after the Exit. The condition is `i < n && sum(x) < limit`: an
    early exit on data bounded by the input "n", unrolled to n once it has a value (--input
    n=:3), exit 2 naming the LoopCond without one."""
    m = M()
    x = m.input("x", 3, 4)
    n = m.node("n", "Placeholder", dtype={"type": "DT_INT32"}, shape={"shape": shape()})
    I32 = {"T": {"type": "DT_INT32"}}
    zero, one = m.ints("zero", 0, dims=[]), m.ints("one", 1, dims=[])
    es = m.ints("eshape", 4)
    rows = m.node("rows", "TensorListFromTensor", [x, es])
    res = m.node("res", "TensorListReserve", [es, m.ints("three", 3, dims=[])])
    F = {"frame_name": s("w"), "is_constant": {"b": False}}
    K = {"frame_name": s("w"), "is_constant": {"b": True}}
    ei = m.node("w/Enter_i", "Enter", [zero], **F, **I32)
    eo = m.node("w/Enter_out", "Enter", [res], **F)
    en = m.node("w/Enter_n", "Enter", [n], **K, **I32)
    er = m.node("w/Enter_rows", "Enter", [rows], **K)
    mi = m.node("w/Merge_i", "Merge", [ei, "w/NextIteration_i"], **I32)
    mo = m.node("w/Merge_out", "Merge", [eo, "w/NextIteration_out"])
    ex = m.node("w/Enter_x", "Enter", [x], **K, **T)
    early = m.node("w/early", "Less", [m.node("w/sum", "Sum", [ex, m.ints("axes", 0, 1)], **T),
                                       m.weight("w/limit", 1)], **T)
    both = m.node("w/And", "LogicalAnd", [m.node("w/Less", "Less", [mi, en], **I32), early])
    lc = m.node("w/LoopCond", "LoopCond", [both])
    si = m.node("w/Switch_i", "Switch", [mi, lc], **I32)
    so = m.node("w/Switch_out", "Switch", [mo, lc])
    get = m.node("w/get", "TensorListGetItem", [er, si + ":1", es])
    relu = m.node("w/relu", "Relu", [get], **T)
    put = m.node("w/set", "TensorListSetItem", [so + ":1", si + ":1", relu])
    m.node("w/NextIteration_i", "NextIteration",
           [m.node("w/add", "AddV2", [si + ":1", one], **I32)], **I32)
    m.node("w/NextIteration_out", "NextIteration", [put])
    m.node("w/Exit_i", "Exit", [si], **I32)
    ex = m.node("w/Exit_out", "Exit", [so])
    m.node("y", "TensorListStack", [ex, es])
    return m


def while_array():
    """The TensorArray form of a map loop (TF1 tf.map_fn, as faceboxes' NMS writes it): x
    [3,4] scattered into a TensorArray; per row i (a constant trip count, 3) the indices of
    its elements >= 0 (Where: data-dependent, bounded as if all were) written into a second
    TensorArray, gathered after the loop; an empty Fill [0,4] concatenated to x is left out."""
    m = M()
    x = m.input("x", 3, 4)
    I32 = {"T": {"type": "DT_INT32"}}
    zero, one, three = (m.ints(k, v, dims=[]) for k, v in (("zero", 0), ("one", 1), ("three", 3)))
    idx = m.ints("idx", 0, 1, 2)
    ta = m.node("ta", "TensorArrayV3", [three])
    sc = m.node("scatter", "TensorArrayScatterV3", [ta, idx, x, ta + ":1"])
    out = m.node("out", "TensorArrayV3", [three])
    F = {"frame_name": s("m"), "is_constant": {"b": False}}
    K = {"frame_name": s("m"), "is_constant": {"b": True}}
    ei = m.node("m/Enter_i", "Enter", [zero], **F, **I32)
    ef = m.node("m/Enter_flow", "Enter", [out + ":1"], **F)
    en = m.node("m/Enter_n", "Enter", [three], **K, **I32)
    eta = m.node("m/Enter_ta", "Enter", [ta], **K)
    esc = m.node("m/Enter_scatter", "Enter", [sc], **K)
    eout = m.node("m/Enter_out", "Enter", [out], **K)
    mi = m.node("m/Merge_i", "Merge", [ei, "m/NextIteration_i"], **I32)
    mf = m.node("m/Merge_flow", "Merge", [ef, "m/NextIteration_flow"])
    lc = m.node("m/LoopCond", "LoopCond", [m.node("m/Less", "Less", [mi, en], **I32)])
    si = m.node("m/Switch_i", "Switch", [mi, lc], **I32)
    sf = m.node("m/Switch_flow", "Switch", [mf, lc])
    row = m.node("m/read", "TensorArrayReadV3", [eta, si + ":1", esc])
    ge = m.node("m/ge", "GreaterEqual", [row, m.weight("m/zero", 1)], **T)
    wh = m.node("m/where", "Where", [ge])
    wr = m.node("m/write", "TensorArrayWriteV3", [eout, si + ":1", wh, sf + ":1"])
    m.node("m/NextIteration_i", "NextIteration",
           [m.node("m/add", "AddV2", [si + ":1", one], **I32)], **I32)
    m.node("m/NextIteration_flow", "NextIteration", [wr])
    m.node("m/Exit_i", "Exit", [si], **I32)
    ex = m.node("m/Exit_flow", "Exit", [sf])
    m.node("y", "TensorArrayGatherV3", [out, idx, ex])
    m.node("size", "TensorArraySizeV3", [out, ex])
    empty = m.node("empty", "Fill", [m.ints("edims", 0, 4), m.ints("ezero", 0, dims=[])])
    m.node("z", "ConcatV2", [x, empty, zero], **T)
    return m


def bounded():
    """Post-processing as handtrack's PadOrClipBoxList writes it: a Range up to min(count, 4)
    where count sums the elements of x >= 0 (data: bounded by 4), a gather by it, and a
    Reshape target chosen by a Select of constants (folds); a Where of a constant mask folds
    to its real indices (two of four)."""
    m = M()
    x = m.input("x", 3, 4)
    I32 = {"T": {"type": "DT_INT32"}}
    ge = m.node("ge", "GreaterEqual", [x, m.weight("zero", 1)], **T)
    cast = m.node("cast", "Cast", [ge], SrcT={"type": "DT_BOOL"}, DstT={"type": "DT_INT32"})
    cnt = m.node("count", "Sum", [cast, m.ints("axes", 0, 1)], **I32)
    lim = m.node("lim", "Minimum", [cnt, m.ints("four", 4, dims=[])], **I32)
    r = m.node("range", "Range", [m.ints("r0", 0, dims=[]), lim, m.ints("r1", 1, dims=[])])
    g = m.node("gather", "GatherV2", [x, r, m.ints("ax", 1, dims=[])], **T)
    big = m.node("big", "Greater", [m.ints("five", 5, dims=[]), m.ints("three", 3, dims=[])],
                 **I32)
    tgt = m.node("target", "Select", [big, m.ints("t", 12, 1), m.ints("e", 6, 2)], **I32)
    m.node("y", "Reshape", [g, tgt], **T)
    mask = m.node("mask", "Const", dtype={"type": "DT_BOOL"},
                  value={"tensor": {"dtype": "DT_BOOL", "tensorShape": shape(4),
                                    "boolVal": [False, True, False, True]}})
    ids = m.node("ids", "Reshape", [m.node("where", "Where", [mask]), m.ints("two", 2)])
    m.node("picked", "GatherV2", [x, ids, "ax"], **T)
    return m


def bad_cases():
    cases = {}
    m = M()
    x = m.input("x", 1, 4)
    m.node("y", "Cumsum", [x, m.ints("a", 0, dims=[])], **T)
    cases["unsupported.json"] = m
    m = M()
    x = m.input("x", 1, 4)
    m.node("y", "Relu", [x, "nowhere"], **T)
    cases["missing_input.json"] = m
    m = M()
    x = m.input("x", 1, 4)
    m.node("a", "AddV2", [x, "b"], **T)
    m.node("b", "Relu", ["a"], **T)
    cases["cycle.json"] = m
    m = M()
    x = m.input("x", 1, 4)
    m.node("y", "Relu", [x], **T)
    m.nodes[-1]["input"] = 7
    cases["wrong_type.json"] = m
    m = M()
    x = m.input("x", 1, 4)
    tgt = m.node("t", "Shape", [x], **T)
    sq = m.node("v", "Relu", [x], **T)
    m.node("y", "Reshape", [x, m.node("tt", "Cast", [sq], DstT={"type": "DT_INT32"})], **T)
    cases["dynamic_reshape.json"] = m
    m = M()
    x = m.input("x", 1, 4)
    e = m.node("w/Enter", "Enter", [x], **T)
    body = m.node("w/body", "Relu", ["w/Merge"], **T)   # before the Merge in file order
    mg = m.node("w/Merge", "Merge", [e, "w/NextIteration"], **T)
    m.node("w/NextIteration", "NextIteration", [body], **T)
    m.node("w/Exit", "Exit", [mg], **T)
    cases["while.json"] = m
    return cases


if __name__ == "__main__":
    cnn().write("cnn.json")
    post().write("post.json")
    cond().write("cond.json")
    cond(const_pred=True).write("cond_const.json")
    while_loop().write("while.json")
    while_array().write("while_array.json")
    bounded().write("bounded.json")
    for name, m in bad_cases().items():
        m.write("bad_" + name)
    with open("bad_malformed.json", "w") as f:
        f.write('{"modelTopology": {"node": [{"name": "x", "op": "Placeholder",}]}}\n')
