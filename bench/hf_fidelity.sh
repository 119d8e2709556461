#!/usr/bin/env bash
# Fidelity of latency tables on real HuggingFace configs at their published size (issue 41):
# every tests/data/hf config (bad_* aside) validated under each table; per model family and
# over all: the paper's pairwise accuracy (strategy pairs, 0.5% tie rule), the median
# relative error, and exact's regret against the best simulated time known for the model
# (every strategy under every table of the run, and --reference's rows).
#   bench/hf_fidelity.sh [-t TABLE]... [-r REFERENCE] [-o DIR] [-m REGEX] [BUILD]
# -t: a latency table file, or "datasheet" (the target's own; the default when no -t);
# -r: best known times from elsewhere (laysim validate --reference format); -o: keep the
# validate reports and write DIR/fidelity.csv, DIR/fidelity.json and DIR/reference.csv;
# -m: only the configs whose file name matches. Environment: TARGET (default nc-v2),
# VALIDATE_FLAGS (extra flags, e.g. "--memplan whole").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
tables=() ref="" out="" match="."
while getopts "t:r:o:m:h" o; do
    case $o in
        t) tables+=("$OPTARG") ;;
        r) ref=$OPTARG ;;
        o) out=$OPTARG ;;
        m) match=$OPTARG ;;
        *) sed -n '2,12p' "$0"; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
build=${1:-build}
L="$root/$build/laysim"
[ -x "$L" ] || L="$build/laysim"
[ -x "$L" ] || { echo "hf_fidelity.sh: no laysim binary in $build" >&2; exit 2; }
[ ${#tables[@]} -gt 0 ] || tables=(datasheet)
if [ -n "$out" ]; then W=$out; mkdir -p "$W"; else W=$(mktemp -d); trap 'rm -rf "$W"' EXIT; fi
configs=()
for f in "$root"/tests/data/hf/*.json; do
    n=$(basename "$f" .json)
    case $n in bad_*) continue ;; esac
    [[ $n =~ $match ]] && configs+=("$f")
done
k=0
for t in "${tables[@]}"; do
    k=$((k + 1))
    targ=()
    [ "$t" = datasheet ] || targ=(--table "$t")
    for f in "${configs[@]}"; do
        n=$(basename "$f" .json)
        echo "hf_fidelity: table $k/${#tables[@]} ($t): $n" >&2
        # shellcheck disable=SC2086
        if ! "$L" validate "$f" "${targ[@]}" --target "${TARGET:-nc-v2}" ${VALIDATE_FLAGS:-} \
            --json -q -o "$W/t$k.$n.json" 2> "$W/t$k.$n.err"; then
            echo "hf_fidelity: $n under $t failed: $(head -c 300 "$W/t$k.$n.err")" >&2
            rm -f "$W/t$k.$n.json"
        fi
    done
done
python3 "$root/bench/hf_fidelity.py" "$W" "${ref:-}" "${tables[@]}"
