#!/usr/bin/env bash
# Run `laysim study` or `laysim whatif` on a Slurm cluster: the grid as a job array, one
# shard per task (`--shard K/N`, K = the array index 1..N), wait for it, merge the shards'
# stores with `laysim merge` and write the report (docs/study.md, "Scaling out"). Unless
# --no-calibrate, one job first fits the calibrated tables (`--calibrate-only`) and the
# array, which starts after it, reads them (`--calibrated-tables`) instead of each shard
# fitting them again.
# usage: scripts/slurm-study.sh --out DIR [--shards N] [--resume | --force] [--laysim PATH]
#                               [--sbatch ARG]... [--poll S] [-q] study|whatif [laysim options...]
#   --out DIR      DIR/shard-K: shard K's store; DIR/calibration: the calibrated tables;
#                  DIR/merged: the merged store and report; DIR/slurm: the task script, the
#                  run's arguments, per-job logs and exit codes. DIR must be on a file
#                  system every node sees.
#   --shards N     array tasks (default 4)
#   --resume       resubmit only the shards that have no result (failed, cancelled, killed,
#                  never ran), with the first run's arguments (--sbatch options given now
#                  come after the first run's, e.g. a longer --time); each resumes its own
#                  store (`laysim --resume`: jobs already complete are skipped); then merge
#   --force        replace a previous run in DIR (without --resume or --force, a DIR that
#                  holds a run is an error)
#   --laysim PATH  the laysim binary the tasks run (default: laysim on PATH)
#   --sbatch ARG   an extra sbatch option, repeatable: --partition=P, --cpus-per-task=C
#                  (the shard's --threads), --mem=8G, --time=02:00:00, --account=A, ...
#   --poll S       seconds between two looks at the queue while waiting (default 10)
#   -q, --quiet    no merged summary on the terminal
# The laysim options are those of the command, without --out, --shard, --resume, --force,
# --calibrate-only, --calibrated-tables (the script sets them) and -q/--quiet (tasks always
# run quiet); --threads defaults to the task's --cpus-per-task (1 without it).
# Exit codes: 0 merged; 1 a shard or the calibration failed (each named with its exit code
# or as cancelled, killed or never run, and its log; rerun with --resume) or Slurm refused
# the job; 2 usage.
set -euo pipefail

die() { echo "slurm-study.sh: $*" >&2; exit "${CODE:-1}"; }
usage() { CODE=2 die "$* (usage: scripts/slurm-study.sh --out DIR [--shards N] [--resume | --force] [--laysim PATH] [--sbatch ARG]... [--poll S] [-q] study|whatif [laysim options...])"; }

OUT='' N='' POLL=10 RESUME=0 FORCE=0 QUIET=0 LAYSIM='' SBATCH=()
while [ $# -gt 0 ]; do
    case $1 in
    --out) [ $# -ge 2 ] || usage "--out needs a directory"; OUT=$2; shift 2 ;;
    --shards) [ $# -ge 2 ] || usage "--shards needs a count"; N=$2; shift 2 ;;
    --resume) RESUME=1; shift ;;
    --force) FORCE=1; shift ;;
    --laysim) [ $# -ge 2 ] || usage "--laysim needs a path"; LAYSIM=$2; shift 2 ;;
    --sbatch) [ $# -ge 2 ] || usage "--sbatch needs an option"; SBATCH+=("$2"); shift 2 ;;
    --poll) [ $# -ge 2 ] || usage "--poll needs seconds"; POLL=$2; shift 2 ;;
    -q | --quiet) QUIET=1; shift ;;
    study | whatif) break ;;
    *) usage "unknown option '$1'" ;;
    esac
