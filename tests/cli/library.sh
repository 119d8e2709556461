#!/usr/bin/env bash
# The installed library (docs/api.md): `cmake --install` into a scratch prefix, then the C
# example built with nothing but `pkg-config --cflags --libs laysim` and the Python example
# run with PYTHONPATH into the prefix both print the objective and simulated cycles the
# CLI gives for the same model (laysim problem | solve | compile | sim). Also checks the
# installed files: headers, liblaysim.a/.so, the CLI, laysim.pc, laysimConfig.cmake.
# Skipped (77) under LAYSIM_SANITIZE: the sanitized liblaysim.so needs the ASan runtime
# loaded first, which neither a plain cc link nor python3 does.
# usage: bash tests/cli/library.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
BUILD=$(dirname "$LAYSIM")
source "$(dirname "$0")/lib.bash"

if grep -q '^LAYSIM_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "library: skipped, nothing checked: a sanitized liblaysim.so cannot be loaded by a" \
         "plain program or python3 (the ASan runtime must come first)"
    exit 77
fi
for tool in cc pkg-config python3; do
    command -v $tool >/dev/null || { echo "library: skipped: no $tool"; exit 77; }
done

P=$T/prefix
expect 0 "cmake --install" cmake --install "$BUILD" --prefix "$P"
for f in include/laysim/laysim.h lib/liblaysim.a lib/liblaysim.so bin/laysim \
         lib/pkgconfig/laysim.pc lib/cmake/laysim/laysimConfig.cmake \
         lib/python3/site-packages/laysim/__init__.py; do
    [ -e "$P/$f" ] && ok || bad "not installed: $f"
done

export PKG_CONFIG_PATH=$P/lib/pkgconfig
flags=$(pkg-config --cflags --libs laysim) && ok || bad "pkg-config --cflags --libs laysim failed"
pkg-config --print-requires-private laysim | grep -q jansson && ok || bad "laysim.pc: no Requires.private"
expect 0 "build the C example" cc -std=c11 -Wall -Werror "$SRC/examples/c/api_loop.c" $flags -o "$T/loop"
# the static archive alone links too, with the private dependencies from laysim.pc
expect 0 "link the C example statically" \
    sh -c "cc '$SRC/examples/c/api_loop.c' -I'$P/include' '$P/lib/liblaysim.a' \
           \$(pkg-config --static --libs-only-l laysim | sed 's/-llaysim//') -o '$T/loop-static'"

MODEL=zoo:cnn
"$LAYSIM" problem $MODEL -o "$T/m.lsp" 2>/dev/null &&
    "$LAYSIM" solve "$T/m.lsp" --solver exact -o "$T/m.sol" >/dev/null &&
    "$LAYSIM" compile $MODEL --layout "$T/m.sol" -o "$T/m.prog" 2>/dev/null &&
    "$LAYSIM" sim "$T/m.prog" --json >"$T/out" && ok || bad "the CLI loop failed"
cycles=$(json 'd["cycles"]')
objective=$(sed -n 's/^cost //p' "$T/m.sol")
want="objective=$objective cycles=$cycles"
echo "CLI: $want"

LD_LIBRARY_PATH=$P/lib "$T/loop" $MODEL exact >"$T/c.out" 2>"$T/err" && ok || bad "C example: $(cat "$T/err")"
got=$(tail -n 1 "$T/c.out")
[ "$got" = "$want" ] && ok || bad "C example prints '$got', the CLI '$want'"
"$T/loop-static" $MODEL exact 2>/dev/null | tail -n 1 | grep -qx "$want" && ok ||
    bad "statically linked C example disagrees with the CLI"
# the archive exports only laysim_*: a program of its own model_load and graph_free (names
# laysim uses inside) links statically and still runs the library's loop
nm -g --defined-only "$P/lib/liblaysim.a" | awk 'NF == 3 && $3 !~ /^laysim_/ {print $3}' > "$T/leak"
[ ! -s "$T/leak" ] && ok || bad "liblaysim.a exports $(wc -l < "$T/leak") non-laysim_ symbols: $(head -3 "$T/leak" | tr '\n' ' ')"
cat > "$T/clash.c" <<'C'
int model_load(void) { return 7; }
void graph_free(void *g) { (void)g; }
C
expect 0 "link a program defining model_load and graph_free statically" \
    sh -c "cc '$SRC/examples/c/api_loop.c' '$T/clash.c' -I'$P/include' '$P/lib/liblaysim.a' \
           \$(pkg-config --static --libs-only-l laysim | sed 's/-llaysim//') -o '$T/loop-clash'"
