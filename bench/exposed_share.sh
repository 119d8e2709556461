#!/usr/bin/env bash
# The datasheet table's exposed_share (costmodel/costmodel.h CM_EXPOSED_SHARE_DEFAULT,
# docs/costmodel.md): the share of its ops' prices that programs expose once layout
# conversions are charged in full. For each model of `laysim study --quick` at its quick
# scale (as the study lists them) and each strategy (local, greedy, rulebased, exact): solve
# and compile under the datasheet table with every group charged in full (exposed_share 1),
# simulate, and take (simulated - conversions' price) / ops' price; prints every program's
# figures and their median, the share.
#   bench/exposed_share.sh [-t TARGET] [BUILD]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
target=nc-v2
while getopts "t:h" o; do
    case $o in
        t) target=$OPTARG ;;
        *) sed -n '2,9p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
L="$root/${1:-build}/laysim"
[ -x "$L" ] || { echo "exposed_share.sh: no laysim binary at $L" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$L" problem zoo:cnn --target "$target" --write-table "$W/ds.json" -q -o /dev/null
jq '.exposed_share = 1' "$W/ds.json" >"$W/full.json"
# the quick study's models at their quick scales, as the study itself lists them (its
# cells; a run without calibration or tuning takes about a second)
"$L" study --quick --no-calibrate --mcts-evaluations 0 --target "$target" --force -q \
    --out "$W/study" >/dev/null
mapfile -t models < <(python3 -c '
import csv, sys
seen = []
for r in csv.DictReader(open(sys.argv[1])):
    spec = (r["model"] + " " + r["scale"]).strip()
    if spec not in seen:
        seen.append(spec)
print("\n".join(seen))' "$W/study/cells.csv")
printf '%-12s %-10s %12s %12s %12s %8s\n' model strategy ops_price conv_price simulated share
for spec in "${models[@]}"; do
    read -r m flags <<<"$spec"
    for s in local greedy rulebased exact; do
        f="$W/$m.$s"
        # shellcheck disable=SC2086 # flags: the scale options
        "$L" solve "zoo:$m" $flags --target "$target" --table "$W/full.json" --solver "$s" \
            -o "$f.sol" -q
        # shellcheck disable=SC2086
        "$L" compile "zoo:$m" $flags --target "$target" --table "$W/full.json" \
            --layout "$f.sol" -o "$f.prog" --json -q >"$f.json"
        sim=$("$L" sim "$f.prog" --target "$target" --json | jq '.cycles')
        jq -r --arg m "$m" --arg s "$s" --argjson sim "$sim" \
            '(.table_price - .table_price_conversions) as $ops |
             "\($m) \($s) \($ops) \(.table_price_conversions) \($sim) \(($sim - .table_price_conversions) / $ops)"' \
            "$f.json"
    done
done | tee "$W/rows" | awk '{printf "%-12s %-10s %12d %12d %12d %8.4f\n", $1, $2, $3, $4, $5, $6}'
sort -g -k6 "$W/rows" | awk '{v[NR] = $6} END {
    m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
    printf "exposed_share (median of %d programs): %.4f\n", NR, m }'
