#!/usr/bin/env bash
# TF.js graph models (model.json) as MODEL: import, errors, and the model commands.
# usage: bash tests/cli/tfjs.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"
D=$SRC/tests/data/tfjs

# the fixtures import; shapes where the op families meet
expect 0 "graph cnn.json" "$LAYSIM" graph "$D/cnn.json" -o "$T/cnn.lg"
for want in 'image fp32 \[1,32,32,3\]' \
    'conv1.conv fp32 \[1,16,16,16\] = conv2d .* stride=2,2 pad=1,1' \
    'dw1.nchw fp32 \[1,16,16,16\] = conv2d .* groups=16' \
    'pool.nchw fp32 \[1,16,8,8\] = pool_max' \
    'pad fp32 \[1,10,10,16\] = concat' \
    'conv2.nchw fp32 \[1,32,8,8\] = conv2d' \
    'up fp32 \[1,16,16,32\] = gather' \
    'avg.nchw fp32 \[1,32,8,8\] = pool_avg' \
    'gap fp32 \[1,64\] = reduce_mean' \
    'fc.matmul fp32 \[1,10\] = matmul' \
    'probs fp32 \[1,10\] = softmax'; do
    if grep -Eq "^(op|input) $want" "$T/cnn.lg"; then ok; else bad "cnn.lg lacks /$want/"; fi
done
# between two convolutions the NHWC round trip cancels: dw1 reads conv1's NCHW output
if grep -q '^op dw1.nchw .*= conv2d conv1.relu ' "$T/cnn.lg"; then ok; else bad "conv1 -> dw1 transposed"; fi
expect 0 "graph post.json" "$LAYSIM" graph "$D/post.json" -o "$T/post.lg"
for want in 'bmm fp32 \[1,8,8\] = batch_matmul' 'split fp32 \[1,8,4\] = slice' \
    'ss fp32 \[1,4,2\] = slice' 'pack fp32 \[2,3\] = concat' 'mirror fp32 \[4,3\] = concat' \
    'tile fp32 \[4,6\] = concat' 'topk fp32 \[4,3\] = add' 'gather fp32 \[2,3\] = gather' \
    'nms int32 \[5\] = cast' 'ids_f fp32 \[5\] = cast'; do
    if grep -Eq "^op $want" "$T/post.lg"; then ok; else bad "post.lg lacks /$want/"; fi
done

# unknown dims: --batch fills axis 0; options with nothing to scale are refused
expect 0 "--batch 4" "$LAYSIM" graph "$D/cnn.json" --batch 4 -o "$T/b4.lg"
if grep -q '^input image fp32 \[4,32,32,3\]' "$T/b4.lg"; then ok; else bad "--batch 4 not applied"; fi
python3 - "$D/cnn.json" "$T/anysize.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for n in d["modelTopology"]["node"]:
    if n["op"] == "Placeholder":
        n["attr"]["shape"]["shape"]["dim"][1:3] = [{"size": "-1"}, {"size": "-1"}]
json.dump(d, open(sys.argv[2], "w"))
PY
expect 0 "--image 32" "$LAYSIM" graph "$T/anysize.json" --image 32 -o "$T/i32.lg"
if grep -q '^input image fp32 \[1,32,32,3\]' "$T/i32.lg"; then ok; else bad "--image 32 not applied"; fi
# the default 224 does not fit the model's fixed 16x16 resize: exit 2 naming the node
expect 2 "default image size" "$LAYSIM" graph "$T/anysize.json"
expect_err "node 'cat' \(ConcatV2\): input 1's axis 1 is 56, input 0's is 8" "default 224"
# --input: a name that is no Placeholder, or a wrong rank, exits 2 listing the inputs
expect 0 "--input image:0" "$LAYSIM" graph "$D/cnn.json" --input image:0=2x32x32x3 -o "$T/in.lg"
if grep -q '^input image fp32 \[2,32,32,3\]' "$T/in.lg"; then ok; else bad "--input image:0 ignored"; fi
expect 2 "--input unknown name" "$LAYSIM" graph "$D/cnn.json" --input img=1x32x32x3 -o "$T/u.lg"
expect_err "--input img=...: the model has no input 'img' \(its inputs: image\)" "unknown name"
if [ ! -e "$T/u.lg" ]; then ok; else bad "--input img left an output"; fi
expect 2 "--input wrong rank" "$LAYSIM" graph "$D/cnn.json" --input image=32x32x3
expect_err "--input gives rank 3, the model has rank 4" "rank mismatch"
# an input of unknown rank (as rvm.json's) takes its whole shape from --input
python3 - "$D/cnn.json" "$T/norank.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for n in d["modelTopology"]["node"]:
    if n["op"] == "Placeholder":
        n["attr"]["shape"]["shape"] = {"unknownRank": True}
