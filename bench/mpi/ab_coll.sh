#!/usr/bin/env bash
# Collectives A/B in one run: collbench (bench/mpi/collbench.c, built against each)
# on N ranks of this node, A = a build before a change, B = a build with it. Rounds
# alternate the order; the table gives medians and the median of the per-round
# ratios B/A (time: lower is better).
# usage: bench/mpi/ab_coll.sh BUILD_A BUILD_B
#   env: ROUNDS (7), RANKS (2), TESTS (every collbench test), SIZES (8 1K 64K 1M)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../ab_lib.sh"
ab_builds "$@"
ROUNDS=${ROUNDS:-7} RANKS=${RANKS:-2} SIZES=${SIZES:-8 1K 64K 1M}
TESTS=${TESTS:-barrier bcast reduce allreduce gather scatter allgather alltoall reduce_scatter scan}
for x in "$A" "$B"; do "$x/bin/mpicc" -std=c11 -O2 -o "$x/bin/ab-collbench" "$here/collbench.c"; done
measure() { # LABEL BUILD ROUND
    local t s sizes args
    for t in $TESTS; do
        sizes=$SIZES
        [ "$t" = barrier ] && sizes=0
        for s in $sizes; do
            args=(--min "$s" --max "$s")
            [ "$t" = barrier ] && args=()
            "$2/bin/mpiexec" -n "$RANKS" --timeout 300 "$2/bin/ab-collbench" "$t" "${args[@]}" --csv |
                sed "s/^/$1,$3,/" >>"$ab_csv"
        done
    done
}
ab_rounds "$ROUNDS" measure
ab_summary
