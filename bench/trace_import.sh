#!/usr/bin/env bash
# bench/trace_import.sh: `laysim trace import` speed and memory on generated profiles of
# 1 M and 10 M records in two formats: the CSV export of a Neuron Explorer Instruction
# table and Chrome/Perfetto trace-event JSON. Not run by CI (it writes a few GB to $TMPDIR).
# Usage: bench/trace_import.sh [LAYSIM] [SIZES] [FORMATS]
#   SIZES default "1000000 10000000", FORMATS default "neuron-csv chrome-json"
# Prints one line per run (format, records, wall seconds, CPU seconds (user + sys), peak RSS,
# all from /usr/bin/time -v, and the machine's load average), then one JSON object last,
# with the issue-18 bar: 10 M records <= 30 s and RSS(10 M) <= 1.1 x RSS(1 M) per format.
# On a shared machine the wall time follows the load: compare CPU seconds too.
set -euo pipefail
laysim=${1:-build/laysim}
sizes=${2:-"1000000 10000000"}
formats=${3:-"neuron-csv chrome-json"}
[ -x "$laysim" ] || { echo "bench/trace_import.sh: no laysim binary at $laysim" >&2; exit 2; }
[ -x /usr/bin/time ] || { echo "bench/trace_import.sh: needs /usr/bin/time" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Rows shaped like a tiled matmul pipeline: engines in turn, a few opcodes the table does
# not know (DRAIN, NOP), op names from a small set, and the size columns the import derives
# memories, dtype, free size and DMA bytes from (sbuf read/write bytes, tensor_elements,
# raw and adjusted FLOPs).
gen_csv() {
  awk -v n="$1" 'BEGIN {
    split("tensor tensor vector scalar gpsimd qSyncIO0", eng, " ");
    split("TensorMatrix TensorMatrix Vector Scalar GpSimd qSyncIO0", trk, " ");
    split("LDWEIGHTS MATMUL TENSOR_TENSOR ACTIVATE TENSOR_SCALAR DMA", opc, " ");
    print "start_ts,end_ts,duration_ns,engine,timeline_track,opcode,operands,id,pc,hlo_name,evt_wait_time_ns,sbuf_read_bytes,sbuf_write_bytes,tensor_elements,raw_flops,adjusted_flops";
    t = 0;
    for (i = 0; i < n; i++) {
      k = i % 6 + 1; d = 20 + (i * 7) % 300; op = opc[k];
      if (i % 97 == 0) op = "DRAIN";
      e = 128 * d;
      printf "%d,%d,%d,%s,%s,%s,\"size=%d\",%d,%d,dot.%d,%d,%d,%d,%d,%d,%d\n", t, t + d, d, eng[k], trk[k], op, d, i, i, i % 50, i % 13, 2 * e, 2 * e, e, 256 * e, 256 * e;
      t += 11;
    }
  }' > "$2"
}

gen_json() {
  awk -v n="$1" 'BEGIN {
    split("pe pe dve act pool dma q0", trk, " ");
    split("LDWEIGHTS MATMUL TENSOR_TENSOR ACTIVATE TENSOR_SCALAR DMA", opc, " ");
    printf "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    for (k = 1; k <= 6; k++)
      printf "{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"%s\"}},\n", k, (k == 6 ? "dma q0" : trk[k]);
    t = 0;
    for (i = 0; i < n; i++) {
      k = i % 6 + 1; d = 20 + (i * 7) % 300; op = opc[k];
      if (i % 97 == 0) op = "DRAIN";
      printf "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":\"%s\",\"args\":{\"op\":\"dot.%d\",\"partitions\":128,\"free_size\":%d}}\n", (i ? "," : ""), k, t / 1000, d / 1000, op, i % 50, d;
      t += 11;
    }
    printf "]}\n";
  }' > "$2"
}

results=()
printf '%-12s %10s %9s %9s %10s %6s %s\n' format records seconds cpu_s peakMiB load status
for fmt in $formats; do
  for n in $sizes; do
    in="$tmp/p.$n"
    if [ "$fmt" = neuron-csv ]; then gen_csv "$n" "$in"; else gen_json "$n" "$in"; fi
    tv="$tmp/time.txt"
    set +e
    /usr/bin/time -v -o "$tv" "$laysim" trace import "$in" -o "$tmp/out.lstrace" \
      --clock-mhz 1400 --json >"$tmp/sum.json" 2>"$tmp/err"
    rc=$?
    set -e
    secs=$(awk -F': ' '/Elapsed \(wall clock\)/ { n = split($2, a, ":"); s = 0;
             for (i = 1; i <= n; i++) s = s * 60 + a[i]; print s }' "$tv")
    kib=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$tv")
    cpu=$(awk -F': ' '/User time|System time/ { s += $2 } END { printf "%.2f", s }' "$tv")
    load=$(cut -d' ' -f1 /proc/loadavg)
    kept=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["kept"])' "$tmp/sum.json" 2>/dev/null || echo 0)
    printf '%-12s %10s %9s %9s %10.1f %6s %s\n' "$fmt" "$n" "$secs" "$cpu" "$(echo "$kib / 1024" | bc -l)" "$load" \
      "$([ $rc = 0 ] && echo "ok, kept $kept" || echo "exit $rc: $(head -c 200 "$tmp/err")")"
    results+=("{\"format\": \"$fmt\", \"records\": $n, \"seconds\": $secs, \"cpu_seconds\": $cpu, \"peak_rss_kib\": $kib, \"load\": $load, \"kept\": $kept, \"exit\": $rc}")
    rm -f "$in" "$tmp/out.lstrace"
  done
done
python3 - "${results[@]}" <<'PY'
import json, sys
runs = [json.loads(a) for a in sys.argv[1:]]
bar = {}
for fmt in sorted({r["format"] for r in runs}):
    rs = {r["records"]: r for r in runs if r["format"] == fmt}
    if 1000000 in rs and 10000000 in rs:
        big, small = rs[10000000], rs[1000000]
        bar[fmt] = {"seconds_10m": big["seconds"], "cpu_seconds_10m": big["cpu_seconds"],
                    "rss_ratio": round(big["peak_rss_kib"] / small["peak_rss_kib"], 3),
                    "ok": big["exit"] == 0 and big["seconds"] <= 30 and big["peak_rss_kib"] <= 1.1 * small["peak_rss_kib"]}
print(json.dumps({"runs": runs, "bar": bar}))
PY