"$T/loop-clash" $MODEL exact 2>/dev/null | tail -n 1 | grep -qx "$want" && ok ||
    bad "the program with its own model_load disagrees with the CLI"

# the Python package finds the library beside it (no LD_LIBRARY_PATH)
PYTHONPATH=$P/lib/python3/site-packages python3 "$SRC/examples/python/loop.py" $MODEL exact \
    >"$T/py.out" 2>"$T/err" && ok || bad "Python example: $(cat "$T/err")"
got=$(tail -n 1 "$T/py.out")
[ "$got" = "$want" ] && ok || bad "Python example prints '$got', the CLI '$want'"

# calibration through the library is the command line's: the same table, byte for byte
"$LAYSIM" sim "$T/m.prog" --trace "$T/m.lstrace" >/dev/null &&
    "$LAYSIM" calibrate --traces "$T/m.lstrace" --programs "$T/m.prog" -o "$T/cli.json" -q \
        >/dev/null && ok || bad "the CLI calibrate failed"
PYTHONPATH=$P/lib/python3/site-packages python3 - "$T" <<'PY' 2>"$T/err" && ok || bad "Python calibrate: $(cat "$T/err")"
import sys, laysim
t = sys.argv[1]
tb, is_prior = laysim.calibrate(laysim.Target("nc-v2"), [t + "/m.lstrace"],
                                programs=[t + "/m.prog"], with_verdict=True)
tb.write(t + "/py.json")
PY
# the same numbers up to the BLAS each links first (the CLI and liblaysim.so may resolve
# GSL's cblas calls to different libraries: last-bit differences)
python3 - "$T/cli.json" "$T/py.json" <<'PY' && ok || bad "Python calibrate's table differs from the CLI's"
import json, math, sys
def same(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, float) or isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b
sys.exit(0 if same(*(json.load(open(f)) for f in sys.argv[1:])) else 1)
PY

# fidelity against measured times: the library's figures are validate --measured's
printf 'model,strategy,predicted_cycles,measured_ns\nm,local,1400,900\nm,exact,1300,1000\n' \
    >"$T/meas.csv"
"$LAYSIM" validate --measured "$T/meas.csv" --json >"$T/meas.json" && ok || bad "validate --measured"
PYTHONPATH=$P/lib/python3/site-packages python3 - "$T" <<'PY' 2>"$T/err" && ok ||
import json, sys, laysim
t = sys.argv[1]
d, cli = laysim.validate_measured(t + "/meas.csv"), json.load(open(t + "/meas.json"))
assert (d["pairs"], d["pairs_correct"]) == (cli["pairs"], cli["pairs_correct"]), (d, cli)
assert abs(d["median_rel_error"] - cli["median_rel_error"]) < 1e-9, (d, cli)  # JSON: 10 digits
PY
    bad "Python validate_measured: $(cat "$T/err")"

# find_package(laysim) from the prefix
if command -v cmake >/dev/null; then
    mkdir -p "$T/cm"
    cat >"$T/cm/CMakeLists.txt" <<CMK
cmake_minimum_required(VERSION 3.16)
project(use_laysim C)
find_package(laysim 0.1 REQUIRED)
add_executable(loop $SRC/examples/c/api_loop.c)
target_link_libraries(loop PRIVATE laysim::laysim)
CMK
    expect 0 "find_package(laysim)" sh -c "cmake -S '$T/cm' -B '$T/cm/b' -DCMAKE_PREFIX_PATH='$P' \
        >/dev/null && cmake --build '$T/cm/b' >/dev/null"
    LD_LIBRARY_PATH=$P/lib "$T/cm/b/loop" $MODEL exact 2>/dev/null | tail -n 1 | grep -qx "$want" &&
        ok || bad "the find_package build disagrees with the CLI"
fi
finish
