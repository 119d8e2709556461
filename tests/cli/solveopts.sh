#!/usr/bin/env bash
# `laysim solve` refuses the options it would otherwise ignore: the solver options with
# --from-external (which runs no solver) and --threads (no solver uses threads); each
# exits 2 naming the option. Usage: solveopts.sh LAYSIM SOURCE_DIR
set -u
L=$1
source "$(dirname "$0")/lib.bash"

expect 0 "problem" "$L" problem zoo:cnn --layers 1 --image 32 -o "$T/c.lsp"
expect 0 "solve" "$L" solve "$T/c.lsp" --solver exact -o "$T/c.sol"
for opt in "--solver exact" "--time-limit 5" "--seed 3" "--param rb.node_limit=0"; do
  # shellcheck disable=SC2086  # the option and its value are two words
  expect 2 "$opt with --from-external" "$L" solve "$T/c.lsp" $opt --from-external "cfn=$T/none"
  expect_err "${opt%% *} does not apply to --from-external" "$opt with --from-external: message"
done
expect 2 "--threads" "$L" solve "$T/c.lsp" --threads 2
expect_err "--threads was removed: no solver uses threads" "--threads: message"
expect 2 "--threads 1" "$L" solve "$T/c.lsp" --threads 1
finish
