#!/usr/bin/env bash
# ONNX models as MODEL: every model command takes a .onnx file (tests/data/onnx, written by
# make_fixtures.py); --input/--batch/--seq set unknown dims; malformed files exit 2 naming
# the node or the byte offset. A libonnx-testdata node model too when the package is there.
# usage: bash tests/cli/onnx.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/onnx
CNN=$D/tiny_cnn.onnx
ATTN=$D/tiny_attn.onnx

# graph: ONNX node names become op names; unknown dims from --batch / --seq / --input
expect 0 "graph tiny_cnn" "$LAYSIM" graph "$CNN" --json --autocast none
if grep -q '"/fc/Gemm"' "$T/out" && grep -q "\"/conv1/Conv\"" "$T/out"; then ok
else bad "graph --json lacks the ONNX node names"; fi
expect 0 "graph tiny_attn --batch --seq" "$LAYSIM" graph "$ATTN" --batch 2 --seq 16 -o "$T/a.lg"
if grep -q '^input x fp32 \[batch:2,seq:16,32\]' "$T/a.lg"; then ok
else bad "x is not [2,16,32]: $(grep "^input x " "$T/a.lg")"; fi
expect 0 "graph --input" "$LAYSIM" graph "$ATTN" --input x=3x5x32 --input mask=3x1x1x5 -o "$T/b.lg"
if grep -q '^input x fp32 \[3,5,32\]' "$T/b.lg"; then ok; else bad "--input x=3x5x32 ignored"; fi
expect 2 "--input malformed" "$LAYSIM" graph "$ATTN" --input x=3xx5
expect_err "--input 'x=3xx5'" "--input names the bad entry"
expect 2 "--input unknown name" "$LAYSIM" graph "$ATTN" --input y=3x5x32 -o "$T/u.lg"
expect_err "--input y=...: the model has no input 'y' \(its inputs: x, mask\)" "unknown name listed"
if [ ! -e "$T/u.lg" ]; then ok; else bad "--input y left an output"; fi
expect 2 "--input wrong rank" "$LAYSIM" graph "$ATTN" --input x=3x5
expect_err "--input x=...: rank 2, the model declares rank 3" "rank mismatch named"
expect 2 "--hidden on onnx" "$LAYSIM" graph "$CNN" --hidden 64
expect_err "ONNX model takes --input" "--hidden rejected for ONNX"
expect 2 "--input on .lg" "$LAYSIM" graph "$T/a.lg" --input x=1x2
# the same flag gives a TF.js model's input shape (graph/tfjs.h inputs hook)
expect 0 "--input on TF.js" "$LAYSIM" graph "$SRC/tests/data/tfjs/cnn.json" --input image=2x32x32x3 \
    -o "$T/t.lg"
if grep -q '^input image fp32 \[2,32,32,3\]' "$T/t.lg"; then ok; else bad "--input image ignored"; fi

# 1-D Conv/MaxPool with 1-D attributes (strides, dilations, 2-entry pads), a graph name with
# spaces made valid
expect 0 "graph conv1d" "$LAYSIM" graph "$D/conv1d.onnx" --autocast none -o "$T/c1.lg"
if grep -q '^name Model_from_Test\.$' "$T/c1.lg"; then ok; else bad "graph name not made valid"; fi
if grep -q '^op conv1d.1d fp32 \[batch:1,8,21\]' "$T/c1.lg" &&
    grep -q '^op pool1d.1d fp32 \[batch:1,8,11\]' "$T/c1.lg"; then ok
else bad "conv1d/pool1d shapes: $(grep -E '^op (conv|pool)1d.1d' "$T/c1.lg")"; fi

# one output channel over a large image (PaddleOCR's DB head): the filter is doubled and the
# extra channel sliced away, else codegen refuses it ("needs the whole input image in SBUF")
expect 0 "problem one_channel" "$LAYSIM" problem "$D/one_channel.onnx" -o "$T/oc.lsp"
expect 0 "graph one_channel" "$LAYSIM" graph "$D/one_channel.onnx" --autocast none -o "$T/oc.lg"
if grep -q '^op up.conv fp32 \[1,1,256,256\] = slice up.conv2 axis=1' "$T/oc.lg"; then ok
else bad "one_channel: no sliced 2-channel conv"; fi

# pools over N = C = 1: the channel doubled and channel 0 sliced, else no layout is feasible
expect 0 "problem pool_one" "$LAYSIM" problem "$D/pool_one.onnx" -o "$T/po.lsp"
expect 0 "graph pool_one" "$LAYSIM" graph "$D/pool_one.onnx" --autocast none -o "$T/po.lg"
if grep -q '^op /max fp32 \[1,1,32,32\] = slice /max.pool2 axis=1 begin=0 end=1' "$T/po.lg" &&
    grep -q '^op /avg.pool2 fp32 \[1,2,32,32\] = pool_avg /avg.c2 ' "$T/po.lg"; then ok
