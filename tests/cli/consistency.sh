#!/bin/bash
# The cost model prices exactly what codegen emits: for small configurations of several zoo
# families, under the default assignment and 50 seeded random assignments each, the table
# price of the compiled program equals the .lsp objective of the assignment, exactly
# (issue: codegen + cost model, "consistency"). Random .sol files are written here from the
# problem's configuration counts; `laysim compile` recomputes the objective itself. Both
# memory plans: --memplan whole and partial, the default (partial keeps, aliased reshapes and
# transposes).
# usage: consistency.sh LAYSIM SOURCE_DIR
L=${1:?laysim binary}
source "$(dirname "$0")/lib.bash"

models=(
  "zoo:cnn"
  "zoo:bert-base --layers 1 --seq 16"
  "zoo:olmo-7b --layers 1 --seq 16 --hidden 256"
  "zoo:resnet50 --layers 18 --image 32"
  "zoo:vit-b16 --layers 1 --image 32"
  "zoo:whisper-enc --layers 1 --seq 64"
  "examples/fig2.lg"
)
for mp in whole partial; do
for spec0 in "${models[@]}"; do
  spec="$spec0 --memplan $mp"
  read -r -a m <<<"$spec"
  m[0]=${m[0]/examples/$2/examples}
  expect 0 "problem $spec" "$L" problem "${m[@]}" -o "$T/p.lsp"
  [ -s "$T/p.lsp" ] || continue
  # cfg counts per op, then 50 random assignments as .sol files (cost is recomputed)
  python3 - "$T/p.lsp" "$T" <<'PY'
import random, sys
ops = []
for line in open(sys.argv[1]):
    tok = line.split('#', 1)[0].split()
    if not tok:
        continue
    if tok[0] == 'op':
        ops.append([tok[1], 0])
    elif tok[0] == 'cfg':
        ops[-1][1] += 1
rng = random.Random(42)
for k in range(50):
    with open(f"{sys.argv[2]}/r{k}.sol", "w") as f:
        f.write("lsp-solution 1\nstatus feasible\ncost 0\n")
        for name, n in ops:
            f.write(f"op {name} {rng.randrange(n)}\n")
PY
  same=0 differ=0
  for k in default $(seq 0 49); do
    if [ "$k" = default ]; then
      "$L" compile "${m[@]}" -o "$T/x.prog" 2>"$T/err" >/dev/null
    else
      "$L" compile "${m[@]}" --layout "$T/r$k.sol" -o "$T/x.prog" 2>"$T/err" >/dev/null
    fi
    line=$(grep -o 'table price [0-9]* (problem objective [0-9]*)' "$T/err")
    read -r _ _ price _ _ obj <<<"${line//[()]/}"
    if [ -n "$price" ] && [ "$price" = "$obj" ]; then
      same=$((same + 1))
    else
      differ=$((differ + 1))
      echo "  $spec assignment $k: $(head -c 300 "$T/err")"
    fi
  done
  [ "$differ" = 0 ] && [ "$same" = 51 ] && ok || bad "$spec: $differ of 51 assignments priced differently"
done
done
finish
