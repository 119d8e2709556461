#!/bin/bash
# Threads: `laysim study --quick` with --threads 1 and --threads N (default 2), wall time of
# each, the speedup, and whether the results are identical (results.json with its timing
# fields removed). Target (issue 19): >= 1.6x with 2 threads on a 2-core machine.
# usage: bench/study_threads.sh [LAYSIM] [N]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LAYSIM=${1:-$here/build/laysim}
N=${2:-2}
WORK=${WORK:-/tmp/laysim-bench-study}
[ -x "$LAYSIM" ] || { echo "bench/study_threads.sh: no laysim binary at $LAYSIM" >&2; exit 1; }
mkdir -p "$WORK"
declare -A wall
for j in 1 "$N"; do
    s=$(date +%s.%N)
    "$LAYSIM" study --quick --force -q --threads "$j" --out "$WORK/t$j" >"$WORK/t$j.log" 2>&1
    wall[$j]=$(echo "$(date +%s.%N) - $s" | bc -l)
    printf 'threads %d: %.1f s wall\n' "$j" "${wall[$j]}"
done
# timings and paths differ from run to run; everything else must not
strip() { jq -S 'walk(if type == "object" then with_entries(select(.key | test("seconds|_s$|time|wall|elapsed|date|out|path") | not)) else . end)' "$1"; }
if cmp -s <(strip "$WORK/t1/results.json") <(strip "$WORK/t$N/results.json"); then same=true; else same=false; fi
speedup=$(echo "${wall[1]} / ${wall[$N]}" | bc -l)
printf 'speedup %.2fx, identical results: %s\n' "$speedup" "$same"
printf '{"bench": "study_threads", "threads": %d, "wall_1": %.2f, "wall_n": %.2f, "speedup": %.3f, "identical": %s, "target_speedup": 1.6}\n' \
    "$N" "${wall[1]}" "${wall[$N]}" "$speedup" "$same"
