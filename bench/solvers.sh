#!/usr/bin/env bash
# Heuristic solvers on generated instances: per instance, ops and the cost and time of
# each solver. Usage: bench/solvers.sh [LAYSIM] [SOLVERS...]
# Goal (issue 7): greedy and rulebased finish transformer --ops 10000 --seed 1 in < 0.5 s.
set -euo pipefail
L=${1:-build/laysim}
shift || true
solvers=("$@")
[ ${#solvers[@]} -eq 0 ] && solvers=(local greedy rulebased)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
printf '%-22s %7s' instance ops
for s in "${solvers[@]}"; do printf ' %16s %8s' "$s cost" "sec"; done
printf '\n'
for spec in transformer:1000 transformer:10000 cnn:10000 random:1000 random:10000 sat:1000 oct:1000 transformer:100000; do
  shape=${spec%%:*}; n=${spec##*:}
  f="$T/$shape-$n.lsp"
  "$L" gen --shape "$shape" --ops "$n" --seed 1 -o "$f"
  printf '%-22s %7s' "$shape-$n" "$n"
  for s in "${solvers[@]}"; do
    "$L" solve "$f" --solver "$s" --json >"$T/out.json"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(" %16s %8.4f" % (d["cost"], d["seconds"]), end="")' "$T/out.json"
  done
  printf '\n'
done
# reading alone (100,000 ops): `solve --solver local` is dominated by the reader
f="$T/transformer-100000.lsp"
"$L" gen --shape transformer --ops 100000 --seed 1 -o "$f"
start=$(date +%s.%N)
"$L" solve "$f" --solver local >/dev/null
end=$(date +%s.%N)
python3 -c "print('read+local on transformer-100000 (%d bytes): %.3f s wall' % ($(stat -c %s "$f"), $end - $start))"
