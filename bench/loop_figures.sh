#!/usr/bin/env bash
# The loop's figures as the Markdown table docs/history.md quotes (issue 18: the docs'
# numbers come from this script, so they cannot go stale):
#   bench/loop_figures.sh [LAYSIM] [MODEL...]   (default build/laysim and the four models)
# HOLDOUT=M,M.. passes --holdout-models (models never fitted on) and adds their table;
# LOOP_FLAGS adds flags to the loop (e.g. "--group-scales tied"). SEEDS="1 2 3 4 5" runs the
# loop once per --seed (the frozen perturbations and the exploration draws) and prints the
# final iteration's headline per seed and their mean instead: with 14 strategy pairs one pair
# is 7.1 points, and which pair flips moves with the seed.
# Headline: the paper's metric (strategy pairs, 0.5% tie rule) on the frozen sets under the
# leave-one-family-out tables; the frozen pairs with perturbations follow separately.
set -euo pipefail
laysim=${1:-build/laysim}
shift || true
models=("$@")
[ ${#models[@]} -gt 0 ] || models=(zoo:bert-base zoo:resnet50 zoo:vit-b16 zoo:olmoe)
[ -x "$laysim" ] || { echo "bench/loop_figures.sh: no laysim binary at $laysim" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
extra=()
[ -n "${HOLDOUT:-}" ] && extra+=(--holdout-models "$HOLDOUT")
# shellcheck disable=SC2206
[ -n "${LOOP_FLAGS:-}" ] && extra+=($LOOP_FLAGS)
if [ -n "${SEEDS:-}" ]; then
    echo "| seed | final iteration | LOFO strategy pairs: pairwise / median | exact within 1% (every iteration) |"
    echo "|---|---|---|---|"
    for s in $SEEDS; do
        "$laysim" loop "${models[@]}" "${extra[@]}" --seed "$s" --json -q > "$out"
        python3 - "$out" "$s" <<'PY'
import json, sys
d = json.load(open(sys.argv[1])); f = d["final_iteration"]; it = d["iterations"][f]
print("| %s | %d | %.1f%% (%d) / %.1f%% | %s |" % (
    sys.argv[2], f, 100 * it["lofo_strategies_pairwise_accuracy"], it["lofo_strategies_pairs"],
    100 * it["lofo_strategies_median_rel_error"],
    "yes" if all(i["exact_within_1pct_all"] for i in d["iterations"]) else "no"))
PY
    done | tee "$out.rows"
    awk -F'|' '{split($4, a, "/"); acc += a[1]; med += a[2]; n++}
               END {if (n) printf "| mean of %d | | %.1f%% / %.1f%% | |\n", n, acc / n, med / n}' "$out.rows"
    rm -f "$out.rows"
    exit 0
fi
"$laysim" loop "${models[@]}" "${extra[@]}" --json -q > "$out"
python3 - "$out" "${models[*]} ${extra[*]}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def pc(v): return "-" if v is None else "%.1f%%" % (100 * v)
print("`laysim loop %s --json` (defaults otherwise)\n" % sys.argv[2].strip())
print("| iteration | table | LOFO strategy pairs: pairwise / median | strategy pairs, iteration's table | all frozen pairs (with perturbations) | strategies just solved |")
print("|---|---|---|---|---|---|")
for it in d["iterations"]:
    g = it.get
    print("| %d | %s | %s (%s) / %s | %s (%s) / %s | %s (%s) / %s | %s / %s |" % (
        it["iteration"], it["aggregate"],
        pc(g("lofo_strategies_pairwise_accuracy")), g("lofo_strategies_pairs", "-"),
        pc(g("lofo_strategies_median_rel_error")),
        pc(g("frozen_strategies_pairwise_accuracy")), g("frozen_strategies_pairs"),
        pc(g("frozen_strategies_median_rel_error")),
        pc(g("pairwise_accuracy")), g("pairs"), pc(g("median_rel_error")),
        pc(g("strategy_pairwise_accuracy")), pc(g("strategy_median_rel_error"))))
if "held_strategy_pairs" in d["iterations"][0]:
    held = [m["model"] for m in d["iterations"][0]["models"] if m.get("held_out")]
    print("\nHeld-out models (%s: no program of theirs entered any fit), strategy pairs:\n" % ", ".join(held))
    print("| iteration | table | solved under the iteration's table: pairwise / median | frozen strategy points: pairwise / median |")
    print("|---|---|---|---|")
    for it in d["iterations"]:
        g = it.get
        print("| %d | %s | %s (%s) / %s | %s (%s) / %s |" % (
            it["iteration"], it["aggregate"],
            pc(g("held_strategy_pairwise_accuracy")), g("held_strategy_pairs"),
            pc(g("held_strategy_median_rel_error")),
            pc(g("held_frozen_strategies_pairwise_accuracy")), g("held_frozen_strategies_pairs"),
            pc(g("held_frozen_strategies_median_rel_error"))))
PY
