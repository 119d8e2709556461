#!/usr/bin/env bash
# The sample outputs of README.md, produced by a real run (issue 46). Each sample sits
# between `<!-- sample: NAME -->` and `<!-- /sample -->`; this script runs the commands
# behind every NAME with the built binary in a scratch directory and writes their output
# there, as a fenced block (function sample_NAME, "-" read as "_"). Figures that depend on the machine (seconds) are masked, so two
# runs give the same text.
#   scripts/readme-samples.sh [--check] [--laysim BIN] [README]
# Without --check, README.md is rewritten in place (atomically). With --check, nothing is
# written: exit 1 with a diff when README.md differs from the run, 2 on a missing binary, an
# unknown sample name or unbalanced markers. Samples and their cost (2 cores):
#   study-quick  `laysim study --quick`, Table 1 trimmed             ~20-60 s
#   calibrate    the calibration example: traces, fit, two validates  ~10 s
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
check=0
laysim=$root/build/laysim
readme=$root/README.md
while [ $# -gt 0 ]; do
    case $1 in
    --check) check=1 ;;
    --laysim) laysim=${2:?--laysim needs a binary}; shift ;;
    -h | --help) sed -n '2,11s/^# \{0,1\}//p' "$0"; exit 0 ;;
    -*) echo "readme-samples.sh: unknown option $1" >&2; exit 2 ;;
    *) readme=$1 ;;
    esac
    shift
done
[ -x "$laysim" ] || { echo "readme-samples.sh: no laysim binary at $laysim (make build)" >&2; exit 2; }
laysim=$(readlink -f "$laysim")
readme=$(readlink -f "$readme")
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
bin=$T/bin   # `laysim` on PATH for the samples that run the README's own commands
mkdir "$bin" && ln -s "$laysim" "$bin/laysim"

# sample_study_quick: the Table 1 analogue of `make study`: its title cut after "roofline",
# the column heads, the first five models, and four summary lines (the mcts line without
# its tuning time).
sample_study_quick() {
    "$laysim" study --quick --force --out s 2>/dev/null | awk '
        /^Target /              { sub(/roofline = .*/, "roofline = ...)"); print; next }
        /^  model /             { print; rows = 5; next }
        rows > 0                { print; if (--rows == 0) print "  ..."; next }
        /^  (local|exact) +relative performance/ || /^  treewidth DP solved/ { print; next }
        /^  mcts vs exact \(datasheet/ { sub(/; [0-9.]+ s tuning$/, "; ... s tuning"); print }'
}

# sample_calibrate: what the README's calibration example prints: its ```sh block (taken
# from the README itself) run in order, showing each `calibrate` and `validate` command line
# and its output (calibrate's: its summary and the models-left-out lines).
sample_calibrate() {
    local c keep fit='^[0-9]+ of [0-9]+ entries|^models left out|^  the model of|^  mean |^form chosen'
    awk '/^```sh$/ { f = ++n == 1; next } /^```/ { f = 0 } f' "$readme" >cmds.sh
    grep -q '^laysim validate' cmds.sh || { echo "no validate in the sh block" >&2; return 1; }
    while read -r c; do
        case $c in
        "laysim calibrate "*) keep=$fit ;;
        "laysim validate "*) keep=. ;;
        *) keep='' ;;
        esac
        [ -n "$keep" ] && echo "\$ $c"
        PATH=$bin:$PATH bash -ec "$c" </dev/null >out 2>/dev/null || return 1
        [ -z "$keep" ] || grep -E "$keep" out
    done <cmds.sh
}

# the names of the samples README.md asks for, checking that markers pair up
names=$(awk '
    /^<!-- sample: [a-z0-9-]+ -->$/ { if (open) exit 1; open = 1; print $3; next }
    /^<!-- \/sample -->$/           { if (!open) exit 1; open = 0 }
    END                             { if (open) exit 1 }' "$readme") ||
    { echo "readme-samples.sh: $readme: unbalanced sample markers" >&2; exit 2; }
[ -n "$names" ] || { echo "readme-samples.sh: $readme: no sample markers" >&2; exit 2; }
for name in $names; do
    declare -F "sample_${name//-/_}" >/dev/null ||
        { echo "readme-samples.sh: $readme: unknown sample '$name'" >&2; exit 2; }
    mkdir -p "$T/run-$name"
    ln -s "$root/examples" "$root/tests" "$T/run-$name/"
    (cd "$T/run-$name" && "sample_${name//-/_}") >"$T/$name.txt" ||
        { echo "readme-samples.sh: sample '$name' failed" >&2; exit 1; }
    [ -s "$T/$name.txt" ] || { echo "readme-samples.sh: sample '$name' printed nothing" >&2; exit 1; }
done

# README.md with every sample's body replaced by the fenced output of its run
awk -v dir="$T" '
    /^<!-- sample: [a-z0-9-]+ -->$/ {
        print; print "```"
        f = dir "/" $3 ".txt"
        while ((getline l < f) > 0) print l
        close(f); print "```"; skip = 1; next }
    /^<!-- \/sample -->$/ { skip = 0 }
    !skip' "$readme" >"$T/README.new"

if [ $check = 1 ]; then
    diff -u --label "$readme" --label "$readme (from a run)" "$readme" "$T/README.new" && exit 0
    echo "readme-samples.sh: the samples of $readme are not what laysim prints;" \
        "run scripts/readme-samples.sh to regenerate them" >&2
    exit 1
fi
cmp -s "$readme" "$T/README.new" && { echo "$readme: samples up to date"; exit 0; }
cp "$T/README.new" "$readme.tmp.$$" && mv "$readme.tmp.$$" "$readme"
echo "$readme: samples regenerated: ${names//$'\n'/ }"
