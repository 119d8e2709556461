#!/bin/bash
# CLI tests for `laysim sim`: hand-computed cycle counts of tiny programs, JSON fields,
# microbenchmarks, --target/--set, bad programs and targets (exit 2 with a location),
# determinism of the output and of --trace files.
# usage: sim.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
P="$SRC/tests/data/prog"
source "$(dirname "$0")/lib.bash"
# field JQ-PATH: value in the last command's JSON output
field() { jq -r "$1" "$T/out"; }
expect_field() {
    local got
    got=$(field "$1")
    if [ "$got" = "$2" ]; then ok; else bad "$3: $1 = $got, want $2"; fi
}

expect 0 "help" "$LAYSIM" sim --help
expect 0 "help via laysim help" "$LAYSIM" help sim
expect 2 "no program" "$LAYSIM" sim
expect 2 "two programs" "$LAYSIM" sim "$P/tiny_pe.lsprog" "$P/tiny_dve.lsprog"
expect 2 "unknown option" "$LAYSIM" sim --bogus "$P/tiny_pe.lsprog"
expect 2 "missing file" "$LAYSIM" sim "$T/none.lsprog"

# Hand-computed (see the comments in the files).
expect 0 "tiny dve" "$LAYSIM" sim "$P/tiny_dve.lsprog" --json
expect_field .cycles 2560 "tiny dve"
expect_field .engines.dve.busy_cycles 2048 "tiny dve"
expect_field .engines.dve.instructions 1 "tiny dve"
expect_field .instructions 1 "tiny dve"
expect_field .tick_mhz 5600 "tiny dve"
expect 0 "tiny pe" "$LAYSIM" sim "$P/tiny_pe.lsprog" --json
expect_field .cycles 399 "tiny pe"
expect_field .engines.pe.busy_cycles 798 "tiny pe"
expect_field .engines.pe.span_cycles 798 "tiny pe"
expect_field .engines.pe.instructions 2 "tiny pe"
expect_field .ns 285 "tiny pe"
expect 0 "tiny dma" "$LAYSIM" sim "$P/tiny_dma.lsprog" --json
expect_field .cycles 2616 "tiny dma"
expect_field '.queues[0].descriptors' 128 "tiny dma"
expect_field '.queues[0].bytes' 262144 "tiny dma"
expect 0 "pipeline text" "$LAYSIM" sim "$P/pipeline.lsprog"
if grep -q "^total: " "$T/out" && grep -q "stalls (ns):" "$T/out"; then ok; else bad "text output"; fi
for k in act dve pool dma pe; do
    expect 0 "pipeline json $k" "$LAYSIM" sim "$P/pipeline.lsprog" --json
    expect_field ".engines.$k.instructions >= 1" true "pipeline engine $k"
done

# nc-v3: tiny pe is 798 PE cycles at 2.4 GHz = 399 base cycles at 1.2 GHz too
expect 0 "tiny pe v3" "$LAYSIM" sim "$P/tiny_pe.lsprog" --json --target nc-v3
expect_field .cycles 399 "tiny pe v3"
expect_field .tick_mhz 4800 "tiny pe v3"
expect_field .target nc-v3 "tiny pe v3"
# textbook mode: 2R + C + T - 2 = 894 PE cycles, LS and MM back to back
expect 0 "textbook" "$LAYSIM" sim "$P/tiny_pe.lsprog" --json --set pe.background_load=0
expect_field .engines.pe.span_cycles 894 "textbook fold"
expect 0 "set min ii" "$LAYSIM" sim "$P/tiny_dve.lsprog" --json --set vec.min_ii=4096
expect_field .engines.dve.busy_cycles 4096 "--set vec.min_ii"

