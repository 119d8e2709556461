#!/bin/bash
# laysim validate against measured times: --emit writes the programs and a manifest;
# filled with the simulator's own times (as numbers in ns, us or cycles, or as traces) the
# figures of --measured are validate's (pairs, identical pairs, errors), and bad manifests
# exit 2 naming the file, line and column.
# usage: validate_measured.sh LAYSIM
L=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

E=$T/E
expect 0 "validate --emit" "$L" validate zoo:cnn zoo:bert-base --layers 1 --seq 64 --emit "$E" \
    --json -q
cp "$T/out" "$T/v.json"
n=$(ls "$E"/*.lsprog 2>/dev/null | wc -l)
[ "$n" = 8 ] && ok || bad "--emit wrote $n programs, want 8"
grep -q '^model,strategy,program,assignment,predicted_cycles,simulated_cycles,base_mhz,measured_ns,trace$' \
    "$E/manifest.csv" && ok || bad "manifest header"
expect 2 "--emit onto an existing manifest" "$L" validate zoo:cnn --emit "$E" -q
expect_err "manifest.csv exists" "an existing manifest is named"

# fill the manifest from the simulator: ns, us, cycles (base clock) and trace columns
python3 - "$L" "$E" <<'PY' || bad "filling the manifests"
import csv, json, subprocess, sys
L, E = sys.argv[1:]
rows = list(csv.DictReader(l for l in open(E + "/manifest.csv") if not l.startswith("#")))
def write(name, rows, fields):
    with open(E + "/" + name, "w") as f:
        w = csv.DictWriter(f, fieldnames=fields, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
base = ["model", "strategy", "assignment", "predicted_cycles", "base_mhz"]
for r in rows:
    p = E + "/" + r["program"]
    r["measured_ns"] = repr(json.loads(subprocess.check_output([L, "sim", p, "--json"]))["ns"])
    r["measured_us"] = repr(float(r["measured_ns"]) / 1e3)
    r["measured_cycles"] = r["simulated_cycles"]
    subprocess.check_call([L, "sim", p, "--trace", p + ".lstrace"], stdout=subprocess.DEVNULL)
    r["trace"] = r["program"] + ".lstrace"
write("ns.csv", rows, base + ["measured_ns"])
write("us.csv", rows, base + ["measured_us"])
write("cycles.csv", rows, base + ["measured_cycles"])
write("trace.csv", rows, base + ["trace"])
write("noassign.csv", rows, ["model", "strategy", "predicted_cycles", "measured_cycles"])
# row 3 (line 4) with one measurement too many, then with none
bad = [dict(r, trace="") for r in rows]
bad[2]["trace"] = rows[2]["trace"]
write("two.csv", bad, base + ["measured_ns", "trace"])
bad[2]["trace"] = bad[2]["measured_ns"] = ""
write("none.csv", bad, base + ["measured_ns", "trace"])
PY

same() {  # validate's figures (v.json) == --measured's (out), errors within 1e-3
    python3 - "$T/v.json" "$T/out" "$1" <<'PY'
import json, sys
v, m = (json.load(open(f)) for f in sys.argv[1:3])
ident = sys.argv[3] == "identical"
assert m["pairs"] == v["pairs"] and m["pairwise_accuracy"] == v["pairwise_accuracy"], (m, v)
assert m["pairs_identical"] == (v["pairs_identical"] if ident else 0), m
for k in ("median_rel_error", "max_rel_error"):
    assert abs(m[k] - v[k]) < 1e-3, (k, m[k], v[k])
assert m["exact_within_1pct_all"] == v["exact_within_1pct_all"]
assert [x["model"] for x in m["models"]] == [x["model"] for x in v["models"]]
PY
}
for f in ns us cycles trace; do
    expect 0 "--measured $f.csv" "$L" validate --measured "$E/$f.csv" --json
    same identical && ok || bad "--measured $f.csv: not validate's figures"
done
# without the assignment column nothing is known identical: the identical pairs are compared
# (and agree: equal times, equal predictions)
expect 0 "--measured without assignments" "$L" validate --measured "$E/noassign.csv" --json
python3 -c "import json; d=json.load(open('$T/out')); assert d['pairs_identical'] == 0 and d['pairs'] == 12, d" &&
    ok || bad "no assignment column: identical pairs must be compared"
# text and -o
expect 0 "--measured text to -o" "$L" validate --measured "$E/ns.csv" -o "$T/text"
grep -q "^all (8 rows of" "$T/text" && ok || bad "text summary"

# measured on another core (the programs run with other DMA and vector timings): the
# figures are validate's with the same table on that core
H=(--set dma.bytes_per_ns=11 --set vec.access_overhead=90 --set hbm.bytes_per_ns=300)
"$L" problem zoo:cnn --write-table "$T/ds.json" -o "$T/x.lsp" >/dev/null
expect 0 "validate on the other core" "$L" validate zoo:cnn zoo:bert-base --layers 1 --seq 64 \
    --table "$T/ds.json" "${H[@]}" --json -q
cp "$T/out" "$T/v.json"
python3 - "$L" "$E" "${H[@]}" <<'PY' || bad "measuring on the other core"
import csv, json, subprocess, sys
L, E, H = sys.argv[1], sys.argv[2], sys.argv[3:]
rows = list(csv.DictReader(l for l in open(E + "/manifest.csv") if not l.startswith("#")))
for r in rows:
    out = subprocess.check_output([L, "sim", E + "/" + r["program"], "--json"] + H)
    r["measured_ns"] = repr(json.loads(out)["ns"])
with open(E + "/other.csv", "w") as f:
    w = csv.DictWriter(f, fieldnames=rows[0].keys())
    w.writeheader()
    w.writerows(rows)
PY
expect 0 "--measured other.csv" "$L" validate --measured "$E/other.csv" --json
same identical && ok || bad "--measured on the other core: not validate's figures there"

# a quoted model name with a comma; us and ns agree
printf 'model,strategy,predicted_cycles,measured_us\n"m,1",local,1400,1\n"m,1",exact,1300,1.1\n' \
    >"$T/q.csv"
expect 0 "quoted field" "$L" validate --measured "$T/q.csv" --json
json 'd["models"][0]["model"] == "m,1" and d["models"][0]["strategies"][0]["measured"] == 1400' |
    grep -qx True && ok || bad "quoted model / us at 1400 MHz"
json 'd["pairs"] == 1 and d["pairs_correct"] == 0 and d["exact_within_1pct_all"] is False' |
    grep -qx True && ok || bad "a wrong ranking counted"

# bad manifests: exit 2, file:line:column
expect 2 "two measurements in a row" "$L" validate --measured "$E/two.csv"
expect_err "two.csv:4:1: more than one measurement" "two measurements named"
expect 2 "no measurement in a row" "$L" validate --measured "$E/none.csv"
expect_err "none.csv:4:1: no measurement" "missing measurement named"
printf 'model,strategy,measured_ns\nm,local,5\n' >"$T/nocol.csv"
expect 2 "no predicted column" "$L" validate --measured "$T/nocol.csv"
expect_err "nocol.csv:1:1: the header has no column predicted_cycles" "missing column named"
printf 'model,strategy,predicted_cycles\nm,local,5\n' >"$T/nomeas.csv"
expect 2 "no measurement column" "$L" validate --measured "$T/nomeas.csv"
expect_err "names no measurement" "missing measurement column named"
printf 'model,strategy,predicted_cycles,measured_ns\nm,local,5,abc\n' >"$T/nan.csv"
expect 2 "not a number" "$L" validate --measured "$T/nan.csv"
expect_err "nan.csv:2:11: measured_ns: expected a positive number" "bad number located"
printf 'model,strategy,predicted_cycles,measured_ns\nm,local,5,7\nm,local,5,7\n' >"$T/dup.csv"
expect 2 "a strategy twice" "$L" validate --measured "$T/dup.csv"
expect_err "dup.csv:3:3: strategy given twice" "duplicate named"
printf 'model,strategy,predicted_cycles,trace\nm,local,5,missing.lstrace\n' >"$T/tr.csv"
expect 2 "missing trace" "$L" validate --measured "$T/tr.csv"
expect_err "missing.lstrace" "the trace is named"
printf 'model,strategy,predicted_cycles,measured_ns\nm,"local,5,7\n' >"$T/quote.csv"
expect 2 "unterminated quote" "$L" validate --measured "$T/quote.csv"
expect_err "quote.csv:2:3: unterminated quoted field" "quote located"
printf '# only a comment\n' >"$T/empty.csv"
expect 2 "no rows" "$L" validate --measured "$T/empty.csv"
expect_err "no rows" "empty manifest"
expect 2 "no manifest" "$L" validate --measured "$T/nope.csv"
# usage
expect 2 "MODEL with --measured" "$L" validate zoo:cnn --measured "$E/ns.csv"
expect 2 "--table with --measured" "$L" validate --measured "$E/ns.csv" --table "$T/x.json"
expect 2 "--force without --emit" "$L" validate zoo:cnn --force
finish
