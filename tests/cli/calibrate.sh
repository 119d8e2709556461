#!/usr/bin/env bash
# laysim calibrate / validate / loop end to end on the paper's small figures.
B="$1"; S="$2"; T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
pass=0; fail=0
ok() { if "$@"; then pass=$((pass+1)); else echo "FAIL: $*"; fail=$((fail+1)); fi; }
# microbenchmarks -> table, report and trace; the table loads back into the cost model
ok "$B" calibrate --microbench --write-microbench "$T/mb.lstrace" --report "$T/rep.json" -o "$T/t.json"
ok grep -q '"schema": "laysim-latency-table"' "$T/t.json"
ok grep -q '"r2"' "$T/rep.json"
ok "$B" problem "$S/examples/fig1.lg" --table "$T/t.json" -o "$T/f1.lsp"
# refitting the microbenchmark trace gives the same table
ok "$B" calibrate --traces "$T/mb.lstrace" -o "$T/t2.json"
ok cmp -s "$T/t.json" "$T/t2.json"
# the overlap-aware aggregation round-trips and the program price still equals the objective
ok "$B" calibrate --traces "$T/mb.lstrace" --aggregate max -o "$T/max.json"
ok grep -q '"aggregate": "max"' "$T/max.json"
ok grep -q '"group_ns"' "$T/max.json"
line=$("$B" compile "$S/examples/fig2.lg" --table "$T/max.json" -o "$T/f2.prog" 2>&1)
p=$(echo "$line" | sed -n 's/.*table price \([0-9]*\).*/\1/p'); o=$(echo "$line" | sed -n 's/.*objective \([0-9]*\)).*/\1/p')
ok test -n "$p" -a "$p" = "$o"
# traces with op attribution get the overlap-aware group fit; with 5 programs one is held
# out and compared with the prior and the per-instruction fit; --no-group-fit skips it
# (the whole memory plan: the programs, and so the verdicts below, as they were measured)
MP=(--memplan whole)
"$B" problem zoo:bert-base --layers 1 --seq 64 "${MP[@]}" -o "$T/b.lsp" >/dev/null
trs=()
for s in local greedy rulebased exact cfg0; do   # cfg0: no --layout, cfg 0 everywhere
    lay=()
    if [ "$s" != cfg0 ]; then
        "$B" solve "$T/b.lsp" --solver "$s" -o "$T/b_$s.sol" -q >/dev/null 2>&1
        lay=(--layout "$T/b_$s.sol")
    fi
    "$B" compile zoo:bert-base --layers 1 --seq 64 "${MP[@]}" "${lay[@]}" -o "$T/b_$s.prog" 2>/dev/null
    "$B" sim "$T/b_$s.prog" --trace "$T/b_$s.lstrace" >/dev/null
    trs+=(--traces "$T/b_$s.lstrace")
