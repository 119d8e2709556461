#!/usr/bin/env bash
# Human output says what it means (issue 46): an undefined pairwise accuracy prints n/a
# (validate; the JSON's null), calibrate does not call a fit "better than the prior" when
# both predict the held-out samples exactly, a treewidth DP over its memory limit is
# "skipped: dp over its memory limit" in study's summary and JSON (not failed), and the
# costs of a priced problem carry their unit (cycles) while a generated problem's do not.
# usage: bash tests/cli/messages.sh <laysim-binary> <source-dir>
L=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
cd "$T" || exit 1

# validate --measured with one row: no pairs
printf 'model,strategy,predicted_cycles,measured_ns\nm,exact,5,10\n' >one.csv
expect 0 "validate one row" "$L" validate --measured one.csv
grep -q 'pairwise_accuracy=n/a ' out && ok || bad "validate: $(grep all out)"
expect 0 "validate one row --json" "$L" validate --measured one.csv --json
[ "$(json 'd["pairwise_accuracy"]')" = None ] && ok || bad "validate --json: not null"

# calibrate on a trace both tables predict exactly (bert-base, one layer, greedy)
"$L" problem zoo:bert-base --layers 1 -o b.lsp && "$L" solve b.lsp --solver greedy -o b.sol -q &&
    "$L" compile zoo:bert-base --layers 1 --layout b.sol -o b.prog -q &&
    "$L" sim b.prog --trace b.lstrace -q >/dev/null || bad "bert-base trace"
expect 0 "calibrate" "$L" calibrate --traces b.lstrace -o fit.json -q
held=$(grep '^held out' out)
case $held in
    *"0.000000 against the prior's 0.000000"*) bad "calibrate, vacuous: $held" ;;
    *"nothing tells them apart"* | *"against the prior's"*) ok ;;
    *) bad "calibrate: no held-out verdict: $held" ;;
esac

# study: the treewidth DP over a 1 MiB budget on a one-layer perceiver (about 2 MiB)
"$L" graph zoo:perceiver --layers 1 --hidden 160 --seq 64 -o p.lg >/dev/null || bad "p.lg"
expect 0 "study" "$L" study --models ./p.lg --no-calibrate --threads 1 --dp-mem-limit 1 --out s
grep -Eq 'cells \(0 failed, 1 skipped: dp over its memory limit\)' out && ok ||
    bad "study summary: $(grep cells out)"
grep -q '^  skipped: dp over its memory limit: p.lg / dp / ' out && ok || bad "study: skipped cell"
expect 0 "study --json" "$L" study --models ./p.lg --no-calibrate --threads 1 --dp-mem-limit 1 \
    --out s --resume --json
[ "$(json 'd["cells_failed"], d["cells_skipped"], d["skipped"][0]["strategy"]')" = "(0, 1, 'dp')" ] &&
    ok || bad "study --json: $(json 'd["cells_failed"], d["cells_skipped"]')"

# units: cycles for a priced problem, none for a generated one
expect 0 "solve MODEL" "$L" solve zoo:cnn --solver greedy
grep -Eq '^greedy: feasible cost [0-9]+ cycles bound [0-9]+ cycles ' out && ok || bad "solve: $(cat out)"
expect 0 "compile" "$L" compile zoo:bert-base --layers 1 --layout b.sol -o c.prog
grep -Eq '^laysim compile: .* table price [0-9]+ \(problem objective [0-9]+\), in cycles$' err &&
    ok || bad "compile: $(cat err)"
expect 0 "check" "$L" check b.lsp b.sol
grep -Eq '^cost [0-9]+ cycles \(operator' out && ok || bad "check: $(head -1 out)"
"$L" gen --shape random --ops 10 -o r.lsp
expect 0 "solve generated" "$L" solve r.lsp
grep -q cycles out && bad "a generated problem's cost in cycles: $(cat out)" || ok
finish
