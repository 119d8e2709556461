#!/bin/bash
# CLI tests for --memplan (problem, compile, validate, loop): partial (the default) keeps a tensor whose layouts do not fit together in its widest layout alone
# (docs/costmodel.md "Partial keeps"): fewer spilled bytes on a model that spills, the
# compiled program's table price still equal to the .lsp objective, simulated no faster
# than the roofline bound; a .sol of one mode is refused by the other; validate --memplan
# partial predicts and simulates greedy's program as problem/compile/sim do; bad values
# exit 2.
# usage: memplan.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "skipped (no python3)"; exit 77; }
M=(zoo:whisper-enc --layers 1)   # spills under --memplan whole

expect 0 "help lists --memplan" "$LAYSIM" compile --help
grep -q -- "--memplan MODE" "$T/out" && ok || bad "compile --help lacks --memplan"
expect 2 "bad mode" "$LAYSIM" problem "${M[@]}" --memplan halves -o "$T/x.lsp"
expect_err "--memplan: expected whole or partial, got 'halves'" "bad mode message"
[ ! -e "$T/x.lsp" ] && ok || bad "a refused problem wrote its output"

for mp in whole partial; do
    expect 0 "problem $mp" "$LAYSIM" problem "${M[@]}" --memplan "$mp" -o "$T/$mp.lsp"
    expect 0 "solve $mp" "$LAYSIM" solve --solver greedy "$T/$mp.lsp" -o "$T/$mp.sol"
    expect 0 "compile $mp" "$LAYSIM" compile "${M[@]}" --memplan "$mp" --layout "$T/$mp.sol" \
        --json -o "$T/$mp.prog"
    cp "$T/out" "$T/$mp.json"
    [ "$(json "d['table_price'] == d['objective']")" = True ] && ok ||
        bad "$mp: table_price != objective"
    expect 0 "sim $mp" "$LAYSIM" sim "$T/$mp.prog" --json
    cp "$T/out" "$T/$mp.sim.json"
done

# the default is partial: the same problem but for its build-time comment
expect 0 "problem default" "$LAYSIM" problem "${M[@]}" -o "$T/default.lsp"
cmp -s <(grep -v '^# built in' "$T/default.lsp") <(grep -v '^# built in' "$T/partial.lsp") && ok ||
    bad "the default is not --memplan partial"

python3 - "$T" <<'PY' && ok || bad "partial: fewer spilled bytes, more resident tensors, time >= bound"
import json, sys
t = sys.argv[1]
w, p = (json.load(open("%s/%s.json" % (t, m)))["memory_plan"] for m in ("whole", "partial"))
assert p["spilled_bytes"] < w["spilled_bytes"], (w, p)
assert p["resident_tensors"] > w["resident_tensors"], (w, p)
assert w["candidate"].startswith("whole") and w["partial_tensors"] == w["aliased_tensors"] == 0, w
assert p["candidate"].startswith("partial") and p["partial_tensors"] > 0, p
c = json.load(open(t + "/partial.json"))
s = json.load(open(t + "/partial.sim.json"))
assert s["ns"] >= c["roofline"]["bound_ns"], (s["ns"], c["roofline"])
PY

# validate --memplan partial runs the same pipeline: greedy's figures are those above
expect 0 "validate partial" "$LAYSIM" validate "${M[@]}" --memplan partial --json -q
python3 - "$T" <<'PY' && ok || bad "validate --memplan partial: greedy's figures differ"
import json, sys
t = sys.argv[1]
v = json.load(open(t + "/out"))
g = [s for s in v["models"][0]["strategies"] if s["strategy"] == "greedy"][0]
c = json.load(open(t + "/partial.json"))
s = json.load(open(t + "/partial.sim.json"))
assert g["predicted"] == c["table_price"], (g, c["table_price"])
assert g["simulated"] == s["cycles"], (g, s["cycles"])
PY
for cmd in validate loop; do
    expect 2 "$cmd bad mode" "$LAYSIM" "$cmd" "${M[@]}" --memplan halves
    expect_err "--memplan: expected whole or partial" "$cmd bad mode message"
done

# a .sol solved under one plan does not compile under the other (the model hash differs)
expect 2 "partial .sol, whole compile" "$LAYSIM" compile "${M[@]}" --memplan whole \
    --layout "$T/partial.sol" -o "$T/y.prog"
expect_err "model differs" "mismatch message"
expect 2 "whole .sol, default (partial) compile" "$LAYSIM" compile "${M[@]}" \
    --layout "$T/whole.sol" -o "$T/y.prog"
finish
