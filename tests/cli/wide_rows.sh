#!/bin/bash
# Rows wider than one step's SBUF region (issue 42): a softmax, layernorm, rmsnorm and two
# reductions over 20,000 elements and a Llama config at --hidden 4608 go through problem, exact solve,
# check, compile and sim; their rows are split into chunks, each loaded twice (statistics,
# then the apply pass), and the compiled program's price equals the problem's objective.
# A row that fits a step region (--hidden 4352) still lowers whole. Olmo2 at --hidden 8192
# through the same chain.
# usage: wide_rows.sh LAYSIM SOURCE_DIR
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# chain NAME MODEL [model options]: the whole chain, into $T/NAME.{lsp,sol,prog}
chain() {
    local n=$1 model=$2
    shift 2
    expect 0 "$n: problem" "$LAYSIM" problem "$model" "$@" -o "$T/$n.lsp"
    expect 0 "$n: solve" "$LAYSIM" solve "$T/$n.lsp" --solver exact -o "$T/$n.sol"
    expect 0 "$n: check" "$LAYSIM" check "$T/$n.lsp" "$T/$n.sol"
    expect 0 "$n: compile" "$LAYSIM" compile "$model" "$@" --layout "$T/$n.sol" -o "$T/$n.prog"
    if grep -Eq 'table price ([0-9]+) \(problem objective \1\)' "$T/err"; then ok; else
        bad "$n: price != objective: $(head -c 300 "$T/err")"; fi
    expect 0 "$n: sim" "$LAYSIM" sim "$T/$n.prog"
    if grep -Eq '^total: [0-9]+ cycles' "$T/out"; then ok; else bad "$n: sim: $(head -c 300 "$T/out")"; fi
}

chain wide "$SRC/tests/data/wide_rows.lg"
P="$T/wide.prog"
# no SBUF operand of the softmax or the norms holds a whole row of 20,000 (the
# reductions' rows fit whole)
if grep -Eq 'sbuf[^ ]*:20000/.* tag=[snr]$' "$P"; then bad "a whole row in SBUF"; else ok; fi
if grep -Eq 'sbuf[^ ]*:20000/.* tag=m$' "$P"; then ok; else bad "reduce_max: not over whole rows"; fi
# every op reads its input twice: its HBM loads of x / s / n total 2 x 256 x 20000 x 2 bytes
for t in s n r; do
    got=$(grep -E "^i[0-9]+: dma dma_copy dst=sbuf.* src=hbm\[[0-9]+/20000\].* tag=$t\$" "$P" |
        sed -E 's/.*dst=sbuf\[0:([0-9]+)\]@[0-9]+:bf16:([0-9]+)\/.*/\1 \2/' |
        awk '{ n += $1 * $2 } END { print n * 2 }')
    if [ "$got" = 20480000 ]; then ok; else bad "op $t: input loads $got bytes, want 20480000"; fi
done
# partial statistics combined: one max over the chunks' maxima (softmax)
if grep -Eq 'dve tensor_reduce dst=sbuf\[0:128\]@[0-9]+:fp32:1/1 src=sbuf\[0:128\]@[0-9]+:fp32:[0-9]+/1 func=max .*tag=s$' "$P"
then ok; else bad "softmax: no combine of the chunks' maxima"; fi

H="$SRC/tests/data/hf/llama.json"
chain l4608 "$H" --hidden 4608 --layers 1
if grep -Eq 'dma_copy dst=sbuf[^ ]*:bf16:2304/1 src=hbm\[128/4608\].*tag=dec.l0.self_norm$' "$T/l4608.prog"
then ok; else bad "hidden 4608: the norm's row is not in two chunks of 2304"; fi
# a 70B-class width: olmo2's qk-norms over 8,192 and its down projection's K = 22,016, whose
# two k-step columns of the weight fit half the region but not beside the output buffers
# (streamed per k-step and m-tile)
chain o8192 "$SRC/tests/data/hf/olmo2.json" --hidden 8192 --layers 1
expect 0 "hidden 4352: compile" "$LAYSIM" compile "$H" --hidden 4352 --layers 1 -o "$T/l4352.prog"
if grep -Eq 'dma_copy dst=sbuf[^ ]*:bf16:4352/1 src=hbm\[128/4352\].*tag=dec.l0.self_norm$' "$T/l4352.prog"
then ok; else bad "hidden 4352: the norm's row is not loaded whole"; fi
finish