# Targets from files; hashes
cat >"$T/v3.ini" <<'EOF'
[target]
base = nc-v3
EOF
expect 0 "print-target" "$LAYSIM" sim --print-target --target nc-v3
h3=$(sed -n 's/^hash=//p' "$T/out")
expect 0 "print-target file" "$LAYSIM" sim --print-target --target "$T/v3.ini"
h3f=$(sed -n 's/^hash=//p' "$T/out")
if [ -n "$h3" ] && [ "$h3" = "$h3f" ]; then ok; else bad "file with nc-v3 numbers hashes differently ($h3 vs $h3f)"; fi
if grep -q "^pe.rows=128$" "$T/out"; then ok; else bad "print-target lines"; fi
expect 0 "hash in json" "$LAYSIM" sim "$P/tiny_pe.lsprog" --json --target "$T/v3.ini"
expect_field .target_hash "$h3" "json target_hash"
printf '[pe]\nrows = 0\n' >"$T/bad.ini"
expect 2 "bad target value" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target "$T/bad.ini"
expect_err "bad.ini:2: .*pe.rows" "bad target names file:line and key"
printf '[pe]\nrows = 129\n' >"$T/bad3.ini"
expect 2 "inconsistent target file" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target "$T/bad3.ini"
expect_err "bad3.ini:2: pe.rows: 129 is greater than sbuf.partitions" "inconsistent file names key and line"
# lines of any length: a long comment is a comment, not a setting, and lines count true
printf '; %0197d rows = 64\n[pe]\nrows = 129\n' 0 >"$T/long.ini"
expect 2 "long comment line" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target "$T/long.ini"
expect_err "long.ini:3: pe.rows: 129" "long comment line: true line number"
printf '[pe]\n; %0300d\nrows = 128 ; %0300d\n' 0 0 >"$T/long2.ini"
expect 0 "long lines and an inline comment" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target "$T/long2.ini"
printf '[pe]\nrows = 64\n\0\n' >"$T/nul.ini"
expect 2 "NUL byte" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target "$T/nul.ini"
expect_err "nul.ini:3:1: NUL byte" "NUL byte: its line and column"
# bandwidths so small that derived times overflowed (negative ticks, exit 0) are refused
expect 2 "tiny DMA bandwidth" "$LAYSIM" sim --micro gemm:M=512,K=256,N=1024 --set dma.bytes_per_ns=1e-300
expect_err "dma.bytes_per_ns: 1e-300 is out of range" "tiny DMA bandwidth: names the key"
printf '[pe]\nrowz = 1\n' >"$T/bad2.ini"
expect 2 "unknown target key" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target "$T/bad2.ini"
expect_err "bad2.ini:2: .*pe.rowz: unknown target key \(valid pe keys: .*pe.cols, .*pe.rows\)" "unknown key"
expect 2 "--set pe.rowz" "$LAYSIM" sim "$P/tiny_pe.lsprog" --set pe.rowz=64
expect_err "pe.rowz: unknown target key \(valid pe keys: pe.background_load, pe.cols, .*pe.rows\)" "--set pe.rowz: the valid keys"
expect 2 "unknown builtin" "$LAYSIM" sim "$P/tiny_pe.lsprog" --target nc-v9
expect_err "nc-v9" "unknown target"
expect 2 "bad --set" "$LAYSIM" sim "$P/tiny_pe.lsprog" --set pe.rows=300
expect_err "pe.rows" "bad --set names key"
expect 2 "inconsistent --set" "$LAYSIM" sim "$P/tiny_pe.lsprog" --set sbuf.partitions=64
expect_err "pe.rows" "inconsistent combination names key"
expect 2 "clock LCM" "$LAYSIM" sim "$P/tiny_pe.lsprog" --set clock.pe_mhz=2801
expect_err "clock.pe_mhz" "LCM names clocks"