json.dump(d, open(sys.argv[2], "w"))
PY
expect 2 "unknown rank" "$LAYSIM" graph "$T/norank.json"
expect_err "input of unknown rank: give its shape with --input image=" "unknown rank named"
expect 0 "unknown rank + --input" "$LAYSIM" graph "$T/norank.json" --input image=1x32x32x3 -o "$T/nr.lg"
if grep -q '^input image fp32 \[1,32,32,3\]' "$T/nr.lg"; then ok; else bad "--input image (unknown rank) ignored"; fi
expect 2 "--layers on a TF.js model" "$LAYSIM" graph "$D/cnn.json" --layers 2
expect_err 'TF.js model takes --batch and --image' "--layers refused"
expect 2 "--decode on a TF.js model" "$LAYSIM" graph "$D/cnn.json" --decode 12
expect_err 'not --layers, --seq, --hidden, --decode' "--decode refused"

# malformed and unsupported models: exit 2 naming file:line and the node
expect 2 "unsupported op" "$LAYSIM" graph "$D/bad_unsupported.json"
expect_err "bad_unsupported.json:[0-9]+:[0-9]+: node 'y' \(Cumsum\): unsupported op" "unsupported"
expect 2 "missing input" "$LAYSIM" graph "$D/bad_missing_input.json"
expect_err "node 'y' \(Relu\): input 1 'nowhere' names no node" "missing input"
expect 2 "cycle" "$LAYSIM" graph "$D/bad_cycle.json"
expect_err "node '(a|b)' \((AddV2|Relu)\): lies on a cycle" "cycle"
expect 2 "while loop" "$LAYSIM" graph "$D/bad_while.json"
expect_err "node 'w/Enter' \(Enter\): a while loop's frame without a LoopCond" "while loop named"
expect 2 "wrong type" "$LAYSIM" graph "$D/bad_wrong_type.json"
expect_err "node 'y' \(Relu\): field 'input': expected an array" "wrong type"
expect 2 "run-time reshape target" "$LAYSIM" graph "$D/bad_dynamic_reshape.json"
expect_err "node 'y' \(Reshape\): input 1 must be a constant" "dynamic reshape"
expect 2 "malformed JSON" "$LAYSIM" graph "$D/bad_malformed.json"
expect_err "bad_malformed.json:1:[0-9]+:" "malformed position"
head -c 700 "$D/cnn.json" >"$T/truncated.json"
expect 2 "truncated" "$LAYSIM" graph "$T/truncated.json"
# a HuggingFace config.json is still a HuggingFace config
expect 0 "HF config" "$LAYSIM" graph "$SRC/tests/data/hf/$(ls "$SRC/tests/data/hf" | grep -m1 json)"

# the model commands take a model.json: the whole loop, explain, validate, study
expect 0 "problem" "$LAYSIM" problem "$D/cnn.json" -o "$T/p.lsp"
expect 0 "solve exact" "$LAYSIM" solve "$T/p.lsp" --solver exact -o "$T/s.sol"
expect 0 "compile" "$LAYSIM" compile "$D/cnn.json" --layout "$T/s.sol" -o "$T/m.prog"
expect 0 "sim --json" "$LAYSIM" sim "$T/m.prog" --json
if [ "$(json 'd["cycles"] > 0')" = True ]; then ok; else bad "sim: no cycles"; fi
expect 0 "explain" "$LAYSIM" explain "$D/cnn.json" --op fc.matmul
expect 0 "solve MODEL" "$LAYSIM" solve "$D/cnn.json" --solver exact -o "$T/s2.sol"
expect 0 "tune" "$LAYSIM" tune "$D/cnn.json" --evaluations 5 -o "$T/t.sol"
expect 0 "problem post.json" "$LAYSIM" problem "$D/post.json" -o "$T/p2.lsp"
expect 0 "validate" "$LAYSIM" validate "$D/cnn.json" --json
expect 0 "study --models FILE" "$LAYSIM" study --models "$D/cnn.json" --no-calibrate \
    --out "$T/study" --exact-time-limit 20
finish
