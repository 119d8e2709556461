#!/bin/bash
# laysim validate's headline, exact's regret (study/regret.h): against the run's own fastest
# strategy, a reference file lowers the best known time (and names its source), the file
# written by --write-reference reads back with the same regrets, and bad reference files exit
# 2 naming the file and line.
# usage: regret.sh LAYSIM
L=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"
command -v python3 >/dev/null || { echo "skipped: no python3"; exit 77; }

M="zoo:cnn"
expect 0 "validate, own best" "$L" validate $M --json -q --write-reference "$T/ref.csv"
best=$(json "d['models'][0]['best_known_cycles']")
ex=$(json "[s['simulated'] for s in d['models'][0]['strategies'] if s['strategy']=='exact'][0]")
low=$(json "min(s['simulated'] for s in d['models'][0]['strategies'])")
[ "$(json "d['models'][0]['best_known_cycles'] == $low")" = True ] && ok || bad "best known $best is not the fastest strategy $low"
[ "$(json "abs(d['models'][0]['regret'] - ($ex / $best - 1)) < 1e-9")" = True ] && ok || bad "regret"
[ "$(json "d['regret']['models']")" = 1 ] && ok || bad "regret summary"
grep -q "^$M,${best%.*}," "$T/ref.csv" && ok || bad "written reference: $(cat "$T/ref.csv")"

# a lower time from elsewhere: regret 10% when the reference is exact's time / 1.1
ref=$(python3 -c "print(round($ex / 1.1))")
printf 'model,best_cycles,source\n%s,%s,mcts\n' "$M" "$ref" > "$T/low.csv"
expect 0 "validate --reference" "$L" validate $M --json -q --reference "$T/low.csv" \
    --write-reference "$T/back.csv"
[ "$(json "d['models'][0]['best_known_source']")" = "reference:mcts" ] && ok || bad "source"
[ "$(json "abs(d['models'][0]['regret'] - ($ex / $ref - 1)) < 1e-9")" = True ] && ok || bad "regret vs reference"
[ "$(json "d['reference_used']")" = 1 ] && ok || bad "reference_used"
grep -q "^$M,$ref,mcts$" "$T/back.csv" && ok || bad "a reference's best passed on with its own source"
expect 0 "validate text" "$L" validate $M -q --reference "$T/low.csv"
grep -q 'regret=.*reference:mcts' "$T/out" && ok || bad "text names the best's source"
grep -q 'exact_regret_within_1pct=0/1' "$T/out" && ok || bad "text summary"

# the loop: each iteration's regret against the best time known at the end of the loop,
# which no iteration's strategy beats
expect 0 "loop --json" "$L" loop zoo:cnn zoo:bert-base --layers 1 --seq 64 --iterations 2 --json -q
[ "$(json "all(it['regret']['models'] == 2 for it in d['iterations'])")" = True ] && ok || bad "loop regret summary"
[ "$(json "all(abs(m['regret'] - ([r['simulated'] for r in m['strategies']['runs'] if r['strategy']=='exact'][0] / m['best_known_cycles'] - 1)) < 1e-9 for it in d['iterations'] for m in it['models'])")" = True ] \
    && ok || bad "loop per-model regret"
[ "$(json "all(r['simulated'] >= m2['best_known_cycles'] for it in d['iterations'] for m in it['models'] for m2 in [m] for r in m['strategies']['runs'])")" = True ] \
    && ok || bad "a strategy beats the loop's best known time"

# a row naming a model this run does not have is said, not dropped silently
printf 'model,best_cycles\nzoo:nothere,5\n' > "$T/other.csv"
expect 0 "a reference row for another model" "$L" validate $M -q --reference "$T/other.csv"
expect_err "1 of 1 rows of .*other.csv name no model of this run" "the unused row is named"

printf 'model,best_cycles\n%s,-4\n' "$M" > "$T/bad.csv"
expect 2 "negative best" "$L" validate $M -q --reference "$T/bad.csv"
expect_err "bad.csv:2:[0-9]+: best_cycles" "the file, line and field"
expect 2 "missing reference" "$L" validate $M -q --reference "$T/none.csv"
expect_err "none.csv" "the missing file is named"
expect 2 "--reference with --measured" "$L" validate --measured "$T/ref.csv" --reference "$T/ref.csv"
finish
