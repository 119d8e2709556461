#!/usr/bin/env bash
# Build and run laysim's libFuzzer targets (tests/fuzz/fuzz_*.c) with clang's ASan + UBSan,
# float-cast-overflow included (a float -> int conversion out of range: it is in neither
# compiler's "undefined" group).
# Not part of the CMake build. See tests/fuzz/README.md.
#
#   tests/fuzz/run.sh [-t SECONDS] [-o DIR] [-b] [TARGET...]
#
#   -t SECONDS  time budget per target (default 60; env FUZZ_TIME)
#   -o DIR      work directory: objects, binaries, corpora, crash files
#               (default build-fuzz in the source tree; env FUZZ_OUT)
#   -b          build only, do not fuzz
#   -j JOBS     fuzz JOBS targets at a time (default 1; env FUZZ_JOBS)
#   -s SEED     libFuzzer's random seed (default 0: a new one each run; env FUZZ_SEED).
#               With a fixed seed and a fresh DIR a run is a prefix of every longer run
#               with the same seed, so a crash CI finds can be found again here.
#   TARGET      lg lsp sol answer lstrace csv tracejson neuroncsv prog progz target hf tfjs onnx hlo cmtable chain hwchain (default: all)
#
# Every target first replays its reproducers (tests/data/fuzz/TARGET/*), then fuzzes from a
# corpus seeded with the repository's examples and test data. Exits 1 when any target
# crashed; crash inputs are left in DIR/crash/TARGET/.
set -euo pipefail

SRC=$(cd "$(dirname "$0")/../.." && pwd)
TIME=${FUZZ_TIME:-60}
OUT=${FUZZ_OUT:-$SRC/build-fuzz}
BUILD_ONLY=0
JOBS=${FUZZ_JOBS:-1}
SEED=${FUZZ_SEED:-0}
# Options by hand (the repository keeps option parsing to cli/ and this loop).
while [ $# -gt 0 ]; do
    case $1 in
    -t) TIME=${2:?-t needs SECONDS}; shift 2 ;;
    -o) OUT=${2:?-o needs DIR}; shift 2 ;;
    -j) JOBS=${2:?-j needs JOBS}; shift 2 ;;
    -s) SEED=${2:?-s needs SEED}; shift 2 ;;
    -b) BUILD_ONLY=1; shift ;;
    -h) sed -n '2,21p' "$0"; exit 0 ;;
    -*) echo "run.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
ALL="lg lsp sol answer lstrace csv tracejson neuroncsv prog progz target hf tfjs onnx hlo cmtable chain hwchain"
TARGETS=${*:-$ALL}
CC=${CC:-clang}
SAN="-fsanitize=address,undefined,float-cast-overflow -fno-sanitize-recover=all -fno-omit-frame-pointer"
CFLAGS="-g -O1 -std=gnu11 -D_DEFAULT_SOURCE -DLAYSIM_VERSION=\"fuzz\" -I$SRC -I$OUT/gen $SAN $(pkg-config --cflags cbc)"

# Layers each target links (lowest last) and its external libraries.
layers_of() {
    case $1 in
    lg | hf | tfjs | onnx | hlo) echo "graph util" ;;
    lsp | sol | answer) echo "solver util" ;;
    lstrace | csv | tracejson | neuroncsv) echo "traces util" ;;
    prog | progz | target) echo "sim traces util" ;;
    cmtable) echo "costmodel codegen solver sim graph traces util" ;;
    chain | hwchain) echo "study costmodel codegen solver sim graph traces util" ;;
    *) echo "unknown target: $1" >&2; exit 2 ;;
    esac
}
# (the solver layer links COIN-OR CBC, exact's MIP engine)
LIBS="-lgsl -lgslcblas -ljansson -lprotobuf-c $(pkg-config --libs cbc) -lz -lm -lpthread"

