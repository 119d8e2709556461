#!/usr/bin/env bash
# ONNX control flow resolved at import time (graph/import/onnx_flow.c): an If on a
# shape-derived condition takes its branch, an If on an input given a value with
# --input NAME=DIMS:VALUE too, a Loop with a shape-derived trip count is unrolled through the
# whole chain; a condition or a while loop on tensor values exits 2 naming the node and why.
# Also the 1x1 conv to one channel over a single pixel (silero-vad's head).
# usage: bash tests/cli/control_flow.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/onnx

# If: x has 8 rows > 4, so the then branch (its own initializer then.w) is imported alone
expect 0 "graph if_shape" "$LAYSIM" graph "$D/if_shape.onnx" --autocast none -o "$T/if.lg"
if grep -q '^op /then/Relu fp32 \[1,8,16\] = relu /then/MatMul$' "$T/if.lg" &&
    grep -q '^weight then.w fp32 \[16,16\]$' "$T/if.lg" &&
    ! grep -q sigmoid "$T/if.lg"; then ok; else bad "if_shape: not the then branch alone"; fi

# If on an input's value: without one, exit 2 naming the node and why; with one, its branch
expect 2 "if_value without a value" "$LAYSIM" graph "$D/if_value.onnx"
expect_err "node '/if_rate' \(If\): the condition 'is16' is not known at import time .*--input NAME=DIMS:VALUE" \
    "unknown condition named"
expect 0 "if_value sr=16000" "$LAYSIM" graph "$D/if_value.onnx" --input sr=:16000 -o "$T/v1.lg"
grep -q '= relu x$' "$T/v1.lg" && ok || bad "sr=16000: not the then branch"
expect 0 "if_value sr=8000" "$LAYSIM" graph "$D/if_value.onnx" --input sr=:8000 -o "$T/v2.lg"
grep -q '= tanh x$' "$T/v2.lg" && ok || bad "sr=8000: not the else branch"
expect 2 "malformed value" "$LAYSIM" graph "$D/if_value.onnx" --input sr=:16k
expect_err "--input 'sr=:16k': expected NAME=D1xD2...:VALUE" "malformed value named"

# Loop: 4 iterations (x's axis 1), one shared body weight, the scan output stacked
L=$D/loop_shape.onnx
expect 0 "graph loop_shape" "$LAYSIM" graph "$L" --autocast none -o "$T/loop.lg"
[ "$(grep -c '= matmul .* body.w ' "$T/loop.lg")" = 4 ] && ok || bad "loop: not 4 matmuls"
[ "$(grep -c '^weight body.w' "$T/loop.lg")" = 1 ] && ok || bad "loop: body weight not shared"
grep -q '^op /body/Add_2 fp32 \[1,16\] = add /body/MatMul_2 /body/Tanh$' "$T/loop.lg" &&
    ok || bad "loop: iteration 2 does not carry iteration 1's state"
grep -q '^op /loop.scan0 fp32 \[4,1,16\] = concat' "$T/loop.lg" && ok || bad "loop: scan not stacked"
chain loop "$L"
expect 2 "while loop" "$LAYSIM" graph "$D/bad/loop_while.onnx"
expect_err "node '/while' \(Loop\): a loop without a trip count" "while loop named"

# a 1x1 conv to one channel over one pixel: the filter doubled, channel 0 sliced
expect 0 "problem one_pixel" "$LAYSIM" problem "$D/one_pixel.onnx" -o "$T/op.lsp"
expect 0 "graph one_pixel" "$LAYSIM" graph "$D/one_pixel.onnx" --autocast none -o "$T/op.lg"
grep -q '^op /head/Conv.conv fp32 \[1,1,1,1\] = slice /head/Conv.conv2 axis=1' "$T/op.lg" &&
    ok || bad "one_pixel: no doubled filter sliced to one channel"
finish
