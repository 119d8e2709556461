#!/usr/bin/env bash
# Solutions tied to their problem: the hash headers of .lsp and .sol, and compile refusing
# a .sol solved for other options. Usage: soltie.sh LAYSIM SOURCE_DIR
set -u
L=$1
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
M=(zoo:bert-base --layers 1 --seq 64)

expect 0 "problem" "$L" problem "${M[@]}" -o "$T/b.lsp" --write-table "$T/t.json"
for k in model-hash target-hash table-hash; do
  grep -Eq "^# $k: [0-9a-f]{16}$" "$T/b.lsp" && ok || bad ".lsp lacks $k"
done
grep -q '^# codegen-version: ' "$T/b.lsp" && ok || bad ".lsp lacks codegen-version"
head -n 20 "$T/b.lsp" | grep -q '^lsp 1$' && ok || bad ".lsp still opens with lsp 1"
expect 0 "solve" "$L" solve "$T/b.lsp" --solver exact -o "$T/b.sol"
grep -Eq '^# problem-hash: [0-9a-f]{16}$' "$T/b.sol" && ok || bad ".sol lacks problem-hash"
grep -q '^lsp-solution 1$' "$T/b.sol" && ok || bad ".sol format line"
# the .sol carries the .lsp's four headers
for k in model-hash target-hash table-hash codegen-version; do
  [ "$(grep "^# $k:" "$T/b.lsp")" = "$(grep "^# $k:" "$T/b.sol")" ] && ok || bad ".sol $k differs"
done
expect 0 "check" "$L" check "$T/b.lsp" "$T/b.sol"
# solve MODEL writes the same tie as solve on the model's .lsp
expect 0 "solve MODEL" "$L" solve "${M[@]}" --solver exact -o "$T/m.sol"
cmp -s <(grep '^# ' "$T/b.sol") <(grep '^# ' "$T/m.sol") && ok || bad "solve MODEL tie differs"

expect 0 "compile, same options" "$L" compile "${M[@]}" --layout "$T/b.sol" -o "$T/b.prog"
grep -q warning "$T/err" && bad "warning on a matching .sol: $(cat "$T/err")" || ok

# another --seq, --target, --set, --table: each refused, naming what differs
expect 2 "other seq" "$L" compile zoo:bert-base --layers 1 --seq 128 --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'model differs \(model-hash [0-9a-f]{16} in the \.sol, [0-9a-f]{16} here\)' "other seq"
[ -e "$T/x.prog" ] && bad "refused compile wrote its output" || ok
expect 2 "other target" "$L" compile "${M[@]}" --target nc-v3 --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'target differs \(target-hash' "other target"
expect 2 "--set dma.transpose=1" "$L" compile "${M[@]}" --set dma.transpose=1 --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'target differs' "--set"
sed 's/"c": 0.25/"c": 0.5/' "$T/t.json" >"$T/t2.json"
expect 2 "other table" "$L" compile "${M[@]}" --table "$T/t2.json" --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'table differs \(table-hash' "other table"
grep -q 'model differs' "$T/err" && bad "other table names the model too" || ok
# the same table from a file matches the datasheet table it was written from
expect 0 "same table from a file" "$L" compile "${M[@]}" --table "$T/t.json" --layout "$T/b.sol" -o "$T/x.prog"
expect 2 "exact-transpose" "$L" compile "${M[@]}" --exact-transpose --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'model differs' "exact-transpose"

# --ignore-mismatch: compiled with a warning
expect 0 "--ignore-mismatch" "$L" compile zoo:bert-base --layers 1 --seq 128 --ignore-mismatch --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'warning: .*model differs.*--ignore-mismatch' "--ignore-mismatch warns"

# the model-hash follows the loaded graph, not the option spellings: decode lengths and
# the prefill differ, ONNX --input shapes count, and the graph written to a .lg and read
# back hashes like the zoo model it came from
mh() { sed -n 's/^# model-hash: //p' "$1"; }
Q=(zoo:qwen2 --layers 1)
expect 0 "decode 64" "$L" problem "${Q[@]}" --decode 64 -o "$T/d64.lsp"
expect 0 "decode 128" "$L" problem "${Q[@]}" --decode 128 -o "$T/d128.lsp"
expect 0 "prefill" "$L" problem "${Q[@]}" -o "$T/pre.lsp"
[ "$(mh "$T/d64.lsp")" != "$(mh "$T/d128.lsp")" ] && ok || bad "--decode 64 and 128: one model-hash"
[ "$(mh "$T/d64.lsp")" != "$(mh "$T/pre.lsp")" ] && ok || bad "decode and prefill: one model-hash"
expect 0 "graph -o .lg" "$L" graph "${Q[@]}" --decode 64 -o "$T/d64.lg"
expect 0 "problem .lg" "$L" problem "$T/d64.lg" -o "$T/lg.lsp"
[ "$(mh "$T/d64.lsp")" = "$(mh "$T/lg.lsp")" ] && ok || bad "the same graph from a .lg: another model-hash"
A=$SRC/tests/data/onnx/tiny_attn.onnx
expect 0 "onnx --input 5" "$L" problem "$A" --input x=3x5x32 --input mask=3x1x1x5 -o "$T/o5.lsp"
expect 0 "onnx --input 6" "$L" problem "$A" --input x=3x6x32 --input mask=3x1x1x6 -o "$T/o6.lsp"
[ "$(mh "$T/o5.lsp")" != "$(mh "$T/o6.lsp")" ] && ok || bad "ONNX --input shapes: one model-hash"
expect 0 "solve decode 64" "$L" solve "$T/d64.lsp" --solver greedy -o "$T/d64.sol"
expect 2 "compile decode 128 with the decode-64 .sol" "$L" compile "${Q[@]}" --decode 128 --layout "$T/d64.sol" -o "$T/x.prog"
expect_err 'model differs' "decode 128 against a decode-64 .sol"

# a .sol of another model: the mismatch is the cause named, not the op it cannot find
expect 2 "compile qwen2 with a bert .sol" "$L" compile "${Q[@]}" --layout "$T/b.sol" -o "$T/x.prog"
expect_err 'b\.sol:[0-9]+:[0-9]+: was solved for another problem: model differs \(model-hash [0-9a-f]{16} in the \.sol, [0-9a-f]{16} here\); so it does not read against this one \(unknown op' "another model's .sol: the mismatch first, at the line that does not read"
expect 2 "check qwen2 with a bert .sol" "$L" check "$T/pre.lsp" "$T/b.sol"
expect_err '^laysim check: .*b\.sol:[0-9]+:[0-9]+: was solved for another problem: model differs' "check: the mismatch first"

# a hand-edited .lsp: only the problem hash tells
sed 's/^cfg 0 /cfg 1 /' "$T/b.lsp" >"$T/e.lsp"
expect 0 "solve edited" "$L" solve "$T/e.lsp" --solver greedy -o "$T/e.sol"
expect 2 "check against the edited problem (costs changed)" "$L" check "$T/e.lsp" "$T/b.sol"
expect_err 'warning: .*b\.sol records problem-hash [0-9a-f]{16}, .*e\.lsp has [0-9a-f]{16}' "check warns"
expect 2 "edited problem" "$L" compile "${M[@]}" --layout "$T/e.sol" -o "$T/x.prog"
expect_err 'problem differs \(problem-hash' "edited problem"

# an old .sol without hashes: read, compiled with a warning
grep -v '^#' "$T/b.sol" >"$T/old.sol"
expect 0 "check old .sol" "$L" check "$T/b.lsp" "$T/old.sol"
expect 0 "compile old .sol" "$L" compile "${M[@]}" --layout "$T/old.sol" -o "$T/x.prog"
expect_err 'warning: .*records no hashes' "old .sol warns"

# solve --layouts: per tensor, readable without the .lsp; conversions add up to the
# transpose part of the objective
expect 0 "--layouts json" "$L" solve "$T/b.lsp" --solver exact --layouts --json
[ "$(json 'sum(c["cost"] for t in d["layouts"] for c in t["conversions"]) == d["transpose_cost"]')" = True ] \
  && ok || bad "--layouts conversions do not add up to transpose_cost"
[ "$(json 'len(d["layouts"]) == sum(1 for l in open("'"$T/b.lsp"'") if l.startswith("tensor "))')" = True ] \
  && ok || bad "--layouts: not one entry per tensor"
[ "$(json 'sorted(d["layouts"][0])')" = "['consumers', 'conversions', 'layout', 'producer', 'producer_cfg', 'tensor']" ] \
  && ok || bad "--layouts fields"
[ "$(json 'all(c["layout"].startswith("p:") for t in d["layouts"] for c in t["consumers"])')" = True ] \
  && ok || bad "--layouts: consumers' layouts are not labels"
nconv=$(json 'sum(len(t["conversions"]) for t in d["layouts"])')
expect 0 "--layouts text" "$L" solve "$T/b.lsp" --solver exact --layouts
grep -Eq '^  embed\.norm\.bf16: p:[a-z]+ <- embed\.norm\.bf16 \(cfg [0-9]+\) -> ' "$T/out" && ok || bad "--layouts text line"
grep -q "^$nconv conversions, cost " "$T/out" && ok || bad "--layouts text total"
finish
