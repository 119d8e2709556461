#!/usr/bin/env bash
# The Python package installed as the README says (docs/python.md, "Installing"): pip with
# --no-build-isolation, offline (--no-index), into a venv made by Debian's python3 with
# --system-site-packages (its setuptools and wheel build it), from a copy of python/ so the
# source tree stays clean. The installed package must carry the built library and run the
# loop from another directory with no LAYSIM_LIBRARY and no PYTHONPATH.
# Skipped (77) without /usr/bin/python3's venv, setuptools or wheel, and under
# LAYSIM_SANITIZE (the bundled library would need the ASan runtime preloaded).
# usage: bash tests/cli/pip_install.sh <laysim-binary> <source-dir>
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
BUILD=$(dirname "$LAYSIM")
source "$(dirname "$0")/lib.bash"

PY=/usr/bin/python3
if grep -q '^LAYSIM_SANITIZE:BOOL=ON' "$BUILD/CMakeCache.txt" 2>/dev/null; then
    echo "pip_install: skipped, nothing checked: a sanitized liblaysim.so needs the ASan runtime"
    exit 77
fi
if ! $PY -c 'import venv, setuptools, wheel' 2>/dev/null; then
    echo "pip_install: skipped: $PY lacks venv, setuptools or wheel (python3-venv," \
         "python3-setuptools, python3-wheel)"
    exit 77
fi

cp -r "$SRC/python" "$T/src"
rm -rf "$T/src/build" "$T/src/"*.egg-info    # an earlier in-tree build's leftovers
expect 0 "venv" $PY -m venv --system-site-packages "$T/venv"
LAYSIM_LIBRARY="$BUILD/liblaysim.so" expect 0 "pip install" \
    "$T/venv/bin/python" -m pip install --no-index --no-build-isolation "$T/src"
site=$("$T/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -f "$site/laysim/liblaysim.so" ] && ok || bad "the wheel lacks laysim/liblaysim.so"

cd "$T" || exit 1
unset LAYSIM_LIBRARY PYTHONPATH
"$T/venv/bin/python" - >"$T/out" 2>"$T/err" <<'PY'
import laysim
assert laysim.__file__.startswith(__import__("sys").prefix), laysim.__file__
t = laysim.Target("nc-v2")
with laysim.Model("zoo:cnn") as m, laysim.Instance(m, t) as inst:
    sol = inst.solve("greedy")
    print(sol.cost, inst.compile(sol).simulate(t).cycles)
PY
[ $? -eq 0 ] && ok || bad "the installed package: $(head -c 300 "$T/err")"
grep -Eq '^[0-9]+ [0-9]+$' "$T/out" && ok || bad "no 'cost cycles' line: $(cat "$T/out")"
# the README's third command: the example script with the installed package
expect 0 "examples/python/loop.py" "$T/venv/bin/python" "$SRC/examples/python/loop.py" zoo:cnn greedy
grep -q '^objective=[0-9]* cycles=[0-9]*$' "$T/out" && ok || bad "loop.py: $(tail -1 "$T/out")"
# docs/python.md's worked example, as the page shows it, with the installed package (from
# the repository root: it reads tests/data/onnx/); its output must be the page's
"$T/venv/bin/python" - "$SRC/docs/python.md" "$T/example.py" "$T/shown" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
section = re.search(r"^## A worked example.*?(?=^## )", text, re.S | re.M).group(0)
blocks = re.findall(r"^```(\w+)\n(.*?)^```$", section, re.S | re.M)
open(sys.argv[2], "w").write(next(b for lang, b in blocks if lang == "python"))
open(sys.argv[3], "w").write(next(b for lang, b in blocks if lang == "text"))
PY
(cd "$SRC" && "$T/venv/bin/python" "$T/example.py") >"$T/ex.out" 2>"$T/ex.err" &&
    cmp -s "$T/ex.out" "$T/shown" && ok ||
    bad "docs/python.md's worked example with the installed package: $(head -c 300 "$T/ex.err")$(diff "$T/shown" "$T/ex.out" | head -5)"
finish
