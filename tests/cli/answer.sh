#!/usr/bin/env bash
# External solver answers back: `laysim export` a zoo problem, run toulbar2 and cbc on it
# (each skipped when absent), read the answers back with `laysim solve --from-external`
# and compare with `laysim solve --solver exact`; MaxSAT `v` lines (both forms) are
# written from the exact solution, since no MaxSAT solver is a dependency; malformed
# answers exit 2 naming the line. Usage: answer.sh LAYSIM SOURCE_DIR
set -u
L=$1
source "$(dirname "$0")/lib.bash"

expect 0 "problem" "$L" problem zoo:bert-base --layers 1 --seq 64 -o "$T/b.lsp"
expect 0 "exact" "$L" solve "$T/b.lsp" --solver exact -o "$T/exact.sol" --json
best=$(json 'd["cost"]')
for f in wcnf-old cfn lp; do
  expect 0 "export $f" "$L" export "$T/b.lsp" --to $f -o "$T/b.$f"
done

# jof NAME PYEXPR: a Python expression over the JSON of import NAME (as d)
jof() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print(($2))" "$T/$1.json"; }
# import ANSWER FORMAT NAME: read it back, check the .sol, compare with exact's optimum
import() {
  expect 0 "$3: read back" "$L" solve "$T/b.lsp" --from-external "$2=$1" -o "$T/$3.sol" --json
  local cost status
  cp "$T/out" "$T/$3.json"
  cost=$(json 'd["cost"]'); status=$(json 'd["status"]')
  [ "$cost" = "$best" ] && ok || bad "$3: cost $cost, exact says $best"
  echo "$3: cost $cost (exact $best), status $status"
  expect 0 "$3: check" "$L" check "$T/b.lsp" "$T/$3.sol"
  grep -q '^# problem-hash: ' "$T/$3.sol" && ok || bad "$3: .sol not tied to its problem"
}

if command -v toulbar2 >/dev/null; then
  (cd "$T" && timeout 120 toulbar2 b.cfn -w=tb2.answer >tb2.log 2>&1) && ok || bad "toulbar2 failed"
  import "$T/tb2.answer" cfn toulbar2
else
  echo "toulbar2 absent: skipped"
fi
if command -v cbc >/dev/null; then
  (cd "$T" && timeout 120 cbc b.lp solve solu cbc.answer >cbc.log 2>&1) && ok || bad "cbc failed"
  import "$T/cbc.answer" lp cbc
  [ "$(jof cbc 'd["status"], d["answer_objective"]')" = "('optimal', $best)" ] && ok || bad "cbc: optimal claim"
else
  echo "cbc absent: skipped"
fi

# MaxSAT answers in both forms, written from exact's assignment with export's numbering
python3 - "$T/b.lsp" "$T/exact.sol" "$T/b.wcnf-old" "$T" "$best" <<'PY'
import sys
lsp, sol, wcnf, out, best = sys.argv[1:]
base, k = {}, 0
for line in open(lsp):
    t = line.split()
    if t and t[0] == "op":
        base[t[1]] = k
    elif t and t[0] == "cfg":
        k += 1
nvars = next(int(l.split()[2]) for l in open(wcnf) if l.startswith("p wcnf"))
true = {base[t[1]] + int(t[2]) + 1 for t in (l.split() for l in open(sol)) if t and t[0] == "op"}
lits = [v if v in true else -v for v in range(1, nvars + 1)]
with open(out + "/lits.answer", "w") as f:
    f.write("c written by answer.sh\ns OPTIMUM FOUND\no %s\n" % best)
    for i in range(0, len(lits), 10):
        f.write("v " + " ".join(map(str, lits[i:i + 10])) + "\n")
    f.write("v 0\n")
two = next(base[o] + 2 for o in base if base[o] + 1 in true and (base[o] + 2) not in true
           and (base[o] + 2) <= k and all(b != base[o] + 1 for b in base.values()))
with open(out + "/two.answer", "w") as f:
    f.write("v " + " ".join(str(v) for v in sorted(true)) + "\nv %d 0\n" % two)
with open(out + "/bits.answer", "w") as f:
    f.write("s SATISFIABLE\nv " + "".join("1" if v in true else "0" for v in range(1, nvars + 1)) + "\n")
PY
import "$T/lits.answer" wcnf maxsat-literals
[ "$(jof maxsat-literals 'd["status"]')" = optimal ] && ok || bad "maxsat literals: OPTIMUM FOUND not taken"
import "$T/bits.answer" wcnf maxsat-bitstring
[ "$(jof maxsat-bitstring 'd["status"]')" = feasible ] && ok || bad "maxsat bit-string: SATISFIABLE is feasible"
cmp -s <(grep '^op ' "$T/exact.sol") <(grep '^op ' "$T/maxsat-literals.sol") && ok || bad "literals: another assignment"

# malformed answers: exit 2, the message names the file and line
bad_answer() {   # FORMAT WHAT PATTERN TEXT
  printf '%b' "$4" >"$T/bad.answer"
  expect 2 "$2" "$L" solve "$T/b.lsp" --from-external "$1=$T/bad.answer" -o "$T/bad.sol"
  expect_err "$3" "$2"
  [ -e "$T/bad.sol" ] && bad "$2: wrote a .sol" || ok
}
bad_answer wcnf "junk line" 'bad\.answer:2:1: expected a line starting with c, s, o or v' 'c x\nhello\n'
bad_answer wcnf "literal out of range" 'bad\.answer:1:5: variable 999999 out of range' 'v 1 999999 0\n'
bad_answer wcnf "not a literal" 'bad\.answer:1:3: literal' 'v x1\n'
bad_answer wcnf "no v line" 'no .v. line' 's SATISFIABLE\n'
expect 2 "two cfgs of one op" "$L" solve "$T/b.lsp" --from-external "wcnf=$T/two.answer"
expect_err 'two\.answer:2:3: a second configuration for op .* \(.*, after .* on line 1\)' "two cfgs"
bad_answer wcnf "an op without cfg" 'picks no configuration of op' 'v 1\n'
bad_answer wcnf "unsatisfiable" 'bad\.answer:1:3: the solver reports UNSATISFIABLE' 's UNSATISFIABLE\n'
bad_answer cfn "too few values" 'bad\.answer:1:[0-9]+: 3 values, but the CFN export has' '0 0 0\n'
bad_answer cfn "bad value" 'bad\.answer:1:1: op .*: .c99. is not one of its' 'c99\n'
bad_answer cfn "unknown name" 'bad\.answer:1:1: .q3. is not a variable' 'q3=1\n'
bad_answer lp "no status line" 'bad\.answer:1:1: expected cbc.s status line' '0 x1 1 0\n'
bad_answer lp "infeasible" 'cbc found no solution' 'Infeasible - objective value 0.0\n'
bad_answer lp "bad column line" 'bad\.answer:2:[0-9]+: value' 'Optimal - objective value 1\n 0 x1 one 0\n'
bad_answer lp "column out of range" 'bad\.answer:2:[0-9]+: variable x99999999 out of range' 'Optimal - objective value 1\n 0 x99999999 1 0\n'
expect 2 "unknown format" "$L" solve "$T/b.lsp" --from-external "sat=$T/lits.answer"
expect_err 'FORMAT wcnf, cfn or lp' "unknown format"
finish
