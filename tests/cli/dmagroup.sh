#!/bin/bash
# The optional table key "dma_latency_per_group" (docs/costmodel.md): a datasheet table with
# the key added still prices exactly what codegen emits (the .lsp objective equals the
# compiled program's table price, default and solved layouts), prices bert-base lower than
# the table without it (700 ns per DMA no longer summed), and a bad value is refused with
# its field, exit 2.
# usage: dmagroup.sh LAYSIM SOURCE_DIR
L=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"

m=(zoo:bert-base --layers 1 --seq 16)
expect 0 "write the datasheet table" "$L" problem "${m[@]}" -o "$T/a.lsp" --write-table "$T/plain.json"
python3 - "$T/plain.json" "$T/grp.json" "$T/badv.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))
t["dma_latency_per_group"] = 1
json.dump(t, open(sys.argv[2], "w"))
t["dma_latency_per_group"] = 100
json.dump(t, open(sys.argv[3], "w"))
PY
expect 0 "problem with the key" "$L" problem "${m[@]}" --table "$T/grp.json" -o "$T/g.lsp"
for tab in plain grp; do
  expect 0 "compile under $tab" "$L" compile "${m[@]}" --table "$T/$tab.json" -o "$T/x.prog"
  line=$(grep -o 'table price [0-9]* (problem objective [0-9]*)' "$T/err")
  read -r _ _ price _ _ obj <<<"${line//[()]/}"
  [ -n "$price" ] && [ "$price" = "$obj" ] && ok || bad "$tab: price '$price' != objective '$obj'"
  eval "price_$tab=$price"
done
[ -n "$price_grp" ] && [ "$price_grp" -lt "$price_plain" ] && ok ||
  bad "the key should price bert-base lower: $price_grp vs $price_plain"
expect 2 "a bad value" "$L" problem "${m[@]}" --table "$T/badv.json" -o "$T/b.lsp"
expect_err "dma_latency_per_group" "the field is named"
[ ! -s "$T/b.lsp" ] && ok || bad "half-written .lsp after a refused table"
# dma_latency_waves: the objective still equals the compiled program's price, and calibrate,
# whose fits price the latency once per group, does not keep the key
python3 - "$T/grp.json" "$T/waves.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1])); t["dma_latency_waves"] = True
json.dump(t, open(sys.argv[2], "w"))
PY
expect 0 "compile under waves" "$L" compile "${m[@]}" --table "$T/waves.json" -o "$T/w.prog"
line=$(grep -o 'table price [0-9]* (problem objective [0-9]*)' "$T/err")
read -r _ _ price _ _ obj <<<"${line//[()]/}"
[ -n "$price" ] && [ "$price" = "$obj" ] && ok || bad "waves: price $price != objective $obj"
expect 0 "sim for a trace" "$L" sim "$T/w.prog" --trace "$T/w.lstrace"
expect 0 "calibrate from a waves prior" "$L" calibrate --traces "$T/w.lstrace" --programs "$T/w.prog" \
    --table "$T/waves.json" --dma-latency per-group --keep-worse -o "$T/fit.json" -q
grep -q dma_latency_waves "$T/fit.json" && bad "calibrate kept dma_latency_waves" || ok

finish
