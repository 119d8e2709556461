#!/bin/bash
# CLI tests for `laysim graph`: usage errors, the Figure 1 and Figure 2 statistics, JSON and
# DOT output, canonical rewriting (-o) that reads back identically, and every malformed file
# under tests/data/bad/ answered with exit code 2 and a FILE:LINE:COL message.
# usage: graph.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
# field NAME: the integer value of "NAME": in the last JSON output.
field() { sed -n "s/^ *\"$1\": \(-\{0,1\}[0-9][0-9]*\).*/\1/p" "$T/out" | head -1; }
# expect_field NAME VALUE DESCRIPTION
expect_field() {
    local got
    got=$(field "$1")
    if [ "$got" = "$2" ]; then ok; else bad "$3: $1 is '$got', want $2"; fi
}

expect 0 "help" "$LAYSIM" graph --help
if grep -q "treewidth_ub" "$T/out"; then ok; else bad "help mentions treewidth_ub"; fi
expect 0 "help command" "$LAYSIM" help graph
expect 2 "no file" "$LAYSIM" graph
expect 2 "two files" "$LAYSIM" graph a.lg b.lg
expect 2 "unknown option" "$LAYSIM" graph "$SRC/examples/fig1.lg" --bogus
expect 2 "dot with json" "$LAYSIM" graph "$SRC/examples/fig1.lg" --dot --json
expect 2 "missing file" "$LAYSIM" graph "$T/none.lg"

# Figure 1: C = matmul(A, B), D = reduce_sum(C, 0), R = add(D, B). The figures' own ops:
# --autocast none (the default adds bf16 casts of the matmul/conv operands, tested below).
expect 0 "fig1 stats json" "$LAYSIM" graph "$SRC/examples/fig1.lg" --stats --json --autocast none
expect_field compute_ops 3 fig1
expect_field ops 6 fig1
expect_field tensors 5 fig1
expect_field edges 6 fig1
expect_field max_fanout 2 fig1
tw=$(field treewidth_ub)
if [ -n "$tw" ] && [ "$tw" -le 2 ] && [ "$tw" -ge 1 ]; then ok; else bad "fig1 treewidth_ub '$tw' not in 1..2"; fi

# Figure 2: x fans out to 8 conv2d 1x1 -> batchnorm branches, summed by 7 binary adds.
expect 0 "fig2 stats json" "$LAYSIM" graph "$SRC/examples/fig2.lg" --stats --json --autocast none
expect_field compute_ops 23 fig2
expect_field ops 33 fig2
expect_field sources 9 fig2
expect_field returns 1 fig2
expect_field tensors 32 fig2
expect_field edges 39 fig2
expect_field max_fanout 8 fig2
expect_field treewidth_ub 2 fig2

# Plain, --stats text, whole-graph JSON, DOT.
expect 0 "fig1 summary" "$LAYSIM" graph "$SRC/examples/fig1.lg" --autocast none
if grep -q "3 compute" "$T/out"; then ok; else bad "summary: $(cat "$T/out")"; fi
expect 0 "fig1 stats text" "$LAYSIM" graph "$SRC/examples/fig1.lg" --stats --autocast none
if grep -Eq "^treewidth_ub +2$" "$T/out"; then ok; else bad "stats text: $(cat "$T/out")"; fi
expect 0 "fig1 json" "$LAYSIM" graph "$SRC/examples/fig1.lg" --json
if grep -q '"kind": "reduce_sum"' "$T/out" && grep -q '"outputs": \[' "$T/out"; then ok; else bad "graph json"; fi
expect 0 "fig2 dot" "$LAYSIM" graph "$SRC/examples/fig2.lg" --dot --autocast none
if head -1 "$T/out" | grep -q '^digraph "fig2" {$' && [ "$(grep -c -- ' -> ' "$T/out")" -eq 39 ]; then ok; else bad "dot: $(head -3 "$T/out")"; fi
if command -v dot >/dev/null; then
    if dot -Tsvg "$T/out" >/dev/null 2>&1; then ok; else bad "graphviz rejects the DOT"; fi
