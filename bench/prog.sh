#!/bin/bash
# Programs end to end: `laysim sim PROGRAM --json` of full-size zoo programs (exact's layouts,
# nc-v2) in the text form and in the binary form (.lsprogz), instructions per CPU-second
# (user + system) including loading, and bytes per instruction; beside it the simulator
# alone on the mix program (as bench/sim.sh measures it: best of RUNS) in the same run, and each form's
# best rate as a fraction of it (ratio_to_mix; ratio_to_mix_paired: the median of each
# round's rate over that round's mix). Targets (issue 19): binary >= 5,000,000
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
# Rounds: in each, the simulator alone on the mix program (as bench/sim.sh measures it,
# its own CPU figure) and then every program once, so that the mix and the programs share
# the host's load of the moment (the mix's best of five taken before the programs moved by
# half between runs on a busy host, and each ratio with it). Per program: the best and the
# median of RUNS runs (CPU from wait4's rusage, microseconds; /usr/bin/time rounds to 10 ms),
# the best rate over the mix's best (ratio_to_mix), and the median over rounds of the rate
# over the same round's mix (ratio_to_mix_paired: what the load shifts least).
python3 - "$RUNS" "$WORK" "$LAYSIM" $MODELS <<'PY'
import json, os, statistics, subprocess, sys
runs, work, laysim, models = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4:]
out = os.path.join(work, "sim.json")

def run_program(path):
    with open(out, "w") as fh:
        pid = os.fork()
        if pid == 0:
            os.dup2(fh.fileno(), 1)
            os.execv(laysim, [laysim, "sim", path, "--json"])
        _, status, ru = os.wait4(pid, 0)
    if status != 0:
        sys.exit("bench/prog.sh: %s sim %s failed" % (laysim, path))
    with open(out) as fh:
        js = json.load(fh)
    return ru.ru_utime + ru.ru_stime, ru.ru_maxrss, js

progs = [(m, form) for m in models for form in ("lsprog", "lsprogz")]
mix, cpu, rss, info = [], {p: [] for p in progs}, {p: 0 for p in progs}, {}
for _ in range(runs):
    js = json.loads(subprocess.run([laysim, "sim", "--micro", "mix:instructions=1000000", "--time",
                                    "--json"], check=True, capture_output=True, text=True).stdout)
    mix.append(int(js["instructions_per_second"]))
    for p in progs:
        t, r, js = run_program(os.path.join(work, "%s.%s" % p))
        cpu[p].append(t)
        rss[p] = max(rss[p], r)
        info[p] = (js["instructions"], js["cycles"])
load = open("/proc/loadavg").read().split()[0]
best_mix = max(mix)
print("simulator alone (mix, CPU, best of %d, interleaved with the programs): %d instructions/s "
      "(load average %s)" % (runs, best_mix, load))
rows = []
for p in progs:
    m, form = p
    n, cycles = info[p]
    nbytes = os.path.getsize(os.path.join(work, "%s.%s" % p))
    best, median = min(cpu[p]), statistics.median(cpu[p])
    ips, ips_median = int(n / best), int(n / median)
    ratio = round(ips / best_mix, 2)
    paired = round(statistics.median(n / t / x for t, x in zip(cpu[p], mix)), 2)
    print("%-12s %-7s %8d instructions, %6.3f s CPU (best of %d; median %.3f), %8d instr/s "
          "(median %8d, %.2f of mix, paired median %.2f), peak RSS %4d MB, %6.1f bytes/instr"
          % (m, form, n, best, runs, median, ips, ips_median, ratio, paired, rss[p] // 1024,
             nbytes / n))
    rows.append({"model": m, "format": form, "instructions": n, "cpu_seconds": round(best, 4),
                 "cpu_seconds_median": round(median, 4), "instructions_per_second": ips,
                 "instructions_per_second_median": ips_median, "ratio_to_mix": ratio,
                 "ratio_to_mix_paired": paired, "bytes": nbytes, "cycles": cycles})
print(json.dumps({"bench": "prog", "load_average": float(load), "mix_instructions_per_second":
                  best_mix, "runs": rows, "target_binary": 5000000, "target_text": 1500000,
                  "target_bytes_per_instruction": 20}))
PY