done
"$B" calibrate "${trs[@]}" -o "$T/g.json" --json > "$T/g.out"; ok test $? = 0
ok python3 -c "
import json; d=json.load(open('$T/g.out'))['group_fit']
assert d['done'] and d['fitted_traces']==4 and d['held_out_traces']==1 and d['groups']>0, d
assert d['base'] in ('prior','per-instruction') and d['scales'] in ('split','tied'), d
assert d['scales_chosen'] is True, d
assert d['serial_share_fitted'] is False, d
for k in ('held_out_median_rel_error_prior','held_out_median_rel_error_before','held_out_median_rel_error_after'): assert d[k] is not None, k"
ok python3 -c "
import json; d=json.load(open('$T/g.out')); g=d['group_fit']
worse = g['held_out_median_rel_error_after'] > g['held_out_median_rel_error_prior']
assert d['written'] == ('prior' if worse else 'fit'), d['written']
assert (json.load(open('$T/g.json'))['aggregate'] == 'max') == (d['written'] == 'fit')"
# a fit that predicts the held-out trace worse than its prior does not ship: on nc-v2
# itself the datasheet prior wins on this model's held-out program (4.9% against the
# fit's 6.4%), so calibrate writes the prior itself; --keep-worse writes the fit. On a
# core slower than nc-v2 (near bench/calib_hidden.sh's slow one) the fit wins (4.8%
# against the prior's 26.7%) and ships.
"$B" problem zoo:cnn --write-table "$T/datasheet.json" -o "$T/x.lsp" >/dev/null
"$B" calibrate "${trs[@]}" -o "$T/gp.json" > "$T/gp.out"; ok test $? = 0
ok grep -q 'the prior table is written instead' "$T/gp.out"
ok cmp -s "$T/gp.json" "$T/datasheet.json"
"$B" calibrate "${trs[@]}" --keep-worse -o "$T/gk.json" --json | python3 -c "
import json, sys; assert json.load(sys.stdin)['written'] == 'fit'"; ok test $? = 0
ok grep -q '"group_ns"' "$T/gk.json"
HIDE=(--set dma.bytes_per_ns=12 --set dma.desc_min_ns=220 --set dma.transfer_latency_ns=1300
      --set hbm.bytes_per_ns=300 --set vec.access_overhead=90 --set vec.static_overhead=160
      --set pool.start_cycles=250)
htrs=()
for s in local greedy rulebased exact cfg0; do
    "$B" sim "$T/b_$s.prog" "${HIDE[@]}" --trace "$T/h_$s.lstrace" >/dev/null
    htrs+=(--traces "$T/h_$s.lstrace")
done
"$B" calibrate "${htrs[@]}" -o "$T/h.json" > "$T/h.out"; ok test $? = 0
ok grep -q 'group fit (overlap-aware' "$T/h.out"
ok grep -q '"aggregate": "max"' "$T/h.json"
"$B" calibrate "${trs[@]}" -o "$T/g2.json" | grep -q 'group fit (overlap-aware'; ok test $? = 0
"$B" calibrate "${trs[@]}" --no-group-fit -o "$T/g3.json" | grep -q 'group fit: skipped'; ok test $? = 0
# --group-scales: entry keeps the per-entry form, tied the one pair of scales; anything
# else is a usage error
"$B" calibrate "${trs[@]}" --group-scales entry -o "$T/g5.json" | grep -q 'per-entry scales'; ok test $? = 0
"$B" calibrate "${trs[@]}" --group-scales tied -o "$T/g7.json" | grep -q 'tied scales, scaling'; ok test $? = 0
"$B" calibrate "${trs[@]}" --group-scales split -o "$T/g10.json" | grep -q 'split scales, scaling'; ok test $? = 0
# --serial-share fits the max table's serial_share; a sum table has none (usage error)
"$B" calibrate "${trs[@]}" --serial-share -o "$T/g8.json" | grep -q 'and serial share'; ok test $? = 0
ok python3 -c "import json; d=json.load(open('$T/g8.json')); assert 0 <= d.get('serial_share', 0) <= 1, d"
"$B" calibrate "${trs[@]}" --serial-share --aggregate sum -o "$T/g9.json" 2>/dev/null; ok test $? = 2
ok test ! -e "$T/g9.json"
# --aggregate pipe: a fitted pipe table (no group_ns); --issue-latency: one latency on the
# vector entries, named in the summary and the JSON report
"$B" calibrate "${trs[@]}" --aggregate pipe -o "$T/g11.json" >/dev/null; ok test $? = 0
ok python3 -c "import json; d=json.load(open('$T/g11.json')); assert d['aggregate']=='pipe' and 'group_ns' not in d, d"
"$B" calibrate "${trs[@]}" --issue-latency -o "$T/g12.json" | grep -q 'and issue latency'; ok test $? = 0
"$B" calibrate "${trs[@]}" --issue-latency -o "$T/g12.json" --json | python3 -c "
import json, sys; assert json.load(sys.stdin)['group_fit']['issue_latency_fitted'] is True"; ok test $? = 0
# --programs: the program each trace ran; the group fit then also fits the dependency
# latency (--no-dependency-fit keeps the table's); too few programs, or a program that is
# not the trace's (by instruction id and engine): exit 2, nothing written
prs=()
for s in local greedy rulebased exact cfg0; do prs+=(--programs "$T/b_$s.prog"); done
"$B" calibrate "${trs[@]}" "${prs[@]}" -o "$T/g14.json" --json | tee "$T/g14w.json" | python3 -c "
import json, sys; g = json.load(sys.stdin)['group_fit']
assert g['dependency_fitted'] is True and g['dependency']['dve'] >= 0, g"; ok test $? = 0
ok python3 -c "
import json; t = json.load(open('$T/g14.json')).get('dependency', {})
w = json.load(open('$T/g14w.json'))['group_fit']['dependency']
assert json.load(open('$T/g14w.json'))['written'] == 'prior' or abs(t.get('dve', 0) - w['dve']) < 1e-6, (t, w)"
"$B" calibrate "${trs[@]}" "${prs[@]}" --no-dependency-fit -o "$T/g17.json" --json | python3 -c "
import json, sys; g = json.load(sys.stdin)['group_fit']
assert g['dependency_fitted'] is False and g['dependency']['dve'] == 120, g"; ok test $? = 0
# a core whose DMA timings laysim does not know: one full-size program's trace gives them
# back (each shape's floor, costmodel/fit.c fit_dma), and back-to-back matmuls are sampled
# by occupancy, so the matmul entry has no latency (costmodel/fit_pipe.c)
"$B" problem zoo:bert-base -o "$T/hb.lsp" >/dev/null && "$B" solve "$T/hb.lsp" --solver greedy -o "$T/hb.sol" -q >/dev/null &&
"$B" compile zoo:bert-base --layout "$T/hb.sol" -o "$T/hb.prog" 2>/dev/null &&
"$B" sim "$T/hb.prog" --set dma.bytes_per_ns=11 --set dma.desc_min_ns=220 --set dma.transfer_latency_ns=1100 \
    --trace "$T/hb.lstrace" >/dev/null &&
