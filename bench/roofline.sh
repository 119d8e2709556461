#!/usr/bin/env bash
# Roofline fraction of compiled zoo models (issue 16): for each model, exact's layouts at full
# size on a target, compiled and simulated; prints the simulated time, the roofline bound
# (costmodel/roofline: max of bf16 PE-peak time and minimum HBM bytes / hbm.bytes_per_ns),
# the fraction reached, the busy shares of PE and DMA, the memory plan and the share of
# engine time spent in layout conversions. CSV beside the table with -c FILE; with -p N,
# per model the N (op, engine) pairs of most summed instruction time, layer numbers folded
# (enc.l3.self.probs -> enc.l#.self.probs; conversions under their tensor's name), on stderr.
# With -s K, per model the wall span of every op and conversion of layer K (names with
# ".lK."), in us from the layer's first instruction, sorted by end: start, end, length,
# name, on stderr. Spans overlap (weights load ahead), so the ends read in order give the
# layer's critical chain (where the time between two ends goes).
# With -g N, per model the time no DMA is in flight (the gaps in the union of every DMA's
# span), summed by the op or conversion whose DMA ends each gap, layer numbers folded: the
# N largest and the total, on stderr (where loads wait for compute or for SBUF bytes).
# With -m MODE, problem and compile take --memplan MODE (partial, the default, or whole).
#   bench/roofline.sh [-b BUILD] [-t TARGET] [-m MODE] [-c OUT.csv] [-l SECONDS] [-p N] [-s K] [-g N] [MODEL...]
# Default models: bert-base vit-b16 whisper-enc resnet50; `all` = every zoo model.
set -euo pipefail
build=build target=nc-v2 csv='' limit=60 top=0 layer='' memplan=partial gaps=0
while getopts "b:t:m:c:l:p:s:g:h" o; do
    case $o in
    b) build=$OPTARG ;; t) target=$OPTARG ;; c) csv=$OPTARG ;; l) limit=$OPTARG ;; p) top=$OPTARG ;;
    s) layer=$OPTARG ;;
    g) gaps=$OPTARG ;;
    m) memplan=$OPTARG ;;
    *) sed -n '2,18p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
for n in "-l $limit" "-p $top" "-g $gaps"; do
    case ${n#* } in
    '' | *[!0-9]*) echo "bench/roofline.sh: ${n% *} takes a whole number, not '${n#* }'" >&2; exit 2 ;;
    esac