else bad "pool_one: no pool over a doubled channel"; fi

# a 3-D conv as one conv2d: 3 depth taps (slices of step 2 of the padded input) concatenated
# on the channels, the filter [8,4,3,3,3] as [8,12,3,3], the depth moved back
expect 0 "graph conv3d" "$LAYSIM" graph "$D/conv3d.onnx" --autocast none -o "$T/c3.lg"
if grep -q '^op /c3/Conv.tap1 fp32 \[1,4,3,10,10\] = slice /c3/Conv.pad.pad2 axis=2 begin=1 end=6 step=2$' \
    "$T/c3.lg" && grep -q '^op /c3/Conv.conv2d fp32 \[3,8,10,10\] = conv2d /c3/Conv.taps /c3/Conv.w2d stride=1,1 pad=1,1 ' \
    "$T/c3.lg" && grep -q '^op /c3/Conv fp32 \[1,8,3,10,10\] = add' "$T/c3.lg"; then ok
else bad "conv3d: not taps + one conv2d to [1,8,3,10,10]"; fi
chain conv3d "$D/conv3d.onnx"

# one input channel (conv input and filter doubled) and a Gemm to one element (mul +
# reduce_sum): no layout would be feasible otherwise
expect 0 "problem narrow" "$LAYSIM" problem "$D/narrow.onnx" -o "$T/n.lsp"
expect 0 "graph narrow" "$LAYSIM" graph "$D/narrow.onnx" --autocast none -o "$T/n.lg"
if grep -q '^op conv.c2 fp32 \[1,2,16,16\] = concat x x axis=1' "$T/n.lg" &&
    grep -q '^op fc.matmul fp32 \[1,1\] = reduce_sum fc.prod axes=1' "$T/n.lg"; then ok
else bad "narrow: the conv or the gemm not rewritten"; fi

# the whole loop and every other model command
expect 0 "problem" "$LAYSIM" problem "$CNN" -o "$T/p.lsp"
expect 0 "solve exact" "$LAYSIM" solve "$T/p.lsp" --solver exact -o "$T/s.sol" -q
expect 0 "compile" "$LAYSIM" compile "$CNN" --layout "$T/s.sol" -o "$T/m.prog"
expect 0 "sim" "$LAYSIM" sim "$T/m.prog" --json
if [ "$(json 'd["cycles"] > 0')" = True ]; then ok; else bad "sim: no cycles"; fi
expect 0 "solve MODEL" "$LAYSIM" solve "$ATTN" --solver exact -q -o "$T/a.sol"
expect 0 "explain" "$LAYSIM" explain "$ATTN" --op /scores
expect 0 "tune" "$LAYSIM" tune "$ATTN" --evaluations 3 -q
expect 0 "validate" "$LAYSIM" validate "$ATTN"
expect 0 "study --models FILE" "$LAYSIM" study --models "$ATTN" --out "$T/study" \
    --threads 1 --no-calibrate --json
if [ "$(json 'd["cells_failed"]')" = 0 ]; then ok; else bad "study: failed cells"; fi

# malformed or unsupported: exit 2 naming the node or the offset
for f in cycle:"'add_in_cycle' \(Add\).*cycle" missing_input:"'add_missing' \(Add\).*'nowhere'" \
    unsupported:"'uq' \(Unique\): unsupported operator" \
    wrong_rank:"'conv_on_a_matrix' \(Conv\)" unknown_dim:"--input x2=" \
    truncated:"byte offset [0-9]+" wrong_type:"byte offset 2 \(field 'graph'\): wrong wire type"; do
    name=${f%%:*} pat=${f#*:}
    expect 2 "bad/$name" "$LAYSIM" problem "$D/bad/$name.onnx" -o "$T/bad.lsp"
    expect_err "$pat" "bad/$name message"
    if [ ! -e "$T/bad.lsp" ]; then ok; else bad "bad/$name left an output"; fi
done
expect 0 "unknown dim given" "$LAYSIM" graph "$D/bad/unknown_dim.onnx" --input x2=1x4

# a Debian libonnx-testdata node model, when installed (sniffed as ONNX by content too)
N=/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding/model.onnx
if [ -r "$N" ]; then
    cp "$N" "$T/model.bin"
    expect 0 "testdata conv by content" "$LAYSIM" graph "$T/model.bin"
fi
finish
