#!/usr/bin/env bash
# The quick study (what `make study` runs) against fidelity floors: the table the
# calibration loop fits (in sample) ranks at least 91% of the strategy pairs right (the
# paper's metric, 0.5% tie rule) with a median error of at most 12%; the datasheet table,
# with no fitting, has that median error and ranks at least 78% of the pairs; `calibrate
# --microbench` fits at least 80% of the table's entries (not kept at the prior or
# rejected). Before the datasheet's exposed share (docs/costmodel.md) its median error
# here was 43%. Under the whole memory plan it ranked 46 of 47 pairs; under the partial
# plan, the default since residency became it, 41 of 47 (the six it lost are two
# decisions a few tenths of a percent apart: docs/history.md, "Residency by default"),
# with the loop's table at 47 of 47 (floors 85% and 95% until cg-11). On cg-12, whose
# weights load further ahead, 37 and 43 of 47: the datasheet loses the three pairs with
# local on bert-base and on kosmos, whose local programs now take the others' time
# (within 0.5%; 1.0% more on cg-11) while the table still charges local's conversions,
# and gains two on perceiver (docs/history.md, "cg-12"). Issue 41's bars (95% of pairs on
# unseen models) are not met here.
B="$1"
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
command -v jq >/dev/null || { echo "skipped (no jq)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B" study --quick --force --out "$T/s" -q > /dev/null; ok test $? = 0
f="$T/s/results.json"
jq -c '.targets[0].fidelity | map_values({pairs, correct, pairwise_accuracy, rel_error_median})' "$f"
for tp in datasheet:0.78 calibrated:0.91; do
    t=${tp%:*} p=${tp#*:}
    ok jq -e --arg t "$t" --argjson p "$p" '.targets[0].fidelity[$t] | .pairwise_accuracy >= $p' "$f"
    ok jq -e --arg t "$t" '.targets[0].fidelity[$t] | .rel_error_median <= 0.12' "$f"
done
"$B" calibrate --microbench -o "$T/mb.json" --report "$T/mb.rep" > /dev/null; ok test $? = 0
jq -c '.verdicts' "$T/mb.rep"
ok jq -e '[.entries[] | select(.samples > 0)] as $e | ([$e[] | select(.fitted)] | length) >= 0.8 * ($e | length)' "$T/mb.rep"
echo "$pass passed, $fail failed"
test "$fail" = 0
