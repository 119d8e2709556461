#!/usr/bin/env bash
# README.md's sample outputs are what laysim prints today (issue 46): scripts/readme-samples.sh
# --check runs the commands behind every `<!-- sample: NAME -->` block (the quick study, the
# calibration example) and fails with a diff when a figure differs; scripts/readme-samples.sh
# regenerates them. Its marker checks (no command run): unbalanced markers and unknown
# names exit 2.
# usage: bash tests/cli/readme_samples.sh <laysim-binary> <source-dir>
B=$1
SRC=$2
source "$SRC/tests/cli/lib.bash"
S=$SRC/scripts/readme-samples.sh

printf 'x\n<!-- sample: study-quick -->\n```\n```\n' >"$T/open.md"
expect 2 "unclosed sample marker" bash "$S" --check --laysim "$B" "$T/open.md"
expect_err "unbalanced sample markers" "unclosed sample marker"
printf '<!-- sample: no-such -->\n<!-- /sample -->\n' >"$T/unknown.md"
expect 2 "unknown sample name" bash "$S" --check --laysim "$B" "$T/unknown.md"
expect_err "unknown sample 'no-such'" "unknown sample name"
expect 2 "README without samples" bash "$S" --check --laysim "$B" "$SRC/docs/design.md"

if bash "$S" --check --laysim "$B" "$SRC/README.md" >"$T/out" 2>"$T/err"; then
    ok
else
    bad "README.md samples drifted from a run:"
    cat "$T/out" "$T/err"
fi
finish
