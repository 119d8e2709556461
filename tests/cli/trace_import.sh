#!/bin/bash
# CLI tests for `laysim trace import` of profiler formats (issue 18): the Neuron Explorer
# Instruction-table CSV and Chrome trace-event JSON fixtures, the import summary (text and
# --json: counts per drop reason, unmapped opcodes), exit 2 when nothing is usable or the
# clock is missing, option errors, and `laysim calibrate --traces` on imported traces: a
# simulator trace exported as JSON and imported again fits the same table.
# usage: trace_import.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/traces

expect 2 "neuron csv without a clock" "$LAYSIM" trace import "$D/neuron_instructions.csv" -o "$T/n.lstrace"
expect_err "neuron_instructions.csv:2:1: .*--clock-mhz" "no clock message"
expect_err "unmapped opcodes .*DRAIN 1 NOP 1" "summary before the error"
if [ ! -e "$T/n.lstrace" ]; then ok; else bad "a refused import left an output"; fi

expect 0 "neuron csv" "$LAYSIM" trace import "$D/neuron_instructions.csv" -o "$T/n.lstrace" --clock-mhz 1400
expect_err "imported 10 of 16 records .*format neuron-csv" "summary line"
for why in "bad_time \\(first at line 13\\)" "end_before_start \\(first at line 12\\)" zero_duration \
           unknown_engine no_opcode bad_field; do
    expect_err "dropped 1: $why" "reason $why"
done
expect 0 "neuron csv --json" "$LAYSIM" trace import "$D/neuron_instructions.csv" -o "$T/n.lstrace" \
    --clock-mhz 1400 --json
if [ "$(json "d['kept'], d['mapped'], d['dropped']['bad_time'], [u['opcode'] for u in d['unmapped_opcodes']]")" = \
     "(10, 8, 1, ['DRAIN', 'NOP'])" ]; then ok; else bad "import --json: $(cat "$T/out")"; fi
expect 0 "summary of the import" "$LAYSIM" trace "$T/n.lstrace" summary
if grep -q "matmul" "$T/out" && grep -q "dot.1" "$T/out"; then ok; else bad "summary lacks matmul / dot.1"; fi

expect 0 "chrome json" "$LAYSIM" trace import "$D/perfetto_trace.json" -o "$T/j.lstrace" --clock-mhz 1400 --json
if [ "$(json "d['format'], d['kept'], d['dropped']['not_a_slice'], d['dropped']['unknown_engine']")" = \
     "('chrome-json', 6, 2, 1)" ]; then ok; else bad "json import: $(cat "$T/out")"; fi
expect 0 "forced format" "$LAYSIM" trace import "$D/perfetto_trace.json" -o "$T/j.lstrace" --clock-mhz 1400 \
    --format chrome-json --time-unit us
expect 2 "forced wrong format" "$LAYSIM" trace import "$D/perfetto_trace.json" -o "$T/x.lstrace" \
    --clock-mhz 1400 --format neuron-csv

# nothing usable: exit 2 with the counts, on stdout with --json
printf 'start_ts,end_ts,engine,opcode\n5,4,tensor,MATMUL\n,9,tensor,MATMUL\n' >"$T/bad.csv"
expect 2 "nothing kept" "$LAYSIM" trace import "$T/bad.csv" -o "$T/bad.lstrace" --clock-mhz 1400 --json
if [ "$(json "d['kept'], d['dropped']['end_before_start'], d['dropped']['bad_time'], d['error'] is not None")" = \
     "(0, 1, 1, True)" ]; then ok; else bad "nothing kept --json: $(cat "$T/out")"; fi
expect_err "no record kept" "nothing kept message"
if [ ! -e "$T/bad.lstrace" ]; then ok; else bad "nothing kept left an output"; fi