"$B" calibrate --traces "$T/hb.lstrace" --no-group-fit -o "$T/hb.json" -q >/dev/null
ok test $? = 0
ok python3 -c "
import json; e = {(x['opcode'], x['dtype']): x for x in json.load(open('$T/hb.json'))['entries']}
d, m = e[('dma_copy', '*')], e[('matmul', '*')]
for k, want in (('fixed_ns', 1100), ('desc_min_ns', 220), ('bytes_per_ns', 11)):
    assert abs(d[k] - want) <= 0.01 * want, (k, d[k], want)
assert m['a'] < 1, m"
# without the group fit the gaps still give the dependency latency, and the table has it
"$B" calibrate "${trs[@]}" "${prs[@]}" --no-group-fit -o "$T/g22.json" --json | python3 -c "
import json, sys; g = json.load(sys.stdin)['group_fit']; t = json.load(open('$T/g22.json'))
assert g['done'] is False and isinstance(g['dependency_gaps'], int), g
assert abs(t['dependency']['dve'] - g['dependency']['dve']) < 1e-6, (t['dependency'], g)"
ok test $? = 0
"$B" calibrate "${trs[@]}" "${prs[@]:2}" -o "$T/g15.json" 2>/dev/null; ok test $? = 2
ok test ! -e "$T/g15.json"
"$B" calibrate --traces "$T/b_local.lstrace" --programs "$T/f2.prog" -o "$T/g16.json" 2>"$T/e16"
ok test $? = 2
ok grep -q 'not the program of trace' "$T/e16"
ok test ! -e "$T/g16.json"
"$B" calibrate "${trs[@]}" --aggregate mean -o "$T/g13.json" 2>/dev/null; ok test $? = 2
ok test ! -e "$T/g13.json"
"$B" calibrate "${trs[@]}" --group-scales both -o "$T/g6.json" 2>/dev/null; ok test $? = 2
# --dma-latency per-group: the table charges the DMA latency once per group (the key),
# with or without the group fit; an unknown rule is bad input
"$B" calibrate "${trs[@]}" --dma-latency per-group --keep-worse -o "$T/g18.json" >/dev/null; ok test $? = 0
ok test "$(jq '.dma_latency_per_group' "$T/g18.json")" != null
"$B" calibrate "${trs[@]}" --no-group-fit --dma-latency per-group -o "$T/g19.json" >/dev/null
ok test "$(jq '.dma_latency_per_group' "$T/g19.json")" = 1
"$B" calibrate "${trs[@]}" -o "$T/g20.json" >/dev/null; ok test "$(jq '.dma_latency_per_group' "$T/g20.json")" = null
"$B" calibrate "${trs[@]}" --dma-latency sometimes -o "$T/g21.json" 2>/dev/null; ok test $? = 2
ok test ! -e "$T/g21.json"
ok test ! -e "$T/g6.json"
# a trace without op attribution (the microbenchmarks) gets no group fit
"$B" calibrate --traces "$T/mb.lstrace" -o "$T/g4.json" | grep -q 'group fit: skipped'; ok test $? = 0
# validate: JSON with the paper's metrics
"$B" validate "$S/examples/fig1.lg" "$S/examples/fig2.lg" --json > "$T/v.json"; ok test $? = 0
ok python3 -c "
import json,sys; d=json.load(open('$T/v.json'))
assert 'pairwise_accuracy' in d and 'kendall_tau' in d and 'median_rel_error' in d
m=d['models'][0]; assert m['pairs']+m['pairs_identical']==6, m
assert len(m['strategies'])==4 and 'criterion' in m and 'attribution_exact' in m"
# loop: iterations with out-of-sample and in-sample figures
"$B" loop "$S/examples/fig1.lg" "$S/examples/fig2.lg" --iterations 1 --perturb 2 --json > "$T/l.json"; ok test $? = 0
ok python3 -c "
import json; d=json.load(open('$T/l.json')); it=d['iterations']
assert len(it)>=1
for k in ('pairwise_accuracy','kendall_tau','median_rel_error','in_sample_median_rel_error','lofo_median_rel_error',
          'frozen_strategies_pairwise_accuracy','lofo_strategies_pairwise_accuracy','lofo_strategies_pairs'): assert k in it[-1], k
