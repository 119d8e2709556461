#!/bin/bash
# Where a full-size study's CPU time goes, per stage (issue 43): the calibration of the
# target over the model set (`laysim study --calibrate-only`), then every model's job alone
# (`--models M --calibrated-tables` the same table), each run under `perf record -g` at
# --threads 1, so the figures are CPU seconds (the machine is shared: wall time is not).
# Samples are folded by call stack into (part, stage):
#   part  calibration | jobs (the four strategies and dp) | mcts (the autotuner cells)
#   stage model load, problem build, solve:<solver>, compile, price, simulate, microbench,
#         fit, tune space, store (SQLite), other: the outermost matching frame names it.
# The call stacks need frame pointers: the script builds laysim into $PROF (default
# /tmp/laysim-prof) with -fno-omit-frame-pointer, or takes PROF_LAYSIM=path of such a build.
# usage: [MODELS=a,b,...] [F=hz] [WORK=dir] bench/study_full.sh [--keep]
#   MODELS  default: every zoo model (the `full` set); F: sampling rate, default 99
# Prints one line per model (CPU s per stage, mcts evaluations, peak RSS), the totals per
# (part, stage) and an estimate of `laysim study --models full --threads 2`'s wall time on
# an idle 2-core machine (CPU total / 2: the jobs' halves spread over both threads).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
PROF=${PROF:-/tmp/laysim-prof}
WORK=${WORK:-/tmp/laysim-bench-full}
F=${F:-99}
command -v perf >/dev/null || { echo "bench/study_full.sh: perf is not installed" >&2; exit 77; }
if [ -z "${PROF_LAYSIM:-}" ]; then
    cmake -S "$here" -B "$PROF" -DLAYSIM_RTL=OFF \
        -DCMAKE_C_FLAGS="-fno-omit-frame-pointer -mno-omit-leaf-frame-pointer" >/dev/null
    cmake --build "$PROF" -j 1 --target laysim >"$PROF/build.log" 2>&1 ||
        { tail -20 "$PROF/build.log" >&2; exit 1; }
    PROF_LAYSIM=$PROF/laysim
fi
if [ -z "${MODELS:-}" ]; then
    MODELS=$("$PROF_LAYSIM" zoo | awk 'NR > 1 {printf "%s%s", s, $1; s = ","}')
fi
rm -rf "$WORK"
mkdir -p "$WORK"

# perf script -> "part<TAB>stage<TAB>seconds" lines (sample periods are nanoseconds)
fold() {
    perf script -i "$1" -F period,ip,sym 2>/dev/null | python3 -c '
import re, sys, collections
rules = [  # outermost frame matching a rule names the stage
    ("model_load", "model load"), ("graph_stats", "model load"),
    ("study_pipe_new", "problem build"), ("cm_instance_create", "problem build"),
    ("cm_microbench_run", "microbench"), ("cm_group_fit", "fit"), ("cm_calib_fit", "fit"),
    ("lsp_tune_space_build", "tune space"),
    ("cm_instance_compile", "compile"), ("cm_price_program", "price"), ("sim_run", "simulate"),
    ("study_db_", "store"), ("sqlite3_", "store"),
]
solve = re.compile(r"^lsp_solve_([a-z0-9]+)$")
acc = collections.Counter()
def flush(period, frames):
    if period is None:
        return
    part = "other"
    if "calib_worker" in frames or "study_calibrated_table" in frames:
        part = "calibration"
    elif "study_run_mcts" in frames:
        part = "mcts"
    elif "run_table" in frames or "worker" in frames:
        part = "jobs"
    stage = "other"
    for f in reversed(frames):            # root first: the outermost match
        m = solve.match(f)
        if m:
            stage = "solve:" + m.group(1)
            break
        hit = [s for p, s in rules if f.startswith(p)]
        if hit:
            stage = hit[0]
            break
    acc[(part, stage)] += period
period, frames = None, []
for line in sys.stdin:
    s = line.strip()
    if not s:
        continue
    if not line.startswith("\t"):         # a sample: its period
        flush(period, frames)
        period, frames = int(s.split()[0]), []
    else:                                 # a frame: "addr sym+off" or "sym"
        sym = s.split()[-1] if len(s.split()) > 1 else s
        frames.append(sym.split("+")[0])
flush(period, frames)
for (part, stage), ns in sorted(acc.items()):
    print("%s\t%s\t%.3f" % (part, stage, ns / 1e9))
'
}

