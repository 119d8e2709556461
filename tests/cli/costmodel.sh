#!/usr/bin/env bash
# laysim problem / compile / explain end to end on the paper's figures.
B="$1"; S="$2"; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
ok "$B" problem "$S/examples/fig1.lg" -o "$T/f1.lsp"
ok grep -q '^# table hash' "$T/f1.lsp"
ok grep -q '^tensor C 2 p:0 p:1' "$T/f1.lsp"
ok "$B" compile "$S/examples/fig2.lg" -o "$T/f2.prog"
ok "$B" sim "$T/f2.prog" --json
# the program's table price equals the problem objective of the default assignment
line=$("$B" compile "$S/examples/fig1.lg" -o "$T/f1.prog" 2>&1)
p=$(echo "$line" | sed -n 's/.*table price \([0-9]*\).*/\1/p'); o=$(echo "$line" | sed -n 's/.*objective \([0-9]*\)).*/\1/p')
ok test -n "$p" -a "$p" = "$o"
ok "$B" problem "$S/examples/fig1.lg" --output-layout R=0 -o "$T/pin.lsp"
ok grep -q '^op return:R return 1 R -' "$T/pin.lsp"
ok test "$(grep -A1 '^op return:R' "$T/pin.lsp" | grep -c '^cfg')" = 1
ok "$B" explain "$S/examples/fig1.lg" --op D
"$B" explain "$S/examples/fig1.lg" --op nosuch >/dev/null 2>&1; ok test $? = 2
"$B" problem "$S/examples/fig1.lg" --output-layout R=9 >/dev/null 2>&1; ok test $? = 2
echo '{"schema":"x","version":1}' > "$T/bad.json"
"$B" problem "$S/examples/fig1.lg" --table "$T/bad.json" >/dev/null 2>&1; ok test $? = 2
"$B" problem "$S/examples/fig1.lg" --write-table "$T/t.json" -o "$T/a.lsp"; ok test $? = 0
"$B" problem "$S/examples/fig1.lg" --table "$T/t.json" -o "$T/b.lsp"; ok cmp -s <(grep -v built "$T/a.lsp") <(grep -v built "$T/b.lsp")
echo "$pass passed, $fail failed"
test "$fail" = 0
