#!/bin/bash
# CLI tests for `laysim trace FILE ops` (per-op attribution of a trace against the problem
# and solution it was compiled from): on a simulated bert-base layer, every problem op and
# every conversion `laysim check` lists has a row, the predictions sum to the objective and
# the exposed times to the span (= `laysim sim`'s cycles), each row's span is the one the
# trace's CSV gives for its name, a conversion's prediction is check's cost for it, and on
# exact's program the figures are those of validate's attribution; CSV
# and JSON hold the same rows, text lists --top N; a profile imported under an unknown
# target, or a built-in changed by --set, needs --base-mhz, which scales every time; bad
# uses exit 2 and write nothing.
# usage: trace_ops.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "skipped (no python3)"; exit 77; }
M=(zoo:bert-base --layers 1 --seq 128)

expect 0 "problem" "$LAYSIM" problem "${M[@]}" -o "$T/p.lsp"
expect 0 "solve" "$LAYSIM" solve --solver local "$T/p.lsp" -o "$T/p.sol"
expect 0 "check" "$LAYSIM" check "$T/p.lsp" "$T/p.sol" --json
cp "$T/out" "$T/check.json"
expect 0 "compile" "$LAYSIM" compile "${M[@]}" --layout "$T/p.sol" -o "$T/p.prog"
expect 0 "sim" "$LAYSIM" sim "$T/p.prog" --json --trace "$T/p.lstrace"
cp "$T/out" "$T/sim.json"
expect 0 "trace csv" "$LAYSIM" trace "$T/p.lstrace" csv -o "$T/p.csv"

expect 0 "ops --json" "$LAYSIM" trace "$T/p.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol" --json
cp "$T/out" "$T/ops.json"
python3 - "$T" <<'PY' && ok || bad "ops --json: rows, sums and spans"
import csv, json, sys
t = sys.argv[1]
d = json.load(open(t + "/ops.json"))
chk = json.load(open(t + "/check.json"))
sim = json.load(open(t + "/sim.json"))
ops = {o["name"]: o for o in d["ops"]}
assert d["objective"] == chk["cost"], (d["objective"], chk["cost"])
assert sum(o["predicted"] for o in d["ops"]) == d["objective"]
assert abs(sum(o["exposed"] for o in d["ops"]) - d["span_cycles"]) < 1e-6 * d["span_cycles"]
assert abs(d["span_cycles"] - sim["cycles"]) <= 1, (d["span_cycles"], sim["cycles"])
assert d["unknown_names"] == 0 and d["silent"] == 0, (d["unknown_names"], d["silent"])
conv = [o for o in d["ops"] if o["kind"] == "conversion"]
want = {"%s@%s->%s" % (c["tensor"], c["from"], c["to"]): c["cost"] for c in chk["transposes"]}
assert len(want) > 0 and {o["name"]: o["predicted"] for o in conv} == want, "conversions differ"
# spans per name from the trace's own CSV (ticks at tick_hz, base clock 1400 MHz)
rows = csv.reader(open(t + "/p.csv"))
head = next(rows)[0]
tick = int(head.split("tick_hz=")[1].split()[0])
cols = next(rows)
iop, iconv, istart, iend = (cols.index(k) for k in ("op", "conversion", "start", "end"))
span = {}
for r in rows:
    n = r[iconv] or r[iop]
    s, e = int(r[istart]), int(r[iend])
    lo, hi = span.get(n, (s, e))
    span[n] = (min(lo, s), max(hi, e))
for n, (s, e) in span.items():
    got = ops[n]["span"]
    assert abs(got - (e - s) * 1400e6 / tick) < 1e-6 * max(1, got), (n, got)
    assert sum(ops[n]["busy"].values()) > 0
assert len(span) == sum(1 for o in d["ops"] if o["records"] > 0)
PY

expect 0 "ops --csv" "$LAYSIM" trace "$T/p.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol" --csv -o "$T/ops.csv"
python3 - "$T" <<'PY' && ok || bad "ops --csv holds the JSON's rows"
import csv, json, sys
t = sys.argv[1]
d = json.load(open(t + "/ops.json"))
rows = list(csv.DictReader(open(t + "/ops.csv")))
assert [r["name"] for r in rows] == [o["name"] for o in d["ops"]]
assert all(int(r["predicted_cycles"]) == o["predicted"] for r, o in zip(rows, d["ops"]))
PY

expect 0 "ops text" "$LAYSIM" trace "$T/p.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol" --top 4
grep -q "^top 4 of [0-9]* by |exposed - predicted|" "$T/out" && ok || bad "text lacks the top list"
grep -q "^matmul " "$T/out" && grep -q "^total " "$T/out" && ok || bad "text lacks kinds or total"

