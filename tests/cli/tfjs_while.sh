#!/usr/bin/env bash
# TF.js while loops unrolled at import time (graph/import/tfjs_loop.c, tfjs_list.c): a
# tf.map_fn loop (tests/data/tfjs/while.json, also a seed of fuzz_tfjs) over the rows of x
# [3,4] while `i < n && sum(x) < limit` (an early exit on data bounded by the input n).
# Given a value (--input n=:3) the loop is unrolled to that maximum: the body lowered
# once per iteration (three Relus on the three rows, stacked back to [3,4]) and the model
# runs through the whole chain; without one the LoopCond is named; a trip count that leaves
# a slot unwritten or reads past the list exits 2 naming the node. The TensorArray form
# (while_array.json, as faceboxes' NMS map writes it) with a Where per row, bounded by its
# maximum size; an empty Fill concatenated is left out.
# usage: bash tests/cli/tfjs_while.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
M=$SRC/tests/data/tfjs/while.json

expect 2 "no trip count" "$LAYSIM" graph "$M"
expect_err "while.json:[0-9]+:[0-9]+: node 'w/LoopCond' \(LoopCond\): the while loop's condition is not known at import time" \
    "unknown condition named"
expect 0 "three iterations" "$LAYSIM" graph "$M" --input n=:3 --autocast none -o "$T/w.lg"
[ "$(grep -c '= relu' "$T/w.lg")" = 3 ] && ok || bad "not one Relu per iteration"
for i in "" .1 .2; do
    grep -q "^op w/relu$i fp32 \[4\] = relu rows$i\$" "$T/w.lg" && ok || bad "row ${i:-.0} not read"
done
grep -q '^op y fp32 \[3,4\] = concat y.e y.e.1 y.e.2 axis=0$' "$T/w.lg" && ok ||
    bad "TensorListStack: not the three results in order"
chain while "$M" --input n=:3
expect 2 "two iterations" "$LAYSIM" graph "$M" --input n=:2
expect_err "node 'y' \(TensorListStack\): element 2 of the list is not written" "unwritten slot"
expect 2 "four iterations" "$LAYSIM" graph "$M" --input n=:4
expect_err "node 'w/get' \(TensorListGetItem\): index 3 is outside a list of 3" "read past the end"
A=$SRC/tests/data/tfjs/while_array.json
expect 0 "TensorArray loop" "$LAYSIM" graph "$A" --autocast none -o "$T/a.lg"
has() { grep -q -- "$1" "$T/a.lg" && ok || bad "$2"; }
[ "$(grep -c '^op m/where[.0-9]* int32 \[4,1\] = cast m/where.flat' "$T/a.lg")" = 3 ] && ok ||
    bad "Where: not one [4,1] bound per row"
has '^op m/ge.2 fp32 \[4\] = sub scatter.2 m/zero$' "row 2 not read from the scattered array"
has '^op y fp32 \[3,4,1\] = concat y.f32 y.f32.1 y.f32.2 axis=0$' "TensorArrayGatherV3: not [3,4,1]"
has '^op z fp32 \[3,4\] = copy x$' "the empty Fill was not left out of the concat"
chain while_array "$A"
finish
