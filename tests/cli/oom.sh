#!/usr/bin/env bash
# Allocation failures: laysim_failalloc (laysim with every malloc/calloc/realloc of its own
# code through tests/failalloc.c) fails its Nth allocation. For each small command below,
# N runs over 1 .. the allocations the command makes (every k-th when they are more than
# OOM_RUNS, default 80, so that the whole test stays near 20 s), and every run must end
# cleanly: exit 1 or 2 with "out of memory" and no output file (nor a temporary one), or
# exit 0 with the output of the run without failures (an allocation with a fallback); never
# a signal, another exit code or a sanitizer report.
# usage: bash tests/cli/oom.sh <laysim-binary> <source-dir>; LAYSIM_FAILALLOC names the
# hooked binary (CTest sets it; skipped without it)
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

F=${LAYSIM_FAILALLOC:-}
[ -x "$F" ] || { echo "skipped: LAYSIM_FAILALLOC names no executable"; exit 77; }
RUNS=${OOM_RUNS:-80}
# What an out-of-memory failure says.
OOM='out of memory'
cd "$T" || exit 1
"$LAYSIM" problem "$SRC/examples/fig2.lg" -q -o p.lsp && "$LAYSIM" solve p.lsp -q -o p.sol &&
    "$LAYSIM" compile "$SRC/examples/fig2.lg" --layout p.sol -q -o p.prog &&
    "$LAYSIM" sim p.prog -q --trace p.lstrace -o /dev/null || { echo "FAIL: set-up"; exit 1; }

# the output without its wall-clock figures
norm() { grep -aEv '^# built in |wall|seconds' "$1"; }

# one_run NAME N OUT CMD...: the command with its Nth allocation failed
one_run() {
    local name=$1 n=$2 out=$3
    shift 3
    LAYSIM_FAIL_ALLOC=$n "$F" "$@" >/dev/null 2>err
    local rc=$? what="$name, allocation $n"
    if grep -Eq 'Sanitizer|runtime error' err; then
        bad "$what: sanitizer report: $(head -c 300 err)"
    elif [ "$rc" -eq 0 ]; then
        if cmp -s <(norm "ref.$name") <(norm "$out"); then ok; else bad "$what: exit 0, output differs"; fi
    elif [ "$rc" -eq 1 ] || [ "$rc" -eq 2 ]; then
        if ! grep -Eq "$OOM" err; then
            bad "$what: exit $rc without 'out of memory': $(head -c 300 err)"
        elif compgen -G "$out*" >/dev/null; then
            bad "$what: exit $rc left $(compgen -G "$out*" | head -1)"
        else ok; fi
    else
        bad "$what: exit $rc: $(head -c 300 err)"
    fi
    rm -f "$out"*
}

# sweep NAME ARGS...: OUT in ARGS is where the command writes its output
sweep() {
    local name=$1
    shift
    LAYSIM_ALLOC_COUNT=count "$F" "${@//OUT/ref.$name}" >/dev/null 2>err ||
        { bad "$name: the run without failures failed: $(head -c 300 err)"; return; }
    local total step n
    total=$(cat count)
    step=$(((total + RUNS - 1) / RUNS))
    for ((n = 1; n <= total; n += step)); do
        one_run "$name" "$n" "o.$name" "${@//OUT/o.$name}"
    done
    echo "$name: $total allocations, failed one at a time in steps of $step"
}

sweep problem problem "$SRC/examples/fig2.lg" -q -o OUT
sweep partial problem "$SRC/examples/fig2.lg" --memplan partial -q -o OUT
for s in rulebased greedy local dp exact; do
    sweep "solve-$s" solve p.lsp --solver "$s" -q -o OUT
done
sweep compile compile "$SRC/examples/fig2.lg" --layout p.sol -q -o OUT
sweep sim sim p.prog -q -o OUT
sweep trace sim p.prog -q --trace OUT -o /dev/null
sweep calibrate calibrate --traces p.lstrace -q -o OUT
finish
