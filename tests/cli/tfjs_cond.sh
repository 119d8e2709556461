#!/usr/bin/env bash
# TF.js `cond` blocks resolved at import time (graph/import/tfjs_flow.c): a Switch on a
# predicate computed from an input given a value (--input ratio=:1) passes its data to the
# taken side only, the other side's nodes are not lowered, the Merge takes the live input; a
# predicate on tensor values exits 2 naming the Switch. The false side is a dilated depthwise
# conv as TF writes it (SpaceToBatchND / BatchToSpaceND, graph/import/tfjs_batch.c), run
# through the whole chain.
# usage: bash tests/cli/tfjs_cond.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
M=$SRC/tests/data/tfjs/cond.json

expect 2 "cond without a value" "$LAYSIM" graph "$M" --input ratio=
expect_err "cond.json:[0-9]+:[0-9]+: node 'cond/Switch' \(Switch\): the predicate is not known at import time" \
    "unknown predicate named"
expect 0 "cond true" "$LAYSIM" graph "$M" --input ratio=:1 --autocast none -o "$T/t.lg"
[ "$(grep -c '^op' "$T/t.lg")" = 1 ] && grep -q '^op out fp32 \[1,8,8,4\] = relu x$' "$T/t.lg" &&
    ok || bad "ratio 1: not the true side alone"
expect 0 "cond false" "$LAYSIM" graph "$M" --input ratio=:0.5 --autocast none -o "$T/f.lg"
has() { grep -q -- "$1" "$T/f.lg" && ok || bad "$2"; }
has '^op cond/else/s2b.pad.1 fp32 \[1,12,12,4\] = concat' "SpaceToBatchND: not padded to 12x12"
has '^op cond/else/s2b.perm fp32 \[2,2,1,6,6,4\] = transpose cond/else/s2b.split perm=2,4,0,1,3,5$' \
    "SpaceToBatchND: not permuted 2,4,0,1,3,5"
has '^op cond/else/s2b fp32 \[4,6,6,4\] = reshape' "SpaceToBatchND: not [4,6,6,4]"
has '^op cond/else/b2s.perm fp32 \[1,4,2,4,2,4\] = transpose cond/else/b2s.split perm=2,3,0,4,1,5$' \
    "BatchToSpaceND: not permuted 2,3,0,4,1,5"
has '^op out fp32 \[1,8,8,4\] = relu cond/else/b2s$' "ratio 0.5: Merge did not take the false side"
chain cond "$M" --input ratio=:0.5
# a constant predicate folds with no value given (tests/data/tfjs/cond_const.json, also a
# seed of fuzz_tfjs): the false side
expect 0 "constant predicate" "$LAYSIM" graph "$SRC/tests/data/tfjs/cond_const.json" \
    --autocast none -o "$T/k.lg"
grep -q '^op out fp32 \[1,8,8,4\] = relu cond/else/b2s$' "$T/k.lg" && ok ||
    bad "constant false predicate: not the false side"
finish
