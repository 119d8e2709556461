#!/bin/bash
# Programs end to end: `laysim sim PROGRAM --json` of full-size zoo programs (exact's layouts,
# nc-v2) in the text form and in the binary form (.lsprogz), instructions per CPU-second
# (user + system) including loading, and bytes per instruction; beside it the simulator
# alone on the mix program (as bench/sim.sh measures it) in the same run. Targets (issue 19):
# binary >= 5,000,000 instructions/s of CPU end to end and <= 20 bytes per instruction, text
# >= 1,500,000. Compiles the programs first with bench/compile.sh when they are missing.
# usage: bench/prog.sh [LAYSIM] [MODEL...]        (default: olmoe qwen-vl granite-moe)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LAYSIM=${1:-$here/build/laysim}
shift || true
MODELS=${*:-olmoe qwen-vl granite-moe}
export WORK=${WORK:-/tmp/laysim-bench-prog}
[ -x "$LAYSIM" ] || { echo "bench/prog.sh: no laysim binary at $LAYSIM (build first)" >&2; exit 1; }
for m in $MODELS; do
    [ -s "$WORK/$m.lsprogz" ] && [ -s "$WORK/$m.lsprog" ] || "$here/bench/compile.sh" "$LAYSIM" "$m" >/dev/null
done
mix=$("$LAYSIM" sim --micro mix:instructions=1000000 --time --json | jq -r '.instructions_per_second | floor')
echo "simulator alone (mix, CPU): $mix instructions/s"
json=""
for m in $MODELS; do
    for form in lsprog lsprogz; do
        f="$WORK/$m.$form"
        best=""
        for _ in 1 2 3; do
            /usr/bin/time -f '%U %S %M' -o "$WORK/sim.time" "$LAYSIM" sim "$f" --json >"$WORK/sim.json"
            read -r user sys rss <"$WORK/sim.time"
            cpu=$(echo "$user + $sys" | bc -l)
            if [ -z "$best" ] || [ "$(echo "$cpu < $best" | bc)" = 1 ]; then best=$cpu; fi
        done
        n=$(jq -r .instructions "$WORK/sim.json")
        bytes=$(stat -c %s "$f")
        ips=$(echo "$n / $best" | bc)
        printf '%-12s %-7s %8d instructions, %6.2f s CPU (best of 3), %8d instr/s, peak RSS %4d MB, %6.1f bytes/instr\n' \
            "$m" "$form" "$n" "$best" "$ips" $((rss / 1024)) "$(echo "$bytes / $n" | bc -l)"
        json="$json${json:+, }{\"model\": \"$m\", \"format\": \"$form\", \"instructions\": $n, \"cpu_seconds\": $(printf %.3f "$best"), \"instructions_per_second\": $ips, \"bytes\": $bytes, \"cycles\": $(jq .cycles "$WORK/sim.json")}"
    done
done
echo "{\"bench\": \"prog\", \"mix_instructions_per_second\": $mix, \"runs\": [$json], \"target_binary\": 5000000, \"target_text\": 1500000, \"target_bytes_per_instruction\": 20}"
