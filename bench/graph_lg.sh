#!/bin/bash
# Times `laysim graph --stats --json` (read + validate + statistics incl. the treewidth bound)
# on generated .lg files: a residual MLP stack of N blocks (6 compute ops per block).
# usage: bench/graph_lg.sh LAYSIM [N...]   (default N: 1000 10000 50000)
LAYSIM=${1:?laysim binary}
shift
sizes=${*:-1000 10000 50000}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for n in $sizes; do
    awk -v n="$n" 'BEGIN {
        print "lg 1"; print "name mlp" n
        print "input x0 bf16 [batch:8,seq:128,hidden:256]"
        for (i = 0; i < n; i++) {
            printf "weight g%d bf16 [256]\nweight w%d bf16 [256,1024]\nweight v%d bf16 [1024,256]\n", i, i, i
            printf "op n%d bf16 [8,128,256] = rmsnorm x%d g%d axis=2\n", i, i, i
            printf "op h%d bf16 [8,128,1024] = matmul n%d w%d\n", i, i, i
            printf "op a%d bf16 [8,128,1024] = silu h%d\n", i, i
            printf "op m%d bf16 [8,128,1024] = mul a%d h%d\n", i, i, i
            printf "op o%d bf16 [8,128,256] = matmul m%d v%d\n", i, i, i
            printf "op x%d bf16 [8,128,256] = add x%d o%d\n", i + 1, i, i
        }
        print "output x" n
    }' >"$T/g.lg"
    start=$(date +%s.%N)
    "$LAYSIM" graph "$T/g.lg" --stats --json >"$T/out" || exit 1
    end=$(date +%s.%N)
    ops=$(sed -n 's/^ *"ops": \([0-9]*\).*/\1/p' "$T/out")
    tw=$(sed -n 's/^ *"treewidth_ub": \([0-9]*\).*/\1/p' "$T/out")
    printf "blocks %6d  ops %7d  bytes %9d  treewidth_ub %d  seconds %.3f\n" "$n" "$ops" \
        "$(wc -c <"$T/g.lg")" "$tw" "$(awk -v a="$start" -v b="$end" 'BEGIN { print b - a }')"
done
