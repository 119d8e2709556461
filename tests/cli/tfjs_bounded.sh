#!/usr/bin/env bash
# TF.js sizes computed from data, bounded by their maximum (graph/import/tfjs_bound.c), as
# detection post-processing writes them (handtrack's PadOrClipBoxList): a Range up to
# min(count, 4), count a Sum of a comparison on x, is the range up to 4 (as if every element
# were selected), the gather by it [3,4]; a Select of constants folds (a Reshape target); a
# Where of a constant mask folds to its indices.
# tests/data/tfjs/bounded.json is also a seed of fuzz_tfjs.
# usage: bash tests/cli/tfjs_bounded.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
M=$SRC/tests/data/tfjs/bounded.json

expect 0 "bounded range" "$LAYSIM" graph "$M" --autocast none -o "$T/b.lg"
grep -q '^weight range int32 \[4\]$' "$T/b.lg" && ok || bad "Range: not bounded to 4 ids"
grep -q '^op gather fp32 \[3,4\] = gather x range axis=1$' "$T/b.lg" && ok || bad "gather not [3,4]"
grep -q '^op y fp32 \[12,1\] = reshape gather$' "$T/b.lg" && ok || bad "Select of constants not folded"
grep -q '^op picked fp32 \[3,2\] = gather x ids axis=1$' "$T/b.lg" && ok ||
    bad "Where of a constant mask: not folded to its two indices"
chain bounded "$M"
finish
