#!/usr/bin/env bash
# laysim zoo: the built-in model zoo listing.
# usage: bash tests/cli/zoo.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
pass=0
fail=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
expect_rc() { # want_rc description command...
    local want=$1 what=$2
    shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok; else bad "$what: exit $rc, want $want"; cat "$tmp/err"; fi
}

# --json: an array with >= 20 models; every row has the required keys
expect_rc 0 "zoo --json" "$LAYSIM" zoo --json
cp "$tmp/out" "$tmp/zoo.json"
n=$(grep -c '"name":' "$tmp/zoo.json")
if [ "$n" -ge 20 ]; then ok; else bad "zoo --json lists $n models, want >= 20"; fi
for key in family ops tensors treewidth_ub compute_ops source; do
    k=$(grep -c "\"$key\":" "$tmp/zoo.json")
    if [ "$k" -eq "$n" ]; then ok; else bad "key $key in $k of $n rows"; fi
done
max=$(grep '"ops":' "$tmp/zoo.json" | tr -dc '0-9\n' | sort -n | tail -1)
min=$(grep '"ops":' "$tmp/zoo.json" | tr -dc '0-9\n' | sort -n | head -1)
if [ "$max" -gt 10000 ]; then ok; else bad "largest model has $max ops, want > 10000"; fi
if [ "$min" -le 45 ]; then ok; else bad "smallest model has $min ops, want about 40"; fi
for name in bert-base bert-large albert-large electra-large xlm-roberta bart-base distilbart \
    olmo-7b qwen2 ministral gemma whisper-enc whisper-dec cnn resnet50 vit-b16 perceiver \
    olmoe granite-moe flexolmo musicgen paligemma qwen-vl kosmos; do
    if grep -q "\"name\": \"$name\"" "$tmp/zoo.json"; then ok; else bad "zoo lacks $name"; fi
done

# table output, selected models, zoo: prefix accepted
expect_rc 0 "zoo cnn zoo:bert-base" "$LAYSIM" zoo cnn zoo:bert-base
if [ "$(wc -l <"$tmp/out")" -eq 3 ] && grep -q '^cnn .* 42 ' "$tmp/out"; then ok
else bad "zoo cnn: unexpected table"; cat "$tmp/out"; fi
expect_rc 0 "zoo --layers 1 --seq 8 bert-base" "$LAYSIM" zoo --layers 1 --seq 8 bert-base
if grep -q '^bert-base .* 55 ' "$tmp/out"; then ok; else bad "1-layer BERT is not 55 ops"; fi

# listing all with an option one model cannot take: skipped with a note, exit 0
expect_rc 0 "zoo --layers 1" "$LAYSIM" zoo --layers 1 --seq 8
if grep -q 'resnet50 skipped' "$tmp/err"; then ok; else bad "no skip note for resnet50"; fi
# ... but naming that model is an error
expect_rc 2 "zoo --layers 1 resnet50" "$LAYSIM" zoo --layers 1 resnet50
if grep -q 'ResNet depth' "$tmp/err"; then ok; else bad "no ResNet depth message"; fi

# bad usage
expect_rc 2 "unknown model" "$LAYSIM" zoo gpt-7
if grep -q "unknown zoo model 'gpt-7'" "$tmp/err"; then ok; else bad "unknown model message"; fi
expect_rc 2 "bad --layers" "$LAYSIM" zoo --layers x
expect_rc 2 "bad --dtype" "$LAYSIM" zoo --dtype int8 cnn
expect_rc 2 "unknown option" "$LAYSIM" zoo --frobnicate
expect_rc 0 "help" "$LAYSIM" zoo --help
if grep -q 'treewidth' "$tmp/out"; then ok; else bad "help text"; fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
