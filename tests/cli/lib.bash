# Shared by the command-line tests (sourced, not run): a scratch directory $T removed on
# exit, pass/fail counters, and checks. Every test script ends with `finish`.
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect CODE DESCRIPTION CMD...: run CMD (stdout to $T/out, stderr to $T/err) and compare
# its exit code.
expect() {
    local want=$1 what=$2
    shift 2
    "$@" >"$T/out" 2>"$T/err"
    local got=$?
    if [ "$got" -eq "$want" ]; then ok; else bad "$what: exit $got, want $want ($(head -c 300 "$T/err"))"; fi
}
# expect_err PATTERN DESCRIPTION: the last command's stderr matches the extended regex.
expect_err() {
    if grep -Eq -- "$1" "$T/err"; then ok; else bad "$2: stderr '$(head -c 300 "$T/err")' lacks /$1/"; fi
}
# chain NAME MODEL ARGS...: MODEL (with ARGS) through problem -> solve --solver exact ->
# check -> compile -> sim --json, each expected to exit 0, and some simulated cycles.
chain() {
    local name=$1 model=$2
    shift 2
    expect 0 "$name problem" "$LAYSIM" problem "$model" "$@" -o "$T/$name.lsp"
    expect 0 "$name solve" "$LAYSIM" solve "$T/$name.lsp" --solver exact -q -o "$T/$name.sol"
    expect 0 "$name check" "$LAYSIM" check "$T/$name.lsp" "$T/$name.sol"
    expect 0 "$name compile" "$LAYSIM" compile "$model" "$@" --layout "$T/$name.sol" \
        -o "$T/$name.prog"
    expect 0 "$name sim" "$LAYSIM" sim "$T/$name.prog" --json
    [ "$(json 'd["cycles"] > 0' 2>/dev/null)" = True ] && ok || bad "$name sim: no cycles"
}
# json PYEXPR: evaluate a Python expression over the last command's JSON output (as d).
json() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($1))" "$T/out"; }

# need_script NAME: exit 77 (skipped) unless script(1) (util-linux) can make a terminal
need_script() {
    if ! script -qec true /dev/null >/dev/null 2>&1; then
        echo "$1: skipped, nothing checked: no script(1) to make a terminal"
        exit 77
    fi
}

finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
