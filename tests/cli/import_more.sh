#!/usr/bin/env bash
# Importer coverage of issue 42 on small models: ONNX InstanceNormalization (PyTorch's
# GroupNorm export) through the whole chain, --batch on inputs that declare batch 1, the HF
# types ministral3 and musicgen_melody_decoder, and ONNX LSTM/GRU.
# usage: bash tests/cli/import_more.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/onnx
GN=$D/group_norm.onnx

# InstanceNormalization: a parameter-free layernorm over the merged spatial axes, plus a
# batchnorm for scale/B unless they are the ones/zeros of a GroupNorm export
expect 0 "graph group_norm" "$LAYSIM" graph "$GN" --autocast none -o "$T/gn.lg"
if grep -q '^op /gn/InstanceNormalization fp32 \[batch:1,4,512\] = layernorm /gn/Reshape axis=2$' \
    "$T/gn.lg"; then ok; else bad "GroupNorm's InstanceNormalization is not one layernorm"; fi
if grep -q '^op /in/InstanceNormalization.norm fp32 \[batch:1,8,256\] = layernorm' "$T/gn.lg" &&
    grep -q '^op /in/InstanceNormalization fp32 \[batch:1,8,16,16\] = batchnorm .* axis=1$' \
        "$T/gn.lg"; then ok
else bad "InstanceNorm2d: no layernorm over [N,C,H*W] and batchnorm on the channels"; fi
expect 0 "problem group_norm" "$LAYSIM" problem "$GN" -o "$T/gn.lsp"
expect 0 "solve" "$LAYSIM" solve "$T/gn.lsp" --solver exact -q -o "$T/gn.sol"
expect 0 "check" "$LAYSIM" check "$T/gn.lsp" "$T/gn.sol"
expect 0 "compile" "$LAYSIM" compile "$GN" --layout "$T/gn.sol" -o "$T/gn.prog"
expect 0 "sim" "$LAYSIM" sim "$T/gn.prog" --json
if [ "$(json 'd["cycles"] > 0')" = True ]; then ok; else bad "group_norm sim: no cycles"; fi
expect 2 "InstanceNormalization scale of 4 on 8 channels" "$LAYSIM" graph \
    "$D/bad/instance_norm_scale.onnx"
expect_err "node 'in_scale' \(InstanceNormalization\): scale has shape \[4\], expected \[8\]" \
    "wrong scale shape named"
expect 2 "InstanceNormalization of rank 2" "$LAYSIM" graph "$D/bad/instance_norm_rank.onnx"
expect_err "node 'in_rank' \(InstanceNormalization\): input rank 2" "rank 2 named"

# --batch on inputs that declare a batch: an unknown axis 0 or a declared 1 (rank >= 2) takes
# it; a fixed batch of another size that no input can replace exits 2 naming the input; when
# a replaced 1 breaks a fixed shape later, the error says --batch did it
TF1=$T/cnn_batch1.json TF8=$T/cnn_batch8.json
for n in 1 8; do
    python3 -c "import json, sys
d = json.load(open(sys.argv[1]))
d['modelTopology']['node'][0]['attr']['shape']['shape']['dim'][0]['size'] = sys.argv[3]
json.dump(d, open(sys.argv[2], 'w'))" "$SRC/tests/data/tfjs/cnn.json" "$T/cnn_batch$n.json" "$n"
done
expect 0 "TF.js batch 1 --batch 4" "$LAYSIM" graph "$TF1" --batch 4 -o "$T/tb.lg"
if grep -q '^input image fp32 \[4,32,32,3\]' "$T/tb.lg"; then ok
else bad "TF.js --batch 4 ignored: $(grep '^input' "$T/tb.lg")"; fi
expect 0 "TF.js --input wins" "$LAYSIM" graph "$TF1" --batch 4 --input image=2x32x32x3 \
    -o "$T/ti.lg"
