#!/usr/bin/env bash
# laysim study / whatif / merge: a tiny study writes its report and store; bad --set keys
# and values are rejected with exit 2 before anything runs; shards merge; the autotuner
# (mcts) cells are never slower than exact's; the HTML report renders in headless Chromium
# when /usr/bin/chromium exists.
# usage: bash tests/cli/study.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# a tiny study on two small models (a small autotuner budget keeps the test quick)
MCTS="--mcts-evaluations 24"
# shellcheck disable=SC2086
expect 0 "study" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --threads 2 $MCTS
for f in report.html report.md results.json results.sqlite cells.csv table1.csv calibrated-table.json; do
    if [ -s "$T/s/$f" ]; then ok; else bad "study did not write $f"; fi
done
if grep -q "Target nc-v2" "$T/out" && grep -q "whisper-enc" "$T/out"; then ok; else
    bad "terminal summary lacks the Table 1 analogue"; cat "$T/out"; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="study" and len(d["cells"])==22' "$T/s/results.json" 2>/dev/null; then ok; else
    bad "results.json is not the expected JSON"; fi
n=$(grep -c '<svg' "$T/s/report.html")
if [ "$n" -eq 7 ]; then ok; else bad "report.html has $n plots, want 7"; fi
if grep -q '^| Dense Transformers | whisper-enc' "$T/s/report.md"; then ok; else bad "report.md lacks Table 1"; fi
if command -v sqlite3 >/dev/null; then
    rows=$(sqlite3 "$T/s/results.sqlite" 'select count(*) from cells')
    if [ "$rows" -eq 22 ]; then ok; else bad "results.sqlite has $rows rows, want 22"; fi
fi

# the autotuner: an mcts cell per model and table, in Table 1 and its own section, never
# slower than exact's assignment it started from
if grep -q '^| Type | Model | Local | Greedy | Rule-Based | Exact | MCTS | Roofline | Exact reached | Exact busy % PE/ACT/DVE/POOL/DMA | Spread | Exact conversions | Scale |' "$T/s/report.md"; then ok; else
    bad "report.md Table 1 lacks the MCTS column"; fi
if grep -q '^### Autotuner (mcts)' "$T/s/report.md" && grep -q 'MCTS beat Exact by more than 0.5% on' "$T/s/report.md"; then ok; else
    bad "report.md lacks the autotuner section"; fi
if head -1 "$T/s/table1.csv" | grep -q ',exact,mcts,roofline_cycles,'; then ok; else bad "table1.csv lacks the mcts column"; fi
# the roofline: every model has a bound that Exact's simulated time does not beat, and the
# engines' busy shares, in table1.csv, results.json and the cells
if awk -F, 'NR > 1 { n++; if ($10 > 0 && $11 ~ /^(pe|hbm)$/ && $12 > 0 && $12 <= 1 && $13 > 0 && $17 > 0) ok++ }
            END { exit !(n == 4 && ok == 4) }' "$T/s/table1.csv"; then ok; else
    bad "table1.csv: roofline columns missing or out of range"; cat "$T/s/table1.csv"; fi
n=$(jq '[.targets[].models[] | (.datasheet, .calibrated) | .roofline
         | select(.cycles > 0 and .exact_fraction > 0 and .exact_fraction <= 1 and .exact_busy.pe > 0)] | length' "$T/s/results.json")
if [ "$n" = 4 ]; then ok; else bad "results.json has $n roofline objects, want 4"; fi
n=$(jq '[.cells[] | select(.strategy == "exact" and .roofline_cycles <= .sim_cycles and .busy.dma > 0)] | length' "$T/s/results.json")
if [ "$n" = 4 ]; then ok; else bad "results.json has $n exact cells with a roofline, want 4"; fi
if grep -q '^  mcts vs exact (calibrated table' "$T/out"; then ok; else bad "terminal summary lacks the mcts line"; fi
n=$(jq '[.cells[] | select(.strategy == "mcts" and .rc == 0 and .status == "feasible"
          and .budget == 24 and .evaluations >= 1 and .evaluations <= 24 and .sim_cycles > 0)] | length' "$T/s/results.json")
if [ "$n" = 4 ]; then ok; else bad "results.json has $n good mcts cells, want 4 (2 models x 2 tables)"; fi
# mcts <= exact for every model and table, from the per-model section and from the cells
n=$(jq '[.targets[].models[] | (.datasheet, .calibrated) | select(.mcts.sim_cycles != null
          and .exact.sim_cycles != null and .mcts.sim_cycles <= .exact.sim_cycles
          and .mcts.improvement_over_exact_pct >= 0)] | length' "$T/s/results.json")
