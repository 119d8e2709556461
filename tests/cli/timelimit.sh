#!/usr/bin/env bash
# --time-limit of explain and graph (issue 45): the whole command within the limit, exit 1
# naming it when it runs out (as problem, compile, solve and tune), results unchanged
# when it does not.
# Usage: timelimit.sh LAYSIM SOURCE_DIR
L="$1"; S="$2"
. "$S/tests/cli/lib.bash"

# elapsed milliseconds of the last `timed` command
timed() { local t0; t0=$(date +%s%N); "$@"; local rc=$?; ms=$((($(date +%s%N) - t0) / 1000000)); return $rc; }

# explain: a 32768^3 matmul takes seconds to price; its cost model stops at the limit
printf 'lg 1\nname mm\ninput A bf16 [32768,32768]\ninput B bf16 [32768,32768]\nop C fp32 [32768,32768] = matmul A B lhs_contract=1 rhs_contract=0\noutput C\n' >"$T/mm.lg"
timed expect 1 "explain over --time-limit" timeout 60 "$L" explain "$T/mm.lg" --op C --time-limit 0.2
expect_err '^laysim explain: --time-limit ran out explaining cfg 0 of .C.' "explain names the limit"
[ "$ms" -lt 3000 ] && ok || bad "explain --time-limit 0.2 took $ms ms"
expect 0 "explain within --time-limit" "$L" explain "$S/examples/fig1.lg" --op D --json
"$L" explain "$S/examples/fig1.lg" --op D --json --time-limit 60 >"$T/lim.json"
cmp -s "$T/out" "$T/lim.json" && ok || bad "explain --time-limit changed its output"
expect 2 "explain --time-limit 0" "$L" explain "$S/examples/fig1.lg" --op D --time-limit 0

# graph: a 1023-expert MoE config takes seconds (import and treewidth bound); killed at
# the limit, no output written
python3 -c "
import json, sys
d = json.load(open(sys.argv[1])); d['num_experts'] = 1023
json.dump(d, open(sys.argv[2], 'w'))" "$S/tests/data/hf/olmoe.json" "$T/moe.json"
timed expect 1 "graph over --time-limit" timeout 60 "$L" graph "$T/moe.json" --stats --time-limit 0.3 \
    -o "$T/moe.lg"
expect_err "^laysim graph: --time-limit 0.3 s ran out reading .*moe.json" "graph names the limit"
[ "$ms" -lt 2000 ] && ok || bad "graph --time-limit 0.3 took $ms ms"
[ ! -e "$T/moe.lg" ] && ok || bad "graph cut by its limit wrote its output"
expect 0 "graph within --time-limit" "$L" graph "$S/examples/fig1.lg" --stats --time-limit 60 -o "$T/f1.lg"
cp "$T/out" "$T/lim.txt"
expect 0 "graph without" "$L" graph "$S/examples/fig1.lg" --stats
cmp -s "$T/out" "$T/lim.txt" && ok || bad "graph --time-limit changed its output"
[ -s "$T/f1.lg" ] && ok || bad "graph --time-limit -o wrote nothing"
expect 2 "graph bad input within --time-limit" "$L" graph "$T/nosuch.lg" --time-limit 60
expect 2 "graph --time-limit x" "$L" graph "$S/examples/fig1.lg" --time-limit x

finish
