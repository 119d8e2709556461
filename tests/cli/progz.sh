#!/bin/bash
# CLI tests for binary programs (.lsprogz): `laysim compile` writes them for the extension or
# --format binary, `laysim sim` reads them by magic with the same results as the text form,
# and a truncated or corrupted file exits 2 naming the byte offset.
# usage: progz.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
command -v cmp >/dev/null || exit 77
M=(zoo:bert-base --layers 1 --seq 128)

expect 0 "compile text" "$LAYSIM" compile "${M[@]}" -o "$T/m.lsprog"
expect 0 "compile binary by extension" "$LAYSIM" compile "${M[@]}" -o "$T/m.lsprogz"
expect 0 "compile binary by --format" "$LAYSIM" compile "${M[@]}" --format binary -o "$T/m.bin"
if cmp -s "$T/m.lsprogz" "$T/m.bin"; then ok; else bad "--format binary differs from .lsprogz"; fi
expect 0 "compile --format text to .lsprogz" "$LAYSIM" compile "${M[@]}" --format text -o "$T/t.lsprogz"
if cmp -s "$T/m.lsprog" "$T/t.lsprogz"; then ok; else bad "--format text is not the text"; fi
expect 2 "bad --format" "$LAYSIM" compile "${M[@]}" --format yaml -o "$T/x"
if head -c 8 "$T/m.lsprogz" | grep -q LSPROGZ; then ok; else bad "no magic"; fi
tsize=$(stat -c %s "$T/m.lsprog") bsize=$(stat -c %s "$T/m.lsprogz")
if [ "$bsize" -lt $((tsize / 5)) ]; then ok; else bad "binary $bsize bytes vs text $tsize"; fi

# Same simulation from either form (the program name aside).
expect 0 "sim text" "$LAYSIM" sim "$T/m.lsprog" --json
grep -v '"program"' "$T/out" >"$T/text.json"
expect 0 "sim binary" "$LAYSIM" sim "$T/m.lsprogz" --json
grep -v '"program"' "$T/out" >"$T/bin.json"
if cmp -s "$T/text.json" "$T/bin.json"; then ok; else bad "sim results differ between forms"; fi

# Truncated and corrupted: exit 2, the byte offset named, no crash.
head -c $((bsize / 2)) "$T/m.lsprogz" >"$T/trunc.lsprogz"
expect 2 "truncated" "$LAYSIM" sim "$T/trunc.lsprogz"
expect_err "trunc.lsprogz.*byte offset [0-9]+" "truncated names the offset"
# the blocks start after the 16-byte header and the tie block (its length at offset 12)
tie=$(od -An -tu4 -j12 -N4 "$T/m.lsprogz" | tr -d ' ')
cp "$T/m.lsprogz" "$T/bad.lsprogz"
printf '\x00\x00\x00\x00' | dd of="$T/bad.lsprogz" bs=1 seek=$((16 + tie + 24)) conv=notrunc status=none
expect 2 "corrupt" "$LAYSIM" sim "$T/bad.lsprogz"
expect_err "byte offset [0-9]+" "corrupt names the offset"
cp "$T/m.lsprogz" "$T/badtie.lsprogz"
printf '\x01' | dd of="$T/badtie.lsprogz" bs=1 seek=20 conv=notrunc status=none
expect 2 "corrupt tie block" "$LAYSIM" sim "$T/badtie.lsprogz"
expect_err "byte offset 20: tie block" "corrupt tie block names the offset"
head -c 12 "$T/m.lsprogz" >"$T/short.lsprogz"
expect 2 "header only" "$LAYSIM" sim "$T/short.lsprogz"
expect_err "byte offset" "header only names the offset"
finish
