#!/usr/bin/env bash
# laysim problem / compile / explain end to end on the paper's figures.
B="$1"; S="$2"; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
ok "$B" problem "$S/examples/fig1.lg" -o "$T/f1.lsp"
ok grep -q '^# table-hash: [0-9a-f]\{16\}$' "$T/f1.lsp"
ok grep -q '^tensor C 2 p:0 p:1' "$T/f1.lsp"
ok "$B" compile "$S/examples/fig2.lg" -o "$T/f2.prog"
ok "$B" sim "$T/f2.prog" --json
# the program's table price equals the problem objective of the default assignment
line=$("$B" compile "$S/examples/fig1.lg" -o "$T/f1.prog" 2>&1)
p=$(echo "$line" | sed -n 's/.*table price \([0-9]*\).*/\1/p'); o=$(echo "$line" | sed -n 's/.*objective \([0-9]*\)).*/\1/p')
ok test -n "$p" -a "$p" = "$o"
# -q: the same program, no summary line
ok test -z "$("$B" compile "$S/examples/fig1.lg" -o "$T/f1q.prog" -q 2>&1)"
ok cmp -s "$T/f1.prog" "$T/f1q.prog"
ok "$B" problem "$S/examples/fig1.lg" --output-layout R=0 -o "$T/pin.lsp"
ok grep -q '^op return:R return 1 R -' "$T/pin.lsp"
ok test "$(grep -A1 '^op return:R' "$T/pin.lsp" | grep -c '^cfg')" = 1
ok "$B" explain "$S/examples/fig1.lg" --op D
# explain's price of each cfg is the .lsp's cost of that cfg (not the instructions' sum)
ok test "$("$B" explain "$S/examples/fig1.lg" --op D --json | jq -c '[.cfgs[].price]')" = \
    "$(awk '/^op D /{f=1; next} /^op /{f=0} f && /^cfg/{print $2}' "$T/f1.lsp" | jq -sc .)"
"$B" explain "$S/examples/fig1.lg" --op nosuch >/dev/null 2>&1; ok test $? = 2
"$B" problem "$S/examples/fig1.lg" --output-layout R=9 >/dev/null 2>&1; ok test $? = 2
echo '{"schema":"x","version":1}' > "$T/bad.json"
"$B" problem "$S/examples/fig1.lg" --table "$T/bad.json" >/dev/null 2>&1; ok test $? = 2
"$B" problem "$S/examples/fig1.lg" --write-table "$T/t.json" -o "$T/a.lsp"; ok test $? = 0
"$B" problem "$S/examples/fig1.lg" --table "$T/t.json" -o "$T/b.lsp"; ok cmp -s <(grep -v built "$T/a.lsp") <(grep -v built "$T/b.lsp")
# limits: an op that lowers to more instructions than --max-instructions stops pricing with
# exit 2 naming it (a 2^40-element relu ran for hours); --time-limit stops with exit 1; in
# compile the limit bounds the whole program and names the op that crosses it
printf 'lg 1\ninput x fp32 [1048576,1048576]\nop y fp32 [1048576,1048576] = relu x\noutput y\n' >"$T/big.lg"
"$B" problem "$T/big.lg" --max-instructions 100000 -o "$T/big.lsp" 2>"$T/err"; ok test $? = 2
ok grep -q "tensor 'x': more than 100000 instructions" "$T/err"
ok test ! -e "$T/big.lsp"
# one op or conversion may take a fifth of the limit: a 4-row tensor 2^31 long, whose
# conversion needs some 50 million PE-transpose instructions, is refused at the step limit
# (it used to run each method to the whole program's limit: 10-23 s; the campaign's hangs)
printf 'lg 1\ninput a fp32 [4,2147483648]\nop r fp32 [4,2147483648] = relu a\n' >"$T/long.lg"
"$B" problem "$T/long.lg" -o "$T/long.lsp" 2>"$T/err"; ok test $? = 2
ok grep -q "tensor 'a': more than 10000000 instructions in one operator or conversion" "$T/err"
ok test ! -e "$T/long.lsp"
timeout 60 "$B" problem "$T/big.lg" --max-instructions 0 --time-limit 0.5 -o "$T/big.lsp" 2>"$T/err"; ok test $? = 1
ok grep -q "time limit reached" "$T/err"
# the instruction limit is inclusive: fig2's own count passes, one fewer fails naming the op
n=$("$B" compile "$S/examples/fig2.lg" --autocast none -o "$T/f2n.prog" --json | jq -r .instructions)
ok "$B" compile "$S/examples/fig2.lg" --autocast none --max-instructions "$n" -o "$T/f2l.prog"
"$B" compile "$S/examples/fig2.lg" --autocast none --max-instructions $((n - 1)) -o "$T/f2l.prog" \
    2>"$T/err"; ok test $? = 2
ok grep -q "compiling op '[a-z0-9]*': more than $((n - 1)) instructions" "$T/err"
# --json summaries (with -o: stdout carries the JSON)
"$B" problem "$S/examples/fig1.lg" -o "$T/j.lsp" --json > "$T/pj"; ok test $? = 0
ok test "$(jq -r '.ops' "$T/pj")" = "$(grep -c '^op ' "$T/j.lsp")"
"$B" compile "$S/examples/fig2.lg" -o "$T/j.prog" --json > "$T/cj"; ok test $? = 0
ok test "$(jq -r '.table_price == .objective' "$T/cj")" = true
# the roofline: the larger of the PE and HBM bounds, never above the simulated time
ok test "$(jq -r '.roofline | .bound_ns == ([.pe_ns, .hbm_ns] | max) and .flops > 0
                  and .min_hbm_bytes > 0 and (.bound_by == "pe" or .bound_by == "hbm")' "$T/cj")" = true
"$B" sim "$T/j.prog" --json > "$T/sj"; ok test $? = 0
ok test "$(jq -n --slurpfile c "$T/cj" --slurpfile s "$T/sj" '$s[0].ns >= $c[0].roofline.bound_ns')" = true
"$B" compile "$S/examples/fig2.lg" --json >/dev/null 2>&1; ok test $? = 2
echo "$pass passed, $fail failed"
test "$fail" = 0
