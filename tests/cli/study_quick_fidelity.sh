#!/usr/bin/env bash
# Issue 18's in-sample bar on the quick study (what `make study` runs): the calibrated
# table ranks the strategy pairs no worse than the datasheet table (the paper's metric,
# 0.5% tie rule) with at most half its median error, and `calibrate --microbench` fits at
# least 80% of the table's entries (not kept at the prior or rejected).
B="$1"
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
command -v jq >/dev/null || { echo "skipped (no jq)"; exit 77; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
"$B" study --quick --force --out "$T/s" -q > /dev/null; ok test $? = 0
f="$T/s/results.json"
jq -c '.targets[0].fidelity | map_values({pairs, correct, pairwise_accuracy, rel_error_median})' "$f"
ok jq -e '.targets[0].fidelity | .calibrated.pairwise_accuracy >= .datasheet.pairwise_accuracy' "$f"
ok jq -e '.targets[0].fidelity | .calibrated.rel_error_median <= 0.5 * .datasheet.rel_error_median' "$f"
"$B" calibrate --microbench -o "$T/mb.json" --report "$T/mb.rep" > /dev/null; ok test $? = 0
jq -c '.verdicts' "$T/mb.rep"
ok jq -e '[.entries[] | select(.samples > 0)] as $e | ([$e[] | select(.fitted)] | length) >= 0.8 * ($e | length)' "$T/mb.rep"
echo "$pass passed, $fail failed"
test "$fail" = 0