fi

# Canonical rewrite reads back and rewrites to the same bytes; stdin works.
for f in fig1 fig2; do
    expect 0 "$f rewrite" "$LAYSIM" graph "$SRC/examples/$f.lg" -o "$T/$f.lg"
    expect 0 "$f rewrite again" "$LAYSIM" graph "$T/$f.lg" -o "$T/$f.2.lg"
    if cmp -s "$T/$f.lg" "$T/$f.2.lg"; then ok; else bad "$f: rewrite is not stable"; fi
done
expect 0 "stdin" "$LAYSIM" graph - --stats --json --autocast none <"$SRC/examples/fig1.lg"
expect_field compute_ops 3 stdin

# --autocast (default matmul): A and B feed the matmul and B also the add, so each gets one
# bf16 cast; the matmul output C stays fp32. It is not a scaling option: .lg files take it.
expect 0 "fig1 autocast" "$LAYSIM" graph "$SRC/examples/fig1.lg" -o "$T/fig1.ac.lg"
if grep -q "^op A.bf16 bf16 \[4,8\] = cast A" "$T/fig1.ac.lg" &&
   grep -q "^op B.bf16 bf16 \[8,3\] = cast B" "$T/fig1.ac.lg" &&
   grep -q "^op C fp32 \[4,3\] = matmul A.bf16 B.bf16" "$T/fig1.ac.lg" &&
   grep -q "^op R fp32 \[8,3\] = add D B" "$T/fig1.ac.lg"; then ok; else bad "fig1 autocast: $(cat "$T/fig1.ac.lg")"; fi
expect 0 "fig1 autocast matmul" "$LAYSIM" graph "$SRC/examples/fig1.lg" --autocast matmul --stats --json
expect_field compute_ops 5 "fig1 autocast"
expect 0 "autocast is idempotent" "$LAYSIM" graph "$T/fig1.ac.lg" -o "$T/fig1.ac2.lg"
if cmp -s "$T/fig1.ac.lg" "$T/fig1.ac2.lg"; then ok; else bad "autocast twice differs"; fi
expect 2 "autocast bad value" "$LAYSIM" graph "$SRC/examples/fig1.lg" --autocast fp8
if grep -q -- "--autocast: expected none or matmul, got 'fp8'" "$T/err"; then ok; else bad "autocast message: $(cat "$T/err")"; fi
expect 2 "scaling a .lg is still refused" "$LAYSIM" graph "$SRC/examples/fig1.lg" --seq 4 --autocast none
if "$LAYSIM" graph --help | grep -q -- "--autocast MODE"; then ok; else bad "graph --help lacks --autocast"; fi

# A failed read leaves no output file behind.
expect 2 "bad input with -o" "$LAYSIM" graph "$SRC/tests/data/bad/shape_mismatch.lg" -o "$T/never.lg"
if [ ! -e "$T/never.lg" ]; then ok; else bad "-o written despite bad input"; fi

# Every malformed file: exit 2, "FILE:LINE:COL:" in the message, a leading comment.
nbad=0
for f in "$SRC"/tests/data/bad/*.lg; do
    nbad=$((nbad + 1))
    name=$(basename "$f")
    if head -1 "$f" | grep -q '^#'; then ok; else bad "$name: first line is not a comment"; fi
    expect 2 "$name" "$LAYSIM" graph "$f"
    if grep -Eq "$name:[0-9]+:[0-9]+: " "$T/err"; then ok; else bad "$name: no line:col in '$(cat "$T/err")'"; fi
    if grep -q "AddressSanitizer\|runtime error" "$T/err"; then bad "$name: sanitizer report"; else ok; fi
done
if [ "$nbad" -ge 15 ]; then ok; else bad "only $nbad malformed files (want >= 15)"; fi

finish
