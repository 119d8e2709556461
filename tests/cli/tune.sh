#!/usr/bin/env bash
# laysim tune end to end: budgets, determinism, the .sol, the SQLite metric store, errors.
# Usage: tune.sh LAYSIM SOURCE_DIR
set -u
L=$1
SRC=$2
source "$(dirname "$0")/lib.bash"
M=zoo:cnn

# a budgeted run: JSON figures, never slower than the start, the start scored first
expect 0 "tune json" "$L" tune $M --start local --evaluations 40 --seed 3 --json -o "$T/a.sol"
cp "$T/out" "$T/a.json"
[ "$(json 'd["evaluations"], d["simulations"], d["store_hits"]')" = "(40, 40, 0)" ] && ok || bad "budget: $(json 'd["evaluations"], d["simulations"]')"
[ "$(json 'd["best"]["cycles"] <= d["start"]["cycles"]')" = "True" ] && ok || bad "slower than start"
[ "$(json 'd["best_at"] >= 1 and d["points"] > 0 and d["designs_log10"] > 1')" = "True" ] && ok || bad "points/best_at"
# the .sol is an ordinary solution whose cost is the .lsp objective; time in a comment
grep -q '^# simulated: ' "$T/a.sol" && ok || bad "no simulated-time comment"
expect 0 "problem" "$L" problem $M -o "$T/cnn.lsp"
expect 0 "check sol" "$L" check "$T/cnn.lsp" "$T/a.sol" --json
[ "$(json 'd["cost"]')" = "$(python3 -c "import json;print(json.load(open('$T/a.json'))['best']['cost'])")" ] && ok || bad "sol cost != objective"

# same seed, same count budget: same design
expect 0 "tune again" "$L" tune $M --start local --evaluations 40 --seed 3 -o "$T/b.sol"
cmp -s "$T/a.sol" "$T/b.sol" && ok || bad "not deterministic"
# every explorer runs
for ex in random sweep; do
  expect 0 "explorer $ex" "$L" tune $M --start local --evaluations 15 --explorer $ex --json
  [ "$(json 'd["explorer"], d["evaluations"]')" = "('$ex', 15)" ] && ok || bad "explorer $ex figures"
done
expect 0 "groups" "$L" tune $M --start greedy --evaluations 10 --group 3 --top-k 4 --json

# the metric store: a second run simulates nothing and finds the same design
expect 0 "db first" "$L" tune $M --start local --evaluations 25 --db "$T/r.sqlite" --json -o "$T/c.sol"
[ "$(json 'd["simulations"], d["db_rows"]')" = "(25, 25)" ] && ok || bad "db first: $(json 'd["simulations"], d["db_rows"]')"
expect 0 "db second" "$L" tune $M --start local --evaluations 25 --db "$T/r.sqlite" --json -o "$T/d.sol"
[ "$(json 'd["simulations"], d["store_hits"], d["db_rows"]')" = "(0, 25, 25)" ] && ok || bad "db second: $(json 'd["simulations"], d["store_hits"], d["db_rows"]')"
cmp -s <(grep -v '^#' "$T/c.sol") <(grep -v '^#' "$T/d.sol") && ok || bad "store changed the result"
# another target is another key
expect 0 "db other target" "$L" tune $M --start local --evaluations 5 --db "$T/r.sqlite" --set dma.bytes_per_ns=20 --json
[ "$(json 'd["simulations"], d["db_rows"]')" = "(5, 30)" ] && ok || bad "db target key: $(json 'd["simulations"], d["db_rows"]')"
# a time limit without a count budget ends the run
expect 0 "time limit" "$L" tune $M --evaluations 0 --time-limit 0.3 --json
[ "$(json 'd["timed_out"] or d["exhausted"]')" = "True" ] && ok || bad "time limit"

# errors: exit 2 with a message
expect 2 "bare lsp" "$L" tune "$T/cnn.lsp"
grep -q "needs a MODEL" "$T/err" && ok || bad "bare .lsp message"
expect 2 "stdin" "$L" tune -
expect 2 "no model" "$L" tune
expect 2 "bad explorer" "$L" tune $M --explorer annealing
expect 2 "bad start" "$L" tune $M --start nosuch
expect 2 "bad group" "$L" tune $M --group 0
expect 2 "bad param" "$L" tune $M --param foo=1
expect 2 "score_mix out of range" "$L" tune $M --param score_mix=2 --evaluations 3
expect 2 "score_window zero" "$L" tune $M --param score_window=0 --evaluations 3
expect 0 "rank-only scores" "$L" tune $M --param score_mix=0 --evaluations 3
expect 2 "bad evaluations" "$L" tune $M --evaluations x
expect 2 "unknown model" "$L" tune zoo:nosuch
expect 1 "bad db" "$L" tune $M --evaluations 3 --db "$T/nodir/x.sqlite"
# a target that rejects every program (textbook PE mode is bf16-only; cnn with --autocast
# none is fp32): exit 2 naming the reason, no .sol written
expect 2 "target rejects all" "$L" tune $M --autocast none --set pe.background_load=0 --evaluations 3 -o "$T/rej.sol"
grep -q "rejects every program.*bf16 only" "$T/err" && ok || bad "rejection message: $(cat "$T/err")"
[ ! -e "$T/rej.sol" ] && ok || bad "a .sol was written for a rejected tuning run"
expect 0 "help" "$L" tune --help
grep -q "evaluations" "$T/out" && ok || bad "help text"

# the autotuner as `laysim solve --solver mcts`: a MODEL, never a bare .lsp
"$L" solve $M --solver mcts --param tune.evaluations=4 --json >"$T/mcts.json" 2>"$T/err" && ok || bad "solve --solver mcts: $(cat "$T/err")"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["solver"]=="mcts" and d["status"]=="feasible" and d["stats"]["evaluations"]==4 and d["stats"]["best_cycles"]<=d["stats"]["start_cycles"]' "$T/mcts.json" && ok || bad "solve --solver mcts JSON"
"$L" problem $M -o "$T/m.lsp" 2>/dev/null
expect 2 "mcts on a bare .lsp" "$L" solve "$T/m.lsp" --solver mcts
grep -q "needs a MODEL" "$T/err" && ok || bad "mcts .lsp message"
expect 2 "mcts bad param" "$L" solve $M --solver mcts --param rb.x=1

finish
