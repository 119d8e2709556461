#!/bin/bash
# CLI tests for `laysim trace`: usage errors, damaged traces (exit 2 with a byte offset or
# block number), summary text and JSON, Perfetto and CSV export, CSV import, and - when the
# simulator can write traces - `laysim sim ... --trace` followed by a summary.
# usage: trace.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

expect 0 "help" "$LAYSIM" trace --help
expect 2 "no arguments" "$LAYSIM" trace
expect 2 "no action" "$LAYSIM" trace x.lstrace
expect 2 "unknown action" "$LAYSIM" trace x.lstrace frobnicate
expect 2 "perfetto without -o" "$LAYSIM" trace x.lstrace perfetto
expect 2 "unknown option" "$LAYSIM" trace x.lstrace summary --bogus
expect 2 "missing file" "$LAYSIM" trace "$T/none.lstrace" summary

expect 0 "synth" "$LAYSIM" trace synth 5000 -o "$T/s.lstrace" --seed 3
digest=$(sed -n 's/.*"digest": "\([0-9a-f]*\)".*/\1/p' "$T/out")
expect 0 "check" "$LAYSIM" trace "$T/s.lstrace" check
if grep -q "\"records\": 5000" "$T/out" && grep -q "\"digest\": \"$digest\"" "$T/out"; then ok; else bad "check digest/count"; fi
expect 0 "check from stdin" bash -c "\"$LAYSIM\" trace - check < \"$T/s.lstrace\""

expect 0 "summary" "$LAYSIM" trace "$T/s.lstrace" summary
for word in "records 5000" "multiply_moving" "stall causes" "top operators" "synth_op"; do
    if grep -q "$word" "$T/out"; then ok; else bad "summary text lacks '$word'"; fi
done
expect 0 "summary --json" "$LAYSIM" trace "$T/s.lstrace" summary --json --top 3
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['records']==5000; \
assert d['engines']['pe']['instructions']>0; assert len(d['top_ops'])==3" "$T/out" 2>"$T/err"; then ok
else bad "summary JSON: $(cat "$T/err")"; fi

expect 0 "perfetto" "$LAYSIM" trace "$T/s.lstrace" perfetto -o "$T/s.json"
if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); \
names={e['args']['name'] for e in d['traceEvents'] if e.get('name')=='thread_name'}; \
assert {'pe','act','dve'} <= names, names; assert 'pool' not in names; \
assert sum(1 for n in names if n.startswith('dma q'))==16, names" "$T/s.json" 2>"$T/err"; then ok
else bad "perfetto tracks: $(cat "$T/err")"; fi

expect 0 "csv" "$LAYSIM" trace "$T/s.lstrace" csv -o "$T/s.csv"
if [ "$(grep -vc '^#' "$T/s.csv")" -eq 5001 ]; then ok; else bad "csv rows"; fi
expect 0 "import" "$LAYSIM" trace import "$T/s.csv" -o "$T/i.lstrace"
expect 0 "csv of import" "$LAYSIM" trace "$T/i.lstrace" csv -o "$T/i.csv"
if diff <(sed 1d "$T/s.csv") <(sed 1d "$T/i.csv") >/dev/null; then ok; else bad "import round trip differs"; fi
printf 'engine,opcode,start,end\npe,mm,1,2\nwarp,mm,3,4\n' >"$T/bad.csv"
expect 2 "import bad engine" "$LAYSIM" trace import "$T/bad.csv" -o "$T/bad.lstrace"
expect_err "bad.csv:3:1: engine" "import error location"
if [ ! -e "$T/bad.lstrace" ]; then ok; else bad "failed import left an output"; fi