if grep -q '^input image fp32 \[2,32,32,3\]' "$T/ti.lg"; then ok; else bad "--input lost"; fi
expect 0 "TF.js batch 1 without --batch" "$LAYSIM" graph "$TF1" -o "$T/t1.lg"
if grep -q '^input image fp32 \[1,32,32,3\]' "$T/t1.lg"; then ok; else bad "batch 1 changed"; fi
expect 2 "TF.js batch 8 --batch 4" "$LAYSIM" graph "$TF8" --batch 4 -o "$T/t8.lg"
expect_err "--batch 4 applies to no input: 'image' declares a fixed batch of 8.*--input image=" \
    "TF.js fixed batch named"
if [ ! -e "$T/t8.lg" ]; then ok; else bad "refused --batch left an output"; fi
expect 0 "TF.js batch 8 --batch 8" "$LAYSIM" graph "$TF8" --batch 8
expect 0 "ONNX batch 1 --batch 2" "$LAYSIM" graph "$D/narrow.onnx" --batch 2 -o "$T/ob.lg"
if grep -q '^input x fp32 \[batch:2,1,16,16\]' "$T/ob.lg"; then ok
else bad "ONNX --batch 2 ignored: $(grep '^input' "$T/ob.lg")"; fi
expect 0 "problem ONNX --batch 2" "$LAYSIM" problem "$D/narrow.onnx" --batch 2 -o "$T/ob.lsp"
expect 2 "ONNX batch 8 --batch 4" "$LAYSIM" graph "$D/batch8.onnx" --batch 4
expect_err "batch8.onnx: --batch 4 applies to no input: 'x' declares a fixed batch of 8" \
    "ONNX fixed batch named"
expect 0 "ONNX batch 8 --input" "$LAYSIM" graph "$D/batch8.onnx" --batch 4 --input x=4x16
expect 2 "ONNX constant reshape under --batch 4" "$LAYSIM" graph "$D/batch1.onnx" --batch 4
expect_err "node 'flatten' \(Reshape\).*--batch 4 replaced the batch of 1 that input 'x' declares" \
    "the failing node and the replaced batch named"
expect 0 "ONNX batch1 as declared" "$LAYSIM" graph "$D/batch1.onnx"

# HF model types ministral3 (Mistral's decoder) and musicgen_melody_decoder (MusicGen's
# decoder fields at the top level): graph and problem at one layer
H=$SRC/tests/data/hf
expect 0 "graph ministral3" "$LAYSIM" graph "$H/ministral3.json" --layers 1 --seq 32 -o "$T/m3.lg"
if grep -q '^weight dec.l0.self.k.w bf16 \[4096,1024\]' "$T/m3.lg"; then ok
else bad "ministral3: no 8 KV heads of 128"; fi
expect 0 "problem ministral3" "$LAYSIM" problem "$H/ministral3.json" --layers 1 --seq 32 \
    -o "$T/m3.lsp"
expect 0 "graph musicgen_melody_decoder" "$LAYSIM" graph "$H/musicgen_melody_decoder.json" \
    --layers 1 --seq 32 -o "$T/mm.lg"
if grep -q '^weight dec.l0.ffn.fc1.w bf16 \[1536,6144\]' "$T/mm.lg" &&
    grep -q '^input codes3 int32 \[batch:1,seq:32\]' "$T/mm.lg"; then ok
else bad "musicgen_melody_decoder: decoder fields not read"; fi
expect 0 "problem musicgen_melody_decoder" "$LAYSIM" problem "$H/musicgen_melody_decoder.json" \
    --layers 1 --seq 32 -o "$T/mm.lsp"