assert it[-1]['frozen_strategies_pairs'] <= it[-1]['pairs'], it[-1]
assert it[0]['aggregate']=='pipe'
v=it[0]['verdict']   # the refit judged on the family each fold left out
assert set(v['candidates'])=={'keep','group_fit','share_only'}, v
assert all(c['pairs']==v['candidates']['keep']['pairs'] for c in v['candidates'].values()), v
if v['form']=='keep': assert len(it)==1 and d['final_iteration']==v['keep_iteration']==0, d
else: assert len(it)==2 and it[1]['aggregate']==('max' if v['form']=='group_fit' else 'pipe'), d"
# bad input: exit 2 with a message
"$B" calibrate -o "$T/x.json" >/dev/null 2>&1; ok test $? = 2
"$B" calibrate --traces "$T/nosuch.lstrace" -o "$T/x.json" >/dev/null 2>&1; ok test $? -ne 0
ok test ! -e "$T/x.json"
echo '{"schema":"laysim-latency-table","version":1,"aggregate":"max","entries":[]}' > "$T/bad.json"
"$B" validate "$S/examples/fig1.lg" --table "$T/bad.json" >/dev/null 2>&1; ok test $? = 2
"$B" loop >/dev/null 2>&1; ok test $? = 2
"$B" loop "$S/examples/fig1.lg" --aggregate avg >/dev/null 2>&1; ok test $? = 2
# the text table shows undefined figures as "-" (was nan) and says the fit is not kept
"$B" loop "$S/examples/fig1.lg" --iterations 1 --no-microbench > "$T/l.txt"; ok test $? = 0
ok test "$(grep -c nan "$T/l.txt")" = 0
ok grep -q 'fitted table is not kept: -o FILE' "$T/l.txt"
# --table is calibrate's name for the starting table; --prior still works, with a notice
"$B" calibrate --microbench --table "$T/t.json" -o "$T/t2.json" >/dev/null 2>"$T/e1"; ok test $? = 0
"$B" calibrate --microbench --prior "$T/t.json" -o "$T/t3.json" >/dev/null 2>"$T/e2"; ok test $? = 0
ok grep -q 'deprecated, say --table' "$T/e2"
ok cmp -s "$T/t2.json" "$T/t3.json"
# validate and loop draw a progress bar on a terminal (script gives them one), not with -q
if command -v script >/dev/null 2>&1; then
    script -qc "'$B' validate '$S/examples/fig1.lg' '$S/examples/fig2.lg' >/dev/null" /dev/null > "$T/pty1"
    ok grep -q 'validate .*1/2' "$T/pty1"
    script -qc "'$B' loop -q '$S/examples/fig1.lg' --iterations 1 >/dev/null" /dev/null > "$T/pty2"
    ok test ! -s "$T/pty2"
