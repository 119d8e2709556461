#!/usr/bin/env bash
# The quick study (what `make study` runs) against issue 41's fidelity bars: the table the
# calibration loop fits (in sample) ranks at least 95% of the strategy pairs right (the
# paper's metric, 0.5% tie rule) with a median error of at most 12%; the datasheet table,
# with no fitting, has that median error and ranks at least 85% of the pairs; `calibrate
# --microbench` fits at least 80% of the table's entries (not kept at the prior or
# rejected). Before the datasheet's exposed share (docs/costmodel.md) its median error
# here was 43%. Under the whole memory plan it ranked 46 of 47 pairs; under the partial
# plan, the default since residency became it, 41 of 47: the six it loses are two
# decisions a few tenths of a percent apart (docs/history.md, "Residency by default").
B="$1"
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
command -v jq >/dev/null || { echo "skipped (no jq)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B" study --quick --force --out "$T/s" -q > /dev/null; ok test $? = 0
f="$T/s/results.json"
jq -c '.targets[0].fidelity | map_values({pairs, correct, pairwise_accuracy, rel_error_median})' "$f"
for tp in datasheet:0.85 calibrated:0.95; do
    t=${tp%:*} p=${tp#*:}
    ok jq -e --arg t "$t" --argjson p "$p" '.targets[0].fidelity[$t] | .pairwise_accuracy >= $p' "$f"
    ok jq -e --arg t "$t" '.targets[0].fidelity[$t] | .rel_error_median <= 0.12' "$f"
done
"$B" calibrate --microbench -o "$T/mb.json" --report "$T/mb.rep" > /dev/null; ok test $? = 0
jq -c '.verdicts' "$T/mb.rep"
ok jq -e '[.entries[] | select(.samples > 0)] as $e | ([$e[] | select(.fitted)] | length) >= 0.8 * ($e | length)' "$T/mb.rep"
echo "$pass passed, $fail failed"
test "$fail" = 0
