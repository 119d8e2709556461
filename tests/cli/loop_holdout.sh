#!/usr/bin/env bash
# laysim loop --holdout-models: the held-out models never enter a fit and are reported
# apart; --group-scales / --serial-share reach the loop's group fit (calibrate's code).
B="$1"; S="$2"; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
command -v python3 >/dev/null 2>&1 || exit 77
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
f1="$S/examples/fig1.lg"; f2="$S/examples/fig2.lg"
"$B" loop "$f1" "$f2" --holdout-models "$f2" --iterations 1 --perturb 2 --json -q > "$T/l.json"
ok test $? = 0
ok python3 -c "
import json; d=json.load(open('$T/l.json')); it=d['iterations']
for k in ('held_strategy_pairwise_accuracy','held_strategy_median_rel_error',
          'held_frozen_strategies_pairwise_accuracy','held_frozen_strategies_pairs'):
    assert k in it[-1], k
m={x['model']: x for x in it[-1]['models']}
assert m['$f2']['held_out'] is True and m['$f1']['held_out'] is False, m
assert d['group_scales'] == 'tied', d['group_scales']   # the loop's default form
assert d['issue_latency'] is True, d['issue_latency']"
# the text output prints the held-out table
"$B" loop "$f1" "$f2" --holdout-models "$f2" --iterations 1 --perturb 2 -q > "$T/l.txt"
ok grep -q '^held-out models (never fitted on' "$T/l.txt"
ok test "$(grep -c nan "$T/l.txt")" = 0
ok grep -q "the group fit's scales: tied, with a vector issue latency" "$T/l.txt"
# the group fit's form is calibrate's
"$B" loop "$f1" --iterations 1 --perturb 1 --group-scales tied --serial-share -q -o "$T/t.json" >/dev/null
ok test $? = 0
ok grep -q '"aggregate": "max"' "$T/t.json"
"$B" loop "$f1" --iterations 1 --perturb 1 --group-scales split --no-issue-latency --json -q > "$T/s.json"
ok grep -q '"group_scales": "split"' "$T/s.json"
ok grep -q '"issue_latency": false' "$T/s.json"
# bad input: exit 2 naming the problem
"$B" loop "$f1" --holdout-models zoo:nosuch >/dev/null 2>"$T/e1"; ok test $? = 2
ok grep -q "held-out model 'zoo:nosuch' is not one of" "$T/e1"
"$B" loop "$f1" --holdout-models "$f1" >/dev/null 2>"$T/e2"; ok test $? = 2
ok grep -q 'every model is held out' "$T/e2"
"$B" loop "$f1" --holdout-models , >/dev/null 2>&1; ok test $? = 2
"$B" loop "$f1" --group-scales both >/dev/null 2>&1; ok test $? = 2
"$B" loop "$f1" --group-scales auto >/dev/null 2>&1; ok test $? = 2   # no held-out traces
echo "$pass passed, $fail failed"
test "$fail" = 0