fi
# -o writes validate's results to a file (it was rejected); stdout stays empty
"$B" validate "$S/examples/fig1.lg" -q -o "$T/v.txt" > "$T/v.out"; ok test $? = 0
ok grep -q '^all: pairwise_accuracy=' "$T/v.txt"
ok test ! -s "$T/v.out"
"$B" validate "$S/examples/fig1.lg" -q --json -o "$T/v.json" >/dev/null; ok jq -e .pairwise_accuracy "$T/v.json"
# traces of two models: each is left out in turn and predicted by the fit of the other's
# traces beside the prior. Five forms compete; the prior with its exposed share measured
# on the other model's traces predicts each model best (10.9% against the datasheet's
# 13.4% on cg-12) and is written. A group fit of three tiny cnn programs predicts
# bert-base's far worse than the datasheet does, so with that form fixed calibrate writes
# the prior (--keep-worse: the fit). bert-base at --seq 128: at --seq 64 (the traces
# above) the datasheet predicts its cg-12 programs within 3%, and the share fitted on the
# cnn's traces misses them by 18%, so calibrate writes the prior there.
"$B" problem zoo:bert-base --layers 1 --seq 128 "${MP[@]}" -o "$T/b128.lsp" >/dev/null
mtr=()
for s in local greedy rulebased; do
    "$B" solve "$T/b128.lsp" --solver "$s" -o "$T/b128_$s.sol" -q >/dev/null 2>&1
    "$B" compile zoo:bert-base --layers 1 --seq 128 "${MP[@]}" --layout "$T/b128_$s.sol" \
        -o "$T/b128_$s.prog" 2>/dev/null
    "$B" sim "$T/b128_$s.prog" --trace "$T/b128_$s.lstrace" >/dev/null
    mtr+=(--traces "$T/b128_$s.lstrace")
done
"$B" problem zoo:cnn --image 32 -o "$T/c.lsp" >/dev/null
for s in local greedy exact; do
    "$B" solve "$T/c.lsp" --solver "$s" -o "$T/c_$s.sol" -q >/dev/null 2>&1
    "$B" compile zoo:cnn --image 32 --layout "$T/c_$s.sol" -o "$T/c_$s.prog" 2>/dev/null
    "$B" sim "$T/c_$s.prog" --trace "$T/c_$s.lstrace" >/dev/null
    mtr+=(--traces "$T/c_$s.lstrace")
