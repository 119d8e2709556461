#!/bin/sh
# Run a replay driver (tests/fuzz/replay.c) with TMPDIR set to an empty directory of its
# own, and fail when the harness leaves anything in it: fuzz targets remove their scratch
# files on exit (tests/fuzz/fuzz_common.h), so CI and fuzz runs leave no litter in /tmp.
# Usage: replay_clean.sh DIR REPLAY INPUT...
dir=$1
shift
rm -rf "$dir" && mkdir -p "$dir" || exit 1
TMPDIR=$dir "$@" || exit $?
rmdir "$dir" 2>/dev/null && exit 0
echo "replay_clean.sh: $1 left scratch files in $dir:" >&2
ls -A "$dir" >&2
exit 1
