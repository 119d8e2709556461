#!/usr/bin/env bash
# --json on the commands and listings that gained it with issue 22 (explain, study, whatif,
# merge, sim --print-target, solve --list): one JSON value on stdout with the same content
# as the text output; merge's old -o DIR still works with a deprecation notice.
# usage: bash tests/cli/json.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# check PYEXPR DESCRIPTION: the last command's JSON makes PYEXPR true
check() {
    if [ "$(json "$1" 2>&1)" = True ]; then ok; else bad "$2: $(json "$1" 2>&1 | tail -1)"; fi
}

# explain: every cfg of the text output, with the same prices
expect 0 "explain" "$LAYSIM" explain "$SRC/examples/fig1.lg" --op D
sed -n 's/.*  price \([0-9]*\) cycles.*/\1/p' "$T/out" >"$T/prices.txt"
grep -c '^conversion ' "$T/out" >"$T/nconv.txt"
expect 0 "explain --json" "$LAYSIM" explain "$SRC/examples/fig1.lg" --op D --json
check "d['op'] == 'D' and d['target'] == 'nc-v2' and len(d['cfgs']) > 1" "explain --json shape"
json "'\n'.join(str(c['price']) for c in d['cfgs'] if 'price' in c)" >"$T/prices.json"
if cmp -s "$T/prices.txt" "$T/prices.json"; then ok; else bad "explain: text and JSON prices differ"; fi
if [ "$(json "len(d['conversions'])")" = "$(cat "$T/nconv.txt")" ]; then ok
else bad "explain: text and JSON conversions differ"; fi
check "all(sum(b['cycles'] for b in c['breakdown']) == c['instruction_cycles'] for c in d['cfgs'] if 'price' in c)" \
    "explain --json: breakdown sums to instruction_cycles"

# study --json: the run summary instead of the tables
expect 0 "study --json" "$LAYSIM" study --models cnn --out "$T/s" --json --no-calibrate \
    --mcts-evaluations 0 --threads 1
check "d['kind'] == 'study' and d['jobs'] == 1 and d['cells'] >= 4 and d['failed'] == []" \
    "study --json counts"
check "any(p.endswith('/report.html') for p in d['outputs'])" "study --json outputs"
check "d['headline'][0]['strategies']['datasheet']['exact']['relative_performance_mean'] > 0" \
    "study --json headline"
if grep -q 'relative performance' "$T/out"; then bad "study --json printed the text tables"; else ok; fi

# whatif --json: one headline per target variant
expect 0 "whatif --json" "$LAYSIM" whatif --set pe.rows=64,128 --models cnn --out "$T/w" \
    --json --no-calibrate --threads 1
check "d['kind'] == 'whatif' and [h['variant'] for h in d['headline']] == ['pe.rows=64', 'pe.rows=128']" \
    "whatif --json variants"

# merge --json; -o DIR is the deprecated spelling of --out DIR
expect 0 "merge --json" "$LAYSIM" merge --out "$T/m" --json "$T/s" "$T/w"
check "d['stores'] == 2 and d['cells'] > 0 and len(d['headline']) >= 2" "merge --json"
expect 0 "merge -o" "$LAYSIM" merge -o "$T/m2" -q "$T/s"
expect_err "laysim merge: -o DIR is deprecated, say --out" "merge -o notice"
if [ -s "$T/m2/results.sqlite" ]; then ok; else bad "merge -o wrote no store"; fi

# listings: sim --print-target and solve --list
expect 0 "sim --print-target" "$LAYSIM" sim --print-target --set pe.rows=64
hash=$(sed -n 's/^hash=//p' "$T/out")
rows=$(sed -n 's/^pe.rows=//p' "$T/out")
expect 0 "sim --print-target --json" "$LAYSIM" sim --print-target --set pe.rows=64 --json
check "d['hash'] == '$hash' and d['keys']['pe.rows'] == '$rows' and d['name'] == 'nc-v2'" \
    "sim --print-target --json matches the text"
expect 0 "solve --list" "$LAYSIM" solve --list
awk '/^[^ ]/ {print $1}' "$T/out" >"$T/solvers.txt"
awk -F= '/^ / {sub(/^ +/, "", $1); print $1}' "$T/out" >"$T/params.txt"
expect 0 "solve --list --json" "$LAYSIM" solve --list --json
json "'\n'.join(s['name'] for s in d)" >"$T/solvers.json"
if cmp -s "$T/solvers.txt" "$T/solvers.json"; then ok; else bad "solve --list: text and JSON differ"; fi
json "'\n'.join(p['key'] for s in d for p in s['params'])" >"$T/params.json"
if [ -s "$T/params.txt" ] && cmp -s "$T/params.txt" "$T/params.json"; then ok
else bad "solve --list: the parameter keys of text and JSON differ"; fi

finish
