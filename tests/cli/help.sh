#!/usr/bin/env bash
# The command-line conventions of docs/cli.md, held by walking `laysim --help` and every
# subcommand's --help: every command that prints results documents --json, -o is a file
# output everywhere, --jobs survives only as a deprecated alias line, --time-limit is a
# whole command's limit (per-part limits are named), -q goes with --quiet,
# --target/--set wherever a target matters, and a bad option or a missing input is reported
# as "laysim CMD: ..." with exit 2. A command the lists below do not classify fails the test:
# a new command must be placed, not skipped.
# usage: bash tests/cli/help.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# commands that print results (they must have --json) ...
RESULTS="calibrate check compile cosim explain graph loop merge problem sim solve study trace
         tune validate whatif zoo"
# ... and commands whose output is the file they write, not results (stdout without -o)
FILES="export gen"
# commands whose work depends on the hardware target
TARGETED="calibrate compile explain loop problem sim solve study tune validate whatif"

# per command, arguments that name a missing input: the error must lead with "laysim CMD: "
N=/nonexistent/laysim-help-test
declare -A BAD_INPUT=(
    [calibrate]="--traces $N.lstrace -o $N.json" [check]="$N.lsp $N.sol" [compile]="$N.lg"
    [cosim]="--rows 12 --cols 12" [explain]="$N.lg --op x" [export]="$N.lsp --to wcnf"
    [gen]="--shape sat --cnf $N.cnf" [graph]="$N.lg" [loop]="$N.lg" [merge]="--out $N.out $N"
    [problem]="$N.lg" [sim]="$N.lsprog" [solve]="$N.lsp" [study]="--models nosuch --out $N"
    [trace]="$N.lstrace summary" [tune]="$N.lg" [validate]="$N.lg"
    [whatif]="--set nosuch.key=1 --out $N" [zoo]="nosuch"
)

in_list() { case " $(echo $2) " in *" $1 "*) return 0 ;; esac; return 1; }

expect 0 "laysim --help" "$LAYSIM" --help
cmds=$(awk '/^commands:/ {f = 1; next} /^$/ {f = 0} f {print $1}' "$T/out")
[ "$(echo "$cmds" | wc -w)" -ge 19 ] && ok || bad "laysim --help lists too few commands: $cmds"
for c in $RESULTS $FILES; do
    in_list "$c" "$cmds" && ok || bad "$c is classified here but not in laysim --help"
done

for c in $cmds; do
    expect 0 "$c --help" "$LAYSIM" "$c" --help
    h="$T/help.$c"
    cp "$T/out" "$h"
    grep -q "^usage: laysim $c" "$h" && ok || bad "$c --help: no 'usage: laysim $c' on stdout"
    [ -s "$T/err" ] && bad "$c --help wrote to stderr" || ok
    "$LAYSIM" help "$c" >"$T/help2" 2>/dev/null && cmp -s "$h" "$T/help2" && ok ||
        bad "laysim help $c differs from laysim $c --help"

    if in_list "$c" "$RESULTS"; then
        grep -Eq -- '--json\b' "$h" && ok || bad "$c prints results but its help lacks --json"
    elif in_list "$c" "$FILES"; then
        grep -Eq -- '^ +-o( FILE|, --output FILE)' "$h" && ok || bad "$c writes a file but documents no -o FILE"
    else
        bad "$c is in neither RESULTS nor FILES of tests/cli/help.sh: classify it"
    fi
    if in_list "$c" "$TARGETED"; then
        grep -Eq -- '--target\b' "$h" && grep -Eq -- '--set\b' "$h" && ok ||
            bad "$c depends on the target but its help lacks --target/--set"
    fi

    # --jobs only as the deprecated alias of --threads
    grep -- '--jobs' "$h" | grep -qv deprecated && bad "$c: --jobs outside a deprecated line" || ok
    # -o is a file output: its option line says FILE, and no line gives -o a directory
    if grep -v deprecated "$h" | grep -Eq -- '(^|[ [(])-o([ ,]|$)'; then
        grep -Eq -- '^ +-o( FILE|, --output FILE)( |$)' "$h" && ok ||
            bad "$c mentions -o but has no '-o FILE' option line"
    fi
    grep -E -- '-o DIR' "$h" | grep -qv deprecated && bad "$c: -o names a directory" || ok
    # --time-limit bounds the whole command; per-part limits have their own names
    grep -E -- '^ +--time-limit' "$h" | grep -v deprecated | grep -Eqi 'per[- ]solve|each solve' &&
        bad "$c: --time-limit is a per-part limit" || ok
    # --quiet comes with -q
    if grep -q -- '--quiet' "$h"; then
        grep -q -- '-q, --quiet' "$h" && ok || bad "$c documents --quiet without -q"
    fi

    # a missing input: exit 2 (cosim: 1 without the RTL), "laysim CMD: " first
    if [ -n "${BAD_INPUT[$c]:-}" ]; then
        # shellcheck disable=SC2086
        "$LAYSIM" "$c" ${BAD_INPUT[$c]} >/dev/null 2>"$T/err"
        rc=$?
        { [ $rc = 2 ] || { [ "$c" = cosim ] && [ $rc = 1 ]; }; } && ok ||
            bad "$c ${BAD_INPUT[$c]}: exit $rc, want 2"
        head -1 "$T/err" | grep -q "^laysim $c: " && ok ||
            bad "$c: input error '$(head -1 "$T/err")' lacks the 'laysim $c: ' prefix"
    else
        bad "$c has no BAD_INPUT entry in tests/cli/help.sh: add one"
    fi

    # a bad option: exit 2, "laysim CMD: " first
    expect 2 "$c --no-such-option" "$LAYSIM" "$c" --no-such-option
    head -1 "$T/err" | grep -q "^laysim $c: " && ok ||
        bad "$c --no-such-option: stderr '$(head -1 "$T/err")' lacks the 'laysim $c: ' prefix"
done

# the deprecated spellings still work, with a notice
expect 0 "study --jobs" "$LAYSIM" study --models cnn --out "$T/s" --jobs 1 --no-calibrate \
    --mcts-evaluations 0 --quiet
expect_err "laysim study: --jobs is deprecated, say --threads" "study --jobs notice"
expect 0 "validate --time-limit" "$LAYSIM" validate zoo:cnn --time-limit 60 -q
expect_err "laysim validate: --time-limit is deprecated, say --solver-time-limit" \
    "validate --time-limit notice"
expect 2 "loop --time-limit without a model" "$LAYSIM" loop --time-limit 60
expect_err "laysim loop: --time-limit is deprecated, say --solver-time-limit" "loop --time-limit notice"
expect 2 "merge -o without inputs" "$LAYSIM" merge -o "$T/m"
expect_err "laysim merge: -o DIR is deprecated" "merge -o notice"

finish
