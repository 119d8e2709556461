#!/usr/bin/env bash
# XLA HLO text modules as MODEL: the fixtures through the whole chain, and malformed modules.
# usage: bash tests/cli/hlo.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/hlo

# the transformer fixture has at least 300 instructions and imports with its op kinds
n=$(grep -c '^ *\(ROOT \)\?%[^ ]* = ' "$D/transformer.hlo")
if [ "$n" -ge 300 ]; then ok; else bad "transformer.hlo has $n instructions, want >= 300"; fi
expect 0 "graph transformer.hlo --stats" "$LAYSIM" graph "$D/transformer.hlo" --stats
if grep -Eq '^compute_ops +[0-9]{3}' "$T/out"; then ok; else bad "--stats: $(head -c 300 "$T/out")"; fi
expect 0 "graph transformer.hlo -o" "$LAYSIM" graph "$D/transformer.hlo" --autocast none -o "$T/t.lg"
for want in 'input tokens.49 fp32 \[1,127,256\]' 'weight l0_qkv.54 fp32 \[256,768\]' \
    'op pad.51.pad1 fp32 \[1,128,256\] = concat' \
    'op reduce.65 fp32 \[1,128\] = reduce_sum .* axes=2 keep=0' \
    'op dot.84 fp32 \[1,128,768\] = matmul .* lhs_contract=2 rhs_contract=0' \
    'op dot.101 fp32 \[1,4,128,128\] = batch_matmul .* lhs_batch=0,1 rhs_batch=0,1 lhs_contract=3 rhs_contract=3' \
    'op transpose.89 fp32 \[1,4,128,64\] = transpose reshape.88 perm=0,2,1,3' \
    'op select.111 fp32 \[1,4,128,128\] = max' 'op reduce.113 fp32 \[1,4,128\] = reduce_max' \
    'op concatenate.99 fp32 \[1,4,128,64\] = concat' 'op call.128.reduce.29 fp32 \[1,128\]' \
    'op fusion.[0-9]+.tanh.17 fp32 \[1,128,1024\] = tanh' 'op convert.[0-9]+ bf16 \[1,128,1024\] = cast' \
    'op dot.[0-9]+ fp32 \[1,128,256\] = matmul convert'; do
    if grep -Eq "^$want" "$T/t.lg"; then ok; else bad "t.lg lacks /$want/"; fi
done
# the whole chain: problem, exact solve, check, compile with the layout, simulate
expect 0 "problem transformer" "$LAYSIM" problem "$D/transformer.hlo" -o "$T/p.lsp"
expect 0 "solve exact" "$LAYSIM" solve "$T/p.lsp" --solver exact -o "$T/p.sol"
expect 0 "check" "$LAYSIM" check "$T/p.lsp" "$T/p.sol"
expect 0 "compile" "$LAYSIM" compile "$D/transformer.hlo" --layout "$T/p.sol" -o "$T/p.prog"
expect 0 "sim" "$LAYSIM" sim "$T/p.prog"
if grep -Eq '^total: [0-9]+ cycles' "$T/out"; then ok; else bad "sim: $(head -c 300 "$T/out")"; fi

