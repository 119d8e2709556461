#!/usr/bin/env bash
# liblaysim.so exports only the public API: every defined dynamic symbol starts with
# laysim_, and every function the header declares is among them; its SONAME carries the
# version; the public headers stay small (<= 600 lines, docs/api.md).
# usage: bash tests/cli/exports.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
BUILD=$(dirname "$LAYSIM")
source "$(dirname "$0")/lib.bash"
command -v nm >/dev/null || { echo "exports: skipped: no nm"; exit 77; }
SO=$(ls "$BUILD"/liblaysim.so.*.*.* 2>/dev/null | head -n 1)
[ -n "$SO" ] || { echo "exports: no liblaysim.so.X.Y.Z in $BUILD"; exit 1; }

nm -D --defined-only "$SO" | awk '{print $NF}' | sort -u >"$T/syms"
grep -v '^laysim_' "$T/syms" >"$T/other"
[ -s "$T/other" ] && bad "exported beside the API: $(head -n 20 "$T/other" | tr '\n' ' ')" || ok
grep -ho 'LAYSIM_API [^(]*[ *]\(laysim_[a-z0-9_]*\)(' "$SRC"/include/laysim/*.h |
    sed 's/.*[ *]\(laysim_[a-z0-9_]*\)(/\1/' | sort -u >"$T/declared"
[ "$(wc -l <"$T/declared")" -gt 40 ] && ok || bad "found only $(wc -l <"$T/declared") declarations"
missing=$(comm -23 "$T/declared" "$T/syms")
[ -z "$missing" ] && ok || bad "declared but not exported: $missing"
extra=$(comm -13 "$T/declared" "$T/syms")
[ -z "$extra" ] && ok || bad "exported but not declared: $extra"
echo "$(wc -l <"$T/syms") symbols exported"

soname=$(objdump -p "$SO" 2>/dev/null | awk '/SONAME/ {print $2}')
[[ "$soname" =~ ^liblaysim\.so\.[0-9]+\.[0-9]+$ ]] && ok || bad "SONAME '$soname'"
lines=$(cat "$SRC"/include/laysim/*.h | wc -l)
[ "$lines" -le 600 ] && ok || bad "the public headers have $lines lines (limit 600)"
echo "public headers: $lines lines, SONAME $soname"
finish
