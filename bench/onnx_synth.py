#!/usr/bin/python3
"""bench/onnx_synth.py OUT.onnx [BLOCKS]: a synthetic transformer-like ONNX graph for the
import-time bench (bench/import.sh). Each block has 20 nodes (LayerNormalization, the
PyTorch shape arithmetic of a dynamic-axes export, MatMul/Add/Reshape/Transpose/Softmax,
Erf-GELU); 100 blocks = 2,000 nodes. Weights are initializers without data. Needs Debian's
python3-onnx (bench only)."""
import sys
import onnx
from onnx import TensorProto as T, helper as h

H, HEADS = 64, 4


def shape_only(name, dims):
    t = onnx.TensorProto()
    t.name, t.data_type = name, T.FLOAT
    t.dims.extend(dims)
    return t


def block(i, x, nodes, inits):
    p = f"b{i}."
    def n(op, ins, outs, **kw):
        nodes.append(h.make_node(op, ins, outs, f"/b{i}/{op}_{len(nodes)}", **kw))
    inits += [shape_only(p + "ln.g", [H]), shape_only(p + "ln.b", [H]),
              shape_only(p + "qk.w", [H, H]), shape_only(p + "v.w", [H, H]),
              shape_only(p + "o.w", [H, H]), shape_only(p + "o.b", [H])]
    n("LayerNormalization", [x, p + "ln.g", p + "ln.b"], [p + "ln"], axis=-1)
    n("Shape", [x], [p + "shp"])
    n("Gather", [p + "shp", "i0"], [p + "bsz"], axis=0)
    n("Unsqueeze", [p + "bsz", "ax0"], [p + "bsz1"])
    n("Concat", [p + "bsz1", "minus1", "heads"], [p + "hs"], axis=0)
    n("MatMul", [p + "ln", p + "qk.w"], [p + "q"])
    n("MatMul", [p + "ln", p + "v.w"], [p + "v"])
    n("Reshape", [p + "q", p + "hs"], [p + "q4"])
    n("Reshape", [p + "v", p + "hs"], [p + "v4"])
    n("Transpose", [p + "q4"], [p + "qt"], perm=[0, 2, 1, 3])
    n("Transpose", [p + "q4"], [p + "kt"], perm=[0, 2, 3, 1])
    n("Transpose", [p + "v4"], [p + "vt"], perm=[0, 2, 1, 3])
    n("MatMul", [p + "qt", p + "kt"], [p + "s"])
    n("Softmax", [p + "s"], [p + "a"], axis=-1)
    n("MatMul", [p + "a", p + "vt"], [p + "o"])
    n("Transpose", [p + "o"], [p + "ot"], perm=[0, 2, 1, 3])
    n("Reshape", [p + "ot", p + "shp"], [p + "o3"])
    n("MatMul", [p + "o3", p + "o.w"], [p + "proj"])
    n("Erf", [p + "proj"], [p + "g"])
    n("Add", [x, p + "g"], [p + "out"])
    return p + "out"


def main():
    out = sys.argv[1]
    blocks = int(sys.argv[2]) if len(sys.argv) > 2 else 100
    nodes, inits = [], [h.make_tensor("i0", T.INT64, [], [0]),
                        h.make_tensor("ax0", T.INT64, [1], [0]),
                        h.make_tensor("minus1", T.INT64, [1], [-1]),
                        h.make_tensor("heads", T.INT64, [2], [HEADS, H // HEADS])]
    x = "x"
    for i in range(blocks):
        x = block(i, x, nodes, inits)
    g = h.make_graph(nodes, "synthetic", [h.make_tensor_value_info("x", T.FLOAT, ["batch", "seq", H])],
                     [h.make_tensor_value_info(x, T.FLOAT, ["batch", "seq", H])], inits)
    m = h.make_model(g, opset_imports=[h.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, out)
    print(f"{out}: {len(nodes)} nodes")


if __name__ == "__main__":
    main()
