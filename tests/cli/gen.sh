#!/usr/bin/env bash
# laysim gen: the random shape's window / fan-in / fan-out options. Usage: gen.sh LAYSIM SRC
set -u
L=$1
source "$(dirname "$0")/lib.bash"

# deterministic by seed; --window 0 is the plain random shape
expect 0 "window gen" "$L" gen --shape random --ops 500 --window 8 --fanin 3 --seed 4 -o "$T/a.lsp"
expect 0 "window gen again" "$L" gen --shape random --ops 500 --window 8 --seed 4 -o "$T/b.lsp"
cmp -s "$T/a.lsp" "$T/b.lsp" && ok || bad "--window output not deterministic (or --fanin 3 not the default)"
expect 0 "window seed 5" "$L" gen --shape random --ops 500 --window 8 --seed 5 -o "$T/c.lsp"
cmp -s "$T/a.lsp" "$T/c.lsp" && bad "--seed ignored with --window" || ok
"$L" gen --shape random --ops 300 --seed 3 -o "$T/plain.lsp"
"$L" gen --shape random --ops 300 --seed 3 --window 0 -o "$T/w0.lsp"
cmp -s "$T/plain.lsp" "$T/w0.lsp" && ok || bad "--window 0 differs from the plain random shape"
[ "$(grep -c '^op ' "$T/a.lsp")" = 500 ] && ok || bad "--ops not exact with --window"

# the options reach the generator: --layouts 1 leaves a single layout per tensor, --cfgs 1
# a single cfg per op, so every solver's cost is the same and the problem has no choice
expect 0 "layouts/cfgs" "$L" gen --shape random --ops 50 --window 3 --layouts 1 --cfgs 1 -o "$T/d.lsp"
expect 0 "solve d" "$L" solve "$T/d.lsp" --solver local --json
grep -q '"status": "optimal"' "$T/out" && ok || bad "single-choice problem not optimal for local"

# the width bound grows with the window (dp reports the decomposition width)
w_of() { "$L" solve "$1" --solver dp --param dp.mem_limit=1 --json 2>&1 | grep -o 'width [0-9]*\|"width": [0-9]*' | grep -o '[0-9]*$'; }
prev=-1
for W in 1 3 6 12; do
  "$L" gen --shape random --ops 1000 --window $W --seed 1 -o "$T/w$W.lsp"
  w=$(w_of "$T/w$W.lsp")
  if [ -n "$w" ] && [ "$w" -gt "$prev" ]; then ok; else bad "window $W: width '$w' not above $prev"; fi
  prev=${w:-$prev}
done

# usage errors exit 2 with a message
expect 2 "--window with cnn" "$L" gen --shape cnn --ops 10 --window 4
expect 2 "--fanout without --window" "$L" gen --shape random --ops 10 --fanout 2
expect 2 "--fanin 0" "$L" gen --shape random --ops 10 --window 3 --fanin 0
expect 2 "--layouts 9" "$L" gen --shape random --ops 10 --layouts 9
expect 2 "--window abc" "$L" gen --shape random --ops 10 --window abc
grep -q "window" "$T/err" && ok || bad "--window abc: message does not name the option"

finish
