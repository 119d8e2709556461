#!/usr/bin/env bash
# Fails when a source file includes a header from a layer it may not use
# (docs/design.md, "Layers and who may include whom"), or when CMakeLists.txt lets a layer's
# library link to one it may not use. Calls are checked at link time: tests/CMakeLists.txt
# links each whole layer library with only its DEPS_<layer> (the linkcheck_<layer> targets),
# so the DEPS_ lists must agree with the table below. Also fails when two C sources share a
# file basename (one name, one archive member), or two headers do.
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
  [api]="util graph solver traces sim codegen costmodel study report api laysim"
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
# the link-level check is only as strict as the DEPS_<layer> lists it links with
while read -r layer deps; do
  [ -n "${allowed[$layer]+x}" ] || { echo "CMakeLists.txt: DEPS_$layer: layer '$layer' is not in this table"; bad=1; continue; }
  for d in $deps; do
    ok=0
    for a in ${allowed[$layer]}; do [ "$a" = "$d" ] && ok=1; done
    if [ $ok = 0 ]; then
      echo "CMakeLists.txt: DEPS_$layer: layer '$layer' may not link to '$d'"
      bad=1
    fi
  done
done < <(sed -n 's/^set(DEPS_\([a-z]*\) *\(.*\))$/\1 \2/p' "$root/CMakeLists.txt" | tr -d '"')
# one basename, one file (sources and headers): an archive keys its members by basename,
# and a name in a message or a grep should point at one file
if git -C "$root" rev-parse --git-dir >/dev/null 2>&1; then
    sources=$(git -C "$root" ls-files --cached --others --exclude-standard '*.c' '*.h' '*.cpp')
else
    sources=$(cd "$root" && find . \( -name 'build*' -o -name out -o -name .git \) -prune -o \
              \( -name '*.[ch]' -o -name '*.cpp' \) -print)
fi
for b in $(printf '%s\n' "$sources" | sed 's#.*/##' | sort | uniq -d); do
    echo "file basename '$b' is taken by $(printf '%s\n' "$sources" | grep -E "(^|/)$b\$" | tr '\n' ' ')"
    bad=1
done
echo "layering: $checked files checked"
[ $bad = 0 ] && echo "1 passed, 0 failed" || echo "0 passed, 1 failed"
exit $bad
