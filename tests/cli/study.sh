#!/usr/bin/env bash
# laysim study / whatif / merge: a tiny study writes its report and store; bad --set keys
# and values are rejected with exit 2 before anything runs; shards merge; the HTML report
# renders in headless Chromium when /usr/bin/chromium exists.
# usage: bash tests/cli/study.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# a tiny study on two small models
expect 0 "study" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --jobs 2
for f in report.html report.md results.json results.sqlite cells.csv table1.csv; do
    if [ -s "$T/s/$f" ]; then ok; else bad "study did not write $f"; fi
done
if grep -q "Target nc-v2" "$T/out" && grep -q "whisper-enc" "$T/out"; then ok; else
    bad "terminal summary lacks the Table 1 analogue"; cat "$T/out"; fi
if python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["kind"]=="study" and len(d["cells"])==18' "$T/s/results.json" 2>/dev/null; then ok; else
    bad "results.json is not the expected JSON"; fi
n=$(grep -c '<svg' "$T/s/report.html")
if [ "$n" -eq 7 ]; then ok; else bad "report.html has $n plots, want 7"; fi
if grep -q '^| Dense Transformers | whisper-enc' "$T/s/report.md"; then ok; else bad "report.md lacks Table 1"; fi
if command -v sqlite3 >/dev/null; then
    rows=$(sqlite3 "$T/s/results.sqlite" 'select count(*) from cells')
    if [ "$rows" -eq 18 ]; then ok; else bad "results.sqlite has $rows rows, want 18"; fi
fi
# --resume skips every cell already computed
expect 0 "study --resume" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --resume --quiet
expect 0 "study --resume (summary)" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/s" --resume
if grep -q "0 run, 2 already in the store" "$T/out"; then ok; else bad "--resume recomputed cells"; cat "$T/out"; fi

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
if grep -q "decisions changed" "$T/w/report.md" && grep -q "pe.rows=64" "$T/w/report.md"; then ok; else
    bad "whatif report lacks the decisions-changed table"; fi
if [ -s "$T/w/whatif.csv" ]; then ok; else bad "whatif.csv missing"; fi

# shards + merge
expect 0 "shard 1/2" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/p1" --shard 1/2 --quiet
expect 0 "shard 2/2" "$LAYSIM" study --models cnn,whisper-enc:quick --out "$T/p2" --shard 2/2 --quiet
expect 0 "merge" "$LAYSIM" merge --out "$T/m" "$T/p1" "$T/p2"
if [ -s "$T/m/report.html" ] && grep -q "whisper-enc" "$T/m/report.md" && grep -q "cnn" "$T/m/report.md"; then ok; else
    bad "merged report lacks a shard's model"; fi
if command -v sqlite3 >/dev/null; then
    q='select model,target,strategy,tbl,predicted,sim_cycles,conversions,status,layouts from cells order by 1,2,3,4'
    if [ "$(sqlite3 "$T/m/results.sqlite" "$q")" = "$(sqlite3 "$T/s/results.sqlite" "$q")" ]; then ok; else
        bad "merged shards differ from one run"; fi
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

finish