# LSTM / GRU unrolled over the sequence (from X's shape: --seq for a symbolic one): one input
# projection for all steps, per step one matmul of the state with every gate's weights
R=$D/rnn.onnx
expect 0 "graph rnn --seq 16" "$LAYSIM" graph "$R" --seq 16 --autocast none -o "$T/r.lg"
if grep -q '^op /lstm/LSTM.d0.xw fp32 \[seq:16,128\] = matmul' "$T/r.lg" &&
    grep -q '^op /lstm/LSTM.d0.rec15 fp32 \[seq:1,128\] = matmul /lstm/LSTM.d0.h14 /lstm/LSTM.d0.R' \
        "$T/r.lg" &&
    grep -q '^op /lstm/LSTM.d0.Y fp32 \[seq:16,1,1,32\] = concat' "$T/r.lg" &&
    grep -q '^op /gru/GRU.d0.rec15 fp32 \[seq:1,48\] = matmul /gru/GRU.d0.h14' "$T/r.lg" &&
    grep -q '^op /gru/Squeeze fp32 \[seq:1,16\] = reshape /gru/GRU.d0.Y_h$' "$T/r.lg"; then ok
else bad "rnn: LSTM/GRU not unrolled over 16 steps"; fi
n=$(grep -c '^op /lstm/LSTM.d0.rec[0-9]* .* = matmul' "$T/r.lg")
if [ "$n" = 16 ]; then ok; else bad "LSTM: $n recurrent matmuls for 16 steps"; fi
for m in "$R --seq 8" "$D/rnn_bidir.onnx"; do
    # shellcheck disable=SC2086
    set -- $m
    expect 0 "problem $*" "$LAYSIM" problem "$@" -o "$T/r.lsp"
    expect 0 "solve $*" "$LAYSIM" solve "$T/r.lsp" --solver exact -q -o "$T/r.sol"
    expect 0 "compile $*" "$LAYSIM" compile "$@" --layout "$T/r.sol" -o "$T/r.prog"
    expect 0 "sim $*" "$LAYSIM" sim "$T/r.prog" --json
    if [ "$(json 'd["cycles"] > 0')" = True ]; then ok; else bad "$*: no cycles"; fi
done
expect 0 "graph rnn_bidir" "$LAYSIM" graph "$D/rnn_bidir.onnx" --autocast none -o "$T/rb.lg"
# (Y_h/Y_c of the LSTM are not named by the node: not built)
if grep -q '^op bilstm.Y fp32 \[2,6,2,8\] = concat bilstm.d0.Y bilstm.d1.Y axis=2$' "$T/rb.lg" &&
    ! grep -q '^op bilstm.d1.Y_h' "$T/rb.lg" &&
    grep -q '^op rgru.d0.Y_h fp32 \[2,1,8\] = reshape rgru.d0.h0$' "$T/rb.lg" &&
    grep -q '^op rgru.d0.rech5 fp32 \[2,8\] = matmul rgru.d0.reset5 rgru.d0.Rh' "$T/rb.lg"; then ok
else bad "rnn_bidir: directions, reverse order or the GRU reset matmul wrong"; fi
# a plain RNN: H = tanh(X W^T + H R^T) per step, both outputs graph outputs
expect 0 "graph rnn_tanh" "$LAYSIM" graph "$D/rnn_tanh.onnx" --autocast none -o "$T/rt.lg"
if grep -q '^op rnn.d0.h4 fp32 \[2,8\] = tanh rnn.d0.gates4$' "$T/rt.lg" &&
    grep -q '^output rnn.d0.Y$' "$T/rt.lg" && grep -q '^output rnn.d0.Y_h$' "$T/rt.lg"; then ok
else bad "rnn_tanh: no tanh step or outputs missing"; fi
expect 0 "problem rnn_tanh" "$LAYSIM" problem "$D/rnn_tanh.onnx" -o "$T/rt.lsp"
expect 2 "LSTM with peepholes" "$LAYSIM" graph "$D/bad/lstm_peephole.onnx"
expect_err "node 'lstm_peep' \(LSTM\): peepholes \(input P\) are not supported" "P named"
expect 2 "GRU W of the wrong input size" "$LAYSIM" graph "$D/bad/gru_w_shape.onnx"
expect_err "node 'gru_w' \(GRU\): W has shape \[1,12,6\], expected \[1,12,8\]" "W shape named"
expect 2 "LSTM over 600 steps" "$LAYSIM" graph "$R" --seq 600
expect_err "node '/lstm/LSTM' \(LSTM\): sequence length 600: at most 512 steps" "step limit named"

finish
