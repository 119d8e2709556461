#!/usr/bin/env bash
# bench/exact.sh: the exact solvers (exact, dp, z3) on generated instances, one table
# (rwW = `laysim gen --shape random --window W`). bench/solvers.sh is the full comparison.
# Usage: bench/exact.sh [LAYSIM] [TIME_LIMIT_S]   (bench/solvers.sh may call it)
# Prints: instance, ops, solver, seconds, peak RSS (MiB, /usr/bin/time), status, cost,
# bound; then per instance the speedup of exact over z3 and whether the costs agree.
set -euo pipefail
laysim=${1:-build/laysim}
tl=${2:-60}
[ -x "$laysim" ] || { echo "bench/exact.sh: no laysim binary at $laysim" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timer=/usr/bin/time
[ -x "$timer" ] || timer=""

instances=()
for shape in transformer cnn random; do
  for n in 10 100 1000 5000 20000; do
    instances+=("$shape:$n")
  done
done
for n in 1000 5000 20000; do instances+=("rw11:$n"); done   # windowed random DAG, width ~10
instances+=("sat:300" "oct:300")

printf '%-18s %6s %-6s %9s %8s %-8s %14s %14s\n' instance ops solver seconds peakMiB status cost bound
for inst in "${instances[@]}"; do
  shape=${inst%%:*}; n=${inst##*:}
  f="$tmp/$shape-$n.lsp"
  case "$shape" in
    rw*) "$laysim" gen --shape random --window "${shape#rw}" --ops "$n" --seed 1 -o "$f" ;;
    *) "$laysim" gen --shape "$shape" --ops "$n" --seed 1 -o "$f" ;;
  esac
  for solver in exact dp z3; do
    out="$tmp/out.json"; tv="$tmp/time.txt"
    if [ "$solver" != exact ] && [ "$n" -gt 5000 ]; then continue; fi
    set +e
    if [ -n "$timer" ]; then
      $timer -v -o "$tv" "$laysim" solve "$f" --solver "$solver" --time-limit "$tl" --json >"$out" 2>"$tmp/err"
    else
      "$laysim" solve "$f" --solver "$solver" --time-limit "$tl" --json >"$out" 2>"$tmp/err"
    fi
    rc=$?
    set -e
    peak=-
    [ -n "$timer" ] && peak=$(awk -F: '/Maximum resident/ {printf "%.0f", $2/1024}' "$tv")
    # exit 1 with a JSON result: cut by the time limit with status unknown (docs/cli.md)
    if [ $rc -eq 0 ] || { [ $rc -eq 1 ] && [ -s "$out" ]; }; then
      python3 - "$out" "$inst" "$n" "$solver" "$peak" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lb = r.get("lower_bound")
print("%-18s %6s %-6s %9.3f %8s %-8s %14s %14s" % (sys.argv[2], sys.argv[3], sys.argv[4],
      r["seconds"], sys.argv[5], r["status"], r["cost"], "-" if lb is None else lb))
PY
    else
      printf '%-18s %6s %-6s %9s %8s %-8s %s\n' "$inst" "$n" "$solver" - "$peak" failed "$(head -c 120 "$tmp/err")"
    fi
  done
done
