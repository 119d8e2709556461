#!/usr/bin/env bash
# Detection post-processing bounded by its maximum size (graph/import/onnx_detect.c): NonZero
# of a mask as if every element were kept ([rank, numel]), GatherND as one gather, TopK as the
# first k plus the row maximum, NonMaxSuppression as the IoU matrix and min(M, N) boxes per
# class ([C*min(M,N), 3]), RoiAlign as row gathers to [R,C,oh,ow], and a Resize whose size
# folds through Reciprocal; the fixture goes through the whole chain.
# usage: bash tests/cli/onnx_detect.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
M=$SRC/tests/data/onnx/detect.onnx

expect 0 "graph detect" "$LAYSIM" graph "$M" --autocast none -o "$T/d.lg"
has() { grep -q -- "$1" "$T/d.lg" && ok || bad "$2"; }
has '^op /NonZero int32 \[1,100\] = cast /NonZero.flat$' "NonZero: not [rank, numel]"
has '^op /GatherND fp32 \[100\] = gather scores /GatherND.ids axis=0$' "GatherND: not one gather"
has '^op /TopK fp32 \[10\] = add /TopK.first /TopK.rowmax$' "TopK: not first k + row max"
has '^op /TopK.indices int32 \[10\] = cast /TopK$' "TopK: no indices"
has '^op /nms.iou fp32 \[50,50\] = matmul /nms.boxes /nms.boxes' "NMS: no IoU matrix"
has '^op /nms int32 \[15,3\] = cast /nms.classes$' "NMS: not [C*min(M,N), 3]"
has '^op /Resize fp32 \[1,8,20,20\] = gather' "Resize: size 200/10 not folded through Reciprocal"
has '^op /RoiAlign fp32 \[5,8,7,7\] = gather' "RoiAlign: not [R,C,7,7] gathers"
chain detect "$M"
finish
