#!/bin/bash
# Programs end to end: `laysim sim PROGRAM --json` of full-size zoo programs (exact's layouts,
# nc-v2) in the text form and in the binary form (.lsprogz), instructions per CPU-second
# (user + system) including loading, and bytes per instruction; beside it the simulator
# alone on the mix program (as bench/sim.sh measures it: best of RUNS) in the same run, and each form's
# best rate as a fraction of it (ratio_to_mix). Targets (issue 19): binary >= 5,000,000
# instructions/s of CPU end to end, at least half the simulator's rate, and <= 20 bytes per
# instruction; text >= 1,500,000. Compiles the programs first with bench/compile.sh when they are missing.
# usage: bench/prog.sh [LAYSIM] [MODEL...]        (default: olmoe qwen-vl granite-moe)
# RUNS (env, default 5): runs per program, timed from wait4's rusage (microseconds).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
LAYSIM=${1:-$here/build/laysim}
shift || true
MODELS=${*:-olmoe qwen-vl granite-moe}
export WORK=${WORK:-/tmp/laysim-bench-prog}
RUNS=${RUNS:-5}   # runs per program; the best and the median are reported
[ -x "$LAYSIM" ] || { echo "bench/prog.sh: no laysim binary at $LAYSIM (build first)" >&2; exit 1; }
for m in $MODELS; do
    [ -s "$WORK/$m.lsprogz" ] && [ -s "$WORK/$m.lsprog" ] || "$here/bench/compile.sh" "$LAYSIM" "$m" >/dev/null
done
# The simulator alone, as bench/sim.sh measures it: the best of RUNS runs, as each program's
# figure is (a single run against a best of five flattered the programs on a busy machine).
mix=0
for _ in $(seq "$RUNS"); do
    r=$("$LAYSIM" sim --micro mix:instructions=1000000 --time --json | jq -r '.instructions_per_second | floor')
    [ "$r" -gt "$mix" ] && mix=$r
done
load=$(cut -d' ' -f1 /proc/loadavg)
echo "simulator alone (mix, CPU, best of $RUNS): $mix instructions/s (load average $load)"
json=""
for m in $MODELS; do
    for form in lsprog lsprogz; do
        f="$WORK/$m.$form"
        # CPU seconds from wait4's rusage (microseconds; /usr/bin/time rounds to 10 ms, a
        # tenth of a binary run): best and median of RUNS runs, and the peak RSS
        read -r best median rss < <(python3 - "$RUNS" "$WORK/sim.json" "$LAYSIM" sim "$f" --json <<'PY'
import os, statistics, sys
runs, out, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
cpu, rss = [], 0
for _ in range(runs):
    with open(out, "w") as fh:
        pid = os.fork()
        if pid == 0:
            os.dup2(fh.fileno(), 1)
            os.execv(cmd[0], cmd)
        _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("bench/prog.sh: %s failed" % " ".join(cmd))
    cpu.append(ru.ru_utime + ru.ru_stime)
    rss = max(rss, ru.ru_maxrss)
print("%.4f %.4f %d" % (min(cpu), statistics.median(cpu), rss))
PY
)
        n=$(jq -r .instructions "$WORK/sim.json")
        bytes=$(stat -c %s "$f")
        ips=$(echo "$n / $best" | bc)
        ips_median=$(echo "$n / $median" | bc)
        ratio=$(printf '%.2f' "$(echo "$ips / $mix" | bc -l)")
        printf '%-12s %-7s %8d instructions, %6.3f s CPU (best of %d; median %.3f), %8d instr/s (median %8d, %s of mix), peak RSS %4d MB, %6.1f bytes/instr\n' \
            "$m" "$form" "$n" "$best" "$RUNS" "$median" "$ips" "$ips_median" "$ratio" $((rss / 1024)) "$(echo "$bytes / $n" | bc -l)"
        json="$json${json:+, }{\"model\": \"$m\", \"format\": \"$form\", \"instructions\": $n, \"cpu_seconds\": $best, \"cpu_seconds_median\": $median, \"instructions_per_second\": $ips, \"instructions_per_second_median\": $ips_median, \"ratio_to_mix\": $ratio, \"bytes\": $bytes, \"cycles\": $(jq .cycles "$WORK/sim.json")}"
    done
done
echo "{\"bench\": \"prog\", \"load_average\": $load, \"mix_instructions_per_second\": $mix, \"runs\": [$json], \"target_binary\": 5000000, \"target_text\": 1500000, \"target_bytes_per_instruction\": 20}"
