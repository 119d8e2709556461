#!/usr/bin/env bash
# A study and a what-if sweep on a real (single-node) Slurm cluster: scripts/slurm-local.sh
# brings it up, scripts/slurm-study.sh runs the grid as a job array of 4 shards and merges
# them; the merged results equal a one-process run's, timing aside. A shard that fails and
# one cancelled while it runs (scancel of one array element) are each reported by shard
# number, and --resume resubmits only that shard, ending with the same results; a failed
# calibration job (the tables are fitted once, before the array) likewise. A what-if
# shard of a sweep over as many shards as variants holds one variant.
# Skipped (77) without the Slurm packages (scripts/deps.sh slurm) or without root.
# usage: bash tests/cli/slurm.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

for t in munged mungekey slurmctld slurmd sbatch sinfo squeue scancel scontrol jq; do
    command -v "$t" >/dev/null 2>&1 || { echo "skipped: $t not installed (scripts/deps.sh slurm)"; exit 77; }
done
[ "$(id -u)" = 0 ] || { echo "skipped: slurmd needs root"; exit 77; }
case $LAYSIM in /*) ;; *) LAYSIM=$PWD/$LAYSIM ;; esac

CL=$T/cluster
# a port of its own, so that a cluster already up on the default one is left alone
export SLURM_LOCAL_PORT=$((20000 + $$ % 20000))
trap '"$SRC/scripts/slurm-local.sh" down --dir "$CL"; rm -rf "$T"' EXIT
expect 0 "slurm-local.sh up" "$SRC/scripts/slurm-local.sh" up --dir "$CL"
[ "$fail" = 0 ] || { cat "$T/err"; finish; exit 1; }
expect 0 "slurm-local.sh up again (idempotent)" "$SRC/scripts/slurm-local.sh" up --dir "$CL"
export SLURM_CONF=$CL/slurm.conf
expect 0 "slurm-local.sh status" "$SRC/scripts/slurm-local.sh" status --dir "$CL"
if grep -q 'slurmd: running' "$T/out" && grep -Eq 'idle|mix|alloc' "$T/out"; then ok; else
    bad "status: $(cat "$T/out")"; fi

# results.json and cells.csv without the run-dependent timing keys and columns
strip() { jq -S 'walk(if type == "object" then with_entries(select(.key | test("seconds$") | not)) else . end)' "$1/results.json"; }
cells() { sed 's/,[^,]*,[^,]*$//' "$1/cells.csv"; }   # solve_seconds, wall_seconds
same() {   # same WHAT DIR: DIR's results equal the one-process run's
    if [ -s "$2/results.json" ] && cmp -s <(strip "$ONE") <(strip "$2") && cmp -s <(cells "$ONE") <(cells "$2"); then ok; else
        bad "$1: merged results differ from the one-process run's"
        diff <(strip "$ONE") <(strip "$2") | head -20
    fi
}

# shellcheck disable=SC2054 # one --models list
GRID=(--models cnn,whisper-enc:quick,bert-base:quick,vit-b16:quick,bart-base:quick --mcts-evaluations 8)
expect 0 "one-process study" "$LAYSIM" study "${GRID[@]}" --threads 2 --quiet --out "$T/one"
ONE=$T/one
RUN=("$SRC/scripts/slurm-study.sh" --shards 4 --poll 1 --laysim "$LAYSIM")
expect 0 "slurm-study.sh study" "${RUN[@]}" --out "$T/s" -q study "${GRID[@]}"
if grep -q "shards 1,2,3,4 of 4" "$T/err"; then ok; else bad "no 4-task array: $(cat "$T/err")"; fi
for k in 1 2 3 4; do
    n=$(jq '.cells | length' "$T/s/shard-$k/results.json")
    if [ "$n" -ge 11 ]; then ok; else bad "shard $k ran no job"; fi
done
same "study over a 4-task array" "$T/s/merged"
for f in report.html report.md table1.csv; do
    if [ -s "$T/s/merged/$f" ]; then ok; else bad "merged report lacks $f"; fi
done

# the script's own options are checked before anything is submitted
expect 2 "--shard among laysim's options" "${RUN[@]}" --out "$T/u" study --shard 1/2
expect_err "script's to set" "--shard among laysim's options"
expect 1 "a second run into the same DIR" "${RUN[@]}" --out "$T/s" study "${GRID[@]}"
expect_err "already holds a run" "a second run into the same DIR"
expect 1 "--resume of nothing" "${RUN[@]}" --out "$T/u" --resume
expect_err "no run of slurm-study.sh" "--resume of nothing"

# shards that fail (while $T/fail exists, a laysim that exits 3 on shard 3 and one that is
# ended by SIGTERM on shard 4, as scancel does when laysim dies before the task script), then
# --resume
cat >"$T/laysim-shim" <<EOF
#!/usr/bin/env bash
echo "\$*" >>"$T/calls"
case " \$* " in
*" --calibrate-only "*) [ -e "$T/failcal" ] && exit 4 ;;
*" --shard 3/4 "*) [ -e "$T/fail" ] && exit 3 ;;
*" --shard 4/4 "*) [ -e "$T/fail" ] && kill -TERM \$\$ ;;
*" --shard 2/4 "*) [ -e "$T/hang" ] && { touch "$T/started"; sleep 120; } ;;
esac
exec "$LAYSIM" "\$@"
EOF
chmod +x "$T/laysim-shim"
SHIM=("$SRC/scripts/slurm-study.sh" --shards 4 --poll 1 --laysim "$T/laysim-shim")
touch "$T/fail"
expect 1 "failing shards" "${SHIM[@]}" --out "$T/f" -q study "${GRID[@]}"
if grep -q "shard 3/4 failed: laysim exited 3 (log: $T/f/slurm/shard-3.log)" "$T/err" &&
   grep -q "shard 4/4 failed: cancelled, killed or never ran (laysim ended by signal 15)" "$T/err" &&
   [ "$(grep -c 'failed:' "$T/err")" = 2 ] && grep -q 'rerun with --resume' "$T/err"; then ok; else
    bad "the failed shards are not reported: $(cat "$T/err")"; fi
if [ ! -e "$T/f/merged" ]; then ok; else bad "merged although a shard failed"; fi
rm "$T/fail"
expect 0 "--resume after failed shards" "${SHIM[@]}" --out "$T/f" -q --resume --sbatch --time=10
if grep -q "shards 3,4 of 4" "$T/err"; then ok; else bad "--resume did not resubmit shards 3 and 4 alone: $(cat "$T/err")"; fi
if scontrol show job "$(cat "$T/f/slurm/jobid")" | grep -q 'TimeLimit=00:10:00'; then ok; else
    bad "--resume did not pass its --sbatch option"; fi
same "resumed after failed shards" "$T/f/merged"
# the tables were fitted once, by the calibration job of the first run; every shard read them
n=$(grep -c -- '--calibrate-only' "$T/calls")
m=$(grep -- '--shard' "$T/calls" | grep -vc -- "--calibrated-tables $T/f/calibration")
if [ "$n" = 1 ] && [ "$m" = 0 ]; then ok; else
    bad "$n calibration jobs (want 1), $m shards fitting their own tables (want 0)"; cat "$T/calls"; fi

# a failed calibration job: reported, the array cancelled (its shards never ran); --resume
# fits the tables again and runs every shard
touch "$T/failcal"
expect 1 "a failing calibration" "${SHIM[@]}" --out "$T/k" -q study "${GRID[@]}"
if grep -q "the calibration failed: laysim exited 4 (log: $T/k/slurm/calibration.log)" "$T/err" &&
   [ "$(grep -c 'failed: cancelled, killed or never ran' "$T/err")" = 4 ]; then ok; else
    bad "the failed calibration is not reported: $(cat "$T/err")"; fi
rm "$T/failcal"
expect 0 "--resume after a failed calibration" "${SHIM[@]}" --out "$T/k" -q --resume
if grep -q "calibration job" "$T/err" && grep -q "shards 1,2,3,4 of 4" "$T/err"; then ok; else
    bad "--resume did not resubmit the calibration and every shard: $(cat "$T/err")"; fi
same "resumed after a failed calibration" "$T/k/merged"

# a shard cancelled while it runs (scancel of one array element), then --resume
touch "$T/hang"
"${SHIM[@]}" --out "$T/c" -q study "${GRID[@]}" >"$T/c.out" 2>"$T/c.err" &
wrapper=$!
for _ in $(seq 600); do [ -e "$T/started" ] && break; sleep 0.1; done
if [ -e "$T/started" ]; then
    scancel "$(cat "$T/c/slurm/jobid")_2"
    ok
else
    bad "shard 2 never started"
fi
wait "$wrapper"
rc=$?
if [ "$rc" = 1 ]; then ok; else bad "the run with a cancelled shard exited $rc, want 1"; fi
if grep -q "shard 2/4 failed: cancelled, killed or never ran" "$T/c.err" &&
   [ "$(grep -c 'failed:' "$T/c.err")" = 1 ]; then ok; else
    bad "the cancelled shard is not reported: $(cat "$T/c.err")"; fi
rm "$T/hang"
expect 0 "--resume after a cancelled shard" "${SHIM[@]}" --out "$T/c" -q --resume
if grep -q "shards 2 of 4" "$T/err"; then ok; else bad "--resume resubmitted more than shard 2: $(cat "$T/err")"; fi
same "resumed after a cancelled shard" "$T/c/merged"

# a what-if sweep of 8 variants (one of them nc-v2 itself) over the quick models, one variant
# per task of an 8-task array, against one process
# shellcheck disable=SC2054 # value lists
WI=(--set pe.rows=64,128 --set dma.bytes_per_ns=8,17 --set dma.transfer_latency_ns=700,2000 --quick)
expect 0 "one-process whatif" "$LAYSIM" whatif "${WI[@]}" --threads 2 --quiet --out "$T/wone"
ONE=$T/wone
RUN8=("$SRC/scripts/slurm-study.sh" --shards 8 --poll 1 --laysim "$LAYSIM")
expect 0 "slurm-study.sh whatif" "${RUN8[@]}" --out "$T/w" whatif "${WI[@]}"
same "whatif over an 8-task array" "$T/w/merged"
# each shard holds one variant's jobs and takes that table alone
for k in 1 2 3 4 5 6 7 8; do
    n=$(find "$T/w/shard-$k" -name 'calibrated-table*.json' | wc -l)
    v=$(jq '[.targets[].label] | unique | length' "$T/w/shard-$k/results.json")
    if [ "$n" = 1 ] && [ "$v" = 1 ]; then ok; else bad "what-if shard $k: $v variants, $n calibrations, want 1 and 1"; fi
done
n=$(jq '[.targets[].label] | unique | length' "$T/w/merged/results.json")
if [ "$n" = 8 ]; then ok; else bad "the merged what-if report has $n variants, want 8"; fi
n=$(grep '^Target nc-v2 pe.rows=' "$T/w/merged/report.md" | sort -u | wc -l)
if [ "$n" = 8 ]; then ok; else bad "the merged report.md names $n of the 8 variants"; fi
if grep -q "merged 8 stores" "$T/out"; then ok; else bad "no merged summary: $(head -c 300 "$T/out")"; fi

expect 0 "slurm-local.sh down" "$SRC/scripts/slurm-local.sh" down --dir "$CL"
if [ ! -e "$CL" ]; then ok; else bad "down left $CL"; fi
expect 1 "status after down" "$SRC/scripts/slurm-local.sh" status --dir "$CL"
finish
