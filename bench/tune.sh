#!/usr/bin/env bash
# bench/tune.sh: the autotuner's explorers against each other and against exact (issue 12).
#
# Usage: bench/tune.sh [--evaluations N] [--start SOLVER] [--table FILE] [--explorers LIST]
#                      [--seeds N] [--models LIST] [LAYSIM]
#   --evaluations N   budget per run, in distinct designs scored (default 200)
#   --start SOLVER    start assignment (default exact)
#   --table FILE      latency table (default: the target's datasheet table)
#   --explorers LIST  comma-separated (default mcts,sweep,random)
#   --seeds N         seeds 1..N per explorer; the mean is reported (default 1)
#   --param KEY=VALUE passed to every `laysim tune` run (repeatable), e.g. uct_c=1
#   --models LIST     comma-separated NAME=ARGS entries (default: the study's quick set at its
#                     quick scale, e.g. "cnn=zoo:cnn,bert=zoo:bert-base --layers 2")
#
# Per model: tuning points, log10 of the design space, the start's simulated cycles, then per
# explorer the best simulated cycles (mean over seeds), the improvement over the start, the
# evaluation that found the best (mean) and the wall seconds. Every best design is written as
# a .sol and re-checked with `laysim check` (the objective is recomputed from the problem).
# The last line is one JSON object with every figure.
set -euo pipefail
evals=200 start=exact table="" explorers=mcts,sweep,random seeds=1 models="" laysim=""
params=()
while [ $# -gt 0 ]; do
  case "$1" in
    --evaluations) evals="$2"; shift ;;
    --start) start="$2"; shift ;;
    --table) table="$2"; shift ;;
    --explorers) explorers="$2"; shift ;;
    --seeds) seeds="$2"; shift ;;
    --models) models="$2"; shift ;;
    --param) params+=(--param "$2"); shift ;;
    -h|--help) sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "bench/tune.sh: unknown option $1" >&2; exit 2 ;;
    *) laysim="$1" ;;
  esac
  shift
done
here=$(cd "$(dirname "$0")/.." && pwd)
laysim=${laysim:-$here/build/laysim}
[ -x "$laysim" ] || { echo "bench/tune.sh: no laysim binary at $laysim" >&2; exit 2; }
if [ -z "$models" ]; then
  models="bert-base=zoo:bert-base --layers 2 --seq 128 --hidden 256"
  models+=",bart-base=zoo:bart-base --layers 1 --seq 64 --hidden 256"
  models+=",olmo-7b=zoo:olmo-7b --layers 1 --seq 128 --hidden 512"
  models+=",whisper-enc=zoo:whisper-enc --layers 2 --seq 128 --hidden 256"
  models+=",cnn=zoo:cnn,resnet50=zoo:resnet50 --image 64"
  models+=",vit-b16=zoo:vit-b16 --layers 2 --hidden 256 --image 64"
  models+=",perceiver=zoo:perceiver --layers 1 --seq 256 --hidden 320"
  models+=",musicgen=zoo:musicgen --layers 2 --seq 64 --hidden 256"
  models+=",kosmos=zoo:kosmos --layers 1 --seq 64 --hidden 512 --image 56"
  models+=",olmoe=zoo:olmoe --layers 1 --seq 64 --hidden 512"
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
tab=()
[ -n "$table" ] && tab=(--table "$table")
IFS=, read -r -a ex_list <<<"$explorers"
IFS=, read -r -a model_list <<<"$models"

printf '%-12s %6s %7s %11s' model points log10 start
for e in "${ex_list[@]}"; do printf ' | %-8s %11s %7s %6s %6s' "$e" best gain% at s; done
printf '\n'
json="[" fail=0
for entry in "${model_list[@]}"; do
  name=${entry%%=*}
  read -r -a args <<<"${entry#*=}"
  "$laysim" problem "${args[@]}" "${tab[@]}" -o "$tmp/$name.lsp" >/dev/null
  row="" mj="{\"model\":\"$name\",\"args\":\"${entry#*=}\",\"explorers\":{"
  first=1
  for e in "${ex_list[@]}"; do
    sum_best=0 sum_at=0 sum_s=0 pts="" lg="" st=""
    for s in $(seq 1 "$seeds"); do
      out="$tmp/$name.$e.$s.json"
      t0=$(date +%s.%N)
      "$laysim" tune "${args[@]}" "${tab[@]}" --start "$start" --explorer "$e" --seed "$s" \
        --evaluations "$evals" "${params[@]}" --quiet --json -o "$tmp/$name.$e.$s.sol" >"$out"
      t1=$(date +%s.%N)
      if ! "$laysim" check "$tmp/$name.lsp" "$tmp/$name.$e.$s.sol" >/dev/null 2>&1; then
        echo "bench/tune.sh: $name $e seed $s: the .sol does not check" >&2
        fail=1
      fi
      read -r pts lg st best at < <(jq -r '[.points, .designs_log10, .start.cycles,
        .best.cycles, .best_at] | @tsv' "$out")
      sum_best=$(echo "$sum_best + $best" | bc -l)
      sum_at=$(echo "$sum_at + $at" | bc -l)
      sum_s=$(echo "$sum_s + $t1 - $t0" | bc -l)
    done
    mb=$(printf '%.1f' "$(echo "$sum_best / $seeds" | bc -l)")
    gain=$(printf '%.4f' "$(echo "100 * ($st - $mb) / $st" | bc -l)")
    mat=$(printf '%.1f' "$(echo "$sum_at / $seeds" | bc -l)")
    ms=$(printf '%.3f' "$(echo "$sum_s / $seeds" | bc -l)")
    row+=$(printf ' | %-8s %11.0f %7.3f %6.1f %6.2f' "$e" "$mb" "$gain" "$mat" "$ms")
    [ $first = 1 ] || mj+=","
    first=0
    mj+="\"$e\":{\"best_cycles_mean\":$mb,\"improvement_pct\":$gain,\"best_at_mean\":$mat,\"seconds_mean\":$ms}"
  done
  printf '%-12s %6s %7.2f %11.0f%s\n' "$name" "$pts" "$lg" "$st" "$row"
  mj+="},\"points\":$pts,\"designs_log10\":$lg,\"start_cycles\":$st}"
  [ "$json" = "[" ] || json+=","
  json+="$mj"
done
json+="]"
printf '{"bench":"tune","evaluations":%s,"start":"%s","seeds":%s,"table":"%s","models":%s}\n' \
  "$evals" "$start" "$seeds" "${table:-datasheet}" "$json"
exit $fail