done
root=$(cd "$(dirname "$0")/.." && pwd)
L="$root/$build/laysim"
[ -x "$L" ] || { echo "bench/roofline.sh: no $L (make build first)" >&2; exit 2; }
models=("$@")
[ ${#models[@]} -eq 0 ] && models=(bert-base vit-b16 whisper-enc resnet50)
[ "${models[0]}" = all ] && mapfile -t models < <("$L" zoo | awk 'NR > 1 {print $1}')
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
row="model,sim_ms,bound_ms,bound_by,fraction,pe_busy,dma_busy,resident_tensors,spilled_tensors,conversion_share"
echo "$row" > "$tmp/out.csv"
printf '%-14s %10s %10s %5s %9s %7s %7s %9s %10s\n' model sim_ms bound_ms by fraction pe dma res/spill conv_share
for m in "${models[@]}"; do
    p="$tmp/$m"
    echo "  $m: problem, exact, compile, simulate..." >&2
    if ! { "$L" problem "zoo:$m" --target "$target" --memplan "$memplan" -o "$p.lsp" &&
           "$L" solve --solver exact --time-limit "$limit" "$p.lsp" -o "$p.sol" > /dev/null &&
           "$L" compile "zoo:$m" --target "$target" --memplan "$memplan" --layout "$p.sol" \
               -o "$p.prog" --json > "$p.c.json" &&
           "$L" sim "$p.prog" --target "$target" --json --trace "$p.lstrace" > "$p.s.json" &&
           "$L" trace "$p.lstrace" csv -o "$p.csv"; } 2> "$p.err"; then
        echo "$m: failed: $(tail -1 "$p.err")" >&2
        continue
    fi
    conv=$(awk -F, 'NR > 1 {d = $5 - $4; t += d; if ($19 != "") c += d} END {printf "%.4f", t ? c / t : 0}' "$p.csv")
    jq -r --arg m "$m" --arg conv "$conv" -s '
        .[0] as $c | .[1] as $s |
        [$m, ($s.ns / 1e6), ($c.roofline.bound_ns / 1e6), $c.roofline.bound_by,
         ($c.roofline.bound_ns / $s.ns), $s.engines.pe.utilization, $s.engines.dma.utilization,
         $c.memory_plan.resident_tensors, $c.memory_plan.spilled_tensors, ($conv | tonumber)]
        | @csv' "$p.c.json" "$p.s.json" | tr -d '"' | tee -a "$tmp/out.csv" |
        awk -F, '{printf "%-14s %10.3f %10.3f %5s %8.1f%% %6.1f%% %6.1f%% %4d/%-4d %9.1f%%\n",
                  $1, $2, $3, $4, 100 * $5, 100 * $6, 100 * $7, $8, $9, 100 * $10}'
    if [ "$top" -gt 0 ]; then
        echo "  $m: top $top (op, engine) by summed instruction time (us):" >&2
        awk -F, 'NR == 1 {match($0, /tick_hz=[0-9]+/); mhz = substr($0, RSTART + 8, RLENGTH - 8) / 1e6}
                 NR > 2 {n = $18 != "" ? $18 : $19; gsub(/\.l[0-9]+\./, ".l#.", n);
                         t[n " " $2] += ($5 - $4) / mhz}
                 END {for (k in t) printf "%12.0f  %s\n", t[k], k}' "$p.csv" |
            sort -rn | head -n "$top" >&2
    fi
    if [ -n "$layer" ]; then
        echo "  $m: layer $layer, wall span per op (us from its first instruction), by end:" >&2
        awk -F, -v pat=".l$layer." '
            NR == 1 {match($0, /tick_hz=[0-9]+/); mhz = substr($0, RSTART + 8, RLENGTH - 8) / 1e6}
            NR > 2 {n = $18 != "" ? $18 : $19; if (index(n, pat) == 0) next
                    if (!(n in s) || $4 < s[n]) s[n] = $4; if ($5 > e[n]) e[n] = $5
                    if (t0 == "" || $4 < t0) t0 = $4}
            END {for (n in s) printf "%9.1f %9.1f %8.1f  %s\n", (s[n] - t0) / mhz,
                                     (e[n] - t0) / mhz, (e[n] - s[n]) / mhz, n}' "$p.csv" |
            sort -k2,2n >&2
    fi
    if [ "$gaps" -gt 0 ]; then
        echo "  $m: time with no DMA in flight (us), by the op whose DMA ends the gap:" >&2
        awk -F, 'NR == 1 {match($0, /tick_hz=[0-9]+/); mhz = substr($0, RSTART + 8, RLENGTH - 8) / 1e6}
                 NR > 2 && $2 == "dma" {n = $18 != "" ? $18 : $19; gsub(/\.l[0-9]+\./, ".l#.", n)
                                        print $4, $5, n, mhz}' "$p.csv" | sort -n -k1,1 |
            awk '{if (NR > 1 && $1 > end) {g[$3] += ($1 - end) / $4; c[$3]++; tot += ($1 - end) / $4}
                  if (NR == 1 || $2 > end) end = $2}
                 END {for (n in g) printf "%10.1f  %4d gaps  %s\n", g[n], c[n], n
                      printf "%10.1f  total\n", tot}' | sort -rn | head -n "$((gaps + 1))" >&2
    fi
    rm -f "$p.prog" "$p.lstrace" "$p.csv"
done
[ -n "$csv" ] && cp "$tmp/out.csv" "$csv"
exit 0
