#!/usr/bin/env bash
# --decode N: the one-token decode step of decoder models (docs/zoo.md "Decode steps"):
# shapes through `laysim graph --json`, the errors (encoder models, --seq, .lg files, bad N),
# a config.json, and the whole loop problem -> exact -> compile -> sim on a small decoder.
# usage: bash tests/cli/decode.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
source "$(dirname "$0")/lib.bash"

# shape NAME: "d0,d1,..." of tensor NAME in the last `graph --json` output
shape() {
    json "next((','.join(map(str, t['shape'])) for t in d['tensors'] if t['name'] == '$1'), 'absent')"
}
expect_shape() {
    local got
    got=$(shape "$1")
    if [ "$got" = "$2" ]; then ok; else bad "$3: $1 is [$got], want [$2]"; fi
}

# shapes of a decode step: M = 1 matmuls, cache N-1 + 1, scores [B,kv_heads,group,N]
# (grouped-query attention folds each KV head's 6 query heads into the rows)
expect 0 "graph qwen2 --decode 64" "$LAYSIM" graph zoo:qwen2 --layers 1 --batch 2 \
    --decode 64 --autocast none --json
expect_shape ids "2,1" "ids"
expect_shape dec.l0.self.q.mm "2,1,1536" "q projection"
expect_shape dec.l0.self.k_cache "2,2,63,128" "k cache input"
expect_shape dec.l0.self.k.append "2,2,64,128" "appended k"
expect_shape dec.l0.self.scores "2,2,6,64" "scores"
expect_shape logits "2,1,151936" "logits"

# the step is much cheaper than the prefill of the same length
expect 0 "stats prefill" "$LAYSIM" graph zoo:qwen2 --layers 2 --seq 256 --stats --json
fp=$(json 'd["flops"]')
expect 0 "stats decode" "$LAYSIM" graph zoo:qwen2 --layers 2 --decode 256 --stats --json
fd=$(json 'd["flops"]')
if python3 -c "import sys; r=$fp/$fd; sys.exit(0 if 128 < r < 384 else 1)"; then ok
else bad "prefill/decode flops $fp/$fd, want about 256"; fi

# errors: exit 2 naming the model or the option, no output file
expect 2 "encoder" "$LAYSIM" graph zoo:bert-base --decode 64 -o "$T/x.lg"
expect_err "'bert-base' \(family encoder\) has no decoder" "encoder"
if [ ! -e "$T/x.lg" ]; then ok; else bad "encoder: output written"; fi
expect 2 "vision" "$LAYSIM" problem zoo:vit-b16 --decode 64 -o "$T/x.lsp"
expect_err "'vit-b16'" "vision"
expect 2 "whisper encoder" "$LAYSIM" graph zoo:whisper-enc --decode 64
expect_err "whisper-enc" "whisper encoder"
expect 2 "--seq with --decode" "$LAYSIM" graph zoo:qwen2 --seq 8 --decode 64
expect_err "--seq and --decode" "--seq with --decode"
expect 2 "--decode 1" "$LAYSIM" graph zoo:qwen2 --decode 1
expect_err "N >= 2" "--decode 1"
expect 2 "--decode 0" "$LAYSIM" graph zoo:qwen2 --decode 0
expect_err "--decode" "--decode 0"
expect 2 "--decode x" "$LAYSIM" graph zoo:qwen2 --decode x
# the cache is state in .lg files: its layouts are free, as the previous step wrote them
expect 0 "decode .lg" "$LAYSIM" graph zoo:qwen2 --layers 1 --decode 64 -o "$T/d.lg"
if grep -Eq '^input dec\.l0\.self\.v_cache bf16 \[[^]]*\] state$' "$T/d.lg"; then ok
else bad "d.lg: the v cache is not written as state"; fi
sed 's/ state$/ stale/' "$T/d.lg" > "$T/bad.lg"
expect 2 "input ... stale" "$LAYSIM" graph "$T/bad.lg"
expect_err "bad.lg:[0-9]+:[0-9]+: expected 'state'" "input ... stale"
expect 0 "write an .lg" "$LAYSIM" graph zoo:cnn -o "$T/cnn.lg"
expect 2 ".lg with --decode" "$LAYSIM" graph "$T/cnn.lg" --decode 64
expect_err "scaling options" ".lg with --decode"

# a config.json decoder
expect 0 "llama config" "$LAYSIM" graph "$SRC/tests/data/hf/llama.json" --layers 1 \
    --decode 100 --autocast none --json
expect_shape dec.l0.self.k_cache "1,8,99,64" "llama k cache"
expect 2 "vit config" "$LAYSIM" graph "$SRC/tests/data/hf/vit.json" --decode 100
expect_err "no decoder" "vit config"

# zoo listing: 14 models have a decode step, the others are skipped with a note
expect 0 "zoo --decode" "$LAYSIM" zoo --decode 64 --layers 1 --json
n=$(json 'len(d)')
if [ "$n" -eq 14 ]; then ok; else bad "zoo --decode lists $n models, want 14"; fi
if grep -q 'bert-base skipped' "$T/err"; then ok; else bad "no skip note for bert-base"; fi

# the whole loop on a decode step
M=(zoo:qwen2 --layers 1 --hidden 256 --decode 512)
expect 0 "problem" "$LAYSIM" problem "${M[@]}" -o "$T/p.lsp"
expect 0 "solve exact" "$LAYSIM" solve "$T/p.lsp" --solver exact -o "$T/s.sol"
expect 0 "compile" "$LAYSIM" compile "${M[@]}" --layout "$T/s.sol" -o "$T/m.prog"
if grep -Eq 'table price ([0-9]+) \(problem objective \1\)' "$T/err" "$T/out"; then ok
else bad "compile: table price differs from the problem objective"; fi
if grep -q 'conv=[^ ]*_cache@' "$T/m.prog"; then bad "compile: the KV cache is converted"
else ok; fi
expect 0 "sim" "$LAYSIM" sim "$T/m.prog" --json
c=$(json 'd["cycles"]')
if [ "$c" -gt 0 ]; then ok; else bad "sim: $c cycles"; fi
# a decode step moves weights and the cache for one token: DMA-bound
u=$(json 'd["engines"]["dma"]["utilization"] > d["engines"]["pe"]["utilization"]')
if [ "$u" = True ]; then ok; else bad "decode step not DMA-bound"; fi

finish
