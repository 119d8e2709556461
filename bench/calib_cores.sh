#!/usr/bin/env bash
# Issue 18's bar on several hidden cores at once: bench/calib_hidden.sh (12 traces of
# bert-base, resnet50, whisper-enc run on a core whose timings laysim does not know, fitted
# with the default `laysim calibrate`, validated on vit-b16, bart-base, musicgen, olmo-7b)
# for each core below, one line per core: the written table (fit or prior), the datasheet's
# and the written table's median error and pairs on the unseen models, and whether the bar
# holds (<= 10%, at most half the datasheet's, >= 90% of pairs), and exact's worst regret on the
# unseen models under each table (its simulated time over the best of every strategy under
# both, minus one). CSV beside it with -c FILE.
#   bench/calib_cores.sh [-b BUILD] [-f csv|json] [-c OUT.csv] [-r N [-s SEED]] [CORE...]
# Cores: slow fast mixed vecslow peslow (default: all five; docs/history.md), or with -r
# N cores drawn at random by bench/random_cores.py (seed -s, default 1; every timing key and
# clock redrawn), followed by the distribution: how many meet the bar, the quantiles of the
# written table's median error, and the cores where it ranks worse than the datasheet.
set -euo pipefail
build=build fmt=csv out='' nrandom=0 seed=1
while getopts "b:f:c:r:s:h" o; do
    case $o in
    b) build=$OPTARG ;; f) fmt=$OPTARG ;; c) out=$OPTARG ;;
    r) nrandom=$OPTARG ;; s) seed=$OPTARG ;;
    *) sed -n '2,12p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ $nrandom =~ ^[0-9]+$ && $seed =~ ^[0-9]+$ ]] ||
    { echo "bench/calib_cores.sh: -r and -s take whole numbers" >&2; exit 2; }
root=$(cd "$(dirname "$0")/.." && pwd)
command -v jq >/dev/null || { echo "bench/calib_cores.sh: needs jq" >&2; exit 2; }
# shellcheck source=bench/hidden_cores.sh
. "$root/bench/hidden_cores.sh"
cores=("$@")
if [ "$nrandom" -gt 0 ]; then
    while read -r name keys; do
        CORE[$name]=$keys
        cores+=("$name")
    done < <(python3 "$root/bench/random_cores.py" "$nrandom" "$seed")
fi
[ ${#cores[@]} -eq 0 ] && cores=(slow fast mixed vecslow peslow)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
echo "core,written,datasheet_median,datasheet_pairwise,written_median,written_pairwise,bar,datasheet_regret_max,written_regret_max" > "$tmp/out.csv"
printf '%-8s %-6s %18s %18s %-7s %s\n' core wrote "datasheet (med,pw)" "written (med,pw)" bar "exact's worst regret (datasheet, written)"
for c in "${cores[@]}"; do
    [ -n "${CORE[$c]:-}" ] || { echo "bench/calib_cores.sh: unknown core '$c'" >&2; exit 2; }
    echo "  $c: traces, calibrate, validate..." >&2
    HIDDEN="${CORE[$c]}" bash "$root/bench/calib_hidden.sh" "$build" "$fmt" > "$tmp/$c.out"
    tail -1 "$tmp/$c.out" | jq -r --arg c "$c" '
        ($c + "," + .written + "," + (.datasheet.median_rel_error|tostring) + "," +
         (.datasheet.pairwise|tostring) + "," + (.fitted.median_rel_error|tostring) + "," +
         (.fitted.pairwise|tostring) + "," +
         (if .fitted.median_rel_error <= 0.10 and
             .fitted.median_rel_error <= 0.5 * .datasheet.median_rel_error and
             .fitted.pairwise >= 0.9 then "met" else "not met" end) + "," +
         (.regret.datasheet.max|tostring) + "," + (.regret.written.max|tostring))' |
        tee -a "$tmp/out.csv" |
        awk -F, '{printf "%-8s %-6s %9.2f%% %6.0f%% %9.2f%% %6.0f%% %-7s %6.2f%% %6.2f%%\n",
                  $1, $2, 100 * $3, 100 * $4, 100 * $5, 100 * $6, $7, 100 * $8, 100 * $9}'
done
python3 - "$tmp/out.csv" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
if not rows:
    sys.exit(0)
med = sorted(float(r["written_median"]) for r in rows)
worse = [r["core"] for r in rows if float(r["written_pairwise"]) < float(r["datasheet_pairwise"])]
half = sum(float(r["written_median"]) <= 0.10 and
           float(r["written_median"]) <= 0.5 * float(r["datasheet_median"]) for r in rows)
print("%d cores: bar met on %d; median error <= 10%% and at most half the datasheet's on %d; "
      "written table's median error min %.1f%% / median %.1f%% / max %.1f%%; ranks worse than "
      "the datasheet on %d%s" % (len(rows), sum(r["bar"] == "met" for r in rows), half,
                                  100 * med[0], 100 * statistics.median(med), 100 * med[-1],
                                  len(worse), (": " + " ".join(worse)) if worse else ""))
ok = {t: sum(float(r[t + "_regret_max"]) <= 0.01 for r in rows) for t in ("datasheet", "written")}
print("exact's regret <= 1%% on every unseen model: datasheet on %d of %d cores, written table on "
      "%d" % (ok["datasheet"], len(rows), ok["written"]))
PY
if [ -n "$out" ]; then cp "$tmp/out.csv" "$out"; fi
exit 0
