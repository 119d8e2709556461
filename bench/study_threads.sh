#!/bin/bash
# Threads: `laysim study --quick` with --threads 1 and --threads N (default 2), wall time of
# each, the speedup, and whether the results are identical (results.json with its timing
# fields removed). Target (issue 19): >= 1.6x with 2 threads on a 2-core machine.
# The machine is a VM whose neighbours come and go: REPS=K (default 5) runs K pairs, each
# --threads 1 run right before its --threads N run, and reports every pair's speedup and
# their median (the figure to quote; one pair can land anywhere between 1.5x and 1.8x).
# usage: [REPS=K] bench/study_threads.sh [LAYSIM] [N]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LAYSIM=${1:-$here/build/laysim}
N=${2:-2}
REPS=${REPS:-5}
WORK=${WORK:-/tmp/laysim-bench-study}
[ -x "$LAYSIM" ] || { echo "bench/study_threads.sh: no laysim binary at $LAYSIM" >&2; exit 1; }
mkdir -p "$WORK"
run() { # threads -> wall seconds on stdout
    local s
    s=$(date +%s.%N)
    "$LAYSIM" study --quick --force -q --threads "$1" --out "$WORK/t$1" >"$WORK/t$1.log" 2>&1
    echo "$(date +%s.%N) - $s" | bc -l
}
# timings and paths differ from run to run; everything else must not
strip() { jq -S 'walk(if type == "object" then with_entries(select(.key | test("seconds|_s$|time|wall|elapsed|date|out|path") | not)) else . end)' "$1"; }
same=true ratios=() w1s=() wns=()
for ((r = 1; r <= REPS; r++)); do
    w1=$(run 1)
    wn=$(run "$N")
    cmp -s <(strip "$WORK/t1/results.json") <(strip "$WORK/t$N/results.json") || same=false
    ratio=$(echo "$w1 / $wn" | bc -l)
    ratios+=("$ratio") w1s+=("$w1") wns+=("$wn")
    printf 'pair %d: threads 1 %.1f s, threads %d %.1f s wall, speedup %.2fx (load %s)\n' \
        "$r" "$w1" "$N" "$wn" "$ratio" "$(cut -d' ' -f1 /proc/loadavg)"
done
median() { printf '%s\n' "$@" | sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
speedup=$(median "${ratios[@]}")
printf 'speedup %.2fx (median of %d), identical results: %s\n' "$speedup" "$REPS" "$same"
printf '{"bench": "study_threads", "threads": %d, "reps": %d, "wall_1": %.2f, "wall_n": %.2f, "speedup": %.3f, "speedups": [%s], "identical": %s, "target_speedup": 1.6}\n' \
    "$N" "$REPS" "$(median "${w1s[@]}")" "$(median "${wns[@]}")" "$speedup" \
    "$(printf '%.3f,' "${ratios[@]}" | sed 's/,$//')" "$same"
