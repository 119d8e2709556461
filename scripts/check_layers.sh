#!/usr/bin/env bash
# Fails when a source file includes a header from a layer it may not use
# (docs/design.md, "Layers and who may include whom").
set -u
root=${1:-$(dirname "$0")/..}
declare -A allowed=(
  [util]="util"
  [graph]="util graph"
  [solver]="util solver"
  [traces]="util traces"
  [sim]="util traces sim"
  [codegen]="util graph traces sim codegen"
  [costmodel]="util graph solver traces sim codegen costmodel"
  [study]="util graph solver traces sim codegen costmodel study"
  [report]="util study report"
  [cli]="util graph solver traces sim codegen costmodel study report cli harness"
  [hw]="util traces sim harness"
)
bad=0
checked=0
for layer in "${!allowed[@]}"; do
  dir="$root/$layer"
  [ "$layer" = hw ] && dir="$root/hw/harness"
  [ -d "$dir" ] || continue
  while IFS= read -r -d '' f; do
    checked=$((checked + 1))
    while IFS=: read -r lineno inc; do
      target=${inc%%/*}
      ok=0
      for a in ${allowed[$layer]}; do [ "$a" = "$target" ] && ok=1; done
      if [ $ok = 0 ]; then
        echo "${f#$root/}:$lineno: layer '$layer' may not include '$inc'"
        bad=1
      fi
    done < <(grep -n -o '#include "[a-z]*/[^"]*"' "$f" | sed 's/#include "\(.*\)"/\1/')
  done < <(find "$dir" \( -name '*.[ch]' -o -name '*.cpp' \) -print0)
done
echo "layering: $checked files checked"
[ $bad = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $bad
