#!/usr/bin/env bash
# What `make study` runs: the quick study (docs/study.md) with the laysim built in $1,
# writing out/study/ and printing the Table 1 analogue and the headline figures.
set -euo pipefail
build=${1:-build}
root=$(cd "$(dirname "$0")/.." && pwd)
laysim="$build/laysim"
[ -x "$laysim" ] || laysim="$root/$build/laysim"
if [ ! -x "$laysim" ]; then
    echo "scripts/study.sh: no laysim binary in $build (run make build first)" >&2
    exit 1
fi
cd "$root"
exec "$laysim" study --quick --force --out out/study
