#!/bin/bash
# The optional table key "exposed_share" (docs/costmodel.md): the datasheet table carries it
# and writes it back unchanged; under any share the .lsp objective equals the compiled
# program's table price; a share charges the ops' groups and never the conversions'
# (table_price_conversions is the same under every share, the ops' part scales with it);
# a value out of range is refused with its field, exit 2, and no half-written .lsp.
# usage: exposed.sh LAYSIM SOURCE_DIR
L=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"

m=(zoo:bert-base --layers 1 --seq 16)
expect 0 "write the datasheet table" "$L" problem "${m[@]}" -o "$T/a.lsp" --write-table "$T/ds.json"
[ "$(jq .exposed_share "$T/ds.json")" = 0.68 ] && ok || bad "datasheet share: $(jq .exposed_share "$T/ds.json")"
expect 0 "the table read back" "$L" problem "${m[@]}" --table "$T/ds.json" -o "$T/b.lsp" \
    --write-table "$T/ds2.json"
cmp -s "$T/ds.json" "$T/ds2.json" && ok || bad "the table does not round-trip"
# (the .lsp's "# built in" line is the wall time; the rest must be the same)
diff <(grep -v '^# built in' "$T/a.lsp") <(grep -v '^# built in' "$T/b.lsp") >/dev/null && ok ||
  bad "the same table gives another .lsp"
python3 - "$T/ds.json" "$T" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
for name, v in (("full", 1), ("half", 0.5), ("zero", 0), ("big", 5), ("text", "x")):
    t["exposed_share"] = v
    json.dump(t, open(f"{sys.argv[2]}/{name}.json", "w"))
PY
# one assignment for every share (exact's under the full table), so the parts compare
expect 0 "solve" "$L" solve "${m[@]}" --table "$T/full.json" --solver exact -o "$T/s.sol" -q
for tab in full half ds; do
  expect 0 "compile under $tab" "$L" compile "${m[@]}" --table "$T/$tab.json" --layout "$T/s.sol" \
      --ignore-mismatch -o "$T/$tab.prog" --json -q
  cp "$T/out" "$T/$tab.out"
  [ "$(jq '.table_price == .objective' "$T/$tab.out")" = true ] && ok ||
    bad "$tab: table price != objective: $(jq -c '{table_price, objective}' "$T/$tab.out")"
done
[ "$(jq .table_price_conversions "$T/full.out")" = "$(jq .table_price_conversions "$T/half.out")" ] &&
  [ "$(jq .table_price_conversions "$T/full.out")" -gt 0 ] && ok ||
  bad "conversions' price moved with the share (or there were none)"
python3 - "$T/full.out" "$T/half.out" <<'PY' && ok || bad "the ops' part does not halve"
import json, sys
f, h = (json.load(open(p)) for p in sys.argv[1:])
ops_f = f["table_price"] - f["table_price_conversions"]
ops_h = h["table_price"] - h["table_price_conversions"]
# rounded half-up once per group: within a cycle per group of half
assert abs(ops_h - ops_f / 2) <= 200, (ops_f, ops_h)
PY
for tab in zero big text; do
  expect 2 "share $tab refused" "$L" problem "${m[@]}" --table "$T/$tab.json" -o "$T/$tab.lsp"
  expect_err "exposed_share" "share $tab: the field is named"
  [ ! -s "$T/$tab.lsp" ] && ok || bad "half-written .lsp after a refused table ($tab)"
done

finish
