#!/bin/bash
# Compile speed: `laysim compile` of full-size zoo models with exact's layouts (nc-v2),
# instructions emitted per CPU-second (user + system) and peak RSS, writing the text form
# and the binary form (.lsprogz). Targets (issue 19): >= 500,000 instructions per CPU-second
# and <= 150 MB peak RSS on olmoe and qwen-vl.
# usage: bench/compile.sh [LAYSIM] [MODEL...]     (default: olmoe qwen-vl granite-moe)
# WORK (env, default /tmp/laysim-bench-prog) keeps the problems, solutions and programs that
# bench/prog.sh then simulates.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LAYSIM=${1:-$here/build/laysim}
shift || true
MODELS=${*:-olmoe qwen-vl granite-moe}
WORK=${WORK:-/tmp/laysim-bench-prog}
[ -x "$LAYSIM" ] || { echo "bench/compile.sh: no laysim binary at $LAYSIM (build first)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/compile.sh: needs /usr/bin/time (GNU time)" >&2; exit 1; }
mkdir -p "$WORK"
json=""
for m in $MODELS; do
    w="$WORK/$m"
    [ -s "$w.sol" ] || { "$LAYSIM" problem "zoo:$m" -o "$w.lsp" && "$LAYSIM" solve "$w.lsp" --solver exact -o "$w.sol"; } >/dev/null
    for form in lsprog lsprogz; do
        /usr/bin/time -f '%U %S %M' -o "$w.time" "$LAYSIM" compile "zoo:$m" --layout "$w.sol" \
            -o "$w.$form" 2>"$w.compile.log"
        read -r user sys rss <"$w.time"
        n=$(sed -n 's/^laysim compile: \([0-9]*\) instructions.*/\1/p' "$w.compile.log")
        cpu=$(echo "$user + $sys" | bc -l)
        ips=$(echo "$n / $cpu" | bc)
        bytes=$(stat -c %s "$w.$form")
        printf '%-12s %-7s %8d instructions, %6.2f s CPU, %8d instr/CPU-s, peak RSS %4d MB, %5.1f bytes/instr\n' \
            "$m" "$form" "$n" "$cpu" "$ips" $((rss / 1024)) "$(echo "$bytes / $n" | bc -l)"
        json="$json${json:+, }{\"model\": \"$m\", \"format\": \"$form\", \"instructions\": $n, \"cpu_seconds\": $(printf %.3f "$cpu"), \"instructions_per_cpu_second\": $ips, \"peak_rss_mb\": $((rss / 1024)), \"bytes\": $bytes}"
    done
done
echo "{\"bench\": \"compile\", \"load_average\": $(cut -d' ' -f1 /proc/loadavg), \"runs\": [$json], \"target_instructions_per_cpu_second\": 500000, \"target_peak_rss_mb\": 150}"
