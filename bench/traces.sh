#!/bin/bash
# Benchmark of the .lstrace format: write and read back N synthetic records (default 10
# million; a tiled-matmul pipeline shape, see traces/synth.c), check the round trip by
# digest, and print file size, bytes per record and MB/s. When `laysim sim` can write traces
# (--trace), also measures bytes per record on a simulated GEMM trace.
# usage: bench/traces.sh [LAYSIM] [N]   (LAYSIM defaults to build/laysim)
# The last line is one JSON object with the figures.
set -euo pipefail
LAYSIM=${1:-build/laysim}
N=${2:-10000000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

field() { sed -n "s/.*\"$1\": \"\{0,1\}\([^,\"}]*\)\"\{0,1\}.*/\1/p" "$2"; }

"$LAYSIM" trace synth "$N" -o "$T/synth.lstrace" --seed 1 >"$T/w.json"
"$LAYSIM" trace "$T/synth.lstrace" check >"$T/r.json"
bytes=$(field bytes "$T/w.json")
wd=$(field digest "$T/w.json")
rd=$(field digest "$T/r.json")
ws=$(field write_seconds "$T/w.json")
rs=$(field read_seconds "$T/r.json")
if [ "$wd" != "$rd" ]; then
    echo "round trip FAILED: wrote digest $wd, read $rd" >&2
    exit 1
fi
bpr=$(awk -v b="$bytes" -v n="$N" 'BEGIN { printf "%.3f", (n ? b / n : 0) }')
wmb=$(awk -v b="$bytes" -v s="$ws" 'BEGIN { printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }')
rmb=$(awk -v b="$bytes" -v s="$rs" 'BEGIN { printf "%.1f", (s > 0 ? b / s / 1e6 : 0) }')
wrs=$(awk -v n="$N" -v s="$ws" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
rrs=$(awk -v n="$N" -v s="$rs" 'BEGIN { printf "%.0f", (s > 0 ? n / s : 0) }')
echo "synthetic: $N records, $bytes bytes ($bpr bytes/record), round trip identical"
echo "  write ${ws}s ($wrs records/s, $wmb MB/s of file), read ${rs}s ($rrs records/s, $rmb MB/s)"

sim_bpr=null
sim_n=null
if "$LAYSIM" sim --help 2>/dev/null | grep -q -- "--trace"; then
    spec=${LAYSIM_TRACE_SIM:-mix:instructions=1000000}
    if "$LAYSIM" sim --micro "$spec" --trace "$T/sim.lstrace" >/dev/null 2>"$T/sim.err"; then
        "$LAYSIM" trace "$T/sim.lstrace" check >"$T/s.json"
        sim_n=$(field records "$T/s.json")
        sim_bpr=$(field bytes_per_record "$T/s.json")
        echo "simulated ($spec): $sim_n records, $sim_bpr bytes/record"
    else
        echo "simulated trace skipped: $(head -c 200 "$T/sim.err")"
    fi
else
    echo "simulated trace skipped: laysim sim has no --trace"
fi
printf '{"records": %s, "bytes": %s, "bytes_per_record": %s, "write_records_per_second": %s, "read_records_per_second": %s, "write_mb_per_second": %s, "read_mb_per_second": %s, "sim_records": %s, "sim_bytes_per_record": %s}\n' \
    "$N" "$bytes" "$bpr" "$wrs" "$rrs" "$wmb" "$rmb" "$sim_n" "$sim_bpr"