# Bad programs: exit 2 with file:line:col
for f in "$P"/bad/*.lsprog; do
    expect 2 "bad program $(basename "$f")" "$LAYSIM" sim "$f"
    expect_err "$(basename "$f"):[0-9]+:[0-9]+: " "location for $(basename "$f")"
done
expect 2 "psum overflow" "$LAYSIM" sim "$P/bad/psum_overflow.lsprog"
expect_err "psum_overflow.lsprog:4:1: instruction 1 'mm' \(pe matmul\): .*PSUM overflow" "psum overflow message"
expect 0 "dma transpose on v3" "$LAYSIM" sim "$P/bad/dma_transpose_v2.lsprog" --target nc-v3

# Microbenchmarks
expect 0 "micro gemm" "$LAYSIM" sim --micro gemm:M=512,K=256,N=1024,dtype=bf16 --json
expect_field .engines.pe.instructions 32 "gemm PE instructions"
expect_field '.micro' "gemm:M=512,K=256,N=1024,dtype=bf16" "gemm spec echoed"
expect 0 "micro dma" "$LAYSIM" sim --micro dma:bytes_per_partition=256,partitions=128,count=64 --json
expect_field '.engines.dma.efficiency > 0.09 and .engines.dma.efficiency < 0.12' true "dma 256B efficiency"
expect_field '.dma_descriptors.lt512.descriptors' 8192 "256 B chunks in the <512 B bucket"
expect_field '([.dma_descriptors[].bytes] | add) == .engines.dma.bytes' true "buckets hold every DMA byte"
expect 0 "micro dma 4k" "$LAYSIM" sim --micro dma:bytes_per_partition=4096,partitions=128,count=64 --json
expect_field '.engines.dma.efficiency >= 0.95' true "dma 4KiB efficiency"
expect_field '.dma_descriptors."2k_8k".descriptors' 8192 "4 KiB chunks in the 2-8 KiB bucket"
expect 0 "micro dve 128" "$LAYSIM" sim --micro dve:op=add,free=2048,partitions=128 --json
c128=$(field .cycles)
expect 0 "micro dve 4" "$LAYSIM" sim --micro dve:op=add,free=2048,partitions=4 --json
c4=$(field .cycles)
if [ "$c4" = "$c128" ] && [ "$c4" = 2560 ]; then ok; else bad "dve add on 4 vs 128 partitions: $c4 vs $c128"; fi
expect 0 "micro act" "$LAYSIM" sim --micro act:free=1,count=11 --json
expect_field '.cycles' "$((10 * 284 + 64))" "dependent ACT chain"
expect 2 "micro bad kind" "$LAYSIM" sim --micro warp:x=1
expect 2 "micro bad key" "$LAYSIM" sim --micro gemm:Q=1
expect_err "Q" "micro bad key named"
expect 2 "micro incomplete" "$LAYSIM" sim --micro gemm:M=512,K=256
expect_err "missing N=" "micro incomplete: the missing key named"
expect 2 "micro too big" "$LAYSIM" sim --micro gemm:M=8192,K=8192,N=8192
expect 2 "micro and program" "$LAYSIM" sim --micro dve:op=add "$P/tiny_pe.lsprog"

# Determinism: output and trace files
expect 0 "mix 1" "$LAYSIM" sim --micro mix:instructions=50000 --json --trace "$T/a.lstrace"
cp "$T/out" "$T/mix1.json"
expect 0 "mix 2" "$LAYSIM" sim --micro mix:instructions=50000 --json --trace "$T/b.lstrace"
if cmp -s "$T/out" "$T/mix1.json"; then ok; else bad "same program + target gave different JSON"; fi
if cmp -s "$T/a.lstrace" "$T/b.lstrace"; then ok; else bad "same program + target gave different traces"; fi
expect 0 "trace readable" "$LAYSIM" trace "$T/a.lstrace" check
if grep -Eq '"records": 500[0-9][0-9]' "$T/out"; then ok; else bad "trace record count: $(head -c 200 "$T/out")"; fi
expect 0 "trace with tags" "$LAYSIM" sim "$P/pipeline.lsprog" --trace "$T/p.lstrace"
expect 0 "trace csv" "$LAYSIM" trace "$T/p.lstrace" csv
if grep -q ',x,$' "$T/out" && grep -q ',x:T$' "$T/out"; then ok; else bad "op/conversion tags in trace"; fi
expect 2 "bad program leaves no trace" "$LAYSIM" sim "$P/bad/psum_overflow.lsprog" --trace "$T/z.lstrace"
if [ ! -e "$T/z.lstrace" ]; then ok; else bad "half-written trace left behind"; fi

# -o writes the results to a file (it was rejected), atomically; a failed run writes none
expect 0 "sim -o" "$LAYSIM" sim "$P/tiny_pe.lsprog" --json -o "$T/r.json"
[ ! -s "$T/out" ] && jq -e .cycles "$T/r.json" >/dev/null && ok || bad "sim -o: the JSON in the file"
expect 2 "sim -o on a bad target" "$LAYSIM" sim "$P/tiny_pe.lsprog" --set pe.rows=0 -o "$T/r2.json"
[ ! -e "$T/r2.json" ] && ok || bad "sim -o: a failed run left a file"
finish
