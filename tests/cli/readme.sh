#!/usr/bin/env bash
# README.md runnable as written (issue 22): every `laysim ...` command of the README, from
# inline code spans and from indented or fenced code blocks, in document order (`a && b`
# counts as two), runs with `laysim` meaning the built binary, in a fresh directory holding
# only copies of examples/ and tests/. Each must exit 0 within `timeout 300`, except the
# allow-listed long ones below. Commands with <placeholders> and anything that is not a
# laysim invocation (make, cmake, scripts/...) are not run. Without a binary: "skipped", 0.
# usage: bash tests/cli/readme.sh <laysim-binary> <source-dir>
set -u
LAYSIM=${1:?laysim binary}
SRC=${2:?source dir}
[ -x "$LAYSIM" ] || { echo "skipped: no laysim binary at $LAYSIM"; exit 0; }

# Long commands: the two quick studies (1-1.5 min each on 2 cores), the full-size study
# and the calibration loop over four large models would cost CI minutes; tests/cli/study.sh
# and calibrate.sh run smaller studies and loops to the end. Each of these runs for the
# seconds given here, and a timeout (exit 124) passes: it parsed its arguments, read its
# inputs and was still working. Any other exit code but 0 fails, as does an entry that is
# no longer in the README.
declare -A LONG=(
    ["laysim study --quick --out my-study"]=10
    ["laysim study --quick --force --out out/study"]=10
    ["laysim study --models full --out out/study-full"]=10
    ["laysim loop zoo:bert-base zoo:resnet50 zoo:vit-b16 zoo:olmoe --json"]=10
)

# the laysim commands of a Markdown file, one a line, in document order
readme_commands() {
    python3 - "$1" <<'EOF'
import re, sys
text, snippets, fenced, para = open(sys.argv[1]).read(), [], False, []
def spans():  # inline code spans of the paragraph so far (they may cross lines)
    snippets.extend(re.findall(r"`([^`]+)`", " ".join(para))); para.clear()
for line in text.splitlines():
    if line.lstrip().startswith("```"):
        spans(); fenced = not fenced
    elif fenced or line.startswith("    "):
        spans(); snippets.append(re.sub(r"\s+#.*$", "", line))
    elif not line.strip():
        spans()
    else:
        para.append(line)
spans()
for s in snippets:
    for cmd in s.split("&&"):
        cmd = " ".join(cmd.split())
        if re.match(r"laysim( |$)", cmd) and not re.search(r"<[^>]*>", cmd):
            print(cmd)
EOF
}

T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
mkdir -p "$T/bin" "$T/run"
ln -s "$(readlink -f "$LAYSIM")" "$T/bin/laysim"
cp -r "$SRC/examples" "$SRC/tests" "$T/run/"
fail=0

n=0
# run CMD: run one README command in the scratch directory, print ok / skip / FAIL
run() {
    local cmd=$1 limit=300 rc t0=$SECONDS
    [ -n "${LONG[$cmd]:-}" ] && limit=${LONG[$cmd]}
    (cd "$T/run" && PATH="$T/bin:$PATH" timeout -k 10 "$limit" bash -c "$cmd") >"$T/out" 2>"$T/err"
    rc=$?
    local took="$((SECONDS - t0)) s"
    if [ $rc -eq 0 ] || { [ $rc -eq 124 ] && [ -n "${LONG[$cmd]:-}" ]; }; then
        echo "ok    $cmd  (exit $rc, $took)"
    elif [[ $cmd == "laysim cosim"* ]] && grep -q "built without the RTL" "$T/err"; then
        # the RTL is an optional part of the build (cosim.sh is skipped the same way)
        echo "skip  $cmd  (laysim built without the RTL)"
    else
        echo "FAIL  $cmd  (exit $rc, $took): $(head -c 300 "$T/err")"
        fail=$((fail + 1))
    fi
}

# what a reader needs before the commands: the README opening with exactly the two set-up
# commands, the binary on PATH in the next command block, and a scratch directory (that sees examples/ and tests/) before the
# first laysim command, so that following the README leaves no files in the repository
python3 - "$SRC/README.md" <<'EOF' || fail=$((fail + 1))
import re, sys
lines = open(sys.argv[1]).read().splitlines()
def at(pattern):
    return next((i for i, l in enumerate(lines) if re.search(pattern, l)), None)
path, test = at(r"^    export PATH=\$PWD/build:\$PATH\b"), at(r"^    make test\b")
scratch = at(r"^    export LAYSIM_SRC=\$PWD && mkdir -p (\S+) && cd \1$")
links = at(r'^    ln -sfn "\$LAYSIM_SRC/examples" "\$LAYSIM_SRC/tests" \.$')
first = at(r"^\|.*`laysim ")          # the first row of the table of commands
block = [l for l in lines[:test + 2 if test is not None else 0] if l.startswith("    ")]
if [l.split()[:2] for l in block] != [["make", "study"], ["make", "test"]] or \
        lines[test + 1].strip():
    sys.exit("FAIL: README.md does not open with exactly `make study` and `make test`")
nxt = next((i for i in range(test + 2, len(lines)) if lines[i].startswith("    ")), None)
if path is None or path != nxt:
    sys.exit("FAIL: README.md: no `export PATH=$PWD/build:$PATH` as the next command after "
             "`make test`")
if scratch is None or links is None or first is None or not scratch < links < first:
    sys.exit("FAIL: README.md: no scratch directory (mkdir, cd, ln -sfn examples tests) "
             "before the first laysim command")
EOF
cmds=$(readme_commands "$SRC/README.md")
# the README must still contain commands: an extraction that finds none fails
[ "$(echo "$cmds" | grep -c .)" -ge 20 ] || { echo "FAIL: too few laysim commands in README.md"; exit 1; }
for c in "${!LONG[@]}"; do
    grep -Fxq "$c" <<<"$cmds" || { echo "FAIL  allow-listed but not in README.md: $c"; fail=$((fail + 1)); }
done
while IFS= read -r cmd; do
    n=$((n + 1))
    run "$cmd"
done <<<"$cmds"
echo "$n README commands, $fail failed"
[ $fail -eq 0 ]
