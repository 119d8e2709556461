#!/usr/bin/env bash
# laysim zoo: the built-in model zoo listing.
# usage: bash tests/cli/zoo.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# --json: an array with >= 20 models; every row has the required keys
expect 0 "zoo --json" "$LAYSIM" zoo --json
cp "$T/out" "$T/zoo.json"
n=$(grep -c '"name":' "$T/zoo.json")
if [ "$n" -ge 20 ]; then ok; else bad "zoo --json lists $n models, want >= 20"; fi
for key in family ops tensors treewidth_ub compute_ops source; do
    k=$(grep -c "\"$key\":" "$T/zoo.json")
    if [ "$k" -eq "$n" ]; then ok; else bad "key $key in $k of $n rows"; fi
done
max=$(grep '"ops":' "$T/zoo.json" | tr -dc '0-9\n' | sort -n | tail -1)
min=$(grep '"ops":' "$T/zoo.json" | tr -dc '0-9\n' | sort -n | head -1)
if [ "$max" -gt 10000 ]; then ok; else bad "largest model has $max ops, want > 10000"; fi
if [ "$min" -le 45 ]; then ok; else bad "smallest model has $min ops, want about 40"; fi
for name in bert-base bert-large albert-large electra-large xlm-roberta bart-base distilbart \
    olmo-7b qwen2 ministral gemma whisper-enc whisper-dec cnn resnet50 vit-b16 perceiver \
    olmoe granite-moe flexolmo musicgen paligemma qwen-vl kosmos; do
    if grep -q "\"name\": \"$name\"" "$T/zoo.json"; then ok; else bad "zoo lacks $name"; fi
done

# table output, selected models, zoo: prefix accepted
expect 0 "zoo cnn zoo:bert-base" "$LAYSIM" zoo cnn zoo:bert-base
if [ "$(wc -l <"$T/out")" -eq 3 ] && grep -q '^cnn .* 42 ' "$T/out"; then ok
else bad "zoo cnn: unexpected table"; cat "$T/out"; fi
expect 0 "zoo --layers 1 --seq 8 bert-base" "$LAYSIM" zoo --layers 1 --seq 8 bert-base
if grep -q '^bert-base .* 55 ' "$T/out"; then ok; else bad "1-layer BERT is not 55 ops"; fi

# listing all with an option one model cannot take: skipped with a note, exit 0
expect 0 "zoo --layers 1" "$LAYSIM" zoo --layers 1 --seq 8
if grep -q 'resnet50 skipped' "$T/err"; then ok; else bad "no skip note for resnet50"; fi
# ... but naming that model is an error
expect 2 "zoo --layers 1 resnet50" "$LAYSIM" zoo --layers 1 resnet50
if grep -q 'ResNet depth' "$T/err"; then ok; else bad "no ResNet depth message"; fi

# bad usage
expect 2 "unknown model" "$LAYSIM" zoo gpt-7
if grep -q "unknown zoo model 'gpt-7'" "$T/err"; then ok; else bad "unknown model message"; fi
expect 2 "bad --layers" "$LAYSIM" zoo --layers x
expect 2 "bad --dtype" "$LAYSIM" zoo --dtype int8 cnn
expect 2 "unknown option" "$LAYSIM" zoo --frobnicate
expect 0 "help" "$LAYSIM" zoo --help
if grep -q 'treewidth' "$T/out"; then ok; else bad "help text"; fi

# a bare zoo name is not a file: the error suggests the zoo: prefix
expect 2 "bare zoo name" "$LAYSIM" graph granite-moe
expect_err "did you mean zoo:granite-moe" "bare zoo name: suggestion"
finish
