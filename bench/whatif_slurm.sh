#!/usr/bin/env bash
# A what-if sweep as a Slurm job array (issue 43): eight hardware variants of nc-v2 (PE
# array rows 64/128 x DMA bandwidth 8/17 B/ns x DMA transfer latency 700/2000 ns; the first is nc-v2 itself) over the
# quick models, one variant per array task, each recalibrated on its variant; merged, and
# the merged report checked to hold every variant. Brings a single-node cluster up with
# scripts/slurm-local.sh unless one answers already, and takes it down again if it did.
# Prints the wall time, the variants the merged report holds and per variant the exact
# strategy's simulated cycles summed over the models (whatif.csv's exact_sim_cycles).
#   bench/whatif_slurm.sh [-o DIR] [-n SHARDS] [BUILD]
# -o: keep the run in DIR (default a temporary directory, removed at the end);
# -n: array tasks (default 8, one per variant).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out="" shards=8
while getopts "o:n:h" o; do
    case $o in
        o) out=$OPTARG ;;
        n) shards=$OPTARG ;;
        *) sed -n '2,11p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $shards =~ ^[1-9][0-9]*$ ]] || { echo "whatif_slurm.sh: -n wants a positive count" >&2; exit 2; }
build=${1:-build}
L="$root/$build/laysim"
[ -x "$L" ] || L="$build/laysim"
[ -x "$L" ] || { echo "whatif_slurm.sh: no laysim binary in $build" >&2; exit 2; }
if [ -n "$out" ]; then W=$out; mkdir -p "$W"; else W=$(mktemp -d); fi
cluster=$W/cluster started=0
cleanup() {
    [ "$started" = 1 ] && "$root/scripts/slurm-local.sh" down --dir "$cluster" > /dev/null
    [ -n "$out" ] || rm -rf "$W"
}
trap cleanup EXIT
if ! sinfo -h > /dev/null 2>&1; then
    "$root/scripts/slurm-local.sh" up --dir "$cluster" > /dev/null
    started=1
    # shellcheck disable=SC1091 # written by slurm-local.sh up
    . "$cluster/env.sh"
fi
t0=$(date +%s)
"$root/scripts/slurm-study.sh" --out "$W/run" --shards "$shards" --laysim "$L" --force -q \
    whatif --set pe.rows=64,128 --set dma.bytes_per_ns=8,17 \
    --set dma.transfer_latency_ns=700,2000 --quick
t1=$(date +%s)
n=$(jq '[.targets[].label] | unique | length' "$W/run/merged/results.json")
echo "what-if over a $shards-task Slurm array: $((t1 - t0)) s wall; the merged report holds $n variants"
[ "$n" = 8 ] || { echo "whatif_slurm.sh: want 8 variants in the merged report" >&2; exit 1; }
csv=$W/run/merged/whatif.csv
if [ -f "$csv" ]; then
    python3 - "$csv" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1])))
tot = collections.OrderedDict()
for r in rows:
    if r["exact_sim_cycles"]:
        tot[r["target"]] = tot.get(r["target"], 0) + float(r["exact_sim_cycles"])
base = tot.get("nc-v2 pe.rows=128 dma.bytes_per_ns=17 dma.transfer_latency_ns=700")
for k, v in tot.items():
    rel = " (%.3fx nc-v2)" % (v / base) if base else ""
    print("  %-66s %12.0f cycles%s" % (k, v, rel))
PY
fi
