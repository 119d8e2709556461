#!/usr/bin/env bash
# ONNX operators lowered to the IR's data movement and masks (graph/import/onnx_move.c):
# DepthToSpace in both modes and SpaceToDepth as reshape/transpose/reshape with the spec's
# permutations, Trilu as a mul by a mask of the input's shape; an Einsum spelled in capitals
# with spaces (maxvit's). The fixture goes through the whole chain.
# usage: bash tests/cli/onnx_move.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
M=$SRC/tests/data/onnx/move_ops.onnx

expect 0 "graph move_ops" "$LAYSIM" graph "$M" --autocast none -o "$T/m.lg"
has() { grep -q -- "$1" "$T/m.lg" && ok || bad "$2"; }
has '^op /d2s_dcr.perm fp32 \[1,3,4,2,5,2\] = transpose /d2s_dcr.split perm=0,3,4,1,5,2$' \
    "DepthToSpace DCR: not [N,b,b,C/b2,H,W] permuted 0,3,4,1,5,2"
has '^op /d2s_crd.perm fp32 \[1,3,4,2,5,2\] = transpose /d2s_crd.split perm=0,1,4,2,5,3$' \
    "DepthToSpace CRD: not [N,C/b2,b,b,H,W] permuted 0,1,4,2,5,3"
has '^op /d2s_crd fp32 \[1,3,8,10\] = reshape' "DepthToSpace: output not [1,3,8,10]"
has '^op /s2d.perm fp32 \[1,2,2,3,4,5\] = transpose /s2d.split perm=0,3,5,1,2,4$' \
    "SpaceToDepth: not permuted 0,3,5,1,2,4"
has '^op /s2d fp32 \[1,12,4,5\] = reshape' "SpaceToDepth: output not [1,12,4,5]"
has '^op /Trilu fp32 \[1,2,6,6\] = mul att /Trilu.mask$' "Trilu: not a mul by its mask"
has '^op /Einsum fp32 \[1,2,6,7\] = batch_matmul q k' "capital Einsum: not a batch matmul"
chain move_ops "$M"
finish