run() { # name perf-data args... ; writes $WORK/name.{stages,time}
    local name=$1
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$WORK/$name.time" \
        perf record -q -F "$F" -g -o "$WORK/$name.data" "$PROF_LAYSIM" study "$@" \
        --threads 1 -q --force >"$WORK/$name.log" 2>&1 ||
        { echo "bench/study_full.sh: $name failed:" >&2; tail -5 "$WORK/$name.log" >&2; exit 1; }
    fold "$WORK/$name.data" >"$WORK/$name.stages"
    [ -n "${KEEP:-}" ] || rm -f "$WORK/$name.data"
}

echo "calibration over $MODELS" >&2
run calibration --models "$MODELS" --calibrate-only --out "$WORK/cal"
IFS=, read -ra list <<<"$MODELS"
for m in "${list[@]}"; do
    echo "job $m" >&2
    run "job-$m" --models "$m" --calibrated-tables "$WORK/cal" --out "$WORK/out-$m"
    ev=$(sqlite3 "$WORK/out-$m/results.sqlite" \
        "select group_concat(tune_evaluations || '/' || tune_budget, ' ') from cells where strategy = 'mcts'")
    cells=$(sqlite3 -separator ' ' "$WORK/out-$m/results.sqlite" \
        "select tune_evaluations, tune_budget, tune_simulations from cells where strategy = 'mcts'" | tr '\n' ';')
    # per simulation of the autotuner: its compile and simulate CPU milliseconds; on an idle
    # machine a cell takes budget x that, at most the cap (cells cut by the cap here ran
    # fewer simulations when the machine was shared): the model's "idle" CPU estimate
    awk -F'\t' -v m="$m" -v ev="$ev" -v cells="$cells" -v cap="${MCTS_CAP:-60}" \
        -v t="$(cat "$WORK/job-$m.time")" '
        {s[$1] += $3; tot += $3; if ($1 == "mcts") st[$2] += $3}
        END {split(t, x, " "); nc = split(cells, c, ";"); n = 0
             for (i = 1; i <= nc; i++) if (split(c[i], f, " ") == 3) n += f[3]
             per = n > 0 ? (s["mcts"] - st["tune space"]) / n : 0; idle = tot - s["mcts"] + st["tune space"]
             for (i = 1; i <= nc; i++) if (split(c[i], f, " ") == 3) {
                 full = f[2] * per; cut = f[1] < f[2]
                 idle += cut ? (full < cap ? full : cap) : f[3] * per }
             printf "%-14s cpu %7.1f s  jobs %5.1f  mcts %6.1f (per simulation: compile %6.1f ms, simulate %6.1f ms)  other %4.1f  mcts evals %-9s  idle estimate %6.1f s  peak %4.0f MiB\n",
                    m, tot, s["jobs"], s["mcts"], 1e3 * st["compile"] / (n ? n : 1), 1e3 * st["simulate"] / (n ? n : 1),
                    s["other"], ev, idle, x[4] / 1024
             printf "%s\n", idle > "/dev/stderr"}' "$WORK/job-$m.stages" 2>>"$WORK/idle.txt"
done
printf '\n%-12s %-16s %9s\n' part stage "cpu s"
cat "$WORK"/*.stages | awk -F'\t' '{s[$1 "\t" $2] += $3} END {for (k in s) print k "\t" s[k]}' |
    sort -t"$(printf '\t')" -k1,1 -k3,3gr | awk -F'\t' '{printf "%-12s %-16s %9.1f\n", $1, $2, $3}'
cat "$WORK"/*.stages | awk -F'\t' '
    {p[$1] += $3; tot += $3}
    END {
        printf "\ntotal cpu %.1f s (calibration %.1f, jobs %.1f, mcts %.1f, other %.1f)\n",
               tot, p["calibration"], p["jobs"], p["mcts"], p["other"]
    }'
idle=$(awk -v c="$(awk -F'\t' '$1 == "calibration" {s += $3} END {print s + 0}' "$WORK/calibration.stages")" \
    '{s += $1} END {printf "%.1f", (s + c) / 2 / 60}' "$WORK/idle.txt")
echo "estimated wall at --threads 2 on an idle 2-core machine: $idle min (calibration and every"
echo "model's CPU, autotuner cells cut by the cap charged budget x CPU per simulation, at most"
echo "the cap, over two threads)"
peak=$(cat "$WORK"/*.time | awk '$4 > m {m = $4} END {printf "%.0f", m / 1024}')
echo "peak RSS of one run: $peak MiB"