if [ "$n" = 4 ]; then ok; else bad "mcts is slower than exact (or missing) on $((4 - n)) model/table pairs"; fi
n=$(jq '[.cells[] | select(.strategy == "exact" or .strategy == "mcts")]
        | group_by([.model, .target, .table])
        | map(select(length == 2 and (map(select(.strategy == "mcts"))[0].sim_cycles
                                      <= map(select(.strategy == "exact"))[0].sim_cycles)))
        | length' "$T/s/results.json")
if [ "$n" = 4 ]; then ok; else bad "cells: mcts sim_cycles > exact's on $((4 - n)) model/table pairs"; fi
if jq -e '.targets[0].autotuner.datasheet.models == 2 and .targets[0].autotuner.calibrated.models == 2
          and .targets[0].autotuner.datasheet.budget_max == 24' "$T/s/results.json" >/dev/null; then ok; else
    bad "results.json lacks the autotuner summary"; fi
# the paper's four stay the comparison set: relative performance is over them alone
if jq -e '[.targets[0].models[].datasheet | to_entries[] | select(.key != "mcts")
           | .value.relative_performance | select(. != null)] | all(. <= 100.0000001)' "$T/s/results.json" >/dev/null \
   && ! jq -e '.targets[0].models[0].datasheet.mcts | has("relative_performance")' "$T/s/results.json" >/dev/null; then ok; else
    bad "mcts leaked into the relative-performance set"; fi