# Damaged traces: exit 2, a location, no output file.
size=$(stat -c %s "$T/s.lstrace")
: >"$T/empty.lstrace"
expect 2 "empty" "$LAYSIM" trace "$T/empty.lstrace" summary
expect_err "byte offset 0" "empty file message"
head -c $((size / 2)) "$T/s.lstrace" >"$T/trunc.lstrace"
expect 2 "truncated" "$LAYSIM" trace "$T/trunc.lstrace" summary
expect_err "block [0-9]+|byte offset [0-9]+" "truncated message"
expect 2 "truncated perfetto" "$LAYSIM" trace "$T/trunc.lstrace" perfetto -o "$T/trunc.json"
if [ ! -e "$T/trunc.json" ]; then ok; else bad "perfetto of a truncated trace left an output"; fi
cp "$T/s.lstrace" "$T/flip.lstrace"
printf '\xff' | dd of="$T/flip.lstrace" bs=1 seek=$((size / 2)) conv=notrunc status=none
expect 2 "flipped byte" "$LAYSIM" trace "$T/flip.lstrace" check
expect_err "block [0-9]+ \(byte offset [0-9]+\)" "flipped byte message"
printf 'NOTATRACE-------' >"$T/magic.lstrace"
expect 2 "wrong magic" "$LAYSIM" trace "$T/magic.lstrace" summary
expect_err "wrong magic" "wrong magic message"
cp "$T/s.lstrace" "$T/newer.lstrace"
printf '\x09' | dd of="$T/newer.lstrace" bs=1 seek=8 conv=notrunc status=none
expect 2 "newer version" "$LAYSIM" trace "$T/newer.lstrace" summary
expect_err "version 9 is newer" "newer version message"

# The simulator's traces, once `laysim sim` can write them.
if "$LAYSIM" sim --help 2>/dev/null | grep -q -- "--trace"; then
    if "$LAYSIM" sim --micro gemm:M=256,K=256,N=512,dtype=bf16 --trace "$T/sim.lstrace" \
        >"$T/out" 2>"$T/err"; then
        ok
        expect 0 "summary of a simulated trace" "$LAYSIM" trace "$T/sim.lstrace" summary --json
        if python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['producer']=='sim'; \
assert d['engines']['pe']['instructions']>0 and d['engines']['dma']['instructions']>0" "$T/out" 2>"$T/err"
        then ok; else bad "simulated trace summary: $(cat "$T/err")"; fi
        # The trace's per-engine busy time (the union of its instructions) is the simulator's own
        # busy_cycles: one name, one quantity.
        "$LAYSIM" sim --micro gemm:M=256,K=256,N=512,dtype=bf16 --json >"$T/simj" 2>"$T/err"
        if python3 -c "import json,sys; s=json.load(open(sys.argv[1]))['engines']; \
t=json.load(open(sys.argv[2]))['engines']; \
bad=[e for e in s if abs(s[e]['busy_cycles']-t[e].get('busy_cycles',0))>1]; assert not bad, bad" \
            "$T/simj" "$T/out" 2>"$T/err"; then ok; else bad "sim busy_cycles vs trace: $(cat "$T/err")"; fi
        expect 0 "perfetto of a simulated trace" "$LAYSIM" trace "$T/sim.lstrace" perfetto -o "$T/sim.json"
        if python3 -c "import json,sys; json.load(open(sys.argv[1]))" "$T/sim.json"; then ok; else bad "sim perfetto JSON"; fi
    else
        bad "laysim sim --micro gemm --trace: $(head -c 300 "$T/err")"
    fi
else
    echo "note: laysim sim has no --trace yet; simulator trace checks skipped"
fi

# summary -o writes the file (it was ignored: exit 0, no file); check takes no -o
expect 0 "summary -o" "$LAYSIM" trace "$T/s.lstrace" summary -o "$T/s.txt"
grep -q '^records ' "$T/s.txt" && ok || bad "summary -o: the text in the file"
[ ! -s "$T/out" ] && ok || bad "summary -o: nothing on stdout"
expect 0 "summary --json -o" "$LAYSIM" trace "$T/s.lstrace" summary --json -o "$T/s.json"
jq -e .records "$T/s.json" >/dev/null && ok || bad "summary --json -o: JSON in the file"
expect 2 "check -o" "$LAYSIM" trace "$T/s.lstrace" check -o "$T/c.txt"
finish