# Seed corpora: the repository's examples and test data for each format.
seeds_of() {
    case $1 in
    lg) ls "$SRC"/examples/*.lg "$SRC"/tests/data/bad/*.lg ;;
    chain) ls "$SRC"/examples/*.lg ;;
    lsp) ls "$SRC"/tests/data/lsp/*.lsp ;;
    sol) ls "$SRC"/tests/data/lsp/*.sol ;;
    prog) ls "$SRC"/tests/data/prog/*.lsprog "$SRC"/tests/data/prog/bad/*.lsprog ;;
    hf) ls "$SRC"/tests/data/hf/*.json ;;
    tracejson | neuroncsv) ls "$SRC"/tests/data/traces/* ;;
    tfjs) ls "$SRC"/tests/data/tfjs/*.json ;;
    onnx) ls "$SRC"/tests/data/onnx/*.onnx "$SRC"/tests/data/onnx/bad/*.onnx ;;
    hlo) ls "$SRC"/tests/data/hlo/*.hlo "$SRC"/tests/data/hlo/bad/*.hlo ;;
    *) ;;  # lstrace, csv: written by seed_traces (below)
    esac
    # Seeds for formats the test data lacks (target INIs, latency tables, a generated .lsp).
    if [ -d "$SRC/tests/fuzz/seeds/$1" ]; then ls "$SRC/tests/fuzz/seeds/$1"/*; fi
}

mkdir -p "$OUT/obj" "$OUT/bin" "$OUT/gen"
# The graph layer's ONNX importer uses protobuf-c code generated from Debian's onnx.proto
# (as the CMake build does).
if [ ! -e "$OUT/gen/onnx.pb-c.c" ] || [ /usr/include/onnx/onnx.proto -nt "$OUT/gen/onnx.pb-c.c" ]; then
    protoc-c --c_out="$OUT/gen" -I/usr/include/onnx onnx.proto
fi

# Compile one layer's sources into lib<layer>.a (rebuilding changed files only).
build_layer() {
    local layer=$1 lib="$OUT/obj/lib$1.a" objs=() f o changed=0
    mkdir -p "$OUT/obj/$layer"
    while IFS= read -r f; do
        o="$OUT/obj/$layer/$(echo "${f#"$SRC"/"$layer"/}" | tr / _).o"
        if [ ! -e "$o" ] || [ "$f" -nt "$o" ] || [ -n "$(find "$SRC" -path "$SRC/build*" -prune -o -name '*.h' -newer "$o" -print -quit)" ]; then
            # shellcheck disable=SC2086
            $CC $CFLAGS -fsanitize=fuzzer-no-link -c "$f" -o "$o"
            changed=1
        fi
        objs+=("$o")
    done < <(find "$SRC/$layer" -name '*.c' | sort; [ "$layer" != graph ] || echo "$OUT/gen/onnx.pb-c.c")
    if [ "$changed" = 1 ] || [ ! -e "$lib" ] || [ "$(ls "$OUT/obj/$layer" | wc -l)" != "${#objs[@]}" ]; then
        rm -f "$OUT/obj/$layer"/*.o.stale "$lib"
        ar rcs "$lib" "${objs[@]}"
    fi
}

declare -A BUILT=()
build_target() {
    local t=$1 libs=() l
    for l in $(layers_of "$t"); do
        if [ -z "${BUILT[$l]:-}" ]; then
            build_layer "$l"
            BUILT[$l]=1
        fi
        libs+=("$OUT/obj/lib$l.a")
    done
    # shellcheck disable=SC2086
    $CC $CFLAGS -fsanitize=fuzzer "$SRC/tests/fuzz/fuzz_$t.c" "${libs[@]}" $LIBS \
        -o "$OUT/bin/fuzz_$t"
}

for t in $TARGETS; do
    echo "== build fuzz_$t"
    build_target "$t"
done
case " $TARGETS " in
*" lstrace "* | *" csv "*)
    # A small program that writes valid seed traces and CSVs (no seeds live in the repo).
    for l in traces util; do [ -n "${BUILT[$l]:-}" ] || { build_layer $l; BUILT[$l]=1; }; done
    # shellcheck disable=SC2086
    $CC $CFLAGS "$SRC/tests/fuzz/seed_traces.c" "$OUT/obj/libtraces.a" "$OUT/obj/libutil.a" \
        $LIBS -o "$OUT/bin/seed_traces"
    ;;
esac
case " $TARGETS " in
*" progz "*)
    # Binary programs are written from the text test programs (no binaries in the repo).
    # shellcheck disable=SC2086
    $CC $CFLAGS "$SRC/tests/fuzz/seed_progz.c" "$OUT/obj/libsim.a" "$OUT/obj/libtraces.a" \
        "$OUT/obj/libutil.a" $LIBS -o "$OUT/bin/seed_progz"
    ;;
esac
[ "$BUILD_ONLY" = 1 ] && exit 0

# Fuzz one target; its summary goes to DIR/TARGET.result, its status is the exit code.
fuzz_one() {
    local t=$1 corpus="$OUT/corpus/$1" crash="$OUT/crash/$1" repro="$SRC/tests/data/fuzz/$1"
    local res="$OUT/$1.result" rc=0 f
    : >"$res"
    mkdir -p "$corpus" "$crash"
    for f in $(seeds_of "$t"); do cp "$f" "$corpus/"; done
    case $t in
    lstrace | csv) "$OUT/bin/seed_traces" "$t" "$corpus" ;;
    progz) "$OUT/bin/seed_progz" "$corpus" "$SRC/tests/data/prog" ;;
    esac
    if [ -d "$repro" ] && [ -n "$(ls -A "$repro")" ]; then
        if ! "$OUT/bin/fuzz_$t" "$repro"/* >"$OUT/$t.replay.log" 2>&1; then
            echo "fuzz_$t: a reproducer in $repro still fails (see $OUT/$t.replay.log)" >>"$res"
            rc=1
        else
            echo "fuzz_$t: $(ls "$repro" | wc -l) reproducer(s) in $repro pass" >>"$res"
        fi
    fi
    if "$OUT/bin/fuzz_$t" -max_total_time="$TIME" -seed="$SEED" -max_len=8192 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$crash/" -print_final_stats=1 "$corpus" >"$OUT/$t.log" 2>&1; then
        grep -E '^stat::number_of_executed_units|^stat::peak_rss' "$OUT/$t.log" |
            sed "s/^/fuzz_$t /" >>"$res"
    else
        echo "fuzz_$t: FAILED, see $OUT/$t.log and $crash/" >>"$res"
        grep -m1 -E 'ERROR|runtime error|deadly signal' "$OUT/$t.log" >>"$res" || true
        rc=1
    fi
    return $rc
}

# Each target's status goes to DIR/TARGET.rc: `wait PID` on a job that `jobs` has already
# reported finished can answer "not a child of this shell" and count a passed target as failed.
status=0
for t in $TARGETS; do
    echo "== fuzz_$t: ${TIME}s"
    rm -f "$OUT/$t.rc"
    { rc=0; fuzz_one "$t" || rc=$?; echo "$rc" >"$OUT/$t.rc"; } &
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 1; done
done
wait
passed=0 failed=0
for t in $TARGETS; do
    if [ "$(cat "$OUT/$t.rc" 2>/dev/null)" = 0 ]; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)) status=1
    fi
    cat "$OUT/$t.result"
done
echo "fuzz: $passed passed, $failed failed"
exit $status