# units and clocks
printf 'engine,opcode,start,end\nTensor,MATMUL,1.5,2.75\n' >"$T/us.csv"
expect 0 "time unit us" "$LAYSIM" trace import "$T/us.csv" -o "$T/us.lstrace" --time-unit us --clock-mhz 1400
expect 0 "csv of it" "$LAYSIM" trace "$T/us.lstrace" csv
if grep -q "^0,pe,matmul,1500,2750," "$T/out"; then ok; else bad "us -> ns: $(cat "$T/out")"; fi
expect 0 "per-engine clocks" "$LAYSIM" trace import "$T/us.csv" -o "$T/c.lstrace" --time-unit us \
    --clock-mhz 2800,1400,1120,1400,1400
expect 0 "csv of it" "$LAYSIM" trace "$T/c.lstrace" csv
if grep -q "clock_mhz=2800,1400,1120,1400,1400" "$T/out"; then ok; else bad "clocks not in header"; fi
printf 'engine,opcode,start,end\npe,matmul,100,228\n' >"$T/cyc.csv"
expect 0 "cycles" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/cyc.lstrace" --time-unit cycles --clock-mhz 1400
expect 0 "csv of it" "$LAYSIM" trace "$T/cyc.lstrace" csv
if grep -q "tick_hz=1400000000 " "$T/out"; then ok; else bad "cycles tick rate"; fi
expect 0 "tick-hz still works" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/cyc.lstrace" --tick-hz 1400000000 \
    --clock-mhz 1400
expect 2 "bad time unit" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/x.lstrace" --time-unit hours
expect 2 "bad clock" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/x.lstrace" --clock-mhz 0
expect 2 "three clocks" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/x.lstrace" --clock-mhz 1,2,3
expect 2 "bad format" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/x.lstrace" --format xml
expect 2 "tick-hz and time-unit" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/x.lstrace" --tick-hz 5 --time-unit ns
expect 2 "cycles without clock" "$LAYSIM" trace import "$T/cyc.csv" -o "$T/x.lstrace" --time-unit cycles

# calibrate from imported traces
expect 0 "calibrate from the neuron import" "$LAYSIM" calibrate --traces "$T/n.lstrace" -o "$T/t.json" -q
if grep -q "entries with samples fitted .* from 8 samples" "$T/out"; then ok; else bad "calibrate samples: $(head -1 "$T/out")"; fi
# the Instruction table's size columns: a DMA row's bytes, a vector row's free size and dtype
expect 0 "neuron csv with sizes" "$LAYSIM" trace import "$D/neuron_sizes.csv" -o "$T/ns.lstrace" \
    --clock-mhz 1400
expect_err "imported 6 of 7 records" "sizes summary"
expect 0 "sizes as csv" "$LAYSIM" trace "$T/ns.lstrace" csv -o "$T/ns.csv"
if grep -q "^6,dma,dma_copy,4400,5600,.*,hbm,sbuf,,1,0,0,1,65536,65536,copy.5," "$T/ns.csv" &&
   grep -q "^4,act,activation,.*,bf16,psum,sbuf,,128,512," "$T/ns.csv"; then ok
else bad "sizes not derived: $(cat "$T/ns.csv")"; fi
expect 0 "synth" "$LAYSIM" trace synth 3000 -o "$T/s.lstrace" --seed 4
expect 0 "perfetto" "$LAYSIM" trace "$T/s.lstrace" perfetto -o "$T/s.json"
expect 0 "import laysim's JSON" "$LAYSIM" trace import "$T/s.json" -o "$T/s2.lstrace"
# the synthetic trace names target "synthetic", not the table's nc-v2 (the imported copy
# names none): --ignore-mismatch
expect 0 "calibrate original" "$LAYSIM" calibrate --traces "$T/s.lstrace" -o "$T/t1.json" -q --ignore-mismatch
cp "$T/out" "$T/fit1"
expect 0 "calibrate imported" "$LAYSIM" calibrate --traces "$T/s2.lstrace" -o "$T/t2.json" -q
if diff <(sed 1d "$T/fit1") <(sed 1d "$T/out") >/dev/null; then ok; else bad "fits differ: $(diff "$T/fit1" "$T/out" | head -5)"; fi
finish
