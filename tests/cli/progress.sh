#!/usr/bin/env bash
# Progress bars (docs/cli.md): drawn on stderr only when it is a terminal, never with
# -q/--quiet, and never on stdout. Runs tune, solve with a time limit, calibrate, and cosim
# when the RTL was built, under a pseudo-terminal made by script(1) (util-linux); without
# script it exits 77 (skipped).
# usage: bash tests/cli/progress.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

need_script progress

# on_tty NAME CMD...: run CMD with stdout to $T/NAME.out and stderr on a terminal, whose
# output lands in $T/NAME.tty
on_tty() {
    local name=$1
    shift
    script -qc "$(printf '%q ' "$@") >$T/$name.out" "$T/$name.tty" >/dev/null 2>&1
}
# bar NAME: the terminal output of NAME shows a progress bar (tune labels it with the best
# time so far, cosim with its name)
bar() { tr '\r' '\n' <"$T/$1.tty" | grep -Eq "\[[#.]+\] +[0-9]+% [0-9]+/[0-9]+ "; }

on_tty tune "$LAYSIM" tune zoo:cnn --evaluations 12 --json
bar tune && ok || bad "tune: no progress bar on a terminal"
grep -q '\[#' "$T/tune.out" && bad "tune: progress on stdout" || ok
on_tty tuneq "$LAYSIM" tune zoo:cnn --evaluations 12 -q
bar tuneq && bad "tune -q: progress bar drawn" || ok
"$LAYSIM" tune zoo:cnn --evaluations 12 >/dev/null 2>"$T/tune.err"
grep -q '\[#' "$T/tune.err" && bad "tune: progress drawn though stderr is no terminal" || ok

# solve with a time limit: a bar over the time used (exact on a wide random problem runs
# until its limit); none without a limit or with -q
"$LAYSIM" gen --shape random --ops 3000 -o "$T/r.lsp" >/dev/null 2>&1
on_tty solve "$LAYSIM" solve "$T/r.lsp" --solver exact --time-limit 1
bar solve && ok || bad "solve --time-limit: no progress bar on a terminal"
on_tty solveq "$LAYSIM" solve "$T/r.lsp" --solver exact --time-limit 1 -q
bar solveq && bad "solve -q: progress bar drawn" || ok
# calibrate: one step per trace and the fit
"$LAYSIM" sim --micro gemm:M=512,K=256,N=1024 --trace "$T/g.lstrace" >/dev/null 2>&1
on_tty calib "$LAYSIM" calibrate --traces "$T/g.lstrace" --microbench -o "$T/fit.json"
tr '\r' '\n' <"$T/calib.tty" | grep -Eq "calibrate +\[#+\] +100% 3/3" && ok ||
    bad "calibrate: no progress bar ending at 3/3 on a terminal"
on_tty calibq "$LAYSIM" calibrate --traces "$T/g.lstrace" --microbench -o "$T/fit.json" -q
bar calibq && bad "calibrate -q: progress bar drawn" || ok

if "$LAYSIM" cosim --rows 8 --cols 8 -q --json >"$T/cosim.json" 2>"$T/cosim.err"; then
    on_tty cosim "$LAYSIM" cosim --rows 8 --cols 8
    bar cosim && ok || bad "cosim: no progress bar on a terminal"
    n=$(python3 -c "import json,sys; print(len(json.load(open(sys.argv[1]))['cases']))" "$T/cosim.json")
    tr '\r' '\n' <"$T/cosim.tty" | grep -q " $n/$n " && ok || bad "cosim: the bar does not end at $n/$n"
    on_tty cosimq "$LAYSIM" cosim --rows 8 --cols 8 --quiet
    bar cosimq && bad "cosim --quiet: progress bar drawn" || ok
elif grep -q "built without the RTL" "$T/cosim.err"; then
    echo "progress: cosim not checked (laysim was built without the RTL)"
else
    bad "cosim --rows 8 --cols 8 -q failed: $(head -3 "$T/cosim.err")"
fi

finish