done
[ -n "$OUT" ] || usage "--out DIR is required"
[ $RESUME -eq 1 ] && [ $FORCE -eq 1 ] && usage "--resume and --force exclude each other"
case $OUT in /*) ;; *) OUT=$PWD/$OUT ;; esac
S=$OUT/slurm
[[ $POLL =~ ^[0-9]+(\.[0-9]+)?$ ]] || usage "--poll: expected seconds, got '$POLL'"
command -v sbatch >/dev/null 2>&1 || die "sbatch not found (a Slurm client; scripts/deps.sh slurm)"

if [ $RESUME -eq 1 ]; then
    [ -f "$S/run" ] || die "$OUT holds no run of slurm-study.sh to resume"
    given=("$@") shards=$N more=("${SBATCH[@]}")
    # shellcheck source=/dev/null
    . "$S/run"   # CMD ARGS N LAYSIM SBATCH CALIBRATE of the first run
    SBATCH+=("${more[@]}")
    [ -z "$shards" ] || [ "$shards" = "$N" ] || CODE=2 die "--resume: the run has $N shards, not $shards"
    if [ ${#given[@]} -gt 0 ] && [ "${given[*]}" != "$CMD ${ARGS[*]}" ]; then
        CODE=2 die "--resume runs the first run's command ($CMD ${ARGS[*]}), not: ${given[*]}"
    fi
else
    [ $# -ge 1 ] || usage "give the command: study or whatif"
    CMD=$1
    shift
    ARGS=("$@")
    for a in "${ARGS[@]}"; do
        case $a in
        --out | --out=* | --shard | --shard=* | --resume | --force | -q | --quiet | \
            --calibrate-only | --calibrated-tables | --calibrated-tables=*)
            usage "$a is the script's to set, not the command's" ;;
        esac
    done
    N=${N:-4}
    [[ $N =~ ^[1-9][0-9]*$ ]] || usage "--shards: expected a positive count, got '$N'"
    LAYSIM=${LAYSIM:-$(command -v laysim || true)}
    [ -n "$LAYSIM" ] || die "no laysim on PATH: give --laysim PATH"
    case $LAYSIM in /*) ;; *) LAYSIM=$PWD/$LAYSIM ;; esac
    [ -x "$LAYSIM" ] || die "$LAYSIM is not an executable"
    if [ -e "$S/run" ] && [ $FORCE -eq 0 ]; then
        die "$OUT already holds a run: --resume continues it, --force replaces it"
    fi
    CALIBRATE=1
    for a in "${ARGS[@]}"; do [ "$a" != --no-calibrate ] || CALIBRATE=0; done
    rm -rf "$S" "$OUT"/shard-* "$OUT/merged" "$OUT/calibration"
    mkdir -p "$S"
    { declare -p CMD ARGS N LAYSIM SBATCH CALIBRATE; } >"$S/run.tmp" && mv "$S/run.tmp" "$S/run"
    # the array task: shard K = the array index; its exit code lands in slurm/shard-K.rc
    cat >"$S/task.sh" <<'EOF'
#!/usr/bin/env bash
# a job of scripts/slurm-study.sh: args OUT [calibrate]; the run's settings are in
# OUT/slurm/run. An array task runs shard K = the array index; "calibrate" fits the tables.
OUT=$1
. "$OUT/slurm/run"
if [ "${2:-}" = calibrate ]; then
    rm -f "$OUT/slurm/calibration.rc"
    "$LAYSIM" "$CMD" --threads "${SLURM_CPUS_PER_TASK:-1}" "${ARGS[@]}" --quiet \
        --calibrate-only --out "$OUT/calibration" --force
    rc=$?
    echo "$rc" >"$OUT/slurm/calibration.rc"
    exit "$rc"
fi
k=$SLURM_ARRAY_TASK_ID
tables=()
[ "$CALIBRATE" = 0 ] || tables=(--calibrated-tables "$OUT/calibration")
rm -f "$OUT/slurm/shard-$k.rc"
"$LAYSIM" "$CMD" --threads "${SLURM_CPUS_PER_TASK:-1}" "${ARGS[@]}" --quiet \
    --shard "$k/$N" --out "$OUT/shard-$k" --resume "${tables[@]}"
rc=$?
echo "$rc" >"$OUT/slurm/shard-$k.rc"
exit "$rc"
EOF
fi

# shards_without_result: the K whose task did not end with exit code 0
shards_without_result() {
    local k
    for k in $(seq "$N"); do
        [ "$(cat "$S/shard-$k.rc" 2>/dev/null)" = 0 ] || echo "$k"
    done
}

# why_failed RCFILE: a task's end in words. Above 128 the task was signalled: scancel sends
# SIGTERM to every process of the task, and the task script may record laysim's 143 before
# its own signal arrives, so a cancelled task reads the same whichever process died first.
why_failed() {
    local rc
    rc=$(cat "$1" 2>/dev/null || true)
    if [ -z "$rc" ]; then echo "cancelled, killed or never ran"
    elif [ "$rc" -gt 128 ] 2>/dev/null; then
        echo "cancelled, killed or never ran (laysim ended by signal $((rc - 128)))"
    else echo "laysim exited $rc"; fi
}

# wait_for JOBID: until no task of the array is pending, running or completing (squeue lists
# only those); a failing squeue (the controller busy or restarting) is retried, never taken
# for the end
wait_for() {
    local q
    while :; do
        if q=$(squeue -h -u "$(id -un)" -o %F 2>/dev/null); then
            grep -qx "$1" <<<"$q" || return 0
        fi
        sleep "$POLL"
    done
}

# a resumed run whose array is still queued or running (the script was interrupted while it
# waited) waits for it first: a shard is never run twice at once
if [ $RESUME -eq 1 ] && [ -s "$S/jobid" ] && squeue -h -u "$(id -un)" -o %F 2>/dev/null | grep -qx "$(cat "$S/jobid")"; then
    echo "slurm-study.sh: job array $(cat "$S/jobid") of this run is still in the queue: waiting for it" >&2
    wait_for "$(cat "$S/jobid")"
fi
todo=$(shards_without_result | paste -sd, -)
if [ -n "$todo" ]; then
    for k in ${todo//,/ }; do rm -f "$S/shard-$k.rc" "$S/shard-$k.log"; done
    after=()
    if [ "$CALIBRATE" = 1 ] && [ "$(cat "$S/calibration.rc" 2>/dev/null)" != 0 ]; then
        rm -f "$S/calibration.rc"
        cid=$(sbatch --parsable --job-name="laysim-$CMD-calibrate" --output="$S/calibration.log" \
            "${SBATCH[@]}" "$S/task.sh" "$OUT" calibrate) || die "sbatch refused the calibration job"
        cid=${cid%%;*}
        echo "slurm-study.sh: calibration job $cid" >&2
        # a failed calibration cancels the array instead of leaving it pending forever
        after=(--dependency="afterok:$cid" --kill-on-invalid-dep=yes)
    fi
    jid=$(sbatch --parsable --array="$todo" --job-name="laysim-$CMD" "${after[@]}" \
        --output="$S/shard-%a.log" "${SBATCH[@]}" "$S/task.sh" "$OUT") ||
        die "sbatch refused the job array"
    jid=${jid%%;*}
    echo "$jid" >"$S/jobid"
    echo "slurm-study.sh: job array $jid: shards $todo of $N ($CMD)" >&2
    wait_for "$jid"
fi

if [ "$CALIBRATE" = 1 ] && [ "$(cat "$S/calibration.rc" 2>/dev/null)" != 0 ]; then
    echo "slurm-study.sh: the calibration failed: $(why_failed "$S/calibration.rc") (log: $S/calibration.log)" >&2
fi
failed=$(shards_without_result)
if [ -n "$failed" ]; then
    for k in $failed; do
        echo "slurm-study.sh: shard $k/$N failed: $(why_failed "$S/shard-$k.rc") (log: $S/shard-$k.log)" >&2
    done
    die "$(wc -w <<<"$failed") of $N shards have no result: rerun with --resume to resubmit only those"
fi

shards=()
for k in $(seq "$N"); do shards+=("$OUT/shard-$k"); done
q=()
[ $QUIET -eq 1 ] && q=(--quiet)
"$LAYSIM" merge "${q[@]}" --out "$OUT/merged" "${shards[@]}" || die "laysim merge failed"
