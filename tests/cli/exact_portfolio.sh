#!/usr/bin/env bash
# exact's portfolio (issue 24): CBC alone, the race and bucket elimination agree on the
# optimum of a wide generated DAG, `laysim check` accepts every .sol, the race's .sol is the
# same on two runs, and solve --mem-limit reaches exact, dp and z3 only.
# Usage: exact_portfolio.sh LAYSIM SOURCE_DIR
set -u
L=$1
source "$(dirname "$0")/lib.bash"

P=$T/fan.lsp
expect 0 "gen fan-out DAG" "$L" gen --shape random --ops 120 --window 40 --fanout 10 --seed 3 -o "$P"
costs="" i=0
for mode in "engine=be" "engine=mip" "race_entries=0" "race_entries=0"; do
  i=$((i + 1))
  expect 0 "solve exact.$mode" "$L" solve "$P" --solver exact --param "exact.$mode" \
    -o "$T/run$i.sol" --json
  [ "$(json 'd["status"]')" = optimal ] && ok || bad "exact.$mode: not proven"
  costs="$costs $(json 'd["cost"]')"
  expect 0 "check exact.$mode" "$L" check "$P" "$T/run$i.sol"
done
set -- $costs
[ "$1" = "$2" ] && [ "$1" = "$3" ] && [ "$1" = "$4" ] && ok || bad "optima differ:$costs"
cmp -s "$T/run3.sol" "$T/run4.sol" && ok || bad "the race's .sol differs between two runs"
# the default portfolio on the same problem: proven, the same optimum
expect 0 "solve exact" "$L" solve "$P" --solver exact -o "$T/auto.sol" --json
[ "$(json 'd["cost"]')" = "$1" ] && ok || bad "default exact: cost $(json 'd["cost"]'), not $1"

expect 0 "exact --mem-limit" "$L" solve "$P" --solver exact --mem-limit 1 -o "$T/m.sol"
expect 0 "check --mem-limit" "$L" check "$P" "$T/m.sol"
expect 2 "--mem-limit on rulebased" "$L" solve "$P" --mem-limit 64
expect_err "applies to the exact, dp and z3 solvers" "--mem-limit refused for rulebased"
expect 2 "--mem-limit 0" "$L" solve "$P" --solver dp --mem-limit 0
expect 2 "bad engine" "$L" solve "$P" --solver exact --param exact.engine=glpk
expect_err "exact.engine" "bad engine named"
finish
