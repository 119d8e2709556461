#!/usr/bin/env bash
# `laysim solve` refuses the options it would otherwise ignore: the solver options with
# --from-external (which runs no solver) and --threads (no solver uses threads); each
# exits 2 naming the option. Usage: solveopts.sh LAYSIM SOURCE_DIR
set -u
L=$1
source "$(dirname "$0")/lib.bash"

expect 0 "problem" "$L" problem zoo:cnn --layers 1 --image 32 -o "$T/c.lsp"
expect 0 "solve" "$L" solve "$T/c.lsp" --solver exact -o "$T/c.sol"
for opt in "--solver exact" "--time-limit 5" "--seed 3" "--param rb.node_limit=0"; do
  # shellcheck disable=SC2086  # the option and its value are two words
  expect 2 "$opt with --from-external" "$L" solve "$T/c.lsp" $opt --from-external "cfn=$T/none"
  expect_err "${opt%% *} does not apply to --from-external" "$opt with --from-external: message"
done
expect 2 "--threads" "$L" solve "$T/c.lsp" --threads 2
expect_err "--threads was removed: no solver uses threads" "--threads: message"
expect 2 "--threads 1" "$L" solve "$T/c.lsp" --threads 1

# a typo'd --param is refused by every solver, naming the solver and its valid keys
expect 0 "solve --list --json" "$L" solve --list --json
cp "$T/out" "$T/list.json"
for s in $(python3 -c 'import json,sys; print(" ".join(x["name"] for x in json.load(open(sys.argv[1]))))' "$T/list.json"); do
  expect 2 "$s --param rb.exhaustiv_max=5" "$L" solve "$T/c.lsp" --solver "$s" --param rb.exhaustiv_max=5
  keys=$(python3 -c 'import json,sys; print(", ".join(p["key"] for x in json.load(open(sys.argv[1])) if x["name"] == sys.argv[2] for p in x["params"]))' "$T/list.json" "$s")
  if [ -n "$keys" ]; then expect_err "unknown parameter 'rb.exhaustiv_max' for solver $s \\(valid: $keys\\)" "$s: the valid keys"
  else expect_err "unknown parameter 'rb.exhaustiv_max': solver $s takes no parameters" "$s: no keys"; fi
done
# docs/solvers.md's parameter table is the table of `solve --list` (solver/params.def)
python3 - "$T/list.json" "$2/docs/solvers.md" <<'PY' && ok || bad "docs/solvers.md parameter table differs from solver/params.def"
import json, re, sys
rows = [(x["name"], p["key"], p["type"], p["default"]) for x in json.load(open(sys.argv[1])) for p in x["params"]]
doc = [tuple(c.strip().strip("`") for c in l.strip().strip("|").split("|"))[:4]
       for l in open(sys.argv[2]) if re.match(r"\| [a-z0-9]+ \| `[a-z0-9_.]+` \|", l)]
if rows != doc:
    print("table:", rows, "\ndocs: ", doc)
    sys.exit(1)
PY
finish
