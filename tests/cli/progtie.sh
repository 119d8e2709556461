#!/usr/bin/env bash
# Programs and traces tied to their target: `compile` records the target (name and hash),
# the model-hash and the problem-hash in the program (text: `# key: value` lines, binary:
# the header's tie block); `sim` refuses a program compiled for another target and
# `calibrate` a trace of another target than its table's (exit 2, both targets named;
# --ignore-mismatch warns instead). Usage: progtie.sh LAYSIM SOURCE_DIR
set -u
L=$1
source "$(dirname "$0")/lib.bash"
M=(zoo:bert-base --layers 1 --seq 64)

expect 0 "compile nc-v2" "$L" compile "${M[@]}" -o "$T/v2.lsprog"
expect 0 "problem" "$L" problem "${M[@]}" -o "$T/v2.lsp"
expect 0 "solve" "$L" solve "$T/v2.lsp" --solver local -o "$T/v2.sol"
head -n 1 "$T/v2.lsprog" | grep -qx 'lsprog 1' && ok || bad "the program still opens with lsprog 1"
grep -qx '# target: nc-v2' "$T/v2.lsprog" && ok || bad "no target line"
th=$(sed -n 's/^# target-hash: //p' "$T/v2.lsprog")
expect 0 "print-target" "$L" sim --print-target
[ "$th" = "$(sed -n 's/^hash=//p' "$T/out")" ] && ok || bad "target-hash is not nc-v2's hash"
for k in model-hash problem-hash; do
  v=$(sed -n "s/^# $k: //p" "$T/v2.lsprog")
  [ -n "$v" ] && [ "$v" = "$(sed -n "s/^# $k: //p" "$T/v2.sol")" ] \
    && ok || bad "the program's $k ($v) is not the problem's"
done

expect 0 "sim on its target" "$L" sim "$T/v2.lsprog"
expect 2 "nc-v2 program on nc-v3" "$L" sim "$T/v2.lsprog" --target nc-v3
expect_err "built for target nc-v2 \\(target-hash $th\\), simulated on target nc-v3 \\(target-hash [0-9a-f]{16}\\)" "both targets named"
expect 0 "a --set variant of nc-v2 is nc-v2" "$L" sim "$T/v2.lsprog" --set dma.bytes_per_ns=12
expect 0 "--ignore-mismatch" "$L" sim "$T/v2.lsprog" --target nc-v3 --ignore-mismatch
expect_err "warning: .*built for target nc-v2" "--ignore-mismatch warns"
grep -v '^#' "$T/v2.lsprog" >"$T/old.lsprog"
expect 0 "a program without tie lines runs anywhere" "$L" sim "$T/old.lsprog" --target nc-v3
expect 0 "compile binary" "$L" compile "${M[@]}" -o "$T/v2.lsprogz"
expect 2 "binary nc-v2 program on nc-v3" "$L" sim "$T/v2.lsprogz" --target nc-v3
expect_err "built for target nc-v2 \\(target-hash $th\\)" "binary: both targets named"
expect 0 "binary on its target" "$L" sim "$T/v2.lsprogz"

# traces: an nc-v3 trace into an nc-v2 calibration
expect 0 "compile nc-v3" "$L" compile "${M[@]}" --target nc-v3 -o "$T/v3.lsprog"
expect 0 "sim nc-v3 --trace" "$L" sim "$T/v3.lsprog" --target nc-v3 --trace "$T/v3.lstrace"
# the trace carries the program's model and problem hashes (none from an untied program)
expect 0 "trace summary" "$L" trace "$T/v3.lstrace" summary --json
for k in model problem; do
  [ "$(json "d['${k}_hash']")" = "$(sed -n "s/^# $k-hash: //p" "$T/v3.lsprog")" ] && ok \
    || bad "the trace's ${k}_hash is not the program's"
done
expect 0 "sim an untied program --trace" "$L" sim "$T/old.lsprog" --trace "$T/old.lstrace"
expect 0 "untied trace summary" "$L" trace "$T/old.lstrace" summary --json
[ "$(json "d['model_hash'] is None and d['problem_hash'] is None")" = True ] && ok \
  || bad "an untied program's trace names hashes"
expect 2 "nc-v3 trace, nc-v2 table" "$L" calibrate --traces "$T/v3.lstrace" -q -o "$T/t.json"
expect_err "v3.lstrace: a trace of target nc-v3 \\(target-hash [0-9a-f]{16}\\) for a table of target nc-v2 \\(target-hash $th\\)" "calibrate names both targets"
[ -e "$T/t.json" ] && bad "refused calibrate wrote a table" || ok
expect 0 "calibrate --ignore-mismatch" "$L" calibrate --traces "$T/v3.lstrace" -q --ignore-mismatch -o "$T/t.json"
expect_err "warning: .*a trace of target nc-v3" "calibrate --ignore-mismatch warns"
expect 0 "calibrate --target nc-v3" "$L" calibrate --traces "$T/v3.lstrace" -q --target nc-v3 -o "$T/t3.json"
expect 0 "calibrate from the nc-v3 table" "$L" calibrate --traces "$T/v3.lstrace" -q --table "$T/t3.json" -o "$T/t4.json"
finish
