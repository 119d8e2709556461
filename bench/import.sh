#!/usr/bin/env bash
# bench/import.sh: real ONNX models through the importer and the whole loop (not CI).
# Exports torchvision resnet50, vit_b_16 and mobilenet_v2 with Debian's python3-torch and
# python3-torchvision (weights=None, export_params=False, opset 13; install them with
# `apt-get install python3-torch python3-torchvision` first) and a synthetic 2,000-node
# graph (bench/onnx_synth.py, python3-onnx), then per model prints: ONNX nodes, IR ops,
# import seconds (`laysim graph`, best of 3), whether problem -> solve exact -> compile ->
# sim runs, the simulated cycles, and the import error (a missing operator) if any.
# Usage: bench/import.sh [LAYSIM] [MODEL.onnx|DIR...]   (extra models are imported too; a
# DIR stands for every .onnx file under it). INPUTS=FILE (default bench/import.inputs)
# gives per-model arguments, lines "NAME.onnx ARGS..." (e.g. --input shapes of models whose
# input dims are symbolic).
set -uo pipefail
laysim=${1:-build/laysim}
shift || true
[ -x "$laysim" ] || { echo "bench/import.sh: no laysim binary at $laysim" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
py=/usr/bin/python3
tmp=${BENCH_TMP:-$(mktemp -d)}
[ -n "${BENCH_TMP:-}" ] || trap 'rm -rf "$tmp"' EXIT

models=()
if $py -c 'import torch, torchvision' 2>/dev/null; then
    for m in resnet50 vit_b_16 mobilenet_v2; do
        [ -s "$tmp/$m.onnx" ] || $py - "$m" "$tmp/$m.onnx" <<'PY' >/dev/null 2>&1
import sys, torch, torchvision
net = getattr(torchvision.models, sys.argv[1])(weights=None).eval()
torch.onnx.export(net, torch.randn(1, 3, 224, 224), sys.argv[2], export_params=False,
                  opset_version=13, input_names=["input"], output_names=["logits"])
PY
        [ -s "$tmp/$m.onnx" ] && models+=("$tmp/$m.onnx") || echo "export of $m failed" >&2
    done
else
    echo "bench/import.sh: python3-torch/python3-torchvision missing: torchvision models skipped" >&2
fi
if $py -c 'import onnx' 2>/dev/null; then
    $py "$here/onnx_synth.py" "$tmp/synthetic-2000.onnx" 100 >/dev/null && models+=("$tmp/synthetic-2000.onnx")
fi
for a in "$@"; do
    if [ -d "$a" ]; then
        while IFS= read -r f; do models+=("$f"); done < <(find "$a" -name '*.onnx' | sort)
    else
        models+=("$a")
    fi
done
inputs=${INPUTS:-$here/import.inputs}
# the arguments $inputs gives model file name $1 (none when it has no line for it)
model_args() {
    [ -r "$inputs" ] && awk -v m="$1" '$1 == m { $1 = ""; print; exit }' "$inputs"
}

nodes_of() {
    $py -c 'import onnx,sys; print(len(onnx.load(sys.argv[1], load_external_data=False).graph.node))' "$1" 2>/dev/null || echo "?"
}

printf '%-36s %6s %6s %9s %-6s %10s  %s\n' model nodes ops import_s loop cycles error
for f in "${models[@]}"; do
    name=$(basename "$f" .onnx)
    read -r -a args <<<"$(model_args "$(basename "$f")")"
    best=""
    for _ in 1 2 3; do
        t0=$(date +%s.%N)
        "$laysim" graph "$f" "${args[@]}" --autocast none >"$tmp/g.out" 2>"$tmp/g.err"
        rc=$?
        t=$(echo "$(date +%s.%N) - $t0" | bc)
        if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
    done
    ops=$(sed -n 's/.*graph .*, \([0-9]*\) ops.*/\1/p' "$tmp/g.out")
    if [ "$rc" != 0 ]; then
        printf '%-36s %6s %6s %9.3f %-6s %10s  %s\n' "$name" "$(nodes_of "$f")" - "$best" no - \
            "$(head -c 200 "$tmp/g.err")"
        continue
    fi
    loop=no cycles=-
    if "$laysim" problem "$f" "${args[@]}" -o "$tmp/p.lsp" 2>"$tmp/l.err" &&
        "$laysim" solve "$tmp/p.lsp" --solver exact -q -o "$tmp/s.sol" >/dev/null 2>>"$tmp/l.err" &&
        "$laysim" compile "$f" "${args[@]}" --layout "$tmp/s.sol" -o "$tmp/m.prog" 2>>"$tmp/l.err" >/dev/null &&
        "$laysim" sim "$tmp/m.prog" --json >"$tmp/sim.json" 2>>"$tmp/l.err"; then
        loop=yes
        cycles=$(sed -n 's/^  "cycles": \([0-9]*\),/\1/p' "$tmp/sim.json" | head -1)
    fi
    printf '%-36s %6s %6s %9.3f %-6s %10s  %s\n' "$name" "$(nodes_of "$f")" "$ops" "$best" \
        "$loop" "$cycles" "$([ $loop = yes ] || head -c 200 "$tmp/l.err")"
done
