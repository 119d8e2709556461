#!/usr/bin/env bash
# Issue 18's hidden-core bar, end to end: programs of three zoo models run on a core whose
# DMA, HBM, vector and pool timings laysim does not know (the fast core of
# docs/calibration.md), their traces exported as a plain profiler CSV and as Perfetto JSON
# (no laysim headers), imported and fitted with `laysim calibrate --traces` (default form),
# and the table validated on four models it never saw: median relative error <= 10% and at
# most half the datasheet table's, >= 90% of strategy pairs ranked right.
B="$1"; S="$2"
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
command -v jq >/dev/null && command -v python3 >/dev/null || { echo "skipped (no jq or python3)"; exit 77; }
build=$(dirname "$B")
export HIDDEN="dma.bytes_per_ns=24 dma.desc_min_ns=100 dma.transfer_latency_ns=450 hbm.bytes_per_ns=520 vec.access_overhead=40 vec.static_overhead=70 pool.start_cycles=100"
for fmt in csv json; do
    line=$(bash "$S/bench/calib_hidden.sh" "$build" "$fmt" 2>&1 | tail -1)
    echo "$fmt: $line"
    ok python3 -c "
import json, sys
d = json.loads(sys.argv[1]); ds, f = d['datasheet'], d['fitted']
assert d['written'] == 'fit', d
assert f['median_rel_error'] <= 0.10, f
assert f['median_rel_error'] <= 0.5 * ds['median_rel_error'], (f, ds)
assert f['pairwise'] >= 0.90, f" "$line"
done
echo "$pass passed, $fail failed"
test "$fail" = 0