done
"$B" calibrate "${mtr[@]}" -o "$T/m.json" --report "$T/m.rep" > "$T/m.out"; ok test $? = 0
ok grep -q 'models left out in turn (2' "$T/m.out"
ok python3 -c "
import json; d=json.load(open('$T/m.rep')); m=d['model_holdout']
assert [x['traces'] for x in m['models']] == [3, 3], m
worse = m['pairs_correct'] < m['pairs_correct_prior'] or (m['pairs_correct'] == m['pairs_correct_prior'] and
        m['mean_median_rel_error'] > m['mean_median_rel_error_prior'] * 1.001 + 1e-6)
assert not worse and m['better_than_prior'] is True and d['written'] == 'fit', (m, d['written'])
# two models of three programs each: three pairs each, ranked by both tables
assert m['pairs'] == 6 and 0 <= m['pairs_correct'] <= 6 and 0 <= m['pairs_correct_prior'] <= 6, m
f=d['form']; assert f['chosen_on_models_left_out'] is True, f
assert f['share_only'] is True and f['group_fit'] is False, f
# five forms compared (split, tied, tied with an issue latency, no group fit, the prior's
# share alone); the one kept ranks the most pairs right, then has the least error
c=f['candidates']; assert [x['form'][:16] for x in c] == ['group fit (split', 'group fit (tied ', 'group fit (tied ', 'no group fit, DM', 'the prior, its e'], c
assert ['issue latency' in x['form'] for x in c] == [False, False, True, False, False], c
assert sum(x['kept'] for x in c) == 1, c
k=[x for x in c if x['kept']][0]
assert k == max(c, key=lambda x: (x['pairs_correct'], -x['mean_median_rel_error'])), c
assert k['mean_median_rel_error'] == f['mean_median_rel_error'], (k, f)
assert f['other_mean_median_rel_error'] == min(x['mean_median_rel_error'] for x in c if not x['kept']), c
assert ('scales' in f) == f['group_fit'] == ('issue_latency' in f), f
assert f.get('issue_latency', False) == ('issue latency' in k['form']), (f, k)"
ok grep -q 'form chosen on the models left out' "$T/m.out"
# a flag of the form given: no choice
"$B" calibrate "${mtr[@]}" --no-group-fit -o "$T/mf.json" --report "$T/mf.rep" >/dev/null
ok test "$(jq -r .form.chosen_on_models_left_out "$T/mf.rep")" = false
ok test "$(jq -r '.form.candidates // "none"' "$T/mf.rep")" = none
ok python3 -c "
import json; t = json.load(open('$T/m.json')); d = json.load(open('$T/datasheet.json'))
assert t['entries'] == d['entries'] and 0 < t['exposed_share'] != d['exposed_share'], t"
"$B" calibrate "${mtr[@]}" --group-scales tied -o "$T/mt.json" --report "$T/mt.rep" >/dev/null
ok test "$(jq -r .written "$T/mt.rep")" = prior
ok cmp -s "$T/mt.json" "$T/datasheet.json"
"$B" calibrate "${mtr[@]}" --group-scales tied --keep-worse -o "$T/mk.json" --report "$T/mk.rep" >/dev/null
ok test "$(jq -r .written "$T/mk.rep")" = fit
"$B" calibrate "${mtr[@]}" --no-model-holdout -o "$T/mn.json" --report "$T/mn.rep" >/dev/null
ok test "$(jq -r 'has("model_holdout")' "$T/mn.rep")" = false
# no cap on the number of traces (70 here: the same five traces, fitted as given)
many=()
for k in $(seq 14); do many+=("${trs[@]}"); done
"$B" calibrate "${many[@]}" --no-model-holdout -o "$T/many.json" --report "$T/many.rep" >/dev/null
ok test "$(jq -r .group_fit.fitted_traces+.group_fit.held_out_traces "$T/many.rep")" = 70
echo "$pass passed, $fail failed"
test "$fail" = 0
