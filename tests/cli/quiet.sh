#!/usr/bin/env bash
# One -q (docs/cli.md): every command `laysim --help` lists accepts -q/--quiet, prints no
# status or summary line on stderr with it, and gives the same results: the same stdout
# (wall-clock seconds masked) and the same files. A command the table below does not
# know fails the test: a new command must say how to run it quietly. solve -q -o FILE
# prints no summary line (the .sol is the result); study, whatif and merge -q drop their
# terminal summary, so only their files are compared.
# usage: bash tests/cli/quiet.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

cd "$T" || exit 1
ONNX=$SRC/tests/data/onnx/tiny_attn.onnx
"$LAYSIM" problem zoo:cnn -o c.lsp && "$LAYSIM" solve c.lsp -o c.sol >/dev/null &&
    "$LAYSIM" compile zoo:cnn --layout c.sol -o c.prog 2>/dev/null &&
    "$LAYSIM" sim c.prog --trace c.lstrace >/dev/null || { echo "FAIL: set-up"; exit 1; }

# per command: its arguments (run in $T; OUT is replaced by a per-run output name) and
# what is compared between the plain and the quiet run ("stdout" and/or the file OUT)
declare -A ARGS=(
    [calibrate]="--traces c.lstrace -o OUT"
    [check]="c.lsp c.sol"
    [compile]="zoo:cnn --layout c.sol -o OUT"
    [cosim]="--rows 16 --cols 16"
    [explain]="$SRC/examples/fig1.lg --op D"
    [export]="c.lsp --to wcnf -o OUT"
    [gen]="--shape random --ops 20 --seed 3 -o OUT"
    [graph]="$SRC/examples/fig2.lg --stats"
    [loop]="zoo:cnn --layers 1 --iterations 1"
    [merge]="--out OUT study.plain"
    [problem]="zoo:cnn -o OUT"
    [sim]="c.prog"
    [solve]="c.lsp --solver greedy -o OUT"
    [study]="--models $ONNX --threads 1 --no-calibrate --out OUT"
    [trace]="c.lstrace summary"
    [tune]="zoo:cnn --evaluations 3"
    [validate]="zoo:cnn --layers 1"
    [whatif]="--set pe.rows=64 --models $ONNX --threads 1 --out OUT"
    [zoo]=""
)
declare -A SAME=(
    [calibrate]="stdout OUT" [check]="stdout" [compile]="OUT" [cosim]="stdout"
    [explain]="stdout" [export]="stdout OUT" [gen]="stdout OUT" [graph]="stdout"
    [loop]="stdout" [merge]="OUT/table1.csv" [problem]="stdout OUT" [sim]="stdout"
    [solve]="OUT" [study]="OUT/table1.csv" [trace]="stdout" [tune]="stdout"
    [validate]="stdout" [whatif]="OUT/whatif.csv" [zoo]="stdout"
)
# study runs first: merge reads its plain run's store
cmds=$("$LAYSIM" --help | awk '/^commands:/{on=1; next} on && /^  [a-z]/{print $1} on && /^$/{on=0}')
[ "$(echo "$cmds" | grep -c .)" -ge 15 ] || { echo "FAIL: too few commands in laysim --help"; exit 1; }
cmds=$(echo "$cmds" | grep -x study; echo "$cmds" | grep -vx study)

# FILE with wall-clock seconds, rates and the run's own output name masked
mask() { sed -E "s/[0-9]+\.[0-9]+ (CPU )?s\b/N s/g; s/[0-9]+ cycles(\/s| per CPU second)/N cycles\1/g; s/\"[a-z_]*seconds\": [0-9.e+-]+/\"seconds\": N/g; s/$c\.(plain|quiet)/OUT/g" "$1"; }

for c in $cmds; do
    if [ -z "${ARGS[$c]+set}" ]; then
        bad "$c: listed by laysim --help but not in quiet.sh's table"
        continue
    fi
    read -r -a plain <<<"${ARGS[$c]//OUT/$c.plain}"
    read -r -a quiet <<<"${ARGS[$c]//OUT/$c.quiet}"
    "$LAYSIM" "$c" "${plain[@]}" >"$c.plain.out" 2>"$c.plain.err"
    rc=$?
    if [ "$c" = cosim ] && grep -q "built without the RTL" "$c.plain.err"; then
        # no RTL in this build: -q must still be accepted (the same refusal follows)
        "$LAYSIM" cosim -q "${quiet[@]}" >/dev/null 2>"$c.quiet.err"
        grep -q "built without the RTL" "$c.quiet.err" && ok || bad "cosim -q: $(cat "$c.quiet.err")"
        continue
    fi
    [ $rc -eq 0 ] || { bad "$c ${ARGS[$c]}: exit $rc ($(head -c 200 "$c.plain.err"))"; continue; }
    "$LAYSIM" "$c" "${quiet[@]}" -q >"$c.quiet.out" 2>"$c.quiet.err"
    rc=$?
    [ $rc -eq 0 ] && ok || { bad "$c -q: exit $rc ($(head -c 200 "$c.quiet.err"))"; continue; }
    [ -s "$c.quiet.err" ] && bad "$c -q: stderr: $(head -c 200 "$c.quiet.err")" || ok
    for what in ${SAME[$c]}; do
        if [ "$what" = stdout ]; then
            a=$c.plain.out b=$c.quiet.out
        else
            a=${what//OUT/$c.plain} b=${what//OUT/$c.quiet}
        fi
        if [ -e "$a" ] && cmp -s <(mask "$a") <(mask "$b"); then ok
        else bad "$c -q: $what differs from the plain run's"; fi
    done
done
# solve -q -o FILE: nothing on stdout (the plain run's summary line is gone)
[ -s solve.plain.out ] && ok || bad "solve: the plain run printed no summary"
[ -s solve.quiet.out ] && bad "solve -q -o FILE printed: $(cat solve.quiet.out)" || ok
# ... and --quiet is the same option
"$LAYSIM" solve c.lsp --solver greedy -o s2.sol --quiet >s2.out 2>&1 && [ ! -s s2.out ] && ok ||
    bad "solve --quiet: $(cat s2.out)"
finish