# the CNN block: dim_labels, asymmetric padding, a max pool, batch-norm-inference, a grouped conv
expect 0 "graph cnn.hlo" "$LAYSIM" graph "$D/cnn.hlo" --autocast none -o "$T/c.lg"
for want in 'op convolution.9.nchw fp32 \[1,16,32,32\] = transpose image.7 perm=0,3,1,2' \
    'op convolution.9.conv fp32 \[1,32,32,32\] = conv2d .* stride=1,1 pad=1,1' \
    'op subtract.12 fp32 \[1,32,32,32\] = sub convolution.9.conv bn1_mean.10' \
    'op reduce-window.23.pool fp32 \[1,32,16,16\] = pool_max reduce-window.23.pad3 kernel=3,3 stride=2,2 pad=0,0' \
    'op reduce-window.23.pad2 fp32 \[1,32,33,32\] = concat maximum.21 ' \
    'op convolution.26.pad2 fp32 \[1,32,17,16\] = concat reduce-window.23.pool ' \
    'op convolution.26.pad3 fp32 \[1,32,17,17\] = concat' \
    'op convolution.26 fp32 \[1,64,8,8\] = conv2d .* stride=2,2 pad=0,0' \
    'op batch-norm-inference.31 fp32 \[1,64,8,8\] = batchnorm .* axis=1' \
    'op convolution.36 fp32 \[1,64,8,8\] = conv2d .* groups=64' \
    'op reduce.39 fp32 \[1,64\] = reduce_sum add.37 axes=2,3' 'op logistic.45 fp32 \[1,10\] = sigmoid'; do
    if grep -Eq "^$want" "$T/c.lg"; then ok; else bad "c.lg lacks /$want/"; fi
done
# HWIO filter weights are made in OIHW (no transpose op); biases padded (no reshape op),
# in NCHW order: the NHWC results of conv and pool stay NCHW through the elementwise ops, the
# pool and the explicit transpose, so the only transpose left is the image's
if grep -q '^weight conv1_w.8 fp32 \[32,16,3,3\]' "$T/c.lg" && ! grep -q 'oihw' "$T/c.lg"; then ok
else bad "conv1_w.8 not made in OIHW"; fi
if grep -q '^weight bn1_mean.10 fp32 \[1,32,1,1\]' "$T/c.lg" && ! grep -q '= reshape' "$T/c.lg"; then ok
else bad "bn1_mean.10 not made padded in NCHW order"; fi
if [ "$(grep -c '= transpose' "$T/c.lg")" = 1 ]; then ok; else bad "c.lg: $(grep -c '= transpose' "$T/c.lg") transposes, want 1"; fi
expect 0 "problem cnn" "$LAYSIM" problem "$D/cnn.hlo" -o "$T/c.lsp"
expect 0 "solve cnn" "$LAYSIM" solve "$T/c.lsp" --solver exact -o "$T/c.sol"
expect 0 "compile cnn" "$LAYSIM" compile "$D/cnn.hlo" --layout "$T/c.sol" -o "$T/c.prog"
expect 0 "sim cnn" "$LAYSIM" sim "$T/c.prog"
# a .txt dump is recognized by its HloModule header; scaling options do not apply
cp "$D/cnn.hlo" "$T/module_0001.jit_cnn.before_optimizations.txt"
expect 0 "graph .txt dump" "$LAYSIM" graph "$T/module_0001.jit_cnn.before_optimizations.txt"
expect 2 "--batch on HLO" "$LAYSIM" graph "$D/cnn.hlo" --batch 4
expect_err "static shapes" "--batch"

# malformed modules exit 2 with FILE:LINE:COL and no output file
B=$D/bad
check_bad() {   # FILE PATTERN
    expect 2 "$1" "$LAYSIM" graph "$B/$1" -o "$T/bad.lg"
    expect_err "^laysim graph: [^ ]*$1:$2" "$1"
    if [ ! -e "$T/bad.lg" ]; then ok; else bad "$1 left an output"; fi
}
check_bad truncated.hlo "3:[0-9]+: unexpected end of file: computation 'main' is never closed"
check_bad unknown_opcode.hlo "5:27: instruction 'e': unknown opcode 'exponentiate'"
check_bad shape_mismatch.hlo "6:9: instruction 'd' \(dot\): shape mismatch: the instruction declares \[4,32\], its operands give \[4,16\]"
check_bad undefined_operand.hlo "5:36: instruction 'a': operand 'y' is not defined before it"
check_bad unsupported.hlo "5:9: instruction 's' \(sort\): opcode sort has no IR op kind"
check_bad bad_layout.hlo "4:16: layout is not a permutation"
finish