# the same program as validate's exact: its attribution (operators and conversions, top 10)
# gives the same predictions and exposed times
expect 0 "solve exact" "$LAYSIM" solve --solver exact "$T/p.lsp" -o "$T/e.sol"
expect 0 "compile exact" "$LAYSIM" compile "${M[@]}" --layout "$T/e.sol" -o "$T/e.prog"
expect 0 "sim exact" "$LAYSIM" sim "$T/e.prog" --trace "$T/e.lstrace"
expect 0 "ops exact" "$LAYSIM" trace "$T/e.lstrace" ops --problem "$T/p.lsp" --solution "$T/e.sol" --json
cp "$T/out" "$T/e.json"
expect 0 "validate" "$LAYSIM" validate "${M[@]}" --json -q
python3 - "$T" <<'PY' && ok || bad "ops differs from validate's attribution of exact's program"
import json, sys
t = sys.argv[1]
ops = {o["name"]: o for o in json.load(open(t + "/e.json"))["ops"]}
v = json.load(open(t + "/out"))["models"][0]["attribution_exact"]
rows = v["operators"] + v["conversions"]
assert len(rows) >= 10
for a in rows:
    o = ops[a["name"]]
    assert o["predicted"] == a["predicted"], (a, o)
    assert abs(o["exposed"] - a["simulated"]) < 0.5, (a, o)
PY

# an imported profile of an unknown core: --base-mhz is required and scales the times
expect 0 "import" "$LAYSIM" trace import "$T/p.csv" -o "$T/imp.lstrace" --target mystery-core
expect 2 "no clock" "$LAYSIM" trace "$T/imp.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol"
expect_err "target 'mystery-core' is not a built-in one: give .* --base-mhz" "no clock message"
expect 0 "base 700" "$LAYSIM" trace "$T/imp.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol" --base-mhz 700 --json
[ "$(json "abs(d['span_cycles'] * 2 - $(python3 -c "import json; print(json.load(open('$T/ops.json'))['span_cycles'])")) < 2")" = True ] &&
    ok || bad "--base-mhz 700 does not halve the span"

# nc-v2 changed by --set keeps its name in the trace: its base clock is not assumed
expect 0 "sim base 1000" "$LAYSIM" sim "$T/p.prog" --set clock.base_mhz=1000 --trace "$T/b1000.lstrace"
expect 2 "changed target" "$LAYSIM" trace "$T/b1000.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol"
expect_err "nc-v2 changed by --set \\(target-hash [0-9a-f]{16}, the built-in's [0-9a-f]{16}\\): give .* --base-mhz" "changed target message"
expect 0 "changed target, clock given" "$LAYSIM" trace "$T/b1000.lstrace" ops --problem "$T/p.lsp" --solution "$T/p.sol" --base-mhz 1000

# bad uses: exit 2, nothing written
P=(--problem "$T/p.lsp" --solution "$T/p.sol")
expect 2 "no problem" "$LAYSIM" trace "$T/p.lstrace" ops --solution "$T/p.sol" -o "$T/x"
expect_err "ops: --problem P.lsp and --solution S.sol are required" "no problem message"
expect 2 "json and csv" "$LAYSIM" trace "$T/p.lstrace" ops "${P[@]}" --json --csv -o "$T/x"
expect 2 "problem on summary" "$LAYSIM" trace "$T/p.lstrace" summary --problem "$T/p.lsp"
expect_err "belong to the ops action" "problem on summary message"
expect 2 "bad clock" "$LAYSIM" trace "$T/p.lstrace" ops "${P[@]}" --base-mhz 0 -o "$T/x"
expect 2 "missing solution" "$LAYSIM" trace "$T/p.lstrace" ops --problem "$T/p.lsp" --solution "$T/none.sol" -o "$T/x"
expect_err "none.sol" "missing solution names the file"
printf 'garbage\n' > "$T/bad.lsp"
expect 2 "bad problem" "$LAYSIM" trace "$T/p.lstrace" ops --problem "$T/bad.lsp" --solution "$T/p.sol" -o "$T/x"
expect_err "bad.lsp:1" "bad problem names file:line"
expect 0 "synth" "$LAYSIM" trace synth 1000 -o "$T/synth.lstrace"
expect 2 "no op names" "$LAYSIM" trace "$T/synth.lstrace" ops "${P[@]}" --base-mhz 1400 -o "$T/x"
expect_err "synth.lstrace: no record of the trace .* names an op or conversion of the problem" "no op names message names the trace"
[ ! -e "$T/x" ] && ok || bad "a refused ops run wrote its output"
# a solution of another problem: refused, naming its file and line
expect 0 "other problem" "$LAYSIM" problem zoo:bert-base --layers 2 --seq 128 -o "$T/q.lsp"
expect 0 "other solve" "$LAYSIM" solve --solver local "$T/q.lsp" -o "$T/q.sol"
expect 2 "sol of another problem" "$LAYSIM" trace "$T/p.lstrace" ops --problem "$T/p.lsp" --solution "$T/q.sol"
expect_err "q.sol:[0-9]+:[0-9]+: was solved for another problem.*unknown op" "wrong solution names file:line"
finish
