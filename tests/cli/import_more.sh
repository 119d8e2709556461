#!/usr/bin/env bash
# Importer coverage of issue 42 on small models: ONNX InstanceNormalization (PyTorch's
# GroupNorm export) through the whole chain, --batch on inputs that declare batch 1, the HF
# types ministral3 and musicgen_melody_decoder, and ONNX LSTM/GRU.
# usage: bash tests/cli/import_more.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/onnx
GN=$D/group_norm.onnx

# InstanceNormalization: a parameter-free layernorm over the merged spatial axes, plus a
# batchnorm for scale/B unless they are the ones/zeros of a GroupNorm export
expect 0 "graph group_norm" "$LAYSIM" graph "$GN" --autocast none -o "$T/gn.lg"
if grep -q '^op /gn/InstanceNormalization fp32 \[batch:1,4,512\] = layernorm /gn/Reshape axis=2$' \
    "$T/gn.lg"; then ok; else bad "GroupNorm's InstanceNormalization is not one layernorm"; fi
if grep -q '^op /in/InstanceNormalization.norm fp32 \[batch:1,8,256\] = layernorm' "$T/gn.lg" &&
    grep -q '^op /in/InstanceNormalization fp32 \[batch:1,8,16,16\] = batchnorm .* axis=1$' \
        "$T/gn.lg"; then ok
else bad "InstanceNorm2d: no layernorm over [N,C,H*W] and batchnorm on the channels"; fi
expect 0 "problem group_norm" "$LAYSIM" problem "$GN" -o "$T/gn.lsp"
expect 0 "solve" "$LAYSIM" solve "$T/gn.lsp" --solver exact -q -o "$T/gn.sol"
expect 0 "check" "$LAYSIM" check "$T/gn.lsp" "$T/gn.sol"
expect 0 "compile" "$LAYSIM" compile "$GN" --layout "$T/gn.sol" -o "$T/gn.prog"
expect 0 "sim" "$LAYSIM" sim "$T/gn.prog" --json
if [ "$(json 'd["cycles"] > 0')" = True ]; then ok; else bad "group_norm sim: no cycles"; fi
expect 2 "InstanceNormalization scale of 4 on 8 channels" "$LAYSIM" graph \
    "$D/bad/instance_norm_scale.onnx"
expect_err "node 'in_scale' \(InstanceNormalization\): scale has shape \[4\], expected \[8\]" \
    "wrong scale shape named"
expect 2 "InstanceNormalization of rank 2" "$LAYSIM" graph "$D/bad/instance_norm_rank.onnx"
expect_err "node 'in_rank' \(InstanceNormalization\): input rank 2" "rank 2 named"

finish