if command -v sqlite3 >/dev/null; then
    n=$(sqlite3 "$T/s/results.sqlite" "select count(*) from cells c join cells e on e.model = c.model
          and e.target = c.target and e.tbl = c.tbl and e.strategy = 'exact'
          where c.strategy = 'mcts' and c.sim_cycles <= e.sim_cycles and c.tune_budget = 24")
    if [ "$n" = 4 ]; then ok; else bad "results.sqlite: $n mcts cells no slower than exact, want 4"; fi
fi

# --mcts-evaluations 0: no mcts cells (and no column or section); bad values exit 2
# the calibrated table is a latency table the other commands accept, and it prices the
# problem differently from the datasheet table
expect 0 "problem --table calibrated-table.json" "$LAYSIM" problem zoo:cnn --table "$T/s/calibrated-table.json" -o "$T/cal.lsp"
"$LAYSIM" problem zoo:cnn -o "$T/ds.lsp" 2>/dev/null
if ! cmp -s <(grep -v '^#' "$T/cal.lsp") <(grep -v '^#' "$T/ds.lsp"); then ok; else
    bad "the calibrated table prices like the datasheet table"; fi
expect 0 "study --mcts-evaluations 0" "$LAYSIM" study --models cnn --out "$T/z" --quiet --mcts-evaluations 0
if jq -e '(.cells | length) == 9 and ([.cells[] | select(.strategy == "mcts")] | length) == 0' "$T/z/results.json" >/dev/null; then ok; else
    bad "--mcts-evaluations 0 still wrote mcts cells"; fi
if ! grep -q 'MCTS\|Autotuner' "$T/z/report.md" && [ "$(head -1 "$T/z/table1.csv" | cut -d, -f1-9)" = "target,model,group,table,local,greedy,rulebased,exact,roofline_cycles" ]; then ok; else
    bad "--mcts-evaluations 0 still reports mcts"; fi
for v in -1 abc 1.5 ""; do
    expect 2 "study --mcts-evaluations '$v'" "$LAYSIM" study --models cnn --out "$T/bad" --mcts-evaluations "$v"
    expect_err "mcts-evaluations" "study --mcts-evaluations '$v'"
done
for v in -1 abc ""; do
    expect 2 "study --mcts-time-limit '$v'" "$LAYSIM" study --models cnn --out "$T/bad" --mcts-time-limit "$v"
    expect_err "mcts-time-limit" "study --mcts-time-limit '$v'"
done
# a time limit shorter than one simulation: the start (exact's assignment) is still scored,
# nothing else, and the cell shows 1 evaluation of its budget
expect 0 "study --mcts-time-limit 1e-9" "$LAYSIM" study --models cnn --out "$T/tl" --quiet --no-calibrate --mcts-time-limit 1e-9
if jq -e '[.cells[] | select(.strategy == "mcts")] | length == 1 and .[0].evaluations == 1 and .[0].budget == 1000' "$T/tl/results.json" >/dev/null &&
   jq -e '[.cells[] | select(.strategy == "mcts" or .strategy == "exact") | .sim_cycles] | .[0] == .[1]' "$T/tl/results.json" >/dev/null; then ok; else
    bad "a time-limited mcts cell: $(jq -c '[.cells[] | select(.strategy == "mcts")]' "$T/tl/results.json")"; fi

# --resume skips every cell already computed
# shellcheck disable=SC2086
: >"$T/s/cells.csv.tmp.Ab12Cd"   # what a study killed while writing would leave
: >"$T/s/mine.txt.tmp.Ab12Cd"    # not the study's: stays
expect 0 "study --resume" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --resume --quiet $MCTS
[ ! -e "$T/s/cells.csv.tmp.Ab12Cd" ] && [ -e "$T/s/mine.txt.tmp.Ab12Cd" ] && ok ||
    bad "--resume: stale temporaries of the study's outputs removed, others kept"
# shellcheck disable=SC2086
expect 0 "study --resume (summary)" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --resume $MCTS
if grep -q "0 run, 2 already in the store" "$T/out"; then ok; else bad "--resume recomputed cells"; cat "$T/out"; fi
# the mcts cells' simulated times are in the metric store: a job resumed without its mcts
# cells recomputes them from the store, simulating nothing, with the same results
if [ -s "$T/s/tune-metrics.sqlite" ] && command -v sqlite3 >/dev/null; then
    q="select model, tbl, sim_cycles, layouts from cells where strategy = 'mcts' order by 1, 2"
    before=$(sqlite3 "$T/s/results.sqlite" "$q")
    sqlite3 "$T/s/results.sqlite" "delete from cells where strategy = 'mcts'"
    # shellcheck disable=SC2086
    expect 0 "study --resume without mcts cells" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --resume --quiet $MCTS
    if [ "$(sqlite3 "$T/s/results.sqlite" "$q")" = "$before" ] && [ -n "$before" ] &&
       [ "$(sqlite3 "$T/s/results.sqlite" "select sum(tune_simulations), count(*) from cells where strategy = 'mcts'")" = "0|4" ]; then ok; else
        bad "resumed mcts cells: $(sqlite3 "$T/s/results.sqlite" "select model, tbl, tune_simulations from cells where strategy = 'mcts'")"; fi
elif command -v sqlite3 >/dev/null; then
    bad "the study wrote no tune-metrics.sqlite"
fi
# cells of bf16 auto-cast models are never mixed with fp32 ones: a resume with another
# --autocast is refused, the store untouched
# shellcheck disable=SC2086
expect 2 "study --resume --autocast none" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --resume --quiet --autocast none $MCTS
expect_err "run with --autocast matmul, not none" "resume with another autocast"
expect 2 "study --autocast bf16" "$LAYSIM" study --models cnn --out "$T/bad" --autocast bf16
expect_err "--autocast: expected none or matmul, got 'bf16'" "study --autocast message"

# bad input: exit 2, nothing written
for args in "--set pe.nosuch=1,2" "--set pe.rows=64,banana" "--set pe.rows=" "--set pe.rows=64,64" \
            "--set pe.rows=4096"; do
    # shellcheck disable=SC2086
    expect 2 "whatif $args" "$LAYSIM" whatif $args --models cnn --out "$T/bad"
    if [ ! -e "$T/bad" ]; then ok; else bad "whatif $args wrote $T/bad"; rm -rf "$T/bad"; fi
done
expect 2 "whatif without --set" "$LAYSIM" whatif --models cnn --out "$T/bad"
expect 2 "study --models bogus" "$LAYSIM" study --models bogus --out "$T/bad"
expect 2 "study --shard 3/2" "$LAYSIM" study --models cnn --shard 3/2 --out "$T/bad"
if [ ! -e "$T/bad" ]; then ok; else bad "a rejected command wrote its output"; fi

# whatif: the report states the decisions changed per model
expect 0 "whatif" "$LAYSIM" whatif --set pe.rows=64,128 --models cnn --out "$T/w" --quiet
# a DIR with results is never replaced silently: --resume or --force
expect 2 "whatif into a DIR with results" "$LAYSIM" whatif --set pe.rows=64,128 --models cnn --out "$T/w" --quiet
expect_err "already holds results: --resume continues that what-if, --force replaces it" "whatif: refuses to overwrite"
if grep -q "decisions changed" "$T/w/report.md" && grep -q "pe.rows=64" "$T/w/report.md"; then ok; else
    bad "whatif report lacks the decisions-changed table"; fi
if [ -s "$T/w/whatif.csv" ]; then ok; else bad "whatif.csv missing"; fi
# one calibrated table per target variant (the base and pe.rows=64 / 128)
if [ -s "$T/w/calibrated-table-1.json" ] && [ -s "$T/w/calibrated-table-2.json" ]; then ok; else
    bad "whatif did not write a calibrated table per target: $(ls "$T/w")"; fi
if jq -e '[.cells[] | select(.strategy == "mcts")] | length == 0' "$T/w/results.json" >/dev/null; then ok; else
    bad "whatif ran the autotuner without --mcts-evaluations"; fi

# shards + merge
# shellcheck disable=SC2086
expect 0 "shard 1/2" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/p1" --shard 1/2 --quiet $MCTS
# shellcheck disable=SC2086
expect 0 "shard 2/2" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/p2" --shard 2/2 --quiet $MCTS
expect 0 "merge" "$LAYSIM" merge --out "$T/m" "$T/p1" "$T/p2"
if [ -s "$T/m/report.html" ] && grep -q "whisper-enc" "$T/m/report.md" && grep -q "cnn" "$T/m/report.md"; then ok; else
    bad "merged report lacks a shard's model"; fi
if command -v sqlite3 >/dev/null; then
    q='select model,target,strategy,tbl,predicted,sim_cycles,conversions,status,layouts,
       tune_budget,tune_evaluations from cells order by 1,2,3,4'
    if [ "$(sqlite3 "$T/m/results.sqlite" "$q")" = "$(sqlite3 "$T/s/results.sqlite" "$q")" ]; then ok; else
        bad "merged shards differ from one run"; fi
    if [ "$(sqlite3 "$T/m/results.sqlite" "select count(*) from cells where strategy = 'mcts'")" = 4 ]; then ok; else
        bad "merged store lacks the mcts cells"; fi
    # a schema-1 store (before the autotuner columns) is read as is: merge never writes
    # into its inputs
    mkdir -p "$T/old"
    cp "$T/z/results.sqlite" "$T/old/results.sqlite"
    sqlite3 "$T/old/results.sqlite" "alter table cells drop column tune_budget;
        alter table cells drop column tune_evaluations; alter table cells drop column tune_simulations;
        alter table cells drop column roofline_cycles; alter table cells drop column roofline_by;
        alter table cells drop column busy_pe; alter table cells drop column busy_act;
        alter table cells drop column busy_dve; alter table cells drop column busy_pool;
        alter table cells drop column busy_dma; alter table cells drop column conv_share;
        update meta set value = '1' where key = 'schema'"
    expect 0 "merge of a schema-1 store" "$LAYSIM" merge --out "$T/m1" "$T/old" --quiet
    q='select model,strategy,tbl,sim_cycles,layouts from cells order by 1,2,3'
    if [ "$(sqlite3 "$T/m1/results.sqlite" "$q")" = "$(sqlite3 "$T/z/results.sqlite" "$q")" ] \
       && [ "$(sqlite3 "$T/old/results.sqlite" "select value from meta where key = 'schema'")" = 1 ] \
       && [ "$(sqlite3 "$T/m1/results.sqlite" "select value from meta where key = 'schema'")" = 4 ]; then ok; else
        bad "a schema-1 store did not load"; fi
    sqlite3 "$T/old/results.sqlite" "update meta set value = '99' where key = 'schema'"
    expect 2 "merge of a schema-99 store" "$LAYSIM" merge --out "$T/m99" "$T/old" --quiet
    expect_err "schema 99" "merge of a schema-99 store"
fi
expect 2 "merge of a missing store" "$LAYSIM" merge --out "$T/m2" "$T/nothing"

# headless Chromium renders every plot (skipped without Chromium)
if [ -x /usr/bin/chromium ]; then
    prof=$(mktemp -d)
    timeout 120 /usr/bin/chromium --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-background-networking --disable-component-update --disable-sync \
        --user-data-dir="$prof" --window-size=1200,3000 --screenshot="$T/shot.png" \
        "file://$T/s/report.html" >/dev/null 2>&1
    rm -rf "$prof"
    if [ -s "$T/shot.png" ]; then
        # not blank: the PNG holds more than one colour (python3 + zlib decode)
        if python3 - "$T/shot.png" <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
pos, idat, w, h = 8, b"", 0, 0
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h = struct.unpack(">II", body[:8])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
raw = zlib.decompress(idat)
stride = len(raw) // h
colours = set()
for y in range(0, h, 7):
    row = raw[y * stride + 1:(y + 1) * stride]
    for x in range(0, len(row) - 3, 4 * 11):
        colours.add(row[x:x + 3])
# text, axes, curves and heatmap cells: many distinct colours
sys.exit(0 if len(colours) > 20 else 1)
EOF
        then ok; else bad "the screenshot of report.html is blank"; fi
    else
        bad "headless chromium wrote no screenshot"
    fi
else
    echo "skip: /usr/bin/chromium not found (report screenshot)"
fi

# the summary names each failed or skipped cell and its reason (it gave only a count); a dp
# cell over its memory limit is an expected limit: skipped, not failed
expect 0 "study with a dp cell over its memory limit" "$LAYSIM" study --models cnn --autocast none --no-calibrate --mcts-evaluations 0 \
    --dp-mem-limit 1 --out "$T/fail"
expect_out() { if grep -Eq -- "$1" "$T/out"; then ok; else bad "$2: stdout lacks /$1/"; fi; }
expect_out "skipped: dp over its memory limit: cnn / dp / datasheet table: solver dp: .*dp.mem_limit" \
    "skipped cell listed"
expect_out "cells \(0 failed, 1 skipped: dp over its memory limit\)" "skipped, not failed"
finish
