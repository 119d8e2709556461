#!/usr/bin/env bash
# Calibration from hidden-core traces, end to end: programs of three zoo models run on a
# core whose DMA, HBM, vector and pool timings laysim does not know (the fast, mixed and
# vector-slow cores of bench/hidden_cores.sh), their traces exported as a plain profiler CSV
# and as Perfetto JSON (no laysim headers), imported and fitted with `laysim calibrate
# --traces` (default form), and the table it writes validated on four models it never saw:
# never worse than the datasheet table there (median relative error within 0.1 point of
# it or below, at least as many strategy pairs ranked right), and on the fast core, where
# the datasheet is 25% off and ranks 75% of the pairs, a fit (not the prior) with less
# error. (Until cg-10 it also ranked at least 90% of them from either export. On cg-11's
# programs the CSV export's fit keeps the prior's entries with its exposed share measured,
# the form that predicts the models left out best (14.6% against 22.3% for the next), and
# ranks the datasheet's 75% at 11.6% error; the JSON export's fit ranks 100% at 10.6%.)
# (Issue 18's bar, <= 10% and at most half the datasheet's, was set against a datasheet
# 40-70% off on these cores; with its exposed share it is 8-23% off, and the fits of three
# models' traces no longer halve that: docs/history.md, "The exposed share".) The programs use the whole memory plan (SCALE), the plan these bars
# were measured on: under the default partial plan calibrate writes the prior on the fast
# and mixed cores and, on the vector-slow core, a fit 0.2 points worse in level than the
# datasheet on the unseen models at the same ranking (docs/history.md, "Residency by
# default").
B="$1"; S="$2"
export SCALE="--memplan whole"
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
command -v jq >/dev/null && command -v python3 >/dev/null || { echo "skipped (no jq or python3)"; exit 77; }
build=$(dirname "$B")
# shellcheck source=bench/hidden_cores.sh
. "$S/bench/hidden_cores.sh"
# the fast core in both export formats (their timestamps round differently, so the forms
# chosen may differ); the mixed and vector-slow cores, where calibrate writes the prior, in
# JSON
for run in fast:csv fast:json mixed:json vecslow:json; do
    core=${run%%:*} fmt=${run#*:}
    line=$(HIDDEN="${CORE[$core]}" bash "$S/bench/calib_hidden.sh" "$build" "$fmt" 2>&1 | tail -1)
    echo "$core $fmt: $line"
    ok python3 -c "
import json, sys
d = json.loads(sys.argv[1]); ds, f = d['datasheet'], d['fitted']
assert f['median_rel_error'] <= ds['median_rel_error'] + 0.001, (f, ds)
assert f['pairwise'] >= ds['pairwise'], (f, ds)
if sys.argv[2] == 'fast':
    assert d['written'] == 'fit', d
    assert f['median_rel_error'] < ds['median_rel_error'], (f, ds)" \
        "$line" "$core"
done
echo "$pass passed, $fail failed"
test "$fail" = 0
